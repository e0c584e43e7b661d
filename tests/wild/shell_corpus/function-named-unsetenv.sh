# source: https://github.com/vllm-project/vllm-ascend/blob/182b75ea84ff13ece27b57391331ef8935410aea/csrc/scripts/package/ops_transformer/scripts/opp_uninstall.sh
unsetenv() {
  unset ASCEND_OPP_PATH
}
unsetenv
vllm serve /models/DeepSeek-V3 --tensor-parallel-size 16 --enable-expert-parallel
