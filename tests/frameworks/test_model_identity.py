"""One model identity for every framework (issue 32): a model named by a `models:` config.json takes the
`model_type` / `architectures` the framework's registry compares, as a preset of the same family does.

- xLLM keys the kernel backend on `model_type` (jd-opensource/xllm@87e8d6e xllm/models/model_registry.cpp:69-82:
  "deepseek_v4" is TORCH-only; :116 qwen3 and qwen3_moe take both backends; v0.9.1 @ef1543a :112 only qwen3).
- vllm-mindspore keys its native models on `architectures` (mindspore-ai/vllm-mindspore@423bd12
  vllm_mindspore/model_executor/models/registry.py:64-83: "Qwen3MoeForCausalLM").
"""
from __future__ import annotations

import json

import pytest

from moecfg.backends import Options
from moecfg.checking.launch import lint_launch_file
from moecfg.frameworks import LaunchContext
from moecfg.frameworks.models import resolve_model
from moecfg.presets.hf_config import preset_from_dict
from moecfg.sources.readers import read_shell

# DeepSeek-V4-Flash as its config.json writes it (the values of the deepseek-v4-flash preset)
DSV4 = {"architectures": ["DeepseekV4ForCausalLM"], "model_type": "deepseek_v4", "hidden_size": 4096,
        "n_routed_experts": 256, "num_experts_per_tok": 6, "n_shared_experts": 1, "num_hidden_layers": 43}
QWEN3_MOE = {"architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe", "hidden_size": 4096,
             "num_experts": 128, "num_experts_per_tok": 8, "moe_intermediate_size": 1536, "num_hidden_layers": 94}


def ctx_with(tmp_path, cfg: dict, release: str = "main") -> LaunchContext:
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    return LaunchContext(product="A3", product_source="--product", models=(("*", "config.json"),),
                         settings_dir=str(tmp_path), framework_versions=(("xllm", release),))


def xllm(tmp_path, cfg, *flags, release="main"):
    text = "xllm --model /data/ckpt --devices=npu:0 --nnodes=16 --ep_size=16 " + " ".join(flags) + "\n"
    return lint_launch_file(read_shell(text), "run.sh", ctx_with(tmp_path, cfg, release), Options())


def test_config_json_keeps_the_top_level_model_type_and_architectures():
    p = preset_from_dict({"model_type": "qwen3_5_moe", "architectures": ["Qwen3_5MoeForConditionalGeneration"],
                          "text_config": {"model_type": "qwen3_5_moe_text", "hidden_size": 4096, "num_experts": 512,
                                          "num_experts_per_tok": 10}})
    assert (p.model_type, p.architectures) == ("qwen3_5_moe", ("Qwen3_5MoeForConditionalGeneration",))


@pytest.mark.parametrize("text, model_type, arch", [
    ("deepseek-ai/DeepSeek-V4-Flash", "deepseek_v4", ()),
    ("/models/DeepSeek-V3", "deepseek_v3", ("DeepseekV3ForCausalLM",)),
    ("Qwen/Qwen3-235B-A22B", "qwen3_moe", ("Qwen3MoeForCausalLM",)),
    ("Qwen/Qwen3.5-397B-A17B", "qwen3_5_moe", ("Qwen3_5MoeForConditionalGeneration",)),
    ("Qwen/Qwen3-VL-30B-A3B-Instruct", "qwen3_vl_moe", ("Qwen3VLMoeForConditionalGeneration",)),
    ("moonshotai/Kimi-K2-Instruct", "kimi_k2", ("DeepseekV3ForCausalLM",)),
    ("MiniMaxAI/MiniMax-M3", "", ()),  # a family moecfg does not record: unknown, never guessed
])
def test_preset_identity(text, model_type, arch):
    dims = resolve_model(text, LaunchContext())
    assert (dims.model_type, dims.architectures) == (model_type, arch)


def test_registry_comparison_reads_dashes_as_underscores(tmp_path):
    dims = resolve_model("/data/ckpt", ctx_with(tmp_path, DSV4))
    assert dims.is_type("deepseek-v4") and dims.is_type("deepseek_v4") and not dims.is_type("deepseek_v3")
    assert dims.is_family("deepseek")


