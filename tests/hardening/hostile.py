"""Shared inputs and the in-process `cli` fixture of the hardening tests (issue 15).

Not a conftest.py: tests/conftest.py is imported as `conftest` by other folders."""
from __future__ import annotations

import pytest

from moecfg.cli import main

GOOD = """\
product: A3
cann_version: 9.0.1
bs: 128
h: 7168
k: 8
ep_world_size: 32
moe_expert_num: 256
quant_mode: 2
env:
  HCCL_BUFFSIZE: 1024
"""
BAD = GOOD.replace("moe_expert_num: 256", "moe_expert_num: 250")  # MC201


@pytest.fixture
def cli(capsys, monkeypatch):
    """`cli(*argv, stdin=None) -> (exit code, stdout, stderr)` of an in-process run, outside GitHub Actions."""
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.setenv("NO_COLOR", "1")

    def run(*argv, stdin: bytes | None = None):
        if stdin is not None:
            import io
            import sys

            monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
        with pytest.raises(SystemExit) as exc:
            main(list(argv))
        out = capsys.readouterr()
        code = exc.value.code
        return (0 if code is None else code), out.out, out.err

    return run
