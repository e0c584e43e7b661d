"""Streamed text output (checking/stream.py, render/text.py `stream`): each file's lines are written as soon as the
file is done, in walk order (also with the worker pool); findings said once per run come at the end; `--quiet`
drops the buffer tables; `--statistics` counts each code; one summary line per run (pre-commit)."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from moecfg.backends import Options
from moecfg.checking import engine
from moecfg.checking.settings import Settings
from moecfg.checking.stream import StreamedCheck
from moecfg.render.text import stream

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = (ROOT / "examples" / "deepseek-v3-a3-ep32.yaml").read_text()
LAUNCH = "export HCCL_BUFFSIZE=1024\nvllm serve /models/DeepSeek-V3 --tensor-parallel-size 8 --enable-expert-parallel\n"
TOO_SMALL = EXAMPLE.replace("HCCL_BUFFSIZE: 768", "HCCL_BUFFSIZE: 100")


def _tree(root: Path, n: int, text: str = EXAMPLE) -> list[Path]:
    paths = []
    for i in range(n):
        p = root / f"d{i:03d}.yaml"
        p.write_text(text)
        paths.append(p)
    return paths


def test_the_first_file_is_written_before_the_last_file_is_read(tmp_path, monkeypatch):
    files = _tree(tmp_path, 5)
    reads: list[str] = []
    real_read = engine.read
    monkeypatch.setattr(engine, "read", lambda entry: reads.append(entry.path) or real_read(entry))
    writes: list[tuple[int, str]] = []  # (files read when written, text)
    run = StreamedCheck([str(tmp_path)], Options(), Settings())
    stream(run, lambda text: writes.append((len(reads), text)))
    assert len(reads) == 5 and writes[0][0] < 5  # written while files were still unread
    shown = [w for _, w in writes[:-1]]  # each file's lines, then the summary
    assert [s.split(" (document")[0] for s in shown] == [str(p) for p in files]  # walk order
    assert writes[-1][1].startswith("Checked 5 files")


@pytest.mark.skipif(not engine._can_fork() or (os.cpu_count() or 1) < 2, reason="the worker pool needs fork and 2 cores")
def test_with_the_worker_pool_results_stream_in_walk_order(tmp_path, monkeypatch):
    """The last file's check waits until the first result was written: without streaming, it would wait in vain."""
    root = tmp_path / "tree"
    root.mkdir()
    files = _tree(root, 48)
    marker, verdict = tmp_path / "first-written", tmp_path / "verdict"
    monkeypatch.setattr(engine, "PARALLEL_FROM", 32)
    real = engine.check_entry

    def check_entry(entry, options, settings):  # runs in the workers (fork: they inherit this patch)
        if entry.path == str(files[-1]):
            deadline = time.monotonic() + 30
            while not marker.exists() and time.monotonic() < deadline:
                time.sleep(0.02)
            verdict.write_text("streamed" if marker.exists() else "not streamed")
        return real(entry, options, settings)

    monkeypatch.setattr(engine, "check_entry", check_entry)
    written: list[str] = []

    def write(text: str) -> None:
        written.append(text)
        marker.touch()

    run = StreamedCheck([str(root)], Options(), Settings())
    stream(run, write)
    assert verdict.read_text() == "streamed"
    assert [s.split(" (document")[0] for s in written[:-1]] == [str(p) for p in files]
    assert written[-1].startswith("Checked 48 files")


def _moecfg(*args, cwd: Path, **env) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "moecfg", *args], capture_output=True, text=True, cwd=cwd,
                          env={**os.environ, "GITHUB_ACTIONS": "", **env})


def test_questions_said_once_come_at_the_end_with_their_final_words(tmp_path):
    (tmp_path / "a.sh").write_text(LAUNCH)
    (tmp_path / "b.sh").write_text(LAUNCH)
    (tmp_path / "c.yaml").write_text(TOO_SMALL)
    out = _moecfg("check", ".", cwd=tmp_path).stdout.splitlines()
    assert out[0].startswith("./c.yaml:")  # a.sh's only findings are questions: held back
    questions = [line for line in out if "MC042" in line or "MC040" in line]
    assert len(questions) == 2 and all(q.startswith("./a.sh:2:1:") and "in this file and in ./b.sh" in q
                                       for q in questions)
    assert out[-3:-1] == questions and out[-1].startswith("Checked 3 files")


def test_quiet_keeps_findings_and_the_summary(tmp_path):
    _tree(tmp_path, 2)
    (tmp_path / "z.yaml").write_text(TOO_SMALL)
    loud = _moecfg("check", ".", cwd=tmp_path).stdout.splitlines()
    quiet = _moecfg("check", "--quiet", ".", cwd=tmp_path)
    assert any("required" in line and ": ok" in line for line in loud)  # the tables of the documents that are fine
    tables = [line for line in loud if line.startswith("./d") or re.match(r"  \S", line)]  # title, then its rows
    assert tables and quiet.returncode == 1
    assert quiet.stdout.splitlines() == [line for line in loud if line not in tables]
    assert quiet.stdout.startswith("./z.yaml:") and "Checked 3 files" in quiet.stdout


def test_quiet_on_one_file_too(tmp_path):
    (tmp_path / "one.yaml").write_text(EXAMPLE)
    assert _moecfg("check", "-q", "one.yaml", cwd=tmp_path).stdout.splitlines() == \
        ["Checked 1 file (1 document): 0 errors, 0 warnings, 0 infos."]


def test_statistics_count_each_code_as_the_json_report_does(tmp_path):
    (tmp_path / "a.sh").write_text(LAUNCH)
    (tmp_path / "b.sh").write_text(LAUNCH.replace("vllm serve", "vllm  serve"))
    (tmp_path / "c.yaml").write_text(TOO_SMALL)
    (tmp_path / "d.yaml").write_text(TOO_SMALL)
    stats = _moecfg("check", "--statistics", ".", cwd=tmp_path).stdout.splitlines()
    report = json.loads(_moecfg("check", "--format", "json", ".", cwd=tmp_path).stdout)
    counts: dict[str, int] = {}
    for r in report["results"]:
        for d in r["diagnostics"]:
            counts[d["code"]] = counts.get(d["code"], 0) + 1
    got = {line.split()[1]: int(line.split()[0]) for line in stats[:-1]}
    assert got == counts and max(counts.values()) >= 2
    assert [int(line.split()[0]) for line in stats[:-1]] == sorted(got.values(), reverse=True)
    assert stats[-1].startswith("Checked 4 files")


def test_pre_commit_gets_one_summary_for_all_the_files_it_passes(tmp_path):
    names = [p.name for p in _tree(tmp_path, 3)] + ["launch.sh"]
    (tmp_path / "launch.sh").write_text(LAUNCH)
    out = _moecfg("check", *names, cwd=tmp_path, PRE_COMMIT="1").stdout.splitlines()
    assert [line for line in out if line.startswith("Checked")] == [out[-1]]
    assert out[-1].startswith("Checked 4 files")
