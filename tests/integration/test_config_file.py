"""The config file: discovery (walk up from the checked file), pyproject [tool.moecfg], per-path ignores with
gitignore-style patterns, severity overrides, fail-on, --show-config, broken files (exit 2), and precedence
built-in < config < command line (cann_version / product in the config are defaults: a document's own value wins)."""
from __future__ import annotations

import json

import pytest

from moecfg.checking.settings import ConfigError, gitignore_regex, parse
from integration_helpers import run  # noqa: F401  (pytest fixture)

DOC = """product: A3
{version}bs: 128
h: 7168
k: 8
ep_world_size: 32
moe_expert_num: {moe}
env:
  HCCL_BUFFSIZE: 1024
"""
GOOD = DOC.format(version="cann_version: 9.0.1\n", moe=256)
BAD = DOC.format(version="cann_version: 9.0.1\n", moe=250)  # MC201 error
UNPINNED = DOC.format(version="", moe=256)  # MC011 info: the `latest` rule set


def tree(tmp_path, files: dict):
    for rel, text in files.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return tmp_path


def codes(res) -> list[str]:
    return [d["code"] for r in json.loads(res.stdout)["results"] for d in r["diagnostics"]]


def rulesets(res) -> list[str]:
    return [r["ruleset"] for r in json.loads(res.stdout)["results"]]


# ---- discovery ----------------------------------------------------------------------------------

def test_config_found_by_walking_up_from_the_file(run, tmp_path):
    tree(tmp_path, {".moecfg.yaml": "ignore: [MC201]\n", "deploy/a3/x.yaml": BAD})
    res = run("check", "--format", "json", "deploy/a3/x.yaml", cwd=tmp_path)
    assert res.exit_code == 0 and codes(res) == []


def test_nearest_config_wins_and_each_file_gets_its_own(run, tmp_path):
    tree(tmp_path, {".moecfg.yaml": "ignore: [MC201]\n", "a/x.yaml": BAD,
                    "b/.moecfg.yaml": "fail-on: error\n", "b/y.yaml": BAD})
    res = run("check", "--format", "json", "a/x.yaml", "b/y.yaml", cwd=tmp_path)
    assert codes(res) == ["MC201"] and json.loads(res.stdout)["results"][1]["file"] == "b/y.yaml"


def test_pyproject_tool_moecfg(run, tmp_path):
    tree(tmp_path, {"pyproject.toml": '[project]\nname = "x"\n\n[tool.moecfg]\nignore = ["MC201"]\nfail-on = "info"\n',
                    "x.yaml": BAD})
    res = run("check", "--format", "json", "x.yaml", cwd=tmp_path)
    assert codes(res) == [] and res.exit_code == 0


def test_pyproject_without_the_table_is_skipped(run, tmp_path):
    tree(tmp_path, {".moecfg.yaml": "ignore: [MC201]\n", "sub/pyproject.toml": '[project]\nname = "x"\n',
                    "sub/x.yaml": BAD})
    assert codes(run("check", "--format", "json", "sub/x.yaml", cwd=tmp_path)) == []


def test_moecfg_yaml_wins_over_pyproject_in_the_same_folder(run, tmp_path):
    tree(tmp_path, {".moecfg.yaml": "fail-on: error\n", "pyproject.toml": '[tool.moecfg]\nignore = ["MC201"]\n',
                    "x.yaml": BAD})
    assert codes(run("check", "--format", "json", "x.yaml", cwd=tmp_path)) == ["MC201"]


def test_explicit_config_option(run, tmp_path):
    tree(tmp_path, {".moecfg.yaml": "fail-on: error\n", "other.yaml": "ignore: [MC2]\n", "x.yaml": BAD})
    res = run("check", "--config", "other.yaml", "--format", "json", "x.yaml", cwd=tmp_path)
    assert codes(res) == []


# ---- what the config sets -----------------------------------------------------------------------

@pytest.mark.parametrize("ignore", ["MC201", "MC2", "moe-expert-divisibility"])
def test_ignore_by_code_prefix_or_name(run, tmp_path, ignore):
    tree(tmp_path, {".moecfg.yaml": f"ignore: [{ignore}]\n", "x.yaml": BAD})
    assert codes(run("check", "--format", "json", "x.yaml", cwd=tmp_path)) == []


