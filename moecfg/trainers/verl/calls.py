"""verl's Hydra overrides -> the Megatron-LM command line of the actor (and the ref twin) and the rollout engine's.

volcengine/verl@b178a3c:
- keys not written take the config's default (defaults.json, verl/trainer/config/_generated_ppo_megatron_trainer.yaml
  for --config-name ppo_megatron_trainer, _generated_ppo_trainer.yaml for main_ppo's ppo_trainer); a config moecfg has
  not read (a recipe's, a --config-path of the user's) leaves every key not written unknown;
- the ref twin: actor_rollout_ref.ref.megatron.* default to the actor's through `${oc.select:...}` (:178-191);
- the Megatron model comes from the Hugging Face config at actor_rollout_ref.model.path (mbridge): hidden size,
  experts and top-k are the model's (frameworks/models.py resolves it); override_transformer_config.<field> sets the
  TransformerConfig field of the same name (moe_token_dispatcher_type, moe_enable_deepep, moe_flex_dispatcher_backend);
- the world is trainer.nnodes x trainer.n_gpus_per_node (the actor's resource pool);
- rollout: vLLM gets tensor_parallel_size, and with expert_parallel_size > 1 enable_expert_parallel and
  data_parallel_size (verl/workers/rollout/vllm_rollout/vllm_async_server.py:281, 308-325); SGLang gets tp_size = TP x
  DP, dp_size, ep_size (verl/workers/rollout/sglang_rollout/async_sglang_server.py:256-271); engine_kwargs.<engine>.*
  are passed through as the engine's own arguments.
"""
from __future__ import annotations

import posixpath
import re

from moecfg.frameworks import Derivation, LaunchContext, Note, OpCall
from moecfg.frameworks.flags import known_value
from moecfg.frameworks.models import resolve_model, unresolved_reason
from moecfg.frameworks.values import integer
from moecfg.sources.launch import Launch, Word
from moecfg.trainers import phases
from moecfg.trainers.phases import EngineArgs, Key
from moecfg.trainers.verl import releases, rules
from moecfg.trainers.megatron_keys import FIELD_FLAGS as _FIELD_FLAGS, SIZE_FLAGS as _SIZES, TAKES_VALUE as _MEGATRON

V = releases.VERL
A = "actor_rollout_ref"
_SELECT = re.compile(r"^\$\{oc\.select:([\w.]+),([^}]*)\}$")


class _Keys:
    """The launch's overrides and the config's defaults, key by key."""

    def __init__(self, launch: Launch, start: int, version: str | None, own_config: str | None = "ppo_trainer"):
        self.launch, self.written, self.hidden, self.config_name = launch, {}, [], None
        config_path, self.selects = None, {}
        words = list(launch.argv[start:])
        i = 0
        while i < len(words):
            w = words[i]
            text = w.value if w.value is not None else w.pattern
            if text in ("--config-name", "-cn", "--config-path", "-cp") and i + 1 < len(words):
                if text in ("--config-name", "-cn"):
                    self.config_name = words[i + 1].value or "?"
                else:
                    config_path = words[i + 1].value or "?"
                i += 2
                continue
            if text and text.startswith(("--config-name=", "-cn=")):
                self.config_name = text.split("=", 1)[1] if w.value is not None else "?"
            elif text and text.startswith(("--config-path=", "-cp=")):
                config_path = text.split("=", 1)[1] if w.value is not None else "?"
            elif text and "=" in text and not text.startswith("-"):
                name, _, value = text.partition("=")
                self.written[name.lstrip("+")] = Key(name.lstrip("+"), known_value(value) if w.value is not None
                                                     else None, w.span)
                if w.value is not None and _SELECT.match(value):  # a config file's `${oc.select:other,default}`
                    self.selects[name.lstrip("+")] = value
            elif text is None or w.value is None:
                self.hidden.append(w)  # `$@`, `${EXTRA_ARGS}`: overrides may hide in it
            i += 1
        if self.config_name and self.config_name.endswith(".yaml"):
            self.config_name = self.config_name[:-len(".yaml")]  # Hydra takes the file name with its suffix too
        self.config_name = self.config_name or own_config or "?"  # "?": the entry's own config, not read
        # Hydra's --config-path is relative to the entry's file (verl's `--config-path=config` is verl/trainer/config):
        # any other folder is the user's, whose configs (even a copy named ppo_megatron_trainer) moecfg has not read
        self.foreign_path = config_path if config_path is not None and not (
            _verls_folder(launch.argv[start - 1].value or "", config_path)) else None
        self.table = releases.config(self.config_name, version) \
            if self.config_name != "?" and version and self.foreign_path is None else None

    def get(self, name: str, depth: int = 0) -> Key:
        """The key as written, else the config's default (an `oc.select` default follows its key), else unknown."""
        if name in self.written and name not in self.selects:
            return self.written[name]
        entry = (self.table or {}).get("keys", {}).get(name) if self.table else None
        if name in self.selects:  # written as `${oc.select:...}`: followed like a default (its span the file's)
            entry = {"value": self.selects[name]}
        elif entry is None:
            return Key(name, None, self.launch.span, default=self.table is not None)
        value = entry["value"]
        m = _SELECT.match(value) if isinstance(value, str) else None
        if m and depth < 4:
            other = self.get(m.group(1), depth + 1)
            if other.value is not None and not (other.default and other.value == "null"):
                return Key(name, other.value, other.span, default=other.default)
            value = m.group(2)
        text = "null" if value is None else str(value).lower() if isinstance(value, bool) else str(value)
        return Key(name, None if text == "???" else text, self.launch.span, default=True)

    def under(self, prefix: str) -> dict[str, Key]:
        """The keys written under `prefix` (its rest -> Key)."""
        return {k[len(prefix):]: v for k, v in self.written.items() if k.startswith(prefix)}

    def source(self) -> str:
        if self.table:
            return f"{self.table['source']} {self.table['file']}"
        return f"a config moecfg has not read{f' (--config-path {self.foreign_path})' if self.foreign_path else ''}"


