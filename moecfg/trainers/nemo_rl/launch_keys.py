"""A NeMo-RL launch's settings, key by key: from a config file read as a launch (sources/recipes/nemo_rl.py), or from
a shell launch `run_<x>.py --config <file> key=value ...`: its config composed with its parents, then the overrides
over it (NVIDIA-NeMo/RL@7ea279abf examples/run_grpo.py:81-94: load_config, parse_hydra_overrides, then
OmegaConf.to_container(resolve=True)), so an override also changes the settings that interpolate it.

Every key is positioned where it was set: an override at its word, a config setting at its value (config file) or at
the `--config` word (shell). A key no config sets is unknown: NeMo-RL's code reads most of them without a default."""
from __future__ import annotations

import copy
import os
import re

from moecfg.frameworks import Derivation
from moecfg.sources.launch import Launch, Word
from moecfg.sources.recipes import nemo_rl as R
from moecfg.trainers import phases
from moecfg.trainers.phases import Key

# the config each entry script loads without `--config` (examples/run_<x>.py: `os.path.join(os.path.dirname(__file__),
# "configs", ...)`, e.g. run_grpo.py:81-84)
DEFAULT_CONFIGS = {"run_grpo.py": "grpo_math_1B.yaml", "run_sft.py": "sft.yaml", "run_dpo.py": "dpo.yaml",
                   "run_distillation.py": "distillation_math.yaml", "run_eval.py": "evals/eval.yaml",
                   "run_grpo_sliding_puzzle.py": "grpo_sliding_puzzle.yaml", "run_ppo.py": "ppo_math_1B.yaml",
                   "run_rm.py": "rm.yaml", "run_vlm_grpo.py": "vlm_grpo_3B.yaml"}
_LEADING_VARIABLE = re.compile(r"^\$\{[^}]*\}/(?P<rest>[^$]+)$")


class Keys:
    """`written`: key -> Key (every setting known, from the config or an override); `hidden`: words that may hold
    overrides (`$@`); `missing`: why part of the config was not read (its keys are unknown); `sections`: the
    config's top-level sections; `script`: the entry script (None: a config file read as the launch)."""

    def __init__(self, launch: Launch, written: dict[str, Key], hidden: list[Word], missing: list[str],
                 sections: set[str], script: str | None):
        self.launch, self.written, self.hidden, self.missing = launch, written, hidden, missing
        self.sections, self.script = sections, script

    def get(self, name: str) -> Key:
        return self.written.get(name) or Key(name, None, self.launch.span)

    def under(self, prefix: str) -> dict[str, Key]:
        return {k[len(prefix):]: v for k, v in self.written.items() if k.startswith(prefix)}

    def has(self, prefix: str) -> bool:
        return any(k.startswith(prefix) for k in self.written)


def from_config(launch: Launch) -> Keys:
    written: dict[str, Key] = {}
    missing: list[str] = []
    sections: set[str] = set()
    parents = None  # (the `defaults:` position, the parents as written): a setting there is inherited
    for w in launch.argv[3:]:
        text = w.value if w.value is not None else w.pattern
        if not text:
            continue
        if text.startswith("--unread-parent="):
            missing.append(text.split("=", 1)[1])
        elif text.startswith("--sections="):
            sections = set(text.split("=", 1)[1].split(","))
        elif text.startswith("--parents="):
            parents = (w.span, text.split("=", 1)[1])
        elif "=" in text:
            name, _, value = text.partition("=")
            said = f"{name} (from {parents[1]})" if parents and w.span == parents[0] else name
            written[name] = Key(said, value if w.value is not None else None, w.span)
    return Keys(launch, written, [], missing, sections, None)


