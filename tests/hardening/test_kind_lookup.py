"""Security 3: `kind` is looked up in the registry only; `kind: __main__` used to import moecfg/__main__.py,
which ran the CLI again and swallowed the first document's errors (exit 0)."""
from __future__ import annotations

import json

import pytest

from hostile import BAD, cli  # noqa: F401  (fixture)


@pytest.mark.parametrize("kind", ["__main__", "cli", "checking.engine", "os", "../x", "ascend.kind"])
def test_kind_never_becomes_a_module_name(cli, kind):
    stdin = (BAD + f"---\nkind: {kind}\n").encode()
    code, out, _ = cli("check", "--format", "json", "-", stdin=stdin)
    assert code == 1
    report = json.loads(out)  # one report: the CLI did not run a second time
    codes = [[d["code"] for d in r["diagnostics"]] for r in report["results"]]
    assert codes[0] == ["MC201"] and codes[1] == ["MC006"]
    assert "is not one of ascend, deepep, tutel" in report["results"][1]["diagnostics"][0]["message"]
