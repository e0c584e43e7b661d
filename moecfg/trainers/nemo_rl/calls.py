"""NeMo-RL's settings -> the Megatron-LM command line of the policy and the vLLM / SGLang one of its generation.

NVIDIA-NeMo/RL@7ea279abf:
- the train engine: policy.megatron_cfg.enabled (Megatron-Bridge) or policy.dtensor_cfg.enabled (DTensor /
  Automodel, with its own expert parallelism: not derived) (nemo_rl/models/policy/lm_policy.py:118-125);
- Megatron (nemo_rl/models/megatron/setup.py:858-1019): tensor / pipeline / context / expert / expert-tensor sizes,
  sequence_parallel, moe_enable_deepep, moe_token_dispatcher_type, and moe_flex_dispatcher_backend when written,
  on the Hugging Face model at policy.model_name (Megatron-Bridge's AutoBridge);
- the clusters (GRPO, nemo_rl/algorithms/grpo.py:759-1052): colocated, the policy and vLLM share cluster.gpus_per_node
  x cluster.num_nodes; not colocated, generation takes policy.generation.colocated.resources (one node:
  resources.gpus_per_node of it; more: resources.num_nodes whole nodes) and the policy the rest. A reward-model
  environment or OPD teachers take nodes too: the world is then not derived;
- vLLM (nemo_rl/models/generation/vllm/vllm_worker.py:319-322, :570-597, vllm_generation.py:116-145): TP, PP,
  enable_expert_parallel = expert_parallel_size > 1, EP / TP data-parallel ranks (VLLM_DP_SIZE), gpu_memory_utilization,
  max_model_len, enforce_eager, and policy.generation.vllm_kwargs.<arg> as the engine's own arguments;
- SGLang (nemo_rl/models/generation/sglang/sglang_worker.py:376-438): tp / dp / pp / ep sizes and the listed
  sglang_cfg fields as ServerArgs.
"""
from __future__ import annotations

from moecfg.frameworks import Derivation, LaunchContext, Note, OpCall
from moecfg.frameworks.models import resolve_model, unresolved_reason
from moecfg.frameworks.values import integer
from moecfg.sources.launch import Word
from moecfg.trainers import phases
from moecfg.trainers.nemo_rl import releases, rules
from moecfg.trainers.nemo_rl.launch_keys import Keys
from moecfg.trainers.phases import EngineArgs, Key
from moecfg.trainers.megatron_keys import SIZE_FLAGS as _SIZES, TAKES_VALUE as _MEGATRON

S = releases.NEMO_RL
M = "policy.megatron_cfg."
# setup.py:916-977: passed to the provider as written (moe_flex_dispatcher_backend only when the config has it)
_DISPATCH = ("moe_token_dispatcher_type", "moe_flex_dispatcher_backend")
# sglang_worker.py:417-437: the sglang_cfg fields NeMo-RL passes to ServerArgs
_SGLANG_FIELDS = ("dtype", "kv_cache_dtype", "context_length", "max_running_requests", "chunked_prefill_size",
                  "max_prefill_tokens", "schedule_policy", "schedule_conservativeness", "cpu_offload_gb",
                  "mem_fraction_static", "allow_auto_truncate", "disable_piecewise_cuda_graph", "disable_cuda_graph",
                  "disable_cuda_graph_padding", "cuda_graph_max_bs")
# policy.megatron_cfg.model_overrides.<field> that change the model's MoE shape (Megatron-Bridge provider fields)
_SHAPE = {"num_moe_experts": "--num-experts", "hidden_size": "--hidden-size", "moe_router_topk": "--moe-router-topk"}
_GRPO_SCRIPTS = ("run_grpo.py", "run_vlm_grpo.py", "run_grpo_nemo_gym.py", "run_grpo_sliding_puzzle.py")


