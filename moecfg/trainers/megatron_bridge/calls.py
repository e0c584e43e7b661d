"""A Megatron-Bridge run_recipe.py launch -> the Megatron-LM command line of its train.

NVIDIA-NeMo/Megatron-Bridge@067f987:
- the recipe (--recipe) sets the model first (releases.recipe: its statements replayed from recipes.json); a --model
  stem picks a recipe by mode and dataset (recipe_runner.py), not read here: the recipe's settings are then unknown;
- the common options (-tp, -pp, -cp, -ep, -etp; scripts/training/run_recipe.py:201-243) set model.<field>
  (COMMON_OVERRIDE_FIELDS, :135-153), then the trailing KEY=VALUE overrides (:263-272), which win when both set a
  field (:27-28);
- the model's MoE shape (experts, hidden size, top-k) is the Hugging Face model the recipe builds
  (AutoBridge.from_hf_pretrained), resolved by moecfg's model table;
- one process per torchrun rank: the world Megatron checks is torchrun's.
"""
from __future__ import annotations

from moecfg.frameworks import Derivation, LaunchContext, Note
from moecfg.frameworks.flags import known_value
from moecfg.frameworks.models import resolve_model, unresolved_reason
from moecfg.sources.launch import Launch, Word
from moecfg.trainers import phases
from moecfg.trainers.megatron_bridge import releases, rules
from moecfg.trainers.phases import EngineArgs, Key
from moecfg.trainers.megatron_keys import FIELD_FLAGS as _FIELD_FLAGS, TAKES_VALUE as _MEGATRON

B = releases.BRIDGE
_COMMON = {"-tp": "tensor_model_parallel_size", "--tensor_model_parallel_size": "tensor_model_parallel_size",
           "-pp": "pipeline_model_parallel_size", "--pipeline_model_parallel_size": "pipeline_model_parallel_size",
           "-cp": "context_parallel_size", "--context_parallel_size": "context_parallel_size",
           "-ep": "expert_model_parallel_size", "--expert_model_parallel_size": "expert_model_parallel_size",
           "-etp": "expert_tensor_parallel_size", "--expert_tensor_parallel_size": "expert_tensor_parallel_size"}
# run_recipe.py's other options (scripts/training/run_recipe.py:170-259): those taking a value, then the switches
_VALUED = {"--model", "--recipe", "--mode", "--step-func", "--step_func", "--dataset", "-ms", "--max_steps", "-gb",
           "--global_batch_size", "-mb", "--micro_batch_size", "-sl", "--seq_length", "-vp",
           "--virtual_pipeline_model_parallel_size", "--lr", "--min_lr", "--warmup_iters", "--pretrained_checkpoint",
           "--save_dir", "--load_dir", "--save_interval"} | set(_COMMON)
_SWITCHES = {"--dry-run", "--dry_run", "--deterministic", "--dump-env", "--dump_env", "-h", "--help"}
# the first batch's tokens (a HybridEP buffer): run_recipe.py's -sl sets dataset.seq_length, which the runner copies to
# model.seq_length, -mb sets train.micro_batch_size (scripts/training/run_recipe.py:33-39, :137-139)
_BATCH = {"dataset.seq_length": "seq_length", "train.micro_batch_size": "micro_batch_size"}
_BATCH_OPTIONS = {"-sl": "seq_length", "--seq_length": "seq_length", "-mb": "micro_batch_size",
                  "--micro_batch_size": "micro_batch_size"}
# compute capability major of the GPUs moecfg names (settings `device:`); apply_flex_dispatcher_backend keeps DeepEP on
# majors 8 / 9 and B200 / B300, HybridEP on 8 / 9 / 10 (flex_dispatcher_backend.py:59-78), else falls back to alltoall
_MAJOR = {"A100": 8, "A800": 8, "H100": 9, "H800": 9, "H200": 9, "H20": 9, "B200": 10, "B300": 10, "GB200": 10,
          "GB300": 10}
_SIZES = ("tensor_model_parallel_size", "pipeline_model_parallel_size", "context_parallel_size",
          "expert_model_parallel_size", "expert_tensor_parallel_size")


class _Read:
    """One pass over run_recipe.py's words: its options, the model.<field> overrides, the words not known."""

    def __init__(self, launch: Launch, start: int):
        self.launch, self.options, self.model, self.hidden, self.refused = launch, {}, {}, [], None
        self.batch: dict[str, Key] = {}  # train.micro_batch_size= / dataset.seq_length= overrides (the tokens)
        words = list(launch.argv[start:])
        i = 0
        while i < len(words):
            w = words[i]
            text = w.value
            if text is None:
                self.hidden.append(w)
                i += 1
                continue
            name, eq, value = text.partition("=")
            if text.startswith("-") and name in _VALUED:
                if eq:
                    self.options[name] = Key(name, known_value(value), w.span)
                elif i + 1 < len(words):
                    nxt = words[i + 1]
                    self.options[name] = Key(name, known_value(nxt.value), nxt.span)
                    i += 1
            elif text.startswith("-") and name in _SWITCHES:
                pass
            elif eq and not text.startswith("-"):
                if name.startswith("model."):
                    self.model[name[len("model."):]] = Key(name, known_value(value), w.span)
                elif name in _BATCH:
                    self.batch[_BATCH[name]] = Key(name, known_value(value), w.span)
            elif not text.startswith("-") and self.refused is None:
                self.refused = w  # argparse would refuse it (scripts/training/run_recipe.py:263-272)
            i += 1


