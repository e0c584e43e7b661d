"""tools/gen_engine_flags.py: each release's add_argument calls become rows (kind, default, the releases that have
them), and rtp-llm's variables (env_name=, else the option upper-cased) are kept."""
from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path

TOOL = Path(__file__).resolve().parents[2] / "tools" / "gen_engine_flags.py"


def _tool():
    spec = importlib.util.spec_from_file_location("gen_engine_flags", TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


V1 = ("import argparse\np = argparse.ArgumentParser()\np.add_argument('--tp', type=int, default=1)\n"
      "p.add_argument('--enable_x', action='store_true')\np.add_argument('--ids', nargs='+', default=('a',))\n")
V2 = V1.replace("default=1", "default=2") + "p.add_argument('--new', env_name='NEW_VAR', type=str)\n"


def test_rows_per_release_and_variables():
    gen = _tool()
    table = gen.table([("1.0", {"a.py": V1}, "s1"), ("2.0", {"a.py": V2}, "s2")], env=True)
    rows = [(r[0], r[2], r[3]) for r in table["rows"]]
    assert (["--tp"], 1, "0") in rows and (["--tp"], 2, "1") in rows  # a changed default: one row per release
    assert (["--enable_x"], False, "0-1") in rows and (["--ids"], ["a"], "0-1") in rows
    assert (["--new"], None, "1") in rows
    assert [r[1] for r in table["rows"] if r[0] == ["--enable_x"]] == ["flag"]
    assert table["env"] == {"--tp": "TP", "--enable_x": "ENABLE_X", "--ids": "IDS", "--new": "NEW_VAR"}


def test_reads_a_tag_of_a_git_repository(tmp_path):
    gen = _tool()
    repo = tmp_path / "repo"
    (repo / "lightllm" / "server").mkdir(parents=True)
    (repo / "lightllm" / "server" / "api_cli.py").write_text(V1)
    git = ["git", "-C", str(repo), "-c", "user.email=t@t", "-c", "user.name=t"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run(git + ["add", "-A"], check=True)
    subprocess.run(git + ["commit", "-qm", "v1"], check=True)
    subprocess.run(git + ["tag", "v1.0.0"], check=True)
    texts, commit = gen.from_git(str(repo), "v1.0.0", gen.ENGINES["lightllm"][2])
    assert list(texts) == ["lightllm/server/api_cli.py"] and len(commit) == 40
