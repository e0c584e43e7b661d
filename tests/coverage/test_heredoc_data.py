"""A launch written inside a heredoc that a command takes as data (`cat > pod.yaml <<EOF`, `kubectl delete -f -
<<EOF`) is listed with that reason, not the launcher's generic one; a heredoc that is the script a command runs
(`bash <<EOF`) is read, not listed as data, and so is a manifest applied to a cluster (tests/sources/
test_heredoc_manifest_h.py)."""
from __future__ import annotations

from moecfg.checking.engine import check_text

MANIFEST = """kubectl apply -f - <<EOF
apiVersion: v1
kind: Pod
spec:
  containers:
  - command:
    - python
    - -m
    - vllm.entrypoints.openai.api_server
EOF
"""


def test_a_launch_in_a_data_heredoc_names_the_command_it_is_fed_to():
    [u] = check_text(MANIFEST.replace("apply", "delete"), "install.sh").unread
    assert u.line == 9 and "heredoc fed to `kubectl`" in u.reason


def test_a_heredoc_script_is_read_not_data():
    text = "bash <<'EOF'\npython3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 8\nEOF\n"
    got = check_text(text, "run.sh")
    assert got.unread == [] and any(r.launch for r in got.results)


def test_each_data_heredoc_names_its_own_command():
    text = MANIFEST.replace("kubectl apply -f -", "cat > pod.yaml") + MANIFEST.replace("apply", "delete")
    first, second = check_text(text, "install.sh").unread
    assert "fed to `cat`" in first.reason and "fed to `kubectl`" in second.reason
    assert (first.line, second.line) == (9, 19)


def test_a_launch_next_to_template_expressions_is_listed_as_templated():
    # kserve/kserve@aaac4e2 charts/kserve-runtime-configs/files/llmisvcconfigs/resources.yaml: a Go-templated script
    text = ("data:\n  script: |\n    NAME=\"{{ .Spec.Model.Name }}\"\n"
            "    eval \"exec vllm serve /mnt/models --served-model-name $NAME\"\n")
    reasons = [u.reason for u in check_text(text, "resources.yaml").unread]
    assert reasons and all("template" in r for r in reasons)
