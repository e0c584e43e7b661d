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
_COMMAND = re.compile(r"(?:^|(?<=\s))((?:[A-Z_][A-Z0-9_]{0,63}=[^\s=]{0,200}\s{1,4}){0,40}"
                      r"(?:vllm\s{1,4}serve|python3?\s{1,4}-m\s{1,4}sglang\.launch_server|sglang\s{1,4}serve)\s[^\n]{0,8000})")


@dataclass
class CommandCheck:
    line: int
    findings: list[tuple[str, str, str]]  # (code, severity, message) of the check on that command


def find_command(lines: list[str]) -> tuple[int, str] | None:
    """(line, script): the first launch command, after the `export VAR=value` lines the log shows before it."""
    exports = []
    for no, line in enumerate(lines, 1):
        m = _COMMAND.search(line)
        if m:
            return no, "".join(f"export {e}\n" for e in exports[-200:]) + m.group(1)
        e = _EXPORT.match(line)
        if e:
            exports.append(e.group(1))
    return None


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
