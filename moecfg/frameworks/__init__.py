"""Frameworks: from a launch as written to the op calls the framework will make, per framework version.

Each framework is a package in FRAMEWORK_MODULES exposing
    NAME: str                                  e.g. "vllm-ascend"
    VERSIONS: tuple[str, ...]                  supported versions, oldest first (the last is "newest")
    recognise(launch: Launch, ctx: LaunchContext | None = None) -> bool   is this command this framework?
    derive(launch: Launch, ctx: LaunchContext, version: str) -> Derivation
A framework version is a table of its rules plus small pure functions, each citing its source line.
"""
from __future__ import annotations

import re

from moecfg.core.record import field, record
from moecfg.optional import optional_module
from moecfg.sources.launch import Launch, Unread  # noqa: F401  (Unread: for frameworks, Derivation.unread)
from moecfg.sources.textmap import Span

# Order matters: the first framework that recognises a launch derives it (vllm-ascend before vllm).
FRAMEWORK_MODULES = {
    # trainers first: a trainer's launch holds an engine's words (slime's `--sglang-*`, verl's Hydra keys)
    "rllm": "moecfg.trainers.rllm",  # before verl: an rLLM Hydra main carries verl keys plus rLLM's own
    "verl": "moecfg.trainers.verl",
    "slime": "moecfg.trainers.slime",
    "ms-swift": "moecfg.trainers.ms_swift",
    "mindspeed-rl": "moecfg.trainers.mindspeed_rl",
    "roll": "moecfg.trainers.roll",
    "megatron-bridge": "moecfg.trainers.megatron_bridge",
    "skyrl": "moecfg.trainers.skyrl",
    "torchtitan": "moecfg.trainers.torchtitan",
    "areal": "moecfg.trainers.areal",
    "mindspeed-mm": "moecfg.trainers.mindspeed_mm",
    "nemo-rl": "moecfg.trainers.nemo_rl",
    "rlinf": "moecfg.trainers.rlinf",
    "llamafactory": "moecfg.trainers.llamafactory",
    "mindspeed-llm-fsdp2": "moecfg.trainers.mindspeed_llm_fsdp2",  # titanmm: MindSpeed-LLM's FSDP2 configs
    "prime-rl": "moecfg.trainers.prime_rl",  # prime-rl's TOML configs and `uv run rl|inference ...`
    "chatlearn": "moecfg.trainers.chatlearn",
    "vllm-ascend": "moecfg.frameworks.vllm_ascend",
    "sglang": "moecfg.frameworks.sglang",
    "vllm-mindspore": "moecfg.frameworks.vllm_mindspore",
    "vllm": "moecfg.frameworks.vllm",
    "mindspeed": "moecfg.frameworks.mindspeed",  # before megatron: a MindSpeed launch is a Megatron one with a sign
    "megatron": "moecfg.frameworks.megatron",
    "mindie": "moecfg.frameworks.mindie",
    "lmdeploy": "moecfg.frameworks.lmdeploy",
    "xllm": "moecfg.frameworks.xllm",
    "lightllm": "moecfg.frameworks.lightllm",
    "rtp-llm": "moecfg.frameworks.rtp_llm",
    "fastdeploy": "moecfg.frameworks.fastdeploy",
    "trtllm": "moecfg.frameworks.trtllm",
}


@record(frozen=True, slots=True)
class LaunchContext:
    """What the framework cannot tell: from the settings file, command-line flags or hints."""

    product: str | None = None  # "A2" | "A3" (Ascend); GPU name for GPU frameworks ("H100", ...)
    product_source: str = ""  # where it came from, for derivation texts ("--product", ".moecfg.yaml", hint)
    cann: str | None = None
    cann_source: str = ""  # where `cann` came from, for derivation texts ("" = the settings or --cann)
    framework_versions: tuple[tuple[str, str], ...] = ()  # (framework, version) from settings
    models: tuple[tuple[str, str], ...] = ()  # (model string as written | "*", preset name or config path)
    settings_dir: str | None = None  # model config paths are relative to it
    # the model config paths come from the operator's own command (preflight), not from a checked repository:
    # read wherever they are, not only inside the checked tree
    models_trusted: bool = False
    device_memory_gb: float | None = None
    device: str | None = None  # GPU model for GPU frameworks (settings `device:`); `product` stays the Ascend one
    file: str | None = None  # the checked file's path as shown: evidence of the model when a launch does not name it

    def version_for(self, framework: str) -> str | None:
        return dict(self.framework_versions).get(framework)


@record(frozen=True, slots=True)
class Note:
    """A derivation finding (assumption made, value unknown, op not run): a registered rule code."""

    code: str
    message: str
    span: Span
    severity: str | None = None
    covers: tuple[str, ...] = ()  # op-level codes this launch finding explains in flag terms (not reported again)
    about: str = ""  # the op argument this note is about ("env.HCCL_BUFFSIZE"): unchecked rules are named in it
    fix: object = None  # core.fixes.Suggestion with the spans the value is written at (the engine places it)


