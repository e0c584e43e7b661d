"""Security 1: `--output` is written atomically (temp file + os.replace): a symlink is replaced, not written
through, and a failed write leaves the old file."""
from __future__ import annotations

import os

import pytest

from hostile import GOOD, cli  # noqa: F401  (fixture)
from moecfg.core.output import OutputError, write_text


def _doc(tmp_path):
    p = tmp_path / "a.yaml"
    p.write_text(GOOD)
    return str(p)


def test_output_symlink_is_replaced_not_followed(tmp_path, cli):
    victim = tmp_path / "profile"
    victim.write_text("export SAFE=1\n")
    link = tmp_path / "report.txt"
    link.symlink_to(victim)
    code, _, _ = cli("check", _doc(tmp_path), "--output", str(link))
    assert code == 0
    assert victim.read_text() == "export SAFE=1\n"  # the link target is untouched
    assert not link.is_symlink() and "0 errors" in link.read_text()


@pytest.mark.parametrize("command", [
    ("plan", "--product", "A3", "--model", "deepseek-v3", "--ep", "32", "--bs", "128"),
    ("sweep", "--product", "A3", "--model", "deepseek-v3", "--ep", "32", "--bs", "64,128"),
])
def test_plan_and_sweep_output_replace_a_symlink(tmp_path, cli, command):
    victim = tmp_path / "victim"
    victim.write_text("keep\n")
    link = tmp_path / "out.txt"
    link.symlink_to(victim)
    code, _, err = cli(*command, "--output", str(link))
    assert code == 0, err
    assert victim.read_text() == "keep\n" and not link.is_symlink() and link.read_text()


def test_failed_write_keeps_the_old_file_and_leaves_no_temp(tmp_path, monkeypatch):
    target = tmp_path / "r.json"
    target.write_text("old")

    def boom(*_a):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OutputError, match="No space left"):
        write_text(str(target), "new")
    assert target.read_text() == "old" and os.listdir(tmp_path) == ["r.json"]


def test_output_file_mode_follows_umask(tmp_path):
    old = os.umask(0o022)
    try:
        write_text(str(tmp_path / "r.txt"), "x")
    finally:
        os.umask(old)
    assert (os.stat(tmp_path / "r.txt").st_mode & 0o777) == 0o644


def test_output_into_missing_folder_is_a_usage_error(tmp_path, cli):
    code, _, err = cli("check", _doc(tmp_path), "--output", str(tmp_path / "no" / "r.txt"))
    assert code == 2 and "cannot write --output" in err


def test_run_stopped_mid_write_keeps_the_old_report(tmp_path):
    from moecfg.core.output import atomic_path

    target = tmp_path / "r.json"
    target.write_text("old report")
    with pytest.raises(SystemExit):  # what SIGTERM raises under cli/runner.py
        with atomic_path(str(target)) as tmp:
            with open(tmp, "w") as fh:
                fh.write('{"partial": ')
            raise SystemExit(143)
    assert target.read_text() == "old report" and os.listdir(tmp_path) == ["r.json"]


def test_sigterm_handler_is_installed_only_for_the_run():
    import signal

    from moecfg.cli.runner import run
    from moecfg.cli import cli as group

    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(SystemExit):
        run(group, ["--version"])
    assert signal.getsignal(signal.SIGTERM) is before
