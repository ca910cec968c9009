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

from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any, cast

from google.protobuf import struct_pb2

from levata.engine import Action, BadConfig, Card, Event, Result, SeatView, Suit
from levata.engine import game as find_game
from levata.v1 import cards_pb2, game_pb2
from levata.wire import encode

__all__ = [
    "action_field",
    "action_from_pb",
    "action_to_pb",
    "card_from_pb",
    "card_to_pb",
    "event_bytes",
    "event_from_pb",
    "event_to_pb",
    "field_bytes",
    "lazy_view_from_pb",
    "legal_bytes",
    "legal_to_pb",
    "options_from_pb",
    "result_to_pb",
    "struct_to_dict",
    "view_bytes",
    "view_from_pb",
    "view_to_pb",
]


# Encoding caches: a deck has few cards and a game few distinct actions, and building their
# messages (notation strings included) is most of the cost of encoding a view or a legal
# list. The cached messages are only ever copied into others (a repeated field or a parent
# copies what it is given); the public functions return fresh messages.
_CARD_PB: dict[Card, cards_pb2.Card] = {}
_CARD_FROM: dict[tuple[int, int], Card] = {}
_ACTION_PB: dict[Action, game_pb2.Action] = {}
_LEGAL_PB: dict[tuple[int, Action], game_pb2.LegalAction] = {}
#: Distinct actions kept encoded (a game with unbounded numbers cannot grow the cache).
_ACTION_CACHE_MAX = 4096


def card_to_pb(card: Card) -> cards_pb2.Card:
    msg = cards_pb2.Card()
    msg.CopyFrom(_card_pb(card))
    return msg


def _card_pb(card: Card) -> cards_pb2.Card:
    """The cached message of ``card``: copy it, never change it."""
    msg = _CARD_PB.get(card)
    if msg is None:
        # Proto suits count from 1 (0 is UNSPECIFIED); engine suits from 0.
        suit = cast(cards_pb2.Suit, int(card.suit) + 1)  # a proto enum is a plain int
        msg = _CARD_PB[card] = cards_pb2.Card(suit=suit, rank=card.rank, notation=str(card))
    return msg


def card_from_pb(msg: cards_pb2.Card) -> Card:
    """A card from its suit and rank, or from its notation when the suit is unset."""
    if msg.suit:
        key = (msg.suit, msg.rank)
        card = _CARD_FROM.get(key)
        if card is None:  # Card checks the rank; only valid cards are kept
            card = _CARD_FROM[key] = Card(Suit(msg.suit - 1), msg.rank)
        return card
    return Card.parse(msg.notation)


def _cards_to_pb(cards: Iterable[Card]) -> list[cards_pb2.Card]:
    return [_CARD_PB.get(c) or _card_pb(c) for c in cards]


def action_to_pb(action: Action) -> game_pb2.Action:
    msg = game_pb2.Action()
    msg.CopyFrom(_action_pb(action))
    return msg


def _action_pb(action: Action) -> game_pb2.Action:
    """The cached message of ``action``: copy it, never change it."""
    msg = _ACTION_PB.get(action)
    if msg is None:
        if len(_ACTION_PB) >= _ACTION_CACHE_MAX:
            _ACTION_PB.clear()
        msg = _ACTION_PB[action] = _new_action_pb(action)
    return msg


def legal_to_pb(actions: Iterable[Action], out: Any = None) -> Any:
    """The legal list of a request, each action with its index: a list of messages, or added
    to ``out`` (a request's repeated ``legal`` field) in place."""
    if out is None:
        return [game_pb2.LegalAction(index=k, action=_action_pb(a)) for k, a in enumerate(actions)]
    out.extend([_legal_pb(k, a) for k, a in enumerate(actions)])
    return out


