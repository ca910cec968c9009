"""Where a tournament entry runs: a bubblewrap sandbox, unprivileged from end to end.

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

Nothing in the sandbox ever holds a privilege on the host. Run by root, each entry has a
user and group of its own (:data:`UID_BASE` plus its slot, no supplementary groups), and
``bwrap`` itself is started as that user (by :func:`as_user`, which sets the ids and then
execs it, so the runner never forks): it builds the sandbox inside a user namespace, where
its capabilities count for nothing outside. That namespace (:func:`user_namespace`) is made
by the runner, maps the entry's user to itself and also root to root: so ``bwrap``, while it
builds the sandbox, may reach folders only root can traverse (a Python under ``/root``) to
bind them; the entry itself never can. Then ``bwrap`` drops every capability
(``--cap-drop ALL``, the bounding set too), sets ``no_new_privs`` and loads a seccomp filter
(:mod:`levata.server.tournament.syscall_filter`: no ``open_by_handle_at``, ``mount``,
``ptrace``, namespaces, ...) before anything of the entry runs. Run by anybody else,
``bwrap`` makes its user namespace itself (``--unshare-user --disable-userns``) and the
entry keeps the runner's user.

Memory: when a memory cgroup can be made (:mod:`levata.server.tournament.memory_cgroup`),
the entry's first process waits at a gate (a shell reading one line) until the runner has
put it in its cgroup, so all it ever holds, its ``/tmp`` included, counts toward
``memory_mb``; else ``/tmp`` is only size-capped at ``memory_mb``.

Secrets never reach a command line: bwrap's options (with ``--setenv LEVATA_TOKEN``) are
passed through a file descriptor (``--args FD``), so the command line of bwrap (and of the
sandbox's init, its copy) is ``bwrap --args 4 -- COMMAND``: the command, never the token.

>>> box = Sandbox(socket=Path("/tmp/s/referee.sock"), uid_base=None)
>>> args = box.options({"LEVATA_TOKEN": "T"}, "/srv/bots/a", slot=0)
>>> args[:2], "--die-with-parent" in args, args[-2:]
(['--unshare-all', '--unshare-user'], True, ['--chdir', '/srv/bots/a'])
>>> args[args.index("--cap-drop") + 1]
'ALL'
>>> redact(args, "T")[args.index("LEVATA_TOKEN") + 1]
'***'
"""

from __future__ import annotations

import contextlib
import importlib
import os
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Literal

from levata.engine import BadConfig
from levata.server.tournament.manifest_env import check_env
from levata.server.tournament.memory_cgroup import EntryCgroup
from levata.server.tournament.process_limits import limited
from levata.server.tournament.syscall_filter import bpf

