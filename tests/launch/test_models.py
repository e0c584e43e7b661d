"""frameworks/models.py: the model string of a launch -> dimensions, by settings map, HF id or preset name."""
import json

import pytest

from moecfg.frameworks import LaunchContext
from moecfg.frameworks.models import quant_hint, resolve_model, unresolved_reason

CTX = LaunchContext()


@pytest.mark.parametrize("text, name, hidden, experts, topk", [
    ("deepseek-ai/DeepSeek-V3", "deepseek-v3", 7168, 256, 8),  # HF id of the preset's own source
    ("deepseek-ai/DeepSeek-R1", "deepseek-v3", 7168, 256, 8),  # R1 shares V3's architecture (config.json)
    ("vllm-ascend/DeepSeek-R1-W8A8", "deepseek-v3", 7168, 256, 8),  # quantised repo: suffix stripped
    ("/models/deepseek-ai/DeepSeek-V3", "deepseek-v3", 7168, 256, 8),  # local copy keeping org/name
    ("/data/DeepSeek-R1", "deepseek-v3", 7168, 256, 8),  # last path component is an alias
    ("Qwen/Qwen3-235B-A22B-Instruct-2507", "qwen3-235b-a22b", 4096, 128, 8),
    ("/weights/Qwen3-30B-A3B-w8a8-dynamic", "qwen3-30b-a3b", 2048, 128, 8),
    ("moonshotai/Kimi-K2-Instruct", "kimi-k2", 7168, 384, 8),
])
def test_resolved(text, name, hidden, experts, topk):
    d = resolve_model(text, CTX)
    assert (d.name, d.hidden, d.num_experts, d.topk) == (name, hidden, experts, topk)


def test_unknown_model_is_not_guessed():
    assert resolve_model("/data/model", CTX) is None
    assert "models:" in unresolved_reason("/data/model", CTX)


def test_settings_map_exact_then_star():
    ctx = LaunchContext(models=(("/data/model", "glm-4.5"), ("*", "deepseek-v3")))
    assert resolve_model("/data/model", ctx).name == "glm-4.5"
    assert resolve_model("/other", ctx).name == "deepseek-v3"
    assert "settings" in resolve_model("/other", ctx).how


def test_settings_map_to_config_json_relative_to_settings(tmp_path):
    cfg = {"hidden_size": 5120, "n_routed_experts": 160, "num_experts_per_tok": 8, "moe_intermediate_size": 1536}
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "config.json").write_text(json.dumps(cfg))
    ctx = LaunchContext(models=(("/x", "m/config.json"),), settings_dir=str(tmp_path))
    d = resolve_model("/x", ctx)
    assert (d.hidden, d.num_experts, d.topk, d.moe_intermediate_size) == (5120, 160, 8, 1536)


def test_bad_settings_value_says_why():
    ctx = LaunchContext(models=(("*", "nonexistent-model"),))
    assert resolve_model("/x", ctx) is None
    assert "neither a built-in model nor a config.json path" in unresolved_reason("/x", ctx)


@pytest.mark.parametrize("text, hint", [("vllm-ascend/DeepSeek-R1-W8A8", "w8a8"),
                                        ("x/Qwen3-235B-A22B-W8A8-Dynamic", "w8a8_dynamic"),
                                        ("x/DeepSeek-V3-w4a8", "w4a8"), ("deepseek-ai/DeepSeek-V3", None),
                                        ("nvidia/DeepSeek-R1-FP4", "fp4")])
def test_quant_hint(text, hint):
    assert quant_hint(text) == hint


@pytest.mark.parametrize("text, name", [("/weights/DeepSeek-V3.1-w8a8-mtp-QuaRot", "deepseek-v3"),
                                        ("/m/Kimi-K2-Instruct-0905-w8a8", "kimi-k2"), ("/m/Qwen3-30B-A3B-FP8-x", "qwen3-30b-a3b")])
def test_checkpoint_tags_after_the_model_name(text, name):
    assert resolve_model(text, CTX).name == name


def test_prefix_needs_two_parts():
    assert resolve_model("/m/Kimi", CTX) is None  # one part is too short to name a model


@pytest.mark.parametrize("text", ["/path/to/model/DeepSeek-R1-Distill-Qwen-1.5B/",  # RLinf/RLinf@a3816b596
                                  "deepseek-ai/DeepSeek-R1-Distill-Llama-70B"])  # examples/reasoning/config/math/
def test_a_distilled_model_is_not_its_teacher(text):  # qwen2.5-1.5b-grpo-megatron.yaml:88: a dense Qwen2.5 1.5B
    assert resolve_model(text, CTX) is None