def test_per_path_ignores_resolve_against_the_config_folder(run, tmp_path):
    tree(tmp_path, {"repo/.moecfg.yaml": "per-path-ignores:\n  legacy/: [MC201]\n  /top.yaml: [MC201]\n",
                    "repo/legacy/old.yaml": BAD, "repo/deploy/legacy/old.yaml": BAD, "repo/top.yaml": BAD,
                    "repo/deploy/top.yaml": BAD, "repo/new.yaml": BAD})
    res = run("check", "--format", "json", "repo", cwd=tmp_path)
    flagged = sorted(r["file"] for r in json.loads(res.stdout)["results"] if r["diagnostics"])
    assert flagged == ["repo/deploy/top.yaml", "repo/new.yaml"]  # `/top.yaml` is anchored, `legacy/` is not
    # the same run from inside a subfolder: patterns still resolve against repo/
    res = run("check", "--format", "json", "legacy/old.yaml", "new.yaml", cwd=tmp_path / "repo")
    assert [bool(r["diagnostics"]) for r in json.loads(res.stdout)["results"]] == [False, True]


@pytest.mark.parametrize("pattern,path,matches", [
    ("*.yaml", "a.yaml", True), ("*.yaml", "d/e/a.yaml", True), ("*.yaml", "a.yml", False),
    ("/a.yaml", "a.yaml", True), ("/a.yaml", "d/a.yaml", False),
    ("legacy", "legacy/x.yaml", True), ("legacy", "d/legacy/x.yaml", True), ("legacy", "legacy2/x.yaml", False),
    ("legacy/", "legacy/x.yaml", True), ("legacy/", "legacy", False),
    ("d/*.yaml", "d/a.yaml", True), ("d/*.yaml", "d/e/a.yaml", False), ("d/*.yaml", "x/d/a.yaml", False),
    ("d/**/a.yaml", "d/a.yaml", True), ("d/**/a.yaml", "d/e/f/a.yaml", True), ("**/a.yaml", "e/a.yaml", True),
    ("d/**", "d/e/a.yaml", True), ("a?.yaml", "ab.yaml", True), ("a?.yaml", "a/.yaml", False),
    ("[ab].yaml", "b.yaml", True), ("[!ab].yaml", "b.yaml", False), ("a+b.yaml", "a+b.yaml", True),
])
def test_gitignore_patterns(pattern, path, matches):
    assert bool(gitignore_regex(pattern).match(path)) is matches


def test_severity_override(run, tmp_path):
    tree(tmp_path, {".moecfg.yaml": "severity:\n  MC201: warning\n", "x.yaml": BAD})
    res = run("check", "--format", "json", "x.yaml", cwd=tmp_path)
    diag = json.loads(res.stdout)["results"][0]
    assert diag["diagnostics"][0]["severity"] == "warning" and diag["valid"] is True and res.exit_code == 0


def test_config_defaults_fill_documents_without_the_keys(run, tmp_path):
    tree(tmp_path, {".moecfg.yaml": "cann_version: 8.5.0\nproduct: A3\n",
                    "x.yaml": UNPINNED.replace("product: A3\n", "")})
    res = run("check", "--format", "json", "x.yaml", cwd=tmp_path)
    r = json.loads(res.stdout)["results"][0]
    assert (r["product"], r["ruleset"], r["diagnostics"]) == ("A3", "8.5", [])


# ---- precedence: built-in < config < command line -----------------------------------------------

def test_precedence_cann_version(run, tmp_path):
    tree(tmp_path, {".moecfg.yaml": "cann_version: 8.5\n", "pinned.yaml": GOOD, "unpinned.yaml": UNPINNED})
    # built-in: an unpinned document gets `latest` (and MC011)
    (tmp_path / "empty.yaml").write_text("{}\n")
    res = run("check", "--config", "empty.yaml", "--format", "json", "unpinned.yaml", cwd=tmp_path)
    assert rulesets(res) == ["latest"] and codes(res) == ["MC011"]
    # config beats the built-in default; a document's own cann_version beats the config's default
    res = run("check", "--format", "json", "unpinned.yaml", "pinned.yaml", cwd=tmp_path)
    assert rulesets(res) == ["8.5", "9.0"] and codes(res) == []
    # command line beats both
    res = run("check", "--cann", "9.1", "--format", "json", "unpinned.yaml", "pinned.yaml", cwd=tmp_path)
    assert rulesets(res) == ["9.1", "9.1"]


def test_precedence_fail_on(run, tmp_path):
    warn_only = GOOD.replace("HCCL_BUFFSIZE: 1024", "HCCL_BUFFSIZE: 1024\n  HCCL_BUFSIZE: 1")  # MC013 warning
    tree(tmp_path, {"x.yaml": warn_only, "empty.yaml": "{}\n", ".moecfg.yaml": "fail-on: warning\n"})
    assert run("check", "--config", "empty.yaml", "x.yaml", cwd=tmp_path).exit_code == 0  # built-in: error
    assert run("check", "x.yaml", cwd=tmp_path).exit_code == 1  # config: warning
    assert run("check", "--fail-on", "error", "x.yaml", cwd=tmp_path).exit_code == 0  # command line wins


