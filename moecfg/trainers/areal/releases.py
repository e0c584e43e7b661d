"""The AReaL release moecfg read."""
from __future__ import annotations

AREAL = "inclusionAI/AReaL@4aef98d"
VERSION = "4aef98d"
