"""plan: each answer re-checked by the engine on the emitted YAML (the answer passes, the next value fails)."""
from __future__ import annotations

import json

import pytest
import yaml
from click.testing import CliRunner

from moecfg.cli import cli
from moecfg.checking.engine import lint_text
from moecfg.plan import solver
from moecfg.plan.problem import PlanError, build

DSV3_A3 = {"product": "A3", "model": "deepseek-v3", "quant_mode": 2}


def run(*args):
    return CliRunner().invoke(cli, ["plan", *args])


def emitted(*args) -> list:
    out = run(*args, "--emit", "yaml")
    assert out.exit_code == 0, out.output
    return [d for d in yaml.safe_load_all(out.output) if d]


def codes(doc: dict) -> set:
    res = lint_text(yaml.safe_dump(doc), "emitted.yaml")[0]
    return {d.code for d in res.diagnostics if d.severity in ("error",) or d.code == "MC503"}


def test_min_buffer_closed_form_dsv3_ep32_bs96():
    # 2*(96*14848*32*8 + 96*14336*8) = 751828992 B; /2^20 = 716.99 -> 717 MB
    ans = solver.min_buffer(build(DSV3_A3, "9.0.1"), 32, 96)
    assert (ans.buffer_mb, ans.required["ep"]) == (717, 751828992)
    assert ans.ok and ans.next_value == 716 and ans.next_verdict.codes == ["MC501"]


@pytest.mark.parametrize("cann", ["8.5", "9.0", "latest"])
def test_emitted_min_buffer_passes_and_one_mb_less_fails(cann):
    [doc] = emitted("--product", "A3", "--model", "deepseek-v3", "--cann", cann, "--ep", "32", "--bs", "128")
    assert doc["cann_version"] == cann
    assert codes(doc) == set()
    doc["env"]["HCCL_BUFFSIZE"] -= 1
    assert codes(doc) == {"MC501"}


def test_max_bs_for_768_mb_is_102():
    # per token: 2*(14848*32*8 + 14336*8) = 7831552 B; 768 MB = 805306368 B; 805306368 // 7831552 = 102
    [doc] = emitted("--product", "A3", "--model", "deepseek-v3", "--cann", "9.0.1", "--ep", "32", "--buffer", "768")
    assert doc["bs"] == 102 and codes(doc) == set()
    doc["bs"] += 1
    assert codes(doc) == {"MC501"}


def test_max_bs_capped_by_a_rule_names_the_rule():
    # fullmesh_v2 caps bs at 256 (MC1xx); 8 GB of buffer would allow far more
    p = build(dict(DSV3_A3, comm_alg="fullmesh_v2"), "9.0.1")
    ans = solver.max_bs(p, 32, 8192)
    assert ans.bs == 256 and ans.ok
    assert ans.limited_by == ",".join(ans.next_verdict.codes) and ans.next_verdict.codes
    assert "MC501" not in ans.next_verdict.codes


def test_max_bs_is_logarithmic_in_formula_calls(monkeypatch):
    p = build(DSV3_A3, "9.0.1")
    calls = []
    real = p.required_mb
    monkeypatch.setattr(p, "required_mb", lambda *a, **k: calls.append(a) or real(*a, **k))
    assert solver.buffer_bs_limit(p, 32, 768) == 102
    assert len(calls) <= 22  # log2(2^20) + 2, not a scan


def test_a2_advisory_counts_as_too_small():
    p = build({"product": "A2", "model": "qwen3-235b-a22b", "comm_alg": "fullmesh"}, "9.0.1")
    ans = solver.min_buffer(p, 16, 64)
    assert ans.ok and ans.next_verdict.codes == ["MC503"]
    [doc] = emitted("--product", "A2", "--model", "qwen3-235b-a22b", "--set", "comm_alg=fullmesh", "--cann", "9.0.1",
                    "--ep", "16", "--buffer", str(ans.buffer_mb))
    assert doc["bs"] >= 64  # the smallest buffer for bs 64 holds at least 64 tokens
    assert codes(doc) == set()
    doc["bs"] += 1
    assert codes(doc) == {"MC503"}


def test_ep_range_lists_each_rejection_with_its_rule():
    out = run("--product", "A3", "--model", "deepseek-v3", "--cann", "9.0.1", "--ep", "1:64", "--bs", "128",
              "--format", "json")
    assert out.exit_code == 0
    rows = {a["ep_world_size"]: a for a in json.loads(out.output)["answers"]}
    assert [ep for ep, a in rows.items() if a["valid"]] == [2, 4, 8, 16, 32, 64]  # 256 % ep == 0, ep >= 2
    assert rows[1]["rejected_by"] and rows[24]["rejected_by"] == ["MC201"]


def test_ep_range_emit_yaml_is_one_checked_document_per_valid_size():
    docs = emitted("--product", "A3", "--model", "kimi-k2", "--cann", "9.0.1", "--ep", "16:64:16", "--bs", "64")
    assert [d["ep_world_size"] for d in docs] == [16, 32, 48, 64]  # 384 experts: all four divide
    for d in docs:
        assert codes(d) == set()


def test_nothing_valid_exits_1():
    out = run("--product", "A3", "--model", "deepseek-v3", "--ep", "24", "--bs", "8")
    assert out.exit_code == 1 and "rejected: MC201" in out.output


@pytest.mark.parametrize("args, message", [
    (["--product", "A3", "--model", "deepseek-v3", "--ep", "32"], "give --bs"),
    (["--product", "A3", "--model", "nope", "--ep", "32", "--bs", "8"], "not a built-in model"),
    (["--product", "A3", "--model", "deepseek-v3", "--ep", "8:x", "--bs", "8"], "LO:HI"),
    (["--model", "deepseek-v3", "--ep", "8", "--bs", "8"], "--product"),
    (["--product", "A3", "--model", "deepseek-v3", "--ep", "8", "--bs", "0"], ">= 1"),
    (["--product", "A3", "--model", "deepseek-v3", "--set", "quant_mode=two", "--ep", "8", "--bs", "8"], "quant_mode"),
])
def test_usage_errors(args, message):
    out = run(*args)
    assert out.exit_code == 2 and message in out.output


def test_build_rejects_other_ops():
    with pytest.raises(PlanError):
        build({"product": "A3", "model": "deepseek-v3", "op": "dispatch_combine_v1"})


@pytest.mark.parametrize("cann", ["9.0", "9.1", "latest"])
def test_context_mode_solves_ccl_buffer_size(cann):
    # api aclnn_v5: window = ccl_buffer_size - 1 MB; bf16 DSV3 ep 32 bs 128 needs
    # 2 * (128 * 14848 * 32 * 8 + 128 * 14336 * 8) = 1002438656 B = 956 MiB exactly -> ccl 957 MiB = 1003487232 B
    problem = build({"product": "A3", "model": "deepseek-v3", "api": "aclnn_v5"}, cann)
    ans = solver.min_buffer(problem, 32, 128)
    assert (ans.buffer_mb, ans.required["ep"]) == (957, 1002438656) and ans.ok
    assert ans.next_value == 956 and ans.next_verdict.codes == ["MC501"]
    doc = problem.document(32, 128, ans.buffer_mb)
    assert doc["ccl_buffer_size"] == 1003487232 and "HCCL_BUFFSIZE" not in (doc.get("env") or {})
