"""The ms-swift release moecfg read."""
from __future__ import annotations

SWIFT = "modelscope/ms-swift@3602360"
VERSION = "4.5.2+3602360"
