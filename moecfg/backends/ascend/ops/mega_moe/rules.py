"""CANN MegaMoE on A2/A3 (MC860-MC875): every host check of `get_symm_buffer_for_mega_moe` + `mega_moe`.

Three layers check a MegaMoE deployment, in this order: vllm-ascend's gate (ascend_config.py L401-444 and
ascend_forward_context.py L247-254 @182b75e: hidden [1024, 8192] %512, moe_intermediate_size [1024, 3072] %512,
w8a8/w4a8/unquantised, EP <= 64; a failed gate silently falls back to MC2, so it is never an error here);
then the torch wrapper GetMegaMoeCclBufferSize, which `get_symm_buffer_for_mega_moe` calls before the op
exists (branch 9.1.0 and master; v9.1.0.pre did not call it): EP in {2, 4, 8, 16, 32}, hidden [1024, 8192]
%512, num_max_tokens_per_rank [1, 4096], moe_expert_num [1, 2048], top-k [1, 16], dispatch_quant_mode
{0, 2, 4}; then the A2/A3 tiling at the first call (MMT = mega_moe_tiling_arch22.cpp [master 25fb6b9]):
comm_alg "", x (bs [1, 4096], hidden [1024, 8192] %512, BF16), top-k [1, 16], weights (BF16 ND or INT8/INT4
FRACTAL_NZ; experts per rank [1, 128]; intermediate [1024, 3072] %512), moe_expert_num [1, 1024], EP in
{2, 4, 8, 16, 32, 64, 128} (branch 9.1.0: up to 64), max_recv_token_num >= 0, dispatch_quant_mode = 2 for
INT8/INT4 weights and 0 for BF16, combine_quant_mode 0, activation swiglu, then the CCL buffer. Its check
num_max_tokens_per_rank >= bs never runs: aclnnMegaMoe passes 0 for that attribute (aclnn_mega_moe.cpp
L186-187, all three releases), so bs above it is only a warning (MC864). So for EP 64 vllm-ascend selects
MegaMoE, the wrapper refuses it, and the tiling would accept it; for 1024 < moe_expert_num <= 2048 the wrapper
passes and the tiling refuses. Each message names every layer that refuses and the one that bites first.

max_recv_token_num 0 means "auto" (bs * ep * min(k, experts per rank)) only since ops-transformer aa7907c
(2026-07-13, in branch 9.1.0 and master); at v9.1.0.pre (the 9.1 rule set) the tiling keeps 0 and leaves no
room for received tokens, although the page already says "0 = auto" (the code wins). Not in CANN 8.5 or 9.0.
"""
from __future__ import annotations

from moecfg.core.diagnostics import INFO, WARNING
from moecfg.core.registry import rule
from moecfg.backends.ascend.shared import fused_formulas as ff
from moecfg.backends.ascend.ops.mega_moe import formulas as mx
from moecfg.backends.ascend.shared.formulas import ceil_mb
from moecfg.backends.ascend.ops.mega_moe.model import computable, least_window, max_tokens_recv, workspace_bytes
from moecfg.backends.ascend.shared.rules import finding
from moecfg.core.examples import ex

_F = "ascend-mega-moe"
_MMT = "ops-transformer@25fb6b9 mc2/mega_moe/op_host/op_tiling/arch22/mega_moe_tiling_arch22.cpp"
_WRAP = "ops-transformer@25fb6b9 torch_extension/cann_ops_transformer/ops/csrc/mega_moe.cpp"
_TILING = ("The MegaMoE tiling rejects the call at the first forward on the NPU (aclnnMegaMoeGetWorkspaceSize "
           "fails; the CANN log names the check), after the weights are loaded and the symmetric buffer is built.")
_WRAPPER = ("get_symm_buffer_for_mega_moe raises (TORCH_CHECK in GetMegaMoeCclBufferSize) while the symmetric "
            "buffer is built, before the op ever runs.")
