"""tools/check_citations.py: the lines moecfg cites, opened in the fetched repository snapshots (issue 32).

Every `owner/name@commit path:lines` in moecfg/ and docs/ and in the release tables must name a file that exists at
that commit with the lines inside it; and the citations issue 32 found wrong must now say what moecfg claims (each
opened at its commit, the text asserted). Snapshots are git directories without a work tree
(/work/.mirror/<owner>+<name>/repo, or $MOECFG_MIRRORS); a test whose snapshot is absent is skipped, nothing is
downloaded."""
from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path

import pytest

_SPEC = importlib.util.spec_from_file_location("check_citations", Path(__file__).resolve().parents[2] / "tools/check_citations.py")
cites = sys.modules["check_citations"] = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(cites)

VA, X, MIE, LMD, VMS = ("vllm-project/vllm-ascend", "jd-opensource/xllm", "Ascend/MindIE-LLM", "InternLM/lmdeploy",
                        "mindspore-ai/vllm-mindspore")


def lines(repo: str, commit: str, path: str, first: int, last: int) -> str:
    git = cites.snapshot(repo)
    if git is None:
        pytest.skip(f"no local snapshot of {repo}")
    text = cites._git(git, "show", f"{commit}:{path}")
    assert text is not None, f"{path} is not at {repo}@{commit}"
    return "\n".join(text.splitlines()[first - 1:last])


def test_every_citation_in_a_snapshot_opens():
    all_cites = cites.release_tables() + cites.source_citations()
    held = [c for c in all_cites if cites.snapshot(c.repo) is not None]
    if not held:
        pytest.skip("no repository snapshot on this machine")
    problems, _, opened = cites.check(all_cites)
    assert problems == [] and opened > 0


def test_a_missing_file_and_a_line_past_the_end_are_problems():
    if cites.snapshot(VA) is None:
        pytest.skip("no local snapshot of vllm-ascend")
    found = cites.find("VA@182b75e vllm_ascend/utils.py:99999 and vllm_ascend/no_such_file.py:1", "case")
    problems, _, _ = cites.check(found)
    assert len(problems) == 2 and "lines" in problems[0] and "no such file" in problems[1]


# (repo, commit, path, first, last, text the lines hold) for what moecfg now cites
CLAIMS = [
    # MindIE's moe_expert_num: the routed expert count into the dispatch (not fused_moe.py:136, an import)
    (MIE, "8b4871a", "mindie_llm/runtime/layers/fused_moe/fused_moe.py", 205, 205, '"num_experts": self.num_experts'),
    (MIE, "8b4871a", "mindie_llm/runtime/layers/fused_moe/token_dispatcher.py", 196, 196,
     '"moe_expert_num": args.num_experts'),
    # the warm-up's requests are capped at maxBatchSize per DP group
    (MIE, "8b4871a", "mindie_llm/text_generator/generator.py", 1417, 1417, "return result[:max_batch_size_per_dp]"),
    # vllm-ascend v0.23.0: tp_world_size / x_active_mask passed where moecfg now cites them, global_bs above them
    (VA, "5cb98ca", "vllm_ascend/ops/fused_moe/token_dispatcher.py", 182, 183, 'kwargs_mc2["x_active_mask"]'),
    (VA, "5cb98ca", "vllm_ascend/ops/fused_moe/token_dispatcher.py", 192, 196, '"tp_world_size": 1'),
    (VA, "5cb98ca", "vllm_ascend/ops/fused_moe/token_dispatcher.py", 133, 133, "should_skip_allreduce_across_dp_group"),
    # skip-allreduce: v0.25.1rc1 adds the cudagraph-mode condition
    (VA, "9bf964c", "vllm_ascend/utils.py", 1165, 1214, "cudagraph_mode.separate_routine()"),
    # the profile run's one step at the MC2 capacity
    (VA, "5cb98ca", "vllm_ascend/worker/model_runner_v1.py", 3685, 3688, "_dummy_run(mc2_tokens_capacity"),
    # mega_moe_max_tokens refused with the code's own words
    (VA, "5cb98ca", "vllm_ascend/ascend_config.py", 306, 313, "must be a positive integer"),
    # dispatch_ffn_combine's group
    (VA, "182b75e", "csrc/mc2/dispatch_ffn_combine/op_host/dispatch_ffn_combine_tiling.cpp", 98, 99,
     "group is invalid."),
    # xLLM: the kernel backend by model type, per release; gflags parses the command line
    (X, "87e8d6e", "xllm/models/model_registry.cpp", 69, 82, '"deepseek_v4"'),
    (X, "ef1543a", "xllm/models/model_registry.cpp", 112, 112, 'model_type == "qwen3")'),
    (X, "87e8d6e", "xllm/xllm.cpp", 505, 505, "ParseCommandLineFlags"),
    # LMDeploy: DistConfig's checks end at 215
    (LMD, "1208bf0", "lmdeploy/pytorch/config.py", 214, 215, "attn_tp {self.attn_tp}"),
    # vllm-mindspore registers Qwen3-MoE natively, by architecture
    (VMS, "423bd12", "vllm_mindspore/model_executor/models/registry.py", 64, 83, '"Qwen3MoeForCausalLM"'),
]