def test_xllm_torch_is_accepted_for_deepseek_v4_from_a_config_json(tmp_path):
    # model_registry.cpp:116-124 @87e8d6e: deepseek_v4 is TORCH-only, TORCH is what it supports
    found = [d for r in xllm(tmp_path, DSV4, "--npu_kernel_backend=TORCH") for d in r.diagnostics]
    assert not any(d.code == "MC025" for d in found)


def test_xllm_atb_is_refused_for_deepseek_v4_from_a_config_json(tmp_path):
    found = [d for r in xllm(tmp_path, DSV4, "--npu_kernel_backend=ATB") for d in r.diagnostics if d.code == "MC025"]
    assert found and found[0].severity == "error" and "model type deepseek_v4" in found[0].message


def test_xllm_auto_resolves_to_torch_and_derives_the_dispatch(tmp_path):
    # AUTO -> TORCH for deepseek_v4 (model_registry.cpp:110-112), EP level 2, fused 0: dispatch_v2 is derived
    results = xllm(tmp_path, DSV4, "--npu_kernel_backend=AUTO", "--expert_parallel_degree=2",
                   "--enable_fused_mc2=0", "--max_seqs_per_batch=8")
    calls = [r for r in results if r.op == "dispatch_combine_v2"]
    assert calls and calls[0].arguments["h"] == 4096 and calls[0].arguments["moe_expert_num"] == 256


@pytest.mark.parametrize("release, fails", [("0.9.1", True), ("main", False)])
def test_xllm_qwen3_moe_on_torch_needs_v0_10(tmp_path, release, fails):
    # v0.9.1 (@ef1543a model_registry.cpp:112): only `qwen3` takes both backends; qwen3_moe joined at v0.10.0 (:116)
    found = [d for r in xllm(tmp_path, QWEN3_MOE, "--npu_kernel_backend=TORCH", release=release)
             for d in r.diagnostics if d.code == "MC025"]
    assert bool(found) == fails
    if fails:
        assert "ef1543a" in found[0].message and "--npu_kernel_backend=ATB" in found[0].message


def test_vllm_mindspore_qwen3_moe_from_a_config_json_is_native(tmp_path):
    # registry.py:72 @423bd12 registers Qwen3MoeForCausalLM natively; pure EP on A3 fixes 512 rows per rank
    # (fused_moe.py:241-252), so 2048 batched tokens per rank fail at the first prefill step
    from moecfg.checking.engine import check_bytes
    from moecfg.checking.settings import Cli, Config, FilePolicy

    (tmp_path / "config.json").write_text(json.dumps(QWEN3_MOE))
    config = Config(product="A3", cann_version="9.0.1", framework_versions={"vllm-mindspore": "0.6.0rc1"},
                    models={"/data/qwen3-moe": "config.json"}, path=str(tmp_path / ".moecfg.yaml"))
    text = ("export VLLM_MS_MODEL_BACKEND=Native\nexport HCCL_BUFFSIZE=4096\nvllm-mindspore serve /data/qwen3-moe "
            "--tensor-parallel-size 16 --enable-expert-parallel --max-num-batched-tokens 2048\n")
    done = check_bytes(text.encode(), str(tmp_path / "serve.sh"), policy=FilePolicy(config, Cli()))
    found = [d for r in done.results for d in r.diagnostics]
    assert not any("no native model" in d.message for d in found)
    assert any(d.code == "MC922" and d.severity == "error" and "2048" in d.message for d in found)


def test_mindie_atb_picks_the_deepseek_section_by_model_type(tmp_path, monkeypatch):
    # MindIE ATB merges the served model type's `models` section (examples/atb_models/atb_llm/models/__init__.py:
    # 70-82 @8b4871a); a config.json whose path names nothing still says model_type deepseek_v3
    import moecfg.frameworks.mindie.atb as atb

    cfg = {"_name_or_path": "/data/ckpt-7", "model_type": "deepseek_v3", "hidden_size": 7168,
           "n_routed_experts": 256, "num_experts_per_tok": 8}
    dims = resolve_model("/data/ckpt-7", ctx_with(tmp_path, cfg))
    assert dims.is_family("deepseek") and not dims.is_family("qwen")
    monkeypatch.setattr(atb, "sections", lambda lay: ["qwen_moe", "deepseekv2"])  # the entry's two sections
    assert atb.applicable(None, dims) == "deepseekv2"
