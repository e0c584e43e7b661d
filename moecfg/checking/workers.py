"""A big tree is checked by forked worker processes, and one file still cannot stop the run (issue 33).

Each worker takes a chunk of files and sends each file's result back as soon as it is done, so results are kept
per file. A worker:
- resets the signal handlers it inherited (the CLI's SIGTERM handler raised SystemExit inside the worker, so the
  pool could not terminate it: a killed worker made the run hang forever); Ctrl-C is the parent's to handle;
- checks each file under a CPU deadline the kernel enforces (ITIMER_PROF: SIGPROF ends the worker even inside C
  code, a regex or tree-sitter), and a wall-clock deadline the parent enforces (a file that blocks);
When a worker dies (the deadline, the kernel's out-of-memory killer, a crash), the file it was checking gets one
MC019 saying why, the rest of its chunk goes back to the queue, a new worker takes over, and the run goes on.
"""
from __future__ import annotations

import os
import signal
import time
from collections import deque
from contextlib import contextmanager

FILE_CPU_SECONDS = 10  # CPU time one file may take in a worker (budgets keep real files far below this)
FILE_WALL_SECONDS = 120  # wall-clock time (a loaded machine: ~9x the CPU deadline; a file that blocks)
FILE_MEMORY = 1536 << 20  # address space a worker may add to what it had when forked (Linux): MemoryError past it
_POLL = 1.0


def run(entries: list, workers: int, chunk_size: int, check, lost):
    """Yield check(entry) for each entry, in order, checked by `workers` forked processes. `lost(entry, why)`
    is the result of an entry whose worker died while checking it."""
    import multiprocessing

    ctx = multiprocessing.get_context("fork")
    queue = deque((i, entries[i:i + chunk_size]) for i in range(0, len(entries), chunk_size))
    done: dict[int, object] = {}
    pool: list[_Worker] = []
    next_out = 0
    try:
        while next_out < len(entries):
            while queue and len(pool) < workers:
                pool.append(_Worker(ctx, check, lost))
            for w in pool:
                if w.task is None and queue:
                    w.give(*queue.popleft())
            _collect(pool, done, queue, lost, entries)
            for w in pool:
                if not w.alive and w.task is None:
                    w.stop()
            pool = [w for w in pool if w.alive or w.task is not None]
            while next_out in done:
                yield done.pop(next_out)
                next_out += 1
    finally:
        for w in pool:
            w.stop()


def _collect(pool: list, done: dict, queue: deque, lost, entries: list) -> None:
    from multiprocessing.connection import wait

    busy = [w for w in pool if w.task is not None]
    if not busy:
        return
    ready = wait([w.conn for w in busy] + [w.proc.sentinel for w in busy], timeout=_POLL)
    for w in busy:
        if w.conn in ready or w.proc.sentinel in ready:
            w.receive(done)
        if w.task is not None and (not w.alive or w.overdue()):
            at, chunk = w.task
            why = w.why_lost()
            done[at + w.next] = lost(chunk[w.next], why)
            rest = chunk[w.next + 1:]
            if rest:
                queue.appendleft((at + w.next + 1, rest))
            w.task = None
            w.stop()


class _Worker:
    def __init__(self, ctx, check, lost):
        parent, child = ctx.Pipe()
        self.proc = ctx.Process(target=_main, args=(child, check), daemon=True)
        self.proc.start()
        child.close()
        self.conn, self.task, self.next, self.since, self.alive = parent, None, 0, 0.0, True
        self.overdue_reason, self.lost = None, lost

    def give(self, at: int, chunk: list) -> None:
        self.task, self.next, self.since = (at, chunk), 0, time.monotonic()
        try:
            self.conn.send(chunk)
        except (OSError, EOFError):
            self.alive = False

    def receive(self, done: dict) -> None:
        while self.task is not None:
            try:
                if not self.conn.poll():
                    return
                kind, value = self.conn.recv()
            except Exception:  # noqa: BLE001  (EOF, or a message cut short by the worker's death: unpickling fails)
                self.alive = False
                return
            if kind == "error":  # a named path that cannot be read: the run's error, as in the serial path
                raise value
            at, chunk = self.task
            done[at + self.next] = value if kind == "done" else self.lost(chunk[self.next], value)
            self.next, self.since = self.next + 1, time.monotonic()
            if self.next == len(chunk):
                self.task = None

    def overdue(self) -> bool:
        if time.monotonic() - self.since > FILE_WALL_SECONDS:
            self.overdue_reason = f"more than {FILE_WALL_SECONDS} s of wall-clock time"
            return True
        return False

    def why_lost(self) -> str:
        if self.overdue_reason:
            return self.overdue_reason
        self.proc.join(1)
        code = self.proc.exitcode
        if code == -signal.SIGPROF:
            return cpu_limit_reason()
        if code == -signal.SIGKILL:
            return "its worker process was killed (SIGKILL: the kernel's out-of-memory killer, or an operator)"
        if code is not None and code < 0:
            return f"its worker process ended on signal {-code}"
        return f"its worker process ended (exit status {code})"

    def stop(self) -> None:
        self.alive = False
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join(5)
        self.conn.close()


def _main(conn, check) -> None:
    """A worker: default signal actions (not the CLI's handlers), a CPU deadline per file, one result per file."""
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGPROF, signal.SIGPIPE, signal.SIGXFSZ):
        signal.signal(sig, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C: the parent stops the workers
    _limit_memory()
    while True:
        try:
            chunk = conn.recv()
        except (EOFError, OSError):
            os._exit(0)
        for entry in chunk:
            signal.setitimer(signal.ITIMER_PROF, FILE_CPU_SECONDS)
            try:
                result = ("done", check(entry))
            except Exception as exc:  # noqa: BLE001  (check() turns a file's crash into MC019; this is outside it)
                from moecfg.sources.files import PathError

                result = ("error", exc) if isinstance(exc, PathError) else (
                    "failed", f"{type(exc).__name__} in its worker process, outside the file's own check")
            finally:
                signal.setitimer(signal.ITIMER_PROF, 0)
            conn.send(result)


class FileDeadline(BaseException):
    """One file's CPU deadline, in a run without workers (a BaseException: no `except Exception` swallows it)."""


def cpu_limit_reason() -> str:
    return f"more than {FILE_CPU_SECONDS} s of CPU time (moecfg's deadline for one file)"


@contextmanager
def serial_deadline():
    """The same CPU deadline for a file checked in this process (a tree too small for workers): SIGPROF raises
    FileDeadline at the next Python instruction (a call inside C code ends first). Only in the main thread, and
    the previous SIGPROF handler is restored: the CLI asks for it, the API does not."""
    import threading

    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        yield
        return

    def expired(signum, frame):
        raise FileDeadline()

    previous = signal.signal(signal.SIGPROF, expired)
    signal.setitimer(signal.ITIMER_PROF, FILE_CPU_SECONDS)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


def _limit_memory() -> None:
    """A file that needs more than FILE_MEMORY is MemoryError in its worker (MC019 on that file, the next file
    starts from the same size) instead of the kernel's out-of-memory killer choosing a process on the machine."""
    try:
        import resource

        with open("/proc/self/statm", encoding="ascii") as fh:
            size = int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        want = size + FILE_MEMORY
        if soft == resource.RLIM_INFINITY or soft > want:
            resource.setrlimit(resource.RLIMIT_AS, (want if hard == resource.RLIM_INFINITY else min(want, hard), hard))
    except (ImportError, OSError, ValueError):  # not Linux: the death of a worker is still reported
        pass
