"""vllm-ascend cross-setting rules (MC950-MC959): findings that exist only at the launch level, where two
settings of a `vllm serve` launch on Ascend contradict each other or the op vllm-ascend will run.

They are reported as notes on the op call, at the flag or env entry that causes them, with a fix naming the
flag. A fused-MC2 request that vllm-ascend silently drops is MC043 (launch rules), raised by the derivation.
"""
from __future__ import annotations

from moecfg.core.diagnostics import ERROR, WARNING
from moecfg.core.registry import rule
from moecfg.frameworks import Note
from moecfg.frameworks.vllm_ascend import formulas as F

_F = "launch"
_PASS = ("# the decode call vllm-ascend derives for DeepSeek-R1-W8A8, A3, DP4 TP4, --max-num-seqs 16, MTP 3\n"
         "kind: ascend\nproduct: A3\ncann_version: 9.0.1\nbs: 16\nh: 7168\nk: 8\nep_world_size: 16\n"
         "moe_expert_num: 256\nquant_mode: 2\ntp_world_size: 1\nx_active_mask: 1d\nenv:\n  HCCL_BUFFSIZE: 1024\n")
_SRC = "vllm-project/vllm-ascend@182b75e"

BUFFER_EXCEEDS_MEMORY = rule(
    "MC950", "vllm-ascend-hccl-buffsize-memory", ERROR, "HCCL_BUFFSIZE makes the HCCL buffers of a vllm-ascend "
    "rank larger than its device memory (2 x buffer per communicator)", family=_F,
    source=f"{_SRC} vllm_ascend/utils.py:968-1005 (mc2 group: process HCCL_BUFFSIZE; dp: max(ceil((DP+1) x 4 B / "
    "MiB), 50) MB; dynamic_eplb 100 MB; other groups: pg_options 200 MB) + patch/worker/patch_distributed.py:156-166 "
    "+ distributed/parallel_state.py:76-134 + CANN HCCL guide (2 x HCCL_BUFFSIZE per communicator)",
    why="vllm-ascend gives the mc2 communicator no pg_options, so it allocates 2 x HCCL_BUFFSIZE (send + receive); "
    "every other group of more than one rank (vLLM's tp, dcp, pcp, pp, dp, ep; vllm-ascend's dynamic_eplb and "
    "fine-grained TP groups) allocates 2 x its pg_options buffer. When the sum exceeds the device the rank runs out "
    "of memory as HCCL initialises the groups. Below the device but above the memory outside "
    "--gpu-memory-utilization, MC954 reports it.",
    fix="Lower the HCCL_BUFFSIZE export to what the op needs (the message names the largest value that fits).",
    fail_text="`export HCCL_BUFFSIZE=40000` before `vllm serve ... --tensor-parallel-size 4 "
    "--enable-expert-parallel` on A3 (64 GB per die): mc2 2 x 40000 MB alone exceeds 65536 MB.", pass_example=_PASS)
HIERARCHY_TOKEN_CAP = rule(
    "MC951", "vllm-ascend-hierarchy-token-cap", ERROR, "vllm-ascend caps MC2 tokens per rank at 512, but with "
    "hierarchical communication CANN accepts at most 256", family=_F,
    source=f"{_SRC} vllm_ascend/ascend_forward_context.py:35,197-199 (512) + ops-transformer "
    "moe_distribute_dispatch_v2 tiling (hierarchy bs <= 256)",
    why="With `enable_mc2_hierarchy_comm` (comm_alg hierarchy) or HCCL_INTRA_PCIE_ENABLE=1 + "
    "HCCL_INTRA_ROCE_ENABLE=0, dispatch rejects x.dim0 above CANN's hierarchy limit, which vllm-ascend's own cap "
    "(512) does not enforce: the first batch that large fails.",
    cann_error="xDim0(BS) is invalid", fix="Lower --max-num-seqs (or --max-num-batched-tokens with "
    "enable_prefill_mc2) so the tokens per TP rank stay within the limit; the message names the value.",
    fail_text="`vllm serve ... -tp 1 --max-num-seqs 96 --speculative-config '{\"num_speculative_tokens\": 3}' "
    "--additional-config '{\"enable_mc2_hierarchy_comm\": true}'` on A3 (384 tokens per rank).",
    pass_example=_PASS)
