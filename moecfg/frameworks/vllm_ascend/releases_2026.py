"""vllm-ascend releases of 2026 (v0.18.0 on), as data: each a `Release` (releases.py) of the "main" family.

Read at the tags (and the release-branch heads) of vllm-project/vllm-ascend, mirror of 2026-08-22; the v0.18.0 and
v0.23.0 wheels on the package registry match their tags for ascend_config.py, ascend_forward_context.py and
ops/fused_moe/moe_comm_method.py. What differs between them here:
- enable_fused_mc2: env only (v0.18.0, v0.19.1rc1) or additional_config + env; values (0, 1, 2) up to v0.23.0, (0, 1) after;
  1 = dispatch_ffn_combine (EP <= 32; not the draft model before v0.23.0), 2 = dispatch_gmm_combine_decode.
- dispatch_ffn_combine max_output_size: fixed 65536 (v0.18.0, v0.19.1rc1), fixed 131072 (v0.20-v0.22), additional_config
  mega_moe_max_tokens from v0.23.0 (default 65536 in v0.23.0, 131072 from v0.24.0rc1).
- CANN MegaMoE (when `cann_ops_transformer` imports) from v0.25.1rc1; its max_recv_token_num is derived
  (num_max_tokens_per_rank x EP x min(top-k, experts per rank)) until #14730 (v0.26.0rc branch) / #15014 (main),
  which pass mega_moe_max_tokens instead (default 65536) -- merged after the mirror's heads, so that entry is read
  from the PR diffs and says so. There 0 and negative values reach the op (vllm-ascend#17162 proposes the check
  `>= 0` and documents 0 = auto, the op's own safe bound); every tag read refuses `<= 0` at start-up.
- "Fix MegaMoe prefill buffer sizing" (#14358 on releases/v0.26.0rc @6be4069; #14439 on main after 182b75e): the
  MegaMoE capacity follows max_num_batched_tokens; without it a prefill step overruns the buffer (MC952).
- the MC2 token capacity: eager steps capped at 512 tokens and no per-rank cap (v0.18-v0.22); per TP rank capped at
  512 (v0.23.0, v0.24.0rc1); per op (MC2 512, dispatch_ffn_combine 512, MegaMoE 4096) from v0.25.1rc1.
- global_bs on a kv_consumer (utils.py should_skip_allreduce_across_dp_group): decode and prefill both on MC2 (or
  recompute_scheduler_enable, top-level in additional_config) up to v0.24.0rc1; from v0.25.1rc1 (PR #14307) the
  prefill case also needs a cudagraph mode that does not separate decode, and the recompute key moves under
  scheduler_config. Each release cites its own lines.
Fields not listed above were read at each tag and compared with main@182b75e's code (the default capture size,
the mc2 group, the TP padding and mc2_mask, hierarchical communication, the group buffers, EPLB's redundant experts:
_same_as_main), each cited at the tag's own lines; A2's 24 experts per device is cited in the tag's `select`. A
release's `cite` names only its own commit: a topic without its own lines is cited at the tag by function
(_AT_EVERY_TAG), never as main's file:line.
"""
from __future__ import annotations

from moecfg.frameworks.vllm_ascend.releases_base import MAIN, VA, Release


# What the 2026 tags share with main@182b75e, by the functions that hold it (grep at e18643f, da421af, 367b8e6,
# 80610e4, 5f6faa0, 5cb98ca, 412cda2, 9bf964c, cf0baa3: each name is in the file at each of them).
_AT_EVERY_TAG = {
    "mc2_group": "vllm_ascend/distributed/parallel_state.py init_ascend_model_parallel (the mc2 group)",
    "split": "vllm_ascend/ascend_forward_context.py set_ascend_forward_context + ops/fused_moe/prepare_finalize.py",
    "capture": "vllm_ascend/platform.py _get_default_max_cudagraph_capture_size, apply_config_platform_defaults "
               "(vLLM's _set_cudagraph_sizes clips to max_num_batched_tokens)",
    "skip_allreduce": "vllm_ascend/utils.py should_skip_allreduce_across_dp_group",
    "hierarchy": "vllm_ascend/utils.py is_hierarchical_communication_enabled + ascend_config.py "
                 "enable_mc2_hierarchy_comm",
    "eplb": "vllm_ascend/eplb/core/eplb_utils.py init_eplb_config",
    "buffer": "vllm_ascend/utils.py get_hccl_config_for_pg_options",
    "dispatch": "vllm_ascend/ops/fused_moe/token_dispatcher.py TokenDispatcherWithMC2",
}