def derive_train(launch: Launch, ctx: LaunchContext, out: Derivation, at: int) -> None:
    r = _Read(launch, at + 1)
    r.device = ctx.device
    out.version = releases.VERSION
    out.notes.append(Note("MC040", f"Megatron-Bridge version not given: read as Megatron-Bridge {releases.VERSION} "
                          f"({B}, the newest read)", launch.span))
    if "--recipe" in r.options and "--model" in r.options:
        m = r.options["--model"]
        unknown = "(not known statically)"
        out.notes.append(Note(rules.RECIPE_AND_MODEL.code, f"--recipe {r.options['--recipe'].value or unknown} with "
                              f"--model {m.value or unknown}: run_recipe.py's parser refuses both and exits 2 ({B} "
                              "scripts/training/run_recipe.py:169-171); keep one", m.span))
        return
    if r.refused is not None and not r.hidden:
        out.notes.append(Note(rules.NOT_AN_OVERRIDE.code, f"`{r.refused.value}` is neither a run_recipe.py option nor "
                              f"a KEY=VALUE override: its parser exits 2 ({B} scripts/training/run_recipe.py:263-272); "
                              "write it as KEY=VALUE", r.refused.span))
        return
    fields = _fields(r, out)
    if fields is None:
        return
    _train(r, ctx, out, fields, at)


def _fields(r: _Read, out: Derivation) -> dict[str, Key] | None:
    """Each model field moecfg reads -> the key that set it (the recipe's line, an option, an override)."""
    name = r.options.get("--recipe")
    fields: dict[str, Key] = {}
    if name is None or name.value is None:
        chosen = r.options.get("--model")
        why = f"--model {chosen.value} (its recipe is chosen at run time)" if chosen and chosen.value else \
            "the recipe is not known statically"
        phases.not_derived(out, r.launch, f"train engine not derived: {why}; the settings the launch writes are read, "
                           "the recipe's are not")
        if not (r.model or any(o in r.options for o in _COMMON)):
            return None
        recipe = None
    else:
        recipe = releases.recipe(name.value)
        if recipe is None:
            phases.not_derived(out, r.launch, f"train engine not derived: recipe {name.value} is not one moecfg read "
                               f"({B} src/megatron/bridge/recipes, perf_recipes)")
            return None
        for field, s in recipe.fields.items():
            how = " by apply_flex_dispatcher_backend" if recipe.flex and field == "moe_token_dispatcher_type" else ""
            said = f"{field} {s.value} (recipe {name.value}{how}, {B} {s.at})" if s.known else \
                f"{field} (recipe {name.value} sets it under a condition, {B} {s.at})"
            fields[field] = Key(said, _text(s.value) if s.known else None, name.span, default=False)
        if "moe_token_dispatcher_type" not in fields:  # the model provider's own default (Python): not read
            fields["moe_token_dispatcher_type"] = Key(f"moe_token_dispatcher_type (not set by recipe {name.value}: "
                                                      "the model provider's default, not read)", None, name.span)
        _flex_on_the_gpu(recipe, fields, ctx_device(r), name)
        model = recipe.hf
        fields["_hf"] = Key(f"recipe {name.value} builds {model.value} ({B} {model.at})" if model and model.known
                            else f"the model recipe {name.value} builds (not known statically)",
                            model.value if model and model.known else None, name.span)
    for option, field in _COMMON.items():
        if option in r.options:
            fields[field] = r.options[option]
    fields.update(r.model)
    _expert_tp(fields, r)
    _batch(fields, r)
    return fields


def _batch(fields: dict[str, Key], r: _Read) -> None:
    """The sequence length and micro-batch the launch writes (its options, then its overrides); else the recipe's,
    which moecfg does not read: not known (never Megatron's defaults)."""
    given = {field: r.options[o] for o, field in _BATCH_OPTIONS.items() if o in r.options}
    given.update(getattr(r, "batch", {}))
    for field in ("seq_length", "micro_batch_size"):
        if field in given:
            fields[field] = given[field]
        elif field not in fields:
            recipe = r.options.get("--recipe")
            whose = f"recipe {recipe.value}'s" if recipe is not None and recipe.value else "the recipe's"
            fields[field] = Key(f"{field} ({whose}: not read)", None, recipe.span if recipe else r.launch.span)


