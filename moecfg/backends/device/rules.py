"""Device memory (MC9xx): the communication buffers of a rank must fit its device.

`kind: ascend`: HCCL gives every communicator its own pair of buffers (send + receive), each of the
communicator's buffer size: `hccl_buffer_size.<group>` if set, else `HCCL_BUFFSIZE`, else 200 MB. A rank of
an `ascend` document has an EP communicator and, with `tp_world_size` > 1, a TP communicator. Each
buffer is taken as max(configured, required) MB: the size the job must allocate to run the op.
The sum must fit the device's memory (A2: 64 GB HBM per NPU, A3: 64 GB per die; `device_memory_gb`
overrides).

`kind: deepep`, with `device` (H100, H800, H20, H200, A100, B200, GB200) or `device_memory_gb`: a DeepEP `Buffer`
allocates `num_nvl_bytes` (cudaMalloc, shared over NVLink), `num_rdma_bytes` (NVSHMEM symmetric heap) and a
32 MiB workspace on every GPU; each buffer is taken as max(configured, required) bytes. `api: v2`: the
ElasticBuffer (`num_bytes`, or its size hint) and its 16 MiB workspace.

More than the device memory is an error (MC901), more than 75% of it a warning (MC902): the weights,
the KV cache and the activations need the rest.
"""
from __future__ import annotations

from moecfg.core.diagnostics import Finding
from moecfg.core.registry import rule
from moecfg.core.input_rules import INVALID_VALUE
from moecfg.backends.device.devices import GIB, HCCL_BUFFERS_PER_COMMUNICATOR as PAIR, MIB, NEAR_LIMIT_FRACTION, describe, device_bytes

_F = "device-memory"
_EXAMPLE = """product: A2
cann_version: 9.0.1
bs: 256
h: 7168
k: 8
ep_world_size: 64
moe_expert_num: 512
comm_alg: fullmesh
env:
  HCCL_BUFFSIZE: 3600
device_memory_gb: {gb}
"""
EXCEEDED = rule("MC901", "device-memory-exceeded", "error",
                "The communication buffers of a rank do not fit its device memory (HCCL: 2 x buffer per communicator; "
                "DeepEP: NVL + RDMA + workspace)", family=_F,
                source="CANN HCCL user guide, HCCL_BUFFSIZE: each communicator occupies 2 x HCCL_BUFFSIZE",
                tags=("buffer", "device"), why="the buffers cannot be allocated: the job fails with an out-of-memory "
                "error at HCCL communicator initialisation (Ascend) or in DeepEP's Buffer(...) (GPU)",
                fix="lower bs or ep so the window shrinks (DeepEP: num_max_dispatch_tokens_per_rank), lower "
                "HCCL_BUFFSIZE / num_nvl_bytes / num_rdma_bytes where larger than needed, or set device_memory_gb",
                fail_example=_EXAMPLE.format(gb=4), pass_example=_EXAMPLE.format(gb=64))
NEAR_LIMIT = rule("MC902", "device-memory-near-limit", "warning",
                  "The communication buffers take more than 75% of the device memory", family=_F,
                  source="CANN HCCL user guide, HCCL_BUFFSIZE", tags=("buffer", "device"),
                  why="little memory is left for weights, KV cache and activations", fix="lower bs, ep or HCCL_BUFFSIZE",
                  fail_example=_EXAMPLE.format(gb=8), pass_example=_EXAMPLE.format(gb=64))


def _configured(cfg, domain: str) -> int:
    opt = (cfg.hccl_buffer_size or {}).get(domain)
    if opt is not None:
        return opt
    env = cfg.hccl_buffsize_env
    from moecfg.backends.ascend.shared.model import DEFAULT_HCCL_BUFFSIZE_MB  # here: a deepep document does not load the ascend kind

    return env if env is not None else DEFAULT_HCCL_BUFFSIZE_MB


