"""A full trick-game state as the double-dummy solver reads it, shared by every tool that
solves one: the pimc bot's worlds (:mod:`levata.bots.search.pimc`) and the true deals of
the regret measure (:mod:`levata.bots.regret`).

The solver sees cards as indexes and hands as bit masks under the deal's own
:class:`~levata.engine.rules.TrickRules` (``world.rules``); each seat plays for the
objective the game's strategy names (:meth:`~levata.bots.strategy.Strategy.goal`).

>>> from levata.engine import Action, game
>>> from levata.engine.solver import Solver
>>> state = game("whist").new_match(players=3, options={"deal_size": 2}, seed=1)
>>> for bid in (0, 0, 0):
...     state.apply(state.to_act()[0], Action("bid", number=bid))
>>> seat = state.to_act()[0]
>>> values = solve_world(state, seat, Solver(state.rules))
>>> sorted(values) == sorted(c.index for c in state.playable(seat))
True
"""

from __future__ import annotations

from typing import Any, NamedTuple

from levata.bots.strategy import strategy_for
from levata.engine.cardmask import mask_of
from levata.engine.family.tricks import TrickGame
from levata.engine.solver import Objective, Solver

__all__ = ["Position", "duty_facts", "kernel_seat", "position", "solve_world"]


class Position(NamedTuple):
    """The cards still to play: each seat's hand as a mask, the trick's leader and the
    cards already in the trick (indexes, in play order)."""

    hands: list[int]
    leader: int
    trick: list[int]

    @property
    def cards_left(self) -> int:
        """Cards still in the hands (the trick's played cards not counted)."""
        return sum(h.bit_count() for h in self.hands)


def position(world: TrickGame) -> Position:
    """The solver's reading of ``world`` now: seats as the kernel numbers them (only the
    seats in play, where some sit the deal out: :meth:`TrickGame.seats_in_play`)."""
    trick = [c.index for _, c in world.current]
    order = world.seats_in_play()
    if order is None:
        return Position([mask_of(h) for h in world.hands], world.leader, trick)
    hands = [mask_of(world.hands[s]) for s in order]
    return Position(hands, order.index(world.leader), trick)


def kernel_seat(world: TrickGame, seat: int) -> int:
    """``seat`` as the kernel numbers it in ``world`` (see :func:`position`)."""
    order = world.seats_in_play()
    return seat if order is None else order.index(seat)


def duty_facts(world: TrickGame) -> dict[str, Any]:
    """What the kernel's sure-pot duty reads in ``world`` beyond the position, as keywords of
    the solver and the playouts: per kernel seat, the tricks it won (``won``) and the cards
    out of play it has not seen (``hidden``, :meth:`TrickGame.out_of_sight`). Empty for rules
    without that duty.

    >>> from levata.engine import game
    >>> duty_facts(game("whist").new_match(players=3, seed=1))
    {}
    """
    if not world.rules.sure_pot:
        return {}
    order = world.seats_in_play() or tuple(range(world.players))
    return {
        "won": [world.tricks[s] for s in order],
        "hidden": [mask_of(world.out_of_sight(s)) for s in order],
    }


def solve_world(
    world: TrickGame,
    seat: int,
    solver: Solver,
    goal: Objective | None = None,
    *,
    max_nodes: int = 0,
    guess: dict[int, int] | None = None,
    pos: Position | None = None,
) -> dict[int, int]:
    """The double-dummy value of each card ``seat`` may play now in the full state
    ``world`` (card index -> value), under ``goal`` (default: the one the game's strategy
    names, :func:`~levata.bots.strategy.strategy_for`).

    ``solver`` must be a :class:`Solver` of ``world.rules``; ``max_nodes`` (0: none) makes
    it raise :class:`~levata.engine.solver.SearchLimit` on a position too big to finish;
    ``pos``: ``position(world)``, where the caller has it already.
    """
    hands, leader, trick = pos if pos is not None else position(world)
    if goal is None:
        goal = strategy_for(world.spec).goal(world, seat)
    me = kernel_seat(world, seat)
    return solver.best_cards(
        hands, leader, trick, me, goal, max_nodes=max_nodes, guess=guess, **duty_facts(world)
    )
