"""Hostile vllm-project/recipes trees (sources/recipes/vllm.py): recipes and strategy files built from hostile words
and values are composed without raising, in bounded time, and every output format stays safe (as
test_hostile_properties.py); a strategy file never makes the recipe read anything outside the checked folder."""
from __future__ import annotations

import json
import re
import shutil
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import yaml
from hypothesis import given
from hypothesis import strategies as st
from test_hostile_properties import CONTROL, FAST, WORDS

from moecfg.core.diagnostics import Report
from moecfg.checking.engine import lint_bytes
from moecfg.checking.settings import Cli, Config, FilePolicy
from moecfg.render import load

ROOT = Path(tempfile.mkdtemp(prefix="moecfg-recipes-"))  # one tree for the run: hypothesis reuses no pytest tmp_path
VALUES = st.one_of(st.sampled_from(WORDS), st.sampled_from([8, -1, 10**30, 1.5, True, None, "", "$HEAD_IP"]),
                   st.lists(st.sampled_from(WORDS), max_size=3), st.dictionaries(st.sampled_from(WORDS), st.just(1),
                                                                                  max_size=2))
ARGS = st.lists(VALUES, max_size=12)


@st.composite
def recipe_tree(draw) -> bytes:
    folder = ROOT / "strategies"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    names = ["single_node_tp", "multi_node_dep", "pd_cluster", draw(st.sampled_from(WORDS))]
    for i, name in enumerate(names):
        strategy = {"name": name, "deploy_type": draw(st.sampled_from(["single_node", "multi_node", "pd_cluster",
                                                                        "kv_store_lb", 3])),
                    "vllm_args": draw(ARGS), "parallel_flag": draw(st.sampled_from(["--data-parallel-size", 1, "x"])),
                    "parallelism": draw(st.sampled_from(["tp_pp", "tp_dp", None])),
                    "env": {draw(st.sampled_from(WORDS)): draw(VALUES)},
                    "prefill": {"vllm_args": draw(ARGS), "parallelism": draw(st.sampled_from(["dep", "tep", 7])),
                                "tp": draw(VALUES)},
                    "decode": draw(st.sampled_from([{"vllm_args": ["--x"]}, None, [1], "dep"]))}
        (folder / f"s{i}.yaml").write_text(yaml.safe_dump(strategy, allow_unicode=True), encoding="utf-8",
                                           errors="surrogatepass")
    recipe = {"meta": {"tasks": draw(st.sampled_from([["text"], ["omni"], "omni", None]))},
              "model": {"model_id": draw(st.sampled_from(WORDS)), "base_args": draw(ARGS),
                        "base_env": {draw(st.sampled_from(WORDS)): draw(VALUES)},
                        "docker_image": draw(st.sampled_from(["vllm/vllm-openai:v0.19.1", {"nvidia": 1}, None]))},
              "variants": draw(st.sampled_from([{"default": {"extra_args": ["--kv-cache-dtype", "fp8"], "tp": 1}},
                                                {"default": {"tp": {"h200": 2}, "model_id": 5}}, [], None])),
              "features": {"f": {"args": draw(ARGS), "modes": draw(st.sampled_from([None, {"m": {"args": ["--y"]}},
                                                                                     {"m": 1}, []]))}},
              "compatible_strategies": names + draw(st.lists(st.sampled_from(WORDS + [1, None]), max_size=3)),
              "strategy_overrides": {names[1]: {"extra_args": draw(ARGS), "tp": draw(VALUES)},
                                     "pd_cluster": {"pool_modes": draw(VALUES), "decode": {"parallelism": "dep"}}},
              "strategy_hardware": {draw(st.sampled_from(WORDS)): draw(st.sampled_from([{"h200": "supported"}, 1]))},
              "guide": " ".join(draw(st.lists(st.sampled_from(WORDS), max_size=20)))}
    return yaml.safe_dump(recipe, allow_unicode=True).encode("utf-8", "surrogatepass")


@FAST
@given(recipe_tree())
def test_hostile_recipe_trees_are_reported_never_raised(raw):
    path = ROOT / "models" / "org" / "m.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(raw)
    start = time.process_time()
    results = lint_bytes(raw, str(path), policy=FilePolicy(Config(), Cli()), root=str(ROOT))
    assert time.process_time() - start < 5
    report = Report(results=results, files=1)
    text = load("text").render(report)
    assert not CONTROL.search(text) and not re.search(r"^\s*::", text, re.M)
    ET.fromstring(load("junit").render(report))
    json.loads(load("sarif").render(report))


def test_a_strategies_folder_linked_from_outside_is_not_read(tmp_path):
    outside, checked = tmp_path / "outside", tmp_path / "repo"
    (outside / "strategies").mkdir(parents=True)
    (outside / "strategies" / "s.yaml").write_text("name: multi_node_dep\ndeploy_type: multi_node\n"
                                                   "vllm_args: ['--secret-4f1c']\n", encoding="utf-8")
    (checked / "models" / "org").mkdir(parents=True)
    (checked / "strategies").symlink_to(outside / "strategies")
    recipe = checked / "models" / "org" / "m.yaml"
    recipe.write_text("model: {model_id: org/m}\ncompatible_strategies: [multi_node_dep]\n", encoding="utf-8")
    results = lint_bytes(recipe.read_bytes(), str(recipe), policy=FilePolicy(Config(), Cli()), root=str(checked))
    assert results == []  # skipped: no strategies folder inside the checked folder; nothing of the secret read


def test_twenty_thousand_unknown_strategies_are_one_note_and_fast(tmp_path):
    shutil.copytree(Path(__file__).parents[1] / "sources" / "vllm-recipes", tmp_path / "r")
    recipe = tmp_path / "r" / "models" / "x.yaml"
    raw = ("model: {model_id: a/b}\ncompatible_strategies:\n" + "".join(f"  - s{i}\n" for i in range(20000))
           + "  - multi_node_dep\n").encode()
    recipe.write_bytes(raw)
    start = time.process_time()
    results = lint_bytes(raw, str(recipe), policy=FilePolicy(Config(), Cli()), root=str(tmp_path / "r"))
    assert time.process_time() - start < 10
    notes = [d for r in results for d in r.diagnostics if d.code == "MC023"]
    assert len(notes) == 1 and "`s0`" in notes[0].message and "and 19995 more" in notes[0].message
    assert notes[0].line == 3  # the first strategy not read
    assert len([r for r in results if r.launch]) == 1  # multi_node_dep is still read
