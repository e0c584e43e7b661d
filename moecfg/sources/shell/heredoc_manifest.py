"""Which heredoc is applied to a cluster (`kubectl apply -f - <<EOF`, `cat <<EOF | kubectl apply -f -`): its body is
then read as the YAML it is, by the hook the reader's caller gives it (`ShellReader.manifests`:
sources/manifests/heredoc.py; the shell reader imports no manifest reader, they import it).

The consumer is decided from the command's own text up to the body (its header line): kubectl or oc with the verb
`apply`, `create` or `replace` and `-f -` / `--filename=-` (stdin), fed by the heredoc directly (kserve/kserve@aaac4e2
docs/samples/canary-testing/README.md:24 `kubectl apply -f - <<EOF`) or through `cat`, `tee` or `envsubst` in the
pipeline (test/scripts/aws/run-e2e-tests.sh:59 `cat <<EOF | kubectl apply -f -`). A function that only `cat`s a
heredoc is read when the script pipes that function into such a command (install/v0.20.0/
kserve-standard-mode-full-install-with-manifests.sh:1372 `get_kserve_runtime_manifests() {`, :5420
`get_kserve_runtime_manifests | kubectl apply --server-side -f -`); piped only into `kubectl delete` it stays data.

The body is what the shell feeds: an unquoted delimiter expands `$VAR` / `${VAR}` with the script's variables first
(words.heredoc_body); a value the script does not know stays unknown (the scalar holding it is unknown, never a
default); `'EOF'` keeps the text literal. Anything else fed from a heredoc stays data (coverage lists it).
"""
from __future__ import annotations

import re

_APPLY = re.compile(r"(?:^|[\s|;&(/])(?:kubectl|oc)\b[^|;&\n]*?\s(?:apply|create|replace)\b[^|;&\n]*?"
                    r"(?:\s-f\s*|\s--filename[=\s]\s*)-(?![\w./-])")
_DRY_RUN = re.compile(r"--dry-run(?:[= ](?:client|server|true)\b|(?=[\s|;&]|$))")
_FEEDERS = {"cat", "tee", "envsubst", "kubectl", "oc"}  # commands whose stdin reaches the consumer unchanged


def applies(header: str) -> bool:
    """Whether the command text before the body (`cat <<EOF | kubectl apply -f -`) applies stdin to a cluster."""
    m = _APPLY.search(header)
    return bool(m) and not _DRY_RUN.search(header, m.start())  # `--dry-run=client`: printed, never applied


def feeds(command: str | None) -> bool:
    return command is not None and command.rsplit("/", 1)[-1] in _FEEDERS


def function_applied(name: str, text: str) -> str | None:
    """`NAME | kubectl apply -f -` somewhere in the script `text`: "envsubst" when the pipe goes through envsubst,
    "applied" otherwise, None when the function is never piped into such a command. The name is searched as a
    literal first (a 2.5 MB installer: one pass), each hit's line checked after."""
    found = None
    call = re.compile(rf"{re.escape(name)}\b[^\n|;&]*(\|[^\n]*)")
    for m in re.finditer(rf"\b{re.escape(name)}\b", text):
        before = text[text.rfind("\n", 0, m.start()) + 1:m.start()].rstrip()
        if before and not before.endswith((";", "&", "(", "{", "|", "then", "do")):
            continue  # an argument, not the command (`type NAME`, `echo NAME`)
        got = call.match(text, m.start())
        if got is None or not applies(got.group(1)):
            continue
        if re.search(r"\|\s*envsubst\b", got.group(1)):
            return "envsubst"
        found = "applied"
    return found
