"""vLLM on NVIDIA GPUs: `vllm serve` / `python -m vllm.entrypoints.openai.api_server` with expert parallelism.

vllm-ascend comes first in FRAMEWORK_MODULES and takes every launch that shows Ascend, or that shows no NVIDIA
hardware in a folder whose settings name an Ascend product (`product: A3`); this module takes the rest. With `--enable-expert-parallel` and a DeepEP all-to-all backend the MoE layers build one
DeepEP `Buffer` per rank: calls.py derives its arguments as a `kind: deepep` document, releases.py holds what
differs between versions.
"""
from __future__ import annotations

from moecfg import frameworks
from moecfg.frameworks import Derivation, LaunchContext, Note
from moecfg.frameworks.flags import FlagSpec
from moecfg.frameworks.vllm.releases import RELEASES, match
from moecfg.frameworks.vllm_ascend import cli
from moecfg.sources.launch import Launch

NAME = "vllm"
VERSIONS = tuple(RELEASES)


def recognise(launch: Launch, ctx: LaunchContext | None = None) -> bool:
    return cli.command_start(launch) is not None


def pick(launch: Launch, ctx: LaunchContext) -> tuple[str, str]:
    """(version, how): an image tag only when the image is vLLM's own (llm-d's tags are llm-d versions)."""
    image = (launch.image or "").rsplit("/", 1)[-1]
    tag = frameworks.image_version(launch.image) if image.startswith("vllm") else None
    if tag and match(tag):
        return match(tag), f"image tag {launch.image}"
    configured = ctx.version_for(NAME)
    if configured and match(configured):
        return match(configured), f"framework_versions.vllm = {configured} in the settings"
    return VERSIONS[-1], ""


def derive(launch: Launch, ctx: LaunchContext) -> Derivation:
    from moecfg.frameworks.vllm.calls import derive_call

    from moecfg.frameworks import flag_tables

    version, how = pick(launch, ctx)
    out = Derivation(NAME, version)
    flags_for = flag_tables.launch_pick("vllm", launch, ctx)
    args = cli.read(launch, flags_for, (FlagSpec("--all2all-backend"),))  # MC970 names its absence in 0.11.0
    if args is None:
        return out
    newer = flag_tables.newer_note("vllm", "vLLM", flags_for, launch.span)
    if newer is not None:
        out.notes.append(newer)
    if not how:
        out.notes.append(Note("MC040", f"vLLM version not given (a vllm image tag or `framework_versions: {{vllm: "
                              f"...}}`): deriving as vLLM {RELEASES[version].ref}; flags read as vLLM "
                              f"{flag_tables.releases('vllm')[-1]}'s (the newest release read, older releases' flags "
                              "accepted)", launch.span))
    if _refused_size(args):  # vLLM stops at start-up (MC025) whatever the backend: nothing else to derive
        out.notes.extend(args.notes)
        return out
    call, notes = derive_call(launch, args, ctx, RELEASES[version])
    if not how:  # an image whose tag is not vLLM's (llm-d-cuda:v0.4.0) may ship a vLLM that still reads the env
        notes = [_assumed(n) for n in notes]
    out.notes.extend(args.notes + notes)
    if call is not None:
        out.calls.append(call)
    return out


def _refused_size(args) -> bool:
    """A size vLLM refuses (tp/dp/pp 0, ...): the MC025 notes stay; any other note of this reading is dropped, since
    the derivation reads the sizes again."""
    from moecfg.frameworks.vllm_ascend.tokens import read_sizes

    seen = len(args.notes)
    read_sizes(args)
    if any(n.code == "MC025" for n in args.notes[seen:]):
        return True
    del args.notes[seen:]
    return False


def _assumed(note: Note) -> Note:
    from dataclasses import replace

    if note.code != "MC970" or "VLLM_ALL2ALL_BACKEND=" not in note.message:
        return note
    return replace(note, message=note.message + " (the vLLM version is assumed, MC040: if the image ships vLLM <= "
                   "0.15, which still reads the variable, pin it with `framework_versions: {vllm: ...}`)")
