"""vllm-project/recipes model recipes: `models/<org>/<model>.yaml` read as one `vllm serve` launch per strategy.

    model: {model_id: deepseek-ai/DeepSeek-R1, base_args: ["--trust-remote-code"], base_env: {}}
    variants: {default: {extra_args: [...], extra_env: {...}}, nvfp4: {...}}
    features: {reasoning: {args: ["--reasoning-parser", "deepseek_r1"]}}
    compatible_strategies: [single_node_tp, multi_node_dep, pd_cluster]
    strategy_overrides: {single_node_tp: {tp: 4}, pd_cluster: {decode: {parallelism: dep, vllm_args: [...]}}}
    guide: |   (the page's Markdown: read as documentation is, `_guide`)

The site composes the command in vllm-project/recipes@8959cf6 src/lib/command-synthesis.js `resolveCommand`
(:922): buildArgs (:1005-1331) appends, in order, `model.base_args`, the variant's `extra_args`, the strategy's
`vllm_args` (`prefill`/`decode` blocks for pd_cluster) and its parallel sizes (:1027-1211),
`strategy_overrides.<s>.extra_args` / `vllm_args` (:1213-1226), hardware overrides (:1228-1270) and the enabled
features' args (:1275-1307); dedupeArgs (:785) then keeps the LAST `--flag [value]` of each flag, in place.
buildEnv (:1334-1468) merges `base_env`, the variant's `extra_env`, the strategy's `env`, then the overrides'.
This reader does the same for the `default` variant (the page's first rendering, :923) and the recipe's
`compatible_strategies` plus strategy_hardware opt-ins (effectiveCompatibleStrategies, :93), one Launch per
strategy (two for pd_cluster: prefill and decode) with the head node's command (rank 0, :1718).

What depends on the hardware the reader is not told stays unknown or out, never a default: the GPU count behind
every parallel size (`--tensor-parallel-size` / `--data-parallel-size` / `-local`, `--nnodes`; a declared
`tp: N` is min(N, GPUs per node) :127, known only for 1), hardware_overrides (per generation, brand or GPU id:
a flag or variable one of them sets keeps its place with an unknown value, the override coming last),
features a hardware opts in or gates by hardware, and the NVL4-only variables pd_cluster keeps only on GB200/GB300
(:1438). `$VAR` values the page leaves for the shell (`$HEAD_IP`, `$IFACE_NAME`) are unknown.

Positions: a word from the recipe carries the span of its list item or key. The strategy's words and the
parallel sizes it emits come from `strategies/<name>.yaml`, another file: they carry the span of the recipe's
`compatible_strategies` item naming the strategy (a finding about `--enable-expert-parallel` added by
multi_node_dep points at `- multi_node_dep`), as a variable set in a sourced file points at the `source` line.
A strategy file checked on its own holds no launch (no model): it is skipped, read with each recipe listing it.
"""
from __future__ import annotations

from moecfg.core import launch_rules as L
from moecfg.sources.recipes import vllm_strategies
from moecfg.sources.launch import EnvEntry, Launch, LaunchFile, Problem, Unread, Word
from moecfg.sources.recipes.vllm_words import UNKNOWN, arg, dedupe, env_value, feature_mode, pool_modes, unknown_values, \
    usable
from moecfg.sources.manifests.yaml_source import Span, YamlDocument

_NVL4_ONLY = ("VLLM_USE_NCCL_SYMM_MEM", "NCCL_CUMEM_ENABLE", "NCCL_MNNVL_ENABLE", "NCCL_NVLS_ENABLE", "UCX_NET_DEVICES")
_DEFAULT = ("variants", "default")


def is_vllm_recipe(data) -> bool:
    model = data.get("model") if isinstance(data, dict) else None
    return isinstance(model, dict) and isinstance(model.get("model_id"), str) \
        and isinstance(data.get("compatible_strategies"), list)


