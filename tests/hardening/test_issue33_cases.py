"""Issue 33's cases, at the sizes the issue measured them: each run exits 0, 1 or 2 within a CPU bound far under
the issue's 10 s (they took 11 s to 835 s), with the other files' findings reported.

CPU time, not wall-clock: other work on a loaded CI machine stretches the wall clock only."""
from __future__ import annotations

import json
import resource
import subprocess
import sys
import time

import pytest

from hostile import BAD, GOOD, cli  # noqa: F401  (fixture)

CPU = 3.0  # seconds per case (the done criterion is 10 s; these are each well under 1 s here)


def _timed(cli, *argv, limit: float = CPU):
    start = time.process_time()
    code, out, err = cli(*argv)
    spent = time.process_time() - start
    assert spent < limit, f"{spent:.1f} s CPU"
    assert code in (0, 1, 2) and "Traceback" not in err and "MC019" not in out, (code, err[-500:])
    return code, out, err


def _with_bad(tmp_path, name: str, text: str):
    """The hostile file next to a file with a finding: that finding must still be reported."""
    (tmp_path / name).write_text(text)
    (tmp_path / "other.yaml").write_text(BAD)
    return str(tmp_path)


def _other_reported(out: str) -> bool:
    return "other.yaml" in out and "MC201" in out


# ---- regexes on text a file controls (item 1) ----

@pytest.mark.parametrize("name, text", [
    ("envsubst.yaml", "x: ${a:-" * 40_000),  # the envsubst pattern: > 11 s
    ("launcher.yaml", "x: ${A}\ny: [\n" + "\t \n" * 16_000 + "command:\n"),  # `^\s*-?\s*` after a YAML error: 835 s
    ("template.yaml", "command: \"vllm serve m " + "{{" * 40_000 + "\"\n"),  # `\{\{.*?\}\}` re.S
    ("fence.yaml", "cmd: \"vllm serve m" + "\\n" * 60_000 + "x\"\n"),  # `(?m)^\s*(```|~~~)` over blank lines
    ("assign.yaml", "run: \"" + "A= " * 40_000 + "vllm serve m\"\n"),  # `A=x ` prefixes sliced one by one
])
def test_patterns_on_yaml_text_are_linear(tmp_path, cli, name, text):
    code, out, _ = _timed(cli, "check", _with_bad(tmp_path, name, text))
    assert _other_reported(out)


def test_placeholder_pattern_on_a_flag_value(tmp_path, cli):
    text = "#!/bin/bash\nvllm serve m --enable-expert-parallel --served-model-name '" + "{{" * 40_000 + "'\n"
    code, out, _ = _timed(cli, "check", _with_bad(tmp_path, "run.sh", text))
    assert _other_reported(out)


def test_explain_error_on_an_8_mb_log_of_assignments(tmp_path, cli):
    log = tmp_path / "crash.log"
    log.write_text((("A=1 " * 2000) + "vllm\n") * 1000)  # each blank retried by `(VAR=val\s{1,4}){0,40}`: 17.6 s
    _timed(cli, "explain-error", str(log))


def test_explain_error_with_12000_distinct_errors_is_one_pass(tmp_path, cli):
    lines = [f"E RuntimeError: HCCL_BUFFSIZE is too SMALL, maxBs = {i}, h = 7168, NEEDED_HCCL_BUFFSIZE_HIERARCHY "
             f"= {i} MB, HCCL_BUFFSIZE = 200 MB" for i in range(12_000)]
    lines += [f"export HCCL_BUFFSIZE={i}" for i in range(3)] + ["vllm serve m --max-num-seqs 16"]
    log = tmp_path / "crash.log"
    log.write_text("\n".join(lines) + "\n")
    code, out, _ = _timed(cli, "explain-error", "--format", "json", str(log))
    got = json.loads(out)
    explanations = got["explanations"] if isinstance(got, dict) and "explanations" in got else got
    assert len(json.dumps(explanations)) > 0
    assert "HCCL_BUFFSIZE = 0" in out and "--max-num-seqs = 16" in out  # the causes are still found


# ---- .gitignore and per-path-ignores (item 1) ----

def test_backtracking_gitignore_pattern_on_a_long_folder_name(tmp_path, cli):
    (tmp_path / ".gitignore").write_text("*a*a*a*a*a*a*a*a*az\n" + "**/" * 40 + "zz\n")
    d = tmp_path / ("a" * 60)
    d.mkdir()
    (d / ("a" * 60 + ".yaml")).write_text(BAD)
    code, out, _ = _timed(cli, "check", str(tmp_path))
    assert code == 1 and "MC201" in out