def derive_phases(k: Keys, ctx: LaunchContext, out: Derivation) -> None:
    given = ctx.version_for("nemo-rl")
    out.version = given or releases.VERSION
    if not given:
        out.notes.append(Note("MC040", f"NeMo-RL version not given: read as NeMo-RL {releases.VERSION} ({S} nemo_rl/"
                              f"package_info.py:16-18, the release read), which pins vLLM {releases.VLLM} and SGLang "
                              f"{releases.SGLANG} (pyproject.toml:148-158)", k.launch.span))
    for why in k.missing:
        phases.not_derived(out, k.launch, f"parent config not read ({why}): the settings it holds are unknown "
                           "(check a folder holding both files, e.g. the repository: `moecfg check .`)")
    clusters = _clusters(k)
    _train(k, ctx, out, clusters)
    _rollout(k, ctx, out, clusters)
    if k.has("teacher.") or k.has("on_policy_distillation.non_colocated_teachers."):
        phases.not_derived(out, k.launch, "teacher model phase not derived (teacher / on_policy_distillation)")
    if k.hidden and any(c.kind != "none" for c in out.calls):
        out.notes.append(Note("MC023", f"{len(k.hidden)} word(s) of the NeMo-RL command are not known statically "
                              "(`$@`, an unset variable): an override in them would change what is derived here",
                              k.hidden[0].span))


def _int(k: Keys, name: str) -> int | None:
    value = integer(k.get(name).value)
    return value if value is not None and value > 0 else None


def _algorithm(k: Keys) -> str | None:
    """grpo / sft / dpo by the entry script, or by the config's own section when the config is the launch."""
    if k.script:
        return "grpo" if k.script in _GRPO_SCRIPTS else {"run_sft.py": "sft", "run_dpo.py": "dpo"}.get(k.script)
    found = [a for a in ("grpo", "sft", "dpo") if a in k.sections]
    return found[0] if len(found) == 1 and "distillation" not in k.sections else None


def _clusters(k: Keys) -> tuple[tuple[int, str] | None, tuple[int, str] | None]:
    """((policy GPUs, how), (generation GPUs, how)) of a GRPO launch (grpo.py:759-1052), or an SFT / DPO one (the
    whole cluster); None where not known."""
    algorithm = _algorithm(k)
    if algorithm is None or k.missing or k.has("env.reward_model.") or k.has("on_policy_distillation."):
        return None, None
    gpn, nodes = _int(k, "cluster.gpus_per_node"), _int(k, "cluster.num_nodes")
    if algorithm in ("sft", "dpo") and gpn is not None and nodes is not None:  # sft.py:187-194, dpo.py:243-250
        return (gpn * nodes, f"cluster.gpus_per_node {gpn} x cluster.num_nodes {nodes}"), None
    colocated = (k.get("policy.generation.colocated.enabled").value or "").lower()
    if gpn is None or nodes is None or colocated not in ("true", "false"):
        return None, None
    if colocated == "true":  # grpo.py:811-843: one cluster for both
        both = (gpn * nodes, f"cluster.gpus_per_node {gpn} x cluster.num_nodes {nodes}")
        return both, both
    r = "policy.generation.colocated.resources."
    inf_gpn, inf_nodes = _int(k, r + "gpus_per_node"), _int(k, r + "num_nodes")
    if nodes == 1:  # grpo.py:865-891
        if inf_gpn is None or inf_gpn >= gpn:
            return None, None  # NeMo-RL's own assertions say it
        return ((gpn - inf_gpn, f"cluster.gpus_per_node {gpn} - {r}gpus_per_node {inf_gpn}"),
                (inf_gpn, f"{r}gpus_per_node {inf_gpn}"))
    if inf_nodes is None or inf_nodes >= nodes or inf_gpn != gpn:  # grpo.py:896-914
        return None, None
    return (((nodes - inf_nodes) * gpn, f"(cluster.num_nodes {nodes} - {r}num_nodes {inf_nodes}) x {gpn} GPUs"),
            (inf_nodes * gpn, f"{r}num_nodes {inf_nodes} x {gpn} GPUs"))


