"""What the referee accepts from a client, and how much of it: every field is hostile until
checked here.

Two kinds of bound:

* **Sizes and ranges of fields** (:func:`check_create`, :func:`check_hello`,
  :func:`reply_problem`): ids, names and lists a client sends are bounded, integers are
  range-checked, and a violation is a clear error naming the field — before anything is
  stored or kept.
* **How many at once** (:class:`Limits`): a Hello deadline, streams per bot (per token),
  streams without Hello per listener and per TCP connection, streams and connections in total
  (below the open-file limit, so that SQLite, logs and the admin service always have
  descriptors left), spectators, what waits unsent for one connection (its outbox), and how
  many refused replies a seat is answered (a :class:`Bucket`).

>>> lim = Limits.for_open_files(1024)
>>> lim.connections_total, lim.streams_total
(768, 704)
>>> check_create("whist", 4, {"deal_size": "3"}, 7, ["a", "b", "c", "d"])
>>> check_create("whist", 4, {}, 2**63, ["a"] * 4)
Traceback (most recent call last):
levata.engine.contract.BadConfig: seed must be below 2^63
"""

from __future__ import annotations

import resource
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from levata.engine import BadConfig
from levata.v1 import arena_pb2

__all__ = [
    "MAX_BUNDLED_REPLIES",
    "MAX_ID_CHARS",
    "POLICY_RANGES",
    "Bucket",
    "Limits",
    "check_create",
    "check_hello",
    "check_policy",
    "raise_open_file_limit",
    "reply_problem",
]

#: Longest match id, request id, resume token, game or option name a client may send.
MAX_ID_CHARS = 64
#: Longest option value, display name.
MAX_TEXT_CHARS = 256
#: Most entries in a client's list or map (games in Hello, options, last_seen...).
MAX_ITEMS = 64
#: Most seats in a match.
MAX_SEATS = 16
#: Most replies in one ReplyBundle (each is checked like a reply sent alone).
MAX_BUNDLED_REPLIES = 1024
#: Descriptors kept back from gRPC's connections for SQLite, logs, bot processes, the admin.
RESERVED_FILES = 256

#: Each policy field's accepted range, in its own unit (ms, or strikes).
POLICY_RANGES: dict[str, tuple[int, int]] = {
    "move_ms": (1, 3_600_000),
    "bank_ms": (0, 86_400_000),
    "startup_ms": (0, 3_600_000),
    "max_strikes": (1, 1_000),
    "resume_window_ms": (0, 3_600_000),
}


@dataclass(frozen=True)
class Limits:
    """How much of the referee one client, one peer or everyone together may hold."""

    hello_timeout_s: float = 10.0  # a stream must say Hello within this
    streams_per_bot: int = 16  # open Play streams of one bot (one token)
    # Streams that have not said Hello yet, per listener (the TCP port, the shared entrants'
    # socket, each tournament entry's own socket): a new one past this evicts the oldest,
    # so a flood cannot keep an honest newcomer out (it says Hello at once, the flood never).
    unauthenticated_per_listener: int = 64
    unauthenticated_per_connection: int = 8  # on one TCP connection; more are refused
    outbox_messages: int = 32_768  # messages waiting to be written to one stream, and
    outbox_bytes: int = 16 * 1024 * 1024  # their bytes: past either, a bot that does not
    # read is disconnected (RESOURCE_EXHAUSTED) instead of buffered
    refusals_burst: int = 64  # refused replies a seat is answered at once, then
    refusals_per_s: float = 16.0  # this many a second; past that its replies are dropped
    # unread (and counted), and after this many dropped in a row the stream is closed
    refusals_dropped_max: int = 4_096
    streams_total: int = 4_096  # open Play streams in all
    connections_total: int = 4_160  # TCP connections gRPC accepts in all
    idle_connection_ms: int = 5_000  # a connection with no call open is closed after this
    # (clients reconnect by themselves; a refused flood does not keep descriptors for long)
    watchers_per_match: int = 32
    watchers_total: int = 512
    watch_waiting_grace_s: float = 30.0  # a watch of a match that never starts ends after
    # its start-up allowance and this grace

    @classmethod
    def for_open_files(cls, open_files: int | None = None, **changes: float) -> Limits:
        """Limits that fit under ``open_files`` descriptors (default: this process's limit)."""
        if open_files is None:
            open_files = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        room = max(64, min(open_files, 1 << 16) - RESERVED_FILES)
        base = cls(connections_total=room, streams_total=max(32, room - 64))
        return cls(**{**base.__dict__, **changes})


