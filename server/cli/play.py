"""``levata play`` (one match in this process, narrated) and ``levata match`` (one match
refereed over gRPC, each bot in its own process)."""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
import traceback
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from levata.bots import BotFailed, make_bot, play_match
from levata.bots.base import parse_bot
from levata.engine import BadConfig, GameSpec, GameState, Result, game
from levata.engine.options import parse_options
from levata.engine.seeds import derive
from levata.server.cli.common import (
    ADMIN_TOKEN_FILE_OPTION,
    ADOPT_DB_OPTION,
    EXIT_RUNTIME,
    EXIT_USAGE,
    admin_token_of,
    adopt_db,
    db_location,
    fail,
    out,
    seed_option,
)
from levata.server.cli.remote import check_ca
from levata.server.database import DatabaseError
from levata.server.match.narrate import narrate
from levata.server.match.store import DEFAULT_DB
from levata.server.tournament.entries import Entry, launch, parse_entries

if TYPE_CHECKING:
    from levata.server.match.run import Seat


BOTS_HELP = (
    "Bot per seat, comma-separated; one entry fills every seat. An entry is a reference bot"
    " with options KIND[:key=value...] (random, heuristic, pimc:worlds=40:time_ms=150;"
    " levata bots lists the kinds), a manifest FILE.toml (your program; see docs/bots.md),"
    " @NAME (levata match --server: a bot connected to that referee),"
    " module:Class[:key=value...] (your Python class implementing Bot, made as Class(game,"
    " seed, **options)) or module:function (a function act(view, legal); see"
    " docs/python-bots.md). Option types come from the bot's constructor."
)


def seat_entries(
    game_name: str, players: int | None, bots: str, server: str | None, try_make: bool = True
) -> tuple[GameSpec, int, list[Entry]]:
    """The game, the player count and one entry per seat; :class:`BadConfig` on bad input."""
    spec = game(game_name)
    items = [b.strip() for b in bots.split(",") if b.strip()]
    if players is None:  # one bot per seat, or the fewest players when one name fills all
        players = len(items) if len(items) > 1 else spec.players[0]
    if players not in spec.players:
        spec.new_match(players=players)  # BadConfig, in the engine's words
    if len(items) == 1:
        items = items * players
    if len(items) != players:
        raise BadConfig(f"{players} players need {players} bots, --bots names {len(items)}")
    return spec, players, parse_entries(",".join(items), spec.name, server, try_make)


def build_match(
    game_name: str, players: int | None, bots: str, seed: int, options: list[str]
) -> tuple[GameState, list]:
    """The match and its in-process bots from command-line values; :class:`BadConfig` on bad
    input, or on an entry that plays only over the referee (a manifest, ``@NAME``)."""
    spec, players, entries = seat_entries(game_name, players, bots, None, try_make=False)
    state = spec.new_match(players=players, options=parse_options(options), seed=seed)
    return state, seat_bots(state, entries, seed)


def seat_bots(state: GameState, entries: list[Entry], seed: int) -> list:
    """The in-process bot of each seat; :class:`BadConfig` when one cannot be made."""
    seated = []
    game_name = state.spec.name
    for s, e in enumerate(entries):
        if e.kind != "bot":
            raise BadConfig(f"{e.name} plays over the referee: use levata match")
        kind, opts = parse_bot(e.bot, game_name)
        try:
            seated.append(make_bot(kind, game_name, derive(seed, "bot", s), **opts))
        except BadConfig:
            raise
        except Exception as exc:  # an author's class may refuse in any way: one line
            raise BadConfig(f"bot {e.bot} cannot play {game_name}: {exc}") from None
    return seated


