# source: issue 21 item 2 (bash refuses: `(` never closed)
# MC020 at line 4
echo start
( cd /workspace &&
vllm serve /models/DeepSeek-V3 --tensor-parallel-size 16 --enable-expert-parallel
