"""The MindSpeed-RL release moecfg read."""
from __future__ import annotations

MSRL = "Ascend/MindSpeed-RL@05a90d7"
VERSION = "2.3.0+05a90d7"
