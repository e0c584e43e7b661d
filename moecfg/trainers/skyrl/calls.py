"""SkyRL's overrides -> the Megatron-LM command line of the policy and the vLLM one of each rollout engine.

NovaSky-AI/SkyRL@a956457:
- keys not written take the dataclass defaults of skyrl/train/config/config.py (releases.DEFAULTS); an entry point
  of the older `skyrl_train` package or a launch writing its flat `generator.inference_engine_*` keys is another
  release: keys not written are unknown;
- the Megatron provider (megatron_worker.py:466-493): TP / PP / CP / EP / expert-TP and moe_token_dispatcher_type
  from trainer.policy.megatron_config, sequence_parallel = TP > 1, then every transformer_config_kwargs.<field> over
  them; the model's MoE shape is the Hugging Face model at trainer.policy.model.path (AutoBridge);
- the policy world: trainer.placement.policy_num_nodes x policy_num_gpus_per_node (utils.py:82);
- vLLM (inference_servers/utils.py:85-115): tensor_parallel_size, pipeline_parallel_size, data_parallel_size,
  enable_expert_parallel = expert_parallel_size > 1, gpu_memory_utilization, max_num_batched_tokens, max_num_seqs,
  enforce_eager; engine_init_kwargs.<arg> passed through.
"""
from __future__ import annotations

from moecfg.frameworks import Derivation, LaunchContext, Note
from moecfg.frameworks.flags import known_value
from moecfg.frameworks.models import resolve_model, unresolved_reason
from moecfg.frameworks.values import integer
from moecfg.sources.launch import Launch, Word
from moecfg.trainers import phases
from moecfg.trainers.phases import EngineArgs, Key
from moecfg.trainers.skyrl import releases, rules
from moecfg.trainers.skyrl.releases import IE, M, R
from moecfg.trainers.megatron_keys import FIELD_FLAGS as _FIELD_FLAGS, SIZE_FLAGS as _SIZES, TAKES_VALUE as _MEGATRON

S = releases.SKYRL


class _Keys:
    def __init__(self, launch: Launch, start: int):
        self.launch, self.written, self.hidden = launch, {}, []
        for w in launch.argv[start:]:
            text = w.value if w.value is not None else w.pattern
            if text and "=" in text and not text.startswith("-"):
                name, _, value = text.partition("=")
                name = name.lstrip("+")
                self.written[name] = Key(name, known_value(value) if w.value is not None else None, w.span)
            elif text is None or w.value is None:
                self.hidden.append(w)
        words = launch.words()
        legacy = any((w or "").startswith("skyrl_train.") for w in words[:start]) or any(
            k.startswith("generator.inference_engine_") or k.startswith("generator.num_inference_engines")
            for k in self.written)
        self.defaults = None if legacy else releases.DEFAULTS

    def get(self, name: str) -> Key:
        if name in self.written:
            return self.written[name]
        if self.defaults is not None and name in self.defaults:
            value, where = self.defaults[name]
            return Key(f"{name} {value} (SkyRL's default, {S} {where})", value, self.launch.span)
        return Key(name, None, self.launch.span)

    def under(self, prefix: str) -> dict[str, Key]:
        return {k[len(prefix):]: v for k, v in self.written.items() if k.startswith(prefix)}


def derive_phases(launch: Launch, ctx: LaunchContext, out: Derivation, start: int) -> None:
    k = _Keys(launch, start)
    out.version = releases.VERSION if k.defaults is not None else None
    if k.defaults is None:
        out.notes.append(Note("MC023", "an older SkyRL (the skyrl_train package, flat generator.inference_engine_* "
                              f"keys) is not a release moecfg read ({S}): the keys this launch does not write are "
                              "unknown", launch.span))
    else:
        out.notes.append(Note("MC040", f"SkyRL version not given: read as SkyRL {releases.VERSION} ({S}, the newest "
                              "read)", launch.span))
    strategy = k.get("trainer.strategy")
    backend = k.get(IE + "backend")
    if strategy.value == "megatron" and backend.value not in (None, "vllm"):
        out.notes.append(Note(rules.MEGATRON_NEEDS_VLLM.code, f"{backend.name}={backend.value} with "
                              f"trainer.strategy=megatron: SkyRL asserts the vllm backend ({S} skyrl/train/utils/"
                              "utils.py:201); set generator.inference_engine.backend=vllm", backend.span))
        return
    _train(k, ctx, out, strategy, "policy")
    if strategy.value == "megatron" and _ref_used(k) and _ref_differs(k):
        _train(k, ctx, out, strategy, "ref")
    _rollout(k, ctx, out, backend)
    if k.hidden and any(c.kind != "none" for c in out.calls):
        out.notes.append(Note("MC023", f"{len(k.hidden)} word(s) of the SkyRL command are not known statically "
                              "(`$@`, an unset variable): an override in them would change what is derived here",
                              k.hidden[0].span))


