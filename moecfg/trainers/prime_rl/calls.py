"""prime-rl's config -> the `vllm serve` argv of each inference rank, and the trainer's own EP listed as not derived.

PrimeIntellect-ai/prime-rl@559b44772 (releases.C = packages/prime-rl-configs/src/prime_rl/configs):
- the vLLM arguments are `[inference.vllm]` (an RL config) or `[vllm]` (an inference config) under vLLM's own names
  (inference.py:42-55, to_namespace :590-629); `[model] name` fills inference.vllm.model (utils/validation.py:67-72);
- RL, single node (rl.py:666-679): one vLLM server; data_parallel_size = num_infer_gpus / TP when num_infer_gpus is not
  DP x TP (asserting the division, MC748);
- RL, multi node, not disaggregated (rl.py:696-746; templates/multi_node_rl.sbatch.j2:358-387, _launch_rank.sh.j2:24-26):
  gpus_per_node / TP ranks per inference node, each `--data-parallel-size <replica DP> --data-parallel-size-local 1`;
  with expert parallelism one EP group spans the replica's nodes (num_infer_nodes x gpus_per_node, MC718), without it
  each rank is an independent engine (DP 1);
- inference config, multi node (templates/inference.sbatch.j2:319-345): each node an independent replica, an EP group
  node-local (gpus_per_node / TP DP ranks);
- disaggregated P/D (inference.py:527-545; multi_node_rl.sbatch.j2:288-356, inference.sbatch.j2:239-315): expert
  parallelism on unless written, prefill ranks with all2all_backend deepep_high_throughput, decode ranks with
  deepep_low_latency (then each role's *_vllm_overrides), DP = nodes per replica x gpus_per_node / TP.
A Markdown block (context `toml-block`) is a fragment of a config: the keys it does not write take prime-rl's defaults,
and an [inference] section without the RL [deployment] is read as the inference server's own config (what the block
shows), not under the single-node RL deployment a whole file without [deployment] would get.
"""
from __future__ import annotations

from moecfg.frameworks import Derivation, LaunchContext, Note
from moecfg.frameworks.flags import known_value
from moecfg.frameworks.models import known_moe
from moecfg.frameworks.values import integer
from moecfg.sources.launch import EnvEntry, Launch, Word
from moecfg.sources.recipes.prime_rl import BROKEN
from moecfg.trainers import phases
from moecfg.trainers.phases import EngineArgs, Key
from moecfg.trainers.prime_rl import releases, rules

S = releases.PRIME_RL
_PASSED = ("pipeline_parallel_size", "gpu_memory_utilization", "max_num_seqs", "max_num_batched_tokens",
           "max_model_len", "enable_eplb")
_SWITCHES = ("enforce_eager",)
_ROLES = {"prefill": "deepep_high_throughput", "decode": "deepep_low_latency"}


class _Keys:
    """The config's settings as written (`a.b=c` words), and prime-rl's defaults of the keys read."""

    def __init__(self, launch: Launch, start: int = 2):
        self.launch, self.written = launch, {}
        self.fragment = launch.context == "toml-block"
        for w in launch.argv[start:]:
            text = w.value if w.value is not None else w.pattern
            if text and "=" in text:
                name, _, value = text.partition("=")
                self.written[name] = Key(name, known_value(value) if w.value is not None else None, w.span)

    def get(self, name: str, default: tuple[str, str] | None = None) -> Key:
        if name in self.written:
            return self.written[name]
        if default is not None:
            value, where = default
            return Key(f"{name} {value} (prime-rl's default, {S} {where})", value, self.launch.span)
        return Key(name, None, self.launch.span)

    def under(self, prefix: str) -> dict[str, Key]:
        return {k[len(prefix):]: v for k, v in self.written.items() if k.startswith(prefix)}

    def has(self, prefix: str) -> bool:
        return any(k.startswith(prefix) for k in self.written)


