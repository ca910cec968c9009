"""``levata admin``: operate a running referee over its AdminService.

    levata admin health                      does it answer; matches, bots, streams now
    levata admin list --status running       matches, newest first
    levata admin get MATCH_ID                one match: status, seats, scores, forfeits
    levata admin watch MATCH_ID              its public events as they come
    levata admin create --game whist --bots alice,r1,r2,r3   prints the new match's id
    levata admin register alice              a bot's token, shown once
    levata admin rotate alice                a new token; the old one is refused

Every subcommand takes ``--server HOST:PORT``, ``--tls-ca FILE``, ``--admin-token-file
FILE`` (or ``$LEVATA_ADMIN_TOKEN``) and ``--json`` (one JSON document; ``watch``: one JSON
line per event). The JSON of a match:

>>> from levata.v1 import admin_pb2
>>> info = admin_pb2.MatchInfo(match_id="m1", game="whist", players=2,
...                            seat_bots=["a", "b"], status=admin_pb2.MATCH_STATUS_WAITING)
>>> doc = match_json(info)
>>> doc["status"], [s["bot"] for s in doc["seats"]], doc["result"]
('waiting', ['a', 'b'], None)
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from pathlib import Path
from typing import Annotated, Any

import grpc
import typer
from grpc_health.v1 import health_pb2, health_pb2_grpc
from rich.table import Table

from levata.server.cli.common import EXIT_RUNTIME, fail, out, parse_pairs, seed_option
from levata.server.cli.help import HelpGroup
from levata.server.cli.remote import (
    SERVER_OPTION,
    TLS_CA_OPTION,
    TOKEN_FILE_HELP,
    connect,
)
from levata.server.match.auth import check_bot_name
from levata.v1 import admin_pb2, admin_pb2_grpc, arena_pb2

__all__ = ["admin_app", "match_json"]

admin_app = typer.Typer(
    cls=HelpGroup,
    help="Operate a running referee: its health, its matches, its bots' tokens. The admin"
    " token comes from $LEVATA_ADMIN_TOKEN or --admin-token-file, never the command line.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

STATUSES = {
    "waiting": admin_pb2.MATCH_STATUS_WAITING,
    "running": admin_pb2.MATCH_STATUS_RUNNING,
    "finished": admin_pb2.MATCH_STATUS_FINISHED,
    "aborted": admin_pb2.MATCH_STATUS_ABORTED,
}
_STATUS_NAMES = {v: k for k, v in STATUSES.items()}
DEFAULT_SERVER = "127.0.0.1:50051"  # levata serve's own default

Server = Annotated[str, SERVER_OPTION]
TlsCa = Annotated[Path | None, TLS_CA_OPTION]
TokenFile = Annotated[Path | None, typer.Option("--admin-token-file", help=TOKEN_FILE_HELP)]
Json = Annotated[bool, typer.Option("--json", help="Print one JSON document instead.")]
MatchId = Annotated[str, typer.Argument(metavar="MATCH_ID", help="The match's id.")]


def _say_json(doc: Any) -> None:
    sys.stdout.write(json.dumps(doc, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def match_json(info: admin_pb2.MatchInfo) -> dict[str, Any]:
    """A match's summary as plain JSON: its seats with their bots, strikes and (once over)
    scores and ranks; the seed once over (0 before: the deal follows from it)."""
    res = info.result if info.HasField("result") else None
    seats = []
    for s in range(info.players):
        seat: dict[str, Any] = {
            "seat": s,
            "bot": info.seat_bots[s] if s < len(info.seat_bots) else "",
            "strikes": info.strikes[s] if s < len(info.strikes) else 0,
        }
        if res is not None and s < len(res.scores):
            seat.update(
                score=res.scores[s],
                rank=res.ranks[s] if s < len(res.ranks) else 0,
                winner=s in res.winners,
                forfeited=s in res.forfeited,
            )
        seats.append(seat)
    return {
        "match_id": info.match_id,
        "game": info.game,
        "players": info.players,
        "status": _STATUS_NAMES.get(info.status, "unknown"),
        "status_detail": info.status_detail,
        "options": dict(sorted(info.options.items())),
        "seed": info.seed,
        "created_at": info.created_at.ToJsonString() if info.HasField("created_at") else None,
        "seats": seats,
        "result": None
        if res is None
        else {"reason": res.reason, "winners": list(res.winners), "forfeited": list(res.forfeited)},
        "policy": {f.name: v for f, v in info.policy.ListFields()},
    }


def _when(info: admin_pb2.MatchInfo) -> str:
    if not info.HasField("created_at"):
        return ""
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(info.created_at.seconds))


def _outcome(info: admin_pb2.MatchInfo) -> str:
    """A match's end in a few words: the winners' seats, or why it stopped."""
    doc = match_json(info)
    if doc["result"] is None:
        return info.status_detail
    won = ", ".join(f"{s['seat']} {s['bot']}" for s in doc["seats"] if s.get("winner"))
    reason = doc["result"]["reason"]
    text = f"won by {won}" if won else reason
    if reason != "complete" and won:
        text += f" ({reason}: {info.status_detail})" if info.status_detail else f" ({reason})"
    return text


@admin_app.command()
def health(
    server: Server = DEFAULT_SERVER,
    tls_ca: TlsCa = None,
    admin_token_file: TokenFile = None,
    as_json: Json = False,
) -> None:
    """Whether the referee answers and can record, and what it holds now.

    Matches waiting, running and suspended, bots connected, streams. Exit status 0 when it
    serves, 1 when it does not (no answer, or its records cannot be written). Without an
    admin token only the first part (gRPC's standard health check) is asked.

    \b
    levata admin health --server localhost:50051
    levata admin health --json"""
    with connect(server, tls_ca, admin_token_file, token_needed=False) as ref:
        checked = ref.call(
            health_pb2_grpc.HealthStub(ref.channel).Check, health_pb2.HealthCheckRequest()
        )
        serving = checked.status == health_pb2.HealthCheckResponse.SERVING
        doc: dict[str, Any] = {"server": server, "serving": serving}
        if ref.metadata:
            try:
                got = admin_pb2_grpc.AdminServiceStub(ref.channel).GetHealth(
                    admin_pb2.GetHealthRequest(), metadata=ref.metadata, timeout=10
                )
            except grpc.RpcError as exc:
                if exc.code() != grpc.StatusCode.UNIMPLEMENTED:  # an older referee
                    raise ref.failed(exc) from None
            else:
                for f in got.DESCRIPTOR.fields:  # every count, a zero too
                    doc[f.name] = getattr(got, f.name)
                doc["started_at"] = got.started_at.ToJsonString()
                doc["uptime_s"] = round(time.time() - got.started_at.ToSeconds())
    if as_json:
        _say_json(doc)
    else:
        _print_health(doc)
    if not serving:
        raise typer.Exit(EXIT_RUNTIME)


def _print_health(doc: dict[str, Any]) -> None:
    state = "serving" if doc["serving"] else "NOT serving"
    if doc.get("records_problem"):
        state += f" (records cannot be written: {doc['records_problem']})"
    out.print(f"referee at {doc['server']}: {state}", markup=False, soft_wrap=True)
    if "uptime_s" not in doc:
        return
    up = doc["uptime_s"]
    out.print(
        f"up {up // 3600}h{up % 3600 // 60:02d}m{up % 60:02d}s,"
        f" protocol {doc.get('protocol_version', '?')}",
        markup=False,
    )
    get = doc.get
    out.print(
        f"matches: {get('matches_waiting', 0)} waiting, {get('matches_running', 0)} running,"
        f" {get('matches_suspended', 0)} suspended",
        markup=False,
    )
    out.print(
        f"bots: {get('bots_connected', 0)} connected of {get('bots_registered', 0)} registered;"
        f" {get('streams', 0)} streams, {get('watchers', 0)} watchers",
        markup=False,
    )


@admin_app.command("list")
def list_matches(
    status: Annotated[
        str | None,
        typer.Option(metavar="STATUS", help="Only matches waiting, running, finished or aborted."),
    ] = None,
    game: Annotated[str | None, typer.Option("--game", "-g", help="Only this game's.")] = None,
    limit: Annotated[int, typer.Option(help="At most this many.", min=1, max=100_000)] = 20,
    server: Server = DEFAULT_SERVER,
    tls_ca: TlsCa = None,
    admin_token_file: TokenFile = None,
    as_json: Json = False,
) -> None:
    """The referee's matches, newest first.

    \b
    levata admin list --status running
    levata admin list --game whist --limit 100 --json"""
    if status is not None and status not in STATUSES:
        raise fail(f"--status {status!r}: one of {', '.join(STATUSES)}")
    found: list[admin_pb2.MatchInfo] = []
    with connect(server, tls_ca, admin_token_file) as ref:
        stub = admin_pb2_grpc.AdminServiceStub(ref.channel)
        page = ""
        while len(found) < limit:
            got = ref.call(
                stub.ListMatches,
                admin_pb2.ListMatchesRequest(
                    status=STATUSES.get(status or "", admin_pb2.MATCH_STATUS_UNSPECIFIED),
                    limit=1000 if game else min(limit, 1000),  # a page holds at most 1000
                    page_token=page,
                ),
            )
            found += [m for m in got.matches if game is None or m.game == game]
            page = got.next_page_token
            if not page:
                break
    found = found[:limit]
    if as_json:
        _say_json({"server": server, "matches": [match_json(m) for m in found]})
        return
    if not found:
        out.print("no matches", markup=False)
        return
    table = Table(box=None, pad_edge=False)
    for col in ("match", "game", "status", "created", "bots", "outcome"):
        table.add_column(col, overflow="fold")
    for m in found:
        table.add_row(
            m.match_id,
            m.game,
            _STATUS_NAMES.get(m.status, "?"),
            _when(m),
            ", ".join(m.seat_bots),
            _outcome(m),
        )
    out.print(table)


@admin_app.command()
def get(
    match_id: MatchId,
    server: Server = DEFAULT_SERVER,
    tls_ca: TlsCa = None,
    admin_token_file: TokenFile = None,
    as_json: Json = False,
) -> None:
    """One match: its status, seats, scores, and why it or a seat stopped.

    Each seat's bot and strikes, and once over its score and rank; the seed once over;
    why a seat forfeited or the match was aborted or suspended.

    \b
    levata admin get 3f2a9c0d1e2b4a5c --json"""
    with connect(server, tls_ca, admin_token_file) as ref:
        stub = admin_pb2_grpc.AdminServiceStub(ref.channel)
        info = ref.call(stub.GetMatch, admin_pb2.GetMatchRequest(match_id=match_id)).match
    if as_json:
        _say_json(match_json(info))
        return
    _print_match(info)


def _print_match(info: admin_pb2.MatchInfo) -> None:
    doc = match_json(info)
    line = f"match {info.match_id}: {info.game}, {info.players} players, {doc['status']}"
    if doc["seed"]:
        line += f", seed {doc['seed']}"
    out.print(line, markup=False, soft_wrap=True)
    if doc["options"]:
        shown = " ".join(f"{k}={v}" for k, v in doc["options"].items())
        out.print(f"options: {shown}", markup=False, soft_wrap=True)
    if info.status_detail:
        out.print(f"detail: {info.status_detail}", markup=False, soft_wrap=True)
    table = Table(box=None, pad_edge=False)
    for col in ("seat", "bot", "strikes", "score", "rank", ""):
        table.add_column(col, overflow="fold")
    for s in doc["seats"]:
        mark = "forfeit" if s.get("forfeited") else "winner" if s.get("winner") else ""
        score = f"{s['score']:g}" if "score" in s else ""
        rank = str(s["rank"]) if "rank" in s else ""
        table.add_row(str(s["seat"]), s["bot"], str(s["strikes"]), score, rank, mark)
    out.print(table)
    if doc["result"] is not None:
        out.print(f"result: {doc['result']['reason']}", markup=False)


@admin_app.command()
def watch(
    match_id: MatchId,
    after: Annotated[
        int | None,
        typer.Option(help="Only the events after this sequence number (default: all).", min=1),
    ] = None,
    server: Server = DEFAULT_SERVER,
    tls_ca: TlsCa = None,
    admin_token_file: TokenFile = None,
    as_json: Json = False,
) -> None:
    """A live (or recently finished) match's public events as they come.

    Each event a line, then the match's final summary; the seats' private events (their
    hands) once it is over. With --json: one JSON line per event, then one with the match's
    summary.

    \b
    levata admin watch 3f2a9c0d1e2b4a5c
    levata admin watch 3f2a9c0d1e2b4a5c --json | jq -c 'select(.kind == "trick")'"""
    from levata.engine import BadConfig, game
    from levata.server.match.narrate import narrate
    from levata.wire.codec import event_from_pb

    with connect(server, tls_ca, admin_token_file) as ref:
        stub = admin_pb2_grpc.AdminServiceStub(ref.channel)
        info = ref.call(stub.GetMatch, admin_pb2.GetMatchRequest(match_id=match_id)).match
        try:
            spec: Any = game(info.game)
        except BadConfig:  # a game this levata does not know: plain lines
            spec = None
        stream = stub.WatchMatch(
            admin_pb2.WatchMatchRequest(match_id=match_id, after_seq=after or -1),
            metadata=ref.metadata,
        )
        final = None
        try:
            for msg in stream:
                if msg.WhichOneof("message") == "finished":
                    final = msg.finished
                    break
                ev = event_from_pb(msg.event)
                if as_json:
                    _say_json(_event_json(ev, spec))
                else:
                    out.print(f"{ev.seq:>4}  {narrate(ev, spec)}", markup=False, soft_wrap=True)
        except grpc.RpcError as exc:
            raise ref.failed(exc) from None
    if final is None:
        raise fail(f"the referee stopped reporting match {match_id}", EXIT_RUNTIME)
    if as_json:
        _say_json({"finished": match_json(final)})
    else:
        _print_match(final)


def _event_json(ev: Any, spec: Any) -> dict[str, Any]:
    from levata.server.match.narrate import narrate

    return {
        "seq": ev.seq,
        "kind": ev.kind,
        "seat": ev.seat,
        "audience": None if ev.audience is None else sorted(ev.audience),
        "cards": [str(c) for c in ev.cards],
        "data": dict(ev.data),
        "text": narrate(ev, spec),
    }


@admin_app.command()
def create(
    game: Annotated[str, typer.Option("--game", "-g", help="The game's name.")],
    bots: Annotated[
        str,
        typer.Option(
            help="The registered bot name of each seat, comma-separated, in seat order (one"
            " name fills every seat of --players)."
        ),
    ],
    players: Annotated[
        int | None, typer.Option("--players", "-n", help="Seats (default: one per bot).", min=1)
    ] = None,
    option: Annotated[
        list[str] | None,
        typer.Option("--option", "-o", help="Game option NAME=VALUE (repeatable)."),
    ] = None,
    seed: Annotated[int, seed_option("Seed of the match: the same seed replays it.")] = 0,
    label: Annotated[
        str | None, typer.Option(help="A name for the match, told to its bots (at most 64).")
    ] = None,
    move_ms: Annotated[
        int | None, typer.Option(help="Time per decision, ms (default: the referee's).", min=1)
    ] = None,
    bank_ms: Annotated[
        int | None, typer.Option(help="Time bank per seat, ms (default: the referee's).", min=0)
    ] = None,
    startup_ms: Annotated[
        int | None,
        typer.Option(
            help="How long the seats have to connect, ms (default: the referee's).", min=1
        ),
    ] = None,
    max_strikes: Annotated[
        int | None, typer.Option(help="Strikes that forfeit (default: the referee's).", min=1)
    ] = None,
    resume_window_ms: Annotated[
        int | None,
        typer.Option(
            help="How long a dropped seat may resume, ms (default: the referee's).", min=0
        ),
    ] = None,
    server: Server = DEFAULT_SERVER,
    tls_ca: TlsCa = None,
    admin_token_file: TokenFile = None,
    as_json: Json = False,
) -> None:
    """Create a match between registered bots and print its id.

    It starts when every seat's bot has connected. The clock and fault limits not given
    are the referee's.

    \b
    levata admin create --game whist --bots alice,r1,r2,r3 --seed 7
    levata admin create -g macao --bots alice,bob -o action_cap=300 --move-ms 500"""
    names = [b.strip() for b in bots.split(",") if b.strip()]
    if not names:
        raise fail("--bots names no bot")
    for name in names:
        try:
            check_bot_name(name)
        except ValueError as exc:
            raise fail(f"--bots: {exc}") from None
    if players is None:
        players = len(names)
    if len(names) == 1:
        names *= players
    if len(names) != players:
        raise fail(f"{players} players need {players} bots, --bots names {len(names)}")
    label = label or ""
    if len(label) > 64:
        raise fail(f"--label is at most 64 characters, not {len(label)}")
    limits = {
        "move_ms": move_ms,
        "bank_ms": bank_ms,
        "startup_ms": startup_ms,
        "max_strikes": max_strikes,
        "resume_window_ms": resume_window_ms,
    }
    policy = arena_pb2.MatchPolicy(**{k: v for k, v in limits.items() if v is not None})
    request = admin_pb2.CreateMatchRequest(
        game=game,
        players=players,
        options=parse_pairs(option or [], "option"),
        seed=seed,
        seat_bots=names,
        policy=policy,
        label=label,
    )
    with connect(server, tls_ca, admin_token_file) as ref:
        stub = admin_pb2_grpc.AdminServiceStub(ref.channel)
        info = ref.call(stub.CreateMatch, request).match
    if as_json:
        _say_json(match_json(info))
    else:
        sys.stdout.write(info.match_id + "\n")  # alone: MATCH=$(levata admin create ...)


def _token_command(
    name: str,
    rotate: bool,
    token_file: Path | None,
    server: str,
    tls_ca: Path | None,
    admin_token_file: Path | None,
    as_json: bool,
) -> None:
    """``register`` and ``rotate``: ask for the token, then show it once or write it."""
    try:
        check_bot_name(name)
    except ValueError as exc:
        raise fail(str(exc)) from None
    if token_file is not None:
        _check_token_file(token_file, replace=rotate)
    with connect(server, tls_ca, admin_token_file) as ref:
        stub = admin_pb2_grpc.AdminServiceStub(ref.channel)
        request = admin_pb2.RegisterBotRequest(name=name, rotate=rotate, registered_only=rotate)
        got = ref.call(stub.RegisterBot, request)
    verb = "has a new token" if rotate else "registered"
    if token_file is None:
        if as_json:
            _say_json({"name": got.name, "token": got.token})
            return
        sys.stdout.write(got.token + "\n")  # alone: TOKEN=$(levata admin register NAME)
        sys.stdout.flush()
        print(f"bot {got.name} {verb}: its token is shown once, keep it secret", file=sys.stderr)
        return
    try:
        _write_token(token_file, got.token)
    except OSError as exc:
        why = exc.strerror or str(exc)
        raise fail(
            f"bot {got.name} {verb}, but its token could not be written to {token_file} ({why}):"
            f" levata admin rotate {got.name} --token-file ANOTHER_FILE",
            EXIT_RUNTIME,
        ) from None
    if as_json:
        _say_json({"name": got.name, "token_file": str(token_file)})
    else:
        said = f"bot {got.name} {verb}: token written to {token_file} (owner-only)"
        out.print(said, markup=False, soft_wrap=True)


def _check_token_file(path: Path, replace: bool) -> None:
    """Fail in one line (status 2) before a token is issued that could not be kept."""
    if path.is_dir():
        raise fail(f"--token-file {path}: it is a folder")
    if path.exists() and not replace:
        raise fail(f"--token-file {path} exists: a new bot's token goes to a new file")
    if not path.parent.is_dir():
        raise fail(f"--token-file {path}: no folder {path.parent}")
    if not os.access(path.parent, os.W_OK):
        raise fail(f"--token-file {path}: cannot write in {path.parent}")


def _write_token(path: Path, token: str) -> None:
    """Write ``token`` to ``path``, owner-only from its first byte, replacing a file there
    whole (a bot reading it never sees half a token)."""
    part = path.with_name(f".{path.name}.{os.getpid()}.new")
    fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(token + "\n")
        os.replace(part, path)
    except BaseException:
        with contextlib.suppress(OSError):
            part.unlink()
        raise


BotName = Annotated[str, typer.Argument(metavar="NAME", help="The bot's name.")]
TokenOut = Annotated[
    Path | None,
    typer.Option(
        "--token-file",
        help="Write the token to this file, owner-only, instead of printing it.",
    ),
]


@admin_app.command()
def register(
    name: BotName,
    token_file: TokenOut = None,
    server: Server = DEFAULT_SERVER,
    tls_ca: TlsCa = None,
    admin_token_file: TokenFile = None,
    as_json: Json = False,
) -> None:
    """Register a bot and print its token, once.

    The token is printed alone on standard output, or written to a new owner-only
    --token-file. A name already registered is refused: rotate it instead.

    \b
    levata admin register alice --token-file alice.token
    LEVATA_TOKEN=$(levata admin register bob) levata bot run heuristic --game whist"""
    _token_command(name, False, token_file, server, tls_ca, admin_token_file, as_json)


@admin_app.command()
def rotate(
    name: BotName,
    token_file: TokenOut = None,
    server: Server = DEFAULT_SERVER,
    tls_ca: TlsCa = None,
    admin_token_file: TokenFile = None,
    as_json: Json = False,
) -> None:
    """Give a bot a new token; its old one is refused from then on.

    The old token is refused at the next Hello; streams open now play on. A name not
    registered is refused (a mistyped name must not leave a leaked token live): register
    it instead. --token-file is replaced whole, owner-only.

    \b
    levata admin rotate alice --token-file alice.token"""
    _token_command(name, True, token_file, server, tls_ca, admin_token_file, as_json)
