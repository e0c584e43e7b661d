"""sources/textmap.py: line index, source maps and their composition, YAML scalars of every style."""
from __future__ import annotations

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from reader_helpers import at, pos

from moecfg.sources.textmap import LineIndex, SourceMap, yaml_scalar_map
from moecfg.sources.manifests.yaml_source import parse_stream


def scalar(text: str, path: tuple):
    """(value, map) of the scalar at `path` in the first document."""
    doc = parse_stream(text)[0]
    value = doc.raw_scalars[path]
    return value, yaml_scalar_map(text, LineIndex(text), doc.values[path], value)


def segment_text(text: str, value: str, smap: SourceMap, sub: str) -> tuple[str, bool]:
    """The file text a substring of the value maps to, and whether the mapping is exact."""
    i = value.index(sub)
    lo, hi, exact = smap.locate(i, i + len(sub))
    return text[lo:hi], exact


def test_line_index_positions_are_one_based_and_end_exclusive():
    idx = LineIndex("ab\ncde\n")
    assert idx.position(0) == (1, 1)
    assert idx.position(3) == (2, 1)  # just after the first newline
    assert idx.offset(2, 3) == 5  # "e"
    assert pos(idx.span(3, 6)) == (2, 1, 2, 4)  # "cde"


def test_locate_exact_and_inexact_segments():
    m = SourceMap()
    m.add(10, 13, 3, True)  # "abc" literal at 10..13
    m.add(13, 17, 1, False)  # one char from a 4-char escape at 13..17
    m.add(17, 19, 2, True)
    assert m.locate(1, 3) == (11, 13, True)
    assert m.locate(2, 4) == (12, 17, False)  # touches the escape: its whole source, not exact
    assert m.locate(4, 6) == (17, 19, True)


def test_slice_composes_maps():
    outer = SourceMap()
    outer.add(100, 105, 5, True)
    outer.add(105, 107, 1, False)
    outer.add(107, 117, 10, True)
    inner = outer.slice(3, 9)  # "de" + escape + "abc"
    assert inner.length == 6
    assert inner.locate(0, 2) == (103, 105, True)
    assert inner.locate(3, 6) == (107, 110, True)
    assert inner.locate(2, 3) == (105, 107, False)


def test_plain_and_single_quoted_scalars_are_exact_runs():
    text = "a: --max-num-seqs 16\nb: 'it''s --tp 4'\n"
    value, m = scalar(text, ("a",))
    assert segment_text(text, value, m, "16") == ("16", True)
    value, m = scalar(text, ("b",))
    assert value == "it's --tp 4"
    assert segment_text(text, value, m, "--tp 4") == ("--tp 4", True)
    assert segment_text(text, value, m, "'") == ("''", False)  # the doubled quote is one character


def test_double_quoted_escapes_are_not_exact_but_the_rest_is():
    text = 'k: "--x \\"a\\" \\x41 --tp 4"\n'
    value, m = scalar(text, ("k",))
    assert value == '--x "a" A --tp 4'
    assert segment_text(text, value, m, '"') == ('\\"', False)
    assert segment_text(text, value, m, "A") == ("\\x41", False)
    assert segment_text(text, value, m, "--tp 4") == ("--tp 4", True)


def test_literal_block_lines_are_exact_including_their_newlines():
    text = "args:\n  - |\n    export A=1\n      vllm serve m\n"
    value, m = scalar(text, ("args", 0))
    assert value == "export A=1\n  vllm serve m\n"
    assert segment_text(text, value, m, "vllm serve m") == ("vllm serve m", True)
    lo, _, _ = m.locate(value.index("vllm"), value.index("vllm") + 4)
    assert LineIndex(text).position(lo) == (4, 7)  # 4 spaces of block indent + 2 kept


def test_folded_block_folds_are_not_exact_words_are():
    text = "cmd: >\n  vllm serve m\n      --tp 4\n  tail\n  next\n"
    value, m = scalar(text, ("cmd",))
    assert value == "vllm serve m\n    --tp 4\ntail next\n"  # more-indented lines keep their breaks
    assert segment_text(text, value, m, "--tp 4") == ("--tp 4", True)
    assert segment_text(text, value, m, "l n") == ("l\n  n", False)  # "tail next": the fold is a space


def test_multiline_plain_and_double_quoted_fold():
    text = 'a: vllm serve\n  --tp 4\nb: "x\n  y \\\n  z"\n'
    value, m = scalar(text, ("a",))
    assert value == "vllm serve --tp 4"
    assert segment_text(text, value, m, "--tp 4") == ("--tp 4", True)
    value, m = scalar(text, ("b",))
    assert value == "x y z"  # a fold, then an escaped line break that joins without a space
    assert segment_text(text, value, m, "z") == ("z", True)


def test_chomping_and_explicit_indentation():
    text = "a: |-\n  strip\nb: >+\n  keep\n\nc: |2\n    two more\n"
    assert scalar(text, ("a",))[0] == "strip"
    value, m = scalar(text, ("b",))
    assert value == "keep\n\n" and all(s[4] for s in m.segs)
    value, m = scalar(text, ("c",))
    assert value == "  two more\n"
    assert segment_text(text, value, m, "two") == ("two", True)


def test_anchor_tag_and_alias_point_at_the_anchored_text():
    text = "a: &cmd !!str vllm serve m\nb: *cmd\n"
    value, m = scalar(text, ("b",))
    lo, hi, exact = m.locate(0, len(value))
    assert (text[lo:hi], exact) == ("vllm serve m", True)


def test_mismatch_falls_back_to_the_whole_scalar_not_exact():
    text = 'k: "a\\tb"\n'
    doc = parse_stream(text)[0]
    m = yaml_scalar_map(text, LineIndex(text), doc.values[("k",)], "something else")
    lo, hi, exact = m.locate(0, 3)
    assert (text[lo:hi], exact) == ('"a\\tb"', False)


def test_crlf_literal_block_breaks_are_not_exact():
    text = "k: |\r\n  a\r\n  b\r\n"
    value, m = scalar(text, ("k",))
    assert value == "a\nb\n"
    assert segment_text(text, value, m, "b") == ("b", True)
    assert segment_text(text, value, m, "\n") == ("\r\n", False)


def test_span_helper_round_trip():
    text = "x: 'hello world'\n"
    doc = parse_stream(text)[0]
    assert at(text, doc.values[("x",)]) == "'hello world'"


_TEXT = st.text(alphabet=st.sampled_from(list("ab $'\"\\-=:#{}\t\n") + ["é", "中"]), min_size=1, max_size=40)


@settings(max_examples=120, deadline=None)
@given(value=_TEXT, style=st.sampled_from([None, "'", '"', "|", ">"]), width=st.integers(8, 80))
def test_every_exact_segment_is_the_value_text(value, style, width):
    """Whatever PyYAML emits, each exact segment's file text equals the value text it maps."""
    text = yaml.dump({"k": [value]}, default_style=style, width=width, allow_unicode=True)
    doc = parse_stream(text)[0]
    path = next(p for p in doc.raw_scalars if p and p[-1] == 0)
    decoded = doc.raw_scalars[path]
    m = yaml_scalar_map(text, LineIndex(text), doc.values[path], decoded)
    assert m.length == len(decoded)
    for d0, d1, s0, s1, exact in m.segs:
        if exact:
            assert text[s0:s1] == decoded[d0:d1]
