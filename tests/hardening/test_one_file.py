"""Issue 20 items 5-6: one file cannot stop the run (an internal error is MC019 on that file, checking/guard.py), and
the attacks of the issue, run as a real process under a memory limit, finish in time with every other file
checked and no line of output a CI runner would execute."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hostile import BAD, GOOD, cli  # noqa: F401  (fixture)

ROOT = Path(__file__).resolve().parents[2]
LAUNCH = "vllm serve /models/DeepSeek-R1-W8A8 --quantization ascend -dp 4 -tp 4 --enable-expert-parallel\n"


def test_an_internal_error_in_one_file_is_a_diagnostic_on_it(cli, tmp_path, monkeypatch):
    from moecfg.frameworks.vllm_ascend import tokens

    def boom(*args, **kwargs):
        raise ZeroDivisionError("synthetic bug quoting " + "\x1b]0;secret\x07")

    monkeypatch.setattr(tokens, "read_sizes", boom)
    monkeypatch.delenv("MOECFG_DEBUG", raising=False)
    (tmp_path / ".moecfg.yaml").write_text("product: A3\n")
    (tmp_path / "a.sh").write_text(LAUNCH)
    (tmp_path / "b.yaml").write_text(BAD)
    code, out, err = cli("check", str(tmp_path))
    assert code == 1 and "Traceback" not in err
    (line,) = [x for x in out.splitlines() if "MC019" in x]
    assert "a.sh:1:1: MC019 error" in line and "ZeroDivisionError at moecfg/" in line and "secret" not in line
    assert "b.yaml" in out and "MC201" in out  # the other file is still checked
    monkeypatch.setenv("MOECFG_DEBUG", "1")
    with pytest.raises(ZeroDivisionError):
        cli("check", str(tmp_path))


def test_mc019_can_be_ignored_like_any_rule(cli, tmp_path, monkeypatch):
    from moecfg.frameworks.vllm_ascend import tokens

    monkeypatch.setattr(tokens, "read_sizes", lambda *a: 1 / 0)
    monkeypatch.delenv("MOECFG_DEBUG", raising=False)
    (tmp_path / ".moecfg.yaml").write_text("product: A3\n")
    (tmp_path / "a.sh").write_text(LAUNCH)
    code, out, _ = cli("check", "--ignore", "MC019", str(tmp_path))
    assert code == 0 and "MC019" not in out, out


def test_explain_launch_and_junit_show_hostile_names_and_values_on_their_own_lines(cli, tmp_path):
    (tmp_path / ".moecfg.yaml").write_text("product: A3\n")
    name = "a\n::error::name\x1b[1m\u202e.sh"
    (tmp_path / name).write_text("export HCCL_OP_EXPANSION_MODE=$'AIV\\n::error::env\\e]0;t\\a'\n"
                                 "vllm serve $'/models/DeepSeek-R1-W8A8\\n::warning::model\\r::error::cr\\e[31m' "
                                 "--quantization ascend -dp 4 -tp 4 --enable-expert-parallel --max-num-seqs $'1\\n::error::x'\n")
    for argv in (("explain-launch",), ("check", "--format", "junit"), ("check", "--format", "text"),
                 ("check", "--format", "sarif"), ("check", "--format", "json")):
        code, out, err = cli(*argv, str(tmp_path))
        assert code in (0, 1), argv
        for line in (out + err).splitlines():
            assert not line.lstrip().startswith("::"), (argv, line)
            assert not any(c in line for c in "\x1b\r\x07\u202e"), (argv, line)


ATTACKS = {  # the stalls, each a few hundred bytes to a few hundred KB
    "parens.sh": "echo $((" + ")" * 8_000 + "\n" + LAUNCH,  # (60 KB: test_budgets.py, with a smaller budget)
    "double.sh": "A=x\n" + 'A="$A$A"\n' * 30 + "export HCCL_BUFFSIZE=$A\n" + LAUNCH,
    "bashc.sh": 'A="vllm serve m -tp 2"\n' + 'A="$A; $A"\n' * 20 + 'bash -c "$A"\n',
    "env.sh": "env " * 30_000 + LAUNCH,
    "arith.sh": "export HCCL_BUFFSIZE=$((2 ** 8 << 2))\n" + LAUNCH,
    "alias.yaml": 'a: &a ["vllm serve m -tp 2 --enable-expert-parallel", "x", "x"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\n'
                  "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"
                  "command: [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n",
}


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS")
def test_the_attacks_in_one_run_stay_bounded_and_the_good_file_is_checked(tmp_path):
    import resource

    for name, text in ATTACKS.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "zz-bad.yaml").write_text(BAD)
    (tmp_path / ".moecfg.yaml").write_text("product: A3\n")
    limit = 3 << 29  # 1.5 GiB of address space for the whole run

    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    env = {**os.environ, "NO_COLOR": "1"}
    env.pop("GITHUB_ACTIONS", None)
    start = time.monotonic()
    run = subprocess.run([sys.executable, "-m", "moecfg", "check", "--format", "github", str(tmp_path)], cwd=ROOT,
                         env=env, capture_output=True, text=True, timeout=120, preexec_fn=cap)
    cpu = time.monotonic() - start
    assert run.returncode == 1 and "Traceback" not in run.stderr, run.stderr[-2000:]
    assert "zz-bad.yaml" in run.stdout and "MC201" in run.stdout and "MC019" not in run.stdout
    assert cpu < 10 * len(ATTACKS)
