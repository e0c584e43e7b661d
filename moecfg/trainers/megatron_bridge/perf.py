"""`python scripts/performance/setup_experiment.py -m <family> -mr <recipe> -g <gpu> -ng <gpus> [-c <dtype>] [-tp/-pp/
-cp/-ep/-et N] [model.<field>=<value>]` -> the Megatron-LM train of the flat performance recipe it picks.

NVIDIA-NeMo/Megatron-Bridge@067f987:
- the parser (scripts/performance/argument_parser.py:162-959): -m/-mr/-ng/-g required (:178-190, :222-227,
  :686-692), --task pretrain (:276-281), -c bf16 (:694-701), -gn from the GPU (:30-38, setup_experiment.py:973-976),
  -tp/-pp/-cp/-ep/-et (:387-427), -cv (:941-948); unknown words are Hydra overrides (parse_known_args,
  setup_experiment.py:971; run_script.py:182), which the flat runner applies BEFORE the options: an option wins over
  `model.<field>=` (run_script.py:76-79; only the --use_recipes path applies Hydra last,
  scripts/performance/run_recipe.py:237-242);
- the recipe: f"{mr}_{task}_{ng}gpu_{gpu}_{dtype}{_variant}_config" (utils/utils.py:446-458, dtype names :55-62);
  when no flat recipe has that name run_script.py:99-116 builds get_perf_optimized_recipe's, and --use_recipes runs
  scripts/performance/run_recipe.py on build_recipe_config's (bootstrap.py:29-40,
  scripts/performance/run_recipe.py:270-287): neither is read here, their settings are unknown;
- the options set model.<field> (utils/overrides.py:476-489); the job spans -(ng // -gn) nodes of gn GPUs
  (setup_experiment.py:662-663), one rank per GPU.
"""
from __future__ import annotations

import re

from moecfg.core.record import replace
from moecfg.frameworks import Derivation, LaunchContext
from moecfg.frameworks.flags import known_value
from moecfg.sources.launch import Launch, Word
from moecfg.trainers import phases
from moecfg.trainers.megatron_bridge import releases, rules
from moecfg.trainers.phases import Key

B = releases.BRIDGE
# setup_experiment.py submits the job; run_script.py (the same parser, run_script.py:182) is the rank-local runner it
# starts, also launched by hand inside an allocation
ENTRY = re.compile(r"(?:^|/)performance/(?:setup_experiment|run_script)\.py$")
_ALIASES = {"-m": "--model_family_name", "-mr": "--model_recipe_name", "-ng": "--num_gpus", "-g": "--gpu",
            "-c": "--compute_dtype", "-gn": "--gpus_per_node", "-cv": "--config_variant",
            "-tp": "--tensor_model_parallel_size", "-pp": "--pipeline_model_parallel_size",
            "-cp": "--context_parallel_size", "-ep": "--expert_model_parallel_size",
            "-et": "--expert_tensor_parallel_size"}
_SIZES = {"--tensor_model_parallel_size", "--pipeline_model_parallel_size", "--context_parallel_size",
          "--expert_model_parallel_size", "--expert_tensor_parallel_size"}
# the parser's switches (store_true) and options taking several words (argument_parser.py, read with ast at 067f987:
# :191, :264, :354-355, :380, :739, :745, :780, :879, :932, :950, :964, :971; nargs "+"/"*" at :343, :350, :512);
# every other option takes one word, -et zero or one (:419-427)
_SWITCHES = {"--use_recipes", "-d", "--dryrun", "--packed_sequence", "--head_only", "--offline", "-en",
             "--enable_nsys", "--export_nsys_sqlite", "--profiling_gpu_metrics", "--deterministic", "--dump_env",
             "--list_config_variants", "--is_long_convergence_run", "--retry_on_testing_failure", "-h", "--help"}
_MANY = {"--c4_train_shards", "--dataset_paths", "-cb", "--custom_bash_cmds"}
_GPUS_PER_NODE = {"h100": 8, "b200": 8, "b300": 8, "gb200": 4, "gb300": 4, "vr200": 4, "r100": 1}  # argparser :30-38
_DTYPE = {"bf16": "bf16", "fp8_cs": "fp8cs", "fp8_ds": "fp8ds", "fp8_mx": "fp8mx", "fp8_sc": "fp8sc", "nvfp4": "nvfp4"}


def _next_is_value(words: list, i: int) -> bool:
    return i < len(words) and not (words[i].value or "x").startswith("-")


def entry(launch: Launch) -> int | None:
    return next((i for i, w in enumerate(launch.argv) if i > 0 and (w.value or w.pattern) and
                 ENTRY.search(w.value or w.pattern)), None)


