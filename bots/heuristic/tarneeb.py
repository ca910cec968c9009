"""A Tarneeb player that counts its hand, listens to its partner's bid and plays for the team.

* **Bidding**: high-card points (A 4, K 3, Q 2, J 1) and length points (one for each card
  past four in its longest suit) give ``(hcp + length) / 3`` tricks of its own, plus
  :data:`PARTNER_SHARE` tricks assumed from the partner; a partner who has bid ``b`` is
  taken to hold more (:func:`estimate`). It bids the cheapest legal bid when that is no
  more than the estimate, never above it, and passes otherwise.
* **Trump**: the longest suit, its honours breaking ties; no-trump for a balanced hand
  (no suit shorter than 2 or longer than 5) with 16 high-card points or more.
* **Play**: second or later to a trick, it plays low when its partner is already winning,
  else wins as cheaply as it can, else throws its lowest card of its weakest suit. Leading,
  the declaring side draws trumps first, and every leader plays its strongest suit's top.

>>> from levata.engine import game
>>> state = game("tarneeb").new_match(players=4, options={"shuffler": 0}, seed=4)
>>> HeuristicBot().act(state.view(1), state.legal_actions(1)).kind in ("bid", "pass")
True
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from levata.engine import Action, Card, SeatView, Suit, actions
from levata.engine.family.tricks import beats, winning_card
from levata.engine.rules import TrickRules

__all__ = ["HeuristicBot", "estimate", "hcp", "strain_for"]

POINTS = {14: 4, 13: 3, 12: 2, 11: 1}
#: Tricks a partner is assumed to bring when it has not bid.
PARTNER_SHARE = 2.5
#: High-card points of a balanced hand that calls no-trump.
NT_POINTS = 16
TEAMS = (0, 1, 0, 1)


def hcp(hand: Sequence[Card]) -> int:
    """High-card points: A 4, K 3, Q 2, J 1.

    >>> from levata.engine import parse_cards
    >>> hcp(parse_cards("AS KH QD JC 2C"))
    10
    """
    return sum(POINTS.get(c.rank, 0) for c in hand)


def estimate(hand: Sequence[Card], partner_bid: int = 0) -> float:
    """Tricks the team may take: ``(hcp + length) / 3`` of its own plus the partner's share,
    ``partner_bid - 4`` when the partner bid (a 7 promises about 3 tricks).

    >>> from levata.engine import parse_cards
    >>> hand = parse_cards("AS KS QS JS 9S 5S AH KH 2D 3D 4C 5C 6C")
    >>> round(estimate(hand), 2), round(estimate(hand, 8), 2)
    (8.83, 10.33)
    """
    longest = max(Counter(c.suit for c in hand).values(), default=0)
    own = (hcp(hand) + max(0, longest - 4)) / 3
    share = max(PARTNER_SHARE, partner_bid - 4.0) if partner_bid else PARTNER_SHARE
    return own + share


def strain_for(hand: Sequence[Card]) -> str:
    """The strain to name: NT for a balanced strong hand, else the longest suit (honours as
    the tie-break).

    >>> from levata.engine import parse_cards
    >>> strain_for(parse_cards("2H 3H 4H 5H AS KS 2D 3D 4D 5C 6C 7C 8C"))
    'H'
    >>> strain_for(parse_cards("AS KS 2S AH KH 3H AD 4D 5D 6D KC 7C 8C"))
    'NT'
    """
    lengths = Counter(c.suit for c in hand)
    balanced = len(lengths) == 4 and min(lengths.values()) >= 2 and max(lengths.values()) <= 5
    if balanced and hcp(hand) >= NT_POINTS:
        return "NT"
    best = max(lengths, key=lambda s: (lengths[s], hcp([c for c in hand if c.suit == s])))
    return best.letter


def _suit(letter: str | None) -> Suit | None:
    return None if letter in (None, "NT") else Suit.parse(letter)


class HeuristicBot:
    """The Tarneeb player described in the module docstring."""

    name = "heuristic"

    def __init__(self, game: str = "tarneeb", seed: int = 0) -> None:
        self.seed = seed

    def act(self, view: SeatView, legal: Sequence[Action]) -> Action:
        if len(legal) == 1:
            return legal[0]
        kinds = {a.kind for a in legal}
        if actions.PASS in kinds:
            return self._bid(view, legal)
        if "trump" in kinds:
            return Action("trump", choice=strain_for(view.hand))
        return self._play(view, legal)

    def _bid(self, view: SeatView, legal: Sequence[Action]) -> Action:
        partner = (view.seat + 2) % view.players
        said = [b for s, b in view.facts["calls"] if s == partner and b]
        guess = estimate(view.hand, max(said, default=0))
        bids = sorted(a.number for a in legal if a.kind == actions.BID and a.number is not None)
        high = view.counters["contract"]
        if view.counters["declarer"] == partner and high >= guess - 1:
            return Action(actions.PASS)  # the partner holds the contract: no need to raise it
        if bids and bids[0] <= guess:
            return Action(actions.BID, number=bids[0])
        return Action(actions.PASS)

    # -- card play --------------------------------------------------------------------------

    def _play(self, view: SeatView, legal: Sequence[Action]) -> Action:
        cards = [a.card for a in legal if a.card is not None]
        if not cards:
            return legal[0]
        trump = _suit(view.trump)
        rules = TrickRules(view.players, trump, teams=TEAMS)
        trick = list(view.zones["trick"])

        def power(c: Card) -> tuple[int, int]:
            return (1 if c.suit == trump else 0, c.rank)

        if not trick:
            return Action(actions.PLAY, card=self._lead(view, cards, trump))
        best = winning_card(rules, trick)
        winner_seat = view.facts["trick_seats"][trick.index(best)]
        partner_wins = TEAMS[winner_seat] == TEAMS[view.seat]
        winners = [c for c in cards if beats(rules, c, best)]
        if winners and not partner_wins:
            return Action(actions.PLAY, card=min(winners, key=power))
        return Action(actions.PLAY, card=self._discard(view.hand, cards, trump))

    def _lead(self, view: SeatView, cards: list[Card], trump: Suit | None) -> Card:
        declarer = view.counters["declarer"]
        ours = declarer >= 0 and TEAMS[declarer] == TEAMS[view.seat]
        trumps = [c for c in cards if c.suit == trump]
        if ours and trumps:
            return max(trumps, key=lambda c: c.rank)  # draw the opponents' trumps
        by = Counter(c.suit for c in cards)
        strong = max(by, key=lambda s: (hcp([c for c in cards if c.suit == s]), by[s]))
        return max((c for c in cards if c.suit == strong), key=lambda c: c.rank)

    def _discard(self, hand: Sequence[Card], cards: list[Card], trump: Suit | None) -> Card:
        """The lowest card of the weakest suit (trumps kept while another suit is left)."""

        def weakness(c: Card) -> tuple[int, int, int]:
            suit = [x for x in hand if x.suit == c.suit]
            return (c.suit == trump, hcp(suit), c.rank)

        return min(cards, key=weakness)
