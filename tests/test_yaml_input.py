"""Input handling (MC0xx): strict YAML, positions, odd files, rule-set selection (contract §1, §1.4, §3)."""
from __future__ import annotations

import time

import pytest

from moecfg.checking.engine import check_text, lint_bytes, lint_text

from lintkit import Linted, run_lint

GOOD = """\
product: A3
cann_version: 9.0.1
bs: 128
h: 7168
k: 8
ep_world_size: 32
moe_expert_num: 256
env:
  HCCL_BUFFSIZE: 1024
"""


def lint(text: str) -> Linted:
    return Linted(lint_text(text, "in.yaml"))


def lint_raw(raw: bytes) -> Linted:
    return Linted(lint_bytes(raw, "in.yaml"))


def test_good_document_is_clean():
    out = lint(GOOD)
    assert out.diagnostics == [] and out.result.valid and out.result.ruleset == "9.0"


# ---- positions: values at the value, unknown/duplicate keys at the key, missing keys at the parent ----------
def test_rule_position_is_the_value():
    out = lint(GOOD.replace("moe_expert_num: 256", "moe_expert_num: 250"))
    d = out.one("MC201")
    assert (d.line, d.column, d.path) == (7, 17, "/moe_expert_num")  # `moe_expert_num: ` is 16 characters


def test_nested_value_position():
    out = lint(GOOD.replace("HCCL_BUFFSIZE: 1024", "HCCL_BUFFSIZE: 900"))
    d = out.one("MC501")
    assert (d.line, d.column, d.path) == (9, 18, "/env/HCCL_BUFFSIZE")


def test_duplicate_key_names_both_lines_at_the_second_key():
    out = lint(GOOD + "bs: 64\n")
    d = out.one("MC002")
    assert d.severity == "error" and (d.line, d.column, d.path) == (10, 1, "/bs")
    assert "line 3" in d.message and "line 10" in d.message
    assert not out.result.valid
    assert out.derived["max_bs"] == 64  # the rules see what PyYAML would load: the last value


def test_nested_duplicate_key():
    out = lint(GOOD + "  HCCL_BUFFSIZE: 2048\n")
    d = out.one("MC002")
    assert (d.line, d.column, d.path) == (10, 3, "/env/HCCL_BUFFSIZE")


def test_unknown_key_did_you_mean_at_the_key():
    out = lint(GOOD + "ep_wrold_size: 16\n")
    d = out.one("MC003")
    assert (d.line, d.column) == (10, 1) and "did you mean `ep_world_size`" in d.message
    assert d.severity == "error"


def test_unknown_nested_key_and_env_typo():
    out = lint(GOOD + "  HCCL_BUFSIZE: 5\nhccl_buffer_size:\n  epp: 3\n")
    env = out.one("MC013")
    assert env.severity == "warning" and (env.line, env.column) == (10, 3) and "HCCL_BUFFSIZE" in env.message
    d = out.one("MC003")
    assert (d.line, d.column, d.path) == (12, 3, "/hccl_buffer_size/epp") and "did you mean `ep`" in d.message


def test_unknown_key_without_close_match_has_no_hint():
    d = lint(GOOD + "zzz: 1\n").one("MC003")
    assert "did you mean" not in d.message


def test_missing_key_points_at_the_parent():
    out = lint(GOOD.replace("k: 8\n", ""))
    d = out.one("MC005")
    assert (d.line, d.column, d.path) == (1, 1, "") and "`k`" in d.message
    assert out.buffers == {}


def test_missing_key_in_second_document_points_at_its_start():
    out = lint(GOOD + "---\n" + GOOD.replace("bs: 128\n", ""))
    assert [r.document for r in out.results] == [0, 1]
    d = out.one("MC005")
    assert (d.line, d.column) == (11, 1)


# ---- strict integers ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("written,hint", [
    ("8.0", "write 8 without the decimal point"),
    ('"8"', "remove the quotes: 8"),
    ("'8'", "remove the quotes: 8"),
    ("yes", "YAML 1.1 reads yes/no"),
    ("on", "YAML 1.1 reads yes/no"),
    ("true", "YAML 1.1 reads yes/no"),
    ("", "got null"),
    ("[8]", "got a list"),
    ("{a: 1}", "got a mapping"),
    ("8k", "got string '8k'"),
])
def test_not_an_integer(written, hint):
    out = lint(GOOD.replace("k: 8", f"k: {written}"))
    d = out.one("MC004")
    assert d.path == "/k" and d.line == 5 and hint in d.message
    assert not out.result.valid and out.buffers == {}


@pytest.mark.parametrize("written", ["99999999999999999999", "-99999999999999999999", str(2**63)])
def test_integer_beyond_int64(written):
    d = lint(GOOD.replace("bs: 128", f"bs: {written}")).one("MC009")
    assert d.path == "/bs" and "64-bit" in d.message


