"""The limits a bot process sets on itself before it becomes the bot: CPU time, memory,
processes, no inherited descriptor, and an end when its parent dies.

Both the sandbox (:mod:`levata.server.tournament.sandbox`, which probes that limits work
inside it) and the entries' launcher (:mod:`levata.server.tournament.entries`) use it, so it
stands apart from both. It changes no user: a sandboxed entry is started as its own user
already (the sandbox never runs anything of it with privileges).

>>> limited(["bot", "--fast"], 60, 512, parent=100)[-6:]
['60', '512', '100', '0', 'bot', '--fast']
"""

from __future__ import annotations

import os
import sys

__all__ = ["LIMITS", "limited"]

#: Run as ``python -I -S -c LIMITS CPU_S MEM_MB PARENT NPROC ARGV...`` (``-I``: no PYTHON*
#: variable, no user site: it runs as written whatever the entry's environment): set the
#: limits on itself, close every descriptor but stdin, stdout and stderr (bubblewrap leaves
#: its own open: the options, the user namespace), ask for a SIGTERM when its parent dies,
#: give back the signals Python ignores (SIGPIPE, SIGXFSZ: a bot starts with the defaults its
#: author expects), then become the bot (``exec``). Under an address-space cap (an entry no
#: memory cgroup holds) glibc gets at most two malloc arenas: each further thread's arena
#: reserves 64 MiB of address space it never uses: a Python gRPC client was seen reserving
#: 0.6 to 1 GiB to hold 39 MiB (200 MiB with two arenas), and at a cap of 400 MiB its
#: threads failed to start and its channel hung (``MALLOC_*`` is refused in a manifest's
#: ``env``: it is ours alone). The limits are set in the bot's own
#: process before its program starts, like a ``preexec_fn`` would, but without forking a
#: multi-threaded runner (the referee's gRPC threads make ``fork`` + Python code unsafe).
#: ``PARENT`` 0 skips the check that the parent still runs (in a sandbox the parent is the
#: sandbox's own init).
LIMITS = """
import os, resource, signal, sys
cpu, mem, parent, nproc = map(int, sys.argv[1:5])
if cpu > 0:
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
if mem > 0:
    resource.setrlimit(resource.RLIMIT_AS, (mem << 20, mem << 20))
    os.environ["MALLOC_ARENA_MAX"] = "2"  # else 64 MiB of address space per thread's arena
if nproc > 0:
    resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
os.closerange(3, resource.getrlimit(resource.RLIMIT_NOFILE)[0])
if sys.platform.startswith("linux"):
    import ctypes
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM, 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if parent > 0 and os.getppid() != parent:
        sys.exit(143)  # the runner died before we could ask to follow it
for name in ("SIGPIPE", "SIGXFSZ"):  # Python ignores them, and exec would pass that on
    signal.signal(getattr(signal, name), signal.SIG_DFL)
argv = sys.argv[5:]
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
    nproc: int = 0,
) -> list[str]:
    """``argv`` run under CPU-time (soft: SIGXCPU; hard, 5 s later: SIGKILL), address-space
    (``memory_mb``; ``None`` or 0: none, as for an entry a memory cgroup holds) and
    (``nproc`` > 0) process-count limits, ended with SIGTERM if its parent dies.

    >>> limited(["bot", "--fast"], 60, 512, parent=100)[-6:]
    ['60', '512', '100', '0', 'bot', '--fast']
    """
    head = [sys.executable, "-I", "-S", "-c", LIMITS]
    parent = os.getpid() if parent is None else parent
    return [*head, str(cpu_seconds or 0), str(memory_mb or 0), str(parent), str(nproc), *argv]
