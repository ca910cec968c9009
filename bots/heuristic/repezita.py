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
from collections import Counter
from collections.abc import Collection, Sequence

from levata.engine import Action, Card, SeatView, Suit, actions
from levata.engine.games.repezita import PASS, adjacent, deck_count, lands

__all__ = ["HeuristicBot"]

_RANKS = [Card(Suit.CLUBS, rank) for rank in range(2, 15)]  # a card of each rank
_SUITS = 4  # copies of a rank in one 52-card deck


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

    def candidates(self, view: SeatView, legal: Sequence[Action]) -> list[Action]:
        """The moves a search weighs here (``ismcts``' root): pass, the cards that land on the
        pile the seat sees, and, where a seat plays before it this tick, the cards that land
        once that seat has landed a card (one rank from a card that lands) it may hold. A card
        that can land on neither is a wrong card or rejected for sure: throwing one only takes
        the pile back, and a search that weighs it finds wrong-card locks (it takes a pile its
        opponent could play on, lands the same cards again, and the match stalls:
        docs/games/repezita.md). So where every card that lands is in sight (in this hand,
        on the pile, dead, or known to be held by a later seat), the earlier seats have
        nothing to play first, and a card one rank further is a wrong card for sure too.

        >>> from levata.engine.games.repezita import RepezitaState
        >>> state = RepezitaState.from_position(2, ["10C JC 2S 5D", "9D QC"], pile="10H")
        >>> bot = HeuristicBot()
        >>> [str(a) for a in bot.candidates(state.view(0), state.legal_actions(0))]  # seat 0 first
        ['pass', 'play JC']
        >>> [str(a) for a in bot.candidates(state.view(1), state.legal_actions(1))]
        ['pass', 'play 9D', 'play QC']
        >>> state = RepezitaState.from_position(2, ["2C 2D 2H 2S 3C QC", "5D"], pile="AS", tick=1)
        >>> [str(a) for a in bot.candidates(state.view(0), state.legal_actions(0))]  # no 2 to land
        ['pass', 'play 2C', 'play 2D', 'play 2H', 'play 2S', 'play QC']
        """
        pile = view.zones.get("pile", ())
        top = pile[-1] if pile else None
        open_start = bool(view.counters.get("open_start", 0))
        priority = list(view.facts.get("priority", ()))
        earlier = priority[: priority.index(view.seat)] if view.seat in priority else []
        after = _between(top, open_start, _ranks_they_may_hold(view, earlier)) if earlier else []
        picked = []
        for action in legal:
            card = action.card
            if card is None or lands(card, top, open_start) or any(lands(card, c) for c in after):
                picked.append(action)
        return picked


def _between(top: Card | None, open_start: bool, ranks: Collection[int]) -> list[Card]:
    """The cards of each rank in ``ranks`` that could land on this pile first (one a rank).

    >>> [str(c) for c in _between(Card.parse("10H"), False, range(2, 15))]
    ['9C', 'JC']
    >>> [str(c) for c in _between(Card.parse("10H"), False, [11])]
    ['JC']
    """
    return [c for c in _RANKS if c.rank in ranks and lands(c, top, open_start)]


def _ranks_they_may_hold(view: SeatView, seats: Sequence[int]) -> set[int]:
    """The ranks of the cards that may be in ``seats``' hands, as ``view`` shows it: the
    cards they picked up in public, and, where a hand holds more than those, every rank of
    which a copy is out of sight (not in this hand, on the pile, dead, or known elsewhere).
    With two players nothing is set aside: the cards out of sight are the other's hand.

    >>> from levata.engine.games.repezita import RepezitaState
    >>> state = RepezitaState.from_position(2, ["2C 2D 2H 2S 3C", "5D"], pile="AS AH AD")
    >>> sorted(_ranks_they_may_hold(state.view(0), [1]))  # no 2 and one A left to hold
    [3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]
    """
    known = [[Card.parse(c) for c in cards] for cards in view.facts.get("known", ())]
    ranks = {c.rank for s in seats for c in known[s]}
    if any(view.counts[f"hand:{s}"] > len(known[s]) for s in seats):
        copies = _SUITS * deck_count(view.players, view.options.get("decks", "auto"))
        shown = [*view.hand, *view.zones.get("pile", ()), *view.zones.get("dead", ())]
        shown += [c for s, cards in enumerate(known) if s != view.seat for c in cards]
        seen = Counter(c.rank for c in shown)
        ranks |= {c.rank for c in _RANKS if seen[c.rank] < copies}
    return ranks


def follow_ups(card: Card, hand: Sequence[Card]) -> int:
    """Cards left in ``hand`` after playing ``card`` that could go straight on top of it.

    >>> from levata.engine import parse_cards
    >>> follow_ups(Card.parse("8C"), parse_cards("8C 9H 7S 7D 3S"))
    3
    """
    return sum(1 for c in hand if adjacent(c, card))
