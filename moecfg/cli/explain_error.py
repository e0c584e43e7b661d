"""`moecfg explain-error LOG`: what a failed launch's error text means, its cause and the fix.

Exit: 0 when at least one error text is explained, 1 when none is known, 2 when LOG cannot be read.
"""
from __future__ import annotations

import sys

import click


@click.command(name="explain-error", short_help="Explain a failed launch's error log.")
@click.argument("log", required=False)
@click.option("--list", "list_texts", is_flag=True, help="List the error texts moecfg knows, with their rules.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--product", type=click.Choice(["A2", "A3", "H100", "H800", "H20", "H200", "A100", "B200", "GB200"],
                                             case_sensitive=False), default=None,
              help="Hardware the log comes from: the command the log shows is checked for it.")
@click.option("--cann", metavar="VERSION", default=None, help="CANN release the log comes from.")
def explain_error(log, list_texts, fmt, product, cann):
    """Explain the error text in LOG (a file, or - for stdin): the rule, the values it reads, the cause in the
    flags the log shows, and the fix."""
    from moecfg.core.output import write_stdout
    from moecfg.explain_error.match import MAX_BYTES, explain, read_log
    from moecfg.explain_error.render import as_json, known_texts, text

    if list_texts:
        from moecfg.explain_error.patterns import PATTERNS

        write_stdout(known_texts(PATTERNS))
        return
    if log is None:
        raise click.UsageError("give a LOG file (or - for standard input), or --list")

    data = _read(log, 4 * MAX_BYTES)
    lines, cut = read_log(data)
    found = explain(lines)
    name = "<stdin>" if log == "-" else log
    checked = None
    if found:
        from moecfg.explain_error.launch_check import check_command

        checked = check_command(lines, product.upper() if product else None, cann)
    write_stdout(as_json(name, found, cut, checked) if fmt == "json" else text(name, found, cut, checked))
    sys.exit(0 if found else 1)


def _read(log: str, limit: int) -> bytes:
    """At most `limit` bytes; of a longer file its tail (the error is at the end)."""
    try:
        if log == "-":
            return _tail(sys.stdin.buffer, limit)
        with open(log, "rb") as f:
            if not f.seekable():  # /dev/stdin, <(kubectl logs ...): a pipe is read to its end, its tail kept
                return _tail(f, limit)
            f.seek(0, 2)
            size = f.tell()
            f.seek(max(0, size - limit))
            return f.read(limit)
    except OSError as exc:
        raise click.UsageError(f"cannot read {log}: {exc.strerror or exc}") from None


def _tail(stream, limit: int) -> bytes:
    kept = bytearray()
    while chunk := stream.read(1 << 20):
        kept += chunk
        if len(kept) > limit:
            del kept[:-limit]
    return bytes(kept)
