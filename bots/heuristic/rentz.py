"""A Rentz player that picks the sub-game its hand suits and plays each by the book.

The pick: each open sub-game valued for the hand against an average hand
(:func:`~levata.bots.strategy.rentz.pick_values`: Whist and Ten of Clubs with high cards,
the avoidance games with low ones, Rentz with jacks and the cards beside them). A blind pick
(before the deal) is never made when it may look first; when it must, it takes the sub-game
whose average is best. The play: :func:`~levata.bots.strategy.rentz.trick_card` (duck, dump
the dangerous cards when void, win cheaply when taking) and
:func:`~levata.bots.strategy.rentz.lay_card` (aces, cards that free its own, keep the blockers).

>>> from levata.engine import game
>>> state = game("rentz").new_match(players=4, seed=4)
>>> seat = state.to_act()[0]
>>> HeuristicBot().act(state.view(seat), state.legal_actions(seat)).kind
'choose'
"""

from __future__ import annotations

from collections.abc import Sequence

from levata.bots.strategy.rentz import lay_card, pick_values, trick_card
from levata.engine import Action, Card, SeatView, Suit, actions
from levata.engine.games.rentz import BLIND_KIND, CHOOSE_KIND, LAY, LOOK
from levata.engine.games.rentz.subgames import RENTZ, SUBGAMES, PointTable

__all__ = ["HeuristicBot"]

#: A blind pick, hand unseen: the sub-games least hurt by a bad hand first.
BLIND_ORDER = (RENTZ, *SUBGAMES[:-1])


class HeuristicBot:
    """Picks by the hand, ducks and dumps in the avoidance games, blocks in the domino."""

    name = "heuristic"

    def __init__(self, game: str = "rentz", seed: int = 0) -> None:
        self.seed = seed

    def act(self, view: SeatView, legal: Sequence[Action]) -> Action:
        if len(legal) == 1:
            return legal[0]
        kind = legal[0].kind
        if any(a.kind == LOOK for a in legal):
            return next(a for a in legal if a.kind == LOOK)
        if kind == BLIND_KIND:
            open_ = {a.choice: a for a in legal}
            return next(open_[g] for g in BLIND_ORDER if g in open_)
        if kind == CHOOSE_KIND:
            return self._pick(view, legal)
        low = 15 - 2 * view.players
        if kind == LAY:
            rows = {Suit.parse(k): (lo, hi) for k, (lo, hi) in view.facts["rows"].items()}
            valid = [a.card for a in legal if a.card is not None]
            return Action(LAY, card=lay_card(valid, view.hand, rows, low))
        cards = [a.card for a in legal if a.card is not None]
        trick: list[Card] = list(view.zones.get("trick", ()))
        game = view.facts["game"]
        return Action(actions.PLAY, card=trick_card(game, cards, trick, view.hand, view.players))

    def _pick(self, view: SeatView, legal: Sequence[Action]) -> Action:
        table = PointTable.from_options(view.options)
        low = 15 - 2 * view.players
        games = [a.choice for a in legal if a.choice]
        values = pick_values(view.hand, games, view.players, low, table)
        return max(legal, key=lambda a: values.get(a.choice or "", -1e9))
