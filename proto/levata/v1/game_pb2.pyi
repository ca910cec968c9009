from google.protobuf import struct_pb2 as _struct_pb2
from levata.v1 import cards_pb2 as _cards_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Action(_message.Message):
    __slots__ = ("kind", "card", "number", "choice", "notation")
    KIND_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    NUMBER_FIELD_NUMBER: _ClassVar[int]
    CHOICE_FIELD_NUMBER: _ClassVar[int]
    NOTATION_FIELD_NUMBER: _ClassVar[int]
    kind: str
    card: _cards_pb2.Card
    number: int
    choice: str
    notation: str
    def __init__(self, kind: _Optional[str] = ..., card: _Optional[_Union[_cards_pb2.Card, _Mapping]] = ..., number: _Optional[int] = ..., choice: _Optional[str] = ..., notation: _Optional[str] = ...) -> None: ...

class LegalAction(_message.Message):
    __slots__ = ("index", "action")
    INDEX_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    index: int
    action: Action
    def __init__(self, index: _Optional[int] = ..., action: _Optional[_Union[Action, _Mapping]] = ...) -> None: ...

class Event(_message.Message):
    __slots__ = ("seq", "kind", "seat", "cards", "data", "is_public", "audience")
    SEQ_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    IS_PUBLIC_FIELD_NUMBER: _ClassVar[int]
    AUDIENCE_FIELD_NUMBER: _ClassVar[int]
    seq: int
    kind: str
    seat: int
    cards: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Card]
    data: _struct_pb2.Struct
    is_public: bool
    audience: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, seq: _Optional[int] = ..., kind: _Optional[str] = ..., seat: _Optional[int] = ..., cards: _Optional[_Iterable[_Union[_cards_pb2.Card, _Mapping]]] = ..., data: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., is_public: _Optional[bool] = ..., audience: _Optional[_Iterable[int]] = ...) -> None: ...

class SeatView(_message.Message):
    __slots__ = ("game", "seat", "players", "phase", "to_act", "hand", "zones", "counts", "counters", "trump", "scores", "facts", "history")
    class CountsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    class CountersEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    GAME_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    ZONES_FIELD_NUMBER: _ClassVar[int]
    COUNTS_FIELD_NUMBER: _ClassVar[int]
    COUNTERS_FIELD_NUMBER: _ClassVar[int]
    TRUMP_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    FACTS_FIELD_NUMBER: _ClassVar[int]
    HISTORY_FIELD_NUMBER: _ClassVar[int]
    game: str
    seat: int
    players: int
    phase: str
    to_act: _containers.RepeatedScalarFieldContainer[int]
    hand: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Card]
    zones: _containers.RepeatedCompositeFieldContainer[_cards_pb2.CardZone]
    counts: _containers.ScalarMap[str, int]
    counters: _containers.ScalarMap[str, int]
    trump: str
    scores: _containers.RepeatedScalarFieldContainer[float]
    facts: _struct_pb2.Struct
    history: _containers.RepeatedCompositeFieldContainer[Event]
    def __init__(self, game: _Optional[str] = ..., seat: _Optional[int] = ..., players: _Optional[int] = ..., phase: _Optional[str] = ..., to_act: _Optional[_Iterable[int]] = ..., hand: _Optional[_Iterable[_Union[_cards_pb2.Card, _Mapping]]] = ..., zones: _Optional[_Iterable[_Union[_cards_pb2.CardZone, _Mapping]]] = ..., counts: _Optional[_Mapping[str, int]] = ..., counters: _Optional[_Mapping[str, int]] = ..., trump: _Optional[str] = ..., scores: _Optional[_Iterable[float]] = ..., facts: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., history: _Optional[_Iterable[_Union[Event, _Mapping]]] = ...) -> None: ...

class MatchResult(_message.Message):
    __slots__ = ("scores", "ranks", "winners", "reason", "forfeited", "details")
    SCORES_FIELD_NUMBER: _ClassVar[int]
    RANKS_FIELD_NUMBER: _ClassVar[int]
    WINNERS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    FORFEITED_FIELD_NUMBER: _ClassVar[int]
    DETAILS_FIELD_NUMBER: _ClassVar[int]
    scores: _containers.RepeatedScalarFieldContainer[float]
    ranks: _containers.RepeatedScalarFieldContainer[int]
    winners: _containers.RepeatedScalarFieldContainer[int]
    reason: str
    forfeited: _containers.RepeatedScalarFieldContainer[int]
    details: _struct_pb2.Struct
    def __init__(self, scores: _Optional[_Iterable[float]] = ..., ranks: _Optional[_Iterable[int]] = ..., winners: _Optional[_Iterable[int]] = ..., reason: _Optional[str] = ..., forfeited: _Optional[_Iterable[int]] = ..., details: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...
