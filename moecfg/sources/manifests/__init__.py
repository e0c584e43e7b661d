"""Readers of YAML: the YAML parse with positions, multi-document streams, launches in YAML (commands, args),
Kubernetes workloads, Docker Compose services and custom resources."""