def read_vllm_recipe(doc: YamlDocument, name: str = "", root: str | None = None, text: str | None = None,
                     docs: bool = False) -> LaunchFile | None:
    """`text`: the file's text; `docs`: documentation is read (the file named, or walked with documentation): the
    recipe's Markdown `guide:` is then read too, its commands as a Markdown file's (what the page tells users to
    paste); else its launches are listed as not read, with that reason."""
    data = doc.data
    if vllm_strategies.is_strategy(data):
        return LaunchFile(skipped=f"vLLM recipes strategy `{data['name'][:60]}`: no model of its own; read with "
                          "each model recipe listing it in compatible_strategies")
    if not is_vllm_recipe(data):
        return None
    if "omni" in _list(_mapping(data.get("meta")).get("tasks")):
        return LaunchFile(skipped="vLLM recipe for vllm-omni (`meta.tasks: [omni]`): the site renders no strategy "
                          "launch for it")
    library = vllm_strategies.strategies_for(name, root)
    if library is None:
        return LaunchFile(skipped="vLLM recipe whose strategies/ folder is not inside the checked folder: its "
                          "launches are composed with the strategy files (check the recipes repository's top)")
    out, unread = LaunchFile(), []
    offered = _offered(doc)
    for sname, at in offered:
        strategy = library[1].get(sname)
        if strategy is None or strategy.get("deploy_type") == "kv_store_lb":  # KV-store layers are not read
            unread.append((sname, at))
            continue
        roles = ("prefill", "decode") if strategy.get("deploy_type") == "pd_cluster" else (None,)
        for role in roles:
            out.launches.append(_Compose(doc, sname, strategy, role, at, [s for s, _ in offered]).launch())
    if unread:  # one note per recipe, at the first strategy not read
        names = ", ".join(f"`{n[:60]}`" for n, _ in unread[:5]) + (f" and {len(unread) - 5} more" if
                                                                     len(unread) > 5 else "")
        out.problems.append(Problem(L.VALUE_UNKNOWN.code, f"strategy {names}: no serving strategy of that name in "
                                    f"{library[0]}/, so its launch is not read", unread[0][1], about_launch=True))
    if text is not None:
        _guide(doc, text, out, docs)
    if not out.launches and not out.problems:
        out.skipped = "vLLM recipe without a compatible strategy"
    return out


def _guide(doc: YamlDocument, text: str, out: LaunchFile, docs: bool) -> None:
    """Without documentation, the launches of the `guide: |` block are listed as not read. With it, sources/readers.py
    reads `guide_text` as Markdown (this module stays below the Markdown reader, whose YAML blocks come back here)."""
    masked = None if docs else guide_text(doc, text)
    if masked is None:
        return
    from moecfg.sources import framework_words as W
    from moecfg.sources.seen import seen

    out.unread.extend(Unread(Span(s.line, 1, s.line, 1), s.launcher.name, GUIDE_UNREAD)
                      for s in seen(masked, W.MARKDOWN))


GUIDE_UNREAD = "the recipe's Markdown guide: documentation is not read at a repository root without --markdown"


def guide_text(doc: YamlDocument, text: str) -> str | None:
    """The file's text with every line outside the `guide: |` block blanked (offsets kept, so what is read there is
    at the recipe's own lines), or None: no literal guide (a folded `>` guide or a flow string is not Markdown line
    for line: left to the launch-word sniff, listed unread)."""
    if not is_vllm_recipe(doc.data) or "omni" in _list(_mapping(doc.data.get("meta")).get("tasks")):
        return None  # a vllm-omni recipe's commands are vllm-omni's, not vLLM's (read_vllm_recipe)
    at = doc.values.get(("guide",))
    if at is None or not isinstance(doc.data.get("guide"), str):
        return None
    lines = text.split("\n")
    if not lines[at.line - 1][at.column - 1:].lstrip().startswith("|"):
        return None
    body = [i for i in range(at.line, min(at.end_line, len(lines))) if lines[i].strip()]
    if not body:
        return None
    indent = len(lines[body[0]]) - len(lines[body[0]].lstrip(" "))
    keep = range(at.line, body[-1] + 1)
    return "\n".join(line if i in keep and (not line.strip() or line.startswith(" " * indent)) else ""
                     for i, line in enumerate(lines))


def _offered(doc) -> list[tuple[str, Span]]:
    """compatible_strategies, then the strategies `strategy_hardware` grants somewhere (command-synthesis.js:93)."""
    data, out = doc.data, {}
    for i, s in enumerate(data["compatible_strategies"]):
        if isinstance(s, str) and s not in out:
            out[s] = _span(doc, ("compatible_strategies", i))
    for s, gate in _mapping(data.get("strategy_hardware")).items():
        if isinstance(s, str) and s not in out and "supported" in _mapping(gate).values():
            out[s] = _span(doc, ("strategy_hardware", s), key=True)
    return list(out.items())


