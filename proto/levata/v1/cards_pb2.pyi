from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Suit(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SUIT_UNSPECIFIED: _ClassVar[Suit]
    SUIT_CLUBS: _ClassVar[Suit]
    SUIT_DIAMONDS: _ClassVar[Suit]
    SUIT_HEARTS: _ClassVar[Suit]
    SUIT_SPADES: _ClassVar[Suit]
    SUIT_BASTONI: _ClassVar[Suit]
    SUIT_DENARI: _ClassVar[Suit]
    SUIT_COPPE: _ClassVar[Suit]
    SUIT_SPADE: _ClassVar[Suit]
SUIT_UNSPECIFIED: Suit
SUIT_CLUBS: Suit
SUIT_DIAMONDS: Suit
SUIT_HEARTS: Suit
SUIT_SPADES: Suit
SUIT_BASTONI: Suit
SUIT_DENARI: Suit
SUIT_COPPE: Suit
SUIT_SPADE: Suit

class Card(_message.Message):
    __slots__ = ("suit", "rank", "notation")
    SUIT_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    NOTATION_FIELD_NUMBER: _ClassVar[int]
    suit: Suit
    rank: int
    notation: str
    def __init__(self, suit: _Optional[_Union[Suit, str]] = ..., rank: _Optional[int] = ..., notation: _Optional[str] = ...) -> None: ...

class CardZone(_message.Message):
    __slots__ = ("name", "cards", "count")
    NAME_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    name: str
    cards: _containers.RepeatedCompositeFieldContainer[Card]
    count: int
    def __init__(self, name: _Optional[str] = ..., cards: _Optional[_Iterable[_Union[Card, _Mapping]]] = ..., count: _Optional[int] = ...) -> None: ...
