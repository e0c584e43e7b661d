"""Crashes and stalls from the config file and the command line: each is a usage/config error (exit 2) or a
diagnostic, never exit 3, and bounded in time."""
from __future__ import annotations

import os
import re
import time

import pytest
from hypothesis import given
from hypothesis import settings as examples
from hypothesis import strategies as st

from hostile import BAD, GOOD, cli  # noqa: F401  (fixture)
from moecfg.checking import settings  # noqa: F401  (config discovery is cached per run: nothing to reset)


def _tree(tmp_path, config: str, name: str = ".moecfg.yaml"):
    (tmp_path / name).write_text(config)
    (tmp_path / "a.yaml").write_text(BAD)
    return str(tmp_path / "a.yaml")


BOMB = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n"
    for p, c in zip("abcdef", "bcdefg")) + "ignore: *g\n"


@pytest.mark.parametrize("config,message", [
    ("fail-on: !!int x\n", "cannot read 'x' as !!int"),
    ("cann_version: 0x_\n", "cannot read '0x_' as !!int"),
    ("cann_version: 9." + "1" * 5000 + "\n", None),
    ("per-path-ignores:\n  '[z-a].yaml': [MC201]\n", "not a valid gitignore pattern"),
    # pathspec >= 1.1 refuses an unclosed `[!]`, older releases read it literally: either way no crash
    ("per-path-ignores:\n  '[!]x': [MC201]\n", None),
    ("ignore: " + "[" * 5000 + "]" * 5000 + "\n", "nested too deeply"),
    (BOMB, None),
    ("a: 1\n---\nb: 2\n", "2 YAML documents"),
])
def test_hostile_config_is_a_config_error(tmp_path, cli, config, message, monkeypatch):
    from moecfg.sources.manifests import yaml_source

    monkeypatch.setattr(yaml_source, "_MAX_NODES", 20_000)  # the same budget mechanism, a tenth of the time
    start = time.process_time()
    code, out, err = cli("check", _tree(tmp_path, config))
    assert time.process_time() - start < 5
    assert code in (1, 2) and "internal error" not in err and len(err) < 2000, err
    if message:  # a settings file found in the tree is a finding on it (MC016, issue 33), not the end of the run
        assert code == 1 and "MC016" in out and message in out, out


def test_pyproject_nested_5000_levels_is_a_config_error(tmp_path, cli):
    code, out, err = cli("check", _tree(tmp_path, "[tool.moecfg]\nignore = " + "[" * 5000 + "]" * 5000 + "\n",
                                        "pyproject.toml"))
    assert code == 1 and "MC016" in out and "nested too deeply" in out


def test_pyproject_of_blank_lines_is_scanned_in_linear_time(tmp_path, cli):
    (tmp_path / "pyproject.toml").write_text("\n" * 200_000 + "[tool.black]\n")
    (tmp_path / "a.yaml").write_text(GOOD)
    start = time.process_time()
    assert cli("check", str(tmp_path / "a.yaml"))[0] == 0
    assert time.process_time() - start < 2


def test_backtracking_glob_patterns_match_in_linear_time(tmp_path, cli):
    config = "per-path-ignores:\n  '*a*a*a*a*a*a*a*az': [MC201]\n  '" + "**/" * 14 + "x.yaml': [MC201]\n"
    d = tmp_path / ("a" * 60)
    d.mkdir()
    (d / ("a" * 60 + ".yaml")).write_text(BAD)
    (tmp_path / ".moecfg.yaml").write_text(config)
    start = time.process_time()
    code, _, _ = cli("check", str(d))
    assert code == 1 and time.process_time() - start < 2


@pytest.mark.parametrize("pattern,path,matches", [
    ("*a*a*az", "xaaaz", True), ("*a*a*az", "xaaz", False), ("*a*a*az", "d/aXaYaz", True),
    ("a*b*c", "abc", True), ("a*b*c", "aXbYc", True), ("a*b*c", "ab/c", False), ("*x?y*z", "1x2y3z", True),
])
def test_committed_chunks_keep_glob_semantics(pattern, path, matches):
    assert bool(settings.gitignore_regex(pattern).match(path)) is matches


