"""JSON Schema of deployment files, for editors (`moecfg schema`; `# yaml-language-server: $schema=...`).

The pydantic models are generated from the same FieldSpec tables (`moecfg/<kind>/fields.py`) that the fast
validator of `moecfg check` uses, with `pydantic.create_model`, so the schema and the validator cannot
drift. A kind whose fields module has `OP_FIELDS` gets one model per op. pydantic is imported only here.
"""
from __future__ import annotations

from functools import partial
from typing import Annotated, Any, Literal, Optional, Union

from pydantic import ConfigDict, Field, StringConstraints, TypeAdapter, create_model

from moecfg.backends import DEFAULT_KIND, KIND_MODULES, fields_module

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
_DIGITS = Annotated[str, StringConstraints(pattern=r"^\s*[0-9]+\s*$")]


def available_kinds() -> list[str]:
    return [kind for kind in KIND_MODULES if fields_module(kind) is not None]


def _variants(spec) -> tuple:
    """Every spelling the validator accepts for an enum (it matches case-insensitively)."""
    out: list[str] = []
    for v in list(spec.choices) + [a for a, _ in spec.aliases]:
        for form in (v, v.lower(), v.upper()):
            if form not in out:
                out.append(form)
    return tuple(out)


def _describe(spec) -> str:
    text = spec.doc or spec.name
    if spec.type == "enum" and spec.aliases:
        text += "; case-insensitive; aliases: " + ", ".join(f"{a} = {c}" for a, c in spec.aliases)
    elif spec.type == "enum":
        text += "; case-insensitive"
    if spec.type == "env_int":
        text += " (an integer, or a string of digits as in the environment)"
    return text


def _annotation(spec, model_name: str):
    t = spec.type
    if t == "int":
        ann: Any = int
    elif t == "env_int":
        ann = Union[int, _DIGITS]
    elif t == "bool":
        ann = bool
    elif t == "float":
        ann = Union[float, int]
    elif t == "str":
        ann = str
    elif t == "version":
        ann = Union[str, float, int]
    elif t == "enum":
        ann = Literal[_variants(spec)]
    elif t == "int_list":
        ann = Annotated[list[int], Field(min_length=spec.length, max_length=spec.length)]
    elif t == "mapping":
        ann = model_from_fields(f"{model_name}_{spec.name}", spec.fields, extra="allow" if spec.open else "forbid")
    else:
        raise ValueError(f"field type {t!r} of {spec.name} has no JSON Schema mapping")
    return Optional[ann] if spec.nullable else ann


def _field(spec, model_name: str, fixed: dict):
    if spec.name in fixed:
        value, required = fixed[spec.name]
        desc = _describe(spec)
        return (Literal[value], Field(description=desc) if required else Field(default=value, description=desc))
    ann = _annotation(spec, model_name)
    if spec.required:
        return ann, Field(description=_describe(spec))
    default = spec.default
    if spec.type == "mapping" and isinstance(default, dict):
        # the default must be an instance of the field's model, not a plain dict: pydantic warns on model_dump()
        # otherwise (PydanticSerializationUnexpectedValue), which breaks a user's suite run with -W error
        sub = next(a for a in getattr(ann, "__args__", (ann,)) if a is not type(None))
        return ann, Field(default_factory=partial(sub.model_validate, dict(default)), description=_describe(spec))
    if isinstance(default, (dict, list)):  # a fresh copy per instance
        return ann, Field(default_factory=partial(type(default), default), description=_describe(spec))
    if isinstance(default, tuple):
        default = list(default)
    return ann, Field(default=default, description=_describe(spec))


def model_from_fields(name: str, fields, *, fixed: dict | None = None,
                      extra: Literal["allow", "ignore", "forbid"] = "forbid", doc: str = "",
                      base=None, schema_extra=None):
    """A strict pydantic model of a FieldSpec table; `fixed` = {field: (literal value, required)}. `base`: a
    BaseModel subclass to derive from (the API's rule-checking models); its model_config must match.
    `schema_extra(schema)`: edits the model's JSON Schema (the editor schema's `model:` presets)."""
    fixed = fixed or {}
    defs = {f.name: _field(f, name, fixed) for f in fields}
    if base is not None:
        return create_model(name, __base__=base, __doc__=doc or None, **defs)
    # protected_namespaces=(): fields such as `model_dim` are the ops' own names (pydantic < 2.10 warns on `model_`)
    config = ConfigDict(extra=extra, strict=True, title=name, protected_namespaces=())
    if schema_extra is not None:
        config["json_schema_extra"] = schema_extra
    return create_model(name, __config__=config, __doc__=doc or None, **defs)


