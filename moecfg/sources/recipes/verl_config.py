"""A verl Hydra config written as a file (`actor_rollout_ref:` at the top, `defaults: [ppo_megatron_trainer, _self_]`)
as the launch `python3 -m verl.trainer.main_ppo --config-name <it>` runs: the base config its `defaults` list names,
then every setting of the file as an override word `<key.path>=<value>` at its value (overrides.py).

volcengine/verl@b178a3c examples/sglang_multiturn/config/*.yaml, examples/split_placement/config/ppo_trainer_split.yaml:
`defaults: [ppo_trainer, _self_]` (or ppo_megatron_trainer) then the file's own keys over them (Hydra's `_self_`).
The program words are written as main_ppo's (the file holds no command; trainers/verl reads the words).

Two more shapes, both copies of verl's own config folder that recipes ship beside their entry:
- a config composed from its folder's groups (`defaults: [actor@actor_rollout_ref.actor: megatron_actor, ...]`,
  alibaba/Pai-Megatron-Patch@a098ca5 examples/qwen3/verl_configs/ppo_megatron_trainer.yaml:5-15): each group file
  `<folder>/<group>/<name>.yaml` (and the groups it names, `../engine@megatron: megatron`) is read at its package,
  inside the checked folder only, each setting positioned at the `defaults` entry that brought it;
- a group file itself (`engine/megatron.yaml`, `ref/megatron_ref.yaml`, `rollout/rollout.yaml`,
  `reward_model/megatron_reward_model.yaml`; verl-project/verl-recipe@48ea0a7 rep_exp/config/): its settings at the
  package verl mounts the group at (volcengine/verl@b178a3c verl/trainer/config/ppo_megatron_trainer.yaml:5-21,
  verl/trainer/config/actor/megatron_actor.yaml:7 `../engine@megatron: megatron`), over ppo_megatron_trainer (a `megatron` file, the
  engine group) or ppo_trainer.
"""
from __future__ import annotations

import os

from moecfg.sources.launch import Launch, LaunchFile, Word
from moecfg.sources.manifests.yaml_source import Span, YamlDocument
from moecfg.sources.recipes.overrides import flat, span, text, words

SECTIONS = ("actor_rollout_ref", "trainer", "reward_model", "critic")
# verl's configs a `defaults` list may name as its base (defaults.json reads their generated forms)
BASES = ("ppo_trainer", "ppo_megatron_trainer")
# group folder -> the package verl mounts it at (ppo_megatron_trainer.yaml:5-21, megatron_actor.yaml:7)
MOUNTS = {"actor": "actor_rollout_ref.actor", "ref": "actor_rollout_ref.ref", "rollout": "actor_rollout_ref.rollout",
          "engine": "actor_rollout_ref.actor.megatron", "critic": "critic", "reward_model": "reward_model"}
TARGET = "verl.workers.config."
DEPTH = 3  # groups naming groups: megatron_ref -> ref, ../engine; no deeper in verl's folder


def is_verl_config(data) -> bool:
    if not isinstance(data, dict):
        return False
    section = data.get("actor_rollout_ref")
    if isinstance(section, dict) and any(isinstance(section.get(k), dict) for k in ("rollout", "actor", "model")):
        return True
    # a config over verl's base that sets only another section (verl-recipe@48ea0a7 fapo/config/rm_config.yaml:5-9)
    return _base(data.get("defaults")) in BASES and isinstance(data.get("reward_model"), dict)


def read_verl_config(doc: YamlDocument, name: str = "", root: str | None = None) -> LaunchFile | None:
    if not is_verl_config(doc.data):
        return _read_group(doc, name, root)
    at = span(doc, ("actor_rollout_ref",) if "actor_rollout_ref" in doc.data else ("reward_model",), key=True)
    argv = [Word("python3", at), Word("-m", at), Word("verl.trainer.main_ppo", at)]
    base = _base(doc.data.get("defaults"))
    if base is not None:
        argv += [Word("--config-name", span(doc, ("defaults",), key=True)), Word(base, span(doc, ("defaults",), key=True))]
    else:  # no base config named: the keys the file does not set (nor its folder's groups) are not known
        argv += [Word("--config-name", at), Word("?", at)]
    argv += _composed(doc, name, root, doc.data.get("defaults"), "", os.path.dirname(name), 0)
    return LaunchFile(launches=[Launch(tuple(argv + words(doc, SECTIONS)), {}, "yaml")])


