"""Faults of the process: Ctrl-C is exit 130 (click made it "Aborted!" exit 1), a closed stdout is quiet
(exit 0 on valid input), stdout on a full disk is exit 2 with a message, and error messages quoting file
names are escaped on stderr too."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hostile import GOOD, cli  # noqa: F401  (fixture)

ROOT = Path(__file__).resolve().parents[2]


def _env():
    env = {**os.environ, "NO_COLOR": "1"}
    env.pop("GITHUB_ACTIONS", None)
    return env


@pytest.mark.skipif(not os.path.exists("/proc/self/wchan"), reason="needs /proc")
def test_sigint_exits_130(tmp_path):
    p = subprocess.Popen([sys.executable, "-m", "moecfg", "check", "-"], cwd=ROOT, env=_env(),
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    for _ in range(1200):  # interrupt once it waits on stdin (imports done; up to 60 s on a loaded machine)
        with open(f"/proc/{p.pid}/wchan") as fh:
            if "pipe" in fh.read():
                break
        time.sleep(0.05)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=20)
    assert p.returncode == 130, err
    assert b"interrupted" in err and b"Traceback" not in err


def test_closed_stdout_is_quiet_and_exit_code_unchanged(tmp_path):
    f = tmp_path / "a.yaml"
    f.write_text(GOOD * 1)
    r, w = os.pipe()
    os.close(r)  # the reader is gone before anything is written (`| head -0`)
    res = subprocess.run([sys.executable, "-m", "moecfg", "check", "--format", "json", str(f)], cwd=ROOT, env=_env(),
                         stdout=w, stderr=subprocess.PIPE, timeout=60)
    os.close(w)
    assert res.returncode == 0 and res.stderr == b""


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_stdout_on_a_full_disk_is_exit_2(tmp_path):
    f = tmp_path / "a.yaml"
    f.write_text(GOOD)
    with open("/dev/full", "w") as full:
        res = subprocess.run([sys.executable, "-m", "moecfg", "check", str(f)], cwd=ROOT, env=_env(), stdout=full,
                             stderr=subprocess.PIPE, text=True, timeout=60)
    assert res.returncode == 2 and "No space left on device" in res.stderr and "internal error" not in res.stderr


def test_usage_error_quoting_a_file_name_is_escaped(tmp_path, cli):
    code, _, err = cli("buffer", str(tmp_path / "x\n::error::pwned\x1b[2J"), "--set", "bs=1")
    assert code == 2
    assert "\x1b" not in err and "\n::" not in err and "\\x1b[2J" in err


@pytest.mark.parametrize("encoding", ["utf-8", "ascii"])
def test_non_utf8_file_name_with_a_strict_stdout_encoding(tmp_path, encoding):
    d = tmp_path / "d"
    d.mkdir()
    (d / "caf\udce9.yaml").write_text(GOOD)  # the byte 0xe9 in the name
    res = subprocess.run([sys.executable, "-m", "moecfg", "check", str(d)], cwd=ROOT, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, timeout=60, env={**_env(), "PYTHONIOENCODING": encoding})
    assert res.returncode == 0 and b"caf\\xe9.yaml" in res.stdout and res.stderr == b""
