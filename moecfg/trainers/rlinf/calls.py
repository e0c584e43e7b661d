"""RLinf's config -> the Megatron-LM command line of the actor and the SGLang / vLLM one of the rollout.

RLinf/RLinf@a3816b596:
- train (actor.training_backend megatron): every key of actor.model, actor.optim, actor.lr_sched and actor.megatron
  becomes Megatron's argument of the same name (rlinf/utils/initialize.py:105-122 extract_selected_fields, :125-150
  set_megatron_args) and actor.model's keys the TransformerConfig / ModelParallelConfig fields of the same name
  (rlinf/config.py build_transformer_config); the parallel groups are actor.model's TP / PP / CP / EP / expert-TP
  (rlinf/utils/initialize.py:383-394); keys not written: RLinf's defaults (config.py:745-765: TP, PP, CP, EP 1,
  expert-TP Megatron's), else Megatron's own; the model's MoE shape comes from the Hugging Face config at
  rollout.model.model_path (actor.model.model_path for SFT) (config.py:1527-1536 validate_model_cfg_by_hf_config);
- with actor.megatron.mbridge the model is Megatron-Bridge's provider with RLinf's fields set over it; for
  actor.model.model_type deepseek_v3 only the parallel sizes and a few runtime fields are
  (hybrid_engines/megatron/megatron_model_manager.py:306-330): the dispatcher is the provider's, not known here;
- the actor's GPUs: cluster.component_placement's entry naming `actor` (`0-7`, `0-3,8-11`; `all` is every GPU Ray
  finds, not known statically) (rlinf/scheduler/cluster/utils.py:459-519 parse_rank_config);
- rollout (rollout.rollout_backend, default sglang, config.py:319): SGLang's ServerArgs (workers/rollout/sglang/
  sglang_worker.py:162-196): tp_size = rollout.tensor_parallel_size, ep_size = the same when
  rollout.sglang.enable_ep_moe else 1, mem_fraction_static = rollout.gpu_memory_utilization (default 0.65,
  config.py:303), max_running_requests, attention_backend (default triton, config.py:284); or vLLM's EngineArgs
  (workers/rollout/vllm/vllm_worker.py:337-350): tensor_parallel_size, gpu_memory_utilization, max_num_seqs, no
  expert parallelism.
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
from moecfg.trainers.rlinf import releases, rules
from moecfg.trainers.megatron_keys import FIELD_FLAGS as _FIELD_FLAGS, SIZE_FLAGS as _SIZES, TAKES_VALUE as _MEGATRON

R = releases.RLINF
# RLinf's defaults for the sizes it fills (config.py:745-761); expert-TP None: Megatron's (TP)
_SIZE_DEFAULTS = {"tensor_model_parallel_size": ("1", 746), "pipeline_model_parallel_size": ("1", 749),
                  "context_parallel_size": ("1", 757), "expert_model_parallel_size": ("1", 760)}
# the fields RLinf sets on a deepseek_v3 Megatron-Bridge provider (megatron_model_manager.py:306-330)
_BRIDGE_DEEPSEEK = {"sequence_parallel", "tensor_model_parallel_size", "pipeline_model_parallel_size",
                    "expert_model_parallel_size", "context_parallel_size"}
_TRAIN_SECTIONS = ("actor.model.", "actor.megatron.")
_RANKS = re.compile(r"^\d+(?:-\d+)?(?:,\d+(?:-\d+)?)*$")
_REF = re.compile(r"^\$\{([\w.]+)\}$")
_ROLLOUT_TASKS = ("reasoning", "reasoning_eval", "coding_online_rl")


class _Keys:
    def __init__(self, launch: Launch):
        self.launch, self.keys = launch, {}
        raw: dict[str, str] = {}
        for w in launch.argv[1:]:
            if w.value and "=" in w.value:
                name, _, value = w.value.partition("=")
                raw[name] = value
                self.keys[name] = Key(name, known_value(value), w.span)
        for name, text in raw.items():  # `${actor.model.precision}`: the key it names, when written as a value
            m = _REF.match(text)
            if m and m.group(1) in raw and "${" not in raw[m.group(1)]:
                self.keys[name] = Key(f"{name} (= {m.group(1)})", known_value(raw[m.group(1)]), self.keys[name].span)
            elif "${" in text:  # another reference or a resolver (`${subtract:...}`): not known statically
                self.keys[name] = Key(name, None, self.keys[name].span)

    def get(self, name: str) -> Key:
        return self.keys.get(name) or Key(name, None, self.launch.span)

    def default(self, name: str, value: str, where: str) -> Key:
        """The key as written, else RLinf's default (`where`: the line that sets it)."""
        return self.keys.get(name) or Key(f"{name} {value} (RLinf's default, {R} {where})", value, self.launch.span)

    def under(self, prefix: str) -> dict[str, Key]:
        return {k[len(prefix):]: v for k, v in self.keys.items() if k.startswith(prefix)}