@pytest.mark.parametrize("repo, commit, path, first, last, text", CLAIMS)
def test_cited_lines_say_what_moecfg_claims(repo, commit, path, first, last, text):
    assert text in lines(repo, commit, path, first, last)


@pytest.mark.parametrize("commit, lines_", [("5cb98ca", (1230, 1275)), ("e18643f", (1002, 1071)),
                                            ("367b8e6", (1142, 1211))])
def test_no_cudagraph_condition_before_v0_25_1rc1(commit, lines_):
    # v0.23.0 / v0.18.0 / v0.20.2rc1: the skip-allreduce rule has no cudagraph-mode condition (PR #14307 added it)
    body = lines(VA, commit, "vllm_ascend/utils.py", *lines_)
    assert "def should_skip_allreduce_across_dp_group" in body and "separate_routine" not in body


# what each vllm-ascend release's cite[topic] must hold at that release's commit (its first cited file)
ANCHORS = {
    "capture": "return min(max_num_seqs * decode_query_len, 512)", "mc2_group": "_MC2 = init_model_parallel_group(",
    "split": "padded_num_tokens = math.ceil(max_tokens_across_dp / tp_world_size)",
    "hierarchy": "def is_hierarchical_communication_enabled", "buffer": "def get_hccl_config_for_pg_options",
    "eplb": "n_redundant = eplb_config.num_redundant_experts if eplb_enable else 0",
    "skip_allreduce": "def should_skip_allreduce_across_dp_group", "profile": "_dummy_run(mc2_tokens_capacity",
    "mc2_args": '"x_active_mask"', "dispatch": "self.global_bs = _max_global_bs",
}
PINNED = ("0.18.0", "0.19.1rc1", "0.20.2rc1", "0.21.0rc1", "0.22.1rc1", "0.23.0", "0.24.0rc1", "0.25.1rc1", "0.26.0rc")


@pytest.mark.parametrize("key", PINNED)
def test_each_pinned_release_cites_its_own_commit_and_lines(key):
    from moecfg.frameworks.vllm_ascend.releases import RELEASES

    rel = RELEASES[key]
    commit = rel.ref.split("@")[1]
    assert all(commit in text for text in rel.cite.values()), "a topic cites another commit"
    git = cites.snapshot(VA)
    if git is None:
        pytest.skip("no local snapshot of vllm-ascend")
    for topic, anchor in ANCHORS.items():
        first = cites.find(rel.cite[topic], topic)[0]
        path = cites.resolve(git, commit, first.path, None)
        body = cites._git(git, "show", f"{commit}:{path}").splitlines()
        cited = "\n".join(line for a, b in first.lines for line in body[a - 1:b])
        assert anchor in cited, f"{key} cite[{topic}] = {rel.cite[topic]}"


def test_each_xllm_release_cites_its_own_start_up_checks():
    # MC915 / MC916: the world-split CHECKs at each release's commit (they moved between files and lines)
    from moecfg.frameworks.xllm import releases as xr

    git = cites.snapshot(X)
    if git is None:
        pytest.skip("no local snapshot of xLLM")
    for release in xr.names():
        for text, anchor in ((xr.dp_check(release), "CHECK_EQ((world_size % dp_size), 0)"),
                             (xr.ep_check(release), "CHECK")):
            first = cites.find(text, release)[0]
            assert xr.commit(release) in text
            body = cites._git(git, "show", f"{first.commit}:{first.path}").splitlines()
            cited = "\n".join(line for a, b in first.lines for line in body[a - 1:b])
            assert anchor in cited and ("ep_size" in cited or "moe_ep_" in cited or "dp_size" in cited), (release, text)


# ---- the generated per-release tables (tools/gen_release_cites.py -> moecfg/frameworks/<name>/cites.json) ----------
_GEN_SPEC = importlib.util.spec_from_file_location("gen_release_cites",
                                                   Path(__file__).resolve().parents[2] / "tools/gen_release_cites.py")
gen = sys.modules["gen_release_cites"] = importlib.util.module_from_spec(_GEN_SPEC)
_GEN_SPEC.loader.exec_module(gen)
WHEELS = Path(os.environ.get("MOECFG_WHEELS", "/tmp/fid2wheels"))  # where `pip download` put the LMDeploy wheels