BASE = dict(product="A3", cann_version="latest", op="mega_moe", bs=32, h=7168, k=8, ep_world_size=16,
            moe_expert_num=256, intermediate_hidden=2048, dispatch_quant_mode=2, dispatch_quant_out_dtype="int8",
            env={"HCCL_BUFFSIZE": 200})


def doc(**changes) -> str:
    """BASE (DeepSeek-V3 W8A8 decode on A3, EP 16) with keys replaced, added or removed (None)."""
    return ex(BASE, **changes)


_OK = doc()
_P = ("A2", "A3")
_S = dict(family=_F, products=_P, rulesets=("9.1", "latest"))  # the rule sets with MegaMoE (and the 9.1.0 branch)
UNAVAILABLE = rule(
    "MC860", "mega-moe-unavailable", "error", "MegaMoE exists on A2/A3 from CANN 9.1 (not in 8.5 or 9.0)", family=_F,
    source="ops-transformer tags: v8.5.0, v9.0.0, v9.0.1 have no mc2/mega_moe; v9.1.0-beta.2/.3 only arch35 (950); "
           "v9.1.0.pre first arch22", products=_P, rulesets=("8.5", "9.0"),
    why="The op library has no MegaMoe kernel for the release: cann_ops_transformer builds but aclnnMegaMoe is "
        "missing, so the first call fails (vllm-ascend then needs enable_fused_mc2=0).",
    fail_example=doc(cann_version="9.0.1"), pass_example=_OK,
    fix="Use CANN 9.1 or newer, or dispatch_combine_v2 (vllm-ascend: enable_fused_mc2=0).")
EP = rule(
    "MC861", "mega-moe-ep-world-size", "error", "ep_world_size: wrapper {2,4,8,16,32}; tiling {2..64} (9.1.0) / "
    "{2..128} (9.1, master)", **_S, source=f"{_WRAP} L250-252; {_MMT} L100, L167-177",
    why=_WRAPPER + " On branch 9.1.0 and master the wrapper accepts only EP 2-32 while the tiling accepts 64 (and "
        "128 on master), and vllm-ascend selects MegaMoE up to EP 64: EP 64 passes vllm-ascend and fails here.",
    cann_error="ep_world_size only support {2, 4, 8, 16, 32} on A2/A3, but got %ld",
    fail_example=doc(ep_world_size=64, moe_expert_num=512), pass_example=_OK,
    fix="Use an EP size every layer accepts (2, 4, 8, 16 or 32), or dispatch_combine_v2 for larger EP.")
EXPERTS = rule(
    "MC862", "mega-moe-expert-num", "error", "moe_expert_num in [1, 1024] (tiling; the wrapper allows 2048)",
    **_S, source=f"{_MMT} L98-99, L157-165; {_WRAP} L257-258",
    why=_TILING + " The torch wrapper accepts up to 2048 experts, so the symmetric buffer is built and the first "
        "forward fails.", cann_error="moeExpertNum should be in [%ld, %ld], but got %ld.",
    fail_example=doc(moe_expert_num=2048), pass_example=_OK,
    fix="At most 1024 experts (incl. EPLB redundant ones) per MegaMoE layer.")
PER_RANK = rule(
    "MC863", "mega-moe-experts-per-rank", "error", "experts per rank (len(l1_weights)) in [1, 128]; moe_expert_num "
    "a multiple of ep_world_size", **_S, source=f"{_MMT} L879-883, L1107-1112, L1194",
    why=_TILING + " For a remainder no host check fires: the op lays experts out as ep_world_size x "
        "len(l1_weights) (MMT L1194) and the wrapper sizes expert_token_nums as moe_expert_num // ep_world_size, so "
        "the top experts' ids reach no rank and their tokens are lost or overrun.",
    cann_error="expertPerRank is invalid, should be in [%ld, %ld], but got %u.",
    fail_example=doc(moe_expert_num=250), pass_example=_OK,
    fix="Make moe_expert_num a multiple of ep_world_size with 1-128 experts per rank (EPLB: add redundant experts).")
