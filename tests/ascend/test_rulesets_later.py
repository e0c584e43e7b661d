"""The rule sets read after the first four: 9.1.0 (branch head), 9.1.0-beta.1, master-2026-07-24; `moecfg rules
--ruleset A --ruleset B` / `--diff A B`.

Code points (cannmirror/ops-transformer, libochao-huawei/ops-transformer for 5778144): v9.1.0.pre 121f37d,
9.1.0 branch 3311e26 (2026-07-23), v9.1.0-beta.1 f3bd274 (2026-05-09), master 25fb6b9 (2026-07-24), latest 5778144.
"""
from __future__ import annotations

import json

import pytest

from lintkit import A3_HIER, lint_product
from moecfg.backends.ascend import ruleset_diff
from moecfg.cli import main

CTX = {"api": "aclnn_v5", "ccl_buffer_size": 2**31}

ROWS = [
    # A2 fullmesh H: 7168 before e74eca1 (9.0, 9.1.0-beta.1), 10240 after (9.1, 9.1.0, master, latest)
    ("MC104", "A2", ("9.0", "9.1.0-beta.1"), {"h": 7168}, False),
    ("MC104", "A2", ("9.0", "9.1.0-beta.1"), {"h": 7200}, True),
    ("MC104", "A2", ("9.1", "9.1.0", "master-2026-07-24"), {"h": 10240}, False),
    ("MC104", "A2", ("9.1", "9.1.0", "master-2026-07-24"), {"h": 10272}, True),
    # A2 fullmesh moe: 512 -> 1024 with e74eca1 (ep 16: 1024 / 16 = 64 per rank)
    ("MC106", "A2", ("9.1.0-beta.1",), {"moe_expert_num": 528}, True),
    ("MC106", "A2", ("9.1.0",), {"moe_expert_num": 1024}, False),
    ("MC106", "A2", ("9.1.0",), {"moe_expert_num": 1040}, True),
    # TP: kept by 9.1.0 and 9.1.0-beta.1 (tp 2 with one expert per rank), removed on master 2026-07-24
    ("MC111", "A3", ("9.1.0", "9.1.0-beta.1"), {"tp_world_size": 2, "moe_expert_num": 32}, False),
    ("MC111", "A3", ("9.1.0", "9.1.0-beta.1"), {"tp_world_size": 3, "moe_expert_num": 32}, True),
    ("MC111", "A3", ("master-2026-07-24",), {"tp_world_size": 2, "moe_expert_num": 32}, True),
    ("MC111", "A3", ("master-2026-07-24",), {"tp_world_size": 1, "tp_rank_id": 1}, True),
    ("MC111", "A3", ("master-2026-07-24",), {"tp_world_size": 1, "tp_rank_id": 0}, False),
    # A2 INT32 x arrives with b042695 (2026-07-29): not on master 2026-07-24
    ("MC113", "A2", ("master-2026-07-24",), {"x_dtype": "int32", "scales": True}, True),
    ("MC113", "A2", ("latest",), {"x_dtype": "int32", "scales": True}, False),
    # context mode + hierarchy: accepted in 9.0 / 9.1.0-beta.1, refused from v9.1.0.pre (combine) on
    ("MC407", "A3", ("9.1.0-beta.1", "9.1.0-beta.3", "9.1.0-beta.2"), dict(CTX, **A3_HIER), False),
    # ccl_buffer_size below 1 MB: beta.3 fails the window (MC501), beta.2.pre wraps (MC407)
    ("MC407", "A3", ("9.1.0-beta.2",), dict(CTX, ccl_buffer_size=1_048_575), True),
    ("MC407", "A3", ("9.1.0-beta.3",), dict(CTX, ccl_buffer_size=1_048_575), False),
    ("MC501", "A3", ("9.1.0-beta.3",), dict(CTX, ccl_buffer_size=1_048_575), True),
    # 9.1 limits with TP in both betas
    ("MC104", "A2", ("9.1.0-beta.3", "9.1.0-beta.2"), {"h": 10240}, False),
    ("MC104", "A2", ("9.1.0-beta.3", "9.1.0-beta.2"), {"h": 10272}, True),
    ("MC111", "A3", ("9.1.0-beta.3", "9.1.0-beta.2"), {"tp_world_size": 2, "moe_expert_num": 32}, False),
    ("MC407", "A3", ("9.1.0", "master-2026-07-24"), dict(CTX, **A3_HIER), True),
]
PARAMS = [pytest.param(code, product, rs, o, fires, id=f"{code}-{product}-{rs}-{'fail' if fires else 'ok'}-{i}")
          for i, (code, product, sets, o, fires) in enumerate(ROWS) for rs in sets]


