"""A Repezita bot that never risks the pile: it only plays cards that land on what it sees.

A card valid on the pile the seat sees can never be a wrong card (tick mode judges plays against
the tick-start pile, realtime against the race window), so the worst it can do is bounce. Among
the cards that land, it plays the one that leaves the most follow-ups in its own hand (cards one
rank up or down from it), so that it can keep the pile for itself next tick. With nothing that
lands it passes.

>>> from levata.engine.games.repezita import RepezitaState
>>> state = RepezitaState.from_position(2, ["8C 9H 3S", "KD 5D"], pile="AD 6C 7D")
>>> bot = HeuristicBot(seed=1)
>>> str(bot.act(state.view(0), state.legal_actions(0)))  # 8 leaves the 9 to follow; 6 nothing
'play 8C'
>>> str(bot.act(state.view(1), state.legal_actions(1)))
'pass'
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from levata.engine import Action, Card, SeatView, actions
from levata.engine.games.repezita import PASS, adjacent, lands

__all__ = ["HeuristicBot"]


class HeuristicBot:
    """Plays a card that lands, preferring chain potential; passes otherwise."""

    name = "heuristic"

    def __init__(self, game: str = "repezita", seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def act(self, view: SeatView, legal: Sequence[Action]) -> Action:
        pile = view.zones.get("pile", ())
        top = pile[-1] if pile else None
        open_start = bool(view.counters.get("open_start", 0))
        playable = [
            a for a in legal if a.kind == actions.PLAY and a.card and lands(a.card, top, open_start)
        ]
        if not playable:
            return PASS if PASS in legal else legal[0]
        hand = list(view.hand)
        scores = [follow_ups(a.card, hand) for a in playable]  # type: ignore[arg-type]  # filtered on a.card above
        best = max(scores)
        return self.rng.choice([a for a, s in zip(playable, scores, strict=True) if s == best])


def follow_ups(card: Card, hand: Sequence[Card]) -> int:
    """Cards left in ``hand`` after playing ``card`` that could go straight on top of it.

    >>> from levata.engine import parse_cards
    >>> follow_ups(Card.parse("8C"), parse_cards("8C 9H 7S 7D 3S"))
    3
    """
    return sum(1 for c in hand if adjacent(c, card))
