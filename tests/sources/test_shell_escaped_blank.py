"""A backslash then a blank at the end of a line (`-g gb300 \\ `, NVIDIA-NeMo/Megatron-Bridge@067f987
scripts/performance/README.md:78) is no line continuation: bash's last word is the blank and the newline ends the
command. Compared with real bash (run in a temporary folder)."""
from __future__ import annotations

import shutil
import subprocess
import tempfile

import pytest
from reader_helpers import at, words

from moecfg.sources.readers import read_shell

BASH = shutil.which("bash")


def bash_calls(script: str) -> list[list[str]]:
    body = "torchrun() { printf '<%s>\\n' \"$@\"; echo END; }\n" + script + "\ntrue\n"
    with tempfile.TemporaryDirectory() as where:
        out = subprocess.run([BASH, "--norc", "--noprofile", "-c", body], capture_output=True, text=True, timeout=10,
                             env={"PATH": "/usr/bin:/bin"}, check=True, cwd=where).stdout
    calls, cur = [], []
    for line in out.splitlines():
        if line == "END":
            calls, cur = calls + [cur], []
        else:
            cur.append(line[1:-1])
    return calls


CASES = {
    "blank": "torchrun --nproc 8 -g gb300 \\ \n  -c fp8_mx \\\n  -hf x\n",
    "tab and blanks after": "torchrun -g gb300 \\\t  \n  -c fp8_mx\n",
    "a continuation stays one": "torchrun -g gb300 \\\n  -c fp8_mx\n",
    "an escaped blank inside": "torchrun a\\ b -c\n",
}


@pytest.mark.skipif(BASH is None, reason="bash not installed")
@pytest.mark.parametrize("name", sorted(CASES))
def test_the_words_are_bashs(name):
    script = CASES[name]
    ours = [words(x)[1:] for x in read_shell(script).launches if x.argv and x.argv[0].value == "torchrun"]
    assert ours == bash_calls(script)


def test_the_blank_word_is_placed_after_its_backslash():
    text = "torchrun -g gb300 \\ \n-c x\n"
    launch = read_shell(text).launches[0]
    assert words(launch)[-1] == " " and at(text, launch.argv[-1].span) == "\\ "
