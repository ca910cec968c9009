"""What a tournament is: game, entries, format, deals, seed, options, clocks.

    levata tournament --game whist --bots heuristic,random,random --format duplicate --deals 12

The command's values become a :class:`TournamentSpec`. Its schedule
(:mod:`levata.server.tournament.schedule`) is a pure function of it. Spec and schedule are
stored in SQLite (:mod:`levata.server.tournament.store`) under the tournament's id: ``t`` and a
hash of the spec (``-2``, ``-3``... when the same spec is run again). The runner
(:mod:`levata.server.tournament.runner`) plays it.

>>> spec = build_spec("whist", "heuristic,random,random", deals=2, seed=1, options=["deal_size=2"])
>>> spec.players, [e.name for e in spec.entries], spec.seating, len(spec.schedule())
(3, ['heuristic', 'random', 'random-2'], 'permute', 12)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from levata.engine import BadConfig, GameSpec, game
from levata.engine.options import parse_options
from levata.server.tournament.entries import Entry, parse_entries
from levata.server.tournament.schedule import (
    FORMATS,
    SEATINGS,
    ScheduledMatch,
    deal_sizes,
    make_schedule,
    parse_teams,
)
from levata.server.tournament.store import TourneyStore, spec_hash

__all__ = ["TournamentSpec", "Unfinished", "build_spec", "prepare"]

#: ``--seating auto`` plays every permutation of the seats up to this many seats (3! = 6,
#: 4! = 24 matches a deal), cyclic rotations beyond. Rotations alone let an entry play every
#: seat of every deal, but each entry always sits just after the same neighbour: in a
#: 200-deal Whist duplicate of heuristic,random,random with rotations, the two identical
#: random bots differed by +0.48 [+0.10, +0.88] points a deal (the one seated after the
#: heuristic bot did worse); with every permutation, by +0.04 [-0.22, +0.35].
AUTO_PERMUTE = 4


@dataclass
class TournamentSpec:
    """Everything that decides a tournament's results (and so its id); ``parallel`` and the
    referee's address do not."""

    game: str
    players: int
    entries: list[Entry]
    format: str = "duplicate"
    deals: int = 12
    seed: int = 0
    unit: str = "deal"
    seating: str = "rotate"
    options: dict[str, str] = field(default_factory=dict)
    sizes: list[int] | None = None
    teams: list[list[int]] | None = None
    policy: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "players": self.players,
            "entries": [e.to_dict() for e in self.entries],
            "format": self.format,
            "deals": self.deals,
            "seed": self.seed,
            "unit": self.unit,
            "seating": self.seating,
            "options": dict(self.options),
            "sizes": self.sizes,
            "teams": self.teams,
            "policy": dict(self.policy),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TournamentSpec:
        return cls(
            game=d["game"],
            players=d["players"],
            entries=[Entry.from_dict(e) for e in d["entries"]],
            format=d["format"],
            deals=d["deals"],
            seed=d["seed"],
            unit=d["unit"],
            seating=d["seating"],
            options=d["options"],
            sizes=d["sizes"],
            teams=d["teams"],
            policy=d["policy"],
        )

    @property
    def names(self) -> list[str]:
        return [e.name for e in self.entries]

    def entry(self, name: str) -> Entry:
        return next(e for e in self.entries if e.name == name)

    def schedule(self) -> list[ScheduledMatch]:
        return make_schedule(
            self.names,
            self.players,
            self.deals,
            self.seed,
            self.format,
            self.seating,
            self.teams,
            self.options,
            self.sizes,
            game(self.game).duplicate_unit,
        )

    def describe(self) -> str:
        """One line, e.g. ``whist, 3 players, duplicate over 12 deals (every seating), each
        match one deal, deal_size 1-8, seed 1``."""
        if self.teams:
            seats = f"teams of seats {', '.join('+'.join(map(str, t)) for t in self.teams)}"
            seats += ", two-table" if len(self.teams) == 2 else f", {self.seating}d"
        else:
            seats = "every seating" if self.seating == "permute" else "seats rotated"
        board = game(self.game).duplicate_unit
        if self.unit == "deal" and self.sizes and board:
            # The unit's option says what its value means (Whist: cards; Banking: credits).
            used = sorted(set(self.sizes[: self.deals]))
            many = f"{used[0]}-{used[-1]}" if len(used) > 1 else used[0]
            unit = f"each match one deal, {board} {many}"
        else:
            unit = "each match a whole game"
        what = ("deal" if self.format == "duplicate" else "round") + "s" * (self.deals != 1)
        return (
            f"{self.game}, {self.players} players, {self.format} over {self.deals} {what}"
            f" ({seats}), {unit}, seed {self.seed}"
        )


