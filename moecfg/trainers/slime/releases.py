"""The slime release moecfg read, and the engine releases that release pins.

THUDM/slime@624b824 (2026-08-21, after v0.3.1): docker/Dockerfile:1-7 builds from `slimerl/sglang:v0.5.15.post1-cu129`
(SGLang 0.5.15.post1) and checks out NVIDIA/Megatron-LM@1dcf0da; requirements.txt pins neither. moecfg derives the
Megatron-LM train with its Megatron tables (frameworks/megatron, read at @d98e8a6) and the SGLang rollout with the
SGLang release of that image.
"""
from __future__ import annotations

SLIME = "THUDM/slime@624b824"
VERSION = "0.3.1+624b824"
SGLANG_IMAGE = "slimerl/sglang:v0.5.15.post1-cu129"  # docker/Dockerfile:1-2 (ARG SGLANG_IMAGE_TAG, FROM ...)
MEGATRON_COMMIT = "1dcf0dafa884ad52ffb243625717a3471643e087"  # docker/Dockerfile:7
