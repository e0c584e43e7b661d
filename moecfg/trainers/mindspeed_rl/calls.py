"""MindSpeed-RL's config -> the MindSpeed command line of the actor (train) and the vllm-ascend one of the rollout.

Ascend/MindSpeed-RL@05a90d7:
- the actor: the model file's section, then megatron_training, then actor_config (cli/train_grpo.py:251-254,
  mindspeed_rl/config_cls/base_config.py:13-33); each key is the Megatron / MindSpeed flag of the same name; the
  actor runs on rl_config.actor_resource.num_npus NPUs (rl_config.py:132, no default number);
- the Ray runtime environment every worker gets: HCCL_BUFFSIZE = rl_config.hccl_buffersize (default 256,
  rl_config.py:129), set over the runtime env file's (cli/train_grpo.py:709), and VLLM_DP_SIZE =
  generate_config.infer_expert_parallel_size when enable_expert_parallel (:706-708);
- the rollout: vLLM's LLM(model = the actor's tokenizer_name_or_path (workers/actor_hybrid_worker.py:972),
  tensor_parallel_size = infer_tensor_parallel_size, enable_expert_parallel, max_num_seqs, max_model_len,
  max_num_batched_tokens, gpu_memory_utilization, enforce_eager, additional_config.torchair_graph_config.enabled =
  torchair_graph) (models/rollout/vllm_engine.py:222-250) with data parallelism VLLM_DP_SIZE; the EP / MC2 group is
  infer TP x infer EP ranks (vllm_adapter/vllm_parallel_state.py:259-285): vllm-ascend's TP x DP.
Defaults: mindspeed_rl/config_cls/generate_config.py:61-86.
"""
from __future__ import annotations

import json

from moecfg.frameworks import Derivation, LaunchContext, Note, OpCall
from moecfg.frameworks.flags import known_value
from moecfg.frameworks.mindspeed.calls import FLAGS as MINDSPEED_FLAGS
from moecfg.frameworks.values import clipped, integer
from moecfg.sources.launch import EnvEntry, Launch, Word
from moecfg.trainers import phases
from moecfg.trainers.mindspeed_rl import releases, rules
from moecfg.trainers.phases import EngineArgs, Key

R = releases.MSRL
_MINDSPEED = {s.name: s.takes_value for s in MINDSPEED_FLAGS}
# generate_config defaults (generate_config.py:61-86)
_GENERATE = {"infer_tensor_parallel_size": "8", "infer_pipeline_parallel_size": "1", "infer_expert_parallel_size": "1",
             "max_num_seqs": "1", "max_model_len": "2048", "max_num_batched_tokens": "2048",
             "gpu_memory_utilization": "0.5", "enforce_eager": "true", "torchair_graph": "false",
             "enable_expert_parallel": "false"}


class _Keys:
    def __init__(self, launch: Launch):
        self.launch, self.keys = launch, {}
        for w in launch.argv[1:]:
            if w.value and "=" in w.value:
                name, _, value = w.value.partition("=")
                self.keys[name] = Key(name, known_value(value), w.span)

    def get(self, name: str, default: str | None = None, where: str = "") -> Key:
        if name in self.keys:
            return self.keys[name]
        said = f"{name} {default} (MindSpeed-RL's default, {R} {where})" if default is not None else name
        return Key(said, default, self.launch.span, default=default is not None)

    def actor(self, field: str) -> Key | None:
        """The actor's setting: actor_config over megatron_training over the model file (base_config.py:13-33)."""
        for section in ("actor_config", "megatron_training", "model"):
            if f"{section}.{field}" in self.keys:
                return self.keys[f"{section}.{field}"]
        return None


def derive_phases(launch: Launch, ctx: LaunchContext, out: Derivation) -> None:
    k = _Keys(launch)
    out.notes.append(Note("MC040", f"MindSpeed-RL version not given: read as MindSpeed-RL {releases.VERSION} ({R}, "
                          "the newest read)", launch.span))
    integrated = k.get("rl_config.use_integrated_worker")
    own = next((n for n in k.keys if n.startswith(("ref_config.", "reward_config."))), None)
    if (integrated.value or "").lower() == "true" and own:
        out.notes.append(Note(rules.INTEGRATED_WORKER_REF.code, f"rl_config.use_integrated_worker with "
                              f"{own.split('.', 1)[0]}: MindSpeed-RL raises ValueError ({R} cli/train_grpo.py:257-266); "
                              f"drop the {own.split('.', 1)[0]} section", k.keys[own].span))
        return
    if "model" in k.keys:
        model = clipped(k.keys["model"].value or "", 60)
        out.notes.append(Note("MC023", f"the model file model/{model}.yaml beside the config is not "
                              "read (missing, or outside the checked folder): the model's shape is not known",
                              k.keys["model"].span))
    env = _env(k)
    _train(k, ctx, out, env)
    _rollout(k, ctx, out, env)