def build_spec(  # noqa: PLR0913  (one argument per option of `levata tournament`)
    game_name: str,
    bots: str,
    players: int | None = None,
    fmt: str = "duplicate",
    deals: int = 12,
    seed: int = 0,
    unit: str | None = None,
    seating: str = "auto",
    options: list[str] | None = None,
    teams: str | None = None,
    move_ms: int = 2000,
    bank_ms: int = 20_000,
    resume_window_ms: int = 3_000,
    max_strikes: int = 3,
    server: str | None = None,
) -> TournamentSpec:
    """A spec from command-line values; :class:`BadConfig` with one clear line when wrong."""
    spec = game(game_name)
    if fmt not in FORMATS:
        raise BadConfig(f"format {fmt!r} is not one of {', '.join(FORMATS)}")
    if seating not in (*SEATINGS, "auto"):
        raise BadConfig(f"seating {seating!r} is not one of auto, {', '.join(SEATINGS)}")
    if deals < 1:
        raise BadConfig("--deals must be at least 1")
    if move_ms < 1:
        raise BadConfig("--move-ms must be positive")
    if "," not in bots.strip(", ") and players:  # one name fills every seat: self-play
        bots = ",".join([bots.strip(", ")] * players)
    entries = parse_entries(bots, spec.name, server)
    players, team_seats = _table(spec, entries, players, teams)
    units = len(team_seats) if team_seats else players
    if len(entries) < units:
        raise BadConfig(
            f"{units} {'teams' if team_seats else 'seats'} need at least {units} entries,"
            f" --bots names {len(entries)}"
        )
    if seating == "auto":  # every permutation while that stays small; see AUTO_PERMUTE
        seating = "permute" if units <= AUTO_PERMUTE else "rotate"
    opts = parse_options(options or [])
    unit, sizes = _unit(spec, unit, opts)
    return TournamentSpec(
        game=spec.name,
        players=players,
        entries=entries,
        format=fmt,
        deals=deals,
        seed=seed,
        unit=unit,
        seating=seating,
        options=opts,
        sizes=sizes,
        teams=team_seats,
        policy={
            "move_ms": move_ms,
            "bank_ms": bank_ms,
            "resume_window_ms": resume_window_ms,
            "max_strikes": max_strikes,
        },
    )


def _table(
    spec: GameSpec, entries: list[Entry], players: int | None, teams: str | None
) -> tuple[int, list[list[int]] | None]:
    """How many play, and the teams' seats (``--teams``, else the game's own partnerships;
    None: every seat for itself)."""
    if teams and any(e.kind == "connected" for e in entries):
        raise BadConfig("a team entry runs one process per partner: @NAME cannot play in teams")
    team_seats: list[list[int]] | None = None
    if teams:
        seats = players or sum(len(t.split("+")) for t in teams.split(","))
        try:
            team_seats = [list(t) for t in parse_teams(teams, seats)]
        except ValueError as exc:
            raise BadConfig(str(exc)) from None
        players = seats
    if players is None:
        players = len(entries)
        if players > spec.players[-1]:
            raise BadConfig(
                f"{len(entries)} entries but {spec.name} seats at most {spec.players[-1]}:"
                " give --players (each combination of entries then plays)"
            )
        players = max(players, spec.players[0])
    if players not in spec.players:
        counts = ", ".join(map(str, spec.players))
        raise BadConfig(f"{spec.name} is played by {counts} players, not {players}")
    if team_seats is None and (partners := spec.teams(players)):
        team_seats = [list(t) for t in partners]  # the game's own partnerships
        if any(e.kind == "connected" for e in entries):
            raise BadConfig(f"{spec.name} is played in teams: @NAME cannot play in teams")
    return players, team_seats


def _unit(spec: GameSpec, unit: str | None, opts: dict[str, str]) -> tuple[str, list[int] | None]:
    """What one match plays (``deal`` or ``game``) and, by the deal, each deal's size; the
    options are checked, and the one that makes a match one deal is taken out of ``opts``."""
    resolved = spec.resolve_options(opts)  # BadConfig on a bad option
    board = spec.duplicate_unit  # the option that makes a match one deal, if the game has one
    if unit is None:
        unit = "deal" if board else "game"
    sizes: list[int] | None = None
    if unit == "deal":
        if board is None:
            raise BadConfig(f"{spec.name} has no single-deal option: use --unit game")
        fixed = resolved[board] if board in opts else None
        if fixed == 0:
            raise BadConfig(f"--unit deal needs {board} of at least 1 (0 is the whole game)")
        size = spec.option(board)
        sizes = deal_sizes(size.minimum, size.maximum, fixed)
        opts.pop(board, None)
    elif unit != "game":
        raise BadConfig(f"unit {unit!r} is not deal or game")
    return unit, sizes


class Unfinished(BadConfig):
    """A tournament of this spec is already under way: resume it (or ask for a new one)."""

    def __init__(self, tid: str, played: int, total: int) -> None:
        super().__init__(
            f"tournament {tid} of this spec is unfinished ({played} of {total} matches played)"
        )
        self.tid, self.played, self.total = tid, played, total


def prepare(
    tdb: TourneyStore, spec: TournamentSpec, resume: bool, fresh: bool = False
) -> tuple[str, bool]:
    """The tournament to run: ``(id, resumed)``. With ``resume``, the newest unfinished one of
    this spec (or the newest finished one, which then has nothing left to play). Otherwise a
    new one (``-2``, ``-3``... after the first of a spec); but while one of this spec is
    unfinished, :class:`Unfinished` unless ``fresh``: running a command again after a crash
    must not start over beside it."""
    data = spec.to_dict()
    same = tdb.with_spec(data)
    unfinished = [t for t in same if t["status"] != "finished"]
    if resume and same:
        tid = (unfinished or same)[-1]["id"]
        return tid, True
    if unfinished and not fresh:
        tid = unfinished[-1]["id"]
        rows = tdb.rows(tid)
        raise Unfinished(tid, sum(r["status"] == "finished" for r in rows), len(rows))
    base = f"t{spec_hash(data)}"
    tid, k = base, 1
    while tdb.tournament(tid) is not None:
        k += 1
        tid = f"{base}-{k}"
    tdb.create(tid, data, spec.schedule())
    return tid, False
