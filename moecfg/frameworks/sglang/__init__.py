"""SGLang launches (`python -m sglang.launch_server ...`, `python3 -m sglang.launch_server`, `sglang serve`, and NVIDIA
Dynamo's SGLang worker `python3 -m dynamo.sglang`, which takes SGLang's ServerArgs flags: ai-dynamo/dynamo@1cc36a6
recipes/deepseek-r1/sglang-wideep/tep8p-dep8d-disagg.yaml).

This module recognises the command and dispatches by device: on Ascend (`ascend.py`) the DeepEP calls of
sgl-kernel-npu are derived per phase; on NVIDIA GPUs (`gpu.py`) the one DeepEP Buffer a rank builds.
Derivations follow SGLang main of 2026-08 (server_args.py @001067f, layers/moe/token_dispatcher/deepep.py @003a81b),
with the flags of the release the launch runs (flag_tables/sglang.json, every release 0.4.0 .. 0.5.23 read from its
wheel) and what differs between releases on GPUs (releases.py: MegaMoE variable, deepep_v2 cap variable, FP8 sizing,
autotune warm-up, graph clamp). The release comes from the image tag, then `framework_versions.sglang`, else the
newest release read (said in MC040).
"""
from __future__ import annotations

import os
import re
import sys
from dataclasses import replace

from moecfg import frameworks
from moecfg.frameworks import Derivation, LaunchContext
from moecfg.frameworks.flags import parse_flags
from moecfg.frameworks.gpu_device import gpu_evidence
from moecfg.frameworks.hints import ascend_hint
from moecfg.frameworks.sglang import ascend, gpu
from moecfg.sources.launch import Launch

NAME = "sglang"
VERSIONS = ("main-2026-08",)
_PYTHON = re.compile(r"^python(\d+(\.\d+)?)?$")
# Environment variables only an Ascend job sets (CANN / HCCL / sgl-kernel-npu)
ASCEND_ENV = ("ASCEND_RT_VISIBLE_DEVICES", "HCCL_BUFFSIZE", "DEEPEP_HCCL_BUFFSIZE", "HCCL_OP_EXPANSION_MODE",
              "HCCL_CONNECT_TIMEOUT", "HCCL_SOCKET_IFNAME", "ASCEND_USE_FIA", "PYTORCH_NPU_ALLOC_CONF")


def command_start(launch: Launch) -> int | None:
    """Index of the first argument after the SGLang entry point, or None when this is not an SGLang launch."""
    words = launch.words()
    for i, w in enumerate(words):
        base = os.path.basename(w or "")
        if _PYTHON.match(base) and words[i + 1:i + 3] in (["-m", "sglang.launch_server"], ["-m", "dynamo.sglang"]):
            return i + 3
        if base == "sglang" and words[i + 1:i + 2] == ["serve"]:
            return i + 2
    return None


def recognise(launch: Launch, ctx: LaunchContext | None = None) -> bool:
    return command_start(launch) is not None


def _given_version(launch: Launch, ctx: LaunchContext) -> str | None:
    tag = frameworks.image_version(launch.image)
    return tag if tag and _match(tag) else ctx.version_for(NAME)


def _match(version_text: str) -> str | None:
    return VERSIONS[-1] if re.match(r"^\d+\.\d+", version_text) else None


def _version_note(launch: Launch, version: str) -> frameworks.Note:
    """MC040: the version is not known. An image tag naming no version (`:deepseek-v4-blackwell`) is read as the
    newest release (flag_tables.launch_pick), a launch without one as the newest release's flags on main's code."""
    from moecfg.frameworks.flag_tables import releases, unversioned_tag

    newest = releases(NAME)[-1]
    tag = unversioned_tag(NAME, launch.image) if launch.image else None
    if tag is not None:
        return frameworks.Note("MC040", f"SGLang image tag `{tag}` names no version: an unknown version, derived as "
                               f"the newest release read (SGLang {newest}: its flags and buffer sizing); pin a "
                               "version tag or `framework_versions: {sglang: ...}`", launch.span)
    return frameworks.Note("MC040", f"SGLang version not given (image tag or framework_versions): flags read as "
                           f"SGLang {newest}'s (the newest release read, with older releases' flags accepted), "
                           f"derived as SGLang {version}", launch.span)


def on_ascend(launch: Launch, ctx: LaunchContext, device: str | None) -> bool:
    """NPU when the launch or the settings say so; a launch that shows NVIDIA (--device cuda, nvidia.com/gpu,
    NVSHMEM_/NCCL_ env) runs on GPUs whatever the settings' Ascend `product` (gpu.py)."""
    if (device or "").lower() == "npu":
        return True
    if gpu_evidence(launch, device) or (device and device.lower() != "npu"):
        return False
    if ctx.product in ("A2", "A3"):
        return True
    return ascend_hint(launch.hints) is not None or any(name in launch.env for name in ASCEND_ENV)


# `sglang serve` picks its backend (sglang==0.5.23 sglang/cli/serve.py:30-59, 109-118): `--model-type X` (stripped
# before either parser sees it), else the model (a diffusers model -> the diffusion server, whose own parser,
# multimodal_gen/runtime/entrypoints/cli/serve.py:20-31, passes unknown words on); `--pipeline-class-name` selects
# a native diffusion pipeline. Dynamo's worker adds its own flags (ai-dynamo/dynamo components/src/dynamo/sglang/
# backend_args.py and dynamo.common's configuration groups), which moecfg does not list.
_MODEL_TYPE = "--model-type"
DIFFUSION = ("SGLang's diffusion server (sglang serve with {why}; sglang/cli/serve.py:109-144): "
             "it runs no MoE collective moecfg checks and has flags of its own")