def test_int64_edge_is_read():
    out = lint(GOOD.replace("bs: 128", f"bs: {2**63 - 1}"))
    assert "MC009" not in out.codes and "MC103" in out.codes  # read fine, then out of range


def test_booleans_are_strict_too():
    d = lint(GOOD + 'scales: "true"\n').one("MC004")
    assert "remove the quotes: true" in d.message


# ---- enums, product aliases --------------------------------------------------------------------------------
@pytest.mark.parametrize("written,product", [("A3", "A3"), ("a3", "A3"), ("atlas-a3", "A3"), ("910_93", "A3"),
                                             ("Ascend910_93", "A3"), ("910b", "A2"), ("ATLAS-A2", "A2"),
                                             ("'910_93'", "A3")])
def test_product_aliases(written, product):
    out = lint(GOOD.replace("product: A3", f"product: {written}"))
    assert out.result.product == product and "MC006" not in out.codes


def test_unknown_product_and_kind():
    d = lint(GOOD.replace("product: A3", "product: A4")).one("MC006")
    assert d.path == "/product" and "'A2', 'A3'" in d.message
    d = lint(GOOD + "kind: ascnd\n").one("MC006")
    assert d.path == "/kind" and "did you mean `ascend`" in d.message


# ---- files that are not YAML documents -----------------------------------------------------------------------
def test_broken_yaml_at_the_parser_position():
    out = lint("product: A3\nbs: [1, 2\nh: 7168\n")
    d = out.one("MC001")
    assert d.severity == "error" and d.line >= 2 and d.column >= 1
    assert out.result.kind is None and out.result.document == 0 and not out.result.valid


def test_bad_indentation_position():
    d = lint("product: A3\n  bs: 1\nh: 2\n").one("MC001")
    assert (d.line, d.column) == (2, 5)  # "mapping values are not allowed here", at the second colon


def test_tab_indentation():
    d = lint("bs: 1\n\th: 2\n").one("MC001")  # moecfg's keys: a broken foreign file is skipped instead
    assert d.line == 2 and "tab" in d.message


def test_empty_and_comment_only_files():
    for text in ("", "# nothing here\n", "\n\n", "---\n"):
        out = lint(text)
        d = out.one("MC007")
        assert d.severity == "warning" and (d.line, d.column) == (1, 1)


def test_trailing_separator_is_not_a_document():
    out = lint(GOOD + "---\n")
    assert len(out.results) == 1 and out.diagnostics == []


def test_multi_document_file():
    out = lint(GOOD + "---\n" + GOOD.replace("A3", "A2").replace("bs: 128", "bs: 8.0") + "---\n- 1\n")
    assert [r.document for r in out.results] == [0, 1, 2]
    assert out.results[0].valid
    bad = out.results[1].diagnostics[0]
    assert (bad.code, bad.line) == ("MC004", 13)  # positions count from the top of the file
    assert out.results[2].diagnostics[0].code == "MC010"


@pytest.mark.parametrize("text,what", [("- a\n- b\n", "a list"), ("just text\n", "a string"), ("42\n", "an integer"),
                                       ("--- ~\n", "null")])
def test_document_not_a_mapping(text, what):
    # alone, a list or scalar is foreign YAML (a kustomize patch, a metric list): skipped with the reason
    checked = check_text(text, "x.yaml")
    assert checked.results == [] and what in checked.skipped[0].reason
    # beside a moecfg document it is a mistake in a moecfg file
    d = lint(GOOD + "---\n" + text.removeprefix("--- ")).results[1].diagnostics[0]
    assert d.code == "MC010" and what in d.message


def test_list_of_moecfg_settings_is_still_reported():
    assert lint("- product: A3\n- bs: 128\n").one("MC010")


def test_binary_file():
    out = lint_raw(b"\x7fELF\x02\x01\x01\x00\x00\x00")
    d = out.one("MC008")
    assert "binary" in d.message and out.result.kind is None and not out.result.valid


def test_non_utf8_file_position_of_the_bad_byte():
    d = lint_raw(b"product: A3\nbs: \xff\n").one("MC008")
    assert (d.line, d.column) == (2, 5) and "0xff" in d.message


def test_utf8_bom_and_utf16_are_read():
    assert lint_raw(b"\xef\xbb\xbf" + GOOD.encode()).diagnostics == []
    assert lint_raw(GOOD.encode("utf-16")).diagnostics == []


def test_control_character():
    d = lint("product: A3\nbs: \x07\n").one("MC001")
    assert d.line == 2 and "control" in d.message


def test_recursive_alias():
    d = lint("a: &x [*x]\n").one("MC001")
    assert "recursive" in d.message


def test_alias_bomb_is_refused():
    rows = ['a: &a ["x","x","x","x","x","x","x","x","x"]']
    for prev, name in zip("abcdef", "bcdefg"):
        rows.append(f"{name}: &{name} [{','.join(['*' + prev] * 9)}]")
    d = lint("\n".join(rows) + "\n").one("MC001")
    assert "too large" in d.message


