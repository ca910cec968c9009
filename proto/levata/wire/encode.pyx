# cython: language_level=3, boundscheck=False, wraparound=False
"""Protobuf wire encoding of the messages the referee sends most: a seat's view, an event.

The referee builds a ``SeatView`` and the events for every decision of every match; built
as protobuf messages field by field they cost tens of microseconds each, most of it in
creating Python-level messages and filling maps and Structs. Here they are written straight
to bytes in the wire format (``protobuf.dev/programming-guides/encoding``), the same bytes a
parser reads as the message :mod:`levata.wire.codec` builds: the tests parse both and compare
them for every game (``tests/bots/test_wire.py``), so the messages stay the one definition.

>>> from levata.engine import game
>>> from levata.v1 import game_pb2
>>> view = game("whist").new_match(players=4, seed=2).view(1, history=False)
>>> msg = game_pb2.SeatView.FromString(seat_view(view))
>>> msg.game, msg.seat, len(msg.hand), msg.counts["hand:0"]
('whist', 1, 1, 1)
"""

from collections.abc import Mapping

from cpython.bytes cimport PyBytes_FromStringAndSize
from libc.stdint cimport uint64_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy, memmove

from levata.engine.cards import Card

__all__ = ["event", "field", "request_clock", "seat_view", "struct"]

cdef enum:
    VARINT = 0  # wire types
    I64 = 1
    LEN = 2

cdef extern from "Python.h":
    const char* PyUnicode_AsUTF8AndSize(object text, Py_ssize_t* size) except NULL

#: Encoded ``Card`` messages (suit, rank, notation), by ``suit * 16 + rank``: a deck is small.
cdef list _CARDS = [None] * 256


cdef struct Buf:
    char* data
    Py_ssize_t size
    Py_ssize_t cap


cdef int grow(Buf* b, Py_ssize_t more) except -1:
    cdef Py_ssize_t cap = b.cap
    cdef char* data
    if b.size + more <= cap:
        return 0
    while cap < b.size + more:
        cap = 2 * cap if cap else 256
    data = <char*>realloc(b.data, cap)
    if data == NULL:
        raise MemoryError()
    b.data, b.cap = data, cap
    return 0


cdef inline int varint_size(uint64_t n) noexcept:
    cdef int k = 1
    while n >= 0x80:
        n >>= 7
        k += 1
    return k


cdef inline int put_varint(Buf* b, uint64_t n) except -1:
    grow(b, 10)
    while n >= 0x80:
        b.data[b.size] = <char>((n & 0x7F) | 0x80)
        n >>= 7
        b.size += 1
    b.data[b.size] = <char>n
    b.size += 1
    return 0


cdef inline int put_tag(Buf* b, int number, int wire) except -1:
    return put_varint(b, <uint64_t>(number << 3 | wire))


cdef inline int put_int(Buf* b, int number, long long value) except -1:
    """An int32/int64/enum field; zero is the default and is left out (proto3)."""
    if value != 0:
        put_tag(b, number, VARINT)
        put_varint(b, <uint64_t>value)  # negatives: two's complement, ten bytes
    return 0


cdef inline int put_bytes(Buf* b, int number, const char* data, Py_ssize_t n) except -1:
    put_tag(b, number, LEN)
    put_varint(b, <uint64_t>n)
    grow(b, n)
    memcpy(b.data + b.size, data, n)
    b.size += n
    return 0


cdef inline int put_str(Buf* b, int number, str text, bint always=False) except -1:
    cdef Py_ssize_t n
    cdef const char* data
    if text or always:
        data = PyUnicode_AsUTF8AndSize(text, &n)  # the string's own UTF-8, no copy
        put_bytes(b, number, data, n)
    return 0


cdef inline Py_ssize_t open_field(Buf* b, int number) except -1:
    """Start a length-delimited field whose length is not known yet: one byte is kept for
    it (most of ours are shorter than 128 bytes); :func:`close_field` makes room if not."""
    put_tag(b, number, LEN)
    grow(b, 1)
    b.size += 1
    return b.size


