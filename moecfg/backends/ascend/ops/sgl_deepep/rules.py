"""sgl-kernel-npu DeepEP on Ascend (MC89x): `op: sgl_deepep_normal` and `op: sgl_deepep_low_latency`.

The DeepEP API SGLang runs on Ascend (sgl-project/sgl-kernel-npu csrc/deepep @f425bdf, tag 2026.08.21). Tag
2026.7.27 (48942e3) enforces the same bounds; only the texts of the long-sequence asserts (MC894, MC897) are new
on main, 2026.7.27 fails them with a bare assertion. Normal mode dispatches with
CamMoeDispatchNormal (A3; A2 up to one server) or DispatchNormalA2 (A2, ep >= 16); low-latency mode with
MoeLowLatencyDispatchV2, sgl-kernel-npu's own fork of CANN's dispatch v2, whose A3 tiling accepts
commAlg "", fullmesh_v1, fullmesh_v2 and ccu (not CANN's hierarchy); its dispatch tiling sizes int8 tokens at
1 byte where CANN counts 2, but its combine tiling (MoeLowLatencyCombineV2) checks the same window at 2 bytes, so the
pair needs CANN's window (the research notes' "half the dispatch area" holds for the dispatch check alone). The tilings read the buffer size from DEEPEP_HCCL_BUFFSIZE, else HCCL_BUFFSIZE, else 200 MB
(parsed into 16 bits). Where an error text and the code disagree, moecfg follows the code and says so.
"""
from __future__ import annotations

from moecfg.backends.ascend.shared import formulas as fx
from moecfg.backends.ascend.ops.sgl_deepep import formulas as sf
from moecfg.backends.ascend.ops.sgl_deepep.analysis import computable, requirement
from moecfg.backends.ascend.shared.rules import finding
from moecfg.core.diagnostics import WARNING
from moecfg.core.registry import rule

_F = "ascend-sgl-deepep"
_SRC = "sgl-project/sgl-kernel-npu@f425bdf csrc/deepep/"
_N = "kind: ascend\nproduct: A3\nop: sgl_deepep_normal\nbs: 4096\nh: 7168\nk: 8\nep_world_size: 16\nnum_experts: 256\n"
_LL = ("kind: ascend\nproduct: A3\nop: sgl_deepep_low_latency\nnum_max_dispatch_tokens_per_rank: 128\nh: 7168\nk: 8\n"
       "ep_world_size: 16\nnum_experts: 256\n")
NORMAL_OK = _N + "env:\n  HCCL_BUFFSIZE: 2048\n"
LL_OK = _LL + "env:\n  HCCL_BUFFSIZE: 1024\n"
_TILING = ("The op's tiling refuses the call at the first dispatch, after the model has loaded; SGLang's scheduler "
           "dies with the aclnn error and the CANN log names the check.")

EP = rule("MC890", "sgl-deepep-ep-world-size", "error", "EP size within the range (and multiple) the op's tiling accepts",
          family=_F, source=_SRC + "ops*/op_host/*_tiling.c*: epWorldSize checks", products=("A2", "A3"),
          why=_TILING + " A3 normal accepts [2, 384], A3 low latency [2, 768]; on A2 the multi-server kernels need a "
          "multiple of 8 up to 256.",
          cann_error="epWorldSize is invalid, only support [2, 384], but got epWorldSize=512.",
          fail_example=NORMAL_OK.replace("ep_world_size: 16\nnum_experts: 256", "ep_world_size: 512\nnum_experts: 512"),
          pass_example=NORMAL_OK, fix="Use an EP size (SGLang: --tp-size) inside the range the message gives.")
