"""Documentation data of the MC8xx rules (combine_add_rms_norm MC80x, dispatch/combine v1 MC82x,
ffn_worker_batching MC84x), in the form of rule_examples.EXAMPLES. CANN's texts are from
ascend-mc2-rules.md §4-§6 (torch_npu's own texts are quoted in `why`, since `cann_error` is CANN's).

Every flat (non-hierarchy) combine_add_rms_norm document also gets the MC807 info (the op page's buffer
formula next to the code's); tests/integration/test_rule_docs.py allows it in pass examples.
"""
from __future__ import annotations

from moecfg.render.rule_examples import ex

ARN = dict(product="A3", cann_version="9.0.1", op="combine_add_rms_norm", bs=128, h=7168, k=8, ep_world_size=32,
           moe_expert_num=256, norm_eps="1.0e-6", env={"HCCL_BUFFSIZE": 1024})
ARN_85 = dict(ARN, cann_version="8.5")
V1 = dict(product="A3", cann_version="9.0.1", op="dispatch_combine_v1", bs=64, h=7168, k=8, ep_world_size=32,
          moe_expert_num=256, env={"HCCL_BUFFSIZE": 512})
FFN = dict(product="A3", cann_version="9.0.1", op="ffn_worker_batching", attention_workers=64, micro_batch_num=2,
           micro_batch_size=32, top_k=8, hidden=7168, expert_num=1160, layer_num=58, token_dtype="int8",
           need_schedule=1)

_ARN_TILING = ("The combine tiling (CombineV2 with Add + RmsNorm; CANN 8.5 the op's own copy) rejects the call: the "
               "first combine returns an error and the CANN log names the failed check, after the job has loaded its "
               "weights and built its communicators.")
_V1_TILING = ("The v1 dispatch (or combine) tiling rejects the attributes at the first call "
              "(moe_distribute_dispatch_tiling.cpp); the CANN log names the failed check.")
_FFN_TILING = ("FfnWorkerBatching's tiling (ffn_worker_batching_tiling.cpp) rejects the shape at the first call on "
               "the FFN worker; the attention workers then wait for it forever.")

# The scale-down example: 4 of 32 dies fail; the 28 left keep 8 experts each.
_SCALE_DOWN = {"ep_world_size": 28}

