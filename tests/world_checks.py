"""The ``world_from_view`` contract, checked on positions of random play (Macao, Repezita).

``check_world`` is the whole contract for one position and seat: the world's view equals the
real one (history included), its legal actions for the seat are the real ones, it holds the
deck, every seat's history is its share of the world's log, and play goes on by the rules
to the end (random moves, and a clone and a sampled world of it too).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterator

from levata.engine import GameSpec, GameState
from levata.engine.testing import CLOCK_STEP_MS, new_random_match, random_steps, table_cards

Rebuild = Callable[[GameSpec, object, random.Random], GameState]


def check_world(
    spec: GameSpec, state: GameState, seat: int, rng: random.Random, rebuild: Rebuild | None = None
) -> GameState:
    """Raise AssertionError unless a world rebuilt from ``state.view(seat)`` keeps the contract."""
    view = state.view(seat)
    world = spec.world_from_view(view, rng) if rebuild is None else rebuild(spec, view, rng)
    assert world is not state
    got = world.view(seat)
    for name in ("phase", "to_act", "hand", "zones", "counts", "counters", "facts", "options"):
        assert getattr(got, name) == getattr(view, name), f"the world's {name} differs"
    assert got.history == view.history, "the world's history differs"
    assert got == view, "the world's view differs"
    assert world.legal_actions(seat) == state.legal_actions(seat), "legal actions differ"
    assert table_cards(world) == table_cards(state), "the world does not hold the deck"
    for s in range(world.players):
        assert world.history(s) == tuple(world.events(seat=s)), f"seat {s}'s history is off"
    assert world.to_act() == state.to_act(), "a different seat is to act"
    twin = world.clone()
    clock = int(view.counters.get("clock_ms", 0))
    play_out(twin, random.Random(rng.random()), clock)
    assert twin.is_over()
    twin.result()
    if not world.is_over() and world.to_act():
        other = world.sample_world(world.to_act()[0], random.Random(rng.random()))
        play_out(other, random.Random(rng.random()), clock)
    return world


def play_out(state: GameState, rng: random.Random, clock: int = 0) -> None:
    """Random legal moves to the end, the real-time clock moving on from ``clock``."""
    for step in range(200_000):
        if state.realtime:
            state.advance_clock(clock + step * CLOCK_STEP_MS)
        if state.is_over():
            return
        seat = rng.choice(state.to_act())
        state.apply(seat, rng.choice(state.legal_actions(seat)))
    raise AssertionError("no end")


def positions(
    spec: GameSpec, matches: int, every: int, seed: int = 0, options: dict | None = None
) -> Iterator[tuple[GameState, int]]:
    """Positions of random matches (every player count, option variants) and a seat to check:
    every ``every``-th step, alternately the seat to act and a random one."""
    for i in range(matches):
        state, _ = new_random_match(spec, i, seed + i)
        if options:
            state = spec.new_match(state.players, {**state.options, **options}, seed=seed + i)
        rng = random.Random(seed + i)
        yield state, rng.randrange(state.players)
        for step, _ in enumerate(random_steps(state, rng)):
            if state.is_over():
                break
            if step % every == 0:
                acting = state.to_act()
                seat = acting[0] if step % (2 * every) == 0 else rng.randrange(state.players)
                yield state, seat


def coverage(spec: GameSpec, state: GameState, seat: int, worlds: int) -> Counter:
    """How often each hidden card landed in the zone that truly holds it, over ``worlds``."""
    truth = {(c, z.name) for z in state.table() if not z.visible_to(seat) for c in z.cards}
    seen: Counter = Counter()
    view = state.view(seat)
    for k in range(worlds):
        world = spec.world_from_view(view, random.Random(k))
        for z in world.table():
            for c in z.cards:
                if (c, z.name) in truth:
                    seen[(c, z.name)] += 1
    return Counter({key: seen[key] for key in truth})
