# source: issue 21 item 2 (minimal trigger)
ARR=(a b c d)
echo ${ARR[@]:1:2}
vllm serve /models/Qwen3-30B-A3B --tensor-parallel-size 2 --enable-expert-parallel