def preset_keys(kind: str):
    """The JSON Schema edit of a kind whose documents may name a built-in model (`model:`, `redundant_experts:`,
    presets/expand.py, applied by `check` before the field tables validate): the two keys are properties, and the
    keys a preset fills are required only without `model:`. None for a kind without presets."""
    from moecfg.presets.expand import EXPERT_COUNT, FILL

    if kind not in FILL:
        return None
    filled = [key for key, _ in FILL[kind]]

    def edit(schema: dict) -> None:
        from moecfg.presets import names

        props = schema.setdefault("properties", {})  # the field tables may declare them (their text wins)
        props.setdefault("model", {"type": "string", "description": "A built-in model: fills "
                                   + ", ".join(filled) + " where the document does not set them"})
        props["model"]["examples"] = names()  # completion; case, -, _ and . are ignored by the lookup
        props.setdefault("redundant_experts", {"type": "integer", "description":
                                               f"EPLB redundant experts, added to {EXPERT_COUNT[kind]}"})
        props["redundant_experts"]["minimum"] = 0
        by_hand = [k for k in schema.get("required", []) if k in filled]
        if by_hand:
            schema["required"] = [k for k in schema["required"] if k not in filled]
            schema["anyOf"] = [{"required": ["model"]}, {"required": by_hand}]

    return edit


def kind_models(kind: str, base=None, names=None, presets: bool = False) -> list:
    """The models of one kind: one per op when the kind has OP_FIELDS, else one. `names(kind, op)` renames them.
    `presets`: the JSON Schema takes `model:` / `redundant_experts:` as `check` does (preset_keys)."""
    edit = preset_keys(kind) if presets else None
    mod = fields_module(kind)
    if mod is None:
        raise ValueError(f"unknown kind {kind!r}")
    kind_fixed = (kind, kind != DEFAULT_KIND)  # `kind:` may be omitted only for the default kind
    title = kind.capitalize()
    op_fields = getattr(mod, "OP_FIELDS", None)
    if not op_fields:
        return [model_from_fields(names(kind, None) if names else title, mod.FIELDS, fixed={"kind": kind_fixed},
                                  doc=f"A `kind: {kind}` deployment document.", base=base, schema_extra=edit)]
    default_op = getattr(mod, "DEFAULT_OP", next(iter(op_fields)))
    key = getattr(mod, "OP_KEY", "op")  # deepep selects its table with `api:`
    models = []
    for op, fields in op_fields.items():
        name = names(kind, op) if names else title + "_" + "".join(p.capitalize() for p in op.split("_"))
        fixed = {"kind": kind_fixed, key: (op, op != default_op)}
        models.append(model_from_fields(name, fields, fixed=fixed, doc=f"A `kind: {kind}`, `{key}: {op}` document.",
                                        base=base, schema_extra=edit))
    return models


def _drop_null_defaults(node):
    """pydantic writes `default: null` for absent-by-default fields; an editor would offer null, which the
    validator refuses unless the field is nullable (its schema then allows null anyway)."""
    if isinstance(node, dict):
        if node.get("default", 0) is None and not _allows_null(node):
            del node["default"]
        for v in node.values():
            _drop_null_defaults(v)
    elif isinstance(node, list):
        for v in node:
            _drop_null_defaults(v)
    return node


def _allows_null(node: dict) -> bool:
    return node.get("type") == "null" or any(o.get("type") == "null" for o in node.get("anyOf", []))


def json_schema(kind: str | None = None) -> dict:
    kinds = [kind] if kind else available_kinds()
    models = [m for k in kinds for m in kind_models(k, presets=True)]
    target: Any = models[0] if len(models) == 1 else Union[tuple(models)]
    adapter: TypeAdapter[Any] = TypeAdapter(target)
    schema = _drop_null_defaults(adapter.json_schema())
    what = f"`kind: {kind}`" if kind else "any kind"
    out = {"$schema": SCHEMA_DIALECT, **schema}
    out["title"] = f"moecfg deployment file ({what})"
    out["description"] = ("MoE expert-parallel deployment config checked by `moecfg check`; generated from the "
                          "field tables by `moecfg schema`. Hardware rules (divisibility, limits per product and "
                          "CANN release, buffer sizes) are checked by moecfg, not by this schema; JSON Schema "
                          "cannot tell 8.0 from 8, moecfg check can.")
    return out
