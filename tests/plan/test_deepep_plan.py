"""plan --kind deepep: each answer re-checked by the engine on the emitted YAML (the answer passes, the next value
fails with a named code); hand-computed buffer figures; rank-count tables with the rejected counts' codes."""
from __future__ import annotations

import json

import pytest
import yaml
from click.testing import CliRunner

from moecfg.cli import cli
from moecfg.checking.engine import lint_text
from moecfg.plan import deepep_solver
from moecfg.plan.deepep_problem import build

LL = ("--kind", "deepep", "--mode", "low_latency", "--model", "deepseek-v3")
NORMAL = ("--kind", "deepep", "--mode", "normal", "--model", "deepseek-v3", "--set", "num_sms=24")
# DeepSeek-V3 low-latency RDMA hint: comb_msg = 7168*2 + 7168/128*4 = 14560 > disp_msg = 16 + 14336 = 14352, so
# total(T) = 2*send + 2*recv + 2*align128(4*256) = 4*256*T*14560 + 2048 = 14909440*T + 2048, then (total + 128)//128*128.
PER_TOKEN = 4 * 256 * 14560


def run(*args):
    return CliRunner().invoke(cli, ["plan", *args])


def emitted(*args) -> list:
    out = run(*args, "--emit", "yaml")
    assert out.exit_code == 0, out.output
    return [d for d in yaml.safe_load_all(out.output) if d]


def codes(doc: dict) -> set:
    """What rejects a candidate: errors, and the buffer-hint rules at any severity (as the planner judges)."""
    res = lint_text(yaml.safe_dump(doc), "emitted.yaml")[0]
    return {d.code for d in res.diagnostics if d.severity == "error" or d.code in ("MC650", "MC651")}


def test_low_latency_min_rdma_is_the_hint_and_128_bytes_less_fails():
    # T = 128: 14909440*128 + 2048 = 1908410368 (a multiple of 128), "+128" rounding -> 1908410496
    [doc] = emitted(*LL, "--num-ranks", "16", "--tokens", "128")
    assert (doc["num_rdma_bytes"], doc["num_nvl_bytes"], doc["num_max_dispatch_tokens_per_rank"]) == (1908410496, 0, 128)
    assert doc["model"] == "deepseek-v3" and codes(doc) == set()
    doc["num_rdma_bytes"] -= 128
    assert codes(doc) == {"MC651"}


def test_low_latency_max_tokens_for_2_gib():
    # 2 GiB = 2147483648; T = 144: 14909440*144 + 2048 = 2146961408 -> hint 2146961536 <= 2 GiB;
    # T = 145: 14909440*145 = 2161868800 > 2 GiB
    [doc] = emitted(*LL, "--num-ranks", "16", "--num-rdma-bytes", "2GiB")
    assert doc["num_max_dispatch_tokens_per_rank"] == 144 and doc["num_rdma_bytes"] == 2147483648
    assert codes(doc) == set()
    doc["num_max_dispatch_tokens_per_rank"] += 1
    assert codes(doc) == {"MC651"}


def test_qp_depth_caps_tokens_before_the_buffer_does():
    # 8 GiB would hold T = 576 (14909440*576 + 2048 + 128 = 8587839616 <= 8589934592), but NVSHMEM_QP_DEPTH 1024
    # needs 2*(T+1) <= 1024: T <= 511
    p = build({"mode": "low_latency", "model": "deepseek-v3"})
    ans = deepep_solver.max_tokens(p, 16, 8 << 30)
    assert ans.ok and ans.tokens == 511 and ans.limited_by == "MC641"
    assert ans.next[0].value == 512 and ans.next[0].verdict.codes == ["MC641"]
    assert deepep_solver.buffer_tokens_limit(p, 16, 8 << 30) == 576


