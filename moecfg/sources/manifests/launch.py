"""YAML documents that hold launches, the shared part: a document reader with its text, positions and
problems (`DocReader`), scalar words with their source maps, and substitution through a map.

kubernetes.py, compose.py and commands.py read the three shapes; every command word is a YAML scalar
decoded with its source map (textmap.py), and `bash -c` strings are read by the shell reader through the
composed map, so positions stay exact inside block scalars.
"""
from __future__ import annotations

import re
from functools import lru_cache

from moecfg.core import launch_rules as L
from moecfg.sources.shell import reader as S
from moecfg.sources.shell import repair as shell_repair
from moecfg.sources.launch import LaunchFile, Problem
from moecfg.sources.shell.words import Built, Var, Variables
from moecfg.sources.shell.values import _UNKNOWN as _UNKNOWN_MARK
from moecfg.sources.textmap import Decoded, LineIndex, SourceMap, yaml_scalar_map
from moecfg.sources.manifests.yaml_source import Span, YamlDocument


_HINT = re.compile(r"huawei\.com/ascend[-\w]*|nvidia\.com/gpu[\w.-]*|ascend[-_ ]?(?:910|310|950)\w*|"
                   r"\b910[BC]\d?\b|atlas[- ]?(?:800|900|300)[\w-]*|\bnvidia-(?:h|a|b|gb)\d+[\w-]*", re.I)
# The device-plugin resource of Atlas A2 and A3 nodes alike (Huawei Cloud CCE, MindCluster): the count a container
# asks for is kept with it, so a count no A2 node has (more than its 8 NPUs) can name A3 (frameworks/hints.py).
_SHARED_RESOURCE = "huawei.com/ascend-1980"


@lru_cache(maxsize=4)
def line_index(text: str, first_line: int = 0) -> LineIndex:
    """One index per file text (cached: a multi-document file is indexed once)."""
    return LineIndex(text, first_line)


class DocReader:
    """Shared state for one YAML document: its text, positions, problems and launches."""

    def __init__(self, doc: YamlDocument, text: str, context: str):
        self.doc, self.text, self.lines, self.context = doc, text, line_index(text, doc.first_line), context
        self.out = LaunchFile()
        self.templated = False

    def span(self, path: tuple) -> Span:
        return self.doc.position(path)

    def decoded(self, path: tuple) -> Decoded | None:
        """The scalar at `path` with its source map (None for a template, which is reported once)."""
        value = self.doc.raw_scalars.get(path)
        if value is None:
            return None
        if _templated(value):
            self.template(path)
            return None
        if _UNKNOWN_MARK in value:  # a shell variable the script does not know, in a heredoc (shell/heredoc_manifest.py)
            return None
        return Decoded(value, yaml_scalar_map(self.text, self.lines, self.doc.values[path], value))

    def template(self, path: tuple) -> None:
        if not self.templated:
            self.templated = True
            self.out.problems.append(Problem(L.TEMPLATE.code, "template expression (Helm/Jinja `{{ ... }}`): the "
                                             "text is not what runs; values from it are unknown", self.span(path),
                                             about_launch=True))

    def word(self, path: tuple, dec: Decoded | None) -> Built:
        span = self.span(path)
        if dec is None:
            return Built(None, SourceMap(), span, False)
        exact = all(s[4] for s in dec.map.segs)
        return Built(dec.text, dec.map, span, exact)

    def shell(self, make_launch) -> S.ShellReader:
        return S.ShellReader(self.lines, self.out.problems, self.context, make_launch)

    def run(self, argv: list, variables: dict, make_launch) -> None:
        """A list-form command (exec, no shell): strip wrappers, read `sh -c` strings, emit the Launch."""
        reader = self.shell(make_launch)
        reader.depth = 0
        walk = S._Walk(reader, None, Variables(variables), set())
        S._Command(walk, argv, {}).run()
        self._collect(reader)

    def script(self, dec: Decoded, variables: dict, make_launch) -> None:
        """A command string read by a shell (or shlex: newlines as spaces, same length, same map)."""
        reader = self.shell(make_launch)
        reader.read(dec, variables)
        self._collect(reader)

    def _collect(self, reader: S.ShellReader) -> None:
        """The reader's launches, and one MC023 naming the documentation placeholders they hold."""
        self.out.launches.extend(reader.launches)
        if reader.placeholders and reader.launches:
            self.out.problems.append(shell_repair.placeholder_note(reader.placeholders))

    def hints(self) -> tuple[tuple[str, Span], ...]:
        """Product hints anywhere in the document: resource names, node selectors, labels."""
        found: dict[str, Span] = {}
        for path, span in self.doc.keys.items():
            key = path[-1]
            if isinstance(key, str) and len(key) < 200:
                for m in _HINT.finditer(key):
                    found.setdefault(m.group(), span)
                count = str(self.doc.raw_scalars.get(path, "")).strip()
                if key.lower() == _SHARED_RESOURCE and count.isdigit() and len(count) < 6:
                    found.setdefault(f"{key}: {int(count)}", span)
        for path, value in self.doc.raw_scalars.items():
            if isinstance(value, str) and len(value) < 200:
                for m in _HINT.finditer(value):
                    if m.group() not in found:
                        smap = yaml_scalar_map(self.text, self.lines, self.doc.values[path], value)
                        found[m.group()] = self.lines.span(*smap.locate(m.start(), m.end())[:2])
        return tuple(found.items())


