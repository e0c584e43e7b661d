"""flag_tables/: vLLM and SGLang flags per release (generated from the wheels by tools/gen_flag_tables.py), the release a
launch is read with, and what the derivations make of aliases, older spellings, wrappers and placeholders."""
from __future__ import annotations

import pytest
from gpu_helpers import codes, derive, lint

from moecfg.frameworks import LaunchContext, flag_tables
from moecfg.frameworks.flag_tables import pick, releases, table

SGL = "python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --moe-a2a-backend deepep"
VLLM = "vllm serve deepseek-ai/DeepSeek-V3 --enable-expert-parallel"


def names(framework, release):
    return {n for s in table(framework, release).specs for n in (s.name, *s.aliases)}


# ---- the tables ----

def test_every_minor_release_is_read():
    vllm, sglang = releases("vllm"), releases("sglang")
    assert {f"0.{m}.0" for m in range(11, 34)} <= set(vllm)
    assert {"0.4.0", "0.5.8", "0.5.23"} <= set(sglang) and {r[:3] for r in sglang} == {"0.4", "0.5"}
    assert list(vllm) == sorted(vllm, key=flag_tables.version_tuple)


@pytest.mark.parametrize("flag", ["--disable-access-log-for-endpoints", "--enable-ep-weight-filter",
                                  "--enable-cumem-allocator", "--numa-bind", "--data-parallel-supervisor-port",
                                  "--data-parallel-multi-port-external-lb", "--mm-encoder-only",
                                  "--default-chat-template-kwargs", "--enable-elastic-ep"])
def test_real_vllm_flags_of_the_issue_are_known_in_0_33(flag):
    assert flag in names("vllm", "0.33.0")


def test_vllm_flag_history():
    """--all2all-backend arrived in 0.11.1 (vllm PR #26732); -tp / --no-enable-expert-parallel in every release."""
    assert "--all2all-backend" not in names("vllm", "0.11.0") and "--all2all-backend" in names("vllm", "0.11.1")
    for rel in ("0.11.0", "0.33.0"):
        t = table("vllm", rel)
        (tp,) = [s for s in t.specs if s.name == "--tensor-parallel-size"]
        (ep,) = [s for s in t.specs if s.name == "--enable-expert-parallel"]
        assert "-tp" in tp.aliases and tp.takes_value and not ep.takes_value and ep.negatable
        assert t.kinds["--speculative-config"] == "json" and t.defaults["--tensor-parallel-size"] == 1


def test_sglang_long_names_and_history():
    for rel in ("0.4.0", "0.5.8", "0.5.23"):
        t = table("sglang", rel)
        (tp,) = [s for s in t.specs if s.name == "--tp-size"]
        assert "--tensor-parallel-size" in tp.aliases
    assert "--enable-deepep-moe" in names("sglang", "0.4.9") and "--enable-deepep-moe" not in names("sglang", "0.5.23")
    assert "--cuda-graph-max-bs" in names("sglang", "0.5.8") and "--cuda-graph-max-bs" not in names("sglang", "0.5.23")


@pytest.mark.parametrize("version, release, known, newer", [
    ("0.5.8", "0.5.8", True, ""), ("0.5.8.post1", "0.5.8.post1", True, ""),
    ("0.5.7.9", "0.5.7", True, ""),  # not a release: the newest read one before it
    ("0.9.0", "0.5.23", True, "0.9.0"), (None, "0.5.23", False, ""), ("latest", "0.5.23", False, ""),
    ("0.3.6", "0.4.0", False, "")])  # older than every release read: not known, read leniently
def test_pick(version, release, known, newer):
    p = pick("sglang", version, "how")
    assert (p.release, p.known, p.newer) == (release, known, newer)


# ---- release from the image / settings ----

def _pick_note(d):
    return [n for n in d.notes if n.code == "MC040"]


def test_sglang_image_tag_pins_the_table_and_a_newer_image_is_said():
    from gpu_helpers import launch_file

    from moecfg.frameworks import sglang

    (launch,) = launch_file(f"{SGL} --tp 8 --cuda-graph-max-bs 64").launches
    launch.image = "lmsysorg/sglang:v0.5.8-cu130"
    assert "MC022" not in [n.code for n in sglang.derive(launch, LaunchContext()).notes]
    launch.image = "lmsysorg/sglang:v0.5.23"
    assert "MC022" in [n.code for n in sglang.derive(launch, LaunchContext()).notes]
    (launch,) = launch_file(f"{SGL} --tp 8").launches
    launch.image = "lmsysorg/sglang:v9.1.0-cu130"
    d = sglang.derive(launch, LaunchContext())
    (note,) = [n for n in d.notes if "newer than the newest release" in n.message]
    assert "9.1.0" in note.message and releases("sglang")[-1] in note.message


