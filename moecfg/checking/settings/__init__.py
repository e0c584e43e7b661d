"""The configuration file: `.moecfg.yaml` (or `.moecfg.yml`, or `[tool.moecfg]` in `pyproject.toml`).

Found by walking up from each checked file's folder (stdin: the current folder); the nearest wins, and
in one folder `.moecfg.yaml` wins over `pyproject.toml`. `--config FILE` uses that file for every path.

    cann_version: 9.0.1        # default for documents without cann_version (the document's own value wins)
    product: A3                # default for documents without product
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

The stages, one module each: discovery.py (which file applies), files.py (reading YAML / TOML),
config.py (validating the table into a frozen Config), globs.py (per-path patterns, with pathspec),
resolve.py (config + command line -> one frozen FileSettings per checked file). The engine receives that
FileSettings and applies it itself (checking/policy.py); nothing here is called back during linting.
"""
from moecfg.checking.settings.config import (  # noqa: F401  (the package's interface)
    FAIL_ON, SEVERITIES, Config, ConfigError, code_or_prefix, parse)
from moecfg.checking.settings.discovery import find  # noqa: F401
from moecfg.checking.settings.files import load  # noqa: F401
from moecfg.checking.settings.globs import gitignore_regex, relative_to  # noqa: F401
from moecfg.checking.settings.resolve import Cli, FilePolicy, FileSettings, Settings, effective, resolve  # noqa: F401
