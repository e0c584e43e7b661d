"""MindIE-LLM start-up rules (MC990-MC993): what `mindie_llm_server` refuses at start-up with this config.json.

Read at Ascend/MindIE-LLM@8b4871a (tag v3.0.0 line, 2026). The op calls MindIE then makes are judged by the
existing `ascend` kind; these rules are the framework's own start-up checks.
"""
from __future__ import annotations

from moecfg.core.diagnostics import ERROR, INFO, WARNING
from moecfg.core.registry import rule

_F = "launch"
_PIM = "Ascend/MindIE-LLM@8b4871a mindie_llm/runtime/utils/distributed/parallel_info_manager.py"
_OK = ("# the decode dispatch MindIE's torch backend derives: moe_ep 16, tp 1 (global_bs = ceil(tokens / tp) x ep)\n"
       "kind: ascend\nproduct: A3\ncann_version: 9.0.1\nbs: 16\nh: 7168\nk: 8\nep_world_size: 16\n"
       "moe_expert_num: 256\nquant_mode: 2\ntp_world_size: 1\nx_active_mask: 1d\nenv:\n  HCCL_BUFFSIZE: 1024\n")

MOE_WORLD_SIZE = rule(
    "MC990", "mindie-moe-world-size", ERROR, "MindIE torch backend: moe_tp x moe_ep must equal the world size",
    family=_F, source=f"{_PIM}:206-216 (moe_tp defaults to the world size, moe_ep to 1; ValueError 'MoE parallel "
    "strategy process number mismatch'); _init_tp_parallel_info :372-373, _init_dp_parallel_info :401-402",
    why="ParallelInfoManager builds the MoE-TP and MoE-EP groups from ModelConfig's moe_tp and moe_ep (an absent or "
    "-1 moe_tp means the whole world, an absent moe_ep means 1) and raises when their product is not the world "
    "size, before any model weight loads.",
    cann_error="ValueError: MoE parallel strategy process number mismatch: global world_size(16) != "
    "moe_tp.group_size(16) × moe_ep.group_size(16)",
    fail_text="config.json with `\"worldSize\": 16, \"backendType\": \"torch\", \"moe_ep\": 16` and no moe_tp "
    "(moe_tp defaults to 16).", pass_example=_OK,
    fix="Set moe_tp x moe_ep = worldSize in the ModelConfig entry (e.g. \"moe_tp\": 1 with \"moe_ep\": 16).")
BUFFSIZE_UNSET = rule(
    "MC991", "mindie-hccl-buffsize-unset", WARNING, "MindIE torch backend without HCCL_BUFFSIZE in the deployment's "
    "env file", family=_F, source=f"{_PIM}:217 (moe_ep_mc2_buffer_size = int(os.getenv(\"HCCL_BUFFSIZE\")), "
    "unconditional in ParallelInfoManager.__init__); MindIE-Motor conf/mindie_env.json `mindie_common_env` "
    "(Ascend/MindIE-LLM@8b4871a docs/zh/user_guide/models/deepseek/deepseek_v3.2.md:254-265)",
    why="The torch backend reads HCCL_BUFFSIZE with int(os.getenv(...)) for the MC2 group's buffer: unset, that is "
    "int(None), a TypeError at start-up. The env file beside config.json is where this deployment sets its "
    "environment and it does not set HCCL_BUFFSIZE (a warning: the variable may still be exported elsewhere).",
    cann_error="TypeError: int() argument must be a string, a bytes-like object or a real number, not 'NoneType'",
    fail_text="config.json with `\"backendType\": \"torch\"` beside conf/mindie_env.json whose mindie_common_env has "
    "no HCCL_BUFFSIZE.", pass_example=_OK,
    fix="Add \"HCCL_BUFFSIZE\": <MB> to mindie_common_env in conf/mindie_env.json (the guide uses 1050 for "
    "DeepSeek-V3.2 on A2), or export HCCL_BUFFSIZE before mindie_llm_server.")
BUFFSIZE_NOT_INTEGER = rule(
    "MC992", "mindie-hccl-buffsize-not-integer", ERROR, "MindIE torch backend: HCCL_BUFFSIZE is not an integer",
    family=_F, source=f"{_PIM}:217 (int(os.getenv(\"HCCL_BUFFSIZE\")))",
    why="int() of the variable's text fails for anything but an integer (`1050.5`, `1G`, `auto`): a ValueError "
    "at start-up.",
    cann_error="ValueError: invalid literal for int() with base 10: '1G'",
    fail_text="conf/mindie_env.json with `\"HCCL_BUFFSIZE\": \"1G\"` beside a torch-backend config.json.",
    pass_example=_OK, fix="Write HCCL_BUFFSIZE as a whole number of MB (e.g. 1050).")
LAUNCH = rule(
    "MC993", "mindie-launch", INFO, "What MindIE derives from config.json: parallel groups, scheduler limits, the MC2 "
    "dispatch arguments", family=_F,
    source=f"{_PIM}:201-219; Ascend/MindIE-LLM@8b4871a mindie_llm/runtime/layers/fused_moe/token_dispatcher.py:183-221 "
    "(global_bs = ceil(max_tokens_across_dp / attn_tp) x moe_ep, quant_mode 2 when quantised, tp_world_size 1 and "
    "x_active_mask on 910_93); mindie_llm/text_generator/adapter/generator_backend.py:88-94 (defaults -1)",
    why="A recognised MindIE deployment: the values MindIE resolves from ModelConfig and ScheduleConfig, and the "
    "dispatch_v2 arguments its torch backend computes. What depends on the model or the batch at run time (tokens "
    "per step, quantisation, which MoE path is chosen) is left unknown rather than assumed.",
    fail_text="any MindIE config.json with a ModelConfig entry.", pass_example=_OK,
    fix="Nothing to fix: read it to see what MindIE will build.")
