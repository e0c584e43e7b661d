"""An xLLM launch -> its start-up checks and the MoE collective calls it makes (rules.py cites the lines).

Read at jd-opensource/xllm@87e8d6e (X = xllm/ in it):
- world = len(--devices) x --nnodes (X/core/distributed_runtime/dist_manager.cpp:177-178); from v0.10.0
  `--device_id N` names one device (X/core/framework/config/model_config.cpp:111-123);
- attention DP --dp_size with TP world / dp; MoE EP --ep_size with TP world / ep
  (X/core/framework/parallel_state/collective_communicator.cpp:245-248, 343-344, 407-408);
- the kernel backend: --npu_kernel_backend AUTO picks TORCH for deepseek_v4, qwen3_5*, qwen3_next and minimax_m2,
  ATB for every other model type (X/models/model_registry.cpp:68-121);
- EP level (--expert_parallel_degree): 0/1 all-gather between attention and MoE, 2 MC2 all-to-all over the world
  (docs/en/features/moe_params.md). The ATB layers make their MC2 calls inside xllm_atb_layers (not read). The TORCH
  FusedMoE of DeepSeek-V4 calls aclnnMoeDistributeDispatchV2 / CombineV2 itself, on decode steps only, when
  --enable_fused_mc2 resolves to 0 (auto -1 resolves to 1 under EP level 2: X/core/framework/config/
  kernel_config.cpp:62-73) and the MoE TP group is 1 rank (X/core/layers/npu_torch/fused_moe.cpp:1164-1207);
  arguments at fused_moe.cpp:1411-1444 (dispatch) and 1567-1584 (combine).
"""
from __future__ import annotations

from moecfg.frameworks import Note, OpCall
from moecfg.frameworks.values import clipped
from moecfg.frameworks.xllm import gflags as G
from moecfg.frameworks.xllm import releases as R
from moecfg.frameworks.xllm import rules

X = f"jd-opensource/xllm@{R.MAIN_COMMIT} xllm"
FUSED_MOE = f"{X}/core/layers/npu_torch/fused_moe.cpp"
COMM = f"{X}/core/framework/parallel_state/collective_communicator.cpp"
SIZE_FLAGS = ("dp_size", "ep_size", "nnodes")
DERIVED_INTS = ("max_seqs_per_batch", "num_speculative_tokens", "expert_parallel_degree", "enable_fused_mc2")
_ROWS = {"max_seqs_per_batch": 1, "num_speculative_tokens": 0}  # the least of each the decode rows are derived from
KNOBS = {"bs": "--max_seqs_per_batch x (1 + --num_speculative_tokens)", "ep_world_size": "--ep_size",
         "global_bs": "--max_seqs_per_batch x --ep_size", "moe_expert_num": "the model's n_routed_experts"}


class Ctx:
    """One launch's flags with their defaults at the release, and the notes gathered while reading them."""

    def __init__(self, launch, flags: G.GFlags, release: str):
        self.launch, self.flags, self.release = launch, flags, release
        self.notes: list[Note] = []

    def text(self, name: str) -> str | None:
        f = self.flags.get(name)
        if f is not None:
            return f.text
        d = R.default(self.release, name)
        return None if d is None else str(d)

    def int(self, name: str) -> int | None:
        f = self.flags.get(name)
        kind = f.kind if f else "int32"
        return G.as_int(self.text(name), kind)

    def bool(self, name: str) -> bool | None:
        return G.as_bool(self.text(name))

    def said(self, name: str) -> str:
        f = self.flags.get(name)
        if f is not None and f.text is None:
            return f"--{name} (not known statically)"
        return f"--{name} {clipped(f.text)}" if f else f"--{name} {clipped(self.text(name))} (default)"

    def span(self, name: str) -> tuple:
        f = self.flags.get(name)
        return (f.span,) if f else ()

    def at(self, *names: str):
        for name in names:
            if name in self.flags.flags:
                return self.flags.flags[name].span
        return self.launch.span


