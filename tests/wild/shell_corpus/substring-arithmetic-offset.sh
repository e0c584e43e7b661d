# source: https://github.com/NVIDIA/Megatron-LM/blob/d98e8a64ddf34856e74b24714e3bedb2f5a39553/tests/functional_tests/shell_test_utils/_run_training.sh
for ARGUMENT in "$@"; do
    KEY=$(echo $ARGUMENT | cut -f1 -d=)
    KEY_LENGTH=${#KEY}
    VALUE="${ARGUMENT:$KEY_LENGTH+1}"
    export "$KEY"="$VALUE"
done
torchrun --nproc_per_node 8 pretrain_gpt.py --num-experts 64 --expert-model-parallel-size 8
