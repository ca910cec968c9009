"""The no-leak check must catch a game that leaks: wrap Whist, add a leak, expect failure."""

from __future__ import annotations

import dataclasses

import pytest

from levata.engine import SeatView, game
from levata.engine.games.whist import WhistState
from levata.engine.testing import play_checked


class ViewLeakWhist(WhistState):
    """Shows each seat the hand of the seat on its left."""

    def view(self, seat: int) -> SeatView:
        v = super().view(seat)
        left = (seat + 1) % self.players
        return dataclasses.replace(v, zones={**v.zones, "peek": tuple(self.hands[left])})


class EventLeakWhist(WhistState):
    """Announces the first bidder's hand publicly when bidding starts."""

    def _bid(self, seat: int, bid: int) -> None:
        if all(b is None for b in self.bids):
            self._emit("gossip", cards=self.hands[(seat + 1) % self.players])
        super()._bid(seat, bid)


class ForeheadOwnCardLeak(WhistState):
    """In forehead mode, tells each seat its own card too (the spec's test 9 forbids it)."""

    def _start_deal(self, order):
        super()._start_deal(order)
        if self.forehead:
            for s in range(self.players):
                self._emit("oops", audience={s}, cards=self.hands[s])


@pytest.mark.parametrize("leaky", [ViewLeakWhist, EventLeakWhist, ForeheadOwnCardLeak])
def test_leaks_are_caught(leaky):
    spec = dataclasses.replace(game("whist"), factory=leaky)
    with pytest.raises(AssertionError, match="leak"):
        for i in range(4):  # match 1 is forehead mode (option variants rotate)
            play_checked(spec, i, seed=11 + i)


def test_honest_whist_passes_the_same_check():
    spec = game("whist")
    for i in range(4):
        play_checked(spec, i, seed=11 + i)