def _verls_folder(entry: str, path: str) -> bool:
    """--config-path names verl's own config folder: Hydra takes it relative to the entry's file (`config` beside
    verl/trainer/main_ppo.py; `../../verl/trainer/config` beside recipe/dapo/main_dapo.py, Ascend/MindSpeed-RL@05a90d7
    tests/verl_examples/configs/test_dapo_qwen3_235b_megatron_A3.sh:73)."""
    folder = posixpath.dirname(entry) if entry.endswith(".py") else "/".join(entry.split(".")[:-1])
    norm = posixpath.normpath(posixpath.join(folder, path))
    return norm == "verl/trainer/config" or norm.endswith("/verl/trainer/config")


def derive_phases(launch: Launch, ctx: LaunchContext, out: Derivation, start: int,
                  own_config: str | None = "ppo_trainer") -> None:
    given = ctx.version_for("verl")
    version = releases.match(given) if given else releases.newest()
    keys = _Keys(launch, start, version, own_config)
    out.version = version or given
    if not given:
        out.notes.append(Note("MC040", f"verl version not given (`framework_versions: {{verl: ...}}`): read as verl "
                              f"{version}, the newest release read (defaults of "
                              f"{_config_said(keys.config_name)} from {keys.source()})", launch.span))
    elif version is None:
        out.notes.append(Note("MC023", f"verl {given} (settings) is a release moecfg has not read (it reads "
                              f"{', '.join(releases.versions())}): the keys this launch does not write are unknown",
                              launch.span))
    _train(keys, ctx, out, "actor", "train")
    if _ref_differs(keys):
        _train(keys, ctx, out, "ref", "ref")
    _rollout(keys, ctx, out)
    _reward_model(keys, out)
    if keys.hidden and any(c.kind != "none" for c in out.calls):  # said where it could change a derived buffer
        out.notes.append(Note("MC023", f"{len(keys.hidden)} word(s) of the verl command are not known statically "
                              "(`$@`, an unset variable): an override in them would change what is derived here",
                              keys.hidden[0].span))


def _reward_model(keys: _Keys, out: Derivation) -> None:
    """verl's reward model runs engines of its own (reward_model.strategy, reward_model.rollout; verl@b178a3c
    verl/trainer/config/reward_model/megatron_reward_model.yaml, verl-recipe@48ea0a7 fapo/config/rm_config.yaml:24-36):
    not derived, listed when the launch sets them."""
    written = keys.under("reward_model.")
    if not any(k.startswith(("strategy", "megatron.", "rollout.")) for k in written):
        return
    said = [f"{k.name} = {k.value or 'not known statically'}" for k in (
        keys.get("reward_model.enable"), keys.get("reward_model.strategy"), keys.get("reward_model.rollout.name"))
        if k.name in keys.written or k.value is not None]
    phases.not_derived(out, keys.launch, "reward model engine not derived" + (f": {', '.join(said)}" if said else ""))