class PerfRead:
    """setup_experiment.py's words in run_recipe.py's terms (calls._Read): options, model overrides, hidden words."""

    def __init__(self, launch: Launch, start: int, ctx: LaunchContext):
        self.launch, self.args, self.options, self.model, self.hidden, self.refused = launch, {}, {}, {}, [], None
        self.switches: set[str] = set()
        words, i = list(launch.argv[start:]), 0
        while i < len(words):
            w, i = words[i], i + 1
            if w.value is None:
                self.hidden.append(w)
                continue
            raw, eq, value = w.value.partition("=")
            name = _ALIASES.get(raw, raw)
            if not w.value.startswith("-"):
                if eq and raw.startswith("model."):
                    self.model[raw[len("model."):]] = Key(raw, known_value(value), w.span)
                continue
            if raw in _SWITCHES:
                self.switches.add(_ALIASES.get(raw, raw))
                continue
            takes = _next_is_value(words, i)
            if raw in _MANY:
                while not eq and _next_is_value(words, i):
                    i += 1
                continue
            if eq or name == "--expert_tensor_parallel_size" and not takes:
                self.args[name] = Key(name, known_value(value) if eq else None, w.span)
            elif takes:
                self.args[name] = Key(name, known_value(words[i].value), words[i].span)
                i += 1
        self.options = {n: k for n, k in self.args.items() if n in _SIZES}
        gpu = self.args.get("--gpu")
        self.device = ctx.device or (gpu.value.upper() if gpu and gpu.value else None)

    def refused_by_parser(self) -> str | None:
        """A required option missing or -g not one of the choices (no unknown word could hold them), or None."""
        if self.hidden:
            return None
        missing = [short for short, long in (("-m", "--model_family_name"), ("-mr", "--model_recipe_name"),
                                             ("-ng", "--num_gpus"), ("-g", "--gpu")) if long not in self.args]
        if missing:
            return f"{'/'.join(missing)} not given (required)"
        gpu = self.args["--gpu"].value
        return f"-g {gpu} is not one of {sorted(_GPUS_PER_NODE)}" if gpu is not None and gpu not in _GPUS_PER_NODE \
            else None

    def recipe(self) -> tuple[Key | None, str | None]:
        """The flat perf recipe's name (its Key spans -mr), or None with why it is not known."""
        if "--use_recipes" in self.switches:
            return None, ("--use_recipes: the model recipe build_recipe_config returns (scripts/performance/"
                          "bootstrap.py:29-40, scripts/performance/run_recipe.py:270-287) is not read")
        need = [self.args.get(n) for n in ("--model_recipe_name", "--num_gpus", "--gpu")]
        if any(k is None or k.value is None for k in need):
            return None, "the recipe's name is not known statically (-mr, -ng and -g name it, utils/utils.py:446-458)"
        mr, ng = need[0].value.lower(), need[1].value
        gpu = need[2].value  # type=str with choices: not lowercased (argument_parser.py:686-692)
        if gpu not in _GPUS_PER_NODE:  # (an unknown word might have set -g again: not derived, not refused)
            return None, f"-g {gpu} is not one of the parser's choices {sorted(_GPUS_PER_NODE)} (argument_parser.py:" \
                "689)"
        task = self.args.get("--task", Key("--task", "pretrain", need[0].span)).value
        dtype = self.args.get("--compute_dtype", Key("-c", "bf16", need[0].span)).value
        variant = self.args.get("--config_variant")
        if task is None or dtype is None or variant is not None and variant.value is None:
            return None, "the recipe's name is not known statically (--task, -c or -cv is not known)"
        suffix = "" if variant is None or variant.value.lower() in ("v1", "v2") else f"_{variant.value.lower()}"
        name = f"{mr}_{task}_{ng}gpu_{gpu}_{_DTYPE.get(dtype.lower(), dtype.lower().replace('_', ''))}{suffix}_config"
        if releases.recipe(name) is None:
            return None, (f"no flat perf recipe {name} (utils/utils.py:446-458), so run_script.py:108-116 builds "
                          "get_perf_optimized_recipe's, not read")
        return Key(f"recipe {name} (from -mr/-ng/-g/-c, {B} scripts/performance/utils/utils.py:458)", name,
                   need[0].span), None

    def ranks(self) -> list[Word]:
        """`torchrun --nproc_per_node=gn --nnodes=ng/gn`: the ranks the Slurm job starts (one per GPU)."""
        ng, gpu = self.args.get("--num_gpus"), self.args.get("--gpu")
        gn = self.args.get("--gpus_per_node")
        per = gn.value if gn is not None else str(_GPUS_PER_NODE.get((gpu.value or "").lower(), "")) or None
        span = ng.span
        if per is None or not per.isdigit() or ng.value is None or not ng.value.isdigit() or int(ng.value) % int(per):
            return [Word("torchrun", span), Word(None, span, exact=False)]
        return [Word("torchrun", span), Word(f"--nproc_per_node={per}", (gn or gpu).span, exact=False),
                Word(f"--nnodes={int(ng.value) // int(per)}", span, exact=False)]