def _table(framework: str) -> dict:
    root = Path(__file__).resolve().parents[2]
    return json.loads((root / "moecfg/frameworks" / framework / "cites.json").read_text(encoding="utf-8"))


def _source(framework: str, row: dict):
    """(show(path) -> text, name) of the release a row was read from; skips when it is not on this machine."""
    if "commit" in row:
        git = cites.snapshot(_table(framework)["repo"])
        if git is None:
            pytest.skip(f"no local snapshot of {framework}")
        return (lambda path: cites._git(git, "show", f"{row['commit']}:{path}")), row["commit"][:8]
    wheel = WHEELS / row["wheel"]
    if not wheel.is_file():
        pytest.skip(f"{row['wheel']} is not in {WHEELS} (pip download --no-deps ...; set MOECFG_WHEELS)")
    return gen.Wheel(wheel).show, row["wheel"]


@pytest.mark.parametrize("framework", sorted(gen.FRAMEWORKS))
def test_every_generated_citation_opens_at_its_release_and_holds_its_anchor(framework):
    # each cited part: its first line holds the anchor's first text, its last line the last text
    anchors, opened = gen.FRAMEWORKS[framework][1], 0
    for release, row in _table(framework)["releases"].items():
        show, name = _source(framework, row)
        for anchor, at in row["cites"].items():
            if at is None:
                continue
            path, _, spans = at.rpartition(":")
            body = show(path)
            assert body is not None, f"{framework} {release}: {path} is not at {name}"
            lines = body.splitlines()
            cited = [part for part in anchors[anchor][1] if not part[0].startswith("^")]
            assert len(cited) == len(spans.split(",")), (release, anchor, at)
            for part, span in zip(cited, spans.split(",")):
                first, _, last = span.partition("-")
                assert part[0].lstrip("<") in lines[int(first) - 1], (release, anchor, at)
                assert part[-1] in lines[int(last or first) - 1], (release, anchor, at)
                assert int(last or first) - int(first) < 45, (release, anchor, at)  # not a match run away
            opened += 1
    assert opened > 0


@pytest.mark.parametrize("framework", sorted(gen.FRAMEWORKS))
def test_the_committed_table_is_what_the_generator_finds(framework):
    # regenerated from the mirror (and the wheels): an anchor absent at a release (None) is absent there too
    data = _table(framework)
    if cites.snapshot(data["repo"]) is None:
        pytest.skip(f"no local snapshot of {data['repo']}")
    wheels = [row["wheel"] for row in data["releases"].values() if "wheel" in row]
    if any(not (WHEELS / w).is_file() for w in wheels):
        pytest.skip(f"the release wheels are not in {WHEELS}")
    assert gen.table(framework, cites.MIRRORS, WHEELS) == data


def test_an_anchor_a_release_lacks_is_none_there():
    # the TORCH FusedMoE's dispatch_v2 call arrived in v0.10.0; the fixed 512 MB buffer left with it
    xllm = _table("xllm")["releases"]
    assert xllm["0.9.1"]["cites"]["decode_dispatch"] is None and xllm["0.10.0"]["cites"]["decode_dispatch"]
    assert xllm["0.9.1"]["cites"]["buffer_fixed"] and xllm["0.10.0"]["cites"]["buffer_fixed"] is None
    assert xllm["0.9.1"]["cites"]["ep2_domain"] is None and xllm["main"]["cites"]["ep2_domain"]


def test_a_named_release_and_a_quoted_log_are_not_the_repository_before_them():
    # `sglang==0.5.23 (.../deepep.py:402)` cites that wheel's file; `Assertion error csrc/deep_ep.cpp:1233` quotes a
    # crash log: neither is a file of the DeepEP commit cited before them
    text = ("deepseek-ai/DeepEP@dd758ca csrc/legacy/buffer.hpp:807-811; released sglang==0.5.23 sizes it "
            "(sglang/srt/layers/moe/token_dispatcher/deepep.py:402). RuntimeError: Failed: Assertion error "
            "csrc/deep_ep.cpp:1233 'x.size(0) <= n'")
    found = cites.find(text, "case")
    assert [(c.repo, c.path, c.lines) for c in found] == [("deepseek-ai/DeepEP", "csrc/legacy/buffer.hpp",
                                                            ((807, 811),))]
    quoted_after_a_path = cites.find("X@87e8d6e xllm/xllm.cpp:505; Assertion error csrc/deep_ep.cpp:1", "case")
    assert [c.path for c in quoted_after_a_path] == ["xllm/xllm.cpp"]
