"""A torchtitan launch -> its parallel degrees, the checks torchtitan runs on them, and its expert dispatch: DeepEP's
buffer where the launch says how (the 0.2 form), else listed as not derived.

Settings (releases.py for the two forms): a `--section.field V` / `--section.field=V` flag wins; else the 0.2 form's
TOML job config (config_file.py) when it is read; else, in the 0.2 form with no config file named, the JobConfig
default (pytorch/torchtitan@73a0e69 torchtitan/config/job_config.py). A `--config` function (main form) sets the
model, the degrees and the dispatcher in Python: a setting not on the command line is then not known statically,
never ParallelismConfig's class default.
"""
from __future__ import annotations

import os

from moecfg.frameworks import Derivation, LaunchContext, Note, OpCall
from moecfg.frameworks.flags import known_value
from moecfg.frameworks.values import integer
from moecfg.sources.launch import Launch
from moecfg.trainers import phases
from moecfg.trainers.phases import Key
from moecfg.trainers.torchtitan import config_file, releases, rules

_J = "torchtitan/config/job_config.py"
# 0.2 JobConfig defaults: setting -> (value, line of job_config.py at v0.2.2)
DEFAULTS = {"parallelism.data_parallel_replicate_degree": ("1", 313),
            "parallelism.data_parallel_shard_degree": ("-1", 324),
            "parallelism.tensor_parallel_degree": ("1", 351), "parallelism.pipeline_parallel_degree": ("1", 360),
            "parallelism.context_parallel_degree": ("1", 428), "parallelism.expert_parallel_degree": ("1", 454),
            "parallelism.expert_tensor_parallel_degree": ("1", 464),
            "parallelism.expert_parallel_comm_backend": ("standard", 474), "model.name": ("llama3", 101),
            "model.flavor": ("debugmodel", 104), "training.mixed_precision_param": ("bfloat16", 282)}
DEGREES = ("data_parallel_replicate", "data_parallel_shard", "context_parallel", "tensor_parallel",
           "pipeline_parallel", "expert_parallel")


def _options(launch: Launch, start: int) -> tuple[dict[str, Key], list]:
    """`--a.b V` / `--a.b=V` words after the entry -> Key; the words not known statically."""
    out, hidden = {}, []
    words = list(launch.argv[start:])
    i = 0
    while i < len(words):
        w = words[i]
        if w.value is None:
            hidden.append(w)
        elif w.value.startswith("--"):
            name, eq, value = w.value[2:].partition("=")
            if eq:
                out[name] = Key("--" + name, known_value(value), w.span)
            elif i + 1 < len(words) and not (words[i + 1].value or "").startswith("--"):
                nxt = words[i + 1]
                out[name] = Key("--" + name, known_value(nxt.value), nxt.span)
                i += 1
        i += 1
    return out, hidden


class Settings:
    """Each setting of the launch as a Key: the flag, the TOML config, the 0.2 default, or not known statically."""

    def __init__(self, launch: Launch, start: int):
        self.launch = launch
        self.opts, self.hidden = _options(launch, start)
        self.form = releases.form(launch.words(), launch.env)
        self.toml: dict[str, str] | None = None
        self.config, self.config_at, why = self._config()
        self.config_why = why

    def _config(self) -> tuple[str, object, str]:
        """(the config as said in texts, the Key / EnvEntry naming it, why its settings are not known)."""
        if self.form == "main":
            fn = self.opts.get("config") or self.launch.env.get("CONFIG")
            name = fn.value if fn is not None and fn.value else "(not known statically)"
            return f"the --config function {name}", fn, f"set in Python by the --config function {name}"
        path, at = config_file.named(self.launch, self.opts)
        if self.form == "0.2" and at is None:
            return "", None, ""  # no config file: JobConfig's defaults
        if at is None:
            return "the launch's config", None, "set by a config the launch does not name statically"
        self.toml, why = config_file.read(path)
        base = os.path.basename(path) if path else "(not known statically)"
        return f"the TOML config {base}", at, f"in the TOML config: {why}" if why else ""

    def get(self, name: str) -> Key:
        if name in self.opts:
            return self.opts[name]
        at = getattr(self.config_at, "span", None) or self.launch.span
        if self.toml is not None:
            if name in self.toml:
                return Key(f"{name} = {self.toml[name]} in {self.config.split()[-1]}", self.toml[name], at)
            if self.form in ("0.2", None):  # the TOML leaves it: the dataclass default
                return self._default(name, at)
        if self.form == "0.2" and self.config_at is None:
            return self._default(name, self.launch.span)
        return Key(f"{name} ({self.config_why or 'set by ' + self.config}, not known statically)", None, at)

    def _default(self, name: str, at) -> Key:
        value, line = DEFAULTS[name]
        return Key(f"{name} {value} (torchtitan's default, {releases.V022} {_J}:{line})", value, at, default=True)


