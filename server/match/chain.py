"""The hash chain of a match record: what makes an edit of the file visible.

A match's chain starts from its header (id, game, players, options, seed, seats' bots,
policy, label, as stored), takes one link per action row, in order, and is sealed by the
end of the match (status, result and strikes, as stored). Each action row keeps its link
(``actions.chain``); ``matches.chain`` keeps the start while the match runs and the seal once
it ends. Changing any of those fields, deleting or inserting a row, breaks the chain at the
first row that changed; ``levata replay`` and ``levata report`` say where.

The links are computed as rows are queued (one BLAKE2b per action, :class:`levata.server.match
.store.Store`), never re-read on the referee's path; a restarted referee continues from the
last committed link. A chain has no secret: whoever can write the file can recompute it. What
it buys (with the seal printed as an anchor) is in ``docs/security.md``, "Records".

>>> start = genesis("m1", "whist", 3, "{}", 7, '["a", "b", "c"]', "{}", "")
>>> one = link(start, 0, 1, "AS", 120, 0, "r1")
>>> one != link(start, 0, 1, "KS", 120, 0, "r1"), len(one.hex())
(True, 32)
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

__all__ = [
    "ChainCheck",
    "genesis",
    "link",
    "seal",
    "tournament_genesis",
    "tournament_link",
    "verify_rows",
]

#: Bytes of each link (BLAKE2b-128: a forged row would need a second preimage, 2^128 work).
DIGEST = 16
_START = b"levata match chain 1\x00"


def _h(prev: bytes, fields: tuple[Any, ...]) -> bytes:
    # repr of a tuple of str, int and None is unambiguous and the same in every Python 3
    return hashlib.blake2b(prev + repr(fields).encode(), digest_size=DIGEST).digest()


def genesis(  # noqa: PLR0913  (the match's setup, field by field: what the first link hashes)
    match_id: str,
    game: str,
    players: int,
    options: str,
    seed: int,
    seat_bots: str,
    policy: str,
    label: str,
) -> bytes:
    """The chain's start: the match's header, its JSON columns as stored."""
    return _h(_START, (match_id, game, players, options, seed, seat_bots, policy, label))


def link(
    prev: bytes,
    n: int,
    seat: int | None,
    action: str | None,
    clock_ms: int,
    substituted: int,
    request_id: str | None,
) -> bytes:
    """The link of action row ``n`` after ``prev``."""
    return _h(prev, (n, seat, action, clock_ms, substituted, request_id))


def seal(prev: bytes, status: str, result: str | None, strikes: str) -> bytes:
    """The end of the chain: how the match ended, its result and strikes as stored.

    >>> s = genesis("m", "whist", 3, "{}", 1, "[]", "{}", "")
    >>> a = seal(s, "finished", '{"scores": [1]}', "[0]")
    >>> a == seal(s, "finished", '{"scores": [2]}', "[0]")
    False
    """
    return _h(prev, ("end", status, result, strikes))


@dataclass(frozen=True)
class ChainCheck:
    """What a record's chain says: ``state`` is ``verified``, ``unchained`` (written before
    levata kept chains, or by a levata that did not) or ``broken``; ``where`` names the first
    place that does not match; ``head`` is the seal (or last link), hex."""

    state: str
    where: str = ""
    head: str = ""

    @property
    def ok(self) -> bool:
        return self.state != "broken"

    def describe(self) -> str:
        if self.state == "verified":
            return f"hash chain verified (head {self.head})"
        if self.state == "unchained":
            return "unchained: recorded before levata kept hash chains; not verified"
        return f"hash chain broken at {self.where}"


def verify_rows(header: tuple[Any, ...], stored: str | None, status: str, end: tuple[Any, ...],
                actions: list[tuple[Any, ...]]) -> ChainCheck:  # fmt: skip
    """Check a record's chain from its raw columns: ``header`` (genesis's arguments),
    ``stored`` (``matches.chain``), ``status``, ``end`` ((result, strikes) as stored) and the
    action rows ``(n, seat, action, clock_ms, substituted, request_id, chain)`` in order.

    >>> h = ("m", "whist", 3, "{}", 1, "[]", "{}", "")
    >>> l0 = link(genesis(*h), 0, 0, "AS", 5, 0, "r")
    >>> row = (0, 0, "AS", 5, 0, "r", l0.hex())
    >>> end = seal(l0, "finished", "{}", "[0]").hex()
    >>> verify_rows(h, end, "finished", ("{}", "[0]"), [row]).state
    'verified'
    >>> verify_rows(h, end, "finished", ("{}", "[1]"), [row]).where
    'the end of the match (its status, result or strikes were changed)'
    >>> verify_rows(h, None, "finished", ("{}", "[0]"), [(0, 0, "KS", 5, 0, "r", l0.hex())]).where
    "action 0 (n=0), or the match's header (game, options, seed, bots, policy)"
    """
    if stored is None and all(a[6] is None for a in actions):
        return ChainCheck("unchained")
    prev = genesis(*header)
    for i, (n, seat, action, clock_ms, sub, request_id, kept) in enumerate(actions):
        if kept is None:
            return ChainCheck("broken", f"action {i} (n={n}): its link was removed")
        mine = link(prev, n, seat, action, clock_ms, sub, request_id)
        if mine.hex() != kept or n != i:
            where = f"action {i} (n={n})"
            if i == 0:  # its link starts from the header: either may have been changed
                where += ", or the match's header (game, options, seed, bots, policy)"
            return ChainCheck("broken", where)
        prev = mine
    if status in ("finished", "aborted"):
        head = seal(prev, status, *end)
        if stored != head.hex():
            return ChainCheck(
                "broken", "the end of the match (its status, result or strikes were changed)"
            )
        return ChainCheck("verified", head=head.hex())
    if not actions and stored != prev.hex():
        return ChainCheck("broken", "the match's header (game, options, seed, bots, policy)")
    return ChainCheck("verified", head=prev.hex())


_TOURNAMENT = b"levata tournament chain 1\x00"


def tournament_genesis(tournament_id: str, spec: str) -> bytes:
    """A tournament chain's start: its id and spec (JSON, as stored)."""
    return _h(_TOURNAMENT, (tournament_id, spec))


def tournament_link(
    prev: bytes, seq: int, idx: int, match_id: str, result: str, match_head: str | None
) -> bytes:
    """The link of the ``seq``-th settled scheduled match (``idx`` in the schedule): the
    tournament's copy of its result (JSON, as stored) and the head of the referee's record
    of it (``None`` when that record is kept elsewhere: a referee given by ``--server``).

    >>> g = tournament_genesis("t1", "{}")
    >>> tournament_link(g, 1, 0, "m1", "{}", None) != tournament_link(g, 1, 0, "m1", "{}", "ab")
    True
    """
    return _h(prev, (seq, idx, match_id, result, match_head))
