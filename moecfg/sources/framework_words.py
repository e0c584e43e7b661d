"""What a framework launch looks like as text, for every reader that must decide cheaply whether some text may
hold one (shell syntax repair, YAML strings, templates, Markdown blocks). A new framework adds its words here,
once; its `recognise()` (frameworks/<name>/__init__.py) stays the judge of an actual argv.

Each list is a tuple of regular-expression alternatives; each reader's pattern is compiled on first use.
"""
from __future__ import annotations

import re

# A command that starts a framework, written out (`vllm serve`, `python -m sglang.launch_server`).
COMMANDS = (
    r"\bvllm\s+serve\b",
    r"\bvllm\.entrypoints\b",
    r"\bsglang\.launch_server\b",
    r"\bsglang\s+serve\b",
    r"\bvllm-mindspore\s+serve\b",
    r"\bvllm_mindspore\.entrypoints\b",
    r"\blmdeploy\s+serve\b",
    r"\bxllm[\s\\]+--?[a-z]", r"\$\{?XLLM_\w+\}?[\s\\]+--?[a-z]",  # xLLM's binary, or $XLLM_PATH in its guides
    # the DeepEP serving engines (frameworks/lightllm, fastdeploy, rtp_llm) and TensorRT-LLM's server
    r"\blightllm\.server\.api_server\b", r"\bfastdeploy\.entrypoints\b", r"\brtp_llm\.start_server\b",
    r"\btrtllm-serve\b",
)
# `python3 -m <module>` of a serving framework (a YAML string whose first line starts a launch).
PYTHON_MODULES = (r"vllm", r"vllm_mindspore", r"sglang", r"dynamo\.(?:vllm|sglang)", r"lmdeploy",
                   r"lightllm", r"fastdeploy", r"rtp_llm")
# A training entry script (shell scripts; not YAML strings, where `pretrain_gpt.py` is often prose).
TRAINING_SCRIPTS = (r"\bpretrain_\w+\.py\b", r"\bposttrain_\w+\.py\b")  # Megatron, MindSpeed-LLM
# Words that make a template or a broken YAML file worth reporting: it may hold a launch once rendered.
TEMPLATE_WORDS = (r"vllm", r"sglang", r"launch_server", r"pretrain_\w+\.py", r"torchrun", r"msrun", r"deepep",
                  r"deep_ep", r"tutel", r"lmdeploy", r"xllm",
                  r"lightllm", r"fastdeploy", r"rtp_llm", r"trtllm-serve")
# A line that starts a launch (its first word, after `VAR=value` assignments and a `$ ` prompt, is a launcher's
# program): a Markdown fence with no language tag is read as shell when one of its lines does (rtp-llm's guides).
LINE_STARTS = (r"(?:\S*/)?python[0-9.]*\s+-m\s+(?:" + "|".join(PYTHON_MODULES) + r")\b",
               r"(?:\S*/)?(?:vllm|sglang|lmdeploy|vllm-mindspore)\s+serve\b", r"(?:\S*/)?trtllm-serve\b")
# Words that make a Markdown code block worth reading as a script.
MARKDOWN_WORDS = (r"\bvllm\b", r"\bsglang\b", r"\bdynamo\.\w", r"\btorchrun\b", r"\bmsrun\b", r"\bpretrain_\w+",
                  r"\bposttrain_\w+", r"\blaunch_server\b", r"\bdeepspeed\b",
                  r"\blmdeploy\b", r"\bxllm\b", r"\$\{?XLLM_\w+",
                  r"\blightllm\.server\b", r"\bfastdeploy\.entrypoints\b", r"\brtp_llm\.start_server\b",
                  r"\btrtllm-serve\b")


def _either(parts) -> str:
    return "|".join(parts)


# The compiled patterns (module attributes), each compiled on first use: a moecfg document's check reads none
# of them (~1.5 ms of start-up). name -> (pattern, flags)
_PATTERNS = {
    # shell syntax repair: a broken region matters only if it holds one of these
    "SHELL_LAUNCH": lambda: (_either(COMMANDS + TRAINING_SCRIPTS), 0),
    # a YAML string value is a command when it holds one of these (and its first line starts with one)
    "YAML_LAUNCH": lambda: (_either(COMMANDS + (r"\bpython[0-9.]*\s+-m\s+(?:" + _either(PYTHON_MODULES) + r")\b",)),
                            0),
    "TEMPLATE_LAUNCH": lambda: (r"\b(?:" + _either(TEMPLATE_WORDS) + r")\b", re.I),
    "MARKDOWN_LAUNCH": lambda: (_either(MARKDOWN_WORDS), 0),
    # an untagged Markdown fence: a line whose first word starts a launch
    "LINE_LAUNCH": lambda: (r"^[ \t]*(?:\$[ \t]+)?(?:[A-Za-z_]\w*=\S*[ \t]+)*(?:" + _either(LINE_STARTS) + ")", re.M),
}


def __getattr__(name: str):
    if name in _PATTERNS:
        globals()[name] = compiled = re.compile(*_PATTERNS[name]())
        return compiled
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
