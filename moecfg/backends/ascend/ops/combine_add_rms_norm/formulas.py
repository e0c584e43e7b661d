"""Formulas of `op: combine_add_rms_norm` (ascend-mc2-rules.md §4): pure functions, ints in, ints out."""
from __future__ import annotations

from moecfg.backends.ascend.shared.formulas import MB


def add_rms_norm_doc_ep_window_bytes(bs: int, h: int, k: int, ep_world_size: int, local_moe: int) -> int:
    # seed 001 (doc, not code): 1024^2 * (HCCL_BUFFSIZE - 2) / 2 >= BS * 2 * (H + 128) * (ep * local + K + 1),
    # i.e. HCCL_BUFFSIZE * MB >= 2 * BS * 2 * (H + 128) * (ep * local + K + 1) + 2 MB
    return 2 * (bs * 2 * (h + 128) * (ep_world_size * local_moe + k + 1)) + 2 * MB
