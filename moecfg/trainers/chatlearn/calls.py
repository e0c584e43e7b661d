"""ChatLearn's settings -> the Megatron-LM command line of the policy trainer (and the reference twin) and the rollout
engine's.

alibaba/ChatLearn@248875a:
- the settings: the `--config-file` YAML with the command's `key=value` words applied to it, merged over GrpoConfig's
  dataclass defaults (chatlearn/entrypoint.py:94-99); without `--config-file` the words are not applied at all;
- train (runtime_args.train_backend megatron, grpo.py:297-298): models.policy_trainer.{tensor,pipeline,context,expert,
  expert_tensor}_model_parallel_size and sequence_parallel (configs/megatron_config.py:260-288, defaults 1 and None,
  sequence_parallel True) over models.policy_trainer.num_gpu GPUs; the model is the Hugging Face config at
  models.policy.load (utils/megatron_utils.py:22), and for an MoE model (its HF config has moe_intermediate_size)
  ChatLearn sets moe_token_dispatcher_type alltoall (megatron_utils.py:56-58) over whatever the config wrote;
- ref_policy: the same sizes through `${models.policy_trainer.*}` in the config; derived apart only when they differ;
- rollout (runtime_args.rollout_backend, default vllm, configs/runtime_config.py:57-58): vLLM gets the model,
  tensor_parallel_size and pipeline_parallel_size, no expert parallelism (models/vllm_module.py:110-134); SGLang gets
  tp_size (models/sglang_module.py:287-307).
"""
from __future__ import annotations

import re

from moecfg.frameworks import Derivation, LaunchContext, Note, OpCall
from moecfg.frameworks.flags import known_value
from moecfg.frameworks.models import resolve_model, unresolved_reason
from moecfg.frameworks.values import integer
from moecfg.sources.launch import Launch, Word
from moecfg.sources.manifests.yaml_source import Span
from moecfg.trainers import phases
from moecfg.trainers.chatlearn import releases, rules
from moecfg.trainers.phases import EngineArgs, Key
from moecfg.trainers.megatron_keys import SIZE_FLAGS as _SIZES

R = releases.CHATLEARN
T, P = "models.policy_trainer.", "models.policy."
# the dataclass defaults a key not written takes (only once the config file is read: it may set any of them)
DEFAULTS = {
    "runtime_args.rollout_backend": "vllm",  # configs/runtime_config.py:57-58 (train_backend: MISSING, :53-55)
    **{T + k: v for k, v in (("tensor_model_parallel_size", "1"), ("pipeline_model_parallel_size", "1"),
                             ("context_parallel_size", "1"), ("expert_model_parallel_size", "1"),
                             ("expert_tensor_parallel_size", "null"), ("sequence_parallel", "true"))},  # megatron_config.py:260-288
    **{P + k: "1" for k in ("tensor_model_parallel_size", "pipeline_model_parallel_size",
                            "expert_model_parallel_size")},  # configs/policy_config.py:14-22
}
_REF = re.compile(r"^\$\{([\w.]+)\}$")  # OmegaConf's `${models.policy_trainer.num_gpu}`


class _Keys:
    """The config file's settings, then the launch's `key=value` words, then the dataclass defaults."""

    def __init__(self, launch: Launch, start: int, file: dict[str, str] | None, file_at: Span, read: bool):
        self.launch, self.read, self.written, self.refs = launch, read, {}, {}
        for name, value in (file or {}).items():
            self._put(name, value, file_at)
        for w in launch.argv[start:]:
            text = w.value if w.value is not None else w.pattern
            if text and "=" in text and not text.startswith("-"):
                name, _, value = text.partition("=")
                self._put(name.lstrip("+"), value if w.value is not None else None, w.span)

    def _put(self, name: str, value: str | None, at: Span) -> None:
        m = _REF.match(value or "")
        if m:
            self.refs[name] = m.group(1)
        else:
            self.refs.pop(name, None)
        self.written[name] = Key(name, known_value(value) if value is not None else None, at)

    def get(self, name: str, depth: int = 0) -> Key:
        if name in self.refs and depth < 4:  # `${other.key}`: the other key's value, at this key's place
            other = self.get(self.refs[name], depth + 1)
            return Key(name, other.value, self.written[name].span, default=other.default)
        if name in self.written:
            return self.written[name]
        if self.read and name in DEFAULTS:
            return Key(name, DEFAULTS[name], self.launch.span, default=True)
        return Key(name, None, self.launch.span)


