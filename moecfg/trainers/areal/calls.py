"""AReaL's allocation strings and config -> the Megatron-LM command line of the actor and the rollout engine's.

inclusionAI/AReaL@4aef98d:
- allocation strings (areal/api/alloc_mode.py:594-634): `+` joins disaggregated parts, `|` colocated ones; an
  inference part `sglang|vllm[:name]:d4t2p1` (d servers of t x p GPUs), a train part `megatron:d4p2t2c1e4` or the
  hybrid MoE form `megatron:(attn:d4p4t2|ffn:d2p4e4)` (:943-1040: ffn p = attn p, ffn d derived, expert-TP = ffn t);
  expert-TP is 1 unless the ffn part sets it (:85-90);
- the actor's parallel state: TP, PP, CP, EP, expert-TP of its strategy (megatron_engine.py:229-241), the dispatcher
  actor.megatron.moe_token_dispatcher_type (default alltoall) and moe_enable_deepep (default false)
  (cli_args.py:901-907), the model at actor.path;
- the rollout servers: SGLang gets tp_size = t, pp_size = p and the `sglang:` section as ServerArgs
  (cli_args.py:1842-1885); vLLM tensor_parallel_size = t, pipeline_parallel_size = p and the `vllm:` section
  (:1670-1700). `${a.b}` values are the key they name.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from moecfg.frameworks import Derivation, LaunchContext, Note
from moecfg.frameworks.flags import known_value
from moecfg.frameworks.models import resolve_model, unresolved_reason
from moecfg.sources.launch import Launch, Word
from moecfg.trainers import phases
from moecfg.trainers.areal import releases, rules
from moecfg.trainers.phases import EngineArgs, Key

A = releases.AREAL
_INF = re.compile(r"^(sglang|vllm)(?:\[\w+\])?:((?:[dtp][1-9]\d*)+)$")
_TRAIN = re.compile(r"^(fsdp|megatron|archon)(?:\[\w+\])?:((?:[pdtce][1-9]\d*)+)$")
_HYBRID = re.compile(r"^(fsdp|megatron|archon):\(?attn:((?:[cdtp][1-9]\d*)+)\|ffn:((?:[detp][1-9]\d*)+)\)?$")
_REF = re.compile(r"^\$\{([\w.]+)\}$")
# the server settings passed through when written (SGLangConfig / vLLMConfig fields, cli_args.py:1625-1809)
_SGLANG = ("ep_size", "dp_size", "enable_dp_attention", "mem_fraction_static", "max_running_requests",
           "chunked_prefill_size", "cuda_graph_max_bs", "context_length", "max_prefill_tokens", "disable_cuda_graph")
_VLLM = ("gpu_memory_utilization", "max_num_seqs", "max_model_len", "enforce_eager")


@dataclass
class Part:
    """One allocation: its backend and sizes (None: not derivable), or the refusal AReaL's parser raises."""

    backend: str
    sizes: dict = field(default_factory=dict)  # d t p c e etp
    refusal: tuple[str, str] | None = None  # (rule code, message)


def _dims(text: str) -> dict[str, int]:
    return {k: int(v) for k, v in re.findall(r"([a-z])(\d+)", text)}


