"""sources/shell/sourced.py: `SCRIPT_DIR="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" &>/dev/null && pwd)"` is the
script's own folder (THUDM/slime@624b824 scripts/run-deepseek-r1.sh:27), so `source "${SCRIPT_DIR}/models/x.sh"` is
read; tools/gen_verl_defaults.py reads verl's flattened config with each key's line."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from moecfg.sources.readers import read_shell
from moecfg.sources.shell.sourced import Includes, names_script_folder


@pytest.mark.parametrize("text", ['$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" &>/dev/null && pwd)',
                                  '$(cd "$(dirname "$0")" && pwd)', '$(dirname "$0")', '$(cd $(dirname $0); pwd)',
                                  '$(dirname $(readlink -f "$0"))',
                                  '$(cd "$(dirname "${BASH_SOURCE[0]}")" >/dev/null 2>&1 && pwd)'])
def test_the_script_folder_idioms(text):
    assert names_script_folder(text)


@pytest.mark.parametrize("text", ["$(pwd)", '$(dirname "$1")', '$(cd "$(dirname "$0")/x" && pwd)', "$(cat x)",
                                  '$(dirname "$0"; rm -rf /)'])
def test_other_substitutions_stay_unknown(text):
    assert not names_script_folder(text)


def test_a_folder_above_the_script():
    from moecfg.sources.shell.sourced import script_folder

    assert script_folder('$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." &>/dev/null && pwd)') == "./../.."
    assert script_folder('$(cd "$(dirname "$0")" && pwd)') == "."


def test_seq_substitution_is_a_list_of_numbers():
    lf = read_shell('A=(--x $(seq 16 8 40))\nvllm serve m ${A[@]} "$(seq 3)" $(seq 0 0 5) $(seq 1 5000)\n')
    words = [w.value for w in lf.launches[-1].argv]
    assert words[3:9] == ["--x", "16", "24", "32", "40", "1\n2\n3"]
    assert words[9:] == [None, None]  # a zero step, or more than 1024 numbers: unknown


def _script(tmp_path: Path, first: str) -> tuple[Path, str]:
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "m.sh").write_text("MODEL_ARGS=(--hidden-size 7168)\n")
    text = f'{first}\nsource "${{SCRIPT_DIR}}/models/m.sh"\npython3 x.py ${{MODEL_ARGS[@]}}\n'
    path = tmp_path / "run.sh"
    path.write_text(text)
    return path, text


def test_source_through_script_dir_is_read(tmp_path):
    path, text = _script(tmp_path, 'SCRIPT_DIR="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" &>/dev/null && pwd)"')
    lf = read_shell(text, Includes.for_script(str(path)))
    assert [w.value for w in lf.launches[-1].argv][-2:] == ["--hidden-size", "7168"]


def test_without_a_script_file_the_folder_is_unknown(tmp_path):
    path, text = _script(tmp_path, 'SCRIPT_DIR="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" &>/dev/null && pwd)"')
    lf = read_shell(text)  # stdin / a Markdown block: no folder to resolve against
    assert "7168" not in [w.value for w in lf.launches[-1].argv]


def test_verl_defaults_generator_keys_and_lines():
    tool = Path(__file__).resolve().parents[2] / "tools" / "gen_verl_defaults.py"
    spec = importlib.util.spec_from_file_location("gen_verl_defaults", tool)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    text = "a:\n  b:\n    c: 1\n    d: ${oc.select:a.b.c,2}\n  e: null\nf: x\n"
    assert mod.keyed_lines(text) == {"a.b.c": (1, 3), "a.b.d": ("${oc.select:a.b.c,2}", 4), "a.e": (None, 5),
                                     "f": ("x", 6)}