def _config_said(name: str) -> str:
    return "the entry's own config" if name == "?" else f"--config-name {name}"


def _ref_differs(keys: _Keys) -> bool:
    """The ref model builds its own dispatcher; derived apart only when its settings differ from the actor's (by
    default they are the actor's, through `oc.select`)."""
    fields = list(_SIZES) + ["sequence_parallel"]
    # a ref size not known (a config moecfg has not read) is no evidence: verl's own config makes it the actor's
    differs = any(r.value is not None and r.value != keys.get(f"{A}.actor.megatron.{f}").value
                  for f in fields for r in (keys.get(f"{A}.ref.megatron.{f}"),))
    return differs or bool(keys.under(f"{A}.ref.megatron.override_transformer_config."))


def _train(keys: _Keys, ctx: LaunchContext, out: Derivation, who: str, role: str) -> None:
    strategy = keys.get(f"{A}.{who}.strategy")
    if strategy.value is None and who == "ref":
        strategy = keys.get(f"{A}.actor.strategy")
    if strategy.value != "megatron":
        if who == "actor":
            phases.not_derived(out, keys.launch, f"train engine not derived: {strategy.name} = "
                               f"{strategy.value or 'not known statically'}" + (
                                   "" if strategy.value else f" ({keys.source()})"))
        return
    if keys.get("trainer.device").value == "npu":
        phases.not_derived(out, keys.launch, "train engine not derived: Megatron on Ascend (MindSpeed) under verl")
        return
    prefix = f"{A}.{who}.megatron."
    mg = EngineArgs(("pretrain_gpt.py",), keys.launch.span)
    sizes: dict[str, tuple[int | None, Key | None]] = {}
    for field, flag in _SIZES.items():
        key = keys.get(prefix + field)
        if key.value in ("null", "None") or (key.value is None and key.default):
            continue  # expert-TP null (written or the default): Megatron's own default (TP); an unknown default neither
        mg.flag(flag, key)
        sizes[flag] = (integer(key.value), key)
    sp = keys.get(prefix + "sequence_parallel")
    if sp.value == "true":
        mg.switch("--sequence-parallel", sp)
    override = {**keys.under(f"{A}.actor.megatron.override_transformer_config."),
                **(keys.under(prefix + "override_transformer_config.") if who == "ref" else {})}
    for field, key in override.items():
        flag = _FIELD_FLAGS.get(field, "--" + field.replace("_", "-"))
        if flag in _MEGATRON and _MEGATRON[flag]:
            mg.flag(flag, key)
        elif flag in _MEGATRON and (key.value or "").lower() == "true":
            mg.switch(flag, key)
    model = keys.get(f"{A}.model.path")
    ep = sizes.get("--expert-model-parallel-size", (1, None))[0]
    if not _model(mg, model, ctx, out, keys, ep, said=who == "actor"):
        return
    nodes, per = keys.get("trainer.nnodes"), keys.get("trainer.n_gpus_per_node")
    n, g = integer(nodes.value), integer(per.value)
    if n and g and n > 0 and g > 0:
        how = f"trainer.nnodes {n} x trainer.n_gpus_per_node {g}"
        note = phases.megatron_world(n * g, how, keys.launch.span, sizes, True)
        if note is not None:
            out.notes.append(note)
            return
    phases.run_phase(out, "megatron", mg, mg.launch(keys.launch), ctx, role,
                     f"Megatron-LM (verl's {who} worker, {V} verl/workers/config/engine.py McoreEngineConfig)")


