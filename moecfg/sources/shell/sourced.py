"""Files a launch script reads with `source FILE` / `. FILE`: the hook the engine hands the shell reader.

Only a literal path is followed, resolved against the script's own folder (launch scripts are run from there;
bash itself resolves it against the working directory, which moecfg cannot know) or, for a path of folders that is
not there (`source "tests_extend/system_tests/env_npu.sh"` in a script run from the repository root, Ascend/
MindSpeed@028de58 tests_extend/system_tests/feature_tests/megatron_moe.sh:4), against the nearest folder above it that
holds it; `./x.sh`, `../x.sh` and a bare `x.sh` stay the script's. Only when it resolves
(symbolic links included) to a regular file inside the folder being checked (`moecfg check DIR`; the script's
own folder for a script named on the command line), at most MAX_BYTES long, UTF-8 text. A file
already being read in the chain (`a.sh` sources `b.sh` sources `a.sh`), a chain deeper than MAX_DEPTH or more
than MAX_FILES files per script is not read again: the reader then treats the `source` as unreadable (every
variable it could set becomes unknown), exactly as for a missing file.
"""
from __future__ import annotations

import os
import re
import stat

MAX_BYTES = 256 << 10  # an environment file, not a data file
MAX_DEPTH = 8
MAX_FILES = 32
_FROM_A_ROOT = re.compile(r"^(?![./])[^/\s]+/")  # `conf/env.sh`: folders, not `./`, `../`, `/` nor a bare name


# Installed environment scripts a launch sources from outside its folder that set only tool paths: the names
# (exact, or a prefix ending in `_`) they may set become unknown, the rest stay known, no MC023. CPython
# Lib/venv/scripts/common/activate: VIRTUAL_ENV, VIRTUAL_ENV_PROMPT, PATH, PS1, PYTHONHOME, _OLD_VIRTUAL_*;
# CANN / NNAL set_env.sh (Ascend installation guides): ASCEND_*, ATB_*, ASDOPS_*, TOOLCHAIN_HOME and the
# search paths (their text is not published; moecfg assumes they set no HCCL_* / framework setting).
_PATHS = ("PATH", "LD_LIBRARY_PATH", "PYTHONPATH", "CMAKE_PREFIX_PATH", "LIBRARY_PATH", "CPATH")
_KNOWN_SCRIPTS = (
    (re.compile(r"(^|/)bin/activate$"), ("VIRTUAL_ENV", "VIRTUAL_ENV_PROMPT", "PS1", "PYTHONHOME", "_OLD_VIRTUAL_",
                                          "CONDA_") + _PATHS),
    # `/Ascend/ ... set_env.sh`: a literal search and an end test (a regex `.*` between them ran quadratic)
    ((lambda path: path.endswith("set_env.sh") and "/Ascend/" in path[:-len("set_env.sh")]),
     ("ASCEND_", "ATB_", "ASDOPS_", "TOOLCHAIN_HOME") + _PATHS),
)


def installed_script_names(path_text: str) -> tuple[str, ...] | None:
    """The names (or `X_` prefixes) an installed environment script may set; None if not one of them."""
    for pattern, names in _KNOWN_SCRIPTS:
        if pattern(path_text) if callable(pattern) else pattern.search(path_text):
            return names
    return None


def may_set(names: tuple[str, ...], name: str) -> bool:
    return name in names or any(n.endswith("_") and name.startswith(n) for n in names)


class Includes:
    def __init__(self, script_path: str, root: str | None = None):
        self.base = os.path.realpath(os.path.dirname(os.path.abspath(script_path)))
        self.root = os.path.realpath(root) if root else self.base
        if os.path.commonpath([self.base, self.root]) != self.root:
            self.root = self.base  # a script outside the checked folder (a followed link): its own folder only
        self.stack = [os.path.realpath(script_path)]
        self.files = 0

    @classmethod
    def for_script(cls, name: str, root: str | None = None) -> Includes | None:
        """The hook for a script read from file `name` (None for stdin or text without a file)."""
        return cls(name, root) if name and os.path.isfile(name) else None

    def enter(self, path: str) -> tuple[str, str] | None:
        """(key, text) of sourced `path`; call leave(key) after reading it. None: not read (see module doc)."""
        if not path or "\x00" in path or len(self.stack) > MAX_DEPTH or self.files >= MAX_FILES:
            return None
        real = self._resolve(path)
        if real in self.stack or os.path.commonpath([real, self.root]) != self.root:
            return None
        text = _read(real)
        if text is None:
            return None
        self.files += 1
        self.stack.append(real)
        return real, text

    def _resolve(self, path: str) -> str:
        """`path` beside the script, or (a path of folders not there) in the nearest folder above, up to the root."""
        real = os.path.realpath(os.path.join(self.base, path))
        if not _FROM_A_ROOT.match(path) or os.path.isfile(real):
            return real
        folder = self.base
        while folder != self.root and os.path.commonpath([folder, self.root]) == self.root:
            folder = os.path.dirname(folder)
            candidate = os.path.realpath(os.path.join(folder, path))
            if os.path.isfile(candidate):
                return candidate
        return real

    def leave(self, key: str) -> None:
        if self.stack and self.stack[-1] == key:
            self.stack.pop()


def _read(path: str) -> str | None:
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as fh:
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_BYTES:
                return None
            raw = fh.read(MAX_BYTES + 1)
        except OSError:
            return None
    if len(raw) > MAX_BYTES:
        return None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None


# `$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" &>/dev/null && pwd)` (THUDM/slime@624b824 scripts/run-deepseek-r1.sh:27),
# `$(cd "$(dirname "$0")" && pwd)`, `$(dirname "$0")`, `$(dirname $(readlink -f "$0"))`: the folder of the script
# being run (`$(cd "$(dirname "$0")/.." && pwd)`: the folder above it; `source` still reads only inside the checked
# folder). Only in the script named to moecfg (not in a sourced file, where BASH_SOURCE[0] is that file, nor in
# `bash -c`), and only when it is a file: then it is the folder `source` paths are resolved against ("."), which is
# what the script's `source "${SCRIPT_DIR}/models/x.sh"` means.
_SELF = r'"?\$(?:\{BASH_SOURCE(?:\[0\])?\}|BASH_SOURCE|0|\{0\})"?'
_TARGET = rf'(?:{_SELF}|"?\$\(\s*(?:readlink\s+-[fe]|realpath)\s+(?:--\s+)?{_SELF}\s*\)"?)'
_DIRNAME = rf'dirname\s+(?:--\s+)?{_TARGET}\s*'  # the inside of `$(dirname ...)`
_QUIET = r'(?:\s*(?:&>|>|2>)\s*/dev/null|\s*2>&1)*'
SCRIPT_FOLDER = re.compile(rf'^\$\(\s*(?:{_DIRNAME}|cd\s+(?:-P\s+)?(?:--\s+)?"?\$\(\s*{_DIRNAME}\)(?P<up>(?:/\.\.)*)/?"?{_QUIET}\s*'
                           rf'(?:&&|;)\s*pwd(?:\s+-P)?{_QUIET}\s*)\)$')


def script_folder(text: str) -> str | None:
    """"." (or "./../.." for `$(cd "$(dirname "$0")/../.." && pwd)`) for a command substitution that prints the
    running script's own folder (or a folder above it), else None (see SCRIPT_FOLDER)."""
    m = SCRIPT_FOLDER.match(text) if len(text) < 200 else None
    return None if m is None else "." + (m.group("up") or "")


def names_script_folder(text: str) -> bool:
    return script_folder(text) is not None