EXPERTS = rule("MC891", "sgl-deepep-num-experts", "error", "num_experts within the op's maximum and divisible by the "
               "(MoE) ranks; (num_experts / ep) * ep <= 1280", family=_F, products=("A2", "A3"),
               source=_SRC + "ops/op_host/cam_moe_dispatch_normal_tiling.cc L396-440; moe_distribute_dispatch_v2_tiling.cpp L680, L881",
               why=_TILING + " Each rank must hold the same number of experts; A2 caps experts at 512, A3 at 1024.",
               cann_error="moeExpertNum should be divisible by epWorldSize, but moeExpertNum=250, epWorldSize=16.",
               fail_example=NORMAL_OK.replace("num_experts: 256", "num_experts: 250"), pass_example=NORMAL_OK,
               fix="Make num_experts (+ --ep-num-redundant-experts) a multiple of the EP size.")
HIDDEN = rule("MC892", "sgl-deepep-hidden", "error", "hidden size within the op's range (A2: <= 7168; A2 multi-server: "
              "a multiple of 32)", family=_F, products=("A2", "A3"),
              source=_SRC + "ops/op_host/cam_moe_dispatch_normal_tiling.cc L487; ops2/...dispatch_normal_a2_tiling.cpp L907",
              why=_TILING, cann_error="xShape dims1(H) should be in [1024, 8192], but got 512.",
              fail_example=LL_OK.replace("h: 7168", "h: 512"), pass_example=LL_OK,
              fix="The model's hidden size is fixed: use the op on hardware whose kernels support it, or another "
              "MoE backend (SGLang: --moe-a2a-backend none).")
TOPK = rule("MC893", "sgl-deepep-topk", "error", "top-k within the op's range and <= num_experts", family=_F,
            products=("A2", "A3"), source=_SRC + "ops/op_host/cam_moe_dispatch_normal_tiling.cc L503-508",
            why=_TILING, cann_error="expertIdShape's dim1(k) should be in (0, min(16, moeExpertNum=256)], but got "
            "expertIdShape's dim1=17.",
            fail_example=LL_OK.replace("k: 8", "k: 17"),
            pass_example=LL_OK, fix="top-k is the model's: use another MoE backend for models routing > 16 experts.")
TOKENS = rule("MC894", "sgl-deepep-tokens", "error", "tokens per rank: normal <= ROUND x PER_ROUND_TOKENS and the "
              "tiling's bound; low latency <= num_max_dispatch_tokens_per_rank and <= 512", family=_F,
              products=("A2", "A3"), source=_SRC + "deep_ep.cpp L120-134, L859; ops*/op_host/*_tiling.c* BS_UPPER_BOUND",
              why="Normal mode: get_dispatch_layout asserts num_tokens <= round * per_round_tokens (default 1 x 8192), "
              "so a prefill chunk larger than that kills the scheduler (sglang#27351). Low latency: the dispatch "
              "asserts x.size(0) <= num_max_dispatch_tokens_per_rank, and the tiling takes at most 512 tokens.",
              cann_error="num_tokens (10000) must not exceed the configured capacity (8192), calculated as round (1) "
              "* per_round_tokens (8192).",
              fail_example=NORMAL_OK.replace("bs: 4096", "bs: 10000").replace("2048", "4096"), pass_example=NORMAL_OK,
              fix="Lower the prefill chunk (SGLang: --chunked-prefill-size) or raise DEEPEP_NORMAL_LONG_SEQ_ROUND x "
              "DEEPEP_NORMAL_LONG_SEQ_PER_ROUND_TOKENS (<= 131072); for low latency raise "
              "SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK to the decode batch per rank.")
QUANT = rule("MC895", "sgl-deepep-quant-mode", "error", "quant_mode: only bf16/none and int8 on A2/A3 (the fp8/fp4 "
             "modes are Ascend 950 only)", family=_F, products=("A2", "A3"),
             source=_SRC + "deep_ep.cpp L336-342, L880-902; doc/A2_DEEPEP.md (A2 dual node)",
             why="deep_ep.cpp asserts before the dispatch: the MX/per-token FP8 and FP4 modes exist only in the "
             "Ascend 950 (__DAV_C310__) build.",
             cann_error="mx_fp8_e4m3 is not supported on this device, please use int8 or bf16 instead.",
             fail_example=NORMAL_OK + "quant_mode: mx_fp8_e4m3\n", pass_example=NORMAL_OK + "quant_mode: int8\n",
             fix="Use quant_mode int8 (SGLang: --deepep-dispatcher-output-dtype int8) or bf16.")