def test_deeper_qp_lets_the_buffer_decide():
    [doc] = emitted(*LL, "--num-ranks", "16", "--num-rdma-bytes", str(8 << 30), "--set", "nvshmem_qp_depth=2048")
    assert doc["num_max_dispatch_tokens_per_rank"] == 576 and doc["nvshmem_qp_depth"] == 2048 and codes(doc) == set()
    doc["num_max_dispatch_tokens_per_rank"] = 577  # 14909440*577 = 8602746880 > 8 GiB
    assert codes(doc) == {"MC651"}


def test_tokens_stay_on_the_tma_grid():
    # 2 ranks: (2*T) % 4 == 0 needs an even T. The hint of T = 143 is 14909440*143 + 2048 + 128 = 2132052096, so
    # that buffer holds T = 143 by size, but 143 is odd: the answer is 142 and T + 1 = 143 fails only MC640.
    p = build({"mode": "low_latency", "model": "deepseek-v3"})
    ans = deepep_solver.max_tokens(p, 2, 2132052096)
    assert ans.ok and ans.tokens == 142
    assert ans.next[0].value == 143 and ans.next[0].verdict.codes == ["MC640"]
    assert deepep_solver.tokens_step(2) == 2 and deepep_solver.tokens_step(4) == 1 and deepep_solver.tokens_step(1) == 4


def test_rdma_over_the_32_gib_wall_has_no_answer():
    # 40 GiB / 16 >= INT_MAX (B3): every T is rejected by MC653; exit 1
    out = run(*LL, "--num-ranks", "16", "--num-rdma-bytes", "40GiB", "--format", "json")
    assert out.exit_code == 1
    [ans] = json.loads(out.output)["answers"]
    assert ans["valid"] is False and ans["num_max_dispatch_tokens_per_rank"] is None and "MC653" in ans["rejected_by"]


def test_low_latency_rank_range_names_the_rejected_counts():
    out = run(*LL, "--num-ranks", "8:32:8", "--tokens", "128", "--format", "json")
    assert out.exit_code == 0
    answers = {a["num_ranks"]: a for a in json.loads(out.output)["answers"]}
    assert [r for r, a in answers.items() if a["valid"]] == [8, 16, 32]
    assert answers[24]["rejected_by"] == ["MC630"]  # 256 experts % 24 ranks
    assert answers[16]["next"] == [{"field": "num_rdma_bytes", "value": 1908410368, "valid": False,
                                    "rejected_by": ["MC651"]}]


def test_normal_mode_min_buffers_hand_computed():
    # 16 ranks, 24 SMs (12 channels), 2 nodes, default configs: dispatch (36, 288, 20, 128), combine (4, 288, 12, 128)
    # NVL  = 12*8*(2*2+3)*4 + 12*8*288*(14336 + 2056) = 2688 + 453206016 = 453208704
    # RDMA = 12*2*144 + 12*2*align_up(128, 20)*2*(14336 + 2072) = 3456 + 12*2*140*2*16408 = 110265216
    p = build({"mode": "normal", "model": "deepseek-v3", "num_sms": 24})
    ans = deepep_solver.min_buffers(p, 16, None)
    assert (ans.nvl_bytes, ans.rdma_bytes) == (453208704, 110265216) and ans.ok
    assert [(x.field, x.value, x.verdict.codes) for x in ans.next] == [
        ("num_nvl_bytes", 453208576, ["MC650"]), ("num_rdma_bytes", 110265088, ["MC651"])]


def test_normal_mode_emitted_files_pass_and_shrink_fails():
    docs = emitted(*NORMAL, "--num-ranks", "8,16,24,40")
    assert [d["num_ranks"] for d in docs] == [8, 16]  # 24 and 40: 256 experts not divisible; 40 not in DeepEP's table
    intranode, internode = docs
    assert intranode["num_rdma_bytes"] == 0  # one node: no RDMA buffer (an RDMA buffer would be MC655)
    for doc in docs:
        assert codes(doc) == set()
    internode["num_nvl_bytes"] -= 128
    assert codes(internode) == {"MC650"}