TOKENS = rule(
    "MC864", "mega-moe-bs", "error", "bs in [1, 4096]; num_max_tokens_per_rank in [1, 4096] (wrapper); bs above "
    "num_max_tokens_per_rank is a warning (the tiling's check of it never runs)", **_S,
    source=f"{_MMT} L85-86, L243-261, L477-480; {_WRAP} L255-256; ops-transformer@25fb6b9 "
           "mc2/mega_moe/op_api/aclnn_mega_moe.cpp L186-187; vllm-ascend#14273",
    why=_TILING + " bs is x.size(0) of the call. The symmetric buffer and vllm-ascend's max_recv_token_num are sized "
        "for num_max_tokens_per_rank; the tiling's own check num_max_tokens_per_rank >= bs never runs, because "
        "aclnnMegaMoe passes 0 for that attribute, so a larger call runs: vllm-ascend#14273 (a 477-token prefill into "
        "a buffer sized for 32 tokens per rank) got NaNs and error 507035.",
    cann_error="x's dim0(bs) is invalid, should be in [%ld, %ld], but got %ld.",
    fail_example=doc(bs=4097, num_max_tokens_per_rank=4096, env={"HCCL_BUFFSIZE": 1024}),
    pass_example=doc(bs=4096, num_max_tokens_per_rank=4096, env={"HCCL_BUFFSIZE": 1024}),
    fix="Keep bs <= num_max_tokens_per_rank <= 4096 (vllm-ascend: num_max_tokens_per_rank comes from the graph "
        "capture size / TP; enable_prefill_mc2 sizes it for prefill batches).")
HIDDEN = rule(
    "MC865", "mega-moe-hidden", "error", "h in [1024, 8192], a multiple of 512", **_S,
    source=f"{_MMT} L87-88, L481-488; {_WRAP} L253-254",
    why=_WRAPPER + " (the tiling checks the same range at the first call.)",
    cann_error="hidden only support [1024, 8192] and hidden % 512 == 0 on A2/A3, but got %ld",
    fail_example=doc(h=7000), pass_example=_OK, fix="MegaMoE needs hidden in [1024, 8192] and a multiple of 512; "
    "otherwise use dispatch_combine_v2 (vllm-ascend falls back by itself).")
INTER = rule(
    "MC866", "mega-moe-intermediate", "error", "intermediate_hidden in [1024, 3072], a multiple of 512", **_S,
    source=f"{_MMT} L89-90, L709-719",
    why=_TILING + " vllm-ascend checks moe_intermediate_size before TP; the tiling checks weight2's dim0, the "
        "width after TP sharding.",
    cann_error="weight2's dim0(intermediate_hidden) is invalid, should be in [%ld, %ld], but got %ld.",
    fail_example=doc(intermediate_hidden=4096), pass_example=_OK,
    fix="Keep the per-rank expert FFN width in [1024, 3072] and a multiple of 512 (change the MoE TP split).")
TOP_K = rule(
    "MC867", "mega-moe-top-k", "error", "k in [1, 16]", **_S, source=f"{_MMT} L91-92, L522-525; {_WRAP} L259",
    why=_WRAPPER, cann_error="num_topk only support [1, 16] on A2/A3, but got %ld",
    fail_example=doc(k=17), pass_example=_OK, fix="Use a model with at most 16 routed experts per token.")
