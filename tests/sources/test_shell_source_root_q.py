"""`source tests_extend/system_tests/env_npu.sh` in a script run from the repository root (Ascend/MindSpeed's 54 test
scripts): a relative path of folders that is not beside the script is read from the nearest folder above it, inside
the checked tree, that holds it (sources/shell/sourced.py). `./x.sh`, `../x.sh` and a bare `x.sh` stay the script's.

Fixture (tests/sources/mindspeed_root_q/): Ascend/MindSpeed@028de58 tests_extend/system_tests/feature_tests/megatron_moe.sh
and tests_extend/system_tests/env_npu.sh.
"""
from __future__ import annotations

import os
from pathlib import Path

from reader_helpers import after

from moecfg.sources.readers import read_shell
from moecfg.sources.shell.sourced import Includes

ROOT = Path(__file__).resolve().parent / "mindspeed_root_q"
SCRIPT = ROOT / "tests_extend" / "system_tests" / "feature_tests" / "megatron_moe.sh"


def _vllm(lf):
    return next(x for x in lf.launches if x.argv[0].value == "vllm")


def _read(script: Path, root: Path = ROOT, text: str | None = None):
    text = script.read_text() if text is None else text
    return read_shell(text, Includes.for_script(str(script), str(root)))


def test_the_repository_root_path_is_read_from_the_folder_that_holds_it():
    lf = _read(SCRIPT)
    assert lf.problems == []
    launch = next(x for x in lf.launches if x.argv[0].value == "torchrun")
    assert launch.env["HCCL_CONNECT_TIMEOUT"].value == "1200"
    assert launch.env["CUDA_DEVICE_MAX_CONNECTIONS"].value == "1"  # set before the source: still known
    assert after(launch, "--expert-model-parallel-size").value == "2"


def test_nothing_above_the_checked_tree_is_looked_at():
    lf = _read(SCRIPT, root=SCRIPT.parent)
    assert [p.code for p in lf.problems] == ["MC023"]
    assert next(x for x in lf.launches if x.argv[0].value == "torchrun").env["CUDA_DEVICE_MAX_CONNECTIONS"].value is None


def test_dot_paths_and_bare_names_stay_beside_the_script(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "env.sh").write_text("TP=2\n")
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / "env.sh").write_text("TP=2\n")
    script = tmp_path / "sub" / "run.sh"
    for line in ("source env.sh", "source ./conf/env.sh", ". ../sub/conf/env.sh"):
        text = f"TP=4\n{line}\nvllm serve m --tp $TP\n"
        script.write_text(text)
        lf = _read(script, tmp_path, text)
        assert after(_vllm(lf), "--tp").value is None, line
        assert [p.code for p in lf.problems] == ["MC023"], line
    text = "TP=4\nsource conf/env.sh\nvllm serve m --tp $TP\n"  # the folder above holds conf/env.sh
    script.write_text(text)
    assert after(_vllm(_read(script, tmp_path, text)), "--tp").value == "2"
    assert os.path.isfile(tmp_path / "conf" / "env.sh")
