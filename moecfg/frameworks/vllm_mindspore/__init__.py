"""vllm-mindspore (MindSpore's vLLM plugin): `vllm-mindspore serve MODEL <vLLM flags>` and
`python -m vllm_mindspore.entrypoints vllm.entrypoints.openai.api_server <vLLM flags>` on Ascend.

`vllm-mindspore` is vllm_mindspore.scripts:main (the wheel's console script): it sets MindSpore's environment
defaults and runs vLLM's own CLI (VMS@423bd12 vllm_mindspore/scripts.py:88-93), so it takes the flags of the vLLM
release it pins (0.11.0 from vllm-mindspore 0.5.0 on, releases.py). `python -m vllm_mindspore.entrypoints M ARGS`
runs module M with `import vllm_mindspore` prepended (entrypoints/__main__.py:45-66). A plain `vllm serve` never
loads vllm-mindspore (it registers no vLLM plugin entry point): those launches stay vllm-ascend's / vLLM's.
Python scripts that `import vllm_mindspore` and call vLLM's LLM class are not launches moecfg reads.

parallel.py derives the MoE layout, calls.py the pure-EP MC2 calls, rules.py holds MC920-MC924.
"""
from __future__ import annotations

from moecfg.frameworks import Derivation, LaunchContext, Note
from moecfg.frameworks.vllm_mindspore.releases import RELEASES, VLLM_PINNED, match
from moecfg.sources.launch import Launch

NAME = "vllm-mindspore"
VERSIONS = tuple(RELEASES)  # the last is the default
LAUNCHER = "vllm-mindspore"
ENTRY_MODULE = "vllm_mindspore.entrypoints"
_VLLM_MODULES = ("vllm.entrypoints.openai.api_server", "vllm.entrypoints.api_server")


def command_start(launch: Launch) -> int | None:
    """Index of vLLM's first argument after `vllm-mindspore serve` or `python -m vllm_mindspore.entrypoints
    <vllm api_server module>`, or None. Like `vllm serve`, the command starts the launch or follows wrappers."""
    from moecfg.frameworks.vllm_ascend.cli import WRAPPERS

    words = launch.words()
    wrapped = bool(words) and words[0] is not None and words[0].rsplit("/", 1)[-1] in WRAPPERS
    for i, w in enumerate(words):
        if w is None or (i > 0 and not wrapped and words[i - 1] != "--"):
            continue
        base = w.rsplit("/", 1)[-1]
        if base == LAUNCHER and i + 1 < len(words) and words[i + 1] == "serve":
            return i + 2
        if base.startswith("python"):
            for j in range(i + 1, min(i + 4, len(words) - 2)):
                if words[j] == "-m":
                    return j + 3 if words[j + 1] == ENTRY_MODULE and words[j + 2] in _VLLM_MODULES else None
    return None


def recognise(launch: Launch, ctx: LaunchContext | None = None) -> bool:
    return command_start(launch) is not None


def pick(launch: Launch, ctx: LaunchContext) -> tuple[str, str]:
    """(release key, how): an image tag only when the image is vllm-mindspore's, then the settings."""
    from moecfg.frameworks import image_version

    image = (launch.image or "").rsplit("/", 1)[-1].lower()
    tag = image_version(launch.image) if "mindspore" in image else None
    if tag and match(tag):
        return match(tag), f"image tag {launch.image}"
    configured = ctx.version_for(NAME)
    if configured and match(configured):
        return match(configured), f"framework_versions.{NAME} = {configured} in the settings"
    return VERSIONS[-1], ""


def derive(launch: Launch, ctx: LaunchContext) -> Derivation:
    from moecfg.frameworks import flag_tables
    from moecfg.frameworks.vllm_ascend import cli
    from moecfg.frameworks.vllm_mindspore.build import derive_launch

    version, how = pick(launch, ctx)
    rel = RELEASES[version]
    out = Derivation(NAME, version)
    flags = flag_tables.pick("vllm", VLLM_PINNED, f"vllm-mindspore {version} ({how}) pins vLLM {VLLM_PINNED}, "
                             f"{rel.cite['pin']}") if how else None
    args = cli.read(launch, flags, start=command_start(launch))
    if args is None:
        return out
    assumed = None if how else Note(
        "MC040", f"vllm-mindspore version not given (a vllm-mindspore image tag or `framework_versions: "
        f"{{vllm-mindspore: ...}}`): deriving as {version} ({rel.ref}); 0.5.x raises NotImplementedError in pure EP "
        "instead", launch.span)
    derive_launch(launch, args, ctx, rel, version, out, assumed)
    return out
