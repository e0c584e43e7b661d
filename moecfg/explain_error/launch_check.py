"""When the log shows the launch command, run `moecfg check` on it: the finding of the same rule, computed from the
user's own flags, is the cause (the needed buffer, the token cap), not a guess from the error text alone.

The command is taken from the first line that starts one (`vllm serve`, `python -m sglang.launch_server`,
`sglang serve`, with `VAR=value` prefixes); the product is unknown unless given (`--product`) or hinted in the
command (`--device npu` is not a product): then rules that need it stay silent, as in `moecfg check`.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

_EXPORT = re.compile(r"^\s{0,8}export\s{1,4}([A-Z_][A-Z0-9_]{0,63}=[^\n]{0,400})$")
# The launch words first (a search that starts on a literal), then the `VAR=value` prefix read backwards from
# them: one pattern `(VAR=val\s{1,4}){0,40}vllm serve` was retried at every blank of the log (8 MB: 17.6 s).
_LAUNCH = re.compile(r"(?<!\S)(?:vllm\s{1,4}serve|python3?\s{1,4}-m\s{1,4}sglang\.launch_server|sglang\s{1,4}serve)"
                     r"\s[^\n]{0,8000}")
_ASSIGNMENT = re.compile(r"[A-Z_][A-Z0-9_]{0,63}=[^\s=]{0,200}")
MAX_PREFIX = 40  # `VAR=value` words before the command


@dataclass
class CommandCheck:
    line: int
    findings: list[tuple[str, str, str]]  # (code, severity, message) of the check on that command


def find_command(lines: list[str]) -> tuple[int, str] | None:
    """(line, script): the first launch command, after the `export VAR=value` lines the log shows before it."""
    exports = []
    for no, line in enumerate(lines, 1):
        m = _LAUNCH.search(line) if ("vllm" in line or "sglang" in line) else None
        if m:
            start = _prefix_start(line, m.start())
            return no, "".join(f"export {e}\n" for e in exports[-200:]) + line[start:m.end()]
        e = _EXPORT.match(line)
        if e:
            exports.append(e.group(1))
    return None


def _prefix_start(line: str, at: int) -> int:
    """Where the `A=1 B=2 ` words right before `at` start (each after a blank or the line's start, each followed
    by 1-4 blanks; at most MAX_PREFIX of them): read backwards, each character once."""
    for _ in range(MAX_PREFIX):
        end = at
        while end > 0 and at - end <= 4 and line[end - 1].isspace():
            end -= 1
        if not 1 <= at - end <= 4:
            break
        start = end
        while start > 0 and end - start <= 265 and not line[start - 1].isspace():
            start -= 1
        if not _ASSIGNMENT.fullmatch(line, start, end):
            break
        at = start
    return at


def check_command(lines: list[str], product: str | None, cann: str | None) -> CommandCheck | None:
    found = find_command(lines)
    if found is None:
        return None
    no, text = found
    from moecfg.api import _options
    from moecfg.checking.launch import lint_launch_file
    from moecfg.frameworks import LaunchContext
    from moecfg.sources.readers import read_shell

    ctx = LaunchContext(product=product, product_source="--product" if product else "", cann=cann)
    ascend = product if product in ("A2", "A3") else None
    results = lint_launch_file(read_shell(text), "<log>", ctx, _options(cann, ascend))
    findings = [(d.code, d.severity, d.message) for r in results for d in r.diagnostics]
    return CommandCheck(no, findings)
