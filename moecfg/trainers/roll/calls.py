"""ROLL's config -> the Megatron-LM command line of the actor (and the reference) and the rollout engine's.

alibaba/ROLL@8eb27cc:
- the model: `pretrain` for actor_train, actor_infer and reference unless all three name their own
  model_args.model_name_or_path (roll/configs/base_config.py:636-641);
- megatron_train / megatron_infer: training_args then strategy_config, each key the TrainingArguments field (Megatron's
  argument) of the same name (roll/distributed/strategy/megatron_strategy.py:106-113); one process per GPU of
  device_mapping (num_gpus_per_worker forced to 1, roll/configs/worker_config.py:278-282), evaluated as Python
  (:312, `list(range(0,32))`);
- vllm: strategy_config is vLLM's LLM(**kwargs) (vllm_strategy.py:72-119) less ROLL's own VLLM_USE_V1 and
  sleep_level; ROLL's defaults there: max_num_batched_tokens 8192, enforce_eager False, load_format dummy; one engine
  per tensor_parallel_size x pipeline_parallel_size GPUs (worker_config.py:283-287);
- sglang: strategy_config is SGLang's ServerArgs, tp_size = its tensor_parallel_size (sglang_strategy.py:76-124).
"""
from __future__ import annotations

import re

from moecfg.frameworks import Derivation, LaunchContext, Note
from moecfg.frameworks.flags import known_value
from moecfg.frameworks.models import resolve_model, unresolved_reason
from moecfg.frameworks.values import integer
from moecfg.sources.launch import Launch, Word
from moecfg.trainers import phases
from moecfg.trainers.phases import EngineArgs, Key
from moecfg.trainers.roll import releases, rules
from moecfg.trainers.megatron_keys import FIELD_FLAGS as _FIELD_FLAGS, SIZE_FLAGS as _SIZES, TAKES_VALUE as _MEGATRON

R = releases.ROLL
# the settings a Megatron phase's derivation reads besides the sizes (a reference differing only elsewhere, e.g. in
# moe_layer_recompute, builds the same dispatcher)
_DISPATCH = {"sequence_parallel", "moe_token_dispatcher_type", "moe_enable_deepep", "moe_flex_dispatcher_backend",
             "num_moe_experts", "moe_router_topk"}
_ROLL_ONLY = {"VLLM_USE_V1", "sleep_level"}  # popped before vLLM sees the config (vllm_strategy.py:80-81)
_VLLM_DEFAULTS = {"max_num_batched_tokens": "8192"}  # vllm_strategy.py:110
_NAME = ".strategy_args.strategy_name"
_RANGE = re.compile(r"^list\(\s*range\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?(?:,\s*(\d+)\s*)?\)\s*\)$")
_LIST = re.compile(r"^\[?\s*\d+(?:\s*,\s*\d+)*\s*\]?$")


class _Keys:
    def __init__(self, launch: Launch):
        self.launch, self.keys = launch, {}
        for w in launch.argv[1:]:
            if w.value and "=" in w.value:
                name, _, value = w.value.partition("=")
                self.keys[name] = Key(name, known_value(value), w.span)

    def get(self, name: str) -> Key:
        return self.keys.get(name) or Key(name, None, self.launch.span)

    def under(self, prefix: str) -> dict[str, Key]:
        return {k[len(prefix):]: v for k, v in self.keys.items() if k.startswith(prefix)}

    def strategy(self, worker: str) -> str | None:
        return self.get(f"{worker}.strategy_args.strategy_name").value

    def worker(self, strategies: tuple[str, ...], first: tuple[str, ...]) -> str | None:
        """The worker section running one of `strategies`: the usual name first (actor_train), else the first such
        section (an SFT pipeline's sft_train, a distillation's student_train / teacher)."""
        names = [k[:-len(_NAME)] for k in self.keys if k.endswith(_NAME)]
        return next((w for w in first if w in names and self.strategy(w) in strategies), None) or \
            next((w for w in names if self.strategy(w) in strategies), None)


def devices(value: str | None) -> int | None:
    """How many GPUs a device_mapping lists: `list(range(0,32))`, `list(range(8))`, `[0,1,2,3]`; None otherwise."""
    if value is None:
        return None
    text = value.strip().strip("'\"")
    m = _RANGE.match(text)
    if m:
        a, b, step = m.group(1), m.group(2), m.group(3)
        start, stop = (0, int(a)) if b is None else (int(a), int(b))
        return len(range(start, stop, int(step or 1))) if int(step or 1) > 0 else None
    return len(text.strip("[]").split(",")) if _LIST.match(text) else None


