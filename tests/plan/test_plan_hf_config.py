"""--model-config: Hugging Face config.json layouts read from small fixture files."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from moecfg.cli import cli
from moecfg.presets.hf_config import ModelConfigError, read_model_config


def write(tmp_path, data, name="config.json"):
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return str(path)


def test_deepseek_layout(tmp_path):
    p = read_model_config(write(tmp_path, {"model_type": "deepseek_v3", "hidden_size": 7168, "n_routed_experts": 256,
                                           "num_experts_per_tok": 8, "n_shared_experts": 1, "num_hidden_layers": 61}))
    assert (p.hidden_size, p.routed_experts, p.top_k, p.shared_experts, p.layers) == (7168, 256, 8, 1, 61)
    assert p.name == "deepseek_v3"


def test_qwen_layout_shared_expert_from_intermediate_size(tmp_path):
    p = read_model_config(write(tmp_path, {"hidden_size": 2048, "num_experts": 512, "num_experts_per_tok": 10,
                                           "shared_expert_intermediate_size": 512}))
    assert (p.routed_experts, p.top_k, p.shared_experts) == (512, 10, 1)


def test_qwen3_moe_without_shared_expert(tmp_path):
    p = read_model_config(write(tmp_path, {"hidden_size": 4096, "num_experts": 128, "num_experts_per_tok": 8,
                                           "shared_expert_intermediate_size": 0}))
    assert p.shared_experts == 0


def test_gpt_oss_layout_local_experts_and_experts_per_token(tmp_path):
    p = read_model_config(write(tmp_path, {"hidden_size": 2880, "num_local_experts": 32, "experts_per_token": 4}))
    assert (p.hidden_size, p.routed_experts, p.top_k) == (2880, 32, 4)


def test_llama4_nested_text_config_and_directory_argument(tmp_path):
    write(tmp_path, {"model_type": "llama4", "text_config": {"hidden_size": 5120, "num_local_experts": 128,
                                                             "num_experts_per_tok": 1}})
    p = read_model_config(str(tmp_path))  # a directory holding config.json
    assert (p.hidden_size, p.routed_experts, p.top_k) == (5120, 128, 1)


def test_longcat_layout_zero_experts(tmp_path):
    p = read_model_config(write(tmp_path, {"hidden_size": 6144, "n_routed_experts": 512, "moe_topk": 12,
                                           "zero_expert_num": 256}))
    assert (p.routed_experts, p.top_k, p.zero_experts) == (512, 12, 256)


# Key layouts as published (aiconfigurator's copies, see tests/test_presets_models.py): reading them gives the
# preset's values, so `--model-config` on the real file and `model: NAME` agree.
@pytest.mark.parametrize("data, name", [
    ({"model_type": "gemma4", "text_config": {"hidden_size": 2816, "num_experts": 128, "top_k_experts": 8,
                                              "moe_intermediate_size": 704, "num_hidden_layers": 30}},
     "gemma-4-26b-a4b"),
    ({"model_type": "minimax_m2", "hidden_size": 3072, "num_local_experts": 256, "num_experts_per_tok": 8,
      "intermediate_size": 1536, "shared_intermediate_size": 0, "num_hidden_layers": 62}, "minimax-m2.5"),
    ({"model_type": "mimo_v2_flash", "hidden_size": 4096, "n_routed_experts": 256, "num_experts_per_tok": 8,
      "n_shared_experts": None, "moe_intermediate_size": 2048, "num_hidden_layers": 48}, "mimo-v2-flash"),
    ({"model_type": "kimi_k25", "text_config": {"hidden_size": 7168, "n_routed_experts": 384, "num_experts_per_tok": 8,
                                                "n_shared_experts": 1, "moe_intermediate_size": 2048,
                                                "num_hidden_layers": 61}}, "kimi-k2.5"),
    ({"model_type": "qwen3_5_moe", "text_config": {"hidden_size": 4096, "num_experts": 512, "num_experts_per_tok": 10,
                                                   "shared_expert_intermediate_size": 1024,
                                                   "moe_intermediate_size": 1024, "num_hidden_layers": 60}},
     "qwen3.5-397b-a17b"),
])
def test_published_layouts_read_as_their_presets(tmp_path, data, name):
    from moecfg.presets import lookup

    p, want = read_model_config(write(tmp_path, data)), lookup(name)
    assert (p.hidden_size, p.routed_experts, p.top_k, p.shared_experts, p.layers, p.moe_intermediate_size) == (
        want.hidden_size, want.routed_experts, want.top_k, want.shared_experts, want.layers, want.moe_intermediate_size)


@pytest.mark.parametrize("shared", [{"num_shared_experts": 2}, {"num_shared_expert": 1}])
def test_kimi_linear_and_hunyuan_shared_expert_keys(tmp_path, shared):
    p = read_model_config(write(tmp_path, {"hidden_size": 7168, "num_experts": 896, "num_experts_per_token": 16,
                                           **shared}))
    assert (p.top_k, p.shared_experts) == (16, next(iter(shared.values())))


@pytest.mark.parametrize("latent", [{"moe_latent_size": 1024}, {"routed_expert_hidden_size": 3584}])
def test_latent_moe_is_refused_not_read_as_hidden_size(tmp_path, latent):
    # Nemotron-3-Super: hidden_size 4096, moe_latent_size 1024; Kimi-K3: hidden_size 7168, routed_expert_hidden_size 3584
    with pytest.raises(ModelConfigError, match="latent MoE.*give h"):
        read_model_config(write(tmp_path, {"hidden_size": 4096, "n_routed_experts": 512, "num_experts_per_tok": 22,
                                           **latent}))


def test_latent_size_equal_to_hidden_or_null_is_read(tmp_path):
    p = read_model_config(write(tmp_path, {"hidden_size": 4096, "n_routed_experts": 512, "num_experts_per_tok": 22,
                                           "moe_latent_size": None, "routed_expert_hidden_size": 4096}))
    assert p.hidden_size == 4096


@pytest.mark.parametrize("data, message", [
    ({"hidden_size": 4096, "num_attention_heads": 32}, "unknown config.json layout: no routed expert count"),
    ({"hidden_size": 4096, "num_experts": 8}, "no experts per token"),
    ({"num_experts": 8, "num_experts_per_tok": 2}, "no hidden size"),
    ({"hidden_size": 4096, "num_experts": 0, "num_experts_per_tok": 2}, "dense model"),
    ({"hidden_size": 4096, "num_experts": "8", "num_experts_per_tok": 2}, "is not a non-negative integer"),
    ([1, 2], "expected a JSON object"),
    ("{not json", "not valid JSON"),
])
def test_bad_configs_raise_a_clear_error(tmp_path, data, message):
    with pytest.raises(ModelConfigError, match=message):
        read_model_config(write(tmp_path, data))


def test_missing_file(tmp_path):
    with pytest.raises(ModelConfigError, match="cannot read"):
        read_model_config(str(tmp_path / "nope.json"))


def test_cli_model_config_drives_plan(tmp_path):
    path = write(tmp_path, {"hidden_size": 7168, "n_routed_experts": 256, "num_experts_per_tok": 8})
    out = CliRunner().invoke(cli, ["plan", "--product", "A3", "--cann", "9.0.1", "--model-config", path, "--ep", "32",
                                   "--bs", "96", "--format", "json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["answers"][0]["hccl_buffsize_mb"] == 717  # same as the deepseek-v3 preset


def test_cli_unknown_layout_is_a_usage_error_without_traceback(tmp_path):
    path = write(tmp_path, {"hidden_size": 4096})
    out = CliRunner().invoke(cli, ["plan", "--product", "A3", "--model-config", path, "--ep", "32", "--bs", "96"])
    assert out.exit_code == 2
    assert "unknown config.json layout" in out.output and "Traceback" not in out.output