BUILD = rule("MC896", "sgl-deepep-build-comm-alg", "error", "the sgl-kernel-npu build matches the product, and the "
             "low-latency commAlg is one its tiling accepts", family=_F, products=("A2", "A3"),
             source=_SRC + "deep_ep.cpp L971-976; ops/op_host/moe_distribute_dispatch_v2_tiling.cpp L752-758; "
             "ops2/op_host/moe_distribute_dispatch_v2_tiling.cc L1209-1243; sgl-kernel-npu#238/#239",
             why="deep_ep.cpp passes commAlg fullmesh on A2 and fullmesh_v1 (ccu with MOE_ENABLE_CCU=1) on A3. The A3 "
             "build's fork accepts only '', fullmesh_v1, fullmesh_v2 and ccu, so the default build installed on A2 "
             "fails every decode step (sgl-kernel-npu#238/#239); the A2 build (build.sh -a deepep2) accepts "
             "fullmesh and hierarchy and has no A3 tiling.",
             cann_error="Attr commAlg is invalid, current only support fullmesh_v1 and fullmesh_v2, but got commAlg = "
             "fullmesh.",
             fail_example=LL_OK.replace("product: A3", "product: A2").replace("ep_world_size: 16\nnum_experts: 256",
                                                                          "ep_world_size: 8\nnum_experts: 256")
             + "kernel_build: deepep\n",
             pass_example=LL_OK, fix="On A2 install the A2 build of sgl-kernel-npu (`bash build.sh -a deepep2`).")
ENV = rule("MC897", "sgl-deepep-env", "error", "DEEPEP_NORMAL_LONG_SEQ_ROUND and _PER_ROUND_TOKENS set together, in "
           "range, product <= 131072; on A2 HCCL_OP_EXPANSION_MODE unset", family=_F, products=("A2", "A3"),
           source=_SRC + "deep_ep.cpp L63-88; python/deep_ep/doc/A2_DEEPEP.md",
           why="The deep_ep.Buffer constructor asserts on these variables, so SGLang fails while creating the "
           "DeepEP buffer. On A2 the DeepEP docs require HCCL_OP_EXPANSION_MODE unset (\"unknown operator errors\") "
           "and, across servers, HCCL_INTRA_PCIE_ENABLE=1 with HCCL_INTRA_ROCE_ENABLE=0.",
           cann_error="DEEPEP_NORMAL_LONG_SEQ_ROUND (32) * DEEPEP_NORMAL_LONG_SEQ_PER_ROUND_TOKENS (8192) must not "
           "exceed MAX_TOTAL_TOKENS (131072).",
           fail_example=_N + "env:\n  HCCL_BUFFSIZE: 4096\n  DEEPEP_NORMAL_LONG_SEQ_ROUND: 32\n"
           "  DEEPEP_NORMAL_LONG_SEQ_PER_ROUND_TOKENS: 8192\n",
           pass_example=_N + "env:\n  HCCL_BUFFSIZE: 4096\n  DEEPEP_NORMAL_LONG_SEQ_ROUND: 4\n"
           "  DEEPEP_NORMAL_LONG_SEQ_PER_ROUND_TOKENS: 4096\n",
           fix="Set both variables or neither; ROUND in [1, 256], PER_ROUND_TOKENS in [32, 8192], ROUND x "
           "PER_ROUND_TOKENS <= 131072. On A2 unset HCCL_OP_EXPANSION_MODE.")