QUANT = rule(
    "MC868", "mega-moe-dispatch-quant", "error", "dispatch_quant_mode 2 with INT8/INT4 weights (and "
    "dispatch_quant_out_dtype int8), 0 with BF16 weights", **_S,
    source=f"{_MMT} L188-231, L1165-1180; {_WRAP} L260-261",
    why=_TILING + " The dispatch quantisation must match the weight dtype, and the quantised path writes INT8 "
        "tokens only.",
    cann_error="dispatch_quant_mode is invalid, should be %ld for weight dataType %d, but got %ld.",
    fail_example=doc(dispatch_quant_mode=0, weight_dtype="int8", dispatch_quant_out_dtype=None),
    pass_example=_OK,
    fix="W8A8 / W4A8: dispatch_quant_mode 2 and dispatch_quant_out_dtype int8; BF16 weights: 0 and no out dtype.")
COMBINE = rule(
    "MC869", "mega-moe-combine-quant-mode", "error", "combine_quant_mode 0 on A2/A3", **_S,
    source=f"{_MMT} L233-240", why=_TILING, cann_error="combine_quant_mode is invalid, only support 0, but got %ld.",
    fail_example=doc(combine_quant_mode=2), pass_example=_OK, fix="Leave combine_quant_mode at 0 on A2/A3.")
COMM_ALG = rule(
    "MC870", "mega-moe-comm-alg", "error", "comm_alg \"\" only on A2/A3", **_S, source=f"{_MMT} L1004-1018",
    why=_TILING, cann_error="Attr commAlg is invalid, current version only supports \"\", but got \"%s\".",
    fail_example=doc(comm_alg="fullmesh_v1"), pass_example=_OK, fix="Leave comm_alg empty.")
ACTIVATION = rule(
    "MC871", "mega-moe-activation", "error", "activation swiglu; activation_clamp >= 0", **_S,
    source=f"{_MMT} L263-281", why=_TILING,
    cann_error="activation is invalid, only support 'swiglu', but got '%s'.",
    fail_example=doc(activation="gelu"), pass_example=_OK,
    fix="MegaMoE runs SwiGLU experts only; clamp values must be >= 0.")
MAX_RECV = rule(
    "MC872", "mega-moe-max-recv-token-num", "error", "max_recv_token_num >= 0; below bs * ep * min(k, experts/rank) "
    "tokens are dropped (warning); 0 is auto only from branch 9.1.0", **_S,
    source=f"{_MMT} L179-185, L367-373; vllm-ascend#16914",
    why="max_recv_token_num is the room each rank has for received tokens (GMM inputs, workspace, A2 window). "
        "Below the worst case some tokens have no slot: vllm-ascend#16914 (Kimi K3, mega_moe_max_tokens 8192) saw "
        "garbled output and error 507035. A negative value fails the tiling.",
    cann_error="maxRecvTokenNum is invalid, should be >= 0, but got %ld.",
    fail_example=doc(max_recv_token_num=1024), pass_example=doc(max_recv_token_num=4096),
    fix="Leave max_recv_token_num at 0 (auto; CANN 9.1.0 branch and later) or set it to at least "
        "num_max_tokens_per_rank * ep_world_size * min(k, experts per rank).")
CCL = rule(
    "MC873", "mega-moe-ccl-buffer", "error", "the EP group's HCCL buffer (ccl_buffer_size / 2) holds the MegaMoE "
    "window", **_S, source=f"{_MMT} L110-153, L1020-1055; comm_context.cpp L108-149", tags=("buffer",),
    why=_TILING + " On A2/A3 the window is the EP communicator's HCCL buffer (HcclGetHcclBuffer = 2 x HCCL_BUFFSIZE, "
        "the tiling checks half), not the size get_symm_buffer_for_mega_moe computes; only Ascend 950 allocates that.",
    cann_error="cclBufferSize(%ld Bytes, %ld MB) should be >= leastCclBufferSize(%ld Bytes, %ld MB). maxRecvTokenNum="
               "%ld, h=%ld, epWorldSize=%ld, expertPerRank=%ld, isQuantRouting=%d, isW4A8=%d, isA3=%d. Suggestion: "
               "set hccl buffsize to %ld MB.",
    fail_example=doc(env={"HCCL_BUFFSIZE": 15}), pass_example=doc(env={"HCCL_BUFFSIZE": 16}),
    fix="Set HCCL_BUFFSIZE (or hccl_buffer_size.ep of the EP group) to at least the MB the message gives, sized for "
        "num_max_tokens_per_rank.")
