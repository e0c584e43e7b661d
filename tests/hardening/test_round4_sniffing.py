"""Round 4: the coverage sniffing (sources/seen.py, framework_words.LAUNCHERS) on hostile text. Every pattern of
the table is timed on lines of repeated units (a super-linear pattern costs 16x for 4x the text); whole files
(one 44 MB line, 100,000 continued launch lines, megabytes of hostile lines, binary bytes) stay within the per-file
CPU budget (measured on the child process, generous limits); hostile launcher lines never reach the output raw."""
from __future__ import annotations

import json
import os
import re
import resource
import subprocess
import sys
import time

import pytest

from moecfg.sources import framework_words as W
from moecfg.sources.seen import seen

# units a line may repeat: every character a command may start after, assignments, wrappers, command words
UNITS = ("a=b ", '"a=b ', ";a=", '"a=', "'a=", "(a=", "[a=", "`a=", "|a=", "; python ", "ray job submit ",
         "env -x ", "env -;", '"python ', "; torchrun ", "pretrain_", "-- ", "; a=b ", "; sudo -x ", '"env -"',
         "; pretrain_a.py ", "ray job submit python ", "python -x ", "'python -m ")
TAIL = " # atrain.py vllm servex pretrain_x.pyz"
PATTERNS = [(launcher.name, p) for launcher in W.LAUNCHERS for p in launcher.patterns]


def _cpu(rx: re.Pattern, text: str) -> float:
    start = time.process_time()
    rx.search(text)
    return time.process_time() - start


@pytest.mark.parametrize("name,pattern", PATTERNS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(PATTERNS)])
def test_each_launcher_pattern_is_near_linear_on_a_longest_line(name, pattern):
    rx = re.compile(pattern, re.M)
    for unit in UNITS:
        line = (unit * (4000 // len(unit) + 1))[:4000] + TAIL  # MAX_LINE: longer lines are never searched
        spent = min(_cpu(rx, line) for _ in range(2))
        # measured before the fix: 117 ms (slime's `ray job submit`), 20 ms (every AT_COMMAND pattern on `;a=`);
        # after: 3.4 ms at most
        assert spent < 0.012, (name, unit, spent)


def test_many_continued_launch_lines_are_one_step_each():
    text = "#!/bin/bash\n" + "vllm serve \\\n" * 80_000  # under MAX_SEARCHED
    start = time.process_time()
    found = seen(text, W.SHELL)
    assert time.process_time() - start < 4  # 40 s before (400 lines walked back per line)
    # each command is at most _MAX_JOINED + 1 lines, as the walk back counts them
    assert len(found) == 79_600 and found[0].line == 2 and found[-1].line == 79_601


def test_a_continued_launch_keeps_its_first_line():
    text = ("#!/bin/bash\nexport A=1\nvllm serve m \\\n  --x 1 \\\n  --y 'vllm serve x'\n"
            "python -m vllm.entrypoints.api_server\n")
    assert [(s.line, s.matched) for s in seen(text, W.SHELL)] == [(3, (3, 5)), (6, (6,))]


def test_hostile_lines_are_searched_within_a_budget():
    line = ('"python ' * 500)[:4000] + " # train.py pretrain_x.py\n"
    text = "#!/bin/bash\n# --rollout-x\n" + line * 2000  # 8 MB
    start = time.process_time()
    assert seen(text, W.SHELL) == []
    assert time.process_time() - start < 6  # 14 s before (MAX_SEARCHED bounds it)


def _check_child(path, *args, cpu_limit=10.0):
    """moecfg check in a child: (exit code, stdout, stderr, CPU seconds, peak RSS KiB)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    got = subprocess.run([sys.executable, "-m", "moecfg", "check", *args, str(path)], capture_output=True,
                         timeout=120, env={**os.environ, "NO_COLOR": "1", "GITHUB_ACTIONS": ""})
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    assert "Traceback" not in got.stderr.decode(errors="replace")
    assert got.returncode in (0, 1), got.stderr[-2000:]
    assert cpu < cpu_limit, cpu
    assert after.ru_maxrss < 1_500_000  # KiB
    return got.returncode, got.stdout.decode(errors="replace"), got.stderr.decode(errors="replace"), cpu


def test_one_44_mb_line_of_launch_words_in_a_py_file(tmp_path):
    f = tmp_path / "gen.py"
    f.write_text("x = '" + "vllm serve " * 4_000_000 + "'\n")  # minutes before: rfind to the line start per hit
    _check_child(f)


def test_binary_py_and_100000_launch_words(tmp_path):
    (tmp_path / "bin.py").write_bytes(os.urandom(2_000_000) + b"\nos.system('vllm serve m --x 1')\n" * 1000)
    (tmp_path / "words.py").write_text("".join(f"os.system('vllm serve m{i} --port {i}')\n" for i in range(100_000)))
    code, out, _, _ = _check_child(tmp_path, "--format", "json")
    report = json.loads(out)
    assert report["summary"]["files"] >= 1


@pytest.mark.parametrize("fmt", ["text", "github", "junit", "sarif", "json"])
def test_hostile_unread_launch_lines_and_names_stay_escaped(tmp_path, fmt):
    name = "evil\x1b[31m::error file=x::forged.py"
    (tmp_path / name).write_text("import os\nos.system('torchtitan.train --job.config_file x \x1b]0;t\x07')\n"
                                 "os.system('lightllm.server.api_server --x \\n::error::forged')\n")
    got = subprocess.run([sys.executable, "-m", "moecfg", "check", "--format", fmt, "--verbose", str(tmp_path)],
                         capture_output=True, timeout=120, env={**os.environ, "NO_COLOR": "1", "GITHUB_ACTIONS": ""})
    both = got.stdout + got.stderr
    assert got.returncode in (0, 1), got.stderr[-2000:]
    assert b"\x1b" not in both and b"\x07" not in both
    assert not re.search(rb"(^|\n)::error file=x", both)


def test_a_staircase_of_nested_rst_blocks_is_linear():
    text = "vllm serve x\n" + "".join(" " * i + "a::\n" for i in range(4000)) + "  vllm serve m\n"  # 8 MB
    start = time.process_time()
    found = seen(text, W.MARKDOWN)
    assert time.process_time() - start < 3  # 14 s before (each nested block walked every line below it)
    assert [s.line for s in found] == [4002]  # the last line is inside the blocks; the first is prose


def test_many_code_blocks_are_looked_up_not_scanned():
    text = "```bash\nvllm serve x\n```\nvllm serve prose\n" * 20_000
    start = time.process_time()
    found = seen(text, W.MARKDOWN)
    assert time.process_time() - start < 2  # 5.8 s before (every block scanned for every line)
    assert len(found) == 20_000 and found[0].line == 2 and found[-1].line == 79_998


def test_eight_mb_of_comment_lines_stay_under_the_memory_limit(tmp_path):
    f = tmp_path / "c.sh"
    f.write_text("#!/bin/bash\nvllm serve m -tp 2\n" + "#\n" * 4_000_000)
    # tree-sitter-bash keeps ~240 bytes per comment node: 2.0 GB RSS, 3.8 s CPU before; comment-only lines are
    # blanked before the parse (sources/shell/comments.py): 69 MB, 1.3 s
    code, out, _, _ = _check_child(f, "--product", "A3", "--format", "json")
    report = json.loads(out)
    assert report["coverage"]["launches_read"] == 1 and report["files"] == [{"file": str(f), "state": "read"}]