def _legal_pb(k: int, action: Action) -> game_pb2.LegalAction:
    """The cached message of ``action`` at index ``k`` of a legal list: copy it, never change
    it (a repeated field copies what it is given)."""
    msg = _LEGAL_PB.get((k, action))
    if msg is None:
        if len(_LEGAL_PB) >= _ACTION_CACHE_MAX:
            _LEGAL_PB.clear()
        msg = _LEGAL_PB[k, action] = game_pb2.LegalAction(index=k, action=_action_pb(action))
    return msg


def _new_action_pb(action: Action) -> game_pb2.Action:
    msg = game_pb2.Action(kind=action.kind, notation=str(action))
    if action.card is not None:
        msg.card.CopyFrom(_card_pb(action.card))
    if action.number is not None:
        msg.number = action.number
    if action.choice is not None:
        msg.choice = action.choice
    return msg


def action_from_pb(msg: game_pb2.Action) -> Action:
    """The action from its fields, or from its notation when ``kind`` is empty. A payload
    (``signal=G7``) has no field of its own: it rides in the notation's ``key=value`` words.

    >>> action_from_pb(action_to_pb(Action.parse("swap 7C@2 signal=G7")))
    Action('swap 7C@2 signal=G7')
    """
    if not msg.kind:
        return Action.parse(msg.notation)
    action = Action(
        kind=msg.kind,
        card=card_from_pb(msg.card) if msg.HasField("card") else None,
        number=msg.number if msg.HasField("number") else None,
        choice=msg.choice if msg.HasField("choice") else None,
    )
    if "=" in msg.notation:
        return replace(action, payload=Action.parse(msg.notation).payload)
    return action


#: Structs already encoded, by the ``repr`` of their data: facts and event data repeat a
#: lot (every seat's view of one moment shares its public facts). The data is builtins and
#: cards, whose ``repr`` tells every value apart, so one key is one Struct.
_STRUCTS: dict[str, struct_pb2.Struct] = {}
_STRUCT_CACHE_MAX = 4096


def _to_struct(data: Mapping[str, Any]) -> struct_pb2.Struct:
    """``data`` as a Struct (cached: copy it, never change it)."""
    key = repr(data)
    s = _STRUCTS.get(key)
    if s is None:
        if len(_STRUCTS) >= _STRUCT_CACHE_MAX:
            _STRUCTS.clear()
        s = struct_pb2.Struct()
        _fill_struct(s, data)
        _STRUCTS[key] = s
    return s


def _fill_struct(s: struct_pb2.Struct, data: Mapping[Any, Any]) -> None:
    """``s.update(data)`` with keys as strings and cards as their notation, by type first
    (the common scalars cost one comparison)."""
    fields = s.fields
    for k, v in data.items():
        _set_value(fields[str(k)], v)


def _set_value(out: struct_pb2.Value, v: Any) -> None:
    t = type(v)
    if t is str:
        out.string_value = v
    elif t is int or t is float:
        out.number_value = v
    elif t is bool:
        out.bool_value = v
    elif v is None:
        out.null_value = struct_pb2.NULL_VALUE
    elif isinstance(v, Mapping):
        sub = out.struct_value
        sub.Clear()
        sub.SetInParent()
        _fill_struct(sub, v)
    elif isinstance(v, list | tuple | set | frozenset):
        values = out.list_value
        values.Clear()
        values.SetInParent()
        add = values.values.add
        for x in v:
            _set_value(add(), x)
    elif isinstance(v, Card):
        out.string_value = str(v)
    else:  # what Struct itself makes of it (a bool or number subclass; else ValueError)
        wrapped = struct_pb2.Struct()
        wrapped.update({"v": v})
        out.CopyFrom(wrapped.fields["v"])


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


#: Zones and tallies already encoded: a zone (the trick on the table, the trump card) and a
#: view's counts and counters stay the same across several requests (every seat asked
#: during one trick sees the same), and filling a map field is slow.
_ZONES: dict[tuple[str, tuple[Card, ...]], cards_pb2.CardZone] = {}
_TALLIES: dict[tuple[Any, ...], game_pb2.SeatView] = {}
_VIEW_CACHE_MAX = 4096


