"""Trombon's playout copy in Python: a world by counts of ranks, played a whole play at a
time by the heuristic's rules of thumb, with no events, views or suits (suits never matter in
Trombon, so every count here is by rank: 13 counts, index ``rank - 2``, the Ace last).

The search bot (:mod:`levata.bots.strategy.trombon`) plays its rollouts on the C kernel
(:mod:`levata.engine.trombon_playouts`), several times faster. This copy stays as the kernel's
reference and as the search's own reading of a world (its calls and its opponent model read
these counts): ``tests/engine/test_trombon_kernel.py`` proves the kernel agrees with it
(choices, positions after every play and window, whole rollouts on the same random stream,
scores). Its random draws (a modelled seat's wild calls) take any ``random()`` source: a
:class:`random.Random`, or in that test the kernel's splitmix64 stream.

>>> sim = RankSim(3, 1)
>>> sim.hands = [[2, 1] + [0] * 11, [0, 0, 3] + [0] * 10, [1, 1, 1] + [0] * 10]
>>> sim.usual_play(0)
([2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], 2, 0)
>>> sim.rollout(random.Random(1), 60)
>>> sim.over(), sim.scores()
(True, [0.0, 2.0, 1.0])
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from levata.engine.cards import Card

if TYPE_CHECKING:
    from levata.engine.contract import Event

__all__ = [
    "Caller",
    "Luck",
    "RankSim",
    "laid_this_round",
    "lie_card",
    "lie_odds",
    "opening_rank",
]

RANKS = 13


def _idx(card: Card) -> int:
    return card.rank - 2


def _counts(cards: Sequence[Card]) -> list[int]:
    out = [0] * RANKS
    for c in cards:
        out[c.rank - 2] += 1
    return out


def laid_this_round(history: Iterable[Event], players: int) -> list[list[int]]:
    """Each seat's cards in the pile by rank, as far as ``history`` tells (its ``laid``
    events since the last call): what the rule of thumb's calls read. A world rebuilt from a
    view keeps only that seat's events, so only its own cards count there, as the heuristic
    bot reading that world's views counts them.

    >>> from levata.engine.contract import Action
    >>> from levata.engine.games.trombon import TrombonState
    >>> state = TrombonState.from_position(2, ["7S 9D", "2C"], pile="")
    >>> for text in ("claim 7", "put 7S", "declare 1"):
    ...     state.apply(0, Action.parse(text))
    >>> laid_this_round(state.events(), 2)[0][7 - 2]
    1
    """
    laid = [[0] * RANKS for _ in range(players)]
    for ev in history:
        if ev.kind == "laid" and ev.seat is not None:
            for c in ev.cards:
                laid[ev.seat][c.rank - 2] += 1
        elif ev.kind == "call":
            laid = [[0] * RANKS for _ in range(players)]
    return laid


def _holds(j: int, left: int, unknown: int, held: int) -> float:
    """The chance a hand of ``held`` of the ``unknown`` cards holds exactly ``j`` of the
    ``left`` copies of a rank (hypergeometric)."""
    if j > left or j > held or held - j > unknown - left:
        return 0.0
    return math.comb(left, j) * math.comb(unknown - left, held - j) / math.comb(unknown, held)


@functools.lru_cache(maxsize=65536)
def lie_odds(claimed: int, left: int, unknown: int, held: int) -> float:
    """The odds the claim of ``claimed`` cards of the rank is false, when ``left`` copies of
    it may be in the ``unknown`` cards the caller cannot see and the claimant held ``held``
    cards before its play.

    A player who can tells the truth and claims what it holds of the rank; one who holds
    none must lie, and a lie mostly claims few cards (one in 60%, each more 40% as likely).
    So, by Bayes: the chance of holding none and claiming ``claimed`` against the chance of
    holding exactly ``claimed``. More than can be left is a lie for sure.

    >>> lie_odds(1, 0, 20, 5), lie_odds(3, 2, 20, 5), round(lie_odds(2, 4, 20, 5), 2)
    (1.0, 1.0, 0.24)
    """
    left = min(left, unknown)
    held = max(1, min(held, unknown))
    if claimed > left:
        return 1.0
    none = _holds(0, left, unknown, held) * 0.6 * 0.4 ** (claimed - 1)
    true = _holds(claimed, left, unknown, held)
    if none + true <= 0:
        return 1.0
    return none / (none + true)


@dataclass(frozen=True)
class Caller:
    """How a seat calls, from the windows it has seen: ``wild``, the chance it calls
    whatever the claim (beyond a counting player's calls); ``silent``, it never calls;
    ``carti``, the share of its calls that are on the count."""

    wild: float = 0.0
    silent: bool = False
    carti: float = 0.0


class Luck(Protocol):
    """Where a rollout's random draws come from: a :class:`random.Random`, or anything else
    with its ``random()`` (the kernel's stream, in its differential test)."""

    def random(self) -> float: ...


def lie_card(hand: list[int], rank: int | None) -> int:
    """The rank to lie with: one the hand holds fewest of (a lone card is least useful)."""
    best, key = -1, (99, 99)
    for r in range(RANKS):
        if hand[r] and r != rank and (hand[r], -r) < key:
            best, key = r, (hand[r], -r)
    if best < 0:
        best = next(r for r in range(RANKS) if hand[r])
    return best


def opening_rank(hand: list[int], copies: int = 4, rng: random.Random | None = None) -> int:
    """The rank to claim: the one held most of (ties: the highest, or one drawn with ``rng``),
    keeping a full set back.

    Every copy of a rank in one hand is a play nobody can catch: the next seat holds none,
    so it takes them back (calling, or lying and being called). Opened early it only passes
    round the table (with three players the sets go round for ever, each seat shedding four
    and taking four); kept, it is the safe last play. So a full set is opened only when the
    hand holds nothing else.

    >>> opening_rank([4, 1, 2] + [0] * 10), opening_rank([4] + [0] * 12)
    (2, 0)
    """
    rest = [r for r in range(RANKS) if 0 < hand[r] < copies] or range(RANKS)
    most = max(hand[r] for r in rest)
    ties = [r for r in rest if hand[r] == most]
    # At random among equals when it can: a fixed choice lets a pair go round for ever.
    return ties[-1] if rng is None else rng.choice(ties)


# -- the fast copy of a world --------------------------------------------------------------------


class RankSim:
    """A world by counts of ranks, played a whole play at a time by the rules of thumb: the
    rollouts of the search bot (no events, no views, no suits).

    ``rank``: the round's rank (``None`` before the opener names it); ``last``, ``last_d``:
    the last play's cards and declared count; ``mine_laid``: each seat's cards in the pile
    this round, as far as the world tells (:meth:`of`); ``callers``: how each seat calls
    (``None``: every seat by rule of thumb).

    >>> sim = RankSim(2, 1)
    >>> sim.hands = [[1] + [0] * 12, [0, 2] + [0] * 11]
    >>> sim.play(0, [1] + [0] * 12, 1)
    >>> sim.usual_call(1), sim.pending, sim.window
    ('trombon', 0, True)
    """

    __slots__ = (
        "actor",
        "callers",
        "count_lies",
        "decks",
        "finished",
        "hands",
        "last",
        "last_d",
        "mine_laid",
        "n",
        "pending",
        "pile",
        "plays",
        "rank",
        "round_plays",
        "window",
    )

    def __init__(self, n: int, decks: int) -> None:
        self.n = n
        self.decks = decks
        self.hands: list[list[int]] = [[0] * RANKS for _ in range(n)]
        self.pile: list[int] = [0] * RANKS
        self.last: list[int] = [0] * RANKS
        self.last_d = 0
        self.rank: int | None = None
        self.actor = 0
        self.finished: list[int] = []
        self.pending: int | None = None
        self.plays = 0
        self.round_plays: list[tuple[int, int]] = []
        self.window = False
        self.count_lies = True
        self.mine_laid: list[list[int]] = [[0] * RANKS for _ in range(n)]
        self.callers: list[Caller] | None = None  # None: every seat calls by rule of thumb

    @classmethod
    def of(cls, world: object, laid: Sequence[Sequence[int]] | None = None) -> RankSim:
        """The copy of a contract world (a ``TrombonState``, or anything with its attributes).

        ``mine_laid`` is ``laid`` (each seat's cards in the pile this round, by rank), else
        what the world's log tells (:func:`laid_this_round`): a world rebuilt from a view
        holds only that seat's events, so its own cards, the rest unknown (zero).

        >>> from levata.engine.contract import Action
        >>> from levata.engine.games.trombon import TrombonState
        >>> state = TrombonState.from_position(3, ["7S 7D 9D", "2C 3C", "4C 5C"], pile="")
        >>> for text in ("claim 7", "put 7S", "put 7D", "declare 2"):
        ...     state.apply(0, Action.parse(text))
        >>> RankSim.of(state).mine_laid[0][7 - 2], RankSim.of(state, [[0] * 13] * 3).mine_laid[0]
        (2, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])
        """
        w = world  # the engine's state, read by attribute
        sim = cls(w.players, w.decks)  # type: ignore[attr-defined]
        sim.hands = [_counts(h) for h in w.hands]  # type: ignore[attr-defined]
        if w.staged:  # type: ignore[attr-defined]
            for c in w.staged:  # type: ignore[attr-defined]  # mid-play: back in the hand
                sim.hands[w.actor][_idx(c)] += 1  # type: ignore[attr-defined]
        sim.pile = _counts(w.pile)  # type: ignore[attr-defined]
        sim.last = _counts(w.last_cards)  # type: ignore[attr-defined]
        sim.rank = None if w.rank is None else w.rank - 2  # type: ignore[attr-defined]
        sim.actor = w.actor if w.actor is not None else 0  # type: ignore[attr-defined]
        sim.finished = list(w.finished)  # type: ignore[attr-defined]
        sim.pending = w.pending_out  # type: ignore[attr-defined]
        sim.plays = w.plays  # type: ignore[attr-defined]
        sim.round_plays = list(w.round_plays)  # type: ignore[attr-defined]
        sim.last_d = sim.round_plays[-1][1] if sim.round_plays else 0
        sim.window = w.phase == "window"  # type: ignore[attr-defined]
        sim.count_lies = w.count_lies  # type: ignore[attr-defined]
        if laid is None:
            log = getattr(w, "_log", None)  # a dealer's table has none: nothing known
            laid = None if log is None else laid_this_round(log, sim.n)
        if laid is not None:
            sim.mine_laid = [list(m) for m in laid]  # its own: each play adds to it
        return sim

    def fields(self) -> dict[str, Any]:
        """The world as plain values: what the C kernel
        (:class:`levata.engine.trombon_playouts.TrombonPlayout`) is loaded from, and what its
        ``fields()`` must equal after every play and window (its differential test)."""
        return {
            "players": self.n,
            "decks": self.decks,
            "hands": [list(h) for h in self.hands],
            "pile": list(self.pile),
            "last": list(self.last),
            "last_d": self.last_d,
            "rank": self.rank,
            "actor": self.actor,
            "finished": list(self.finished),
            "pending": self.pending,
            "plays": self.plays,
            "round_plays": [(s, d) for s, d in self.round_plays],
            "window": self.window,
            "count_lies": self.count_lies,
            "mine_laid": [list(m) for m in self.mine_laid],
            "callers": None
            if self.callers is None
            else [(c.wild, c.silent, c.carti) for c in self.callers],
        }

    def clone(self) -> RankSim:
        other = RankSim.__new__(RankSim)
        other.n, other.decks = self.n, self.decks
        other.hands = [list(h) for h in self.hands]
        other.pile, other.last, other.last_d = list(self.pile), list(self.last), self.last_d
        other.rank, other.actor = self.rank, self.actor
        other.finished, other.pending = list(self.finished), self.pending
        other.plays, other.round_plays = self.plays, list(self.round_plays)
        other.window, other.count_lies = self.window, self.count_lies
        other.mine_laid = [list(m) for m in self.mine_laid]
        other.callers = self.callers
        return other

    def over(self) -> bool:
        return self.n - len(self.finished) <= 1

    def next_in(self, seat: int) -> int:
        for step in range(1, self.n + 1):
            s = (seat + step) % self.n
            if s not in self.finished and s != self.pending:
                return s
        return seat

    # -- a play -----------------------------------------------------------------------------

    def play(self, seat: int, cards: list[int], declared: int, rank: int | None = None) -> None:
        """``seat`` puts ``cards`` (counts) down and declares ``declared`` (an opener names
        ``rank``)."""
        if self.rank is None:
            self.rank = rank if rank is not None else opening_rank(self.hands[seat], 4 * self.decks)
        hand = self.hands[seat]
        for r in range(RANKS):
            if cards[r]:
                hand[r] -= cards[r]
                self.mine_laid[seat][r] += cards[r]
                self.pile[r] += cards[r]
        self.last = list(cards)
        self.last_d = declared
        self.round_plays.append((seat, declared))
        self.plays += 1
        self.actor = seat
        if not any(hand):
            self.pending = seat
        self.window = True

    def usual_play(self, seat: int) -> tuple[list[int], int, int | None]:
        """The rule-of-thumb play: (cards, declared, rank named)."""
        hand = self.hands[seat]
        rank = self.rank if self.rank is not None else opening_rank(hand, 4 * self.decks)
        cards = [0] * RANKS
        if hand[rank]:
            cards[rank] = hand[rank]
        else:
            cards[lie_card(hand, rank)] = 1
        return cards, sum(cards), rank

    # -- a window ---------------------------------------------------------------------------

    def in_window(self) -> list[int]:
        """The seats that may call, nearest the player first."""
        x = self.actor
        seats = [s for s in range(self.n) if s not in self.finished and s != x]
        return sorted(seats, key=lambda s: (s - x - 1) % self.n)

    def usual_call(self, seat: int) -> str:
        """The rule-of-thumb call of ``seat`` (from its own hand and its cards in the pile)."""
        r = self.rank
        assert r is not None
        claimed = self.last_d
        hand = self.hands[seat]
        before = sum(d for s, d in self.round_plays[:-1] if s != seat)
        left = 4 * self.decks - hand[r] - self.mine_laid[seat][r] - before
        unknown = 52 * self.decks - sum(hand) - sum(self.mine_laid[seat])
        others = max(1, self.n - len(self.finished) - 1)
        going_out = self.pending is not None
        held = claimed if going_out else round(unknown / (others + 1)) + claimed
        odds = lie_odds(claimed, max(0, left), unknown, held)
        at_stake = sum(d for _, d in self.round_plays)
        need = 0.3 if going_out else 0.55 + min(0.35, at_stake / 40)
        return "trombon" if odds >= need else "pass"

    def call_of(self, seat: int, rng: Luck | None) -> str:
        """``seat``'s call: by :attr:`callers` when modelled (with ``rng``), else by rule of
        thumb."""
        model = self.callers[seat] if self.callers is not None and rng is not None else None
        if model is not None:
            if model.silent:
                return "pass"
            if model.wild and rng.random() < model.wild:  # type: ignore[union-attr]
                wild = rng.random() < model.carti and self.count_lies  # type: ignore[union-attr]
                return "trombon_de_carti" if wild else "trombon"
        return self.usual_call(seat)

    def resolve(self, calls: dict[int, str], rng: Luck | None = None) -> None:
        """Close the window: ``calls`` holds the seats' choices (others by :meth:`call_of`)."""
        x = self.actor
        caller, kind = None, "pass"
        for s in self.in_window():
            choice = calls.get(s)
            if choice is None:
                choice = self.call_of(s, rng)
            if choice != "pass":
                caller, kind = s, choice
                break
        self.window = False
        if caller is None:
            if self.pending == x:
                self.finished.append(x)
                self.pending = None
            self.actor = self.next_in(x)
            return
        r = self.rank
        k = sum(self.last)
        honest = self.last[r] == k if kind == "trombon" else k == self.last_d  # type: ignore[index]
        taker = caller if honest else x
        hand = self.hands[taker]
        for rr in range(RANKS):
            hand[rr] += self.pile[rr]
        self.pile = [0] * RANKS
        self.mine_laid = [[0] * RANKS for _ in range(self.n)]
        self.round_plays = []
        self.rank = None
        self.last = [0] * RANKS
        self.last_d = 0  # as a world read from the game says it (no play in the round)
        if self.pending == x and taker != x:
            self.finished.append(x)
        self.pending = None
        self.actor = self.next_in(x)

    def rollout(self, rng: Luck, max_plays: int) -> None:
        """Play on by the rules of thumb for at most ``max_plays`` plays."""
        start = self.plays
        while not self.over() and self.plays - start < max_plays:
            if self.window:
                self.resolve({}, rng)
                if self.over():
                    break
            seat = self.actor
            cards, d, rank = self.usual_play(seat)
            self.play(seat, cards, d, rank)

    def scores(self) -> list[float]:
        """Places as scores (``players - place``): finishers in order, then fewest cards."""
        n = self.n
        out = [0.0] * n
        for place, s in enumerate(self.finished, start=1):
            out[s] = float(n - place)
        rest = [s for s in range(n) if s not in self.finished]
        sizes = {s: sum(self.hands[s]) for s in rest}
        base = len(self.finished) + 1
        for s in rest:
            out[s] = float(n - (base + sum(1 for o in rest if sizes[o] < sizes[s])))
        return out