@record(slots=True)
class OpCall:
    """One collective op call a launch makes (one per phase/role), as a moecfg document of `kind`."""

    role: str  # serve | prefill | decode | ...
    kind: str  # "ascend" | "deepep" | "none" (no EP collective runs)
    op: str | None  # the kind's op (ascend ops; deepep: None)
    arguments: dict  # named exactly as the kind's YAML fields (bs, h, k, ..., env: {HCCL_BUFFSIZE: ...})
    derivation: dict[str, str] = field(default_factory=dict)  # argument -> "value <- flags/env, rule, source"
    sources: dict[str, tuple[Span, ...]] = field(default_factory=dict)  # argument ("bs", "env.X") -> spans
    notes: list[Note] = field(default_factory=list)
    why_none: str = ""  # kind "none": why no EP collective runs
    quiet: bool = False  # kind "none" on a model not known to be MoE (dense, or unknown): no MC041 to say
    knobs: dict[str, str] = field(default_factory=dict)  # op field -> the launch's own knob, named in op findings
    derived: dict = field(default_factory=dict)  # launch-level figures (memory budget), merged into the result
    condition: str = ""  # runs only if this holds (the framework may run another op): its errors become warnings
    # rule code -> what must hold for that rule's error (a figure that depends on a version the launch does not
    # give): the error becomes a warning that says so; the call's other findings stand
    holds_if: dict[str, str] = field(default_factory=dict)
    # arguments the launch sets to a value not known statically (`export HCCL_BUFFSIZE=$BUF`): the op's findings at
    # them are not reported (no rule judges a value it does not know, and no default stands in for it)
    unknown: tuple[str, ...] = ()

    def not_known(self, note: Note) -> None:
        """`note` (MC023, `about` the argument) says an argument is set to a value not known statically: the op's
        findings at it are not reported, and the note names them (checking/launch.py)."""
        self.unknown += (note.about,)
        self.notes.append(note)


@record(slots=True)
class Derivation:
    framework: str
    version: str
    calls: list[OpCall] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)  # launch-wide notes (version assumed, unknown flags)
    # what this launch holds that is not derived (an RL trainer's rollout engine): listed in the report's
    # `unread`, never a finding (issue 30, /work/notes/COVERAGE.md)
    unread: list[Unread] = field(default_factory=list)


def load(name: str):
    """The framework package `name`, or None (unknown, or not in this build)."""
    return optional_module(FRAMEWORK_MODULES.get(name))


# Commands that name a script without running it (`sed -i ... torchtitan/train.py`, `cp run_recipe.py ...`, `cat`,
# `echo`): no framework launch, whatever words follow (AI-Hypercomputer/gpu-recipes@2e1fd5e training/a4/qwen3_235b_a22b/
# megatron-bridge-gke/nemo2602/128gpus-bf16-seq4096-gbs4096/recipe/launcher.sh:82 patches its Megatron-Bridge clone with
# sed; MindSpeed-LLM@c77308a README.md draws `├── pretrain_gpt.py` trees, frameworks/megatron)
NOT_A_RUNNER = frozenset({"cp", "mv", "rm", "ls", "ll", "cat", "less", "more", "head", "tail", "vi", "vim", "nano",
                          "git", "diff", "ln", "touch", "chmod", "chown", "find", "grep", "sed", "awk", "wget",
                          "curl", "scp", "rsync", "echo", "printf", "tar", "zip", "unzip", "du", "wc", "stat", "file",
                          "tree", "patch", "cd", "pushd", "test", "["})


def names_only(launch: Launch) -> bool:
    """The command's program is a file tool or a printer (NOT_A_RUNNER): it runs no framework."""
    first = launch.argv[0].value if launch.argv else None
    return first is not None and first.rsplit("/", 1)[-1] in NOT_A_RUNNER


def recognise(launch: Launch, ctx: LaunchContext | None = None):
    """The framework module that runs this launch, or None (the command is not a framework launch). `ctx` lets a
    framework use the settings (vllm-ascend vs vLLM on GPU: the settings' product is the only sign of Ascend)."""
    if names_only(launch):
        return None
    for name in FRAMEWORK_MODULES:
        module = load(name)
        if module is not None and module.recognise(launch, ctx):
            return module
    return None


_TAG = re.compile(r":v?(\d+\.\d+(?:\.\d+)?(?:rc\d+)?)(?:[-_.][\w.-]*)?$")


def image_version(image: str | None) -> str | None:
    """`quay.io/ascend/vllm-ascend:v0.13.0rc1-a3` -> "0.13.0rc1"; None when the tag is not a version, or is another
    product's: NVIDIA Dynamo's runtime images (`nvcr.io/nvidia/ai-dynamo/sglang-runtime:1.2.0-...`) are tagged with
    Dynamo's release, not the framework's."""
    if not image or "/ai-dynamo/" in f"/{image.lower()}":
        return None
    m = _TAG.search(image.rsplit("/", 1)[-1])
    return m.group(1) if m else None


def pick_version(module, launch: Launch, ctx: LaunchContext, match) -> tuple[str, str]:
    """(version key of the module's tables, how it was chosen). `match(version_text)` maps a version
    string to a supported key or None. Order: image tag, settings, newest supported (an assumption)."""
    tag = image_version(launch.image)
    if tag and match(tag):
        return match(tag), f"image tag {launch.image}"
    configured = ctx.version_for(module.NAME)
    if configured and match(configured):
        return match(configured), f"framework_versions.{module.NAME} = {configured} in the settings"
    return module.VERSIONS[-1], ""