def _train(k: Keys, ctx: LaunchContext, out: Derivation, clusters) -> None:
    megatron, dtensor = k.get(M + "enabled"), k.get("policy.dtensor_cfg.enabled")
    if not k.has("policy."):
        return  # run_eval.py: generation only
    on = {(megatron.value or "").lower(), (dtensor.value or "").lower()}
    if on <= {"true", "false"} and len(on) == 1:  # both, or neither: lm_policy.py:121-125, :155-160 raise
        both = "true" in on
        out.notes.append(Note(rules.ONE_BACKEND.code, f"{megatron.name}={'true' if both else 'false'} and "
                              f"{dtensor.name}={'true' if both else 'false'}: NeMo-RL raises ValueError ({S} nemo_rl/"
                              f"models/policy/lm_policy.py:{'121-125' if both else '155-160'}); enable exactly one "
                              f"(set policy.dtensor_cfg.enabled={'false' if both else 'true'})", megatron.span))
        return
    if (megatron.value or "").lower() != "true":
        if megatron.value is None:
            phases.not_derived(out, k.launch, "train engine not known statically: policy.megatron_cfg.enabled")
        elif (dtensor.value or "").lower() == "true":
            ep = k.get("policy.dtensor_cfg.expert_parallel_size").value
            phases.not_derived(out, k.launch, "train engine not derived: DTensor / Automodel (policy.dtensor_cfg"
                               + (f", its own expert parallelism expert_parallel_size={ep}" if ep not in (None, "1")
                                  else "") + ")")
        return
    mg = EngineArgs(("pretrain_gpt.py",), k.launch.span)
    sizes: dict[str, tuple[int | None, Key | None]] = {}
    for field, flag in _SIZES.items():
        key = k.get(M + field)
        mg.flag(flag, key)
        sizes[flag] = (integer(key.value), key)
    sp = k.get(M + "sequence_parallel")
    if (sp.value or "").lower() == "true":
        mg.switch("--sequence-parallel", sp)
    elif sp.value is None:
        mg.word(Word(None, sp.span, exact=False))
    deepep = k.get(M + "moe_enable_deepep")
    if (deepep.value or "").lower() == "true" and "--moe-enable-deepep" in _MEGATRON:
        mg.switch("--moe-enable-deepep", deepep)
    for field in _DISPATCH:
        key = k.get(M + field)
        if key.value is not None and key.value.lower() not in ("null", "none") and "--" + field.replace(
                "_", "-") in _MEGATRON:
            mg.flag("--" + field.replace("_", "-"), key)
        elif key.value is None and field == "moe_token_dispatcher_type":
            mg.flag("--moe-token-dispatcher-type", key)
    for field, flag in _SHAPE.items():  # setup.py:662-670: the provider's own fields, before the first-class ones
        key = k.get(M + "model_overrides." + field)
        if key.value is not None and key.value.lower() not in ("null", "none"):
            mg.flag(flag, key)
    model = k.get("policy.model_name")
    ep = sizes["--expert-model-parallel-size"][0]
    if not _model(mg, model, ctx, out, ep):
        return
    policy = clusters[0]
    if policy is not None:
        note = phases.megatron_world(policy[0], policy[1], k.launch.span, sizes, True)
        if note is not None:
            out.notes.append(note)
            return
    seen = len(out.notes), len(out.calls)
    phases.run_phase(out, "megatron", mg, mg.launch(k.launch), ctx, "train",
                     f"Megatron-LM (NeMo-RL's Megatron policy worker, {S} nemo_rl/models/megatron/setup.py)")
    _first_batch(k, out, seen)


