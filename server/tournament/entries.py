"""Tournament entries and the processes they run in.

An entry of ``levata tournament --bots`` is one of:

* a **reference bot**, with options: ``KIND[:key=value[:key=value...]]`` (``heuristic``,
  ``random``, ``pimc:worlds=40:time_ms=150``: any kind ``make_bot`` accepts, each option
  checked against its constructor, :mod:`levata.bots.entry`), or ``module:Class[:key=value]``,
  a Python class implementing ``Bot`` (constructor ``(game, seed, **options)``): launched as
  one :mod:`levata.server.tournament.host` process, one gRPC connection holding its seats in
  every match, seeded from each match's place in the schedule (reproducible); the entry's text
  is its name and is what the spec records, so the tournament id hashes the options too. Like
  a reference bot, a ``module:Class`` is the operator's own code: a plain process, unsandboxed,
  in the tournament's working directory;
* a **manifest** (a path ending in ``.toml``): a submitted bot, launched as described, in a
  sandbox of its own (below), with CPU-time and memory limits and its stderr in a log of its
  own (capped and rotated, :mod:`levata.server.tournament.entry_log`);
* ``@NAME``: a bot already connected to the ``--server`` referee under ``NAME`` (the
  tournament launches nothing; how it chooses is its own business).

A manifest::

    name = "mybot"                      # its name in the standings
    command = ["python3", "mybot.py"]   # or one string, split like a shell would
    protocol = "json"                   # json: one JSON request per stdin line, run under
                                        #   `levata bot bridge`; grpc: it connects itself
    # or, instead of command and protocol, a Python bot of the workdir (docs/python-bots.md):
    # python = "mybot:MyBot"            # module:Class[:key=value...] or module:function,
                                        #   run as `levata bot run` (the same SDK) inside the
                                        #   same sandbox and limits as any command
    workdir = "."                       # relative to the manifest's folder, and inside it
    move_ms = 1000                      # time per decision it asks for (the referee's clock
                                        #   is per match: a match gets the most any of its
                                        #   entries asks, and at least --move-ms)
    cpu_seconds = 600                   # CPU-time limit of the process (RLIMIT_CPU)
    memory_mb = 2048                    # address-space limit (RLIMIT_AS), and in a sandbox
                                        #   all it holds, its /tmp (in memory) included
    env = { MYBOT_LEVEL = "3" }         # extra environment: plain names, none that the
                                        #   loader or an interpreter reads (manifest_env)

The limits are at most the operator's ceilings (:func:`check_ceilings`, ``levata
tournament --max-memory-mb`` and ``--max-cpu-seconds``).

**How a manifest entry runs** (``levata tournament --sandbox auto``, the default; see
:mod:`levata.server.tournament.sandbox`): in a bubblewrap sandbox, with no network, no other
process in view, no capability, a seccomp filter, and, when the tournament runs as root, as a
user and group of its own (``420000`` plus its place among the entries: bwrap itself starts as
that user) with at most 512 processes. Its program (and,
for ``json``, the bridge in front of it) sees read-only ``/usr``, a few files of ``/etc``, the
Python installation running the tournament with the ``levata`` packages (``python3`` on its
``PATH`` is that Python), and its ``workdir`` at the same path, read-only; it may write only in its
private ``/tmp``, which is also ``$HOME``. Nothing else: not the database, the logs, the admin
token or another entry's folder (which are readable by their owner only in any case). Its
environment holds exactly ``PATH``, ``HOME``, ``TMPDIR``, ``LANG``, ``PYTHONDONTWRITEBYTECODE``,
then:

* ``LEVATA_SERVER``: the referee, a gRPC target: ``unix:/run/levata/referee.sock``, a socket
  serving only ``ArenaService`` (no admin service); a ``host:port`` when the tournament uses
  an external ``--server`` without ``--entrant-socket`` (then the network is shared);
* ``LEVATA_TOKEN``: its token (never on a command line: no ``--token``, no ``{token}``);
* ``LEVATA_GAME``, ``LEVATA_SEED``: the game, and its seed for its own choices;
* its manifest's ``env``.

A ``grpc`` command may also name the referee with ``{server}``, ``{game}``, ``{seed}`` and
``{name}`` placeholders in its arguments. With ``--sandbox none`` it runs as a plain process
of the tournament's user (the same environment, plus the runner's).

A reference bot is our own code: it runs unsandboxed, with its token in ``LEVATA_TOKEN``.

>>> m = parse_manifest('name = "b"\\ncommand = "python3 b.py --fast"\\nmove_ms = 500', ".")
>>> m["command"], m["protocol"], m["move_ms"], m["memory_mb"]
(['python3', 'b.py', '--fast'], 'json', 500, 2048)
>>> m = parse_manifest('name = "p"\\npython = "mybot:act"', ".")
>>> m["python"], m["protocol"], m["command"]
('mybot:act', 'python', ['python3', '-m', 'levata.bots', 'run', 'mybot:act'])
>>> parse_manifest('name = "b"\\ncommand = "levata bot bridge -- ./b.sh"', ".")
Traceback (most recent call last):
levata.engine.contract.BadConfig: manifest b: the command runs `levata bot bridge` itself, ...
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import subprocess
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from levata.engine import BadConfig
from levata.server.match.auth import bot_name_for
from levata.server.tournament.entry_log import DEFAULT_CAP_MB, EntryLog
from levata.server.tournament.manifest_env import check_env
from levata.server.tournament.memory_cgroup import EntryCgroup
from levata.server.tournament.process_limits import LIMITS, limited
from levata.server.tournament.sandbox import NPROC, Sandbox, Spawned
from levata.wire.credentials import TLS_CA_ENV, TOKEN_ENV

__all__ = [
    "BotProcess",
    "Entry",
    "check_bot",
    "check_ceilings",
    "launch",
    "load_manifest",
    "parse_entries",
    "parse_manifest",
]

#: Limits a manifest gets unless it says otherwise.
DEFAULT_CPU_SECONDS = 3600
DEFAULT_MEMORY_MB = 2048
#: The most a manifest may ask for unless the operator says otherwise (``levata tournament
#: --max-memory-mb``, ``--max-cpu-seconds``).
MAX_MEMORY_MB = 8192
MAX_CPU_SECONDS = 7200

#: A command that starts a bridge (``levata bot bridge``, ``python -m levata.bots bridge``).
_BRIDGE = re.compile(r"levata(\s+bot|\.bots)\s+bridge\b")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]*$")
_FIELDS = {
    "name", "command", "protocol", "python", "workdir", "move_ms", "cpu_seconds", "memory_mb",
    "env",
}  # fmt: skip
#: ``python = "module:Class[:key=value...]"`` or ``"module:function"``: checked for its form
#: only (importing a submitted module in the runner would run its code outside the sandbox).
_PYTHON = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*(:[A-Za-z_]\w*=[^:,]*)*$")


@dataclass(frozen=True)
class Entry:
    """One competitor: ``kind`` is ``bot`` (a reference kind), ``manifest`` or ``connected``."""

    name: str
    kind: str
    bot: str = ""  # the reference kind, or the connected bot's name on the server
    manifest: dict[str, Any] = field(default_factory=dict)

    @property
    def move_ms(self) -> int | None:
        return self.manifest.get("move_ms")

    @property
    def slug(self) -> str:
        """The entry's name as a bot name and a file name (an entry's text may hold ``=``
        or a path): its seats' names on the referee and its log.

        >>> Entry("pimc:worlds=3", "bot", bot="pimc:worlds=3").slug
        'pimc:worlds_3.815486'
        """
        return bot_name_for(self.name, 80)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "bot": self.bot, "manifest": self.manifest}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Entry:
        return cls(d["name"], d["kind"], d.get("bot", ""), d.get("manifest", {}))


def parse_manifest(text: str, base: str | Path) -> dict[str, Any]:
    """A manifest's TOML text -> its validated fields; :class:`BadConfig` when wrong."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise BadConfig(f"manifest is not valid TOML: {exc}") from None
    unknown = sorted(set(data) - _FIELDS)
    if unknown:
        raise BadConfig(f"manifest has unknown field(s): {', '.join(unknown)}")
    name = data.get("name")
    if not isinstance(name, str) or not _NAME.match(name):
        raise BadConfig("manifest needs a name: letters, digits, _ . + - (no spaces)")
    out: dict[str, Any] = {"name": name}
    if "python" in data:
        out.update(_python_bot(name, data))
    else:
        out.update(_command(name, data))
    command = out["command"]
    workdir = Path(base) / str(data.get("workdir", "."))
    if any("{token}" in a for a in command):
        raise BadConfig(
            f"manifest {name}: no {{token}} in the command (a command line is readable by"
            " others): the token is in $LEVATA_TOKEN"
        )
    out["workdir"] = _inside(name, workdir, Path(base))
    for key, default in (
        ("move_ms", None),
        ("cpu_seconds", DEFAULT_CPU_SECONDS),
        ("memory_mb", DEFAULT_MEMORY_MB),
    ):
        value = data.get(key, default)
        if value is not None and (not isinstance(value, int) or value <= 0):
            raise BadConfig(f"manifest {name}: {key} must be a positive whole number")
        out[key] = value
    out["env"] = check_env(name, data.get("env", {}))
    return out


