"""The limits a bot process sets on itself before it becomes the bot: CPU time, memory,
processes, its user, and an end when its parent dies.

Both the sandbox (:mod:`levata.server.tournament.sandbox`, which probes that limits work
inside it) and the entries' launcher (:mod:`levata.server.tournament.entries`) use it, so it
stands apart from both.

>>> limited(["bot", "--fast"], 60, 512, parent=100)[-7:]
['60', '512', '100', '-1', '0', 'bot', '--fast']
"""

from __future__ import annotations

import os
import sys

__all__ = ["LIMITS", "limited"]

#: Run as ``python -I -S -c LIMITS CPU_S MEM_MB PARENT UID NPROC ARGV...``: set the limits on
#: itself, drop to user and group ``UID`` if it is not -1 (no supplementary groups, no
#: capabilities, ``no_new_privs``: a sandboxed entry, started as root inside its sandbox), ask
#: for a SIGTERM when its parent dies, then become the bot (``exec``). The limits are set in
#: the bot's own process before its program starts, like a ``preexec_fn`` would, but without
#: forking a multi-threaded runner (the referee's gRPC threads make ``fork`` + Python code
#: unsafe; ``subprocess`` without ``preexec_fn`` uses ``vfork``). ``PARENT`` 0 skips the
#: check that the parent still runs (in a sandbox the parent is the sandbox's own init).
LIMITS = """
import os, resource, signal, sys
cpu, mem, parent, uid, nproc = map(int, sys.argv[1:6])
if cpu > 0:
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
if mem > 0:
    resource.setrlimit(resource.RLIMIT_AS, (mem << 20, mem << 20))
if nproc > 0:
    resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
libc = None
if sys.platform.startswith("linux"):
    import ctypes
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except (OSError, AttributeError):
        pass
if uid >= 0:
    try:
        for cap in range(64):
            libc.prctl(24, cap, 0, 0, 0)  # PR_CAPBSET_DROP (ends at the last cap)
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)  # from root to another user: every capability goes
        if libc.prctl(38, 1, 0, 0, 0) != 0 or os.getuid() != uid:  # PR_SET_NO_NEW_PRIVS
            raise OSError("no_new_privs")
    except (OSError, AttributeError) as exc:
        print(f"cannot drop to user {uid}: {exc}", file=sys.stderr)
        sys.exit(126)
if libc is not None:
    try:
        libc.prctl(1, signal.SIGTERM, 0, 0, 0)  # PR_SET_PDEATHSIG (a user change clears it)
    except AttributeError:
        pass
    if parent > 0 and os.getppid() != parent:
        sys.exit(143)  # the runner died before we could ask to follow it
argv = sys.argv[6:]
try:
    os.execvp(argv[0], argv)
except OSError as exc:
    print(f"cannot run {argv[0]}: {exc.strerror}", file=sys.stderr)
    sys.exit(127)
"""


def limited(
    argv: list[str],
    cpu_seconds: int | None,
    memory_mb: int | None,
    parent: int | None = None,
    uid: int | None = None,
    nproc: int = 0,
) -> list[str]:
    """``argv`` run under CPU-time (soft: SIGXCPU; hard, 5 s later: SIGKILL) and address-space
    limits, ended with SIGTERM if its parent dies; as user ``uid`` (with at most ``nproc``
    processes) when given.

    >>> limited(["bot", "--fast"], 60, 512, parent=100)[-7:]
    ['60', '512', '100', '-1', '0', 'bot', '--fast']
    """
    head = [sys.executable, "-I", "-S", "-c", LIMITS]
    parent = os.getpid() if parent is None else parent
    ids = [str(-1 if uid is None else uid), str(nproc)]
    return [*head, str(cpu_seconds or 0), str(memory_mb or 0), str(parent), *ids, *argv]