BUFFER = rule("MC898", "sgl-deepep-buffer", "error", "the HCCL buffer the tiling reads holds the op's window", family=_F,
              products=("A2", "A3"), tags=("buffer", "autofix"),
              source=_SRC + "ops/op_host/cam_moe_dispatch_normal_tiling.cc L631-657; ops2/... L566-592; "
              "ops/op_host/moe_distribute_dispatch_v2_tiling.cpp L1209-1250",
              why="The tiling refuses the call (\"HCCL_BUFFSIZE is too SMALL\"). Normal mode needs "
              "(max_bs * k * (Align512(Align32(2H)+44) + Align512(2H) [x2 when ROUND > 1]) + 4 MiB + 102 MiB) * 2 on A3 "
              "(A2: + 8 MiB + 404 MiB, then + 8 MiB) with max_bs = min(PER_ROUND_TOKENS, tokens); the error text says "
              "\"+ 4MB + 204MB) * 2\" (A2: \"+ 4MB + 404MB\"): moecfg follows the code. Low latency: the fork's "
              "dispatch tiling counts int8 tokens at 1 byte, but its combine tiling checks the same window at 2 "
              "bytes, so the pair needs CANN's dispatch v2 window (fullmesh_v2: the dispatch's 480->512 slots).",
              cann_error="HCCL_BUFFSIZE is too SMALL, maxBs = 4096, h = 7168, epWorldSize = 16, localMoeExpertNum = 16, "
              "tokenNeedSizeDispatch = 14848, tokenNeedSizeCombine = 14336, k = 8, NEEDED_HCCL_BUFFSIZE((maxBs * k * "
              "(tokenNeedSizeDispatch + tokenNeedSizeCombine) + 4MB + 204MB) * 2) = 2037MB, HCCL_BUFFSIZE=1024MB.",
              fail_example=NORMAL_OK.replace("2048", "1024"), pass_example=NORMAL_OK,
              fix="Set the variable the tiling reads (DEEPEP_HCCL_BUFFSIZE if set, else HCCL_BUFFSIZE) to at least "
              "the MB the message gives, or lower the tokens per round.")
SOURCE = rule("MC899", "sgl-deepep-buffsize-source", "warning", "DEEPEP_HCCL_BUFFSIZE wins over HCCL_BUFFSIZE in the "
              "tiling check, while HCCL allocates the group's window from HCCL_BUFFSIZE (or the group's option); "
              "values >= 65536 wrap", family=_F, products=("A2", "A3"), tags=("buffer",),
              source=_SRC + "ops/op_host/mc2_tiling_utils.h L22-41, python/deep_ep/README.md L223; "
              "sgl-project/sglang@0005973a python/sglang/srt/distributed/parallel_state.py "
              "get_torch_distributed_pg_options + initialize_model_parallel (_MOE_EP); sglang PR #29030",
              why="The tiling passes against DEEPEP_HCCL_BUFFSIZE but the kernels write into the window HCCL really "
              "allocated for the Buffer's group; when that is smaller the dispatch writes out of range (MTE errors, "
              "507035). sgl-kernel-npu's README: DEEPEP_HCCL_BUFFSIZE is \"for preliminary validation only; actual "
              "HCCL buffer must be configured by the framework (e.g., SGLang)\". SGLang main (since PR #29030, "
              "2026-06) runs DeepEP on NPU on its own group \"moe_ep\" (not aliased to tp even when ep == tp), "
              "created with hccl_buffer_size = DEEPEP_HCCL_BUFFSIZE or HCCL_BUFFSIZE or 200: the value the tiling "
              "reads, so its launches do not trip this rule. A Buffer on a group without that option (a plain "
              "script, or SGLang before PR #29030, which passed the tp group \"tp\") gets HCCL_BUFFSIZE (HCCL's "
              "200 MB when unset). The tiling parses the value into 16 bits.",
              fail_example=_N + "env:\n  DEEPEP_HCCL_BUFFSIZE: 2048\n", pass_example=NORMAL_OK,
              fix="Give the group the same window (HCCL_BUFFSIZE, or the hccl_buffer_size option) as "
              "DEEPEP_HCCL_BUFFSIZE; keep both below 65536.")


def _range(rule_, path, value, lo, hi, multiple, what, source):
    if not lo <= value <= hi or (multiple and value % multiple):
        mult = f" and a multiple of {multiple}" if multiple else ""
        yield finding(rule_, path, f"`{path}` = {value} is outside [{lo}, {hi}]{mult} ({what}; {source})")


