"""`vllm serve` as vLLM's argparse reads it: the flag table and the launch read into `ServeArgs`.

vllm-ascend adds no CLI flags of its own (it is a vLLM platform plugin): its settings come through
`--additional-config` JSON and environment variables. The flags that change the MoE op calls are read
into typed `Arg`s (value + the spans of the words that set it); every other vLLM flag is known and
ignored, so MC022 fires only on names vLLM does not define (typos).
"""
from __future__ import annotations

import re

from moecfg.core.record import field, record
from moecfg.frameworks import Note
from moecfg.frameworks.values import clipped, integer, parse, shape_problems
from moecfg.frameworks.flags import FlagSpec, Flags, JsonFlagError, json_value, parse_flags
from moecfg.sources.launch import Launch, Word
from moecfg.sources.textmap import Span

# The flag table of each vLLM release is generated from its wheel (tools/gen_flag_tables.py, flag_tables/vllm.json):
# names, -tp/-dp/-O aliases, --no-X forms of BooleanOptionalAction flags, nargs, JSON flags. FlexibleArgumentParser
# reads `--max_num_seqs` as `--max-num-seqs`, `--json-flag.key value` as a JSON object, and argparse takes a unique
# prefix of a long option for it (vllm/utils/__init__.py FlexibleArgumentParser.parse_args, vllm==0.11.0).
# Flags of the removed V0 engine (vLLM <= 0.10), still written in older scripts: known, never an MC022 warning.
_REMOVED = frozenset(("--num-scheduler-steps", "--use-v2-block-manager", "--multi-step-stream-outputs",
                      "--preemption-mode", "--scheduler-delay-factor", "--tokenizer-pool-size",
                      "--tokenizer-pool-type", "--tokenizer-pool-extra-config", "--speculative-model",
                      "--num-speculative-tokens", "--max-prompt-adapters", "--max-prompt-adapter-token",
                      "--enable-prompt-adapter", "--enable-reasoning", "--disable-async-output-proc",
                      "--override-neuron-config", "--max-seq-len-to-capture"))


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


@record(frozen=True, slots=True)
class Arg:
    """One setting as the launch gives it: its value and the spans of the words that set it."""

    value: object
    spans: tuple[Span, ...] = ()
    text: str = ""  # how it was written ("--max-num-seqs 16"); "" when it is vLLM's default

    def said(self, default: str) -> str:
        return self.text or default


@record(slots=True)
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
        # `tool run -g2 -- vllm serve ...`: the word after an end-of-options `--` is the command a launcher runs
        if w is None or (i > 0 and not wrapped and words[i - 1] != "--"):
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


def read(launch: Launch, pick=None, extra: tuple[FlagSpec, ...] = (), start: int | None = None) -> ServeArgs | None:
    """The launch's `vllm serve` arguments, read with the flag table of `pick` (flag_tables.Pick; None: the
    newest release read, the version not known). `extra`: flags read even where the release lacks them, for a
    rule that names the release's refusal itself (MC970: --all2all-backend on vLLM 0.11.0). `start`: where vLLM's
    arguments begin when another launcher runs vLLM's CLI (`vllm-mindspore serve`); default `command_start`."""
    start = command_start(launch) if start is None else start
    if start is None:
        return None
    from moecfg.frameworks import flag_tables

    table = flag_tables.reading_table("vllm", pick) if pick else flag_tables.reading_table(
        "vllm", flag_tables.pick("vllm", None, ""))
    words = list(launch.argv[start:])
    dotted, words = _split_dotted(words, table)
    flags = parse_flags(words, table.specs + tuple(e for e in extra if not table.has(e.name)), underscores=True,
                        abbrev=True, verbatim=table.json_flags)
    model = _model(flags)
    args = ServeArgs(model=model, flags=flags, env=launch.env.copy(), start=launch.span)  # copy(): an OpenEnv stays open
    dynamo = launch.words()[start - 1] == "dynamo.vllm"  # Dynamo adds flags of its own: no MC022 there
    for w in flags.unknown if not dynamo else ():
        args.notes.append(_unknown(w, table, pick))
    for w, full in flags.abbreviated if not dynamo else ():
        args.notes.append(Note("MC022", f"{(w.value or '').partition('=')[0]} is an abbreviation argparse accepts for "
                               f"{full} (the only option it begins); write {full} in full", w.span, severity="info"))
    for name in table.json_flags:
        f = flags.get(name)
        if f is None or f.value is None:  # unknown (`"$KV_CONFIG"`, a placeholder): an info, never an error
            if f is not None:
                args.notes.append(Note("MC023", f"{name}: the value is not known statically; the settings in it "
                                       "are not used", f.span))
            continue
        if _kept_as_string(name, f.value, table, launch.context):
            continue  # `--pt-load-map-location cuda:0`: union_dict_and_str keeps it as a string, nothing to read
        try:
            data = json_value(f) if not _is_level(name, f.value) else {"mode": integer(f.value)}
        except JsonFlagError as exc:
            marker = substitution(f.value, launch.context)
            pairs = None if marker else _key_value_pairs(f.value)
            if pairs is not None:  # vLLM <= 0.9's `image=10`: read as it was there, said where it may fail
                args.notes.extend(_pairs_note(name, f, pairs, pick))
                args.json[name] = Arg(pairs, (f.span,), f"{name} {clipped(f.value, 200)}")
                continue
            args.notes.append(Note("MC023", f"{name} holds `{marker}`, filled in before vLLM reads it (a template, a "
                                   "placeholder or Kubernetes `$(VAR)`): its settings are not known statically", f.span)
                              if marker
                              else Note("MC021", f"{exc}; the settings in it are not used", f.span))
            continue
        for problem in shape_problems(data, JSON_SHAPES.get(name, {}), name):  # the config class refuses it
            args.notes.append(Note("MC021", f"{problem}: vLLM refuses the launch at start-up; the key is not used",
                                   f.span))
        args.json[name] = Arg(data, (f.span,), f"{name} {clipped(f.value, 200)}")
    for name, keys, value, word in dotted:  # --compilation-config.cudagraph_mode=FULL_DECODE_ONLY
        if name is None:
            if not dynamo:
                args.notes.append(_not_json(word, table, pick) or _unknown(word, table, pick))
            continue
        prev = args.json.get(name)
        data = _merge(dict(prev.value) if prev else {}, keys, value)
        args.json[name] = Arg(data, (prev.spans if prev else ()) + (word.span,), f"{name}.{'.'.join(keys)}={value}")
    return args


