"""SGLang on NVIDIA GPUs with DeepEP: the low-latency token cap against what the launch sends (MC975-MC977).

The op rules (MC6xx) judge the Buffer; these rules compare T = SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK with the
tokens one rank dispatches in a low-latency call, which only the launch shows. DeepEP asserts every call at
`x.size(0) <= num_max_dispatch_tokens_per_rank` (deepseek-ai/DeepEP csrc/deep_ep.cpp Buffer::low_latency_dispatch;
DeepEP#165), so a batch above T stops the scheduler, often in the warm-up SGLang runs at start-up (srt-slurm#42/#44)
or at the first busy minute after /health returned 200.
Tokens per rank = requests per DP rank x tokens per request (--speculative-num-draft-tokens with a speculative
algorithm, else 1) over the attention-TP ranks (tp / dp with --enable-dp-attention), as SGLang on Ascend counts them.
"""
from __future__ import annotations

from moecfg.core.diagnostics import ERROR
from moecfg.core.registry import rule
from moecfg.frameworks import Note
from moecfg.frameworks.values import integer

_F = "launch"
# the flags the token counts come from: an unknown value among them skips MC975-MC977 (frameworks/sglang/gpu.py)
BATCH_FLAGS = ("--dp-size", "--cuda-graph-max-bs", "--cuda-graph-bs", "--max-running-requests",
               "--chunked-prefill-size", "--speculative-num-draft-tokens")
_DEEPEP = "deepseek-ai/DeepEP@dd758ca csrc/legacy/buffer.hpp low_latency_dispatch (x.size(0) <= " \
          "num_max_dispatch_tokens_per_rank)"
_ERR = "RuntimeError: Failed: Assertion error csrc/deep_ep.cpp:1233 'x.size(0) == topk_idx.size(0) and x.size(0) <= " \
       "num_max_dispatch_tokens_per_rank'"
_OK = ("# SGLang decode, DeepSeek-V3, TP = DP = EP 16, T 256 >= cuda-graph bs 64 x 4 draft tokens\nkind: deepep\n"
       "mode: low_latency\nnum_ranks: 16\nhidden: 7168\nnum_experts: 256\nnum_topk: 8\n"
       "num_max_dispatch_tokens_per_rank: 256\n")
CAP_GRAPH = rule(
    "MC975", "sglang-ll-cap-below-cuda-graph", ERROR, "The DeepEP low-latency token cap is below the largest CUDA-graph "
    "batch x tokens per request (per rank)", family=_F, tags=("autofix",),
    source=f"{_DEEPEP}; sgl-project/sglang cuda_graph_runner.py (captures every --cuda-graph-bs at start-up); "
    "sglang PR #14065 (the check, reverted in #14171)",
    why="SGLang captures a CUDA graph for every batch size up to --cuda-graph-max-bs at start-up, each running the "
    "low-latency dispatch with batch x draft tokens per rank: a cap below that fails the DeepEP assert during capture.",
    cann_error=_ERR,
    fail_text="`SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK=128 python -m sglang.launch_server --moe-a2a-backend "
    "deepep --tp 16 --dp 16 --enable-dp-attention --cuda-graph-max-bs 64 --speculative-algorithm EAGLE "
    "--speculative-num-draft-tokens 4` (64 x 4 = 256 > 128).", pass_example=_OK,
    fix="Raise SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK to the value the message gives (at most 1024), or lower "
    "--cuda-graph-max-bs / --cuda-graph-bs.")
CAP_RUNNING = rule(
    "MC976", "sglang-ll-cap-below-running-requests", ERROR, "The DeepEP low-latency token cap is below the running "
    "requests one DP rank may decode at once (x tokens per request)", family=_F, tags=("autofix",),
    source=f"{_DEEPEP}; NVIDIA/srt-slurm#42, #44 (DeepSeek-R1 GB200 decode: --max-running-requests 67584 over DP 32 = "
    "2112 per rank > 1024); deepseek-ai/DeepEP#165",
    why="A decode batch holds up to --max-running-requests / dp requests per DP rank; batches above the CUDA-graph "
    "sizes run eagerly through the same low-latency dispatch. An error when SGLang's FlashInfer autotune warm-up runs a "
    "dummy batch of that size at start-up (should_run_flashinfer_autotune: the --moe-runner-backend list of "
    "sglang==0.5.23 runner/flashinfer_autotune.py:117-124, skipped for flashinfer_cutedsl + deepep from 0.5.11, "
    "model_runner.py:2380-2388); otherwise a warning: it fails only under load.",
    cann_error=_ERR,
    fail_text="`SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK=1024 python -m sglang.launch_server --moe-a2a-backend "
    "deepep --tp 32 --dp 32 --enable-dp-attention --max-running-requests 67584 --disaggregation-mode decode` "
    "(srt-slurm#42: 2112 requests per rank).", pass_example=_OK,
    fix="Lower --max-running-requests to T x dp (/ draft tokens), or raise the cap (at most 1024).")