def _entry(key: str, ref: str, commit: str, lines: dict, **fields) -> Release:
    """A release like main@182b75e but for `fields`; `lines` names each cited file:line at this commit, the rest is
    cited at this commit by function (_AT_EVERY_TAG). A cite of main's that neither covers is left out."""
    at = f"{VA}@{commit}"
    if MAIN.ref.endswith("@" + commit):  # main itself (0.27: main read with PR diffs): main's cites are its own
        cite = dict(MAIN.cite)
    else:
        cite = {name: f"{at} {where}" for name, where in _AT_EVERY_TAG.items()}
        cite.update({name: text for name, text in MAIN.cite.items() if name not in cite and "@182b75e" not in text})
    cite.update({name: f"{at} {where}" for name, where in lines.items()})
    cite.setdefault("mega_moe", f"{at}: no MegaMoE path in this release")
    base = {f: getattr(MAIN, f) for f in MAIN.__slots__ if f not in ("key", "ref", "cite")}
    base.update(fields)
    if not base["skip_uniform_graphs"]:  # before #14307: the older rule, the top-level recompute key
        base["recompute_key"] = ("recompute_scheduler_enable",)
    return Release(key=key, ref=ref, cite=cite, **base)


_OLD_SKIP = {"skip_uniform_graphs": False}


def _args(gbs0: int, extra: int) -> str:
    """token_dispatcher.py lines that pass x_active_mask (global_bs 0) and tp_world_size 1 (A3/A5 extra args)."""
    return f"vllm_ascend/ops/fused_moe/token_dispatcher.py:{gbs0}-{gbs0 + 1},{extra}-{extra + 4}"


def _same_as_main(cap: tuple, mc2: tuple, split: int, hier: tuple, buf: tuple, eplb: int) -> dict:
    """The fields whose code is main's at this tag too, cited at the tag's own lines (each block read and compared
    with main@182b75e's): the default capture size min(max_num_seqs x decode_query_len, 512) (platform.py), the mc2
    group over DP x PCP x TP (parallel_state.py), the TP padding and mc2_mask (ascend_forward_context.py),
    hierarchical communication (utils.py + ascend_config.py), the group buffers (utils.py) and EPLB's redundant
    experts (eplb_utils.py init_eplb_config)."""
    return {
        "capture": f"vllm_ascend/platform.py:{cap[0]}-{cap[1]},{cap[2]}-{cap[3]} (default capture size; vLLM's "
                   "_set_cudagraph_sizes clips to max_num_batched_tokens)",
        "mc2_group": f"vllm_ascend/distributed/parallel_state.py:{mc2[0]}-{mc2[1]}",
        "split": f"vllm_ascend/ascend_forward_context.py:{split - 1}-{split + 6} + ops/fused_moe/prepare_finalize.py",
        "hierarchy": f"vllm_ascend/utils.py:{hier[0]}-{hier[0] + 3} + ascend_config.py:{hier[1]}",
        "buffer": f"vllm_ascend/utils.py:{buf[0]}-{buf[1]}",
        "eplb": f"vllm_ascend/eplb/core/eplb_utils.py:{eplb}-{eplb + 19}",
    }


_NO_MEGAMOE = {"mega_moe": "(no MegaMoE before v0.25.1rc1)"}


def _profile(first: int, last: int) -> str:
    return f"vllm_ascend/worker/model_runner_v1.py:{first}-{last} (profile run: _dummy_run of the MC2 capacity)"


def _skip(first: int, last: int) -> str:
    return f"vllm_ascend/utils.py:{first}-{last} (should_skip_allreduce_across_dp_group)"


_V018_LINES = {
    "capacity": "vllm_ascend/ascend_forward_context.py:170-186 (eager: min(max_num_reqs x query_len, 512))",
    "select": "vllm_ascend/ascend_forward_context.py:233-272", "fused": "vllm_ascend/envs.py:103 + "
    "ascend_forward_context.py:250-272", "dispatch_ffn_combine": "vllm_ascend/ops/fused_moe/moe_comm_method.py:292 "
    "(max_output_size=65536)", "dispatch": "vllm_ascend/ops/fused_moe/token_dispatcher.py:108-129",
    **_NO_MEGAMOE, **_same_as_main((157, 191, 198, 209), (85, 96), 153, (996, 170), (953, 990), 57), "skip_allreduce": _skip(1002, 1071), "profile": _profile(2544, 2547), "mc2_args": _args(170, 180)}
