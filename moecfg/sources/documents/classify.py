"""Read and classify: a file's text -> typed documents, each one of
- `Owned`: a moecfg document (its `kind:` names a moecfg kind, or most of its keys are moecfg fields),
- `Launches`: a document or script holding launch commands (a LaunchFile for the frameworks),
- `FileProblem`: a file moecfg owns but cannot read (not text, not YAML, empty),
- `Skipped`: anything else, with the reason (foreign YAML, a list, a template, a CRD): never an error.

Deciding what a document *is* happens here, once; core analyses what it is given. What moecfg's kinds and
fields are comes in as a `Vocabulary` (core builds it from the backends' registry), so this stage imports no
backend. The launch readers (tree-sitter for shell) are imported only when a file may hold a launch.
"""
from __future__ import annotations

import functools
import re
from collections.abc import Callable

from moecfg.sources import framework_words, sniff
from moecfg.sources.manifests.yaml_source import Span, YamlDocument, YamlProblem, decode, parse_stream

_FILE_START = Span(1, 1, 1, 1)
# Keys too generic to make a foreign YAML file a moecfg document on their own.
GENERIC_KEYS = frozenset({"env", "model", "device", "mode", "dtype", "scales", "k", "h", "name", "op"})


class Vocabulary:
    """What makes a document moecfg's: its kind names, and (lazily: only foreign-looking mappings need them)
    the field names of every kind, with the near misses of a key (`bss` -> `bs`) remembered per key."""

    __slots__ = ("kinds", "field_names", "_near")

    def __init__(self, kinds: frozenset, field_names: Callable[[], frozenset]):
        self.kinds, self.field_names = kinds, field_names
        self._near: dict[str, bool] = {}  # key -> is a near miss of a field (the same keys recur in every file)

    def near_field(self, key: str) -> bool:
        found = self._near.get(key)
        if found is None:
            found = self._near[key] = _near(key, self.field_names(), 0.85)
        return found


# The typed documents are plain slotted classes, not dataclasses: each dataclass costs ~0.5 ms at start-up.
class Owned:
    """A moecfg document, for its kind's analysis."""

    __slots__ = ("doc",)

    def __init__(self, doc: YamlDocument):
        self.doc = doc

    @property
    def start(self) -> int:
        return self.doc.start.line


class Launches:
    """A document or script holding launch commands, for the frameworks."""

    __slots__ = ("document", "launch_file", "start")

    def __init__(self, document: int | None, launch_file, start: int = 1):
        self.document = document  # the YAML document holding the launches; None for a script (results count up)
        self.launch_file = launch_file  # sources.launch.LaunchFile
        self.start = start


class FileProblem:
    """A file moecfg owns but cannot read: MC001 (not YAML), MC007 (empty), MC008 (not text), MC024 (a template
    that may hold a launch)."""

    __slots__ = ("code", "message", "span", "start", "document")

    def __init__(self, code: str, message: str, span: Span, start: int = 1, document: int = 0):
        self.code, self.message, self.span, self.start, self.document = code, message, span, start, document


class Skipped:
    """Not moecfg's: why it gets nothing."""

    __slots__ = ("document", "reason")

    def __init__(self, document: int, reason: str):
        self.document, self.reason = document, reason


Classified = Owned | Launches | FileProblem | Skipped


def classify_bytes(raw: bytes, name: str, vocabulary: Vocabulary, root: str | None = None,
                   docs: bool = True) -> tuple[str | None, list[Classified]]:
    """(the text, its documents); `root`: the folder being checked (a script may `source` files inside it)."""
    try:
        text = decode(raw)
    except YamlProblem as exc:
        return None, [FileProblem("MC008", exc.message, Span(exc.line, exc.column, exc.line, exc.column))]
    return text, classify_text(text, name, vocabulary, root, docs)