X_DTYPE = rule(
    "MC875", "mega-moe-x-dtype", "error", "x is BF16 on A2/A3 (the torch wrapper also takes FP16)", **_S,
    source=f"{_MMT} L490-496; {_WRAP} L41-43",
    why=_TILING + " The torch wrapper accepts an FP16 x, so an FP16 model builds its buffer and fails at the first "
        "forward.", cann_error="x dataType is invalid, should be BF16, but got %d.",
    fail_example=doc(x_dtype="fp16"), pass_example=_OK, fix="Run the MoE layers in BF16 on A2/A3.")
OVERSIZED = rule(
    "MC874", "mega-moe-max-recv-oversized", "info", "max_recv_token_num above the most tokens a rank can receive: "
    "workspace (and on A2 the window) grows for nothing", **_S, source=f"{_MMT} L1240-1276",
    why="The workspace grows by about (2 x max(2I, h) + 2 x max(h, I)) bytes per max_recv_token_num token; room "
        "beyond num_max_tokens_per_rank * ep * min(k, experts/rank) is never used. Device memory is the budget.",
    fail_example=doc(max_recv_token_num=8192), pass_example=doc(max_recv_token_num=4096),
    fix="Set max_recv_token_num to 0 (auto) or to the worst case the message names.")


def _q(text: str) -> str:
    return f"; CANN: \"{text}\""


def _braces(values) -> str:
    return "{" + ", ".join(map(str, values)) + "}"


def unavailable(cfg, f):
    yield finding(UNAVAILABLE, "cann_version", f"op mega_moe: CANN {f.ruleset} has no MegaMoE kernel for "
                  f"{cfg.product} ({f.limits.source}); use CANN 9.1 or newer, or dispatch_combine_v2")


def ep_world_size(cfg, f):
    ep, lim = cfg.ep_world_size, f.limits
    wrapper_no = lim.wrapper_checks and ep not in lim.wrapper_ep_values
    tiling_no = ep not in lim.ep_values
    if not (wrapper_no or tiling_no):
        return
    ok = sorted(set(lim.ep_values) & (set(lim.wrapper_ep_values) if lim.wrapper_checks else set(lim.ep_values)))
    layers = []
    if wrapper_no:
        layers.append(f"get_symm_buffer_for_mega_moe rejects it first (torch wrapper: \"ep_world_size only support "
                      f"{_braces(lim.wrapper_ep_values)} on A2/A3, but got {ep}\")")
    layers.append(f"the CANN {f.ruleset} tiling {'rejects' if tiling_no else 'would accept'} it (one of "
                  f"{_braces(lim.ep_values)})")
    gate = ("vllm-ascend selects fused MC2 on A3 only" if cfg.product != "A3" else "vllm-ascend selects MegaMoE "
            "only for EP <= 64" if ep > 64 else "vllm-ascend's EP <= 64 gate lets it through")
    yield finding(EP, "ep_world_size", f"`ep_world_size` = {ep}: {'; '.join(layers)}; {gate}; use one of {_braces(ok)}")


def expert_num(cfg, f):
    e, lim = cfg.moe_expert_num, f.limits
    if lim.expert_min <= e <= lim.expert_max:
        return
    wrapper = lim.wrapper_checks and not 1 <= e <= lim.wrapper_expert_max
    first = "get_symm_buffer_for_mega_moe rejects it first" if wrapper else \
        f"the torch wrapper accepts up to {lim.wrapper_expert_max}, so the first forward fails in the tiling"
    yield finding(EXPERTS, "moe_expert_num", f"`moe_expert_num` = {e} is outside [{lim.expert_min}, {lim.expert_max}] "
                  f"(CANN {f.ruleset} tiling); {first}"
                  + _q(f"moeExpertNum should be in [1, {lim.expert_max}], but got {e}."))


