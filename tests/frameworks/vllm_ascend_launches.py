"""Launch objects for the vllm-ascend tests, built directly (the shell reader is not under test here).

`launch(text)` takes a small shell-like script: `export A=B` lines become EnvEntry, the `vllm serve` /
`python -m ...` lines (with `\\` continuations) become Words. Each Word's span is its line and columns in
`text` (quotes removed from the value, kept in the span), so tests can assert positions.
"""
from __future__ import annotations

import re

from moecfg.frameworks import LaunchContext
from moecfg.sources.launch import EnvEntry, Launch, Word
from moecfg.sources.textmap import Span

_TOKEN = re.compile(r"'[^']*'|\"[^\"]*\"|\S+")


def launch(text: str, image: str | None = None, hints=()) -> Launch:
    words, env = [], {}
    for lineno, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#") or re.fullmatch(r"\w+=\S*", stripped):
            continue  # blank, comment, or a shell variable assignment (not part of the command)
        if stripped.startswith("export "):
            col = line.index("export ") + len("export ") + 1
            name, _, value = stripped[len("export "):].partition("=")
            env[name] = EnvEntry(name, value.strip("'\""), Span(lineno, col, lineno, col + len(stripped) - 7))
            continue
        for m in _TOKEN.finditer(line):
            tok = m.group(0)
            if tok == "\\":
                continue
            value = tok[1:-1] if tok[0] in "'\"" and tok[-1] == tok[0] else tok
            if value == "$UNSET":
                value = None
            words.append(Word(value, Span(lineno, m.start() + 1, lineno, m.end() + 1)))
    return Launch(tuple(words), env, image=image, hints=tuple(hints))


def ctx(product="A3", version=None, cann=None, models=(), memory=None) -> LaunchContext:
    fv = (("vllm-ascend", version),) if version else ()
    return LaunchContext(product=product, product_source="--product" if product else "", cann=cann,
                         framework_versions=fv, models=models, device_memory_gb=memory)


def serve(flags: str, model: str = "vllm-ascend/DeepSeek-R1-W8A8", env: str = "") -> str:
    """A one-line `vllm serve MODEL --enable-expert-parallel FLAGS` script with optional export lines first."""
    exports = "".join(f"export {e}\n" for e in env.split()) if env else ""
    return f"{exports}vllm serve {model} --quantization ascend --enable-expert-parallel {flags}\n"


# https://github.com/vllm-project/vllm-ascend/blob/182b75ea84ff13ece27b57391331ef8935410aea/docs/source/tutorials/models/DeepSeek-R1.md (5.1, lines 128-162)
DSR1_A3_SINGLE_NODE = """# https://github.com/vllm-project/vllm-ascend/blob/182b75ea84ff13ece27b57391331ef8935410aea/docs/source/tutorials/models/DeepSeek-R1.md
nic_name="xxxx"
local_ip="xxxx"

# AIV
export HCCL_OP_EXPANSION_MODE="AIV"

export HCCL_IF_IP=$local_ip
export GLOO_SOCKET_IFNAME=$nic_name
export TP_SOCKET_IFNAME=$nic_name
export HCCL_SOCKET_IFNAME=$nic_name
export VLLM_ASCEND_BALANCE_SCHEDULING=1
export PYTORCH_NPU_ALLOC_CONF=expandable_segments:True

vllm serve vllm-ascend/DeepSeek-R1-W8A8 \\
  --host 0.0.0.0 \\
  --port 8000 \\
  --data-parallel-size 4 \\
  --tensor-parallel-size 4 \\
  --quantization ascend \\
  --seed 1024 \\
  --served-model-name deepseek_r1 \\
  --enable-expert-parallel \\
  --max-num-seqs 16 \\
  --max-model-len 16384 \\
  --max-num-batched-tokens 4096 \\
  --trust-remote-code \\
  --gpu-memory-utilization 0.92 \\
  --speculative-config '{"num_speculative_tokens":3,"method":"mtp"}' \\
  --compilation-config '{"cudagraph_mode": "FULL_DECODE_ONLY"}'
"""


def derive(text_or_launch, **kw):
    import moecfg.frameworks.vllm_ascend as va

    lau = launch(text_or_launch) if isinstance(text_or_launch, str) else text_or_launch
    return va.derive(lau, ctx(**kw))


def calls(text, **kw) -> dict:
    """role -> OpCall (the last call of a role wins; tests needing both use derive())."""
    return {c.role: c for c in derive(text, **kw).calls}


def codes(notes) -> list[str]:
    return [n.code for n in notes]


def at_capacity(by_role: dict):
    """The call at the MC2 capacity: `profile` when that step is only the start-up profile run (the capacity exceeds
    the decode batch and max_num_batched_tokens exceeds the capacity: model_runner_v1.py profile_run), else `decode`."""
    return by_role["profile"] if "profile" in by_role else by_role["decode"]
