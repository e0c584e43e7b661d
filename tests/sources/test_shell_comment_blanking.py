"""sources/shell/comments.py: comment-only lines are blanked before the tree-sitter parse (memory: ~240 bytes per
comment node), only where bash reads them as comments; a `#` that is text (heredoc body, multi-line quote, after a
`\\` continuation, inside `$( )`) stays, words keep their positions, suppression directives in comments still work."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from reader_helpers import pos, word, words

from moecfg.sources.readers import read_shell
from moecfg.sources.shell.comments import blank_comments


def _blanked(text: str) -> str:
    out = blank_comments(text)
    assert len(out) == len(text) and [i for i, c in enumerate(out) if c == "\n"] == \
        [i for i, c in enumerate(text) if c == "\n"]  # every offset and line keeps its place
    return out


def test_comment_only_lines_at_the_top_level_are_blanked_and_commands_kept():
    text = "#!/bin/bash\n  # indented\n\t# tab\nvllm serve m  # trailing stays\n\n# last line, no newline"
    assert _blanked(text) == ("           \n" "            \n" "      \n" "vllm serve m  # trailing stays\n\n"
                              + " " * len("# last line, no newline"))


@pytest.mark.parametrize("text", [
    "cat <<EOF\n# body\nEOF\n",
    "cat <<-'E O' > x\n\t# body\n\tE O\n",
    "cat <<\"EOF\"; echo x\n# body\nEOF\n",
    "cat <<A <<B\n# a\nA\n# b\nB\n",
    "x=$(cat <<EOF\n# body\nEOF\n)\n",
    "cat <<EOF\n# never closed\n",
], ids=["plain", "dash-quoted", "double-quoted", "two", "in-substitution", "unterminated"])
def test_a_hash_in_a_heredoc_body_is_kept(text):
    out = _blanked(text + "# after\n")
    assert out.startswith(text) and (out.endswith(" " * 7 + "\n") or "never closed" in text)


@pytest.mark.parametrize("text", [
    "x='a\n# in single quotes\n'\n",
    'x="a\n# in double quotes\n"\n',
    'x="$(echo "a")\n# in double quotes after a nested one\n"\n',
    "x=$'it\\'s\n# in an ANSI-C string\n'\n",
    "echo a \\\n# after a continuation: bash joins it to the line above\n",
    "x=$(\n# inside a command substitution\n)\n",
    "x=`\n# inside backquotes\n`\n",
    "echo \"${a:-'}\n# in ${ } in double quotes: the single quote is text\n\"\n",
], ids=["single", "double", "nested", "ansi-c", "continuation", "substitution", "backquotes", "param"])
def test_a_hash_inside_quotes_continuations_and_substitutions_is_kept(text):
    assert _blanked(text + "# after\n") == text + " " * 7 + "\n"


def test_text_hashes_are_not_comments_and_do_not_open_quotes():
    text = "echo ${#a} a#b $# 'x' # don't\n# after\na=$((1 << 2)); ((b <<= 1))\n# after arithmetic\n"
    assert _blanked(text) == text.replace("# after\n", " " * 7 + "\n").replace("# after arithmetic", " " * 18)


def test_a_hash_in_a_multi_line_quoted_argument_reaches_the_launch():
    text = "python -c \"import x\n# kept\nprint(1)\" \\\n  --y 1\nbash -c 'vllm serve m \\\n# not a comment\n --x 1'\n"
    launches = read_shell(text).launches
    assert words(launches[0]) == ["python", "-c", "import x\n# kept\nprint(1)", "--y", "1"]
    # a `\\` then a newline inside single quotes is text: bash -c reads `# not a comment` in the inner script
    assert any(words(x)[:3] == ["vllm", "serve", "m"] for x in launches)


def test_a_heredoc_script_keeps_its_comments_as_its_own():
    text = "bash <<EOF\n# comment of the inner script\nvllm serve m --tp 2\nEOF\n# outer\n"
    launch = next(x for x in read_shell(text).launches if words(x)[:1] == ["vllm"])
    assert words(launch) == ["vllm", "serve", "m", "--tp", "2"] and pos(word(launch, "--tp").span) == (3, 14, 3, 18)


def test_a_hash_line_in_a_heredoc_kept_in_a_variable_is_words_of_the_launch():
    # bash 5 prints <serve><m><--x><1><#><--y><2> for `vllm` as a function printing its arguments: the body is
    # data, and `#` after an expansion is an ordinary word
    text = "read -r -d '' CMD <<EOF\nvllm serve m --x 1\n# --y 2\nEOF\n$CMD\n"
    launch = next(x for x in read_shell(text).launches if words(x)[:1] == ["vllm"])
    assert words(launch) == ["vllm", "serve", "m", "--x", "1", "#", "--y", "2"]


def test_positions_after_blanked_comments_are_unchanged():
    # non-ASCII comments change the UTF-8 byte offsets tree-sitter reports: blanks must not move any column
    head = "#!/bin/bash\n# 中文注释 — ünïcödé\n  # moecfg: disable=MC501 -- r\n"
    text = head + "export A=模型\n# x\nvllm serve \"$A\" --tp 2 \\\n  --y 1  # tail\n"
    launch = next(x for x in read_shell(text).launches if words(x)[:1] == ["vllm"])
    assert words(launch) == ["vllm", "serve", "模型", "--tp", "2", "--y", "1"]
    assert pos(word(launch, "--tp").span) == (6, 17, 6, 21)
    assert pos(word(launch, "--y").span) == (7, 3, 7, 6)
    assert pos(launch.argv[0].span) == (6, 1, 6, 5)


BAD = "#!/bin/bash\n{c}export HCCL_BUFFSIZE=10\nvllm serve deepseek-ai/DeepSeek-V3 --enable-expert-parallel " \
      "--tensor-parallel-size 16\n"


def _codes(tmp_path, text: str) -> list[str]:
    f = tmp_path / "run.sh"
    f.write_text(text)
    got = subprocess.run([sys.executable, "-m", "moecfg", "check", "--product", "A3", "--format", "json", str(f)],
                         capture_output=True, timeout=120, env={**os.environ, "NO_COLOR": "1", "GITHUB_ACTIONS": ""})
    return sorted(d["code"] for r in json.loads(got.stdout)["results"] for d in r["diagnostics"])


def test_suppression_directives_in_blanked_comment_lines_still_apply(tmp_path):
    assert "MC501" in _codes(tmp_path, BAD.format(c=""))
    for directive in ("# moecfg: disable=MC501 -- sized by the operator", "  # moecfg: disable-file=MC501 -- r"):
        codes = _codes(tmp_path, BAD.format(c=directive + "\n"))
        assert "MC501" not in codes and "MC014" not in codes  # applied, and not reported unused


def test_a_placeholder_in_a_comment_is_not_a_value_to_fill_in():
    # SkyRL's `# export WANDB_API_KEY=<your_key_here>`, ms-swift's `# ... tokens like '<think>' ...`: comments,
    # which the shell never reads; only the launch's own placeholder is noted (MC023)
    text = "# export WANDB_API_KEY=<your_key_here>\n# tokens like '<think>'\nvllm serve m --host <host_ip>\n"
    notes = [p.message for p in read_shell(text).problems if "placeholder" in p.message]
    assert len(notes) == 1 and "`<host_ip>`" in notes[0] and "your_key_here" not in notes[0]


@pytest.mark.parametrize("unit", ["$'\\'", " <<A", "$(${`\"", "'\n#'\n", "a#b ", "cat <<A\n# x\nA\n", "  # x\n"])
def test_the_scan_is_linear_on_hostile_text(unit):
    import time

    text = "cat" + unit * (2_000_000 // len(unit)) + "\n#\n"
    start = time.process_time()
    assert len(blank_comments(text)) == len(text)
    assert time.process_time() - start < 3  # 0.9 s at most on these 2 MB (1.9 s on 4 MB: linear)
