"""slime's arguments -> the Megatron-LM command line of the train phase and the SGLang one of each rollout engine.

THUDM/slime@624b824:
- slime/utils/arguments.py:1600-1636 parse_args: SGLang's flags first (sglang_parse_args, parse_known_args), then
  Megatron's parser with slime's own arguments added (megatron_parse_args, ignore_unknown_args=True);
- slime/utils/arguments.py:39-42 --actor-num-nodes (default 1) x --actor-num-gpus-per-node (default 8) = the world
  Megatron is given (slime/backends/megatron_utils/arguments.py:206); :56-59 --rollout-num-gpus-per-engine (default 1),
  :61-64 --num-gpus-per-node (default 8); :1592-1594 --debug-rollout-only / --debug-train-only skip a phase;
- slime/backends/sglang_utils/arguments.py:51-66 the ServerArgs slime sets itself (model_path, tp_size, nnodes, ...,
  not re-registered), :96 `--sglang-<flag>` for every other one, :173-181 the engine's TP = GPUs per engine /
  --sglang-pp-size;
- slime/backends/sglang_utils/sglang_engine.py:521-546 _compute_server_args: model_path = --hf-checkpoint, tp_size,
  nnodes = max(1, GPUs per engine // --num-gpus-per-node), dp_size / pp_size / ep_size from the --sglang-* flags.
"""
from __future__ import annotations

from moecfg.frameworks import Derivation, LaunchContext, Note
from moecfg.frameworks.flags import known_value
from moecfg.frameworks.values import integer, load_json, JsonValueError
from moecfg.sources.launch import EnvEntry, Launch, Word
from moecfg.trainers import phases
from moecfg.trainers.phases import EngineArgs, Key
from moecfg.trainers.slime import releases, rules
from moecfg.trainers.megatron_keys import TAKES_VALUE as _MEGATRON

S = "THUDM/slime@624b824"
# slime's own cluster flags (name -> takes a value), slime/utils/arguments.py:39-75, :1592-1594
_OWN = {"--actor-num-nodes": True, "--actor-num-gpus-per-node": True, "--rollout-num-gpus-per-engine": True,
        "--num-gpus-per-node": True, "--hf-checkpoint": True, "--rollout-num-gpus": True, "--colocate": False,
        "--debug-rollout-only": False, "--debug-train-only": False, "--train-backend": True}
_DEFAULTS = {"--actor-num-nodes": "1", "--actor-num-gpus-per-node": "8", "--rollout-num-gpus-per-engine": "1",
             "--num-gpus-per-node": "8"}
# `--sglang-*` flags slime defines itself, not SGLang's (sglang_utils/arguments.py:16-47, 125-143)
_SLIME_SGLANG = ("--sglang-router-ip", "--sglang-router-port", "--sglang-router-request-timeout-secs",
                 "--sglang-server-concurrency", "--sglang-config")


class _Read:
    """One pass over slime's words: its own keys, the Megatron flags, the SGLang flags, the unknown words."""

    def __init__(self, launch: Launch, start: int):
        self.launch = launch
        self.own: dict[str, Key] = {}
        self.megatron = EngineArgs(("pretrain_gpt.py",), launch.span)
        self.sizes: dict[str, tuple[int | None, Key]] = {}
        self.sglang = EngineArgs(("python3", "-m", "sglang.launch_server"), launch.span)
        self.sglang_keys: dict[str, Key] = {}
        self.hidden: list[Word] = []
        self._walk(list(launch.argv[start:]))

    def _walk(self, words: list[Word]) -> None:
        i = 0
        while i < len(words):
            w = words[i]
            text = w.value
            if text is None:
                self.hidden.append(w)  # `${PERF_ARGS[@]}` not known: flags may hide in it
                self.megatron.word(w)
                i += 1
                continue
            name, eq, inline = text.partition("=")
            if not name.startswith("--"):
                i += 1
                continue
            takes = _OWN.get(name, _MEGATRON.get(name, True))  # a switch (--colocate) takes no word after it
            values, i = self._values(words, i + 1, eq, inline, w) if takes or eq else ([], i + 1)
            if name in _OWN:
                self.own[name] = Key(name, values[0].value if values and _OWN[name] else "true", w.span)
            elif name.startswith("--sglang-") and name not in _SLIME_SGLANG:
                flag = "--" + name[len("--sglang-"):]
                self.sglang.word(Word(flag, w.span), name)
                for v in values:
                    self.sglang.word(v)
                self.sglang_keys[flag] = Key(name, values[0].value if values else "true", w.span)
            elif name in _MEGATRON:
                key = Key(name, values[0].value if values else None, w.span)
                if _MEGATRON[name]:
                    self.megatron.flag(name, key)
                else:
                    self.megatron.switch(name, key)
                if name in phases.MEGATRON_SIZES:
                    self.sizes[name] = (integer(key.value), key)

    @staticmethod
    def _values(words: list[Word], j: int, eq: str, inline: str, w: Word) -> tuple[list[Word], int]:
        """The value words of the flag at j - 1: `--x=v`, else the words up to the next `--` word (an unknown word
        right after a flag is taken as its value)."""
        if eq:
            return [Word(known_value(inline), w.span, exact=w.exact)], j
        out = []
        while j < len(words) and not (words[j].value or "").startswith("--"):
            if words[j].value is None and out:
                break  # a second unknown word is not this flag's: it may hide flags
            out.append(words[j])
            j += 1
        return out, j

    def key(self, name: str) -> Key:
        """slime's own key as written, else slime's default for it (argparse, slime/utils/arguments.py:39-64)."""
        return self.own.get(name) or Key(name, _DEFAULTS.get(name), self.launch.span, default=True)


