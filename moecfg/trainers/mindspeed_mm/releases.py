"""The MindSpeed-MM release moecfg read."""
from __future__ import annotations

MM = "Ascend/MindSpeed-MM@57069cd"
VERSION = "57069cd"
