"""A command that only names a Megatron-Bridge script (sed, cp, cat, vi ... on it) is not a launch of it: no MC747
"-m/-mr/-ng/-g not given" for `sed -i ... scripts/performance/run_script.py` (gpu-recipes patches its pinned clone so).

Fixture: AI-Hypercomputer/gpu-recipes@2e1fd5e training/a4/qwen3_235b_a22b/megatron-bridge-gke/nemo2602/
128gpus-bf16-seq4096-gbs4096/recipe/launcher.sh:76-84.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from moecfg import frameworks
from moecfg.checking.engine import lint_text
from moecfg.frameworks import LaunchContext
from moecfg.sources.readers import read_shell
from moecfg.trainers import megatron_bridge

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "megatron_bridge" / "gpu_recipes_sed_run_script.sh"


def _bridge_launches(text: str):
    return [x for x in read_shell(text).launches if megatron_bridge.recognise(x, LaunchContext())]


def test_the_published_sed_patch_of_run_script_is_not_a_launch():
    assert _bridge_launches(FIXTURE.read_text()) == []


@pytest.mark.parametrize("line", [
    "sed -i 's/a/b/' scripts/performance/setup_experiment.py",
    "/usr/bin/sed -i 's/a/b/' scripts/performance/run_script.py",
    "cp my_setup.py scripts/training/run_recipe.py",
    "cat scripts/training/train.sh",
    "vim scripts/conversion/convert.sh import --hf-model x",
    "cp examples/conversion/convert_checkpoints.py /tmp/",
])
def test_file_tools_name_a_script_without_running_it(line):
    assert _bridge_launches(line + "\n") == []


@pytest.mark.parametrize("line", [
    "python scripts/performance/run_script.py -m qwen -mr qwen3_30b_a3b -g h100 -ng 16",
    "torchrun --nproc_per_node 8 scripts/training/run_recipe.py --recipe qwen3_30b_a3b_pretrain_config",
    "bash scripts/training/train.sh --gpus-per-node 8",
    "./scripts/conversion/convert.sh import --hf-model Qwen/Qwen3-30B-A3B --megatron-path /c",
])
def test_runners_still_launch_it(line):
    (launch,) = _bridge_launches(line + "\n")
    assert frameworks.recognise(launch, LaunchContext()).NAME == "megatron-bridge"


def test_the_check_of_the_fixture_has_no_error():
    codes = [d.code for r in lint_text(FIXTURE.read_text(), "launcher.sh") for d in r.diagnostics]
    assert "MC747" not in codes and not [c for c in codes if c.startswith("MC7")]


@pytest.mark.parametrize("line", [
    "sed -i 's/x/y/' torchtitan/train.py --parallelism.expert_parallel_degree 8",
    "sed -i 's/a/b/' mindspeed_mm/fsdp/train/trainer.py",
    "/bin/cp pretrain_gpt.py --expert-model-parallel-size 8 /tmp",
    "cat chatlearn/entrypoint.py grpo",
])
def test_no_framework_recognises_a_file_tool(line):
    (launch,) = read_shell(line + "\n").launches
    assert frameworks.recognise(launch, LaunchContext()) is None