def derive_phases(launch: Launch, ctx: LaunchContext, out: Derivation, start: int, is_config: bool) -> None:
    from moecfg.sources.recipes import chatlearn as reader

    words = launch.words()
    if is_config:
        keys = _Keys(launch, start, None, launch.span, True)
    elif "--config-file" not in words[start:] and not any((w or "").startswith("--config-file=") for w in words):
        phases.not_derived(out, launch, "no --config-file: ChatLearn applies the key=value words only to a config "
                           f"file ({R} chatlearn/entrypoint.py:94-99), the run takes GrpoConfig's defaults")
        return
    else:
        i = next(i for i, w in enumerate(words) if (w or "").startswith("--config-file"))
        path = words[i].split("=", 1)[1] if "=" in (words[i] or "") else (words[i + 1] if i + 1 < len(words) else None)
        at = launch.argv[i].span
        got = reader.config_settings(path, reader.working_folder(ctx.file, words[start - 2])) if path else "not known statically"
        if isinstance(got, str):
            out.notes.append(Note("MC023", f"--config-file {path or '(not known statically)'}: {got}; the settings "
                                  "the command does not write are not known", at))
        keys = _Keys(launch, start, got if isinstance(got, dict) else None, at, isinstance(got, dict))
    # the config alone is a template the shell launch overrides (Pai's scripts set num_gpu and the sizes): ChatLearn's
    # checks are judged on the launch that names it, with the file's settings under its words
    if not is_config and _refused(keys, out):
        return
    _train(keys, ctx, out, T, "train")
    if _ref_differs(keys):
        _train(keys, ctx, out, "models.ref_policy.", "ref")
    _rollout(keys, ctx, out)


def _refused(keys: _Keys, out: Derivation) -> bool:
    """What PolicyConfig._validate_impl asserts (policy_config.py:84-92): the job stops before any engine starts."""
    ep, pp, tp, gpus = (keys.get(P + k) for k in ("expert_model_parallel_size", "pipeline_model_parallel_size",
                                                  "tensor_model_parallel_size", "num_gpu"))
    e, p, t, g = (integer(k.value) for k in (ep, pp, tp, gpus))
    if e is not None and e != 1:
        out.notes.append(Note(rules.POLICY_EP.code, f"{ep.name}={e}: ChatLearn's rollout has no expert parallelism and "
                              f"its config check asserts 1 ({R} chatlearn/configs/policy_config.py:89); set "
                              f"{ep.name}=1 (expert parallelism is {T}expert_model_parallel_size)", ep.span))
        return True
    if p is not None and p != 1:
        out.notes.append(Note(rules.POLICY_PP.code, f"{pp.name}={p}: ChatLearn's config check asserts 1 ({R} "
                              f"chatlearn/configs/policy_config.py:90); set {pp.name}=1", pp.span))
        return True
    if None not in (t, g) and t >= 1 and g >= 1 and g % t:
        out.notes.append(Note(rules.POLICY_GPUS.code, f"{gpus.name} {g} is not a multiple of {tp.name} {t}: ChatLearn's "
                              f"config check asserts it ({R} chatlearn/configs/policy_config.py:85-86); use a TP "
                              f"that divides {g}", tp.span))
        return True
    return False


def _ref_differs(keys: _Keys) -> bool:
    return any(r.value is not None and r.value != keys.get(T + f).value
               for f in list(_SIZES) + ["sequence_parallel"] for r in (keys.get("models.ref_policy." + f),))