def derive_phases(launch: Launch, ctx: LaunchContext, out: Derivation, start: int) -> None:
    r = _Read(launch, start)
    out.notes.append(Note("MC040", f"slime version not given: read as slime {releases.VERSION} ({S}, the newest "
                          f"read), whose image runs SGLang 0.5.15.post1 ({releases.SGLANG_IMAGE}, docker/Dockerfile:1) "
                          "and Megatron-LM@1dcf0da", launch.span))
    if "--debug-rollout-only" not in r.own:
        _train(r, ctx, out)
    config = _sglang_config(launch, start)
    if config is not None and "--debug-train-only" not in r.own:
        # the YAML's server groups set each engine's GPUs and override the --sglang-* flags (slime@624b824
        # slime/backends/sglang_utils/arguments.py:131-140, sglang_engine.py:516-520; miles: sglang_engine.py:800-801):
        # the file is read on its own (sources/recipes/miles_sglang.py), not merged into this launch
        phases.not_derived(out, launch, f"rollout engines from --sglang-config {config}: its server groups override "
                           "the --sglang-* flags; the YAML is read on its own")
    elif "--debug-train-only" not in r.own:
        _rollout(r, ctx, out)


def _sglang_config(launch: Launch, start: int) -> str | None:
    """The --sglang-config value as written (`(not known statically)` for a variable), or None without the flag."""
    words = launch.argv[start:]
    for i, w in enumerate(words):
        head, eq, inline = (w.value or "").partition("=")
        if head == "--sglang-config":
            value = inline if eq else (words[i + 1].value if i + 1 < len(words) else None)
            return value if value is not None else "(not known statically)"
    return None


def _train(r: _Read, ctx: LaunchContext, out: Derivation) -> None:
    nodes, per = r.key("--actor-num-nodes"), r.key("--actor-num-gpus-per-node")
    n, g = integer(nodes.value), integer(per.value)
    world = n * g if n and g and n > 0 and g > 0 else None
    how = " x ".join(f"{k.name} {k.value}" + (" (slime's default)" if k.default else "") for k in (nodes, per))
    moe = any(w.value == "--num-experts" for w in r.megatron.words)
    if not r.hidden and world is not None:
        note = phases.megatron_world(world, how, per.span if not per.default else r.launch.span, r.sizes, moe)
        if note is not None:
            out.notes.append(note)
            return
    phases.run_phase(out, "megatron", r.megatron, r.megatron.launch(r.launch), ctx, "train",
                     f"Megatron-LM (slime's actor, {S} slime/backends/megatron_utils/arguments.py:193-206)")


def _runtime_env(launch: Launch) -> dict[str, EnvEntry]:
    """`ray job submit --runtime-env-json '{"env_vars": {...}}'`: the variables Ray sets in slime's processes."""
    words = launch.argv
    for i, w in enumerate(words):
        text = w.value or ""
        if text == "--":
            break
        if text.startswith("--runtime-env-json"):
            value = text.partition("=")[2] if "=" in text else (words[i + 1].value if i + 1 < len(words) else None)
            span = w.span if "=" in text else words[i + 1].span if i + 1 < len(words) else w.span
            try:
                data = load_json(value) if value else None
            except JsonValueError:
                return {}
            env = data.get("env_vars") if isinstance(data, dict) else None
            if not isinstance(env, dict):
                return {}
            return {str(k): EnvEntry(str(k), known_value(str(v)) if v is not None else None, span)
                    for k, v in env.items()}
    return {}


def _rollout(r: _Read, ctx: LaunchContext, out: Derivation) -> None:
    gpus_key = r.key("--rollout-num-gpus-per-engine")
    gpus = integer(gpus_key.value)
    pp_key = r.sglang_keys.get("--pp-size") or r.sglang_keys.get("--pipeline-parallel-size")
    pp = integer(pp_key.value) if pp_key else 1
    if gpus is not None and pp and gpus % pp:
        out.notes.append(Note(rules.PP_INDIVISIBLE.code, f"--rollout-num-gpus-per-engine {gpus} is not a multiple of "
                              f"{pp_key.name} {pp}: slime asserts it when it parses its arguments ({S} "
                              "slime/backends/sglang_utils/arguments.py:175-178); use a pipeline size that divides "
                              "the GPUs per engine", pp_key.span))
        return
    dp = r.sglang_keys.get("--dp-size") or r.sglang_keys.get("--data-parallel-size")
    if dp and (integer(dp.value) or 0) > 1 and "--enable-dp-attention" not in r.sglang_keys:
        out.notes.append(Note(rules.DP_WITHOUT_DP_ATTENTION.code, f"{dp.name} {dp.value} without "
                              "--sglang-enable-dp-attention: slime asserts it when it parses its arguments "
                              f"({S} slime/backends/sglang_utils/arguments.py:183-184); add --sglang-enable-dp-attention",
                              dp.span))
        return
    sg = r.sglang
    tp = gpus // pp if gpus is not None and pp else None
    sg.flag("--tp-size", gpus_key, str(tp) if tp is not None else None)
    per_node = integer(r.key("--num-gpus-per-node").value)
    if gpus is not None and per_node:
        sg.flag("--nnodes", r.key("--num-gpus-per-node"), str(max(1, gpus // per_node)))
    if "--hf-checkpoint" in r.own:
        sg.flag("--model-path", r.own["--hf-checkpoint"])
    env = phases.env_with(r.launch, _runtime_env(r.launch))
    phases.run_phase(out, "sglang", sg, sg.launch(r.launch, env, releases.SGLANG_IMAGE), ctx, "rollout",
                     f"SGLang (one server per rollout engine of --rollout-num-gpus-per-engine GPUs, {S} "
                     "slime/backends/sglang_utils/sglang_engine.py:506-546)")
