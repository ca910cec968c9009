"""Kemps' fast copy for search: one deal of the tick-mode exchange, no events, views or history.

:meth:`KempsState.python_playout_state` builds one from a world (tick mode, in the exchange or
the last call): the reference that the search's C kernel (:mod:`levata.engine.kemps_playouts`,
:meth:`KempsState.playout_state`) is proven against. It lists and applies the same actions as
the state, resolves each tick by the same rules (the first call in the priority is judged on
the tick-start hands, else the swaps in priority order, the signals and their audit, the flush,
the sixty-tick guard, the last call), and stops at the deal's end:
:meth:`KempsPlayout.estimate` is then what the deal did to each seat's team (the other teams'
penalties taken, less its own), the whole match being far too long to roll out. Its
``heuristic`` policy is :mod:`.policy`, the heuristic bot's, and it keeps what every seat
remembers (the tokens each team showed before the last tick) as the bot does; ``random`` picks
a uniform legal choice. A rollout counts one action per tick. ``tests/games/test_kemps.py``
plays it beside the state, tick by tick, with the bot's choices.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Sequence
from typing import Any

from levata.engine.cards import Card
from levata.engine.contract import Action
from levata.engine.games.kemps import policy
from levata.engine.games.kemps.rules import (
    ALPHABET,
    CALL_KINDS,
    CONTRAKEMPS,
    KEMPS,
    SLOTS,
    SWAP,
    contrakemps,
    holds_quad,
    partner,
    swap,
    swap_parts,
    team_of,
    teams,
)

__all__ = ["KempsPlayout"]

EXCHANGE, LAST_CALL, OVER = "exchange", "last_call", "over"
#: Penalties that lose the game; a signal violation counts as that many for the deal.
LOSING = 5
#: Ticks on one table set before a forced flush (the state's ``SET_GUARD``).
SET_GUARD = 60
_PASS = Action("pass")
_KEMPS = Action(KEMPS)


class KempsPlayout:
    """One Kemps deal, tick mode, in plain lists, for rollouts."""

    def __init__(self, fields: dict[str, Any], seed: int) -> None:
        self.players: int = fields["players"]
        n = self.players
        self.team_count = n // 2
        self.hands: list[list[Card]] = [list(h) for h in fields["hands"]]
        self.slots: list[Card] = list(fields["slots"])
        self.stock: list[Card] = list(fields["stock"])  # the top card first
        self.dead: list[Card] = list(fields["dead"])
        self.known: list[list[Card]] = [list(k) for k in fields["known"]]
        self.signals: list[list[Any]] = [list(s) for s in fields["signals"]]
        self.shown: list[set[str]] = [set(s) for s in fields["shown"]]
        self.penalties: list[int] = list(fields["penalties"])
        self.base: list[int] = list(fields["penalties"])  # at the copy: the deal's start
        self.secrets: list[str] = list(fields["secrets"])
        self.kemps_sets: list[int] = list(fields["kemps_sets"])
        self.audit: bool = fields["audit"]
        self.copies: bool = fields["copies"]
        self.tick: int = fields["tick"]
        self.set_ticks: int = fields["set_ticks"]
        self.phase: str = fields["phase"]
        self.submissions: list[Action | None] = list(fields["submissions"])
        self.waiting: tuple[int, ...] = tuple(fields["waiting"])
        self.violators: list[int] = []
        self.rng = random.Random(seed)
        self.searcher: int | None = None  # the seat whose search this copy serves
        self.start = self.tick  # the tick that search decides

    def clone(self) -> KempsPlayout:
        other = object.__new__(KempsPlayout)
        other.__dict__.update(self.__dict__)
        other.hands = [list(h) for h in self.hands]
        other.slots = list(self.slots)
        other.stock = list(self.stock)
        other.dead = list(self.dead)
        other.known = [list(k) for k in self.known]
        other.signals = [list(s) for s in self.signals]
        other.shown = [set(s) for s in self.shown]
        other.penalties = list(self.penalties)
        other.submissions = list(self.submissions)
        other.violators = list(self.violators)
        other.rng = copy.copy(self.rng)  # the same state (a test may give it another stream)
        return other

    def fields(self) -> dict[str, Any]:
        """The position as plain values: those :meth:`KempsState.playout_fields
        <levata.engine.games.kemps.KempsState.playout_fields>` gives, then the copy's own
        (``base``, ``violators``, ``searcher``, ``start``); the kernel's ``fields()`` says the
        same (the differential test)."""
        return {
            "players": self.players,
            "hands": [list(h) for h in self.hands],
            "slots": list(self.slots),
            "stock": list(self.stock),
            "dead": list(self.dead),
            "known": [list(k) for k in self.known],
            "signals": [list(s) for s in self.signals],
            "shown": [set(s) for s in self.shown],
            "penalties": list(self.penalties),
            "secrets": list(self.secrets),
            "kemps_sets": list(self.kemps_sets),
            "audit": self.audit,
            "copies": self.copies,
            "tick": self.tick,
            "set_ticks": self.set_ticks,
            "phase": self.phase,
            "submissions": list(self.submissions),
            "waiting": tuple(self.waiting),
            "base": list(self.base),
            "violators": list(self.violators),
            "searcher": self.searcher,
            "start": self.start,
        }

    # -- the contract's part ------------------------------------------------------------------

    def is_over(self) -> bool:
        return self.phase == OVER

    def to_act(self) -> tuple[int, ...]:
        return self.waiting

    def legal_actions(self, seat: int) -> list[Action]:
        if seat not in self.waiting:
            return []
        own = team_of(seat, self.players)
        calls = [_KEMPS, *(contrakemps(t) for t in range(self.team_count) if t != own)]
        if self.phase == LAST_CALL:
            return [_PASS, *calls]
        hand = self.hands[seat]
        distinct = [c for i, c in enumerate(hand) if c not in hand[:i]]
        swaps = [swap(c, k) for c in distinct for k in range(len(self.slots))]
        return [_PASS, *swaps, *calls]

    def _apply(self, seat: int, action: Action) -> None:
        """Submit ``action``; the tick's last submission resolves it."""
        self.submissions[seat] = action
        self.waiting = tuple(s for s in self.waiting if s != seat)
        if not self.waiting:
            self._resolve()

    def _resolve(self) -> None:
        n, t = self.players, self.tick
        order = sorted(range(n), key=lambda s: (s - t) % n)
        subs = [a or _PASS for a in self.submissions]
        quads = [holds_quad(h) for h in self.hands]  # the tick-start hands
        callers = [s for s in order if subs[s].kind in CALL_KINDS]
        moved = False
        if callers:
            self._call(callers[0], subs[callers[0]])
        elif self.phase == EXCHANGE:
            moved = self._swaps(order, subs)
        for s, token in self.signals:  # what every seat now remembers of the tick before
            self.shown[team_of(s, n)].add(token)
        self.signals = []
        violators: set[int] = set()
        for seat in order:
            token = subs[seat].payload_value("signal")
            if token is not None and self._signal(seat, str(token), quads[seat]):
                violators.add(team_of(seat, n))
        if violators:
            self.violators = sorted(violators)
            self.phase = OVER
        elif callers or self.phase == LAST_CALL:
            self.phase = OVER  # the deal is over: the copy plays one deal
        else:
            self.set_ticks += 1
            if not moved or self.set_ticks >= SET_GUARD:
                self._flush()
        self.submissions = [None] * n
        if self.phase != OVER:
            self.tick += 1
            self.waiting = tuple(range(n))
        else:
            self.waiting = ()

    def _call(self, seat: int, action: Action) -> None:
        n = self.players
        own = team_of(seat, n)
        if action.kind == KEMPS:
            right = holds_quad(self.hands[partner(seat, n)])
            hit = [t for t in range(self.team_count) if t != own] if right else [own]
        else:
            target: int = action.number  # type: ignore[assignment]  # contrakemps names a team
            found = any(holds_quad(self.hands[s]) for s in teams(n)[target])
            hit = [target] if found else [own]
        for t in hit:
            self.penalties[t] += 1

    def _swaps(self, order: Sequence[int], subs: Sequence[Action]) -> bool:
        used: set[int] = set()
        tried = False
        for seat in order:
            if subs[seat].kind != SWAP:
                continue
            tried = True
            card, slot = swap_parts(subs[seat])
            if slot not in used:
                used.add(slot)
                self._swap(seat, card, slot)
        return tried

    def _swap(self, seat: int, card: Card, slot: int) -> None:
        took = self.slots[slot]
        hand = self.hands[seat]
        hand.append(took)
        hand.remove(card)  # the first equal card: with two decks it may be the one taken
        self.slots[slot] = card
        known = self.known[seat]
        if card in known:
            known.remove(card)
        known.append(took)

    def _signal(self, seat: int, token: str, quad: bool) -> bool:
        self.signals.append([seat, token])
        if not self.audit or quad:
            return False
        return bool(self.kemps_sets[team_of(seat, self.players)] >> ALPHABET.index(token) & 1)

    def _flush(self) -> None:
        self.dead.extend(self.slots)
        if len(self.stock) >= SLOTS:
            self.slots = self.stock[:SLOTS]
            del self.stock[:SLOTS]
            self.set_ticks = 0
        else:
            self.slots = []
            self.phase = LAST_CALL

    def estimate(self) -> tuple[float, ...]:
        """What the deal did to each seat's team so far: the other teams' penalties taken (on
        average), less its own; a team that broke the audit counts five."""
        gains = [p - b for p, b in zip(self.penalties, self.base, strict=True)]
        for t in self.violators:
            gains[t] += LOSING
        total, others = sum(gains), max(self.team_count - 1, 1)
        n = self.players
        return tuple(
            (total - gains[team_of(s, n)]) / others - gains[team_of(s, n)] for s in range(n)
        )

    # -- the policy -----------------------------------------------------------------------------

    def seen(self, seat: int) -> policy.Table:
        """What ``seat`` sees this tick, as the heuristic reads it."""
        return policy.Table(
            seat=seat,
            players=self.players,
            hand=self.hands[seat],
            table=self.slots,
            known=self.known,
            dead=self.dead,
            signals=self.signals,
            secret=self.secrets[team_of(seat, self.players)],
            tick=self.tick,
            stock=len(self.stock),
            swaps=self.phase == EXCHANGE,
        )

    def _shown_by_team(self) -> dict[int, set[str]]:
        return dict(enumerate(self.shown))

    def serve(self, seat: int) -> None:
        """This copy serves the search of ``seat``, whose partner is taken to be the same
        search: at the tick being decided, it leaves CONTRAKEMPS to ``seat``'s search.

        Both partners read the same public signs (the tokens shown, the cards seen taken) and
        weigh a CONTRAKEMPS on them alike, and any call of the team ends the deal; played by
        the heuristic, the partner would make the call whatever this seat chose, and the
        search could never tell calling from not."""
        self.searcher = seat

    def choose(self, seat: int, policy_name: str = "heuristic") -> Action:
        """The seat's action by ``policy_name``: the heuristic's choice with the token it
        shows beside it, or a uniform legal choice."""
        if policy_name == "random":
            return self.rng.choice(self.legal_actions(seat))
        seen = self.seen(seat)
        choice = policy.choice(seen, self._shown_by_team(), True)
        if (
            choice.kind == CONTRAKEMPS
            and self.tick == self.start
            and self.searcher is not None
            and seat == partner(self.searcher, self.players)
        ):
            choice = policy.choice(seen, {}, False, calls=False)
        return _dressed(choice, seen, self.rng)

    def dress(self, seat: int, choice: Action) -> Action:
        """``choice`` (a search's, no payload) with the token the heuristic shows beside it."""
        return _dressed(choice, self.seen(seat), self.rng)

    def rollout(
        self, policy_name: str = "heuristic", max_actions: int = 0, seed: int | None = None
    ) -> int:
        """Play ticks by ``policy_name`` to the deal's end (or ``max_actions`` ticks); returns
        the ticks played."""
        if seed is not None:
            self.rng.seed(seed)
        ticks = 0
        while self.phase != OVER and (not max_actions or ticks < max_actions):
            for seat in self.waiting:
                self._apply(seat, self.choose(seat, policy_name))
            ticks += 1
        return ticks


def _dressed(choice: Action, seen: policy.Table, rng: random.Random) -> Action:
    token = policy.token(seen, choice, rng)
    return choice if token is None else choice.with_payload(signal=token)
