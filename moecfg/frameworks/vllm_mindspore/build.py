"""From the launch's vLLM flags to vllm-mindspore's MoE layout and pure-EP op calls (a Derivation filled in place).

Order: the model backend variable (MC924 refuses it at import), vLLM's sizes, the MoE layout (parallel.py), which
model code runs (native MoE layers are derived; MindSpore Transformers' are not), the release (0.5.x: MC923), the
product (global_bs and tp_world_size depend on it), then the expert split (MC921) and one call per phase (MC922).
"""
from __future__ import annotations

from moecfg.core.launch_rules import PRODUCT_UNKNOWN
from moecfg.frameworks import Derivation, LaunchContext, Note, OpCall
from moecfg.frameworks.values import integer, unknown_buffsize
from moecfg.frameworks.vllm_ascend.cli import Arg, ServeArgs
from moecfg.frameworks.vllm_ascend.tokens import read_sizes, spans
from moecfg.frameworks.vllm_mindspore import calls as C
from moecfg.frameworks.vllm_mindspore import parallel as P
from moecfg.frameworks.vllm_mindspore import rules as R
from moecfg.frameworks.vllm_mindspore.releases import Release

BACKEND_VARS = ("VLLM_MS_MODEL_BACKEND", "vLLM_MODEL_BACKEND")  # the new name wins (utils.py:221-233)
BACKENDS = ("mindformers", "mindone", "native")


def derive_launch(launch, args: ServeArgs, ctx: LaunchContext, rel: Release, version: str, out: Derivation,
                  assumed: Note | None = None) -> None:
    """`assumed`: MC040 when the version was not given, said only where the release changes the verdict (pure EP)."""
    backend = _backend(args, rel, out)
    if backend is False:
        return
    sizes = read_sizes(args)
    if any(n.code == "MC025" for n in args.notes):  # vLLM refuses the size at start-up: nothing else to derive
        out.notes.extend(args.notes)
        return
    tp, dp, _pp, mns, mnbt, spec = sizes
    mnbt, mns = _defaults(args, mnbt, mns, rel)
    lay, ep = _layout(args, tp, dp, rel)
    out.notes.extend(args.notes)
    if lay is None:
        return
    from moecfg.frameworks.models import known_moe

    asked = args.flags.get("--enable-expert-parallel") is not None  # EP asked for: say why none runs, any model
    if lay.mode != P.PURE_EP:
        why = f"vllm-mindspore MoE {lay.mode} ({lay.why}; {rel.at('ep_size')}): no MC2 dispatch/combine"
        quiet = not (known_moe(args.model.value, ctx) or asked)
        out.calls.append(OpCall("serve", "none", None, {}, why_none=why, quiet=quiet))
        return
    dims, condition = _model_code(args, ctx, backend, rel, out)
    if dims is False:
        return
    cfg = args.flags.get("--additional-config")
    if cfg is not None and cfg.value is None:  # its expert_parallel may make the layout TP + EP: pure EP is an "if"
        unknown_cfg = "the --additional-config not known statically sets no expert_parallel"
        condition = f"{condition} and {unknown_cfg}" if condition else unknown_cfg
    out.notes.extend([assumed] if assumed is not None else [])
    if rel.pure_ep == "unimplemented":
        out.notes.append(_unimplemented(launch, version, rel, ep, condition))
        return
    split = _split(dims, ep, launch)
    if ctx.product not in P.MAX_BS:
        out.notes.extend([_if(split, condition)] if split is not None else [])
        out.notes.append(Note("MC042", f"{PRODUCT_UNKNOWN}: vllm-mindspore's pure EP passes global_bs 256 x EP on A2, "
                              f"512 x EP on A3 ({rel.cite['pure_ep']}); give `--product A2|A3` or `product:` in "
                              ".moecfg.yaml", launch.span))
        return
    _calls(launch, args, ctx, rel, (ep, dims, split, condition), C.phase_tokens(mnbt, mns, spec), out)
    out.notes.append(Note(R.LAUNCH.code, f"vllm-mindspore {version}: MoE pure EP, {lay.why} ({rel.at('ep_size')}); "
                          f"MC2 through ms_custom_ops dispatch_v3 with global_bs fixed at {P.MAX_BS[ctx.product]} x "
                          f"EP {ep.value} = {P.global_bs(ctx.product, ep.value)} on {ctx.product} whatever the batch "
                          f"({rel.cite['pure_ep']}): the op's window and HCCL_BUFFSIZE need are those of "
                          f"{P.MAX_BS[ctx.product]} tokens per rank", launch.span))


