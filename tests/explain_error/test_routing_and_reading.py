"""explain-error routes a text by the evidence in the log (issue 36), numbers lines as editors do and reads pipes
(issue 33), and lists the texts it knows."""
from __future__ import annotations

import subprocess
import sys

from click.testing import CliRunner

from moecfg.cli import cli
from moecfg.explain_error.match import explain, read_log
from moecfg.explain_error.patterns import PATTERNS

SGL_LINE = ("HCCL_BUFFSIZE is too SMALL, maxBs = 64, h = 7168, epWorldSize = 16, localMoeExpertNum = 16, "
            "tokenNeedSizeDispatch = 7680, tokenNeedSizeCombine = 14336, k = 8, NEEDED_HCCL_BUFFSIZE(x) = 900MB, "
            "HCCL_BUFFSIZE=512MB.")
CANN_SIGN = "[FUNC:MoeDistributeDispatchA3TilingFuncImpl][FILE:moe_distribute_dispatch_v2_tiling.cc][LINE:941]"


def keys(lines):
    return [e.pattern.key for e in explain(lines)]


def test_the_same_words_route_by_who_printed_them():
    sglang = ["[2026-01-02] sglang.srt.server_args: moe_a2a_backend='deepep'", SGL_LINE]
    assert keys(sglang) == ["hccl-buffsize-sgl"]
    # CANN's own op signs its text: the MC2 row, even in a log that mentions SGLang
    assert keys([*sglang[:1], SGL_LINE + CANN_SIGN]) == ["hccl-buffsize"]
    # no evidence of sgl-kernel-npu anywhere: not routed to it
    assert keys(["vllm serve /models/x --enable-expert-parallel", SGL_LINE]) == ["hccl-buffsize"]


def test_lines_split_at_newlines_only():
    data = b"a\x0cb\xe2\x80\xa8c\nstep 1/9\rstep 9/9\r\nHCCL_BUFFSIZE is too SMALL, NEEDED_HCCL_BUFFSIZE(x) = 9MB\r\n"
    lines, _ = read_log(data)
    assert lines[1] == "step 9/9"  # what the terminal showed after the progress bar redrew
    [e] = explain(lines)
    assert e.line == 3  # grep -n's number: \x0c, U+2028 and \r start no line


def test_a_pipe_is_read_like_a_file(tmp_path):
    log = "x\nHCCL_BUFFSIZE is too SMALL, NEEDED_HCCL_BUFFSIZE(x) = 9MB, HCCL_BUFFSIZE=8MB.\n"
    r = subprocess.run([sys.executable, "-m", "moecfg", "explain-error", "/dev/stdin"], input=log, text=True,
                       capture_output=True, timeout=60)
    assert r.returncode == 0 and "/dev/stdin:2:" in r.stdout, r.stderr


def test_list_names_every_known_text_and_an_unknown_log_points_at_it(tmp_path):
    r = CliRunner().invoke(cli, ["explain-error", "--list"])
    assert r.exit_code == 0
    assert all(f"{p.key}: " in r.output for p in PATTERNS)
    unknown = tmp_path / "u.log"
    unknown.write_text("nothing to see\n")
    r = CliRunner().invoke(cli, ["explain-error", str(unknown)])
    assert r.exit_code == 1 and "moecfg explain-error --list" in r.output
    r = CliRunner().invoke(cli, ["explain-error"])
    assert r.exit_code == 2