def communicator_buffers(cfg, f) -> list[tuple[str, int, int]]:
    """(group, configured MB, required MB or 0) per communicator of this rank: EP, and TP when tp_world_size > 1."""
    from moecfg.backends.ascend.shared.rules.buffers import requirements

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
    return sum(PAIR * max(configured, required, 0) * MIB for _, configured, required in groups)


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
            f"{-(-total // MIB)} MB = {total / GIB:.1f} GB")
    path, fix = _path(cfg, groups)
    if total > limit:
        yield Finding(EXCEEDED.code, path, f"{what} exceed the device memory, {describe(cfg.product, device_memory_gb)}; "
                      f"{fix}, or set device_memory_gb if the device has more")
    elif total > NEAR_LIMIT_FRACTION * limit:
        yield Finding(NEAR_LIMIT.code, path, f"{what} take {100 * total / limit:.0f}% of the device memory, "
                      f"{describe(cfg.product, device_memory_gb)} (warning above {NEAR_LIMIT_FRACTION:.0%}): little is "
                      f"left for weights, KV cache and activations; {fix}")


def deepep_buffers(d, f) -> list[tuple[str, int, int]]:
    """(what, configured bytes, required bytes) a DeepEP Buffer allocates per GPU: NVL, RDMA and the workspace."""
    from moecfg.backends.deepep.ops.v1.formulas import NUM_WORKSPACE_BYTES
    from moecfg.backends.deepep.ops.v1.rules.buffers import requirements

    reqs = {r.domain: r.required_bytes for r in requirements(d, f)}
    out = [(f"num_{dom}_bytes", getattr(d, f"num_{dom}_bytes") or 0, reqs.get(dom, 0)) for dom in ("nvl", "rdma")]
    return out + [("workspace", NUM_WORKSPACE_BYTES, NUM_WORKSPACE_BYTES)]


def _deepep_fix(d, parts) -> tuple[tuple, str]:
    name, configured, required = max(parts[:2], key=lambda p: max(p[1], p[2]))
    if required >= configured:
        grows = "num_max_dispatch_tokens_per_rank" if d.low_latency else "num_sms"
        return (grows,), f"lower {grows} or num_experts (the {name} DeepEP needs grows with them)"
    return (name,), f"lower {name} to {required} (what DeepEP needs)"


def check_deepep(d, f, device: str | None, device_memory_gb: float | None = None):
    """MC901 / MC902 for a deepep document with a `device` or a `device_memory_gb` (nothing otherwise)."""
    parts = deepep_buffers(d, f)
    path, fix = _deepep_fix(d, parts)
    yield from check_gpu(parts, device, device_memory_gb, path, fix)


def check_gpu(parts, device: str | None, device_memory_gb: float | None, path: tuple, fix: str):
    """MC901 / MC902 for GPU buffers `parts` = [(name, configured bytes, required bytes), ...] on one device."""
    if device_memory_gb is not None and device_memory_gb <= 0:
        yield Finding(INVALID_VALUE.code, ("device_memory_gb",), f"`device_memory_gb` = {device_memory_gb:g} must be "
                      "a positive number of GB")
        return
    limit = device_bytes(device or "", device_memory_gb)
    if not limit:
        return
    total = sum(max(c, r) for _, c, r in parts)
    what = (f"DeepEP buffers ({' + '.join(f'{n} {max(c, r)}' for n, c, r in parts)}) = {total} bytes = "
            f"{total / GIB:.2f} GB")
    where = describe(device, device_memory_gb)
    if total > limit:
        yield Finding(EXCEEDED.code, path, f"{what} exceed the device memory, {where}; {fix}, or set "
                      "device_memory_gb if the device has more")
    elif total > NEAR_LIMIT_FRACTION * limit:
        yield Finding(NEAR_LIMIT.code, path, f"{what} take {100 * total / limit:.0f}% of the device memory, {where} "
                      f"(warning above {NEAR_LIMIT_FRACTION:.0%}): little is left for weights, KV cache and "
                      f"activations; {fix}")
