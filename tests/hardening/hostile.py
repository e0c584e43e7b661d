"""Shared inputs and the in-process `cli` fixture of the hardening tests (issue 15).

Not a conftest.py: tests/conftest.py is imported as `conftest` by other folders."""
from __future__ import annotations

import pytest
from test_cli import BAD, GOOD  # noqa: F401  (the A3 document of the CLI tests; BAD fires MC201)

from moecfg.cli import main


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
