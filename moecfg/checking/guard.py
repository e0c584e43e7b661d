"""One file cannot stop the run: an internal error while checking one file becomes a diagnostic on that file
(MC019, as cfn-lint turns a crashing rule into a finding) and the run goes on with the next file. Exit 3 stays
for the run's own failures (reading the settings, writing the report). MOECFG_DEBUG=1 re-raises instead.

The message names the exception type and moecfg's own code line, never the exception text: that text may quote
the input (a 5,000-digit value) or, for a bug in a reader, a file outside the checked tree.
"""
from __future__ import annotations

import os

from moecfg.core.diagnostics import Diagnostic, DocumentResult


def checked(name: str, lint, *args, root: str | None = None, policy=None) -> list[DocumentResult]:
    """`lint(*args)`, or one MC019 result on `name` when it raises. `root`: the folder the file was found in
    (files it names are read only inside it, sources/contained.py); it gets fresh reading budgets
    (sources/budget.py). `policy`: the file's settings, applied to MC019 too (`ignore: [MC019]` works)."""
    from moecfg.sources.budget import per_file
    from moecfg.sources.contained import checking

    if root is None and name != "<stdin>":
        root = os.path.dirname(os.path.abspath(name))
    try:
        with checking(root), per_file():
            return lint(*args)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # noqa: BLE001  (MemoryError and RecursionError too: the file is the cause)
        if type(exc).__name__ == "FileDeadline":  # checking/workers.py: the caller reports the file
            raise
        if os.environ.get("MOECFG_DEBUG"):
            raise
        results = [internal_error(name, exc)]
        if policy is not None:
            from moecfg.checking.policy import apply

            apply(results, None, (), policy)
        return results


def internal_error(name: str, exc: BaseException) -> DocumentResult:
    from moecfg.version import __version__
    from moecfg.core.input_rules import INTERNAL_ERROR as R

    message = (f"moecfg failed while checking this file ({type(exc).__name__} at {_where(exc)}); the file is not "
               f"checked, the other files are. This is a bug in moecfg {__version__}: please report it with this "
               "file (MOECFG_DEBUG=1 shows the traceback)")
    diag = Diagnostic(R.code, R.name, R.severity, message, "", 1, 1, 1, 1)
    return DocumentResult(file=name, document=0, diagnostics=[diag])


def lost(name: str, why: str, policy=None) -> DocumentResult:
    """MC019 on a file whose checking was stopped from outside (checking/workers.py: a deadline, a killed worker)."""
    from moecfg.core.input_rules import INTERNAL_ERROR as R

    message = (f"moecfg stopped checking this file: {why}; the file is not checked, the other files are. "
               "Check it alone (`moecfg check FILE`) to see where it stalls, or exclude it")
    result = DocumentResult(file=name, document=0, diagnostics=[Diagnostic(R.code, R.name, R.severity, message, "",
                                                                            1, 1, 1, 1)])
    if policy is not None:
        from moecfg.checking.policy import apply

        apply([result], None, (), policy)
    return result


def _where(exc: BaseException) -> str:
    """The innermost frame inside moecfg, as `moecfg/x/y.py:123` (no absolute path of the installation)."""
    import traceback  # only after a failure (start-up)

    frames = traceback.extract_tb(exc.__traceback__)
    ours = [f for f in frames if f"{os.sep}moecfg{os.sep}" in f.filename]
    if not ours:
        return "an unknown place"
    f = ours[-1]
    tail = f.filename.rsplit(f"{os.sep}moecfg{os.sep}", 1)[1].replace(os.sep, "/")
    return f"moecfg/{tail}:{f.lineno}"
