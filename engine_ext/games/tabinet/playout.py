"""Tabinet's fast copy for search: the rules of play alone, no events, views or history.

:meth:`TabinetState.python_playout_state` builds one from a world (the search runs on the C
kernel, :mod:`levata.engine.tabinet_playouts`, proven against this copy by
``tests/engine/test_tabinet_kernel.py``). It lists and applies the same
atomic actions as the state (the search tree steps through a capture card by card), and plays
rollouts by whole moves: the ``heuristic`` policy is :func:`.policy.best_move`, the one the
heuristic bot plays by; ``random`` picks a uniform legal atomic action. A rollout counts one
action per turn. ``tests/games/test_tabinet.py`` plays it against the state move for move.
"""

from __future__ import annotations

import random
from typing import Any

from levata.engine import phases
from levata.engine.cards import Card
from levata.engine.contract import Action
from levata.engine.family.captures import Selection, completable
from levata.engine.games.tabinet import policy
from levata.engine.games.tabinet.rules import card_points, may_refuse, points_of, targets, values

__all__ = ["TabinetPlayout"]

DECIDE, ACE_VALUE, CAPTURING = "decide", "ace", "capture"
PACKET, FIRST_CARDS, LAYOUT = 6, 4, 4


class TabinetPlayout:
    """One Tabinet round (or match) in plain lists, for rollouts."""

    def __init__(self, fields: dict[str, Any], seed: int) -> None:
        """``fields``: the position as plain values (:meth:`fields`; the game's
        ``playout_fields()``), which the C kernel loads too."""
        self.players: int = fields["players"]
        self.sides: tuple[tuple[int, ...], ...] = tuple(tuple(s) for s in fields["sides"])
        self.side_of: list[int] = [0] * self.players
        for k, members in enumerate(self.sides):
            for s in members:
                self.side_of[s] = k
        self.hands: list[list[Card]] = [list(h) for h in fields["hands"]]
        self.stock: list[Card] = list(fields["stock"])  # top card last
        self.layout: list[Card] = list(fields["layout"])
        self.played: Card | None = fields["played"]
        self.points: list[int] = list(fields["points"])  # card points captured, per side
        self.cards: list[int] = list(fields["cards"])  # cards captured, per side
        self.tablas: list[int] = list(fields["tablas"])
        self.totals: list[int] = list(fields["totals"])
        self.last: int | None = fields["last_capturer"]
        self.phase: str = fields["phase"]
        self.actor: int = fields["actor"]
        self.first: int = fields["first"]
        shown = fields["selection"]  # [value, the table indices taken] or None
        self.selection: Selection | None = (
            None if shown is None else Selection(shown[0], tuple(shown[1]))
        )
        self.options: dict[str, Any] = {
            "forced_capture": bool(fields["forced_capture"]),
            "most_cards_bonus": fields["most_cards_bonus"],
        }
        self.rng = random.Random(seed)

    def fields(self) -> dict[str, Any]:
        """The position as plain values: what the C kernel
        (:class:`levata.engine.tabinet_playouts.TabinetPlayout`) is loaded from, and what its
        ``fields()`` must equal after every action (its differential test)."""
        sel = self.selection
        return {
            "players": self.players,
            "sides": [list(s) for s in self.sides],
            "hands": [list(h) for h in self.hands],
            "stock": list(self.stock),
            "layout": list(self.layout),
            "played": self.played,
            "points": list(self.points),
            "cards": list(self.cards),
            "tablas": list(self.tablas),
            "totals": list(self.totals),
            "last_capturer": self.last,
            "phase": self.phase,
            "actor": self.actor,
            "first": self.first,
            "selection": None if sel is None else [sel.target, list(sel.taken)],
            "forced_capture": self.options["forced_capture"],
            "most_cards_bonus": self.options["most_cards_bonus"],
        }

    def clone(self) -> TabinetPlayout:
        other = object.__new__(TabinetPlayout)
        other.__dict__.update(self.__dict__)
        other.hands = [list(h) for h in self.hands]
        other.stock = list(self.stock)
        other.layout = list(self.layout)
        for name in ("points", "cards", "tablas", "totals"):
            setattr(other, name, list(getattr(self, name)))
        other.rng = random.Random()
        other.rng.setstate(self.rng.getstate())
        return other

    # -- the contract's part ------------------------------------------------------------------

    def is_over(self) -> bool:
        return self.phase == phases.OVER

    def to_act(self) -> tuple[int, ...]:
        return () if self.phase == phases.OVER else (self.actor,)

    def _able(self, card: Card) -> tuple[int, ...]:
        return tuple(t for t in targets(card) if completable(t, (), self.layout, values))

    def legal_actions(self, seat: int) -> list[Action]:
        if self.phase == phases.OVER or seat != self.actor:
            return []
        if self.phase == phases.PLAYING:
            hand = self.hands[seat]
            able = [bool(self._able(c)) for c in hand]
            may_trail = not (self.options["forced_capture"] and any(able))
            out = []
            for c, can in zip(hand, able, strict=True):
                if can:
                    out.append(Action("capture", card=c))
                if may_trail:
                    out.append(Action("trail", card=c))
            return out
        if self.phase == CAPTURING:
            sel = self.selection
            assert sel is not None
            out = [Action("take", card=self.layout[i]) for i in sel.takes(self.layout, values)]
            if sel.can_finish(self.layout, values):
                out.append(Action("done"))
            return out
        if self.phase == ACE_VALUE:
            assert self.played is not None
            return [Action("ace", number=v) for v in self._able(self.played)]
        return (
            [Action("accept"), Action("refuse")]
            if may_refuse(self.hands[seat])
            else [Action("accept")]
        )

    def _apply(self, seat: int, action: Action) -> None:
        kind = action.kind
        if kind == "take":
            sel = self.selection
            assert sel is not None and action.card is not None
            self.selection = sel = sel.take(self.layout.index(action.card))
            if not sel.takes(self.layout, values):
                self._finish(seat)
        elif kind == "done":
            self._finish(seat)
        elif kind == "trail":
            assert action.card is not None
            self.hands[seat].remove(action.card)
            self.layout.append(action.card)
            self._next_turn(seat)
        elif kind == "capture":
            assert action.card is not None
            self.hands[seat].remove(action.card)
            self.played = action.card
            able = self._able(action.card)
            if len(able) > 1:
                self.phase = ACE_VALUE
            else:
                self.selection, self.phase = Selection(able[0]), CAPTURING
        elif kind == "ace":
            assert action.number is not None
            self.selection, self.phase = Selection(action.number), CAPTURING
        else:  # accept or refuse
            self._decide(seat, kind == "refuse")

    def _decide(self, seat: int, refuse: bool) -> None:
        n = self.players
        if refuse:
            self.layout.extend(self.hands[seat])
            self.hands[seat] = []
            for k in range(n):
                self._give((seat + k) % n, PACKET)
        else:
            self._give(seat, PACKET - FIRST_CARDS)
            for k in range(1, n):
                self._give((seat + k) % n, PACKET)
            for _ in range(LAYOUT):
                self.layout.append(self.stock.pop())
        self.phase, self.actor = phases.PLAYING, seat

    def _give(self, seat: int, count: int) -> None:
        hand = self.hands[seat]
        for _ in range(count):
            hand.append(self.stock.pop())
        hand.sort()

    def _finish(self, seat: int) -> None:
        sel = self.selection
        assert sel is not None and self.played is not None
        taken = set(sel.taken)
        self._bank(seat, self.played, [c for i, c in enumerate(self.layout) if i in taken])
        self.layout = [c for i, c in enumerate(self.layout) if i not in taken]
        self.selection, self.played = None, None
        if not self.layout:
            self._tabla(seat)
        self._next_turn(seat)

    def _bank(self, seat: int, card: Card, taken: list[Card]) -> None:
        side = self.side_of[seat]
        self.points[side] += points_of(card) + sum(points_of(c) for c in taken)
        self.cards[side] += 1 + len(taken)
        self.last = seat

    def _tabla(self, seat: int) -> None:
        side = self.side_of[seat]
        self.tablas[side] += 1
        if len(self.sides) == 2 and self.tablas[1 - side] > 0:
            self.tablas[1 - side] -= 1

    def _next_turn(self, seat: int) -> None:
        n = self.players
        self.phase = phases.PLAYING
        if any(self.hands):
            nxt = (seat + 1) % n
            while not self.hands[nxt]:
                nxt = (nxt + 1) % n
            self.actor = nxt
            return
        if self.stock:
            size = min(PACKET, len(self.stock) // n)
            for k in range(n):
                if self.stock:  # a stock set up by hand may not split equally
                    self._give((self.first + k) % n, max(size, 1))
            self.actor = self.first
            return
        self._end_round()

    def _end_round(self) -> None:
        if self.last is not None and self.layout:
            side = self.side_of[self.last]
            self.points[side] += card_points(self.layout)
            self.cards[side] += len(self.layout)
            self.layout = []
        for k, p in enumerate(self.round_points()):
            self.totals[k] += p
        # A match to a target goes on with fresh rounds: a rollout scores the round it is
        # in (the search backs up one round's points, the same scale in every world).
        self.phase = phases.OVER

    def round_points(self) -> list[int]:
        points = [t + p for t, p in zip(self.tablas, self.points, strict=True)]
        bonus = self.options["most_cards_bonus"]
        if bonus and not any(self.hands) and not self.stock:
            top = max(self.cards)
            if self.cards.count(top) == 1:
                points[self.cards.index(top)] += bonus
        return points

    def estimate(self) -> tuple[float, ...]:
        """Each seat's side's points: the totals, or as if the round stopped now with the
        table going to the last capturer."""
        if self.phase == phases.OVER:
            per_side = self.totals
        else:
            now = self.round_points()
            if self.last is not None:
                now[self.side_of[self.last]] += card_points(self.layout)
            per_side = [t + p for t, p in zip(self.totals, now, strict=True)]
        return tuple(float(per_side[self.side_of[s]]) for s in range(self.players))

    # -- policies -----------------------------------------------------------------------------

    def _exposed(self, seat: int) -> bool:
        """Another side plays after ``seat``'s move this round."""
        if self.stock:
            return True
        mine = self.side_of[seat]
        return any(self.hands[s] for s in range(self.players) if self.side_of[s] != mine)

    def _lift(self, seat: int) -> bool:
        return len(self.sides) == 2 and self.tablas[1 - self.side_of[seat]] > 0

    def plan(self, seat: int) -> policy.Move:
        """The greedy whole move from here (a capture begun is carried on)."""
        hand = self.hands[seat]
        lift, exposed = self._lift(seat), self._exposed(seat)
        if self.phase == phases.PLAYING:
            may_trail = not (self.options["forced_capture"] and any(self._able(c) for c in hand))
            return policy.best_move(hand, self.layout, lift, exposed, may_trail=may_trail)
        assert self.played is not None
        sel = self.selection
        value = None if sel is None else sel.target
        prefix = () if sel is None else sel.taken
        return policy.best_move(hand, self.layout, lift, exposed, self.played, value, prefix)

    def choose(self, seat: int, policy_name: str = "heuristic") -> Action:
        """The next atomic action by ``policy_name``."""
        if policy_name == "random":
            return self.rng.choice(self.legal_actions(seat))
        if self.phase == DECIDE:  # four weak cards are worth swapping for six fresh ones
            return Action("refuse" if may_refuse(self.hands[seat]) else "accept")
        card, value, taken = self.plan(seat)
        return step(self.phase, self.selection, card, value, taken, self.layout)

    def rollout(
        self, policy_name: str = "heuristic", max_actions: int = 0, seed: int | None = None
    ) -> int:
        """Play on by ``policy_name`` to the end (or ``max_actions`` turns); returns the
        turns played. The heuristic applies each whole move at once."""
        if seed is not None:
            self.rng.seed(seed)
        steps = 0
        while self.phase != phases.OVER and (not max_actions or steps < max_actions):
            seat = self.actor
            if policy_name == "random" or self.phase == DECIDE:
                self._apply(seat, self.choose(seat, policy_name))
            elif self.phase == phases.PLAYING:
                card, value, taken = self.plan(seat)
                self.hands[seat].remove(card)
                if value:
                    self._whole_capture(seat, card, value, taken)
                else:
                    self.layout.append(card)
                    self._next_turn(seat)
            else:
                self._apply(seat, self.choose(seat, policy_name))
            steps += 1
        return steps

    def _whole_capture(self, seat: int, card: Card, value: int, taken: int) -> None:
        got = [c for i, c in enumerate(self.layout) if taken >> i & 1]
        self._bank(seat, card, got)
        self.layout = [c for i, c in enumerate(self.layout) if not taken >> i & 1]
        if not self.layout:
            self._tabla(seat)
        self._next_turn(seat)


def step(
    phase: str,
    selection: Selection | None,
    card: Card,
    value: int,
    taken: int,
    table: list[Card],
) -> Action:
    """The atomic action that moves toward the whole move ``(card, value, taken)``."""
    if phase == phases.PLAYING:
        return Action("capture" if value else "trail", card=card)
    if phase == ACE_VALUE:
        return Action("ace", number=value)
    have = set(selection.taken) if selection is not None else set()
    for i in range(len(table)):
        if taken >> i & 1 and i not in have:
            return Action("take", card=table[i])
    return Action("done")
