"""A Tabinet bot that plays the greedy move from its view alone.

It weighs every whole move (a trail, or a capture with every choice of cards it could take)
by the points it banks, a tabla (worth double when it lifts one of the other side's), a
little per card, less the cost of trailing a point card and of leaving a table the next
player can sweep (:mod:`levata.engine.games.tabinet.policy`, which the search's playouts
play by too), then takes the atomic step toward it. As the first player it refuses its first
four cards whenever the rules let it (at most one point card: six fresh cards are worth more).

>>> from levata.engine.games.tabinet import TabinetState
>>> state = TabinetState.from_position(2, ["9H 4C", "4D 5S"], table="AD 8C 2H 7S 5D")
>>> bot = HeuristicBot()
>>> str(bot.act(state.view(0), state.legal_actions(0)))
'capture 9H'
>>> state.apply(0, bot.act(state.view(0), state.legal_actions(0)))
>>> str(bot.act(state.view(0), state.legal_actions(0)))  # {A, 8} and {2, 7}: all but 5D
'take AD'
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from levata.engine import Action, Card, SeatView, phases
from levata.engine.family.captures import Selection, sides_of
from levata.engine.games import tabinet
from levata.engine.games.tabinet.playout import step
from levata.engine.games.tabinet.policy import best_move

__all__ = ["HeuristicBot"]


class HeuristicBot:
    """Bank points and tablas, trail small cards, leave no easy sweep."""

    name = "heuristic"

    def __init__(self, game: str = "tabinet", seed: int = 0) -> None:
        self.rng = random.Random(seed)  # the greedy player needs no luck: kept for the API

    def act(self, view: SeatView, legal: Sequence[Action]) -> Action:
        if len(legal) == 1:
            return legal[0]
        if view.phase == tabinet.DECIDE:
            refuse = Action(tabinet.REFUSE_KIND)
            return refuse if refuse in legal else legal[0]
        me, n = view.seat, view.players
        sides = sides_of(n, tabinet.teams(n))
        mine = next(side for side in sides if me in side)
        others = [s for s in range(n) if s not in mine]
        counts, counters = view.counts, view.counters
        exposed = counts["stock"] > 0 or any(counts[f"hand:{s}"] for s in others)
        lift = len(sides) == 2 and counters[f"tablas:{others[0]}"] > 0
        table = list(view.zones["table"])
        hand = list(view.hand)
        if view.phase == phases.PLAYING:
            may_trail = any(a.kind == tabinet.TRAIL_KIND for a in legal)
            move = best_move(hand, table, lift, exposed, may_trail=may_trail)
            selection = None
        else:
            played = view.zones["played"][0]
            fact = view.facts["capture"]
            index = {c: i for i, c in enumerate(table)}
            taken = () if fact is None else tuple(index[Card.parse(c)] for c in fact["taken"])
            value = None if fact is None else fact["value"]
            move = best_move(hand, table, lift, exposed, played, value, taken)
            selection = None if fact is None else Selection(fact["value"], taken)
        action = step(view.phase, selection, *move, table)
        return action if action in legal else legal[0]
