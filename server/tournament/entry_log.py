"""An entry's stderr log, capped and rotated: a flood cannot fill the disk, nor stall us.

An entry's stderr is a pipe that a thread of the runner reads (:meth:`EntryLog.follow`):
what it reads goes to ``NAME.log`` until that holds half the cap, then ``NAME.log`` becomes
``NAME.log.1`` (replacing the older one) and a new ``NAME.log`` begins, so the two hold the
newest lines and at most the cap together. The reader takes at most :data:`RATE` bytes a
second: beyond that it waits, the pipe fills and the entry's own writes block (its clock
runs; nobody else's does). A write the disk refuses (full, read-only) is counted and
dropped, never retried: the tournament goes on.

>>> import tempfile, os
>>> d = Path(tempfile.mkdtemp())
>>> log = EntryLog(d / "b.log", cap=8192)
>>> for _ in range(100):
...     log.write(b"x" * 100 + b"\\n")
>>> log.close()
>>> sorted(p.name for p in d.iterdir()), (d / "b.log").stat().st_size <= 4096
(['b.log', 'b.log.1'], True)
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from pathlib import Path

__all__ = ["DEFAULT_CAP_MB", "RATE", "EntryLog"]

#: The most an entry's log files hold together, by default (``levata tournament --log-mb``).
DEFAULT_CAP_MB = 16
#: Bytes a second the runner reads from one entry's stderr.
RATE = 4 << 20
_CHUNK = 1 << 16


class EntryLog:
    """``path`` (owner-only) and ``path.1``, holding at most ``cap`` bytes together."""

    def __init__(self, path: Path, cap: int = DEFAULT_CAP_MB << 20) -> None:
        self.path, self.half = path, max(cap // 2, 1024)
        self.dropped = 0  # bytes the disk refused
        self.rotations = 0
        self.header = b""  # how the entry was started: repeated atop every new file
        self.closed = False
        self.thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._fd = self._open()
        self.size = os.fstat(self._fd).st_size if self._fd >= 0 else 0

    def _open(self) -> int:
        try:
            return os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o600)
        except OSError:
            return -1

    def write(self, data: bytes) -> None:
        """Append ``data``, rotating whenever ``NAME.log`` is full."""
        with self._lock:
            if self.closed:
                self.dropped += len(data)
                return
            while data:
                if self.size >= self.half:
                    self._rotate()
                room = self.half - self.size
                chunk, data = data[:room], data[room:]
                try:
                    if self._fd < 0:
                        raise OSError("not open")
                    os.write(self._fd, chunk)
                    self.size += len(chunk)
                except OSError:
                    self.dropped += len(chunk) + len(data)
                    return

    def _rotate(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
        with contextlib.suppress(OSError):
            os.replace(self.path, self.path.with_name(self.path.name + ".1"))
        self.rotations += 1
        self._fd = self._open()
        self.size = 0
        note = f"== log rotated ({self.rotations}); earlier lines in {self.path.name}.1\n"
        with contextlib.suppress(OSError):
            if self._fd >= 0:
                self.size = os.write(self._fd, self.header[: self.half // 2] + note.encode())

    def start(self, header: str) -> None:
        """Write ``header`` (the entry's command line), which every new file repeats."""
        self.header += header.encode()
        self.write(header.encode())

    def follow(self, fd: int) -> None:
        """Read the pipe ``fd`` (closed at its end) into the log, in a thread of its own."""

        def run() -> None:
            start, taken = time.monotonic(), 0
            try:
                while data := os.read(fd, _CHUNK):
                    self.write(data)
                    now = time.monotonic()
                    if now - start >= 1.0:
                        start, taken = now, 0
                    taken += len(data)
                    if taken >= RATE:  # a flood: let the pipe fill and the entry wait
                        time.sleep(max(0.0, start + 1.0 - now))
                        start, taken = time.monotonic(), 0
            except OSError:
                pass
            finally:
                os.close(fd)

        self.thread = threading.Thread(target=run, name=f"log {self.path.name}", daemon=True)
        self.thread.start()

    def close(self, wait: float = 1.0) -> None:
        """Wait for the pipe's end (``wait`` seconds at most: a process the entry left
        behind may hold it), then close the file; what comes later is dropped."""
        if self.thread is not None:
            self.thread.join(wait)
        with self._lock:
            self.closed = True
            if self._fd >= 0:
                os.close(self._fd)
                self._fd = -1
