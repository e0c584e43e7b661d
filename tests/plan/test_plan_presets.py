"""Model presets: the published config.json values, lookup, and expansion inside `moecfg check`."""
from __future__ import annotations

import pytest
from conftest import run_lint

from moecfg.presets import lookup

# The catalog's values against each published config.json: tests/test_presets_models.py.


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
