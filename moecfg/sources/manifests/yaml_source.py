"""Strict YAML loading with positions.

`parse_stream(text)` composes every document with PyYAML (the C parser when available), then builds
plain Python data from the node graph itself so that it can
- report duplicate keys (PyYAML silently keeps the last one) with both positions,
- remember the position of every key and value by path (the framework resolves a check's path to a
  line/column through this index, checks never compute positions),
- refuse recursive aliases and alias bombs instead of looping.
"""
from __future__ import annotations

from moecfg.core.record import field, record
from moecfg.core.diagnostics import clip
from moecfg.sources.textmap import Span  # noqa: F401  (re-exported: a position in any source text)

# PyYAML is imported on the first parse, not with this module: a launch script, a Markdown file and the records
# here (YamlDocument, YamlProblem, decode) never need it (~15 ms of a launch check's start-up).
yaml = _Loader = _SCALAR = None


def _load_yaml() -> None:
    global yaml, _Loader, _SCALAR
    if yaml is not None:
        return
    import yaml as pyyaml

    _Loader = getattr(pyyaml, "CSafeLoader", pyyaml.SafeLoader)  # the C parser unless PyYAML lacks libyaml
    _SCALAR = pyyaml.constructor.SafeConstructor()
    yaml = pyyaml

_MAX_NODES = 200_000  # values built per FILE, aliases and merged entries expanded ("billion laughs")
_MAX_DEPTH = 500  # nesting levels; libyaml's composer recurses in C and crashes the process near 50 000
_PRESCAN_CHARS = 1 << 16  # larger texts are counted by the event parser before they are composed
_MAX_INT_BITS = 4096  # an integer literal moecfg can still print (0x + 100k digits is legal YAML)


class YamlProblem(Exception):
    """A document that cannot be turned into data; carries the 1-based position."""

    def __init__(self, message: str, line: int, column: int, syntax: bool = False):
        super().__init__(message)
        self.message, self.line, self.column = message, line, column
        self.syntax = syntax  # the parser's refusal of the text (not a guard: size, depth, encoding, values)


def _span(node) -> Span:
    s, e = node.start_mark, node.end_mark
    return Span(s.line + 1, s.column + 1, e.line + 1, e.column + 1)


@record(slots=True)
class YamlDocument:
    """One document of a YAML stream: its data and the position of every key and value."""

    index: int
    data: object
    start: Span
    values: dict = field(default_factory=dict)  # path -> Span of the value node
    keys: dict = field(default_factory=dict)  # path -> Span of the key node
    duplicates: list = field(default_factory=list)  # (path, first Span, second Span)
    raw_scalars: dict = field(default_factory=dict)  # path -> source text of scalar values
    first_line: int = 0  # the text parsed starts after this many lines of its file (parse_stream(first_line=))

    def position(self, path: tuple, at_key: bool = False) -> Span:
        """Span of `path`, or of its nearest existing ancestor (a missing key points at its parent)."""
        p = tuple(path)
        if at_key and p in self.keys:
            return self.keys[p]
        while p:
            if p in self.values:
                return self.values[p]
            p = p[:-1]
        return self.start


_Y = "tag:yaml.org,2002:"
_STR_TAG = _Y + "str"
_MERGE_TAG = _Y + "merge"
_PLAIN_AS_TEXT = {_Y + "timestamp", _Y + "binary"}
_SCALAR_TAGS = {_Y + "null", _Y + "bool", _Y + "int", _Y + "float"}  # the constructors that take a scalar
_COLLECTION_TAGS = {_Y + t for t in ("seq", "map", "set", "omap", "pairs")}


class _Budget:
    """Values built for one file, shared by its documents (each document alone stays small, all together not)."""

    def __init__(self):
        self.count = 0

    def charge(self, n: int, node) -> None:
        self.count += n
        if self.count > _MAX_NODES:
            raise YamlProblem(f"file too large: more than {_MAX_NODES} values after expanding aliases and merge "
                              "keys (an alias bomb?)", *_Builder._pos(node))