def test_a_gitignore_of_150000_names_is_not_paths_times_patterns(tmp_path, cli):
    names = [f"generated_file_{i:06d}.yaml" for i in range(150_000)]
    (tmp_path / ".gitignore").write_text("\n".join(names + ["*.tmp", "build-*/", "!keep.tmp"]) + "\n")
    for i in range(300):
        (tmp_path / f"f{i:03d}.yaml").write_text(BAD if i == 7 else GOOD)
    (tmp_path / "generated_file_000042.yaml").write_text(BAD)  # ignored by name
    code, out, _ = _timed(cli, "check", str(tmp_path), limit=10)
    assert code == 1 and "f007.yaml" in out and "generated_file_000042" not in out


def test_per_path_ignores_with_many_double_stars(tmp_path, cli):
    (tmp_path / ".moecfg.yaml").write_text("per-path-ignores:\n  '" + "**/" * 60 + "x.yaml': [MC201]\n"
                                           "  '" + "*a" * 30 + "z': [MC201]\n")
    deep = tmp_path.joinpath(*["d"] * 30)
    deep.mkdir(parents=True)
    (deep / "x.yaml").write_text(BAD)
    (deep / "y.yaml").write_text(BAD)
    code, out, _ = _timed(cli, "check", str(tmp_path))
    assert code == 1 and "/y.yaml:" in out and "/x.yaml:" not in out


# ---- memory (item 2) ----

