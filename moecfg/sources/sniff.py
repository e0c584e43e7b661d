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
_TOP_KEY = re.compile(r"^([A-Za-z_][\w.-]*)[ \t]*:(?:[ \t]+(.*?))?[ \t]*$", re.M)
_SEPARATOR = re.compile(r"^---(?:[ \t].*)?$", re.M)


def foreign_without_parsing(text: str) -> str | None:
    """Why this YAML text can be skipped unparsed, or None (parse it)."""
    docs = [d for d in _SEPARATOR.split(text) if d.strip() and not _only_comments(d)]
    if not docs:
        return None
    kinds = []
    for doc in docs:
        keys = {m.group(1): (m.group(2) or "") for m in _TOP_KEY.finditer(doc)}
        kind = keys.get("kind", "").strip("'\"")
        if "apiVersion" not in keys or kind not in NO_LAUNCH_KINDS:
            kinds = None
            break
        kinds.append(kind)
    if kinds:
        return f"Kubernetes {', '.join(sorted(set(kinds)))}: no pod template, holds no launch (not parsed)"
    return None


def _only_comments(doc: str) -> bool:
    return all(not line.strip() or line.lstrip().startswith("#") or line.startswith("%") for line in doc.splitlines())