cdef inline int close_field(Buf* b, Py_ssize_t start) except -1:
    cdef Py_ssize_t n = b.size - start
    cdef int k = varint_size(<uint64_t>n)
    cdef Py_ssize_t end
    if k > 1:
        grow(b, k - 1)
        memmove(b.data + start + k - 1, b.data + start, n)
    end = b.size + k - 1
    b.size = start - 1
    put_varint(b, <uint64_t>n)
    b.size = end
    return 0


cdef inline int put_double(Buf* b, double value) except -1:
    grow(b, 8)
    memcpy(b.data + b.size, &value, 8)  # little-endian on every platform we build for
    b.size += 8
    return 0


cdef bytes card_bytes(object card):
    """A card as an encoded ``Card`` message (proto suits count from 1, engine suits from 0)."""
    cdef Buf b = Buf(NULL, 0, 0)
    cdef int suit = card.suit, rank = card.rank
    cdef int key = suit * 16 + rank if 0 <= suit < 16 and 0 <= rank < 16 else -1
    data = _CARDS[key] if key >= 0 else None
    if data is None:
        try:
            put_int(&b, 1, int(card.suit) + 1)
            put_int(&b, 2, card.rank)
            put_str(&b, 3, str(card))
            data = PyBytes_FromStringAndSize(b.data, b.size)
            if key >= 0:
                _CARDS[key] = data
        finally:
            free(b.data)
    return <bytes>data


cdef inline int put_cards(Buf* b, int number, object cards) except -1:
    cdef bytes data
    for card in cards:
        data = card_bytes(card)
        put_bytes(b, number, data, len(data))
    return 0


cdef int put_packed_ints(Buf* b, int number, object values) except -1:
    cdef Py_ssize_t start
    if values:
        start = open_field(b, number)
        for v in values:
            put_varint(b, <uint64_t><long long>v)
        close_field(b, start)
    return 0


cdef int put_value(Buf* b, object v) except -1:
    """``v`` as a ``google.protobuf.Value`` message body (what ``Struct.update`` makes of it,
    with cards as their notation and any key as a string)."""
    cdef type t = type(v)
    cdef Py_ssize_t start, item
    if t is str:
        put_str(b, 3, <str>v, True)
    elif t is bool or (t is not int and t is not float and isinstance(v, bool)):
        put_tag(b, 4, VARINT)
        put_varint(b, 1 if v else 0)
    elif t is int or t is float or isinstance(v, (int, float)):
        put_tag(b, 2, I64)
        put_double(b, float(v))
    elif v is None:
        put_tag(b, 1, VARINT)
        put_varint(b, 0)
    elif t is dict or isinstance(v, Mapping):
        start = open_field(b, 5)
        put_struct(b, v)
        close_field(b, start)
    elif isinstance(v, (list, tuple, set, frozenset)):
        start = open_field(b, 6)
        for x in v:
            item = open_field(b, 1)
            put_value(b, x)
            close_field(b, item)
        close_field(b, start)
    elif isinstance(v, Card):
        put_str(b, 3, str(v), True)
    else:
        raise ValueError(f"Unexpected type {type(v).__name__} in a Struct")
    return 0


cdef int put_struct(Buf* b, object data) except -1:
    """``data`` as a ``google.protobuf.Struct`` message body: one map entry per key."""
    cdef Py_ssize_t entry, value
    for k, v in data.items():
        entry = open_field(b, 1)
        put_str(b, 1, str(k), True)
        value = open_field(b, 2)
        put_value(b, v)
        close_field(b, value)
        close_field(b, entry)
    return 0


cdef bytes take(Buf* b):
    try:
        return PyBytes_FromStringAndSize(b.data, b.size)
    finally:
        free(b.data)
        b.data = NULL


def field(int number, bytes data) -> bytes:
    """``data`` (an encoded message) as the length-delimited field ``number`` of another.

    >>> field(1, b"ab"), len(field(3, bytes(300)))
    (b'\\n\\x02ab', 303)
    """
    cdef Buf b = Buf(NULL, 0, 0)
    try:
        put_bytes(&b, number, data, len(data))
    except BaseException:
        free(b.data)
        raise
    return take(&b)


