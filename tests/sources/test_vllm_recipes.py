"""vllm-project/recipes model recipes (sources/recipes/vllm.py): one `vllm serve` launch per strategy, composed as
the site's command-synthesis.js does, every word at the recipe line it comes from. The fixtures under
vllm-recipes/ are the repository's layout (models/<org>/<model>.yaml beside strategies/*.yaml), trimmed."""
from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest
from reader_helpers import after, at, pos, words

from moecfg.backends import Options
from moecfg.checking.engine import lint_text
from moecfg.frameworks import recognise
from moecfg.sources.recipes import vllm_strategies
from moecfg.sources.documents.classify import Launches, Skipped, Vocabulary, classify_text
from moecfg.sources.readers import read_yaml_document
from moecfg.sources.manifests.yaml_source import parse_stream

TREE = Path(__file__).parent / "vllm-recipes"
DSR1 = TREE / "models" / "deepseek-ai" / "DeepSeek-R1.yaml"
KIMI = TREE / "models" / "moonshotai" / "Kimi-K2.5.yaml"


def read(path: Path, root: Path | None = TREE):
    text = path.read_text(encoding="utf-8")
    return text, read_yaml_document(parse_stream(text)[0], text, str(path), str(root) if root else None)


def by_name(lf) -> dict:
    return {launch.container: launch for launch in lf.launches}


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


@pytest.mark.parametrize("path", sorted(p for p in TREE.rglob("*.yaml")), ids=lambda p: p.name)
def test_every_fixture_cites_its_source(path):
    assert path.read_text(encoding="utf-8").startswith("# source: https://github.com/vllm-project/recipes/blob/")


def test_one_launch_per_strategy_and_one_per_pd_role():
    _, lf = read(DSR1)
    assert [x.container for x in lf.launches] == ["single_node_tep", "multi_node_dep", "pd_cluster prefill",
                                                  "pd_cluster decode"]
    assert lf.problems == [] and all(recognise(x).NAME == "vllm" for x in lf.launches)


def test_multi_node_dep_is_the_command_the_site_renders():
    text, lf = read(DSR1)
    dep = by_name(lf)["multi_node_dep"]
    # base_args, then the strategy's vllm_args and DP sizes, then the features; dedupe keeps the LAST
    # --enable-expert-parallel (the strategy's), the GPU count and the head's address are unknown
    assert words(dep) == ["vllm", "serve", "deepseek-ai/DeepSeek-R1", "--trust-remote-code",
                          "--enable-expert-parallel", "--data-parallel-hybrid-lb", "--data-parallel-size", None,
                          "--data-parallel-size-local", None, "--data-parallel-address", None,
                          "--reasoning-parser", "deepseek_r1"]
    strategy_line = line_of(text, "  - multi_node_dep")
    assert at(text, dep.argv[2].span) == '"deepseek-ai/DeepSeek-R1"'
    assert at(text, after(dep, "deepseek-ai/DeepSeek-R1").span) == '"--trust-remote-code"'
    assert at(text, after(dep, "--reasoning-parser").span) == '"deepseek_r1"'
    # the strategy's words (another file) point at the recipe line naming the strategy
    for flag in ("vllm", "--enable-expert-parallel", "--data-parallel-hybrid-lb", "--data-parallel-size"):
        assert next(w for w in dep.argv if w.value == flag).span.line == strategy_line
    assert at(text, dep.span) == "multi_node_dep"
    assert dep.env["GLOO_SOCKET_IFNAME"].value is None  # "$IFACE_NAME": the shell fills it in
    assert dep.env["GLOO_SOCKET_IFNAME"].span.line == strategy_line
    assert "VLLM_USE_FLASHINFER_MOE_FP8" not in dep.env  # hardware_overrides.hopper: the hardware is not known


def test_single_node_parallel_size_is_the_unknown_gpu_count():
    _, lf = read(DSR1)
    tep = by_name(lf)["single_node_tep"]
    assert after(tep, "--tensor-parallel-size").value is None
    assert words(tep).count("--enable-expert-parallel") == 1