def _calls(launch, args: ServeArgs, ctx: LaunchContext, rel: Release, pure, phases, out: Derivation) -> None:
    """One MC2 call per phase; `pure` = (EP Arg, ModelDims | None, MC921 note | None, condition)."""
    ep, dims, split, condition = pure
    env, unknown = _env(args)
    if not phases:  # no call to carry them
        out.notes.extend(unknown)
    if not phases and split is not None:  # no call to carry it (tokens unknown): said on the launch
        out.notes.append(_if(split, condition))
    for role, bs in phases:
        call = C.mc2_call(role, bs, ep, ctx.product, dims, args.model, env, rel)
        call.condition = condition
        if ctx.cann:  # the settings' CANN release picks the op rules (without it: `latest` and MC011)
            call.arguments["cann_version"] = ctx.cann
            call.derivation["cann_version"] = f"{ctx.cann} <- settings"
        for note in unknown:  # set to a value not known statically: no buffer verdict from HCCL's default
            call.not_known(note)
        note = C.fixed_bs_note(call, bs, ctx.product, bs.spans[0] if bs.spans else launch.span)
        call.notes.extend(n for n in (split, note) if n is not None)  # per call: it covers the op's own finding
        out.calls.append(call)


def _if(note: Note, condition: str) -> Note:
    """A launch note about a call that runs only under `condition`: a warning saying so (as checking/launch.py does for
    the calls' own findings)."""
    from dataclasses import replace

    return replace(note, message=f"if {condition}: {note.message}", severity="warning") if condition else note


def _backend(args: ServeArgs, rel: Release, out: Derivation):
    """The model backend ("mindformers:VAR" | "mindone:VAR" | "native:VAR" | None = mixed | "unknown"), or False when
    vllm-mindspore refuses the value at import (MC924, said here)."""
    entry = next((args.env[n] for n in BACKEND_VARS if n in args.env), None)
    if entry is None:
        return None
    if entry.value is None:
        return "unknown"
    if entry.value.lower() in BACKENDS:
        return f"{entry.value.lower()}:{entry.name}"
    out.notes.append(Note(R.MODEL_BACKEND.code, f"{entry.name}={entry.value!r}: vllm-mindspore raises ValueError "
                          f"'Illegal value of VLLM_MS_MODEL_BACKEND' when it is imported ({rel.at('backend')}); set "
                          "it to MindFormers, MindONE or Native, or unset it", entry.span))
    return False


def _defaults(args: ServeArgs, mnbt: Arg, mns: Arg, rel: Release) -> tuple[Arg, Arg]:
    """vllm-mindspore's own defaults (VMS arg_utils.py): max_num_batched_tokens 2048 with chunked prefill (on by
    default), else max_model_len; max_num_seqs min(256, max_num_batched_tokens)."""
    if args.flags.get("--max-num-batched-tokens") is None:
        chunked = args.flag("--enable-chunked-prefill", True, kind=bool)
        if chunked.value is False:
            mml = args.flag("--max-model-len", None)
            mnbt = Arg(mml.value, mml.spans + chunked.spans, f"max_num_batched_tokens = {mml.said('max_model_len')} "
                       f"({chunked.text}, {rel.cite['defaults']})")
            if mml.value is None:
                args.notes.append(Note("MC023", f"{chunked.text} without --max-num-batched-tokens: vllm-mindspore "
                                       "uses the model's max_model_len, not known here; the prefill call's bs is left "
                                       "out", chunked.spans[0] if chunked.spans else args.start, "info"))
        elif mnbt.value is not None:
            mnbt = Arg(mnbt.value, (), f"max_num_batched_tokens {mnbt.value} (vllm-mindspore's API-server default, "
                       f"{rel.cite['defaults']})")
    if args.flags.get("--max-num-seqs") is None and mnbt.value is not None:
        n = min(256, mnbt.value)
        mns = Arg(n, (), f"max_num_seqs {n} (min(256, max_num_batched_tokens), {rel.cite['defaults']})")
    return mnbt, mns


