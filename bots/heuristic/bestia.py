"""A Bestia player that weighs its hand, changes its small plain cards and takes tricks
cheaply.

* **Variant**: none (the dealer keeps the plain game).
* **Declare**: the hand's worth in tricks (:func:`worth`: a trump ``0.4 + rank / 15``, a plain
  King 0.5, a Horse 0.3) against a bar that rises with the seats already in (each is one
  more hand to beat): it knocks at :data:`KNOCK_AT` plus :data:`PER_KNOCKER` a knocker, says
  terzo a little below that, and folds else; the last speaker knocks when nobody else has
  (it wins the pot at once), and a seat that may not fold knocks.
* **Change**: every plain card below the Horse goes, one at a time, while it may change.
* **Play**: the duties leave the choice; leading, its top trump when it holds the highest
  one left, else its best King, else its lowest card; following, the cheapest card that takes
  the trick, else the lowest.

>>> from levata.engine import game
>>> state = game("bestia").new_match(players=4, options={"dealer": 0}, seed=2)
>>> HeuristicBot().act(state.view(1), state.legal_actions(1)).kind in ("knock", "fold")
True
"""

from __future__ import annotations

from collections.abc import Sequence

from levata.bots.strategy.bestia import HORSE, KING, KNOCK_AT, PER_KNOCKER, worth
from levata.engine import Action, Card, SeatView, Suit, actions
from levata.engine.family.tricks import beats, winning_card
from levata.engine.rules import TrickRules

__all__ = ["HeuristicBot"]


def _trump(view: SeatView) -> Suit | None:
    return Suit.parse(view.trump) if view.trump else None


class HeuristicBot:
    """The Bestia player described in the module docstring."""

    name = "heuristic"

    def __init__(self, game: str = "bestia", seed: int = 0) -> None:
        self.seed = seed

    def act(self, view: SeatView, legal: Sequence[Action]) -> Action:
        if len(legal) == 1:
            return legal[0]
        kinds = {a.kind for a in legal}
        if "variant" in kinds:
            return Action("variant", choice="none")
        if "knock" in kinds:
            return self._declare(view, legal)
        if "done" in kinds:
            return self._change(view, legal)
        return self._play(view, legal)

    def _declare(self, view: SeatView, legal: Sequence[Action]) -> Action:
        said = view.facts["declared"]
        knockers = sum(1 for d in said if d in ("knock", "terzo"))
        speakers = sum(1 for d in said if d is not None)
        last = speakers == view.players - 1
        if Action("fold") not in legal or (last and knockers == 0):
            return Action("knock")
        value = worth(view.hand, _trump(view))
        bar = KNOCK_AT + PER_KNOCKER * knockers
        if value >= bar:
            return Action("knock")
        if Action("terzo") in legal and value >= bar - 0.3:
            return Action("terzo")
        return Action("fold")

    def _change(self, view: SeatView, legal: Sequence[Action]) -> Action:
        trump = _trump(view)
        weak = [
            a
            for a in legal
            if a.kind == "discard" and a.card is not None
            if a.card.suit != trump and a.card.rank < HORSE
        ]
        if not weak:
            return Action("done")
        return min(weak, key=lambda a: a.card.rank if a.card is not None else 0)

    def _play(self, view: SeatView, legal: Sequence[Action]) -> Action:
        cards = [a.card for a in legal if a.card is not None]
        if not cards:
            return legal[0]
        trump = _trump(view)
        rules = TrickRules(max(2, len(view.facts["in_play"])), trump)
        trick = list(view.zones.get("trick", ()))

        def strength(c: Card) -> tuple[bool, int]:
            return c.suit == trump, c.rank

        if not trick:
            return Action(actions.PLAY, card=self._lead(view, cards, trump))
        best = winning_card(rules, trick)
        winners = [c for c in cards if beats(rules, c, best)]
        pick = min(winners, key=strength) if winners else min(cards, key=strength)
        return Action(actions.PLAY, card=pick)

    def _lead(self, view: SeatView, cards: list[Card], trump: Suit | None) -> Card:
        gone = {*view.zones.get("played", ()), *view.hand, *view.zones.get("trump", ())}
        trumps = sorted((c for c in cards if c.suit == trump), key=lambda c: c.rank)
        if trumps:
            top = trumps[-1]
            higher = [r for r in range(top.rank + 1, KING + 1) if Card(top.suit, r) not in gone]
            if not higher:
                return top
        kings = [c for c in cards if c.rank == KING and c.suit != trump]
        if kings:
            return kings[0]
        return min(cards, key=lambda c: (c.suit == trump, c.rank))
