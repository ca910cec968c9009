"""Kemps' playout kernel (``levata.engine.kemps_playouts``) against the Python copy
(``levata.engine.games.kemps.playout``) and the game: one source of truth per rule, so the C
copy must agree everywhere.

Positions come from random and heuristic matches of every table size (one deck to eight
players, two from ten) under every option that changes play (``signal_audit``,
``convention_chat``), with kemps sets registered at random so that signals break the audit
now and then. At each tick of the exchange and the last call both copies are loaded from the
game: their positions, legal actions (the game's too), successors after every legal action
(signals included), estimates, heuristic choices with their tokens (``serve`` and ``dress``
too) and whole rollouts must be equal. The kernel's random stream is splitmix64; the Python
copy is given the same stream (its decoys read ``random()`` from the top 53 bits), so random
rollouts and the heuristic's decoys must be equal token for token as well.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from splitmix import SplitMix  # tests/engine: pytest puts it on the path

from levata.engine import Action, game
from levata.engine.games.kemps import KempsState
from levata.engine.games.kemps.playout import KempsPlayout as PythonPlayout
from levata.engine.games.kemps.policy import convention
from levata.engine.games.kemps.rules import ALPHABET, mask_of, team_of
from levata.engine.kemps_playouts import POLICIES, KempsPlayout

SPEC = game("kemps")
OPTIONS = [
    {},
    {"signal_audit": False},
    {"convention_chat": True},
    {"signal_audit": False, "convention_chat": True, "max_deals": 3},
]
PLAY = ("exchange", "last_call")


class Stream(SplitMix):
    """The kernel's stream with ``random()`` as the kernel draws a decoy's chance."""

    def random(self) -> float:
        return (self.next() >> 11) * 2.0**-53


def register(state: KempsState, seat: int, rng: random.Random) -> Action:
    """A kemps set of one to three tokens, the team's convention token in half of them."""
    tokens = set(rng.sample(ALPHABET, rng.randint(1, 3)))
    if rng.random() < 0.5:
        tokens.add(convention(state.secrets[team_of(seat, state.players)])[0])
    return Action("register").with_payload(kemps=mask_of(tokens))


def random_move(legal: list[Action], still: bool, rng: random.Random) -> Action:
    """A uniform legal move, a call only one time in ten (so that deals reach the last
    call), a pass in a still tick; now and then with a random signal."""
    action = legal[0] if still else rng.choice(legal)
    if action.kind in ("kemps", "contrakemps") and rng.random() < 0.9:
        action = legal[0]
    if rng.random() < 0.15:
        action = action.with_payload(signal=rng.choice(ALPHABET))
    return action


def positions(seed: int, policy: str) -> Iterator[KempsState]:
    """The first deals of a match from ``seed`` at a random table and options, moved on by
    ``policy`` (:func:`random_move`, or the Python copy's heuristic): the state at each tick
    of the exchange and the last call, and between the submissions of one tick too."""
    rng = random.Random(seed)
    players = rng.choice(SPEC.players)
    state = SPEC.new_match(players, seed=seed, options=rng.choice(OPTIONS))
    mover: PythonPlayout | None = None
    deals = 12 if policy == "random" else 4  # random deals end in a few ticks
    while not state.is_over() and state.deal_no <= deals:
        if state.phase not in PLAY:
            mover = None
            for seat in state.to_act():
                legal = state.legal_actions(seat)
                kind = legal[0].kind
                state.apply(seat, register(state, seat, rng) if kind == "register" else legal[0])
            continue
        if mover is None:
            mover = state.python_playout_state(seed)
        yield state
        seats = list(state.to_act())
        rng.shuffle(seats)
        still = rng.random() < 0.3  # a tick of passes: the table is flushed
        for i, seat in enumerate(seats):
            if i == len(seats) // 2:
                yield state  # some seats submitted, the others not yet
            if policy == "random":
                action = random_move(state.legal_actions(seat), still, rng)
            else:
                action = mover.choose(seat)
            state.apply(seat, action)
            mover._apply(seat, action)