def _env(k: _Keys) -> dict[str, EnvEntry]:
    buf = k.get("rl_config.hccl_buffersize", "256", "mindspeed_rl/config_cls/rl_config.py:129")
    env = {"HCCL_BUFFSIZE": EnvEntry("HCCL_BUFFSIZE", buf.value, buf.span)}
    ep_on = k.get("generate_config.enable_expert_parallel", "false")
    if (ep_on.value or "").lower() == "true":
        ep = k.get("generate_config.infer_expert_parallel_size", "1")
        env["VLLM_DP_SIZE"] = EnvEntry("VLLM_DP_SIZE", ep.value, ep.span)
    return env


def _train(k: _Keys, ctx: LaunchContext, out: Derivation, env: dict[str, EnvEntry]) -> None:
    npus = k.get("rl_config.actor_resource.num_npus")
    mg = EngineArgs(("torchrun", "pretrain_gpt.py"), k.launch.span)
    fields = {n.split(".", 1)[1] for n in k.keys if n.startswith(("actor_config.", "megatron_training.", "model."))}
    for field in sorted(fields):
        flag = "--" + field.replace("_", "-")
        key = k.actor(field)
        if flag not in _MINDSPEED or key is None:
            continue
        if _MINDSPEED[flag]:
            mg.flag(flag, key)
        elif (key.value or "").lower() == "true":
            mg.switch(flag, key)
    if k.actor("num_experts") is None:
        why = "the model file is not read (MC023): its shape is not known" if "model" in k.keys else \
            "no num_experts in the model's settings: a dense model, no MoE dispatch"
        out.calls.append(OpCall("train", "none", None, {"op_call": f"not derived ({why})"}, why_none=why, quiet=True))
        return
    # the actor's processes: rl_config.actor_resource.num_npus (Ray starts them; torchrun's PET_* form carries the
    # count to the MindSpeed derivation, named by its key)
    world = {"PET_NPROC_PER_NODE": EnvEntry("PET_NPROC_PER_NODE", npus.value, npus.span),
             "PET_NNODES": EnvEntry("PET_NNODES", "1", npus.span)}
    mg.named["--nproc_per_node"] = npus.name
    mg.named["torchrun"] = f"MindSpeed-RL's actor workers ({npus.name})"
    phases.run_phase(out, "mindspeed", mg, mg.launch(k.launch, {**env, **world}), ctx, "train",
                     f"MindSpeed (MindSpeed-RL's actor, {R} cli/train_grpo.py:251-254)")


def _rollout(k: _Keys, ctx: LaunchContext, out: Derivation, env: dict[str, EnvEntry]) -> None:
    g = {f: k.get(f"generate_config.{f}", d, "mindspeed_rl/config_cls/generate_config.py:61-86")
         for f, d in _GENERATE.items()}
    model = k.actor("tokenizer_name_or_path") or Key("tokenizer_name_or_path", None, k.launch.span)
    eng = EngineArgs(("vllm", "serve"), k.launch.span)
    eng.word(Word(model.value, model.span, exact=model.value is not None))
    eng.flag("--tensor-parallel-size", g["infer_tensor_parallel_size"])
    if (g["enable_expert_parallel"].value or "").lower() == "true":
        eng.switch("--enable-expert-parallel", g["enable_expert_parallel"])
        eng.flag("--data-parallel-size", g["infer_expert_parallel_size"])
    for field in ("max_num_seqs", "max_model_len", "max_num_batched_tokens", "gpu_memory_utilization"):
        eng.flag("--" + field.replace("_", "-"), g[field])
    if (g["enforce_eager"].value or "").lower() == "true":
        eng.switch("--enforce-eager", g["enforce_eager"])
    graph = g["torchair_graph"]
    if graph.value is not None:
        extra = json.dumps({"torchair_graph_config": {"enabled": graph.value.lower() == "true"}})
        eng.flag("--additional-config", graph, extra)
    tp, ep = integer(g["infer_tensor_parallel_size"].value), integer(g["infer_expert_parallel_size"].value)
    if tp and ep:
        eng.named["--data-parallel-size"] = f"generate_config.infer_expert_parallel_size (VLLM_DP_SIZE; the MC2 group " \
                                            f"is infer TP {tp} x EP {ep} = {tp * ep} ranks, vllm_parallel_state.py:259-285)"
    phases.run_phase(out, "vllm-ascend", eng, eng.launch(k.launch, env), ctx, "rollout",
                     f"vllm-ascend (MindSpeed-RL's rollout engine, {R} mindspeed_rl/models/rollout/vllm_engine.py:222-250)")
