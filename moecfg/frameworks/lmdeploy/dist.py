"""How LMDeploy turns `--tp`, `--dp`, `--ep` into process groups, and what it refuses at start-up.

Read in every release 0.12.1 .. 0.18.0 (the same code in all; line numbers of v0.16.0 @1208bf0):
- lmdeploy/pytorch/config.py:158-215 `DistConfig` and its `__post_init__` checks (the CLI sets no attn/mlp/moe TP sizes):
  mlp_tp = tp; moe_tp = 1 when ep > 1 else mlp_tp; world_size = ep when ep > 1 else max(mlp_tp, moe_tp);
  asserts world_size % dp == 0, world_size % mlp_tp == 0; attn_tp = world_size // dp becomes `tp`, and
  mlp_tp > 1 must be a multiple of attn_tp. So with --ep the world is --ep devices (dlinfer's docs: `--tp 16 --dp 2
  --ep 32` = 32 devices, TP 16 per DP group), without it --tp devices.
- lmdeploy/serve/openai/launch_server.py:104-145 (the CLI's path when --dp > 1, cli/serve.py api_server):
  asserts tp > 1 or ep > 1; starts dp // nnodes API servers per node, DP rank = node_rank x that + i.
- lmdeploy/messages.py:516-523 `PytorchEngineConfig.__post_init__`: tp, dp, ep >= 1, 0 < cache_max_entry_count < 1,
  max_prefill_token_num >= 0.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Groups:
    tp: int  # --tp as given
    dp: int
    ep: int
    world: int  # devices of one engine (all DP ranks)
    attn_tp: int  # DistConfig.tp: attention TP per DP group (dlinfer's tp_size)
    mlp_tp: int


def groups(tp: int, dp: int, ep: int) -> tuple[Groups | None, str]:
    """(the groups, '') or (None, the assertion DistConfig stops with, in its own words)."""
    mlp_tp = tp
    moe_tp = 1 if ep > 1 else mlp_tp
    world = ep if ep > 1 else max(mlp_tp, moe_tp)
    if world < dp or world % dp:
        return None, f"world_size {world}, dp {dp}"
    if world < mlp_tp or world % mlp_tp:
        return None, f"world_size {world}, mlp_tp {mlp_tp}"
    attn_tp = world // dp
    if mlp_tp > 1 and (mlp_tp < attn_tp or mlp_tp % attn_tp):
        return None, f"mlp_tp {mlp_tp}, attn_tp {attn_tp}"
    return Groups(tp, dp, ep, world, attn_tp, mlp_tp), ""


def fix_for(tp: int, dp: int, ep: int) -> str:
    """The flags that make DistConfig accept the sizes, in the user's terms."""
    if ep > 1:
        per_dp = ep // dp if ep % dp == 0 else None
        if per_dp is None:
            return f"make --ep a multiple of --dp {dp} (with --ep the engine runs on --ep devices, --ep / --dp per DP " \
                   "group)"
        return f"set --tp {per_dp} (= --ep {ep} / --dp {dp}, the TP size of each DP group; --tp must divide --ep {ep} " \
               f"and be a multiple of {per_dp}) or --tp 1"
    return f"make --tp a multiple of --dp {dp} (without --ep the engine runs on --tp devices, --tp / --dp per DP group)"


def nodes_problem(dp: int, nnodes: int, node_rank: int) -> str:
    """Why launch_server (dp > 1) cannot start every DP rank of `dp` over `nnodes` nodes, or ''."""
    if nnodes < 1:
        return f"--nnodes {nnodes}: dp // nnodes has no meaning below 1 node"
    per_node = dp // nnodes
    if per_node == 0:
        return f"--dp {dp} < --nnodes {nnodes}: dp // nnodes = 0 API servers start on each node"
    if dp % nnodes:
        return (f"--dp {dp} is not a multiple of --nnodes {nnodes}: each node starts dp // nnodes = {per_node} API "
                f"servers, so {_ranks(per_node * nnodes, dp - 1)} never start and the others wait for them")
    if not 0 <= node_rank < nnodes:
        return (f"--node-rank {node_rank} is outside [0, --nnodes {nnodes}): its "
                f"{_ranks(node_rank * per_node, node_rank * per_node + per_node - 1)} would be >= --dp {dp} (DistConfig "
                "asserts dp_rank < dp)")
    return ""


def _ranks(first: int, last: int) -> str:
    """'DP rank 2' or 'DP ranks 2..3', as a person writes it."""
    return f"DP rank {first}" if first == last else f"DP ranks {first}..{last}"