def devices(c: Ctx) -> tuple[int | None, str | None, str]:
    """(devices this process drives, their type `npu`/`cuda`/..., how): None when not known statically."""
    f = c.flags.get("devices")
    if f is not None and c.flags.get("device_id") is None:
        text = f.text if f.text is not None else _pattern(f.pattern)
        if text is None or text in ("", "auto"):
            return None, None, f"--devices {clipped(text or 'auto')}: every visible device (not known statically)"
        entries = text.split(",")
        kinds = {e.partition(":")[0] for e in entries}
        kind = kinds.pop() if len(kinds) == 1 else None
        return len(entries), kind, f"--devices {clipped(text, 40)}: {len(entries)} device(s)"
    if c.flags.get("device_id") is not None:
        return 1, None, f"--device_id {clipped(c.flags.get('device_id').text)}: one device"
    return None, None, "no --devices or --device_id"


def _pattern(pattern: str | None) -> str | None:
    """`--devices="npu:$DEVICE"` in a loop: one `npu` device whatever its index."""
    if pattern and "," not in pattern and ":" in pattern and pattern.partition(":")[0].isalpha():
        return pattern.partition(":")[0] + ":<set at run time>"
    return None


def read_notes(c: Ctx) -> list[Note]:
    """gflags refusals (illegal values, a flag missing its value), sizes below 1, unknown values: MC025 / MC023."""
    notes = []
    for w in c.flags.missing_value:
        notes.append(Note("MC025", f"`{clipped(w.value)}` is the last word and takes a value: gflags stops xLLM at "
                          "start-up (\"flag is missing its argument\"); give the value as --name=value", w.span))
    for f in c.flags.flags.values():
        if G.illegal(f):
            notes.append(Note("MC025", f"--{f.name} {clipped(f.text)!r}: gflags refuses it for a {f.kind} flag "
                              f"(\"illegal value ... specified for {f.kind} flag '{f.name}'\") and xLLM exits at "
                              "start-up; "
                              f"write {'true or false' if f.kind == 'bool' else 'a whole number'}", f.span))
    for name in DERIVED_INTS:  # a default never stands in for a value the launch sets but moecfg cannot know
        f = c.flags.get(name)
        if f is not None and f.text is None:
            notes.append(Note("MC023", f"--{name}: the value is not known statically; what depends on it is not "
                              "derived or checked", f.span))
        elif name in _ROWS and f is not None and not G.illegal(f) and G.as_int(f.text, f.kind) < _ROWS[name]:
            notes.append(Note("MC023", f"`--{name} {clipped(f.text)}`: below {_ROWS[name]}; the "
                              "decode rows are not derived from it", f.span))
    for name in SIZE_FLAGS:
        f = c.flags.get(name)
        if f is None or G.illegal(f):
            continue
        value = G.as_int(f.text, f.kind)
        if f.text is None:
            notes.append(Note("MC023", f"--{name}: the value is not known statically; what depends on it is not "
                              "derived or checked", f.span))
        elif value is not None and value < 1:
            notes.append(Note("MC025", f"`--{name} {value}`: xLLM divides by it or CHECKs it >= 1 at start-up "
                              f"(dist_manager.cpp:175-184); set --{name} >= 1 (or drop it for the default 1)", f.span))
    mode = c.flags.get("enable_fused_mc2")
    if mode is not None and not G.illegal(mode) and G.as_int(mode.text) is not None and \
            not -1 <= G.as_int(mode.text) <= 2:
        notes.append(Note("MC025", f"`--enable_fused_mc2 {clipped(mode.text)}`: xLLM CHECKs it is -1, 0, 1 or 2 at "
                          f"start-up ({X}/core/framework/config/kernel_config.cpp:62-64); set one of those", mode.span))
    backend = c.flags.get("npu_kernel_backend")
    if backend is not None and backend.text is not None and backend.text not in ("AUTO", "ATB", "TORCH") and \
            R.modern(c.release):
        notes.append(Note("MC025", f"`--npu_kernel_backend {clipped(backend.text)}`: xLLM stops at start-up "
                          f"(\"Unsupported --npu_kernel_backend ... Supported values: AUTO, ATB, TORCH.\", {X}/models/"
                          "model_registry.cpp:97-106); set AUTO, ATB or TORCH", backend.span))
    return notes


