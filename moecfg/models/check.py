"""A deployment (dict, pydantic model, YAML text or a path) checked in-process: the engine's report as the public
pydantic Report. The models' own rule validator and moecfg.api both call it; it sits in models (above the
check orchestration and render, below the API), so a model never imports the API."""
from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from moecfg.models.report import Report


def options(cann: str | None, product: str | None):
    from moecfg.backends import Options

    return Options(cann=cann, product=product.upper() if isinstance(product, str) else None)


def to_report(core_report) -> Report:
    from moecfg.models.report import Report
    from moecfg.render.json_report import as_dict

    return Report.model_validate(as_dict(core_report))


def _yaml_text(config) -> str:
    import yaml  # type: ignore[import-untyped,unused-ignore]  # mypy < 1.11 asks for types-PyYAML here

    if hasattr(config, "model_dump"):  # a moecfg model (or any pydantic model holding a document)
        config = _model_document(config)
    if not isinstance(config, Mapping):
        raise TypeError(f"config must be a mapping, a pydantic model, YAML text or a path, got {type(config).__name__}")
    return yaml.safe_dump(dict(config), sort_keys=False, allow_unicode=True)


def _model_document(model) -> dict:
    data = model.model_dump(exclude_unset=True, mode="python")
    for fixed in ("kind", "op", "api"):  # the Literal discriminators: always part of the document
        if fixed in type(model).model_fields and fixed not in data:
            data[fixed] = getattr(model, fixed)
    return data


def core_check(config, cann, product, name: str):
    from moecfg.core.diagnostics import Report as CoreReport
    from moecfg.checking.engine import check_paths, check_text

    opts = options(cann, product)
    if isinstance(config, os.PathLike) or (isinstance(config, str) and "\n" not in config
                                             and (os.path.isfile(config) or os.path.isdir(config))):
        from moecfg.checking.settings import Settings

        return check_paths([os.fspath(config)], opts, Settings())
    text = config if isinstance(config, str) else _yaml_text(config)
    checked = check_text(text, name, opts)
    from moecfg.core.coverage import state_of

    return CoreReport(results=checked.results, files=1, skipped=checked.skipped, unread=checked.unread,
                      states=[state_of(name, checked.results, checked.skipped, checked.unread)])


def check_config(config: Any, *, cann: str | None = None, product: str | None = None, name: str = "<config>") -> Report:
    """The public Report of `config` (see moecfg.api.check)."""
    return to_report(core_check(config, cann, product, name))