def test_sglang_0_5_23_refuses_the_old_graph_flag_as_ambiguous():
    """0.5.21 split --cuda-graph-max-bs into -decode / -prefill: argparse calls the old spelling ambiguous."""
    d = derive(f"{SGL} --tp 8 --cuda-graph-max-bs 64", LaunchContext(framework_versions=(("sglang", "0.5.23"),)))
    (note,) = [n for n in d.notes if n.code == "MC022"]
    assert note.severity is None and "ambiguous" in note.message and "--cuda-graph-max-bs-decode" in note.message
    # unknown version: read leniently (the flag of the release it probably runs), no warning
    assert "MC022" not in [n.code for n in derive(f"{SGL} --tp 8 --cuda-graph-max-bs 64").notes]


def test_sglang_unknown_flag_warning_only_when_pinned():
    pinned = derive(f"{SGL} --tp 8 --tp-sise 8", LaunchContext(framework_versions=(("sglang", "0.5.8"),)))
    (note,) = [n for n in pinned.notes if n.code == "MC022"]
    assert note.severity is None and "SGLang 0.5.8" in note.message
    (info,) = [n for n in derive(f"{SGL} --tp 8 --tp-sise 8").notes if n.code == "MC022"]
    assert info.severity == "info"


# ---- SGLang aliases and older spellings ----

@pytest.mark.parametrize("flags", ["--tp-size 24", "--tensor-parallel-size 24", "--tp 24", "--tensor-parallel-size=24"])
def test_sglang_long_tp_name_derives(flags):
    (c,) = derive(f"{SGL} {flags}").calls
    assert c.arguments["num_ranks"] == 24


def test_sglang_long_names_feed_the_running_request_rule():
    """tensor/data-parallel-size 24 with DP attention: 8192 // 24 = 341 requests per DP rank <= 512 -> no MC976
    (read as --tp-size 1 / dp 1 before: 8192 > 512)."""
    text = ("export SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK=512\n"
            f"{SGL} --tensor-parallel-size 24 --data-parallel-size 24 --expert-parallel-size 24 "
            "--enable-dp-attention --max-running-requests 8192")
    assert "MC976" not in codes(lint(text))
    busy = text.replace("8192", "14400")
    assert "MC976" in codes(lint(busy))  # 14400 // 24 = 600 > 512: the rule still fires on the values it reads


def test_enable_deepep_moe_is_the_deepep_switch():
    """SGLang 2025-05..07 spelled the DeepEP backend --enable-deepep-moe (+ --deepep-mode)."""
    text = ("python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --enable-deepep-moe "
            "--deepep-mode low_latency --tp 16 --dp 16 --enable-dp-attention --cuda-graph-max-bs 256")
    ctx = LaunchContext(framework_versions=(("sglang", "0.4.9"),))
    (c,) = derive(text, ctx).calls
    assert (c.kind, c.arguments["mode"], c.arguments["num_max_dispatch_tokens_per_rank"]) == ("deepep", "low_latency",
                                                                                             128)
    assert "MC975" in codes(lint(text, ctx))  # a 256-token graph batch per rank (attention TP 1) above the cap 128
    assert "MC975" not in codes(lint(text.replace("256", "128"), ctx))


# ---- vLLM ----

def test_vllm_dotted_json_sub_flags():
    d = derive(f"{VLLM} -dp 16 --all2all-backend deepep_low_latency --enable-eplb --eplb-config.num_redundant_experts 32 "
               "--speculative-config.method mtp --speculative-config.num_speculative_tokens=2")
    assert "MC022" not in [n.code for n in d.notes]
    (c,) = d.calls
    assert c.arguments["num_experts"] == 256 + 32


def test_vllm_wrapper_with_end_of_options():
    d = derive(f"tool run -g2 -- {VLLM} -dp 16 --all2all-backend deepep_low_latency")
    assert d.calls and d.calls[0].arguments["num_ranks"] == 16


