"""LMDeploy start-up rules (MC910-MC914): what `lmdeploy serve api_server ... --device ascend` refuses before any
model weight loads, and one cross-setting check of dlinfer's MC2 call.

Read in every LMDeploy release 0.12.1 .. 0.18.0 (the checks are the same in all; line numbers of v0.16.0 @1208bf0,
InternLM/lmdeploy) and dlinfer-ascend 0.2.7 (DeepLink-org/dlinfer@689f5a0). The op calls LMDeploy then makes are
judged by the `ascend` kind's own rules; these are the framework's checks, reported at the flag that causes them.
"""
from __future__ import annotations

from moecfg.core.diagnostics import ERROR, WARNING
from moecfg.core.registry import rule

_F = "launch"
_L = "InternLM/lmdeploy@1208bf0 (v0.16.0)"
_OK = ("# the decode dispatch LMDeploy derives on A3: --tp 16 --dp 2 --ep 32, --max-batch-size 256 (bs = 256 / 16)\n"
       "kind: ascend\nproduct: A3\ncann_version: 9.0.1\nbs: 16\nh: 7168\nk: 8\nep_world_size: 32\n"
       "moe_expert_num: 256\nquant_mode: 0\nglobal_bs: 0\ntp_world_size: 1\nx_active_mask: 1d\n"
       "expert_token_nums_type: 0\nenv:\n  HCCL_BUFFSIZE: 1024\n")

ERROR_LABELS = {code: "LMDeploy's error" for code in ("MC910", "MC911", "MC914")}  # explain: whose error is quoted
DP_NEEDS_TP_OR_EP = rule(
    "MC910", "lmdeploy-dp-without-tp-ep", ERROR, "LMDeploy: --dp > 1 needs --tp > 1 or --ep > 1", family=_F,
    source=f"{_L} lmdeploy/serve/openai/launch_server.py:120 (assert tp > 1 or ep > 1); cli/serve.py api_server "
    "(--dp > 1 with the pytorch engine goes through launch_server)",
    why="With --dp above 1 the CLI starts one API server per DP rank through launch_server, which asserts that TP "
    "or EP is above 1 before starting anything: --dp counts DP groups of the devices --tp (or --ep) names.",
    cann_error="AssertionError: only support tp > 1 or ep > 1, but given tp=1 ep=1",
    fail_text="`lmdeploy serve api_server /models/dsv3 --backend pytorch --device ascend --dp 2`.", pass_example=_OK,
    fix="Give the devices: --tp <all devices> (without --ep, --tp / --dp per DP group) or --ep <all devices>.")
DIST_CONFIG = rule(
    "MC911", "lmdeploy-parallel-sizes", ERROR, "LMDeploy: --tp, --dp and --ep that DistConfig refuses (world size not "
    "a multiple of dp or tp, tp not a multiple of the TP per DP group)", family=_F,
    source=f"{_L} lmdeploy/pytorch/config.py:176-215 (DistConfig.__post_init__ asserts)",
    why="DistConfig derives world_size = --ep (with EP) or --tp, attn_tp = world_size / --dp, and asserts that "
    "world_size is a multiple of --dp and of --tp and that --tp (the dense-layer TP) is a multiple of attn_tp; an "
    "AssertionError stops every engine process at start-up.",
    cann_error="AssertionError: mlp_tp 8, attn_tp 16",
    fail_text="`lmdeploy serve api_server m --device ascend --tp 8 --dp 2 --ep 32` (attn_tp 32 / 2 = 16 > --tp 8).",
    pass_example=_OK, fix="With --ep: --tp = --ep / --dp (dlinfer's guide: `--tp 16 --dp 2 --ep 32`) or --tp 1; "
    "without: --tp a multiple of --dp.")
NODES = rule(
    "MC912", "lmdeploy-dp-nodes", ERROR, "LMDeploy: --dp that --nnodes / --node-rank cannot start (dp not a multiple "
    "of nnodes, node rank outside [0, nnodes))", family=_F,
    source=f"{_L} lmdeploy/serve/openai/launch_server.py:123-145 (dp_per_node = dp // num_nodes; dp_rank = "
    "node_rank x dp_per_node + i) + pytorch/config.py DistConfig (assert dp_rank < dp)",
    why="Each node starts dp // nnodes API servers: when --dp is not a multiple of --nnodes the last DP ranks never "
    "start and the started ones wait for them at the DP rendezvous (the service never comes up); a --node-rank at or "
    "above --nnodes gives DP ranks >= --dp, which DistConfig refuses.",
    fail_text="`lmdeploy serve api_server m --device ascend --tp 8 --dp 3 --ep 24 --nnodes 2 --node-rank 0`.",
    pass_example=_OK, fix="Make --dp a multiple of --nnodes (one or more DP groups per node) and number the nodes "
    "0 .. nnodes - 1.")
EXPERTS = rule(
    "MC913", "lmdeploy-experts-per-rank", WARNING, "LMDeploy on Ascend: routed experts not a multiple of --ep (ranks "
    "hold different expert counts, so dlinfer's moe_expert_num differs between ranks)", family=_F,
    source="InternLM/lmdeploy@1208bf0 lmdeploy/pytorch/backends/dlinfer/moe.py:66-72 (ep_expert_list: "
    "ceil(E / ep) experts per rank, fewer on the last) + DeepLink-org/dlinfer@689f5a0 dlinfer/vendor/ascend/moe.py:"
    "162-164 (moe_expert_num = local experts x ep_size)",
    why="dlinfer passes moe_expert_num = (this rank's experts) x EP to dispatch_v2 / combine_v2; with an uneven "
    "split the last rank passes a smaller number than the others, so the ranks of one MC2 collective disagree on "
    "the expert layout (and the all-to-all path's expert map assumes E // EP per rank).",
    fail_text="`lmdeploy serve api_server deepseek-ai/DeepSeek-V3 --device ascend --tp 24 --ep 24` (256 experts "
    "over EP 24: 11 per rank, 3 on the last).", pass_example=_OK,
    fix="Choose --ep dividing the routed expert count (e.g. 256 experts: --ep 16 or 32).")
ENGINE_CONFIG = rule(
    "MC914", "lmdeploy-cache-max-entry-count", ERROR, "LMDeploy's PyTorch engine: --cache-max-entry-count outside "
    "(0, 1)", family=_F,
    source=f"{_L} lmdeploy/messages.py:519-520 (PytorchEngineConfig: assert 0 < cache_max_entry_count < 1)",
    why="On Ascend LMDeploy runs the PyTorch engine, whose config asserts the KV-cache fraction of free memory is "
    "strictly between 0 and 1 (the TurboMind engine also takes an absolute token count above 1; the PyTorch one "
    "does not).",
    cann_error="AssertionError: invalid cache_max_entry_count",
    fail_text="`lmdeploy serve api_server m --backend pytorch --device ascend --cache-max-entry-count 1.0`.",
    pass_example=_OK, fix="Give a fraction such as 0.8 (the default).")
