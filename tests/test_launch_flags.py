"""frameworks/flags.py: argparse semantics with positions (the words come from any launch reader)."""
import pytest

from moecfg.frameworks.flags import FlagSpec, JsonFlagError, json_value, parse_flags
from moecfg.sources.launch import Word
from moecfg.sources.textmap import Span

SPECS = (FlagSpec("--max-num-seqs"), FlagSpec("--tensor-parallel-size", aliases=("-tp",)),
         FlagSpec("--enable-expert-parallel", takes_value=False, negatable=True),
         FlagSpec("--cuda-graph-bs", nargs="+"), FlagSpec("--additional-config"))


def words(*texts):
    """One word per text on line 1, columns as if separated by single spaces."""
    out, col = [], 1
    for t in texts:
        out.append(Word(t, Span(1, col, 1, col + len(t or "x"))))
        col += len(t or "x") + 1
    return out


def test_space_and_equals_forms_and_last_wins():
    f = parse_flags(words("model", "--max-num-seqs", "16", "-tp=4", "--max-num-seqs=32"), SPECS)
    assert f.value("--max-num-seqs") == "32"  # argparse: the last occurrence wins
    assert f.value("--tensor-parallel-size") == "4"
    assert [w.value for w in f.positionals] == ["model"]


def test_underscores_are_dashes_for_vllm():
    f = parse_flags(words("--max_num_seqs", "8"), SPECS)
    assert f.value("--max-num-seqs") == "8"
    assert parse_flags(words("--max_num_seqs", "8"), SPECS, underscores=False).unknown


def test_boolean_and_negated():
    assert parse_flags(words("--enable-expert-parallel"), SPECS).boolean("--enable-expert-parallel")
    assert not parse_flags(words("--no-enable-expert-parallel"), SPECS).boolean("--enable-expert-parallel")


def test_span_covers_flag_through_value():
    f = parse_flags(words("--max-num-seqs", "16"), SPECS)
    assert f.get("--max-num-seqs").span == Span(1, 1, 1, 18)  # "--max-num-seqs" at 1..15, "16" at 16..18


def test_nargs_list_stops_at_next_flag():
    f = parse_flags(words("--cuda-graph-bs", "1", "2", "4", "--max-num-seqs", "4"), SPECS)
    assert f.get("--cuda-graph-bs").values == ("1", "2", "4")
    assert f.value("--max-num-seqs") == "4"


def test_negative_number_is_a_value():
    assert parse_flags(words("--max-num-seqs", "-1"), SPECS).value("--max-num-seqs") == "-1"


def test_unknown_flag_kept_for_a_warning():
    f = parse_flags(words("--max-num-seq", "16"), SPECS)
    assert [w.value for w in f.unknown] == ["--max-num-seq"]


def test_unknown_value_stays_unknown():
    f = parse_flags([Word("--max-num-seqs", Span(1, 1, 1, 15)), Word(None, Span(1, 16, 1, 22), exact=False)], SPECS)
    assert f.get("--max-num-seqs") is not None and f.value("--max-num-seqs") is None


@pytest.mark.parametrize("text, message", [("{bad}", "not valid JSON"), ("[1]", "must be a JSON object")])
def test_json_flag_errors(text, message):
    f = parse_flags(words("--additional-config", text), SPECS, verbatim=("--additional-config",))
    with pytest.raises(JsonFlagError, match=message):
        json_value(f.get("--additional-config"))


def test_json_flag_ok():
    f = parse_flags(words("--additional-config", '{"enable_mc2_hierarchy_comm": true}'), SPECS)
    assert json_value(f.get("--additional-config")) == {"enable_mc2_hierarchy_comm": True}


@pytest.mark.parametrize("value", ["{tp}", "{{ .Values.tp }}", "${TP}", "$TP", "<tp-size>", "tp{n}"])
def test_placeholder_is_an_unknown_value_not_a_default(value):
    """An unexpanded template placeholder is not a value: unknown (MC023 downstream), never the default."""
    for argv in (words("--max-num-seqs", value), words(f"--max-num-seqs={value}")):
        f = parse_flags(argv, SPECS)
        assert f.get("--max-num-seqs") is not None and f.value("--max-num-seqs") is None


@pytest.mark.parametrize("value", ["16", "{\"a\": 1}", "x-y", "$"])
def test_ordinary_values_are_not_placeholders(value):
    assert parse_flags(words("--max-num-seqs", value), SPECS).value("--max-num-seqs") == value


def test_json_flag_keeps_its_text_verbatim():
    f = parse_flags(words("--additional-config", "{tp}"), SPECS, verbatim=("--additional-config",))
    assert f.value("--additional-config") == "{tp}"


def test_unique_prefix_is_read_as_argparse_does():
    f = parse_flags(words("--max-num-seq", "16"), SPECS, abbrev=True)
    assert f.value("--max-num-seqs") == "16" and [full for _, full in f.abbreviated] == ["--max-num-seqs"]
    assert not f.unknown