def startup_notes(c: Ctx, world: int | None) -> list[Note]:
    """MC915-MC917, MC919: what xLLM's start-up CHECKs refuse."""
    notes = []
    dp, ep = c.int("dp_size"), c.int("ep_size")
    if world is not None and dp and dp >= 1 and world % dp:
        notes.append(Note(rules.WORLD_DP.code, f"world size {world} is not a multiple of {c.said('dp_size')}: xLLM "
                          f"stops at start-up (CHECK_EQ(world_size % dp_size, 0), {R.dp_check(c.release)}); set "
                          f"--dp_size to a divisor of {world} ({_divisors(world)})", c.at("dp_size", "nnodes")))
    if world is not None and ep and ep > 1 and world % ep:
        notes.append(Note(rules.WORLD_EP.code, f"world size {world} is not a multiple of {c.said('ep_size')}: MoE TP = "
                          f"{world} // {ep} = {world // ep} and {world // ep} x {ep} != {world}, a CHECK failure at "
                          f"start-up ({R.ep_check(c.release)}); set --ep_size to a "
                          f"divisor of {world} ({_divisors(world)})", c.at("ep_size", "nnodes")))
    table, backend = c.flags.get("rank_tablefile"), c.text("communication_backend")
    if R.modern(c.release) and table is not None and table.text and backend is not None and backend != "hccl":
        notes.append(Note(rules.RANK_TABLE_BACKEND.code, f"--rank_tablefile {clipped(table.text, 40)} with "
                          f"{c.said('communication_backend')}: xLLM stops at start-up (LOG(FATAL) \"--rank_tablefile "
                          "requires --communication_backend=hccl\", master.cpp:109-117); set "
                          "--communication_backend=hccl", c.at("communication_backend", "rank_tablefile")))
    level = c.int("expert_parallel_degree")
    if level == 2 and world is not None and ep is not None and 1 < ep != world:  # ep 1: level 2 is ignored
        notes.append(Note(rules.EP_LEVEL.code, f"--expert_parallel_degree 2 with {c.said('ep_size')} on a world of "
                          f"{world}: xLLM's docs require ep_size == the number of devices for EP level 2 "
                          f"(moe_params.md), and the TORCH backend builds its dispatch/combine domain only then "
                          f"({COMM.rsplit('/', 1)[-1]}:444-454); set --ep_size {world}, or --expert_parallel_degree 1",
                          c.at("expert_parallel_degree")))
    return notes


def _divisors(n: int) -> str:
    found = [d for d in range(1, min(n, 4096) + 1) if n % d == 0]
    return ", ".join(map(str, found[:12])) + (", ..." if len(found) > 12 else "")


def buffer_mb(c: Ctx) -> tuple[int | None, str]:
    """The buffer MappingNPU gives every ATB group, the moe_ep one included (releases.py)."""
    if not R.modern(c.release):
        return 512, f"512 MB fixed (ENV_hccl_moe_ep_buffer, mapping_npu.cpp at v{c.release})"
    e = c.launch.env.get("HCCL_BUFFSIZE")
    if e is not None and e.value is None:
        return None, "HCCL_BUFFSIZE or 512 MB (mapping_npu.cpp:129-141; HCCL_BUFFSIZE is not known statically)"
    text = e.value if e is not None else None
    # strtol(text, &end, 10) with nothing after the digits, in (0, INT32_MAX]: mapping_npu.cpp:41-46
    value = int(text) if text and len(text) < 40 and G.DECIMAL.match(text) else None
    if value is not None and 0 < value <= (1 << 31) - 1:
        return value, f"{value} MB <- HCCL_BUFFSIZE (mapping_npu.cpp:129-141)"
    why = "HCCL_BUFFSIZE unset" if e is None or not e.value else \
        f"HCCL_BUFFSIZE {clipped(e.value)!r} is not a positive int32"
    return 512, f"512 MB ({why}: the default ENV_hccl_moe_ep_buffer, mapping_npu.cpp:27,35-53)"


def kernel_backend(c: Ctx, dims) -> tuple[str | None, str]:
    """ATB | TORCH | None (AUTO with a model moecfg cannot name), and why."""
    if c.text("npu_kernel_backend") is None and c.flags.get("npu_kernel_backend") is None:
        return "ATB", f"ATB (xLLM {c.release} has no --npu_kernel_backend: ATB is its only NPU kernel backend)"
    asked = c.text("npu_kernel_backend")
    if asked is None:
        return None, "--npu_kernel_backend: the value is not known statically"
    if asked in ("ATB", "TORCH"):
        return asked, c.said("npu_kernel_backend")
    if dims is None:
        return None, f"{c.said('npu_kernel_backend')}: decided by the model type, and the model is not known"
    if not dims.model_type:
        return None, f"{c.said('npu_kernel_backend')}: decided by the model type, and {dims.name}'s is not known"
    torch = dims.is_type(*R.torch_only(c.release))
    return ("TORCH" if torch else "ATB"), f"{c.said('npu_kernel_backend')}: model type {dims.model_type} is " + \
        ("TORCH-only" if torch else "one AUTO runs on ATB") + f" ({R.registry_lines(c.release)})"