class _Compose:
    """One strategy (and pd_cluster role) of one recipe: buildArgs and buildEnv for the default variant."""

    def __init__(self, doc, name: str, strategy: dict, role: str | None, at: Span, offered: list[str]):
        self.doc, self.data, self.name, self.strategy, self.role, self.at = doc, doc.data, name, strategy, role, at
        self.offered = offered
        self.variant_path = _DEFAULT if isinstance(_mapping(self.data.get("variants")).get("default"), dict) else None
        self.variant = _mapping(self.data["variants"]["default"]) if self.variant_path else {}
        self.so_path = ("strategy_overrides", name)
        self.so = _mapping(_mapping(self.data.get("strategy_overrides")).get(name))

    def launch(self) -> Launch:
        args = self.listed(("model", "base_args")) + self.variant_args() + self.strategy_args() \
            + self.parallel() + self.override_args() + self.features()
        head = [Word("vllm", self.at), Word("serve", self.at), Word(self.model_id(), self.model_span())]
        container = f"{self.name} {self.role}" if self.role else self.name
        argv = unknown_values(dedupe(args), self.by_hardware("extra_args"))
        return Launch(tuple(head + argv), self.env(), "recipe", self.image(), container)

    def by_hardware(self, key: str) -> set:
        """What some hardware_overrides block may set (`extra_args` flags or `extra_env` names): at the recipe,
        the default variant, this strategy's overrides and its role (:1250-1270, :1415-1433)."""
        blocks = [self.data.get("hardware_overrides"), self.variant.get("hardware_overrides"),
                  self.so.get("hardware_overrides")]
        if self.role:
            blocks.append(_mapping(self.so.get(self.role)).get("hardware_overrides"))
        found = set()
        for block in blocks:
            for override in _mapping(block).values():
                items = _mapping(override).get(key)
                found |= {k for k in (_list(items) if key == "extra_args" else _mapping(items)) if isinstance(k, str)}
        return found

    # --- the command: buildArgs in its order -------------------------------------------------------------------
    def model_id(self) -> str:
        own = self.variant.get("model_id")
        return own if isinstance(own, str) and own else self.data["model"]["model_id"]

    def model_span(self) -> Span:
        if isinstance(self.variant.get("model_id"), str) and self.variant["model_id"]:
            return _span(self.doc, _DEFAULT + ("model_id",))
        return _span(self.doc, ("model", "model_id"))

    def variant_args(self) -> list:
        return self.listed(_DEFAULT + ("extra_args",)) if self.variant_path else []

    def strategy_args(self) -> list:
        block = self.strategy.get(self.role) if self.role else self.strategy
        return [arg(v, self.at) for v in _list(_mapping(block).get("vllm_args")) if usable(v)]

    def parallel(self) -> list:
        flag = self.strategy.get("parallel_flag") or "--tensor-parallel-size"
        kind = self.strategy.get("deploy_type")
        if kind == "pd_cluster":
            return self.pd_pool()
        if kind != "multi_node":  # single node: the flag and the GPU count (or single_node_tp's declared TP)
            return [self.word(flag), self.tp_value() if self.name == "single_node_tp" else self.unknown()]
        layout = self.strategy.get("parallelism")
        if flag == "--data-parallel-size":  # :1045 (DEP: DP spans the nodes, one rank per GPU)
            return self.words("--data-parallel-size", None, "--data-parallel-size-local", None,
                              "--data-parallel-address", "$HEAD_IP")
        if layout == "tp_pp":
            return self.words("--tensor-parallel-size", None, "--pipeline-parallel-size", None, "--nnodes", None,
                              "--node-rank", "0", "--master-addr", "$HEAD_IP")
        if layout == "tp_dp":
            return self.words("--tensor-parallel-size", None, "--data-parallel-size", None,
                              "--data-parallel-size-local", "1", "--data-parallel-address", "$HEAD_IP")
        return self.words("--tensor-parallel-size", None, "--nnodes", None, "--node-rank", "0",
                          "--master-addr", "$HEAD_IP")

    def tp_value(self) -> tuple[str, Word]:
        """single_node_tp: variant `tp`, else strategy_overrides.single_node_tp.tp, capped at the GPUs per node
        (:123-136): known only when it is 1; a hardware map or no declaration is unknown."""
        for path, value in ((_DEFAULT + ("tp",), self.variant.get("tp")), (self.so_path + ("tp",), self.so.get("tp"))):
            if isinstance(value, int) and not isinstance(value, bool) and value > 0:
                return ("1", Word("1", _span(self.doc, path))) if value == 1 else self.unknown(_span(self.doc, path))
            if isinstance(value, dict):
                return self.unknown(_span(self.doc, path))
        return self.unknown()

    def pd_pool(self) -> list:
        """A prefill/decode pool (:1099-1202) of an unknown node count: DEP or TP/TEP."""
        role_cfg, so_role = _mapping(self.strategy.get(self.role)), _mapping(self.so.get(self.role))
        mode = so_role.get("parallelism") or role_cfg.get("parallelism") or "tp"
        allowed = pool_modes(self.offered, self.so)
        mode = mode if mode in allowed else allowed[0]
        if mode != "dep":
            flag = so_role.get("parallel_flag") or role_cfg.get("parallel_flag") \
                or self.strategy.get("parallel_flag") or "--tensor-parallel-size"
            return [self.word(flag), self.unknown()] + (self.words("--enable-expert-parallel") if mode == "tep" else [])
        tp = so_role.get("tp", role_cfg.get("tp"))  # rendered only when declared (:1151)
        out = []
        if tp is not None:
            at = _span(self.doc, self.so_path + (self.role, "tp")) if "tp" in so_role else self.at
            out = self.words("--tensor-parallel-size") + [arg(tp, at) if usable(tp) else self.unknown(at)]
        node = f"${self.role.upper()}_NODE_1"
        # --data-parallel-hybrid-lb follows only for a pool of 2+ nodes (:1172): the node count is unknown
        return out + self.words("--data-parallel-size", None, "--data-parallel-size-local", None,
                                "--data-parallel-start-rank", "0", "--data-parallel-address", node,
                                "--data-parallel-rpc-port", f"${self.role.upper()}_DP_RPC_PORT",
                                "--enable-expert-parallel")

    def override_args(self) -> list:
        base = self.so_path + ((self.role,) if self.role else ())
        return self.listed(base + ("extra_args",)) + self.listed(base + ("vllm_args",))

    def features(self) -> list:
        """Features on by default (all but opt_in_features, build-recipes-api.mjs:138), in their order (:1280)."""
        features = _mapping(self.data.get("features"))
        opt_in = set(_list(self.data.get("opt_in_features")))
        for listed in _mapping(self.data.get("hardware_opt_in_features")).values():
            opt_in |= set(_list(listed))  # on or off by hardware: out
        forced = set(_mapping(self.variant.get("default_modes")))
        out = []
        for key, feature in features.items():
            if not isinstance(feature, dict) or (key in opt_in and key not in forced):
                continue
            allow = feature.get("strategies")
            if isinstance(allow, list) and allow and self.name not in allow:
                continue
            out += self.feature_args(key, feature)
        return out

    def feature_args(self, key, feature: dict) -> list:
        path = ("features", key)
        if isinstance(feature.get("modes"), dict):
            picked = feature_mode(feature, key, self.variant)
            return [] if picked is None else self.listed(path + ("modes", picked, "args"))
        if feature.get("hardware_overrides"):
            return []  # its args change with the hardware (:1303)
        return self.listed(path + ("args",))

    # --- the environment: buildEnv ---------------------------------------------------------------------------
    def env(self) -> dict[str, EnvEntry]:
        env: dict[str, EnvEntry] = {}
        self.assign(env, ("model", "base_env"))
        if self.variant_path:
            self.assign(env, _DEFAULT + ("extra_env",))
        block = self.strategy.get(self.role) if self.role else self.strategy
        for k, v in _mapping(_mapping(block).get("env")).items():
            if isinstance(k, str):
                env[k] = EnvEntry(k, env_value(v), self.at)
        if self.role:  # pinned per role from the GPU count (:1370-1399)
            env["CUDA_VISIBLE_DEVICES"] = EnvEntry("CUDA_VISIBLE_DEVICES", None, self.at)
        self.assign(env, self.so_path + ("env",))
        self.assign(env, self.so_path + ((self.role, "env") if self.role else ("extra_env",)))
        unknown = self.by_hardware("extra_env") | (set(_NVL4_ONLY) if self.role else set())  # NVL4: GB200/GB300
        for k in unknown & set(env):  # (:1438) only
            env[k] = EnvEntry(k, None, env[k].span)
        return env

    def assign(self, env: dict, path: tuple) -> None:
        for k, v in _mapping(_at(self.data, path)).items():
            if isinstance(k, str):
                env[k] = EnvEntry(k, env_value(v), _span(self.doc, path + (k,), key=True))

    def image(self) -> str | None:
        """The NVIDIA image the page pins (variant, then model `docker_image` as a string, :652-655)."""
        for own in (self.variant.get("docker_image"), _mapping(self.data.get("model")).get("docker_image")):
            if isinstance(own, str) and own:
                return own
        return None

    # --- words -------------------------------------------------------------------------------------------------
    def listed(self, path: tuple) -> list:
        items = _at(self.data, path)
        return [arg(v, _span(self.doc, path + (i,))) for i, v in enumerate(_list(items)) if usable(v)]

    def word(self, text) -> tuple[str, Word]:
        return arg(text, self.at) if usable(text) else self.unknown()

    def unknown(self, span: Span | None = None) -> tuple[str, Word]:
        return UNKNOWN, Word(None, span or self.at, exact=False)

    def words(self, *texts) -> list:
        return [self.unknown() if t is None else arg(t, self.at) for t in texts]



def _span(doc: YamlDocument, path: tuple, key: bool = False) -> Span:
    table = doc.keys if key else doc.values
    return table.get(path) or doc.position(path, at_key=key)


def _at(data, path: tuple):
    for key in path:
        data = data.get(key) if isinstance(data, dict) else None
    return data


def _mapping(value) -> dict:
    return value if isinstance(value, dict) else {}


def _list(value) -> list:
    return value if isinstance(value, list) else []
