"""`moecfg plan` / `sweep` for op sgl_deepep_normal / sgl_deepep_low_latency (plan/sgl.py through plan/fused.py).

Figures by hand from the tiling formulas (sgl-kernel-npu @f425bdf; see tests/ascend_ops/test_sgl_deepep.py):
normal A3: (max_bs * k * (14848 + 14336) + 4 MiB + 102 MiB) * 2, DSV3 k 8: 233472 B a token, doubled 466944 B.
low latency (combine tiling binds): 2 * (T * 14848 * ep * local + T * 14336 * k); DSV3 ep * local = 256:
2 * T * (3,801,088 + 114,688) = 7,831,552 B per token.
"""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from lintkit import run_lint
from moecfg.cli import cli
from moecfg.plan import fused, sgl

MiB = 1 << 20
NORMAL = {"product": "A3", "op": "sgl_deepep_normal", "h": 7168, "k": 8, "num_experts": 256}
LL = dict(NORMAL, op="sgl_deepep_low_latency")
SETS = ["--set", "h=7168", "--set", "k=8", "--set", "num_experts=256"]


@pytest.mark.parametrize("bs, mb", [(8192, 3860), (4096, 2036), (2048, 1124)])
def test_normal_smallest_buffer(bs, mb):
    # 8192 * 233472 = 1824 MiB -> (1824 + 106) * 2 = 3860; 4096 -> (912 + 106) * 2 = 2036; 2048 -> (456 + 106) * 2
    # = 1124; one MB less: MC898. EP 384 needs 384 | num_experts (MC891) but the window is the same
    by_ep = {a.ep: a for a in fused.solve(NORMAL, None, [8, 16, 384], bs, None)}
    assert [by_ep[e].buffer_mb for e in (8, 16, 384)] == [mb] * 3
    assert by_ep[16].ok and by_ep[16].required_mb == mb and by_ep[16].next_codes == ("MC898",)
    assert not by_ep[384].ok and by_ep[384].codes == ("MC891",)


@pytest.mark.parametrize("buffer_mb, tokens, nxt", [(2036, 4096, "MC898"), (2000, 4015, "MC898"),
                                                   (4000, 8192, "MC894")])
def test_normal_most_tokens(buffer_mb, tokens, nxt):
    # 2000 MB: t * 233472 <= 1000 MiB - 106 MiB = 937,426,944 -> t <= 4015.2 (4015 * 233472 = 937,390,080);
    # 4000 MB holds 8192 (3860 MB): the capacity ROUND 1 x 8192 stops it (8193: MC894)
    (a,) = fused.solve(NORMAL, None, [16], None, buffer_mb)
    assert (a.tokens, a.ok, a.next_codes) == (tokens, True, (nxt,))
    assert a.doc["bs"] == tokens and a.doc["env"] == {"HCCL_BUFFSIZE": buffer_mb} and "cann_version" not in a.doc


def test_normal_per_round_tokens_with_rounds():
    # ROUND 4 alone: per-round t solved, bs = 4t; rounds > 1 double the combine slot: 8 * (14848 + 28672) = 348160;
    # (t * 348160 + 106 MiB) * 2 <= 1572 MiB -> t <= 680 MiB / 348160 = 2048 exactly
    base = dict(NORMAL, env={sgl.ROUND: 4})
    (a,) = fused.solve(base, None, [16], None, 1572)
    assert (a.tokens, a.ok, a.next_codes) == (2048, True, ("MC898",))
    assert a.doc["bs"] == 8192 and a.doc["env"][sgl.PER_ROUND] == 2048
    assert sgl.max_tokens(base) == 8192 and sgl.max_tokens(dict(NORMAL, env={sgl.ROUND: 4, sgl.PER_ROUND: 4096})) \
        == 16384  # both set: bs up to ROUND x PER_ROUND (deep_ep.cpp L127)


def test_deepep_buffsize_and_group_option_follow_the_answer():
    # the tiling reads DEEPEP_HCCL_BUFFSIZE, HCCL allocates hccl_buffer_size: both get the answer, MC899 stays quiet
    base = dict(NORMAL, hccl_buffer_size=1, env={"DEEPEP_HCCL_BUFFSIZE": 1})
    (a,) = fused.solve(base, None, [16], 2048, None)
    assert a.buffer_mb == 1124 and a.ok and a.next_codes == ("MC898",)
    assert a.doc["hccl_buffer_size"] == a.doc["env"]["DEEPEP_HCCL_BUFFSIZE"] == a.doc["env"]["HCCL_BUFFSIZE"] == 1124
    assert run_lint(a.doc).diagnostics == []
    assert sgl.buffer_names(base) == "HCCL_BUFFSIZE = DEEPEP_HCCL_BUFFSIZE = hccl_buffer_size"


def test_low_latency_smallest_buffer():
    # T 128: 128 * 7,831,552 = 1,002,438,656 B = 956 MiB at EP 16 and 32 (ep * local = 256 both)
    answers = fused.solve(LL, None, [16, 32], 128, None)
    assert [(a.buffer_mb, a.ok, a.next_codes) for a in answers] == [(956, True, ("MC898",))] * 2
    assert answers[0].doc["num_max_dispatch_tokens_per_rank"] == 128 and "bs" not in answers[0].doc