def _layout(args: ServeArgs, tp: Arg, dp: Arg, rel: Release):
    """(Layout, EP as an Arg) or (None, None) when a size is unknown or additional_config expert_parallel is one
    vllm-mindspore cannot use (MC023 says which)."""
    enable = args.flag("--enable-expert-parallel", False, kind=bool)
    given = args.config("--additional-config", "expert_parallel")
    if tp.value is None or dp.value is None or enable.value is None:
        return None, None
    flat = tp.value * dp.value
    ep_cfg = integer(str(given.value)) if given.value is not None and not isinstance(given.value, bool) else None
    if given.value is not None and enable.value and flat > 1 and (ep_cfg is None or ep_cfg < 1 or flat % ep_cfg):
        args.notes.append(Note("MC023", f"{given.text}: vllm-mindspore sets MoE TP = tp x dp ({flat}) // "
                               "expert_parallel, which needs a positive divisor of tp x dp; the MoE layout is not "
                               f"derived ({rel.cite['ep_size']})", given.spans[0] if given.spans else args.start))
        return None, None
    lay = P.layout(tp.value, dp.value, bool(enable.value), ep_cfg)
    return lay, Arg(lay.ep, spans(tp, dp, enable, given), lay.why)


def _model_code(args: ServeArgs, ctx: LaunchContext, backend, rel: Release, out: Derivation):
    """(ModelDims | None, condition) when vllm-mindspore's native MoE layers run (or may); (False, "") when another
    backend's MoE layers run (MC920 says so)."""
    from moecfg.frameworks.vllm_ascend import model as M

    name, _, var = (backend or "").partition(":")
    if name in ("mindformers", "mindone"):
        owner = "MindSpore Transformers'" if name == "mindformers" else "MindSpore ONE's"
        out.notes.append(Note(R.LAUNCH.code, f"{var}={name}: the MoE layers are {owner}, configured outside these "
                              f"flags; moecfg derives only vllm-mindspore's native MoE layers ({rel.cite['native']})",
                              args.start))
        return False, ""
    dims = M.resolve(args.model, ctx)
    unset = "" if name == "native" else "VLLM_MS_MODEL_BACKEND is unset or Native (the launch does not set it: " \
        "with MindFormers, often exported beside, MindSpore Transformers' MoE layers run)"
    if dims is None:
        out.notes.append(M.unknown_model_note(args.model, ctx, args.start))
        native = "the model is one vllm-mindspore runs natively (Qwen3-MoE; DeepSeek-V3 and GLM-4.5 from 0.6)"
        return None, f"{native} and {unset}" if unset else native
    if not set(dims.architectures) & set(rel.native_moe):
        arch = f"architecture {', '.join(dims.architectures)}" if dims.architectures else "an architecture moecfg " \
            "does not know"
        out.notes.append(Note(R.LAUNCH.code, f"{dims.name} ({arch}): vllm-mindspore {rel.ref} has no native model for "
                              "it (the registry is keyed by config.json `architectures`); it runs through MindSpore "
                              "Transformers or MindSpore ONE, whose MoE layers moecfg does not derive "
                              f"({rel.cite['native']})",
                              args.model.spans[0] if args.model.spans else args.start))
        return False, ""
    return dims, unset


def _unimplemented(launch, version: str, rel: Release, ep: Arg, condition: str) -> Note:
    text = (f"vllm-mindspore {version}: EP {ep.value} covers every MoE rank ({ep.text}), so FusedExperts picks pure "
            f"EP, whose run_ep raises NotImplementedError('ep mode not implemented yet.') at the first MoE forward "
            f"(the profile run at start-up; {rel.at('pure_ep')}); drop --enable-expert-parallel, or set "
            "additional_config expert_parallel below tp x dp (TP+EP), or run a release from r0.6.0.rc1 on")
    if condition:
        return Note(R.EP_UNIMPLEMENTED.code, f"if {condition}: {text}", ep.spans[0] if ep.spans else launch.span,
                    "warning")
    return Note(R.EP_UNIMPLEMENTED.code, text, ep.spans[0] if ep.spans else launch.span)


def _split(dims, ep: Arg, launch) -> Note | None:
    return None if dims is None else C.split_note(dims.num_experts, ep, dims.name,
                                                   ep.spans[0] if ep.spans else launch.span)


def _env(args: ServeArgs) -> tuple[dict, list[Note]]:
    """HCCL_BUFFSIZE as the launch sets it; a value not known statically is said (MC023, naming the buffer rules
    not checked) and left out: HCCL's default stands only for a variable the launch does not set."""
    e = args.env.get("HCCL_BUFFSIZE")
    unknown = unknown_buffsize(e)  # `$BUF`, or no int (as vllm-ascend)
    if unknown is not None:
        return {}, [unknown]
    return ({"HCCL_BUFFSIZE": e} if e is not None else {}), []