__all__ = [
    "ETC",
    "MODES",
    "SERVER",
    "SOCKET",
    "UID_BASE",
    "Sandbox",
    "Spawned",
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
PACKAGES = ("levata.engine", "levata.bots", "levata.wire", "levata.v1")


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


@dataclass
class Spawned:
    """A sandboxed entry's process, and its memory cgroup (``None``: ``/tmp`` capped only)."""

    proc: subprocess.Popen[bytes]
    cgroup: EntryCgroup | None

    def release(self) -> None:
        """Remove the cgroup, once the process has ended."""
        if self.cgroup is not None:
            self.cgroup.remove()


#: Run (by root) as ``python -I -S -c AS_USER UID PROGRAM ARGV...``: become user and group
#: UID with no supplementary group, give back the signals Python ignores, and ``exec``
#: PROGRAM (a path: looking it up would import modules UID may not be able to read).
AS_USER = """
import os, signal, sys
uid, path, argv = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
os.setgroups([])
os.setgid(uid)
os.setuid(uid)
for name in ("SIGPIPE", "SIGXFSZ"):  # as subprocess's restore_signals does
    signal.signal(getattr(signal, name), signal.SIG_DFL)
try:
    os.execv(path, argv)
except OSError as exc:
    print(f"cannot run {argv[0]}: {exc.strerror}", file=sys.stderr)
    sys.exit(127)
"""


def as_user(argv: Sequence[str], uid: int) -> list[str]:
    """``argv`` run as user and group ``uid`` (no supplementary group), the ids set after an
    ``exec`` (:data:`AS_USER`), not by ``subprocess.Popen(user=, group=)``.

    Why: with ids to set, ``subprocess`` must ``fork`` the runner instead of ``vfork``-ing
    it, and the runner is a gRPC server. A fork runs gRPC's fork handlers, which restart its
    poller thread in the child; the child then closes the descriptors it does not pass on
    (``close_fds``), the poller's epoll descriptor among them, and gRPC aborts it before its
    ``exec`` ("epoll_wait error: Bad file descriptor", in the entry's log): the entry never
    starts, and its seats are forfeited for not connecting (now and then, more often on a
    busy machine). A ``vfork`` runs no fork handler: the child only ``exec``-s.

    >>> as_user(["/bin/sh", "-c", "exit"], 420_000)[-5:]
    ['420000', '/bin/sh', '/bin/sh', '-c', 'exit']
    """
    path = shutil.which(argv[0], path="/usr/bin:/bin") or argv[0]  # the PATH it is given
    return [sys.executable, "-I", "-S", "-c", AS_USER, str(uid), path, *argv]


def user_namespace(uid: int) -> int:
    """A new user namespace owned by ``uid`` that maps ``uid`` and root (user and group) to
    themselves, as a descriptor (close-on-exec) for bwrap's ``--userns``. Made by a short
    ``unshare`` started as ``uid``; the maps are written by us (root): ``uid`` alone may map
    only itself. Only root calls this."""
    unshare = shutil.which("unshare", path="/usr/bin:/bin") or "unshare"
    holder = subprocess.Popen(
        as_user([unshare, "--user", "--", "/bin/sh", "-c", "echo ready; read _"], uid),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={"PATH": "/usr/bin:/bin"},
        cwd="/",
    )
    assert holder.stdin is not None and holder.stdout is not None
    try:
        if holder.stdout.readline() != b"ready\n":
            raise OSError(f"cannot make a user namespace for user {uid} (unshare --user)")
        for name in ("uid_map", "gid_map"):
            Path(f"/proc/{holder.pid}/{name}").write_text(f"0 0 1\n{uid} {uid} 1\n")
        return os.open(f"/proc/{holder.pid}/ns/user", os.O_RDONLY | os.O_CLOEXEC)
    finally:
        holder.stdin.close()
        holder.stdout.close()
        try:
            holder.wait(5)
        except subprocess.TimeoutExpired:
            holder.kill()
            holder.wait()


def _memfd(name: str, data: bytes) -> int:
    """A memory file holding ``data``, read from its start (close-on-exec: it reaches a
    child only through ``pass_fds``)."""
    fd = os.memfd_create(name, os.MFD_CLOEXEC)
    os.write(fd, data)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


#: The first program of an entry with a cgroup, as its own user: wait for the runner to put
#: it in the cgroup (one line "go" on its stdin, a pipe), then become bwrap, whose stdin is
#: ``/dev/null`` (a sandboxed entry reads nothing from us: the bridge talks to its program
#: over pipes of its own).
GATE = 'IFS= read -r go && [ "$go" = go ] || exit 125; exec "$@" </dev/null'


@dataclass(frozen=True)
class Sandbox:
    """How a tournament isolates its manifest entries.

    ``socket``: the host path of the entrants' socket, bound at :data:`SOCKET` (``None``: the
    entries need the network to reach an external referee, ``share_net``). ``uid_base``: the
    first of the entries' users (``None``: they keep the runner's user; the default is
    :data:`UID_BASE` when the runner is root, else ``None``). ``cgroups``: give each entry a
    memory cgroup where one can be made."""

    socket: Path | None = None
    share_net: bool = False
    uid_base: int | None = -1  # -1: decide from the runner's user
    bwrap: str = "bwrap"
    cgroups: bool = True

    @property
    def users(self) -> int | None:
        if self.uid_base == -1:
            return UID_BASE if os.geteuid() == 0 else None
        return self.uid_base

    def uid(self, slot: int) -> int | None:
        """The user (and group) entry slot ``slot`` runs as, or ``None`` (the runner's)."""
        base = self.users
        return None if base is None else base + slot

    def check_workdir(self, workdir: str | None, slot: int) -> None:
        """:class:`BadConfig` when slot ``slot``'s user could not enter ``workdir`` (the
        sandbox recreates its parents, but its own mode applies): say so before bwrap does.

        >>> Sandbox(uid_base=None).check_workdir("/root", 0)  # our own user: nothing to say
        """
        uid = self.uid(slot)
        if uid is None or not workdir:
            return
        st = os.stat(workdir)
        bit = 0o100 if st.st_uid == uid else 0o010 if st.st_gid == uid else 0o001
        if not st.st_mode & bit:
            raise BadConfig(
                f"its folder {workdir} cannot be entered by its user {uid} (mode"
                f" {st.st_mode & 0o777:04o}, owner {st.st_uid}): make it readable by others"
                " (chmod o+rx) or owned by that user"
            )

    def environment(self, extra: dict[str, str]) -> dict[str, str]:
        """What an entry's environment holds: these, then ``extra`` (the LEVATA_* variables
        and its manifest's ``env``, checked when the manifest was read; checked again here,
        for a tournament resumed from a record, skipping what is refused)."""
        base = {
            "PATH": f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin",
            "HOME": "/tmp",
            "TMPDIR": "/tmp",
            "LANG": "C.UTF-8",
            "PYTHONDONTWRITEBYTECODE": "1",  # the Python installation is read-only
        }
        ours = {k: v for k, v in extra.items() if k.startswith("LEVATA_")}
        theirs = {k: v for k, v in extra.items() if not k.startswith("LEVATA_")}
        allowed = {}
        for k, v in theirs.items():
            with contextlib.suppress(BadConfig):
                allowed.update(check_env("-", {k: v}))
        return {**base, **allowed, **ours}

    def options(
        self,
        env: dict[str, str],
        workdir: str | None,
        slot: int,
        tmp_mb: int = 0,
        userns: int | None = None,
        seccomp: int | None = None,
    ) -> list[str]:
        """bwrap's options for an entry in ``workdir`` with exactly ``self.environment(env)``
        and a ``/tmp`` of at most ``tmp_mb`` MiB (0: no cap but memory's); ``userns`` and
        ``seccomp`` are the descriptors of its user namespace (when root made it) and of its
        system call filter. They hold the token, so they go to bwrap through a file
        descriptor, never on its command line."""
        if userns is not None:  # made by root (user_namespace): every other namespace
            ns = ["--userns", str(userns), "--unshare-pid", "--unshare-ipc", "--unshare-uts"]
            ns += ["--unshare-cgroup-try", *([] if self.share_net else ["--unshare-net"])]
        else:
            ns = ["--unshare-all", *(["--share-net"] if self.share_net else [])]
            ns += ["--unshare-user", "--disable-userns"]
        args = [*ns, "--die-with-parent", "--new-session", "--hostname", "levata-entry"]
        args += ["--cap-drop", "ALL", *(["--seccomp", str(seccomp)] if seccomp is not None else [])]
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

    def memory_cgroup(self, slot: int, memory_mb: int) -> EntryCgroup | None:
        """A memory cgroup of ``memory_mb`` MiB for slot ``slot``'s next entry, or ``None``
        (no limit asked, cgroups off, or none can be made here). The launcher asks first: an
        entry whose memory a cgroup holds needs no address-space cap
        (:mod:`levata.server.tournament.process_limits`)."""
        if not self.cgroups or memory_mb <= 0:
            return None
        return EntryCgroup.make(f"levata-{os.getpid()}-{slot}-{time.monotonic_ns()}", memory_mb)

    def spawn(  # noqa: PLR0913  (what to run, as whom, where, its pipes and its memory)
        self,
        argv: Sequence[str],
        env: dict[str, str],
        workdir: str | None,
        slot: int,
        stdin: Any,
        stderr: IO[bytes] | int,
        memory_mb: int = 0,
        cgroup: EntryCgroup | Literal["make"] | None = "make",
    ) -> Spawned:
        """Start ``argv`` in the sandbox, as slot ``slot``'s user, with ``memory_mb`` MiB
        (0: no limit) for everything it holds; bwrap reads its options from a memory file.
        ``cgroup``: the entry's memory cgroup, made already (:meth:`memory_cgroup`) or
        ``None`` for none; by default one is made here. ``stdin`` is ignored (``/dev/null``)
        when the entry gets a cgroup.
        Every descriptor reaches bwrap only (``pass_fds``; the rest are close-on-exec)."""
        uid = self.uid(slot)
        if uid is None and os.geteuid() == 0:  # bwrap would map host root into the sandbox
            raise BadConfig("run by root, a sandboxed entry needs a user of its own (uid_base)")
        fds: list[int] = []
        if isinstance(cgroup, str):  # "make"
            cgroup = self.memory_cgroup(slot, memory_mb)
        try:
            userns = user_namespace(uid) if uid is not None else None
            if userns is not None:
                fds.append(userns)
            seccomp = _memfd("levata-seccomp", bpf())
            fds.append(seccomp)
            options = self.options(env, workdir, slot, memory_mb, userns, seccomp)
            args = _memfd("bwrap-args", b"".join(a.encode() + b"\0" for a in options))
            fds.append(args)
            command = [self.bwrap, "--args", str(args), "--", *argv]
            gate_w = -1
            if cgroup is not None:
                gate_r, gate_w = os.pipe2(os.O_CLOEXEC)
                fds += [gate_r, gate_w]
                command = ["/bin/sh", "-c", GATE, "levata-gate", *command]
                stdin = gate_r
            if uid is not None:
                command = as_user(command, uid)
            proc = subprocess.Popen(
                command,
                pass_fds=tuple(fd for fd in fds if fd not in (gate_w, stdin)),
                stdin=stdin,
                stdout=subprocess.DEVNULL,
                stderr=stderr,
                env={"PATH": "/usr/bin:/bin"},
                cwd="/",
                start_new_session=True,
            )
            if cgroup is not None:
                try:
                    cgroup.join(proc.pid)
                    os.write(gate_w, b"go\n")
                except OSError:
                    proc.kill()
                    proc.wait()
                    raise
            return Spawned(proc, cgroup)
        except BaseException:
            if cgroup is not None:
                cgroup.remove()
            raise
        finally:
            for fd in fds:
                os.close(fd)

    def shown(
        self,
        argv: Sequence[str],
        env: dict[str, str],
        workdir: str | None,
        slot: int,
        tmp_mb: int = 0,
    ) -> str:
        """The equivalent command line, as a shell would take it, the token hidden (``USERNS``
        and ``SECCOMP`` stand for the descriptors)."""
        userns = -1 if self.uid(slot) is not None else None
        args = [self.bwrap, *self.options(env, workdir, slot, tmp_mb, userns, -1), "--", *argv]
        for flag, name in (("--userns", "USERNS"), ("--seccomp", "SECCOMP")):
            if flag in args:
                args[args.index(flag) + 1] = name
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
    bpf()  # the filter can be built (libseccomp is there)
    box = probe or Sandbox()
    box = Sandbox(None, box.share_net, box.uid_base, path, cgroups=False)
    argv = limited([sys.executable, "-I", "-S", "-c", "pass"], 10, 0, 0, NPROC)
    try:
        started = box.spawn(argv, {}, None, 0, subprocess.DEVNULL, subprocess.PIPE)
        _, err = started.proc.communicate(timeout=60)
        status = started.proc.returncode
    except OSError as exc:
        err, status = str(exc).encode(), -1
    if status != 0:
        why = " ".join(err.decode(errors="replace").split())[:300] or f"status {status}"
        raise BadConfig(
            f"bubblewrap cannot build a sandbox here ({why}): pass --sandbox none to run"
            " submitted bots unisolated"
        )
    return "bwrap"
