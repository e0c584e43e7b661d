"""vllm-ascend cross-setting rules MC950-MC953: just inside / just outside each limit, at the causing flag."""
from __future__ import annotations

import json

import pytest

from vllm_ascend_launches import calls, codes, derive, serve

MTP3 = "--speculative-config '{\"num_speculative_tokens\": 3}'"


def ac(**kw) -> str:
    return "--additional-config '" + json.dumps(kw) + "'"


def call_codes(call) -> list[str]:
    return codes(call.notes)


# ---- MC950: 2 x HCCL_BUFFSIZE (mc2) + 2 x each other group's buffer vs 64 GiB = 65536 MB ----
# (the full table and MC954 are in test_ascend_budget.py)

@pytest.mark.parametrize("mb,fires", [(32318, False), (32319, True)])
def test_mc950_buffer_vs_device_memory(mb, fires):
    # DP4 TP4: tp 2 x 200 + dp 2 x 50 + ep 2 x 200 = 900 MB; 2 x 32318 + 900 = 65536 MB = 64 GiB (fits);
    # 2 x 32319 + 900 = 65538 > 65536
    d = calls(serve("-dp 4 -tp 4 --max-num-seqs 16", env=f"HCCL_BUFFSIZE={mb}"), version="main")["decode"]
    assert ("MC950" in call_codes(d)) is fires
    if fires:
        note = next(n for n in d.notes if n.code == "MC950")
        assert "set HCCL_BUFFSIZE <= 32318" in note.message and note.span.line == 1  # the export line


def test_mc950_tp1_has_no_tp_pair_and_device_memory_override():
    # TP 1 (no tp communicator): dp 2 x 50 + ep 2 x 200 = 500 MB; 2 x 32518 + 500 = 65536 fits exactly;
    # with device_memory_gb 32: 2 x 16135 + 500 = 32770 > 32768
    assert "MC950" not in call_codes(calls(serve("-dp 16 -tp 1 --max-num-seqs 16", env="HCCL_BUFFSIZE=32518"),
                                           version="main")["decode"])
    d = calls(serve("-dp 16 -tp 1 --max-num-seqs 16", env="HCCL_BUFFSIZE=16135"), version="main", memory=32)
    assert "MC950" in call_codes(d["decode"])


# ---- MC951: hierarchy bs limit 256 (CANN) below vllm-ascend's cap 512 ----

@pytest.mark.parametrize("seqs,fires", [(256, False), (257, True)])
def test_mc951_hierarchy_token_cap(seqs, fires):
    # eager, TP 1: 257 tokens per rank <= vllm-ascend's 512, > CANN's hierarchy bs 256 (A3, latest rules)
    text = serve(f"-dp 16 -tp 1 --max-num-seqs {seqs} --max-num-batched-tokens 8192 --enforce-eager "
                 + ac(enable_mc2_hierarchy_comm=True))
    d = calls(text, version="main")["decode"]
    assert d.arguments["bs"] == seqs
    assert ("MC951" in call_codes(d)) is fires
    if fires:
        note = next(n for n in d.notes if n.code == "MC951")
        assert "lower --max-num-seqs to 256" in note.message
        assert note.span == d.sources["bs"][0]  # the --max-num-seqs flag


def test_mc951_fix_with_speculation_and_tp():
    # TP 2, MTP 3: 160 x 4 = 640 tokens; eager main: ceil(640 / 2) = 320 > 256 -> max_num_seqs <= 256 x 2 / 4 = 128
    text = serve(f"-dp 8 -tp 2 --max-num-seqs 160 --max-num-batched-tokens 8192 --enforce-eager {MTP3} "
                 + ac(enable_mc2_hierarchy_comm=True))
    note = next(n for n in calls(text, version="main")["decode"].notes if n.code == "MC951")
    assert "lower --max-num-seqs to 128" in note.message


# ---- MC952: MegaMoE prefill tokens per rank above num_max_tokens_per_rank (vllm-ascend#14273) ----

def test_mc952_issue_14273():
    # DSV4-like W8A8 on A3, TP4 DP4, max_num_seqs 16, 7 draft tokens: nmt = min(16 x 8, 512) / 4 = 32;
    # a 2048-token prefill step sends ceil(2048 / 4) = 512 > 32 tokens per rank
    text = serve("-dp 4 -tp 4 --max-num-seqs 16 --max-num-batched-tokens 2048 "
                 "--speculative-config '{\"num_speculative_tokens\": 7}' " + ac(enable_fused_mc2=1,
                                                                               enable_prefill_mc2=False))
    c = calls(text, version="main")
    assert c["decode"].arguments["num_max_tokens_per_rank"] == 32 and "MC952" not in call_codes(c["decode"])
    p = c["prefill"]
    assert p.op == "mega_moe" and p.arguments["bs"] == 512
    note = next(n for n in p.notes if n.code == "MC952")
    assert "enable_prefill_mc2" in note.message and "--max-num-batched-tokens to 128" in note.message


@pytest.mark.parametrize("mnbt,fires", [(128, False), (132, True)])
def test_mc952_just_inside_outside(mnbt, fires):
    # nmt 32 (TP 4): prefill ceil(128 / 4) = 32 fits (and 128 <= capacity 128: no prefill phase at all);
    # 132 -> 33 > 32
    text = serve(f"-dp 4 -tp 4 --max-num-seqs 16 --max-num-batched-tokens {mnbt} "
                 "--speculative-config '{\"num_speculative_tokens\": 7}' " + ac(enable_fused_mc2=1))
    all_codes = [code for call in derive(text, version="main").calls for code in call_codes(call)]
    assert ("MC952" in all_codes) is fires