@pytest.mark.parametrize("argv", [
    ("buffer", "--set", "bs=0x_", "--set", "product=A3"),
    ("buffer", "--set", "bs=" + "1" * 5000, "--set", "product=A3"),
    ("check", "--cann", "9." + "1" * 5000, "{file}"),
    ("buffer", "{file}", "--cann", "1" * 5000),
])
def test_hostile_flag_values_are_diagnostics(tmp_path, cli, argv):
    (tmp_path / "a.yaml").write_text(GOOD)
    code, out, err = cli(*(a.format(file=tmp_path / "a.yaml") for a in argv))
    assert code in (0, 1) and "internal error" not in err and len(out) < 20_000


@pytest.mark.parametrize("argv,message", [
    (("check", "--cann", "", "{file}"), "--cann"),
    (("check", "--output", "", "{file}"), "--output needs a file name"),
    (("plan", "--product", "A3", "--model", "deepseek-v3", "--ep", "32", "--bs", "128", "--set", "model.x=1"),
     "`model` is already a value"),
    (("plan", "--product", "A3", "--bs", "128", "--ep", "32", "--set", "a=1", "--set", "a.b=2"), "`a` is already"),
    (("plan", "--product", "A3", "--model", "deepseek-v3", "--bs", "128", "--ep", "1:100000000000"), "at most 1024"),
    (("plan", "--product", "A3", "--model", "deepseek-v3", "--bs", "128", "--ep", "1:100000"), "at most 1024"),
    (("sweep", "--product", "A3", "--model", "deepseek-v3", "--ep", "32", "--bs", "1:10000000"), "at most 1024"),
    (("sweep", "--product", "A3", "--model", "deepseek-v3", "--ep", "32", "--bs", "1:100000000000"), "at most 1024"),
    (("sweep", "--kind", "deepep", "--mode", "normal", "--model", "deepseek-v3", "--num-ranks", "8:1024:8",
      "--num-sms", "1:1024"), "at most 16384 per sweep"),
    (("plan", "--kind", "deepep", "--mode", "low_latency", "--model", "deepseek-v3", "--num-ranks", "16",
      "--num-rdma-bytes", "²"), "write a number of bytes"),
])
def test_usage_errors(tmp_path, cli, argv, message):
    (tmp_path / "a.yaml").write_text(GOOD)
    start = time.process_time()
    code, _, err = cli(*(a.format(file=tmp_path / "a.yaml") for a in argv))
    assert code == 2 and message in err and time.process_time() - start < 2, err


def test_buffer_with_overrides_on_a_deeply_nested_file(tmp_path, cli):
    (tmp_path / "n.yaml").write_text(GOOD + "x: " + "[" * 450 + "]" * 450 + "\n")
    code, _, err = cli("buffer", str(tmp_path / "n.yaml"), "--set", "bs=64")
    assert code in (1, 2) and "internal error" not in err


@pytest.mark.parametrize("make", ["zero", "fifo", "outside"])
def test_config_file_that_is_no_regular_file_inside_the_tree(tmp_path, cli, make):
    d = tmp_path / "repo"
    d.mkdir()
    (d / "a.yaml").write_text(GOOD)
    cfg = d / ".moecfg.yaml"
    if make == "fifo":
        os.mkfifo(cfg)
    else:
        outside = tmp_path / "outside.yaml"
        outside.write_text("fail-on: never\n")
        cfg.symlink_to("/dev/zero" if make == "zero" else outside)
    code, out, err = cli("check", str(d / "a.yaml"))
    # devices and FIFOs are no config files: not opened; a link leaving the tree is not read: MC016 on it
    assert code == (1 if make == "outside" else 0), err
    assert ("MC016" in out) is (make == "outside") and "fail-on: never" not in out


