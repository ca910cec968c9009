"""Shedding games: the stock and its reshuffle, and ranking by finish order.

Shared by Macao and Repezita now; Huzur, Trombon and Toci will use them too.

>>> ranks_by_finish(finished=[2], rest=[0, 1, 3], cards=[4, 1, 0, 4])
(3, 2, 1, 3)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import ClassVar

from levata.engine import events
from levata.engine.cards import Card
from levata.engine.contract import Zone
from levata.engine.zones import FACE_DOWN, OWNER, Place, Zoned

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


class DrawPile(Zoned):
    """A face-down stock fed by reshuffling the discard pile but its top card (a base to mix
    into a game's state, before ``GameState``).

    Cards lie in the places of :attr:`PLACES`: ``hands`` (each kept sorted), ``stock`` (top
    card **last**, so a draw pops) and ``discard`` (top card last); a game adds its own. The
    game also keeps ``epoch`` (reshuffles so far) and ``_acq`` (each hand card -> the epoch
    it was drawn in and the private event naming it: after a reshuffle the new stock is a
    publicly known set, which is what a determinized world must respect). Events: a public
    ``draw`` with the count and a private ``drawn`` with the cards, and a public
    ``reshuffle`` with the count.
    """

    #: Where cards lie (:mod:`levata.engine.zones`); a game adds its own places after these.
    PLACES: ClassVar[tuple[Place, ...]] = (
        Place(
            "hand",
            "the seat's cards, kept sorted",
            attr="hands",
            per_seat=True,
            seen=OWNER,
            shown=False,  # a seat's own hand is view.hand; nobody sees another's
            counted="how many cards the seat holds",
            sorted=True,
        ),
        Place(
            "stock",
            "the face-down stock, top card last",
            seen=FACE_DOWN,
            shown=False,
            counted="cards left to draw (the discard pile, but its top, is reshuffled into it"
            " when it runs out)",
        ),
        Place(
            "discard",
            "the whole discard pile, bottom first (the top is last)",
            counted="cards in the discard pile",
        ),
    )

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
        while len(got) < n:
            if not self.stock and not self._reshuffle():
                break
            batch = self.stock[: -1 - min(n - len(got), len(self.stock)) : -1]  # from the top
            self._give(seat, batch)
            got += batch
        return got

    def _give(self, seat: int, cards: list[Card]) -> None:
        """Draw ``cards`` off the top of the stock into the hand: the count is public, the
        cards private."""
        self._emit(events.DRAW, seat=seat, count=len(cards))
        ev = self.move(cards, "stock", f"hand:{seat}", kind="drawn", seat=seat)
        for c in cards:
            self._acq[c] = (self.epoch, ev.seq)  # type: ignore[union-attr]  # a kind: an event

    def _reshuffle(self) -> bool:
        """Turn the discard pile but its top into a new stock; False if nothing is there."""
        cards = self.discard[:-1]
        if not cards:
            return False
        self.move(cards, "discard", "stock")  # face down: the reshuffle event tells the count
        self.rng.shuffle(self.stock)
        self.epoch += 1
        self._emit("reshuffle", count=len(cards))
        return True

    def table(self) -> tuple[Zone, ...]:
        # The table lists the stock top first, the order it is drawn in (the list keeps the
        # top last, so that a draw pops).
        return tuple(
            replace(z, cards=z.cards[::-1]) if z.name == "stock" else z for z in super().table()
        )
