"""The configuration file: `.moecfg.yaml` (or `.moecfg.yml`, or `[tool.moecfg]` in `pyproject.toml`).

Found by walking up from each checked file's folder (stdin: the current folder); the nearest wins, and
in one folder `.moecfg.yaml` wins over `pyproject.toml`. `--config FILE` uses that file for every path.

    cann_version: 9.0.1        # default for documents without cann_version (the document's own value wins)
    product: A3                # default for documents without product
    device: H200               # GPU model of GPU launches (vLLM, SGLang, Megatron); product A2/A3 stays Ascend's
    device_memory_gb: 141      # memory per device of launches (overrides the device's catalogue value)
    fail-on: warning           # error | warning | info | never
    ignore: [MC011, MC5]       # codes, code prefixes (MC5 = every MC5xx) or rule names
    per-path-ignores:          # gitignore-style patterns, relative to this file's folder
      legacy/**: [MC203]
      "*-a2.yaml": [a2-shared-experts-ignored]
    severity:                  # severity overrides
      MC211: error
    inline-suppressions: true  # false: ignore `# moecfg: disable` comments (as --no-inline-suppressions)

Precedence: built-in defaults < config file < command line (`--fail-on`, `--cann`, `--ignore`,
`--no-inline-suppressions`). `cann_version` and `product` here are defaults: a document that sets them
keeps its value, and `--cann` overrides both. Only yaml and tomllib are used here (no pydantic).
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

SEVERITIES = ("error", "warning", "info")
FAIL_ON = ("error", "warning", "info", "never")
YAML_NAMES = (".moecfg.yaml", ".moecfg.yml")
_CODE_PREFIX = re.compile(r"^MC\d{0,3}$")
_KEYS = ("cann_version", "product", "fail_on", "ignore", "per_path_ignores", "severity", "inline_suppressions",
         "framework_versions", "models", "device", "device_memory_gb")
FRAMEWORKS = ("vllm-ascend", "vllm", "sglang", "megatron")


class ConfigError(Exception):
    """A configuration file that cannot be used (exit code 2)."""


@dataclass(frozen=True)
class Config:
    path: str | None = None  # None: built-in defaults
    cann_version: str | None = None
    product: str | None = None
    fail_on: str | None = None
    ignore: tuple = ()
    per_path_ignores: tuple = ()  # (pattern, compiled regex, codes)
    severity: dict = field(default_factory=dict)
    inline_suppressions: bool | None = None
    framework_versions: dict = field(default_factory=dict)  # framework -> version string (launch files)
    models: dict = field(default_factory=dict)  # model string as written (or "*") -> preset name or config.json path
    device: str | None = None  # GPU model of GPU launches (H100, H200, B200, ...); `product` stays the Ascend one
    device_memory_gb: float | None = None  # memory per device (overrides the device's catalogue value)

    @property
    def root(self) -> str:
        return os.path.dirname(self.path) if self.path else os.getcwd()


# ---- discovery ------------------------------------------------------------------------------------

_FOUND: dict[str, str | None] = {}
_LOADED: dict[str, Config] = {}


def find(start_dir: str) -> str | None:
    """Nearest config file at or above `start_dir`."""
    d = os.path.abspath(start_dir or ".")
    trail = []
    found = None
    while True:
        if d in _FOUND:
            found = _FOUND[d]
            break
        trail.append(d)
        found = _in_dir(d)
        if found:
            break
        parent = os.path.dirname(d)
        if parent == d:
            break
        d = parent
    for t in trail:
        _FOUND[t] = found
    return found


def _in_dir(d: str) -> str | None:
    for name in YAML_NAMES:
        p = os.path.join(d, name)
        if os.path.isfile(p):
            return p
    p = os.path.join(d, "pyproject.toml")
    if os.path.isfile(p):
        try:
            with open(p, encoding="utf-8", errors="replace") as fh:
                if re.search(r"^\s*\[tool\.moecfg[\].]", fh.read(), re.M):
                    return p
        except OSError:
            return None
    return None


def load(path: str) -> Config:
    path = os.path.abspath(path)
    if path not in _LOADED:
        _LOADED[path] = parse(_read_table(path), path)
    return _LOADED[path]


def _read_table(path: str) -> dict:
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the config file ({exc.strerror or exc})") from None
    if os.path.basename(path) == "pyproject.toml":
        return _toml_table(raw, path)
    import yaml

    try:
        data = yaml.safe_load(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: the config file is not UTF-8 text") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}:{mark.column + 1}" if mark else ""
        raise ConfigError(f"{path}{where}: the config file is not valid YAML: {getattr(exc, 'problem', exc)}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the config file must be a mapping of settings, got {type(data).__name__}")
    return data


def _toml_table(raw: bytes, path: str) -> dict:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        try:
            import tomli as tomllib
        except ModuleNotFoundError:
            raise ConfigError(f"{path}: reading [tool.moecfg] needs Python 3.11+ (or the tomli package)") from None
    try:
        doc = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    table = doc.get("tool", {}).get("moecfg", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.moecfg] must be a table")
    return table


# ---- validation -----------------------------------------------------------------------------------

def parse(table: dict, path: str | None) -> Config:
    where = f"{path}: " if path else ""
    values = {}
    for key, value in table.items():
        norm = str(key).replace("-", "_")
        if norm not in _KEYS:
            from moecfg.core.fields import suggest

            shown = ", ".join(k.replace("_", "-") if k not in ("cann_version",) else k for k in _KEYS)
            raise ConfigError(f"{where}unknown setting `{key}`{suggest(str(key), _KEYS)}; known: {shown}")
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
            framework_versions=_framework_versions(values.get("framework_versions", {})),
            models=_models(values.get("models", {})),
            device=_device(values.get("device")),
            device_memory_gb=_memory(values.get("device_memory_gb")),
        )
    except ConfigError as exc:
        raise ConfigError(f"{where}{exc}") from None


def _version(v):
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (str, int, float)):
        raise ConfigError(f"`cann_version` must be a version such as 9.0.1 or latest, got {v!r}")
    text = str(v)
    if not re.match(r"^(v?\d+\.\d+.*|latest|master|head)$", text.strip().lower()):
        raise ConfigError(f"`cann_version` = {text!r} is not a CANN version (write e.g. 8.5.0, 9.0.1, 9.1 or latest)")
    return text


def _framework_versions(v) -> dict:
    if not isinstance(v, dict):
        raise ConfigError(f"`framework-versions` must be a mapping such as {{vllm-ascend: 0.13.0}}, got {type(v).__name__}")
    out = {}
    for name, version in v.items():
        if name not in FRAMEWORKS:
            from moecfg.core.fields import suggest

            raise ConfigError(f"`framework-versions`: unknown framework {str(name)[:60]!r}{suggest(str(name), FRAMEWORKS)}; "
                              f"known: {', '.join(FRAMEWORKS)}")
        if isinstance(version, bool) or not isinstance(version, (str, int, float)) or \
                not re.match(r"^v?\d+(\.\d+){0,2}(rc\d+)?$|^main$", str(version).strip()):
            raise ConfigError(f"`framework-versions.{name}` = {str(version)[:60]!r} is not a version such as 0.13.0 or main")
        out[name] = str(version).strip().lstrip("v")
    return out


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
        raise ConfigError(f"`product` = {v!r} is not A2 or A3")
    return names[v.strip().lower()]


def _choice(v, choices, key):
    if v is None:
        return None
    if not isinstance(v, str) or v.lower() not in choices:
        raise ConfigError(f"`{key}` = {v!r} is not one of {', '.join(choices)}")
    return v.lower()


def _bool(v, key):
    if v is None or isinstance(v, bool):
        return v
    raise ConfigError(f"`{key}` must be true or false, got {v!r}")


def _codes(v, key) -> list[str]:
    if isinstance(v, str):
        v = [v]
    if not isinstance(v, list):
        raise ConfigError(f"`{key}` must be a list of rule codes or names, got {v!r}")
    return [code_or_prefix(item, key) for item in v]


def code_or_prefix(item, key="ignore") -> str:
    """A code (MC201), a code prefix (MC2) or a rule name, normalised to a code or prefix."""
    if not isinstance(item, str) or not item.strip():
        raise ConfigError(f"`{key}`: {item!r} is not a rule code or name")
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
        raise ConfigError(f"`{key}`: {text!r} is not a rule code or name{hint}")
    return r.code


def _severities(v) -> dict:
    if not isinstance(v, dict):
        raise ConfigError(f"`severity` must map rule codes to error, warning or info, got {v!r}")
    out = {}
    for k, sev in v.items():
        code = code_or_prefix(k, "severity")
        out[code] = _choice(sev, SEVERITIES, f"severity.{k}")
    return out


def _per_path(v, root) -> tuple:
    if not isinstance(v, dict):
        raise ConfigError(f"`per-path-ignores` must map path patterns to lists of codes, got {v!r}")
    return tuple((str(pat), gitignore_regex(str(pat)), tuple(_codes(codes, f"per-path-ignores.{pat}")))
                 for pat, codes in v.items())


# ---- gitignore-style patterns ---------------------------------------------------------------------

def gitignore_regex(pattern: str) -> re.Pattern:
    """Compile a gitignore-style pattern matched against a '/'-separated path relative to the config folder.

    `name` (no slash) matches at any depth; `/x` or `a/b` are anchored to the config folder; `*` and `?`
    stay within one path segment, `**` spans segments; a pattern that names a folder also matches
    everything below it; a trailing `/` matches folders only (i.e. only paths below them)."""
    p = pattern.strip()
    if not p:
        raise ConfigError("empty path pattern")
    dir_only = p.endswith("/")
    p = p.rstrip("/")
    anchored = "/" in p
    p = p.lstrip("/")
    out, i = [], 0
    while i < len(p):
        c = p[i]
        if p.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif p.startswith("**", i):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            j = p.find("]", i + 1)
            if j < 0:
                out.append(re.escape(c))
                i += 1
            else:
                body = p[i + 1:j].replace("\\", "\\\\")
                out.append("[^" + body[1:] + "]" if body.startswith("!") else "[" + body + "]")
                i = j + 1
        else:
            out.append(re.escape(c))
            i += 1
    prefix = "" if anchored else "(?:.*/)?"
    suffix = "/.*" if dir_only else "(?:/.*)?"
    return re.compile("^" + prefix + "".join(out) + suffix + "$")


def relative_to(path: str, root: str) -> str | None:
    rel = os.path.relpath(os.path.abspath(path), root)
    if rel.startswith(".."):
        return None
    return rel.replace(os.sep, "/")


# ---- what a run uses ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Cli:
    """Settings given on the command line (None: not given)."""

    config: str | None = None
    cann: str | None = None
    fail_on: str | None = None
    ignore: tuple = ()
    inline_suppressions: bool | None = None


@dataclass
class FilePolicy:
    """Everything that applies to one checked file: its config merged with the command line."""

    config: Config
    cli: Cli
    rel_path: str | None = None
    defaults: dict = field(default_factory=dict)

    @property
    def fail_on(self) -> str:
        return self.cli.fail_on or self.config.fail_on or "error"

    @property
    def inline_suppressions(self) -> bool:
        for v in (self.cli.inline_suppressions, self.config.inline_suppressions):
            if v is not None:
                return v
        return True

    def ignored_codes(self) -> tuple:
        codes = list(self.config.ignore) + list(self.cli.ignore)
        if self.rel_path is not None:
            for _, rx, pat_codes in self.config.per_path_ignores:
                if rx.match(self.rel_path):
                    codes.extend(pat_codes)
        return tuple(codes)

    def apply(self, results, text: str | None, starts=()) -> None:
        """Inline suppressions, then ignores, then severity overrides, in place."""
        if text is not None and self.inline_suppressions and "moecfg:" in text:
            from moecfg.core.suppress import apply as apply_suppressions

            apply_suppressions(results, text, starts or [1] * len(results))
        ignored = self.ignored_codes()
        for r in results:
            if ignored:
                r.diagnostics = [d for d in r.diagnostics if not d.code.startswith(ignored)]
            for d in r.diagnostics:
                sev = _override(self.config.severity, d.code)
                if sev:
                    d.severity = sev


def _override(table: dict, code: str):
    best = None
    for key, sev in table.items():  # the longest matching code or prefix wins
        if code.startswith(key) and (best is None or len(key) > len(best[0])):
            best = (key, sev)
    return best[1] if best else None


class Settings:
    """Resolves the policy of each checked file (config discovery is cached per folder)."""

    def __init__(self, cli: Cli = Cli()):
        self.cli = cli
        self._explicit = load(cli.config) if cli.config else None

    def config_for(self, path: str) -> Config:
        if self._explicit is not None:
            return self._explicit
        if path in ("-", "<stdin>"):
            start = os.getcwd()
        else:
            start = path if os.path.isdir(path) else (os.path.dirname(path) or ".")
        found = find(start)
        return load(found) if found else Config()

    def for_file(self, path: str) -> FilePolicy:
        cfg = self.config_for(path)
        rel = None if path in ("-", "<stdin>") else relative_to(path, cfg.root)
        defaults = {k: v for k, v in (("cann_version", cfg.cann_version), ("product", cfg.product)) if v is not None}
        return FilePolicy(cfg, self.cli, rel, defaults)


def fill_defaults(data: dict, defaults: dict) -> None:
    """Add config defaults that the document's kind knows and the document does not set."""
    if not defaults:
        return
    kind = data.get("kind", "ascend")
    if not isinstance(kind, str):
        return
    from moecfg.backends import fields_module

    mod = fields_module(kind)
    if mod is None:
        return
    names = {f.name for f in mod.FIELDS}
    for key, value in defaults.items():
        if key in names and key not in data:
            data[key] = value


