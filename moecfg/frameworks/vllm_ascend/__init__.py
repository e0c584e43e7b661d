"""vllm-ascend: `vllm serve` (or `python -m vllm.entrypoints.openai.api_server` / `.api_server`) on Ascend NPUs.

A vLLM launch is vllm-ascend's when the settings name an Ascend product (A2/A3) or the launch itself shows
Ascend: product hints (k8s resource names, SoC names), an image naming vllm-ascend / ascend, Ascend keys in
`--additional-config`, `--quantization ascend`, or Ascend environment variables. Otherwise the GPU `vllm`
framework takes it.

Versions (VERSIONS, oldest first): 0.11.0 (tag v0.11.0, 2f1aed9), 0.13.0 (tag v0.13.0, 6281c12), the 2026
releases v0.18.0 to the v0.26.0rc branch (releases_2026.py), 0.27 (main after #15014, from the PR diff) and main
(182b75e, 2026-08-22, the newest main read: the default). releases.py holds what differs between them.
"""
from __future__ import annotations

from moecfg.core.launch_rules import PRODUCT_UNKNOWN
from moecfg.frameworks import Derivation, LaunchContext, Note, OpCall, pick_version
from moecfg.frameworks.gpu_device import gpu_evidence
from moecfg.frameworks.hints import ascend_hint
from moecfg.frameworks.vllm_ascend import cli
from moecfg.frameworks.vllm_ascend.releases import RELEASES, match, newer_than_tables
from moecfg.sources.launch import Launch

NAME = "vllm-ascend"
VERSIONS = tuple(RELEASES)  # "main" last: the default

ASCEND_PRODUCTS = ("A2", "A3")
ASCEND_ENV_PREFIXES = ("HCCL_", "ASCEND_", "VLLM_ASCEND_", "PYTORCH_NPU_", "ATB_", "TASK_QUEUE_ENABLE",
                       "CPU_AFFINITY_CONF", "LCCL_", "MINDIE_")
# additional_config keys only vllm-ascend reads (VA@182b75e vllm_ascend/ascend_config.py)
ASCEND_CONFIG_KEYS = frozenset((
    "torchair_graph_config", "ascend_scheduler_config", "enable_mc2_hierarchy_comm", "enable_fused_mc2",
    "enable_prefill_mc2", "mega_moe_max_tokens", "eplb_config", "enable_shared_expert_dp",
    "multistream_overlap_shared_expert", "init_redundancy_expert", "dynamic_eplb", "expert_map_path",
    "expert_map_record_path", "finegrained_tp_config", "ascend_compilation_config", "xlite_graph_config",
    "enable_weight_nz_layout", "lmhead_tensor_parallel_size", "oproj_tensor_parallel_size", "pd_tp_ratio",
    "recompute_scheduler_enable", "enable_cpu_binding", "enable_mlapo", "mix_placement", "kv_cache_dtype",
))


def recognise(launch: Launch, ctx: LaunchContext | None = None) -> bool:
    """A vLLM launch with a sign of Ascend (`ctx`, when the caller passes it, supplies the settings' product)."""
    args = cli.read(launch)
    product = ctx.product if ctx and not gpu_evidence(launch) else None  # a launch showing NVIDIA is the GPU vllm's
    return args is not None and bool(ascend_evidence(launch, args, product))


def ascend_evidence(launch: Launch, args: cli.ServeArgs, product: str | None = None) -> str:
    """Why this vLLM launch runs on Ascend ('' = no sign of it: the GPU `vllm` framework's)."""
    if product in ASCEND_PRODUCTS:
        return f"product {product}"
    hint = ascend_hint(launch.hints)
    if hint:
        return f"hint {hint}"
    if launch.image and "ascend" in launch.image.lower():
        return f"image {launch.image}"
    extra = args.json.get("--additional-config")
    if extra and isinstance(extra.value, dict) and ASCEND_CONFIG_KEYS.intersection(extra.value):
        return "--additional-config with vllm-ascend keys"
    if args.flags.value("--quantization") == "ascend":
        return "--quantization ascend"
    for name in launch.env:
        if name.startswith(ASCEND_ENV_PREFIXES):
            return f"env {name}"
    return ""


