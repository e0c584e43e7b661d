# source: issue 21 item 2 (bash refuses: `if` without `fi`)
# MC020 at line 3
if [ -n "$NODE_RANK" ]; then
  vllm serve /models/DeepSeek-V3 --tensor-parallel-size 16 --enable-expert-parallel
