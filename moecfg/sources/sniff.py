"""Cheap sniffing before a full parse: a file whose top-level keys already show it holds no launch and no moecfg
document is skipped without composing it (a 1.7 MB CustomResourceDefinition takes seconds to compose with
positions, and milliseconds to recognise here).

Only block-style YAML is sniffed: a top-level key is a line starting at column 0 with `name:` (block scalars and
nested mappings are indented, so a nested `kind:` never matches). Anything unusual falls through to the parser.
"""
from __future__ import annotations

import re

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
SNIFFED = 32 << 10  # characters: smaller files parse in about a millisecond, sniffing them would only add work


def foreign_without_parsing(text: str) -> str | None:
    """Why this YAML text can be skipped unparsed, or None (parse it)."""
    if len(text) < SNIFFED:
        return None
    docs = [d for d in _SEPARATOR.split(text) if not _only_comments(d)]
    if not docs:
        return None
    kinds = []
    for doc in docs:
        kind, api = _KIND.search(doc), _API_VERSION.search(doc)
        kind = kind.group(1).strip("'\"") if kind else ""
        if api is None or kind not in NO_LAUNCH_KINDS:
            kinds = None
            break
        kinds.append(kind)
    if kinds:
        return f"Kubernetes {', '.join(sorted(set(kinds)))}: no pod template, holds no launch (not parsed)"
    return None


_CONTENT = re.compile(r"^[ \t]*[^#%\s]", re.M)  # a line that is not blank, a comment or a directive


def _only_comments(doc: str) -> bool:
    return _CONTENT.search(doc) is None
