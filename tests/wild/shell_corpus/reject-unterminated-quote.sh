# source: issue 21 item 2 (bash refuses: the quote is never closed)
# MC020 at line 3
MODEL="/models/DeepSeek-V3
vllm serve $MODEL --tensor-parallel-size 16 --enable-expert-parallel