ASCEND_OPS: dict[str, dict] = {
    # ---- MC80x combine_add_rms_norm ----
    "MC800": dict(why="CANN ships the op only for Atlas A3 (op config ascend910_93, no ascend910b binary): on A2 the "
                  "aclnn call finds no kernel and fails at the first combine.",
                  fail=ex(ARN, product="A2"), pas=ex(ARN),
                  fix="On A2 use op dispatch_combine_v2 followed by a separate Add + RmsNorm; or deploy on A3."),
    "MC801": dict(why=_ARN_TILING + " The RmsNorm epsilon is the attribute normEps; the op cannot run without it.",
                  fail=ex(ARN, norm_eps=None), pas=ex(ARN),
                  fix="Add norm_eps with the model's rms_norm_eps (e.g. 1.0e-6)."),
    "MC802": dict(why=_ARN_TILING + " CANN 8.5 takes expand_x only as BF16 (tiling L502-504); 9.0 adds FP16.",
                  fail=ex(ARN_85, x_dtype="fp16"), pas=ex(ARN_85),
                  fix="Use bf16 activations, or CANN 9.0 or newer."),
    "MC803": dict(why=_ARN_TILING + " residual_x (the input of the Add) must be BF16 with shape (bs, 1, h).",
                  fail=ex(ARN, residual_x_shape=[128, 1, 4096]), pas=ex(ARN, residual_x_shape=[128, 1, 7168]),
                  fix="Pass residual_x as a BF16 tensor of shape (bs, 1, h)."),
    "MC804": dict(why=_ARN_TILING + " gamma (the RmsNorm weight) must be BF16 with shape (h,).",
                  fail=ex(ARN, gamma_dtype="fp16"), pas=ex(ARN, gamma_shape=[7168]),
                  fix="Pass gamma as a BF16 tensor of shape (h,)."),
    "MC805": dict(why="Nothing fails in the combine: CANN 8.5's combine_add_rms_norm tiling only needs "
                  "local_expert_num > 0, but the dispatch it is paired with (aclnn DispatchV3) rejects "
                  "local_expert_num * ep_world_size > 2048 (MC202, reported next to this note).",
                  fail=ex(ARN_85, bs=16, ep_world_size=16, moe_expert_num=1024, shared_expert_num=4,
                          shared_expert_rank_num=12, env={"HCCL_BUFFSIZE": 4096}),
                  pas=ex(ARN_85),
                  fix="Fix MC202: fewer experts per rank, or more MoE ranks."),
    "MC806": dict(why="After an elastic scale-down the op assumes every remaining MoE rank keeps the same "
                  "local_expert_num (the op page's scale-down constraint); a different count routes tokens to experts "
                  "no rank holds (wrong output or a hang). elastic_scale_down describes the elastic_info tensor, "
                  "which the op reads only with elastic_info.",
                  fail=ex(ARN, elastic_info=True, elastic_scale_down={"ep_world_size": 28, "moe_expert_num": 256}),
                  pas=ex(ARN, elastic_info=True, elastic_scale_down=_SCALE_DOWN),
                  fix="Leave moe_expert_num out of elastic_scale_down (moecfg derives local_expert_num * ranks left), "
                  "or set it to that product; set elastic_info: true."),
    "MC807": dict(why="Nothing fails: the aclnnMoeDistributeCombineAddRmsNormV2 page sizes HCCL_BUFFSIZE with its "
                  "own formula, which differs from the code's check (MC501, the verdict). Both figures are shown so "
                  "you can tell which one your sizing followed. Hierarchy has no documented formula.",
                  fail=ex(ARN),
                  pas=ex(ARN, comm_alg="hierarchy", expert_scales=True, env={"HCCL_BUFFSIZE": 4096}),
                  fix="Size HCCL_BUFFSIZE by the code's figure; nothing to change while MC501 is silent."),
    # ---- MC82x dispatch/combine v1 ----
    "MC820": dict(why=_V1_TILING + " On A3 v1 runs only on the listed EP sizes; on A2 on multiples of 8 up to 256.",
                  cann_error="epWorldSize should be in the list[8, 16, 32, 64, 128, 144, 256, 288]",
                  fail=ex(V1, ep_world_size=24, moe_expert_num=240), pas=ex(V1),
                  fix="Use a listed EP size, or op dispatch_combine_v2 (2-768 ranks on A3)."),
    "MC821": dict(why=_V1_TILING, cann_error="xShape dims1(H) only supports 7168",
                  fail=ex(V1, h=4096), pas=ex(V1),
                  fix="v1 on A3 is built for DeepSeek-V3's h = 7168 only; use op dispatch_combine_v2 for other models."),
    "MC822": dict(why=_V1_TILING + " v1 takes at most 8 experts per token on A3 (16 on A2), and no more than exist.",
                  fail=ex(V1, k=9), pas=ex(V1),
                  fix="k <= 8 on A3 (16 on A2), or op dispatch_combine_v2 (k <= 16)."),
    "MC823": dict(why=_V1_TILING, cann_error="sharedExpertNum only support 1",
                  fail=ex(V1, shared_expert_num=2), pas=ex(V1, shared_expert_num=1),
                  fix="shared_expert_num: 1 (torch_npu's default), with ep_world_size divisible by "
                  "shared_expert_rank_num."),
    "MC824": dict(why=_V1_TILING + " Every MoE rank holds the same number of experts, at most 512 in all.",
                  fail=ex(V1, moe_expert_num=250), pas=ex(V1),
                  fix="moe_expert_num a multiple of the MoE ranks (ep_world_size - shared_expert_rank_num), <= 512."),
    "MC825": dict(why=_V1_TILING + " v1 takes at most 512 tokens per rank on A3, 256 on A2.",
                  fail=ex(V1, bs=513, env={"HCCL_BUFFSIZE": 4096}), pas=ex(V1, bs=512, env={"HCCL_BUFFSIZE": 4096}),
                  fix="Lower the tokens per rank (micro-batch)."),
    "MC826": dict(why=_V1_TILING + " The TP group of v1 has 0, 1 or 2 ranks.",
                  fail=ex(V1, tp_world_size=4), pas=ex(V1, tp_world_size=2, group_tp="tp_group"),
                  fix="tp_world_size 0, 1 or 2, with tp_rank_id in [0, tp_world_size)."),
    "MC827": dict(why="The v1 combine tiling (moe_distribute_combine_tiling.cpp L440) rejects comm_quant_mode at the "
                  "first combine.", fail=ex(V1, comm_quant_mode=1), pas=ex(V1, comm_quant_mode=2),
                  fix="comm_quant_mode 0 (none) or 2 (int8)."),
    "MC828": dict(why="A3: the v1 tiling compares the EP window ep * max_bs * h * 2 * 2 * local_expert_num with the "
                  "communicator's HCCL buffer and refuses to run. A2 (layered, latest rules): CANN only logs a warning "
                  "and the op runs with a window too small for large batches.",
                  cann_error="HCCL_BUFFSIZE is too SMALL",
                  fail=ex(V1, env={"HCCL_BUFFSIZE": 256}), pas=ex(V1),
                  fix="Set HCCL_BUFFSIZE (or hccl_buffer_size.ep) to at least the size the message names."),
    "MC829": dict(why="With tp_world_size = 2 the v1 tiling also checks the TP communicator's buffer against "
                  "A * (2h + 128) * 2 (L501-512) and refuses to run when it is smaller.",
                  fail=ex(V1, tp_world_size=2, group_tp="tp_group", hccl_buffer_size={"ep": 512, "tp": 1}),
                  pas=ex(V1, tp_world_size=2, group_tp="tp_group"),
                  fix="Give the TP communicator (hccl_buffer_size.tp, else HCCL_BUFFSIZE) the size the message names."),
    # ---- MC84x ffn_worker_batching ----
    "MC840": dict(why="CANN 8.5 has no FfnWorkerBatching op (it was added upstream in 2026-02): the aclnn call or the "
                  "torch_npu op is missing at the first call.",
                  fail=ex(FFN, cann_version="8.5"), pas=ex(FFN),
                  fix="Use CANN 9.0 or newer for attention/FFN disaggregation."),
    "MC841": dict(why=_FFN_TILING, cann_error="expert_num:8193 should be in range (0, 8192]",
                  fail=ex(FFN, expert_num=8193, layer_num=0), pas=ex(FFN),
                  fix="expert_num (experts per layer on this worker * layer_num) at most 8192; spread the layers over "
                  "more FFN workers."),
    "MC842": dict(why=_FFN_TILING + " max_out_shape[0], the attention workers, is at most 1024.",
                  fail=ex(FFN, attention_workers=1025), pas=ex(FFN),
                  fix="At most 1024 attention workers per FFN worker."),
    "MC843": dict(why="torch_npu's ScheduleContextHolder refuses micro_batch_num = 0 (\"micro_batch_num can't be 0\") "
                  "and the tiling a micro_batch_size <= 0; more than 64 micro batches is beyond the documented range "
                  "(a warning).",
                  fail=ex(FFN, micro_batch_num=0), pas=ex(FFN),
                  fix="micro_batch_num in [1, 64], micro_batch_size >= 1."),
    "MC844": dict(why=_FFN_TILING + " max_out_shape[2] is top_k + 1 (the shared expert included) and at most 64, so "
                  "top_k <= 63 although the op page says top_k <= 64.",
                  fail=ex(FFN, top_k=64), pas=ex(FFN),
                  fix="top_k <= 63 (routed experts per token, without the shared expert)."),
    "MC845": dict(why=_FFN_TILING + " max_out_shape[3], the hidden size, must be positive.",
                  fail=ex(FFN, hidden=0), pas=ex(FFN), fix="Write the model's hidden size."),
    "MC846": dict(why=_FFN_TILING + " need_schedule selects tiling key 100 (0) or 101 (1); no other kernel exists.",
                  fail=ex(FFN, need_schedule=2), pas=ex(FFN),
                  fix="need_schedule: 0 (batching only) or 1 (scan the data first)."),
    "MC847": dict(why=_FFN_TILING + " layer_num is at most expert_num; an expert_num that is not a multiple of "
                  "layer_num (a warning) means the per-layer expert count is not what you think.",
                  fail=ex(FFN, layer_num=1161), pas=ex(FFN),
                  fix="layer_num in [0, expert_num], expert_num = experts per layer on this worker * layer_num."),
    "MC848": dict(why="torch_npu's ScheduleContextHolder refuses a token slot that is not a multiple of 512 "
                  "(\"attn_to_ffn_token_size must be align with 512\"); a slot smaller than one token (h bytes plus "
                  "the 4-byte int8 scale) makes the attention workers overwrite the next token.",
                  fail=ex(FFN, attn_to_ffn_token_size=7168), pas=ex(FFN, attn_to_ffn_token_size=7680),
                  fix="Use Align512(token bytes): h + 4 for int8 tokens (7168 -> 7680), 2h for fp16/bf16."),
    "MC849": dict(why="torch_npu's ScheduleContextHolder::InitFfn refuses a window not larger than the token_info "
                  "area (\"ffn_window_size must be > token_info_aligned_size\"); a window that cannot hold "
                  "A * M * BS * (K+1) token slots is overrun by the attention workers' writes.",
                  fail=ex(FFN, ffn_window_size=134217728), pas=ex(FFN, ffn_window_size=285212672),
                  fix="Set ffn_window_size to at least the size the message names."),
}

EXAMPLES = ASCEND_OPS