def both(state: KempsState, seed: int) -> tuple[KempsPlayout, PythonPlayout]:
    fast, slow = state.playout_state(seed), state.python_playout_state(seed)
    slow.rng = Stream(seed)  # type: ignore[assignment]  # .random and .choice only
    assert fast.fields() == slow.fields()
    return fast, slow


def same(fast: KempsPlayout, slow: PythonPlayout, after: str) -> None:
    assert fast.fields() == slow.fields(), after
    assert fast.to_act() == slow.to_act() and fast.is_over() == slow.is_over(), after
    assert fast.estimate() == slow.estimate(), after


@pytest.mark.parametrize("policy", ["random", "heuristic"])
def test_legal_actions_and_successors_agree_over_whole_deals(policy):
    """At every position: the same legal actions (the game's), and the same successor after
    each legal action of a seat to act (with a signal now and then), and after the tick
    resolved by the others' choices."""
    steps = every = 0
    kinds, ends, tables = set(), set(), set()
    for seed in range(10):
        for state in positions(seed, policy):
            fast, slow = both(state, seed)
            tables.add(state.players)
            for s in range(state.players):
                assert fast.legal_actions(s) == slow.legal_actions(s) == state.legal_actions(s)
            waiting = state.to_act()
            seat = waiting[steps % len(waiting)]
            for k, move in enumerate(state.legal_actions(seat)):
                if k % 3 == 1:
                    move = move.with_payload(signal=ALPHABET[(k + steps) % len(ALPHABET)])
                after_fast, after_slow = fast.clone(), slow.clone()
                after_fast._apply(seat, move)
                after_slow._apply(seat, move)
                for other in after_slow.to_act():  # the rest of the tick, alike
                    choice = after_slow.choose(other)
                    assert after_fast.choose(other) == choice
                    after_fast._apply(other, choice)
                    after_slow._apply(other, choice)
                same(after_fast, after_slow, f"seed {seed}: {move} by seat {seat}")
                ends.add(after_slow.phase)
                every += 1
                kinds.add(move.kind)
            steps += 1
    assert steps > 300 and every > 10 * steps  # the walk reached what it is meant to test
    assert kinds == {"pass", "swap", "kemps", "contrakemps"}
    assert ends == ({*PLAY, "over"} if policy == "random" else {"exchange", "over"})
    assert tables == set(SPEC.players)


def test_heuristic_choices_agree_with_their_tokens():
    """From positions of both kinds of match, the heuristic's choices (tokens included) for
    every seat through 30 ticks, the copies serving one seat's search (its partner leaves
    CONTRAKEMPS to it) or none; and ``dress`` dresses each legal choice alike."""
    choices = tokens = spared = 0
    for seed in range(100, 110):
        for i, state in enumerate(positions(seed, "random" if seed % 2 else "heuristic")):
            if i % 4:
                continue
            fast, slow = both(state, i)
            if i % 8 == 0:
                fast.serve(i % state.players)
                slow.serve(i % state.players)
            seat = state.to_act()[0]
            for action in state.legal_actions(seat)[:6]:
                assert fast.dress(seat, action) == slow.dress(seat, action)
            for _ in range(30):
                if slow.is_over():
                    break
                for s in slow.to_act():
                    mine, theirs = fast.choose(s), slow.choose(s)
                    assert mine == theirs, f"seed {seed}, position {i}"
                    assert mine.without_payload() in slow.legal_actions(s)
                    tokens += bool(mine.payload)
                    fast._apply(s, mine)
                    slow._apply(s, theirs)
                    choices += 1
                same(fast, slow, f"seed {seed}, position {i}")
            spared += slow.searcher is not None and fast.fields()["searcher"] is not None
    assert choices > 5000 and tokens > 100 and spared > 10


@pytest.mark.parametrize("policy", POLICIES)
def test_whole_rollouts_agree(policy):
    """Rollouts to the deal's end (and to a horizon), the random ones on the same stream."""
    played = 0
    for seed in range(200, 210):
        for i, state in enumerate(positions(seed, "heuristic" if seed % 2 else "random")):
            if i % 5:
                continue
            for limit in (0, 7):
                fast, slow = both(state, seed)
                slow.rng = Stream(seed * 7 + i)  # type: ignore[assignment]
                taken = fast.rollout(policy, limit, seed=seed * 7 + i)
                assert slow.rollout(policy, limit) == taken
                same(fast, slow, f"seed {seed}, position {i}, limit {limit}")
                played += taken
    assert played > 500


