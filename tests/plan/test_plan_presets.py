"""Model presets: the published config.json values, lookup, and expansion inside `moecfg check`."""
from __future__ import annotations

import pytest
from conftest import run_lint

from moecfg.presets import PRESETS, lookup, names

# (name, hidden_size, routed experts, top-k, shared experts, zero experts) as published in each model's
# config.json on Hugging Face (the preset's `source`); e.g. DeepSeek-V3: hidden_size 7168, n_routed_experts 256,
# num_experts_per_tok 8, n_shared_experts 1; LongCat-Flash: n_routed_experts 512, zero_expert_num 256, moe_topk 12.
PUBLISHED = [
    ("deepseek-v3", 7168, 256, 8, 1, 0),
    ("deepseek-v2-lite", 2048, 64, 6, 2, 0),
    ("qwen3-235b-a22b", 4096, 128, 8, 0, 0),
    ("qwen3-30b-a3b", 2048, 128, 8, 0, 0),
    ("qwen3-next-80b-a3b", 2048, 512, 10, 1, 0),
    ("kimi-k2", 7168, 384, 8, 1, 0),
    ("glm-4.5", 5120, 160, 8, 1, 0),
    ("longcat-flash", 6144, 512, 12, 0, 256),
    ("gpt-oss-120b", 2880, 128, 4, 0, 0),
    ("gpt-oss-20b", 2880, 32, 4, 0, 0),
    ("mixtral-8x7b", 4096, 8, 2, 0, 0),
    ("llama-4-maverick", 5120, 128, 1, 1, 0),
]


@pytest.mark.parametrize("name, hidden, experts, top_k, shared, zero", PUBLISHED)
def test_preset_matches_published_config(name, hidden, experts, top_k, shared, zero):
    p = lookup(name)
    assert (p.hidden_size, p.routed_experts, p.top_k, p.shared_experts, p.zero_experts) == (hidden, experts, top_k, shared, zero)
    assert p.source.startswith("https://huggingface.co/")


def test_catalog_is_exactly_the_published_list():
    assert sorted(names()) == sorted(row[0] for row in PUBLISHED)
    assert len({p.name for p in PRESETS}) == len(PRESETS)


@pytest.mark.parametrize("spelling", ["DeepSeek-V3", "deepseek_v3", "deepseekv3", "DeepSeek-R1", "deepseek r1"])
def test_lookup_ignores_case_and_separators_and_knows_aliases(spelling):
    assert lookup(spelling).name == "deepseek-v3"


def test_lookup_unknown_and_non_string():
    assert lookup("deepseek-v4") is None
    assert lookup(7) is None


A3_MODEL = {"product": "A3", "cann_version": "9.0.1", "model": "deepseek-v3", "bs": 96, "ep_world_size": 32,
            "quant_mode": 2, "env": {"HCCL_BUFFSIZE": 768}}


def test_model_key_fills_h_k_experts_and_gives_the_same_buffer_as_explicit_keys():
    # examples/deepseek-v3-a3-ep32.yaml writes h 7168, k 8, moe 256 by hand: 717 MB (751828992 B)
    linted = run_lint(A3_MODEL)
    assert linted.result.valid, linted
    assert linted.buffers["ep"]["required_bytes"] == 751828992
    assert linted.derived["local_expert_num"] == 8


def test_explicit_keys_win_over_the_preset():
    linted = run_lint(A3_MODEL, moe_expert_num=128)  # 4 experts per rank instead of 8
    assert linted.derived["local_expert_num"] == 4


def test_redundant_experts_add_to_the_preset_count():
    # 256 + 32 = 288 = 9 per rank on 32 ranks: 2*(96*14848*32*9 + 96*14336*8) = 843055104 B = 804 MB > 768
    linted = run_lint(A3_MODEL, redundant_experts=32)
    assert linted.derived["local_expert_num"] == 9
    assert linted.buffers["ep"]["required_bytes"] == 843055104
    assert linted.codes == {"MC501"}


def test_redundant_experts_add_to_an_explicit_count_too():
    assert run_lint(A3_MODEL, moe_expert_num=224, redundant_experts=32).derived["local_expert_num"] == 8


def test_negative_redundant_experts_is_an_error_at_its_key():
    linted = run_lint(A3_MODEL, redundant_experts=-1)
    d = linted.one("MC006")
    assert d.path == "/redundant_experts" and "must be >= 0" in d.message


def test_unknown_model_names_the_catalog_with_a_hint():
    d = run_lint(A3_MODEL, model="deepseek-v4").one("MC006")
    assert d.path == "/model" and "did you mean `deepseek-v3`" in d.message and "kimi-k2" in d.message


def test_rule_on_a_filled_key_points_at_the_model_line():
    text = "product: A3\ncann_version: 9.0.1\nbs: 96\nep_world_size: 24\nmodel: deepseek-v3\n"
    d = run_lint(text).one("MC201")  # 256 % 24 != 0; moe_expert_num came from line 5
    assert (d.line, d.column) == (5, 8)


def test_longcat_preset_fills_zero_experts():
    doc = {"product": "A3", "cann_version": "9.0.1", "model": "longcat-flash", "bs": 32, "ep_world_size": 64,
           "env": {"HCCL_BUFFSIZE": 512}}
    linted = run_lint(doc)
    assert linted.result.valid, linted
    assert linted.derived["zero_expert_ids"] == [512, 768]


def test_shared_experts_filled_only_with_shared_expert_ranks():
    # deepseek-v2-lite has 2 shared experts: without shared ranks the default (1, 0) "none" must stay (no MC206)
    base = {"product": "A3", "cann_version": "9.0.1", "model": "deepseek-v2-lite", "bs": 8, "ep_world_size": 16,
            "h": 2048, "env": {"HCCL_BUFFSIZE": 1024}}
    assert "MC206" not in run_lint(base).codes
    with_ranks = run_lint(base, ep_world_size=18, shared_expert_rank_num=2)
    assert with_ranks.derived["shared_expert_num"] == 2
    assert "MC206" not in with_ranks.codes and "MC207" not in with_ranks.codes
