"""Cheap sniffing before a full parse: a file whose top-level keys already show it holds no launch and no moecfg
document is skipped without composing it (a 1.7 MB CustomResourceDefinition takes seconds to compose with
positions, and milliseconds to recognise here). Two ways a big file is known to hold nothing for moecfg:
- every document is a Kubernetes object of a kind with no pod template (CRDs, RBAC, Services, ...);
- every document is a Kubernetes object (top-level `apiVersion:` and a CamelCase `kind:`, so no moecfg kind), and
  the whole text holds no launch word (framework_words.MANIFEST_WORDS) and no accelerator resource: an operator's
  release bundle (CRDs + its controller Deployment) holds no MoE launch, whatever its size.
Otherwise, in a big stream of Kubernetes objects, the same test is made per document (`pieces`): only the documents
that may hold a launch are parsed, each at its own lines (a 3.6 MB KServe bundle: its LLMInferenceServiceConfig
templates, not its CRDs).

Only block-style YAML is sniffed: a top-level key is a line starting at column 0 with `name:` (block scalars and
nested mappings are indented, so a nested `kind:` never matches). Anything unusual falls through to the parser.
"""
from __future__ import annotations

import re

from moecfg.sources import framework_words

# Kubernetes kinds that have no pod template and no command: nothing in them is a launch.
NO_LAUNCH_KINDS = frozenset({
    "CustomResourceDefinition", "Service", "ServiceAccount", "Role", "ClusterRole", "RoleBinding",
    "ClusterRoleBinding", "Namespace", "Secret", "NetworkPolicy", "Ingress", "IngressClass", "PersistentVolume",
    "PersistentVolumeClaim", "StorageClass", "PriorityClass", "ValidatingWebhookConfiguration",
    "MutatingWebhookConfiguration", "APIService", "PodDisruptionBudget", "HorizontalPodAutoscaler",
    "ServiceMonitor", "PodMonitor", "PrometheusRule", "Certificate", "Issuer", "ClusterIssuer", "LimitRange",
    "ResourceQuota", "Endpoints", "EndpointSlice", "Gateway", "HTTPRoute", "GRPCRoute", "GatewayClass",
    "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding",
})
_KIND = re.compile(r"^kind[ \t]*:[ \t]*(\S+)[ \t]*(?:#.*)?$", re.M)  # at column 0: the document's own kind
_API_VERSION = re.compile(r"^apiVersion[ \t]*:", re.M)
_SEPARATOR = re.compile(r"^---(?:[ \t].*)?$", re.M)
_DOCUMENT_END = re.compile(r"^\.\.\.[ \t]*$", re.M)
SNIFFED = 32 << 10  # characters: smaller files parse in about a millisecond, sniffing them would only add work
# Accelerator resource names (lowercase): a workload asking for accelerators is parsed, whatever its command.
ACCELERATORS = ("nvidia.com/", "amd.com/gpu", "huawei.com/", "habana.ai/", "ascend")
# Kinds whose launch a controller composes from fields, with no launch word in the object (crds.py).
COMPOSED_KINDS = frozenset({"LLMInferenceService"})
_SHOWN_KINDS = 6


def foreign_without_parsing(text: str) -> str | None:
    """Why this YAML text can be skipped unparsed, or None (parse it)."""
    if len(text) < SNIFFED:
        return None
    docs = [d for d in _SEPARATOR.split(text) if not _only_comments(d)]
    if not docs:
        return None
    kinds = [_kind(doc) for doc in docs]
    if None in kinds:
        return None  # not every document is a Kubernetes object: parse
    if all(k in NO_LAUNCH_KINDS for k in kinds):
        return f"Kubernetes {_names(kinds)}: no pod template, holds no launch (not parsed)"
    if any(k in COMPOSED_KINDS for k in kinds) or _may_launch(text):
        return None
    return f"Kubernetes {_names(kinds)}: no launch word and no accelerator in it, holds no launch (not parsed)"


class Piece:
    """One document of a big stream: its index in the stream, the line it starts on (0-based), its text, and why
    it needs no parse (None: parse it)."""

    __slots__ = ("index", "line", "text", "why")

    def __init__(self, index: int, line: int, text: str, why: str | None):
        self.index, self.line, self.text, self.why = index, line, text, why


def pieces(text: str) -> list[Piece] | None:
    """A big stream of Kubernetes objects as documents, each parsed or not on its own; None: parse the whole text
    (small, not only Kubernetes objects, or a stream whose documents are not plainly `---`-separated)."""
    if len(text) < SNIFFED or _DOCUMENT_END.search(text):
        return None
    out, start, line, index = [], 0, 0, 0
    bounds = [(m.start(), m.end()) for m in _SEPARATOR.finditer(text)] + [(len(text), len(text))]
    for i, (sep_start, sep_end) in enumerate(bounds):
        after = text[sep_start + 3:sep_end].strip()
        if after and not after.startswith("#"):
            return None  # `--- !tag` / `--- {a: 1}`: content on the separator line
        chunk = text[start:sep_start]
        if i > 0 or not _only_comments(chunk):  # after a `---` a document always starts (PyYAML counts it)
            if not _only_comments(chunk):
                kind = _kind(chunk)
                if kind is None:
                    return None
                out.append(Piece(index, line, chunk, _why_not_parsed(kind, chunk)))
            index += 1
        line += text.count("\n", start, sep_end)
        start = sep_end
    return out if out else None


def _why_not_parsed(kind: str, doc: str) -> str | None:
    if kind in NO_LAUNCH_KINDS:
        return f"Kubernetes {kind}: no pod template, holds no launch (not parsed)"
    if kind in COMPOSED_KINDS or _may_launch(doc):
        return None
    return f"Kubernetes {kind}: no launch word and no accelerator in it, holds no launch (not parsed)"


def _kind(doc: str) -> str | None:
    """The kind of a Kubernetes object (top-level `apiVersion:` and a CamelCase `kind:`), else None."""
    kind = _KIND.search(doc)
    name = kind.group(1).strip("'\"") if kind else ""
    return name if name[:1].isupper() and _API_VERSION.search(doc) else None


def _may_launch(text: str) -> bool:
    low = text.lower()
    return any(w in low for w in framework_words.MANIFEST_WORDS) or any(a in low for a in ACCELERATORS)


def _names(kinds: list[str]) -> str:
    names = sorted(set(kinds))
    return ", ".join(names[:_SHOWN_KINDS]) + (f" and {len(names) - _SHOWN_KINDS} more kinds" if len(names) > _SHOWN_KINDS else "")


_CONTENT = re.compile(r"^[ \t]*[^#%\s]", re.M)  # a line that is not blank, a comment or a directive


def _only_comments(doc: str) -> bool:
    return _CONTENT.search(doc) is None