def ranks(value: str | None) -> int | None:
    """How many GPUs a placement names (`0-7`, `0-3,8-11`, `4`); None for `all` (Ray's count) or anything else."""
    text = (value or "").replace(" ", "")
    if not _RANKS.match(text):
        return None
    out: set[int] = set()
    for part in text.split(","):
        a, _, b = part.partition("-")
        out.update(range(int(a), int(b or a) + 1))
    return len(out)


def placement(k: _Keys, component: str) -> Key | None:
    """The component_placement entry naming `component` (`actor,rollout,reward: all`)."""
    for name, key in k.under("cluster.component_placement.").items():
        if component in (c.strip() for c in name.split(",")):
            return Key(f"cluster.component_placement.{name}", key.value, key.span)
    return None


def derive_phases(launch: Launch, ctx: LaunchContext, out: Derivation) -> None:
    k = _Keys(launch)
    out.version = releases.VERSION
    out.notes.append(Note("MC040", f"RLinf version not given: read as RLinf {releases.VERSION} ({R}, the newest "
                          "read)", launch.span))
    task = k.get("runner.task_type").value
    backend = k.get("actor.training_backend")
    rollout = task in _ROLLOUT_TASKS
    if task not in _ROLLOUT_TASKS + ("sft",):
        phases.not_derived(out, launch, f"RLinf runner.task_type = {task or 'not known statically'}: its workers "
                           "are not derived")
        return
    if not _checks(k, out, backend, task in ("reasoning", "coding_online_rl"), task != "reasoning_eval"):
        return
    if task != "reasoning_eval":  # an evaluation runs the rollout only (config.py:1511-1513)
        _train(k, ctx, out, backend, task)
    if rollout:
        _rollout(k, ctx, out)
    critic = k.get("critic.training_backend")
    if (k.get("critic.use_critic_model").value or "").lower() == "true" and task != "reasoning_eval":
        phases.not_derived(out, launch, f"critic engine not derived: RLinf's critic model (critic.training_backend "
                           f"= {critic.value or 'not known statically'}, {R} rlinf/config.py:1557-1564)")


def _checks(k: _Keys, out: Derivation, backend: Key, trains_and_rolls: bool, checks_actor: bool) -> bool:
    """MC729 (config.py:784-793) and MC734 (placement.py:281-284: ModelParallelComponentPlacement, which the
    reasoning and coding entries build, examples/reasoning/main_grpo.py:47; an evaluation's placement has no actor);
    False when one refuses the launch."""
    tp, etp = k.get("actor.model.tensor_model_parallel_size"), k.get("actor.model.expert_tensor_parallel_size")
    t, e = integer(tp.value) if "actor.model.tensor_model_parallel_size" in k.keys else 1, integer(etp.value)
    bridge = "actor.megatron.mbridge" not in k.keys or (k.get("actor.megatron.mbridge").value or "").lower() in (
        "false", "null")  # False: Megatron-Bridge builds the model (None: not known)
    if backend.value == "megatron" and bridge and checks_actor:  # an evaluation returns first (config.py:1511-1513)
        if t is not None and e is not None and e > t:
            out.notes.append(Note(rules.EXPERT_TP_ABOVE_TP.code, f"{etp.name} {e} is above "
                                  f"actor.model.tensor_model_parallel_size {t}: RLinf asserts expert-TP <= TP when it "
                                  f"builds the model itself ({R} rlinf/config.py:784-793); set {etp.name} {t} or "
                                  "less", etp.span))
            return False
    actor, roll = placement(k, "actor"), placement(k, "rollout")
    rtp = k.get("rollout.tensor_parallel_size")
    r = integer(rtp.value)
    collocated = actor is not None and roll is not None and (actor.name == roll.name or (
        actor.value is not None and actor.value == roll.value))
    if trains_and_rolls and backend.value == "megatron" and collocated and None not in (t, r) and min(t, r) >= 1 \
            and t > r and t % r:
        out.notes.append(Note(rules.COLLOCATED_TP.code, f"the actor and the rollout share their GPUs ({actor.name}"
                              f"{'' if actor.name == roll.name else ' and ' + roll.name}): actor TP {t} is not a "
                              f"multiple of {rtp.name} {r}: RLinf asserts it ({R} rlinf/utils/placement.py:281-284); "
                              f"set {rtp.name} to a divisor of {t}", rtp.span))
        return False
    return True


