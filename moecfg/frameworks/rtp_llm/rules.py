"""rtp-llm start-up rules (MC760-MC761): what rtp-llm refuses at start-up, and a variable its option parser does
not use. The DeepEP Buffer rtp-llm builds is judged by the `deepep` kind's rules (upstream DeepEP's limits; rtp-llm
runs its own build, so their errors are said as warnings). Citations: releases.py (alibaba/rtp-llm@4b8d39cd5).
"""
from __future__ import annotations

from moecfg.core.diagnostics import ERROR, WARNING
from moecfg.core.registry import rule

_F = "launch"
_R = "alibaba/rtp-llm@4b8d39cd5"
_OK = ("# the decode Buffer of `python3 -m rtp_llm.start_server --dp_size 32 --use_deepep_moe 1 "
       "--use_deepep_low_latency 1 --concurrency_limit 128` (DeepSeek-V3)\nkind: deepep\nmode: low_latency\n"
       "num_ranks: 32\nhidden: 7168\nnum_experts: 256\nnum_topk: 8\nnum_max_dispatch_tokens_per_rank: 128\n")

EP_SIZE = rule(
    "MC760", "rtp-llm-ep-size", ERROR, "rtp-llm: --ep_size must be 0 (tp x dp), 1 (pure TP, dp 1) or tp x dp",
    family=_F, source=f"{_R} rtp_llm/config/server_config_setup.py:274-293 (set_parallelism_config asserts)",
    why="rtp-llm derives the EP size as --tp_size x --dp_size; an explicit --ep_size must equal it, or be 1 for pure "
    "tensor parallelism with --dp_size 1: anything else fails an assertion at start-up.",
    fail_text="`python3 -m rtp_llm.start_server --tp_size 1 --dp_size 32 --ep_size 16 ...`.", pass_example=_OK,
    fix="Drop --ep_size (EP_SIZE): rtp-llm then uses --tp_size x --dp_size.")
ENV_SHADOWED = rule(
    "MC761", "rtp-llm-variable-shadowed", WARNING, "rtp-llm: a variable set beside its own option, with another value",
    family=_F, source=f"{_R} rtp_llm/server/server_args/server_args.py:340-347 (a variable fills only an option not "
    "given on the command line)",
    why="Every rtp-llm option can be given as a variable (TP_SIZE for --tp_size); the command line wins, so a "
    "variable that disagrees with its option is ignored, and the launch does not run with what the variable says.",
    fail_text="`DP_SIZE=16 python3 -m rtp_llm.start_server --dp_size 32 ...`.", pass_example=_OK,
    fix="Set the value once: drop the variable or the option.")
