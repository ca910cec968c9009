"""Engine values to protocol messages and back (``levata.v1``), for the referee and the SDK.

Round trips are exact, so a bot over gRPC sees the very :class:`SeatView` it would see
in-process:

>>> from levata.engine import Action, Card
>>> action_from_pb(action_to_pb(Action.parse("play QH"))) == Action.parse("play QH")
True
>>> card_from_pb(card_to_pb(Card.parse("Kc")))
Card('Kc')
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from google.protobuf import struct_pb2

from levata.engine import Action, Card, Event, Result, SeatView, Suit
from levata.v1 import cards_pb2, game_pb2

__all__ = [
    "action_from_pb",
    "action_to_pb",
    "card_from_pb",
    "card_to_pb",
    "event_from_pb",
    "event_to_pb",
    "result_to_pb",
    "struct_to_dict",
    "view_from_pb",
    "view_to_pb",
]


def card_to_pb(card: Card) -> cards_pb2.Card:
    # Proto suits count from 1 (0 is UNSPECIFIED); engine suits from 0.
    return cards_pb2.Card(suit=int(card.suit) + 1, rank=card.rank, notation=str(card))


def card_from_pb(msg: cards_pb2.Card) -> Card:
    """A card from its suit and rank, or from its notation when the suit is unset."""
    if msg.suit:
        return Card(Suit(msg.suit - 1), msg.rank)
    return Card.parse(msg.notation)


def _cards_to_pb(cards: Iterable[Card]) -> list[cards_pb2.Card]:
    return [card_to_pb(c) for c in cards]


def action_to_pb(action: Action) -> game_pb2.Action:
    msg = game_pb2.Action(kind=action.kind, notation=str(action))
    if action.card is not None:
        msg.card.CopyFrom(card_to_pb(action.card))
    if action.number is not None:
        msg.number = action.number
    if action.choice is not None:
        msg.choice = action.choice
    return msg


def action_from_pb(msg: game_pb2.Action) -> Action:
    """The action from its fields, or from its notation when ``kind`` is empty."""
    if not msg.kind:
        return Action.parse(msg.notation)
    return Action(
        kind=msg.kind,
        card=card_from_pb(msg.card) if msg.HasField("card") else None,
        number=msg.number if msg.HasField("number") else None,
        choice=msg.choice if msg.HasField("choice") else None,
    )


def _to_struct(data: Mapping[str, Any]) -> struct_pb2.Struct:
    s = struct_pb2.Struct()
    s.update({str(k): _jsonable(v) for k, v in data.items()})
    return s


def _jsonable(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_jsonable(v) for v in value]
    if isinstance(value, Card):
        return str(value)
    return value


def struct_to_dict(s: struct_pb2.Struct) -> dict[str, Any]:
    """A Struct as plain Python; whole numbers come back as ``int`` (JSON has one number)."""
    return {k: _restore(v) for k, v in s.items()}


def _restore(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, struct_pb2.Struct | Mapping):
        return {k: _restore(v) for k, v in value.items()}
    if isinstance(value, struct_pb2.ListValue | list):
        return [_restore(v) for v in value]
    return value


def event_to_pb(ev: Event) -> game_pb2.Event:
    msg = game_pb2.Event(
        seq=ev.seq,
        kind=ev.kind,
        cards=_cards_to_pb(ev.cards),
        is_public=ev.audience is None,
        audience=sorted(ev.audience or ()),
    )
    if ev.seat is not None:
        msg.seat = ev.seat
    msg.data.CopyFrom(_to_struct(ev.data))
    return msg


def event_from_pb(msg: game_pb2.Event) -> Event:
    """An event as the receiving seat sees it."""
    return Event(
        seq=msg.seq,
        kind=msg.kind,
        audience=None if msg.is_public else frozenset(msg.audience),
        seat=msg.seat if msg.HasField("seat") else None,
        cards=tuple(card_from_pb(c) for c in msg.cards),
        data=struct_to_dict(msg.data),
    )


def view_to_pb(view: SeatView, with_history: bool = True) -> game_pb2.SeatView:
    """The view as a message; without history when the events travel on their own."""
    msg = game_pb2.SeatView(
        game=view.game,
        seat=view.seat,
        players=view.players,
        phase=view.phase,
        to_act=list(view.to_act),
        hand=_cards_to_pb(view.hand),
        zones=[
            cards_pb2.CardZone(name=name, cards=_cards_to_pb(cards), count=len(cards))
            for name, cards in view.zones.items()
        ],
        counts=dict(view.counts),
        counters=dict(view.counters),
        trump=view.trump or "",
        scores=list(view.scores),
    )
    msg.facts.CopyFrom(_to_struct(view.facts))
    if with_history:
        msg.history.extend(event_to_pb(e) for e in view.history)
    return msg


def view_from_pb(msg: game_pb2.SeatView, history: Iterable[Event] | None = None) -> SeatView:
    """The view back; ``history`` replaces the message's own when the events came separately."""
    events = tuple(history) if history is not None else tuple(event_from_pb(e) for e in msg.history)
    return SeatView(
        game=msg.game,
        seat=msg.seat,
        players=msg.players,
        phase=msg.phase,
        to_act=tuple(msg.to_act),
        hand=tuple(card_from_pb(c) for c in msg.hand),
        zones={z.name: tuple(card_from_pb(c) for c in z.cards) for z in msg.zones},
        counts=dict(msg.counts),
        counters=dict(msg.counters),
        trump=msg.trump or None,
        scores=tuple(msg.scores),
        facts=struct_to_dict(msg.facts),
        history=events,
    )


def result_to_pb(result: Result, forfeited: Iterable[int] = ()) -> game_pb2.MatchResult:
    msg = game_pb2.MatchResult(
        scores=list(result.scores),
        ranks=list(result.ranks),
        winners=list(result.winners),
        reason=result.reason,
        forfeited=list(forfeited),
    )
    msg.details.CopyFrom(_to_struct({"deals": list(result.deals)}))
    return msg