def test_precedence_ignore_adds_up(run, tmp_path):
    tree(tmp_path, {".moecfg.yaml": "ignore: [MC013]\n",
                    "x.yaml": BAD.replace("HCCL_BUFFSIZE: 1024", "HCCL_BUFFSIZE: 1024\n  HCCL_BUFSIZE: 1")})
    assert codes(run("check", "--config", tmp_path / ".moecfg.yaml", "--format", "json", "x.yaml",
                     cwd=tmp_path)) == ["MC201"]
    assert codes(run("check", "--ignore", "MC201", "--format", "json", "x.yaml", cwd=tmp_path)) == []


# ---- --show-config and broken files ----------------------------------------------------------------

def test_show_config(run, tmp_path):
    tree(tmp_path, {".moecfg.yaml": "cann_version: 9.0.1\nfail-on: warning\nignore: [MC2]\n"
                                    "per-path-ignores:\n  legacy/: [MC503]\nseverity:\n  MC211: error\n",
                    "legacy/x.yaml": GOOD})
    res = run("check", "--show-config", "--fail-on", "info", "legacy/x.yaml", cwd=tmp_path)
    shown = json.loads(res.stdout)
    assert res.exit_code == 0
    assert shown["config_file"] == str(tmp_path / ".moecfg.yaml")
    assert (shown["cann_version"], shown["fail_on"], shown["ignore"]) == ("9.0.1", "info", ["MC2", "MC503"])
    assert shown["severity"] == {"MC211": "error"}
    assert shown["sources"]["fail_on"] == "command line" and shown["sources"]["inline_suppressions"] == "default"


def test_show_config_without_paths_uses_the_current_folder(run, tmp_path):
    tree(tmp_path, {"pyproject.toml": "[tool.moecfg]\nproduct = \"a3\"\n"})
    shown = json.loads(run("check", "--show-config", cwd=tmp_path).stdout)
    assert shown["product"] == "A3" and shown["config_file"] == str(tmp_path / "pyproject.toml")


@pytest.mark.parametrize("text,message", [
    ("ignore: [MC201\n", "is not valid YAML"),
    ("ignroe: [MC201]\n", "unknown setting `ignroe` (did you mean `ignore`?)"),
    ("fail-on: sometimes\n", "`fail-on` = 'sometimes' is not one of error, warning, info, never"),
    ("ignore: [no-such-rule]\n", "'no-such-rule' is not a rule code or name"),
    ("severity:\n  MC201: fatal\n", "`severity.MC201` = 'fatal' is not one of error, warning, info"),
    ("product: A5\n", "`product` = 'A5' is not A2 or A3"),
    ("cann_version: nine\n", "is not a CANN version"),
    ("- ignore\n", "must be a mapping of settings"),
    ("per-path-ignores: [legacy]\n", "`per-path-ignores` must map path patterns"),
])
def test_broken_config_is_a_clear_error_with_exit_2(run, tmp_path, text, message):
    """`--config` is the run's own settings: a broken one is exit 2. The same file found in the checked tree (a
    pull request may add it) is MC016 on it and the run goes on (issue 33)."""
    tree(tmp_path, {".moecfg.yaml": text, "x.yaml": GOOD})
    res = run("check", "x.yaml", "--config", ".moecfg.yaml", cwd=tmp_path)
    assert res.exit_code == 2
    assert message in res.stderr and str(tmp_path / ".moecfg.yaml") in res.stderr
    assert "Traceback" not in res.stderr + res.stdout
    found = run("check", "x.yaml", cwd=tmp_path)
    assert found.exit_code == 1 and ".moecfg.yaml:" in found.stdout and "MC016" in found.stdout
    assert message in found.stdout and "x.yaml" in found.stdout and "Traceback" not in found.stderr


def test_broken_pyproject_is_a_finding_on_it(run, tmp_path):
    tree(tmp_path, {"pyproject.toml": "[tool.moecfg]\nignore = [\n", "x.yaml": GOOD})
    res = run("check", "x.yaml", cwd=tmp_path)
    assert res.exit_code == 1 and "not valid TOML" in res.stdout and "pyproject.toml:" in res.stdout


def test_parse_rejects_a_non_list_ignore():
    with pytest.raises(ConfigError, match="`ignore` must be a list"):
        parse({"ignore": 5}, None)