def ep_world_size(cfg, f):
    lo, hi, mult, src = f.limits.ep
    yield from _range(EP, "ep_world_size", cfg.ep_world_size, lo, hi, mult, f.limits.tiling, src)


def num_experts(cfg, f):
    mx, by, status, src = f.limits.experts
    e, ep = cfg.num_experts, cfg.ep_world_size
    ranks = ep - f.shared_rank if by == "moe_ranks" else ep
    if not 0 < e <= mx:
        yield finding(EXPERTS, "num_experts", f"`num_experts` = {e} is outside (0, {mx}] ({f.limits.tiling}; {src})")
    elif ranks > 0 and e % ranks:
        lo, hi = e // ranks * ranks, -(-e // ranks) * ranks
        yield finding(EXPERTS, "num_experts", f"`num_experts` = {e} is not divisible by {ranks} "
                      f"({'ep_world_size - MOE_SHARED_EXPERT_RANK_NUM' if ranks != ep else 'ep_world_size'}); "
                      f"nearest valid: {lo or hi} or {hi} ({src})")
    elif status and ep > 0 and e // ep * ep > status:
        yield finding(EXPERTS, "num_experts", f"(num_experts / ep) * ep = {e // ep * ep} exceeds {status} ({src})")


def hidden(cfg, f):
    lo, hi, mult, src = f.limits.hidden
    yield from _range(HIDDEN, "h", cfg.h, lo, hi, mult, f.limits.tiling, src)


def topk(cfg, f):
    lo, hi, src = f.limits.topk
    if not lo <= cfg.k <= min(hi, max(cfg.num_experts, 0)):
        yield finding(TOPK, "k", f"`k` = {cfg.k} is outside [{lo}, min({hi}, num_experts = {cfg.num_experts})] "
                      f"({f.limits.tiling}; {src})")


def tokens(cfg, f):
    bs_max, src = f.limits.bs_max
    if cfg.op == "sgl_deepep_normal":
        cap, seq = f.long_seq.capacity, f.long_seq
        if f.bs > cap:
            yield finding(TOKENS, "bs", f"`bs` = {f.bs} tokens exceed the DeepEP normal capacity ROUND x "
                          f"PER_ROUND_TOKENS = {seq.rounds} x {seq.per_round_tokens} = {cap} (deep_ep.cpp L127-130 "
                          "get_dispatch_layout asserts); lower the prefill chunk per rank or set "
                          f"DEEPEP_NORMAL_LONG_SEQ_ROUND x DEEPEP_NORMAL_LONG_SEQ_PER_ROUND_TOKENS >= {f.bs}")
            return
    else:
        t = cfg.num_max_dispatch_tokens_per_rank
        if t <= 0:
            yield finding(TOKENS, "num_max_dispatch_tokens_per_rank", f"`num_max_dispatch_tokens_per_rank` = {t} "
                          "must be > 0 (global_bs = T * ep would be 0)")
            return
        if f.bs > t:
            yield finding(TOKENS, "bs", f"`bs` = {f.bs} tokens exceed num_max_dispatch_tokens_per_rank = {t}: "
                          "deep_ep.cpp L859 asserts num_max_dispatch_tokens_per_rank >= x.size(0); raise T to "
                          f">= {f.bs}")
            return
    if not 0 <= f.bs <= bs_max:
        yield finding(TOKENS, "bs", f"`bs` = {f.bs} is outside [0, {bs_max}] ({f.limits.tiling}; {src})")


def quant(cfg, f):
    if f.quant_code not in (0, 2):
        yield finding(QUANT, "quant_mode", f"quant_mode {f.quant} is Ascend 950 only: deep_ep.cpp asserts \"{f.quant} "
                      "is not supported on this device, please use int8 or bf16 instead.\"")
    elif f.quant_code == 2 and f.limits_key == "normal_a2_internode":
        yield finding(QUANT, "quant_mode", "A2 normal mode across servers (ep >= 16): the A2 DeepEP docs say prefill "
                      "does not support quantization; set DEEP_NORMAL_MODE_USE_INT8_QUANT=0 (the tiling accepts "
                      "quant 2, the docs forbid it)", WARNING)