def _first_batch(k: Keys, out: Derivation, seen: tuple[int, int]) -> None:
    """HybridEP sizes its buffer by the tokens of the first batch (Megatron's MC042 asks for --seq-length): NeMo-RL
    sets no such flag, its micro-batches are made from the data at run time (sequence packing, padding), so nothing
    the user can write answers it. Listed as not derived, not asked."""
    asked = [n for n in out.notes[seen[0]:] if n.code == "MC042" and n.message.startswith("--seq-length not given")]
    if not asked:
        return
    out.notes[:] = [n for n in out.notes if n not in asked]
    why = ("HybridEP sizes its buffer by the tokens of the first micro-batch, which NeMo-RL builds from the data at "
           "run time (policy.sequence_packing; policy.max_total_sequence_length bounds it)")
    for call in out.calls[seen[1]:]:
        if call.kind == "none" and "MC042" in (call.why_none or ""):
            call.why_none = f"Megatron-LM: no op call derived ({why})"
            call.derivation["op_call"] = f"not derived ({why})"
    phases.not_derived(out, k.launch, f"train dispatch not derived: {why}")


def _known(key: Key) -> Key:
    """`model_name: null`: a placeholder the launcher fills at run time (examples/nemo_gym/nemotron-3-ultra/
    student_rlvr1.yaml:133): not known statically, not a model named "null"."""
    return Key(key.name, None, key.span) if (key.value or "").lower() in ("null", "none", "") else key


def _model(mg: EngineArgs, model: Key, ctx, out: Derivation, ep: int | None) -> bool:
    model = _known(model)
    dims = resolve_model(model.value, ctx)
    if dims is None:
        if (ep or 1) > 1 or ep is None:
            out.notes.append(Note("MC042", f"{model.name}: {unresolved_reason(model.value, ctx)}", model.span))
        else:  # EP 1: no expert-parallel collective, whatever the model
            out.calls.append(OpCall("train", "none", None, {}, why_none=f"the model at {model.name} is not known and "
                                    "no expert parallelism is set: no expert-parallel collective", quiet=True))
        return False
    for flag, value in (("--num-experts", dims.num_experts), ("--hidden-size", dims.hidden),
                        ("--moe-router-topk", dims.topk)):
        if flag not in mg.named:  # a model_overrides field wins over the Hugging Face config's
            mg.flag(flag, Key(f"{model.name} ({dims.how})", None, model.span), str(value))
    return True


