"""The worker pool of big trees (issue 33, item 3): a worker killed (the OOM killer) or stalled past the per-file
deadline is MC019 on the file it was checking, every other file's findings are reported, the run does not hang;
workers do not keep the CLI's SIGTERM handler."""
from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import pytest

from moecfg.checking import engine, workers
from moecfg.checking.engine import check_paths
from hostile import cli  # noqa: F401  (fixture)

GOOD = (Path(__file__).parents[2] / "examples" / "deepseek-v3-a3-ep32.yaml").read_text()
BAD = "kind: ascend\nproduct: A9\n"

pytestmark = pytest.mark.skipif(not engine._can_fork() or (os.cpu_count() or 1) < 2, reason="no worker pool here")


def _tree(tmp_path, n=engine.PARALLEL_FROM + 44):
    for i in range(n):
        (tmp_path / f"f{i:03d}.yaml").write_text(BAD)
    return tmp_path


def _by_file(report):
    return {Path(r.file).name: [d.code for d in r.diagnostics] for r in report.results}


def _patched(monkeypatch, action):
    """check_entry runs `action(name)` first in the worker (fork: the workers inherit the patched module)."""
    real = engine.check_entry

    def check_entry(entry, options, settings):
        action(Path(entry.path).name)
        return real(entry, options, settings)

    monkeypatch.setattr(engine, "check_entry", check_entry)


def test_a_killed_worker_is_mc019_on_its_file_and_the_run_goes_on(tmp_path, monkeypatch):
    _tree(tmp_path)

    def oom_killer(name):
        if name == "f100.yaml":
            os.kill(os.getpid(), signal.SIGKILL)

    _patched(monkeypatch, oom_killer)
    start = time.monotonic()
    report = check_paths([str(tmp_path)])
    assert time.monotonic() - start < 60
    got = _by_file(report)
    assert len(got) == engine.PARALLEL_FROM + 44 and report.files == engine.PARALLEL_FROM + 44
    assert got["f100.yaml"] == ["MC019"]
    assert "SIGKILL" in report.results[100].diagnostics[0].message
    assert all(codes and "MC019" not in codes for name, codes in got.items() if name != "f100.yaml")
    assert [Path(r.file).name for r in report.results] == sorted(got)  # still in file order


def test_a_stalled_file_hits_the_cpu_deadline_and_only_it_is_lost(tmp_path, monkeypatch):
    _tree(tmp_path)
    monkeypatch.setattr(workers, "FILE_CPU_SECONDS", 1)

    def stall(name):
        if name in ("f007.yaml", "f200.yaml"):
            while True:  # a regex or a parser gone quadratic: CPU, not sleep
                pass

    _patched(monkeypatch, stall)
    report = check_paths([str(tmp_path)])
    got = _by_file(report)
    assert got["f007.yaml"] == got["f200.yaml"] == ["MC019"]
    assert "CPU time" in report.results[7].diagnostics[0].message
    assert sum(codes == ["MC019"] for codes in got.values()) == 2 and len(got) == engine.PARALLEL_FROM + 44


def test_workers_reset_the_clis_signal_handlers(tmp_path, monkeypatch):
    from moecfg.cli.process import restore, terminate_cleanly

    _tree(tmp_path)
    seen = tmp_path / "seen"

    def record(name):
        if name == "f001.yaml":
            seen.write_text(f"{signal.getsignal(signal.SIGTERM) == signal.SIG_DFL} "
                            f"{signal.getsignal(signal.SIGINT) == signal.SIG_IGN}")

    _patched(monkeypatch, record)
    previous = terminate_cleanly()
    try:
        check_paths([str(tmp_path)])
    finally:
        restore(previous)
    assert seen.read_text() == "True True"


def test_a_named_file_that_cannot_be_read_is_still_the_runs_error(tmp_path):
    from moecfg.sources.files import PathError

    _tree(tmp_path)
    names = [str(p) for p in sorted(tmp_path.iterdir())] + [str(tmp_path / "missing.yaml")]
    with pytest.raises(PathError):
        check_paths(names)


def test_a_stalled_file_in_a_small_tree_hits_the_same_deadline(tmp_path, monkeypatch, cli):
    """No workers below PARALLEL_FROM files: the CLI arms the CPU deadline in its own process."""
    from moecfg.sources.documents import classify

    for i in range(5):
        (tmp_path / f"f{i}.yaml").write_text(BAD)
    monkeypatch.setattr(workers, "FILE_CPU_SECONDS", 1)
    real = classify.parse_stream

    def stall(text, *args, **kw):  # a parser gone quadratic, inside the per-file guard
        stall.calls += 1
        if "A9" in text and stall.calls == 3:
            while True:
                pass
        return real(text, *args, **kw)

    stall.calls = 0
    monkeypatch.setattr(classify, "parse_stream", stall)
    code, out, err = cli("check", "--format", "json", str(tmp_path))
    got = {Path(r["file"]).name: [d["code"] for d in r["diagnostics"]] for r in json.loads(out)["results"]}
    assert code == 1 and sorted(got) == [f"f{i}.yaml" for i in range(5)]
    assert sum(codes == ["MC019"] for codes in got.values()) == 1 and "CPU time" in out
    assert signal.getsignal(signal.SIGPROF) in (signal.SIG_DFL, None) and signal.getitimer(signal.ITIMER_PROF)[0] == 0


def test_the_api_leaves_sigprof_alone(tmp_path):
    (tmp_path / "a.yaml").write_text(BAD)
    seen = []
    previous = signal.signal(signal.SIGPROF, lambda *a: seen.append(a))
    try:
        check_paths([str(tmp_path)])
        assert signal.getsignal(signal.SIGPROF) is not signal.SIG_DFL and not seen
    finally:
        signal.signal(signal.SIGPROF, previous)


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="Linux only")
def test_a_file_needing_more_memory_than_the_limit_is_mc019_and_the_worker_goes_on(tmp_path, monkeypatch):
    from moecfg.sources.documents import classify

    _tree(tmp_path)
    (tmp_path / "f050.yaml").write_text(BAD + "# greedy\n")
    real = classify.parse_stream

    def greedy(text, *args, **kw):  # 3 GiB for one file (inside its check): past the 1.5 GiB a worker may add
        if "# greedy" in text:
            bytearray(3 << 30)
        return real(text, *args, **kw)

    monkeypatch.setattr(classify, "parse_stream", greedy)
    report = check_paths([str(tmp_path)])
    got = _by_file(report)
    assert got["f050.yaml"] == ["MC019"] and "MemoryError" in report.results[50].diagnostics[0].message
    assert sum(codes == ["MC019"] for codes in got.values()) == 1 and len(got) == engine.PARALLEL_FROM + 44


def test_an_error_outside_a_files_own_check_in_a_worker_is_mc019_on_it(tmp_path, monkeypatch):
    _tree(tmp_path)

    def broken(name):
        if name == "f009.yaml":
            raise RuntimeError("outside the guard")

    _patched(monkeypatch, broken)
    got = _by_file(check_paths([str(tmp_path)]))
    assert got["f009.yaml"] == ["MC019"] and sum(codes == ["MC019"] for codes in got.values()) == 1
