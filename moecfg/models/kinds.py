"""pydantic models of every kind and op, generated from the field tables the fast validator uses (so the two
cannot drift), each able to run moecfg's rules: `Model.model_validate(data, context={"strict_rules": True})`
raises a `pydantic.ValidationError` whose errors carry the rule code as `type`, the message and the field `loc`
-- so a moecfg model nests in a framework's own pydantic config."""
from __future__ import annotations

from pydantic import BaseModel, ConfigDict, ValidationError, ValidationInfo, model_validator
from pydantic_core import InitErrorDetails, PydanticCustomError

from moecfg.models.export import available_kinds, kind_models

_FIXED_NAMES = {("deepep", None): "DeepEPBuffer", ("deepep", "v1"): "DeepEPBuffer", ("deepep", "v2"): "DeepEPElasticBuffer",
                ("deepep", "hybridep"): "DeepEPHybridEPBuffer", ("tutel", None): "TutelMoE"}


class RuleCheckedModel(BaseModel):
    """Base of the deployment models: strict types; moecfg's hardware rules on request."""

    model_config = ConfigDict(extra="forbid", strict=True, protected_namespaces=())  # `model_dim` is an op field

    @model_validator(mode="after")
    def _moecfg_rules(self, info: ValidationInfo):
        if not (info.context and info.context.get("strict_rules")):
            return self
        from moecfg.models.check import check_config

        report = check_config(self, cann=info.context.get("cann"))
        errors = [d for d in report.diagnostics if d.severity == "error"]
        if errors:
            raise ValidationError.from_exception_data(type(self).__name__, [
                InitErrorDetails(type=PydanticCustomError(d.code, "{message}", {"message": d.message, "rule": d.name}),
                                 loc=_loc(d.path), input=_value_at(self, d.path)) for d in errors])
        return self

    def check(self, cann: str | None = None):
        """This document's moecfg report (every severity), without raising."""
        from moecfg.models.check import check_config

        return check_config(self, cann=cann)


def _loc(pointer: str) -> tuple:
    parts = [p.replace("~1", "/").replace("~0", "~") for p in pointer.split("/")[1:]]
    return tuple(int(p) if p.isdigit() else p for p in parts)


def _value_at(model, pointer: str):
    node = model.model_dump()
    for key in _loc(pointer):
        if isinstance(node, dict) and key in node:
            node = node[key]
        else:
            return None
    return node


def _name(kind: str, op: str | None) -> str:
    if (kind, op) in _FIXED_NAMES:
        return _FIXED_NAMES[(kind, op)]
    return kind.capitalize() + "".join(p.capitalize() for p in (op or "").split("_"))


def build() -> dict[str, type[RuleCheckedModel]]:
    return {m.__name__: m for kind in available_kinds() for m in kind_models(kind, RuleCheckedModel, _name)}
