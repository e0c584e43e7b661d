"""Config file + command line -> one frozen `FileSettings` per checked file (checking/policy.py applies it)."""
from __future__ import annotations

import os

from moecfg.core.record import record
from moecfg.checking.policy import FileSettings
from moecfg.checking.settings.config import Config
from moecfg.checking.settings.discovery import find
from moecfg.checking.settings.errors import ConfigError
from moecfg.checking.settings.files import load
from moecfg.checking.settings.globs import relative_to


@record(frozen=True)
class Cli:
    """Settings given on the command line (None: not given)."""

    config: str | None = None
    cann: str | None = None
    fail_on: str | None = None
    ignore: tuple = ()
    inline_suppressions: bool | None = None
    markdown: bool | None = None  # --markdown / --no-markdown
    respect_gitignore: bool | None = None  # --no-respect-gitignore: False
    unread: str | None = None  # --fail-on-unread: "error"


def resolve(config: Config, cli: Cli, rel_path: str | None = None) -> FileSettings:
    """The settings of one file at `rel_path` (relative to the config's folder; None: stdin or outside)."""
    codes = list(config.ignore) + list(cli.ignore)
    if rel_path is not None:
        for _, rx, pat_codes in config.per_path_ignores:
            if rx.match(rel_path):
                codes.extend(pat_codes)
    inline = next((v for v in (cli.inline_suppressions, config.inline_suppressions) if v is not None), True)
    defaults = tuple((k, v) for k, v in (("cann_version", config.cann_version), ("product", config.product))
                     if v is not None)
    return FileSettings(fail_on=cli.fail_on or config.fail_on or "error", inline_suppressions=inline,
                        ignore=tuple(codes), severity=tuple(config.severity.items()), defaults=defaults,
                        product=config.product, cann_version=config.cann_version,
                        framework_versions=tuple(sorted(config.framework_versions.items())),
                        models=tuple(config.models.items()),
                        settings_dir=os.path.dirname(config.path) if config.path else None,
                        device=config.device, device_memory_gb=config.device_memory_gb,
                        unread=cli.unread or config.unread or "list")


FilePolicy = resolve  # the name callers used when this was a class


class Settings:
    """Resolves the settings of each checked file (config discovery is cached per folder)."""

    def __init__(self, cli: Cli = Cli()):
        self.cli = cli
        self._found: dict = {}  # folder -> config path, for this run only (an edited config is seen next run)
        self._loaded: dict = {}
        self._explicit = load(cli.config, self._loaded) if cli.config else None
        # settings files found in the checked tree that cannot be used: path -> the reason. Each is a finding on
        # that file (MC016, checking/engine.py), the files below it get the defaults: a pull request that adds an
        # invalid `.moecfg.yaml` must not end the run with no report
        self.problems: dict[str, str] = {}

    def config_for(self, path: str) -> Config:
        if self._explicit is not None:
            return self._explicit
        if path in ("-", "<stdin>"):
            start = os.getcwd()
        else:
            start = path if os.path.isdir(path) else (os.path.dirname(path) or ".")
        found = find(start, self._found)
        if not found:
            return Config()
        try:
            return load(found, self._loaded)
        except ConfigError as exc:
            self.problems.setdefault(os.path.abspath(found), str(exc))
            self._loaded[os.path.abspath(found)] = Config()  # as if absent from now on (one finding)
            return self._loaded[os.path.abspath(found)]

    def respect_gitignore(self, path: str = ".") -> bool:
        """Walking honours .gitignore files unless `--no-respect-gitignore` or `respect-gitignore: false`; with
        `--config` (the pinned policy of untrusted pull requests) only if that file says `respect-gitignore: true`:
        a pull request's `.gitignore` holding `*.sh` must not hide its launch scripts."""
        if self.cli.respect_gitignore is not None:
            return self.cli.respect_gitignore
        value = self.config_for(path).respect_gitignore
        if value is None:
            return self._explicit is None
        return value

    def excludes(self, path: str = "."):
        """What walking `path` leaves out besides hidden folders and .gitignore: (the settings file's folder, the
        matchers of `exclude` + `extend-exclude`, whether the built-in folder list still applies)."""
        cfg = self.config_for(path)
        matchers = tuple(rx for _, rx in (cfg.exclude or ()) + cfg.extend_exclude)
        return cfg.root, matchers, cfg.exclude is None

    def markdown(self, path: str = ".") -> bool | None:
        """Walking `path` reads documentation: the command line, else its settings, else None (files.discover)."""
        if self.cli.markdown is not None:
            return self.cli.markdown
        return self.config_for(path).markdown

    def for_file(self, path: str) -> FileSettings:
        cfg = self.config_for(path)
        rel = None if path in ("-", "<stdin>") else relative_to(path, cfg.root)
        return resolve(cfg, self.cli, rel)


def effective(settings: Settings, path: str) -> dict:
    """`--show-config`: the settings that apply to `path` and where each comes from."""
    cfg, cli = settings.config_for(path), settings.cli
    fs = settings.for_file(path)

    def src(cli_value, cfg_value):
        if cli_value not in (None, ()):
            return "command line"
        return "config" if cfg_value not in (None, (), {}) else "default"

    return {
        "path": path,
        "config_file": cfg.path,
        "cann_version": cli.cann or cfg.cann_version,
        "product": cfg.product,
        "fail_on": fs.fail_on,
        "ignore": list(fs.ignore),
        "per_path_ignores": {pat: list(codes) for pat, _, codes in cfg.per_path_ignores},
        "severity": dict(cfg.severity),
        "inline_suppressions": fs.inline_suppressions,
        "framework_versions": dict(cfg.framework_versions),
        "models": dict(cfg.models),
        "respect_gitignore": settings.respect_gitignore(path),
        "exclude": None if cfg.exclude is None else [p for p, _ in cfg.exclude],
        "extend_exclude": [p for p, _ in cfg.extend_exclude],
        "unread": fs.unread,
        "sources": {
            "cann_version": "command line (--cann, overrides documents)" if cli.cann else
            ("config (default for documents without cann_version)" if cfg.cann_version else "documents (else latest)"),
            "product": "config (default for documents without product)" if cfg.product else "documents",
            "fail_on": src(cli.fail_on, cfg.fail_on),
            "ignore": "config + command line" if cfg.ignore and cli.ignore else src(cli.ignore, cfg.ignore + tuple(
                c for _, _, cs in cfg.per_path_ignores for c in cs)),
            "inline_suppressions": src(cli.inline_suppressions, cfg.inline_suppressions),
            "respect_gitignore": src(cli.respect_gitignore, cfg.respect_gitignore),
            "unread": src(cli.unread, cfg.unread),
        },
    }