MEGAMOE_PREFILL_TOKENS = rule(
    "MC952", "vllm-ascend-megamoe-prefill-tokens", ERROR, "MegaMoE's buffer is sized for fewer tokens per rank "
    "than a prefill step sends (enable_prefill_mc2 off on a node that prefills, on releases without the fix)",
    family=_F, source=f"{_SRC} vllm_ascend/ascend_forward_context.py:176-200,247-251 + ops/fused_moe/moe_comm_method.py:"
    "283-336; vllm-project/vllm-ascend#14273; fixed by #14358 (releases/v0.26.0rc @6be4069) and #14439 (main after "
    "182b75e): v0.25.1rc1 and main@182b75e have the bug, v0.18.0-v0.24.0rc1 have no MegaMoE",
    why="vllm-ascend runs every step through MegaMoE once enable_fused_mc2=1 (any token count), but sizes its "
    "symmetric buffer once from num_max_tokens_per_rank = the decode capacity per TP rank; a prefill step of up "
    "to max_num_batched_tokens / TP tokens overruns it (NaNs, NPU error 507035, EngineDeadError — #14273).",
    fix="Set \"enable_prefill_mc2\": true in --additional-config (capacity from max_num_batched_tokens, up to "
    "4096 per rank), or lower --max-num-batched-tokens to the decode capacity.",
    fail_text="DeepSeek W8A8 on A3, TP4 DP4, --max-num-seqs 16, 7 draft tokens, --max-num-batched-tokens 2048, "
    "enable_fused_mc2=1, no kv_consumer role (vllm-ascend#14273).", pass_example=_PASS)
RECV_BELOW_SAFE = rule(
    "MC953", "vllm-ascend-fused-max-tokens-low", WARNING, "The fused MC2 receive size (mega_moe_max_tokens / "
    "max_output_size) is below the tokens a rank can receive", family=_F,
    source=f"{_SRC} vllm_ascend/ops/fused_moe/moe_comm_method.py:312-317,442 + vllm-project/vllm-ascend#16914; "
    "MegaMoE: #14730 / #15014 (mega_moe_max_tokens as max_recv_token_num)",
    why="A rank can receive bs x EP x min(top-k, experts per rank) token rows; a smaller receive buffer drops "
    "tokens (garbled output, vector core exception 507035 — #16914). dispatch_ffn_combine takes mega_moe_max_tokens "
    "as max_output_size (v0.23.0 on; fixed 65536 / 131072 before); MegaMoE takes it as max_recv_token_num from "
    "#14730 / #15014 (0.27 here), above the balanced load (else MC955) but below this bound only skewed routing "
    "overruns it.",
    fix="Raise \"mega_moe_max_tokens\" in --additional-config to the bound in the message, or lower "
    "--max-num-seqs / --max-num-batched-tokens.",
    fail_text="dispatch_ffn_combine with `--additional-config '{\"enable_fused_mc2\": 1, \"mega_moe_max_tokens\": "
    "8192}'`, EP 16, 512 tokens per rank, top-k 8.", pass_example=_PASS)

MEGAMOE_RECV_BELOW_LOAD = rule(
    "MC955", "vllm-ascend-megamoe-recv-below-load", ERROR, "mega_moe_max_tokens (MegaMoE's max_recv_token_num) is "
    "below the rows a rank receives even with balanced routing", family=_F, tags=("autofix",),
    source="vllm-project/vllm-ascend#15014 / #14730 (mega_moe_max_tokens passed as max_recv_token_num) + "
    "cann/ops-transformer mc2/mega_moe tiling (maxRecvTokenNum sizes the received rows; 0 -> bs x ep x min(k, "
    "experts per rank)); vllm-project/vllm-ascend#17202",
    why="From #14730 (v0.26.0rc branch) / #15014 (main) vllm-ascend passes mega_moe_max_tokens to MegaMoE as "
    "max_recv_token_num, the rows one rank may receive after dispatch. A step of bs tokens per rank sends bs x "
    "EP x top-k rows over EP ranks: bs x top-k per rank on average, at least bs x min(top-k, experts per rank), "
    "so some rank always receives that many. Below it the first full step (the first long prefill) overruns "
    "the buffer: HCCL SUSPECT REMOTE ERROR 507057 and the engine dies (#17202: 6144 < 512 x 16 = 8192).",
    fix="Raise \"mega_moe_max_tokens\" in --additional-config to the value in the message (the absolute safe "
    "bound it names covers any routing), or lower --max-num-batched-tokens.",
    fail_text="Kimi-K3 W4A8 on A3, TP16 = EP16, top-16, --max-num-batched-tokens 8192, "
    "`\"mega_moe_max_tokens\": 6144`, vllm-ascend 0.27 (vllm-ascend#17202).", pass_example=_PASS)