def view_to_pb(
    view: SeatView, with_history: bool = True, out: game_pb2.SeatView | None = None
) -> game_pb2.SeatView:
    """The view as a message (filled into ``out``, an empty one, if given); without history
    when the events travel on their own."""
    msg = game_pb2.SeatView() if out is None else out
    msg.game = view.game
    msg.seat = view.seat
    msg.players = view.players
    msg.phase = view.phase
    msg.to_act.extend(view.to_act)
    msg.hand.extend(_cards_to_pb(view.hand))
    zones = msg.zones
    for name, cards in view.zones.items():
        zones.append(_zone_pb(name, tuple(cards)))
    key = (*view.counts.items(), None, *view.counters.items())
    tallies = _TALLIES.get(key)
    if tallies is None:
        if len(_TALLIES) >= _VIEW_CACHE_MAX:
            _TALLIES.clear()
        tallies = _TALLIES[key] = game_pb2.SeatView()
        tallies.counts.update(view.counts)
        tallies.counters.update(view.counters)
    msg.MergeFrom(tallies)
    msg.trump = view.trump or ""
    msg.scores.extend(view.scores)
    msg.facts.CopyFrom(_to_struct(view.facts))
    if with_history:
        msg.history.extend(event_to_pb(e) for e in view.history)
    return msg


# -- encoding straight to bytes ---------------------------------------------------------------
#
# A serialized message is the concatenation of its fields' encodings, in any order, and a
# repeated field's encoding is its elements' one after another. Views and events are written
# by the Cython encoder (:mod:`levata.wire.encode`); actions, few and repeated, are encoded
# once by protobuf itself and kept as pieces. ``FromString`` of either equals the message
# built here field by field (the tests compare them for every game).

_PIECES: dict[tuple[Any, ...], bytes] = {}
_PIECES_MAX = 16384


def view_bytes(view: SeatView) -> bytes:
    """The view without its history, encoded as a ``SeatView`` (by :mod:`levata.wire.encode`,
    straight to the wire format).

    >>> from levata.engine import game
    >>> view = game("whist").new_match(players=4, seed=2).view(1, history=False)
    >>> game_pb2.SeatView.FromString(view_bytes(view)) == view_to_pb(view, with_history=False)
    True
    """
    return encode.seat_view(view)


def event_bytes(ev: Event) -> bytes:
    """An event encoded as an ``Event`` (by :mod:`levata.wire.encode`).

    >>> from levata.engine import game
    >>> ev = game("whist").new_match(players=4, seed=2).events(since=0)[0]
    >>> game_pb2.Event.FromString(event_bytes(ev)) == event_to_pb(ev)
    True
    """
    return encode.event(ev)


def action_field(action: Action, number: int = 4) -> bytes:
    """``action`` encoded as field ``number`` of the message it goes in
    (``ActionApplied.action`` is 4).

    >>> from levata.v1 import arena_pb2
    >>> play = Action.parse("play QH")
    >>> arena_pb2.ActionApplied.FromString(action_field(play)).action == action_to_pb(play)
    True
    """
    key = ("action", number, action)
    data = _PIECES.get(key)
    if data is None:
        if len(_PIECES) >= _PIECES_MAX:
            _PIECES.clear()
        data = _PIECES[key] = field_bytes(number, _action_pb(action).SerializeToString())
    return data


def legal_bytes(actions: Iterable[Action], number: int = 6) -> bytes:
    """A legal list, each action with its index, encoded as field ``number`` of the message
    it goes in (``DecisionRequest.legal`` is 6)."""
    get = _PIECES.get
    parts = []
    for k, action in enumerate(actions):
        key = ("legal", number, k, action)
        data = get(key)
        if data is None:
            if len(_PIECES) >= _PIECES_MAX:
                _PIECES.clear()
            data = _PIECES[key] = field_bytes(number, _legal_pb(k, action).SerializeToString())
        parts.append(data)
    return b"".join(parts)