def classify_text(text: str, name: str, vocabulary: Vocabulary, root: str | None = None,
                  with_docs: bool = True) -> list[Classified]:
    """`with_docs`: documentation inside a file is read (a vLLM recipe's Markdown guide: files.Entry.docs)."""
    yaml_name = name.endswith((".yaml", ".yml"))
    readers = None if yaml_name else _readers()  # the launch readers load only for a file that may hold a launch
    if readers is not None and is_documentation(name):
        return [_launches_or_skipped(readers.read_markdown(text, name), "documentation without a launch")]
    if readers is not None and readers.looks_like_shell(name, text):
        return _shell(readers, text, name, root)
    if name.lower().endswith(".toml"):
        return [_toml(readers or _readers(), text)]
    if name.lower().endswith(".json") and not _may_be_manifest(text):
        return [_json(text, name, root)]  # a MindIE config.json (vendor/mindie.py); any other JSON but a manifest: nothing
    foreign = sniff.foreign_without_parsing(text)
    if foreign:
        return [Skipped(0, foreign)]
    pieces = sniff.pieces(text)  # a big stream of Kubernetes objects: only what may hold a launch is parsed
    try:
        docs = parse_stream(text) if pieces is None else _parse_pieces(pieces)
    except YamlProblem as exc:
        return [_not_yaml(_readers(), text, exc, vocabulary)]
    if not docs and not pieces:
        return [FileProblem("MC007", "no YAML document in this file (empty or only comments)", _FILE_START)]
    owned = [is_moecfg_document(d.data, vocabulary) for d in docs]
    out: list[Classified] = [Skipped(p.index, f"document {p.index}: {p.why}") for p in pieces or () if p.why]
    for doc, ours in zip(docs, owned):
        if ours or (any(owned) and _stray(doc.data)):
            out.append(Owned(doc))
        elif not isinstance(doc.data, dict):
            out.append(Skipped(doc.index, f"document {doc.index}: {_shape(doc.data)}, not a mapping of settings"))
        else:
            out.append(_yaml_launch(readers or _readers(), doc, text, name, root, with_docs))
    return sorted(out, key=_document) if pieces else out


def _parse_pieces(pieces) -> list[YamlDocument]:
    """The documents `sniff.pieces` says may hold a launch, each parsed alone at its own lines (positions are the
    file's) and numbered as in the whole stream."""
    docs = []
    for p in pieces:
        if p.why is None:
            for doc in parse_stream("\n" * p.line + p.text):
                doc.index = p.index
                docs.append(doc)
    return docs


def _document(item: Classified) -> int:
    return item.doc.index if isinstance(item, Owned) else item.document or 0


DOC_SUFFIXES = (".md", ".mdx", ".markdown", ".rst")


def is_documentation(name: str) -> bool:
    return name.lower().endswith(DOC_SUFFIXES)


def directive_text(text: str | None, name: str) -> str | None:
    """Where suppression directives are read: in documentation only its launch blocks (markdown.py)."""
    if text is None or not is_documentation(name):
        return text
    from moecfg.sources.documents.markdown import directive_text as code_only

    return code_only(text, name)


def _shell(readers, text: str, name: str, root: str | None) -> list[Classified]:
    from moecfg.sources.shell.sourced import Includes

    return [_launches_or_skipped(readers.read_shell(text, Includes.for_script(name, root)))]


def _launches_or_skipped(lf, why: str = "") -> Classified:
    if lf.skipped and not lf.launches and not lf.problems or not (lf.launches or lf.problems or lf.skipped):
        return Skipped(0, lf.skipped or why)
    return Launches(None, lf)


def _yaml_launch(readers, doc: YamlDocument, text: str, name: str = "", root: str | None = None,
                 docs: bool = False) -> Classified:
    lf = readers.read_yaml_document(doc, text, name, root, docs) if readers is not None else None
    if lf is None:
        return Skipped(doc.index, f"document {doc.index}: not a moecfg document and no launch command")
    if lf.skipped and not lf.launches and not lf.problems:
        return Skipped(doc.index, f"document {doc.index}: {lf.skipped}")
    return Launches(doc.index, lf, doc.start.line)


def _toml(readers, text: str) -> Classified:
    """A TOML file: a prime-rl config (sniffed on its raw text first, then parsed: recipes/prime_rl.py), else skipped
    unparsed (pyproject.toml, a torchtitan job)."""
    from moecfg.sources.recipes.prime_rl import NOT_PRIME_RL

    lf = readers.read_toml(text) if readers is not None else None
    return Skipped(0, NOT_PRIME_RL) if lf is None else _launches_or_skipped(lf)


def _may_be_manifest(text: str) -> bool:
    """A Kubernetes object written as JSON (`kubectl get -o json`) reads as YAML, as before MindIE was read."""
    head = text[:4096]
    return '"apiVersion"' in head and '"kind"' in head