@pytest.mark.parametrize("text", ["[" * 100_000 + "]" * 100_000, "{a: " * 100_000 + "}" * 100_000,
                                  "[" * 300_000, "".join(" " * i + "a:\n" for i in range(2000)),
                                  "- " * 50_000 + "x\n"])
def test_deep_nesting_is_refused_without_crashing(text):
    # libyaml's composer recurses in C: without a depth limit this segfaults the interpreter. Newer libyaml
    # (PyYAML 6.0.4) refuses deep flow nesting itself, first: moecfg's message must name nesting either way.
    start = time.process_time()
    d = lint(text).one("MC001")
    assert time.process_time() - start < 10
    assert "nested too deeply" in d.message and d.line >= 1 and d.column >= 1


def test_moderate_nesting_is_fine():
    out = lint(GOOD + "env_extra: " + "[" * 100 + "]" * 100 + "\n")
    assert "MC001" not in out.codes and "MC003" in out.codes


def test_merge_keys_expand_and_own_keys_win():
    text = "base: &b {bs: 64}\n" + GOOD
    out = lint(text)
    assert "MC003" in out.codes  # `base` itself is unknown
    merged = GOOD.replace("bs: 128\n", "") + "<<: {bs: 64, h: 4096}\n"
    out = lint(merged)
    # bs comes from the merge; the document's own h (7168 -> Align512(14336) = 14336) beats the merged 4096
    assert out.derived["max_bs"] == 64 and out.buffers["ep"]["terms"]["tok_combine"] == 14336
    assert out.diagnostics == []


def test_non_scalar_key():
    assert "MC001" in lint(GOOD + "? [a]\n: b\n").codes


def test_numeric_key_is_unknown():
    d = lint(GOOD + "1: 2\n").one("MC003")
    assert d.path == "/1"


# ---- cann_version (contract §1.4) ----------------------------------------------------------------------------
@pytest.mark.parametrize("written,ruleset", [("8.5.0", "8.5"), ("8.5", "8.5"), ("9.0.1", "9.0"), ("9.0", "9.0"),
                                             ("9.1", "9.1"), ("9.1.0.pre", "9.1"), ("latest", "latest"),
                                             ("v9.0.0", "9.0"), ('"9.0"', "9.0"), ("9.1.0", "9.1.0"),
                                             ("9.1.0-beta.1", "9.1.0-beta.1"), ("9.1.0-beta.2", "9.1.0-beta.2"), ("v9.1.0-beta.2.pre", "9.1.0-beta.2"), ("9.1.0-beta.4", "9.1"),
                                             ("master-2026-07-24", "master-2026-07-24")])
def test_cann_version_maps_by_major_minor(written, ruleset):
    out = lint(GOOD.replace("cann_version: 9.0.1", f"cann_version: {written}"))
    assert out.result.ruleset == ruleset and not out.codes & {"MC011", "MC012", "MC006"}


def test_missing_cann_version_is_info_and_uses_latest():
    out = lint(GOOD.replace("cann_version: 9.0.1\n", ""))
    d = out.one("MC011")
    assert d.severity == "info" and out.result.ruleset == "latest" and (d.line, d.column) == (1, 1)
    assert "cann_version: 9.0.1" in d.message and out.result.valid


@pytest.mark.parametrize("written,ruleset,words", [
    ("10.0", "latest", "newer"), ("9.2", "latest", "newer"), ("9.10", "latest", "newer"),
    ("8.0.RC3", "8.5", "older"), ("7.0", "8.5", "older"),
])
def test_unknown_versions_warn(written, ruleset, words):
    out = lint(GOOD.replace("cann_version: 9.0.1", f"cann_version: {written}"))
    d = out.one("MC012")
    assert d.severity == "warning" and words in d.message and d.path == "/cann_version" and d.line == 2
    assert out.result.ruleset == ruleset and "MC011" not in out.codes


@pytest.mark.parametrize("written", ["banana", "9", "''"])
def test_unreadable_version_is_an_error(written):
    out = lint(GOOD.replace("cann_version: 9.0.1", f"cann_version: {written}"))
    assert "MC006" in out.codes and "MC011" not in out.codes and out.buffers == {}


def test_unreadable_version_type():
    out = lint(GOOD.replace("cann_version: 9.0.1", "cann_version: [9]"))
    assert out.one("MC004").path == "/cann_version" and "MC011" not in out.codes


def test_cann_option_overrides_file():
    out = run_lint(GOOD, cann="8.5")
    assert out.result.ruleset == "8.5"


def test_float_version_keeps_its_text():
    # 9.10 read as a float would be 9.1; the source text decides
    out = lint(GOOD.replace("cann_version: 9.0.1", "cann_version: 9.10"))
    assert out.result.ruleset == "latest" and "MC012" in out.codes
