"""docs/api.md is generated from the API's docstrings and must match the code."""
from pathlib import Path

from moecfg.cli.api_docs import markdown

ROOT = Path(__file__).resolve().parents[2]


def test_api_md_is_up_to_date():
    assert (ROOT / "docs" / "api.md").read_text(encoding="utf-8") == markdown(), \
        "run `python -m moecfg.cli.api_docs` and commit docs/api.md"


def test_every_public_function_is_documented():
    import moecfg

    text = markdown()
    for name in ("check", "check_launch", "required_buffers", "catalog"):
        assert f"### `moecfg.{name}(" in text and getattr(moecfg, name).__doc__
