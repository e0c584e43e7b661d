"""pydantic models of moecfg: one per kind and op (`AscendDispatchCombineV2`, `AscendMegaMoe`, `DeepEPBuffer`,
`TutelMoE`, ...), the report (`Report`, `Result`, `Diagnostic`, `Requirement`). Built on first access, so
`import moecfg` does not import pydantic."""
from __future__ import annotations

import functools

_REPORT = ("Report", "Result", "Diagnostic", "Requirement", "Launch", "Summary", "Skipped", "Coverage", "Unread",
           "FileState")


@functools.lru_cache(maxsize=1)
def _kind_models() -> dict:
    from moecfg.models.kinds import build

    return build()


def kind_model_names() -> list[str]:
    return sorted(_kind_models())


def __getattr__(name: str):
    if name in _REPORT:
        from moecfg.models import report

        return getattr(report, name)
    if name == "RuleCheckedModel":
        from moecfg.models.kinds import RuleCheckedModel

        return RuleCheckedModel
    models = _kind_models()
    if name in models:
        return models[name]
    raise AttributeError(f"module 'moecfg.models' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_REPORT) | set(_kind_models()))
