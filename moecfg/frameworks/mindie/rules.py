"""MindIE-LLM start-up rules (MC990-MC997): what `mindie_llm_server` refuses at start-up with this config.json,
and what it derives.

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

ERROR_LABELS = {f"MC99{i}": "MindIE's error" for i in range(8)}  # explain: whose error is quoted
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
    "MC991", "mindie-hccl-buffsize-unset", INFO, "MindIE torch backend: the deployment's env file does not set "
    "HCCL_BUFFSIZE (the MC2 group then gets set_env.sh's 120 MB)", family=_F,
    source=f"{_PIM}:217 (moe_ep_mc2_buffer_size = int(os.getenv(\"HCCL_BUFFSIZE\")), unconditional in "
    "ParallelInfoManager.__init__); Ascend/MindIE-LLM@8b4871a scripts/set_env.sh:39 (`export HCCL_BUFFSIZE=120`); "
    "MindIE-Motor conf/mindie_env.json `mindie_common_env` (docs/zh/user_guide/models/deepseek/deepseek_v3.2.md:"
    "254-265)",
    why="The torch backend reads HCCL_BUFFSIZE with int(os.getenv(...)) for the MC2 group's buffer. The env file "
    "beside config.json is where this deployment sets its environment and it does not set HCCL_BUFFSIZE: the value "
    "is then MindIE set_env.sh's 120 MB (every guide sources it), or a TypeError at start-up when set_env.sh was not "
    "sourced. The op calls are judged with 120 MB, as a condition (their errors become warnings).",
    cann_error="TypeError: int() argument must be a string, a bytes-like object or a real number, not 'NoneType'",
    fail_text="config.json with `\"backendType\": \"torch\"` beside conf/mindie_env.json whose mindie_common_env has "
    "no HCCL_BUFFSIZE.", pass_example=_OK,
    fix="Add \"HCCL_BUFFSIZE\": <MB> to mindie_common_env in conf/mindie_env.json (the guide uses 1050 for "
    "DeepSeek-V3.2 on A2).")
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

_MOE = "Ascend/MindIE-LLM@8b4871a mindie_llm/runtime/layers/fused_moe"
_ATB = "Ascend/MindIE-LLM@8b4871a examples/atb_models/atb_llm"
FUSED_TOKENS = rule(
    "MC994", "mindie-fused-mc2-tokens", ERROR, "MindIE torch backend on A3: FusedMC2 steps of more than 4096 tokens "
    "per device raise RuntimeError", family=_F,
    source=f"{_MOE}/moe_comm_strategy.py:22, :64-98 (FusedMC2Strategy raises instead of falling through); "
    "moe_comm_strategy.py:25-37 (tokens per device = max tokens across DP / attention TP); "
    "mindie_llm/text_generator/generator.py:512-516 (the warm-up runs maxPrefillTokens at start-up)",
    why="On 910_93 with moe_ep <= 32 and no moe_tp MindIE picks FusedMC2 (npu_dispatch_ffn_combine) for every step "
    "and refuses a step whose tokens per device exceed the operator's 4096: maxPrefillTokens / tp (a prefill step) "
    "or maxBatchSize x (1 + MTP) / tp (a decode step). The warm-up runs the prefill size at start-up, so the server "
    "does not start; a decode step that large fails once the batch reaches it (the warm-up decodes its own requests, "
    "at most maxBatchSize: generator.py:1370-1373, 1417).",
    cann_error="RuntimeError: num_tokens_per_device(8192) is larger than MAX_FUSED_MC2_OPERATOR_CAPACITY(4096), "
    "please check the config.",
    fail_text="config.json on A3 with `\"backendType\": \"torch\", \"tp\": 1, \"moe_ep\": 16, \"moe_tp\": 1` and "
    "ScheduleConfig `\"maxPrefillTokens\": 8192` (8192 tokens per device > 4096).", pass_example=_OK,
    fix="Lower maxPrefillTokens (or maxBatchSize) so that tokens / tp <= 4096, or raise tp.")
NO_STRATEGY = rule(
    "MC995", "mindie-moe-strategy", ERROR, "MindIE torch backend: no MoE communication strategy applies to a step "
    "(RuntimeError 'MoE strategy selection failed')", family=_F,
    source=f"{_MOE}/moe_comm_method.py:34-57, moe_comm_strategy.py:105-209 (MC2: no moe_tp, tokens <= capacity, "
    "<= 24 experts per rank, on 910B world size 16/32/64; All2All: prefill only; AllGather: 910B without attention "
    "DP and moe_tp); mindie_llm/runtime/model_runner/forward_context_exp.py:33-52 (capacity)",
    why="Each MoE layer picks the first strategy that applies. MoE TP is refused by all of them; a decode step "
    "above the MC2 token capacity (or with more than 24 experts per rank) has no MC2, All2All serves prefill only "
    "and AllGather runs on A2 without attention DP only: then the layer raises, first in the start-up warm-up.",
    cann_error="RuntimeError: MoE strategy selection failed, please check the config.",
    fail_text="config.json with `\"backendType\": \"torch\", \"worldSize\": 16, \"moe_tp\": 2, \"moe_ep\": 8` "
    "serving DeepSeek-V3.", pass_example=_OK,
    fix="Set moe_tp 1 and moe_ep = the world size; keep decode tokens per device within the MC2 capacity.")
ATB_BUFFER_REFUSED = rule(
    "MC996", "mindie-atb-buffer-refused", ERROR, "MindIE atb backend: a parallel_options HCCL buffer below what "
    "atb's validator accepts", family=_F, tags=("autofix",),
    source=f"{_ATB}/models/base/router.py:401-406 (hccl_buffer >= 1, hccl_moe_ep_buffer >= 512, hccl_moe_tp_buffer "
    ">= 64); models/deepseekv2/router_deepseekv2.py:35-48 (DeepSeek: hccl_moe_ep_buffer >= max(512, HCCL_BUFFSIZE));"
    " utils/configuration_utils.py:91-120 (merged into llm, refused as 'Validation failed')",
    why="The model's `models.<type>.parallel_options` are merged into atb's llm config and validated before the "
    "model loads; a value below the floor (or not an integer) stops the server.",
    cann_error="RuntimeError: Validation failed: ...",
    fail_text="config.json with `\"backendType\": \"atb\"` and `\"models\": {\"deepseekv2\": {\"parallel_options\": "
    "{\"hccl_moe_ep_buffer\": 256}}}`.", pass_example=_OK,
    fix="Set the buffer to at least the floor the message names (for DeepSeek: max(512, HCCL_BUFFSIZE)).")
ATB_BUFFER_RAISED = rule(
    "MC997", "mindie-atb-buffer-raised", INFO, "MindIE atb backend, ep_level 2: atb raises hccl_moe_ep_buffer / "
    "hccl_moe_tp_buffer to its own minimum with only a log warning", family=_F,
    source=f"{_ATB}/models/deepseekv2/flash_causal_deepseekv2.py:1047-1061, :1358-1367 (calc_moe_buffer_size)",
    why="With dynamic EP (ep_level 2) atb computes the buffer one batch needs and silently uses it when the "
    "configured one is smaller: the device memory the MoE communicators take is then not what config.json says.",
    fail_text="ep_level 2, DeepSeek-V3 on 16 devices, maxBatchSize 4096, hccl_moe_ep_buffer 512 (needs "
    "ceil(ceil(4096 / 16) x 7168 x 256 x 4 B / MiB) + 1 = 1793 MB).",
    pass_example=_OK, fix="Write the buffer atb will use into parallel_options, so the configuration says what runs.")
