"""Running a device tool (npu-smi, nvidia-smi) without trusting it: short timeout, capped output, no exception.

A tool that hangs (a wedged driver), floods its output or is missing must not stop the launch it guards: the
caller gets (text, None) or (None, why not) and says so once.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import time

OUTPUT_CAP = 256 * 1024  # bytes: npu-smi info of a 16-NPU server is ~6 KB


def run_tool(argv: list[str], timeout: float, cap: int = OUTPUT_CAP) -> tuple[str | None, str | None]:
    """(stdout decoded, None) or (None, reason). The process is killed at the deadline or past `cap` bytes."""
    path = shutil.which(argv[0])
    if path is None:
        return None, f"{argv[0]} is not on PATH"
    try:
        proc = subprocess.Popen([path, *argv[1:]], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL)
    except OSError as exc:
        return None, f"{argv[0]} cannot be run ({exc.strerror or exc})"
    try:
        data, why = _read_bounded(proc, timeout, cap)
    finally:
        _stop(proc)
    if why:
        return None, f"{' '.join(argv)} {why}"
    if proc.returncode not in (0, None):
        return None, f"{' '.join(argv)} exited with status {proc.returncode}"
    return data.decode("utf-8", "replace"), None


def _read_bounded(proc, timeout: float, cap: int) -> tuple[bytes, str | None]:
    if os.name != "posix":  # no select() on pipes: rely on the timeout alone
        try:
            out, _ = proc.communicate(timeout=timeout)
            return out[:cap], None
        except subprocess.TimeoutExpired:
            return b"", f"did not answer within {timeout:g} s"
    import select

    fd, out = proc.stdout.fileno(), bytearray()
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            return b"", f"did not answer within {timeout:g} s"
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        out += chunk
        if len(out) > cap:
            return b"", f"printed more than {cap // 1024} KiB"
    try:
        proc.wait(timeout=max(deadline - time.monotonic(), 0.05))
    except subprocess.TimeoutExpired:
        return b"", f"did not exit within {timeout:g} s"
    return bytes(out), None


def _stop(proc) -> None:
    if proc.poll() is None:
        proc.kill()
        try:
            proc.wait(timeout=1)
        except subprocess.TimeoutExpired:
            pass
    if proc.stdout:
        proc.stdout.close()


def read_small(path: str, cap: int) -> str | None:
    """A regular file's text, opened non-blocking (a FIFO or a device never blocks preflight), at most `cap`
    bytes; None when it is not a regular file or cannot be read."""
    import stat

    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except (OSError, ValueError):
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        data = os.read(fd, cap + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    if len(data) > cap or b"\x00" in data:
        return None
    return data.decode("utf-8", "replace")