def experts_per_rank(cfg, f):
    e, ep, epr, top = cfg.moe_expert_num, cfg.ep_world_size, f.experts_per_rank, f.limits.experts_per_rank_max
    if ep <= 0:
        return
    if e % ep:
        yield finding(PER_RANK, "moe_expert_num", f"`moe_expert_num` = {e} is not a multiple of ep_world_size = {ep}: "
                      f"each rank holds {epr} experts, experts {ep * epr}..{e - 1} have no rank (no host check refuses "
                      f"it; their tokens are lost); use {ep * epr or ep} or {ep * (epr + 1)}")
    elif not 1 <= epr <= top:
        yield finding(PER_RANK, "moe_expert_num", f"experts per rank = moe_expert_num / ep_world_size = {e} / {ep} = "
                      f"{epr} is outside [1, {top}]" + _q(f"expertPerRank is invalid, should be in [1, {top}], but "
                                                          f"got {epr}."))


def tokens(cfg, f):
    lim, bs, nmt = f.limits, cfg.bs, cfg.num_max_tokens_per_rank
    if not 1 <= bs <= lim.bs_max:
        yield finding(TOKENS, "bs", f"`bs` = {bs} (x.size(0)) is outside [1, {lim.bs_max}]"
                      + _q(f"x's dim0(bs) is invalid, should be in [1, {lim.bs_max}], but got {bs}."))
    if not cfg.num_max_tokens_given:
        return
    if not 1 <= nmt <= lim.bs_max:
        who = (f"get_symm_buffer_for_mega_moe rejects it (\"num_max_tokens_per_rank only support [1, 4096] on "
               f"A2/A3, but got {nmt}\")" if lim.wrapper_checks
               else f"the documented range (CANN {f.ruleset} does not check it)")
        yield finding(TOKENS, "num_max_tokens_per_rank", f"`num_max_tokens_per_rank` = {nmt} is outside [1, "
                      f"{lim.bs_max}]: {who}", None if lim.wrapper_checks else WARNING)
    elif nmt < bs:
        yield finding(TOKENS, "num_max_tokens_per_rank", f"`num_max_tokens_per_rank` = {nmt} is below bs = {bs}: the "
                      "symmetric buffer (and vllm-ascend's max_recv_token_num) is sized for fewer tokens than this "
                      "call sends, and nothing refuses it (aclnnMegaMoe passes 0 for the attribute, so the tiling's "
                      "`num_max_tokens_per_rank >= bs` check never runs; vllm-ascend#14273: NaNs, 507035); raise it "
                      f"to >= {bs}", WARNING)


def _range_mult(rule_, path, value, lo, hi, mult, what, cann, extra=""):
    if not lo <= value <= hi or value % mult:
        yield finding(rule_, path, f"`{path}` = {value} ({what}) must be in [{lo}, {hi}] and a multiple of {mult}"
                      + _q(cann) + extra)


def hidden(cfg, f):
    lim = f.limits
    yield from _range_mult(HIDDEN, "h", cfg.h, lim.h_min, lim.h_max, lim.h_multiple, "x.size(1)",
                           f"hidden only support [1024, 8192] and hidden % 512 == 0 on A2/A3, but got {cfg.h}")


def intermediate(cfg, f):
    lim, i = f.limits, cfg.intermediate_hidden
    cann = (f"weight2's dim0(intermediate_hidden) should be 512 aligned, but got {2 * i}." if i % lim.inter_multiple
            else f"weight2's dim0(intermediate_hidden) is invalid, should be in [1024, 3072], but got {i}.")
    half, extra = i // 2, ""
    if not i % 2 and lim.inter_min <= half <= lim.inter_max and not half % lim.inter_multiple:
        extra = (f"; if {i} is vllm-ascend's get_symm_buffer_for_mega_moe argument (2 x intermediate_size_per_"
                 f"partition, only stored), the width the tiling checks is {half}")
    yield from _range_mult(INTER, "intermediate_hidden", i, lim.inter_min, lim.inter_max, lim.inter_multiple,
                           "l2_weights[i].size(0)", cann, extra)