def test_pd_cluster_dep_pools_and_role_args():
    text, lf = read(KIMI)
    launches = by_name(lf)
    decode, prefill = launches["pd_cluster decode"], launches["pd_cluster prefill"]
    assert after(decode, "--all2all-backend").value == "flashinfer_nvlink_one_sided"
    assert after(decode, "--all2all-backend").span.line == line_of(text, '"flashinfer_nvlink_one_sided"')
    assert after(decode, "--data-parallel-start-rank").value == "0"  # the pool's first node
    assert after(decode, "--data-parallel-size").value is None
    assert after(prefill, "--port").value == "8001" and after(decode, "--port").value == "8002"
    assert "--all2all-backend" not in words(prefill)
    assert decode.env["CUDA_VISIBLE_DEVICES"].value is None  # pinned from the GPU count
    assert decode.env["NCCL_CUMEM_ENABLE"].value is None  # kept only on GB200/GB300 NVL4 trays
    assert decode.env["VLLM_NIXL_SIDE_CHANNEL_PORT"].value == "5558"
    results = lint_text(KIMI.read_text(encoding="utf-8"), str(KIMI), Options(), root=str(TREE))
    assert [r.launch["role"] for r in results] == ["serve", "serve", "prefill", "decode"]


def test_features_on_by_default_only():
    _, lf = read(KIMI)
    for launch in lf.launches:
        assert after(launch, "--reasoning-parser").value == "kimi_k2"
        assert "--language-model-only" not in words(launch)  # opt_in_features
        assert "--mm-encoder-tp-mode" not in words(launch)  # opted in on gb200 only: depends on the hardware


def test_strategy_launches_never_take_the_guides_words():
    text, lf = read(DSR1)
    guide = line_of(text, "guide: |")
    strategies = [x for x in lf.launches if all(w.span.line < guide for w in x.argv)]
    assert len(strategies) == 4  # three strategies, pd_cluster as prefill and decode
    assert all("deepseek-ai/DeepSeek-R1-0528" not in words(x) for x in strategies)
    assert all(after(x, "--data-parallel-size").value is None for x in strategies if "--data-parallel-size" in
               words(x))  # not the guide's `--data-parallel-size 8`


def test_the_guide_is_read_as_markdown_at_the_recipes_own_lines_when_documentation_is():
    text = DSR1.read_text(encoding="utf-8")
    lf = read_yaml_document(parse_stream(text)[0], text, str(DSR1), str(TREE), docs=True)
    serve = line_of(text, "vllm serve deepseek-ai/DeepSeek-R1-0528")
    guided = [x for x in lf.launches if x.argv and x.argv[0].span.line == serve]
    assert len(guided) == 1 and after(guided[0], "--data-parallel-size").value == "8"
    assert "--enable-expert-parallel" in words(guided[0])
    assert guided[0].argv[0].span.column == 3  # the guide's indentation: the recipe's own column
    assert not lf.unread


def test_the_guide_is_listed_not_read_at_a_repository_root_without_markdown():
    text, lf = read(DSR1)  # docs=False: what a walk of a repository's top gives the reader
    serve = line_of(text, "vllm serve deepseek-ai/DeepSeek-R1-0528")
    assert [(u.span.line, u.launcher) for u in lf.unread] == [(serve, "vLLM")]
    assert "--markdown" in lf.unread[0].reason


def test_a_walk_reads_the_guide_only_with_documentation(tmp_path):
    from moecfg.checking.engine import check_entry
    from moecfg.sources.files import Walk, discover

    tree = tmp_path / "recipes"
    shutil.copytree(TREE, tree)
    (tree / ".git").mkdir()  # a repository's top: documentation is not walked without --markdown
    for markdown, unread in ((None, 1), (True, 0)):
        entry = next(e for e in discover([str(tree)], Walk(markdown=markdown)) if e.path.endswith("DeepSeek-R1.yaml"))
        got = check_entry(entry, Options(), None)
        assert len(got.unread) == unread, markdown


SHELL = """export GLOO_SOCKET_IFNAME=$IFACE_NAME
export NCCL_SOCKET_IFNAME=$IFACE_NAME
vllm serve deepseek-ai/DeepSeek-R1 \\
  --trust-remote-code \\
  --enable-expert-parallel \\
  --data-parallel-hybrid-lb \\
  --data-parallel-address $HEAD_IP \\
  --data-parallel-size 16 \\
  --data-parallel-size-local 8 \\
  --all2all-backend deepep_low_latency \\
  --max-num-seqs 64 \\
  --reasoning-parser deepseek_r1
"""
OVERRIDE = """strategy_overrides:
  multi_node_dep:
    extra_args:
      - "--data-parallel-size"
      - "16"
      - "--data-parallel-size-local"
      - "8"
      - "--all2all-backend"
      - "deepep_low_latency"
      - "--max-num-seqs"
      - "64"
"""


def recipe_tree(tmp_path: Path, override: str = OVERRIDE) -> Path:
    shutil.copytree(TREE, tmp_path / "recipes")
    path = tmp_path / "recipes" / "models" / "deepseek-ai" / "DeepSeek-R1.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("strategy_overrides: {}\n", override), encoding="utf-8")
    return path


