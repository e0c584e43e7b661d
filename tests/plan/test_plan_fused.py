"""`moecfg plan` for op mega_moe / dispatch_ffn_combine (moecfg.plan.fused): solved values by hand."""
from __future__ import annotations

import json

from click.testing import CliRunner

from moecfg.cli import cli
from moecfg.plan import fused

MEGA = {"product": "A3", "cann_version": "latest", "op": "mega_moe", "h": 7168, "k": 8, "moe_expert_num": 256,
        "intermediate_hidden": 2048, "dispatch_quant_mode": 2, "dispatch_quant_out_dtype": "int8"}
DFC = {"product": "A3", "cann_version": "latest", "op": "dispatch_ffn_combine", "h": 7168, "k": 8,
       "moe_expert_num": 256, "intermediate_hidden": 2048}


def test_smallest_buffer_per_ep():
    # A3 W8A8 bs 128, EP 16: TPE 139264 + tensors 1024*(7680 + 14336 + 4) = 22548480 + flags 8192 + 10 MiB
    # = 33181696 B = 31.6 MiB -> 32 MB; one MB less fails MC873. EP 64: the wrapper refuses it (MC861).
    by_ep = {a.ep: a for a in fused.solve(MEGA, None, [16, 64], 128, None)}
    assert by_ep[16].buffer_mb == 32 and by_ep[16].ok and by_ep[16].next_codes == ("MC873",)
    assert not by_ep[64].ok and "MC861" in by_ep[64].codes


def test_most_tokens_for_a_buffer_a2():
    # A2, EP 16, t tokens, max_recv 128t: tensors = max(1097728t, 1896448t) + 512t = 1896960t; fixed part
    # 139264 + 140288 + 10485760 = 10765312; t <= (1073741824 - 10765312) / 1896960 = 560.4 -> 560
    (a,) = fused.solve({**MEGA, "product": "A2"}, None, [16], None, 1024)
    assert a.tokens == 560 and a.ok and a.next_codes == ("MC873",)


def test_most_tokens_dispatch_ffn_combine():
    # M <= (200 MiB - 10 MiB) / (8 * 7168 * 3) = 199229440 / 172032 = 1158.1 -> 1158
    (a,) = fused.solve(DFC, None, [16], None, 200)
    assert a.tokens == 1158 and a.ok and a.next_codes == ("MC880",)
    assert a.doc["max_output_size"] == 1158 * 16 * 8


def test_cli_json_and_yaml():
    args = ["plan", "--product", "A3", "--set", "op=mega_moe", "--set", "h=7168", "--set", "k=8", "--set",
            "moe_expert_num=256", "--set", "intermediate_hidden=2048", "--set", "dispatch_quant_mode=2", "--set",
            "dispatch_quant_out_dtype=int8", "--ep", "16,64", "--bs", "128"]
    res = CliRunner().invoke(cli, [*args, "--format", "json"])
    assert res.exit_code == 0, res.output
    rows = json.loads(res.output)["answers"]
    assert [(r["ep_world_size"], r["hccl_buffsize_mb"], r["ok"]) for r in rows] == [(16, 32, True), (64, 34, False)]
    emitted = CliRunner().invoke(cli, [*args, "--emit", "yaml"]).output
    assert "op: mega_moe" in emitted and "HCCL_BUFFSIZE: 32" in emitted and "ep_world_size: 64" not in emitted


def test_cli_refuses_model_presets():
    res = CliRunner().invoke(cli, ["plan", "--product", "A3", "--model", "deepseek-v3", "--set", "op=mega_moe",
                                   "--ep", "16", "--bs", "8"])
    assert res.exit_code == 2 and "no model presets" in res.output


def test_sweep_json_follows_the_window_formula():
    # A2 EP 16 at latest: bs 512 -> 982008832 B (937 MB, see test_mega_moe); at 9.1 max_recv 0 stays 0, so the
    # window holds no received tokens (MC872 reports that release)
    args = ["sweep", "--product", "A2", "--set", "op=mega_moe", "--set", "h=7168", "--set", "k=8", "--set",
            "moe_expert_num=256", "--set", "intermediate_hidden=2048", "--set", "dispatch_quant_mode=2", "--set",
            "dispatch_quant_out_dtype=int8", "--ep", "16", "--bs", "256,512", "--rulesets", "9.1,latest",
            "--format", "json"]
    res = CliRunner().invoke(cli, args)
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    latest = next(s for s in data["series"] if s["ruleset"] == "latest")
    assert latest["required_bytes"][1] == {"ep": 982008832} and latest["required_mb"][1] == 937
    old = next(s for s in data["series"] if s["ruleset"] == "9.1")
    # 9.1, bs 512, max_recv 0: winIn = 0 + 4096*14336 = 58720256, winOut = 4096*7680 + 0 = 31457280;
    # tensors = max = 58720256 (+ 0 scales); + TPE 139264 + flags 140288 + 10 MiB 10485760 = 69485568
    assert old["required_bytes"][1] == {"ep": 69485568}
    assert old["rejected_by"] == [["MC872"], ["MC872"]] and latest["rejected_by"] == [[], []]