def derive(launch: Launch, ctx: LaunchContext) -> Derivation:
    import moecfg.frameworks.vllm_ascend as me
    from moecfg.frameworks.vllm_ascend import model as M
    from moecfg.frameworks.vllm_ascend.build import derive_calls
    from moecfg.frameworks.vllm_ascend.rules import check_calls

    from moecfg.frameworks import flag_tables

    version, how = pick_version(me, launch, ctx, match)
    ctx = image_cann(launch, ctx)
    out = Derivation(NAME, version)
    args = cli.read(launch, flag_tables.launch_pick("vllm", launch, ctx, ("vllm", NAME)))
    if args is None:
        return out
    if not how:
        out.notes.append(Note("MC040", f"{_unmatched(launch, ctx)}: the derivation of the newest main read "
                              f"({RELEASES[version].ref}) applies", launch.span))
    elif RELEASES[version].from_pr:
        out.notes.append(Note("MC040", f"vllm-ascend {version} ({how}): {RELEASES[version].from_pr}", launch.span))
    else:
        from moecfg.frameworks.vllm_ascend import unread

        out.notes.extend(unread.notes(args, RELEASES[version]))
    if ctx.product not in ASCEND_PRODUCTS:
        from moecfg.frameworks.vllm_ascend.tokens import read_sizes

        read_sizes(args)  # a size vLLM refuses (MC025) is an error whatever the product
        if any(n.code == "MC025" for n in args.notes):
            out.notes.extend(args.notes)
            return out
        ep = args.flag("--enable-expert-parallel", False, kind=bool)
        if ep.value is False:  # no MC2 on either product: the answer would not change the verdict
            from moecfg.frameworks.models import known_moe

            out.calls.append(OpCall("serve", "none", None, {}, why_none="--enable-expert-parallel not given: "
                                    "vllm-ascend runs the MoE layers with all-gather (EP 1), no MC2 op",
                                    quiet=not known_moe(args.model.value, ctx)))
        else:
            out.notes.append(Note("MC042", f"{PRODUCT_UNKNOWN}: vllm-ascend picks MC2, all-gather or all-to-all by "
                                  "product; give `--product A3` or `product:` in .moecfg.yaml", launch.span))
        out.notes.extend(args.notes)
        return out
    dims = M.resolve(args.model, ctx)
    if dims is None and _ep_may_run(args):  # without EP no MC2 runs: the model changes no verdict, so no question
        out.notes.append(M.unknown_model_note(args.model, ctx, launch.span))
    out.calls, notes = derive_calls(args, RELEASES[version], ctx, ctx.product, dims)
    check_calls(args, RELEASES[version], ctx, out.calls)
    out.notes.extend(args.notes + notes)  # args.notes grow while the flags are read
    return out


def image_cann(launch: Launch, ctx: LaunchContext) -> LaunchContext:
    """No CANN release from the settings or --cann: a released vllm-ascend image's tag names the one it is built on
    (image_cann.json, generated from each release tag's Dockerfiles by tools/gen_vllm_ascend_image_cann.py)."""
    from moecfg.frameworks import image_version

    tag = image_version(launch.image) if ctx.cann is None and "vllm-ascend" in (launch.image or "").lower() else None
    if tag is None:
        return ctx
    import dataclasses
    import json
    from importlib.resources import files

    images = json.loads(files(__package__).joinpath("image_cann.json").read_text(encoding="utf-8"))["images"]
    row = images.get(tag)
    if row is None:
        return ctx
    why = (f"image {launch.image}: vllm-ascend v{tag} is built on CANN {row['cann']} (vllm-project/vllm-ascend@"
           f"{row['commit']} {row['dockerfiles'][0]}: FROM quay.io/ascend/cann:{row['cann']}-...)")
    return dataclasses.replace(ctx, cann=row["cann"], cann_source=why)


def _unmatched(launch: Launch, ctx: LaunchContext) -> str:
    """Why no release table was picked: no version given, one newer than every table, or a line without one."""
    from moecfg.frameworks import image_version

    given = image_version(launch.image) or ctx.version_for(NAME)
    if not given:
        return "vllm-ascend version not given (image tag or `framework_versions:` in .moecfg.yaml)"
    if newer_than_tables(given):
        return f"vllm-ascend {given} is newer than the newest release table (0.27)"
    return f"vllm-ascend {given} has no release table (tables: {', '.join(VERSIONS)})"


def _ep_may_run(args) -> bool:
    """--enable-expert-parallel given or unknown (its notes are said once, by derive_calls)."""
    seen = len(args.notes)
    value = args.flag("--enable-expert-parallel", False, kind=bool).value
    del args.notes[seen:]
    return value is not False