field_bytes = encode.field
"""``data`` (an encoded message) as the length-delimited field ``number`` of another
(:func:`levata.wire.encode.field`).

>>> game_pb2.SeatView.FromString(field_bytes(12, b"")).HasField("facts")
True
"""


def _zone_pb(name: str, cards: tuple[Card, ...]) -> cards_pb2.CardZone:
    """The cached message of a zone: copy it, never change it."""
    zone = _ZONES.get((name, cards))
    if zone is None:
        if len(_ZONES) >= _VIEW_CACHE_MAX:
            _ZONES.clear()
        zone = _ZONES[name, cards] = cards_pb2.CardZone(name=name, count=len(cards))
        zone.cards.extend(_cards_to_pb(cards))
    return zone


def view_from_pb(
    msg: game_pb2.SeatView,
    history: Iterable[Event] | None = None,
    options: Mapping[str, Any] | None = None,
) -> SeatView:
    """The view back; ``history`` replaces the message's own when the events came separately.
    ``options`` are the match's rule options, which travel once in ``MatchStart``, not in
    every view (see :func:`options_from_pb`)."""
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
        options=dict(options or {}),
    )


def options_from_pb(game: str, options: Mapping[str, str]) -> dict[str, Any]:
    """A ``MatchStart``'s options (strings on the wire) as the typed values a view carries:
    the game's defaults overlaid with what the referee sent.

    >>> options_from_pb("whist", {"deal_size": "3"})["deal_size"]
    3
    """
    try:
        return find_game(game).resolve_options(options)
    except BadConfig:  # a game or an option this side does not know: keep what was sent
        return dict(options)


class _LazyView(SeatView):
    """A :class:`SeatView` decoded from its message on first use, when it turns into a plain
    ``SeatView``: a bot that never reads its view (a random bot) costs no decoding."""

    def __init__(
        self,
        msg: game_pb2.SeatView,
        history: Callable[[], Iterable[Event]],
        options: Mapping[str, Any] | None = None,
    ) -> None:  # SeatView's own __init__ would want every field now
        object.__setattr__(self, "_lazy", (msg, history, options))

    def _decode(self) -> None:
        if "_lazy" in self.__dict__:
            msg, history, options = self.__dict__.pop("_lazy")
            self.__dict__.update(view_from_pb(msg, history=history(), options=options).__dict__)
            object.__setattr__(self, "__class__", SeatView)

    def __getattr__(self, name: str) -> Any:  # a field not decoded yet
        if "_lazy" not in self.__dict__:
            raise AttributeError(name)
        self._decode()
        return getattr(self, name)

    def __eq__(self, other: object) -> bool:
        self._decode()
        return self == other

    def __hash__(self) -> int:
        self._decode()
        return hash(self)

    def __repr__(self) -> str:
        self._decode()
        return repr(self)

    def __reduce_ex__(self, protocol: Any) -> Any:
        self._decode()
        return self.__reduce_ex__(protocol)


def lazy_view_from_pb(
    msg: game_pb2.SeatView,
    history: Callable[[], Iterable[Event]],
    options: Mapping[str, Any] | None = None,
) -> SeatView:
    """:func:`view_from_pb`, done when the view is first read; ``history()`` then gives the
    events (those the seat had received when the view was made).

    >>> from levata.engine import game
    >>> state = game("whist").new_match(players=3, seed=2)
    >>> view = state.view(0)
    >>> lazy = lazy_view_from_pb(view_to_pb(view), lambda: view.history, view.options)
    >>> isinstance(lazy, SeatView) and lazy == view and type(lazy) is SeatView
    True
    """
    return _LazyView(msg, history, options)


def result_to_pb(result: Result, forfeited: Iterable[int] = ()) -> game_pb2.MatchResult:
    msg = game_pb2.MatchResult(
        scores=list(result.scores),
        ranks=list(result.ranks),
        winners=list(result.winners),
        reason=result.reason,
        forfeited=list(forfeited),
    )
    msg.details.ParseFromString(encode.struct({"deals": list(result.deals)}))  # a long list
    return msg