def _json(text: str, name: str, root: str | None) -> Classified:
    from moecfg.sources.vendor import mindie

    if not mindie.may_be_mindie(text):
        return Skipped(0, "JSON file that is not a MindIE config.json (no BackendConfig.ModelDeployConfig)")
    try:
        docs = parse_stream(text)
    except YamlProblem:
        return Skipped(0, "JSON file not readable with positions (not JSON/YAML): not checked as a MindIE config")
    lf = mindie.read_mindie(docs[0], name, root) if docs else None
    if lf is None:
        return Skipped(0, "JSON file without BackendConfig.ModelDeployConfig.ModelConfig[] and ScheduleConfig: "
                       "not a MindIE config.json")
    return _launches_or_skipped(lf)


_ENVSUBST = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*(?::?[-=?+][^}\n]{0,256})?\}")  # bounded: linear on `${a:-` x 40,000


# What a launch looks like in a template: a framework's words, a workload (pod template, command) or a moecfg kind.
# A template without any (RBAC, a Service, a cert) holds nothing moecfg could check once rendered. Compiled on
# first use (broken YAML and templates only; ~1 ms of every start-up otherwise).
@functools.cache
def _launcher() -> re.Pattern:
    return re.compile(framework_words.TEMPLATE_LAUNCH.pattern
                      + r"|^[ \t]*(?:-[ \t]*)?(?:containers|command|args|entrypoint|server_cmd):"
                      r"|\bkind:\s*[\"']?(?:ascend|deepep|tutel|Pod|Deployment|StatefulSet|DaemonSet|ReplicaSet|Job"
                      r"|CronJob|LeaderWorkerSet)\b", re.I | re.M)


_COMMENT_LINE = re.compile(r"^[ \t]*#.*$", re.M)
_TOP_KEY = re.compile(r"^([A-Za-z_][\w.-]{0,80})[ \t]*:(?:[ \t]+(\S+))?", re.M)


def _may_be_ours(text: str, vocabulary: Vocabulary) -> bool:
    """Broken YAML is moecfg's business when its top-level keys say it is a moecfg document (a moecfg kind, or
    most keys moecfg's fields) or it may hold a launch; a third-party list that is not YAML is not."""
    keys: dict = {}
    for m in _TOP_KEY.finditer(text[:65536]):
        keys.setdefault(m.group(1), m.group(2))
    if keys.get("kind") in vocabulary.kinds:
        return True
    body = _COMMENT_LINE.sub("", text[:65536])  # a comment naming vllm (a citation, a licence) is no launch
    return bool(_launcher().search(body)) or (bool(keys) and "apiVersion" not in keys and _most_keys_ours(
        {k: v for k, v in keys.items() if k != "kind"}, vocabulary))


_LIST_PUNCTUATION = re.compile(r"[\"',\[\]]")


def _not_yaml(readers, text: str, exc: YamlProblem, vocabulary: Vocabulary) -> Classified:
    """Not YAML: a template (Helm/Jinja, envsubst `${VAR}`) is not YAML until rendered: an info when it may hold a
    launch (MC024), else skipped; anything else is moecfg's only when it names a moecfg kind or field (MC001)."""
    problem = readers.template_problem(text) if readers is not None else None
    envsubst = _ENVSUBST.search(text)
    if problem is not None or envsubst is not None:
        # an info must tell something about a launch: a command written out (`command: [vllm, serve, ...]` too)
        if not framework_words.TEMPLATE_COMMAND.search(_LIST_PUNCTUATION.sub(" ", text)):
            return Skipped(0, "a template (not YAML until rendered) with no launch command in it")
        if problem is not None:
            return FileProblem(problem.code, problem.message, problem.span)
        line = text.count("\n", 0, envsubst.start()) + 1
        column = envsubst.start() - (text.rfind("\n", 0, envsubst.start()) + 1) + 1
        return FileProblem("MC024", f"envsubst variable `{envsubst.group()[:60]}`: this file is a template, not YAML "
                           "until rendered; check the rendered output (`envsubst < FILE | moecfg check -`)",
                           Span(line, column, line, column + len(envsubst.group())))
    placeholder = _placeholder_at(text, exc.line)
    if placeholder is not None:
        return _placeholder_template(text, placeholder)
    if exc.syntax and not _may_be_ours(text, vocabulary):
        return Skipped(0, f"not valid YAML ({exc.message[:80]}, line {exc.line}) and nothing in it names a moecfg "
                       "kind, its fields or a launch")
    return FileProblem("MC001", exc.message, Span(exc.line, exc.column, exc.line, exc.column))


# A documented placeholder the user replaces before use (`image: {username}/torchserve:latest`): `{name}` alone,
# not `{{ }}` (Helm/Jinja), not `${VAR}` (envsubst), not a flow mapping `{a: 1}`.
_PLACEHOLDER = re.compile(r"(?<![{$\w])\{[A-Za-z_][\w.-]{0,60}\}(?!\})")