V018 = _entry("0.18.0", "v0.18.0@e18643f", "e18643f", _V018_LINES, **_OLD_SKIP, eager_cap=512, prefill_mc2=False,
              tp_rank_limits=False, fused="dfc", fused_values=(0, 1, 2), fused_config_key=False,
              dfc_output=("fixed", 65536), megamoe=False)

V019 = _entry("0.19.1rc1", "v0.19.1rc1@da421af", "da421af", {
    "capacity": "vllm_ascend/ascend_forward_context.py:195-211 (eager: min(max_num_reqs x query_len, 512))",
    "select": "vllm_ascend/ascend_forward_context.py:264-299", "fused": "vllm_ascend/envs.py:103 + "
    "ascend_forward_context.py:277-299", "dispatch_ffn_combine": "vllm_ascend/ops/fused_moe/moe_comm_method.py:294 "
    "(max_output_size=65536)", "dispatch": "vllm_ascend/ops/fused_moe/token_dispatcher.py:108-129",
    **_NO_MEGAMOE, **_same_as_main((158, 192, 199, 210), (85, 96), 178, (1021, 190), (978, 1015), 64), "skip_allreduce": _skip(1027, 1096), "profile": _profile(2919, 2922), "mc2_args": _args(173, 183)}, **_OLD_SKIP,
    eager_cap=512, prefill_mc2=False, tp_rank_limits=False, fused="dfc", fused_values=(0, 1, 2),
    fused_config_key=False, dfc_output=("fixed", 65536), megamoe=False)


def _v02x(key: str, commit: str, cfg_line: int, skip: tuple[int, int], profile: tuple[int, int],
          same: tuple) -> Release:
    lines = {"capacity": "vllm_ascend/ascend_forward_context.py:198-214 (eager: min(max_num_reqs x query_len, 512))",
             "select": "vllm_ascend/ascend_forward_context.py:283-305",
             "fused": f"vllm_ascend/ascend_config.py:{cfg_line}-{cfg_line + 4} + ascend_forward_context.py:283-305",
             "dispatch_ffn_combine": "vllm_ascend/ops/fused_moe/moe_comm_method.py:320 (max_output_size=131072)",
             "dispatch": "vllm_ascend/ops/fused_moe/token_dispatcher.py:120-141", **_NO_MEGAMOE, **_same_as_main(*same), "skip_allreduce": _skip(*skip), "profile": _profile(*profile), "mc2_args": _args(183, 193)}
    return _entry(key, f"v{key}@{commit}", commit, lines, **_OLD_SKIP, eager_cap=512, prefill_mc2=False, tp_rank_limits=False,
                  fused="dfc", fused_values=(0, 1, 2), dfc_output=("fixed", 131072), megamoe=False)


V020 = _v02x("0.20.2rc1", "367b8e6", 152, (1142, 1211), (3353, 3356),
             ((160, 194, 201, 212), (85, 96), 181, (1136, 269), (1093, 1130), 70))
V021 = _v02x("0.21.0rc1", "80610e4", 146, (1083, 1152), (3598, 3601),
             ((205, 239, 246, 259), (85, 96), 181, (1077, 263), (1034, 1071), 70))
V022 = _v02x("0.22.1rc1", "5f6faa0", 150, (1083, 1152), (3565, 3568),
             ((205, 239, 246, 259), (85, 96), 181, (1077, 267), (1034, 1071), 64))

V023 = _entry("0.23.0", "v0.23.0@5cb98ca", "5cb98ca", {
    "capacity": "vllm_ascend/ascend_forward_context.py:202-217 (per TP rank capped at 512)",
    "select": "vllm_ascend/ascend_forward_context.py:255-282",
    "fused": "vllm_ascend/ascend_config.py:173-178 + ascend_forward_context.py:255-282",
    "dispatch_ffn_combine": "vllm_ascend/ops/fused_moe/moe_comm_method.py:321 + ascend_config.py:306-313 "
                            "(mega_moe_max_tokens, default 65536)",
    "dispatch": "vllm_ascend/ops/fused_moe/token_dispatcher.py:121-133", **_NO_MEGAMOE, **_same_as_main((207, 241, 248, 261), (85, 96), 185, (1142, 298), (1099, 1136), 64), "skip_allreduce": _skip(1230, 1275), "profile": _profile(3685, 3688), "mc2_args": _args(182, 192)},
    **_OLD_SKIP, fused="dfc", fused_values=(0, 1, 2), dfc_output=("config", 65536), megamoe=False)