def test_bash_c_double_dash_in_kubernetes():
    text = """apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
    - name: c
      image: vllm/vllm-openai:v0.14.0
      command: [/bin/bash, -c, --]
      args: ["vllm serve deepseek-ai/DeepSeek-V3 --enable-expert-parallel -dp 16 --all2all-backend deepep_low_latency"]
"""
    d = derive(text, yaml=True)
    assert d.calls[0].arguments["num_ranks"] == 16 and d.version == "0.14.0"


@pytest.mark.parametrize("framework_text, flag", [
    (f"{SGL} --tp-size {{tp}}", "--tp-size"), (f"{SGL} --tensor-parallel-size '{{tp}}'", "--tp-size")])
def test_placeholder_is_unknown_not_tp_1(framework_text, flag):
    d = derive(framework_text)
    assert not d.calls and any(n.code == "MC023" and flag in n.message for n in d.notes)


def test_vllm_placeholder_is_unknown():
    d = derive(f"{VLLM} -dp {{dp}} --all2all-backend deepep_low_latency")
    assert any(n.code == "MC023" and "--data-parallel-size" in n.message for n in d.notes)
    assert not any(c.arguments.get("num_ranks") == 1 for c in d.calls)


# ---- per-release behaviour (frameworks/sglang/releases.py) ----

MEGA = ("export SGLANG_OPT_USE_DEEPGEMM_MEGA_MOE=1\nexport SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK=0\n"
        f"{SGL} --tp 32 --dp 32 --enable-dp-attention --cuda-graph-max-bs 64 --max-running-requests 4096")


def test_mega_moe_runs_no_deepep_and_no_cap_rules():
    (c,) = derive(MEGA).calls
    assert c.kind == "none" and "megamoe" in c.why_none
    found = codes(lint(MEGA))
    assert not {"MC601", "MC975", "MC976"} & set(found)


def test_mega_moe_variable_on_a_release_that_does_not_read_it():
    """0.5.23 ignores the variable (the flag is --moe-a2a-backend megamoe): DeepEP runs, but T = 0 is no cap to
    judge against (never "lower ... to 0")."""
    ctx = LaunchContext(framework_versions=(("sglang", "0.5.8"),))
    (c,) = derive(MEGA, ctx).calls
    assert c.kind == "deepep" and c.arguments["num_max_dispatch_tokens_per_rank"] == 0
    results = lint(MEGA, ctx)
    assert not {"MC975", "MC976"} & set(codes(results))
    assert not any(" to 0" in d.message for r in results for d in r.diagnostics)


def test_deepep_v2_cap_message_names_the_v2_variable():
    text = (f"{SGL.replace('deepep', 'deepep_v2')} --tp 16 --dp 16 --enable-dp-attention --cuda-graph-max-bs 256")
    results = lint(text)
    (d,) = [d for r in results for d in r.diagnostics if d.code == "MC975"]
    assert "SGLANG_DEEPEP_V2_NUM_MAX_DISPATCH_TOKENS_PER_RANK >= 256" in d.message and "T = 128" in d.message


def test_graph_batches_are_clamped_by_the_requests_per_dp_worker():
    """--max-running-requests 4096 --cuda-graph-max-bs 4096 with DP 32: SGLang (>= 0.5.10) captures at most
    4096 // 32 = 128 requests per DP worker: 128 tokens per rank (attention TP 1) = T 128, no MC975."""
    text = f"{SGL} --tp 32 --dp 32 --enable-dp-attention --max-running-requests 4096 --cuda-graph-max-bs 4096"
    assert "MC975" not in codes(lint(text))
    assert "MC975" in codes(lint(text.replace("4096 --cuda", "4128 --cuda")))  # 4128 // 32 = 129 > 128
    old = LaunchContext(framework_versions=(("sglang", "0.5.9"),))  # the pool was --max-running-requests itself
    assert "MC975" in codes(lint(text, old))


def _mc976(text, ctx=LaunchContext()):
    (d,) = [d for r in lint(text, ctx) for d in r.diagnostics if d.code == "MC976"]
    return d


def test_running_requests_above_the_cap_is_an_error_only_with_an_autotune_warm_up():
    """2112 requests per DP rank (67584 // 32) > T 1024: with a FlashInfer autotune warm-up at that size SGLang
    fails at start-up (error); with none it fails only under load (warning)."""
    base = (f"export SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK=1024\n{SGL} --tp 32 --dp 32 --enable-dp-attention "
            "--max-running-requests 67584")
    assert _mc976(f"{base} --moe-runner-backend flashinfer_cutedsl").severity == "error"  # version unknown: #42/#44
    assert _mc976(base).severity == "warning"  # runner auto: no warm-up at that size
    assert _mc976(f"{base} --moe-runner-backend flashinfer_trtllm --disable-flashinfer-autotune").severity == "warning"
    pinned = LaunchContext(framework_versions=(("sglang", "0.5.23"),))  # skips cutedsl + deepep
    assert _mc976(f"{base} --moe-runner-backend flashinfer_cutedsl", pinned).severity == "warning"
    assert _mc976(f"{base} --moe-runner-backend flashinfer_trtllm", pinned).severity == "error"
    assert "2112 requests per DP rank" in _mc976(base).message


