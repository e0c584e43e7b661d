"""Device-memory catalog: the memory one rank's device has, for the MC9xx rules and the sweep's limit line.

Capacities are GiB (2^30 bytes) of HBM per rank (an Ascend A3 rank is one die). A `device_memory_gb`
field overrides them (e.g. a 32 GB Atlas 300I A2 / 910B4, or the memory left after weights).
HCCL gives every communicator its own buffer: "Each communicator occupies 2 x HCCL_BUFFSIZE memory,
which is used for receiving and sending memory" (CANN 8.5 HCCL user guide, HCCL_BUFFSIZE,
https://www.hiascend.com/document/detail/en/canncommercial/850/commlib/hcclug/hcclug_000076.html).
"""
from __future__ import annotations

from moecfg.core.record import record

GIB = 1 << 30
MIB = 1 << 20  # the MB of HCCL_BUFFSIZE and of the buffer reports
HCCL_BUFFERS_PER_COMMUNICATOR = 2  # send + receive, each HCCL_BUFFSIZE (HCCL user guide, above)
NEAR_LIMIT_FRACTION = 0.75  # warn when communication buffers take this share of the device (weights, KV cache need the rest)


@record(frozen=True, slots=True)
class Device:
    """An accelerator's memory per rank, with the source of the figure."""

    name: str
    memory_gib: float
    per: str  # what one rank is: "NPU", "die", "GPU"
    source: str


DEVICES = {
    "A2": Device("Atlas A2 (Ascend 910B)", 64, "NPU", "Atlas 800T/800I A2: 64 GB HBM per NPU (910B1-B3; the 910B4 has 32 GB)"),
    "A3": Device("Atlas A3 (Ascend 910_93)", 64, "die", "Atlas 800T/900 A3: 128 GB HBM per chip = 2 dies x 64 GB; a rank is one die"),
    "H100": Device("NVIDIA H100 SXM", 80, "GPU", "NVIDIA H100 datasheet: 80 GB HBM3"),
    "H800": Device("NVIDIA H800", 80, "GPU", "NVIDIA H800: 80 GB HBM3"),
    "H20": Device("NVIDIA H20", 96, "GPU", "NVIDIA H20: 96 GB HBM3"),
    "H200": Device("NVIDIA H200", 141, "GPU", "NVIDIA H200 datasheet: 141 GB HBM3e"),
    "A100": Device("NVIDIA A100 80GB", 80, "GPU", "NVIDIA A100 datasheet: 80 GB HBM2e"),
    "B200": Device("NVIDIA B200", 180, "GPU", "NVIDIA DGX B200: 1440 GB for 8 GPUs = 180 GB per GPU"),
    "GB200": Device("NVIDIA GB200 (Blackwell GPU)", 186, "GPU", "NVIDIA GB200 NVL72: 13.4 TB HBM3e for 72 GPUs = 186 GB per GPU"),
}

GPU_DEVICES = tuple(name for name, dev in DEVICES.items() if dev.per == "GPU")  # `device:` of kind deepep


def device_bytes(product: str, override_gb: float | None = None) -> int | None:
    """Bytes of memory per rank: the override (GiB) if given, else the catalog's value, else None."""
    if override_gb is not None:  # capped at 2^40 GiB, far beyond any device: 1e308 GB must not overflow int()
        return int(min(override_gb, 2.0**40) * GIB)
    dev = DEVICES.get(product)
    return int(dev.memory_gib * GIB) if dev else None


def describe(product: str, override_gb: float | None = None) -> str:
    if override_gb is not None:
        return f"{override_gb:g} GB (device_memory_gb)"
    dev = DEVICES[product]
    return f"{dev.memory_gib:g} GB HBM per {dev.per} ({dev.name})"