def effective(settings: Settings, path: str) -> dict:
    """`--show-config`: the settings that apply to `path` and where each comes from."""
    policy = settings.for_file(path)
    cfg, cli = policy.config, settings.cli

    def src(cli_value, cfg_value):
        if cli_value not in (None, ()):
            return "command line"
        return "config" if cfg_value not in (None, (), {}) else "default"

    return {
        "path": path,
        "config_file": cfg.path,
        "cann_version": cli.cann or cfg.cann_version,
        "product": cfg.product,
        "fail_on": policy.fail_on,
        "ignore": list(policy.ignored_codes()),
        "per_path_ignores": {pat: list(codes) for pat, _, codes in cfg.per_path_ignores},
        "severity": dict(cfg.severity),
        "inline_suppressions": policy.inline_suppressions,
        "framework_versions": dict(cfg.framework_versions),
        "models": dict(cfg.models),
        "sources": {
            "cann_version": "command line (--cann, overrides documents)" if cli.cann else
            ("config (default for documents without cann_version)" if cfg.cann_version else "documents (else latest)"),
            "product": "config (default for documents without product)" if cfg.product else "documents",
            "fail_on": src(cli.fail_on, cfg.fail_on),
            "ignore": "config + command line" if cfg.ignore and cli.ignore else src(cli.ignore, cfg.ignore + tuple(
                c for _, _, cs in cfg.per_path_ignores for c in cs)),
            "inline_suppressions": src(cli.inline_suppressions, cfg.inline_suppressions),
        },
    }