def scalar_items(data, path: tuple):
    """(path, value) of each item of a YAML list (or the single scalar) at `path`."""
    if isinstance(data, list):
        return [(path + (i,), v) for i, v in enumerate(data) if not isinstance(v, (dict, list))]
    if data is None or isinstance(data, (dict,)):
        return []
    return [(path, data)]


def get(data, path: tuple):
    for p in path:
        data = data[p]
    return data


def substitute(dec: Decoded, pattern, repl) -> Decoded | None:
    parts, smap, pos = [], SourceMap(), 0
    for m in pattern.finditer(dec.text):
        value = repl(m)
        if value is None:
            return None
        parts.append(dec.text[pos:m.start()])
        smap.extend(dec.map.slice(pos, m.start()))
        parts.append(value)
        piece = dec.map.slice(m.start(), m.end())
        smap.extend(piece if value == m.group() else piece.whole(len(value)))
        pos = m.end()
    parts.append(dec.text[pos:])
    smap.extend(dec.map.slice(pos, len(dec.text)))
    return Decoded("".join(parts), smap)


def unquoted_newlines_to_spaces(text: str) -> str:
    """shlex.split treats a newline outside quotes as a blank, a shell ends the command there: same length,
    so the map still fits."""
    if "\n" not in text:
        return text
    out, quote, i = list(text), None, 0
    while i < len(text):
        c = text[i]
        if c == "\\" and quote != "'":
            i += 2
            continue
        if quote is None and c in "'\"":
            quote = c
        elif c == quote:
            quote = None
        elif quote is None and c == "\n":
            out[i] = " "
        i += 1
    return "".join(out)


def mappings(data, path: tuple = ()):
    """(path, mapping) of every mapping in `data`, in document order (iterative: no recursion limit)."""
    stack = [(data, path)]
    while stack:
        node, p = stack.pop()
        if isinstance(node, dict):
            yield p, node
            stack.extend((v, p + (k,)) for k, v in reversed(list(node.items())) if isinstance(v, (dict, list)))
        elif isinstance(node, list):
            stack.extend((v, p + (i,)) for i, v in reversed(list(enumerate(node))) if isinstance(v, (dict, list)))


def _templated(value: str) -> bool:
    """`{{ ... }}` or `{% ... %}` (Jinja, Helm, Go templates) anywhere in the value, over lines: two literal
    searches (the regex `\\{\\{.*?\\}\\}` with re.S restarted its scan at every `{{`: quadratic on `{{` x 40,000)."""
    for opening, closing in (("{{", "}}"), ("{%", "%}")):
        at = value.find(opening)
        if at >= 0 and value.find(closing, at + 2) >= 0:
            return True
    return False


_REFERENCE = re.compile(r"\$[{(]?([A-Za-z_][A-Za-z0-9_]*)")  # $X, ${X...}, Kubernetes $(X)


def open_references(node, variables: dict, unread: tuple | None) -> dict:
    """`variables` with every `$NAME` the command strings in `node` refer to set to an unknown value when a source
    that may set any variable was not read (`unread`: its span, why, and the prefix of the names it sets): the
    script's `${NAME:-16}` is then unknown, not 16."""
    if not unread:
        return variables
    span, prefix = unread[0], unread[2] if len(unread) > 2 else ""
    out = dict(variables)
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str) and "$" in item:
            for name in _REFERENCE.findall(item):
                if name not in out and name.startswith(prefix):
                    out[name] = Var(None, span, exported=True)
    return out