def _train(k: _Keys, ctx: LaunchContext, out: Derivation, backend: Key, task: str) -> None:
    if backend.value != "megatron":
        ep = k.get("actor.fsdp_config.expert_parallel_size").value or k.get("actor.model.expert_parallel_size").value
        said = f" (expert_parallel_size {ep}: RLinf's own FSDP expert parallelism)" if ep not in (None, "1") else ""
        phases.not_derived(out, k.launch, f"train engine not derived: actor.training_backend = "
                           f"{backend.value or 'not known statically'}{said}")
        return
    bridge = (k.get("actor.megatron.mbridge").value or "").lower() == "true"
    model_type = k.get("actor.model.model_type").value
    only = _BRIDGE_DEEPSEEK if bridge and model_type == "deepseek_v3" else None
    mg = EngineArgs(("pretrain_gpt.py",), k.launch.span)
    sizes: dict[str, tuple[int | None, Key | None]] = {}
    for field, (value, line) in _SIZE_DEFAULTS.items():
        key = k.default("actor.model." + field, value, f"rlinf/config.py:{line}")
        mg.flag(_SIZES[field], key)
        sizes[_SIZES[field]] = (integer(key.value), key)
    for prefix in _TRAIN_SECTIONS:
        for field, key in sorted(k.under(prefix).items()):
            if "." in field or field in _SIZE_DEFAULTS:
                continue
            flag = _FIELD_FLAGS.get(field, "--" + field.replace("_", "-"))
            if flag not in _MEGATRON or (only is not None and prefix == "actor.model." and field not in only
                                         and field not in _SIZES):
                continue
            if _MEGATRON[flag]:
                if (key.value or "").lower() in ("null", "none"):
                    continue  # RLinf passes None: Megatron's default
                mg.flag(flag, key)
                if field in _SIZES:
                    sizes[flag] = (integer(key.value), key)
            elif (key.value or "").lower() == "true":
                mg.switch(flag, key)
    if only is not None:  # the provider's dispatcher: not known here
        mg.flag("--moe-token-dispatcher-type", Key(
            f"the Megatron-Bridge provider's moe_token_dispatcher_type (actor.megatron.mbridge with model_type "
            f"deepseek_v3 keeps it, {R} rlinf/hybrid_engines/megatron/megatron_model_manager.py:306-330)", None,
            k.get("actor.megatron.mbridge").span))
    actor = placement(k, "actor")
    world = ranks(actor.value) if actor is not None else None
    if world is not None:
        note = phases.megatron_world(world, f"{actor.name} {actor.value}", actor.span, sizes, True)
        if note is not None:
            out.notes.append(note)
            return
    model = k.get("actor.model.model_path" if task == "sft" else "rollout.model.model_path")
    dims = resolve_model(model.value, ctx)
    ep = sizes["--expert-model-parallel-size"][0]
    _fusco(k, out, ep)
    if dims is None:
        if ep is None or ep > 1:
            out.notes.append(Note("MC042", f"{model.name}: {unresolved_reason(model.value, ctx)}", model.span))
        else:
            phases.not_derived(out, k.launch, f"train engine not derived: the model at {model.name} is not known to "
                               "moecfg and no expert parallelism is set")
        return
    for flag, value in (("--num-experts", dims.num_experts), ("--hidden-size", dims.hidden),
                        ("--moe-router-topk", dims.topk)):
        if flag not in mg.named:
            mg.flag(flag, Key(f"{model.name} ({dims.how})", None, model.span), str(value))
    phases.run_phase(out, "megatron", mg, mg.launch(k.launch), ctx, "train",
                     f"Megatron-LM (RLinf's actor, {R} rlinf/hybrid_engines/megatron/megatron_model_manager.py)")