def derive_config(launch: Launch, ctx: LaunchContext, out: Derivation) -> None:
    entry = launch.argv[1].value if len(launch.argv) > 1 else None
    if entry == BROKEN:
        message = launch.argv[2].value if len(launch.argv) > 2 else "not valid TOML"
        out.notes.append(Note(rules.NOT_TOML.code, f"not valid TOML ({message}): prime-rl's loader stops the launch "
                              "(`Invalid TOML`, prime-pydantic-config 0.4.3 pydantic_config/cli.py:416-419); fix the "
                              "syntax", launch.argv[2].span if len(launch.argv) > 2 else launch.span))
        return
    out.version = releases.VERSION
    out.notes.append(Note("MC040", f"prime-rl version not given: read as prime-rl {releases.VERSION} ({S}, the newest "
                          f"read), which pins vLLM {releases.VLLM} (pyproject.toml:224-226)", launch.span))
    k = _Keys(launch)
    if entry == "rl":
        _train(k, out, "trainer.model.", ctx)
        if k.has("inference."):
            _rollout(k, ctx, out, "inference.", rl=not (k.fragment and not k.has("deployment.")))
    elif entry == "inference":
        _rollout(k, ctx, out, "", rl=False)
    else:
        _train(k, out, "model.", ctx)
        if k.has("inference.vllm.enable_expert_parallel"):  # an SFT config's online-eval server (sft.py:208-211)
            phases.not_derived(out, launch, "eval inference of an SFT config (its [inference] for online evals) not "
                               "derived")


def _train(k: _Keys, out: Derivation, prefix: str, ctx: LaunchContext) -> None:
    """The trainer's own expert parallelism (FSDP2 with TorchTitan all-to-all or DeepEP kernels): not derived."""
    ep = k.get(prefix + "ep", releases.TRAINER_DEFAULTS["ep"])
    backend = k.get(prefix + "ep_comm_backend", releases.TRAINER_DEFAULTS["ep_comm_backend"])
    n = integer(ep.value) if ep.value is not None else None
    if backend.value == "deepep" and n is not None and n <= 1 and prefix + "ep" in k.written:
        out.notes.append(Note(rules.DEEPEP_NEEDS_EP.code, f"{prefix}ep_comm_backend = \"deepep\" with {prefix}ep = "
                              f"{n}: prime-rl refuses it (`model.ep_comm_backend='deepep' requires model.ep > 1.`, {S} "
                              f"{releases.TRAINER}:333-339); set {prefix}ep above 1 or ep_comm_backend = \"torch\"",
                              backend.span))
        return
    if prefix + "ep" not in k.written and prefix + "ep_comm_backend" not in k.written:
        model = k.get(prefix + "name").value or k.get("model.name").value
        if not known_moe(model, ctx):
            return  # no expert parallelism written, and no model known to have experts
        phases.not_derived(out, k.launch, f"train engine not derived: prime-rl's own trainer (FSDP2) with its expert "
                           f"parallelism ({prefix}ep auto: min(FSDP island, 8) for the MoE model {model}, "
                           f"{releases.TRAINER}:212-213)")
        return
    what = f"{prefix}ep = {ep.value if prefix + 'ep' in k.written else 'auto'}"
    comm = backend.value if prefix + "ep_comm_backend" in k.written else "torch (the default)"
    phases.not_derived(out, k.launch, f"train engine not derived: prime-rl's own trainer (FSDP2) with its expert "
                       f"parallelism ({what}, ep_comm_backend {comm}: TorchTitan all-to-all or DeepEP kernels, "
                       f"{releases.TRAINER}:212-222)")


def _rollout(k: _Keys, ctx: LaunchContext, out: Derivation, p: str, rl: bool) -> None:
    d = releases.INFERENCE_DEFAULTS
    mode = k.get("deployment.type", releases.RL_DEFAULTS["deployment.type"]) if rl else None
    inner = k.get(p + "deployment.type", d["deployment.type"])
    if inner.value == "disaggregated" and (not rl or mode.value == "multi_node"):
        # the RL deployment's GPUS_PER_NODE (multi_node_rl.sbatch.j2:33-37), else the inference config's own
        gpn = k.get("deployment.gpus_per_node", releases.RL_DEFAULTS["deployment.gpus_per_node"]) if rl else \
            k.get(p + "deployment.gpus_per_node", d["deployment.gpus_per_node"])
        for role in ("prefill", "decode"):
            _disaggregated(k, ctx, out, p, gpn, role)
        return
    tp, dp = k.get(p + "vllm.tensor_parallel_size", d["vllm.tensor_parallel_size"]), \
        k.get(p + "vllm.data_parallel_size", d["vllm.data_parallel_size"])
    ep = k.get(p + "vllm.enable_expert_parallel", d["vllm.enable_expert_parallel"])
    if rl and mode.value == "single_node" and inner.value != "single_node":
        phases.not_derived(out, k.launch, f"rollout engine not derived: {inner.name} = {inner.value or 'not known'} "
                           "under a single-node RL deployment")
        return
    if rl and mode.value == "single_node":
        dp = _single_node_dp(k, out, tp, dp)
    elif rl and mode.value == "multi_node":
        dp = _multi_node_dp(k, out, p, tp, dp, ep)
    elif rl:
        phases.not_derived(out, k.launch, f"rollout engine not derived: {mode.name} = {mode.value or 'not known'}")
        return
    elif inner.value == "multi_node" and k.get(p + "deployment.num_nodes", d["deployment.num_nodes"]).value != "1":
        dp = _per_node_dp(k, p, tp, ep)  # one node: `uv run inference @ config` as written (inference.sbatch.j2:346-)
    elif inner.value not in ("single_node", "multi_node"):
        phases.not_derived(out, k.launch, f"rollout engine not derived: {inner.name} = {inner.value or 'not known'}")
        return
    if dp is None:
        return
    eng = _engine(k, p, tp, dp, ep)
    phases.run_phase(out, "vllm", eng, eng.launch(k.launch, _env(k, p)), ctx, "rollout" if rl else "serve",
                     f"vLLM (prime-rl's inference server, {S} {releases.INF}:590-629 to_namespace)")