def test_normal_mode_rejections_carry_their_codes():
    out = run(*NORMAL, "--num-ranks", "24,40,168", "--format", "json")
    assert out.exit_code == 1  # none valid
    rejected = {a["num_ranks"]: set(a["rejected_by"]) for a in json.loads(out.output)["answers"]}
    assert rejected[24] == {"MC630"}
    assert {"MC630", "MC604"} <= rejected[40]  # no default config for 40 ranks
    assert "MC603" in rejected[168]  # normal mode allows at most 160 ranks


def test_given_buffers_are_checked_per_rank_count():
    # vLLM's fixed 1 GiB for both buffers: enough for 128 ranks at 24 SMs, not for 144 (NVL hint 1133030016,
    # gpu-rules.md section 4). 1152 experts (= lcm(128, 144)) divide both rank counts.
    out = run(*NORMAL, "--num-ranks", "128,144", "--num-nvl-bytes", "1GiB", "--num-rdma-bytes", "1GiB",
              "--set", "num_experts=1152", "--format", "json")
    answers = {a["num_ranks"]: a for a in json.loads(out.output)["answers"]}
    assert answers[128]["valid"] and answers[128]["solved"] == []
    assert answers[144]["rejected_by"] == ["MC650"]
    # 12 channels, 18 nodes, nvl_recv 720: 12*8*(2*18+3)*4 + 12*8*720*(14336 + 2056) = 14976 + 1133015040
    assert answers[144]["required_bytes"]["nvl"] == 1133030016


def test_device_memory_rejects_and_warns_per_rank_count():
    # device_memory_gb 0.5 = 536870912 B. 8 ranks: 402851712 + 0 + 33554432 = 436406144 > 75% (402653184): warns;
    # 16 ranks: 453208704 + 110265216 + 33554432 = 597028352 > 536870912: MC901
    out = run(*NORMAL, "--num-ranks", "8,16", "--set", "device_memory_gb=0.5", "--format", "json")
    eight, sixteen = json.loads(out.output)["answers"]
    assert eight["valid"] and eight["warnings"] == ["MC902"]
    assert sixteen["rejected_by"] == ["MC901"]


def test_device_option_is_written_to_the_file():
    [doc] = emitted(*LL, "--device", "H800", "--num-ranks", "16", "--tokens", "128")
    assert doc["device"] == "H800" and codes(doc) == set()


def test_text_table():
    out = run(*LL, "--num-ranks", "16", "--num-rdma-bytes", "2147483648")
    assert out.exit_code == 0
    assert "most tokens per rank" in out.output and "T 145: MC651" in out.output
    assert "1 of 1 rank count valid" in out.output


@pytest.mark.parametrize("args, message", [
    (("--kind", "deepep", "--mode", "normal", "--product", "A3", "--num-ranks", "8"), "--product is an option of --kind ascend"),
    (("--product", "A3", "--ep", "8", "--bs", "8", "--num-rdma-bytes", "1"), "--num-rdma-bytes is an option of --kind deepep"),
    (("--kind", "deepep", "--model", "deepseek-v3", "--num-ranks", "8"), "give --mode"),
    (LL + ("--num-ranks", "16"), "give --tokens"),
    (NORMAL + ("--num-ranks", "16", "--tokens", "128"), "sizes only low_latency buffers"),
    (LL + ("--tokens", "128"), "give --num-ranks"),
    (LL + ("--num-ranks", "16", "--tokens", "128", "--set", "num_ranks=8"), "not --set"),
    (LL + ("--num-ranks", "16", "--num-rdma-bytes", "2 GB"), "KiB, MiB or GiB"),
    (("--kind", "deepep", "--mode", "turbo", "--model", "deepseek-v3", "--num-ranks", "8"), "'turbo' is not one of"),
])
def test_usage_errors(args, message):
    out = run(*args)
    assert out.exit_code == 2 and message in out.output, out.output
