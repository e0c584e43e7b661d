"""frameworks/lmdeploy: `lmdeploy serve api_server ... --device ascend` -> dlinfer's dispatch_v2 / combine_v2 call
per phase, LMDeploy's start-up checks MC910-MC914.

Read in InternLM/lmdeploy v0.12.1 .. v0.18.0 (op_backend.py init_mc2_token_capacity / select_moe_comm_type,
pytorch/config.py DistConfig, serve/openai/launch_server.py) and DeepLink-org/dlinfer@689f5a0 (dlinfer-ascend 0.2.7)
dlinfer/vendor/ascend/moe.py fused_moe_mc2. Scripts go through the real shell reader.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from moecfg.backends import Options
from moecfg.checking.launch import lint_launch_file
from moecfg.frameworks import LaunchContext, recognise
from moecfg.sources.readers import read_shell

FIXTURES = Path(__file__).parent / "fixtures" / "lmdeploy"
DSV3 = (("/path/to/model", "deepseek-v3"), ("m", "deepseek-v3"))


def ctx(product="A3", version=None, models=DSV3):
    return LaunchContext(product=product, product_source="--product", cann="9.0.1", models=models,
                         framework_versions=((("lmdeploy", version),) if version else ()))


def lint(text: str, context=None):
    return lint_launch_file(read_shell(text), "run.sh", context or ctx(), Options())


def launch(flags: str, env: str = "export HCCL_BUFFSIZE=1024\n", context=None):
    return lint(f"{env}lmdeploy serve api_server m --backend pytorch --device ascend {flags}\n", context)


def diags(results):
    return [d for r in results for d in r.diagnostics]


def codes(results) -> list[str]:
    return sorted({d.code for d in diags(results)})


def mc2(results):
    return next(r for r in results if r.op == "dispatch_combine_v2")


def roles(results) -> list[tuple[str, str]]:
    return [(r.launch["role"], r.op) for r in results]


# ---- recognition ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("command, yes", [
    ("lmdeploy serve api_server m --device ascend", True), ("python3 -m lmdeploy serve api_server m", True),
    ("/opt/conda/bin/lmdeploy serve api_server m", True), ("lmdeploy serve proxy --server-port 8000", True),
    ("python -m lmdeploy.serve.proxy.proxy --server_name 0.0.0.0", True),
    ("python -m lmdeploy.serve.openai.api_server m", True),
    ("lmdeploy chat m --backend pytorch --device ascend", False), ("pip install lmdeploy", False),
    ("lmdeploy serve gradio m", False), ("lmdeploy lite auto_awq m --device npu", False),
    ("python -m lmdeploy check_env", False), ("lmdeploy", False),
])
def test_recognised_commands(command, yes):
    found = recognise(read_shell(command + "\n").launches[0])
    assert (found is not None and found.NAME == "lmdeploy") is yes


def test_gpu_proxy_and_fire_launches_are_recognised_and_say_nothing():
    for text in ("lmdeploy serve api_server deepseek-ai/DeepSeek-V3 --tp 8 --ep 8 --dp 8 --max-batch-size 4",
                 "lmdeploy serve proxy --server-name 0.0.0.0", "python -m lmdeploy.serve.openai.api_server m"):
        results = lint(text + "\n")
        assert [r.op for r in results] == ["none"] and diags(results) == []


@pytest.mark.parametrize("version, severity", [("0.18.0", "error"), (None, "warning")])
def test_gpu_launch_flags_are_checked_against_the_release(version, severity):
    # --disable-vision-encoder: LMDeploy 0.12.1..0.14.0 only (flags.json, from lmdeploy/cli/serve.py per tag); a GPU
    # launch still goes through the release's argparse, which exits with `unrecognized arguments` (issue 32)
    text = "lmdeploy serve api_server deepseek-ai/DeepSeek-V3 --tp 8 --disable-vision-encoder\n"
    found = [d for d in diags(lint(text, ctx(version=version))) if d.code == "MC022"]
    assert len(found) == 1 and found[0].severity == severity and "0.12.1..0.14.0" in found[0].message


# ---- the published multi-node launch (dlinfer's guide) ------------------------------------------------------

def test_dlinfer_guide_node0_on_a3():
    results = lint((FIXTURES / "dlinfer-node0.sh").read_text())
    assert roles(results) == [("decode", "dispatch_combine_v2"), ("prefill", "none")]
    a = mc2(results).arguments
    # --ep 32: world 32, attn TP 32 / --dp 2 = 16 (= --tp 16); capacity min(256 x (1 + 0), 512) = 256, a multiple of
    # 16 already; 256 / 16 = 16 rows per rank; DeepSeek-V3: 256 experts / 32 = 8 local x 32 = 256
    assert (a["bs"], a["ep_world_size"], a["moe_expert_num"], a["h"], a["k"]) == (16, 32, 256, 7168, 8)
    assert (a["global_bs"], a["quant_mode"], a["tp_world_size"], a["x_active_mask"]) == (0, 0, 1, "1d")
    assert a["expert_token_nums_type"] == 0 and a["env"] == {"HCCL_BUFFSIZE": 1024}
    assert [d.severity for d in diags(results)].count("error") == 0
    assert "MC040" in codes(results)  # no version pinned: the newest read (0.18.0)


def test_dlinfer_guide_node0_on_a2_runs_mc2_because_dp_times_tp_is_32():
    results = lint((FIXTURES / "dlinfer-node0.sh").read_text(), ctx("A2"))
    assert roles(results) == [("decode", "dispatch_combine_v2"), ("prefill", "none")]
    assert mc2(results).arguments["bs"] == 16 and "errors" not in str(codes(results))


def test_published_launches_without_ep_and_the_proxy_say_nothing():
    for name in ("dlinfer-tp-across-nodes.sh", "lmdeploy-get-started.sh", "dlinfer-proxy.sh"):
        results = lint((FIXTURES / name).read_text(), ctx(models=()))
        assert [r.op for r in results] == ["none"] and diags(results) == [], name
    # the same TP-only launch of a model known to be MoE: one info, MoE layers run with TP 16, no EP collective
    moe = lint((FIXTURES / "dlinfer-tp-across-nodes.sh").read_text())
    assert codes(moe) == ["MC041"] and "TP 16" in diags(moe)[0].message


def test_guide_markdown_blocks_are_read_as_launches():
    # the Markdown reader opens a code block when it names lmdeploy (sources/framework_words.py)
    from moecfg.checking.engine import check_bytes
    from moecfg.checking.settings import Cli, Config, FilePolicy

    path = FIXTURES / "dlinfer-multinodes-excerpt.md"
    policy = FilePolicy(Config(product="A3", cann_version="9.0.1", models={"/path/to/model": "deepseek-v3"}), Cli())
    done = check_bytes(path.read_bytes(), str(path), policy=policy)
    assert [(r.launch["role"], r.op) for r in done.results] == [("serve", "none"), ("decode", "dispatch_combine_v2"),
                                                                ("prefill", "none")]
    call = done.results[1]
    assert call.arguments["bs"] == 16 and call.arguments["env"] == {"HCCL_BUFFSIZE": 1024}
    assert not [d for r in done.results for d in r.diagnostics if d.severity != "info"]


def test_explain_launch_shows_each_derivation():
    from click.testing import CliRunner

    from moecfg.cli import cli

    out = CliRunner().invoke(cli, ["explain-launch", str(FIXTURES / "dlinfer-node0.sh"), "--product", "A3"])
    assert out.exit_code == 0
    assert "bs = 16 <- capacity 256 / TP 16" in out.output and "ep_world_size = 32 <- --ep 32" in out.output
    assert "global_bs = 0 <- fixed by dlinfer" in out.output and "quant_mode = 0 <- fixed by dlinfer" in out.output
    assert "env.HCCL_BUFFSIZE = 1024 <- HCCL_BUFFSIZE" in out.output


# ---- op selection and capacity, per product and release -------------------------------------------------------

@pytest.mark.parametrize("flags, mc2_runs", [
    ("--tp 8 --dp 2 --ep 16", True),  # dp 2 x attn tp 8 = 16: just inside A2's dp x tp >= 16
    ("--tp 4 --dp 2 --ep 8", False),  # dp 2 x attn tp 4 = 8: all-gather
    ("--ep 16", True),  # --tp 1 --dp 1: world 16, attn tp 16 -> 1 x 16 = 16
])
def test_a2_needs_dp_times_tp_16(flags, mc2_runs):
    results = launch(flags, context=ctx("A2"))
    assert any(r.op == "dispatch_combine_v2" for r in results) is mc2_runs
    if not mc2_runs:
        assert "all-gather" in diags(results)[-1].message and "MC041" in codes(results)


@pytest.mark.parametrize("flags, bs", [
    ("--tp 16 --dp 2 --ep 32 --max-batch-size 100", 7),  # min(100, 512) = 100 -> ceil(100 / 16) x 16 = 112; 112 / 16 = 7
    ("--tp 1 --dp 16 --ep 16 --max-batch-size 511", 511),  # just inside the 512 cap, TP 1
    ("--tp 1 --dp 16 --ep 16 --max-batch-size 513", 512),  # just outside: min(513, 512) = 512
    ("--tp 8 --ep 8 --max-batch-size 64 --speculative-algorithm deepseek_mtp --speculative-num-draft-tokens 3", 32),
    # 0.18: min(64 x (1 + 3), 512) = 256, / TP 8 = 32
    ("--tp 8 --ep 8 --max-batch-size 64 --speculative-num-draft-tokens 3", 8),  # no algorithm: no draft: 64 / 8
    ("--tp 8 --ep 8 --max-batch-size 0", 32),  # 0 is falsy: the Ascend default 256, / 8
])
def test_mc2_rows_per_rank(flags, bs):
    assert mc2(launch(flags)).arguments["bs"] == bs


def test_before_0_15_the_capacity_ignores_draft_tokens_and_a3_runs_mc2_for_small_prefills():
    flags = "--tp 8 --ep 8 --max-batch-size 64 --speculative-algorithm deepseek_mtp --speculative-num-draft-tokens 3"
    old = launch(flags + " --max-prefill-token-num 64", context=ctx(version="0.14.0"))
    assert mc2(old).arguments["bs"] == 8  # min(64, 512) = 64 / TP 8
    assert roles(old) == [("decode", "dispatch_combine_v2")]  # prefill steps <= 64 tokens: MC2 too (64 just inside)
    assert roles(launch(flags + " --max-prefill-token-num 65", context=ctx(version="0.14.0")))[-1] == ("prefill", "none")
    new = launch(flags + " --max-prefill-token-num 64", context=ctx(version="0.15.0"))
    assert roles(new)[-1] == ("prefill", "none") and mc2(new).arguments["bs"] == 32  # A3 decode only from 0.15


def test_version_note_only_with_expert_parallelism():
    assert "MC040" in codes(launch("--tp 16 --dp 2 --ep 32"))
    assert codes(launch("--tp 16 --dp 2 --ep 32", context=ctx(version="0.16.0"))) == ["MC041"]  # prefill: all-to-all
    assert codes(launch("--tp 8")) == ["MC041"]  # MoE layers with TP 8: the release changes nothing


def test_product_unknown_is_asked_only_with_ep():
    none = ctx(product=None)
    assert codes(launch("--tp 16 --dp 2 --ep 32", context=none)) == ["MC040", "MC042"]
    assert codes(launch("--tp 8", context=none)) == ["MC041"]


# ---- start-up checks ------------------------------------------------------------------------------------------

def test_mc910_dp_without_tp_or_ep():
    results = launch("--dp 2")
    assert codes(results) == ["MC910"] and diags(results)[0].column == len("lmdeploy serve api_server m --backend "
                                                                           "pytorch --device ascend ") + 1
    assert "MC910" not in codes(launch("--dp 2 --tp 2"))  # tp 2: one device per DP group


@pytest.mark.parametrize("flags, failed, at", [
    ("--tp 8 --dp 2 --ep 32", "mlp_tp 8, attn_tp 16", "--tp"),  # attn tp 32 / 2 = 16 > --tp 8
    ("--tp 16 --dp 3 --ep 32", "world_size 32, dp 3", "--dp"),
    ("--tp 4 --ep 8", "mlp_tp 4, attn_tp 8", "--tp"),  # dp 1: attn tp = world 8
    ("--tp 6 --dp 2", "mlp_tp 6, attn_tp 3", None),  # no --ep: world 6, attn 3 -> mlp 6 fine: accepted
])
def test_mc911_distconfig(flags, failed, at):
    results = launch(flags)
    if at is None:
        assert "MC911" not in codes(results)
        return
    d = next(d for d in diags(results) if d.code == "MC911")
    assert failed in d.message and d.severity == "error"
    line = f"lmdeploy serve api_server m --backend pytorch --device ascend {flags}"
    assert d.column == line.index(at) + 1


@pytest.mark.parametrize("flags, fires", [
    ("--tp 8 --dp 3 --ep 24 --nnodes 2", True),  # 3 // 2 = 1 server per node: DP rank 2 never starts
    ("--tp 8 --dp 4 --ep 32 --nnodes 2", False),
    ("--tp 16 --dp 2 --ep 32 --nnodes 2 --node-rank 2", True),  # rank 2 of 2 nodes: DP rank 2 >= --dp 2
    ("--tp 16 --dp 2 --ep 32 --nnodes 2 --node-rank 1", False),
    ("--tp 16 --dp 2 --ep 32 --nnodes 4", True),  # 2 // 4 = 0 servers per node
])
def test_mc912_dp_over_nodes(flags, fires):
    assert ("MC912" in codes(launch(flags))) is fires


def test_mc913_experts_not_divisible_by_ep():
    results = launch("--tp 8 --dp 3 --ep 24")  # 256 = 10 x 24 + 16: ceil = 11 per rank, the last 256 - 11 x 23 = 3
    d = next(d for d in diags(results) if d.code == "MC913")
    assert "264 on the first ranks and 72 on the last" in d.message and d.severity == "warning"
    assert mc2(results).arguments["moe_expert_num"] == 264  # rank 0's: 11 x 24
    assert "MC913" not in codes(launch("--tp 8 --dp 4 --ep 32"))


@pytest.mark.parametrize("value, fires", [("0.99", False), ("1.0", True), ("0", True), ("0.01", False), ("-0.5", True)])
def test_mc914_cache_max_entry_count(value, fires):
    assert ("MC914" in codes(launch(f"--tp 16 --dp 2 --ep 32 --cache-max-entry-count {value}"))) is fires


def test_device_unknown_is_said_not_assumed():
    results = lint('lmdeploy serve api_server m --device "$DEVICE" --tp 16 --dp 2 --ep 32\n')
    assert codes(results) == ["MC023"] and "--device" in diags(results)[0].message


def test_sizes_refused_and_unreadable():
    assert "MC025" in codes(launch("--ep 0"))
    assert "MC023" in codes(launch("--tp x16 --ep 32"))


# ---- flags ------------------------------------------------------------------------------------------------------

def test_flags_as_lmdeploys_parser_reads_them():
    assert mc2(launch("--tp 8 --ep 8 --max_batch_size 64")).arguments["bs"] == 8  # underscores: 64 / 8
    assert mc2(launch("--tp 8 --ep 8 --max-batch 64")).arguments["bs"] == 8  # argparse prefix
    typo = launch("--tp 8 --ep 8 --max-batch-sizes 64")
    assert "MC022" in codes(typo) and mc2(typo).arguments["bs"] == 32  # the typo is not read: default 256 / 8
    old = launch("--tp 8 --ep 8 --speculative-dflash-block-size 4", context=ctx(version="0.16.0"))
    assert "0.18.0..0.18.0 define it" in next(d for d in diags(old) if d.code == "MC022").message


def test_op_findings_name_lmdeploys_knobs():
    # A2, TP 1, 16 DP ranks, --max-batch-size 1024: min(1024, 512) = 512 rows per rank > A2's 256 (MC103)
    results = launch("--tp 1 --dp 16 --ep 16 --max-batch-size 1024", context=ctx("A2"))
    d = next(d for d in diags(results) if d.code == "MC103")
    assert "--max-batch-size" in d.message and d.severity == "error"
    small = launch("--tp 16 --dp 2 --ep 32", env="export HCCL_BUFFSIZE=100\n")  # A3 needs 120 MB here
    assert "MC501" in codes(small)
    assert "MC501" not in codes(launch("--tp 16 --dp 2 --ep 32", env="export HCCL_BUFFSIZE=120\n"))


def test_flag_table_matches_the_releases_read():
    from moecfg.frameworks.lmdeploy import VERSIONS, cli

    assert VERSIONS == cli.releases()
    d = cli.defaults("0.18.0")
    assert (d["--tp"], d["--dp"], d["--ep"], d["--device"], d["--max-prefill-token-num"]) == (1, 1, 1, "cuda", 8192)
    assert "--speculative-dflash-block-size" not in cli.defaults("0.17.0")
