"""`vllm serve` as vLLM's argparse reads it: the flag table and the launch read into `ServeArgs`.

vllm-ascend adds no CLI flags of its own (it is a vLLM platform plugin): its settings come through
`--additional-config` JSON and environment variables. The flags that change the MoE op calls are read
into typed `Arg`s (value + the spans of the words that set it); every other vLLM flag is known and
ignored, so MC022 fires only on names vLLM does not define (typos).
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field

from moecfg.frameworks import Note
from moecfg.frameworks.values import clipped, integer, parse, shape_problems
from moecfg.frameworks.flags import FlagSpec, Flags, JsonFlagError, json_value, parse_flags
from moecfg.sources.launch import Launch, Word
from moecfg.sources.yaml_source import Span

# Flags whose values feed the derivation (vllm/engine/arg_utils.py EngineArgs.add_cli_args; -tp/-dp/-pp/-dpl
# aliases and --no-X negations as vLLM's FlexibleArgumentParser / BooleanOptionalAction define them).
_USED = (
    FlagSpec("--model"),
    FlagSpec("--tensor-parallel-size", aliases=("-tp",)),
    FlagSpec("--data-parallel-size", aliases=("-dp",)),
    FlagSpec("--data-parallel-size-local", aliases=("-dpl",)),
    FlagSpec("--pipeline-parallel-size", aliases=("-pp",)),
    FlagSpec("--enable-expert-parallel", aliases=("-ep",), takes_value=False, negatable=True),
    FlagSpec("--max-num-seqs"),
    FlagSpec("--max-num-batched-tokens"),
    FlagSpec("--max-model-len"),
    FlagSpec("--quantization", aliases=("-q",)),
    FlagSpec("--speculative-config"),
    FlagSpec("--compilation-config", aliases=("-O",)),
    FlagSpec("--additional-config"),
    FlagSpec("--kv-transfer-config"),
    FlagSpec("--enable-eplb", takes_value=False, negatable=True),
    FlagSpec("--eplb-config"),
    FlagSpec("--enforce-eager", takes_value=False, negatable=True),
    FlagSpec("--served-model-name", nargs="+"),
    FlagSpec("--enable-lora", takes_value=False, negatable=True),
    FlagSpec("--cuda-graph-sizes", nargs="+"),  # vLLM <= 0.11: scheduler_config.cuda_graph_sizes
    FlagSpec("--cudagraph-capture-sizes", nargs="+"),
    FlagSpec("--max-cudagraph-capture-size"),
)

# The rest of vLLM's engine and OpenAI-server flags (value-taking), known so they are not reported.
_VALUE_FLAGS = """
runner convert task tokenizer tokenizer-mode dtype seed hf-config-path allowed-local-media-path
allowed-media-domains revision code-revision rope-scaling rope-theta tokenizer-revision max-seq-len-to-capture
max-logprobs logprobs-mode config-format hf-token hf-overrides pooler-config override-pooler-config
logits-processor-pattern generation-config override-generation-config model-impl override-attention-dtype
logits-processors io-processor-plugin override-neuron-config config load-format download-dir
safetensors-load-strategy model-loader-extra-config ignore-patterns pt-load-map-location
guided-decoding-backend structured-outputs-config reasoning-parser reasoning-parser-plugin
distributed-executor-backend decode-context-parallel-size prefill-context-parallel-size data-parallel-rank
data-parallel-start-rank data-parallel-address data-parallel-rpc-port data-parallel-backend all2all-backend
dbo-decode-token-threshold dbo-prefill-token-threshold expert-placement-strategy num-redundant-experts
eplb-window-size eplb-step-interval max-parallel-loading-workers worker-cls worker-extension-cls master-addr
master-port nnodes node-rank distributed-timeout-seconds block-size gpu-memory-utilization kv-cache-memory
kv-cache-memory-bytes swap-space kv-cache-dtype num-gpu-blocks-override prefix-caching-hash-algo cpu-offload-gb
mamba-cache-dtype mamba-ssm-cache-dtype mamba-block-size kv-offloading-size kv-offloading-backend
limit-mm-per-prompt media-io-kwargs mm-processor-kwargs mm-processor-cache-gb mm-processor-cache-type
mm-shm-cache-max-object-size-mb mm-encoder-tp-mode mm-encoder-attn-backend video-pruning-rate max-loras
max-lora-rank lora-extra-vocab-size lora-dtype max-cpu-loras default-mm-loras lora-modules
show-hidden-metrics-for-version otlp-traces-endpoint collect-detailed-traces max-num-partial-prefills
max-long-partial-prefills long-prefill-token-threshold num-lookahead-slots scheduling-policy scheduler-cls
stream-interval kv-events-config ec-transfer-config profiler-config attention-config attention-backend
optimization-level kernel-config moe-backend host port uds uvicorn-log-level allowed-origins allowed-methods
allowed-headers api-key chat-template chat-template-content-format response-role ssl-keyfile ssl-certfile
ssl-ca-certs ssl-cert-reqs root-path middleware tool-call-parser tool-parser-plugin tool-server
log-config-file max-log-len h11-max-incomplete-event-size h11-max-header-count api-server-count
num-scheduler-steps preemption-mode scheduler-delay-factor tokenizer-pool-size tokenizer-pool-type
tokenizer-pool-extra-config speculative-model num-speculative-tokens max-prompt-adapters
max-prompt-adapter-token intial-incremental-detokenization-offset calculate-kv-scales
""".split()
_SWITCHES = """
trust-remote-code skip-tokenizer-init disable-sliding-window disable-cascade-attn enable-prompt-embeds
disable-async-output-proc enable-sleep-mode use-tqdm-on-load guided-decoding-disable-fallback
enable-dbo disable-nccl-for-dp-synchronization eplb-log-balancedness ray-workers-use-nsight
disable-custom-all-reduce enable-multimodal-encoder-data-parallel data-parallel-hybrid-lb
data-parallel-external-lb enable-prefix-caching kv-sharing-fast-prefill disable-mm-preprocessor-cache
interleave-mm-strings skip-mm-profiling enable-lora-bias fully-sharded-loras kv-cache-metrics
cudagraph-metrics enable-layerwise-nvtx-tracing enable-chunked-prefill disable-chunked-mm-input
disable-hybrid-kv-cache-manager async-scheduling disable-uvicorn-access-log allow-credentials
trust-request-chat-template enable-ssl-refresh return-tokens-as-token-ids disable-frontend-multiprocessing
enable-request-id-headers enable-auto-tool-choice exclude-tools-when-tool-choice-none disable-fastapi-docs
enable-prompt-tokens-details enable-server-load-tracking enable-force-include-usage
enable-tokenizer-info-endpoint enable-log-outputs log-error-stack tokens-only disable-log-requests
enable-log-requests disable-log-stats headless multi-step-stream-outputs use-v2-block-manager
enable-prompt-adapter enable-reasoning enable-chunked-prefill
""".split()
_ALIASES = {"data-parallel-rank": ("-dpn",), "data-parallel-start-rank": ("-dpr",),
            "data-parallel-address": ("-dpa",), "data-parallel-rpc-port": ("-dpp",),
            "data-parallel-backend": ("-dpb",), "decode-context-parallel-size": ("-dcp",),
            "prefill-context-parallel-size": ("-pcp",), "api-server-count": ("-asc",)}

FLAGS: tuple[FlagSpec, ...] = _USED + tuple(
    FlagSpec("--" + n, aliases=_ALIASES.get(n, ())) for n in dict.fromkeys(_VALUE_FLAGS)) + tuple(
    FlagSpec("--" + n, takes_value=False, negatable=True) for n in dict.fromkeys(_SWITCHES))
KNOWN_NAMES = tuple(sorted({n for s in FLAGS for n in (s.name, *s.aliases)}))
JSON_FLAGS = ("--speculative-config", "--compilation-config", "--additional-config", "--kv-transfer-config",
              "--eplb-config")

# The shapes vLLM's config classes give the keys moecfg reads (pydantic refuses a list for a string, a scalar for
# a list at start-up: vllm/config/kv_transfer.py, speculative.py, compilation.py, parallel.py EPLBConfig);
# vllm-ascend's additional_config objects (ascend_config.py reads them with .get()).
JSON_SHAPES = {
    "--kv-transfer-config": {"kv_role": str, "kv_connector": str},
    "--speculative-config": {"num_speculative_tokens": int, "method": str, "model": str},
    "--compilation-config": {"cudagraph_mode": str, "mode": int, "level": int, "cudagraph_capture_sizes": list,
                             "max_cudagraph_capture_size": int},
    "--eplb-config": {"num_redundant_experts": int},
    "--additional-config": {"mega_moe_max_tokens": int, "torchair_graph_config": dict,
                            "ascend_scheduler_config": dict, "scheduler_config": dict, "eplb_config": dict},
}

ENTRYPOINTS = ("vllm.entrypoints.openai.api_server", "vllm.entrypoints.api_server",
               "dynamo.vllm")  # NVIDIA Dynamo's vLLM worker: vLLM's engine flags + its own (ai-dynamo/dynamo@d195d28
# components/src/dynamo/vllm/backend_args.py), which moecfg does not list: no MC022 for a Dynamo launch


@dataclass(frozen=True, slots=True)
class Arg:
    """One setting as the launch gives it: its value and the spans of the words that set it."""

    value: object
    spans: tuple[Span, ...] = ()
    text: str = ""  # how it was written ("--max-num-seqs 16"); "" when it is vLLM's default

    def said(self, default: str) -> str:
        return self.text or default


@dataclass(slots=True)
class ServeArgs:
    """A `vllm serve` launch read for the MoE derivation; `notes` are the reader's findings (MC021-MC023)."""

    model: Arg
    flags: Flags
    json: dict[str, Arg] = field(default_factory=dict)  # JSON flag name -> Arg(dict)
    env: dict = field(default_factory=dict)  # name -> EnvEntry
    notes: list[Note] = field(default_factory=list)
    start: Span = Span(1, 1, 1, 1)

    def flag(self, name: str, default=None, kind=int) -> Arg:
        """`Arg` of a flag: parsed with `kind`, or `default` (text "") when absent; None when unknowable."""
        f = self.flags.get(name)
        if f is None:
            return Arg(default)
        text = f"{name} {f.value}" if f.value not in (None, "true", "false") else name
        if kind is bool:
            return Arg(f.value != "false", (f.span,), name if f.value != "false" else "--no-" + name[2:])
        if f.value is None:
            self.notes.append(Note("MC023", f"{name}: the value is not known statically; the op arguments that "
                                   "depend on it are not derived", f.span))
            return Arg(None, (f.span,), name)
        try:
            return Arg(parse(kind, f.value), (f.span,), text)
        except ValueError:
            what = "an integer" if kind is int else "a number"
            self.notes.append(Note("MC023", f"{name} {clipped(f.value)!r} is not {what} moecfg can read (a 64-bit "
                                   "integer, a finite number); the op arguments that depend on it are not derived",
                                   f.span))
            return Arg(None, (f.span,), text)

    def config(self, flag: str, *path, default=None) -> Arg:
        """A key inside a JSON flag (`config("--additional-config", "eplb_config", "dynamic_eplb")`)."""
        arg = self.json.get(flag)
        data = arg.value if arg else None
        for key in path:
            if not isinstance(data, dict) or key not in data:
                return Arg(default)
            data = data[key]
        return Arg(data, arg.spans, f"{flag} {'.'.join(path)}={_json_text(data)}")

    def env_value(self, name: str, default=None) -> Arg:
        e = self.env.get(name)
        if e is None:
            return Arg(default)
        return Arg(e.value, (e.span,), f"{name}={e.value}")


