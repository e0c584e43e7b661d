"""The release entries everything else builds on (the Release record, V011, V013 and MAIN): their own module, so
releases_2026.py (entries derived from MAIN) and releases.py (the table of all of them) import it and not each other.

Each field names the behaviour it selects; the formulas (formulas.py) take a Release. Citations are
repo@commit path:lines of vllm-project/vllm-ascend (and vllm-project/vllm for the defaults it relies on).
"""
from __future__ import annotations

from moecfg.core.record import record

VA = "vllm-project/vllm-ascend"


@record(frozen=True, slots=True)
class Release:
    key: str
    ref: str  # tag@commit
    capture_default: str  # "vllm_x2": vLLM's [1,2,4,8..] ladder up to min(2*max_num_seqs, 512); "seqs_x_query": min(max_num_seqs*(1+spec), 512)
    spec_enlarge: bool  # PIECEWISE graphs: sizes x (1+spec) when the largest < (1+spec)*max_num_seqs
    eager_cap: int | None  # eager: max tokens = min(max_num_seqs*(1+spec), eager_cap) (None: no cap)
    prefill_mc2: bool  # additional_config.enable_prefill_mc2 exists (capacity from max_num_batched_tokens)
    tp_rank_limits: bool  # tokens per TP rank capped at 512 (MC2, dispatch_ffn_combine) / 4096 (MegaMoE)
    global_bs: str  # "zero" | "always" (ceil(cap/TP) x EP) | "kv_consumer" (main's skip-allreduce rule)
    active_mask: str  # x_active_mask passed: "a3" | "never" | "global_bs_zero"
    hierarchy_flag: bool  # additional_config.enable_mc2_hierarchy_comm -> comm_alg "hierarchy"
    a2_max_experts_per_device: int | None  # A2 MC2 only with <= this many experts per device
    fused: str  # "none" | "v013" (env, w8a8_dynamic, dispatch_ffn_combine / gmm_combine_decode) | "main"
    torchair: bool  # additional_config.torchair_graph_config exists (its own runner and op choice)
    eplb: str  # "init_redundancy_expert" | "v013" | "main"
    ep_has_pcp: bool  # the mc2 group spans DP x PCP x TP (prefill context parallel), else DP x TP
    cite: dict
    family: str = "main"  # whose code structure the rest follows: "0.11.0" | "0.13.0" | "main" (2026 releases)
    fused_values: tuple = (0, 1)  # enable_fused_mc2 values the release accepts (others fail at start-up)
    fused_config_key: bool = True  # additional_config.enable_fused_mc2 read (else env VLLM_ASCEND_ENABLE_FUSED_MC2 only)
    dfc_output: tuple = ("config", 131072)  # dispatch_ffn_combine max_output_size: ("fixed", n) | ("config", default) | ("none", 0)
    megamoe: bool = True  # MegaMoE selected when `cann_ops_transformer` imports (else dispatch_ffn_combine only)
    megamoe_prefill_fix: bool = False  # "Fix MegaMoe prefill buffer sizing" (#14358 / #14439): nmt from max_num_batched_tokens
    recv_from_config: bool = False  # MegaMoE max_recv_token_num = mega_moe_max_tokens (#14730 / #15014), else derived
    mmt_positive: bool = True  # ascend_config refuses mega_moe_max_tokens <= 0 (else 0 and negatives reach the op)
    # kv_consumer skip-allreduce with prefill on MC2 needs a cudagraph mode that does not separate decode
    # (`uniform_cudagraph_mode`, PR #14307: v0.25.1rc1 on); before, prefill on MC2 suffices
    skip_uniform_graphs: bool = True
    recompute_key: tuple = ("scheduler_config", "recompute_scheduler_enable")  # additional_config path read
    from_pr: str = ""  # entry read from merged PR diffs, not from a tag (named in every message that uses it)


V011 = Release(
    key="0.11.0", ref="v0.11.0@2f1aed9", capture_default="vllm_x2", spec_enlarge=True, eager_cap=512,
    prefill_mc2=False, tp_rank_limits=False, global_bs="zero", active_mask="a3", hierarchy_flag=False,
    a2_max_experts_per_device=None, fused="none", torchair=True, eplb="init_redundancy_expert",
    ep_has_pcp=False, family="0.11.0", megamoe=False, dfc_output=("none", 0), cite={
        "profile": f"{VA}@2f1aed9 vllm_ascend/worker/model_runner_v1.py:2575-2579 (profile run: _dummy_run of the MC2 capacity)",
        "mc2_group": f"{VA}@2f1aed9 vllm_ascend/distributed/parallel_state.py:61-63",
        "capacity": f"{VA}@2f1aed9 vllm_ascend/worker/model_runner_v1.py:539-552",
        "select": f"{VA}@2f1aed9 vllm_ascend/worker/model_runner_v1.py:1854-1910",
        "dispatch": f"{VA}@2f1aed9 vllm_ascend/ops/moe/token_dispatcher.py:117-161",
        "split": f"{VA}@2f1aed9 vllm_ascend/ascend_forward_context.py:194-199 + "
                 "ops/moe/fused_moe_prepare_and_finalize.py:137-165",
        "capture": "vllm-project/vllm v0.11 vllm/config/__init__.py VllmConfig._set_cudagraph_sizes + "
                   "SchedulerConfig cuda_graph_sizes default [min(2*max_num_seqs, 512)]",
        "spec_enlarge": f"{VA}@2f1aed9 vllm_ascend/utils.py:488-506 (PIECEWISE only: platform.py:207-223)",
        "torchair": f"{VA}@2f1aed9 vllm_ascend/torchair/torchair_model_runner.py:100-119,473-482 + "
                    "ascend_forward_context.py:39-55",
        "hierarchy_env": f"{VA}@2f1aed9 vllm_ascend/utils.py:817-819",
        "eplb": f"{VA}@2f1aed9 vllm_ascend/ops/common_fused_moe.py:170-171",
        "buffer": f"{VA}@2f1aed9 vllm_ascend/utils.py:784-794",
    })

