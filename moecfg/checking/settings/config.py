"""A config table (from YAML or TOML) validated into a frozen `Config`; errors name the file and setting."""
from __future__ import annotations

import os
import re

from moecfg.core.record import field, record
from moecfg.core.diagnostics import clip, shown
from moecfg.checking.settings.errors import ConfigError

SEVERITIES = ("error", "warning", "info")
FAIL_ON = ("error", "warning", "info", "never")
UNREAD = ("list", "error")  # a launch seen but not read: listed (default), or it fails the run (issue 30)
_CODE_PREFIX = re.compile(r"^MC\d{0,3}$")
_KEYS = ("cann_version", "product", "fail_on", "ignore", "per_path_ignores", "severity", "inline_suppressions",
         "framework_versions", "models", "device", "device_memory_gb", "markdown", "respect_gitignore", "unread",
         "exclude", "extend_exclude")
FRAMEWORKS = ("vllm-ascend", "vllm", "sglang", "megatron", "mindspeed", "mindie", "vllm-mindspore", "lmdeploy",
              "xllm", "lightllm", "rtp-llm")


@record(frozen=True)
class Config:
    """A settings file (.moecfg.yaml or [tool.moecfg]) as read, or the built-in defaults."""

    path: str | None = None  # None: built-in defaults
    cann_version: str | None = None
    product: str | None = None
    fail_on: str | None = None
    ignore: tuple = ()
    per_path_ignores: tuple = ()  # (pattern, compiled matcher, codes)
    severity: dict = field(default_factory=dict)
    inline_suppressions: bool | None = None
    framework_versions: dict = field(default_factory=dict)  # framework -> version string (launch files)
    models: dict = field(default_factory=dict)  # model string as written (or "*") -> preset name or config.json path
    device: str | None = None  # GPU model of GPU launches (H100, H200, B200, ...); `product` stays the Ascend one
    device_memory_gb: float | None = None  # memory per device of launches (overrides the catalogue value)
    markdown: bool | None = None  # walking reads documentation (None: unless the walked folder is a repository's top)
    respect_gitignore: bool | None = None  # walking folders honours their .gitignore files (default true)
    # Walking leaves out (pattern, matcher) of gitignore-style patterns relative to this file's folder: `exclude`
    # replaces the built-in list of folders nobody deploys from (vendor/, build/, ...; None: the built-in list
    # applies), `extend-exclude` adds to whichever applies. A path named on the command line is always checked.
    exclude: tuple | None = None
    extend_exclude: tuple = ()
    unread: str | None = None  # "error": a launch seen but not read fails the run (default "list")

    @property
    def root(self) -> str:
        return os.path.dirname(self.path) if self.path else os.getcwd()


def parse(table: dict, path: str | None) -> Config:
    where = f"{path}: " if path else ""
    values = {}
    for key, value in table.items():
        norm = str(key).replace("-", "_")
        if norm not in _KEYS:
            from moecfg.core.fields import suggest

            known = ", ".join(k.replace("_", "-") if k not in ("cann_version",) else k for k in _KEYS)
            raise ConfigError(f"{where}unknown setting `{clip(key)}`{suggest(str(key), _KEYS)}; known: {known}")
        values[norm] = value
    root = os.path.dirname(path) if path else os.getcwd()
    try:
        return Config(
            path=path,
            cann_version=_version(values.get("cann_version")),
            product=_product(values.get("product")),
            fail_on=_choice(values.get("fail_on"), FAIL_ON, "fail-on"),
            ignore=tuple(_codes(values.get("ignore", []), "ignore")),
            per_path_ignores=_per_path(values.get("per_path_ignores", {}), root),
            severity=_severities(values.get("severity", {})),
            inline_suppressions=_bool(values.get("inline_suppressions"), "inline-suppressions"),
            framework_versions=framework_versions(values.get("framework_versions", {})),
            models=_models(values.get("models", {})),
            device=_device(values.get("device")),
            device_memory_gb=_memory(values.get("device_memory_gb")),
            markdown=_bool(values.get("markdown"), "markdown"),
            respect_gitignore=_bool(values.get("respect_gitignore"), "respect-gitignore"),
            exclude=None if values.get("exclude") is None else _patterns(values["exclude"], "exclude"),
            extend_exclude=_patterns(values.get("extend_exclude", []), "extend-exclude"),
            unread=_choice(values.get("unread"), UNREAD, "unread"),
        )
    except ConfigError as exc:
        raise ConfigError(f"{where}{exc}") from None


def _version(v):
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (str, int, float)):
        raise ConfigError(f"`cann_version` must be a version such as 9.0.1 or latest, got {shown(v)}")
    text = str(v)
    if not re.match(r"^(v?\d+\.\d+.*|latest|master|head)$", text.strip().lower()):
        raise ConfigError(f"`cann_version` = {shown(text)} is not a CANN version (write e.g. 8.5.0, 9.0.1, 9.1 or latest)")
    return text


