"""sources/shell/reader.py through readers.read_shell: words, env, wrappers, expansion, `bash -c`, syntax errors."""
from __future__ import annotations

import subprocess
import sys
import time

from reader_helpers import after, at, pos, word, words

from moecfg.sources.readers import looks_like_shell, read_shell


def only(text: str, program: str = "vllm"):
    """The single launch whose argv[0] is `program`."""
    lf = read_shell(text)
    found = [launch for launch in lf.launches if launch.argv and launch.argv[0].value == program]
    assert len(found) == 1, [words(x) for x in lf.launches]
    return found[0]


def test_line_continuations_and_quotes_keep_each_word_position():
    text = "vllm serve /models/dsr1 \\\n  --max-num-seqs 16 \\\n  --additional-config '{\"a\": 1}' \"--x=y z\"\n"
    launch = only(text)
    assert words(launch) == ["vllm", "serve", "/models/dsr1", "--max-num-seqs", "16", "--additional-config",
                             '{"a": 1}', "--x=y z"]
    assert pos(word(launch, "16").span) == (2, 18, 2, 20)
    assert at(text, word(launch, '{"a": 1}').span) == "'{\"a\": 1}'"  # quotes included, exact
    assert word(launch, '{"a": 1}').exact
    assert pos(word(launch, "--x=y z").span) == (3, 34, 3, 43)


def test_export_prefix_and_env_wrapper_give_the_environment():
    text = "export HCCL_BUFFSIZE=1024\nOMP=1\nA=1 env B=2 vllm serve m\n"
    launch = only(text)
    assert {k: e.value for k, e in launch.env.items()} == {"HCCL_BUFFSIZE": "1024", "A": "1", "B": "2"}
    assert pos(launch.env["HCCL_BUFFSIZE"].span) == (1, 8, 1, 26)  # HCCL_BUFFSIZE=1024
    assert pos(launch.env["B"].span) == (3, 9, 3, 12)
    assert "OMP" not in launch.env  # set but not exported: not in the command's environment


def test_prefix_assignments_see_each_other_but_not_the_command_words():
    launch = only("A=0\nA=1 B=$A vllm serve m --a $A\n")
    assert (launch.env["B"].value, after(launch, "--a").value) == ("1", "0")  # as bash: [1] and [0]


def test_set_a_exports_later_assignments():
    text = "A=1\nset -a\nB=2\nset +a\nC=3\nvllm serve m\n"
    assert sorted(only(text).env) == ["B"]
    assert sorted(only("set -o allexport\nD=4\nvllm serve m\n").env) == ["D"]


def test_wrappers_are_stripped_so_argv0_is_the_program():
    text = "time -p nohup exec env -i -u X D=5 /usr/bin/python3 -m vllm.entrypoints.openai.api_server --tp 2 &\n"
    launch = read_shell(text).launches[0]
    assert words(launch)[:3] == ["/usr/bin/python3", "-m", "vllm.entrypoints.openai.api_server"]
    assert pos(launch.argv[0].span) == (1, 36, 1, 52)
    assert {k: e.value for k, e in launch.env.items()} == {"D": "5"}  # env -i: nothing inherited


def test_variables_expand_from_the_script_in_order():
    text = "SEQS=8\nvllm serve m --max-num-seqs $SEQS\nSEQS=16\nvllm serve m --max-num-seqs \"${SEQS}\"\n"
    first, second = read_shell(text).launches
    assert after(first, "--max-num-seqs").value == "8"
    w = after(second, "--max-num-seqs")
    assert (w.value, w.exact, pos(w.span)) == ("16", False, (4, 29, 4, 38))  # points at "${SEQS}"


def test_unknown_variables_stay_unknown_never_guessed():
    text = "vllm serve m --max-num-seqs $SEQS --tp ${TP:-4} --dp $(nproc) --x=/m/$NAME\n"
    launch = only(text)
    assert after(launch, "--max-num-seqs").value is None
    assert after(launch, "--tp").value is None  # TP may come from the caller's environment
    assert after(launch, "--dp").value is None
    assert launch.argv[-1].value is None and at(text, launch.argv[-1].span) == "--x=/m/$NAME"