def derive_phases(launch: Launch, ctx: LaunchContext, out: Derivation) -> None:
    k = _Keys(launch)
    out.version = releases.VERSION
    out.notes.append(Note("MC040", f"ROLL version not given: read as ROLL {releases.VERSION} ({R}, the newest read)",
                          launch.span))
    train = k.worker(("megatron_train",), ("actor_train",))
    if train is None:
        own = k.strategy("actor_train") or next((k.keys[n].value for n in k.keys if n.endswith(_NAME)), None)
        ep = k.get("actor_train.strategy_args.strategy_config.ep_size")
        said = f" (ROLL's own expert parallelism, ep_size {ep.value})" if ep.value not in (None, "1") else ""
        phases.not_derived(out, launch, f"train engine not derived: strategy {own}{said}")
    elif _train(k, ctx, out, train, "train", _model(k, train)):
        ref = k.worker(("megatron_infer",), ("reference", "teacher"))
        if ref is not None and _differs(k, train, ref):
            _train(k, ctx, out, ref, "ref", _model(k, ref))
    infer = k.worker(("vllm", "sglang"), ("actor_infer",))
    if infer is not None:
        _rollout(k, ctx, out, infer, _model(k, infer))
    elif k.strategy("actor_infer"):
        phases.not_derived(out, launch, f"rollout engine not derived: actor_infer.strategy_args.strategy_name = "
                           f"{k.strategy('actor_infer')}")
    critic = k.strategy("critic")
    if critic:
        phases.not_derived(out, launch, f"critic engine not derived: critic.strategy_args.strategy_name = {critic}")


def _model(k: _Keys, worker: str) -> Key:
    """actor_train, actor_infer and reference take `pretrain` unless all three name their own model; another worker
    its own model_args.model_name_or_path, else `pretrain`."""
    trio = ("actor_train", "actor_infer", "reference")
    own = [k.keys.get(f"{w}.model_args.model_name_or_path") for w in trio]
    if worker in trio:
        return own[trio.index(worker)] if all(o is not None and o.value not in (None, "null") for o in own) \
            else k.get("pretrain")
    mine = k.keys.get(f"{worker}.model_args.model_name_or_path")
    return mine if mine is not None and mine.value not in (None, "null") else k.get("pretrain")


def _differs(k: _Keys, train: str, ref: str) -> bool:
    if k.get(f"{train}.model_args.model_name_or_path").value != k.get(f"{ref}.model_args.model_name_or_path").value:
        return True  # a distillation's teacher: another model
    a, r = k.under(f"{train}.strategy_args.strategy_config."), k.under(f"{ref}.strategy_args.strategy_config.")
    fields = set(_SIZES) | _DISPATCH
    return any((a.get(f).value if a.get(f) else None) != (r.get(f).value if r.get(f) else None) for f in fields)


def _train(k: _Keys, ctx: LaunchContext, out: Derivation, worker: str, role: str, model: Key) -> bool:
    """The Megatron phase of `worker`; False when it is not a Megatron one or stopped at a refusal."""
    config = k.under(f"{worker}.strategy_args.strategy_config.")
    mg = EngineArgs(("pretrain_gpt.py",), k.launch.span)
    sizes: dict[str, tuple[int | None, Key | None]] = {}
    for field, key in sorted(config.items()):
        flag = _FIELD_FLAGS.get(field, "--" + field.replace("_", "-"))
        if flag not in _MEGATRON:
            continue
        if _MEGATRON[flag]:
            mg.flag(flag, key)
            if field in _SIZES:
                sizes[flag] = (integer(key.value), key)
        elif (key.value or "").lower() == "true":
            mg.switch(flag, key)
    mapping = k.get(f"{worker}.device_mapping")
    world = devices(mapping.value)
    if worker == "actor_train" and world is not None and not _batch_fits(k, out, sizes, world, mapping):
        return False
    if world is not None:
        note = phases.megatron_world(world, f"{mapping.name} {mapping.value}", mapping.span, sizes, True)
        if note is not None:
            out.notes.append(note)
            return False
    dims = resolve_model(model.value, ctx)
    if dims is None:
        if role == "train":
            ep = sizes.get("--expert-model-parallel-size", (1, None))[0]
            if ep is None or ep > 1:
                out.notes.append(Note("MC042", f"{model.name}: {unresolved_reason(model.value, ctx)}", model.span))
            else:
                phases.not_derived(out, k.launch, f"train engine not derived: the model at {model.name} is not known "
                                   "to moecfg and no expert parallelism is set")
        return role == "train"
    for flag, value in (("--num-experts", dims.num_experts), ("--hidden-size", dims.hidden),
                        ("--moe-router-topk", dims.topk)):
        if flag not in mg.named:
            mg.flag(flag, Key(f"{model.name} ({dims.how})", None, model.span), str(value))
    phases.run_phase(out, "megatron", mg, mg.launch(k.launch), ctx, role,
                     f"Megatron-LM (ROLL's {worker} worker, {R} roll/distributed/strategy/megatron_strategy.py)")
    return True


