"""The recognition table (framework_words.LAUNCHERS): every entry finds a launch line and not prose naming it."""
from __future__ import annotations

import pytest

from moecfg.sources import framework_words as W
from moecfg.sources.seen import seen, surface_of

# (launcher, surface, a launch line, a line that only names the launcher)
CASES = [
    # lead: yanring/Megatron-MoE-ModelZoo@e865051 best_practice/qwen3/run_30b.sh:27; an export is no call
    ("launch script", "shell", "PP=1 VPP=1 TP=1 EP=8 NNODES=4 bash ./sbatch_benchmarking.sh --recompute-granularity full",
     "export EP=8  # then run bash ./sbatch_benchmarking.sh"),
    # nemorl engineer: NVIDIA-NeMo/RL@7ea279abf examples/nemo_gym/nemotron-3-ultra/ultra_launch.sh:878, README prose
    ("NeMo-RL", "shell", "uv run ./examples/nemo_gym/run_grpo_nemo_gym.py \\", "see examples/run_grpo.py for GRPO"),
    # NVIDIA/Megatron-LM's examples/run_simple_mcore_train_loop.py is not NeMo-RL's
    ("NeMo-RL", "shell", "uv run python examples/run_sft.py --config x.yaml",
     "python examples/run_simple_mcore_train_loop.py --config x.yaml"),
    ("prime-rl", "shell", "uv run rl @ examples/advanced/glm-5.2/swe.toml --output-dir /tmp/x",
     "uv run ruff check . # lint rl code"),
    ("prime-rl", "shell", "uv run inference --vllm.model zai-org/GLM-5-FP8 --vllm.enable-expert-parallel",
     "the inference @ config and the rl entry point"),
    ("vLLM", "shell", "vllm serve deepseek-ai/DeepSeek-V3 --enable-expert-parallel", "we use vLLM serve quality"),
    ("vLLM-MindSpore", "shell", "vllm-mindspore serve Qwen/Qwen3-8B --data-parallel-size 4",
     "vllm-mindspore serves models on MindSpore"),
    ("xLLM", "shell", "  nohup /path/to/xllm \\", "  -lxllm \\"),
    ("xLLM", "shell", "  nohup numactl -C $((DEVICE*40))-$((DEVICE*40+39)) $XLLM_PATH \\",
     "We run xllm on Ascend: see xllm --help and $XLLM_PATH."),
    ("SGLang", "shell", "python3 -m sglang.launch_server --model-path x --ep 8", "SGLang is our engine"),
    ("SGLang", "shell", "python3 -m dynamo.sglang --model-path x --ep-size 8", "dynamo.sglang is Dynamo's worker"),
    ("vLLM (lm-eval config)", "yaml", "serve:\nmodel_name: Qwen/Qwen3-30B-A3B",
     "serve_note: x\nmodel_name: Qwen/Qwen3-30B-A3B"),
    ("LMDeploy (autotest config)", "yaml", "  engine_config:\n    ep: 8\n  backends:\n  - name: pytorch",
     "  engine_config_note: x\n  backends:\n  - name: pytorch"),
    ("Dynamo vLLM", "shell", "python -m dynamo.vllm --model x --enable-expert-parallel", "run dynamo.vllm workers"),
    ("Megatron-LM", "shell", "torchrun $DISTRIBUTED_ARGS pretrain_gpt.py --expert-model-parallel-size 8",
     "├── pretrain_gpt.py"),
    ("LMDeploy", "shell", "lmdeploy serve api_server Qwen/Qwen3-30B-A3B --ep 8", "LMDeploy serves the model"),
    ("verl", "shell", "python3 -m verl.trainer.main_ppo actor_rollout_ref.rollout.name=vllm",
     "verl trainer docs: see the verl trainer page"),
    ("verl", "shell", "    -- python3 -m recipe.dapo.main_dapo \\", "the recipe.dapo module holds main_dapo"),
    ("verl", "yaml", "actor_rollout_ref:", "  actor_rollout_ref_note: x"),
    # verlpai: ChatLearn's entry (Pai-Megatron-Patch@a098ca5 examples/qwen3/run_mcore_qwen3_30b_chatlearn.sh:45),
    # its config (examples/qwen3/chatlearn_configs/grpo_megatron.yaml:1), verl's nested recipe module
    ("ChatLearn", "shell", "python chatlearn_entrypoint.py grpo --config-file chatlearn_configs/grpo_megatron.yaml \\",
     "see chatlearn_entrypoint.py for the launcher"),
    ("ChatLearn", "yaml", "runtime_args:\n  train_backend: megatron\nmodels:\n  policy_trainer:\n    num_gpu: 8",
     "runtime_args_note: x"),
    ("Pai-Megatron-Patch script", "shell", "sh run_mcore_qwen3.sh dlc A3B 1 8  # cd Pai-Megatron-Patch/examples/qwen3",
     "echo sh run_mcore_qwen3.sh dlc A3B  # Pai-Megatron-Patch"),
    ("Pai-Megatron-Patch convertor", "shell",
     "cmd=\"torchrun ${DISTRIBUTED_ARGS[@]} impl/convert.py \\", "see impl/convert.py for torchrun"),
    ("verl", "shell", "    -- python3 -m recipe.dapo.dapo_transfer_queue.main_dapo \\",
     "the recipe.dapo.dapo_transfer_queue package holds main_dapo"),
    ("slime", "shell", "   -- python3 train.py \\\n   --rollout-batch-size 8", "slime trains with train loops"),
    ("slime", "py", "    U.execute_train(train_args=train_args)\n'--rollout-batch-size 8'",
     "def build_train_args():\n'--rollout-batch-size 8'"),
    ("ms-swift megatron", "shell", "NPROC_PER_NODE=8 megatron sft --model Qwen/Qwen3-30B-A3B --expert_model_parallel_size 8",
     "Megatron SFT with ms-swift is supported"),
    ("ms-swift", "shell", "CUDA_VISIBLE_DEVICES=0 swift sft --model Qwen/Qwen3-8B", "Swift SFT is described here"),
    ("MindSpeed-RL", "shell", "python cli/train_grpo.py --config-name grpo_qwen3_30b_a3b", "MindSpeed-RL trains GRPO"),
    ("SkyRL", "shell", "uv run --isolated -m examples.train.algorithms.dapo.main_dapo trainer.epochs=1",
     "see examples.train.algorithms.dapo.main_dapo for trainer.epochs"),
    ("ROLL", "yaml", "    strategy_name: megatron_train", "    # strategy_name: megatron_train"),
    ("MindSpeed-MM", "shell", "torchrun $DISTRIBUTED_ARGS mindspeed_mm/fsdp/train/trainer.py x_config.yaml",
     "MindSpeed-MM trains with mindspeed_mm.fsdp"),
    # titanmm
    ("MindSpeed-LLM FSDP2", "shell", "torchrun $DISTRIBUTED_ARGS train_fsdp2.py examples/fsdp2/x.yaml",
     " └── train_fsdp2.py            # FSDP2 训练流程"),
    ("AReaL", "yaml", "  backend: \"megatron:(attn:d4p4t2|ffn:d2p4e4)\"", "  backend: megatron"),
    ("ROLL", "shell", "python examples/start_rlvr_pipeline.py --config_name rlvr_config", "ROLL runs RLVR pipelines"),
    ("SkyRL", "shell", "uv run -m skyrl_train.entrypoints.main_base trainer.epochs=1", "SkyRL trains agents"),
    ("AReaL", "shell", "python3 -m areal.launcher.local examples/math/gsm8k_grpo.py --config x.yaml",
     "AReaL launches local jobs"),
    ("Megatron-Bridge", "shell", "torchrun --nproc-per-node 8 scripts/training/run_recipe.py --recipe qwen3_30b_a3b",
     "Megatron-Bridge has recipes"),
    ("Megatron-Bridge", "shell", './scripts/conversion/convert.sh export --hf-model stepfun-ai/Step-3.7-Flash --ep 4',
     "See scripts/conversion/convert.sh for the conversion."),
    ("Megatron-Bridge", "shell", "uv run python scripts/performance/run_script.py -m qwen -mr qwen3_30b_a3b -ng 16",
     "The scripts/performance/ folder holds the benchmarks."),
    ("Megatron-Bridge", "shell", '"${CONVERT_SH}" roundtrip \\', 'CONVERT_SH="${REPO_ROOT}/scripts/conversion/convert.sh"'),
    # Megatron-Bridge@067f987: a Python test's path strings, prose and imports name a script, they launch nothing
    # (tests/functional_tests/test_groups/diffusion/flux/test_flux_pretrain.py:17,59, tests/unit_tests/recipes/qwen/
    # test_qwen2_recipes.py:240, skills/nemo-mbridge-perf-cuda-graphs/card.yaml:238,
    # scripts/performance/bootstrap.py:26)
    ("Megatron-Bridge", "py", 'cmd = ["uv", "run", "python", "scripts/training/run_recipe.py", "--recipe", "x"]',
     '        "scripts/training/run_recipe.py",'),
    ("Megatron-Bridge", "py", "uv run python scripts/training/run_recipe.py --model gpt_oss_20b --mode pretrain",
     "Uses the generic run_recipe.py entry point with wan_1_3b_pretrain_config and wan_step."),
    ("Megatron-Bridge", "py", "    uv run python examples/conversion/hf_megatron_roundtrip.py \\",
     'mod = importlib.import_module("megatron.bridge.recipes.qwen.qwen2")'),
    ("Megatron-Bridge", "py", 'subprocess.run(["python", "-m", "megatron.bridge.recipes.llama.llama3"])',
     'ENTRYPOINT_RECIPE = "run_recipe.py"'),
    ("Megatron-Bridge", "yaml", "  python scripts/performance/setup_experiment.py \\",
     "  cli_path: scripts/performance/run_script.py"),
    # a word of a bash array on its own line (examples/models/qwen/qwen3_omni/local_train_thinker_full.sh:272)
    ("Megatron-Bridge", "shell", '    "${ROOT_DIR}/scripts/training/run_recipe.py"',
     "# scripts/training/run_recipe.py is the entry point"),
    ("Megatron-Bridge", "yaml", "  uv run python -m torch.distributed.run --nproc_per_node=8 "
     "examples/conversion/hf_to_megatron_generate_text.py --ep 8", "  - scripts/training/run_recipe.py"),
    ("torchtitan", "shell", "torchrun --nproc_per_node 8 -m torchtitan.train --job.config_file deepseek_v3.toml",
     "torchtitan trains DeepSeek"),
    ("LightLLM", "shell", "python -m lightllm.server.api_server --model_dir /m --tp 8 --enable_ep_moe",
     "we use LightLLM to serve"),
    ("FastDeploy", "shell", "python -m fastdeploy.entrypoints.openai.api_server --model x --enable-expert-parallel",
     "FastDeploy is PaddlePaddle's engine"),
    ("rtp-llm", "shell", "python3 -m rtp_llm.start_server --checkpoint_path /m", "rtp-llm serves Qwen"),
    # FastDeploy's engine YAML: its own kv_cache_ratio beside enable_expert_parallel (a vLLM config has only the latter)
    ("FastDeploy", "yaml", "enable_expert_parallel: True\nkv_cache_ratio: 0.75\ntensor_parallel_size: 8",
     "enable_expert_parallel: true\nmax_model_len: 32768"),
    ("TensorRT-LLM", "shell", "trtllm-serve deepseek-ai/DeepSeek-R1 --ep_size 8 --tp_size 8",
     "TensorRT-LLM's trtllm-serve command starts an OpenAI server."),
    # rlinf engineer: RLinf/RLinf@a3816b596 examples/reasoning/config/math/qwen3-30b-grpo-megatron.yaml:138-139 and
    # examples/reasoning/run_main_grpo_math.sh:20 (a config without `cluster:` is not RLinf's)
    ("RLinf", "yaml", "  training_backend: megatron\ncluster:\n  num_nodes: 16", "  training_backend: megatron"),
    ("RLinf", "shell", "python ${REPO_PATH}/examples/reasoning/main_grpo.py --config-path x/ --config-name q",
     "see examples/reasoning/main_grpo.py"),
    # hiyouga/LLaMA-Factory@ff6d4d12e examples/README.md (USE_MCA), docs/en/advanced/distributed/fsdpturbo-ep-efsdp.md:18-21
    ("LLaMA-Factory", "shell", "USE_MCA=1 llamafactory-cli train examples/megatron/qwen3_moe_full.yaml",
     "llamafactory-cli train runs Hugging Face's trainer unless USE_MCA=1"),
    ("LLaMA-Factory", "yaml", "dist_config:\n  name: fsdpturbo\n  ep_size: 16", "dist_config: {}"),
    ("torchrun", "shell", "torchrun --nproc_per_node 8 my_train.py --ep 8", "we launch with torchrun, --ep 8 is set"),
    # bridge3: Megatron-Bridge's training launcher (scripts/training/README.md:6 names it in prose too)
    ("Megatron-Bridge", "shell", "./scripts/training/train.sh --nodes 2 --gpus-per-node 8 --recipe x",
     "`scripts/training/train.sh` invokes `setup_experiment.py` on a Slurm login node"),
    # --- mlmwild: MindSpeed-LLM FSDP2 (Ascend/MindSpeed-LLM@c77308a tests/st/shell_scripts/
    #     tune_gpt_oss_20b_a3b_4k_fsdp2.sh:20, examples/fsdp2/glm52/glm52_744b_4k_fsdp2_A3.yaml:19-28), Megatron-LM's
    #     ModelOpt files and NeMo functional tests (NVIDIA/Megatron-LM@d98e8a6), miles (radixark/miles@31f1ca9)
    ("MindSpeed-LLM FSDP2", "yaml", "  ep_fsdp_size: 4\nparallel:\n  ep_size: 128", "  ep_fsdp_size: 4\nmodel:\n  x: 1"),
    ("Megatron-LM", "shell", "${LAUNCH_SCRIPT} ${PRETRAIN_EXE} \\\nPRETRAIN_EXE=${SCRIPT_DIR}/pretrain_gpt.py",
     "echo PRETRAIN_EXE is pretrain_gpt.py"),
    ("Megatron-LM ModelOpt", "shell", "EP=64\nETP=1\nHF_MODEL_CKPT=/m", "EP=64\nETP=1\nTP=8"),
    ("NeMo", "yaml", "MODEL_ARGS:\n  trainer.strategy.expert_model_parallel_size: 4", "MODEL_ARGS:\n  --num-layers: 12"),
    ("miles", "shell", "convert_checkpoint(\nfrom miles.utils.external_utils.command_utils import convert_checkpoint",
     "echo convert_checkpoint( runs later"),
    ("slime/miles", "shell", "torchrun --nproc-per-node 8 tools/convert_hf_to_torch_dist.py --hf-checkpoint /m",
     "tools/convert_hf_to_torch_dist.py converts the checkpoint"),
    ("miles", "shell", "python scripts/run_kimi_k3.py train --head-ip $HEAD --tag miles",
     "miles is started by a Python script such as run_kimi_k3"),
    # --- qa2: AI-Hypercomputer/gpu-recipes@2e1fd5e training/a4/qwen3_235b_a22b/megatron-bridge-gke/nemo2602/
    #     128gpus-bf16-seq4096-gbs4096/recipe/launcher.sh:110 (a copy of setup_experiment.py), NVIDIA/NeMo@8cfedd7
    #     examples/nlp/language_modeling/conf/megatron_gpt_config.yaml:36,87 (a NeMo 1.x config with EP)
    ("Megatron-Bridge", "shell", "  python scripts/performance/custom_setup_experiment.py \\",
     "cp $CUSTOM_SETUP_EXPERIMENT_SCRIPT_PATH scripts/performance/custom_setup_experiment.py"),
    ("NeMo", "yaml", "exp_manager:\n  exp_dir: null\nmodel:\n  expert_model_parallel_size: 8",
     "exp_manager:\n  exp_dir: null\nmodel:\n  tensor_model_parallel_size: 8"),
]


