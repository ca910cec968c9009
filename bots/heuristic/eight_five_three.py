"""An 8-5-3 / 6-3-2-1 player: it aims its requests where a high card likely sits, names the
trump it is longest and strongest in, discards losers and plays every trick to win.

* **Requests**: for every seat it may ask and every card of its hand, the chance that seat
  holds a card of the suit above the card (the unseen cards above it, less those the seat's
  earlier answers this deal ruled out) times what the best of them is worth over the card
  given; it asks the seat and offers the card with the most to gain, a low card of a suit
  where the target likely holds a high one. Figures are offered only when nothing else
  gains. It gives up (``stop``) only when no offer can gain anything.
* **Trump**: the suit with the most length and honours (the Banking player's measure).
* **Discards**: losers first, low cards of short side suits (a void to ruff in), never a trump
  or an Ace while a lower card is left.
* **Play**: every trick is a point (``tricks - quota``, and over-tricks ask cards next deal),
  so it always plays to win: the cheapest winner when last to play, else the strongest; a
  card that cannot win is its lowest.

>>> from levata.engine import game
>>> state = game("eight-five-three").new_match(players=3, options={"previous": "1,-1,0"})
>>> seat = state.to_act()[0]
>>> HeuristicBot().act(state.view(seat), state.legal_actions(seat)).kind
'ask'
"""

from __future__ import annotations

from collections.abc import Sequence

from levata.bots.strategy import gunoi_value, trump_score
from levata.engine import Action, Card, SeatView, Suit, actions
from levata.engine.cards import french_deck
from levata.engine.family.tricks import beats
from levata.engine.rules import TrickRules

__all__ = ["HeuristicBot", "offer_gain"]

FIGURES = frozenset({11, 12, 13, 14})
DECK = french_deck()


def offer_gain(card: Card, unseen: Sequence[Card], ceiling: int, share: float) -> float:
    """What offering ``card`` to a seat is worth: the chance it holds a card of the suit
    above ``card`` (each unseen one there with probability ``share``; none above
    ``ceiling``, what its answers showed) times the rank the best of them gains.

    >>> from levata.engine import parse_cards
    >>> unseen = parse_cards("AD KD 3D 9S")
    >>> low_diamond = offer_gain(Card.parse("2D"), unseen, 15, 0.5)
    >>> low_diamond > offer_gain(Card.parse("2S"), unseen, 15, 0.5)
    True
    >>> offer_gain(Card.parse("2D"), unseen, 3, 0.5)  # its answers showed nothing above 3D
    0.5
    """
    above = sorted(
        (c.rank for c in unseen if c.suit == card.suit and card.rank < c.rank <= ceiling),
        reverse=True,
    )
    if not above:
        return 0.0
    # Expected gain: the top card with chance share, else the next with share, and so on.
    gain, miss = 0.0, 1.0
    for rank in above:
        gain += miss * share * (rank - card.rank)
        miss *= 1.0 - share
    return gain


class HeuristicBot:
    """The 8-5-3 player described in the module docstring."""

    name = "heuristic"

    def __init__(self, game: str = "eight-five-three", seed: int = 0) -> None:
        self.seed = seed

    def act(self, view: SeatView, legal: Sequence[Action]) -> Action:
        if len(legal) == 1:
            return legal[0]
        kinds = {a.kind for a in legal}
        if "ask" in kinds:
            return self._ask(view, legal)
        if "offer" in kinds:
            return self._offer(view, legal)
        if "trump" in kinds:
            return max(legal, key=lambda a: trump_score(view.hand, Suit.parse(a.choice or "S")))
        if "discard" in kinds:
            trump = Suit.parse(view.trump) if view.trump else None
            cards = [a.card for a in legal if a.card is not None]
            pick = min(cards, key=lambda c: gunoi_value(c, view.hand, trump))
            return Action("discard", card=pick)
        return self._play(view, legal)

    # -- the requests -----------------------------------------------------------------------------

    def _best_offer(self, view: SeatView, target: int) -> tuple[float, Card]:
        hand = sorted(view.hand)
        mine = set(hand)
        seen = set(view.zones.get("played", ())) | set(view.zones.get("surpriza", ()))
        unseen = [c for c in DECK if c not in mine and c not in seen]
        share = view.counts[f"hand:{target}"] / max(1, len(unseen))
        ceilings = self._ceilings(view, target)

        def worth(c: Card) -> float:
            gain = offer_gain(c, unseen, ceilings.get(c.suit, 15), share)
            return gain - (6.0 if c.rank in FIGURES else 0.0)  # figures are kept back

        best = max(hand, key=lambda c: (worth(c), -c.rank))
        return worth(best), best

    def _ask(self, view: SeatView, legal: Sequence[Action]) -> Action:
        asks = [a for a in legal if a.kind == "ask" and a.number is not None]
        n = view.players

        def value(a: Action) -> tuple[float, int, int]:
            t = int(a.number or 0)
            gain, _ = self._best_offer(view, t)
            return gain, view.counters[f"debt:{t}"], -((t - view.seat) % n)

        best = max(asks, key=value)
        if value(best)[0] <= 0 and any(a.kind == "stop" for a in legal):
            return Action("stop")
        return best

    def _offer(self, view: SeatView, legal: Sequence[Action]) -> Action:
        _, card = self._best_offer(view, view.counters["target"])
        return Action("offer", card=card)

    def _ceilings(self, view: SeatView, target: int) -> dict[int, int]:
        """Per suit, a rank ``target`` holds nothing above (what its answers to this seat's
        offers this deal showed): the card it gave back, or the offer that came back."""
        seat = view.seat
        start = max((e.seq for e in view.history if e.kind == "deal"), default=0)
        out: dict[int, int] = {}
        for e in view.history:
            if e.seq < start or e.kind != "exchanged" or e.seat != seat or not e.cards:
                continue
            if e.data.get("target") != target:
                continue
            top = e.cards[1].rank if len(e.cards) > 1 else e.cards[0].rank
            out[e.cards[0].suit] = min(out.get(e.cards[0].suit, 15), top)
        return out

    # -- card play --------------------------------------------------------------------------------

    def _play(self, view: SeatView, legal: Sequence[Action]) -> Action:
        trump = Suit.parse(view.trump) if view.trump else None
        rules = TrickRules(view.players, trump)
        cards = [a.card for a in legal if a.card is not None]
        if not cards:
            return legal[0]
        trick = list(view.zones["trick"])

        def power(c: Card) -> tuple[int, int]:
            return (1 if c.suit == trump else 0, c.rank)

        if not trick:
            return Action(actions.PLAY, card=max(cards, key=power))
        best = trick[0]
        for c in trick[1:]:
            if beats(rules, c, best):
                best = c
        winners = [c for c in cards if beats(rules, c, best)]
        last = len(trick) == view.players - 1
        if winners:
            pick = min(winners, key=power) if last else max(winners, key=power)
        else:
            pick = min(cards, key=power)
        return Action(actions.PLAY, card=pick)