def test_default_operators_on_known_values():
    text = "X=\nY=set\nunset Z\nvllm serve ${X:-a} ${X-b} ${Y:-c} ${Y:+d} ${Z:-e} \"${X}\"\n"
    launch = only(text)
    assert words(launch)[2:] == ["a", "", "set", "d", "e", ""]
    assert not launch.argv[3].exact  # an expansion that happens to be empty is still not literal text


def test_partial_known_concatenation_is_resolved():
    text = "DIR=/models\nNAME=dsr1\nvllm serve $DIR/\"$NAME\"-w8a8 --port=80$((4*2))0\n"
    launch = only(text)
    assert words(launch)[2:] == ["/models/dsr1-w8a8", "--port=8080"]
    assert at(text, launch.argv[2].span) == '$DIR/"$NAME"-w8a8'


def test_unquoted_expansion_splits_into_words():
    text = 'ARGS="--tp 4 --dp 2"\nvllm serve m $ARGS "$ARGS"\n'
    launch = only(text)
    assert words(launch)[3:] == ["--tp", "4", "--dp", "2", "--tp 4 --dp 2"]
    assert all(at(text, w.span) == "$ARGS" for w in launch.argv[3:7])


def test_arithmetic_over_known_values():
    text = "N=2\nG=8\nvllm serve m --dp $((N * G / 4)) --x $((N % 0)) --y $((U + 1))\n"
    launch = only(text)
    assert [after(launch, f).value for f in ("--dp", "--x", "--y")] == ["4", None, None]


def test_values_set_in_a_branch_become_unknown_after_it():
    text = "A=1\nif [ -n \"$X\" ]; then\n  A=2\n  vllm serve in-branch --a $A\nfi\nvllm serve after --a $A\n"
    inside, outside = read_shell(text).launches  # `[ -n ... ]` is a test command, not a simple command
    assert after(inside, "--a").value == "2"
    assert after(outside, "--a").value is None


def test_for_loop_variable_is_unknown_and_functions_are_read():
    text = "start() {\n  local P=9\n  vllm serve fn --p $P\n}\nfor i in 1 2; do vllm serve loop --i $i; done\n"
    launches = {w[2]: w for w in (words(x) for x in read_shell(text).launches)}
    assert launches["fn"][-1] == "9"
    assert launches["loop"][-1] is None


def test_bash_c_inner_script_with_environment_carried_over():
    text = ("export TP=4\nSEQ=16\n"
            "bash -lc 'vllm serve m --tp $TP --max-num-seqs $SEQ'\n"
            "sh -c \"vllm serve m --max-num-seqs $SEQ --tp \\$TP\"\n")
    single, double = read_shell(text).launches
    assert after(single, "--tp").value == "4"  # exported: the inner shell sees it
    assert after(single, "--max-num-seqs").value is None  # not exported: unset in the inner shell
    assert pos(after(single, "--tp").span) == (3, 29, 3, 32)  # "$TP" inside the single-quoted script
    assert after(double, "--max-num-seqs").value == "16"  # expanded by the outer shell
    assert at(text, after(double, "--tp").span) == "\\$TP"
    assert pos(word(double, "vllm").span) == (4, 8, 4, 12)


def test_bash_c_with_an_unknown_part_still_reads_the_rest():
    text = 'sh -c "vllm serve m --host $(hostname -i) --tp 8"\n'
    launch = read_shell(text).launches[0]
    assert words(launch) == ["vllm", "serve", "m", "--host", None, "--tp", "8"]
    assert at(text, after(launch, "--host").span) == "$(hostname -i)"


