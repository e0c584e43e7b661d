"""Recipe files read as launches: srt-slurm job files and vllm-project/recipes model recipes (strategies)."""
