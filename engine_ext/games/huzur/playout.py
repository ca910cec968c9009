"""Huzur's playout copy in Python: the rules on plain lists, with no events, views, moves or
history, and the heuristic's choices made straight from the cards.

The search runs on the C kernel (:mod:`levata.engine.huzur_playouts`, what
:meth:`HuzurState.playout_state <levata.engine.games.huzur.HuzurState.playout_state>`
returns), several times faster. This copy stays as the kernel's reference: it is written
from the game's rule functions (:mod:`.rules`) and policy (:mod:`.policy`), so it is
readable where the kernel is fast; ``tests/games/test_huzur.py`` proves it offers the same
legal actions and reaches the same positions as the game, action for action, and
``tests/engine/test_huzur_kernel.py`` that the kernel agrees with it (positions, choices,
whole rollouts). :meth:`HuzurState.python_playout_state
<levata.engine.games.huzur.HuzurState.python_playout_state>` makes one. Its ``heuristic``
policy makes the heuristic bot's choice at a move's first card and keeps to that plan for
the move's other cards (the bot itself asks again at each card, and almost always agrees).

>>> from levata.engine.games.huzur import HuzurState
>>> state = HuzurState.from_position(3, ["8H 9H AC", "10H 2C 7S", "QS"], "10C")
>>> fast = state.python_playout_state(seed=1)
>>> fast.legal_actions(0) == state.legal_actions(0), str(fast.choose(0))
(True, 'play 8H')
>>> fast.rollout("heuristic", 0) > 0 and fast.is_over()
True
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from levata.engine.cards import Card, Suit
from levata.engine.contract import Action
from levata.engine.family.shedding import ranks_by_finish
from levata.engine.games.huzur.policy import best_beat, best_lead, should_beat
from levata.engine.games.huzur.rules import HAND_SIZE, beats, can_beat, extends, is_lead

__all__ = ["HuzurPlayout"]

OVER = "over"


class HuzurPlayout:
    """A Huzur position to play on quickly (see the module)."""

    __slots__ = (
        "actions",
        "active",
        "cap",
        "discard",
        "finished",
        "hand_no",
        "hands",
        "low",
        "min_cap",
        "opener",
        "phase",
        "plan",
        "players",
        "plays",
        "responders",
        "rng",
        "stock",
        "table",
        "trump",
        "turned",
    )

    players: int
    trump: Suit
    low: Card
    hands: list[list[Card]]
    stock: list[Card]
    turned: list[Card]
    table: list[Card]
    discard: list[Card]
    plays: list[list[int]]
    opener: int
    responders: list[int]
    finished: list[int]
    active: list[bool]
    hand_no: int
    cap: int
    min_cap: bool
    phase: str
    plan: list[Card] | None
    rng: random.Random
    actions: Any  # the game's action objects: play, beat, done, take, swap

    @classmethod
    def of(cls, state: Any, seed: int, acts: Any) -> HuzurPlayout:
        """The copy of a :class:`HuzurState` (``acts``: its action objects by kind)."""
        new = cls.__new__(cls)
        new.players = state.players
        new.trump = state.trump
        new.low = Card(state.trump, 7 if state.players == 3 else 5)
        new.hands = [list(h) for h in state.hands]
        new.stock = list(state.stock)
        new.turned = list(state.turned_pile)
        new.table = list(state.on_table)
        new.discard = list(state.discard)
        new.plays = [list(p) for p in state.plays]
        new.opener = state.opener
        new.responders = list(state.responders)
        new.finished = list(state.finished)
        new.active = list(state.active)
        new.hand_no = state.hand_no
        new.cap = state.options["hand_cap"]
        new.min_cap = bool(state.options["cap_lead_to_min_hand"])
        new.phase = state.phase
        new.plan = None
        new.rng = random.Random(seed)
        new.actions = acts
        return new

    def fields(self) -> dict[str, Any]:
        """The position as plain values: what the C kernel
        (:class:`levata.engine.huzur_playouts.HuzurPlayout`) is loaded from, and what its
        ``fields()`` must equal after every action (its differential test)."""
        return {
            "players": self.players,
            "trump": self.trump.slot,
            "hands": [list(h) for h in self.hands],
            "stock": list(self.stock),
            "turned": list(self.turned),
            "table": list(self.table),
            "discard": sorted(self.discard),
            "plays": [list(p) for p in self.plays],
            "opener": self.opener,
            "responders": list(self.responders),
            "finished": list(self.finished),
            "active": list(self.active),
            "hand_no": self.hand_no,
            "hand_cap": self.cap,
            "cap_lead_to_min_hand": self.min_cap,
            "phase": self.phase,
            "plan": None if self.plan is None else list(self.plan),
        }

    def clone(self) -> HuzurPlayout:
        new = HuzurPlayout.__new__(HuzurPlayout)
        new.players, new.trump, new.low = self.players, self.trump, self.low
        new.hands = [list(h) for h in self.hands]
        new.stock = list(self.stock)
        new.turned = list(self.turned)
        new.table = list(self.table)
        new.discard = list(self.discard)
        new.plays = [list(p) for p in self.plays]
        new.opener = self.opener
        new.responders = list(self.responders)
        new.finished = list(self.finished)
        new.active = list(self.active)
        new.hand_no, new.cap, new.min_cap = self.hand_no, self.cap, self.min_cap
        new.phase = self.phase
        new.plan = None if self.plan is None else list(self.plan)
        new.rng = random.Random()
        new.rng.setstate(self.rng.getstate())
        new.actions = self.actions
        return new

    # -- the rules (as the game's, on plain lists) ------------------------------------------

    def is_over(self) -> bool:
        return self.phase == OVER

    def to_act(self) -> tuple[int, ...]:
        if self.phase == OVER:
            return ()
        if self.phase in ("open", "lead"):
            return (self.opener,)
        return (self.responders[0],)

    def _play_cards(self, i: int) -> list[Card]:
        i %= len(self.plays)
        start = sum(p[1] for p in self.plays[:i])
        return self.table[start : start + self.plays[i][1]]

    def _targets(self) -> tuple[list[Card], int]:
        if self.phase == "beating":
            return self._play_cards(-2), self.plays[-1][1]
        return self._play_cards(-1), 0

    def _most(self) -> int:
        if not self.min_cap:
            return 5
        others = [
            len(self.hands[s]) for s in range(self.players) if self.active[s] and s != self.opener
        ]
        return max(1, min([5, *others]))

    def _can_swap(self, seat: int) -> bool:
        return bool(self.turned) and self.turned[0] != self.low and self.low in self.hands[seat]

    def legal_actions(self, seat: int) -> list[Action]:
        if self.phase == OVER or seat not in self.to_act():
            return []
        a = self.actions
        hand, phase = self.hands[seat], self.phase
        out: list[Action] = []
        if phase in ("open", "respond") and self._can_swap(seat):
            out.append(a["swap"])
        if phase == "open":
            out += [a["play"][c] for c in hand]
        elif phase == "lead":
            chosen = self._play_cards(-1)
            most, last = self._most(), chosen[-1]
            for i, c in enumerate(hand):
                if c > last and extends(chosen, c, hand[i + 1 :], most):
                    out.append(a["play"][c])
            if is_lead(chosen):
                out.append(a["done"])
        else:
            targets, k = self._targets()
            trump = self.trump
            if len(targets) - k <= len(hand):
                rest = targets[k + 1 :]
                for i, c in enumerate(hand):
                    if beats(c, targets[k], trump) and can_beat(
                        rest, hand[:i] + hand[i + 1 :], trump
                    ):
                        out.append(a["beat"][c])
            if phase == "respond":
                out.append(a["take"])
        return out

    def _apply(self, seat: int, action: Action) -> None:
        kind = action.kind
        if kind == "play":
            self._lead_card(seat, action.card)  # type: ignore[arg-type]  # plays carry cards
        elif kind == "done":
            self._lead_done(seat)
        elif kind == "beat":
            self._beat_card(seat, action.card)  # type: ignore[arg-type]
        elif kind == "take":
            self._take(seat)
        elif kind == "swap":
            self._swap(seat)

    def _lead_card(self, seat: int, card: Card) -> None:
        if self.phase == "open":
            self.plays.append([seat, 0])
            self.phase = "lead"
        self.plays[-1][1] += 1
        hand = self.hands[seat]
        hand.remove(card)
        self.table.append(card)
        chosen = self._play_cards(-1)
        most = self._most()
        if not any(
            c > card and extends(chosen, c, hand[i + 1 :], most) for i, c in enumerate(hand)
        ):
            self._lead_done(seat)

    def _lead_done(self, seat: int) -> None:
        self.plan = None
        self._refill(seat)
        self._check_finished()
        if self.phase == OVER:
            return
        order, t = [], self._next(seat)
        while t != seat and t not in order:
            order.append(t)
            t = self._next(t)
        self.responders = order
        self.phase = "respond"

    def _beat_card(self, seat: int, card: Card) -> None:
        targets, k = self._targets()
        if self.phase == "respond":
            self.plays.append([seat, 0])
            self.phase = "beating"
        self.plays[-1][1] += 1
        self.hands[seat].remove(card)
        self.table.append(card)
        if k + 1 < len(targets):
            return
        self.plan = None
        self._refill(seat)
        self._check_finished()
        if self.phase == OVER:
            return
        self.responders = [s for s in self.responders[1:] if self.active[s]]
        if self.responders:
            self.phase = "respond"
            return
        self.discard += self.table
        self.table = []
        self.plays = []
        opener = self.opener if self.active[self.opener] else self._next(self.opener)
        self._start_hand(opener)

    def _take(self, seat: int) -> None:
        hand = self.hands[seat]
        hand += self.table
        hand.sort()
        self.table = []
        self.plays = []
        self.plan = None
        self._quads(seat)
        self._refill(seat)
        self._check_finished()
        if self.phase != OVER:
            self._start_hand(self._next(seat))

    def _swap(self, seat: int) -> None:
        hand = self.hands[seat]
        hand.remove(self.low)
        hand.append(self.turned[0])
        hand.sort()
        self.turned = [self.low]
        if self._quads(seat):
            self._refill(seat)
        self._check_finished()

    def _next(self, s: int) -> int:
        n = self.players
        t = (s + 1) % n
        while not self.active[t]:
            t = (t + 1) % n
        return t

    def _refill(self, seat: int) -> None:
        hand = self.hands[seat]
        while len(hand) < HAND_SIZE and (self.stock or self.turned):
            need = HAND_SIZE - len(hand)
            stock = self.stock
            k = min(need, len(stock))
            if k:
                hand += stock[-k:]
                del stock[-k:]
            if k < need and self.turned:
                hand.append(self.turned.pop())
            hand.sort()
            if not self._quads(seat):
                break

    def _quads(self, seat: int) -> bool:
        hand = self.hands[seat]
        fours = [r for r, k in Counter(c.rank for c in hand).items() if k == 4]
        if not fours:
            return False
        for r in sorted(fours):
            gone = [c for c in hand if c.rank == r]
            self.discard += gone
            hand[:] = [c for c in hand if c.rank != r]
        return True

    def _check_finished(self) -> None:
        if self.stock or self.turned:
            return
        for s in range(self.players):
            if self.active[s] and not self.hands[s] and self.phase != OVER:
                self.active[s] = False
                self.finished.append(s)
                if sum(self.active) <= 1:
                    self.phase = OVER

    def _start_hand(self, opener: int) -> None:
        if self.hand_no >= self.cap:
            self.phase = OVER
            return
        self.hand_no += 1
        self.opener = opener
        self.responders = []
        self.plays = []
        self.phase = "open"

    # -- outcome and the policy -------------------------------------------------------------

    def ranks(self) -> tuple[int, ...]:
        rest = [s for s in range(self.players) if self.active[s]]
        return ranks_by_finish(self.finished, rest, [len(h) for h in self.hands])

    def estimate(self) -> tuple[float, ...]:
        """The game's :meth:`~levata.engine.games.huzur.HuzurState.estimate`."""
        return tuple(float(self.players - r) for r in self.ranks())

    def choose(self, seat: int, policy: str = "heuristic") -> Action:
        """The move ``policy`` (``heuristic`` or ``random``) makes for ``seat`` now. The
        heuristic's moves are legal by construction (a lead :func:`best_lead` makes, a
        beat :func:`best_beat` finds), so it never lists the legal actions."""
        if policy == "random":
            return self.rng.choice(self.legal_actions(seat))
        a, phase = self.actions, self.phase
        if phase in ("open", "respond") and self._can_swap(seat):
            return a["swap"]
        hand, trump = self.hands[seat], self.trump
        late = not self.stock and not self.turned
        if phase in ("open", "lead"):
            if phase == "open" or self.plan is None:  # a plan lasts one move
                chosen = self._play_cards(-1) if phase == "lead" else []
                lead = best_lead(
                    hand,
                    trump,
                    late=late,
                    out=self.discard + self.table,
                    players=self.players,
                    most=self._most(),
                    chosen=chosen,
                )
                self.plan = [c for c in lead if c not in chosen]
            if self.plan:
                return a["play"][self.plan.pop(0)]
            return a["done"]
        if phase == "respond" or not self.plan:
            targets, k = self._targets()
            found = best_beat(targets[k:], hand, trump)
            if phase == "respond" and (
                found is None or not should_beat(found[0], targets, self.table, trump, late)
            ):
                return a["take"]
            assert found is not None  # a beat begun can always be finished
            self.plan = list(found[1])
        return a["beat"][self.plan.pop(0)]

    def rollout(
        self, policy: str = "heuristic", max_actions: int = 0, seed: int | None = None
    ) -> int:
        """Play on by ``policy`` to the end, or for ``max_actions`` (0: no limit); the
        actions taken."""
        if seed is not None:
            self.rng = random.Random(seed)
        steps = 0
        while self.phase != OVER and (not max_actions or steps < max_actions):
            seat = self.to_act()[0]
            self._apply(seat, self.choose(seat, policy))
            steps += 1
        return steps