def top_k(cfg, f):
    if not 1 <= cfg.k <= f.limits.k_max:
        yield finding(TOP_K, "k", f"`k` = {cfg.k} (topk_ids.size(1)) is outside [1, {f.limits.k_max}] (torch wrapper "
                      "and tiling)" + _q(f"topk_ids's dim1(topK) is invalid, should be in [1, 16], but got {cfg.k}."))


def dispatch_quant(cfg, f):
    mode, w, out = cfg.dispatch_quant_mode, cfg.weight_dtype, cfg.dispatch_quant_out_dtype
    if f.limits.wrapper_checks and mode not in f.limits.wrapper_quant_modes:
        yield finding(QUANT, "dispatch_quant_mode", f"`dispatch_quant_mode` = {mode}: get_symm_buffer_for_mega_moe "
                      f"accepts only {{0, 2, 4}} (\"dispatch_quant_mode only support {{0, 2, 4}} on A2/A3, but got "
                      f"{mode}\"); use {2 if f.quant else 0} for {w} weights")
        return
    want = 2 if f.quant else 0
    if mode != want:
        yield finding(QUANT, "dispatch_quant_mode", f"`dispatch_quant_mode` = {mode} does not match {w} weights: the "
                      f"tiling expects {want} (4 = MXFP exists on Ascend 950 only); CANN logs \"dispatch_quant_mode is "
                      f"invalid, should be {want} for weight dataType <dtype>, but got {mode}.\"")
    elif f.quant and out != "int8":
        yield finding(QUANT, "dispatch_quant_out_dtype", f"`dispatch_quant_out_dtype` = {out}: the quantised dispatch "
                      "of int8/int4 weights writes INT8 tokens; pass torch.int8 (CANN logs "
                      "\"dispatch_quant_out_type must be INT8 in quant mode\")")
    elif not f.quant and out is not None:
        yield finding(QUANT, "dispatch_quant_out_dtype", f"`dispatch_quant_out_dtype` = {out} with bf16 weights: leave "
                      "it unset (None) (CANN logs \"dispatch_quant_out_type must be UNDEFINED in non-quant mode\")")


def combine_quant(cfg, f):
    if cfg.combine_quant_mode not in f.limits.combine_quant_modes:
        yield finding(COMBINE, "combine_quant_mode", f"`combine_quant_mode` = {cfg.combine_quant_mode}: A2/A3 accept "
                      f"only 0" + _q(f"combine_quant_mode is invalid, only support 0, but got "
                                     f"{cfg.combine_quant_mode}."))


def comm_alg(cfg, f):
    if cfg.comm_alg not in f.limits.comm_algs:
        yield finding(COMM_ALG, "comm_alg", f"`comm_alg` = {cfg.comm_alg!r}: MegaMoE on A2/A3 takes only \"\""
                      + _q(f"Attr commAlg is invalid, current version only supports \"\", but got \"{cfg.comm_alg}\"."))


def x_dtype(cfg, f):
    if cfg.x_dtype != "bf16":
        yield finding(X_DTYPE, "x_dtype", f"`x_dtype` = {cfg.x_dtype}: the A2/A3 MegaMoE tiling takes only BF16 "
                      "activations (the torch wrapper lets FP16 through)")


def activation(cfg, f):
    if cfg.activation not in f.limits.activations:
        yield finding(ACTIVATION, "activation", f"`activation` = {cfg.activation!r}: only 'swiglu'"
                      + _q(f"activation is invalid, only support 'swiglu', but got '{cfg.activation}'."))
    clamp = cfg.activation_clamp
    if clamp is not None and not clamp >= 0:
        yield finding(ACTIVATION, "activation_clamp", f"`activation_clamp` = {clamp} must be >= 0 and not NaN")