_TEMPLATED = re.compile(r"\$\{[A-Za-z_][\w-]*\.[\w.-]+\}|\{\{.{0,256}?\}\}")  # `${accelerator.x}`, `{{ .Values.x }}`
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


def _merge(data: dict, keys: list[str], value):
    node = data
    for k in keys[:-1]:
        node[k] = dict(node[k]) if isinstance(node.get(k), dict) else {}
        node = node[k]
    node[keys[-1]] = value
    return data


_OBJECT = re.compile(r"(?s)^\s*{.*}\s*$")  # union_dict_and_str (vllm==0.33.0 vllm/engine/arg_utils.py:183)
def _kept_as_string(name: str, value: str, table, context: str) -> bool:
    """A value vLLM keeps as a plain string (union_dict_and_str, not shaped `{...}`) and moecfg need not read.
    --additional-config is not one: vllm-ascend reads it with .get() (ascend_config.py), which a string breaks."""
    return name in table.strings and name != "--additional-config" and not _OBJECT.match(value) and \
        not substitution(value, context)


_INT = re.compile(r"-?\d+")


def _key_value_pairs(text: str) -> dict | None:
    """`image=10,video=1` as vLLM <= 0.9 read a JSON flag that is not `{...}` (nullable_kvs: lower-cased keys, int
    values; vllm==0.9.0.1 vllm/engine/arg_utils.py:53-110); None when the text is not such pairs."""
    out = {}
    for item in text.split(","):
        key, eq, value = item.partition("=")  # split, not a regex: `\s*(.+?)\s*=` ran quadratic on blanks
        key, value = key.strip(), value.strip()
        if not eq or not key or "=" in value or not _INT.fullmatch(value) or len(value) > 4300:
            return None
        out[key.lower()] = int(value)
    return out


def _pairs_note(name: str, f, pairs: dict, pick) -> list[Note]:
    """Nothing for a launch of vLLM <= 0.9 (it reads the pairs); MC021 where 0.10.0+ runs (JSON only): an error for a
    release the launch names, an info when the version is not known."""
    import json

    from moecfg.frameworks.flag_tables import version_tuple

    if pick is not None and pick.older and (version_tuple(pick.older) or (0,)) < (0, 10):
        return []
    known = pick is not None and pick.known
    where = f"vLLM {pick.release} ({pick.how}) refuses it" if known else \
        "vLLM 0.10.0 and later refuse it (the version is not known: pin it with an image tag or `framework_versions:`)"
    return [Note("MC021", f"{name} {f.value}: key=value pairs were read up to vLLM 0.9 only; {where}; write JSON: "
                 f"{name} '{json.dumps(pairs)}'", f.span, severity=None if known else "info")]


