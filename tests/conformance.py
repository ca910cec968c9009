"""The checks every registered game must pass, usable on any :class:`GameState`.

The no-leak check compares what a seat is told (its events and its view) with an independent
record: the physical table (:meth:`GameState.table`) as it stood at every step, from the deck
order the test itself dealt. A seat is entitled to a card once it has been in a zone that seat
could see (its own hand, a face-up pile); naming any other card is a leak.
"""

from __future__ import annotations

import pickle
import random
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from levata.engine import Action, Card, Event, GameSpec, GameState, IllegalAction

#: Safety net: no game may need more actions than this for one match.
MAX_ACTIONS = 200_000
#: Milliseconds of referee clock per action in random real-time play.
CLOCK_STEP_MS = 50


def option_variants(spec: GameSpec, i: int) -> dict[str, Any]:
    """Options for the ``i``-th random match: every choice and flag gets its turn."""
    opts: dict[str, Any] = dict(spec.short_options)
    for k, o in enumerate(spec.options):
        if o.choices:
            opts[o.name] = o.choices[(i + k) % len(o.choices)]
        elif isinstance(o.default, bool):
            opts[o.name] = bool((i + k) % 2)
    return opts


def deck_of(spec: GameSpec, players: int, options: dict[str, Any]) -> list[Card]:
    """The deck a match deals from, read off a fresh match's table."""
    state = spec.new_match(players=players, options=options, seed=0)
    return [c for z in state.table() for c in z.cards]


def new_random_match(spec: GameSpec, i: int, seed: int) -> tuple[GameState, list[Card]]:
    """Match ``i``: players and options vary with ``i``; the test deals the deck itself."""
    players = spec.players[i % len(spec.players)]
    options = option_variants(spec, i)
    deck = deck_of(spec, players, options)
    random.Random(seed).shuffle(deck)
    return spec.new_match(players=players, options=options, seed=seed, deal=deck), deck


def random_steps(state: GameState, rng: random.Random) -> Iterator[tuple[int, Action]]:
    """Play random legal actions to the end, yielding each ``(seat, action)`` after it applies."""
    for step in range(MAX_ACTIONS):
        if state.is_over():
            return
        if state.realtime:
            state.advance_clock(step * CLOCK_STEP_MS)
            if state.is_over():
                return
        seats = state.to_act()
        assert seats, "the match is not over but nobody is to act"
        seat = rng.choice(seats)
        legal = state.legal_actions(seat)
        assert legal, f"seat {seat} is to act but has no legal action"
        action = rng.choice(legal)
        state.apply(seat, action)
        yield seat, action
    raise AssertionError(f"no end after {MAX_ACTIONS} actions")


def snapshot(state: GameState) -> bytes:
    """Everything about a state, to prove an operation changed nothing."""
    return pickle.dumps(state)


def table_cards(state: GameState) -> Counter[Card]:
    return Counter(c for z in state.table() for c in z.cards)


