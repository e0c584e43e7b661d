"""The facts of the machine a launch runs on, each with where it was read; what could not be read, and why.

Nothing here guesses: a value comes from a device tool, a version file or package metadata, or stays None with
the reason in `unread`.
- Ascend product: `npu-smi info`. A2 NPUs are named 910B1-910B4 there; A3 (910_93) shows `Ascend910` with the
  `Chip Phy-ID` column and two chips (dies) per NPU (vllm-project/vllm-ascend#2534, #12980 show A3 tables,
  HAMi-WebUI#47 and vllm-ascend#9872 A2 ones). HBM per chip from the HBM-Usage column.
- CANN: `<root>/<arch>-linux/ascend_toolkit_install.info` (`version=`), root = $ASCEND_HOME_PATH, then
  $ASCEND_TOOLKIT_HOME, /usr/local/Ascend/cann, /usr/local/Ascend/ascend-toolkit/latest (CANN's install guide:
  "cat /usr/local/Ascend/cann/<arch>-linux/ascend_toolkit_install.info"). Driver: /usr/local/Ascend/driver/version.info.
- GPU: `nvidia-smi --query-gpu=name,memory.total --format=csv,noheader`.
- Framework versions: package metadata (importlib.metadata), never an import of the package.
"""
from __future__ import annotations

import glob
import os
import re
from dataclasses import dataclass, field

from moecfg.preflight.tools import read_small, run_tool

# distribution name -> framework key of LaunchContext.framework_versions ("" = reported only)
PACKAGES = {"vllm": "vllm", "vllm-ascend": "vllm-ascend", "sglang": "sglang", "sgl-kernel-npu": "",
            "deep_ep": "", "torch_npu": "", "mindie": ""}
_CANN_ROOTS = ("/usr/local/Ascend/cann", "/usr/local/Ascend/ascend-toolkit/latest")
_DRIVER_INFO = "/usr/local/Ascend/driver/version.info"
_INFO_CAP = 16 * 1024
_BUS_ID = re.compile(r"^[0-9A-Fa-fx]{4}:[0-9A-Fa-fx]{2}:")
_USAGE = re.compile(r"(\d{1,9})\s*/\s*(\d{1,9})")


@dataclass
class Facts:
    product: str | None = None  # A2 | A3 | a GPU model moecfg knows (H100, ...)
    product_from: str = ""
    device_memory_gb: float | None = None
    memory_from: str = ""
    cann: str | None = None
    cann_from: str = ""
    driver: str | None = None
    packages: dict[str, str] = field(default_factory=dict)  # distribution -> version
    read: list[str] = field(default_factory=list)  # "what <- where" lines, in reading order
    unread: list[str] = field(default_factory=list)  # what could not be read, and why

    @property
    def is_gpu(self) -> bool:
        return self.product not in (None, "A2", "A3")

    def framework_versions(self) -> dict[str, str]:
        return {PACKAGES[d]: v for d, v in self.packages.items() if PACKAGES.get(d)}


def read_machine(env: dict, timeout: float = 2.0) -> Facts:
    facts = Facts()
    _read_accelerator(facts, timeout)
    _read_cann(facts, env)
    _read_packages(facts)
    return facts


# ---- accelerator -------------------------------------------------------------------------------------------

def _read_accelerator(facts: Facts, timeout: float) -> None:
    npu_text, npu_why = run_tool(["npu-smi", "info"], timeout)
    if npu_text is not None:
        _apply_npu(facts, parse_npu_smi(npu_text))
        return
    gpu_text, gpu_why = run_tool(["nvidia-smi", "--query-gpu=name,memory.total", "--format=csv,noheader"], timeout)
    if gpu_text is not None:
        _apply_gpu(facts, gpu_text)
        return
    facts.unread.append(f"accelerator: {npu_why}; {gpu_why}")


@dataclass
class NpuTable:
    names: list[str]
    chips_per_npu: int
    phy_id_column: bool
    hbm_mb: int | None  # smallest HBM total over the chips


def parse_npu_smi(text: str) -> NpuTable:
    names, chips, hbm, phy = [], {}, [], False
    npu = None
    for line in text.splitlines()[:4096]:
        cells = [c.strip() for c in line.split("|")]
        if len(cells) < 4:
            continue
        if cells[1].startswith("Chip") and "Phy-ID" in cells[1]:
            phy = True
        words = cells[1].split()
        if _BUS_ID.match(cells[2]):  # the chip row of a pair: "<chip> [<phy-id>] | <bus-id> | ... HBM used / total"
            chips[npu] = chips.get(npu, 0) + 1
            usage = _USAGE.findall(cells[3])
            if usage:
                hbm.append(int(usage[-1][1]))
        elif len(words) >= 2 and words[0].isdigit() and cells[2] and not cells[2].startswith("Bus"):
            npu = words[0]
            names.append(" ".join(words[1:]))
    return NpuTable(names, max(chips.values(), default=0), phy, min(hbm) if hbm else None)