def _json_text(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


# Commands that run the next words as a command (`exec vllm serve`, `numactl -N 0 vllm serve`, ...).
WRAPPERS = frozenset(("exec", "nohup", "nice", "numactl", "taskset", "stdbuf", "time", "timeout", "setsid", "env",
                      "sudo", "chrt", "ionice", "unbuffer"))


def command_start(launch: Launch) -> int | None:
    """Index of the first argument after `vllm serve` / `python -m vllm.entrypoints...`, or None. The command
    must be the launch's first word or follow wrapper commands (exec, numactl, taskset, ...)."""
    words = launch.words()
    wrapped = bool(words) and words[0] is not None and words[0].rsplit("/", 1)[-1] in WRAPPERS
    for i, w in enumerate(words):
        if w is None or (i > 0 and not wrapped):
            continue
        base = w.rsplit("/", 1)[-1]
        if base == "vllm" and i + 1 < len(words) and words[i + 1] == "serve":
            return i + 2
        if _is_python(w):
            for j in range(i + 1, min(i + 4, len(words) - 1)):  # python3 [-u] [-X ...] -m vllm.entrypoints...
                if words[j] == "-m":
                    return j + 2 if words[j + 1] in ENTRYPOINTS else None
    return None


def _is_python(word: str | None) -> bool:
    return bool(word) and word.rsplit("/", 1)[-1].startswith("python")


def read(launch: Launch) -> ServeArgs | None:
    start = command_start(launch)
    if start is None:
        return None
    words = list(launch.argv[start:])
    dotted, words = _split_dotted(words)
    flags = parse_flags(words, FLAGS, underscores=True)
    model = _model(flags)
    args = ServeArgs(model=model, flags=flags, env=dict(launch.env), start=launch.span)
    for w in flags.unknown if launch.words()[start - 1] != "dynamo.vllm" else ():
        args.notes.append(_unknown(w))
    for name in JSON_FLAGS:
        f = flags.get(name)
        if f is None or f.value is None:  # unknown (`"$KV_CONFIG"`, a placeholder): an info, never an error
            if f is not None:
                args.notes.append(Note("MC023", f"{name}: the value is not known statically; the settings in it "
                                       "are not used", f.span))
            continue
        try:
            data = json_value(f) if not _is_level(name, f.value) else {"mode": integer(f.value)}
        except JsonFlagError as exc:
            marker = substitution(f.value, launch.context)
            args.notes.append(Note("MC023", f"{name} holds `{marker}`, filled in before vLLM reads it (a template, a "
                                   "placeholder or Kubernetes `$(VAR)`): its settings are not known statically", f.span)
                              if marker
                              else Note("MC021", f"{exc}; the settings in it are not used", f.span))
            continue
        for problem in shape_problems(data, JSON_SHAPES.get(name, {}), name):  # the config class refuses it
            args.notes.append(Note("MC021", f"{problem}: vLLM refuses the launch at start-up; the key is not used",
                                   f.span))
        args.json[name] = Arg(data, (f.span,), f"{name} {clipped(f.value, 200)}")
    for name, key, value, word in dotted:  # --compilation-config.cudagraph_mode=FULL_DECODE_ONLY
        prev = args.json.get(name)
        data = dict(prev.value) if prev else {}
        data[key] = _scalar(value)
        args.json[name] = Arg(data, (prev.spans if prev else ()) + (word.span,), f"{name}.{key}={value}")
    return args


_TEMPLATED = re.compile(r"\$\{[A-Za-z_][\w-]*\.[\w.-]+\}|\{\{.*?\}\}")  # `${accelerator.x}`, `{{ .Values.x }}`
_K8S_VAR = re.compile(r"\$\([A-Za-z_][A-Za-z0-9_]*\)")  # Kubernetes expands `$(VAR)` in command and args
_PLACEHOLDER = re.compile(r"<[A-Za-z][\w.:/-]*>")  # `{"model": <eagle3_model_name>}`: a tutorial's value to fill in
_BLANKED = re.compile(r"\$\{_{2,}\}|\$_{2,}(?!\w)")  # the same placeholder as the Markdown reader rewrote it


def substitution(text: str | None, context: str) -> str | None:
    """The first substitution made in `text` before the framework reads it, or None: a dotted `${a.b}` or `{{ }}`
    template or a tutorial's `<placeholder>` anywhere, `$(VAR)` in Kubernetes-like YAML (literal text in a script)."""
    if _BLANKED.search(text or ""):
        return "<placeholder>"
    m = _TEMPLATED.search(text or "") or _PLACEHOLDER.search(text or "") or \
        (_K8S_VAR.search(text or "") if context != "shell" else None)
    return m.group() if m else None


def _is_level(name: str, value: str | None) -> bool:
    """`-O3` / `--compilation-config 3`: a bare optimisation level (vLLM accepts an int for it)."""
    return name == "--compilation-config" and value is not None and value.isdigit()


def _scalar(text: str | None):
    if text is None:
        return None
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    number = integer(text)
    return text if number is None else number


def _split_dotted(words: list[Word]):
    """vLLM's `--json-flag.key=value` (and `-O.key=value`) syntax, taken out before argparse-like parsing."""
    dotted, rest = [], []
    heads = {n: n for n in JSON_FLAGS}
    heads["-O"] = "--compilation-config"
    for w in words:
        text = w.value or ""
        head, dot, tail = text.partition(".")
        name = heads.get(head.replace("_", "-") if head.startswith("--") else head)
        if dot and name and "=" in tail:
            key, _, value = tail.partition("=")
            dotted.append((name, key, value, w))
        elif text.startswith("-O") and len(text) > 2 and text[2:].isdigit():  # -O3
            rest.extend([Word("-O", w.span, w.exact), Word(text[2:], w.span, w.exact)])
        else:
            rest.append(w)
    return dotted, rest


def _model(flags: Flags) -> Arg:
    f = flags.get("--model")
    if f is not None:
        return Arg(f.value, (f.span,), f"--model {f.value}")
    if flags.positionals:
        w = flags.positionals[0]
        return Arg(w.value, (w.span,), str(w.value))
    return Arg(None)


def _unknown(w: Word) -> Note:
    head = (w.value or "").partition("=")[0]
    close = difflib.get_close_matches(head.replace("_", "-"), KNOWN_NAMES, n=1, cutoff=0.8)
    hint = f"; did you mean {close[0]}?" if close else ""
    return Note("MC022", f"{head}: vLLM defines no such flag (argparse stops the launch with "
                f"`unrecognized arguments`){hint}", w.span)