def _command(name: str, data: dict[str, Any]) -> dict[str, Any]:
    """A manifest's ``command`` and ``protocol``, checked."""
    command = data.get("command")
    if isinstance(command, str):
        command = shlex.split(command)
    if not isinstance(command, list) or not command or not all(isinstance(c, str) for c in command):
        raise BadConfig(
            f"manifest {name}: command must be a non-empty string or list of strings (or"
            ' give python = "module:Class" for a Python bot)'
        )
    protocol = data.get("protocol", "json")
    if protocol not in ("json", "grpc"):
        raise BadConfig(f"manifest {name}: protocol must be json or grpc, not {protocol!r}")
    if protocol == "json" and _BRIDGE.search(" ".join(command)):
        raise BadConfig(
            f"manifest {name}: the command runs `levata bot bridge` itself, but a json"
            " manifest's program runs under the bridge already: give the program alone"
            ' (command = ["./bot.sh"]), or protocol = "grpc" to run a bridge of your own'
        )
    return {"command": command, "protocol": protocol}


def _python_bot(name: str, data: dict[str, Any]) -> dict[str, Any]:
    """A manifest's ``python`` entry, checked for its form: it is run by ``python -m
    levata.bots run ENTRY`` (shown as ``command``), which speaks gRPC itself.

    >>> _python_bot("p", {"python": "mybot:MyBot:depth=3"})["command"][-1]
    'mybot:MyBot:depth=3'
    >>> _python_bot("p", {"python": "mybot.py"})
    Traceback (most recent call last):
    ...
    levata.engine.contract.BadConfig: manifest p: python must be "module:Class" ..., not 'mybot.py'
    """
    given = sorted({"command", "protocol"} & set(data))
    if given:
        raise BadConfig(
            f"manifest {name}: python runs the bot itself; give no {' or '.join(given)} with it"
        )
    entry = data["python"]
    if not isinstance(entry, str) or not _PYTHON.match(entry.strip()):
        raise BadConfig(
            f'manifest {name}: python must be "module:Class" or "module:function" (a module'
            f" of its workdir; a class may take :key=value options), not {entry!r}"
        )
    entry = entry.strip()
    return {
        "python": entry,
        "protocol": "python",
        "command": ["python3", "-m", "levata.bots", "run", entry],
    }