V024 = _entry("0.24.0rc1", "v0.24.0rc1@412cda2", "412cda2", {
    "capacity": "vllm_ascend/ascend_forward_context.py:201-216 (per TP rank capped at 512)",
    "select": "vllm_ascend/ascend_forward_context.py:254-266",
    "fused": "vllm_ascend/ascend_config.py:163-169 + ascend_forward_context.py:254-266",
    "dispatch_ffn_combine": "vllm_ascend/ops/fused_moe/moe_comm_method.py:325 + ascend_config.py:300-307 "
                            "(mega_moe_max_tokens, default 131072)",
    "dispatch": "vllm_ascend/ops/fused_moe/token_dispatcher.py:121-133", **_NO_MEGAMOE, **_same_as_main((207, 241, 248, 261), (81, 92), 184, (1085, 292), (1042, 1079), 73), "skip_allreduce": _skip(1173, 1218), "profile": _profile(3761, 3764), "mc2_args": _args(182, 192)},
    **_OLD_SKIP, fused="dfc", dfc_output=("config", 131072), megamoe=False)

V025 = _entry("0.25.1rc1", "v0.25.1rc1@9bf964c", "9bf964c", {
    "capacity": "vllm_ascend/ascend_forward_context.py:242-262",
    "select": "vllm_ascend/ascend_forward_context.py:43,304-345",
    "fused": "vllm_ascend/ascend_config.py:152-157 + ascend_forward_context.py:43 (cann_ops_transformer)",
    "mega_moe": "vllm_ascend/ops/fused_moe/moe_comm_method.py:303-355 (max_recv_token_num derived, :336-339)",
    "dispatch_ffn_combine": "vllm_ascend/ops/fused_moe/moe_comm_method.py:474 + ascend_config.py:263-270 "
                            "(mega_moe_max_tokens, default 131072)", **_same_as_main((206, 240, 247, 260), (76, 87), 225, (1077, 255), (1034, 1071), 73), "dispatch": "vllm_ascend/ops/fused_moe/token_dispatcher.py:130-147",
    "skip_allreduce": _skip(1165, 1214), "profile": _profile(3413, 3416), "mc2_args": _args(196, 206)})

V026 = _entry("0.26.0rc", "releases/v0.26.0rc@cf0baa3", "cf0baa3", {
    "capacity": "vllm_ascend/ascend_forward_context.py:272-295 (MegaMoE: max_num_batched_tokens, #14358 @6be4069)",
    "select": "vllm_ascend/ascend_forward_context.py:43,106-118,415-460",
    "fused": "vllm_ascend/ascend_config.py:150-155 + ascend_forward_context.py:43,106-118 (use_cann_megamoe)",
    "mega_moe": "vllm_ascend/ops/fused_moe/moe_comm_method.py:304-358 (max_recv_token_num derived, :337-340)",
    "dispatch_ffn_combine": "vllm_ascend/ops/fused_moe/moe_comm_method.py:487 + ascend_config.py:273-280 "
                            "(mega_moe_max_tokens, default 131072)", **_same_as_main((206, 240, 247, 260), (76, 87), 251, (1085, 265), (1042, 1079), 73), "dispatch": "vllm_ascend/ops/fused_moe/token_dispatcher.py:130-149",
    "skip_allreduce": _skip(1173, 1234), "profile": _profile(3560, 3563), "mc2_args": _args(198, 208)},
    megamoe_prefill_fix=True)

_PR = "vllm-project/vllm-ascend#15014 (main, merged 2026-08-26; #14730 on releases/v0.26.0rc)"
V027 = _entry("0.27", "main after #15014 (PR diff)", "182b75e", {
    "mega_moe": f"{_PR}: moe_comm_method.py _init_mega_moe_symm_buffer passes mega_moe_max_tokens as "
                "max_recv_token_num",
    "dispatch_ffn_combine": f"{_PR}: ascend_config.py:404 (mega_moe_max_tokens, default 65536)",
    "capacity": f"{VA}@182b75e vllm_ascend/ascend_forward_context.py:176-200 + #14439 (MegaMoE: "
                "max_num_batched_tokens)"},
    dfc_output=("config", 65536), megamoe_prefill_fix=True, recv_from_config=True, mmt_positive=False,
    from_pr="read from the diffs of vllm-ascend#14439 and #15014 (merged after the newest main read, 182b75e)")

RELEASES_2026 = (V018, V019, V020, V021, V022, V023, V024, V025, V026)