def serve_backend(launch: Launch) -> tuple[str, str]:
    """(backend, why) of a `sglang serve` launch: "diffusion" | "llm" | "auto"; ("llm", "") for other entry points."""
    start = command_start(launch)
    words = launch.words()
    if start is None or os.path.basename(words[start - 2] or "") != "sglang":
        return "llm", ""
    rest = words[start:]
    for i, w in enumerate(rest):
        value = rest[i + 1] if w == _MODEL_TYPE and i + 1 < len(rest) else \
            (w.split("=", 1)[1] if (w or "").startswith(_MODEL_TYPE + "=") else None)
        if value is not None:
            return ("diffusion" if value == "diffusion" else "llm" if value == "llm" else "auto"), \
                f"{_MODEL_TYPE} {value}"
        if w == "--pipeline-class-name" or (w or "").startswith("--pipeline-class-name="):
            return "diffusion", "--pipeline-class-name (a native diffusion pipeline)"
    return "auto", ""


def dynamo(launch: Launch) -> bool:
    start = command_start(launch)
    return start is not None and launch.words()[start - 1] == "dynamo.sglang"


def derive(launch: Launch, ctx: LaunchContext) -> Derivation:
    backend, why = serve_backend(launch)
    if backend == "diffusion":
        out = Derivation(NAME, "")
        out.calls.append(frameworks.OpCall("serve", "none", None, {}, why_none=DIFFUSION.format(why=why), quiet=True))
        return out
    version, how = frameworks.pick_version(sys.modules[__name__], launch, ctx, _match)
    given = _given_version(launch, ctx)
    # The result names the version the launch runs when it says so: its own flag table and release facts
    # (releases.py) are the ones read; "main-2026-08" only when no version is given (MC040 says so).
    out = Derivation(NAME, given if how and given else version)
    flags, pick = read_flags(launch, ctx, out.notes)
    if not how:
        out.notes.append(_version_note(launch, version))
    if on_ascend(launch, ctx, flags.value("--device")):
        ascend.derive(launch, ctx, flags, out)
    else:
        gpu.derive(launch, ctx, out, flags, pick)
    return out


def _server_words(launch: Launch) -> list:
    """The words the server's parser reads: `sglang serve` strips `--model-type X` first (cli/serve.py:30-59)."""
    words = list(launch.argv[command_start(launch):])
    if serve_backend(launch)[1].startswith(_MODEL_TYPE):
        for i, w in enumerate(words):
            if w.value == _MODEL_TYPE:
                return words[:i] + words[i + 2:]
            if (w.value or "").startswith(_MODEL_TYPE + "="):
                return words[:i] + words[i + 1:]
    return words


def read_flags(launch: Launch, ctx: LaunchContext, notes: list):
    """The launch's flags read with the SGLang release's own table (flag_tables/sglang.json: long names such as
    --tensor-parallel-size are aliases of --tp-size, argparse's unique prefixes), older spellings mapped to what
    the derivation reads (spellings.py); MC022 for words the release does not define."""
    from moecfg.frameworks import flag_tables
    from moecfg.frameworks.sglang.spellings import normalise

    pick = flag_tables.launch_pick(NAME, launch, ctx)
    table = flag_tables.reading_table(NAME, pick)
    words = _server_words(launch)
    flags = parse_flags(words, table.specs, abbrev=True)
    fork = _fork_specs(table, flags)
    if fork:  # a flag only a fork defines (`--kt-method`): the launch runs that fork, read with its flags too
        flags = parse_flags(words, table.specs + fork, abbrev=True)
    auto = serve_backend(launch)[0] == "auto"
    for w in flags.unknown if not dynamo(launch) else ():  # Dynamo's own flags are not SGLang's: not judged
        note = flag_tables.unknown_note("SGLang", w, table, pick)
        if auto:  # the model may be a diffusers model: `sglang serve` then runs the diffusion server
            note = replace(note, message=note.message + " (unless the model is a diffusion model: `sglang serve` then runs SGLang's diffusion " \
                "server, whose flags differ; say `--model-type llm` or `--model-type diffusion`)")
        notes.append(note)
    # argparse's prefixes (`--tp 8` for --tp-size) are what SGLang's own docs write: read, not reported
    newer = flag_tables.newer_note(NAME, "SGLang", pick, launch.span)
    if newer is not None:
        notes.append(newer)
    notes.extend(normalise(flags))
    return flags, pick


# SGLang forks published on the package registry under their own name, with the flag table of their wheel
# (flag_tables/<fork>.json, tools/gen_flag_tables.py --fork): ktransformers' `sglang-kt` adds the `--kt-*` flags.
FORKS = ("sglang-kt",)


def _fork_specs(table, flags) -> tuple:
    """The specs a fork adds to upstream SGLang, when a word upstream does not define is one only the fork defines
    (no upstream release: a flag an older SGLang had is that release's, not a sign of the fork)."""
    from moecfg.frameworks import flag_tables

    if not flags.unknown:
        return ()
    upstream = flag_tables.all_names(NAME)
    for fork in FORKS:
        own = flag_tables.table(fork, flag_tables.releases(fork)[-1])
        only = {n for s in own.specs for n in (s.name, *s.aliases)} - upstream
        if any((w.value or "").split("=", 1)[0].replace("_", "-") in only for w in flags.unknown):
            return tuple(s for s in own.specs if not table.has(s.name))
    return ()
