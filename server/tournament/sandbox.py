"""Where a tournament entry runs: a bubblewrap sandbox, as an unprivileged user of its own.

A submitted bot (a manifest entry, :mod:`levata.server.tournament.entries`) is somebody else's
program. In a sandbox it sees a filesystem of its own: read-only ``/usr`` (and the ``/bin``,
``/lib*`` links), a few files of ``/etc`` (:data:`ETC`), the Python installation that runs the
tournament with the ``levata`` packages, its own working directory (read-only), a private
``/tmp`` (its scratch space, also ``$HOME``), a fresh ``/proc`` of its own process namespace
and a minimal ``/dev``. The referee is the Unix socket ``/run/levata/referee.sock``, which
serves only ``ArenaService`` (:func:`levata.server.match.app.start_entrant_server`). It has no
network (a namespace with only its own loopback), no view of other processes, no IPC or
hostname shared with anyone, and an environment of its own (``--clearenv``, then only
:meth:`Sandbox.environment`).

Run by root, the sandbox is built by a privileged ``bwrap`` (no user namespace: one that maps
only root could not hold another user), and inside it the entry drops, before its program
starts, to a user and group of its own (:data:`UID_BASE` plus its slot, no supplementary
groups, no capabilities, ``no_new_privs``), with a process-count limit on that user. So even
a bind wider than meant would not let it read another entry's files, the database, the logs
or the admin token, which are readable by their owner only. Run by anybody else, ``bwrap``
uses an unprivileged user namespace (``--unshare-all``) and the entry keeps the runner's user.

Secrets never reach a command line: bwrap's options (with ``--setenv LEVATA_TOKEN``) are
passed through a file descriptor (``--args FD``), so the command line of bwrap (and of the
sandbox's init, its copy) is ``bwrap --args 4 -- COMMAND``: the command, never the token.

>>> box = Sandbox(socket=Path("/tmp/s/referee.sock"), uid_base=None)
>>> args = box.options({"LEVATA_TOKEN": "T"}, "/srv/bots/a", slot=0)
>>> args[:2], "--die-with-parent" in args, args[-2:]
(['--unshare-all', '--unshare-user'], True, ['--chdir', '/srv/bots/a'])
>>> redact(args, "T")[args.index("LEVATA_TOKEN") + 1]
'***'
"""

from __future__ import annotations

import importlib
import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from levata.engine import BadConfig
from levata.server.tournament.process_limits import limited

__all__ = [
    "ETC",
    "MODES",
    "SERVER",
    "SOCKET",
    "UID_BASE",
    "Sandbox",
    "check_mode",
    "redact",
]

#: ``--sandbox`` values: ``auto`` sandboxes manifest entries with bwrap (required then),
#: ``bwrap`` requires bwrap even with no manifest entry, ``none`` isolates nothing.
MODES = ("auto", "bwrap", "none")
#: Where the entrants' socket appears inside the sandbox, and the gRPC target naming it.
SOCKET = "/run/levata/referee.sock"
SERVER = f"unix:{SOCKET}"
#: Entry slot ``k`` runs as user and group ``UID_BASE + k`` (when the runner is root).
UID_BASE = 420_000
#: Processes and threads one entry's user may have at once (when it has a user of its own).
NPROC = 512
#: What of ``/etc`` an entry sees: the dynamic loader's cache, time zone, name service
#: files (users, hosts), TLS roots, and the alternatives links some programs in /usr go
#: through. ``resolv.conf`` only when the network is shared.
ETC = (
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "localtime",
    "nsswitch.conf",
    "passwd",
    "group",
    "hosts",
    "host.conf",
    "ssl",
    "ca-certificates",
    "alternatives",
)
#: The system directories, bound read-only (or recreated as the links they are).
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
#: The levata packages a bot process imports (never the server).
PACKAGES = ("levata.engine", "levata.bots", "levata.v1")


def redact(args: Sequence[str], secret: str) -> list[str]:
    """``args`` with ``secret`` replaced by ``***`` wherever it occurs.

    >>> redact(["--setenv", "LEVATA_TOKEN", "abc", "x=abc"], "abc")
    ['--setenv', 'LEVATA_TOKEN', '***', 'x=***']
    """
    return [a.replace(secret, "***") for a in args] if secret else list(args)


