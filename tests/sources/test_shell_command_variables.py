"""Commands bash runs through a variable (`$CMD`, `${CMD}`, `eval`, `bash -c "$CMD"`, `"${CMD[@]}"`) and `$`
before a character that starts no expansion (`$PREFILL_NODE0$:5757`): moecfg reads the words bash runs. Each case
is compared with real bash (the words `printf '<%s>'` receives), so the test states bash's behaviour, not ours."""
from __future__ import annotations

import shutil
import subprocess
import tempfile

import pytest
from reader_helpers import at, words

from moecfg.sources.readers import read_shell

BASH = shutil.which("bash")


def bash_words(script: str, program: str) -> list[str]:
    """The argv real bash gives `program` (defined as a function printing its arguments)."""
    body = f"{program}() {{ printf '<%s>\\n' \"$@\"; }}\nexport -f {program}\n" + script
    with tempfile.TemporaryDirectory() as where:  # a case may redirect to a file (`| tee l`): not in the checkout
        out = subprocess.run([BASH, "--norc", "--noprofile", "-c", body], capture_output=True, text=True, timeout=10,
                             env={"PATH": "/usr/bin:/bin"}, check=True, cwd=where).stdout
    return [line[1:-1] for line in out.splitlines()]


def launches(script: str, program: str) -> list[list]:
    return [words(x)[1:] for x in read_shell(script).launches if x.argv and x.argv[0].value == program]


CASES = {
    "unquoted": 'CMD="torchrun --nnodes 4 pretrain_gpt.py --expert-model-parallel-size 8"\n$CMD --seq-length 4096\n',
    "braced": 'CMD="torchrun --nnodes 4 pretrain_gpt.py --expert-model-parallel-size 8"\n${CMD}\n',
    "appended": 'CMD="torchrun --nnodes 4"\nCMD+=" pretrain_gpt.py --expert-model-parallel-size 8"\n${CMD} 2>&1 | tee l\n',
    "eval quoted": 'CMD="torchrun --nnodes 4 pretrain_gpt.py --x \'a b\'"\neval "$CMD"\n',
    "eval words": 'A="torchrun --nnodes"\neval $A 4 pretrain_gpt.py\n',
    "bash -c": 'CMD="torchrun --nnodes 4 pretrain_gpt.py"\nbash -c "$CMD --ep 8"\n',
    "array": 'CMD=(torchrun --nnodes 4 pretrain_gpt.py "--x y")\n"${CMD[@]}"\n',
    "literal dollar colon": 'P=10.0.0.1\ntorchrun --master-addr $P$:5757 --a$%b x$ "$:q" pretrain_gpt.py --ep 8\n',
    "literal dollar others": "torchrun --a $/x --b $.y --c $,z --d $=w --e '$:kept' pretrain_gpt.py\n",
    "escaped dollar": 'torchrun --a \\$:x pretrain_gpt.py\n',
}


@pytest.mark.skipif(BASH is None, reason="bash not installed")
@pytest.mark.parametrize("name", sorted(CASES))
def test_words_are_the_words_bash_runs(name):
    script = CASES[name]
    assert launches(script, "torchrun") == [bash_words(script, "torchrun")]


def test_a_command_known_in_parts_keeps_its_known_words_and_an_unknown_one_where_bash_has_a_value():
    # Megatron-style: CMD holds an unset variable; bash splits CMD at its blanks, so the known flags are words
    text = ('DIST="--nproc_per_node $GPUS --nnodes 2"\nCMD="torchrun ${DIST} pretrain_gpt.py '
            '--expert-model-parallel-size 8"\n${CMD}\n')
    [launch] = [x for x in read_shell(text).launches if x.argv[0].value == "torchrun"]
    assert words(launch) == ["torchrun", "--nproc_per_node", None, "--nnodes", "2", "pretrain_gpt.py",
                             "--expert-model-parallel-size", "8"]
    assert launch.argv[2].pattern is not None and "GPUS" not in (launch.argv[2].value or "")
    assert at(text, launch.argv[6].span) == "--expert-model-parallel-size"  # where it was written (line 2)
    assert launch.argv[6].span.line == 2


def test_a_literal_dollar_keeps_the_rest_of_the_launch_and_its_columns():
    # THUDM/slime-style PD launch: `--dist-init-addr $PREFILL_NODE0$:5757` used to blank the whole command
    text = "python3 -m sglang.launch_server --dist-init-addr $NODE0$:5757 --tp 16 --moe-a2a-backend deepep\n"
    [launch] = read_shell(text).launches
    assert words(launch)[-4:] == ["--tp", "16", "--moe-a2a-backend", "deepep"]
    assert at(text, launch.argv[-1].span) == "deepep"
    assert at(text, launch.argv[4].span).endswith("$:5757")


def test_single_quoted_and_commented_dollars_are_untouched():
    text = "# cost $: none\ntorchrun --a '$:x' pretrain_gpt.py\n"
    [launch] = read_shell(text).launches
    assert words(launch)[1:3] == ["--a", "$:x"]
    assert at(text, launch.argv[2].span) == "'$:x'"


def test_kimi_k2_prefill_guide_keeps_its_deepep_flags_after_the_literal_dollar():
    from reader_helpers import FIXTURES, after

    text = (FIXTURES / "kimi-k2-pd-prefill-literal-dollar.sh").read_text(encoding="utf-8")
    lf = read_shell(text)
    [launch] = [x for x in lf.launches if words(x)[:3] == ["python", "-m", "sglang.launch_server"]]
    assert after(launch, "--deepep-mode").value == "normal"
    assert after(launch, "--tp-size").value == "32" and after(launch, "--nnodes").value == "4"
    assert at(text, after(launch, "--chunked-prefill-size").span) == "131072"
