"""What a game keeps, declared once: each counter, fact and private field of its state, with
its meaning. From the one declaration the engine derives what used to be written three times
per game: the view's ``counters`` and ``facts``, the restore of a world from a view, the
vocabulary ``levata describe`` prints, and the game's part of a position (see
:mod:`levata.engine.position`).

A field names an attribute of the state and says how a view shows it:

* :class:`Counter`: an integer in ``view.counters`` (``none=-1`` shows ``None`` as -1;
  ``none=OMIT`` leaves the key out while the value is ``None``, as a bid not made yet);
* :class:`Fact`: a small JSON-able value in ``view.facts`` (lists copied, tuples shown as
  lists, sets as sorted lists);
* :class:`Kept`: state the rules need that no view shows (whose turn it is to bid, a hidden
  exchange): it travels in a position only;
* :class:`Seats`: counters kept per seat (or per team), shown ``name:SEAT``, seat by seat.

A field marked ``derived=True`` is computed (a property): shown, never restored or written
down, since the rest of the state gives it back.

>>> class Tiny:
...     deal_no, declarer, scores, strain = 2, None, [5, 7], "NT"
>>> FIELDS = (
...     Counter("deal", "the deal in progress", attr="deal_no"),
...     Counter("declarer", "the declarer (-1: none)", none=-1),
...     Seats(Counter("team_score", "the team's total", attr="scores"), count="team"),
...     Fact("strain", "the trump named"),
... )
>>> shown_counters(FIELDS, Tiny(), 4)
{'deal': 2, 'declarer': -1, 'team_score:0': 5, 'team_score:1': 7}
>>> shown_facts(FIELDS, Tiny())
{'strain': 'NT'}
>>> world = Tiny.__new__(Tiny)
>>> restore(FIELDS, world, {'deal': 3, 'declarer': 1, 'team_score:0': 9, 'team_score:1': 0},
...         {'strain': None}, 4)
>>> world.deal_no, world.declarer, world.scores, world.strain
(3, 1, [9, 0], None)
"""

from __future__ import annotations

import keyword
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "OMIT",
    "Counter",
    "Fact",
    "Field",
    "Kept",
    "Seats",
    "described",
    "load",
    "misfit",
    "names",
    "plain",
    "restore",
    "shown_counters",
    "shown_facts",
    "stored",
]


class _Omit:
    def __repr__(self) -> str:
        return "OMIT"


#: ``Counter(none=OMIT)``: the key is left out of the view while the value is ``None``.
OMIT: Any = _Omit()


_SCALARS = frozenset({int, str, bool, float})


def plain(value: Any) -> Any:
    """``value`` as JSON-able plain data, freshly copied: tuples and lists as lists, sets as
    sorted lists, mappings as dicts (what a view's facts and a position hold).

    >>> plain({"calls": [(1, 0), (2, 9)], "seen": {3, 1}})
    {'calls': [[1, 0], [2, 9]], 'seen': [1, 3]}
    """
    kind = type(value)
    if value is None or kind in _SCALARS:  # the common cases first: a view is built per decision
        return value
    if kind is list or kind is tuple:
        return [v if v is None or type(v) in _SCALARS else plain(v) for v in value]
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted(plain(v) for v in value)
    if isinstance(value, Mapping):
        return {k: plain(v) for k, v in value.items()}
    return value


@dataclass(frozen=True)
class Field:
    """One piece of a game's state: the name views and positions give it, its meaning, the
    attribute that holds it, and how it is shown and read back.

    ``show(value)`` turns the attribute into what a view shows, ``read(shown)`` back into the
    attribute (both default to plain copies).
    """

    name: str
    help: str
    attr: str = ""
    derived: bool = False
    show: Callable[[Any], Any] | None = None
    read: Callable[[Any], Any] | None = None
    section: str = "facts"
    #: Its value names seats (a seat, or lists of them): a position read back is checked.
    seats: bool = False
    #: Its value is a list with one entry per seat: a position read back is checked.
    each_seat: bool = False

    @property
    def attribute(self) -> str:
        return self.attr or self.name

    def get(self, state: Any) -> Any:
        value = getattr(state, self.attribute)
        return self.show(value) if self.show is not None else plain(value)

    def set(self, state: Any, shown: Any) -> None:
        setattr(state, self.attribute, self.read(shown) if self.read is not None else plain(shown))


def Counter(
    name: str,
    help: str,
    *,
    attr: str = "",
    none: int | None = None,
    derived: bool = False,
    seat: bool = False,
) -> Field:
    """An integer in ``view.counters``. ``none``: the number shown for ``None`` (-1, say), or
    :data:`OMIT` to leave the key out while the value is ``None``. ``seat``: it is a seat."""
    if none is None:
        return Field(name, help, attr, derived, section="counters", seats=seat)
    if none is OMIT:
        return Field(
            name, help, attr, derived, section="counters", show=_same, read=_same, seats=seat
        )
    return Field(
        name,
        help,
        attr,
        derived,
        section="counters",
        show=lambda v: none if v is None else v,
        read=lambda v: None if v == none else v,
        seats=seat,
    )


