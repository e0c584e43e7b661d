"""Device memory (MC9xx): the HCCL buffers of all of a rank's communicators must fit its device.

HCCL gives every communicator its own pair of buffers (send + receive), each of the communicator's
buffer size: `hccl_buffer_size.<group>` if set, else `HCCL_BUFFSIZE`, else 200 MB. A rank of an
`ascend` document has an EP communicator and, with `tp_world_size` > 1, a TP communicator. Each
buffer is taken as max(configured, required) MB: the size the job must allocate to run the op.
The sum must fit the device's memory (A2: 64 GB HBM per NPU, A3: 64 GB per die; `device_memory_gb`
overrides); more than that is an error (MC901), more than 75% of it a warning (MC902): the weights,
the KV cache and the activations need the rest.
"""
from __future__ import annotations

from ..ascend.formulas import MB, ceil_mb
from ..ascend.model import DEFAULT_HCCL_BUFFSIZE_MB
from ..diagnostics import Finding
from ..registry import rule
from ..rules_input import INVALID_VALUE
from .devices import GIB, HCCL_BUFFERS_PER_COMMUNICATOR as PAIR, NEAR_LIMIT_FRACTION, describe, device_bytes

_F = "device-memory"
_EXAMPLE = """product: A2
cann_version: 9.0.1
bs: 256
h: 7168
k: 8
ep_world_size: 64
moe_expert_num: 512
env:
  HCCL_BUFFSIZE: 3600
device_memory_gb: {gb}
"""
EXCEEDED = rule("MC901", "device-memory-exceeded", "error",
                "The HCCL buffers of all communicators (2 x buffer each) do not fit the device memory", family=_F,
                source="CANN HCCL user guide, HCCL_BUFFSIZE: each communicator occupies 2 x HCCL_BUFFSIZE",
                tags=("buffer", "device"), why="HCCL cannot allocate the communicator buffers: the job fails at "
                "communicator initialisation with an out-of-memory error", fix="lower bs or ep so the window "
                "shrinks, lower HCCL_BUFFSIZE where it is larger than needed, or set device_memory_gb",
                fail_example=_EXAMPLE.format(gb=4), pass_example=_EXAMPLE.format(gb=64))
NEAR_LIMIT = rule("MC902", "device-memory-near-limit", "warning",
                  "The HCCL buffers take more than 75% of the device memory", family=_F,
                  source="CANN HCCL user guide, HCCL_BUFFSIZE", tags=("buffer", "device"),
                  why="little memory is left for weights, KV cache and activations", fix="lower bs, ep or HCCL_BUFFSIZE",
                  fail_example=_EXAMPLE.format(gb=8), pass_example=_EXAMPLE.format(gb=64))


def _configured(cfg, domain: str) -> int:
    opt = (cfg.hccl_buffer_size or {}).get(domain)
    if opt is not None:
        return opt
    env = cfg.hccl_buffsize_env
    return env if env is not None else DEFAULT_HCCL_BUFFSIZE_MB


def communicator_buffers(cfg, f) -> list[tuple[str, int, int]]:
    """(group, configured MB, required MB or 0) per communicator of this rank: EP, and TP when tp_world_size > 1."""
    from ..ascend.rules.buffers import requirements

    reqs = {r.domain: r for r in requirements(cfg, f)}
    out = []
    for domain, present in (("ep", True), ("tp", cfg.tp_world_size > 1)):
        if not present:
            continue
        req = reqs.get(domain)
        configured = req.configured_mb if req else _configured(cfg, domain)
        out.append((domain, configured, req.required_mb if req else 0))
    return out


def total_bytes(groups) -> int:
    return sum(PAIR * max(configured, required, 0) * MB for _, configured, required in groups)


def _path(cfg, groups):
    domain, configured, required = max(groups, key=lambda g: max(g[1], g[2]))
    if required > configured:
        return ("bs",), "lower bs or ep_world_size (the window grows with both)"
    where = ("hccl_buffer_size", domain) if (cfg.hccl_buffer_size or {}).get(domain) is not None else ("env", "HCCL_BUFFSIZE")
    return where, f"lower {'/'.join(map(str, where))} to {max(required, 1)} MB (what the op needs)"


def check(cfg, f, device_memory_gb=None):
    """Findings for one document; `device_memory_gb` is the file's override (None: the catalog's value)."""
    if device_memory_gb is not None and device_memory_gb <= 0:
        yield Finding(INVALID_VALUE.code, ("device_memory_gb",), f"`device_memory_gb` = {device_memory_gb:g} must be "
                      "a positive number of GB")
        return
    limit = device_bytes(cfg.product, device_memory_gb)
    if limit is None or limit <= 0 or cfg.ep_world_size <= 0:
        return
    groups = communicator_buffers(cfg, f)
    if not groups:
        return
    total = total_bytes(groups)
    parts = ", ".join(f"{d.upper()} 2 x {max(c, r)} MB" for d, c, r in groups)
    what = (f"HCCL buffers of {len(groups)} communicator{'s' if len(groups) > 1 else ''} ({parts}) = "
            f"{ceil_mb(total)} MB = {total / GIB:.1f} GB")
    path, fix = _path(cfg, groups)
    if total > limit:
        yield Finding(EXCEEDED.code, path, f"{what} exceed the device memory, {describe(cfg.product, device_memory_gb)}; "
                      f"{fix}, or set device_memory_gb if the device has more")
    elif total > NEAR_LIMIT_FRACTION * limit:
        yield Finding(NEAR_LIMIT.code, path, f"{what} take {100 * total / limit:.0f}% of the device memory, "
                      f"{describe(cfg.product, device_memory_gb)} (warning above {NEAR_LIMIT_FRACTION:.0%}): little is "
                      f"left for weights, KV cache and activations; {fix}")
