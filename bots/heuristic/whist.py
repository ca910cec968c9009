"""A Whist player that counts its likely winners and then plays to make its bid exactly.

Bidding: an Ace is about one trick, a King with a guard about half, every trump a little
and high trumps most; the estimate shrinks with the table size (more players, more ruffs).
The bid is the legal number closest to that estimate (the last bidder may be forced off it).

Play: while short of the bid, win cheaply (the lowest card that takes the trick; lead the
strongest card). Once the bid is made, duck: the highest card that still loses, and lead low.

>>> from levata.engine import game
>>> state = game("whist").new_match(players=4, options={"deal_size": 5}, seed=4)
>>> bot = HeuristicBot()
>>> seat = state.to_act()[0]
>>> bot.act(state.view(seat), state.legal_actions(seat)).kind
'bid'
"""

from __future__ import annotations

from collections.abc import Sequence

from levata.bots.strategy.whist import estimate_tricks
from levata.engine import Action, Card, SeatView, Suit, actions
from levata.engine.family.tricks import beats
from levata.engine.games.whist import whist_rules
from levata.engine.rules import TrickRules

__all__ = ["HeuristicBot", "estimate_tricks"]


def _trick(view: SeatView) -> list[tuple[int, Card]]:
    return list(zip(view.facts["trick_seats"], view.zones["trick"], strict=True))


def _suit(letter: str | None) -> Suit | None:
    return Suit.parse(letter) if letter else None


class HeuristicBot:
    """Counts winners to bid, then wins or ducks to hit the bid exactly."""

    name = "heuristic"

    def __init__(self, game: str = "whist", seed: int = 0) -> None:
        self.seed = seed

    def act(self, view: SeatView, legal: Sequence[Action]) -> Action:
        if legal[0].kind == actions.BID:
            return self._bid(view, legal)
        if len(legal) == 1:
            return legal[0]
        return self._play(view, legal)

    def _bid(self, view: SeatView, legal: Sequence[Action]) -> Action:
        trump = _suit(view.trump)
        if view.hand:
            want = estimate_tricks(view.hand, trump, view.players)
        else:  # forehead: the others' cards are all we know; a fair share
            want = view.counters["size"] / view.players
        return min(legal, key=lambda a: (abs(a.number - want), a.number))  # type: ignore[operator]  # bids carry numbers

    def _play(self, view: SeatView, legal: Sequence[Action]) -> Action:
        seat = view.seat
        need = view.counters.get(f"bid:{seat}", 0) - view.counters[f"tricks:{seat}"]
        trump = _suit(view.trump)
        rules = _rules(view)
        cards = [a.card for a in legal if a.card is not None]
        trick = _trick(view)
        power = _power_key(trump)
        if not trick:  # leading
            pick = max(cards, key=power) if need > 0 else min(cards, key=power)
            return Action(actions.PLAY, card=pick)
        best = trick[0][1]
        for _, c in trick[1:]:
            if beats(rules, c, best):
                best = c
        winners = [c for c in cards if beats(rules, c, best)]
        losers = [c for c in cards if not beats(rules, c, best)]
        if need > 0 and winners:
            # Last to play wins with the cheapest card; earlier, with the strongest.
            last = len(trick) == view.players - 1
            pick = min(winners, key=power) if last else max(winners, key=power)
        elif need <= 0 and losers:
            pick = max(losers, key=power)  # shed the most dangerous card that still loses
        else:
            pick = min(cards, key=power)
        return Action(actions.PLAY, card=pick)


def _rules(view: SeatView) -> TrickRules:
    """The match's card play, as the game declares it (its options included)."""
    return whist_rules(view.players, _suit(view.trump), view.options.get("must_trump", True))


def _power_key(trump: Suit | None):
    """Sort key: trumps above all else, then by rank."""

    def key(card: Card) -> tuple[int, int]:
        return (1 if card.suit == trump else 0, card.rank)

    return key
