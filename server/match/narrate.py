"""Turn match events into lines a card player reads: deals, bids, tricks, scores.

The narrator is a referee-side spectator: it sees every event, private ones included, so a
local ``levata play`` log shows each hand as it is dealt.

>>> from levata.engine import Event, Card
>>> narrate(Event(seq=3, kind="bid", seat=2, data={"number": 1}))
'seat 2 bids 1'
>>> narrate(Event(seq=4, kind="play", seat=0, cards=(Card.parse("QH"),)))
'seat 0 plays QH'
"""

from __future__ import annotations

from levata.engine import Event

__all__ = ["narrate"]


def _cards(ev: Event) -> str:
    return " ".join(str(c) for c in ev.cards)


def _deal(ev: Event) -> str:
    d = ev.data
    trump = f"trump {_cards(ev)}" if ev.cards else "no trump"
    if "size" in d:
        return (
            f"-- deal {d['deal']}: {d['size']} card(s) each, first seat {d['first']}, "
            f"dealer seat {d['dealer']}, {trump}"
        )
    return f"-- deal: {_generic(ev)}"


def _score(ev: Event) -> str:
    d = ev.data
    parts = [
        f"seat {s}: bid {b} took {t} -> {p:+d} (total {tot})"
        for s, (b, t, p, tot) in enumerate(
            zip(d["bids"], d["tricks"], d["points"], d["totals"], strict=True)
        )
    ]
    return "   score: " + "; ".join(parts)


def _generic(ev: Event) -> str:
    return str(ev)


_TEMPLATES = {
    "deal": _deal,
    "hand": lambda ev: f"   seat {ev.seat} holds {_cards(ev)}",
    "foreheads": lambda ev: f"   seat {min(ev.audience or [0])} sees {_cards(ev)} (not its own)",
    "bid": lambda ev: f"seat {ev.seat} bids {ev.data['number']}",
    "play": lambda ev: f"seat {ev.seat} plays {_cards(ev)}",
    "trick": lambda ev: f"   trick to seat {ev.seat} ({_cards(ev)})",
    "score": _score,
    "end": lambda ev: f"== end: scores {ev.data.get('scores')}, winners {ev.data.get('winners')}",
}


def narrate(ev: Event) -> str:
    """One readable line for an event (a generic line for kinds without a template)."""
    return _TEMPLATES.get(ev.kind, _generic)(ev)