def Fact(  # noqa: PLR0913  (a declaration: every part but the name a keyword)
    name: str,
    help: str,
    *,
    attr: str = "",
    derived: bool = False,
    show: Callable[[Any], Any] | None = None,
    read: Callable[[Any], Any] | None = None,
    seats: bool = False,
    each_seat: bool = False,
) -> Field:
    """A small JSON-able value in ``view.facts`` (``read`` rebuilds the attribute's own type
    from the shown value: tuples, a set, a card...). ``seats``: every number in it is a seat
    (``[[requester, target], ...]``); ``each_seat``: a list with one entry per seat."""
    return Field(name, help, attr, derived, show, read, "facts", seats, each_seat)


def Kept(
    name: str,
    help: str,
    *,
    attr: str = "",
    show: Callable[[Any], Any] | None = None,
    read: Callable[[Any], Any] | None = None,
    seats: bool = False,
) -> Field:
    """State the rules need and no view shows: written in a position, never in a view."""
    return Field(name, help, attr, False, show, read, "kept", seats)


def _same(value: Any) -> Any:
    return value


@dataclass(frozen=True)
class Seats:
    """Counters kept one per seat (``count="seat"``) or per team (``count="team"``, the
    length of the list): each a list attribute, shown ``name:0``, ``name:1``..., seat by
    seat, the fields of one seat together."""

    fields: tuple[Field, ...]
    count: str = "seat"

    def __init__(self, *fields: Field, count: str = "seat") -> None:
        if count == "team" and not all(f.name.startswith("team_") for f in fields):
            raise ValueError("a per-team counter's name starts with team_ (team_score:TEAM)")
        object.__setattr__(self, "fields", fields)
        object.__setattr__(self, "count", count)

    def size(self, state: Any, players: int) -> int:
        if self.count == "seat":
            return players
        return len(getattr(state, self.fields[0].attribute))


Declared = Field | Seats


def _flat(declared: Iterable[Declared]) -> Iterator[Field]:
    for d in declared:
        if isinstance(d, Seats):
            yield from d.fields
        else:
            yield d


#: Per-seat keys made once (``score:0``...), for seats 0 to 63.
_SEAT_KEYS = 64

# A declaration compiled for views, by the id of its tuple (kept alive beside it): the
# functions that build its counters and its facts.
_COMPILED: dict[int, tuple[Sequence[Declared], Any, Any]] = {}


def _compiled(declared: Sequence[Declared]) -> tuple[Any, Any]:
    """The view's counters and facts of ``declared`` as two functions, generated once.

    A view is built for every decision a bot makes and every search iteration that reads
    one, so, as :mod:`dataclasses` does for ``__init__``, the declaration is turned into
    straight-line code: one attribute read and one store per field, no loop over the
    declaration, no dispatch on its kind."""
    kept = _COMPILED.get(id(declared))
    if kept is not None and kept[0] is declared:
        return kept[1], kept[2]
    env: dict[str, Any] = {"OMIT": OMIT, "plain": plain}
    lines = ["def counters(state, players):", "    out = {}"]
    for i, d in enumerate(declared):
        if isinstance(d, Seats):
            names = [f"v{i}_{j}" for j in range(len(d.fields))]
            for name, f in zip(names, d.fields, strict=True):
                lines.append(f"    {name} = {_read(f.attribute)}")
            size = "players" if d.count == "seat" else f"len({names[0]})"
            lines.append(f"    for s in range({size}):")
            for j, (name, f) in enumerate(zip(names, d.fields, strict=True)):
                env[f"keys{i}_{j}"] = tuple(f"{f.name}:{s}" for s in range(_SEAT_KEYS))
                value = f"{name}[s]"
                if f.show is not None:
                    env[f"show{i}_{j}"] = f.show
                    value = f"show{i}_{j}({value})"
                lines += [
                    f"        v = {value}",
                    "        if v is not None and v is not OMIT:",
                    f"            out[keys{i}_{j}[s]] = v",
                ]
        elif d.section == "counters":
            value = _read(d.attribute)
            if d.show is not None:
                env[f"show{i}"] = d.show
                value = f"show{i}({value})"
            lines += [f"    v = {value}", "    if v is not None:", f"        out[{d.name!r}] = v"]
    lines += ["    return out", "", "def facts(state):", "    return {"]
    for i, f in enumerate(_flat(declared)):
        if f.section == "facts":
            wrap = "plain"
            if f.show is not None:
                env[f"fact{i}"], wrap = f.show, f"fact{i}"
            lines.append(f"        {f.name!r}: {wrap}({_read(f.attribute)}),")
    lines.append("    }")
    exec("\n".join(lines), env)  # generated from the declaration alone, never from input
    _COMPILED[id(declared)] = (declared, env["counters"], env["facts"])
    return env["counters"], env["facts"]