def _placeholder_at(text: str, line: int) -> re.Match | None:
    """A placeholder on the line YAML stopped at or the one before (where the parser noticed it)."""
    lines = text.split("\n", line)[:line]
    for number in (line, line - 1):
        if 1 <= number <= len(lines):
            m = _PLACEHOLDER.search(lines[number - 1])
            if m is not None:
                offset = sum(len(x) + 1 for x in lines[:number - 1])
                return _PLACEHOLDER.search(text, offset)
    return None


def _placeholder_template(text: str, m: re.Match) -> Classified:
    """Not YAML until its placeholder is replaced: skipped with the reason when no framework launch is named in it
    (a torchserve manifest), else MC024 at the placeholder (what runs is the filled-in file)."""
    body = _COMMENT_LINE.sub("", text[:65536])
    if not framework_words.TEMPLATE_LAUNCH.search(body):
        return Skipped(0, f"a template with a placeholder to replace (`{m.group()}`, line "
                       f"{text.count(chr(10), 0, m.start()) + 1}), not YAML until filled in, and no MoE launch in it")
    line = text.count("\n", 0, m.start()) + 1
    column = m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1
    return FileProblem("MC024", f"placeholder `{m.group()}`: this file is a template to fill in, not YAML until then; "
                       "check the file you deploy", Span(line, column, line, column + len(m.group())))


def _stray(data) -> bool:
    """Beside moecfg documents, a list or scalar (MC010) or a `kind:` moecfg does not know (MC006) is a mistake in
    a moecfg file, not a foreign document."""
    if not isinstance(data, dict):
        return True
    return isinstance(data.get("kind"), str) and "apiVersion" not in data


def _shape(data) -> str:
    names = {type(None): "null", list: "a list", str: "a string", bool: "a boolean", int: "an integer",
             float: "a number"}
    return names.get(type(data), type(data).__name__)


def is_moecfg_document(data, vocabulary: Vocabulary) -> bool:
    """A document moecfg owns: `kind` (a string) names a moecfg kind or a near miss of one without `apiVersion`;
    else (no `apiVersion`, no compose shape) at least half of its keys are moecfg fields or near misses of them
    (`bss: 128` is a typo to report, a Helm values file with a `bs:` among its own keys is foreign). A list is
    moecfg's when its items are mappings that together look like one (`- product: A3` / `- bs: 128`)."""
    if isinstance(data, list):
        merged = {k: None for item in data[:50] if isinstance(item, dict) for k in item}
        return bool(merged) and "apiVersion" not in merged and _most_keys_ours(merged, vocabulary)
    if not isinstance(data, dict):
        return False
    kind = data.get("kind")
    if isinstance(kind, str) and kind in vocabulary.kinds:
        return True
    if "apiVersion" in data or "services" in data:
        return False
    if isinstance(kind, str) and _near(kind.lower(), vocabulary.kinds, 0.75):
        return True  # `kind: ascnd`: report it (MC006 with did-you-mean)
    return _most_keys_ours({k: v for k, v in data.items() if k != "kind"}, vocabulary)


def _most_keys_ours(data: dict, vocabulary: Vocabulary) -> bool:
    names = vocabulary.field_names()
    keys = [k for k in list(data)[:50] if isinstance(k, str) and k not in GENERIC_KEYS]  # generic keys are neutral
    ours = sum(k in names for k in keys)
    if ours and 2 * ours >= len(keys):
        return True
    # a near miss is a typo of a field only when it holds a value (`bss: 128`), not a section (a test matrix's
    # `products:` list of mappings, Ascend/MindSpeed@028de58 tests_extend/system_tests/core_model/gpt-usecase.yaml)
    ours += sum(1 for k in keys if k not in names and len(k) > 3 and not isinstance(data[k], (dict, list))
                and vocabulary.near_field(k))
    return bool(ours) and 2 * ours >= len(keys)


def _near(word: str, names, cutoff: float) -> bool:
    import difflib  # only for documents with keys moecfg does not know

    # a ratio of at least `cutoff` needs lengths within this factor of each other: compare only those names
    factor = (2 - cutoff) / cutoff
    close = [n for n in names if len(word) / factor <= len(n) <= len(word) * factor]
    return bool(close and difflib.get_close_matches(word, close, n=1, cutoff=cutoff))


def _readers():
    from moecfg.optional import optional_module

    return optional_module("moecfg.sources.readers")