def check_calls(args, rel, ctx, calls) -> None:
    """Add MC95x notes to the op calls of one launch."""
    from moecfg.frameworks.vllm_ascend import memory

    reads = memory.read(args, rel) if any(c.kind == "ascend" for c in calls) else None
    for call in calls:
        if call.kind != "ascend":
            continue
        call.notes.extend(_buffer(args, ctx, call, reads, rel))
        call.notes.extend(_hierarchy(args, ctx, call))
        call.notes.extend(_megamoe_prefill(args, rel, call))
        call.notes.extend(_recv(args, rel, call))
        call.notes.extend(_megamoe_recv(args, rel, call))


def _span(call, name, args):
    spans = call.sources.get(name)
    return spans[0] if spans else args.start


def _buffer(args, ctx, call, reads, rel) -> list[Note]:
    """MC950 when the HCCL buffer pairs exceed the device, else MC954 when they (+ the fused op's workspace) exceed
    what --gpu-memory-utilization leaves; the table goes to call.derived["memory_budget"] (memory.py)."""
    from moecfg.backends.device.devices import MIB, describe
    from moecfg.frameworks.vllm_ascend import memory

    comms = memory.communicators(reads, call)
    tab = memory.table(reads, ctx, call, comms)
    if tab is None or "device_bytes" not in tab:
        return []
    hccl = sum(c.bytes for c in comms)
    if hccl <= tab["device_bytes"]:
        return memory.headroom_notes(reads, args, call, tab)
    mc2 = next(c for c in comms if c.name == "mc2")
    others = hccl - mc2.bytes
    fits = (tab["device_bytes"] - others) // (2 * MIB)
    parts = " + ".join(f"{c.name} 2 x {c.mb} MB" for c in comms)
    advice = f"set HCCL_BUFFSIZE <= {fits}" if fits > 0 else "the other groups' buffers alone exceed the device"
    return [Note(BUFFER_EXCEEDS_MEMORY.code, f"HCCL_BUFFSIZE={mc2.mb}: {parts} = {hccl // MIB} MB > "
                 f"{describe(call.arguments['product'], ctx.device_memory_gb)}: HCCL runs out of device memory when it "
                 f"initialises the groups; {advice} ({rel.cite['buffer']})", _span(call, "env.HCCL_BUFFSIZE", args))]


def hierarchy_bs_limit(product: str, cann: str | None) -> int | None:
    """CANN's bs limit for hierarchical dispatch on this product / release (the ascend kind's catalog)."""
    from moecfg.backends.ascend.shared.rulesets import RULESETS, resolve

    name, _ = resolve(cann)
    rs = RULESETS.get(name) if name else None
    if rs is None:
        return None
    if product == "A3":
        return rs.a3.hierarchy.bs_max if rs.a3.hierarchy else None
    return rs.a2.bs_max_hier


def _hierarchy(args, ctx, call) -> list[Note]:
    a = call.arguments
    if call.op != "dispatch_combine_v2" or not a.get("expert_scales") or "bs" not in a:
        return []
    limit = hierarchy_bs_limit(a["product"], ctx.cann)
    if limit is None or a["bs"] <= limit:
        return []
    tp = args.flag("--tensor-parallel-size", 1).value or 1
    spec = args.config("--speculative-config", "num_speculative_tokens", default=0).value or 0
    fix = f"lower --max-num-seqs to {max(1, limit * tp // (1 + spec))}"
    if args.config("--additional-config", "enable_prefill_mc2").value:
        fix = f"lower --max-num-batched-tokens to {limit * tp}"
    return [Note(HIERARCHY_TOKEN_CAP.code, f"bs {a['bs']} tokens per rank (vllm-ascend caps at "
                 f"{F.MC2_TOKENS_PER_RANK_LIMIT}) > {limit}, CANN's hierarchy limit on {a['product']}: dispatch "
                 f"fails with \"xDim0(BS) is invalid\"; {fix}", _span(call, "bs", args))]


def _megamoe_prefill(args, rel, call) -> list[Note]:
    a = call.arguments
    if call.op != "mega_moe" or call.role != "prefill" or "num_max_tokens_per_rank" not in a:
        return []
    bs, nmt = a["bs"], a["num_max_tokens_per_rank"]
    if bs <= nmt:
        return []
    tp = args.flag("--tensor-parallel-size", 1).value or 1
    prefill_mc2 = args.config("--additional-config", "enable_prefill_mc2").value
    fix = (f"lower --max-num-batched-tokens to {nmt * tp}" if prefill_mc2 or rel.megamoe_prefill_fix else
           f"set \"enable_prefill_mc2\": true in --additional-config, or lower --max-num-batched-tokens to {nmt * tp}")
    effect = ("vllm-ascend refuses the step (its capacity check, \"Fix MegaMoe prefill buffer sizing\", caps the "
              f"buffer at {F.MEGA_MOE_TOKENS_PER_RANK_LIMIT} per rank)" if rel.megamoe_prefill_fix else
              f"the symmetric buffer overflows (vllm-ascend#14273; fixed by #14358/#14439, not in {rel.ref})")
    return [Note(MEGAMOE_PREFILL_TOKENS.code, f"MegaMoE num_max_tokens_per_rank {nmt} < {bs} tokens per rank of a "
                 f"prefill step (max_num_batched_tokens / TP): {effect}; {fix}", _span(call, "bs", args),
                 covers=("MC864", "MC872"))]