def build(cfg, f):
    if cfg.product == "A3" and cfg.build == "deepep2":
        yield finding(BUILD, "kernel_build", "the deepep2 build (ops2) is the A2 build: its MoeLowLatencyDispatchV2 "
                      "tiling has no A3 branch and its normal kernels are A2's; install the default build on A3")
        return
    algs = f.limits.comm_algs
    if f.comm_alg is None or algs is None or (f.limits_key == "ll_a2_multi" and cfg.layered_env):
        return
    if f.comm_alg not in algs:
        why = " (deep_ep.cpp passes fullmesh on A2; this is the A3 build: sgl-kernel-npu#238/#239 — install the A2 " \
              "build, `bash build.sh -a deepep2`)" if cfg.product == "A2" else ""
        yield finding(BUILD, "comm_alg", f"commAlg {f.comm_alg!r} is not accepted by {f.limits.tiling} (accepts "
                      f"{', '.join(repr(a) for a in algs)}){why}; the fork's text: \"Attr commAlg is invalid, current "
                      f"only support fullmesh_v1 and fullmesh_v2, but got commAlg = {f.comm_alg}.\"")


def env(cfg, f):
    e = cfg.env
    r, t = e.get("DEEPEP_NORMAL_LONG_SEQ_ROUND"), e.get("DEEPEP_NORMAL_LONG_SEQ_PER_ROUND_TOKENS")
    if (r is None) != (t is None):
        missing = "DEEPEP_NORMAL_LONG_SEQ_PER_ROUND_TOKENS" if t is None else "DEEPEP_NORMAL_LONG_SEQ_ROUND"
        given = "DEEPEP_NORMAL_LONG_SEQ_ROUND" if t is None else "DEEPEP_NORMAL_LONG_SEQ_PER_ROUND_TOKENS"
        yield finding(ENV, ("env", given),
                      f"only one of DEEPEP_NORMAL_LONG_SEQ_ROUND / _PER_ROUND_TOKENS is set: deep_ep.cpp L70 "
                      f"asserts roundSet == tokensSet; set {missing} too (or neither)")
    elif r is not None:
        if not 1 <= r <= sf.MAX_ROUNDS:
            yield finding(ENV, ("env", "DEEPEP_NORMAL_LONG_SEQ_ROUND"), f"DEEPEP_NORMAL_LONG_SEQ_ROUND = {r} is "
                          f"outside [1, {sf.MAX_ROUNDS}] (deep_ep.cpp L80, MAX_ROUNDS)")
        if not sf.MIN_TOKENS_PER_ROUND <= t <= sf.MAX_TOKENS_PER_ROUND:
            yield finding(ENV, ("env", "DEEPEP_NORMAL_LONG_SEQ_PER_ROUND_TOKENS"), "DEEPEP_NORMAL_LONG_SEQ_PER_ROUND_"
                          f"TOKENS = {t} is outside [{sf.MIN_TOKENS_PER_ROUND}, {sf.MAX_TOKENS_PER_ROUND}] "
                          "(deep_ep.cpp L82)")
        if r * t > sf.MAX_TOTAL_TOKENS:
            yield finding(ENV, ("env", "DEEPEP_NORMAL_LONG_SEQ_ROUND"), f"DEEPEP_NORMAL_LONG_SEQ_ROUND ({r}) * "
                          f"DEEPEP_NORMAL_LONG_SEQ_PER_ROUND_TOKENS ({t}) = {r * t} must not exceed MAX_TOTAL_TOKENS "
                          f"({sf.MAX_TOTAL_TOKENS}) (deep_ep.cpp L84-86)")
    if cfg.product == "A2" and e.get("HCCL_OP_EXPANSION_MODE") is not None:
        yield finding(ENV, ("env", "HCCL_OP_EXPANSION_MODE"), f"HCCL_OP_EXPANSION_MODE = {e['HCCL_OP_EXPANSION_MODE']} "
                      "on A2: the A2 DeepEP docs require it unset (\"otherwise unknown operator errors will occur\")",
                      WARNING)
    if cfg.product == "A2" and cfg.ep_world_size > 8 and not cfg.layered_env:
        yield finding(ENV, ("env",), f"A2 across servers (ep_world_size = {cfg.ep_world_size} > 8): the A2 DeepEP "
                      "docs require HCCL_INTRA_PCIE_ENABLE=1 and HCCL_INTRA_ROCE_ENABLE=0 (hierarchical dispatch and "
                      "combine)", WARNING)