@dataclass
class LeakWatch:
    """Tracks what each seat is entitled to know and checks every message against it.

    Entitlement grows from the table alone: at every event, as it is emitted, each seat gains
    the cards of the zones it can see at that instant. The event must name only cards its
    audience is entitled to; after each action every seat's whole view is checked too.
    """

    state: GameState
    entitled: list[set[Card]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.entitled = [set() for _ in range(self.state.players)]
        self._see_table()
        for ev in self.state.events():
            self._on_event(self.state, ev)
        self.state.watch(self._on_event)

    def close(self) -> None:
        self.state.watch(None)

    def _see_table(self) -> None:
        for zone in self.state.table():
            for seat in range(self.state.players):
                if zone.visible_to(seat):
                    self.entitled[seat].update(zone.cards)

    def _on_event(self, state: GameState, ev: Event) -> None:
        self._see_table()
        for seat in range(state.players):
            if ev.visible_to(seat):
                self._check(seat, ev.cards, f"event {ev.seq} {ev.kind}")

    def observe(self) -> None:
        """After an action: every seat's view names only cards it is entitled to."""
        self._see_table()
        for seat in range(self.state.players):
            self._check(seat, self.state.view(seat).cards_named(), "view")

    def _check(self, seat: int, cards: Any, where: str) -> None:
        leaked = [c for c in cards if c not in self.entitled[seat]]
        assert not leaked, (
            f"leak: seat {seat} is told {[str(c) for c in leaked]} in {where} of {self.state.game}"
        )


def check_illegal_changes_nothing(state: GameState, rng: random.Random, deck: list[Card]) -> None:
    """Wrong seats, foreign cards and unknown kinds raise and leave the state as it was."""
    before = snapshot(state)
    acting = set(state.to_act())
    idle = [s for s in range(state.players) if s not in acting]
    attempts: list[tuple[int, Action]] = []
    if idle:
        seat = rng.choice(idle)
        attempts.append((seat, rng.choice(state.legal_actions(rng.choice(list(acting))))))
    seat = rng.choice(sorted(acting))
    legal = state.legal_actions(seat)
    attempts.append((seat, Action("no_such_move")))
    kinds = {a.kind for a in legal if a.card is not None} or {"play"}
    for card in rng.sample(deck, min(5, len(deck))):
        for kind in kinds:
            if Action(kind, card=card) not in legal:
                attempts.append((seat, Action(kind, card=card)))
    attempts.append((seat, Action("bid", number=99)))
    for who, action in attempts:
        try:
            state.apply(who, action)
        except IllegalAction as exc:
            assert exc.reason, "an illegal action must say why"
        else:
            raise AssertionError(f"{action} by seat {who} was accepted")
    tried = ", ".join(str(a) for _, a in attempts)
    assert snapshot(state) == before, f"one of the illegal actions ({tried}) changed the state"


def play_checked(spec: GameSpec, i: int, seed: int, sample_every: int = 0) -> GameState:
    """One random match with every per-step check on; returns the finished state."""
    state, deck = new_random_match(spec, i, seed)
    rng = random.Random(seed + 1)
    deck_count = Counter(deck)
    assert table_cards(state) == deck_count, "the table does not hold the deck"
    watch = LeakWatch(state)
    for step, _ in enumerate(random_steps(state, rng)):
        assert table_cards(state) == deck_count, f"cards not conserved at step {step}"
        watch.observe()
        if state.is_over():
            break
        if step % 7 == 0:
            check_illegal_changes_nothing(state, rng, deck)
        if step % 11 == 0:
            check_clone_independent(state, rng)
        if sample_every and step % sample_every == 0:
            check_sample(state, rng.randrange(state.players), rng)
    watch.close()
    state.result()
    return state


def check_clone_independent(state: GameState, rng: random.Random) -> None:
    before = snapshot(state)
    twin = state.clone()
    for _ in zip(range(5), random_steps(twin, random.Random(rng.random())), strict=False):
        pass
    assert snapshot(state) == before, "acting on a clone changed the original"


def check_sample(state: GameState, seat: int, rng: random.Random) -> GameState:
    """A sampled world looks the same to ``seat``, holds the deck, and plays on legally."""
    world = state.sample_world(seat, random.Random(rng.random()))
    assert world is not state
    assert world.view(seat) == state.view(seat), f"sampled world differs for seat {seat}"
    assert table_cards(world) == table_cards(state), "sampled world changed the deck"
    for _ in zip(range(20), random_steps(world, random.Random(rng.random())), strict=False):
        pass
    return world


def hidden_cards(state: GameState, seat: int) -> dict[Card, set[str]]:
    """Each card ``seat`` cannot see, with the zones that truly hold it."""
    out: dict[Card, set[str]] = {}
    for zone in state.table():
        if not zone.visible_to(seat):
            for c in zone.cards:
                out.setdefault(c, set()).add(zone.name)
    return out