def _split(text: str, sep: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in text:
        depth += ch == "("
        depth -= ch == ")"
        if ch == sep and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    return out + [cur]


def parse(text: str) -> list[Part] | None:
    """The parts of an allocation string, or None where it is not one moecfg parses."""
    parts = []
    for component in _split(text.replace(" ", ""), "+"):
        pieces = [component] if "attn:" in component else _split(component, "|")
        for piece in pieces:
            part = _part(piece)
            if part is None:
                return None
            parts.append(part)
    return parts


def _part(text: str) -> Part | None:
    m = _INF.match(text)
    if m:
        d = _dims(m.group(2))
        return Part(m.group(1), {"d": d.get("d", 1), "t": d.get("t", 1), "p": d.get("p", 1)})
    m = _TRAIN.match(text)
    if m:
        d = _dims(m.group(2))
        sizes = {k: d.get(k, 1) for k in "dtpce"}
        sizes["etp"] = 1
        return _expert_world(Part(m.group(1), sizes))
    m = _HYBRID.match(text)
    if not m:
        return None
    attn, ffn = _dims(m.group(2)), _dims(m.group(3))
    a = {k: attn.get(k, 1) for k in "dtpc"}
    world = a["d"] * a["t"] * a["p"] * a["c"]
    ep, etp, fp = ffn.get("e", 1), ffn.get("t", 1), ffn.get("p", a["p"])
    if fp != a["p"]:
        return Part(m.group(1), refusal=(rules.HYBRID_PP.code, f"ffn p{fp} is not attn p{a['p']}: AReaL raises "
                                         f"AllocationValidationError ({A} areal/api/alloc_mode.py:984-991)"))
    fd = ffn.get("d")
    if fd is None:
        if world % (ep * etp * fp):
            return Part(m.group(1), refusal=(rules.HYBRID_WORLD.code, f"attn's {world} GPUs are not a multiple of "
                                             f"ffn e{ep} x t{etp} x p{fp} = {ep * etp * fp}: AReaL cannot derive ffn's "
                                             f"d ({A} areal/api/alloc_mode.py:1002-1013)"))
        fd = world // (ep * etp * fp)
    if fd * fp * etp * ep != world:
        return Part(m.group(1), refusal=(rules.HYBRID_WORLD.code, f"ffn d{fd} x p{fp} x t{etp} x e{ep} = "
                                         f"{fd * fp * etp * ep} GPUs, attn d x p x t x c = {world}: AReaL raises "
                                         f"InvalidAllocationModeError ({A} areal/api/alloc_mode.py:1015-1031)"))
    return _expert_world(Part(m.group(1), {**a, "e": ep, "etp": etp}))


def _expert_world(part: Part) -> Part:
    s = part.sizes
    world, emp = s["d"] * s["c"] * s["t"] * s["p"], s["p"] * s["etp"] * s["e"]
    if s["e"] > 1 and world % emp:
        part.refusal = (rules.EXPERT_WORLD.code, f"expert model parallel p{s['p']} x etp {s['etp']} x e{s['e']} = "
                        f"{emp} does not divide the world d x c x t x p = {world}: AReaL asserts it ({A} "
                        "areal/api/alloc_mode.py:93-107)")
    return part


class _Keys:
    def __init__(self, launch: Launch):
        self.launch, self.raw = launch, {}
        for w in launch.argv[1:]:
            if w.value and "=" in w.value:
                name, _, value = w.value.partition("=")
                self.raw[name] = (value, w.span)

    def get(self, name: str, depth: int = 0) -> Key:
        if name not in self.raw:
            return Key(name, None, self.launch.span)
        value, span = self.raw[name]
        m = _REF.match(value)
        if m and depth < 4 and m.group(1) in self.raw:
            other = self.get(m.group(1), depth + 1)
            return Key(f"{name} (= {other.name})", other.value, span)
        return Key(name, known_value(value), span)

    def under(self, prefix: str) -> dict[str, Key]:
        return {k[len(prefix):]: self.get(k) for k in self.raw if k.startswith(prefix)}


def derive_phases(launch: Launch, ctx: LaunchContext, out: Derivation) -> None:
    k = _Keys(launch)
    out.notes.append(Note("MC040", f"AReaL version not given: read as AReaL at {A} (the newest read)", launch.span))
    train_key, roll_key = k.get("actor.backend"), k.get("rollout.backend")
    mode = k.get("allocation_mode")
    keys = [(key, parse(key.value)) for key in (train_key, roll_key, mode)
            if key.value not in (None, "null", "None")]
    for key, parts in keys:
        if parts is None:
            phases.not_derived(out, launch, f"allocation not read: {key.name} = {key.value}")
        for part in parts or ():
            if part.refusal:
                out.notes.append(Note(part.refusal[0], f"{key.name} {key.value}: {part.refusal[1]}", key.span))
                return
    train = next(((key, p) for key, parts in keys for p in parts or () if p.backend in ("fsdp", "megatron", "archon")),
                 None)
    roll = next(((key, p) for key, parts in keys for p in parts or () if p.backend in ("sglang", "vllm")), None)
    if train is None and not keys:
        phases.not_derived(out, launch, "no allocation (actor.backend, rollout.backend, allocation_mode) is known "
                           "statically")
    if train is not None:
        _train(k, ctx, out, *train)
    if roll is not None:
        _rollout(k, ctx, out, *roll)


def _train(k: _Keys, ctx: LaunchContext, out: Derivation, key: Key, part: Part) -> None:
    if part.backend != "megatron":
        phases.not_derived(out, k.launch, f"train engine not derived: {key.name} = {key.value} ({part.backend})")
        return
    mg = EngineArgs(("pretrain_gpt.py",), k.launch.span)
    s = part.sizes
    for flag, letter in (("--tensor-model-parallel-size", "t"), ("--pipeline-model-parallel-size", "p"),
                         ("--context-parallel-size", "c"), ("--expert-model-parallel-size", "e"),
                         ("--expert-tensor-parallel-size", "etp")):
        mg.flag(flag, Key(f"{key.name} {key.value} ({letter} {s[letter]})", None, key.span), str(s[letter]))
    dispatcher = k.get("actor.megatron.moe_token_dispatcher_type")
    if dispatcher.value is None and "actor.megatron.moe_token_dispatcher_type" not in k.raw:
        dispatcher = Key(f"actor.megatron.moe_token_dispatcher_type alltoall (AReaL's default, {A} "
                         "areal/api/cli_args.py:902-907)", "alltoall", k.launch.span)
    mg.flag("--moe-token-dispatcher-type", dispatcher)
    deepep = k.get("actor.megatron.moe_enable_deepep")
    if (deepep.value or "").lower() == "true":
        mg.switch("--moe-enable-deepep", deepep)
    elif deepep.value is None and "actor.megatron.moe_enable_deepep" in k.raw:
        mg.word(Word(None, deepep.span, exact=False))
    model = k.get("actor.path")
    dims = resolve_model(model.value, ctx)
    if dims is None:
        if s["e"] > 1:
            out.notes.append(Note("MC042", f"{model.name}: {unresolved_reason(model.value, ctx)}", model.span))
        else:
            phases.not_derived(out, k.launch, "train engine not derived: the model at actor.path is not known to "
                               "moecfg and no expert parallelism is set")
        return
    for flag, value in (("--num-experts", dims.num_experts), ("--hidden-size", dims.hidden),
                        ("--moe-router-topk", dims.topk)):
        mg.flag(flag, Key(f"{model.name} ({dims.how})", None, model.span), str(value))
    phases.run_phase(out, "megatron", mg, mg.launch(k.launch), ctx, "train",
                     f"Megatron-LM (AReaL's actor, {A} areal/engine/megatron_engine.py)")


def _rollout(k: _Keys, ctx: LaunchContext, out: Derivation, key: Key, part: Part) -> None:
    s = part.sizes
    tp = Key(f"{key.name} {key.value} (t {s['t']})", None, key.span)
    pp = Key(f"{key.name} {key.value} (p {s['p']})", None, key.span)
    if part.backend == "sglang":
        model = k.get("sglang.model_path")
        eng = EngineArgs(("python3", "-m", "sglang.launch_server"), k.launch.span)
        eng.flag("--model-path", model)
        eng.flag("--tp-size", tp, str(s["t"]))
        if s["p"] > 1:
            eng.flag("--pp-size", pp, str(s["p"]))
        section, fields, framework, engine = "sglang.", _SGLANG, "sglang", "SGLang"
    else:
        model = k.get("vllm.model")
        eng = EngineArgs(("vllm", "serve"), k.launch.span)
        eng.word(Word(model.value, model.span, exact=model.value is not None))
        eng.flag("--tensor-parallel-size", tp, str(s["t"]))
        eng.flag("--pipeline-parallel-size", pp, str(s["p"]))
        section, fields, framework, engine = "vllm.", _VLLM, "vllm", "vLLM"
    written = k.under(section)
    for f in fields:
        v = written.get(f)
        if v is None:
            continue
        flag = "--" + f.replace("_", "-")
        if (v.value or "").lower() == "true":
            eng.switch(flag, v)
        elif (v.value or "").lower() not in ("false", "null", "none"):
            eng.flag(flag, v)
    phases.run_phase(out, framework, eng, eng.launch(k.launch), ctx, "rollout",
                     f"{engine} (AReaL's rollout servers, {s['d']} of them, {A} areal/api/cli_args.py)")
