"""The stocks of a Toci table, as a seat knows them from the public history.

A stock is a pile turned over, and every card of a pile was turned up before all as it
landed, so the history tells each stock card by card, in order, although no view shows it
(the spec sends a stock's size only). :func:`replay` walks the history once per view object
(a search asks many worlds of one view) and returns the stocks, each with its top card last.

>>> from levata.engine import Action, game
>>> state = game("toci").new_match(players=2, seed=4)
>>> while state.view(0).facts["stage"] == "circle":
...     seat = state.to_act()[0]
...     state.apply(seat, state.legal_actions(seat)[-1])
>>> replay(state.view(1)) == state.stocks
True
"""

from __future__ import annotations

from levata.engine import events
from levata.engine.cards import Card
from levata.engine.contract import SeatView
from levata.engine.worlds import ViewCache

__all__ = ["replay"]

#: The walks of the last few views.
_WALKS: ViewCache[list[list[Card]]] = ViewCache(size=8)


def replay(view: SeatView) -> list[list[Card]]:
    """Each seat's stock (top card last), from ``view``'s history; fresh lists."""
    return [list(k) for k in _WALKS.get(view, None, lambda: _walk(view))]


def _walk(view: SeatView) -> list[list[Card]]:
    n = view.players
    piles: list[list[Card]] = [[] for _ in range(n)]
    stocks: list[list[Card]] = [[] for _ in range(n)]
    for ev in view.history:
        kind, seat, data = ev.kind, ev.seat, ev.data
        if kind == events.POSITION:
            piles = [[Card.parse(c) for c in p] for p in data["piles"]]
            stocks = [[Card.parse(c) for c in k][::-1] for k in data["stocks"]]
        elif kind == "reveal" and str(data["source"]).startswith("stock"):
            stocks[seat].pop()  # type: ignore[index]  # a reveal names its seat
        elif kind == "place_own":
            piles[seat].append(ev.cards[0])  # type: ignore[index]
        elif kind in ("place_on", "correct", "place_house"):
            if kind == "correct":
                piles[seat].pop()  # type: ignore[index]
            if "to" in data:
                piles[data["to"]].append(ev.cards[0])
        elif kind == "flipped":
            stocks[seat], piles[seat] = piles[seat][::-1], []  # type: ignore[index]
        elif kind == "turned":
            for s in range(n):
                stocks[s], piles[s] = piles[s][::-1], []
    shown = [list(view.zones[f"pile:{s}"]) for s in range(n)]
    if piles != shown:
        raise ValueError("the history does not lead to the piles the view shows")
    return stocks