def _rollout(k: Keys, ctx: LaunchContext, out: Derivation, clusters) -> None:
    g = "policy.generation." if k.has("policy.") else "generation."
    if not k.has(g):
        return  # SFT / DPO: no generation
    backend = k.get(g + "backend")
    if backend.value not in ("vllm", "sglang"):
        phases.not_derived(out, k.launch, f"rollout engine not derived: {backend.name} = "
                           f"{backend.value or 'not known statically'}")
        return
    model = _known(k.get("policy.model_name" if g.startswith("policy.") else g + "model_name"))
    if backend.value == "sglang":
        _sglang(k, ctx, out, g, model)
        return
    v = g + "vllm_cfg."
    tp, pp, ep, engine = (k.get(v + f) for f in ("tensor_parallel_size", "pipeline_parallel_size",
                                                 "expert_parallel_size", "async_engine"))
    t, p, e = (integer(x.value) for x in (tp, pp, ep))
    asynchronous = (engine.value or "").lower()
    generation = clusters[1]
    if None not in (t, p) and min(t, p) >= 1 and generation is not None and generation[0] % (t * p):
        out.notes.append(Note(rules.ROLLOUT_SHAPE.code, f"the generation's {generation[0]} GPUs ({generation[1]}) are "
                              f"not a multiple of vLLM TP {t} x PP {p} = {t * p}: NeMo-RL asserts it ({S} nemo_rl/models/"
                              "generation/vllm/vllm_generation.py:121-124); use a TP x PP that divides "
                              f"{generation[0]}", tp.span))
        return
    if p is not None and p > 1 and asynchronous == "false":
        out.notes.append(Note(rules.ROLLOUT_SHAPE.code, f"{pp.name}={p} with {engine.name}=false: NeMo-RL asserts "
                              f"the async engine ({S} nemo_rl/models/generation/vllm/vllm_generation.py:128-132); set "
                              f"{v}async_engine=true", pp.span))
        return
    if None not in (t, e) and t >= 1 and e > 1 and e % t:
        out.notes.append(Note(rules.ROLLOUT_EP.code, f"{ep.name}={e} is not a multiple of {tp.name} {t}: NeMo-RL "
                              f"asserts it ({S} nemo_rl/models/generation/vllm/vllm_generation.py:134-138); set "
                              f"{v}expert_parallel_size to a multiple of {t}", ep.span))
        return
    if None not in (t, e) and t >= 1 and e > 1 and e != t and asynchronous == "true":
        out.notes.append(Note(rules.ROLLOUT_EP.code, f"{ep.name}={e} differs from {tp.name} {t} (vLLM data "
                              f"parallelism) with {engine.name}=true: NeMo-RL asserts the async engine is off ({S} "
                              f"nemo_rl/models/generation/vllm/vllm_generation.py:139-145); set {v}async_engine=false "
                              f"or {v}expert_parallel_size={t}", engine.span))
        return
    eng = EngineArgs(("vllm", "serve"), k.launch.span)
    eng.word(Word(model.value, model.span, exact=model.value is not None))
    eng.flag("--tensor-parallel-size", tp)
    eng.flag("--pipeline-parallel-size", pp)
    if e is None or t is None:
        eng.word(Word(None, ep.span, exact=False))  # expert parallelism on or off: not known
    elif e > 1:  # vllm_worker.py:322 enable_expert_parallel; vllm_dp_size = EP // TP (vllm_generation.py:126)
        eng.switch("--enable-expert-parallel", ep)
        eng.flag("--data-parallel-size", ep, str(e // t))
    for field in ("gpu_memory_utilization", "max_model_len"):
        eng.flag("--" + field.replace("_", "-"), k.get(v + field))
    eager = k.get(v + "enforce_eager")
    if (eager.value or "").lower() == "true":
        eng.switch("--enforce-eager", eager)
    for field, key in sorted(k.under(g + "vllm_kwargs.").items()):
        if "." in field:
            continue  # a nested argument (compilation_config.*): a JSON value, not read
        flag = "--" + field.replace("_", "-")
        if (key.value or "").lower() == "true":
            eng.switch(flag, key)
        elif (key.value or "").lower() not in ("false", "null", "none"):
            eng.flag(flag, key)
    phases.run_phase(out, "vllm", eng, eng.launch(k.launch), ctx, "rollout",
                     f"vLLM (NeMo-RL's vLLM generation, {S} nemo_rl/models/generation/vllm/vllm_worker.py)")


def _sglang(k: Keys, ctx: LaunchContext, out: Derivation, g: str, model: Key) -> None:
    c = g + "sglang_cfg."
    eng = EngineArgs(("python3", "-m", "sglang.launch_server"), k.launch.span)
    path = _known(k.get(c + "model_path"))
    eng.flag("--model-path", path if path.value is not None else model)
    for field in ("tp_size", "dp_size", "pp_size", "ep_size"):
        eng.flag("--" + field.replace("_", "-"), k.get(c + field))
    for field in _SGLANG_FIELDS:
        key = k.get(c + field)
        if field not in k.under(c) or (key.value or "").lower() in ("null", "none", "false"):
            continue
        if (key.value or "").lower() == "true":
            eng.switch("--" + field.replace("_", "-"), key)
        else:
            eng.flag("--" + field.replace("_", "-"), key)
    phases.run_phase(out, "sglang", eng, eng.launch(k.launch), ctx, "rollout",
                     f"SGLang (NeMo-RL's SGLang generation, {S} nemo_rl/models/generation/sglang/sglang_worker.py)")
