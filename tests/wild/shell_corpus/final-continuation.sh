# source: https://github.com/NVIDIA/Megatron-LM/blob/d98e8a64ddf34856e74b24714e3bedb2f5a39553/examples/t5/train_t5_220m_distributed.sh
torchrun --nproc_per_node 8 pretrain_t5.py \
    --num-layers 12 \
    --distributed-backend nccl \
    --load $CHECKPOINT_PATH \