def from_shell(launch: Launch, at: int, out: Derivation, file: str | None = None) -> Keys | None:
    """The launch's config with its overrides; None (listed as not derived) when the config is not read."""
    from moecfg.sources import contained, files
    from moecfg.sources.manifests.yaml_source import YamlProblem, decode, parse_stream

    script = launch.argv[at]
    script_text = script.value if script.value is not None else script.pattern or ""
    rest = list(launch.argv[at + 1:])
    config, config_word, overrides = _split(rest)
    roots = contained.tree_roots()
    if config is None:
        default = DEFAULT_CONFIGS.get(os.path.basename(script_text))
        if default is None:
            phases.not_derived(out, launch, f"{os.path.basename(script_text)} without --config: its own config "
                               "is not read")
            return None
        config = os.path.join(os.path.dirname(script_text), "configs", default)  # beside the script, as it loads it
        config_word = script
    path, how = _config_path(config)
    if path is None:
        path, how = _suite_config(launch, file, roots[0])
    if path is None:
        phases.not_derived(out, launch, f"the config --config {config} is not known statically (a config in the "
                           "tree is checked as its own file)")
        return None
    try:
        real = contained.resolve(path, roots[0], roots)
        docs = parse_stream(decode(contained.read_inside(real, None, roots)))
    except files.Unreadable as exc:
        phases.not_derived(out, launch, f"the config {config} is not read: {exc}")
        return None
    except YamlProblem:
        phases.not_derived(out, launch, f"the config {config} is not valid YAML")
        return None
    data = docs[0].data if docs else None
    if not isinstance(data, dict):
        phases.not_derived(out, launch, f"the config {config} is not a mapping")
        return None
    composed = R.compose(data, os.path.dirname(real), roots)
    tree = copy.deepcopy(composed.tree)
    spans, hidden = {}, []
    for w in overrides:
        text = w.value if w.value is not None else w.pattern
        if not text or "=" not in text.lstrip("~") and not text.startswith("~"):
            hidden.append(w)  # `$@`, `${EXTRA_ARGS}`: overrides may hide in it
            continue
        if text.startswith("~"):
            _delete(tree, text[1:].split("=", 1)[0])
            continue
        name, _, value = text.lstrip("+").partition("=")
        if "${" in name or not name:
            hidden.append(w)
            continue
        _set(tree, name, _typed(value) if w.value is not None else R.UNKNOWN)
        spans[name] = w.span
    where = config_word.span if config_word is not None else launch.span
    written: dict[str, Key] = {}
    for key, value, _ in R.settings(tree):
        span = spans.get(key, where)
        name = key if key in spans else f"{key} ({path}{how})"
        written[key] = Key(name, value, span)
    return Keys(launch, written, hidden, composed.missing, {k for k in tree if isinstance(k, str)},
                os.path.basename(script_text))


def _split(words: list[Word]):
    """(config as written, its word, the override words) of the words after the script."""
    config, config_word, overrides = None, None, []
    i = 0
    while i < len(words):
        w = words[i]
        text = w.value if w.value is not None else w.pattern or ""
        if text == "--config" and i + 1 < len(words):
            nxt = words[i + 1]
            config, config_word = (nxt.value if nxt.value is not None else nxt.pattern or ""), nxt
            i += 2
            continue
        if text.startswith("--config="):
            config, config_word = text.split("=", 1)[1], w
        elif not text.startswith("-") or w.value is None:
            overrides.append(w)
        i += 1
    return config, config_word, overrides


def _config_path(config: str) -> tuple[str | None, str]:
    """The config's path in the checked tree: as written, or after a leading `${PROJECT_ROOT}/` (the repository's
    own scripts `cd` to it and name the config from it; the rest is read in the checked tree, said with the key)."""
    if "${" not in config:
        return config, ""
    m = _LEADING_VARIABLE.match(config)
    if m is None:
        return None, ""
    return m.group("rest"), f" for {config}"


_SUITE = re.compile(r"^tests/test_suites/(?P<folder>[\w./-]+)/(?P<stem>[^/]+)\.sh$")


def _suite_config(launch: Launch, file: str | None, root: str) -> tuple[str | None, str]:
    """A test-suite script's `--config $CONFIG_PATH`: the script sources the common.env beside it, which sets
    CONFIG_PATH to examples/configs/recipes/<its folder>/<the script's name>.yaml (NVIDIA-NeMo/RL@7ea279abf
    tests/test_suites/llm/common.env:40, :50; the same in vlm/ and llm/performance/)."""
    if not file or not any(p.endswith("/common.env") for p, _ in launch.sourced):
        return None, ""
    rel = os.path.relpath(os.path.realpath(file), os.path.realpath(root)).replace(os.sep, "/")
    m = _SUITE.match(rel)
    if m is None or ".." in m.group("folder").split("/"):
        return None, ""
    path = f"examples/configs/recipes/{m.group('folder')}/{m.group('stem')}.yaml"
    return path, ", named by common.env"


def _typed(value: str):
    """A Hydra override value as OmegaConf would hold it (what interpolations and the checks compare)."""
    v = value.strip()
    if len(v) >= 2 and v[0] == v[-1] and v[0] in "'\"":
        return v[1:-1]
    low = v.lower()
    if low in ("null", "none", "~"):
        return None
    if low in ("true", "false"):
        return low == "true"
    for kind in (int, float):
        try:
            return kind(v)
        except ValueError:
            pass
    return v


def _set(tree: dict, name: str, value) -> None:
    node = tree
    parts = name.split(".")
    for part in parts[:-1]:
        if not isinstance(node.get(part), dict):
            node[part] = {}
        node = node[part]
    node[parts[-1]] = value


def _delete(tree: dict, name: str) -> None:
    parts = name.split(".")
    node = R.lookup(tree, tuple(parts[:-1]))
    if isinstance(node, dict):
        node.pop(parts[-1], None)