def max_recv(cfg, f):
    mr, safe = cfg.max_recv_token_num, f.safe_recv
    worst = (f"max(bs, num_max_tokens_per_rank) * ep * min(k, experts/rank) = "
             f"{max(cfg.bs, cfg.num_max_tokens_per_rank)} * {cfg.ep_world_size} * {min(cfg.k, f.experts_per_rank)} "
             f"= {safe}")
    if mr < 0:
        yield finding(MAX_RECV, "max_recv_token_num", f"`max_recv_token_num` = {mr} must be >= 0 (0 = auto)"
                      + _q(f"maxRecvTokenNum is invalid, should be >= 0, but got {mr}."))
    elif mr == 0 and not f.limits.auto_max_recv:
        yield finding(MAX_RECV, "max_recv_token_num", f"`max_recv_token_num` = 0 is not 'auto' in CANN {f.ruleset} "
                      f"({f.limits.source}): the A2/A3 tiling keeps 0 and leaves no room for received tokens (the "
                      f"page says auto; the code added it in aa7907c, 2026-07-13); set it to {worst}")
    elif 0 < mr < safe:
        yield finding(MAX_RECV, "max_recv_token_num", f"`max_recv_token_num` = {mr} is below the worst case "
                      f"{worst}: tokens beyond it are dropped or overrun (vllm-ascend#16914: garbled output, 507035); "
                      f"set 0 (auto) or >= {safe}", WARNING)


def ccl_buffer(cfg, f):
    if not computable(cfg, f):
        return
    w = f.window
    need = least_window(cfg, f, cfg.bs, f.max_recv)
    src = f"{w.mb} MB ({w.source}; ccl_buffer_size = 2 x {w.mb} MB, the tiling checks half)"
    fix = f"set {'hccl_buffer_size.ep' if w.source.startswith('hccl') else 'HCCL_BUFFSIZE'} >="
    if need > w.mb * ff.MIB:
        yield finding(CCL, w.path, f"MegaMoE window too small: {cfg.product} bs {cfg.bs} needs {need} bytes = "
                      f"{ceil_mb(need)} MB, configured {src}; {fix} {ceil_mb(need)} (the tiling suggests "
                      f"{mx.mega_moe_suggested_mb(need)} MB)")
        return
    if cfg.num_max_tokens_per_rank > cfg.bs:
        need_max = least_window(cfg, f, cfg.num_max_tokens_per_rank, max_tokens_recv(cfg, f))
        if need_max > w.mb * ff.MIB:
            yield finding(CCL, w.path, f"MegaMoE window fits bs {cfg.bs} but not num_max_tokens_per_rank = "
                          f"{cfg.num_max_tokens_per_rank}: a call that large needs {need_max} bytes = "
                          f"{ceil_mb(need_max)} MB, configured {src}; {fix} {ceil_mb(need_max)}", WARNING)


def oversized(cfg, f):
    mr, safe = cfg.max_recv_token_num, f.safe_recv
    if mr > safe > 0 and computable(cfg, f):
        extra = workspace_bytes(cfg, f, mr) - workspace_bytes(cfg, f, safe)
        yield finding(OVERSIZED, "max_recv_token_num", f"`max_recv_token_num` = {mr} exceeds the most tokens a rank "
                      f"can receive ({safe}): {extra} bytes ({ceil_mb(extra)} MB) of workspace for nothing; set 0 "
                      f"(auto) or {safe}", INFO)


CHECKS = (comm_alg, tokens, hidden, x_dtype, top_k, experts_per_rank, intermediate, expert_num, ep_world_size, max_recv,
          dispatch_quant, combine_quant, activation, ccl_buffer, oversized)