class _Builder:
    def __init__(self, doc: YamlDocument, budget: _Budget):
        self.doc = doc
        self.budget = budget
        self.active: set[int] = set()

    def build(self, node, path: tuple):
        self.budget.charge(1, node)
        self.doc.values[path] = _span(node)
        if isinstance(node, yaml.ScalarNode):
            return self.scalar(node, path)
        if id(node) in self.active:
            raise YamlProblem("recursive alias: a node contains itself", *self._pos(node))
        self.active.add(id(node))
        try:
            if isinstance(node, yaml.SequenceNode):
                return [self.build(child, path + (i,)) for i, child in enumerate(node.value)]
            return self.mapping(node, path)
        finally:
            self.active.discard(id(node))

    @staticmethod
    def _pos(node):
        return node.start_mark.line + 1, node.start_mark.column + 1

    def scalar(self, node, path):
        self.doc.raw_scalars[path] = node.value
        if node.tag in _PLAIN_AS_TEXT or node.tag.startswith("!"):
            return node.value
        if node.tag == _STR_TAG:
            return node.value
        if node.tag == "tag:yaml.org,2002:int" and ":" in node.value:  # YAML 1.1 base 60 (1:30 == 90)
            return node.value
        if node.tag in _COLLECTION_TAGS:
            raise YamlProblem(f"tag !!{node.tag[len(_Y):]} needs a {'list' if node.tag.endswith(('seq', 'set', 'omap', 'pairs')) else 'mapping'}, "
                              f"not the scalar {clip(node.value)!r}", *self._pos(node))
        if node.tag not in _SCALAR_TAGS:
            if node.tag not in _SCALAR.yaml_constructors:  # `!!python/name:x` (mkdocs): valid YAML, read as its text
                return node.value
            return _SCALAR.construct_object(node, deep=True)
        try:
            value = _SCALAR.yaml_constructors[node.tag](_SCALAR, node)  # without construct_object's bookkeeping
        except (ValueError, TypeError, KeyError, IndexError, OverflowError):  # `0x_`, `!!int x`, 5000 digits
            raise YamlProblem(f"cannot read {clip(node.value)!r} as !!{node.tag[len(_Y):]}; PyYAML fails on it "
                              "too (write a plain number, or quote it for a string)", *self._pos(node)) from None
        if isinstance(value, int) and value.bit_length() > _MAX_INT_BITS:
            raise YamlProblem(f"integer of {value.bit_length()} bits: too large to be a setting", *self._pos(node))
        return value

    def mapping(self, node, path):
        out: dict = {}
        first_seen: dict = {}
        for key_node, value_node in self._entries(node):
            if not isinstance(key_node, yaml.ScalarNode):
                raise YamlProblem("mapping keys must be plain scalars", *self._pos(key_node))
            key = self.scalar(key_node, path + ("<key>",))
            if not isinstance(key, (str, int, bool, float)) and key is not None:
                key = str(key)
            if key is None:
                key = "null"
            if isinstance(key, (bool, float)):
                key = key_node.value
            child = path + (key,)
            if key in out:
                self.doc.duplicates.append((child, first_seen[key], _span(key_node)))
            else:
                first_seen[key] = _span(key_node)
            self.doc.keys[child] = _span(key_node)
            out[key] = self.build(value_node, child)
        self.doc.raw_scalars.pop(path + ("<key>",), None)
        return out

    def _entries(self, node):
        """Mapping entries with YAML merge keys (`<<`) expanded, also inside merged mappings (as PyYAML's
        flatten_mapping); explicit keys win over merged ones, earlier sources over later. Every merged entry
        is charged to the budget (a mapping merging 1000 others, aliased 1900 times, is 1.9M entries)."""
        merged, own = [], []
        for key_node, value_node in node.value:
            if key_node.tag == _MERGE_TAG:
                sources = value_node.value if isinstance(value_node, yaml.SequenceNode) else [value_node]
                for src in sources:
                    if not isinstance(src, yaml.MappingNode):
                        raise YamlProblem("a merge key (<<) needs a mapping", *self._pos(src))
                    if id(src) in self.active:
                        raise YamlProblem("recursive alias in merge key", *self._pos(src))
                    self.active.add(id(src))
                    try:
                        merged.extend(self._entries(src))
                    finally:
                        self.active.discard(id(src))
            else:
                own.append((key_node, value_node))
        if not merged:
            return own
        self.budget.charge(len(merged), node)
        own_keys = {k.value for k, _ in own if isinstance(k, yaml.ScalarNode)}
        kept, seen = [], set()
        for k, v in merged:
            name = k.value if isinstance(k, yaml.ScalarNode) else id(k)
            if name not in own_keys and name not in seen:
                seen.add(name)
                kept.append((k, v))
        return kept + own


def decode(raw: bytes) -> str:
    """Bytes to text; raises YamlProblem for binary or undecodable input."""
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    elif raw.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):  # before UTF-16: FF FE also starts UTF-32-LE
        try:
            return raw.decode("utf-32")
        except UnicodeDecodeError:
            raise YamlProblem("file is not valid UTF-32 text", 1, 1) from None
    elif raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return raw.decode("utf-16")
        except UnicodeDecodeError:
            raise YamlProblem("file is not valid UTF-16 text", 1, 1) from None
    if b"\x00" in raw:
        return _binary(raw)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        col = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise YamlProblem(f"not UTF-8 text (byte 0x{raw[exc.start]:02x}); is this a binary file?", line, col) from None