def _inside(name: str, workdir: Path, base: Path) -> str:
    """``workdir`` resolved (symbolic links followed); :class:`BadConfig` unless it is the
    manifest's folder ``base`` or inside it: a bot's folder must not expose another's.

    >>> _inside("b", Path("/srv/bots/b/../b/x"), Path("/srv/bots/b"))
    '/srv/bots/b/x'
    >>> _inside("b", Path("/srv/bots/b/.."), Path("/srv/bots/b"))
    Traceback (most recent call last):
    levata.engine.contract.BadConfig: manifest b: workdir /srv/bots is outside the manifest's ...
    """
    real, folder = os.path.realpath(workdir), os.path.realpath(base)
    if not Path(real).is_relative_to(folder):
        raise BadConfig(
            f"manifest {name}: workdir {real} is outside the manifest's folder {folder}"
        )
    return real


def check_ceilings(entries: list[Entry], max_memory_mb: int, max_cpu_seconds: int) -> None:
    """:class:`BadConfig` (one line naming the field and the ceiling) when a manifest asks
    for more memory or CPU time than the operator allows.

    >>> e = Entry("b", "manifest", manifest={"name": "b", "memory_mb": 9000, "cpu_seconds": 60})
    >>> check_ceilings([e], 8192, 7200)
    Traceback (most recent call last):
    levata.engine.contract.BadConfig: manifest b: memory_mb 9000 is above ... ceiling of 8192 ...
    """
    ceilings = (("memory_mb", max_memory_mb, "--max-memory-mb"),
                ("cpu_seconds", max_cpu_seconds, "--max-cpu-seconds"))  # fmt: skip
    for e in entries:
        if e.kind != "manifest":
            continue
        for key, ceiling, flag in ceilings:
            value = e.manifest.get(key)
            if value is not None and value > ceiling:
                default = {"memory_mb": DEFAULT_MEMORY_MB, "cpu_seconds": DEFAULT_CPU_SECONDS}
                hint = " (the default: give less in the manifest)" if value == default[key] else ""
                raise BadConfig(
                    f"manifest {e.name}: {key} {value} is above this tournament's ceiling"
                    f" of {ceiling} ({flag}){hint}"
                )


