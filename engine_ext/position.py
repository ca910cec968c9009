"""Positions: a whole match state written down as one line of text, and read back.

Chess has FEN and bridge has PBN; this is levata's. A position names the game and the
number of players, the rule options, then every place a card can be and every number and
fact the rules keep, as ``name=value`` fields separated by ``"; "``:

* a place (a hand, the trick, a stock...) lists its cards in the cards' notation, bottom or
  first card first, ``-`` when empty: ``hand:0=AS KS 2D``, ``trick=-``;
* anything else is compact JSON: ``phase="play"``, ``score=[45,30]``, ``declarer=2``.

The names are the ones views use (``levata describe GAME`` explains each), per-seat numbers
as one list (``score=[45,30]`` where a view has ``score:0`` and ``score:1``). A position
carries no history and no luck to come: a match read from it starts a fresh event log, and
its shuffles come from the seed the reader gives.

>>> text = write("whist", 3, {"deals": "short"}, {"phase": "bid", "hand:0": [], "leader": 1},
...              zones={"hand:0"})
>>> text
'whist/3; options={"deals":"short"}; phase="bid"; hand:0=-; leader=1'
>>> pos = parse(text)
>>> pos.game, pos.players, pos.options, pos.value("leader"), pos.cards("hand:0")
('whist', 3, {'deals': 'short'}, 1, [])
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from levata.engine.cards import Card

__all__ = ["Position", "check_deck", "parse", "write"]

SEPARATOR = "; "
EMPTY = "-"


class PositionError(ValueError):
    """A position text that cannot be read (the reader turns it into ``BadConfig``)."""


def write(
    game: str,
    players: int,
    options: Mapping[str, Any],
    values: Mapping[str, Any],
    zones: Collection[str] = (),
) -> str:
    """The position text: ``values`` in their order, those named in ``zones`` as cards."""
    parts = [f"{game}/{players}", f"options={_json(dict(sorted(options.items())))}"]
    for name, value in values.items():
        text = (" ".join(str(c) for c in value) or EMPTY) if name in zones else _json(value)
        if ";" in text or "=" in name or ";" in name:
            raise ValueError(f"position field {name}: {text!r} cannot be written")
        parts.append(f"{name}={text}")
    return SEPARATOR.join(parts)


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=True)


@dataclass
class Position:
    """A parsed position: the game, the players, the options and each field's text."""

    game: str
    players: int
    options: dict[str, Any]
    fields: dict[str, str]
    used: set[str] = field(default_factory=set)

    def has(self, name: str) -> bool:
        return name in self.fields

    def _text(self, name: str) -> str:
        try:
            text = self.fields[name]
        except KeyError:
            raise PositionError(f"the position has no field {name!r}") from None
        self.used.add(name)
        return text

    def cards(self, name: str) -> list[Card]:
        """The cards of place ``name``."""
        text = self._text(name)
        if text == EMPTY:
            return []
        try:
            return [Card.parse(w) for w in text.split()]
        except ValueError as err:
            raise PositionError(f"field {name}: {err}") from None

    def value(self, name: str) -> Any:
        """The JSON value of field ``name``."""
        text = self._text(name)
        try:
            return json.loads(text)
        except ValueError:
            raise PositionError(f"field {name}: {text!r} is not a JSON value") from None

    def values(self, names: Sequence[str]) -> dict[str, Any]:
        return {n: self.value(n) for n in names}

    def check_all_read(self) -> None:
        """Every field was read: a field the game does not know is an error, not ignored."""
        unknown = [n for n in self.fields if n not in self.used]
        if unknown:
            raise PositionError(f"unknown field(s) for {self.game}: {', '.join(unknown)}")


def parse(text: str) -> Position:
    """Read a position's text (:class:`PositionError` says what is wrong with it)."""
    parts = [p.strip() for p in text.strip().split(";")]
    if not parts or "/" not in parts[0]:
        raise PositionError("a position starts with GAME/PLAYERS, e.g. 'tarneeb/4; ...'")
    game, _, count = parts[0].partition("/")
    if not count.isdigit():
        raise PositionError(f"players must be a number, not {count!r}")
    fields: dict[str, str] = {}
    for part in parts[1:]:
        if not part:
            continue
        name, eq, value = part.partition("=")
        name = name.strip()
        if not eq or not name:
            raise PositionError(f"a field is name=value, not {part!r}")
        if name in fields:
            raise PositionError(f"field {name} is given twice")
        fields[name] = value.strip()
    pos = Position(game.strip(), int(count), {}, fields)
    if pos.has("options"):
        options = pos.value("options")
        if not isinstance(options, dict):
            raise PositionError("options must be a JSON object")
        pos.options = options
    return pos


def check_deck(places: Iterable[Iterable[Card]], deck: Iterable[Card]) -> None:
    """Every card of ``deck`` lies in exactly one of ``places`` (a position names every card,
    hidden ones included): what a game reading a position checks once its places are set.

    >>> from levata.engine.cards import parse_cards
    >>> check_deck([parse_cards("AS 2D"), []], parse_cards("2D AS"))
    >>> try:
    ...     check_deck([parse_cards("AS AS")], parse_cards("AS KS"))
    ... except PositionError as err:
    ...     print(err)
    every card of the deck must lie in one place: extra AS, missing KS
    """
    placed = Counter(c for place in places for c in place)
    full = Counter(deck)
    if placed != full:
        extra = " ".join(map(str, sorted((placed - full).elements()))) or "-"
        missing = " ".join(map(str, sorted((full - placed).elements()))) or "-"
        raise PositionError(
            f"every card of the deck must lie in one place: extra {extra}, missing {missing}"
        )