@pytest.mark.parametrize("content", ["[" * 100_000 + "]" * 100_000, '{"hidden_size": ' + "1" * 5000 + "}", None])
def test_hostile_model_config_json_is_a_usage_error(tmp_path, cli, content):
    cfg = tmp_path / "config.json"
    if content is None:
        cfg.symlink_to("/dev/zero")
    else:
        cfg.write_text(content)
    code, _, err = cli("plan", "--product", "A3", "--model-config", str(cfg), "--ep", "32", "--bs", "128")
    assert code == 2 and "internal error" not in err and len(err) < 1000, err


def test_model_config_behind_a_cache_link_is_read(tmp_path, cli):
    blob = tmp_path / "blobs" / "abc"
    blob.parent.mkdir()
    blob.write_text('{"hidden_size": 7168, "n_routed_experts": 256, "num_experts_per_tok": 8}')
    snap = tmp_path / "snapshots" / "rev"
    snap.mkdir(parents=True)
    (snap / "config.json").symlink_to("../../blobs/abc")
    code, out, err = cli("plan", "--product", "A3", "--model-config", str(snap), "--ep", "32", "--bs", "128")
    assert code == 0, err


# derandomized: pathspec (the reference) itself differs from git on some bracket and star forms, and differs between
# its releases (0.12 in the lowest lock, 1.1 in the lock); random examples made CI fail by chance on such a form
@examples(max_examples=300, deadline=None, derandomize=True)
@given(pattern=st.text("ab*?/[]!", min_size=1, max_size=8), paths=st.lists(st.text("ab/", min_size=1, max_size=10),
                                                                         min_size=1, max_size=10))
def test_linear_matcher_matches_exactly_what_pathspec_matches(pattern, paths):
    import pathspec

    if not pattern.strip() or pattern.strip()[0] in "!#" or not pattern.strip().replace("*", "").replace("/", ""):
        return  # only stars and slashes (`*/`): pathspec compiles a bare `/`; git ignores every folder's files
    if "***" in pattern:
        return  # pathspec 1.1 reads `***/a` as not matching `a`; git's wildmatch does (next test): ours follows git
    if re.search(r"\[[^\]]*/", pattern):
        return  # a `/` inside brackets: pathspec 0.12 reads `[/a]` literally, 1.1 as matching nothing; git matches `a`
    try:
        theirs = pathspec.GitIgnoreSpec.from_lines([pattern.strip()]).patterns[0].regex
        ours = settings.gitignore_regex(pattern)
    except Exception:  # invalid patterns are config errors (tested above)
        return
    if theirs is None:  # pathspec: a pattern that matches nothing (`[/]`); git matches `[/a]` against `a`
        assert "[" in pattern or not any(ours.match(path) for path in paths)
        return
    for path in paths:  # a relative path (os.path.relpath): no empty segment, no leading or trailing `/`
        if path.startswith("/") or path.endswith("/") or "//" in path:
            continue
        assert bool(theirs.match(path)) == bool(ours.match(path)), (pattern, path)


@pytest.mark.parametrize("pattern, path, ignored", [("***/a", "a", True), ("***/a", "b/a", True),
                                                     ("***/?", "a", True), ("***/a", "a/b", True),
                                                     ("[/a]", "a", True)])
def test_three_stars_before_a_slash_are_gits_double_star(pattern, path, ignored):
    """git 2.39 `git check-ignore` (wildmatch.c: a run of stars at a segment's start followed by `/` is `**/`):
    `***/a` ignores `a`, `b/a` and everything under `a/`; pathspec 1.1 disagrees for `a`. `[/a]` ignores `a` in git;
    pathspec 0.12 (the lowest lock) reads it literally. The property test above leaves both forms out."""
    assert bool(settings.gitignore_regex(pattern).match(path)) == ignored