def framework_versions(v) -> dict:
    """`framework-versions` (and `--framework-version NAME=VERSION`): framework -> version; ConfigError if not."""
    if not isinstance(v, dict):
        raise ConfigError(f"`framework-versions` must be a mapping such as {{vllm-ascend: 0.13.0}}, got {type(v).__name__}")
    out = {}
    for name, version in v.items():
        if name not in FRAMEWORKS:
            from moecfg.core.fields import suggest

            raise ConfigError(f"`framework-versions`: unknown framework {str(name)[:60]!r}{suggest(str(name), FRAMEWORKS)}; "
                              f"known: {', '.join(FRAMEWORKS)}")
        # a PEP 440 version (packaging: `0.23.0.post1`, `v0.26.0rc` -- vllm-ascend's releases/v0.26.0rc branch) or main
        if isinstance(version, bool) or not isinstance(version, (str, int, float)) or \
                not (str(version).strip() == "main" or _pep440(str(version))):
            raise ConfigError(f"`framework-versions.{name}` = {str(version)[:60]!r} is not a version such as 0.13.0 or main")
        out[name] = str(version).strip().lstrip("v")
    return out


def _pep440(text: str) -> bool:
    from moecfg.frameworks.versions import parse

    return parse(text, strict=True) is not None


def _models(v) -> dict:
    if not isinstance(v, dict):
        raise ConfigError(f"`models` must be a mapping of model strings to presets or config.json paths, got {type(v).__name__}")
    for key, value in v.items():
        if not isinstance(key, str) or not isinstance(value, str) or not value.strip():
            raise ConfigError(f"`models`: {str(key)[:60]!r} must map to a preset name or a config.json path (a string)")
    return dict(v)


def _device(v):
    if v is None:
        return None
    from moecfg.backends.device.devices import GPU_DEVICES

    names = {n.lower(): n for n in GPU_DEVICES}
    if not isinstance(v, str) or v.strip().lower() not in names:
        raise ConfigError(f"`device` = {str(v)[:60]!r} is not a GPU model moecfg knows ({', '.join(GPU_DEVICES)})")
    return names[v.strip().lower()]


def _memory(v):
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)) or v <= 0:
        raise ConfigError(f"`device_memory_gb` = {str(v)[:60]!r} must be a positive number of GB")
    return float(v)


def _product(v):
    if v is None:
        return None
    from moecfg.backends.ascend.fields import PRODUCT_ALIASES

    names = {"a2": "A2", "a3": "A3", **{a: c for a, c in PRODUCT_ALIASES}}
    if not isinstance(v, str) or v.strip().lower() not in names:
        raise ConfigError(f"`product` = {shown(v)} is not A2 or A3")
    return names[v.strip().lower()]


def _choice(v, choices, key):
    if v is None:
        return None
    if not isinstance(v, str) or v.lower() not in choices:
        raise ConfigError(f"`{key}` = {shown(v)} is not one of {', '.join(choices)}")
    return v.lower()


def _bool(v, key):
    if v is None or isinstance(v, bool):
        return v
    raise ConfigError(f"`{key}` must be true or false, got {shown(v)}")


def _codes(v, key) -> list[str]:
    if isinstance(v, str):
        v = [v]
    if not isinstance(v, list):
        raise ConfigError(f"`{key}` must be a list of rule codes or names, got {shown(v)}")
    return [code_or_prefix(item, key) for item in v]


def code_or_prefix(item, key="ignore") -> str:
    """A code (MC201), a code prefix (MC2) or a rule name, normalised to a code or prefix."""
    if not isinstance(item, str) or not item.strip():
        raise ConfigError(f"`{key}`: {shown(item)} is not a rule code or name")
    text = item.strip()
    if _CODE_PREFIX.match(text.upper()):
        return text.upper()
    from moecfg.core.registry import all_rules, get

    all_rules()
    r = get(text)
    if r is None:
        from moecfg.core.registry import RULES
        from moecfg.core.fields import suggest

        hint = suggest(text, [x.name for x in RULES.values()])
        raise ConfigError(f"`{key}`: {shown(text)} is not a rule code or name{hint}")
    return r.code


def _severities(v) -> dict:
    if not isinstance(v, dict):
        raise ConfigError(f"`severity` must map rule codes to error, warning or info, got {shown(v)}")
    out = {}
    for k, sev in v.items():
        code = code_or_prefix(k, "severity")
        out[code] = _choice(sev, SEVERITIES, f"severity.{clip(k)}")
    return out


def _per_path(v, root) -> tuple:
    from moecfg.checking.settings.globs import gitignore_regex

    if not isinstance(v, dict):
        raise ConfigError(f"`per-path-ignores` must map path patterns to lists of codes, got {shown(v)}")
    return tuple((str(pat), gitignore_regex(str(pat)), tuple(_codes(codes, f"per-path-ignores.{clip(pat)}")))
                 for pat, codes in v.items())


def _patterns(v, key) -> tuple:
    """`exclude` / `extend-exclude`: a list of gitignore-style patterns (one string is a list of one)."""
    from moecfg.checking.settings.globs import gitignore_regex

    if isinstance(v, str):
        v = [v]
    if not isinstance(v, list) or not all(isinstance(p, str) for p in v):
        raise ConfigError(f"`{key}` must be a list of gitignore-style path patterns such as [legacy/, '*.draft.yaml'], "
                          f"got {shown(v)}")
    return tuple((p, gitignore_regex(p, key)) for p in v)