def play(
    game_name: Annotated[str, typer.Option("--game", "-g", help="Game name (see `levata games`).")],
    players: Annotated[
        int | None,
        typer.Option("--players", "-n", help="Number of players (default: one per bot)."),
    ] = None,
    bots: Annotated[str, typer.Option(help=BOTS_HELP)] = "random",
    seed: Annotated[int, seed_option("Seed of the match: the same seed replays it.")] = 0,
    option: Annotated[
        list[str] | None,
        typer.Option("--option", "-o", help="Game option NAME=VALUE (repeatable)."),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Only the final standings.")] = False,
    debug: Annotated[
        bool,
        typer.Option("--debug", help="A bot that raises: print its whole traceback too."),
    ] = False,
    seat: Annotated[
        int | None,
        typer.Option(
            "--seat",
            help="Print the log as this seat sees it (its own cards, its exchanges; not the"
            " others' private events).",
        ),
    ] = None,
    position: Annotated[
        str | None,
        typer.Option(
            "--position",
            help="Start from this position instead of a new match: its text (`levata describe"
            " GAME` shows one), or @FILE to read it from a file. The players and options are"
            " the position's; --seed draws the shuffles still to come. In-process bots only.",
        ),
    ] = None,
) -> None:
    """Play one match in-process and print its log and the final standings.

    A manifest entry makes it a refereed match (as `levata match`), since its program plays
    over the protocol.

    \b
    levata play --game whist --bots heuristic,random,random,random --seed 7
    levata play --game whist --bots pimc:worlds=20:time_ms=100,heuristic,random
    levata play --game macao --bots mybot:MyBot:depth=3,heuristic
    levata play --game whist --bots bots/mine.toml,heuristic,random
    levata play --game banking -n 4 --bots heuristic --seat 2
    levata play --game tarneeb --bots heuristic --position @midgame.txt"""
    if any(b.strip().startswith("@") for b in bots.split(",")):
        raise fail("@NAME is a bot connected to a referee: play it with levata match --server")
    try:
        if position is not None:
            state = _from_position(game_name, position, players, option, seed)
            players = state.players
        spec, n, entries = seat_entries(game_name, players, bots, None, try_make=False)
        if position is None:
            state = spec.new_match(players=n, options=parse_options(option or []), seed=seed)
        refereed = any(e.kind == "manifest" for e in entries)
        if refereed and position is not None:
            raise BadConfig("--position plays in-process bots only (a manifest plays refereed)")
        seated = [] if refereed else seat_bots(state, entries, seed)
    except BadConfig as exc:
        raise fail(str(exc)) from None
    if seat is not None and not 0 <= seat < state.players:
        raise fail(f"--seat {seat}: the match has seats 0 to {state.players - 1}")
    if not seated:
        out.print("a manifest bot plays over the protocol: refereed match", markup=False)
        _refereed(state, entries, seed, option or [], None, None, Path(DEFAULT_DB), 2000, quiet)
        return
    out.print(
        f"{state.spec.title}: {state.players} players, seed {seed}, "
        f"bots {', '.join(b.name for b in seated)}"
    )
    cursor = 0

    def show(_seat: int, _action: object) -> None:
        nonlocal cursor
        for ev in state.events(since=cursor, seat=seat):
            out.print(narrate(ev, state.spec), markup=False, soft_wrap=True)
        cursor = len(state.events())

    try:
        result = play_match(state, seated, on_action=None if quiet else show)
    except BotFailed as exc:  # the author's code: one line, or all of it with --debug
        if debug:
            traceback.print_exception(exc.__cause__ or exc, file=sys.stderr)
        raise fail(str(exc), EXIT_RUNTIME) from None
    _print_standings(result, [b.name for b in seated])


def _print_standings(result: Result, names: list[str]) -> None:
    """The final standings, best first, and why the match stopped if it stopped early."""
    table = Table(title="final standings")
    for col in ("rank", "seat", "bot", "score", ""):
        table.add_column(col)
    order = sorted(range(len(names)), key=lambda s: (result.ranks[s], s))
    for s in order:
        mark = "winner" if s in result.winners else ""
        table.add_row(str(result.ranks[s]), str(s), names[s], f"{result.scores[s]:g}", mark)
    out.print(table)
    if result.reason != "complete":
        out.print(f"match stopped early: {result.reason}")


def _from_position(
    game_name: str, text: str, players: int | None, option: list[str] | None, seed: int
) -> GameState:
    """The match a ``--position`` value describes; :class:`BadConfig` on bad input."""
    if option:
        raise BadConfig("--option with --position: the options are the position's own")
    if text.startswith("@"):
        path = Path(text[1:])
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise BadConfig(f"--position {path}: cannot read it ({exc})") from None
    state = game(game_name).from_position(text, seed=seed)
    if players is not None and players != state.players:
        raise BadConfig(f"--players {players}: the position has {state.players} players")
    return state


def match(
    game_name: Annotated[str, typer.Option("--game", "-g", help="Game name.")],
    bots: Annotated[str, typer.Option(help=BOTS_HELP)] = "random",
    players: Annotated[int | None, typer.Option("--players", "-n", help="Players.")] = None,
    seed: Annotated[int, seed_option("Seed of the match: the same seed replays it.")] = 0,
    option: Annotated[list[str] | None, typer.Option("--option", "-o", help="NAME=VALUE.")] = None,
    server: Annotated[
        str | None, typer.Option(help="Use a running referee HOST:PORT instead of starting one.")
    ] = None,
    admin_token_file: Annotated[Path | None, ADMIN_TOKEN_FILE_OPTION] = None,
    tls_ca: Annotated[
        Path | None,
        typer.Option(
            "--tls-ca",
            help="With --server: it speaks TLS; trust this CA certificate (PEM), and so do"
            " the bots started here ($LEVATA_TLS_CA).",
        ),
    ] = None,
    db: Annotated[
        Path | None,
        typer.Option(
            "--db",
            parser=db_location,
            metavar="FILE|URL",
            help="The records (without --server): an SQLite file or a PostgreSQL URL.",
        ),
    ] = None,
    adopt: Annotated[bool, ADOPT_DB_OPTION] = False,
    move_ms: Annotated[int, typer.Option(help="Time per decision, ms.", min=1)] = 2000,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Only the result.")] = False,
) -> None:
    """Referee one match over gRPC, each bot in its own process, and print the result.

    A manifest runs as a plain process of yours here, under its CPU and memory limits (a
    tournament also sandboxes it); @NAME seats a bot already connected to --server.

    \b
    levata match --game whist --bots heuristic,random,random,random
    levata match --game whist --bots bots/mine.toml,pimc:worlds=20,random
    levata match --game macao --bots @alice,heuristic --server localhost:50051"""
    if server is not None and db is not None:
        raise fail("--db is the local referee's file: with --server, that referee keeps records")
    if tls_ca is not None:
        if server is None:
            raise fail("--tls-ca is for --server: the referee started here speaks plaintext")
        check_ca(tls_ca)
    try:
        spec, n, entries = seat_entries(game_name, players, bots, server)
        state = spec.new_match(players=n, options=parse_options(option or []), seed=seed)
    except BadConfig as exc:
        raise fail(str(exc)) from None
    token = admin_token_of(server, admin_token_file)
    db = db or Path(DEFAULT_DB)
    adopt_db(db, adopt)
    _refereed(state, entries, seed, option or [], server, token, db, move_ms, quiet, tls_ca)


def _refereed(
    state: GameState,
    entries: list[Entry],
    seed: int,
    option: list[str],
    server: str | None,
    admin_token: str | None,
    db: Path,
    move_ms: int,
    quiet: bool,
    tls_ca: Path | None = None,
) -> None:
    """Referee the match over gRPC, each entry in its seat, and print the result."""
    from levata.server.match.run import MatchFailed, run_refereed_match

    game_name = state.spec.name
    seats = [_seat(e, game_name, tls_ca) for e in entries]
    try:
        outcome = asyncio.run(
            run_refereed_match(
                game_name,
                state.players,
                seats,
                seed,
                parse_options(option),
                server=server,
                admin_token=admin_token,
                db=db,
                move_ms=move_ms,
                tls_ca=tls_ca,
                narrate_to=None
                if quiet
                else lambda line: out.print(line, markup=False, soft_wrap=True),
            )
        )
    except DatabaseError:
        raise  # one line, status 1 or 2, from the command's entry point
    except MatchFailed as exc:  # the request's fault: 2; the referee's or the machine's: 1
        raise fail(str(exc), EXIT_USAGE if exc.caller_fault else EXIT_RUNTIME) from None
    except RuntimeError as exc:
        raise fail(str(exc), EXIT_RUNTIME) from None
    info = outcome.info
    out.print(f"match {info.match_id}: {state.spec.title}, refereed over gRPC", soft_wrap=True)
    table = Table()
    for col in ("rank", "seat", "bot", "score", "strikes", ""):
        table.add_column(col)
    res = info.result
    why = forfeit_reason(info.status_detail)
    for s in sorted(range(info.players), key=lambda s: (res.ranks[s], s)):
        mark = "winner" if s in res.winners else ""
        if s in res.forfeited:  # our own process's end says it best (a remote referee
            mark = f"forfeit: {outcome.ended[s] or why}"  # records "did not resume")
        table.add_row(
            str(res.ranks[s]),
            str(s),
            entries[s].name,
            f"{res.scores[s]:g}",
            str(info.strikes[s]),
            mark,
        )
    out.print(table)
    if server is None:
        out.print(f"record: {db} (levata replay {info.match_id} --db {db})", soft_wrap=True)
    else:
        out.print(
            f"record: in the database of the referee at {server} (on its machine: levata"
            f" replay {info.match_id} --db THAT_REFEREE'S_DB)",
            soft_wrap=True,
            markup=False,
        )
    for n, log in enumerate(outcome.seat_logs):
        if log is not None:
            line = f"bot log of seat {n} ({entries[n].name}): {log}"
            out.print(line, soft_wrap=True, markup=False)


def forfeit_reason(detail: str) -> str:
    """The referee's record of a forfeit (``seat(s) 0 reached 3 strikes``) in a few words.

    >>> forfeit_reason("seat(s) 1 reached 3 strikes")
    'too many strikes (3)'
    >>> forfeit_reason("seat(s) 0, 2 did not connect within the start-up allowance")
    'never connected'
    >>> forfeit_reason("seat(s) 2 did not resume within the window"), forfeit_reason("")
    ('did not resume', 'forfeited')
    >>> forfeit_reason("seat(s) 0 crashed, exit 1")
    'crashed, exit 1'
    """
    why = re.sub(r"^seat\(s\) [\d, ]+ ", "", detail.strip())
    strikes = re.fullmatch(r"reached (\d+) strikes", why)
    if strikes:
        return f"too many strikes ({strikes.group(1)})"
    if why.startswith("did not connect"):
        return "never connected"
    if why.startswith("did not resume"):
        return "did not resume"
    return why or "forfeited"


def _seat(entry: Entry, game_name: str, tls_ca: Path | None = None) -> Seat:
    """How ``entry`` takes its seat in a refereed match (trusting ``tls_ca``, the CA of a
    referee that speaks TLS)."""
    from levata.server.match.run import Seat

    if entry.kind == "connected":
        return Seat(entry.name, connected=entry.bot)
    if entry.kind == "bot":
        return Seat(entry.bot)

    def start(server: str, token: str, seed: int, log: Path) -> subprocess.Popen[bytes]:
        return launch(entry, game_name, server, token, seed, entry.name, log, tls_ca=tls_ca).proc

    return Seat(entry.name, start=start, lingers=True)
