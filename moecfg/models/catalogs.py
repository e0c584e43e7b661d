"""The rule catalogs (frozen stdlib dataclasses on the `check` path) as validated, frozen pydantic models."""
from __future__ import annotations

import dataclasses
import functools
import types
import typing

from typing import Any

from pydantic import BaseModel, ConfigDict, create_model


@functools.lru_cache(maxsize=None)
def model_of(cls: Any) -> type[BaseModel]:
    """A strict, frozen pydantic model with the fields (and defaults) of a catalog dataclass."""
    hints = typing.get_type_hints(cls)
    defs: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        defs[f.name] = (_annotation(hints[f.name]), _default(f))
    config = ConfigDict(strict=True, frozen=True)
    return create_model(cls.__name__, __config__=config, __doc__=cls.__doc__, **defs)


def _annotation(ann: Any) -> Any:
    """Dataclass types (also inside `X | None`) become their models."""
    if isinstance(ann, type) and dataclasses.is_dataclass(ann):
        return model_of(ann)
    if typing.get_origin(ann) in (typing.Union, types.UnionType):
        return typing.Union[tuple(_annotation(a) for a in typing.get_args(ann))]
    return ann


def _default(f: Any) -> Any:
    if f.default is not dataclasses.MISSING:
        return f.default
    return f.default_factory() if f.default_factory is not dataclasses.MISSING else ...


def as_model(obj):
    """A catalog dataclass instance -> its pydantic model, validated strictly field by field."""
    return model_of(type(obj)).model_validate(_plain(obj))


def _plain(obj):
    if dataclasses.is_dataclass(obj):
        return {f.name: _plain(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    return obj


def catalog(product: str, ruleset: str = "latest"):
    from moecfg.backends.ascend.shared.rulesets import RULESETS

    key = str(product).strip().upper()
    if key not in ("A2", "A3"):
        raise ValueError(f"product {product!r}: A2 or A3")
    if ruleset not in RULESETS:
        raise ValueError(f"rule set {ruleset!r}: one of {', '.join(RULESETS)}")
    return as_model(getattr(RULESETS[ruleset], key.lower()))