def _ref_used(k: _Keys) -> bool:
    """The reference model runs when trainer.algorithm.use_kl_loss (default true, config.py:833) or
    use_kl_in_reward (default false, :830) holds (RefConfig's docstring, config.py:661-667)."""
    loss, reward = k.get("trainer.algorithm.use_kl_loss"), k.get("trainer.algorithm.use_kl_in_reward")
    if "trainer.algorithm.use_kl_loss" not in k.written and k.defaults is not None:
        loss = Key(loss.name, "true", loss.span)
    return "true" in ((loss.value or "").lower(), (reward.value or "").lower())


def _ref_differs(k: _Keys) -> bool:
    """The ref's own megatron_config (SkyRL's defaults, not the policy's) or model differs from the policy's."""
    fields = list(_SIZES) + ["moe_token_dispatcher_type"]
    if any(k.get(M + f).value != k.get(R + f).value for f in fields):
        return True
    ref_model = k.get("trainer.ref.model.path")
    if "trainer.ref.model.path" in k.written and ref_model.value != k.get("trainer.policy.model.path").value:
        return True
    return k.under(M + "transformer_config_kwargs.") != k.under(R + "transformer_config_kwargs.") and any(
        f.startswith("moe_") for f in {**k.under(M + "transformer_config_kwargs."),
                                       **k.under(R + "transformer_config_kwargs.")})


def _train(k: _Keys, ctx: LaunchContext, out: Derivation, strategy: Key, who: str) -> None:
    prefix = M if who == "policy" else R
    if strategy.value != "megatron":
        phases.not_derived(out, k.launch, f"train engine not derived: trainer.strategy = "
                           f"{strategy.value or 'not known statically'}")
        return
    mg = EngineArgs(("pretrain_gpt.py",), k.launch.span)
    sizes: dict[str, tuple[int | None, Key | None]] = {}
    for field, flag in _SIZES.items():
        key = k.get(prefix + field)
        if key.value is None and key.name == prefix + field and prefix + field not in k.written and \
                field == "expert_tensor_parallel_size" and k.defaults is not None:
            continue  # None: Megatron resolves it to TP (config.py:459)
        mg.flag(flag, key)
        sizes[flag] = (integer(key.value), key)
    tp = sizes["--tensor-model-parallel-size"]
    if tp[0] is not None and tp[0] > 1:  # provider.sequence_parallel = TP > 1 (megatron_worker.py:474)
        mg.switch("--sequence-parallel", Key(f"{tp[1].name} > 1 (sequence parallel, {S} skyrl/backends/skyrl_train/"
                                             "workers/megatron/megatron_worker.py:474)", None, tp[1].span))
    dispatcher = k.get(prefix + "moe_token_dispatcher_type")
    kwargs = k.under(prefix + "transformer_config_kwargs.")
    if "moe_token_dispatcher_type" not in kwargs:
        mg.flag("--moe-token-dispatcher-type", dispatcher)
    for field, key in sorted(kwargs.items()):
        flag = _FIELD_FLAGS.get(field, "--" + field.replace("_", "-"))
        if flag in _MEGATRON and _MEGATRON[flag]:
            mg.flag(flag, key)
            if field in _SIZES:
                sizes[flag] = (integer(key.value), key)
        elif flag in _MEGATRON and (key.value or "").lower() == "true":
            mg.switch(flag, key)
    nodes, per = k.get(f"trainer.placement.{who}_num_nodes"), k.get(f"trainer.placement.{who}_num_gpus_per_node")
    n, g = integer(nodes.value), integer(per.value)
    world = n * g if n and g and n > 0 and g > 0 else None
    t, p, c = (sizes.get(f, (1, None))[0] for f in ("--tensor-model-parallel-size", "--pipeline-model-parallel-size",
                                                     "--context-parallel-size"))
    if who == "policy" and world is not None and None not in (t, p, c) and min(t, p, c) >= 1 and world % (t * p * c):
        out.notes.append(Note(rules.POLICY_WORLD.code, f"the policy's {world} GPUs ({nodes.name} {n} x {per.name} {g}) "
                              f"are not a multiple of PP {p} x CP {c} x TP {t} = {p * c * t}: SkyRL asserts it ({S} "
                              "skyrl/train/utils/utils.py:88-91); change the GPU count or the parallel sizes",
                              per.span if per.name in k.written else k.launch.span))
        return
    model = k.get("trainer.policy.model.path")
    if who == "ref" and "trainer.ref.model.path" in k.written:  # else the policy's (config.py:1504-1505)
        model = k.get("trainer.ref.model.path")
    dims = resolve_model(model.value, ctx)
    if dims is None and who == "ref":
        return  # the policy's phase already asked for the model
    ep = sizes.get("--expert-model-parallel-size", (1, None))[0]
    if dims is None:
        if ep is None or ep > 1:
            out.notes.append(Note("MC042", f"{model.name}: {unresolved_reason(model.value, ctx)}", model.span))
        else:
            phases.not_derived(out, k.launch, "train engine not derived: the model at trainer.policy.model.path is "
                               "not known to moecfg and no expert parallelism is set")
        return
    for flag, value in (("--num-experts", dims.num_experts), ("--hidden-size", dims.hidden),
                        ("--moe-router-topk", dims.topk)):
        if flag not in mg.named:
            mg.flag(flag, Key(f"{model.name} ({dims.how})", None, model.span), str(value))
    if world is not None:
        note = phases.megatron_world(world, f"{nodes.name} {n} x {per.name} {g}", k.launch.span, sizes, True)
        if note is not None:
            out.notes.append(note)
            return
    phases.run_phase(out, "megatron", mg, mg.launch(k.launch), ctx, "train" if who == "policy" else "ref",
                     f"Megatron-LM (SkyRL's {who} worker, {S} skyrl/backends/skyrl_train/workers/megatron/)")