def _read(attribute: str) -> str:
    """The code that reads ``attribute`` of ``state``."""
    if attribute.isidentifier() and not keyword.iskeyword(attribute):
        return f"state.{attribute}"
    return f"getattr(state, {attribute!r})"


def shown_counters(declared: Sequence[Declared], state: Any, players: int) -> dict[str, int]:
    """The view's counters the declaration gives, in declaration order."""
    counters: dict[str, int] = _compiled(declared)[0](state, players)
    return counters


def shown_facts(declared: Sequence[Declared], state: Any) -> dict[str, Any]:
    """The view's facts the declaration gives, in declaration order."""
    facts: dict[str, Any] = _compiled(declared)[1](state)
    return facts


def restore(
    declared: Sequence[Declared],
    state: Any,
    counters: Mapping[str, int],
    facts: Mapping[str, Any],
    players: int,
) -> None:
    """Set every declared field that is not derived (nor kept) from a view's counters and
    facts: what a world rebuilt from that view holds."""
    for d in declared:
        if isinstance(d, Seats):
            for f in d.fields:
                if f.derived:
                    continue
                size = players if d.count == "seat" else _present(counters, f.name)
                shown = [counters.get(f"{f.name}:{s}") for s in range(size)]
                setattr(state, f.attribute, [v if f.read is None else f.read(v) for v in shown])
        elif d.derived or d.section == "kept":
            continue
        elif d.section == "counters":
            d.set(state, counters.get(d.name))
        else:
            d.set(state, facts[d.name])


def _present(counters: Mapping[str, int], name: str) -> int:
    size = 0
    while f"{name}:{size}" in counters:
        size += 1
    return size


def stored(declared: Sequence[Declared], state: Any) -> dict[str, Any]:
    """Every field a position writes down (shown and kept, not derived), by name: per-seat
    counters as one list."""
    out: dict[str, Any] = {}
    for d in declared:
        if isinstance(d, Seats):
            for f in d.fields:
                if not f.derived:
                    values = getattr(state, f.attribute)
                    out[f.name] = [v if f.show is None else f.show(v) for v in values]
        elif not d.derived:
            out[d.name] = d.get(state)
    return out


def load(declared: Sequence[Declared], state: Any, values: Mapping[str, Any]) -> None:
    """Set every field of :func:`stored` from ``values`` (a position's fields)."""
    for d in declared:
        if isinstance(d, Seats):
            for f in d.fields:
                if not f.derived:
                    shown = values[f.name]
                    setattr(state, f.attribute, [v if f.read is None else f.read(v) for v in shown])
        elif not d.derived:
            d.set(state, values[d.name])


def names(declared: Sequence[Declared]) -> list[str]:
    """The names :func:`stored` writes, in order."""
    out = []
    for d in declared:
        if isinstance(d, Seats):
            out += [f.name for f in d.fields if not f.derived]
        elif not d.derived:
            out.append(d.name)
    return out


def misfit(declared: Sequence[Declared], state: Any, players: int) -> str | None:
    """What does not fit ``players`` seats in the fields of ``state`` (read from a
    position): a per-seat list of another length, a seat number out of range; ``None`` when
    all fit.

    >>> class Two:
    ...     scores, declarer = [1, 2, 3], 5
    >>> misfit((Seats(Counter("score", "", attr="scores")),), Two(), 2)
    'score needs one value per seat (2), not [1, 2, 3]'
    >>> misfit((Counter("declarer", "", none=-1, seat=True),), Two(), 2)
    'declarer: a seat number is not one of the 2 seats'
    """
    for d in declared:
        fields = d.fields if isinstance(d, Seats) else (d,)
        for f in fields:
            if f.derived:
                continue
            value = getattr(state, f.attribute)
            per_seat = f.each_seat or (isinstance(d, Seats) and d.count == "seat")
            if per_seat and len(value) != players:
                return f"{f.name} needs one value per seat ({players}), not {value}"
            if f.seats and any(not 0 <= s < players for s in _numbers(value)):
                return f"{f.name}: a seat number is not one of the {players} seats"
    return None


def _numbers(value: Any) -> list[int]:
    """Every integer in ``value`` (nested lists, tuples and sets), ``None`` left out."""
    if isinstance(value, bool) or value is None:
        return []
    if isinstance(value, int):
        return [value]
    if isinstance(value, (list, tuple, set, frozenset)):
        return [n for v in value for n in _numbers(v)]
    return []


def described(declared: Sequence[Declared], section: str) -> dict[str, str]:
    """The vocabulary of one section (``counters`` or ``facts``): name -> meaning, per-seat
    names as ``name:SEAT`` (per team, ``name:TEAM``)."""
    out: dict[str, str] = {}
    for d in declared:
        if isinstance(d, Seats):
            if section == "counters":
                each = "TEAM" if d.count == "team" else "SEAT"
                out.update({f"{f.name}:{each}": f.help for f in d.fields})
        elif d.section == section:
            out[d.name] = d.help
    return out
