# source: https://github.com/vllm-project/vllm-ascend/blob/182b75ea84ff13ece27b57391331ef8935410aea/csrc/scripts/package/ops_transformer/scripts/opp_common.sh
opapi_lib_path=/usr/local/Ascend/lib64
for file_so in $(ls -1 ${opapi_lib_path} | grep "so"$); do
  echo "${opapi_lib_path}/${file_so}"
done
vllm serve /models/DeepSeek-V3 --tensor-parallel-size 16 --enable-expert-parallel
