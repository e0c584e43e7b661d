"""Compose `env_file:` and Kubernetes `envFrom:` (sources/manifests/envfile.py, envfiles.py, env_from.py): values
read at their own lines with compose's / Kubernetes' precedence; a file or source not read makes the names it could
set unknown (MC023), never the framework's default; a fix lands on the env file's line."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from moecfg.cli.group import cli
from moecfg.sources import contained
from moecfg.sources.launch import OpenEnv
from moecfg.sources.manifests import envfile
from moecfg.sources.manifests.documents import read_yaml_document
from moecfg.sources.manifests.yaml_source import parse_stream
from moecfg.sources.textmap import Elsewhere

# The vllm-ascend decode launch of tests/fix/fixtures/decode-k8s.yaml (MC501 at HCCL_BUFFSIZE=100, needs 120).
SERVE = ["bash", "-c", "exec vllm serve /models/DeepSeek-R1-W8A8 --quantization ascend --data-parallel-size 4 "
         "--tensor-parallel-size 4 --enable-expert-parallel --max-num-seqs 16 --max-num-batched-tokens 64 "
         "--speculative-config '{\"num_speculative_tokens\": 3, \"method\": \"deepseek_mtp\"}'"]


def compose(env_file, environment=None) -> str:
    svc = {"image": "quay.io/ascend/vllm-ascend:v0.13.0-a3", "env_file": env_file, "command": SERVE}
    if environment is not None:
        svc["environment"] = environment
    return json.dumps({"services": {"decode": svc}}, indent=2)  # JSON is YAML: one key a line


def read(folder: Path, name: str = "compose.yaml"):
    path = folder / name
    text = path.read_text()
    with contained.checking(str(folder)):
        [lf] = [read_yaml_document(d, text, str(path)) for d in parse_stream(text)]
    return lf


def line_of(text: str, needle: str) -> int:
    return next(i for i, ln in enumerate(text.splitlines(), 1) if needle in ln)


def check(*args: str) -> dict:
    got = CliRunner().invoke(cli, ["check", "--product", "A3", "--format", "json", *args])
    return json.loads(got.stdout)


def diags(report: dict, code: str | None = None) -> list[dict]:
    return [d for r in report["results"] for d in r["diagnostics"] if code is None or d["code"] == code]


# --- the env file syntax ---------------------------------------------------------------------------------------

def test_env_file_syntax_values_and_spans():
    text = ("# a comment\n\n  export A=1\nB=2 # inline\nC=3#not-a-comment\nD='$X lit'\nE=\"q\\\"x\"\n"
            "F=\"${HOST}\"\nG=$HOST/x\nH\nI=  spaced  \r\nJ=\n")
    got = {e.name: e for e in envfile.parse(text)}
    assert {n: e.value for n, e in got.items()} == {
        "A": "1", "B": "2", "C": "3#not-a-comment", "D": "$X lit", "E": 'q"x', "F": None, "G": None, "H": None,
        "I": "spaced", "J": ""}
    lines = text.split("\n")
    for name, e in got.items():  # each span covers the value's text on its own line (inside the quotes)
        assert lines[e.span.line - 1][e.span.column - 1:e.span.end_column - 1] == {
            "A": "1", "B": "2", "C": "3#not-a-comment", "D": "$X lit", "E": 'q\\"x', "F": "${HOST}",
            "G": "$HOST/x", "H": "H", "I": "spaced", "J": ""}[name]
    assert got["A"].span.line == 3 and got["F"].why.startswith("interpolated") and "host" in got["H"].why


def test_env_file_raw_format_takes_the_text_as_written():
    [e] = envfile.parse("A='x' $Y\n", raw=True)
    assert e.value == "'x' $Y"


@pytest.mark.parametrize("text", ["A B=1\n", "A='open\n", "-A=1\n"])
def test_a_line_compose_refuses_is_an_error(text):
    with pytest.raises(envfile.EnvFileError):
        envfile.parse(text)


# --- compose: precedence, positions, what is not read ----------------------------------------------------------

def test_later_env_file_wins_and_environment_wins_over_all(tmp_path):
    (tmp_path / "a.env").write_text("HCCL_BUFFSIZE=100\nX=a\nY=a\n")
    (tmp_path / "b.env").write_text("X=b\n")
    (tmp_path / "compose.yaml").write_text(compose(["a.env", {"path": "b.env", "required": True}], ["Y=env"]))
    [launch] = read(tmp_path).launches
    env = {n: e.value for n, e in launch.env.items()}
    assert env["HCCL_BUFFSIZE"] == "100" and env["X"] == "b" and env["Y"] == "env"
    span = launch.env["HCCL_BUFFSIZE"].span
    assert isinstance(span, Elsewhere) and span.file == str(tmp_path / "a.env")
    assert (span.at.line, span.at.column, span.at.end_column) == (1, 15, 18)  # `100` in a.env
    text = (tmp_path / "compose.yaml").read_text()
    assert span.line == line_of(text, '"a.env"')  # the finding points at the env_file entry of the checked file
    assert not isinstance(launch.env, OpenEnv)


def test_env_file_outside_the_tree_is_unknown_with_mc023(tmp_path):
    (tmp_path / "outside.env").write_text("HCCL_BUFFSIZE=999\n")
    tree = tmp_path / "t"
    tree.mkdir()
    (tree / "a.env").write_text("HCCL_BUFFSIZE=100\n")
    (tree / "compose.yaml").write_text(compose(["a.env", "../outside.env"]))
    lf = read(tree)
    [launch] = lf.launches
    assert launch.env["HCCL_BUFFSIZE"].value is None  # the later file may override a.env: unknown, not 100
    assert isinstance(launch.env, OpenEnv) and launch.env.get("SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK") \
        is not None and launch.env["ANY_NAME"].value is None  # any name it could set: unknown, not the default
    [p] = [p for p in lf.problems if "outside.env" in p.message]
    assert p.code == "MC023" and contained.OUTSIDE in p.message and "999" not in p.message
    assert [u.reason for u in lf.unread] == ["config outside the tree: env_file ../outside.env"]


@pytest.mark.parametrize("entry, said", [
    ("gone.env", "missing in the checked tree"),
    ({"path": "gone.env", "required": False}, "required: false"),
    ("${STAGE}.env", "interpolated on the host"),
])
def test_missing_or_interpolated_env_file_is_unknown(tmp_path, entry, said):
    (tmp_path / "compose.yaml").write_text(compose([entry]))
    lf = read(tmp_path)
    [launch] = lf.launches
    assert launch.env.get("HCCL_BUFFSIZE").value is None
    [p] = [p for p in lf.problems if p.code == "MC023"]
    assert said in p.message and "service decode" in p.message and not lf.unread


def test_environment_still_wins_over_an_env_file_not_read(tmp_path):
    (tmp_path / "compose.yaml").write_text(compose("gone.env", {"HCCL_BUFFSIZE": "120"}))
    [launch] = read(tmp_path).launches
    assert launch.env["HCCL_BUFFSIZE"].value == "120"


def test_interpolated_value_is_unknown_and_named(tmp_path):
    (tmp_path / "a.env").write_text("HCCL_BUFFSIZE=${BUF}\n")
    (tmp_path / "compose.yaml").write_text(compose("a.env"))
    lf = read(tmp_path)
    assert lf.launches[0].env["HCCL_BUFFSIZE"].value is None
    [p] = [p for p in lf.problems if p.code == "MC023"]
    assert "HCCL_BUFFSIZE (line 1: interpolated" in p.message


# --- end to end: the finding and its fix on the env file's line ------------------------------------------------

def test_fix_lands_on_the_env_file_line(tmp_path):
    env = tmp_path / "decode.env"
    env.write_text("# decode\nexport HCCL_BUFFSIZE=\"100\"   # MB\n")
    (tmp_path / "compose.yaml").write_text(compose(["decode.env"], {"HCCL_OP_EXPANSION_MODE": "AIV"}))
    [hit] = diags(check(str(tmp_path)), "MC501")
    assert hit["line"] == line_of((tmp_path / "compose.yaml").read_text(), '"decode.env"')
    assert hit["fix"]["file"] == str(env) and hit["fix"]["edits"] == [
        {"line": 2, "column": 23, "end_line": 2, "end_column": 26, "original": "100", "replacement": "120"}]
    assert "decode.env, line 2" in hit["fix"]["message"]
    got = CliRunner().invoke(cli, ["check", "--product", "A3", "--fix", str(tmp_path)])
    assert env.read_text() == "# decode\nexport HCCL_BUFFSIZE=\"120\"   # MB\n", got.output
    assert not diags(check(str(tmp_path)), "MC501")


def test_a_value_only_in_an_env_file_is_judged_not_defaulted(tmp_path):
    """Before: env_file was not read, so HCCL_BUFFSIZE took HCCL's 200 MB default and the launch passed."""
    (tmp_path / "decode.env").write_text("HCCL_BUFFSIZE=100\n")
    (tmp_path / "compose.yaml").write_text(compose("decode.env"))
    assert diags(check(str(tmp_path)), "MC501")
    (tmp_path / "decode.env").unlink()
    report = check(str(tmp_path))
    assert not diags(report, "MC501")
    assert any("decode.env: missing" in d["message"] for d in diags(report, "MC023"))
    [buf] = [r["buffers"]["ep"] for r in report["results"] if r.get("buffers")]
    assert buf["configured_mb"] is None  # unknown, not the 200 MB default