@pytest.mark.parametrize("buffer_mb, tokens, nxt", [(956, 128, "MC898"), (2000, 267, "MC898"),
                                                   (4096, 512, "MC894")])
def test_low_latency_most_tokens(buffer_mb, tokens, nxt):
    # 2000 MiB = 2,097,152,000 / 7,831,552 = 267.8 -> 267; 4096 MiB / 7,831,552 = 548.4, but T <= 512 (MC894)
    (a,) = fused.solve(LL, None, [16], None, buffer_mb)
    assert (a.tokens, a.ok, a.next_codes) == (tokens, True, (nxt,))


def test_a2_across_servers_has_no_window_to_solve():
    # DispatchNormalA2 (A2, ep 16) checks no HCCL window on the host: no smallest buffer exists
    base = dict(NORMAL, product="A2", env={"HCCL_INTRA_PCIE_ENABLE": 1, "HCCL_INTRA_ROCE_ENABLE": 0})
    (a,) = fused.solve(base, None, [16], 2048, None)
    assert not a.ok and a.buffer_mb is None and a.codes == ("no window check modelled",)
    assert "no window check modelled" in fused.plan_text([a], base, False)
    (ccu,) = fused.solve(dict(LL, comm_alg="ccu"), None, [16], 128, None)  # the ccu window is not modelled
    assert ccu.codes == ("no window check modelled",)


def test_cli_text_json_yaml():
    args = ["plan", "--product", "A3", "--set", "op=sgl_deepep_normal", *SETS, "--ep", "16,384", "--bs", "4096"]
    res = CliRunner().invoke(cli, args)
    assert res.exit_code == 0 and "smallest HCCL_BUFFSIZE per EP size" in res.output and "tokens = bs" in res.output
    rows = json.loads(CliRunner().invoke(cli, [*args, "--format", "json"]).output)["answers"]
    assert [(r["ep_world_size"], r["hccl_buffsize_mb"], r["ok"]) for r in rows] == [(16, 2036, True), (384, 2036, False)]
    emitted = CliRunner().invoke(cli, [*args, "--emit", "yaml"]).output
    assert "HCCL_BUFFSIZE: 2036" in emitted and "ep_world_size: 384" not in emitted


@pytest.mark.parametrize("extra, message", [(["--model", "deepseek-v3"], "give h, k and num_experts"),
                                            (["--cann", "8.5"], "--cann / --rulesets do not apply")])
def test_cli_refuses_presets_and_cann(extra, message):
    res = CliRunner().invoke(cli, ["plan", "--product", "A3", "--set", "op=sgl_deepep_low_latency", *SETS, *extra,
                                   "--ep", "16", "--bs", "128"])
    assert res.exit_code == 2 and message in res.output


def test_sweep_normal_vs_tokens():
    # bs 2048 / 4096 / 8192 -> 1124 / 2036 / 3860 MiB; 16384 stays 3860 MiB (max_bs = min(bs, 8192))
    res = CliRunner().invoke(cli, ["sweep", "--product", "A3", "--set", "op=sgl_deepep_normal", *SETS, "--ep", "16",
                                   "--bs", "2048,4096,8192,16384", "--format", "json"])
    assert res.exit_code == 0, res.output
    (series,) = json.loads(res.output)["series"]
    assert [p["ep"] for p in series["required_bytes"]] == [1124 * MiB, 2036 * MiB, 3860 * MiB, 3860 * MiB]
    assert series["rejected_by"] == [[], [], [], ["MC894"]]  # 16384 > capacity 1 x 8192: marked, not valid


def test_sweep_low_latency_vs_ep_and_rulesets_refused():
    # T 64: 64 * 7,831,552 = 501,219,328 B = 478 MiB whatever the EP size (ep * local = 256)
    args = ["sweep", "--product", "A3", "--set", "op=sgl_deepep_low_latency", *SETS, "--ep", "8,16,32", "--bs", "64"]
    res = CliRunner().invoke(cli, [*args, "--format", "json"])
    (series,) = json.loads(res.output)["series"]
    assert [p["ep"] for p in series["required_bytes"]] == [501_219_328] * 3 and series["required_mb"][0] == 478
    assert CliRunner().invoke(cli, [*args, "--rulesets", "8.5,latest"]).exit_code == 2


@pytest.mark.parametrize("base, tokens, mb", [
    (dict(NORMAL, product="A2"), 2048, 1744),  # ops2: (2048 * 233472 + 8 MiB + 404 MiB) * 2 + 8 MiB = (456 + 412) * 2 + 8
    (dict(LL, product="A2"), 128, 956)])  # ops2 single server: 2-byte slots even for int8 -> 128 * 7,831,552 B
def test_a2_single_server(base, tokens, mb):
    (a,) = fused.solve(base, None, [8], tokens, None)
    assert (a.buffer_mb, a.ok, a.next_codes) == (mb, True, ("MC898",))
    (b,) = fused.solve(base, None, [8], None, mb)
    assert (b.tokens, b.ok, b.next_codes) == (tokens, True, ("MC898",))
