"""A heredoc applied to a cluster (`kubectl apply -f - <<EOF`, `cat <<EOF | kubectl apply -f -`, a function that cats
one piped into `kubectl apply -f -`) is read as the YAML it is, at the file's own lines and columns; the shell expands
an unquoted body first (known values known, unknown ones unknown); other data heredocs stay listed as data."""
from __future__ import annotations

import pathlib

from moecfg.checking.engine import check_text
from moecfg.sources.documents.markdown import read_markdown
from moecfg.sources.readers import read_shell

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
DATA = "inside a heredoc fed to"


def _pod(args: str, kind: str = "Pod") -> str:
    return (f"apiVersion: v1\nkind: {kind}\nmetadata:\n  name: x\nspec:\n  containers:\n  - name: c\n"
            f"    image: lmsysorg/sglang:v0.5.0\n    command: [\"python3\", \"-m\", \"sglang.launch_server\"]\n"
            f"    args:\n{args}")


ARGS = "    - --tp\n    - \"${TP}\"\n    - --dp\n    - \"$DP\"\n"


def _values(lf) -> list:
    [launch] = [launch for launch in lf.launches if launch.context == "k8s"]  # the other is `kubectl` itself
    return [w.value for w in launch.argv]


def test_kubectl_apply_stdin_heredoc_is_read_with_the_scripts_known_values():
    text = "TP=8\nkubectl apply -n demo -f - <<EOF\n" + _pod(ARGS) + "EOF\n"
    lf = read_shell(text)
    assert _values(lf) == ["python3", "-m", "sglang.launch_server", "--tp", "8", "--dp", None]
    assert lf.data_regions == []
    [launch] = [launch for launch in lf.launches if launch.context == "k8s"]
    # `    command: ["python3", ...` is line 11 of the script; "${TP}" sits on line 14, columns 7-13 with its quotes
    # (end column exclusive)
    assert (launch.argv[0].span.line, launch.argv[0].span.column) == (11, 15)
    tp = launch.argv[4].span
    assert (tp.line, tp.column, tp.end_line, tp.end_column) == (14, 7, 14, 14)


def test_a_quoted_delimiter_keeps_the_body_literal():
    text = "TP=8\ncat <<'EOF' | kubectl create -f -\n" + _pod(ARGS) + "EOF\n"
    assert _values(read_shell(text))[3:5] == ["--tp", "${TP}"]


def test_envsubst_fills_exported_values_only():
    text = "export TP=8\nDP=2\ncat <<'EOF' | envsubst | oc apply -f -\n" + _pod(ARGS) + "EOF\n"
    assert _values(read_shell(text))[3:] == ["--tp", "8", "--dp", None]  # DP is not exported: envsubst has none


def test_heredocs_not_applied_stay_data():
    for header in ("cat > pod.yaml <<EOF", "kubectl delete -f - <<EOF", "cat <<EOF | kubectl get -f -",
                   "kubectl apply -f pod.yaml <<EOF",
                   "kubectl create --dry-run=client -o yaml -f - <<EOF"):
        lf = read_shell(header + "\n" + _pod(ARGS) + "EOF\n")
        assert [x for x in lf.launches if x.context == "k8s"] == [] and len(lf.data_regions) == 1, header


def test_kserve_function_catting_runtimes_into_kubectl_apply_is_read():
    text = (FIXTURES / "kserve-installer-runtime-heredoc.sh").read_text()
    got = check_text(text, "install.sh")
    [result] = [r for r in got.results if r.launch]
    assert result.launch["line"] == 20  # `    - python`, the container's command, at the file's line
    assert not any(DATA in u.reason for u in got.unread)
    # the same manifest as a YAML file of its own: the same launch and findings, 16 lines up
    lines = text.splitlines()
    body = "\n".join(lines[3:lines.index("KSERVE_RUNTIME_MANIFEST_EOF")]) + "\n"
    [alone] = [r for r in check_text(body, "runtime.yaml").results if r.launch]
    assert {**alone.launch, "line": alone.launch["line"] + 3} == result.launch
    assert [(d.code, d.line + 3, d.column, d.message) for d in alone.diagnostics] == \
        [(d.code, d.line, d.column, d.message) for d in result.diagnostics]


def test_a_function_piped_only_into_kubectl_delete_stays_data():
    text = (FIXTURES / "kserve-installer-runtime-heredoc.sh").read_text().replace("kubectl apply --server-side",
                                                                                    "kubectl delete")
    got = check_text(text, "install.sh")
    assert not any(r.launch for r in got.results)
    engine = text.splitlines().index("    - vllm.entrypoints.openai.api_server") + 1
    assert [u.line for u in got.unread if DATA in u.reason] == [engine]