def shape(result) -> tuple:
    launch = {k: v for k, v in result.launch.items() if k not in ("line", "index")}  # where, and which of the file
    return (launch, result.kind, result.op, result.arguments, result.derivation,
            sorted((d.code, d.severity, d.message) for d in result.diagnostics))


def test_derived_like_the_equivalent_shell_script(tmp_path):
    path = recipe_tree(tmp_path)
    text = path.read_text(encoding="utf-8")
    results = lint_text(text, str(path), Options(), root=str(tmp_path / "recipes"))
    (dep,) = [r for r in results if r.launch["line"] == line_of(text, "  - multi_node_dep")]
    (script,) = lint_text(SHELL, "run.sh", Options())
    assert (dep.kind, dep.op, dep.arguments["mode"]) == ("deepep", "low_latency", "low_latency")
    assert dep.arguments["num_ranks"] == 16  # --data-parallel-size 16 (the override, last wins) x TP 1
    assert shape(dep) == shape(script)
    assert {d.line for d in dep.diagnostics} == {line_of(text, "  - multi_node_dep")}  # the launch's line


def test_explain_launch_shows_the_shell_scripts_derivation(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from moecfg.cli import cli

    path = recipe_tree(tmp_path)
    (tmp_path / "run.sh").write_text(SHELL, encoding="utf-8")
    monkeypatch.chdir(tmp_path / "recipes")  # a recipe named alone reads strategies/ inside the current folder
    recipe = CliRunner().invoke(cli, ["explain-launch", os.path.relpath(path)]).output
    script = CliRunner().invoke(cli, ["explain-launch", str(tmp_path / "run.sh")]).output
    line = line_of(path.read_text(encoding="utf-8"), "  - multi_node_dep")

    def block(out: str, head: str) -> list[str]:
        lines = out.splitlines()
        start = next(i for i, x in enumerate(lines) if head in x)
        body = [x for x in lines[start + 1:] if x.startswith("  ")]
        return [re.sub(r"\(line \d+\)", "(line N)", x) for x in body[:next(
            (i for i, x in enumerate(lines[start + 1:]) if not x.startswith("  ")), len(body))]]

    ours, theirs = block(recipe, f"(line {line}: vllm main serve)"), block(script, "(line 3: vllm main serve)")
    assert any("num_ranks = 16 <- --data-parallel-size 16" in x for x in ours)
    # MC040 (version assumed) is said once per run: at the recipe's first strategy, not at this one
    assert ours == [x for x in theirs if "MC040" not in x] and len(theirs) == len(ours) + 1


def test_overrides_win_where_they_stand_and_flags_split_as_the_shell_does(tmp_path):
    path = recipe_tree(tmp_path, OVERRIDE + '      - "--max-model-len auto"\n')
    text, lf = read(path, tmp_path / "recipes")
    dep = by_name(lf)["multi_node_dep"]
    assert words(dep).count("--data-parallel-size") == 1
    assert after(dep, "--data-parallel-size").value == "16"
    assert after(dep, "--data-parallel-size").span.line == line_of(text, '"16"')
    assert after(dep, "--data-parallel-address").value is None  # the strategy's $HEAD_IP stays
    assert after(dep, "--max-model-len").value == "auto"  # the page writes it unquoted: two shell words
    assert after(dep, "--max-model-len").span.line == line_of(text, "--max-model-len auto")


def test_what_a_hardware_override_sets_is_unknown(tmp_path):
    override = OVERRIDE + """    hardware_overrides:
      blackwell:
        extra_args: ["--all2all-backend", "flashinfer_nvlink_one_sided"]
        extra_env: {VLLM_MOE_DP_CHUNK_SIZE: "512"}
"""
    path = recipe_tree(tmp_path, override)
    text = path.read_text(encoding="utf-8").replace("  base_env: {}\n", "  base_env: {VLLM_MOE_DP_CHUNK_SIZE: '256'}\n")
    path.write_text(text, encoding="utf-8")
    _, lf = read(path, tmp_path / "recipes")
    dep = by_name(lf)["multi_node_dep"]
    # deepep_low_latency everywhere but on Blackwell, where the override comes last and wins (dedupeArgs)
    assert after(dep, "--all2all-backend").value is None
    assert after(dep, "--all2all-backend").span.line == line_of(text, '"deepep_low_latency"')
    assert dep.env["VLLM_MOE_DP_CHUNK_SIZE"].value is None
    assert after(by_name(lf)["single_node_tep"], "--tensor-parallel-size").value is None
    assert by_name(lf)["single_node_tep"].env["VLLM_MOE_DP_CHUNK_SIZE"].value == "256"  # no override for it there


MODES = """  spec_decoding:
    default_mode: mtp
    modes:
      mtp:
        variants: [nvfp4]
        args: ["--speculative-config", '{"method":"mtp","num_speculative_tokens":2}']
      eagle:
        args: ["--speculative-config", '{"method":"eagle3","num_speculative_tokens":3}']
      gated:
        args: ["--speculative-config", '{"method":"ngram"}']
"""


@pytest.mark.parametrize("gate, expected", [
    ("", '{"method":"eagle3","num_speculative_tokens":3}'),  # mtp is not offered on the default variant
    ("        hardware: {h100: unsupported}\n", None),  # which mode runs depends on the hardware
    ("        hardware_overrides: {hopper: {args: [--speculative-config, '{}']}}\n", None),  # so do its args
])
def test_feature_modes_as_the_site_picks_them(tmp_path, gate, expected):
    path = recipe_tree(tmp_path, "strategy_overrides: {}\n")
    text = path.read_text(encoding="utf-8")
    modes = MODES.replace('      gated:\n', '      gated:\n' + gate) if "hardware:" in gate else \
        MODES.replace("        args: [\"--speculative-config\", '{\"method\":\"eagle3\"", gate
                      + "        args: [\"--speculative-config\", '{\"method\":\"eagle3\"")
    path.write_text(text.replace("features:\n", "features:\n" + modes), encoding="utf-8")
    _, lf = read(path, tmp_path / "recipes")
    for launch in lf.launches:
        if expected is None:
            assert "--speculative-config" not in words(launch)
        else:
            assert after(launch, "--speculative-config").value == expected


def test_declared_single_node_tp_is_capped_by_the_unknown_gpu_count(tmp_path):
    shutil.copytree(TREE, tmp_path / "recipes")
    path = tmp_path / "recipes" / "models" / "deepseek-ai" / "DeepSeek-R1.yaml"
    text = path.read_text(encoding="utf-8").replace("  - single_node_tep\n", "  - single_node_tp\n")
    for tp, known in (("1", "1"), ("4", None)):
        tree = text.replace("strategy_overrides: {}\n", f"strategy_overrides:\n  single_node_tp:\n    tp: {tp}\n")
        path.write_text(tree, encoding="utf-8")
        shutil.copy(TREE / "strategies" / "single_node_tep.yaml", tmp_path / "recipes" / "strategies" / "x.yaml")
        (tmp_path / "recipes" / "strategies" / "x.yaml").write_text(
            (TREE / "strategies" / "single_node_tep.yaml").read_text(encoding="utf-8")
            .replace("name: single_node_tep", "name: single_node_tp"), encoding="utf-8")
        _, lf = read(path, tmp_path / "recipes")
        tp_launch = by_name(lf)["single_node_tp"]
        assert after(tp_launch, "--tensor-parallel-size").value == known  # min(tp, GPUs per node)
        assert after(tp_launch, "--tensor-parallel-size").span.line == line_of(tree, f"    tp: {tp}")


def test_a_missing_strategy_is_said_and_the_others_read(tmp_path):
    path = recipe_tree(tmp_path, "strategy_overrides: {}\n")
    text = path.read_text(encoding="utf-8").replace("  - pd_cluster\n", "  - pd_cluster\n  - multi_node_tp_zz\n")
    path.write_text(text, encoding="utf-8")
    _, lf = read(path, tmp_path / "recipes")
    assert len(lf.launches) == 4
    (problem,) = lf.problems
    assert problem.code == "MC023" and "multi_node_tp_zz" in problem.message
    assert problem.span.line == line_of(text, "- multi_node_tp_zz")


def test_strategy_file_alone_and_foreign_yaml_are_skipped():
    vocab = Vocabulary(frozenset({"ascend"}), lambda: frozenset({"bs", "h", "k"}))
    strategy = TREE / "strategies" / "multi_node_dep.yaml"
    (item,) = classify_text(strategy.read_text(encoding="utf-8"), str(strategy), vocab, str(TREE))
    assert isinstance(item, Skipped) and "read with each model recipe" in item.reason
    foreign = "model:\n  model_id: my/model\n  base_args: ['--x']\nnotes: a config that is no recipe\n"
    (item,) = classify_text(foreign, "cfg.yaml", vocab)
    assert isinstance(item, Skipped)
    (item,) = classify_text(DSR1.read_text(encoding="utf-8"), str(DSR1), vocab, str(TREE), with_docs=False)
    assert isinstance(item, Launches) and len(item.launch_file.launches) == 4
    (item,) = classify_text(DSR1.read_text(encoding="utf-8"), str(DSR1), vocab, str(TREE))  # named: its guide too
    assert isinstance(item, Launches) and len(item.launch_file.launches) == 5


def test_no_strategies_folder_inside_the_checked_folder_reads_nothing(tmp_path, monkeypatch):
    _, lf = read(DSR1, DSR1.parent)  # checked folder: the recipe's own; strategies/ is above it
    assert lf.launches == [] and "strategies/ folder is not inside the checked folder" in lf.skipped
    monkeypatch.chdir(tmp_path)  # named alone from elsewhere: the current folder does not hold it
    assert vllm_strategies.strategies_for(str(DSR1), None) is None
    monkeypatch.chdir(TREE)  # named alone from the repository's top: read
    assert set(vllm_strategies.strategies_for(os.path.relpath(DSR1, TREE), None)[1]) >= {"multi_node_dep"}
    text = DSR1.read_text(encoding="utf-8")
    (lf,) = [read_yaml_document(d, text) for d in parse_stream(text)]  # no file (stdin, a Markdown block)
    assert lf.launches == [] and lf.skipped


def test_hostile_strategy_files_are_left_out(tmp_path):
    shutil.copytree(TREE, tmp_path / "recipes")
    folder = tmp_path / "recipes" / "strategies"
    (folder / "binary.yaml").write_bytes(b"\xff\xfe\x00name: single_node_tep\n")
    (folder / "huge.yaml").write_text("name: single_node_dep\ndeploy_type: single_node\nvllm_args: []\n# "
                                      + "x" * (vllm_strategies.sourced.MAX_BYTES + 1), encoding="utf-8")
    (folder / "broken.yaml").write_text("name: [unclosed\n", encoding="utf-8")
    (folder / "odd.yaml").write_text("name: multi_node_dep\ndeploy_type: multi_node\nvllm_args: [{a: 1}, [2], "
                                     "'--enable-expert-parallel', \"\\e[31m\"]\n", encoding="utf-8")
    outside = tmp_path / "elsewhere.yaml"
    outside.write_text("name: pd_cluster\ndeploy_type: single_node\nvllm_args: ['--leak']\n", encoding="utf-8")
    (folder / "link.yaml").symlink_to(outside)
    library = vllm_strategies.strategies_for(str(tmp_path / "recipes" / DSR1.relative_to(TREE)),
                                             str(tmp_path / "recipes"))
    strategies = library[1]
    assert strategies["pd_cluster"]["deploy_type"] == "pd_cluster"  # the link outside the tree is not followed
    assert strategies["multi_node_dep"]["vllm_args"][2] == "--enable-expert-parallel"  # odd.yaml: last of the name
    _, lf = read(tmp_path / "recipes" / DSR1.relative_to(TREE), tmp_path / "recipes")
    dep = by_name(lf)["multi_node_dep"]
    assert "--leak" not in words(dep) and all(isinstance(w, (str, type(None))) for w in words(dep))
    assert "\x1b[31m" in words(dep)  # kept as text: the renderers escape it (tests/hardening)
    assert pos(dep.span)[0] == line_of(DSR1.read_text(encoding="utf-8"), "  - multi_node_dep")


def test_mimo_the_strategy_size_replaces_the_variants_and_a_spaced_flag_splits():
    # variant extra_args `--tensor-parallel-size 8` come before the strategy's: dedupe keeps the strategy's (the
    # GPU count); base_args' "--max-model-len auto" is one item the page writes unquoted: the shell makes it two
    # words, and dedupe compared it as its own flag, so vLLM sees --max-model-len twice (the last wins, both auto)
    path = TREE / "models" / "XiaomiMiMo" / "MiMo-V2.5-Pro.yaml"
    text, lf = read(path)
    (tep,) = lf.launches
    assert words(tep) == ["vllm", "serve", "XiaomiMiMo/MiMo-V2.5-Pro", "--trust-remote-code", "--max-model-len",
                          "auto", "--generation-config", "vllm", "--gpu-memory-utilization", "0.95",
                          "--max-model-len", "auto", "--enable-expert-parallel", "--tensor-parallel-size", None]
    assert tep.argv[4].span.line == tep.argv[5].span.line == line_of(text, '"--max-model-len auto"')
    results = lint_text(text, str(path), Options(), root=str(TREE))
    assert not [d for r in results for d in r.diagnostics if d.code == "MC022"]  # no `--max-model-len auto` flag