def _model(mg: EngineArgs, model: Key, ctx, out: Derivation, keys: _Keys, ep: int | None, said: bool = True) -> bool:
    """The model's MoE shape as Megatron's flags (mbridge builds the TransformerConfig from the HF config). False:
    not known (MC042 when the launch shows expert parallelism, else a dense run is as likely: nothing said)."""
    dims = resolve_model(model.value, ctx)
    if dims is None:
        if not said:  # the ref twin of an actor whose model is not known: said once, for the actor
            return False
        if (ep or 1) > 1 or "--moe-token-dispatcher-type" in mg.named:
            out.notes.append(Note("MC042", f"{model.name}: {unresolved_reason(model.value, ctx)}", model.span))
        else:  # EP 1 without the flex dispatcher: no expert-parallel collective, whatever the model
            out.calls.append(OpCall("train", "none", None, {}, why_none=f"the model at {model.name} is not known and "
                                    "no expert parallelism is set: no expert-parallel collective", quiet=True))
        return False
    for flag, value in (("--num-experts", dims.num_experts), ("--hidden-size", dims.hidden),
                        ("--moe-router-topk", dims.topk)):
        if flag not in [w.value for w in mg.words]:
            mg.flag(flag, Key(f"{model.name} ({dims.how})", None, model.span), str(value))
    return True


def _rollout(keys: _Keys, ctx: LaunchContext, out: Derivation) -> None:
    r = f"{A}.rollout."
    name = keys.get(r + "name")
    if name.value not in ("vllm", "sglang"):
        phases.not_derived(out, keys.launch, f"rollout engine not derived: {name.name} = "
                           f"{name.value or 'not known statically'}")
        return
    tp, dp, ep, pp = (keys.get(r + k) for k in ("tensor_model_parallel_size", "data_parallel_size",
                                                 "expert_parallel_size", "pipeline_model_parallel_size"))
    t, d, e, p = (integer(k.value) for k in (tp, dp, ep, pp))
    if p is not None and p > 1:
        out.notes.append(Note(rules.ROLLOUT_PP.code, f"{pp.name}={p} with the {name.value} rollout: verl raises "
                              f"NotImplementedError ({V} verl/workers/config/rollout.py:262-266); set it to 1",
                              pp.span))
        return
    if None not in (t, d, e) and min(t, d) >= 1 and e > 1 and e != t * d:
        out.notes.append(Note(rules.ROLLOUT_EP.code, f"{ep.name}={e} is not {tp.name} {t} x {dp.name} {d} = {t * d}: "
                              f"verl asserts it ({V} verl/workers/config/rollout.py:257-260); set "
                              f"{ep.name}={t * d}", ep.span))
        return
    per = keys.get("trainer.n_gpus_per_node")
    g = integer(per.value)
    if name.value == "vllm" and None not in (t, e, g) and e > 1 and t >= 1 and g >= 1 and g % t:
        out.notes.append(Note(rules.VLLM_EP_NODE.code, f"{tp.name}={t} does not divide {per.name} {g}: verl's vLLM "
                              f"server asserts it with expert parallelism ({V} verl/workers/rollout/vllm_rollout/"
                              f"vllm_async_server.py:308-311); use a rollout TP that divides {g}", tp.span))
        return
    model = keys.get(f"{A}.model.path")
    if name.value == "vllm":
        eng = EngineArgs(("vllm", "serve"), keys.launch.span)
        eng.word(Word(model.value, model.span, exact=model.value is not None))
        eng.flag("--tensor-parallel-size", tp)
        if e is None or e > 1:
            if e is None:
                eng.word(Word(None, ep.span, exact=False))  # expert parallelism on or off: not known
            else:
                eng.switch("--enable-expert-parallel", ep)
                eng.flag("--data-parallel-size", dp)
        framework = "vllm-ascend" if keys.get("trainer.device").value == "npu" else "vllm"
    else:
        eng = EngineArgs(("python3", "-m", "sglang.launch_server"), keys.launch.span)
        eng.flag("--model-path", model)
        eng.flag("--tp-size", tp, str(t * d) if None not in (t, d) else None)
        eng.flag("--dp-size", dp)
        eng.flag("--ep-size", ep)
        device = keys.get("trainer.device")
        if device.value == "npu":  # SGLang on Ascend (frameworks/sglang decides by --device)
            eng.flag("--device", device)
        framework = "sglang"
    for field, key in keys.under(f"{r}engine_kwargs.{name.value}.").items():
        flag = "--" + field.replace("_", "-")
        if (key.value or "").lower() == "true":
            eng.switch(flag, key)
        elif (key.value or "").lower() not in ("false", "null", "none"):
            eng.flag(flag, key)
    phases.run_phase(out, framework, eng, eng.launch(keys.launch), ctx, "rollout",
                     f"{'vLLM' if name.value == 'vllm' else 'SGLang'} (verl's rollout server, {V} "
                     f"verl/workers/rollout/{name.value}_rollout/)")
