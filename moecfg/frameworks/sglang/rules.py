"""SGLang on Ascend with sgl-kernel-npu DeepEP: launch-level cross-setting rules (MC960-MC969).

The op rules (MC890-MC899) judge each derived DeepEP call; these rules look at what only the launch shows: the
sgl-kernel-npu build inside the image against the product, SGLang's own assert on the low-latency token cap, and
a prefill chunk that is not bounded while DeepEP's normal mode is. Launch inputs are shell commands: the failing
cases are described in words.
"""
from __future__ import annotations

import re

from moecfg.core.diagnostics import ERROR, INFO, WARNING
from moecfg.core.registry import rule
from moecfg.frameworks import Note

_F = "launch"
_OK = ("# what SGLang on A3 derives for decode: DeepSeek-V3, --tp-size 16, T = 128\nkind: ascend\nproduct: A3\n"
       "op: sgl_deepep_low_latency\nnum_max_dispatch_tokens_per_rank: 128\nh: 7168\nk: 8\nep_world_size: 16\n"
       "num_experts: 256\nenv:\n  HCCL_BUFFSIZE: 1024\n")
BUILD = rule(
    "MC960", "sglang-npu-image-build", ERROR, "The SGLang image's sgl-kernel-npu build is for the other Ascend product "
    "(an A3 image on A2 or the reverse)", family=_F, products=("A2", "A3"),
    source="sgl-project/sgl-kernel-npu@f425bdf csrc/deepep/deep_ep.cpp L971-976, ops/op_host/"
    "moe_distribute_dispatch_v2_tiling.cpp L752-758; sgl-kernel-npu#238/#239",
    why="deep_ep.cpp passes commAlg fullmesh on A2; the A3 build's low-latency tiling accepts only fullmesh_v1, "
    "fullmesh_v2 and ccu, so every decode step fails on A2 with an A3 image (sgl-kernel-npu#238/#239). The A2 build "
    "(build.sh -a deepep2) has no A3 tiling at all.",
    cann_error="Attr commAlg is invalid, current only support fullmesh_v1 and fullmesh_v2, but got commAlg = fullmesh.",
    fail_text="`python -m sglang.launch_server --device npu --moe-a2a-backend deepep ...` in image "
    "`...sglang:v0.5.4-cann8.3.rc1-a3` with `product: A2` in .moecfg.yaml.",
    pass_example=_OK, fix="Use the image (or sgl-kernel-npu build) made for the product: the 910b/A2 image on A2.")
TOKEN_CAP = rule(
    "MC961", "sglang-deepep-token-cap", ERROR, "SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK in [1, 1024]",
    family=_F, source="sglang@003a81b python/sglang/srt/layers/moe/token_dispatcher/deepep.py "
    "_DeepEPDispatcherImplBase.__init__",
    why="SGLang asserts num_max_dispatch_tokens_per_rank <= 1024 when it builds the DeepEP dispatcher (DeepEP's "
    "internode low-latency FINISHED_SUM_TAG); a cap <= 0 makes global_bs 0.",
    fail_text="`SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK=2048 python -m sglang.launch_server ... "
    "--moe-a2a-backend deepep`.", pass_example=_OK,
    fix="Set SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK to the decode tokens per rank, at most 1024.")
CHUNK = rule(
    "MC962", "sglang-prefill-chunk-unbounded", WARNING, "DeepEP normal mode with no bound on the prefill tokens per "
    "rank (--chunked-prefill-size -1 or not given, and no --context-length)", family=_F, products=("A2", "A3"),
    source="sgl-project/sgl-kernel-npu@f425bdf csrc/deepep/deep_ep.cpp L120-134; sglang#27351",
    why="get_dispatch_layout asserts that a rank's tokens fit DEEPEP_NORMAL_LONG_SEQ_ROUND x "
    "DEEPEP_NORMAL_LONG_SEQ_PER_ROUND_TOKENS (default 8192): with chunking off, the first prompt longer than that "
    "per rank stops the scheduler (sglang#27351 shows the same launch failing in the DeepEP dispatch).",
    cann_error="num_tokens (16384) must not exceed the configured capacity (8192), calculated as round (1) * "
    "per_round_tokens (8192).",
    fail_text="`python -m sglang.launch_server --device npu --moe-a2a-backend deepep --tp-size 16 "
    "--chunked-prefill-size -1 ...`.", pass_example=_OK,
    fix="Set --chunked-prefill-size (per DP rank with DP attention) within ROUND x PER_ROUND_TOKENS per rank, or "
    "raise DEEPEP_NORMAL_LONG_SEQ_ROUND.")

# SoC names in image tags: A3 = 910_93 / 910c / "-a3"; A2 = 910b / "-a2"
_IMAGE_PRODUCT = (("A3", re.compile(r"(910_?93|910c|[-_.]a3\b)", re.I)), ("A2", re.compile(r"(910b|[-_.]a2\b)", re.I)))


def image_product(image: str | None) -> str | None:
    tag = (image or "").rsplit("/", 1)[-1]
    for product, pattern in _IMAGE_PRODUCT:
        if pattern.search(tag):
            return product
    return None


def launch_notes(c, ctx, phases: dict, prefill_tokens) -> list[Note]:
    """`prefill_tokens(c)`: ascend.py's bound of the prefill tokens per rank (passed in: ascend.py imports this
    module, so this one does not import it back)."""
    notes = []
    built = image_product(c.launch.image)
    if built and built != ctx.product:
        notes.append(Note(BUILD.code, f"the image {c.launch.image} carries the {built} build of sgl-kernel-npu but the "
                          f"product is {ctx.product}: " + ("its low-latency dispatch refuses the commAlg fullmesh "
                          "deep_ep.cpp passes on A2 (sgl-kernel-npu#238/#239)" if ctx.product == "A2" else
                          "the A2 build (deepep2) has no A3 tiling") + f"; use an {ctx.product} image", c.launch.span))
    t = c.env_int("SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK")
    if t is not None and not 0 < t <= 1024:
        notes.append(Note(TOKEN_CAP.code, f"SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK = {t} is outside [1, 1024]: "
                          "SGLang asserts num_max_dispatch_tokens_per_rank <= 1024 when it builds the DeepEP dispatcher",
                          c.env_span("SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK")[0]))
    if "normal" in phases or phases.get("low_latency") == "serve":
        notes.extend(_chunk_note(c, prefill_tokens))
    return notes


def _chunk_note(c, prefill_tokens):
    tokens, text = prefill_tokens(c)
    if tokens is not None:
        return []
    chunk = c.int_flag("--chunked-prefill-size")
    span = (c.span("--chunked-prefill-size") or (c.launch.span,))[0]
    return [Note(CHUNK.code, f"{text}: the prefill tokens per rank are not bounded by the launch, while DeepEP's "
                 "normal dispatch takes at most ROUND x PER_ROUND_TOKENS tokens per rank (default 1 x 8192); a longer "
                 "batch per rank stops the scheduler (deep_ep.cpp get_dispatch_layout, sglang#27351); moecfg assumed "
                 "that capacity; bound it with --chunked-prefill-size or --context-length", span,
                 INFO if chunk is None else None)]