def request_clock(long long time_left_ms, long long deadline_ms) -> bytes:
    """A ``DecisionRequest``'s clock fields: ``time_left_ms`` and ``deadline`` (a Timestamp
    of ``deadline_ms`` since the epoch), as a writer stamps them on an encoded request.

    >>> from levata.v1 import arena_pb2
    >>> req = arena_pb2.DecisionRequest.FromString(request_clock(1500, 1_700_000_000_250))
    >>> req.time_left_ms, req.deadline.seconds, req.deadline.nanos
    (1500, 1700000000, 250000000)
    """
    cdef Buf b = Buf(NULL, 0, 0)
    cdef Py_ssize_t start
    cdef long long seconds = deadline_ms // 1000  # floor, as Timestamp wants nanos >= 0
    cdef long long nanos = (deadline_ms - seconds * 1000) * 1000000
    try:
        start = open_field(&b, 7)
        put_int(&b, 1, seconds)
        put_int(&b, 2, nanos)
        close_field(&b, start)
        put_int(&b, 8, time_left_ms)
    except BaseException:
        free(b.data)
        raise
    return take(&b)


def struct(data) -> bytes:
    """``data`` (a mapping of builtins and cards) as an encoded ``google.protobuf.Struct``.

    >>> from google.protobuf import struct_pb2
    >>> s = struct_pb2.Struct.FromString(struct({"n": 2, "seats": [0, 3], "x": None}))
    >>> s["n"], list(s["seats"]), s["x"]
    (2.0, [0.0, 3.0], None)
    """
    cdef Buf b = Buf(NULL, 0, 0)
    try:
        put_struct(&b, data)
    except BaseException:
        free(b.data)
        raise
    return take(&b)


def seat_view(view) -> bytes:
    """``view`` without its history, encoded as a ``SeatView``."""
    cdef Buf b = Buf(NULL, 0, 0)
    cdef Py_ssize_t start
    try:
        put_str(&b, 1, view.game)
        put_int(&b, 2, view.seat)
        put_int(&b, 3, view.players)
        put_str(&b, 4, view.phase)
        put_packed_ints(&b, 5, view.to_act)
        put_cards(&b, 6, view.hand)
        for name, cards in view.zones.items():
            start = open_field(&b, 7)
            put_str(&b, 1, name)
            put_cards(&b, 2, cards)
            put_int(&b, 3, len(cards))
            close_field(&b, start)
        for number, tally in ((8, view.counts), (9, view.counters)):
            for key, value in tally.items():
                start = open_field(&b, number)
                put_str(&b, 1, key)
                put_int(&b, 2, value)
                close_field(&b, start)
        put_str(&b, 10, view.trump or "")
        scores = view.scores
        if scores:
            put_tag(&b, 11, LEN)
            put_varint(&b, 8 * len(scores))
            for s in scores:
                put_double(&b, float(s))
        start = open_field(&b, 12)
        put_struct(&b, view.facts)
        close_field(&b, start)
    except BaseException:
        free(b.data)
        raise
    return take(&b)


def event(ev) -> bytes:
    """``ev`` encoded as an ``Event`` (the engine's event as the receiving seat sees it)."""
    cdef Buf b = Buf(NULL, 0, 0)
    cdef Py_ssize_t start
    try:
        put_int(&b, 1, ev.seq)
        put_str(&b, 2, ev.kind)
        if ev.seat is not None:  # optional: a seat 0 is sent
            put_tag(&b, 3, VARINT)
            put_varint(&b, <uint64_t><long long>ev.seat)
        put_cards(&b, 4, ev.cards)
        start = open_field(&b, 5)
        put_struct(&b, ev.data)
        close_field(&b, start)
        if ev.audience is None:
            put_int(&b, 6, 1)
        else:
            put_packed_ints(&b, 7, sorted(ev.audience))
    except BaseException:
        free(b.data)
        raise
    return take(&b)