def load_manifest(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text()
    except OSError as exc:
        raise BadConfig(f"cannot read manifest {path}: {exc.strerror}") from None
    try:
        return parse_manifest(text, path.parent)
    except BadConfig as exc:
        raise BadConfig(f"{path}: {exc}") from None


def parse_entries(text: str, game: str, server: str | None, try_make: bool = True) -> list[Entry]:
    """``--bots`` -> entries with distinct names (a repeated kind becomes ``random-2``...).

    >>> [e.name for e in parse_entries("heuristic,random,random", "whist", None)]
    ['heuristic', 'random', 'random-2']
    """
    items = [b.strip() for b in text.split(",") if b.strip()]
    if not items:
        raise BadConfig("--bots names no bot")
    entries: list[Entry] = []
    taken: set[str] = set()

    def unique(name: str) -> str:
        n, k = name, 1
        while n in taken:
            k += 1
            n = f"{name}-{k}"
        taken.add(n)
        return n

    for item in items:
        if item.endswith(".toml"):
            manifest = load_manifest(Path(item))
            entries.append(Entry(unique(manifest["name"]), "manifest", manifest=manifest))
        elif item.startswith("@"):
            if server is None:
                raise BadConfig(f"{item}: a connected bot needs --server (the referee it is on)")
            entries.append(Entry(unique(item[1:]), "connected", bot=item[1:]))
        else:
            check_bot(item, game, try_make)
            entries.append(Entry(unique(item), "bot", bot=item))
    return entries


def check_bot(text: str, game: str, try_make: bool = True) -> None:
    """Fail early and in one line on a bot entry that cannot play ``game``: an unknown kind,
    option or value, or (with ``try_make``) a class whose constructor refuses (made once,
    here, to find out).

    >>> check_bot("pimc:worlds=many", "whist")
    Traceback (most recent call last):
    ...
    levata.engine.contract.BadConfig: bot pimc: worlds=many is not a whole number (its options: ...)
    """
    from levata.bots import make_bot
    from levata.bots.base import parse_bot

    kind, options = parse_bot(text, game)
    if not try_make:
        return
    try:
        make_bot(kind, game, 0, **options)
    except BadConfig:
        raise
    except Exception as exc:  # an author's class may refuse in any way: one line, no trace
        raise BadConfig(f"bot {text} cannot play {game}: {type(exc).__name__}: {exc}") from None


# -- processes ---------------------------------------------------------------------------------


@dataclass
class BotProcess:
    """A launched entry: its process, its seat name on the referee, its log."""

    entry: Entry
    seat_name: str
    proc: subprocess.Popen[bytes]
    log: Path
    labels: IO[bytes] | None = None  # stdin of a host process: MATCH_ID LABEL lines
    reported: bool = False
    out: EntryLog | None = None  # where its stderr goes
    spawned: Spawned | None = None  # its sandbox, when it has one

    @property
    def memory_note(self) -> str:
        """Which memory bound its ``/tmp`` is under (sandboxed entries)."""
        if self.spawned is None:
            return ""
        return "cgroup" if self.spawned.cgroup is not None else "tmpfs size"

    def alive(self) -> bool:
        return self.proc.poll() is None

    def label(self, match_id: str, label: int) -> None:
        """Tell a reference bot which scheduled match ``match_id`` is."""
        if self.labels is None:
            return
        with contextlib.suppress(BrokenPipeError, OSError, ValueError):
            self.labels.write(f"{match_id} {label}\n".encode())
            self.labels.flush()

    def stop(self, grace: float = 5.0) -> None:
        if self.labels is not None:
            with contextlib.suppress(OSError, ValueError):
                self.labels.close()  # a host process ends at the end of its stdin
        try:
            self.proc.wait(timeout=grace if self.labels is not None else 0.01)
        except subprocess.TimeoutExpired:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.out is not None:
            self.out.close()
        if self.spawned is not None:
            self.spawned.release()


def command_for(
    entry: Entry, game: str, server: str, token: str, seed: int, seat_name: str
) -> tuple[list[str], dict[str, str], str | None]:
    """The argv, extra environment and working directory of an entry's process. The token
    goes in the environment (``LEVATA_TOKEN``), never in argv.

    >>> e = Entry("h", "bot", bot="heuristic")
    >>> argv, env, _ = command_for(e, "whist", "127.0.0.1:1", "T0k", 5, "t.h")
    >>> "T0k" in " ".join(argv), env
    (False, {'LEVATA_TOKEN': 'T0k'})
    """
    if entry.kind == "bot":
        argv = [
            sys.executable,
            "-m",
            "levata.server.tournament.host",
            entry.bot,
            "--game",
            game,
            "--server",
            server,
            "--seed",
            str(seed),
            "--name",
            entry.name,
        ]
        return argv, {TOKEN_ENV: token}, None
    m = entry.manifest
    values = {"server": server, "game": game, "seed": str(seed), "name": seat_name}
    env = {
        "LEVATA_SERVER": server,
        TOKEN_ENV: token,
        "LEVATA_GAME": game,
        "LEVATA_SEED": str(seed),
        **m.get("env", {}),
    }
    if m["protocol"] == "python":  # `levata bot run ENTRY`, on this Python and its levata
        argv = [sys.executable, "-m", "levata.bots", "run", m["python"], "--game", game]
        argv += ["--server", server, "--seed", str(seed), "--name", seat_name, "--quiet"]
    elif m["protocol"] == "grpc":
        argv = [_fill(a, values) for a in m["command"]]
    else:
        argv = [
            sys.executable,
            "-m",
            "levata.bots",
            "bridge",
            "--server",
            server,
            "--name",
            entry.name,
            "--quiet",
            "--",
            *m["command"],
        ]
    return argv, env, m["workdir"]


def _fill(arg: str, values: dict[str, str]) -> str:
    for k, v in values.items():
        arg = arg.replace("{" + k + "}", v)
    return arg


def _limits(
    argv: list[str], manifest: dict[str, Any], sandbox: Sandbox | None, slot: int
) -> tuple[list[str], EntryCgroup | None]:
    """A manifest entry's command under its limits, and the memory cgroup made for it in
    ``sandbox`` (``None``: not sandboxed, or none can be made here)."""
    memory_mb = manifest.get("memory_mb")
    cgroup = sandbox.memory_cgroup(slot, memory_mb or 0) if sandbox is not None else None
    # A cgroup counts the memory the entry holds; an address-space cap as well would count
    # what its threads reserve and never use (gRPC's, a JVM's), and fail them.
    address_mb = None if cgroup is not None else memory_mb
    parent = 0 if sandbox is not None else None  # in a sandbox, the parent is its init
    nproc = NPROC if sandbox is not None and sandbox.users is not None else 0
    return limited(argv, manifest.get("cpu_seconds"), address_mb, parent, nproc), cgroup


def launch(  # noqa: PLR0913  (one entry process: who, where, as whom, and its log)
    entry: Entry,
    game: str,
    server: str,
    token: str,
    seed: int,
    seat_name: str,
    log: Path,
    sandbox: Sandbox | None = None,
    slot: int = 0,
    log_mb: int = DEFAULT_CAP_MB,
    tls_ca: Path | None = None,
) -> BotProcess:
    """Start an entry's process; its stdout is discarded and its stderr goes through a pipe
    to ``log`` (owner-only, at most ``log_mb`` MiB with its rotated copy, :mod:`entry_log`).
    A manifest entry runs in ``sandbox`` (as its slot's user) when one is given, else as a
    plain process; a reference bot always runs as a plain process. ``tls_ca``: the CA of a
    referee that speaks TLS (``levata match --server``), its path in ``$LEVATA_TLS_CA``."""
    argv, extra_env, cwd = command_for(entry, game, server, token, seed, seat_name)
    if tls_ca is not None:
        extra_env[TLS_CA_ENV] = str(tls_ca.resolve())
    log.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    m = entry.manifest
    manifest = entry.kind == "manifest"
    boxed = manifest and sandbox is not None
    cgroup: EntryCgroup | None = None
    shown = " ".join(shlex.quote(a.replace(token, "***")) for a in argv)
    if manifest:
        check_env(entry.name, m.get("env", {}))  # a spec resumed from an older record
        shown += f" (cpu {m.get('cpu_seconds')} s, memory {m.get('memory_mb')} MB)"
        argv, cgroup = _limits(argv, m, sandbox if boxed else None, slot)
    out = EntryLog(log, log_mb << 20)
    out.start(f"== {shown}\n")
    stdin = subprocess.PIPE if entry.kind == "bot" else subprocess.DEVNULL
    read_end, write_end = os.pipe2(os.O_CLOEXEC)
    spawned: Spawned | None = None
    try:
        if boxed:
            assert sandbox is not None
            sandbox.check_workdir(cwd, slot)
            uid = sandbox.uid(slot)
            where = f"user {uid}" if uid is not None else "our user"
            net = "shared network" if sandbox.share_net else "no network"
            memory_mb = m.get("memory_mb") or 0
            brief = ["$LIMITS" if a == LIMITS else a for a in argv]  # the script is above
            line = sandbox.shown(brief, extra_env, cwd, slot, memory_mb)
            out.start(f"== sandboxed (bwrap, {where}, {net}):\n   {line}\n")
            spawned = sandbox.spawn(argv, extra_env, cwd, slot, stdin, write_end, memory_mb, cgroup)
            proc = spawned.proc
            if spawned.cgroup is not None:
                memory = f"memory cgroup {spawned.cgroup.path.name}, {memory_mb} MiB"
            else:
                memory = f"no memory cgroup here: /tmp capped at {memory_mb} MiB"
            out.start(f"== {memory}\n")
        else:
            proc = subprocess.Popen(
                argv,
                stdin=stdin,
                stdout=subprocess.DEVNULL,
                stderr=write_end,
                cwd=cwd,
                env={**os.environ, **extra_env},
                start_new_session=True,  # the terminal's Ctrl-C is the runner's to handle
            )
    except BaseException:
        os.close(read_end)
        out.close(0)
        if cgroup is not None and spawned is None:  # made for it, never joined
            cgroup.remove()
        raise
    finally:
        os.close(write_end)
    out.follow(read_end)
    return BotProcess(entry, seat_name, proc, log, proc.stdin, out=out, spawned=spawned)