def test_fp8_sizing_per_release():
    """Released SGLang (0.5.1 .. 0.5.23) sizes the normal Buffer with params_bytes 2 whatever the dispatch dtype: a
    recipe pinned to v0.5.8 gets the hidden x 2 figure (335,709,824 B for 8 ranks) and no MC644; an unpinned launch
    is read as SGLang main (hidden x 1 = 188,909,184 B, MC644)."""
    from gpu_helpers import launch_file

    from moecfg.frameworks import sglang

    (launch,) = launch_file(f"{SGL} --tp 8").launches
    launch.image = "lmsysorg/sglang:v0.5.8-cu130"
    (c,) = sglang.derive(launch, LaunchContext()).calls
    assert c.arguments["num_nvl_bytes"] == 335_709_824 and "params_bytes 2" in c.derivation["dtype"]
    pinned = LaunchContext(framework_versions=(("sglang", "0.5.8"),))
    assert "MC644" not in codes(lint(f"{SGL} --tp 8", pinned))
    (unpinned,) = derive(f"{SGL} --tp 8").calls
    assert unpinned.arguments["num_nvl_bytes"] == 188_909_184 and "MC644" in codes(lint(f"{SGL} --tp 8"))


def test_attn_dp_size_is_the_older_dp_attention_pair():
    """SGLang 0.5.23 --attn-dp-size 16 == --dp-size 16 --enable-dp-attention: 2064 // 16 = 129 > 128 (MC976)."""
    new = f"{SGL} --tp 16 --attn-dp-size 16 --max-running-requests 2064"
    old = f"{SGL} --tp 16 --dp 16 --enable-dp-attention --max-running-requests 2064"
    assert "MC976" in codes(lint(new)) and "MC976" in codes(lint(old))
    assert "MC976" not in codes(lint(new.replace("2064", "2063")))


def test_deepep_v2_prefill_chunk_per_rank_against_the_v2_cap():
    """deepep_v2 (SGLang >= 0.5.19): --chunked-prefill-size 8192 over tp 8 = 1024 tokens per rank > 128 -> MC978;
    1024 per rank fits a cap of 1024; a decode-only server prefills nothing."""
    v2 = SGL.replace("deepep", "deepep_v2")
    assert "MC978" in codes(lint(f"{v2} --tp 8 --chunked-prefill-size 8192"))
    ok = f"export SGLANG_DEEPEP_V2_NUM_MAX_DISPATCH_TOKENS_PER_RANK=1024\n{v2} --tp 8 --chunked-prefill-size 8192"
    assert "MC978" not in codes(lint(ok))
    assert "MC978" in codes(lint(ok.replace("8192", "8200")))  # ceil(8200 / 8) = 1025
    assert "MC978" not in codes(lint(f"{v2} --tp 8 --chunked-prefill-size 8192 --disaggregation-mode decode"))
    # DP attention: 8192 // dp 8 = 1024 per DP group on 1 rank each -> 1024 > 128
    d = [d for r in lint(f"{v2} --tp 8 --dp 8 --enable-dp-attention --chunked-prefill-size 8192") for d in
         r.diagnostics if d.code == "MC978"]
    assert d and "1024 tokens per rank" in d[0].message and ">= 1024" in d[0].message


def test_no_fix_says_lower_to_0():
    """T 2 with 4 draft tokens per request: not one request fits, so the fix raises the cap and never says "to 0"."""
    text = (f"export SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK=2\n{SGL} --tp 16 --dp 16 --enable-dp-attention "
            "--cuda-graph-max-bs 8 --max-running-requests 256 --speculative-algorithm EAGLE "
            "--speculative-num-draft-tokens 4")
    found = [d for r in lint(text) for d in r.diagnostics if d.code in ("MC975", "MC976")]
    assert {d.code for d in found} == {"MC975", "MC976"}
    assert all(" to 0" not in d.message and ">= " in d.message for d in found)
