"""`read -r -d '' CMD <<'EOF' ... EOF` keeps a launch in a variable, then `$CMD` / `bash -c "$CMD"` runs it
(NVIDIA-NeMo/Megatron-Bridge@067f987 examples/models/stepfun/step37/slurm_pretrain.sh:129). Each case is compared
with real bash (the words `printf '<%s>'` receives, run in a temporary folder), so the test states bash's
behaviour, not ours."""
from __future__ import annotations

import shutil
import subprocess
import tempfile

import pytest
from reader_helpers import at, words

from moecfg.sources.readers import read_shell

BASH = shutil.which("bash")


def bash_words(script: str, program: str) -> list[list[str]]:
    """The argv of each call real bash makes to `program` (a function printing its arguments, then a marker)."""
    body = f"{program}() {{ printf '<%s>\\n' \"$@\"; echo END; }}\nexport -f {program}\n" + script
    with tempfile.TemporaryDirectory() as where:
        out = subprocess.run([BASH, "--norc", "--noprofile", "-c", body], capture_output=True, text=True, timeout=10,
                             env={"PATH": "/usr/bin:/bin"}, check=True, cwd=where).stdout
    calls, cur = [], []
    for line in out.splitlines():
        if line == "END":
            calls.append(cur)
            cur = []
        else:
            cur.append(line[1:-1])
    return calls


def launches(script: str, program: str) -> list[list]:
    return [words(x)[1:] for x in read_shell(script).launches if x.argv and x.argv[0].value == program]


BODY = "torchrun --nnodes 4 \\\n    pretrain_gpt.py --expert-model-parallel-size 8 ${OVR}\n"
CASES = {
    "quoted delimiter, bash -c": "read -r -d '' CMD <<'EOF' || true\n" + BODY + 'EOF\nOVR="--a 1"\n'
                                 'bash -c "export OVR=\\"${OVR}\\"; ${CMD}"\n',
    "unquoted delimiter expands": 'OVR="--b 2"\nread -r -d \'\' CMD <<EOF || true\n' + BODY + 'EOF\nbash -c "$CMD"\n',
    "no -r joins continued lines": "read -d '' CMD <<'EOF'\n" + BODY + "EOF\n$CMD --seq 1\n",
    "no -r escapes": "read -d '' CMD <<'EOF'\ntorchrun --a \\x\\\\y  pretrain_gpt.py\nEOF\n$CMD\n",
    "-r keeps the backslash word": "read -r -d '' CMD <<'EOF'\n" + BODY + "EOF\n$CMD\n",
    "joined flags -rd": "read -rd '' CMD <<'EOF'\n  torchrun  --c 3\n\nEOF\nbash -c \"$CMD\"\n",
    "IFS= keeps the blanks": "IFS= read -r -d '' CMD <<'EOF'\n  torchrun --c 3  \nEOF\n$CMD\n",
    "eval": "read -r -d '' CMD <<'EOF'\ntorchrun --d 'x y' pretrain_gpt.py\nEOF\neval \"$CMD\"\n",
}


@pytest.mark.skipif(BASH is None, reason="bash not installed")
@pytest.mark.parametrize("name", sorted(CASES))
def test_the_variable_holds_what_bash_reads_and_runs(name):
    script = CASES[name]
    got = bash_words(script, "torchrun")
    assert got and launches(script, "torchrun") == got


@pytest.mark.parametrize("line", ["read -r -d '' CMD OTHER <<'EOF'", "read -r CMD <<'EOF'",
                                  "read -r -a CMD -d '' <<'EOF'", "IFS=: read -r -d '' CMD <<'EOF'",
                                  "read -r -d '' -n 3 CMD <<'EOF'"])
def test_what_is_not_modelled_leaves_the_variable_unknown(line):
    # several names split at IFS, no -d reads one line, -a an array, a custom IFS, -n a count: not modelled
    script = f"CMD='torchrun --old 1'\n{line}\ntorchrun --x 1\nEOF\n$CMD\n"
    runs = [x for x in read_shell(script).launches if x.argv and x.argv[0].value != "read"]
    assert [words(x) for x in runs] == [[None]]


def test_an_unknown_piece_keeps_the_known_words_and_their_place():
    text = "read -r -d '' CMD <<EOF || true\ntorchrun --nproc $GPUS --ep 8 pretrain_gpt.py\nEOF\nbash -c \"$CMD\"\n"
    [launch] = launches_named(text, "torchrun")
    assert words(launch) == ["torchrun", "--nproc", None, "--ep", "8", "pretrain_gpt.py"]
    assert launch.argv[4].span.line == 2 and at(text, launch.argv[4].span) == "8"


def test_a_read_without_a_heredoc_stays_unknown():
    text = "CMD='torchrun --a 1'\nread -r -d '' CMD < cmd.txt\n$CMD\n"
    assert [words(x) for x in read_shell(text).launches if x.argv[0].value != "read"] == [[None]]


def launches_named(text: str, program: str) -> list:
    return [x for x in read_shell(text).launches if x.argv and x.argv[0].value == program]


def test_a_multi_line_script_in_a_variable_places_its_words_where_they_were_written():
    # NVIDIA-NeMo/Megatron-Bridge@067f987 examples/models/nemotron/nemotron_3/ultra/slurm_pretrain.sh:111-174,196
    text = "CMD='\nset -e\ntorchrun --nproc 8 pretrain_gpt.py \\\n    --ep 8\n'\nbash -c \"$CMD\"\n"
    [launch] = launches_named(text, "torchrun")
    assert words(launch)[1:] == bash_words(text, "torchrun")[0] if BASH else True
    assert [w.span.line for w in launch.argv] == [3, 3, 3, 3, 4, 4]
    assert at(text, launch.argv[-1].span) == "8"


def test_a_one_line_value_stays_at_its_reference():
    text = "EP='--ep 8'\ntorchrun pretrain_gpt.py $EP\n"
    [launch] = launches_named(text, "torchrun")
    assert [w.span.line for w in launch.argv] == [2, 2, 2, 2]


def test_the_heredoc_held_script_is_placed_in_the_body():
    text = "read -r -d '' CMD <<'EOF'\ntorchrun --ep 8 pretrain_gpt.py\nEOF\nbash -c \"$CMD\"\n"
    [launch] = launches_named(text, "torchrun")
    assert {w.span.line for w in launch.argv} == {2}
    assert at(text, launch.argv[2].span) == "8"