def _train(keys: _Keys, ctx: LaunchContext, out: Derivation, prefix: str, role: str) -> None:
    backend = keys.get("runtime_args.train_backend")
    if backend.value != "megatron":
        if role == "train":
            phases.not_derived(out, keys.launch, f"train engine not derived: {backend.name} = "
                               f"{backend.value or 'not known statically'}")
        return
    mg = EngineArgs(("pretrain_gpt.py",), keys.launch.span)
    sizes: dict[str, tuple[int | None, Key | None]] = {}
    for field, flag in _SIZES.items():
        key = keys.get(prefix + field)
        if key.value in ("null", "None") or (key.value is None and key.default):
            continue  # expert-TP None: Megatron's own default (TP)
        mg.flag(flag, key)
        sizes[flag] = (integer(key.value), key)
    sp = keys.get(prefix + "sequence_parallel")
    if (sp.value or "").lower() == "true":
        mg.switch("--sequence-parallel", sp)
    model = keys.get(P + "load")
    ep = sizes.get("--expert-model-parallel-size", (1, None))[0]
    if not _model(mg, model, ctx, out, ep, said=role == "train"):
        return
    # the trainable policy is one Megatron world of num_gpu ranks; the reference runs num_gpu / (lcm(TP x CP, ETP x EP)
    # x PP) replicas of that size, which Megatron's checks always pass (configs/megatron_config.py:335-344)
    gpus = keys.get(prefix + "num_gpu")
    g = integer(gpus.value) if role == "train" else None
    if g is not None and g > 0:
        note = phases.megatron_world(g, f"{gpus.name} {g}", keys.launch.span, sizes, True)
        if note is not None:
            out.notes.append(note)
            return
    phases.run_phase(out, "megatron", mg, mg.launch(keys.launch), ctx, role,
                     f"Megatron-LM (ChatLearn's {prefix.split('.')[1]}, {R} chatlearn/configs/megatron_config.py)")


def _model(mg: EngineArgs, model: Key, ctx: LaunchContext, out: Derivation, ep: int | None, said: bool) -> bool:
    """The model's MoE shape as Megatron's flags, and the dispatcher ChatLearn sets for an MoE model."""
    dims = resolve_model(model.value, ctx)
    if dims is None:
        if said and (ep or 1) > 1:
            out.notes.append(Note("MC042", f"{model.name}: {unresolved_reason(model.value, ctx)}", model.span))
        elif said:
            out.calls.append(OpCall("train", "none", None, {}, why_none=f"the model at {model.name} is not known and "
                                    "no expert parallelism is set: no expert-parallel collective", quiet=True))
        return False
    how = Key(f"{model.name} ({dims.how})", None, model.span)
    for flag, value in (("--num-experts", dims.num_experts), ("--hidden-size", dims.hidden),
                        ("--moe-router-topk", dims.topk)):
        mg.flag(flag, how, str(value))
    if dims.num_experts:  # megatron_utils.py:56-58: alltoall when the HF config has moe_intermediate_size
        moe_config = dims.moe_intermediate_size > 0
        mg.flag("--moe-token-dispatcher-type", Key(f"{model.name} (ChatLearn sets alltoall for an MoE config: {R} "
                                                   "chatlearn/utils/megatron_utils.py:56-58)", None, model.span),
                "alltoall" if moe_config else None)
    return True


def _rollout(keys: _Keys, ctx: LaunchContext, out: Derivation) -> None:
    backend = keys.get("runtime_args.rollout_backend")
    if backend.value not in ("vllm", "sglang"):
        phases.not_derived(out, keys.launch, f"rollout engine not derived: {backend.name} = "
                           f"{backend.value or 'not known statically'}")
        return
    model, tp = keys.get(P + "load"), keys.get(P + "tensor_model_parallel_size")
    if backend.value == "vllm":
        eng = EngineArgs(("vllm", "serve"), keys.launch.span)
        eng.word(Word(model.value, model.span, exact=model.value is not None))
        eng.flag("--tensor-parallel-size", tp)
        engine = f"vLLM (ChatLearn's policy, {R} chatlearn/models/vllm_module.py:110-134)"
    else:
        eng = EngineArgs(("python3", "-m", "sglang.launch_server"), keys.launch.span)
        eng.flag("--model-path", model)
        eng.flag("--tp-size", tp)
        engine = f"SGLang (ChatLearn's policy, {R} chatlearn/models/sglang_module.py:287-307)"
    phases.run_phase(out, backend.value, eng, eng.launch(keys.launch), ctx, "rollout", engine)