def _batch_fits(k: _Keys, out: Derivation, sizes, world: int, mapping: Key) -> bool:
    """MC731: rollout_batch_size over actor_train's data-parallel ranks (config_utils.py:74-97; BaseConfig checks
    actor_train only, base_config.py:368-379)."""
    batch = k.get("rollout_batch_size")
    b = integer(batch.value)
    tp, pp, cp = (sizes.get(f, (1, None))[0] for f in ("--tensor-model-parallel-size",
                                                        "--pipeline-model-parallel-size", "--context-parallel-size"))
    if b is None or None in (tp, pp, cp) or min(tp, pp, cp) < 1 or world % (tp * pp * cp):
        return True  # the world check (Megatron's) speaks of an indivisible world
    dp = world // (tp * pp * cp)
    if dp > 1 and b % dp:
        out.notes.append(Note(rules.BATCH_DP.code, f"rollout_batch_size {b} is not a multiple of the Megatron "
                              f"actor's data-parallel size {dp} ({mapping.name} {world} GPUs / TP {tp} x PP {pp} x "
                              f"CP {cp}): ROLL raises ValueError ({R} roll/utils/config_utils.py:87-97); set "
                              f"rollout_batch_size to a multiple of {dp}", batch.span))
        return False
    return True


def _rollout(k: _Keys, ctx: LaunchContext, out: Derivation, worker: str, model: Key) -> None:
    name = k.get(f"{worker}.strategy_args.strategy_name")
    config = k.under(f"{worker}.strategy_args.strategy_config.")
    one = Key("(ROLL's default 1)", "1", k.launch.span)
    tp, pp = config.get("tensor_parallel_size", one), config.get("pipeline_parallel_size", one)
    t, p = integer(tp.value), integer(pp.value)
    mapping = k.get(f"{worker}.device_mapping")
    n = devices(mapping.value)
    per = t * p if t and p and t > 0 and p > 0 else None
    if name.value == "vllm" and per and n is not None and n % per:
        out.notes.append(Note(rules.DEVICES_INDIVISIBLE.code, f"{mapping.name} lists {n} GPUs, not a multiple of the "
                              f"{per} GPUs of each vLLM worker (tensor_parallel_size {t} x pipeline_parallel_size "
                              f"{p}): ROLL asserts it ({R} roll/configs/worker_config.py:311-315); list a multiple of "
                              f"{per} GPUs", mapping.span))
        return
    dp = config.get("data_parallel_size")
    d = integer(dp.value) if dp else None
    if name.value == "vllm" and d and d > 1 and per and n is not None and d != n // per:
        out.notes.append(Note(rules.VLLM_DP_WORLD.code, f"{dp.name} {d} is not the number of ROLL's vLLM workers "
                              f"({n} GPUs of {mapping.name} / {per} per worker = {n // per}): ROLL asserts it ({R} "
                              f"roll/distributed/strategy/vllm_strategy.py:89); set {dp.name} {n // per}", dp.span))
        return
    if name.value == "vllm":
        eng = EngineArgs(("vllm", "serve"), k.launch.span)
        eng.word(Word(model.value, model.span, exact=model.value is not None))
        for field, value in _VLLM_DEFAULTS.items():
            if field not in config:
                eng.flag("--" + field.replace("_", "-"), Key(f"{field} {value} (ROLL's default, {R} "
                                                             "vllm_strategy.py:110)", value, k.launch.span))
        skip = _ROLL_ONLY
        framework, engine = "vllm", "vLLM"
    else:
        eng = EngineArgs(("python3", "-m", "sglang.launch_server"), k.launch.span)
        eng.flag("--model-path", model)
        if "tensor_parallel_size" in config:
            eng.flag("--tp-size", config["tensor_parallel_size"])
        else:  # ROLL's default: its placement groups' GPUs (sglang_strategy.py:77): not in the config
            eng.word(Word(None, k.launch.span, exact=False))
        skip = {"tensor_parallel_size", "pipeline_parallel_size"}
        framework, engine = "sglang", "SGLang"
    for field, key in sorted(config.items()):
        if field in skip or "." in field:
            continue
        flag = "--" + field.replace("_", "-")
        if (key.value or "").lower() == "true":
            eng.switch(flag, key)
        elif (key.value or "").lower() not in ("false", "null", "none"):
            eng.flag(flag, key)
    phases.run_phase(out, framework, eng, eng.launch(k.launch), ctx, "rollout",
                     f"{engine} (ROLL's {worker} worker, {R} roll/distributed/strategy/{name.value}_strategy.py)")