def _under(path: str, root: str) -> bool:
    """``path`` is ``root`` or inside it.

    >>> _under("/usr/lib", "/usr"), _under("/usrx", "/usr"), _under("/a", "/")
    (True, False, True)
    """
    return path == root or path.startswith(root.rstrip("/") + "/")


class _Mounts:
    """bwrap arguments, in order, with the directories each mount point needs."""

    def __init__(self) -> None:
        self.args: list[str] = []
        self.mirrored: list[str] = []  # host paths visible at the same path
        self.made: set[str] = {"/"}  # directories that exist in the sandbox

    def parents(self, dest: str) -> None:
        """Create the missing ancestors of ``dest``, traversable by anybody (bwrap would
        copy restrictive modes, e.g. of ``/root``, and the entry's user could not pass)."""
        parts = Path(dest).parents
        for anc in reversed([str(p) for p in parts]):
            if anc in self.made or any(_under(anc, m) for m in self.mirrored):
                continue
            self.args += ["--perms", "0755", "--dir", anc]
            self.made.add(anc)

    def bind(self, src: str, dest: str | None = None, writable: bool = False) -> None:
        dest = dest or src
        if src == dest and any(_under(dest, m) for m in self.mirrored):
            return  # visible already
        self.parents(dest)
        self.args += ["--bind" if writable else "--ro-bind", src, dest]
        if src == dest:
            self.mirrored.append(dest)
        self.made.add(dest)

    def special(self, kind: str, dest: str, perms: str | None = None) -> None:
        """``--proc``, ``--dev`` or ``--tmpfs`` at ``dest``."""
        self.parents(dest)
        self.args += [*(["--perms", perms] if perms else []), kind, dest]
        self.made.add(dest)

    def system(self, path: str) -> None:
        if os.path.islink(path):
            self.args += ["--symlink", os.readlink(path), path]
            self.made.add(path)
        elif os.path.isdir(path):
            self.bind(path)


def python_paths() -> list[str]:
    """The Python installation running us and where the levata packages are imported from
    (an editable install maps them into the source tree)."""
    paths = [sys.base_prefix, sys.base_exec_prefix, sys.prefix, sys.exec_prefix]
    for name in PACKAGES:
        module = importlib.import_module(name)
        if module.__file__:
            paths.append(str(Path(module.__file__).parent))
    return list(dict.fromkeys(os.path.abspath(p) for p in paths))