def _world(launch: Launch, start: int) -> tuple[int | None, str]:
    words = launch.words()
    if words and (words[0] or "").endswith("run_train.sh"):
        entry = launch.env.get("NGPU")
        value = entry.value if entry is not None else "8"
        n = integer(value) if value is not None else None
        return (n if n and n > 0 else None), f"NGPU {value}" + ("" if entry else f" (run_train.sh's default, "
                                                                                    f"{releases.MAIN} run_train.sh:29)")
    from moecfg.frameworks.megatron import parallel_sizes as P
    w = P.world(launch, start - 1 if words[start - 2:start - 1] == ["-m"] else start)
    return w.size, w.how


def _said(key: Key) -> str:
    return key.name.split(" ")[0]


def derive_train(launch: Launch, ctx: LaunchContext, out: Derivation, start: int) -> None:
    s = Settings(launch, start)
    degrees = {d: s.get(f"parallelism.{d}_degree") for d in DEGREES}
    world, how = _world(launch, start)
    if not s.hidden and _refused(out, degrees, world, how, launch, s.form):
        return
    ep_key = degrees["expert_parallel"]
    ep = integer(ep_key.value) if ep_key.value is not None else None
    if s.form == "0.2":
        from moecfg.trainers.torchtitan import deepep

        if deepep.derive(out, ctx, s, ep, ep_key):
            return
    dense = _dense_module(s)
    if dense:
        why = dense
    elif ep is not None and ep <= 1:
        why = f"no expert parallelism ({_said(ep_key)} 1): no expert all-to-all across ranks"
    else:
        reason = _not_derived(s, ep, ep_key)
        phases.not_derived(out, launch, reason)
        why = "torchtitan's token dispatcher is not derived by moecfg"
    out.calls.append(OpCall("train", "none", None, {"engine": "torchtitan", "op_call": f"not derived ({why})"},
                            {"engine": f"torchtitan <- {s.config or 'its defaults'}",
                             "expert_parallel_degree": f"{ep} <- {ep_key.name}"}, why_none=why, quiet=True))


def _dense_module(s: Settings) -> str:
    """Why the main form's --module builds no MoE layer, or "" (flavors.json main_modules, generated from the code)."""
    if s.form != "main":
        return ""
    key = s.opts.get("module") or s.launch.env.get("MODULE")
    from moecfg.trainers.torchtitan.deepep import flavors

    table = flavors()["main_modules"]
    if key is None or table["moe"].get(key.value or "", True):
        return ""
    return (f"--module {key.value}: a dense model package (no MoE nor token dispatcher in its code, "
            f"{table['source']} torchtitan/models or torchtitan/experiments), no expert all-to-all")


def _not_derived(s: Settings, ep: int | None, ep_key: Key) -> str:
    at = f"{_said(ep_key)} {ep if ep is not None else '(not known statically)'}"
    if s.form == "main":
        return (f"expert dispatch not derived: torchtitan's own token dispatcher at {at} (its comm backend, standard "
                f"all-to-all, DeepEP v2 ElasticBuffer, HybridEP or minimal_async_ep, the model's hidden size and the "
                f"per-rank token bound that size its buffer are set by {s.config} in Python, {releases.MAIN} "
                "torchtitan/models/common/config_utils.py:360-425, token_dispatcher.py:1196-1256)")
    return f"expert dispatch not derived: torchtitan's token dispatcher at {at} ({s.config_why or 'not known'})"


def _refused(out: Derivation, degrees: dict[str, Key], world: int | None, how: str, launch: Launch,
             form: str | None) -> bool:
    """MC741 / MC740: ParallelDims._validate for a known world and known degrees."""
    values = {d: integer(k.value) if k.value is not None else None for d, k in degrees.items()}
    rep, shard, cp, tp, pp, ep = (values[d] for d in DEGREES)
    if world is None or None in values.values() or min(rep, cp, tp, pp, ep) < 1:
        return False
    ref = releases.V022 if form == "0.2" else releases.MAIN
    lines = "49-57" if form == "0.2" else "177-184"
    sk = degrees["data_parallel_shard"]
    outer = rep * cp * tp * pp
    if shard < 0:
        shard = world // outer
    if shard < 1 or rep * shard * cp * tp * pp != world:
        out.notes.append(Note(rules.WORLD_PRODUCT.code, f"dp_replicate {rep} x dp_shard {shard} x cp {cp} x tp {tp} x "
                              f"pp {pp} = {rep * max(shard, 0) * cp * tp * pp} is not the world size {world} ({how}): "
                              f"torchtitan asserts it ({ref} torchtitan/distributed/parallel_dims.py:{lines}); use "
                              f"degrees whose product divides {world}", launch.span if sk.default else sk.span))
        return True
    ek = degrees["expert_parallel"]
    if form != "0.2" and (shard * cp * tp) % ep:  # 0.2 has no such check (its mesh asserts later, not modelled)
        out.notes.append(Note(rules.EP_SPARSE.code, f"{_said(ek)} {ep} does not divide dp_shard {shard} x "
                              f"cp {cp} x tp {tp} = {shard * cp * tp} (world {world}, {how}): torchtitan raises "
                              f"ValueError ({releases.MAIN} torchtitan/distributed/parallel_dims.py:186-191); use a "
                              f"divisor of {shard * cp * tp}", ek.span))
        return True
    return False