def _recv(args, rel, call) -> list[Note]:
    a = call.arguments
    if call.op != "dispatch_ffn_combine" or not {"bs", "ep_world_size", "k", "moe_expert_num",
                                                  "max_output_size"} <= a.keys():
        return []
    ep = a["ep_world_size"]
    bound = F.mega_moe_max_recv(a["bs"], ep, a["k"], a["moe_expert_num"])
    if a["max_output_size"] >= bound:
        return []
    kind, fixed = rel.dfc_output
    fix = (f"raise \"mega_moe_max_tokens\" in --additional-config to {bound}" if kind == "config" else
           f"max_output_size is fixed at {fixed} in vllm-ascend {rel.ref}: lower --max-num-seqs / "
           "--max-num-batched-tokens")
    return [Note(RECV_BELOW_SAFE.code, f"max_output_size {a['max_output_size']} < {bound} = bs {a['bs']} x EP {ep} "
                 f"x min(top-k {a['k']}, {a['moe_expert_num']} experts / EP {ep}) rows a rank can receive: tokens "
                 f"are dropped (vllm-ascend#16914); {fix}", _span(call, "max_output_size", args),
                 covers=("MC882",))]  # one cause, one finding: the op's generic MC882 says the same bound


def _recv_fix(call, balanced: int, written: int):
    """MC955's fix: mega_moe_max_tokens raised to the balanced load, in the --additional-config JSON (the bound for
    any routing costs workspace the device may not have: MC953 names it, with no automatic fix)."""
    from moecfg.core.fixes import Suggestion

    spans = tuple(call.sources.get("max_recv_token_num", ()))
    return Suggestion(("max_recv_token_num",), '"mega_moe_max_tokens"', balanced, spans=spans, old=written)


def _megamoe_recv(args, rel, call) -> list[Note]:
    """MC955 (error) below the balanced per-rank load bs x min(k, experts per rank); MC953 (warning) below the
    absolute safe bound num_max_tokens_per_rank x EP x min(k, experts per rank). Only where vllm-ascend passes
    mega_moe_max_tokens as max_recv_token_num (rel.recv_from_config); elsewhere it derives the safe bound."""
    a = call.arguments
    need = {"bs", "ep_world_size", "k", "moe_expert_num", "max_recv_token_num", "num_max_tokens_per_rank"}
    if call.op != "mega_moe" or not rel.recv_from_config or not need <= a.keys():
        return []
    bs, ep, k, experts, mr = a["bs"], a["ep_world_size"], a["k"], a["moe_expert_num"], a["max_recv_token_num"]
    if mr <= 0:  # 0 = the op's auto (safe) bound, negatives fail its tiling: the mega_moe rules (MC872) say which
        return []
    per_rank = min(k, max(1, experts // ep))
    balanced = bs * per_rank
    safe = F.mega_moe_max_recv(max(bs, a["num_max_tokens_per_rank"]), ep, k, experts)
    span = _span(call, "max_recv_token_num", args)
    rows = f"min(top-k {k}, {experts} experts / EP {ep})"
    if mr < balanced:
        return [Note(MEGAMOE_RECV_BELOW_LOAD.code, f"mega_moe_max_tokens {mr} (MegaMoE's max_recv_token_num) < {bs} "
                     f"tokens per rank x {rows} = {balanced} rows every rank receives even with balanced routing: "
                     f"the first full step overruns the receive buffer (HCCL 507057, vllm-ascend#17202); set "
                     f"\"mega_moe_max_tokens\" in --additional-config to at least {balanced} ({safe} covers any "
                     f"routing)", span, covers=("MC872",), fix=_recv_fix(call, balanced, mr))]
    if mr < safe:
        return [Note(RECV_BELOW_SAFE.code, f"mega_moe_max_tokens {mr} (MegaMoE's max_recv_token_num) < "
                     f"{max(bs, a['num_max_tokens_per_rank'])} x EP {ep} x {rows} = {safe}, the most rows a rank can "
                     f"receive: enough for balanced routing ({balanced}), overrun when routing is skewed (garbled "
                     f"output or 507035/507057, vllm-ascend#16914); raise \"mega_moe_max_tokens\" in "
                     f"--additional-config to {safe} if device memory allows", span, "warning", covers=("MC872",))]
    return []
