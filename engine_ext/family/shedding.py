"""Shedding games: the stock and its reshuffle, and ranking by finish order.

Shared by Macao and Repezita now; Huzur, Trombon and Toci will use them too.

>>> ranks_by_finish(finished=[2], rest=[0, 1, 3], cards=[4, 1, 0, 4])
(3, 2, 1, 3)
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence

from levata.engine import events
from levata.engine.cards import Card
from levata.engine.contract import GameState

__all__ = ["DrawPile", "ranks_by_finish"]


def ranks_by_finish(
    finished: Sequence[int], rest: Iterable[int], cards: Sequence[int]
) -> tuple[int, ...]:
    """Ranks (1 = best): seats that went out, in the order they did; then the seats in ``rest``
    by fewest ``cards`` left, tied seats sharing the better rank.

    ``cards[s]`` is how many cards seat ``s`` holds; there is one entry per seat. A seat in
    neither list keeps rank 0 (a game that ranks everyone names every seat).

    >>> ranks_by_finish([], [0, 1, 2], [3, 3, 1])
    (2, 2, 1)
    """
    ranks = [0] * len(cards)
    for place, seat in enumerate(finished, start=1):
        ranks[seat] = place
    base = len(finished) + 1
    rest = list(rest)
    for seat in rest:
        ranks[seat] = base + sum(1 for other in rest if cards[other] < cards[seat])
    return tuple(ranks)


class DrawPile(GameState):
    """A face-down stock fed by reshuffling the discard pile but its top card (a base to mix
    into a game's state, before ``GameState``).

    The game keeps ``stock`` (top card **last**, so a draw pops), ``discard`` (top card last),
    ``hands`` (each kept sorted), ``epoch`` (reshuffles so far) and ``_acq`` (each hand card ->
    the epoch it was drawn in and the private event naming it: after a reshuffle the new stock
    is a publicly known set, which is what a determinized world must respect). Events: a
    public ``draw`` with the count and a private ``drawn`` with the cards, and a public
    ``reshuffle`` with the count.
    """

    stock: list[Card]
    discard: list[Card]
    hands: list[list[Card]]
    epoch: int
    _acq: dict[Card, tuple[int, int]]

    def available(self) -> int:
        """Cards a draw could reach: the stock plus what a reshuffle would give."""
        return len(self.stock) + len(self.discard) - 1

    def draw(self, seat: int, n: int) -> list[Card]:
        """Move up to ``n`` stock cards to ``seat``, reshuffling when the stock runs out."""
        got: list[Card] = []
        batch: list[Card] = []
        for _ in range(n):
            if not self.stock:
                self._give(seat, batch)
                batch = []
                if not self._reshuffle():
                    break
            batch.append(self.stock.pop())
            got.append(batch[-1])
        self._give(seat, batch)
        return got

    def _give(self, seat: int, cards: list[Card]) -> None:
        """Put drawn cards in the hand: the count is public, the cards private."""
        if not cards:
            return
        hand = self.hands[seat]
        for c in cards:
            bisect.insort(hand, c)
        self._emit(events.DRAW, seat=seat, count=len(cards))
        ev = self._emit("drawn", audience={seat}, seat=seat, cards=cards)
        for c in cards:
            self._acq[c] = (self.epoch, ev.seq)

    def _reshuffle(self) -> bool:
        """Turn the discard pile but its top into a new stock; False if nothing is there."""
        cards = self.discard[:-1]
        if not cards:
            return False
        del self.discard[:-1]
        self.rng.shuffle(cards)
        self.stock = cards
        self.epoch += 1
        self._emit("reshuffle", count=len(cards))
        return True
