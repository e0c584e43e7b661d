"""core/fixes.place: a value is edited only where it is written as one literal inside the entry it was read from;
the human form is the knob as the file writes it."""
from __future__ import annotations

import pytest

from moecfg.core.fixes import Fix, Pending, Suggestion, place
from moecfg.sources.manifests.yaml_source import Span


def whole_line(text: str, line: int) -> Span:
    return Span(line, 1, line, len(text.split("\n")[line - 1]) + 1)


def placed(text: str, knob: str, old, new, line: int = 1, path=("x",)):
    got = place(text, Pending(Suggestion(path, knob, new), (whole_line(text, line),), old))
    if not isinstance(got, Fix):
        return got
    [e] = got.edits
    lines = text.split("\n")
    row = lines[e.line - 1]
    lines[e.line - 1] = row[:e.column - 1] + e.replacement + row[e.end_column - 1:]
    assert row[e.column - 1:e.end_column - 1] == e.original
    return "\n".join(lines), got.message


@pytest.mark.parametrize("text, knob, old, new, after, human", [
    ("  --max-num-seqs 16 \\", "--max-num-seqs", 16, 13, "  --max-num-seqs 13 \\", "--max-num-seqs 13"),
    # 16 twice: the one after the knob's own name
    ("--max-num-seqs=16 --x 16", "--max-num-seqs", 16, 13, "--max-num-seqs=13 --x 16", "--max-num-seqs 13"),
    ("--x 16 --max-num-seqs 16", "--max-num-seqs", 16, 13, "--x 16 --max-num-seqs 13", "--max-num-seqs 13"),
    ("--x 16 --y 16", "--max-num-seqs", 16, 13, None, None),  # twice, and no knob name to tell them apart
    ("vllm serve m --max-num-seqs=16", "--max-num-seqs", 16, 13, "vllm serve m --max-num-seqs=13",
     "--max-num-seqs 13"),
    ("--additional-config '{\"a\": 100, \"hccl_x\": 100}'", '"hccl_x"', 100, 120,
     "--additional-config '{\"a\": 100, \"hccl_x\": 120}'", '"hccl_x": 120'),
    ("HCCL_BUFFSIZE=100 vllm serve m", "HCCL_BUFFSIZE", 100, 120, "HCCL_BUFFSIZE=120 vllm serve m",
     "HCCL_BUFFSIZE=120"),
    ("export HCCL_BUFFSIZE=\"100\"  # 100 MB", "HCCL_BUFFSIZE", 100, 120,  # the comment's 100 stays
     "export HCCL_BUFFSIZE=\"120\"  # 100 MB", "export HCCL_BUFFSIZE=120"),
    ("export HCCL_BUFFSIZE=${BUF:-100}", "HCCL_BUFFSIZE", 100, 120, None, None),  # a default inside an expansion
    ("export HCCL_BUFFSIZE=1000", "HCCL_BUFFSIZE", 100, 120, None, None),  # not the token 100
])
def test_place(text, knob, old, new, after, human):
    got = placed(text, knob, old, new)
    if after is None:
        assert isinstance(got, str) and "not written as one literal" in got
    else:
        assert got == (after, human)


def test_crlf_line_keeps_its_ending():
    text = "export HCCL_BUFFSIZE=100\r\nvllm serve m\r\n"
    got = place(text, Pending(Suggestion(("env", "HCCL_BUFFSIZE"), "HCCL_BUFFSIZE", 120),
                              (Span(1, 8, 1, 25),), 100))
    [e] = got.edits
    assert (e.line, e.column, e.end_column, e.original, e.replacement) == (1, 22, 25, "100", "120")
    assert got.message == "export HCCL_BUFFSIZE=120"


def test_not_set_says_so_with_the_derivation():
    got = place("vllm serve m\n", Pending(Suggestion(("max_output_size",), "max_output_size", 9), (), 65536,
                                          source="fixed in vllm-ascend 0.13.0"))
    assert got == "max_output_size is not set in this file (fixed in vllm-ascend 0.13.0)"


def test_unset_shell_variable_is_not_inserted_after_a_continued_line():
    text = "A=1 \\\n  vllm serve m\n"
    got = place(text, Pending(Suggestion(("env", "HCCL_BUFFSIZE"), "HCCL_BUFFSIZE", 120), (), None,
                              insert=Span(2, 3, 2, 7)))
    assert got == "HCCL_BUFFSIZE is not set in this file"