def buffer(cfg, f):
    req = requirement(cfg, f) if computable(cfg) else None
    if req is None or req["sufficient"]:
        return
    var = f.tiling_window_from or "HCCL_BUFFSIZE"
    have = f"{f.tiling_window_mb} MB ({f.tiling_window_from or 'default: neither variable set'})"
    yield finding(BUFFER, ("env", var), f"HCCL_BUFFSIZE is too SMALL for {f.limits.tiling}: it needs "
                  f"{req['required_bytes']} bytes = {req['required_mb']} MB ({req['formula']}), the tiling reads "
                  f"{have}; set {var} >= {req['required_mb']} ({_text_vs_code(cfg, f, req)})",
                  fix=_raised(var, req["required_mb"]))


def _raised(var: str, need: int):
    """The fix: the variable the tiling reads raised to the window (none past its 16-bit parse)."""
    from moecfg.core.fixes import Suggestion

    return Suggestion(("env", var), var, need) if need < 65536 else None


def _text_vs_code(cfg, f, req) -> str:
    if f.limits.window == "normal" and cfg.build == "deepep":
        return "the op's error text says \"+ 4MB + 204MB) * 2\" and prints one MB more; the code adds 4 MiB + 102 MiB"
    if f.limits.window == "normal":
        return "the op's error text says \"+ 4MB + 404MB) * 2 + 4 * 2MB\"; the code adds 8 MiB + 404 MiB"
    t = req["terms"]
    return (f"dispatch tiling {fx.ceil_mb(t['dispatch_window'])} MB with {t['dispatch_elem_bytes']} byte(s) per "
            f"element for quant_mode {f.quant}, combine tiling {fx.ceil_mb(t['combine_window'])} MB with 2: the pair "
            "needs the larger")


def buffsize_source(cfg, f):
    for name in ("DEEPEP_HCCL_BUFFSIZE", "HCCL_BUFFSIZE"):
        v = cfg.env.get(name)
        if v is not None and not 0 < v < 65536:
            yield finding(SOURCE, ("env", name), f"{name} = {v}: the tiling parses it into 16 bits and reads "
                          f"{v % 65536 if -2**31 <= v < 2**31 else 200} MB; use a value in [1, 65535]")
    req = requirement(cfg, f) if computable(cfg) else None
    if req is None or not req["sufficient"] or f.tiling_window_from != "DEEPEP_HCCL_BUFFSIZE":
        return
    if req["required_bytes"] > f.hccl_window_mb * fx.MB:
        yield finding(SOURCE, ("env", "DEEPEP_HCCL_BUFFSIZE"), f"the tiling checks DEEPEP_HCCL_BUFFSIZE = "
                      f"{f.tiling_window_mb} MB, but the EP group's HCCL window is {f.hccl_window_mb} MB "
                      f"({f.hccl_window_from}) and the op needs {req['required_mb']} MB: the check passes and the "
                      f"kernels write past the window; set HCCL_BUFFSIZE >= {req['required_mb']} or create the group "
                      "with hccl_buffer_size (SGLang main does for DeepEP's moe_ep group)")


CHECKS = (ep_world_size, num_experts, hidden, topk, tokens, quant, build, env, buffer, buffsize_source)
