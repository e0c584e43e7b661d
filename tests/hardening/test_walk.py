"""Security 2: a checked folder is walked without following links; only regular files inside it are read,
and an entry that cannot be read is a diagnostic (MC008) while the rest is checked. Also a tree deeper than
Python's recursion limit (was exit 3)."""
from __future__ import annotations

import json
import os
import sys

import pytest

from hostile import BAD, GOOD, cli  # noqa: F401  (fixture)
from moecfg.sources.files import Entry, Unreadable, read


def _tree(tmp_path):
    d = tmp_path / "deploy"
    d.mkdir()
    (d / "ok.yaml").write_text(GOOD)
    return d


def _check_json(cli, *paths):
    code, out, err = cli("check", "--format", "json", *map(str, paths))
    return code, {r["file"]: [x["code"] for x in r["diagnostics"]] for r in json.loads(out)["results"]}, out


@pytest.mark.parametrize("target", ["/dev/zero", "/dev/stdin", "OUTSIDE"])
def test_hostile_links_are_reported_and_the_rest_is_checked(tmp_path, cli, target):
    d = _tree(tmp_path)
    secret = tmp_path / "secret.yaml"
    secret.write_text("product: A3\nbs: 1\napi_token: hunter2\n")
    link = d / "x.yaml"
    link.symlink_to({"OUTSIDE": str(secret), "LOOP": str(link)}.get(target, target))
    code, files, out = _check_json(cli, d)
    assert code == 1
    assert files == {str(d / "ok.yaml"): [], str(link): ["MC008"]}
    assert "hunter2" not in out and "api_token" not in out


@pytest.mark.parametrize("target", ["missing.yaml", "LOOP"])
def test_dangling_links_met_walking_are_skipped_with_the_reason(tmp_path, cli, target):
    """Issue 30: a link whose target does not exist (docs linking pages generated at build time) is no deployment
    file: skipped with the reason, not an MC008 error."""
    d = _tree(tmp_path)
    link = d / "x.yaml"
    link.symlink_to(str(link) if target == "LOOP" else target)
    code, files, out = _check_json(cli, d)
    assert code == 0 and files == {str(d / "ok.yaml"): []}
    (skipped,) = json.loads(out)["skipped"]
    assert skipped["file"] == str(link) and "dangling" in skipped["reason"]


def test_link_inside_the_folder_is_read(tmp_path, cli):
    d = _tree(tmp_path)
    (d / "current.yaml").symlink_to(d / "ok.yaml")
    code, files, _ = _check_json(cli, d)
    assert code == 0 and files == {str(d / "current.yaml"): [], str(d / "ok.yaml"): []}


def test_linked_folder_is_not_entered(tmp_path, cli):
    d = _tree(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "bad.yaml").write_text(BAD)
    (d / "sub").symlink_to(outside)
    code, files, _ = _check_json(cli, d)
    assert code == 0 and list(files) == [str(d / "ok.yaml")]


def test_fifo_named_yaml_is_not_opened_blocking(tmp_path, cli):
    d = _tree(tmp_path)
    os.mkfifo(d / "pipe.yaml")
    code, files, _ = _check_json(cli, d)
    assert code == 1 and files[str(d / "pipe.yaml")] == ["MC008"]


@pytest.mark.parametrize("target", ["/dev/zero", "missing.yaml"])
def test_named_file_that_cannot_be_read_is_a_usage_error(tmp_path, cli, target):
    link = tmp_path / "z.yaml"  # contract §4: a path that cannot be read is exit 2
    link.symlink_to(target)
    code, _, err = cli("check", str(link))
    assert code == 2 and str(link) in err


def test_missing_explicit_path_is_still_a_usage_error(tmp_path, cli):
    code, _, err = cli("check", str(tmp_path / "nope.yaml"))
    assert code == 2 and "no such file" in err


def test_oversized_file_is_refused_without_reading_it(tmp_path, monkeypatch):
    import moecfg.sources.files as files

    monkeypatch.setattr(files, "MAX_BYTES", 10)
    p = tmp_path / "big.yaml"
    p.write_text(GOOD)
    with pytest.raises(Unreadable, match="larger than"):
        read(Entry(str(p)))


def test_unreadable_folder_is_reported(tmp_path, cli, monkeypatch):
    d = _tree(tmp_path)
    (d / "locked").mkdir()
    real = os.scandir

    def scandir(path):
        if str(path).endswith("locked"):
            raise PermissionError(13, "Permission denied")
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)
    code, files, _ = _check_json(cli, d)
    assert code == 1 and files[str(d / "locked")] == ["MC008"] and files[str(d / "ok.yaml")] == []


def _deep_tree(top, depth: int) -> list[int]:
    """`top`/d/d/.../d (depth levels) with a.yaml at the bottom; made relative to open folders (os.makedirs
    recurses, and each full-path mkdir walks the whole path). Returns the open folder fds, top first."""
    fds = [os.open(top, os.O_RDONLY)]
    for _ in range(depth):
        os.mkdir("d", dir_fd=fds[-1])
        fds.append(os.open("d", os.O_RDONLY, dir_fd=fds[-1]))
    fd = os.open("a.yaml", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fds[-1])
    os.write(fd, GOOD.encode())
    os.close(fd)
    return fds


def _remove_deep_tree(fds: list[int]) -> None:  # pytest's own cleanup (shutil.rmtree) recurses
    os.unlink("a.yaml", dir_fd=fds[-1])
    for parent, child in zip(reversed(fds[:-1]), reversed(fds[1:])):
        os.close(child)
        os.rmdir("d", dir_fd=parent)
    os.close(fds[0])


def _stack_depth() -> int:
    frame, n = sys._getframe(), 0
    while frame:
        frame, n = frame.f_back, n + 1
    return n


def test_tree_deeper_than_the_recursion_limit(tmp_path, cli):
    """A tree deeper than the recursion limit (was exit 3 at 1100 levels): 300 levels under a limit of 200
    frames above this test (making 1100 folders takes seconds on overlay file systems)."""
    top = tmp_path / "t"
    top.mkdir()
    fds = _deep_tree(top, 300)
    (tmp_path / "cfg.yaml").write_text("fail-on: error\n")
    old = sys.getrecursionlimit()
    try:  # --config: no search for a config file up the folders
        sys.setrecursionlimit(_stack_depth() + 200)
        code, files, _ = _check_json(cli, top, "--config", tmp_path / "cfg.yaml")
        sys.setrecursionlimit(old)
        assert code == 0 and list(files) == [str(top) + "/d" * 300 + "/a.yaml"]
    finally:
        sys.setrecursionlimit(old)
        _remove_deep_tree(fds)