def test_unterminated_single_quote_reported_and_the_rest_is_read():
    text = "echo ok\nvllm serve m --additional-config '{\"a\": 1}\nexport Z=1\nvllm serve next --z $Z\n"
    lf = read_shell(text)
    assert [(p.code, pos(p.span)) for p in lf.problems] == [("MC020", (2, 34, 2, 35))]
    assert "unterminated single quote" in lf.problems[0].message
    assert [words(x)[:3] for x in lf.launches] == [["echo", "ok"], ["vllm", "serve", "next"]]
    assert after(lf.launches[1], "--z").value == "1"


def test_unterminated_double_quote_and_other_syntax_errors():
    lf = read_shell('A="x\nvllm serve m\n')
    assert [(p.code, pos(p.span)) for p in lf.problems] == [("MC020", (1, 3, 1, 4))]
    assert "unterminated double quote" in lf.problems[0].message
    assert words(lf.launches[0]) == ["vllm", "serve", "m"]
    lf = read_shell("if true; then\n  vllm serve m\n")
    assert "missing `fi`" in lf.problems[0].message and pos(lf.problems[0].span)[:2] == (1, 1)


def test_non_ascii_and_crlf_columns_are_code_points():
    text = "# 中文注释\r\nexport A=中\r\nvllm serve 模型 --x \"$A\" \\\r\n  --y 1\r\n"
    launch = only(text)
    assert words(launch) == ["vllm", "serve", "模型", "--x", "中", "--y", "1"]
    assert pos(word(launch, "模型").span) == (3, 12, 3, 14)
    assert pos(word(launch, "--y").span) == (4, 3, 4, 6)


def test_every_simple_command_is_a_launch_and_empty_scripts_are_skipped():
    assert [words(x) for x in read_shell("cd /x && ls | grep y\n").launches] == [["cd", "/x"], ["ls"], ["grep", "y"]]
    assert read_shell("# only a comment\n").skipped


def test_looks_like_shell():
    assert looks_like_shell("run.sh", "")
    assert looks_like_shell("run.bash", "")
    assert looks_like_shell("start", "#!/usr/bin/env bash\nvllm serve m\n")
    assert looks_like_shell("start", "#!/bin/sh\n")
    assert looks_like_shell("start", "#! /usr/bin/env -S zsh\n")
    assert not looks_like_shell("start.py", "#!/usr/bin/env python3\n")
    assert not looks_like_shell("deploy.yaml", "kind: Pod\n")


def test_a_long_script_stays_linear():
    """10^4 lines: time grows linearly (no quadratic loop), checked by comparing 2 500 and 10 000 lines."""
    def script(n):
        return "\n".join(f"export V{i}={i}\nvllm serve m --tp $V{i} \\\n  --x \"a $V{i}\" '{i}'" for i in range(n // 4))

    def timed(n):  # CPU time: a loaded machine stretches the wall clock of one run and not the other
        t = time.process_time()
        lf = read_shell(script(n))
        assert len(lf.launches) == n // 4
        return time.process_time() - t
    small, large = timed(2_500), timed(10_000)
    assert large < 8 * small + 0.5, (small, large)


def test_yaml_only_reading_does_not_import_tree_sitter():
    code = ("import sys\nfrom moecfg.sources.readers import read_yaml_document\n"
            "from moecfg.sources.manifests.yaml_source import parse_stream\n"
            "t = 'kind: ascend\\nbs: 8\\n---\\napiVersion: v1\\nkind: Service\\nmetadata: {name: s}\\n'\n"
            "assert [read_yaml_document(d, t) for d in parse_stream(t)] == [None, None]\n"
            "assert 'tree_sitter' not in sys.modules\n")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_blank_before_a_braced_expansion_in_double_quotes_is_kept():
    # tree-sitter-bash puts the blank before `${` into the expansion node; the shell keeps it as text
    launch = only('X=1\nY=2\nvllm serve "a ${X} ${Y}" --z "${X}  ${Y}"\n')
    assert words(launch)[2:] == ["a 1 2", "--z", "1  2"]
