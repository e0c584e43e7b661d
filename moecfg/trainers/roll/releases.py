"""The ROLL release moecfg read (setup.py:5 version 0.3.0; it pins no engine release: the engines are derived at
moecfg's own tables)."""
from __future__ import annotations

ROLL = "alibaba/ROLL@8eb27cc"
VERSION = "0.3.0+8eb27cc"
