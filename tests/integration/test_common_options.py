"""Issue 36 items 4 and 8: one set of options across check / explain-launch / buffer (--product with Ascend products
and GPU models, --framework-version NAME=VERSION, --config), `buffer FILE` on a launch honours the settings file and
--product, and never says "fix the errors above" without an error; `moecfg check` with no path checks `.`."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from moecfg.backends.device.devices import DEVICES
from moecfg.cli.common import PRODUCTS
from integration_helpers import run  # noqa: F401  (pytest fixture)

LAUNCH = Path(__file__).resolve().parents[2] / "examples" / "launch" / "vllm-ascend-dsr1-a3-dp4tp4.sh"
GPU_LAUNCH = Path(__file__).resolve().parents[2] / "examples" / "launch" / "sglang-gpu-deepep-decode.sh"
COMMANDS = ("check", "explain-launch", "buffer")


@pytest.fixture
def launch(tmp_path):
    shutil.copy(LAUNCH, tmp_path / "serve.sh")
    return tmp_path


def test_products_are_the_device_catalog():
    assert set(PRODUCTS) == set(DEVICES)


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_takes_the_same_launch_options(command):
    from moecfg.cli import cli

    params = {p.name: p for p in cli.get_command(None, command).params}
    assert {"product", "framework_versions", "config_path"} <= set(params)
    assert {c.upper() for c in params["product"].type.choices} == set(PRODUCTS)


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("value, said", [("foo=1", "unknown framework 'foo'"), ("vllm-ascend", "expected NAME=VERSION"),
                                         ("vllm-ascend=x.y", "not a version")])
def test_a_bad_framework_version_is_a_usage_error(run, launch, command, value, said):
    res = run(command, "--framework-version", value, "serve.sh", cwd=launch)
    assert res.exit_code == 2 and said in res.stderr and "Traceback" not in res.stderr


def _phases(res) -> dict:
    return {r["launch"]["role"]: r for r in json.loads(res.stdout)["results"] if r.get("launch")}


def test_buffer_on_a_launch_without_the_product_says_what_is_missing(run, launch):
    res = run("buffer", "serve.sh", cwd=launch)
    assert res.exit_code == 0 and "0 errors" in res.stdout
    assert "fix the errors above" not in res.stdout and "explain-launch" in res.stdout and "MC042" in res.stdout


@pytest.mark.parametrize("how", ["settings", "flags"])
def test_buffer_on_a_launch_honours_the_settings_and_the_flags(run, launch, how):
    args = ["--product", "A3", "--framework-version", "vllm-ascend=0.13.0"] if how == "flags" else []
    if how == "settings":
        (launch / ".moecfg.yaml").write_text("product: A3\nframework-versions: {vllm-ascend: 0.13.0}\n")
    res = run("buffer", *args, "serve.sh", cwd=launch)
    assert res.exit_code == 0, res.stdout
    assert "vllm-ascend 0.13.0 decode): ascend A3 dispatch_combine_v2" in res.stdout
    # the decode phase's buffer with its formula: EP 16, 16 local experts, bs 16 on A3 (hand: 2 * (16*14848*16*16
    # + 16*14336*(8+0))) = 125304832 B before the window's rounding; the text names the terms
    assert "ep_world_size = 16" in res.stdout and "local_expert_num = 16" in res.stdout
    assert "(no buffer: this phase of the launch makes no dispatch/combine call" in res.stdout  # prefill: all-to-all
    assert "MC042" not in res.stdout and "fix the errors above" not in res.stdout


def test_buffer_product_on_a_document_built_from_flags(run):
    res = run("buffer", "--product", "a3", "--cann", "9.0", "--bs", "128", "--h", "7168", "--k", "8",
              "--ep-world-size", "32", "--moe-expert-num", "256", "--hccl-buffsize", "1024")
    assert res.exit_code == 0 and "ascend A3 dispatch_combine_v2" in res.stdout


def test_the_framework_version_flag_reaches_explain_launch_and_check(run, launch):
    res = run("explain-launch", "--product", "A3", "--framework-version", "vllm-ascend=0.13.0", "serve.sh", cwd=launch)
    assert res.exit_code == 0 and "vllm-ascend 0.13.0 decode" in res.stdout
    res = run("check", "--format", "json", "--product", "A3", "--framework-version", "vllm-ascend=0.13.0", "serve.sh",
              cwd=launch)
    assert {r["launch"]["framework_version"] for r in json.loads(res.stdout)["results"]} == {"0.13.0"}


def test_the_flag_wins_over_the_settings(run, launch):
    (launch / ".moecfg.yaml").write_text("product: A2\nframework-versions: {vllm-ascend: 0.11.0}\n")
    res = run("check", "--format", "json", "--product", "A3", "--framework-version", "vllm-ascend=0.13.0", "serve.sh",
              cwd=launch)
    results = json.loads(res.stdout)["results"]
    assert {r["launch"]["framework_version"] for r in results} == {"0.13.0"} and "A3" in {r["product"] for r in results}


def test_a_gpu_product_is_the_device_of_gpu_launches(run, tmp_path):
    shutil.copy(GPU_LAUNCH, tmp_path / "serve.sh")
    res = run("explain-launch", "--product", "H20", "serve.sh", cwd=tmp_path)
    plain = run("explain-launch", "serve.sh", cwd=tmp_path)
    assert res.exit_code == 0 and "memory per rank on H20 (--product)" in res.stdout
    assert "memory per rank on the GPU model is not known" in plain.stdout and "--product H200" in plain.stdout


def test_check_without_a_path_checks_the_current_folder(run, launch):
    (launch / "sub").mkdir()
    shutil.copy(Path(__file__).resolve().parents[2] / "examples" / "deepseek-v3-a3-ep16.yaml", launch / "sub" / "a.yaml")
    bare = run("check", "--format", "json", cwd=launch)
    dot = run("check", "--format", "json", ".", cwd=launch)
    assert bare.exit_code == dot.exit_code and bare.stdout == dot.stdout
    assert {Path(r["file"]).name for r in json.loads(bare.stdout)["results"]} == {"serve.sh", "a.yaml"}