def _single_node_dp(k: _Keys, out: Derivation, tp: Key, dp: Key) -> Key | None:
    """rl.py:666-673: the inference GPUs fill with DP ranks of TP GPUs each."""
    gpus = k.get("deployment.num_infer_gpus", releases.RL_DEFAULTS["deployment.num_infer_gpus"])
    g, t, n = integer(gpus.value), integer(tp.value), integer(dp.value)
    if g is None or t is None or n is None or t < 1:
        return Key(f"{gpus.name} / {tp.name}", None, gpus.span)
    if g == n * t:
        return dp
    if g % t:
        if "deployment.num_infer_gpus" in k.written and "inference.vllm.tensor_parallel_size" in k.written:
            out.notes.append(Note(rules.SINGLE_NODE_GPUS.code, f"deployment.num_infer_gpus = {g} is not a multiple "
                                  f"of inference.vllm.tensor_parallel_size = {t}: prime-rl asserts it ({S} "
                                  f"{releases.RL}:670-672); use {g - g % t or t} inference GPUs or another TP",
                                  gpus.span))
        else:
            out.notes.append(Note("MC023", f"{gpus.name} is not a multiple of {tp.name}: prime-rl asserts it ({S} "
                                  f"{releases.RL}:670-672) unless the launch sets it; the rollout's data-parallel size "
                                  "is not known", gpus.span))
        return None
    return Key(f"{gpus.name} / {tp.name} (prime-rl fills the inference GPUs with DP ranks, {S} {releases.RL}:673)",
               str(g // t), gpus.span)


def _multi_node_dp(k: _Keys, out: Derivation, p: str, tp: Key, dp: Key, ep: Key) -> Key | None:
    """rl.py:696-746 and multi_node_rl.sbatch.j2:359-388: with EP one group per replica of num_infer_nodes x
    gpus_per_node GPUs; without it, independent engines of TP GPUs (DP 1)."""
    gpn = k.get("deployment.gpus_per_node", releases.RL_DEFAULTS["deployment.gpus_per_node"])
    nodes = _infer_nodes(k, p)
    g, t, n, m = integer(gpn.value), integer(tp.value), integer(dp.value), integer(nodes.value)
    if (ep.value or "").lower() != "true":
        if ep.value is None:
            return Key(f"{ep.name} (not known)", None, ep.span)
        return Key(f"1 (independent engines of {tp.name} GPUs without expert parallelism, {S} "
                   "src/prime_rl/templates/multi_node_rl.sbatch.j2:381-386)", "1", tp.span)
    if None in (g, t, n, m) or min(g, t, n, m) < 1:
        return Key(f"{nodes.name} x {gpn.name} / {tp.name}", None, nodes.span)
    local = k.get(p + "vllm.data_parallel_size_local")
    bad = None
    if g % t:
        bad = (f"{gpn.name} = {g} is not a multiple of {tp.name} = {t}", tp.span,
               "use a TP that divides the node's GPUs")
    elif n * t != m * g:
        bad = (f"{dp.name} {n} x {tp.name} {t} = {n * t} is not the replica's {m * g} inference GPUs ({nodes.name} "
               f"{m} x {gpn.name} {g})", dp.span if p + "vllm.data_parallel_size" in k.written else tp.span,
               f"set {p}vllm.data_parallel_size = {m * g // t}")
    elif local.value is not None and integer(local.value) != g // t:
        bad = (f"{local.name} = {local.value} is not {gpn.name} / {tp.name} = {g // t}", local.span,
               f"set it to {g // t} or remove it")
    if bad is not None:
        out.notes.append(Note(rules.MULTI_NODE_EP.code, f"{bad[0]} with expert parallelism on a multi-node "
                              f"deployment: prime-rl refuses it ({S} {releases.RL}:696-723); {bad[2]}", bad[1]))
        return None
    return Key(f"{nodes.name} {m} x {gpn.name} {g} / {tp.name} {t} (one EP group per inference replica, {S} "
               "src/prime_rl/templates/multi_node_rl.sbatch.j2:371-379)", str(m * g // t), dp.span)


def _infer_nodes(k: _Keys, p: str) -> Key:
    """deployment.num_infer_nodes, else inferred from inference.deployment (rl.py:304-319)."""
    if "deployment.num_infer_nodes" in k.written:
        return k.written["deployment.num_infer_nodes"]
    inner = k.get(p + "deployment.type", releases.INFERENCE_DEFAULTS["deployment.type"])
    if inner.value == "multi_node":
        got = k.get(p + "deployment.num_nodes", releases.INFERENCE_DEFAULTS["deployment.num_nodes"])
        return Key(f"{got.name} (deployment.num_infer_nodes not written: inferred, {S} {releases.RL}:311-319)",
                   got.value, got.span)
    if inner.value == "single_node":
        return Key(f"deployment.num_infer_nodes 1 ({inner.name} single_node, {S} {releases.RL}:315-316)", "1",
                   inner.span)
    return Key("deployment.num_infer_nodes", None, k.launch.span)


def _per_node_dp(k: _Keys, p: str, tp: Key, ep: Key) -> Key | None:
    """An inference config over several nodes: each node its own replica (inference.sbatch.j2:319-345)."""
    gpn = k.get(p + "deployment.gpus_per_node", releases.INFERENCE_DEFAULTS["deployment.gpus_per_node"])
    g, t = integer(gpn.value), integer(tp.value)
    if g is None or t is None or t < 1:
        return Key(f"{gpn.name} / {tp.name}", None, gpn.span)
    if (ep.value or "").lower() == "true" and g // t > 1:
        return Key(f"{gpn.name} {g} / {tp.name} {t} (a node-local EP group per node, {S} "
                   "src/prime_rl/templates/inference.sbatch.j2:332-337)", str(g // t), gpn.span)
    return Key(f"1 (independent engines per node, {S} src/prime_rl/templates/inference.sbatch.j2:338-344)", "1",
               tp.span)


def _disaggregated(k: _Keys, ctx: LaunchContext, out: Derivation, p: str, gpn: Key, role: str) -> None:
    d = releases.INFERENCE_DEFAULTS
    if k.fragment and p + "vllm.model" not in k.written and "model.name" not in k.written:
        phases.not_derived(out, k.launch, f"rollout-{role} engine not derived: a documentation block naming no model "
                           "(the DeepEP buffers of its ranks follow the model)")
        return
    tp = k.get(p + "vllm.tensor_parallel_size", d["vllm.tensor_parallel_size"])
    ep = k.get(p + "vllm.enable_expert_parallel")
    if ep.value is None and p + "vllm.enable_expert_parallel" not in k.written:
        ep = Key(f"{p}deployment.type disaggregated (expert parallelism on unless written, {S} {releases.INF}:532-533)",
                 "true", k.get(p + "deployment.type").span)
    nodes = k.get(f"{p}deployment.{role}_nodes_per_replica", d[f"deployment.{role}_nodes_per_replica"])
    g, t, m = integer(gpn.value), integer(tp.value), integer(nodes.value)
    dp = Key(f"{nodes.name} x {gpn.name} / {tp.name}", None, nodes.span)
    if None not in (g, t, m) and t >= 1:
        dp = Key(f"{nodes.name} {m} x ({gpn.name} {g} // {tp.name} {t}) (the {role} group's DP ranks, {S} "
                 "src/prime_rl/templates/multi_node_rl.sbatch.j2:294, :308)", str(m * (g // t)), nodes.span)
    overrides = k.under(f"{p}deployment.{role}_vllm_overrides.")
    rl_line, inference_line = (301, 259) if role == "prefill" else (315, 274)
    backend = overrides.get("all2all_backend") or Key(
        f"the {role} role ({S} src/prime_rl/templates/multi_node_rl.sbatch.j2:{rl_line}, inference.sbatch.j2:"
        f"{inference_line})", _ROLES[role], nodes.span)
    eng = _engine(k, p, tp, dp, ep, backend)
    eng.flag("--data-parallel-size-local", Key(f"1 (one vLLM server per DP rank, {S} "
                                               "src/prime_rl/templates/_launch_rank.sh.j2:26)", "1", nodes.span))
    _pass(eng, overrides)
    env = _env(k, p, f"{p}deployment.{role}_env_vars.")
    phases.run_phase(out, "vllm", eng, eng.launch(k.launch, env), ctx, f"rollout-{role}",
                     f"vLLM ({role} ranks of prime-rl's disaggregated inference, {S} src/prime_rl/templates/"
                     "multi_node_rl.sbatch.j2:288-356)")


def _engine(k: _Keys, p: str, tp: Key, dp: Key, ep: Key, backend: Key | None = None) -> EngineArgs:
    """`backend`: the all2all backend a disaggregated role sets over the config's (its --vllm @ overrides file)."""
    d = releases.INFERENCE_DEFAULTS
    model = k.get(p + "vllm.model")
    if model.value is None and "model.name" in k.written:
        model = Key(f"model.name (propagated to {p}vllm.model, {S} packages/prime-rl-configs/src/prime_rl/utils/"
                    "validation.py:67-72)", k.written["model.name"].value, k.written["model.name"].span)
    elif model.value is None:
        model = k.get(p + "vllm.model", d["vllm.model"])
    eng = EngineArgs(("vllm", "serve"), k.launch.span)
    eng.word(Word(model.value, model.span, exact=model.value is not None))
    eng.flag("--tensor-parallel-size", tp)
    eng.flag("--data-parallel-size", dp)
    if ep.value is None:
        eng.word(Word(None, ep.span, exact=False))  # expert parallelism on or off: not known
    elif ep.value.lower() == "true":
        eng.switch("--enable-expert-parallel", ep)
    backend = backend or k.get(p + "vllm.all2all_backend", d["vllm.all2all_backend"])
    if backend.value is not None:
        eng.flag("--all2all-backend", backend)
    _pass(eng, {f: key for f, key in k.under(p + "vllm.").items() if f in _PASSED + _SWITCHES})
    return eng


def _pass(eng: EngineArgs, keys: dict[str, Key]) -> None:
    for field, key in sorted(keys.items()):
        flag = "--" + field.replace("_", "-")
        if flag in eng.named or "." in field:
            continue
        if (key.value or "").lower() == "true":
            eng.switch(flag, key)
        elif (key.value or "").lower() not in ("false", "none", "null"):
            eng.flag(flag, key)


def _env(k: _Keys, p: str, role: str | None = None) -> dict[str, EnvEntry]:
    """The inference processes' environment: [env_vars], then [inference.env_vars], then the role's (rl.py:237-238,
    inference.py:452-453, inference.py:406-410)."""
    env = dict(k.launch.env)
    for prefix in ("env_vars.", p + "env_vars." if p else None, role):
        for name, key in (k.under(prefix).items() if prefix else ()):
            env[name] = EnvEntry(name, key.value, key.span)
    return env


def derive_shell(launch: Launch, ctx: LaunchContext, out: Derivation, at: int | None) -> None:
    """`uv run rl @ x.toml ...`: the config is read as its own file; `uv run inference --vllm.<arg> v ...` without a
    config: the flags are the inference config's keys (pydantic_config: `--a.b-c v` sets a.b_c)."""
    words = launch.words()
    entry = words[at] if at is not None else None
    rest = launch.argv[(at or 0) + 1:]
    if any(w.value == "@" or (w.value or "").startswith("@") for w in rest):
        named = next((rest[i + 1].value for i, w in enumerate(rest[:-1]) if w.value == "@"), None)
        phases.not_derived(out, launch, f"the settings are in the config {named or '(not known statically)'}: "
                           "checked as its own file (its --flag overrides are not read)")
        return
    if entry != "inference":
        phases.not_derived(out, launch, f"`{entry}` launch without a config file (@ file.toml): not derived")
        return
    keys = []
    i = 0
    while i < len(rest):
        w = rest[i]
        text = w.value or ""
        if text.startswith("--") and "." in text:
            name = text[2:].split("=", 1)[0]
            name = ".".join(part.replace("-", "_") for part in name.split("."))
            if "=" in text:
                keys.append(Word(f"{name}={text.split('=', 1)[1]}", w.span))
            elif i + 1 < len(rest) and not (rest[i + 1].value or "").startswith("--"):
                nxt = rest[i + 1]
                keys.append(Word(f"{name}={nxt.value}" if nxt.value is not None else None, nxt.span, exact=False,
                                 pattern=f"{name}=?"))
                i += 1
            else:
                keys.append(Word(f"{name}=true", w.span))
        i += 1
    config = Launch((Word("prime-rl", launch.span), Word("inference", launch.span), *keys), launch.env, "toml",
                    launch.image, launch.container, launch.hints, launch.sourced)
    derive_config(config, ctx, out)