def _rss_cpu(args, cwd) -> tuple[int, float, subprocess.CompletedProcess]:
    """Peak RSS (bytes, an upper bound: the largest child of this process so far) and CPU seconds of one
    `moecfg` run in a child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run([sys.executable, "-m", "moecfg", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    scale = 1 if sys.platform == "darwin" else 1024  # ru_maxrss: bytes on macOS, KiB on Linux
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return after.ru_maxrss * scale, cpu, done


@pytest.mark.skipif(not hasattr(resource, "getrusage"), reason="no getrusage")
def test_a_40_mb_yaml_of_blank_lines_stays_far_under_the_memory_bound(tmp_path):
    (tmp_path / "blank.yaml").write_text("\n" * (40 << 20) + "command: vllm serve m --enable-expert-parallel\n")
    rss, cpu, done = _rss_cpu(["check", "blank.yaml"], tmp_path)
    assert done.returncode in (0, 1, 2) and "Traceback" not in done.stderr
    assert rss < 1_000 << 20 and cpu < 10, (rss >> 20, cpu)  # 1.9 GB before (a Python int per line)


def test_line_index_is_built_as_asked_and_agrees_with_a_plain_index(monkeypatch):
    import random
    import re

    from moecfg.sources import textmap
    from moecfg.sources.textmap import LineIndex

    index = LineIndex("\n" * 1_000_000)
    assert sys.getsizeof(index._before) < 200_000 and not index._blocks  # 16 blocks counted, none built
    assert index.position(0) == (1, 1) and index.position(1_000_000) == (1_000_001, 1) and len(index._blocks) == 2
    shifted = LineIndex("a\nbc\n", first_line=41)
    assert shifted.position(3) == (43, 2) and shifted.offset(43, 2) == 3
    rng = random.Random(33)
    for block in (1, 3, 64):  # block edges everywhere
        monkeypatch.setattr(textmap, "_BLOCK", block)
        for _ in range(50):
            text = "".join(rng.choice("ab\n\n") for _ in range(rng.choice([0, 1, 7, 200])))
            starts = [0] + [m.end() for m in re.finditer("\n", text)]
            index = LineIndex(text)
            for offset in range(len(text) + 2):
                line = max(i for i, s in enumerate(starts) if s <= offset)
                assert index.position(offset) == (line + 1, offset - starts[line] + 1)
            for line in range(1, len(starts) + 2):
                assert index.offset(line, 1) == starts[min(line, len(starts)) - 1]


def test_markdown_yaml_blocks_are_parsed_at_their_offset_not_padded(tmp_path, cli):
    block = "```yaml\ncommand: vllm serve m --enable-expert-parallel --data-parallel-size 0\n```\n"
    text = "# Guide\n\n" + ("Some prose about the deployment.\n" * 90_000) + block  # ~3 MB before the block
    (tmp_path / "guide.md").write_text(text)
    code, out, _ = _timed(cli, "check", "--markdown", str(tmp_path / "guide.md"))
    line = text.count("\n", 0, text.index("command:")) + 1
    assert f"guide.md:{line}:" in out  # the position is the file's own


# ---- untrusted pull requests (item 4) ----

def test_a_prs_gitignore_does_not_hide_files_under_a_pinned_config(tmp_path, cli, monkeypatch):
    (tmp_path / "ci").mkdir()
    (tmp_path / "ci" / "moecfg.yaml").write_text("fail-on: error\n")
    (tmp_path / ".gitignore").write_text("*.yaml\n*.sh\n")
    (tmp_path / "deploy.yaml").write_text(BAD)
    monkeypatch.chdir(tmp_path)
    pinned = ("check", ".", "--config", "ci/moecfg.yaml", "--fail-on", "error", "--no-inline-suppressions")
    code, out, _ = _timed(cli, *pinned)
    assert code == 1 and "deploy.yaml" in out and "MC201" in out
    code, out, _ = _timed(cli, "check", ".")  # without --config the repository's .gitignore is honoured
    assert code == 0 and "Checked 0 files" in out
    (tmp_path / "ci" / "moecfg.yaml").write_text("respect-gitignore: true\n")  # the pinned file may opt back in
    code, out, _ = _timed(cli, *pinned)
    assert code == 0


def test_an_invalid_settings_file_in_the_tree_is_a_finding_on_it(tmp_path, cli, monkeypatch):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / ".moecfg.yaml").write_text("fail-on: never\nignore: [MC201\n")
    (tmp_path / "sub" / "a.yaml").write_text(BAD)
    (tmp_path / "b.yaml").write_text(BAD)
    monkeypatch.chdir(tmp_path)
    code, out, _ = _timed(cli, "check", "--format", "json", ".")
    results = json.loads(out)["results"]
    by_file = {r["file"].removeprefix("./"): [d["code"] for d in r["diagnostics"]] for r in results}
    assert code == 1 and by_file["sub/.moecfg.yaml"] == ["MC016"]
    assert "MC201" in by_file["sub/a.yaml"] and "MC201" in by_file["b.yaml"]  # the defaults: nothing ignored
    line = next(r for r in results if r["file"].endswith(".moecfg.yaml"))["diagnostics"][0]["line"]
    assert line == 3  # the YAML error's own line (the unclosed flow sequence ends at the end of the file)


# ---- the launch front half (item 8) ----

def test_a_20_digit_hccl_buffsize_is_a_finding_not_a_crash(tmp_path, cli):
    text = ("#!/bin/bash\nexport HCCL_BUFFSIZE=10000000000000000000\nvllm serve deepseek-ai/DeepSeek-V3 "
            "--enable-expert-parallel --data-parallel-size 32\n")
    code, out, _ = _timed(cli, "check", "--product", "A3", _with_bad(tmp_path, "run.sh", text))
    assert "MC009" in out and _other_reported(out)


@pytest.mark.parametrize("value", ["1e400", "-1e400", "99999999999999999999", "1.5", '"8"', "true", "NaN"])
def test_deepep_config_values_that_are_no_64_bit_integers(tmp_path, cli, value):
    text = ("#!/bin/bash\npython3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --enable-dp-attention "
            "--moe-a2a-backend deepep --deepep-mode normal --tp 16 --dp 16 --deepep-config "
            f"'{{\"normal_dispatch\": {{\"num_sms\": {value}}}, \"normal_combine\": {{\"num_sms\": 24}}}}'\n")
    (tmp_path / ".moecfg.yaml").write_text("device: H100\n")
    code, out, _ = _timed(cli, "check", _with_bad(tmp_path, "run.sh", text))
    assert "MC025" in out and "--deepep-config normal_dispatch.num_sms" in out and _other_reported(out)


@pytest.mark.parametrize("form", ['B="${A[*]} ${A[*]}"; A=($B $B)', 'B="${A[*]}${A[*]}"; A=("$B" "$B")',
                                  'A=("$U ${A[*]}" "${A[*]}")', 'C="$U $C$C"'])
def test_self_growing_arrays_are_bounded_by_the_budget(tmp_path, cli, form):
    text = "\n".join(["#!/bin/bash", "A=(x y)", "C=x"] + [form] * 60
                     + ["vllm serve m --enable-expert-parallel --data-parallel-size ${#A[@]}", 'bash -c "$C"']) + "\n"
    code, out, _ = _timed(cli, "check", _with_bad(tmp_path, "run.sh", text))
    assert "MC023" in out and "budget" in out and _other_reported(out)