# --- Kubernetes envFrom ----------------------------------------------------------------------------------------

K8S = Path(__file__).parents[1] / "fix" / "fixtures" / "decode-k8s.yaml"


def k8s(tmp_path, ref: str, env_extra: str = "", prefix: str = "") -> Path:
    text = K8S.read_text().replace(
        '          env:\n            - name: HCCL_BUFFSIZE\n              value: "100"   # MB\n',
        f"          envFrom:\n            - {ref}:\n                name: decode-env\n"
        + (f"              prefix: {prefix}\n" if prefix else "") + f"          env:\n{env_extra}")
    text += '---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: decode-env\ndata:\n  HCCL_BUFFSIZE: "100"   # MB\n'
    path = tmp_path / "d.yaml"
    path.write_text(text)
    return path


def test_envfrom_configmap_in_the_file_is_read_and_fixed_there(tmp_path):
    path = k8s(tmp_path, "configMapRef")
    [hit] = diags(check(str(path)), "MC501")
    line = line_of(path.read_text(), 'HCCL_BUFFSIZE: "100"')
    assert hit["line"] == line and hit["fix"]["edits"][0]["line"] == line
    CliRunner().invoke(cli, ["check", "--product", "A3", "--fix", str(path)])
    assert 'HCCL_BUFFSIZE: "120"   # MB' in path.read_text()