def _npu_product(table: NpuTable) -> tuple[str | None, str]:
    from moecfg.frameworks.hints import product_from_hints

    distinct = sorted(set(table.names))
    if not distinct:
        return None, "npu-smi info lists no NPU"
    if len(distinct) > 1:
        return None, f"npu-smi info lists different NPUs ({', '.join(distinct)})"
    name = distinct[0]
    found = product_from_hints([(name, None)])
    if found:
        return found[0], f"npu-smi info: {name}"
    if name == "Ascend910" and table.phy_id_column and table.chips_per_npu == 2:
        return "A3", "npu-smi info: Ascend910 with 2 chips (dies) per NPU and the Chip Phy-ID column (Atlas A3, 910_93)"
    return None, f"npu-smi info names {name!r}, not an Atlas A2 or A3 NPU moecfg knows (pass --product)"


def _apply_npu(facts: Facts, table: NpuTable) -> None:
    product, how = _npu_product(table)
    if product is None:
        facts.unread.append(f"Ascend product: {how}")
    else:
        facts.product, facts.product_from = product, how
        facts.read.append(f"product {product} <- {how}, {len(table.names)} chips")
    if table.hbm_mb:
        facts.device_memory_gb = table.hbm_mb / 1024
        facts.memory_from = f"npu-smi info HBM {table.hbm_mb} MB per chip"
        facts.read.append(f"device memory {facts.device_memory_gb:g} GiB per rank <- {facts.memory_from}")
    else:
        facts.unread.append("device memory: npu-smi info shows no HBM-Usage column")


def _apply_gpu(facts: Facts, text: str) -> None:
    from moecfg.backends.device.devices import DEVICES
    from moecfg.frameworks.gpu_device import gpu_name

    rows = [[c.strip() for c in line.split(",")] for line in text.splitlines()[:1024] if line.strip()]
    names = sorted({r[0] for r in rows})
    if not rows or len(names) != 1:
        facts.unread.append("GPU: nvidia-smi " + ("lists no GPU" if not rows else f"lists different GPUs ({', '.join(names)})"))
        return
    model = gpu_name(names[0])
    if model in DEVICES:
        facts.product, facts.product_from = model, f"nvidia-smi: {names[0]}"
        facts.read.append(f"GPU {model} <- nvidia-smi: {names[0]} x {len(rows)}")
    else:
        facts.unread.append(f"GPU: nvidia-smi names {names[0]!r}, not a GPU moecfg has limits for")
    m = re.match(r"^(\d{1,9})\s*MiB$", rows[0][1] if len(rows[0]) > 1 else "")
    if m:
        facts.device_memory_gb = int(m.group(1)) / 1024
        facts.memory_from = f"nvidia-smi memory.total {m.group(1)} MiB"
        facts.read.append(f"device memory {facts.device_memory_gb:.1f} GiB per GPU <- {facts.memory_from}")


# ---- CANN and driver -------------------------------------------------------------------------------------------

def _read_cann(facts: Facts, env: dict) -> None:
    roots = [env.get("ASCEND_HOME_PATH"), env.get("ASCEND_TOOLKIT_HOME"), *_CANN_ROOTS]
    for root in dict.fromkeys(r for r in roots if r):
        for info in sorted(glob.glob(os.path.join(glob.escape(root), "*-linux", "ascend_toolkit_install.info")))[:4]:
            version = _key(info, "version")
            if version:
                facts.cann, facts.cann_from = version, info
                facts.read.append(f"CANN {version} <- {info}")
                break
        if facts.cann:
            break
    if facts.cann is None and not facts.is_gpu:
        tried = ", ".join(dict.fromkeys(r for r in roots if r))
        facts.unread.append(f"CANN version: no <arch>-linux/ascend_toolkit_install.info under {tried}")
    driver = _key(_DRIVER_INFO, "Version")
    if driver:
        facts.driver = driver
        facts.read.append(f"NPU driver {driver} <- {_DRIVER_INFO}")


def _key(path: str, key: str) -> str | None:
    """`key=value` of a small version file, or None (absent, unreadable, too big, no such key)."""
    text = read_small(path, _INFO_CAP)  # non-blocking: a FIFO at the version file never blocks preflight
    if text is None:
        return None
    m = re.search(rf"^\s*{re.escape(key)}\s*=\s*([\w.+-]{{1,64}})\s*$", text, re.M | re.I)
    return m.group(1) if m else None


# ---- installed packages ---------------------------------------------------------------------------------------

def _read_packages(facts: Facts) -> None:
    from importlib import metadata

    missing = []
    for dist in PACKAGES:
        try:
            version = metadata.version(dist)
        except metadata.PackageNotFoundError:
            missing.append(dist)
            continue
        except Exception as exc:  # a broken dist-info: report, never crash the launch
            missing.append(f"{dist} (unreadable metadata: {type(exc).__name__})")
            continue
        if version:
            facts.packages[dist] = str(version)[:64]
    if facts.packages:
        facts.read.append("installed " + ", ".join(f"{d} {v}" for d, v in facts.packages.items())
                          + " <- package metadata")
    if missing:
        facts.unread.append("not installed (no package metadata): " + ", ".join(missing))