def _is_level(name: str, value: str | None) -> bool:
    """`-O3` / `--compilation-config 3`: a bare optimisation level (vLLM accepts an int for it)."""
    return name == "--compilation-config" and value is not None and value.isdigit()


def _scalar(text: str | None):
    """A dotted sub-flag's value: true / false, an integer, else the text (FlexibleArgumentParser tries JSON)."""
    if text is None:
        return None
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    number = integer(text)
    return text if number is None else number


def _short(head: str) -> bool:
    """`-O` / `-cc` (vLLM 0.12+'s alias of --compilation-config): FlexibleArgumentParser takes any `-x.key` word
    (vllm==0.33.0 vllm/utils/argparse_utils.py:462), argparse then the alias."""
    return head[:1] == "-" and head[1:2].isalpha()


def _json_head(head: str, table) -> str | None:
    """The JSON flag `--head` (exactly or as argparse's unique prefix) or `-alias` names, else None."""
    if head == "-O":
        return "--compilation-config"
    if not head.startswith("--"):
        spec = next((s for s in table.specs if head in s.aliases), None)
        return spec.name if spec is not None and table.kinds.get(spec.name) == "json" else None
    names = [n for s in table.specs for n in (s.name, *s.aliases)]
    found = [n for n in names if n == head] or [n for n in names if n.startswith(head) and n.startswith("--")]
    spec = next((s for s in table.specs if found and len(found) == 1 and found[0] in (s.name, *s.aliases)), None)
    return spec.name if spec is not None and table.kinds.get(spec.name) == "json" else None


def _split_dotted(words: list[Word], table):
    """vLLM's `--json-flag.key value` / `--json-flag.key=value` (and `-O.key=value`) syntax, taken out before the
    argparse-like parsing: (json flag or None when the head names none, keys, value, word)."""
    dotted, rest = [], []
    # vLLM >= 0.12 turns -O<n> into --optimization-level <n> (utils/argparse_utils.py, vllm==0.33.0 :395-405)
    level = "--optimization-level" if table.has("--optimization-level") else ""
    i = 0
    while i < len(words):
        w = words[i]
        text = w.value or ""
        head, dot, tail = text.partition(".")
        if dot and "=" not in head and (head.startswith("--") and len(head) > 2 or _short(head)) and tail:
            key, eq, value = tail.partition("=")
            if not eq:
                nxt = words[i + 1] if i + 1 < len(words) else None
                value = nxt.value if nxt is not None else None
                i += 1
            name = _json_head(head.replace("_", "-") if head.startswith("--") else head, table)
            dotted.append((name, key.rstrip("+").split("."), _scalar(value), w))
        elif text.startswith("-O") and (len(text) > 2 or level):  # -O3, -O=3, -O 3
            value = text[3:] if text[2:3] == "=" else text[2:]
            if not value and i + 1 < len(words) and words[i + 1].value in ("0", "1", "2", "3"):
                i += 1
                value = words[i].value
            rest.extend([Word(level or "-O", w.span, w.exact), Word(value, w.span, w.exact)] if value else [w])
        else:
            rest.append(w)
        i += 1
    return dotted, rest


def _model(flags: Flags) -> Arg:
    f = flags.get("--model")
    if f is not None:
        return Arg(f.value, (f.span,), f"--model {f.value}")
    if flags.positionals:
        w = flags.positionals[0]
        return Arg(w.value, (w.span,), str(w.value))
    return Arg(None)


def _not_json(w: Word, table, pick) -> Note | None:
    """MC022 for `--flag.key value` where --flag is a flag of the release but not a JSON one: FlexibleArgumentParser
    turns every dotted word into `--flag '{"key": value}'` (vllm==0.33.0 vllm/utils/argparse_utils.py:462-501), which
    only a JSON flag reads as settings. None when the head names no flag (then it is an unknown flag)."""
    head = (w.value or "").partition("=")[0].partition(".")[0]
    dashed = head.replace("_", "-") if head.startswith("--") else head
    spec = next((s for s in table.specs if dashed in (s.name, *s.aliases)), None)
    if spec is None:
        return None
    known = pick is not None and pick.known
    where = f"vLLM {table.release} ({pick.how})" if known else "vLLM (the version is not known; pin it with an " \
        "image tag or `framework_versions:`)"
    return Note("MC022", f"{(w.value or '').partition('=')[0]}: {spec.name} takes no dotted sub-keys in {where}: it "
                "is not a JSON flag there, so vLLM's parser passes the sub-key as a JSON object for its value; give "
                f"{spec.name} its value directly", w.span, severity=None if known else "info")


def _unknown(w: Word, table, pick) -> Note:
    from moecfg.frameworks.flag_tables import unknown_note

    return unknown_note("vLLM", w, table, pick, _REMOVED)