def test_envfrom_prefix_and_env_precedence(tmp_path):
    assert not diags(check(str(k8s(tmp_path, "configMapRef", prefix="X_"))), "MC501")  # X_HCCL_BUFFSIZE: not it
    extra = '            - name: HCCL_BUFFSIZE\n              value: "120"\n'
    assert not diags(check(str(k8s(tmp_path, "configMapRef", env_extra=extra))), "MC501")  # env wins


def test_envfrom_secret_is_unknown_not_defaulted(tmp_path):
    report = check(str(k8s(tmp_path, "secretRef")))
    assert not diags(report, "MC501")
    assert any("`envFrom: secretRef` decode-env" in d["message"] for d in diags(report, "MC023"))
    [buf] = [r["buffers"]["ep"] for r in report["results"] if r.get("buffers")]
    assert buf["configured_mb"] is None


def test_sarif_fix_names_the_env_file(tmp_path):
    (tmp_path / "decode.env").write_text("HCCL_BUFFSIZE=100\n")
    (tmp_path / "compose.yaml").write_text(compose("decode.env"))
    got = CliRunner().invoke(cli, ["check", "--product", "A3", "--format", "sarif", str(tmp_path)])
    [result] = [x for x in json.loads(got.stdout)["runs"][0]["results"] if x["ruleId"] == "MC501"]
    [change] = result["fixes"][0]["artifactChanges"]
    assert change["artifactLocation"]["uri"].endswith("decode.env")
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].endswith("compose.yaml")