CAP_PREFILL = rule(
    "MC977", "sglang-ll-cap-below-prefill-chunk", ERROR, "--deepep-mode low_latency on a server that prefills: a "
    "prefill chunk per rank exceeds the low-latency token cap", family=_F,
    source=f"{_DEEPEP}; sgl-project/sglang layers/moe/utils.py DeepEPMode.resolve (low_latency is never resolved to "
    "normal)",
    why="With --deepep-mode low_latency every batch, prefill chunks included, goes through the low-latency dispatch, "
    "whose per-call limit is T tokens per rank; a --chunked-prefill-size chunk larger than that fails on the first "
    "long prompt (after /health already answers).",
    cann_error=_ERR,
    fail_text="`python -m sglang.launch_server --moe-a2a-backend deepep --deepep-mode low_latency --tp 8 "
    "--chunked-prefill-size 8192` with the default cap 128.", pass_example=_OK,
    fix="Use --deepep-mode auto (normal kernels for prefill), or lower --chunked-prefill-size to T x dp x attention-TP "
    "ranks.")

CAP_V2_PREFILL = rule(
    "MC978", "sglang-deepep-v2-prefill-above-cap", ERROR, "--moe-a2a-backend deepep_v2: a rank's share of a prefill "
    "chunk exceeds SGLANG_DEEPEP_V2_NUM_MAX_DISPATCH_TOKENS_PER_RANK (SGLang's start-up check)", family=_F, tags=("autofix",),
    source="sglang==0.5.23 sglang/srt/arg_groups/moe_hook.py:641-653 (required_deepep_v2_prefill_tokens_per_rank: the "
    "per-DP chunk over tp // attn_dp ranks) and :680-695 (the check); arg_groups/parallel_hook.py:326-331 (the chunk "
    "divided by the attention-DP size); environ.py:1441 (the variable, default 128; SGLang >= 0.5.19)",
    why="DeepEP v2 sizes one ElasticBuffer for SGLANG_DEEPEP_V2_NUM_MAX_DISPATCH_TOKENS_PER_RANK tokens per rank and "
    "prefill goes through it too; SGLang computes a rank's share of the largest prefill chunk and refuses to start "
    "when it exceeds the variable.",
    cann_error="ValueError: DeepEP v2 per-rank prefill budget exceeds SGLANG_DEEPEP_V2_NUM_MAX_DISPATCH_TOKENS_PER_RANK",
    fail_text="`python -m sglang.launch_server --moe-a2a-backend deepep_v2 --tp 8 --chunked-prefill-size 8192` with "
    "the default 128 (8192 / 8 = 1024 tokens per rank).", pass_example=_OK,
    fix="Raise SGLANG_DEEPEP_V2_NUM_MAX_DISPATCH_TOKENS_PER_RANK to the value the message gives, or lower "
    "--chunked-prefill-size.")