def _fusco(k: _Keys, out: Derivation, ep: int | None) -> None:
    """RLinf swaps Megatron's alltoall dispatcher for its FUSCO one when the fusco library imports in the image
    (megatron_model_manager.py:98-111, 249-262): not known from the config, and FUSCO's buffers are not derived."""
    dispatcher = k.get("actor.model.moe_token_dispatcher_type").value
    if dispatcher == "alltoall" and (ep is None or ep > 1):
        phases.not_derived(out, k.launch, "train dispatcher: RLinf replaces Megatron's alltoall dispatcher with its "
                           f"FUSCO one when the fusco library is installed ({R} rlinf/hybrid_engines/megatron/"
                           "megatron_model_manager.py:98-111, 249-262): FUSCO not derived")


def _rollout(k: _Keys, ctx: LaunchContext, out: Derivation) -> None:
    backend = k.default("rollout.rollout_backend", "sglang", "rlinf/config.py:319")
    model = k.get("rollout.model.model_path")
    tp = k.get("rollout.tensor_parallel_size")
    if backend.value == "sglang":
        eng = EngineArgs(("python3", "-m", "sglang.launch_server"), k.launch.span)
        eng.flag("--model-path", model)
        eng.flag("--tp-size", tp)
        ep_moe = k.get("rollout.sglang.enable_ep_moe")
        if (ep_moe.value or "").lower() == "true":
            eng.flag("--ep-size", Key(f"{ep_moe.name} (ep_size = rollout.tensor_parallel_size, {R} rlinf/workers/"
                                      "rollout/sglang/sglang_worker.py:171-175)", tp.value, ep_moe.span))
        eng.flag("--mem-fraction-static", k.default("rollout.gpu_memory_utilization", "0.65", "rlinf/config.py:303"))
        for field, flag in (("rollout.max_running_requests", "--max-running-requests"),
                            ("rollout.sglang.attention_backend", "--attention-backend")):
            key = k.default(field, "triton", "rlinf/config.py:284") if field.endswith("backend") else k.get(field)
            if key.value is not None:
                eng.flag(flag, key)
        eager = k.get("rollout.enforce_eager")
        if (eager.value or "").lower() == "true":
            eng.switch("--disable-cuda-graph", eager)
        phases.run_phase(out, "sglang", eng, eng.launch(k.launch), ctx, "rollout",
                         f"SGLang (RLinf's rollout worker, {R} rlinf/workers/rollout/sglang/sglang_worker.py:162-196)")
    elif backend.value == "vllm":
        eng = EngineArgs(("vllm", "serve"), k.launch.span)
        eng.word(Word(model.value, model.span, exact=model.value is not None))
        eng.flag("--tensor-parallel-size", tp)
        eng.flag("--gpu-memory-utilization", k.default("rollout.gpu_memory_utilization", "0.65",
                                                       "rlinf/config.py:303"))
        for field, flag in (("rollout.max_running_requests", "--max-num-seqs"),
                            ("rollout.vllm.max_num_batched_tokens", "--max-num-batched-tokens")):
            key = k.get(field)
            if key.value is not None and key.value.lower() not in ("null", "none"):
                eng.flag(flag, key)
        eager = k.get("rollout.enforce_eager")
        if (eager.value or "").lower() == "true":
            eng.switch("--enforce-eager", eager)
        phases.run_phase(out, "vllm", eng, eng.launch(k.launch), ctx, "rollout",
                         f"vLLM (RLinf's rollout worker, {R} rlinf/workers/rollout/vllm/vllm_worker.py:337-350)")
    else:
        phases.not_derived(out, k.launch, f"rollout engine not derived: {backend.name} = "
                           f"{backend.value or 'not known statically'}")