V013 = Release(
    key="0.13.0", ref="v0.13.0@6281c12", capture_default="seqs_x_query", spec_enlarge=False, eager_cap=512,
    prefill_mc2=False, tp_rank_limits=False, global_bs="always", active_mask="never", hierarchy_flag=False,
    a2_max_experts_per_device=None, fused="v013", torchair=False, eplb="v013",
    ep_has_pcp=True, family="0.13.0", fused_values=(0, 1, 2), fused_config_key=False, dfc_output=("fixed", 65536),
    megamoe=False, cite={
        "profile": f"{VA}@6281c12 vllm_ascend/worker/model_runner_v1.py:2354-2356 (profile run: _dummy_run of the MC2 capacity)",
        "mc2_group": f"{VA}@6281c12 vllm_ascend/distributed/parallel_state.py:45-47,96-102",
        "capacity": f"{VA}@6281c12 vllm_ascend/ascend_forward_context.py:173-186",
        "select": f"{VA}@6281c12 vllm_ascend/ascend_forward_context.py:209-279",
        "dispatch": f"{VA}@6281c12 vllm_ascend/ops/fused_moe/token_dispatcher.py:122-182",
        "split": f"{VA}@6281c12 vllm_ascend/ascend_forward_context.py:151-159 + "
                 "ops/fused_moe/prepare_finalize.py:222-300",
        "capture": f"{VA}@6281c12 vllm_ascend/patch/platform/patch_set_cudagraph_sizes.py:46-92",
        "fused": f"{VA}@6281c12 vllm_ascend/ops/fused_moe/moe_comm_method.py:309-342 (max_output_size=65536)",
        "hierarchy_env": f"{VA}@6281c12 vllm_ascend/utils.py is_hierarchical_communication_enabled",
        "eplb": f"{VA}@6281c12 vllm_ascend/eplb/core/eplb_utils.py:59-65 + ascend_config.py:67-77,155-162",
        "buffer": f"{VA}@6281c12 vllm_ascend/utils.py get_hccl_config_for_pg_options",
    })

MAIN = Release(
    key="main", ref="main@182b75e", capture_default="seqs_x_query", spec_enlarge=False, eager_cap=None,
    prefill_mc2=True, tp_rank_limits=True, global_bs="kv_consumer", active_mask="global_bs_zero",
    hierarchy_flag=True, a2_max_experts_per_device=24, fused="main", torchair=False, eplb="main",
    ep_has_pcp=True, cite={
        "profile": f"{VA}@182b75e vllm_ascend/worker/model_runner_v1.py:3470-3473 (profile run: _dummy_run of the MC2 capacity)",
        "mc2_group": f"{VA}@182b75e vllm_ascend/distributed/parallel_state.py:76-87",
        "capacity": f"{VA}@182b75e vllm_ascend/ascend_forward_context.py:33-35,176-200",
        "select": f"{VA}@182b75e vllm_ascend/ascend_forward_context.py:223-259,280-343",
        "dispatch": f"{VA}@182b75e vllm_ascend/ops/fused_moe/token_dispatcher.py:132-236",
        "mc2_args": f"{VA}@182b75e vllm_ascend/ops/fused_moe/token_dispatcher.py:198-199,208-212",
        "split": f"{VA}@182b75e vllm_ascend/ascend_forward_context.py:150-165 + ops/fused_moe/prepare_finalize.py",
        "capture": f"{VA}@182b75e vllm_ascend/platform.py:289-294,1275-1309 (vLLM's _set_cudagraph_sizes clips "
                   "to max_num_batched_tokens)",
        "skip_allreduce": f"{VA}@182b75e vllm_ascend/utils.py:1042-1076,1099-1147",
        "hierarchy": f"{VA}@182b75e vllm_ascend/utils.py:1011-1014 + ascend_config.py:274,330-350",
        "fused": f"{VA}@182b75e vllm_ascend/ascend_config.py:27,158-185,401-441",
        "mega_moe": f"{VA}@182b75e vllm_ascend/ops/fused_moe/moe_comm_method.py:283-336 + moe_utils.py:124-141",
        "dispatch_ffn_combine": f"{VA}@182b75e vllm_ascend/ops/fused_moe/moe_comm_method.py:417-446 + "
                                "ascend_config.py:283-290 (mega_moe_max_tokens, default 131072)",
        "eplb": f"{VA}@182b75e vllm_ascend/eplb/core/eplb_utils.py:73-92 + ops/fused_moe/routed_experts.py:300-330",
        "buffer": f"{VA}@182b75e vllm_ascend/utils.py:968-1008",
    })