def _tokens(c, reqs: int) -> int:
    from moecfg.frameworks.sglang.ascend import parallel

    _, _, attn_tp = parallel(c)
    return -(-reqs * draft(c)[0] // attn_tp)


def _max_requests(c, t: int) -> int:
    """The most requests per DP rank whose tokens per rank stay within T."""
    from moecfg.frameworks.sglang.ascend import parallel

    _, _, attn_tp = parallel(c)
    return t * attn_tp // draft(c)[0]


def draft(c) -> tuple[int, str]:
    if not c.flags.get("--speculative-algorithm"):
        return 1, "1 token per request"
    n = c.int_flag("--speculative-num-draft-tokens", 1)
    return n, f"{n} tokens per request (--speculative-num-draft-tokens)"


def launch_notes(c, call) -> list[Note]:
    """MC975-MC977 for the low-latency cap of `call` (kind deepep, api v1 or v2)."""
    a = call.arguments
    t = a.get("num_max_dispatch_tokens_per_rank", a.get("num_max_tokens_per_rank"))
    if t is None or t <= 0 or a.get("mode") == "normal":  # a cap of 0: no low-latency buffer meant, no rule to judge
        return []
    cap_span = c.env_span(_var(c))
    notes = []
    decode = (c.flags.value("--disaggregation-mode") or "null") != "prefill"
    if decode:
        notes += _graph(c, t, cap_span) + _running(c, t, cap_span)
    if a.get("mode") == "low_latency" and (c.flags.value("--disaggregation-mode") or "null") != "decode":
        notes += _prefill(c, t, cap_span)
    if a.get("api") == "v2" and _var(c) != "SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK" and \
            (c.flags.value("--disaggregation-mode") or "null") != "decode":
        notes += _v2_prefill(c, t, cap_span)
    return notes


def _v2_prefill(c, t, cap_span) -> list[Note]:
    """deepep_v2 checks at start-up that a rank's share of a prefill chunk fits its cap (MC978)."""
    from moecfg.frameworks.sglang.ascend import parallel

    chunk = c.int_flag("--chunked-prefill-size")
    if not chunk or chunk <= 0:
        return []
    _, dp, attn_tp = parallel(c)
    tokens = -(-(chunk // dp) // attn_tp)
    if tokens <= t:
        return []
    per = f" // dp {dp} = {chunk // dp}" if dp > 1 else ""
    return [Note(CAP_V2_PREFILL.code, f"--moe-a2a-backend deepep_v2: --chunked-prefill-size {chunk}{per} per DP group "
                 f"over {attn_tp} ranks = {tokens} tokens per rank, above {_var(c)} = {t}: SGLang refuses to start "
                 f"(\"DeepEP v2 per-rank prefill budget exceeds ...\"); set {_var(c)} >= {tokens} or lower "
                 f"--chunked-prefill-size to {t * attn_tp * dp}", (cap_span or c.span("--chunked-prefill-size"))[0],
                 fix=_raise_cap(c, cap_span, tokens))]


def _lower(flag: str, value: int) -> str:
    """The batch-side fix, unless no batch fits the cap (never "lower ... to 0")."""
    return f" or lower {flag} to {value}" if value > 0 else ""


def _at(cap_span: tuple, flag_span, tokens: int):
    """The cap's env entry when raising it fixes the launch, else the flag whose batch must shrink."""
    return cap_span[0] if cap_span and tokens <= 1024 else flag_span


def _var(c) -> str:
    """The variable the cap came from (gpu.token_cap: the V2 one for deepep_v2 from SGLang 0.5.19)."""
    return getattr(c, "cap_var", "SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK")


def _need(t: int, tokens: int, var: str = "SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK") -> str:
    return f"set {var} >= {tokens}" if tokens <= 1024 else \
        f"shrink the batch (raising the cap cannot help: {tokens} is above DeepEP's limit 1024)"


def _fix(c, t: int, tokens: int, flag: str, per: int) -> str:
    """What to set: the cap when it can reach `tokens`, else `flag` (x `per`: DP ranks) down to what a cap allows;
    never "lower to 0" (a cap below one request's tokens): then raise the cap and lower the flag to fit it."""
    fits = _max_requests(c, t) * per
    if tokens <= _LL_LIMIT:
        return _need(t, tokens, _var(c)) + _lower(flag, fits)
    if fits:
        return f"lower {flag} to {fits} (raising the cap cannot help: {tokens} is above DeepEP's limit {_LL_LIMIT})"
    return (f"raise {_var(c)} (now {t}) to {_LL_LIMIT} and lower {flag} to "
            f"{_max_requests(c, _LL_LIMIT) * per}")


_LL_LIMIT = 1024  # DeepEP's largest low-latency cap (the message of _need)


def _raise_cap(c, cap_span: tuple, tokens: int):
    """The fix that keeps the throughput: the cap raised to `tokens`, when DeepEP allows it (the message names the
    batch flag to lower instead). An unset cap of a shell script is exported before the launch."""
    if tokens > _LL_LIMIT:
        return None
    from moecfg.core.fixes import Suggestion

    var = _var(c)
    entry = c.launch.env.get(var)
    insert = None if cap_span or c.launch.context != "shell" else c.launch.span
    return Suggestion(("env", var), var, tokens, spans=tuple(cap_span), old=entry.value if entry else None,
                      insert=insert)


def _graph(c, t, cap_span) -> list[Note]:
    graph = c.flags.get("--cuda-graph-bs")
    sizes = [integer(v) for v in (graph.values if graph else ()) if v and v.isdigit() and integer(v) is not None]
    if sizes:
        reqs, text, span, flag = max(sizes), f"max(--cuda-graph-bs) {max(sizes)}", graph.span, "--cuda-graph-bs"
    elif c.int_flag("--cuda-graph-max-bs"):
        reqs, flag, span = c.int_flag("--cuda-graph-max-bs"), "--cuda-graph-max-bs", c.span("--cuda-graph-max-bs")[0]
        text = f"--cuda-graph-max-bs {reqs}"
    else:
        return []
    reqs, text = _pool_clamp(c, reqs, text)
    tokens = _tokens(c, reqs)
    if tokens <= t:
        return []
    return [Note(CAP_GRAPH.code, f"{text} x {draft(c)[1]} = {tokens} tokens per rank in a captured decode batch, above "
                 f"the low-latency cap T = {t}: the DeepEP assert `x.size(0) <= num_max_dispatch_tokens_per_rank` "
                 f"fails while SGLang captures the CUDA graphs; {_fix(c, t, tokens, flag, 1)}",
                 _at(cap_span, span, tokens), fix=_raise_cap(c, cap_span, tokens))]


def _pool_clamp(c, reqs: int, text: str) -> tuple[int, str]:
    """SGLang captures only batch sizes <= the request pool of one DP worker, which holds at most
    --max-running-requests // dp from 0.5.10 (sglang==0.5.10 model_executor/model_runner_kv_cache_mixin.py:849
    `min(max_num_reqs // self.dp_size, estimated)`, dp_size counted with DP attention (model_runner.py:319);
    cuda_graph_runner.py get_batch_sizes_to_capture drops `bs > req_to_token_pool.size`; sglang==0.5.23
    arg_groups/moe_hook.py:666-670 the same bound). Before 0.5.10 the pool was --max-running-requests itself."""
    from moecfg.frameworks.flag_tables import version_tuple
    from moecfg.frameworks.sglang.ascend import parallel

    mrr = c.int_flag("--max-running-requests")
    pick = getattr(c, "pick", None)
    if not mrr or pick is not None and pick.known and version_tuple(pick.release) < (0, 5, 10, 0):
        return reqs, text
    pool = max(1, mrr // parallel(c)[1])
    if pool >= reqs:
        return reqs, text
    return pool, f"{text} clamped to the {pool} requests one DP worker holds (--max-running-requests {mrr} // dp " \
                 f"{parallel(c)[1]}: SGLang captures no larger batch)"


def _running(c, t, cap_span) -> list[Note]:
    from moecfg.frameworks.sglang.ascend import parallel

    mrr = c.int_flag("--max-running-requests")
    if not mrr:
        return []
    _, dp, _ = parallel(c)
    # floor, as SGLang divides it: `server_args.max_running_requests // self.dp_size` (sgl-project/sglang python/sglang/srt/model_executor/model_runner.py, max running requests; dp_size = dp with DP attention)
    per_dp = mrr // dp
    tokens = _tokens(c, per_dp)
    if tokens <= t:
        return []
    from moecfg.frameworks.sglang.releases import autotune_warmup

    sure, why = autotune_warmup(getattr(c, "pick", None), c.flags.value("--moe-runner-backend") or "auto",
                                c.flags.value("--moe-a2a-backend") or "none",
                                c.flags.boolean("--disable-flashinfer-autotune"))
    when = f"{why} (srt-slurm#42/#44): the DeepEP assert fails before the server is up" if sure else \
        f"a full decode batch fails the DeepEP assert under load ({why}, so nothing reaches it at start-up)"
    return [Note(CAP_RUNNING.code, f"--max-running-requests {mrr} // dp {dp} = {per_dp} requests per DP rank x "
                 f"{draft(c)[1]} = {tokens} tokens per rank, above the low-latency cap T = {t}: {when}; "
                 f"{_fix(c, t, tokens, '--max-running-requests', dp)}",
                 _at(cap_span, c.span("--max-running-requests")[0], tokens), severity=None if sure else "warning",
                 fix=_raise_cap(c, cap_span, tokens))]


def _prefill(c, t, cap_span) -> list[Note]:
    from moecfg.frameworks.sglang.ascend import prefill_spans, prefill_tokens

    tokens, text = prefill_tokens(c)
    if tokens is None or tokens <= t:
        return []
    span = (c.span("--chunked-prefill-size") or prefill_spans(c) or cap_span or (c.launch.span,))[0]
    return [Note(CAP_PREFILL.code, f"--deepep-mode low_latency prefills through the low-latency dispatch: {text} "
                 f"tokens per rank, above the cap T = {t}; use --deepep-mode auto (normal kernels for prefill) or "
                 f"lower --chunked-prefill-size so a chunk is at most {t} tokens per rank", span)]
