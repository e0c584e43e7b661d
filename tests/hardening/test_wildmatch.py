"""core/wildmatch.py: git's gitignore rules (gitignore(5)), matched in time linear in the path (issue 33)."""
from __future__ import annotations

import time

import pytest

from moecfg.core.wildmatch import Glob, IgnoreFile, PatternError


@pytest.mark.parametrize("pattern, path, is_dir, matches", [
    ("*.sh", "run.sh", False, True), ("*.sh", "deploy/run.sh", False, True), ("*.sh", "run.shx", False, False),
    ("/top.yaml", "top.yaml", False, True), ("/top.yaml", "a/top.yaml", False, False),
    ("a/b", "a/b", False, True), ("a/b", "x/a/b", False, False),  # a slash in the middle anchors
    ("build/", "build", True, True), ("build/", "build", False, False),  # folders only
    ("**/x.yaml", "x.yaml", False, True), ("**/x.yaml", "a/b/x.yaml", False, True),
    ("a/**/b", "a/b", False, True), ("a/**/b", "a/x/y/b", False, True), ("a/**/b", "a/xb", False, False),
    ("a/**", "a/x/y", False, True), ("a/**", "a", True, False),
    ("a**b", "aXb", False, True), ("a**b", "a/b", False, False),  # `**` not between slashes is `*`
    ("?.yaml", "a.yaml", False, True), ("?.yaml", "ab.yaml", False, False), ("a?b", "a/b", False, False),
    ("[a-c].yaml", "b.yaml", False, True), ("[!a-c].yaml", "b.yaml", False, False), ("[^a].yaml", "z.yaml", False, True),
    ("[[:digit:]]x", "7x", False, True), ("[]]x", "]x", False, True),
    ("\\#x", "#x", False, True), ("\\!x", "!x", False, True), ("a\\*", "a*", False, True), ("a\\*", "ab", False, False),
    ("x ", "x", False, True), ("x\\ ", "x ", False, True),  # trailing blanks dropped unless escaped
])
def test_git_semantics(pattern, path, is_dir, matches):
    assert Glob(pattern).match(path, is_dir) is matches


@pytest.mark.parametrize("pattern", ["[z-a]", "[abc", "/", "[[:nope:]]"])
def test_patterns_git_never_matches_are_refused(pattern):
    with pytest.raises(PatternError):
        Glob(pattern)


def test_last_pattern_decides_and_an_ignored_folder_keeps_its_files():
    f = IgnoreFile(["# comment", "*.tmp", "!keep.tmp", "out/", "!out/x.yaml", "", "logs/*", "!logs/a.log"])
    assert f.decide("a.tmp", False) is True and f.decide("keep.tmp", False) is False
    assert f.decide("out/x.yaml", False) is True  # git: no file is re-included inside an excluded folder
    assert f.decide("logs/a.log", False) is False and f.decide("logs/b.log", False) is True
    assert f.decide("src/a.yaml", False) is None


def test_the_backtracking_patterns_of_the_issue_are_linear():
    start = time.process_time()
    assert not Glob("*a*a*a*a*a*a*a*a*az").match("a" * 60)
    assert not Glob("**/" * 60 + "x.yaml").match("/".join(["d"] * 200) + "/y.yaml")
    assert Glob("*a" * 40 + "*").match("a" * 4000)
    assert time.process_time() - start < 1


def test_a_big_ignore_file_is_looked_up_not_scanned():
    names = [f"generated_{i}.yaml" for i in range(150_000)] + ["*.tmp", "cache-*/"]
    f = IgnoreFile(names)
    assert len(f.others) == 1  # only `cache-*/` is run; names and `*.ext` are dict lookups
    start = time.process_time()
    for i in range(3000):
        f.decide(f"deploy/sub/file_{i}.yaml", False)
    assert f.decide("a/generated_77.yaml", False) is True and f.decide("x.tmp", False) is True
    assert f.decide("cache-1/y.yaml", False) is True and time.process_time() - start < 1