def backend_notes(c: Ctx, dims) -> list[Note]:
    """MC025 when --npu_kernel_backend names a backend the model type does not support: xLLM LOG(FATAL)s
    (model_registry.cpp:107-121 "Model type ... only supports --npu_kernel_backend=...")."""
    f = c.flags.get("npu_kernel_backend")
    if f is None or dims is None or not dims.model_type or not R.checks_backend(c.release) \
            or (f.text or "") not in ("ATB", "TORCH"):
        return []
    torch_only = dims.is_type(*R.torch_only(c.release))
    if dims.is_type(*R.both_backends(c.release)) or f.text == ("TORCH" if torch_only else "ATB"):
        return []
    need = "TORCH" if torch_only else "ATB"
    return [Note("MC025", f"`--npu_kernel_backend {f.text}` with {dims.name} (model type {dims.model_type}): xLLM "
                 f"{c.release} stops at start-up (\"Model type {dims.model_type} only supports "
                 f"--npu_kernel_backend={need}.\", jd-opensource/xllm@{R.commit(c.release)} "
                 f"xllm/models/{R.registry_lines(c.release)}); "
                 f"set --npu_kernel_backend={need} or AUTO", f.span)]


def moe_path(c: Ctx, world, dims, backend: str | None) -> tuple[str, str]:
    """(path, why): none | atb_mc2 | torch_dispatch_v2 | torch_fused | unknown."""
    ep, level = c.int("ep_size"), c.int("expert_parallel_degree")
    if ep is None or level is None:
        return "unknown", "--ep_size or --expert_parallel_degree is not known statically"
    if ep == 1:
        return "none", f"{c.said('ep_size')}: the MoE layers run tensor-parallel over the world, no EP collective"
    if level != 2:
        return "none", (f"{c.said('expert_parallel_degree')}: EP level 1 joins attention and MoE with all-gather over "
                        "the devices, no MC2 dispatch (docs/en/features/moe_params.md)")
    if world is not None and ep != world:
        return "none", "EP level 2 without ep_size == world size: the dispatch/combine domain is not built (MC919)"
    if backend == "ATB":
        return "atb_mc2", ("EP level 2 on the ATB backend: MC2 all-to-all made inside xllm_atb_layers "
                           "(enableAllToAllMC2, npu_deepseek_v2_decoder_layer_impl.cpp:375-395,467); its arguments "
                           "are not read")
    if backend is None or dims is None:
        return "unknown", "the kernel backend or the model is not known"
    if not R.modern(c.release):
        return "none", f"xLLM {c.release}: the TORCH backend has no direct dispatch_v2 before v0.10.0"
    if not dims.is_type("deepseek_v4"):
        return "none", f"{dims.name} on TORCH: FusedMoE runs its EP2 dispatch/combine only for DeepSeek-V4 " \
            f"({FUSED_MOE.rsplit('/', 1)[-1]}:398-401); other models all-gather"
    mode = c.int("enable_fused_mc2")
    if mode == -1:
        mode = 1  # kernel_config.cpp:69-71: EP level 2 -> DispatchFFNCombine
    if mode == 0:
        return "torch_dispatch_v2", f"--enable_fused_mc2 0: DeepSeek-V4 decode steps call dispatch_v2/combine_v2 " \
            f"({FUSED_MOE.rsplit('/', 1)[-1]}:1194-1206)"
    auto = "" if c.flags.get("enable_fused_mc2") else " (auto -1 under EP level 2, kernel_config.cpp:69-71)"
    return "torch_fused", (f"--enable_fused_mc2 {mode}{auto}: "
                           f"{'DispatchFFNCombine' if mode == 1 else 'DispatchGmmCombineDecode'} with a W8A8-dynamic "
                           "checkpoint, else the all-gather path (fused_moe.cpp:1184-1205); xLLM's fused kernels "
                           "(xllm_ops) are not modelled")