class Bucket:
    """A token bucket: ``burst`` at once, then ``rate`` a second.

    >>> b = Bucket(2, 1.0, now=0.0)
    >>> [b.take(0.0), b.take(0.0), b.take(0.0), b.take(1.0)]
    [True, True, False, True]
    """

    __slots__ = ("at", "burst", "rate", "tokens")

    def __init__(self, burst: int, rate: float, now: float) -> None:
        self.burst, self.rate = float(burst), rate
        self.tokens, self.at = float(burst), now

    def _refill(self, now: float) -> None:
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now

    def ready(self, now: float) -> bool:
        """Whether a token is there (none is taken)."""
        self._refill(now)
        return self.tokens >= 1.0

    def take(self, now: float) -> bool:
        """Take a token if there is one."""
        if self.ready(now):
            self.tokens -= 1.0
            return True
        return False


def raise_open_file_limit() -> int:
    """Raise this process's soft open-file limit to its hard limit; return the new soft one."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        target = min(hard, 1 << 20) if hard != resource.RLIM_INFINITY else 1 << 20
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    return soft


def _text(field: str, value: str, most: int = MAX_ID_CHARS) -> None:
    if len(value) > most:
        raise BadConfig(f"{field} is {len(value)} characters long; at most {most}")


def _items(field: str, values: Sequence[object] | Mapping[str, object]) -> None:
    if len(values) > MAX_ITEMS:
        raise BadConfig(f"{field} has {len(values)} entries; at most {MAX_ITEMS}")


def check_create(
    game: str,
    players: int,
    options: Mapping[str, str],
    seed: int,
    seat_bots: Sequence[str],
    label: str = "",
) -> None:
    """A ``CreateMatch`` request's fields, before the game's own checks."""
    _text("game", game)
    _text("label", label)
    if not 1 <= players <= MAX_SEATS:
        raise BadConfig(f"players must be 1 to {MAX_SEATS}, not {players}")
    if len(seat_bots) > MAX_SEATS:
        raise BadConfig(f"seat_bots has {len(seat_bots)} names; at most {MAX_SEATS}")
    for name in seat_bots:
        _text("a seat's bot name", name, MAX_TEXT_CHARS)
    _items("options", options)
    for key, value in options.items():
        _text("an option name", key)
        _text(f"option {key[:MAX_ID_CHARS]}", value, MAX_TEXT_CHARS)
    if not 0 <= seed < 2**63:  # SQLite's INTEGER is signed 64-bit
        raise BadConfig("seed must be below 2^63")


def check_policy(policy: arena_pb2.MatchPolicy) -> None:
    """Every field a ``MatchPolicy`` sets is within :data:`POLICY_RANGES`."""
    for name, (low, high) in POLICY_RANGES.items():
        if policy.HasField(name):
            value = getattr(policy, name)
            if not low <= value <= high:
                raise BadConfig(f"policy.{name} must be {low} to {high}, not {value}")


def check_hello(hello: arena_pb2.Hello) -> None:
    """A ``Hello``'s sizes (the token is checked by looking it up)."""
    _text("name", hello.name, MAX_TEXT_CHARS)
    _text("token", hello.token, MAX_TEXT_CHARS)
    _text("protocol_version", hello.protocol_version)
    _text("resume_token", hello.resume_token)
    _items("games", hello.games)
    for g in hello.games:
        _text("a game name", g)
    _items("last_seen", hello.last_seen)
    for match_id in hello.last_seen:
        _text("a last_seen match id", match_id)


def reply_problem(reply: arena_pb2.ActionReply) -> str:
    """Why an ``ActionReply``'s ids cannot be one of ours ("" when they can)."""
    for field in ("match_id", "request_id"):
        value = getattr(reply, field)
        if len(value) > MAX_ID_CHARS:
            return f"malformed reply: {field} is {len(value)} characters; at most {MAX_ID_CHARS}"
    return ""
