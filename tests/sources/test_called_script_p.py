"""sources/shell/called.py and conditions.py: `sh run_mcore_qwen3.sh dlc A3B 1 8 ...` (a README's launch of a script
that reads $1..$N) is read as the script with its arguments, its `if [ $X = a ]` tests decided.

Fixture (tests/trainers/fixtures/pai_called_p/): alibaba/Pai-Megatron-Patch@a098ca5 examples/qwen3/README.md and run_mcore_qwen3.sh.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from moecfg import frameworks
from moecfg.frameworks import LaunchContext
from moecfg.sources.readers import read_markdown, read_shell
from moecfg.sources.shell.sourced import Includes

F = Path(__file__).resolve().parents[1] / "trainers" / "fixtures" / "pai_called_p"


def _flags(launch) -> dict:
    w = [x.value for x in launch.argv]
    return {w[i]: w[i + 1] for i in range(len(w) - 1) if (w[i] or "").startswith("--")}


def test_a_readme_runs_the_script_with_its_arguments():
    lf = read_markdown((F / "README.md").read_text(), str(F / "README.md"))
    megatron = [x for x in lf.launches if frameworks.recognise(x, LaunchContext())]
    (launch,) = megatron
    flags = _flags(launch)
    # TP=${10} PP=${11} CP=${12} ETP=${13} EP=${14}, the A3B branch's experts and dispatcher; SP true and TP 4 > 1
    assert (flags["--tensor-model-parallel-size"], flags["--pipeline-model-parallel-size"],
            flags["--expert-tensor-parallel-size"], flags["--expert-model-parallel-size"]) == ("4", "2", "1", "4")
    assert (flags["--num-experts"], flags["--moe-router-topk"], flags["--hidden-size"]) == ("128", "8", "2048")
    assert flags["--moe-token-dispatcher-type"] == "alltoall" and "--sequence-parallel" in flags
    assert flags["--nnodes"] is None  # the dlc branch: ${WORLD_SIZE}, set outside
    # positioned at the README's `sh` command (lines 6-21), not at the script's lines; not exact: no fix edits it
    assert launch.span.line == 6 and launch.argv[-1].span.end_line == 21 and not launch.argv[0].exact
    # a script not beside the README stays a plain command
    assert any(x.words()[:2] == ["sh", "run_mcore_qwen3_moe.sh"] for x in lf.launches)


def test_the_script_alone_keeps_its_branches_merged():
    lf = read_shell((F / "run_mcore_qwen3.sh").read_text(), Includes.for_script(str(F / "run_mcore_qwen3.sh")))
    (launch,) = [x for x in lf.launches if frameworks.recognise(x, LaunchContext())]
    assert _flags(launch).get("--tensor-model-parallel-size") is None


def _called(tmp_path, body: str, args: str) -> list:
    (tmp_path / "called.sh").write_text(body)
    text = f"sh called.sh {args}\n"
    (tmp_path / "caller.sh").write_text(text)
    (launch,) = [x for x in read_shell(text, Includes.for_script(str(tmp_path / "caller.sh"))).launches
                 if x.words()[:2] == ["vllm", "serve"]] or [None]
    return launch.words()[3:] if launch else None


BODY = ('X=$1; Y=$2\nif [ $X = a ] && [ $Y -gt 1 ]; then R=both; elif [ $X = a ] || [ $Y -gt 1 ]; then R=one; '
        'elif [ $X != c ]; then R=notc; else R=none; fi\nif [[ $X == a* ]]; then G=g; else G=o; fi\n'
        'if [ "$X" = "$OUTSIDE" ]; then U=1; else U=2; fi\nvllm serve m -tp $R $G $U\n')


@pytest.mark.parametrize("args, r", [("a 2", "both"), ("a 1", "one"), ("b 2", "one"), ("b 1", "notc"),
                                     ("c 0", "none"), ("c", None), ("$V 3", None), ("a x", None)])
def test_tests_are_decided_only_where_bash_would_know(tmp_path, args, r):
    assert _called(tmp_path, BODY, args) == ["-tp", r, None, None]  # a glob and an outside value: merged


def test_scripts_without_arguments_or_positional_parameters_are_not_followed(tmp_path):
    assert _called(tmp_path, "vllm serve m -tp $TP\n", "a 2") is None  # reads no $1: its own file says it
    assert _called(tmp_path, BODY, "") is None  # `sh called.sh`: nothing new to bind
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "loop.sh").write_text("sh loop.sh $1\nvllm serve m -tp $1\n")
    text = "sh loop.sh 4\n"  # the script runs itself again: read once (sourced.Includes' chain)
    (tmp_path / "sub" / "x.sh").write_text(text)
    lf = read_shell(text, Includes.for_script(str(tmp_path / "sub" / "x.sh")))
    assert [x.words() for x in lf.launches if x.words()[:2] == ["vllm", "serve"]] == [["vllm", "serve", "m", "-tp", "4"]]
