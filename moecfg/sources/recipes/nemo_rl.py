"""NVIDIA NeMo-RL's YAML configs (examples/configs/*.yaml, examples/configs/recipes/{llm,vlm}/**, examples/nemo_gym/**)
as the settings `uv run python examples/run_grpo.py --config <it> [key=value ...]` runs with.

NVIDIA-NeMo/RL@7ea279abf nemo_rl/utils/config.py:
- `defaults:` (one path or a list) names parent configs, each relative to the config's own folder (:23-27, :75-96);
  they are merged depth-first, the later over the earlier, the file itself last (OmegaConf.merge); a top-level
  section holding `_override_: true` replaces the parent's section instead of merging into it (:30-48); a `???`
  value keeps the parent's (:36-39). Parents are read only inside the checked tree: outside (or missing) the keys
  they would set are not known, and the reader says so (coverage).
- interpolations are resolved after the merge (OmegaConf.to_container(resolve=True), examples/run_grpo.py:94):
  `${a.b}` (absolute), `${.x}` (relative: the key's own section; each extra dot one section up), and NeMo-RL's own
  resolvers `${mul:x,y}`, `${add:x,y}`, `${div:x,y}`, `${max:x,y}` (config.py:195-204). Anything else (oc.env, a key not in the config) is
  unknown, never a default.

The reader's launch: `nemo-rl --config <file> <key.path>=<value> ...` (context "yaml"), every setting of the sections
moecfg reads at its value's position in the file; a setting inherited from a parent sits on the `defaults:` key.
trainers/nemo_rl reads it; the same composition serves its shell launches (`compose`, `resolved`).
"""
from __future__ import annotations

import os
import re

from moecfg.sources.launch import Launch, LaunchFile, Word
from moecfg.sources.manifests.yaml_source import Span, YamlDocument

COMMAND = "nemo-rl"
# the sections the trainer reads (trainers/nemo_rl/calls.py); the rest of a config is data, logging, algorithm
SECTIONS = ("policy", "cluster", "generation", "teacher", "on_policy_distillation", "env.reward_model", "eval")
MAX_DEPTH = 12
MAX_PARENTS = 64
MAX_KEYS = 4000
UNKNOWN = object()  # an interpolation moecfg does not resolve
_ALGORITHMS = ("grpo", "sft", "dpo", "distillation", "checkpointing", "logger", "cluster", "loss_fn", "eval",
               "generation")


def is_nemo_rl_config(data) -> bool:
    """A NeMo-RL master config: `policy:` with its engine sections, run_eval.py's `eval:` + `generation:`, or a recipe
    that only names its parent (`defaults: ../../grpo_math_1B.yaml`) and sets NeMo-RL sections over it."""
    if not isinstance(data, dict):
        return False
    policy = data.get("policy")
    if isinstance(policy, dict) and any(k in policy for k in ("megatron_cfg", "dtensor_cfg", "generation",
                                                             "model_name")):
        return True
    generation = data.get("generation")
    if isinstance(data.get("eval"), dict) and isinstance(generation, dict) and "vllm_cfg" in generation:
        return True
    return bool(_parents(data.get("defaults"))) and (isinstance(policy, dict) or any(
        isinstance(data.get(k), dict) for k in _ALGORITHMS))


def _parents(defaults) -> list[str]:
    """The parent configs `defaults` names (NeMo-RL's own form: file paths, not Hydra config-group entries)."""
    items = [defaults] if isinstance(defaults, str) else defaults if isinstance(defaults, list) else []
    return [d for d in items if isinstance(d, str) and d.endswith((".yaml", ".yml"))]


class Composed:
    """A config with its parents merged: `tree` (interpolations not yet resolved), `missing` (why a parent was not
    read: the keys it would set are not known)."""

    def __init__(self, tree: dict, missing: list[str]):
        self.tree, self.missing = tree, missing