@dataclass(frozen=True)
class Sandbox:
    """How a tournament isolates its manifest entries.

    ``socket``: the host path of the entrants' socket, bound at :data:`SOCKET` (``None``: the
    entries need the network to reach an external referee, ``share_net``). ``uid_base``: the
    first of the entries' users (``None``: they keep the runner's user; the default is
    :data:`UID_BASE` when the runner is root, else ``None``)."""

    socket: Path | None = None
    share_net: bool = False
    uid_base: int | None = -1  # -1: decide from the runner's user
    bwrap: str = "bwrap"

    @property
    def users(self) -> int | None:
        if self.uid_base == -1:
            return UID_BASE if os.geteuid() == 0 else None
        return self.uid_base

    def uid(self, slot: int) -> int | None:
        """The user (and group) entry slot ``slot`` runs as, or ``None`` (the runner's)."""
        base = self.users
        return None if base is None else base + slot

    def environment(self, extra: dict[str, str]) -> dict[str, str]:
        """What an entry's environment holds: these, then ``extra`` (the LEVATA_* variables
        and its manifest's ``env``)."""
        base = {
            "PATH": f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin",
            "HOME": "/tmp",
            "TMPDIR": "/tmp",
            "LANG": "C.UTF-8",
            "PYTHONDONTWRITEBYTECODE": "1",  # the Python installation is read-only
        }
        return {**base, **extra}

    def options(
        self, env: dict[str, str], workdir: str | None, slot: int, tmp_mb: int = 0
    ) -> list[str]:
        """bwrap's options for an entry in ``workdir`` with exactly ``self.environment(env)``
        and a ``/tmp`` of at most ``tmp_mb`` MiB (0: no cap but memory's). They hold the
        token, so they go to bwrap through a file descriptor, never on its command line."""
        privileged = self.uid(slot) is not None
        if privileged:  # see the module docstring: every namespace but the user one
            ns = ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
            ns += [] if self.share_net else ["--unshare-net"]
        else:
            ns = ["--unshare-all", *(["--share-net"] if self.share_net else [])]
            ns += ["--unshare-user", "--disable-userns"]
        args = [*ns, "--die-with-parent", "--new-session", "--hostname", "levata-entry"]
        args += ["--clearenv"]
        for k, v in self.environment(env).items():
            args += ["--setenv", k, v]
        m = _Mounts()
        for path in SYSTEM:
            m.system(path)
        etc = [*ETC, *(["resolv.conf"] if self.share_net else [])]
        for name in etc:
            if os.path.exists(f"/etc/{name}"):
                m.bind(f"/etc/{name}")
        m.special("--proc", "/proc")
        m.special("--dev", "/dev")
        if tmp_mb > 0:
            m.args += ["--size", str(tmp_mb << 20)]
        m.special("--tmpfs", "/tmp", perms="1777")
        # After the fresh /tmp: a Python or a checkout that lives under /tmp goes on top of it.
        for path in python_paths():
            m.bind(path)
        if workdir:
            m.bind(workdir)
        if self.socket is not None:
            m.bind(str(self.socket), SOCKET, writable=True)
        args += m.args
        args += ["--chdir", workdir or "/tmp"]
        return args

    def spawn(
        self,
        argv: Sequence[str],
        env: dict[str, str],
        workdir: str | None,
        slot: int,
        stdin: Any,
        stderr: IO[bytes] | int,
        tmp_mb: int = 0,
    ) -> subprocess.Popen[bytes]:
        """Start ``argv`` in the sandbox; bwrap reads its options from a memory file."""
        options = self.options(env, workdir, slot, tmp_mb)
        fd = os.memfd_create("bwrap-args", 0)  # not inherited but by pass_fds
        try:
            os.write(fd, b"".join(a.encode() + b"\0" for a in options))
            os.lseek(fd, 0, os.SEEK_SET)
            return subprocess.Popen(
                [self.bwrap, "--args", str(fd), "--", *argv],
                pass_fds=(fd,),
                stdin=stdin,
                stdout=subprocess.DEVNULL,
                stderr=stderr,
                env={"PATH": "/usr/bin:/bin"},
                cwd="/",
                start_new_session=True,
            )
        finally:
            os.close(fd)

    def shown(
        self,
        argv: Sequence[str],
        env: dict[str, str],
        workdir: str | None,
        slot: int,
        tmp_mb: int = 0,
    ) -> str:
        """The equivalent command line, as a shell would take it, the token hidden."""
        args = [self.bwrap, *self.options(env, workdir, slot, tmp_mb), "--", *argv]
        return shlex.join(redact(args, env.get("LEVATA_TOKEN", "")))


def check_mode(mode: str, manifests: bool, probe: Sandbox | None = None) -> str:
    """The sandbox a tournament uses: ``bwrap`` or ``none``; :class:`BadConfig` (one line)
    when ``mode`` is unknown, or asks for bwrap and bwrap is missing or cannot build a
    sandbox here (tried once, with ``probe``'s settings, running this Python as the first
    entry's user).

    >>> check_mode("none", True), check_mode("auto", False)
    ('none', 'none')
    """
    if mode not in MODES:
        raise BadConfig(f"--sandbox must be one of {', '.join(MODES)}, not {mode!r}")
    if mode == "none" or (mode == "auto" and not manifests):
        return "none"
    path = shutil.which("bwrap")
    if path is None:
        raise BadConfig(
            "bubblewrap (bwrap) is not installed, and submitted bots run in it: install it"
            " (apt-get install bubblewrap) or pass --sandbox none to run them unisolated"
        )
    box = probe or Sandbox()
    box = Sandbox(None, box.share_net, box.uid_base, path)
    argv = limited([sys.executable, "-I", "-S", "-c", "pass"], 10, 0, 0, box.uid(0), NPROC)
    proc = box.spawn(argv, {}, None, 0, subprocess.DEVNULL, subprocess.PIPE)
    _, err = proc.communicate(timeout=60)
    if proc.returncode != 0:
        why = " ".join(err.decode(errors="replace").split())[:300] or f"status {proc.returncode}"
        raise BadConfig(
            f"bubblewrap cannot build a sandbox here ({why}): pass --sandbox none to run"
            " submitted bots unisolated"
        )
    return "bwrap"
