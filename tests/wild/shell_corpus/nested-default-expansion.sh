# source: https://github.com/llm-d/llm-d-benchmark/blob/8bc9f1ddd873a24f1657d6cca2e0d0fb6947dd36/llmdbenchmark/standup/preprocess/standalone-preprocess.sh
declare -A compute_cap_map
for compute_cap in 8.0 9.0; do
    if [[ ! -n "${compute_cap_map[$compute_cap]}" ]]; then
        compute_cap_map[$compute_cap]=1
        compute_cap_list="${compute_cap_list:+${compute_cap_list};}$compute_cap"
    fi
done
vllm serve /models/DeepSeek-V3 --tensor-parallel-size 8 --enable-expert-parallel