def _rollout(k: _Keys, ctx: LaunchContext, out: Derivation, backend: Key) -> None:
    if backend.value != "vllm":
        phases.not_derived(out, k.launch, f"rollout engine not derived: {backend.name} = "
                           f"{backend.value or 'not known statically'}")
        return
    tp, pp, dp, ep = (k.get(IE + f) for f in ("tensor_parallel_size", "pipeline_parallel_size", "data_parallel_size",
                                              "expert_parallel_size"))
    t, d, e = integer(tp.value), integer(dp.value), integer(ep.value)
    if None not in (t, d, e) and e > 1 and min(t, d) >= 1 and e != t * d:
        out.notes.append(Note(rules.ROLLOUT_EP.code, f"{ep.name}={e} is not data_parallel_size {d} x "
                              f"tensor_parallel_size {t} = {t * d}: SkyRL asserts it ({S} skyrl/train/utils/utils.py:"
                              f"556-560); set {IE}expert_parallel_size={t * d}", ep.span))
        return
    model = k.get("trainer.policy.model.path")
    eng = EngineArgs(("vllm", "serve"), k.launch.span)
    eng.word(Word(model.value, model.span, exact=model.value is not None))
    eng.flag("--tensor-parallel-size", tp)
    eng.flag("--pipeline-parallel-size", pp)
    eng.flag("--data-parallel-size", dp)
    if e is None:
        eng.word(Word(None, ep.span, exact=False))  # expert parallelism on or off: not known
    elif e > 1:
        eng.switch("--enable-expert-parallel", ep)
    for field in ("gpu_memory_utilization", "max_num_batched_tokens", "max_num_seqs"):
        eng.flag("--" + field.replace("_", "-"), k.get(IE + field))
    eager = k.get(IE + "enforce_eager")
    if (eager.value or "").lower() == "true":
        eng.switch("--enforce-eager", eager)
    for field, key in sorted(k.under(IE + "engine_init_kwargs.").items()):
        flag = "--" + field.replace("_", "-")
        if (key.value or "").lower() == "true":
            eng.switch(flag, key)
        elif (key.value or "").lower() not in ("false", "null", "none"):
            eng.flag(flag, key)
    phases.run_phase(out, "vllm", eng, eng.launch(k.launch), ctx, "rollout",
                     f"vLLM (SkyRL's inference engine, {S} skyrl/backends/skyrl_train/inference_servers/utils.py)")