def compose(data: dict, folder: str, roots: tuple[str, ...], depth: int = 0, seen: tuple = (),
            reads: list | None = None) -> Composed:
    """`data` over its `defaults` parents (read from `folder`, inside `roots`), as load_config_with_inheritance.
    `reads`: the parent files read so far for this config (at most MAX_PARENTS: a list of parents that each list
    the same parents again would otherwise be read exponentially often)."""
    reads = [] if reads is None else reads
    missing: list[str] = []
    base: dict = {}
    for parent in _parents(data.get("defaults")):
        if len(reads) >= MAX_PARENTS:
            missing.append(f"{parent}: more than {MAX_PARENTS} parent configs; not read")
            continue
        reads.append(parent)
        got = _read_parent(parent, folder, roots, depth, seen, reads)
        if isinstance(got, str):
            missing.append(got)
            continue
        missing += got.missing
        base = merge(base, got.tree)
    if isinstance(data.get("defaults"), (str, list)) and not _parents(data.get("defaults")):
        missing.append(f"defaults {data.get('defaults')!r} not a config file path")
    own = {k: v for k, v in data.items() if k != "defaults"}
    return Composed(merge(base, own), missing)


def _read_parent(parent: str, folder: str, roots: tuple[str, ...], depth: int, seen: tuple, reads: list):
    from moecfg.sources import contained, files
    from moecfg.sources.manifests.yaml_source import YamlProblem, decode, parse_stream

    if depth >= MAX_DEPTH:
        return f"{parent}: inheritance deeper than {MAX_DEPTH} configs"
    try:
        real = contained.resolve(parent, folder, roots)
        if real in seen:
            return f"{parent}: inherits itself"
        docs = parse_stream(decode(contained.read_inside(real, None, roots)))
    except files.Unreadable as exc:
        return f"{parent}: {exc}"
    except YamlProblem:
        return f"{parent}: not valid YAML"
    data = docs[0].data if docs else None
    if not isinstance(data, dict):
        return f"{parent}: not a mapping"
    return compose(data, os.path.dirname(real), roots, depth + 1, seen + (real,), reads)


def merge(base: dict, over: dict, top: bool = True) -> dict:
    """OmegaConf.merge(base, over) with NeMo-RL's top-level `_override_` (config.py:30-48); `???` keeps the base's."""
    out = dict(base)
    for key, value in over.items():
        if value == "???":
            continue
        if isinstance(value, dict):
            value = dict(value)
            replace = top and value.pop("_override_", False) is True
            old = out.get(key)
            out[key] = merge({} if replace or not isinstance(old, dict) else old, value, False)
        else:
            out[key] = value
    return out


def flat(tree, path: tuple = ()):
    """(path, value) for every scalar under the mapping; a list of scalars as one comma-joined value."""
    if isinstance(tree, dict):
        for key, inner in tree.items():
            if isinstance(key, str):
                yield from flat(inner, path + (key,))
    elif tree is None or tree is UNKNOWN or isinstance(tree, (str, int, float, bool)):
        yield path, tree
    elif isinstance(tree, list) and all(v is None or isinstance(v, (str, int, float, bool)) for v in tree):
        yield path, tree


def lookup(tree, path: tuple):
    node = tree
    for part in path:
        if not isinstance(node, dict) or part not in node:
            return UNKNOWN
        node = node[part]
    return node


# NeMo-RL's resolvers (nemo_rl/utils/config.py:195-204 register_omegaconf_resolvers)
_RESOLVERS = {"add": lambda a, b: a + b, "mul": lambda a, b: a * b, "div": lambda a, b: a / b, "max": max}
_WHOLE = re.compile(r"^\$\{(.*)\}$", re.S)
_REF = re.compile(r"^(\.*)([\w\-]+(?:\.[\w\-]+)*)$")


def resolve(tree: dict, path: tuple, value, depth: int = 0):
    """The value of the setting at `path` with its interpolations resolved; UNKNOWN where moecfg cannot."""
    if not isinstance(value, str) or "${" not in value:
        return value
    if depth > 16:
        return UNKNOWN
    whole = _WHOLE.match(value.strip())
    if whole and _balanced(whole.group(1)):
        return _evaluate(tree, path, whole.group(1).strip(), depth)
    pieces, i = [], 0
    while i < len(value):
        j = value.find("${", i)
        if j < 0:
            pieces.append(value[i:])
            break
        end = _closing(value, j + 2)
        if end < 0:
            return UNKNOWN
        got = _evaluate(tree, path, value[j + 2:end].strip(), depth)
        if got is UNKNOWN or isinstance(got, (dict, list)):
            return UNKNOWN
        pieces += [value[i:j], text(got)]
        i = end + 1
    return "".join(pieces)


def _closing(s: str, start: int) -> int:
    level = 1
    for k in range(start, len(s)):
        if s.startswith("${", k):
            level += 1
        elif s[k] == "}":
            level -= 1
            if level == 0:
                return k
    return -1