@pytest.mark.parametrize("launcher, surface, launch, prose", CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_entry_finds_its_launch_and_not_prose(launcher, surface, launch, prose):
    found = seen(launch + "\n", surface)
    assert [s.launcher.name for s in found][:1] == [launcher]
    assert found[0].line == 1
    assert seen(prose + "\n", surface) == []


def test_every_entry_of_the_table_has_a_case():
    assert {launcher.name for launcher in W.LAUNCHERS} <= {c[0] for c in CASES}


def test_every_entry_is_well_formed():
    for launcher in W.LAUNCHERS:
        assert launcher.kind in ("engine", "trainer") and launcher.words and launcher.patterns
        assert launcher.surfaces <= W.ALL and launcher.reason


def test_prose_in_markdown_is_no_launch_but_a_code_block_is():
    text = "# Serving\nRun `vllm serve` with LightLLM:\npython -m lightllm.server.api_server --tp 8\n" \
           "```bash\npython -m lightllm.server.api_server --tp 8\n```\n"
    assert [(s.line, s.launcher.name) for s in seen(text, "markdown")] == [(5, "LightLLM")]


def test_a_python_import_or_comment_is_no_launch():
    text = ("from verl.trainer.main_ppo import run_ppo\n# python -m verl.trainer.main_ppo\n"
            "cmd = ['python3', '-m', 'verl.trainer.main_ppo', 'trainer.n_gpus_per_node=8']\n")
    assert [(s.line, s.launcher.name) for s in seen(text, "py")] == [(3, "verl")]


def test_a_shell_comment_is_no_launch():
    assert seen("# python -m lightllm.server.api_server --tp 8\n", "shell") == []


def test_slime_train_py_needs_slime_flags_in_the_file():
    assert seen("python3 train.py --epochs 3\n", "shell") == []


def test_the_specific_entry_wins_over_the_generic_torchrun():
    line = "torchrun --nproc-per-node 8 scripts/training/run_recipe.py --recipe x --ep 8\n"
    assert [s.launcher.name for s in seen(line, "shell")] == ["Megatron-Bridge"]


def test_one_entry_per_line_and_line_numbers():
    text = "set -e\n\npython -m lightllm.server.api_server --tp 8 # lightllm again\nvllm serve m --ep 8\n"
    assert [(s.line, s.launcher.name) for s in seen(text, "shell")] == [(3, "LightLLM"), (4, "vLLM")]


@pytest.mark.parametrize("name, surface", [("a.sh", "shell"), ("b.yml", "yaml"), ("README.md", "markdown"),
                                           ("x.rst", "markdown"), ("run.py", "py"), ("LICENSE", None)])
def test_surface_of(name, surface):
    assert surface_of(name, "") == surface


def test_restructuredtext_literal_blocks_are_code_and_paragraphs_are_prose():
    text = ("Serving\n=======\n\nWe run python -m lightllm.server.api_server in production.\n\n"
            ".. code-block:: bash\n\n   python -m lightllm.server.api_server --tp 8 \\\n      --enable_ep_moe\n\n"
            "Or::\n\n    trtllm-serve deepseek-ai/DeepSeek-V3 --ep_size 8\n\nDone.\n")
    assert [(s.line, s.launcher.name) for s in seen(text, "markdown")] == [(8, "LightLLM"), (13, "TensorRT-LLM")]


def test_a_python_string_naming_a_command_without_arguments_is_no_launch():
    """ms-swift@3602360a5 swift/ui/llm_train/runtime.py:554 compares a task name with a command name."""
    text = "    elif 'swift rlhf' in task:\n        cmd = 'swift rlhf --model Qwen/Qwen3-8B --rlhf_type grpo'\n"
    assert [(s.line, s.launcher.name) for s in seen(text, "py")] == [(2, "ms-swift")]


def test_an_import_in_a_markdown_code_block_is_no_launch():
    """NVIDIA-NeMo/Megatron-Bridge@067f987df docs/training/mixed-precision.md:125."""
    text = "```python\nfrom megatron.bridge.recipes.llama import llama32_1b_peft_config\n```\n"
    assert seen(text, "markdown") == []


def test_a_huge_line_costs_little_and_is_no_launch():
    import time

    line = "ray job submit " + "-- python3 train.py " + "x" * 200_000 + " --rollout-batch-size 8\n"
    start = time.process_time()
    assert seen(line * 20, "shell") == []
    assert time.process_time() - start < 0.5


def test_a_python_assignment_is_no_argument_of_the_command_it_names():
    """ms-swift@3602360a5 swift/ui/llm_train/runtime.py:551 `args = task.split('swift sft')[1]` and
    vllm-ascend@182b75e tools/docs_codegen/converters.py:118 build or split a command; `--tp=8` is an argument."""
    text = ("        args = task.split('swift sft')[1]\n"
            "    command_lines = [f\"vllm serve {model}\"]\n"
            "    if name == 'swift sft':\n"
            "    cmd = 'swift sft --model=Qwen/Qwen3-8B'\n"
            "    cmd = 'NPROC_PER_NODE=8 swift sft x'\n")
    assert [(s.line, s.launcher.name) for s in seen(text, "py")] == [(4, "ms-swift"), (5, "ms-swift")]


def test_a_quoted_command_name_alone_names_a_process_and_is_no_launch():
    """vllm-ascend@182b75e tests/e2e/doctests/001-quickstart-test.sh:43,53 and docs/source/tutorials/models/
    Dots3-Note.md:241 name the process they wait for or look up; a quoted command with arguments is a launch."""
    text = ("  wait_url_ready \"vllm serve\" \"localhost:8000/v1/models\"\n"
            "  VLLM_PID=$(pgrep -f \"vllm serve\")\n"
            "pgrep -af 'VLLM::Worker|sglang serve'\n"
            "sh -c \"vllm serve org/m --enable-expert-parallel\"\n")
    assert [(s.line, s.launcher.name) for s in seen(text, "shell")] == [(4, "vLLM")]


def test_a_training_script_in_a_list_of_files_is_no_launch():
    """Ascend/MindSpeed-RL@05a90d7 tests/run_coverage.sh:228-233 lists the scripts it instruments for coverage."""
    text = ("    local file_list=(\n        \"$BASE_DIR/cli/train_ppo.py\"\n        \"$BASE_DIR/cli/train_dpo.py\"\n    )\n"
            "torchrun $DISTRIBUTED_ARGS cli/train_dpo.py \\\n    --config-name dpo\n"
            "python \"$PROJECT_PATH\"/cli/train_grpo.py --config-dir=\"$PROJECT_PATH\"/configs\n")
    assert [(s.line, s.launcher.name) for s in seen(text, "shell")] == [(5, "MindSpeed-RL"), (7, "MindSpeed-RL")]


def test_a_fence_indented_in_a_nested_list_item_is_code():
    """jd-opensource/xllm@87e8d6e docs/en/features/disagg_pd.md:38-44: the Markdown reader reads this block."""
    text = ("- Taking Qwen2-7B as an example\n    - Start Prefill Instance\n        ```bash\n"
            "        /path/to/xllm --model=Qwen2-7B-Instruct \\\n               --port=8010\n        ```\n")
    assert [(s.line, s.launcher.name) for s in seen(text, "markdown")] == [(4, "xLLM")]