def exchange() -> KempsState:
    return KempsState.from_position(
        4, ["7S 7H 7D 7C", "2S 3S 4S 5S", "8S 8H 9D 9C", "JS QS KS AS"], table="2H 3H 4H 5H"
    )


def test_clone_apply_and_errors():
    state = exchange()
    fast = state.playout_state(seed=1)
    copy = fast.clone()
    copy.apply(1, Action.parse("swap 2S@0"))
    assert copy.to_act() == (0, 2, 3) and fast.to_act() == (0, 1, 2, 3)
    assert copy.fields()["submissions"] != fast.fields()["submissions"]
    with pytest.raises(ValueError, match="not legal"):
        fast.apply(1, Action.parse("swap 7S@0"))  # not in seat 1's hand
    with pytest.raises(ValueError, match="not legal"):
        copy.apply(1, Action("pass"))  # seat 1 already submitted
    with pytest.raises(ValueError, match="not legal"):
        fast.apply(0, Action("contrakemps", number=0))  # its own team
    with pytest.raises(ValueError, match="signal"):
        fast.apply(0, Action("pass").with_payload(signal="G99"))
    with pytest.raises(ValueError, match="only payload"):
        fast.apply(0, Action("pass").with_payload(expect="2H"))
    with pytest.raises(ValueError, match="not to act"):
        copy.choose(1)
    with pytest.raises(ValueError, match="policy"):
        fast.rollout("greedy")
    with pytest.raises(ValueError, match="max_actions"):
        fast.rollout("random", -1)
    assert fast.rollout("heuristic") > 0 and fast.is_over() and not copy.is_over()
    assert fast.to_act() == () and fast.legal_actions(0) == []
    good = state.playout_fields()
    with pytest.raises(ValueError, match="seats"):
        KempsPlayout(good | {"players": 5})
    with pytest.raises(ValueError, match="each of the 4 seats"):
        KempsPlayout(good | {"hands": good["hands"][:3]})
    with pytest.raises(ValueError, match="waiting"):
        KempsPlayout(good | {"waiting": (0, 0)})
    with pytest.raises(ValueError, match="exchange"):
        KempsPlayout(good | {"phase": "convene"})
    with pytest.raises(ValueError, match="French deck"):
        KempsPlayout(good | {"slots": ["2H"]})


def test_sixty_ticks_of_swaps_flush_the_table_then_the_last_call():
    """Seat 0 swaps at every tick: the table set is flushed at its sixtieth tick (the guard),
    whatever moves; without swaps each tick flushes, until the stock runs out and the last
    call comes, three cards left in the stock. Both copies and the game agree at every
    tick."""
    rest = exchange().stock
    state = KempsState.from_position(
        4,
        ["7S 7H 7D 7C", "2S 3S 4S 5S", "8S 8H 9D 9C", "JS QS KS AS"],
        table="2H 3H 4H 5H",
        stock=rest[:7],
        dead=rest[7:],
    )
    fast, slow = both(state, 5)
    flushed = []
    for t in range(75):
        swapping = t < 65
        for seat in state.to_act():
            action = state.legal_actions(seat)[1 if swapping and seat == 0 else 0]
            state.apply(seat, action)
            fast._apply(seat, action)
            slow._apply(seat, action)
        same(fast, slow, f"tick {t}")
        got = fast.fields()
        assert (got["slots"], got["dead"], got["phase"]) == (state.slots, state.dead, state.phase)
        flushed.append(len(got["dead"]))
        if state.phase != "exchange":
            break
    assert flushed[58] == len(rest) - 7 and flushed[59] == len(rest) - 3  # the sixtieth
    assert len(got["stock"]) == 3
    assert got["phase"] == "last_call" and fast.legal_actions(0)[0] == Action("pass")
    assert fast.legal_actions(0) == state.legal_actions(0) == slow.legal_actions(0)