def _binary(raw: bytes):
    i = raw.index(b"\x00")
    line = raw.count(b"\n", 0, i) + 1
    raise YamlProblem("binary file (contains NUL bytes), not a text file moecfg reads (YAML or shell)", line, i - (raw.rfind(b"\n", 0, i) + 1) + 1)


def _offset_position(text: str, offset: int):
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def _nesting_bound(text: str) -> int:
    # every collection level needs its own `[`, `{`, `-`, `?` or `:` character: a cheap upper bound on depth
    return sum(text.count(c) for c in "[{-?:") + 1


def _max_flow_depth(text: str) -> int:
    """Deepest run of `[`/`{` (quotes ignored: an upper bound). Used to name a parser's refusal of deep flow
    nesting as nesting whichever parser refuses first (libyaml >= 0.2.6 has its own limit, PyYAML 6.0.4 ships it)."""
    depth = deepest = 0
    for c in text:
        if c in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif c in "]}" and depth:
            depth -= 1
    return deepest


def _check_depth(text: str) -> None:
    """Refuse files nested deeper than _MAX_DEPTH, or with more than _MAX_NODES values before any alias is
    expanded, before composing them: the event parser neither recurses nor keeps the nodes, while the
    composer would hold all of a 60 MB file's values as Python objects (GBs) before the budget could stop it."""
    if _nesting_bound(text) <= _MAX_DEPTH and len(text) <= _PRESCAN_CHARS:
        return
    depth = nodes = 0
    for event in yaml.parse(text, Loader=_Loader):
        if isinstance(event, (yaml.ScalarEvent, yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            nodes += 1
            if nodes > _MAX_NODES:
                m = event.start_mark
                raise YamlProblem(f"file too large: more than {_MAX_NODES} values", m.line + 1, m.column + 1)
        if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            depth += 1
            if depth > _MAX_DEPTH:
                m = event.start_mark
                raise YamlProblem(f"document nested too deeply (more than {_MAX_DEPTH} levels)", m.line + 1, m.column + 1)
        elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            depth -= 1


def _empty(node) -> bool:
    return isinstance(node, yaml.ScalarNode) and node.tag == "tag:yaml.org,2002:null" and node.value == "" \
        and not node.style


def parse_stream(text: str, first_line: int = 0) -> list[YamlDocument]:
    """All documents of `text`; raises YamlProblem at the parser's position for invalid YAML. `first_line`: `text`
    starts after that many lines of its file (a Markdown code block); every position is the file's."""
    docs = _parse_stream(text)
    if first_line:
        for doc in docs:
            _shift(doc, first_line)
    return docs


def _shift(doc: YamlDocument, lines: int) -> None:
    def moved(s: Span) -> Span:
        return Span(s.line + lines, s.column, s.end_line + lines, s.end_column)

    doc.first_line = lines
    doc.start = moved(doc.start)
    doc.values = {k: moved(v) for k, v in doc.values.items()}
    doc.keys = {k: moved(v) for k, v in doc.keys.items()}
    doc.duplicates = [(p, moved(a), moved(b)) for p, a, b in doc.duplicates]


def _parse_stream(text: str) -> list[YamlDocument]:
    docs: list[YamlDocument] = []
    budget = _Budget()
    _load_yaml()
    try:
        _check_depth(text)
        for i, node in enumerate(yaml.compose_all(text, Loader=_Loader)):
            if node is None or _empty(node):
                continue  # `---` with nothing after it (e.g. a trailing separator) is not a document
            doc = YamlDocument(index=i, data=None, start=_span(node))
            doc.data = _Builder(doc, budget).build(node, ())
            docs.append(doc)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        msg = " ".join(str(p) for p in (exc.context, exc.problem) if p) or "invalid YAML"
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        if _nesting_bound(text) > _MAX_DEPTH and _max_flow_depth(text) > _MAX_DEPTH:
            raise YamlProblem(f"document nested too deeply (more than {_MAX_DEPTH} levels)", line, col) from None
        raise YamlProblem(msg, line, col, syntax=True) from None
    except yaml.reader.ReaderError as exc:
        line, col = _offset_position(text, exc.position)
        raise YamlProblem(f"unacceptable character #x{exc.character:04x} (control characters are not allowed)"
                          if isinstance(exc.character, int) else str(exc), line, col) from None
    except yaml.YAMLError as exc:
        raise YamlProblem(f"invalid YAML: {exc}", 1, 1, syntax=True) from None
    except RecursionError:
        raise YamlProblem("document nested too deeply", 1, 1) from None
    return docs
