"""docs/api.md, generated from the public API's signatures and docstrings (`python -m moecfg.cli.api_docs`);
tests/api/test_api_docs.py fails when the page is out of date."""
from __future__ import annotations

import inspect
import sys

API_MD = "docs/api.md"
FUNCTIONS = ("check", "check_launch", "required_buffers", "catalog")
REPORT_MODELS = ("Report", "Result", "Diagnostic", "Requirement", "Launch", "Summary", "Skipped", "Coverage", "Unread",
                 "FileState")


def _function(name: str) -> list[str]:
    from moecfg import api

    fn = getattr(api, name)
    sig = str(inspect.signature(fn)).replace("'", "")
    return [f"### `moecfg.{name}{sig}`", "", inspect.cleandoc(fn.__doc__ or ""), ""]


def _type(annotation) -> str:
    text = getattr(annotation, "__name__", None) if isinstance(annotation, type) else None
    text = text or str(annotation).replace("typing.", "")
    return text.replace("|", "\\|")


def _shown_default(value) -> str:
    """A nested model's default as the mapping a user writes (`{}` when every key is unset), not its repr."""
    if hasattr(value, "model_dump"):
        return repr(value.model_dump(exclude_none=True))
    return repr(value)


def _model(model) -> list[str]:
    out = [f"### `moecfg.models.{model.__name__}`", "", inspect.cleandoc(model.__doc__ or ""), "",
           "| field | type | default | description |", "|---|---|---|---|"]
    for name, f in model.model_fields.items():
        default = "required" if f.is_required() else f"`{_shown_default(f.get_default(call_default_factory=True))}`"
        desc = (f.description or "").replace("|", "\\|").replace("\n", " ")
        out.append(f"| `{name}` | {_type(f.annotation)} | {default} | {desc} |")
    return out + [""]


def markdown() -> str:
    from moecfg import models

    lines = ["# moecfg Python API", "",
             "Generated from the docstrings by `python -m moecfg.cli.api_docs`; do not edit by hand. "
             "`import moecfg` loads neither pydantic nor rich: the functions and models load on first use.", "",
             "## Functions", ""]
    for name in FUNCTIONS:
        lines += _function(name)
    lines += ["## Report models", ""]
    for name in REPORT_MODELS:
        lines += _model(getattr(models, name))
    lines += ["## Deployment models", "",
              "One per kind and op, generated from the field tables the linter uses. "
              "`Model.model_validate(data, context={\"strict_rules\": True})` also runs moecfg's rules and raises "
              "`pydantic.ValidationError` with the rule code as each error's `type`.", ""]
    for name in models.kind_model_names():
        lines += _model(getattr(models, name))
    return "\n".join(lines).rstrip() + "\n"


def main(argv=None) -> int:
    text = markdown()  # before opening: a failure must not leave the committed file empty
    with open(API_MD, "w", encoding="utf-8") as fh:
        fh.write(text)
    print(f"wrote {API_MD}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