def _own_ranks(launch: Launch, at: int) -> list[Word]:
    """run_script.py runs as the ranks its launcher starts: torchrun's words, else a Slurm allocation's tasks (not
    known from the command: run_script.py:157 only fills WORLD_SIZE from -ng for a dry run)."""
    words = [w.value or "" for w in launch.argv[:at]]
    if any(w == "torchrun" or w.endswith("/torchrun") or w.startswith("torch.distributed.") for w in words):
        return list(launch.argv[:at])
    return [Word("torchrun", launch.argv[at].span), Word(None, launch.argv[at].span, exact=False)]


def derive(launch: Launch, ctx: LaunchContext, out: Derivation, at: int) -> None:
    from moecfg.frameworks import Note
    from moecfg.trainers.megatron_bridge import calls

    r = PerfRead(launch, at + 1, ctx)
    out.version = releases.VERSION
    out.notes.append(Note("MC040", f"Megatron-Bridge version not given: read as Megatron-Bridge {releases.VERSION} "
                          f"({B}, the newest read)", launch.span))
    refused = r.refused_by_parser()
    if refused:
        out.notes.append(Note(rules.SETUP_REFUSED.code, f"{refused}: setup_experiment.py's parser exits 2 ({B} "
                              "scripts/performance/argument_parser.py:178-190, :222-227, :686-692); give -m <family> "
                              "-mr <recipe> -ng <gpus> -g <gpu>", launch.argv[at].span))
        return
    name, why = r.recipe()
    if name is None:
        phases.not_derived(out, launch, f"train engine not derived: {why}")
        return
    r.options["--recipe"] = name
    for option, field in calls._COMMON.items():  # the flat runner applies argparse after Hydra: the option wins
        if option in r.options:                   # (run_script.py:76-79, utils/overrides.py:476-489)
            r.model.pop(field, None)
    fields = calls._fields(r, out)
    if fields is not None:
        _user_overrides(r, fields)  # the GPU the launch names (-g, required) is the device its buffers are checked on
        gpu = r.args.get("--gpu")
        how = f"-g {gpu.value} (the --gpu of scripts/performance/argument_parser.py)"
        named = ctx if ctx.device or ctx.product or not r.device else replace(
            ctx, device=r.device, product=r.device, product_source=how)
        script = (launch.argv[at].value or launch.argv[at].pattern or "").rsplit("/", 1)[-1]
        ranks = r.ranks() if script == "setup_experiment.py" else _own_ranks(launch, at)
        calls._train(r, named, out, fields, at, ranks, f"scripts/performance/{script}")


_MODEL_OPTIONS = {"--hidden_size": "hidden_size", "--num_moe_experts": "num_moe_experts", "--num_layers": "num_layers"}


def _user_overrides(r: PerfRead, fields: dict) -> None:
    """The model options set_user_overrides applies last (utils/overrides.py:585-596), and --moe_flex_dispatcher_backend
    (:629-633): `None` turns the flex dispatcher off, deepep / hybridep go through apply_flex_dispatcher_backend, which
    keeps them only on a GPU that takes them (the GPU the launch names with -g)."""
    from moecfg.trainers.megatron_bridge.calls import _MAJOR

    for option, field in _MODEL_OPTIONS.items():
        if option in r.args:
            fields[field] = r.args[option]
            r.model.pop(field, None)
    backend = r.args.get("--moe_flex_dispatcher_backend")
    if backend is None:
        return
    at = f"{B} scripts/performance/utils/overrides.py:629-633"
    if backend.value is None:
        fields["moe_token_dispatcher_type"] = Key(f"moe_token_dispatcher_type (--moe_flex_dispatcher_backend not "
                                                  f"known statically, {at})", None, backend.span)
        return
    device = (r.device or "").upper()
    major = _MAJOR.get(device)
    takes = major is None or (major in (8, 9) or device in ("B200", "B300") if backend.value == "deepep"
                              else major in (8, 9, 10))
    if backend.value == "None" or not takes:
        why = "alltoall" if backend.value == "None" else f"falls back to alltoall on {device} ({B} {releases.FLEX})"
        fields["moe_token_dispatcher_type"] = Key(f"moe_token_dispatcher_type alltoall (--moe_flex_dispatcher_backend "
                                                  f"{backend.value}: {why}, {at})", "alltoall", backend.span)
        fields.pop("moe_flex_dispatcher_backend", None)
        return
    fields["moe_token_dispatcher_type"] = Key(f"moe_token_dispatcher_type flex (--moe_flex_dispatcher_backend "
                                              f"{backend.value} by apply_flex_dispatcher_backend, {at})", "flex",
                                              backend.span)
    fields["moe_flex_dispatcher_backend"] = backend
