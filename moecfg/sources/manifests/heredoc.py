"""The body of a heredoc applied to a cluster (shell/heredoc_manifest.py decides which), read as the YAML it is:
Kubernetes objects and the other YAML readers (documents.read_yaml_document), every position the file's own line
and column. The shell reader calls `read` through its `manifests` hook (set by readers.read_shell and
documents/markdown.py), so it imports no manifest reader.

The body is what the shell feeds: expanded by the shell unless the delimiter is quoted (words.heredoc_body: a value
the script does not know is the unknown marker, and the scalar holding it is unknown, launch.DocReader.decoded);
`envsubst` in the pipeline then replaces `$NAME` / `${NAME}` with the exported values, unknown otherwise (envsubst
itself puts an empty string for a name not in its environment: what the environment holds is not known here).
CustomResourceDefinitions (kserve's installers embed 50 000 lines of them) hold no launch and are not parsed; a
file's heredoc YAML is bounded (budget.MANIFEST_CHARS).
"""
from __future__ import annotations

import re

from moecfg.core.record import replace
from moecfg.sources.shell.values import _UNKNOWN
from moecfg.sources.textmap import Decoded, SourceMap

_ENVSUBST = re.compile(r"\|\s*envsubst\b|^\s*envsubst\b")
_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")
_SEPARATOR = re.compile(r"(?m)^---[ \t]*(?:#[^\n]*)?$\n?")
_CRD = re.compile(r"(?m)^kind:[ \t]*CustomResourceDefinition[ \t]*$")


def read(reader, header: str, dec: Decoded, exported: dict) -> bool:
    """The body `dec` (mapped into the file) read into `reader`'s launches, problems and unread; `header`: the
    command's text before it (envsubst?); `exported`: the script's exported variables. False: not read (data)."""
    return read_body(reader, envsubst(header, dec, exported))


def envsubst(header: str, dec: Decoded, exported: dict) -> Decoded:
    """The body after `envsubst` in the pipeline: `$NAME` / `${NAME}` replaced by exported values (unknown otherwise)."""
    if not _ENVSUBST.search(header) or "$" not in dec.text:
        return dec
    from moecfg.sources.manifests.launch import substitute

    def repl(m):
        entry = exported.get(m.group(1) or m.group(2))
        return entry.value if entry is not None and entry.value is not None else _UNKNOWN
    return substitute(dec, _REFERENCE, repl) or dec


def read_body(reader, dec: Decoded) -> bool:
    """Read the body `dec` (mapped into the file) as YAML documents into `reader`'s launches and problems; False when
    it is not YAML moecfg can read (it then stays data)."""
    from moecfg.sources.budget import MANIFEST_CHARS
    from moecfg.sources.manifests.yaml_source import YamlProblem

    read = False
    for part in _documents(dec):
        reader.budget.manifest_chars += len(part.text)
        if reader.budget.manifest_chars > MANIFEST_CHARS:  # a file of heredocs larger than any real installer
            break
        try:
            read = _read_part(reader, part) or read
        except (YamlProblem, RecursionError):
            continue  # not YAML moecfg reads (an elided `...`): nothing of it is reported
    return read


def _documents(dec: Decoded):
    """The YAML documents of the body (split at `---` lines, each with its map), CRDs left out."""
    pos, n = 0, len(dec.text)
    for m in [*_SEPARATOR.finditer(dec.text), None]:
        a, b = pos, m.start() if m is not None else n
        pos = m.end() if m is not None else n
        text = dec.text[a:b]
        if text.strip() and not _CRD.search(text):
            yield Decoded(text, dec.map.slice(a, b))


def _read_part(reader, dec: Decoded) -> bool:
    from moecfg.sources.manifests.documents import read_yaml_document
    from moecfg.sources.manifests.yaml_source import parse_stream

    lines = reader.lines
    text = lines.text
    lo, hi, exact = dec.map.locate(0, dec.map.length)
    if exact and len(dec.map.segs) == 1 and text[lo:hi] == dec.text and lines.position(lo)[1] == 1:
        docs = parse_stream(dec.text, first_line=lines.position(lo)[0] - 1)  # the file's own text, at its lines
        source = dec.text
    else:  # expanded (or a Markdown block's indented lines): parsed as the shell feeds it, positions moved back
        docs = parse_stream(dec.text)
        for doc in docs:
            _remap(doc, dec, lines)
        source = text
    for doc in docs:
        lf = read_yaml_document(doc, source) if isinstance(doc.data, dict) else None
        if lf is not None:
            reader.launches.extend(lf.launches)
            within = (doc.start.line, doc.start.end_line)  # its infos only beside a launch recognised in it
            reader.problems.extend(replace(p, within=within) if p.about_launch else p for p in lf.problems)
            reader.unread.extend(lf.unread)
    return True


def _remap(doc, dec: Decoded, lines) -> None:
    """Spans of `doc` (positions in the expanded body) moved to the file through the body's map."""
    from moecfg.sources.textmap import LineIndex, Span

    local = LineIndex(dec.text)
    smap: SourceMap = dec.map
    n = len(dec.text)

    def moved(s):
        a = local.offset(s.line, s.column)
        b = local.offset(s.end_line, s.end_column)
        start = smap.locate(a, min(a + 1, n))[0] if a < n else smap.locate(n - 1, n)[1]
        end = smap.locate(max(b - 1, 0), b)[1] if b > a else start
        return Span(*lines.position(start), *lines.position(max(end, start)))

    doc.first_line = lines.first
    doc.start = moved(doc.start)
    doc.values = {k: moved(v) for k, v in doc.values.items()}
    doc.keys = {k: moved(v) for k, v in doc.keys.items()}
    doc.duplicates = [(p, moved(a), moved(b)) for p, a, b in doc.duplicates]