def test_a_script_default_is_not_taken_when_an_env_file_is_not_read(tmp_path):
    """`$${BUF:-100}` (compose's `$$`: the container shell's `${BUF:-100}`): BUF may come from the env file."""
    script = SERVE[2].replace("exec vllm", "export HCCL_BUFFSIZE=$${BUF:-100}; exec vllm")
    (tmp_path / "compose.yaml").write_text(compose("gone.env").replace(json.dumps(SERVE[2]), json.dumps(script)))
    report = check(str(tmp_path))
    assert not diags(report, "MC501")
    [buf] = [r["buffers"]["ep"] for r in report["results"] if r.get("buffers")]
    assert buf["configured_mb"] is None


def test_envfrom_secret_makes_a_kubernetes_reference_unknown(tmp_path):
    path = k8s(tmp_path, "secretRef", env_extra='            - name: HCCL_BUFFSIZE\n              value: "$(BUF)"\n')
    report = check(str(path))
    assert not diags(report, "MC501")
    [buf] = [r["buffers"]["ep"] for r in report["results"] if r.get("buffers")]
    assert buf["configured_mb"] is None


def test_hostile_env_file_names_are_not_read_nor_printed(tmp_path):
    secret = tmp_path / "secret.env"
    secret.write_text("HCCL_BUFFSIZE=4242\n")
    tree = tmp_path / "t"
    tree.mkdir()
    (tree / "link.env").symlink_to(secret)  # a link out of the tree
    os_files = ["/proc/self/environ", "/dev/stdin", "link.env", "."]
    (tree / "compose.yaml").write_text(compose(os_files))
    lf = read(tree)
    said = " ".join(p.message for p in lf.problems)
    assert "4242" not in said and lf.launches[0].env["HCCL_BUFFSIZE"].value is None
    assert len([p for p in lf.problems if p.code == "MC023"]) == len(os_files)


def test_env_files_per_service_are_capped(tmp_path):
    from moecfg.sources.manifests.envfiles import MAX_FILES
    for i in range(MAX_FILES + 1):
        (tmp_path / f"{i}.env").write_text(f"V{i}={i}\n")
    (tmp_path / "compose.yaml").write_text(compose([f"{i}.env" for i in range(MAX_FILES + 1)]))
    lf = read(tmp_path)
    env = lf.launches[0].env
    assert isinstance(env, OpenEnv) and env["V0"].value is None  # the last file, not read, may override V0
    assert any(f"more than {MAX_FILES}" in p.message for p in lf.problems)


def test_fix_writes_the_env_file_only_when_inside_the_paths_given(tmp_path):
    env = tmp_path / "decode.env"
    env.write_text("HCCL_BUFFSIZE=100\n")
    (tmp_path / "compose.yaml").write_text(compose("decode.env"))
    alone = CliRunner().invoke(cli, ["check", "--product", "A3", "--fix", str(tmp_path / "compose.yaml")])
    assert env.read_text() == "HCCL_BUFFSIZE=100\n" and "not fixed: outside the checked paths" in alone.stderr
    CliRunner().invoke(cli, ["check", "--product", "A3", "--fix", str(tmp_path / "compose.yaml"), str(env)])
    assert env.read_text() == "HCCL_BUFFSIZE=120\n"


def test_envfrom_configmap_in_a_file_beside_is_read_and_fixed_there(tmp_path):
    path = k8s(tmp_path, "configMapRef")
    text = path.read_text()
    manifest, cm = text.split("---\n")
    path.write_text(manifest)
    other = tmp_path / "decode-env.yaml"
    other.write_text(cm)
    [hit] = diags(check(str(tmp_path)), "MC501")
    assert hit["line"] == line_of(manifest, "configMapRef")  # the finding at envFrom, the fix in the ConfigMap
    assert hit["fix"]["file"] == str(other) and hit["fix"]["edits"][0]["line"] == line_of(cm, "HCCL_BUFFSIZE")
    CliRunner().invoke(cli, ["check", "--product", "A3", "--fix", str(tmp_path)])
    assert 'HCCL_BUFFSIZE: "120"   # MB' in other.read_text()
    other.unlink()
    report = check(str(tmp_path))
    assert not diags(report, "MC501")
    assert any("nor in a YAML file beside it" in d["message"] for d in diags(report, "MC023"))