@pytest.mark.parametrize("code,product,ruleset,overrides,fires", PARAMS)
def test_later_rule_sets_at_their_boundaries(code, product, ruleset, overrides, fires):
    out = lint_product(product, ruleset, **overrides)
    assert out.result.ruleset == ruleset
    assert (code in out.codes) == fires, out


def test_diff_9_1_to_latest():
    changes = {c["path"]: (c["old"], c["new"], c["rule"]) for c in ruleset_diff.diff("9.1", "latest")}
    assert changes == {
        "v1.a2.layered_window_warning": (False, True, ""),
        "v2.a2.h_max_int32": (None, 5120, "MC113"), "v2.a2.tp_max": (None, 1, "MC111"),
        "v2.a3.comm_quant_zero_with_tp": (True, False, "MC112"), "v2.a3.fm2_rejects": (("tp2",), (), "MC305"),
        "v2.a3.legacy_tp": (True, False, "MC111"), "v2.a3.tp_max": (2, 1, "MC111")}


@pytest.mark.parametrize(("old", "new", "paths"), [
    ("9.1", "9.1.0", []), ("9.0", "9.1.0-beta.1", []),
    ("9.1.0-beta.3", "9.1.0-beta.2", ["v2.a3.context_window_wraps"]),
    ("9.1.0-beta.2", "9.1", ["v2.a3.context_rejects"]),
    ("master-2026-07-24", "latest", ["v2.a2.h_max_int32"]),
    ("9.1.0-beta.1", "9.1", ["v2.a2.h_max_flat", "v2.a2.moe_max_flat", "v2.a3.context_rejects",
                             "v2.a3.context_window_wraps"]),
])
def test_diff_between_code_points(old, new, paths):
    assert [c["path"] for c in ruleset_diff.diff(old, new)] == paths


def _run(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        main(list(argv))
    out = capsys.readouterr()
    return exc.value.code or 0, out.out, out.err


def test_cli_diff_text_and_json(capsys):
    code, out, _ = _run(["rules", "--ruleset", "9.1.0-beta.1", "--ruleset", "9.1.0"], capsys)
    assert code == 0 and "v2.a2.h_max_flat: 7168 -> 10240  (MC104)" in out and "4 limit(s) differ" in out
    code, out, _ = _run(["rules", "--diff", "9.1", "9.1.0", "--format", "json"], capsys)
    body = json.loads(out)
    assert code == 0 and body["changes"] == [] and "3311e26" in body["to"]["source"]


def test_cli_one_ruleset_lists_its_limits(capsys):
    code, out, _ = _run(["rules", "--ruleset", "9.0.1"], capsys)  # a version: mapped to its rule set
    assert code == 0 and "Rule set 9.0 (" in out and "v2.a3.hierarchy.ep_max = 256  (MC101)" in out


@pytest.mark.parametrize("argv", [["--ruleset", "foo"], ["--ruleset", "8.5", "--ruleset", "9.0", "--ruleset", "9.1"]])
def test_cli_ruleset_usage_errors(argv, capsys):
    code, _, err = _run(["rules", *argv], capsys)
    assert code == 2 and "Error" in err
