"""A memory cgroup per sandboxed entry, so that everything it holds counts: its processes'
memory and the pages of its in-memory ``/tmp`` (tmpfs pages are charged to the cgroup of
whoever wrote them), under one limit, ``memory_mb``.

The cgroup is made under the runner's own memory cgroup (``/proc/self/cgroup``; cgroup v2,
or v1's ``memory`` hierarchy), owned by the runner: the entry is put in it by the runner
(:meth:`EntryCgroup.join`) before its first program runs, and can write none of its files.
Where no cgroup can be made (no memory controller, not writable: an unprivileged runner
usually), :meth:`EntryCgroup.make` returns ``None`` and the sandbox falls back to a
size-capped ``/tmp``.

>>> _own_path("12:pids:/\\n4:memory:/a/b\\n0::/\\n", "memory")
'/a/b'
>>> _own_path("0::/user.slice/x\\n", "")
'/user.slice/x'
"""

from __future__ import annotations

import contextlib
import os
import time
from dataclasses import dataclass
from pathlib import Path

__all__ = ["EntryCgroup"]

ROOT = Path("/sys/fs/cgroup")


def _own_path(text: str, controller: str) -> str | None:
    """This process's path in the hierarchy of ``controller`` ("" for cgroup v2)."""
    for line in text.splitlines():
        _, names, path = line.split(":", 2)
        if (controller and controller in names.split(",")) or (not controller and not names):
            return path
    return None


def _parent() -> tuple[Path, int] | None:
    """Where entry cgroups go and the cgroup version, or ``None``."""
    try:
        text = Path("/proc/self/cgroup").read_text()
    except OSError:
        return None
    v1 = _own_path(text, "memory")
    if v1 is not None and (ROOT / "memory").is_dir():
        return ROOT / "memory" / v1.lstrip("/"), 1
    v2 = _own_path(text, "")
    if v2 is not None and (ROOT / "cgroup.controllers").exists():
        # A v2 process may not live in a cgroup that has children with controllers: the
        # runner's own cgroup is a leaf, so entries go beside it, in its parent.
        here = ROOT / v2.lstrip("/")
        return here.parent if here != ROOT else here, 2
    return None


_swept: set[Path] = set()


def _sweep(parent: Path) -> None:
    """Remove, once per runner, the empty entry cgroups a killed runner left behind (named
    ``levata-PID-...`` after a runner that no longer runs)."""
    if parent in _swept:
        return
    _swept.add(parent)
    for d in parent.glob("levata-*-*"):
        pid = d.name.split("-")[1]
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            with contextlib.suppress(OSError):
                d.rmdir()  # refused while a process is in it: then it is not stale


@dataclass(frozen=True)
class EntryCgroup:
    """One entry's memory cgroup: ``path`` in cgroup ``version`` 1 or 2."""

    path: Path
    version: int

    @classmethod
    def make(cls, name: str, limit_mb: int) -> EntryCgroup | None:
        """A new cgroup ``name`` limited to ``limit_mb`` MiB of memory (and no swap), or
        ``None`` where none can be made here."""
        found = _parent()
        if found is None:
            return None
        parent, version = found
        _sweep(parent)
        path = parent / name
        limit = str(limit_mb << 20)
        try:
            if version == 2:
                controllers = (parent / "cgroup.subtree_control").read_text().split()
                if "memory" not in controllers:
                    (parent / "cgroup.subtree_control").write_text("+memory")
            path.mkdir()
        except OSError:
            return None
        box = cls(path, version)
        try:
            if version == 1:
                (path / "memory.limit_in_bytes").write_text(limit)
                with contextlib.suppress(OSError):  # only where swap is accounted
                    (path / "memory.memsw.limit_in_bytes").write_text(limit)
            else:
                (path / "memory.max").write_text(limit)
                with contextlib.suppress(OSError):
                    (path / "memory.swap.max").write_text("0")
        except OSError:
            box.remove()
            return None
        return box

    def join(self, pid: int) -> None:
        """Move process ``pid`` (not yet running the entry: see the sandbox's gate) in."""
        (self.path / "cgroup.procs").write_text(str(pid))

    def peak_mb(self) -> float:
        """The most memory the entry held at once, in MiB."""
        name = "memory.max_usage_in_bytes" if self.version == 1 else "memory.peak"
        try:
            return int((self.path / name).read_text()) / (1 << 20)
        except (OSError, ValueError):
            return float("nan")

    def remove(self, wait: float = 2.0) -> None:
        """Remove the cgroup once its processes are gone (a killed sandbox's last ones may
        take a moment to be reaped)."""
        end = time.monotonic() + wait
        while True:
            try:
                os.rmdir(self.path)
                return
            except FileNotFoundError:
                return
            except OSError:
                if time.monotonic() > end:
                    return
                time.sleep(0.02)