def _balanced(inner: str) -> bool:
    return _closing(inner + "}", 0) == len(inner)


def _evaluate(tree: dict, path: tuple, inner: str, depth: int):
    name, colon, args = inner.partition(":")
    if colon and name.strip() in _RESOLVERS:
        values = [_argument(tree, path, a.strip(), depth) for a in _split(args)]
        if len(values) != 2 or any(isinstance(v, bool) or not isinstance(v, (int, float)) for v in values):
            return UNKNOWN
        if name.strip() == "div" and values[1] == 0:
            return UNKNOWN
        return _RESOLVERS[name.strip()](*values)
    m = _REF.match(inner)
    if colon or not m:
        return UNKNOWN  # oc.env, oc.select, ...: not resolved
    dots, ref = m.group(1), tuple(m.group(2).split("."))
    target = ref if not dots else path[:max(len(path) - len(dots), 0)] + ref
    if dots and len(dots) > len(path):
        return UNKNOWN
    found = lookup(tree, target)
    if found is UNKNOWN or found == "???":
        return UNKNOWN
    return resolve(tree, target, found, depth + 1)


def _argument(tree: dict, path: tuple, arg: str, depth: int):
    if arg.startswith("${"):
        return resolve(tree, path, arg, depth + 1)
    try:
        return int(arg)
    except ValueError:
        try:
            return float(arg)
        except ValueError:
            return UNKNOWN


def _split(args: str) -> list[str]:
    out, level, cur = [], 0, ""
    for ch in args:
        if ch == "{":
            level += 1
        elif ch == "}":
            level -= 1
        if ch == "," and level == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    return out + [cur]


def text(value) -> str:
    if isinstance(value, list):
        return ",".join(text(v) for v in value)
    return "null" if value is None else str(value).lower() if isinstance(value, bool) else str(value)


def settings(tree: dict, sections=SECTIONS) -> list[tuple[str, str | None, str]]:
    """(dotted key, resolved text or None when unknown, the value as written) of the sections moecfg reads."""
    out = []
    for section in sections:
        prefix = tuple(section.split("."))
        node = lookup(tree, prefix)
        if node is UNKNOWN:
            continue
        for path, value in flat(node, prefix):
            got = resolve(tree, path, value) if not isinstance(value, list) else [
                resolve(tree, path, v) for v in value]
            unknown = got is UNKNOWN or (isinstance(got, list) and UNKNOWN in got) or got == "???"
            out.append((".".join(path), None if unknown else text(got), text(value)))
            if len(out) >= MAX_KEYS:
                return out
    return out


def read_nemo_rl_config(doc: YamlDocument, name: str = "", root: str | None = None) -> LaunchFile | None:
    if not is_nemo_rl_config(doc.data):
        return None
    from moecfg.sources import contained

    folder = os.path.dirname(os.path.abspath(name)) if name else os.getcwd()
    roots = (os.path.realpath(root),) if root else (os.path.realpath(folder),) + contained.tree_roots()
    composed = compose(doc.data, folder, roots)
    first = next(iter(doc.data), "policy")
    at = doc.keys.get((first,)) or Span(1, 1, 1, 1)
    inherited = doc.keys.get(("defaults",)) or at
    words = [Word(COMMAND, at), Word("--config", at), Word(os.path.basename(name) or "<stdin>", at),
             Word("--sections=" + ",".join(k for k in composed.tree if isinstance(k, str) and "," not in k), at)]
    if _parents(doc.data.get("defaults")):  # the settings positioned at `defaults:` are the parents' (their names)
        words.append(Word("--parents=" + ",".join(_parents(doc.data.get("defaults"))), inherited))
    for key, value, written in settings(composed.tree):
        path = tuple(key.split("."))
        own = lookup(doc.data, path) is not UNKNOWN
        span = (doc.values.get(path) or doc.keys.get(path) or at) if own else inherited
        if value is None:
            words.append(Word(None, span, exact=False, pattern=f"{key}={written}"))
        else:
            words.append(Word(f"{key}={value}", span))
    for why in composed.missing:  # trainers/nemo_rl lists it (coverage) and leaves those settings unknown
        words.append(Word(None, inherited, exact=False, pattern=f"--unread-parent={why}"))
    return LaunchFile(launches=[Launch(tuple(words), {}, "yaml")])
