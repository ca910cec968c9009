"""Tournaments over the real referee: schedule, play, record, resume.

    levata tournament --game whist --bots heuristic,random,random --format duplicate --deals 12

What happens:

1. The command's values become a :class:`~levata.server.tournament.spec.TournamentSpec` (game,
   entries, format, deals, seed, options, clocks). Its schedule
   (:mod:`levata.server.tournament.schedule`) is a pure function of it. Spec and schedule are
   stored in SQLite (:mod:`levata.server.tournament.store`) under the tournament's id: ``t`` and a
   hash of the spec (``-2``, ``-3``... when the same spec is run again).
2. A referee starts in this process on a free loopback port, recording into the same file
   (or ``--server`` names a running one). Each entry runs as its own process
   (:mod:`levata.server.tournament.entries`): one gRPC connection per entry, holding its seats in
   every match at once. With our own referee each manifest entry process reaches it through
   an entrants' socket of its own (its own quota of streams without Hello: one entry's flood
   cannot starve another, :mod:`levata.server.match.doors`).
3. Up to ``parallel`` scheduled matches run at a time: ``AdminService.CreateMatch``, then
   ``WatchMatch`` until it ends; the result is stored with the scheduled match in one
   transaction. A bot process that dies forfeits its seats (the referee's rules: a dropped
   seat is forfeited after the resume window; a seat that never connects, after the start-up
   allowance, which is short for an entry known to be dead), and the tournament goes on.
4. ``resume=True`` continues the newest unfinished tournament of the same spec: matches
   left running by a killed runner are marked abandoned (their referee records aborted, one
   that cannot be read too, with its reason) and played again from scratch; finished ones
   are kept. Because every match's cards come from its seed and every reference bot's
   choices from its entry seed and the match's place in the schedule, the final standings
   equal those of an uninterrupted run.

"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import socket
import stat
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import grpc
from google.protobuf import json_format

from levata.engine import BadConfig
from levata.engine.seeds import derive
from levata.server.match.auth import admin_metadata
from levata.server.tournament.entries import BotProcess, launch
from levata.server.tournament.entry_log import DEFAULT_CAP_MB
from levata.server.tournament.sandbox import SERVER, Sandbox, check_mode
from levata.server.tournament.spec import TournamentSpec
from levata.server.tournament.store import TourneyStore, process_start
from levata.v1 import admin_pb2, admin_pb2_grpc, arena_pb2

if TYPE_CHECKING:
    from levata.server.match.arena import Arena

__all__ = ["Hosting", "Progress", "run_tournament"]

#: Start-up allowance of a match that seats an entry whose process is known to be dead: long
#: enough for the live seats' queued attachments, short enough not to stall the tournament.
DEAD_STARTUP_MS = 1_000
#: The longest one match may take (a whole game of slow bots is long, but not this long).
WATCH_TIMEOUT_S = 6 * 3600.0
#: How long the runner waits for its bot processes to connect before the first match.
CONNECT_WAIT_S = 30.0
#: Connections one manifest entry's own entrants' socket accepts (an entry needs one a
#: process; a connection without a call is closed after a few seconds anyway).
ENTRY_CONNECTIONS = 64


class Reporter(Protocol):
    """What a progress reporter offers the runner (:class:`Progress`, or the command
    line's ``rich`` one)."""

    def start(self, total: int, done: int) -> None: ...

    def advance(self, row: dict[str, Any], result: dict[str, Any]) -> None: ...

    def note(self, line: str) -> None: ...


class Progress:
    """What the runner reports as it goes; the command line draws it with ``rich``."""

    def start(self, total: int, done: int) -> None: ...

    def advance(self, row: dict[str, Any], result: dict[str, Any]) -> None: ...

    def note(self, line: str) -> None: ...


def _policy_pb(policy: dict[str, int], **over: int) -> arena_pb2.MatchPolicy:
    return arena_pb2.MatchPolicy(**{**policy, **over})


def match_result(info: admin_pb2.MatchInfo) -> dict[str, Any]:
    """What the tournament keeps of a finished match."""
    res = info.result
    details = json_format.MessageToDict(res.details) if res.HasField("details") else {}
    return {
        "match_id": info.match_id,
        "scores": list(res.scores),
        "ranks": list(res.ranks),
        "forfeited": list(res.forfeited),
        "reason": res.reason,
        "deals": len(details.get("deals", [])),
        "strikes": list(info.strikes),
        "detail": details.get("forfeit", ""),
    }


def schedule_label(tid: str, index: int) -> str:
    """The label of scheduled match ``index`` (``MatchStart.label``): ``TID/INDEX``. A match
    id never holds a ``/``, so a bot host tells the two apart.

    >>> schedule_label("t1faccba2", 17)
    't1faccba2/17'
    """
    return f"{tid}/{index}"


@dataclass(frozen=True)
class Hosting:
    """Where a tournament's matches are refereed and how its entries run.

    ``server``: a running referee's address (None: a referee of our own, for this run) and
    ``admin_token`` its admin token; ``logs``: the folder of the entries' stderr logs (None:
    ``levata-logs/TID`` beside the database); ``sandbox``: how manifest entries are isolated
    (:data:`levata.server.tournament.sandbox.MODES`); ``entrant_socket``: with ``server``,
    that referee's entrants' socket, so that sandboxed entries need no network; ``log_mb``:
    the most each entry's stderr logs hold."""

    server: str | None = None
    admin_token: str | None = None
    logs: Path | None = None
    sandbox: str = "auto"
    entrant_socket: Path | None = None
    log_mb: int = DEFAULT_CAP_MB


class _Runner:
    def __init__(
        self,
        tid: str,
        spec: TournamentSpec,
        db: Path,
        tdb: TourneyStore,
        parallel: int,
        hosting: Hosting,  # resolved: its logs folder, sandbox mode and socket as used
        progress: Reporter,
    ) -> None:
        self.tid, self.spec, self.db, self.tdb = tid, spec, db, tdb
        assert hosting.logs is not None
        self.log_mb = hosting.log_mb
        self.parallel = max(1, parallel)
        self.server, self.admin_token = hosting.server, hosting.admin_token
        self.logs, self.progress = hosting.logs, progress
        self.sandbox_mode, self.entrant_socket = hosting.sandbox, hosting.entrant_socket
        self.meta: tuple[tuple[str, str], ...] | None = (
            (("authorization", f"Bearer {self.admin_token}"),) if self.admin_token else None
        )
        self.procs: dict[tuple[str, int], BotProcess] = {}  # (entry, team member) -> process
        self.seat_names: dict[tuple[str, int], str] = {}
        self.members = max((len(t) for t in spec.teams), default=1) if spec.teams else 1
        self.arena: Arena | None = None
        self.admin: admin_pb2_grpc.AdminServiceStub | None = None
        # With our own referee: a folder for one entrants' socket per manifest entry process,
        # and their servers (each its own quota of streams without Hello and of connections)
        self.socket_dir: Path | None = None
        self.entrant_servers: list[Any] = []

    # -- bots --------------------------------------------------------------------------------

    async def _entry_door(self, address: str, slot: int) -> tuple[Sandbox | None, str]:
        """A manifest entry process's own entrants' socket (our own referee only), and the
        sandbox that binds it, and it only: a Unix socket's clients cannot be told apart,
        so an entry that floods its socket with streams without Hello uses up its own quota,
        never another entry's."""
        from levata.server.match.app import start_entrant_server

        assert self.socket_dir is not None and self.arena is not None
        path = self.socket_dir / f"entry-{slot}.sock"
        server = await start_entrant_server(self.arena, path, connections=ENTRY_CONNECTIONS)
        self.entrant_servers.append(server)
        return self._isolation(address, path)

    async def _launch(self, address: str, entrants: str, sandbox: Sandbox | None) -> None:
        """Register and start every entry: one process (one connection) per entry, or per
        partner of a team entry, since a connection plays one seat of a match. Reference bots
        reach the referee at ``address``; manifest entries at ``entrants``, in ``sandbox``
        (each process in a slot of its own: its own user), or, with our own referee, each at
        a socket of its own (:meth:`_entry_door`)."""
        assert self.admin is not None
        slot = 0
        for e in self.spec.entries:
            for k in range(self.members):
                suffix = f".{k + 1}" if self.members > 1 else ""
                if e.kind == "connected":
                    self.seat_names[(e.name, k)] = e.bot
                    continue
                reg = await self.admin.RegisterBot(
                    admin_pb2.RegisterBotRequest(  # rotate: a resumed run registers again
                        name=f"{self.tid}/{e.slug}{suffix}", rotate=True
                    ),
                    metadata=self.meta,
                    timeout=10,
                )
                self.seat_names[(e.name, k)] = reg.name
                log = self.logs / f"{e.slug}{suffix}.log"
                seed = derive(self.spec.seed, "bot", e.name, *((k,) if k else ()))
                where, box = (entrants if e.kind == "manifest" else address), sandbox
                if e.kind == "manifest" and self.socket_dir is not None:
                    box, where = await self._entry_door(address, slot)
                try:
                    self.procs[(e.name, k)] = launch(
                        e, self.spec.game, where, reg.token, seed, reg.name, log, box, slot,
                        self.log_mb,
                    )  # fmt: skip
                    slot += 1
                except (OSError, BadConfig) as exc:
                    with log.open("a") as f:
                        f.write(f"could not start: {exc}\n")
                    self.progress.note(f"{e.name} could not start ({exc}); it forfeits")
        bounds = sorted({p.memory_note for p in self.procs.values() if p.memory_note})
        if bounds == ["cgroup"]:
            self.progress.note("sandbox memory: a cgroup per entry (its /tmp counts)")
        elif bounds:
            self.progress.note(
                "sandbox memory: no memory cgroup could be made here; each entry's /tmp is"
                " capped at its memory_mb, apart from its processes' limit"
            )
        if self.arena is not None:  # our own referee: wait until every live bot has connected
            end = time.monotonic() + CONNECT_WAIT_S
            while time.monotonic() < end:
                waiting = [
                    key
                    for key, p in self.procs.items()
                    if p.alive() and not self.arena.connections.get(self.seat_names[key])
                ]
                if not waiting:
                    break
                await asyncio.sleep(0.02)

    def _alive(self, name: str) -> bool:
        """Whether every process of entry ``name`` runs (reporting a death once)."""
        if self.spec.entry(name).kind == "connected":
            return True
        alive = True
        for k in range(self.members):
            p = self.procs.get((name, k))
            if p is None:
                alive = False
                continue
            if not p.alive() and not p.reported:
                p.reported = True
                self.progress.note(
                    f"bot {name} exited (status {p.proc.returncode}); it forfeits its matches"
                    f" (log: {p.log})"
                )
            alive = alive and p.alive()
        return alive

    @staticmethod
    def _member_seats(seats: list[str]) -> list[tuple[str, int]]:
        """``["a", "b", "a", "b"]`` -> ``[("a", 0), ("b", 0), ("a", 1), ("b", 1)]``."""
        seen: dict[str, int] = {}
        out = []
        for n in seats:
            out.append((n, seen.get(n, 0)))
            seen[n] = seen.get(n, 0) + 1
        return out

    # -- matches -------------------------------------------------------------------------------

    async def _play(self, row: dict[str, Any]) -> None:
        assert self.admin is not None
        seats = row["seats"]
        members = self._member_seats(seats)
        dead = [n for n in set(seats) if not self._alive(n)]
        over: dict[str, int] = {}
        if dead:
            over["startup_ms"] = DEAD_STARTUP_MS
        asked = [self.spec.entry(n).move_ms for n in seats]
        if any(asked):
            over["move_ms"] = max([self.spec.policy["move_ms"], *(a for a in asked if a)])
        options = {k: str(v) for k, v in row["options"].items()}
        created = await self.admin.CreateMatch(
            admin_pb2.CreateMatchRequest(
                game=self.spec.game,
                players=self.spec.players,
                options=options,
                seed=row["seed"],
                seat_bots=[self.seat_names[m] for m in members],
                policy=_policy_pb(self.spec.policy, **over),
                # What every bot seeds from (MatchStart.label): the scheduled match, not the
                # referee's id, so a replayed or resumed match is played alike by any bot.
                label=schedule_label(self.tid, row["index"]),
            ),
            metadata=self.meta,
            timeout=30,
        )
        match_id = created.match.match_id
        for m in members:
            if m in self.procs:
                self.procs[m].label(match_id, row["index"])
        self.tdb.start(self.tid, row["index"], match_id)
        info = await self._watch(match_id)
        result = match_result(info)
        if result["forfeited"] and not result["detail"]:
            result["detail"] = self._forfeit_detail(match_id, seats, result["forfeited"])
        self.tdb.finish(self.tid, row["index"], match_id, result)
        for s in result["forfeited"]:
            self._alive(seats[s])  # report a bot that died, once
        self.progress.advance(row, result)

    def _forfeit_detail(self, match_id: str, seats: list[str], forfeited: list[int]) -> str:
        """Why seats forfeited: the referee's own words when its record is at hand."""
        if self.arena is not None:
            row = self.arena.store.match(match_id)
            detail = (row or {}).get("result", {}).get("detail", "")
            if detail:
                return f"{detail} ({', '.join(f'{s}: {seats[s]}' for s in forfeited)})"
        return "forfeited: " + ", ".join(f"seat {s} ({seats[s]})" for s in forfeited)

    async def _watch(self, match_id: str) -> admin_pb2.MatchInfo:
        from levata.server.match.run import watch_match

        assert self.admin is not None
        return await watch_match(self.admin, match_id, self.meta, None, WATCH_TIMEOUT_S)

    # -- the whole run -------------------------------------------------------------------------

    def _isolation(self, address: str, socket: Path | None) -> tuple[Sandbox | None, str]:
        """The sandbox of manifest entries (``None``: none) and the address they are given:
        the entrants' socket when there is one (no admin service there), else ``address``."""
        if self.sandbox_mode != "bwrap":
            return None, f"unix:{socket}" if socket else address
        box = Sandbox(socket=socket, share_net=socket is None)
        return box, SERVER if socket else address

    async def run(self, pending: list[dict[str, Any]]) -> None:
        own_server = None
        socket_dir: Path | None = None
        socket = self.entrant_socket
        address = self.server
        if address is None:
            from levata.server.match.app import start_server
            from levata.server.match.store import Store

            own_server, self.arena = await start_server(
                Store(self.db), "127.0.0.1", 0, resume=False
            )
            address = f"127.0.0.1:{self.arena.port}"
            self.meta = admin_metadata(self.arena.admin_token)
            if any(e.kind == "manifest" for e in self.spec.entries):
                # Owner-only folder: only we, and the sandboxes it is bound into, reach it.
                socket_dir = Path(tempfile.mkdtemp(prefix="levata-"))
                if len(str(socket_dir)) > 80:  # a socket's path has at most 107 bytes
                    shutil.rmtree(socket_dir)
                    socket_dir = Path(tempfile.mkdtemp(prefix="levata-", dir="/tmp"))
                self.socket_dir = socket_dir  # one socket per entry process: _entry_door
        sandbox, entrants = self._isolation(address, socket)
        try:
            async with grpc.aio.insecure_channel(
                address, options=[("grpc.use_local_subchannel_pool", 1)]
            ) as channel:
                self.admin = admin_pb2_grpc.AdminServiceStub(channel)
                try:
                    await self._launch(address, entrants, sandbox)
                    sem = asyncio.Semaphore(self.parallel)

                    async def one(row: dict[str, Any]) -> None:
                        async with sem:
                            await self._play(row)

                    tasks = [asyncio.create_task(one(r)) for r in pending]
                    try:
                        await asyncio.gather(*tasks)
                    finally:
                        for t in tasks:
                            t.cancel()
                        await asyncio.gather(*tasks, return_exceptions=True)
                except grpc.aio.AioRpcError as exc:
                    raise RuntimeError(f"referee at {address}: {exc.details()}") from None
        finally:
            for p in self.procs.values():
                await asyncio.to_thread(p.stop)
            if own_server is not None and self.arena is not None:
                await self.arena.close()
                for entrants_server in self.entrant_servers:
                    await entrants_server.stop(None)
                await own_server.stop(None)
            if socket_dir is not None:
                shutil.rmtree(socket_dir, ignore_errors=True)


def _close_stale_records(
    db: Path, tid: str, match_ids: list[str], only_these: bool = False
) -> list[str]:
    """Mark aborted the referee records a killed runner left open in our file: those of its
    abandoned attempts, and (unless ``only_these``: other runners of the tournament are still
    playing) any match it created but had not yet noted (seat names start with the
    tournament's id). One that cannot be read (a column edited into broken JSON or out of
    its shape) is closed too, with the reason, as a restarted referee closes it
    (:func:`~levata.server.match.recovery.close_aborted`); returns a line for each of those."""
    from levata.server.match.recovery import close_aborted, unfinished, unreadable
    from levata.server.match.store import Store

    abandoned = "abandoned by a stopped tournament runner; replayed on resume"
    store = Store(db)
    said = []
    try:
        for row in unfinished(store):
            if row["id"] not in match_ids and (only_these or not _ours(row.get("seat_bots"), tid)):
                continue
            bad = unreadable(row)
            if bad:
                why = f"{abandoned}; its record cannot be read: {bad}"
                close_aborted(store, row, why, None)
                said.append(f"match {row['id']} closed as aborted: {why}")
            else:
                strikes = row["strikes"] or [0] * row["players"]
                store.finish(row["id"], "aborted", {"detail": abandoned}, strikes)
    finally:
        store.close()
    return said


def _ours(bots: Any, tid: str) -> bool:
    """Whether a record's seats are all tournament ``tid``'s bots (their names start with its
    id); a column that cannot be decoded is looked at as text.

    >>> _ours(["t-1/a", "t-1/b"], "t-1"), _ours('["t-1/a", "t-1/b"', "t-1"), _ours(["x"], "t-1")
    (True, True, False)
    """
    if isinstance(bots, list):
        return all(str(b).startswith(f"{tid}/") for b in bots)
    return f'"{tid}/' in str(bots or "")


def _runner_alive(runner: str | None) -> bool:
    """Whether ``HOST:PID:START`` names another process on this host that still runs."""

    parts = (runner or "").rsplit(":", 2)
    if len(parts) != 3:
        return False
    host, pid, start = parts
    if host != socket.gethostname() or not pid.isdigit() or int(pid) == os.getpid():
        return False
    now = process_start(int(pid))
    if not now:
        return False  # gone (or not Linux: then we cannot tell, and do not block)
    if now != start:
        return False  # the pid now names another process
    with contextlib.suppress(OSError):  # a zombie is not running anything
        stat = Path(f"/proc/{pid}/stat").read_text()
        return stat.rsplit(")", 1)[1].split()[0] != "Z"
    return False


def _isolation_notes(
    spec: TournamentSpec, mode: str, server: str | None, socket: Path | None
) -> list[str]:
    """Warnings about how far the manifest entries are isolated."""
    if not any(e.kind == "manifest" for e in spec.entries):
        return []
    if mode == "none":
        return [
            "warning: --sandbox none: submitted bots are not isolated (they run as this user,"
            " with its files, processes and network in reach)"
        ]
    if server is not None and socket is None:
        return [
            f"warning: the referee is {server}, so submitted bots share this machine's network"
            " to reach it (all else stays isolated); to cut them off, run it with"
            " --entrant-socket PATH and pass the same --entrant-socket here"
        ]
    return []


def _exposed(spec: TournamentSpec, db: Path, logs: Path) -> list[str]:
    """Warnings for manifest working directories (bound into their sandboxes) that hold the
    database, the logs or another entry's working directory."""
    dirs = {e.name: Path(e.manifest["workdir"]) for e in spec.entries if e.kind == "manifest"}
    private = {"the database": db.resolve().parent, "the logs": logs.resolve()}
    notes = []
    for name, d in dirs.items():
        held = [what for what, p in private.items() if p.is_relative_to(d)]
        held += [f"{o}'s folder" for o, p in dirs.items() if o != name and p.is_relative_to(d)]
        if held:
            notes.append(
                f"warning: {name}'s working directory {d} holds {', '.join(held)}: it sees"
                " that (read-only) in its sandbox; give each bot a folder of its own"
            )
    return notes


def _owner_only(db: Path, logs: Path) -> None:
    """Entries run as other users: keep the database and the logs theirs to not read."""
    logs.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(logs, 0o700)
    for f in (db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")):
        with contextlib.suppress(FileNotFoundError):
            os.chmod(f, stat.S_IMODE(f.stat().st_mode) & 0o700)


async def run_tournament(
    tid: str,
    db: Path,
    tdb: TourneyStore,
    parallel: int = 1,
    hosting: Hosting = Hosting(),
    progress: Reporter | None = None,
    executor: Executor | None = None,
) -> None:
    """Play every unfinished match of tournament ``tid``, ``parallel`` at a time, as
    ``hosting`` says; raises ``RuntimeError`` (one line) when it cannot go on. Safe to kill at
    any moment: run it again to resume."""
    server, sandbox = hosting.server, hosting.sandbox
    t = tdb.tournament(tid)
    if t is None:
        raise RuntimeError(f"no tournament {tid!r} in {db}")
    if t["status"] != "finished" and _runner_alive(t["runner"]):
        raise RuntimeError(f"tournament {tid} is being run by process {t['runner']}")
    spec = TournamentSpec.from_dict(t["spec"])
    socket = hosting.entrant_socket if server is not None else None
    if socket is not None and not (socket.exists() and stat.S_ISSOCK(socket.stat().st_mode)):
        raise RuntimeError(f"no entrants' socket at {socket}")
    manifests = any(e.kind == "manifest" for e in spec.entries)
    try:
        mode = check_mode(sandbox, manifests, Sandbox(share_net=server is not None and not socket))
    except BadConfig as exc:
        raise RuntimeError(str(exc)) from None
    tdb.claim(tid)
    abandoned = tdb.abandon_unfinished(tid)
    closed = []
    if server is None and t["status"] != "finished":
        closed = _close_stale_records(db, tid, abandoned)
    rows = tdb.rows(tid)
    pending = [r for r in rows if r["status"] != "finished"]
    progress = progress or Progress()
    progress.start(len(rows), len(rows) - len(pending))
    for line in closed:
        progress.note(line)
    if abandoned:
        progress.note(f"resuming: {len(abandoned)} unfinished match(es) will be replayed")
    executor = executor or play_here
    if pending:
        logs = hosting.logs or db.resolve().parent / "levata-logs" / tid
        notes = _isolation_notes(spec, mode, server, socket)
        if mode == "bwrap":
            notes += _exposed(spec, db, logs)
            if Sandbox().users is not None:
                _owner_only(db, logs)
        for line in notes:
            progress.note(line)
        used = replace(hosting, logs=logs, sandbox=mode, entrant_socket=socket)
        await executor(tid, spec, db, tdb, parallel, used, progress, pending)
    tdb.set_finished(tid)


async def play_here(  # noqa: PLR0913  (an Executor: the run's parts)
    tid: str,
    spec: TournamentSpec,
    db: Path,
    tdb: TourneyStore,
    parallel: int,
    hosting: Hosting,
    progress: Reporter,
    pending: list[dict[str, Any]],
) -> None:
    """The local :data:`Executor`: ``pending`` played by one referee of this process (or
    ``hosting.server``), ``parallel`` at a time."""
    await _Runner(tid, spec, db, tdb, parallel, hosting, progress).run(pending)


#: What plays a tournament's pending matches once the run is set up: :func:`play_here`, or
#: :func:`levata.server.tournament.on_ray.executor`'s, across a Ray cluster.
Executor = Callable[
    [str, TournamentSpec, Path, TourneyStore, int, Hosting, Reporter, list[dict[str, Any]]],
    Awaitable[None],
]
