"""Turn match events into lines a card player reads: deals, bids, tricks, scores.

The narrator is a referee-side spectator: it sees every event, private ones included, so a
local ``levata play`` log shows each hand as it is dealt. It speaks the shared vocabulary of
:mod:`levata.engine.events`; a game's own kinds are its
:attr:`~levata.engine.GameSpec.narrate` hook's to say, and anything else (or a payload shaped
otherwise) still gets a plain line, never an error.

>>> from levata.engine import Event, Card
>>> narrate(Event(seq=3, kind="bid", seat=2, data={"number": 1}))
'seat 2 bids 1'
>>> narrate(Event(seq=4, kind="play", seat=0, cards=(Card.parse("QH"),)))
'seat 0 plays QH'
>>> narrate(Event(seq=5, kind="score", data={"points": [3, -1]}))
'   score: seat 0: -> +3; seat 1: -> -1'
>>> narrate(Event(seq=6, kind="juggle", seat=1, data={"balls": 3}))
'seat 1 juggle balls=3'
"""

from __future__ import annotations

from collections.abc import Callable

from levata.engine import Event, GameSpec, game
from levata.engine import events as ev_

__all__ = ["narrate"]


def _cards(ev: Event) -> str:
    return " ".join(str(c) for c in ev.cards)


def _deal(ev: Event) -> str:
    d = ev.data
    parts = []
    if ev_.SIZE in d:
        parts.append(f"{d[ev_.SIZE]} card(s) each")
    if ev_.FIRST in d:
        parts.append(f"first seat {d[ev_.FIRST]}")
    if ev_.DEALER in d:
        parts.append(f"dealer seat {d[ev_.DEALER]}")
    if ev_.TRUMP in d:  # a trump game: the turned-up card is the trump
        parts.append(f"trump {_cards(ev)}" if ev.cards else "no trump")
    elif ev.cards:
        parts.append(f"turned up {_cards(ev)}")
    number = f" {d[ev_.DEAL_NUMBER]}" if ev_.DEAL_NUMBER in d else ""
    return f"-- deal{number}: {', '.join(parts) or _extras(ev, ())}"


#: Per-seat columns of a score, in reading order, with how each value is said.
_SCORE_COLUMNS: tuple[tuple[str, Callable[[object], str]], ...] = (
    (ev_.BIDS, lambda v: f"bid {v}"),
    (ev_.TRICKS, lambda v: f"took {v}"),
    (ev_.POINTS, lambda v: f"-> {v:+d}" if isinstance(v, int) else f"-> {v}"),
    (ev_.TOTALS, lambda v: f"(total {v})"),
)


def _score(ev: Event) -> str:
    d = ev.data
    columns = [(d[k], say) for k, say in _SCORE_COLUMNS if isinstance(d.get(k), list)]
    if not columns:
        return f"   score: {_extras(ev, ())}"
    seats = min(len(values) for values, _ in columns)
    parts = [
        f"seat {s}: " + " ".join(say(values[s]) for values, say in columns) for s in range(seats)
    ]
    return "   score: " + "; ".join(parts)


def _finish(ev: Event) -> str:
    place = ev.data.get(ev_.PLACE, ev.data.get(ev_.RANK))
    return f"seat {ev.seat} is out of cards" + (f": place {place}" if place is not None else "")


def _end(ev: Event) -> str:
    keys = (ev_.SCORES, ev_.RANKS, ev_.WINNERS, ev_.REASON)
    said = [f"{k} {ev.data[k]}" for k in keys if k in ev.data]
    return "== end: " + (", ".join(said) or "the match is over")


def _extras(ev: Event, said: tuple[str, ...]) -> str:
    return " ".join(f"{k}={v}" for k, v in ev.data.items() if k not in said)


_SHARED: dict[str, Callable[[Event], str]] = {
    ev_.DEAL: _deal,
    ev_.HAND: lambda ev: f"   seat {ev.seat} holds {_cards(ev) or 'no cards yet'}",
    ev_.BID: lambda ev: f"seat {ev.seat} bids {ev.data[ev_.NUMBER]}",
    ev_.PLAY: lambda ev: f"seat {ev.seat} plays {_cards(ev)}",
    ev_.DRAW: lambda ev: f"seat {ev.seat} draws {ev.data.get('count', len(ev.cards))}",
    ev_.PASS: lambda ev: f"seat {ev.seat} passes",
    ev_.TRICK: lambda ev: f"   trick to seat {ev.seat} ({_cards(ev)})",
    ev_.SCORE: _score,
    ev_.FINISH: _finish,
    ev_.END: _end,
}


def narrate(ev: Event, spec: GameSpec | str | None = None) -> str:
    """One readable line for an event of the game ``spec`` (a spec or a game's name).

    The game's own hook speaks first, then the shared vocabulary; an unknown kind, or a
    shared kind whose payload is not what the vocabulary says, gets the event's plain line.
    """
    if isinstance(spec, str):
        spec = game(spec)
    for say in (spec.narrate if spec is not None else None, _SHARED.get(ev.kind)):
        if say is None:
            continue
        try:
            line = say(ev)
        except (KeyError, TypeError, ValueError, IndexError, AttributeError):
            continue  # a payload shaped otherwise: a plain line is better than no log at all
        if line is not None:
            return line
    return str(ev)