def _read_group(doc: YamlDocument, name: str, root: str | None) -> LaunchFile | None:
    """A group file of a verl config folder, read at the package verl mounts it at."""
    group = os.path.basename(os.path.dirname(name)) if name else ""
    package = MOUNTS.get(group)
    data = doc.data
    if package is None or not isinstance(data, dict) or not (_targets_verl(data) or _extends_group(data, group)):
        return None
    if group == "engine" and "megatron" not in os.path.basename(name):
        return None  # the FSDP engine: no expert-parallel setting verl reads from it
    at = span(doc, (next(iter(data)),), key=True) if data else Span(1, 1, 1, 1)
    base = "ppo_megatron_trainer" if group == "engine" or "megatron" in os.path.basename(name) else "ppo_trainer"
    argv = [Word("python3", at), Word("-m", at), Word("verl.trainer.main_ppo", at), Word("--config-name", at),
            Word(base, at)]
    argv += _composed(doc, name, root, data.get("defaults"), package, os.path.dirname(name), 0)
    for path, value in flat({k: v for k, v in data.items() if k != "defaults"}, ()):
        argv.append(Word(f"{package}.{'.'.join(path)}={text(value)}", span(doc, path)))
    return LaunchFile(launches=[Launch(tuple(argv), {}, "yaml")])


def _targets_verl(data: dict) -> bool:
    """verl's dataclass named by `_target_` at the top or one level down (megatron_reward_model.yaml's `megatron:`)."""
    inner = [v.get("_target_") for v in data.values() if isinstance(v, dict)]
    return any(isinstance(t, str) and t.startswith(TARGET) for t in [data.get("_target_")] + inner)


def _extends_group(data: dict, group: str) -> bool:
    """`defaults: [actor, _self_]` in actor/megatron_actor.yaml: the group's own base, before verl named dataclasses
    (Pai-Megatron-Patch@a098ca5 examples/qwen3/verl_configs/actor/megatron_actor.yaml:2-5)."""
    defaults = data.get("defaults")
    return isinstance(defaults, list) and group in defaults and "strategy" in data


def _composed(doc: YamlDocument, name: str, root: str | None, defaults, package: str, folder: str,
              depth: int, at: Span | None = None) -> list[Word]:
    """The settings of the group files a `defaults` list names (`group@package: name`, `../engine@megatron: x`, a
    plain `ref` inside a group), at their packages, each positioned at its `defaults` entry of this document."""
    if not name or not isinstance(defaults, list) or depth >= DEPTH:
        return []
    out: list[Word] = []
    for i, entry in enumerate(defaults):
        target = _entry(entry, package, folder, depth)
        if target is None:
            continue
        path, where = target
        data = _load(path, name, root)
        if data is None:
            continue
        here = at or _entry_span(doc, i, entry)
        out += _composed(doc, name, root, data.get("defaults"), where, os.path.dirname(path), depth + 1, here)
        for keys, value in flat({k: v for k, v in data.items() if k != "defaults"}, ()):
            out.append(Word(f"{'.'.join((where,) + keys if where else keys)}={text(value)}", here))
    return out


def _entry_span(doc: YamlDocument, i: int, entry) -> Span:
    """The line of the i-th `defaults` entry (a mapping's key, or the string itself)."""
    if isinstance(entry, dict) and entry:
        return span(doc, ("defaults", i, next(iter(entry))), key=True)
    return span(doc, ("defaults", i))


def _entry(entry, package: str, folder: str, depth: int) -> tuple[str, str] | None:
    """(file, package) of one `defaults` entry, or None (`_self_`, a base config, an optional or unknown entry)."""
    if isinstance(entry, str):
        if not package or entry == "_self_" or not _plain(entry):
            return None
        return os.path.join(folder, f"{entry}.yaml"), package  # a group's own base (megatron_ref: `- ref`)
    if not isinstance(entry, dict) or len(entry) != 1:
        return None
    (key, value), = entry.items()
    if not isinstance(key, str) or not isinstance(value, str) or not _plain(value):
        return None
    group, _, pkg = key.partition("@")
    parts = group.split("/")
    if any(p in ("", ".") for p in parts) or any(p == ".." for p in parts[1:]) or (parts[0] == ".." and not package):
        return None
    where = pkg or group.lstrip("./")
    if package and pkg:  # a package inside a group is relative to the group's (`../engine@megatron` in the actor)
        where = f"{package}.{pkg}"
    return os.path.join(folder, *parts, f"{value}.yaml"), where


def _plain(word: str) -> bool:
    return bool(word) and all(c.isalnum() or c in "_-" for c in word)


def _load(path: str, name: str, root: str | None) -> dict | None:
    from moecfg.sources import contained, files
    from moecfg.sources.manifests.yaml_source import YamlProblem, decode, parse_stream

    own = os.path.realpath(os.path.dirname(os.path.abspath(name)))
    roots = (os.path.realpath(root),) if root else (own,) + contained.tree_roots()
    try:
        docs = parse_stream(decode(contained.read_inside(path, os.getcwd(), roots)))
    except (files.Unreadable, YamlProblem):
        return None
    data = docs[0].data if docs else None
    return data if isinstance(data, dict) else None


def _base(defaults) -> str | None:
    """The first config the `defaults` list names (`- ppo_megatron_trainer`), not `_self_` nor a group entry."""
    if not isinstance(defaults, list):
        return None
    return next((d for d in defaults if isinstance(d, str) and d != "_self_"), None)
