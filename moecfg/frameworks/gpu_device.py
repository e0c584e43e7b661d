"""Which device a GPU launch runs on, and whether a launch shows NVIDIA or Ascend hardware at all.

A command line rarely names its GPU. Order (first wins):
1. `ctx.product` when it is a GPU name (`check_launch(..., product="H200")`);
2. a GPU product hint in the launch's own file (`nvidia.com/gpu.product: NVIDIA-H200`, a node label
   `nvidia-h100-80gb`, an srt-slurm `gpu_type: gb200`): the file is more specific than the folder's settings;
3. `device:` in .moecfg.yaml (`ctx.device`): a GPU model of backends/device/devices.py (H100, H200, B200, ...).
`product: A2/A3` in the settings is an Ascend product: a GPU launch ignores it (a folder may hold both).
"""
from __future__ import annotations

import re

from moecfg.backends.device.devices import DEVICES, GPU_DEVICES

_GPU_NAME = re.compile(r"(?<![A-Z0-9])(GB200|B200|H200|H100|H800|H20|A100)(?![0-9])")
# Environment only NVIDIA jobs set (NVSHMEM / NCCL / CUDA runtime); DeepEP's NVSHMEM_QP_DEPTH among them.
NVIDIA_ENV_PREFIXES = ("NVSHMEM_", "NCCL_", "CUDA_VISIBLE_DEVICES", "NVIDIA_")


def is_nvidia_hint(text: str) -> bool:
    return "nvidia" in text.lower()


def gpu_evidence(launch, device_flag: str | None = None) -> str:
    """Why this launch runs on NVIDIA GPUs ('' = no sign of it)."""
    if (device_flag or "").lower() == "cuda":
        return "--device cuda"
    for text, _ in launch.hints:
        if is_nvidia_hint(text):
            return f"hint {text}"
    for name in launch.env:
        if name.startswith(NVIDIA_ENV_PREFIXES):
            return f"env {name}"
    return ""


def gpu_name(text: str) -> str | None:
    """`NVIDIA-H200-141GB` / `nvidia-h100-80gb-hbm3` -> H200 / H100; None when no known GPU is named."""
    m = _GPU_NAME.search(text.upper())
    return m.group(1) if m else None


def device_of(launch, ctx) -> tuple[str | None, str]:
    """(GPU model, how it was learnt) for a GPU launch, or (None, why not)."""
    if ctx.product in GPU_DEVICES:
        return ctx.product, ctx.product_source or "product"
    for text, _ in launch.hints:
        name = gpu_name(text) if is_nvidia_hint(text) else None
        if name in DEVICES:
            return name, f"hint {text}"
    device = getattr(ctx, "device", None)
    if device in GPU_DEVICES:
        return device, "`device` in .moecfg.yaml"
    return None, ("the GPU model is not known: set `device: H200` (or H100, H800, B200, GB200...) in .moecfg.yaml, "
                  "or give --product H200")
