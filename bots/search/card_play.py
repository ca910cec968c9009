"""IS-MCTS of a trick deal's card play in the C kernel, for the ismcts bot
(:class:`~levata.bots.search.ismcts.IsmctsBot`).

Where what is left of the deal is card play under the deal's rules alone
(:meth:`~levata.engine.family.tricks.TrickGame.plays_out_by_rules`: Whist, Tarneeb, 3-5-8,
8-5-3, Banking; not Bestia's pot duties, Filcău's first trick or 66's stock), the whole
search runs in :class:`~levata.engine.trick_search.TrickSearch`: tree, determinizations and
rollouts. Python deals the worlds (the game's exact sampler, one world per ``reuse``
iterations: the kernel takes them in turn), watches the clock between batches and reads the
root. Between two uses the kernel moves a world on by a few random swaps of cards between
the hidden hands, each card staying where the view allows it
(:meth:`~levata.engine.family.tricks.TrickGame.redealt_cards`): a swap and its reverse
are equally likely, so every world stays a uniform draw and each iteration searches a fresh
one. The deal's end is valued by the game's strategy
(:meth:`~levata.bots.strategy.Strategy.deal_values`: Whist's deal points by bid, a team's
tricks...), so a multi-deal match is searched to the end of the deal in progress.

>>> from levata.engine import game
>>> from levata.bots import play_match
>>> from levata.bots.search.ismcts import IsmctsBot
>>> state = game("whist").new_match(players=4, options={"deal_size": 4}, seed=2)
>>> bots = [IsmctsBot("whist", seed=s, iterations=300, time_ms=0) for s in range(4)]
>>> play_match(state, bots).reason
'complete'
>>> bots[0].stats.kernel_decisions > 0
True
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from typing import NamedTuple

from levata.bots.search.double_dummy import kernel_seat, position
from levata.bots.strategy import strategy_for
from levata.engine import Action, GameSpec, GameState, SeatView, actions
from levata.engine.cardmask import mask_of
from levata.engine.family.tricks import TrickGame
from levata.engine.rules import legal_cards
from levata.engine.trick_search import TrickSearch
from levata.engine.worlds import Evidence

__all__ = ["KernelRun", "card_actions", "fits_kernel", "search_cards"]


class KernelRun(NamedTuple):
    """One kernel search: the root's edges by action, ``(visits, avail, reward, square)``
    (rewards are sums of values in [0, 1]), and what it cost."""

    edges: dict[Action, tuple[int, int, float, float]]
    iterations: int
    actions: int
    worlds: int


def card_actions(legal: Sequence[Action]) -> dict[int, Action] | None:
    """The legal actions by card index when every one of them plays a card, else ``None``
    (a call, or Whist's forehead card that the seat cannot see)."""
    out: dict[int, Action] = {}
    for a in legal:
        if a.kind != actions.PLAY or a.card is None:
            return None
        out[a.card.index] = a
    return out


def fits_kernel(world: GameState, seat: int, cards: dict[int, Action]) -> bool:
    """Whether ``world`` (a world of ``seat``'s view) can be searched in the kernel: its
    deal plays out by its rules and the kernel allows the seat exactly ``cards``."""
    if not isinstance(world, TrickGame) or not world.plays_out_by_rules():
        return False
    if world.rules.seats > 8 or seat not in world.to_act():
        return False
    hand = mask_of(world.hands[seat])
    allowed = legal_cards(world.rules, hand, [c.index for c in world.trick])
    return allowed == sum(1 << i for i in cards)


def search_cards(  # noqa: PLR0913  (the bot's search settings, passed through)
    spec: GameSpec,
    view: SeatView,
    first_world: TrickGame,
    cards: dict[int, Action],
    rng: random.Random,
    *,
    deadline: float,
    iterations: int,
    reuse: int,
    swaps: int,
    others_in_tree: bool,
    policy: str,
    epsilon: float,
    c: float,
    prefer: Action | None,
    evidence: Evidence | None = None,
) -> KernelRun:
    """Search the card play of ``view``'s deal in the kernel until ``iterations`` (0: no
    limit) or the ``deadline`` (``perf_counter`` time; another batch that would overrun
    it, as long as the slowest batch so far, is not begun); ``first_world`` is a world of the view
    that :func:`fits_kernel`, the others are dealt from ``rng``, one every ``reuse``
    iterations; ``swaps`` (0: none) tries of a swap of two hidden hands' cards move a
    world on before each iteration (:meth:`TrickSearch.redeal`); with ``evidence`` each
    world is picked among deals by the other seats' likelihood (inference: then ``swaps``
    should be 0, swaps keep worlds uniform)."""
    world = first_world
    seat = view.seat
    pos = position(world)
    order = world.seats_in_play() or range(world.players)
    values = strategy_for(spec).deal_values(world)
    points = world.rules.points
    search = TrickSearch(
        world.rules,
        kernel_seat(world, seat),
        [world.tricks[s] for s in order],
        [sum(points.get(c.index, 0) for c in world.taken[s]) for s in order],
        values.by_tricks,
        values.per_point,
        leader=pos.leader,
        trick=pos.trick,
        others_in_tree=others_in_tree,
        policy=policy,
        epsilon=epsilon,
        c=c,
        seed=rng.getrandbits(64),
    )
    if prefer is not None and prefer.card is not None:
        search.prefer(prefer.card.index)
    # Each iteration a fresh world: the pool's worlds move on by swaps, between the hidden
    # hands and, where the cards out of play are one place (the undealt rest), with it.
    sets = type(world).redealt_cards(spec, view) if swaps else {}
    out = [p for p in sets if p >= world.players]
    dealt = 0
    for m in sets.values():
        dealt |= m
    rest_place = sets[out[0]] if len(out) == 1 else 0
    search.add_world(pos.hands, _rest(pos.hands, dealt, rest_place))
    if swaps:
        movable = [sets.get(s, 0) for s in order]
        movable[kernel_seat(world, seat)] = 0
        search.redeal(movable, swaps, rest_place)
    done = 0
    worst = 0.0
    now = time.perf_counter()
    while True:
        step = reuse if not iterations else min(reuse, iterations - done)
        done += search.run(step)
        if iterations and done >= iterations:
            break
        then, now = now, time.perf_counter()
        worst = max(worst, now - then)
        # Another batch (a world and its iterations) is not begun where the slowest so far
        # would overrun: on a loaded machine a batch now and then waits for the CPU.
        if now + worst > deadline:
            break
        other = spec.world_from_view(view, rng, evidence)
        assert isinstance(other, TrickGame)  # a world of the same view, of the same game
        hands = position(other).hands
        search.add_world(hands, _rest(hands, dealt, rest_place))
    edges = {
        cards[card]: (visits, avail, reward, square)
        for card, visits, avail, reward, square in search.root_edges()
    }
    return KernelRun(edges, done, search.actions, search.worlds)


def _rest(hands: list[int], dealt: int, place: int) -> int:
    """The cards of a world out of play that a redeal may move: of the cards dealt at
    random, those in no hand, where they make one place (0: none)."""
    if not place:
        return 0
    held = 0
    for h in hands:
        held |= h
    return dealt & ~held
