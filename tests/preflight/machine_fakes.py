"""A fake Ascend / NVIDIA machine in a temp dir: device tools on PATH, a CANN toolkit tree, package metadata
(dist-info on PYTHONPATH), a mounted model directory and a fake `vllm` that says it was launched."""
from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

# An A3 table as npu-smi 25.3.rc1 prints it (vllm-project/vllm-ascend#5588), cut to one NPU (two dies).
NPU_SMI_A3 = """\
+------------------------------------------------------------------------------------------------+
| npu-smi 25.3.rc1                 Version: 25.3.rc1                                             |
+---------------------------+---------------+----------------------------------------------------+
| NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|
| Chip  Phy-ID              | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |
+===========================+===============+====================================================+
| 0     Ascend910           | OK            | 163.6       30                0    / 0             |
| 0     0                   | 0000:9D:00.0  | 0           0    / 0          3180 / 65536         |
+------------------------------------------------------------------------------------------------+
| 0     Ascend910           | OK            | -           30                0    / 0             |
| 1     1                   | 0000:9F:00.0  | 0           0    / 0          2896 / 65536         |
+===========================+===============+====================================================+
"""
# An A2 table (HAMi-WebUI#47 layout: Chip column without Phy-ID, 910B4-1 with 32 GB per NPU shown as 65536 there).
NPU_SMI_A2 = """\
+------------------------------------------------------------------------------------------------+
| npu-smi 25.2.0                   Version: 25.2.0                                               |
+---------------------------+---------------+----------------------------------------------------+
| NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|
| Chip                      | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |
+===========================+===============+====================================================+
| 0     910B3               | OK            | 91.3        33                0    / 0             |
| 0                         | 0000:C1:00.0  | 0           0    / 0          3197 / 65536         |
+===========================+===============+====================================================+
| 1     910B3               | OK            | 88.1        32                0    / 0             |
| 0                         | 0000:C2:00.0  | 0           0    / 0          3197 / 65536         |
+===========================+===============+====================================================+
"""
DEEPSEEK_CONFIG = {"hidden_size": 7168, "n_routed_experts": 256, "num_experts_per_tok": 8, "n_shared_experts": 1,
                   "moe_intermediate_size": 2048, "num_hidden_layers": 61}


class FakeMachine:
    def __init__(self, root: Path):
        self.root, self.bin, self.site = root, root / "bin", root / "site"
        self.bin.mkdir()
        self.site.mkdir()
        self.env = {"PATH": f"{self.bin}{os.pathsep}{os.path.dirname(sys.executable)}{os.pathsep}/usr/bin:/bin",
                    "PYTHONPATH": f"{self.site}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
                    "HOME": str(root)}
        for key in ("SYSTEMROOT", "LANG"):
            if key in os.environ:
                self.env[key] = os.environ[key]

    def tool(self, name: str, script: str) -> None:
        path = self.bin / name
        path.write_text("#!/bin/sh\n" + script)
        path.chmod(path.stat().st_mode | stat.S_IXUSR)

    def npu_smi(self, table: str) -> None:
        (self.root / "npu-smi.txt").write_text(table)
        self.tool("npu-smi", f"cat '{self.root / 'npu-smi.txt'}'\n")

    def cann(self, version: str) -> None:
        info = self.root / "Ascend" / "cann" / "aarch64-linux" / "ascend_toolkit_install.info"
        info.parent.mkdir(parents=True)
        info.write_text(f"package_name=Ascend-cann-toolkit\nversion={version}\narch=aarch64\n")
        self.env["ASCEND_HOME_PATH"] = str(info.parent.parent)

    def package(self, name: str, version: str) -> None:
        dist = self.site / f"{name.replace('-', '_')}-{version}.dist-info"
        dist.mkdir()
        (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")

    def model(self, name: str, config: dict = DEEPSEEK_CONFIG) -> str:
        path = self.root / "models" / name
        path.mkdir(parents=True)
        (path / "config.json").write_text(json.dumps(config))
        return str(path)