def test_markdown_heredoc_manifest_positions_and_command_substitution():
    # vllm-ascend's Kthena guide: `cat << EOF | kubectl apply -f -` (unquoted), so bash runs `$(POD_NAME)` as a
    # command before kubectl sees the body: the value is unknown, not Kubernetes' `$(POD_NAME)`
    text = (FIXTURES / "vllm-ascend-docs-kthena-heredoc-apply.md").read_text()
    lf = read_markdown(text, "guide.md")
    k8s = [launch for launch in lf.launches if launch.context == "k8s"]
    runtime = next(launch for launch in k8s if "--engine" in launch.words())
    words = runtime.words()
    assert words[words.index("--pod") + 1] is None
    first = runtime.argv[0].span
    assert (first.line, first.column) == (38, 21)  # `                  - --port` in the guide
    assert text.splitlines()[first.line - 1][first.column - 1:].startswith("--port")


LLMISVC = """cat <<EOF | kubectl apply -f -
apiVersion: serving.kserve.io/v1alpha1
kind: LLMInferenceService
metadata:
  name: dsr1
spec:
  model:
    uri: hf://deepseek-ai/DeepSeek-R1-0528
  parallelism:
    data: ${DP}
    dataLocal: 8
    expert: EXPERT
    tensor: 1
  template:
    containers:
    - name: main
      image: vllm/vllm-openai:v0.10.1
      env:
      - name: VLLM_ALL2ALL_BACKEND
        value: deepep_high_throughput
EOF
"""


def test_an_unknown_size_in_a_serving_crd_stays_unknown():
    got = check_text(LLMISVC.replace("EXPERT", "true"), "deploy.sh")
    codes = {d.code for r in got.results for d in r.diagnostics}
    assert "MC023" in codes and "MC971" not in codes  # --data-parallel-size unknown; EP is on
    [launch] = [r.launch for r in got.results if r.launch]
    assert launch["line"] == 9  # the `parallelism:` key the controller's flags come from


def test_an_unknown_expert_switch_lists_the_service_instead_of_guessing():
    got = check_text(LLMISVC.replace("EXPERT", "${EP}"), "deploy.sh")
    assert not any(r.launch for r in got.results)  # without it MC971 would say EP is off: a guess
    [u] = got.unread
    assert u.line == 12 and "parallelism.expert" in u.reason


def test_heredoc_manifests_past_the_files_budget_stay_data(monkeypatch):
    from moecfg.sources import budget

    monkeypatch.setattr(budget, "MANIFEST_CHARS", 1 << 20)  # the real 8 MiB, scaled down with the script
    filler = "a: 1\n" * ((1 << 20) // 5 // 2 + 1)  # each body just over half the budget
    text = "".join(f"kubectl apply -f - <<EOF\n{filler}---\n{_pod(ARGS)}EOF\n" for _ in range(3))
    lf = read_shell(text)
    assert len([x for x in lf.launches if x.context == "k8s"]) == 1 and len(lf.data_regions) == 2


def test_a_functions_heredoc_is_not_expanded_before_the_function_runs():
    # bash expands `cat <<EOF` in a function when the function runs: TP is 8 then, 4 where it is defined
    body = _pod(ARGS).replace('"$DP"', "2")
    text = f"TP=4\nf() {{\n  cat <<EOF\n{body}EOF\n}}\nTP=8\nf | kubectl apply -f -\n"
    lf = read_shell(text)
    assert [x for x in lf.launches if x.context == "k8s"] == [] and len(lf.data_regions) == 1
    quoted = read_shell(text.replace("cat <<EOF", "cat <<'EOF'"))
    assert _values(quoted)[3:5] == ["--tp", "${TP}"]  # what kubectl receives
    through = read_shell(text.replace("cat <<EOF", "cat <<'EOF'").replace("f |", "f | envsubst |"))
    assert [x for x in through.launches if x.context == "k8s"] == []  # envsubst at the call: its environment


def test_which_pipes_apply_a_function():
    from moecfg.sources.shell.heredoc_manifest import function_applied

    assert function_applied("g", "  g | kubectl apply --server-side -f -\n") == "applied"
    assert function_applied("g", "if x; then g | envsubst | oc create -f -; fi\n") == "envsubst"
    assert function_applied("g", "echo g | kubectl apply -f -\ng | kubectl delete -f -\n") is None
