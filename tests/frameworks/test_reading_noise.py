"""Reading and noise (issue 32): what a launch file is, read as the platform runs it, and infos that tell the user
something about a launch. Each case is written as users write it; the code line that decides it is cited."""
from __future__ import annotations

from moecfg.checking.engine import check_bytes
from moecfg.checking.settings import Cli, Config, FilePolicy


def results(text: str, name: str = "run.sh", **config):
    done = check_bytes(text.encode(), name, policy=FilePolicy(Config(**config), Cli()))
    return done.results


def diags(text: str, name: str = "run.sh", **config):
    return [d for r in results(text, name, **config) for d in r.diagnostics]


# ---- dstack: `env:` list is the process environment of `commands:` ------------------------------------------------
DSTACK = """\
type: task
name: sglang-deepep
env:
  - SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK=256
commands:
  - python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 16 --dp 16 --enable-dp-attention --moe-a2a-backend deepep --deepep-mode low_latency --cuda-graph-max-bs 128
"""


def test_dstack_env_list_sets_the_low_latency_token_count():
    # SGLang reads SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK for the Buffer (deepep.py, default 128)
    (r,) = [r for r in results(DSTACK, ".dstack.yml") if r.op == "low_latency"]
    assert r.arguments["num_max_dispatch_tokens_per_rank"] == 256


# ---- Dynamo's SGLang worker: its own flags are not unknown SGLang flags -------------------------------------------
def test_dynamo_flags_are_not_unknown_sglang_flags():
    # ai-dynamo/dynamo components/src/dynamo/sglang/backend_args.py: --use-sglang-tokenizer, --disagg-config ...;
    # dynamo.common's groups: --migration-limit, --dyn-tool-call-parser
    text = ("python3 -m dynamo.sglang --model-path deepseek-ai/DeepSeek-V3 --tp 8 --migration-limit 3 "
            "--dyn-tool-call-parser deepseek --use-sglang-tokenizer\n")
    assert not [d for d in diags(text) if d.code == "MC022"]
    plain = "python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 8 --migration-limit 3\n"
    assert [d for d in diags(plain) if d.code == "MC022"]  # SGLang's own server still refuses it


# ---- SGLang's diffusion server is not the LLM server ---------------------------------------------------------------
def test_sglang_serve_diffusion_is_not_checked_against_the_llm_flags():
    # sglang==0.5.23 sglang/cli/serve.py:30-59 (`--model-type` picks the backend), :121-144 (the diffusion parser)
    from moecfg.frameworks import LaunchContext, sglang
    from moecfg.sources.readers import read_shell

    text = "sglang serve --model-type diffusion --model-path black-forest-labs/FLUX.1-dev --num-gpus 4\n"
    (r,) = results(text)
    assert r.op == "none" and not r.diagnostics
    out = sglang.derive(read_shell(text).launches[0], LaunchContext())
    assert [c.kind for c in out.calls] == ["none"] and "diffusion server" in out.calls[0].why_none and not out.notes


def test_sglang_serve_model_type_llm_is_stripped_before_the_llm_parser():
    text = "sglang serve --model-type llm --model-path deepseek-ai/DeepSeek-V3 --tp 8\n"
    assert not [d for d in diags(text) if d.code == "MC022"]


def test_sglang_serve_auto_says_the_model_may_be_a_diffusion_model():
    text = "sglang serve --model-path black-forest-labs/FLUX.1-dev --num-gpus 4\n"
    (mc022,) = [d for d in diags(text) if d.code == "MC022"]
    assert "diffusion" in mc022.message


# ---- NeMo-Run recipe scripts are not Megatron launches ------------------------------------------------------------
def _megatron(text: str) -> bool:
    from moecfg.frameworks import megatron
    from moecfg.sources.readers import read_shell

    return megatron.recognise(read_shell(text).launches[0])


def test_nemo_run_pretrain_script_is_not_a_megatron_launch():
    # NVIDIA/NeMo scripts/performance/llm/pretrain_deepseek_v3.py: NeMo-Run's own arguments
    # (scripts/performance/argument_parser.py: -a/--account, -ng/--num_gpus, -tp, -ep); the job is built in Python
    text = ("python3 scripts/performance/llm/pretrain_deepseek_v3.py --account acct --partition batch -ng 1024 "
            "-gn 8 -tp 1 -ep 64 --container_image nvcr.io/nvidia/nemo:25.09\n")
    assert not _megatron(text)
    assert not [r for r in results(text) if r.launch and r.launch.get("framework") == "megatron"]


def test_other_pretrain_scripts_with_megatron_arguments_stay_launches():
    assert _megatron("torchrun --nproc-per-node 8 pretrain_gpt.py --foo 1\n")  # Megatron-LM's own script
    assert _megatron("python pretrain_deepseek.py --tensor-model-parallel-size 4 --num-experts 64\n")  # Pai-style
    assert _megatron("python pretrain_deepseek.py $MEGATRON_ARGS\n")  # arguments not known statically: kept


# ---- a dense model is not described as having MoE layers ----------------------------------------------------------
def test_dense_model_without_ep_gets_no_moe_layers_info():
    # Qwen3-8B is dense (no routed experts): "vllm-ascend runs the MoE layers with all-gather" tells nothing
    assert not [d for d in diags("vllm serve Qwen/Qwen3-8B --tensor-parallel-size 4\n", product="A3")
                if d.code == "MC041"]
    moe = [d for d in diags("vllm serve deepseek-ai/DeepSeek-V3 --tensor-parallel-size 16\n", product="A3")
           if d.code == "MC041"]
    assert moe and "MoE layers" in moe[0].message