def _expert_tp(fields: dict[str, Key], r: _Read) -> None:
    """An expert-TP nobody sets is not Megatron's (TP): Megatron-Bridge's TransformerConfig.finalize sets 1 when EP is
    above 1 (src/megatron/bridge/models/transformer_config.py:80-88, called at :176); with EP not known, not known."""
    if "expert_tensor_parallel_size" in fields:
        return
    ep = fields.get("expert_model_parallel_size")
    at = f"{B} src/megatron/bridge/models/transformer_config.py:80-88, :176"
    if ep is not None and ep.value is not None and ep.value.isdigit() and int(ep.value) > 1:
        fields["expert_tensor_parallel_size"] = Key(f"expert_tensor_parallel_size 1 (not set: Megatron-Bridge's "
                                                    f"finalize sets 1 with EP {ep.value}, {at})", "1", ep.span)
    elif ep is None or ep.value is None:
        span = ep.span if ep is not None else r.launch.span
        fields["expert_tensor_parallel_size"] = Key(f"expert_tensor_parallel_size (not set: 1 when EP > 1, else TP, "
                                                    f"{at}; EP not known)", None, span)


def ctx_device(r: _Read) -> str | None:
    return getattr(r, "device", None)


def _flex_on_the_gpu(recipe, fields: dict[str, Key], device: str | None, name: Key) -> None:
    """apply_flex_dispatcher_backend keeps the flex dispatcher only on a GPU that takes its backend: on another GPU
    named in the settings the dispatcher is alltoall; on a GPU not named, the flex phase is said to hold only there."""
    if recipe.flex is None or fields.get("moe_token_dispatcher_type") is None:
        return
    major = _MAJOR.get((device or "").upper())
    if major is None:
        return
    takes = major in (8, 9) or device.upper() in ("B200", "B300") if recipe.flex == "deepep" else major in (8, 9, 10)
    if not takes:
        fields["moe_token_dispatcher_type"] = Key(
            f"moe_token_dispatcher_type alltoall (recipe {name.value}: apply_flex_dispatcher_backend falls back from "
            f"{recipe.flex} on {device}, {B} {releases.FLEX})", "alltoall", name.span)
        fields.pop("moe_flex_dispatcher_backend", None)


def _text(value) -> str:
    return "null" if value is None else str(value).lower() if isinstance(value, bool) else str(value)


def _train(r: _Read, ctx: LaunchContext, out: Derivation, fields: dict[str, Key], at: int, prefix: list | None = None,
           runner: str = "run_recipe.py") -> None:
    """`prefix`: the words that start the ranks (torchrun's own, or those a launcher's settings stand for)."""
    mg = EngineArgs((), r.launch.span)
    ranks = list(r.launch.argv[:at]) if prefix is None else prefix
    mg.words = ranks + [Word("pretrain_gpt.py", r.launch.argv[at].span)]
    for field, key in sorted(fields.items()):
        flag = _FIELD_FLAGS.get(field, "--" + field.replace("_", "-"))
        if field.startswith("_") or flag not in _MEGATRON:
            continue
        if _MEGATRON[flag]:
            if key.value not in ("null", "None"):
                mg.flag(flag, key)
        elif (key.value or "").lower() == "true":
            mg.switch(flag, key)
        elif key.value is None:
            mg.word(Word(None, key.span, exact=False))  # a switch on or off: not known
    for w in r.hidden:
        mg.word(w)
    if "_hf" not in fields:  # no recipe read: the settings it would give Megatron are not known
        mg.word(Word(None, r.launch.span, exact=False))
    hf = fields.get("_hf") or Key("the model (no recipe read)", None, r.launch.span)
    dims = resolve_model(hf.value, ctx)
    if dims is None:
        ep = fields.get("expert_model_parallel_size")
        if ep is None or ep.value != "1":
            out.notes.append(Note("MC042", f"{hf.name}: {unresolved_reason(hf.value, ctx)}", hf.span))
        return
    for flag, value in (("--num-experts", dims.num_experts), ("--hidden-size", dims.hidden),
                        ("--moe-router-topk", dims.topk)):
        if flag not in mg.named:
            mg.flag(flag, Key(f"{hf.name} ({dims.how})", None, hf.span), str(value))
    phases.run_phase(out, "megatron", mg, mg.launch(r.launch), ctx, "train",
                     f"Megatron-LM (Megatron-Bridge's {runner}, {B})")
    flex = fields.get("moe_token_dispatcher_type")
    if flex is not None and flex.value == "flex" and "by apply_flex" in flex.name and not ctx.device:
        for call in out.calls:
            if call.kind != "none":
                call.condition = (f"on a GPU that takes {fields['moe_flex_dispatcher_backend'].value} (DeepEP: Ampere, "
                                  "Hopper, B200, B300; HybridEP: Ampere, Hopper, Blackwell); elsewhere Megatron-Bridge "
                                  f"falls back to alltoall ({B} {releases.FLEX}); set `device:` in .moecfg.yaml")