def test_mc952_not_on_a_decode_node():
    text = serve("-dp 4 -tp 4 --max-num-seqs 16 --max-num-batched-tokens 2048 "
                 "--kv-transfer-config '{\"kv_role\": \"kv_consumer\"}' " + ac(enable_fused_mc2=1))
    assert all("MC952" not in call_codes(c) for c in derive(text, version="main").calls)


def test_mc952_enable_prefill_mc2_fixes_it():
    text = serve("-dp 4 -tp 4 --max-num-seqs 16 --max-num-batched-tokens 2048 "
                 + ac(enable_fused_mc2=1, enable_prefill_mc2=True))
    c = derive(text, version="main", cann="9.1.0").calls
    assert [x.role for x in c] == ["decode"] and c[0].arguments["num_max_tokens_per_rank"] == 512


# ---- MC953: fused receive size below bs x EP x min(k, experts / EP) (vllm-ascend#16914) ----

@pytest.mark.parametrize("mmt,fires", [(8192, False), (8191, True)])
def test_mc953_dispatch_ffn_combine_max_output(mmt, fires):
    # CANN 9.0 -> dispatch_ffn_combine; bs = min(64 x 4, 512) / 4 = 64; bound 64 x 16 x min(8, 256 / 16) = 8192
    text = serve(f"-dp 4 -tp 4 --max-num-seqs 64 --max-num-batched-tokens 256 {MTP3} "
                 + ac(enable_fused_mc2=1, mega_moe_max_tokens=mmt))
    d = calls(text, version="main", cann="9.0.1")["decode"]
    assert d.op == "dispatch_ffn_combine" and d.arguments["max_output_size"] == mmt
    assert ("MC953" in call_codes(d)) is fires
    if fires:
        assert "to 8192" in next(n for n in d.notes if n.code == "MC953").message


def test_mc953_v013_fixed_65536():
    # v0.13: max_output_size 65536; prefill bs = ceil(16384 / 4) = 4096: 4096 x 16 x 8 = 524288 > 65536
    text = serve("-dp 4 -tp 4 --max-num-seqs 16 --max-num-batched-tokens 16384", env="VLLM_ASCEND_ENABLE_FUSED_MC2=1")
    c = calls(text, version="0.13.0")
    assert "MC953" not in call_codes(c["decode"])  # bs 16 / 4 = 4: 4 x 16 x 8 = 512 <= 65536
    note = next(n for n in c["prefill"].notes if n.code == "MC953")
    assert "fixed at 65536" in note.message


# ---- MC952 per release: only where "Fix MegaMoe prefill buffer sizing" (#14358 / #14439) is missing ----

def _14273(mnbt: int) -> str:
    return (f"-dp 4 -tp 4 --max-num-seqs 16 --max-num-batched-tokens {mnbt} "
            "--speculative-config '{\"num_speculative_tokens\": 7}' " + ac(enable_fused_mc2=1))


@pytest.mark.parametrize("version,op,fires", [
    ("main", "mega_moe", True),            # 182b75e: before #14439
    ("0.25.1rc1", "mega_moe", True),       # first MegaMoE release, no fix (#14519 backport was closed)
    ("0.26.0rc", "mega_moe", False),       # #14358 @6be4069: capacity from max_num_batched_tokens
    ("0.27", "mega_moe", False),           # #14439 on main
    ("0.24.0rc1", "dispatch_ffn_combine", False),  # no MegaMoE before v0.25.1rc1
    ("0.23.0", "dispatch_ffn_combine", False),
])
def test_mc952_only_without_the_fix(version, op, fires):
    d = derive(serve(_14273(2048)), version=version, cann="9.1.0")
    assert any(c.op == op for c in d.calls)
    assert any("MC952" in call_codes(c) for c in d.calls) is fires
    if version == "0.26.0rc":  # ceil(2048 / 4) = 512 tokens per rank: one call, buffer for the whole step
        assert [c.arguments["num_max_tokens_per_rank"] for c in d.calls] == [512]


@pytest.mark.parametrize("mnbt,fires", [(16384, False), (16388, True)])
def test_mc952_with_the_fix_only_past_the_4096_cap(mnbt, fires):
    # fixed release: nmt = min(ceil(mnbt / 4), 4096); 16384 / 4 = 4096 fits; 16388 / 4 = 4097 > 4096
    d = derive(serve(_14273(mnbt)), version="0.26.0rc", cann="9.1.0")
    notes = [n for c in d.calls for n in c.notes if n.code == "MC952"]
    assert bool(notes) is fires
    if fires:
        assert "lower --max-num-batched-tokens to 16384" in notes[0].message
        assert "enable_prefill_mc2" not in notes[0].message  # the fixed release sizes from the batch already


def test_mc953_covers_the_ops_generic_mc882():
    # one cause, one finding: vllm-ascend's MC953 names "mega_moe_max_tokens"; dispatch_ffn_combine's MC882 said the
    # same bound again at the same launch (vllm-ascend@182b75e external_dp GLM-5.2 config, round of 2026-11-28)
    from pathlib import Path

    from moecfg.checking.engine import check_bytes
    from moecfg.checking.settings import Cli, Config, FilePolicy

    path = Path(__file__).parents[1] / "sources" / "fixtures" / "vllm-ascend-external-dp-GLM-5.2-W8A8C8-PD.yaml"
    done = check_bytes(path.read_bytes(), str(path), policy=FilePolicy(Config(product="A3"), Cli()))
    found = [(d.code, d.line) for r in done.results for d in r.diagnostics]
    assert ("MC953", 36) in found  # prefill: bs 8192 / TP 8 = 1024 x EP 32 x 8 = 262144 > 131072
    assert "MC882" not in {code for code, _ in found}
