"""Where cards lie, declared once, and the one move that changes it.

A game declares its **places** (a hand per seat, the trick, a stock, a kitty...) as
:class:`Place` values in ``PLACES``: the attribute that holds the cards, who sees their faces,
whether a view shows them and counts them. From that one declaration :class:`Zoned` derives
the table (:meth:`Zoned.table`, the truth the conformance suite checks views against), the
zones and counts a seat's view shows, the places a position writes down and reads back, and
the zones and counts ``levata describe`` explains.

A card changes place only through :meth:`Zoned.move`, which takes it from one place, puts it in
another and, when the move tells anyone something, writes the event naming the cards with its
audience. The conformance suite holds every game to it: after each action, every card whose
place changed must have been named by a move (:func:`levata.engine.testing.check_moves`).

>>> from levata.engine import game
>>> state = game("whist").new_match(players=3, seed=1)
>>> [p.shown_as() for p in state.PLACES]
['hand:SEAT', 'trick', 'played', 'trump', 'undealt']
>>> seat = state.to_act()[0]
>>> state.apply(seat, state.legal_actions(seat)[0])  # a bid: no card moves
>>> card = state.hands[1][0]
>>> event = state.move(card, "hand:1", "trick", kind="play", seat=1)  # what play_card does
>>> event.cards == (card,), event.audience, state.trick == [card]
(True, None, True)
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from operator import attrgetter, indexOf
from typing import Any, ClassVar, Self

from levata.engine.cards import Card
from levata.engine.contract import Event, GameState, SeatView, Zone

__all__ = [
    "FACE_DOWN",
    "FACE_UP",
    "OWNER",
    "SHOWN",
    "Place",
    "Zoned",
    "described",
    "without",
]

#: Everyone sees the faces (a trick, a discard pile).
FACE_UP = "face up"
#: The seat the place belongs to sees them (a hand).
OWNER = "owner"
#: Nobody sees them (a stock, the undealt rest).
FACE_DOWN = "face down"

# A view's zones and counts, as compiled for one class of game and table size.
_ZonesOf = Callable[[Any, int], dict[str, tuple[Card, ...]]]
_CountsOf = Callable[[Any], dict[str, int]]


@dataclass(frozen=True)
class Place:
    """One place cards can lie in, as a game declares it.

    ``attr``: the state attribute holding the cards, a ``list[Card]`` (per seat: a list of
    them), ``name`` by default. ``seen``: :data:`FACE_UP`, :data:`OWNER`, :data:`FACE_DOWN`,
    or the name of a state method ``(index) -> frozenset[int] | None`` when it depends on the
    state (a kitty its taker has seen; ``None`` is everyone). ``shown``: a seat that sees the
    place finds it in ``view.zones`` (hands are ``view.hand``; a hand another seat sees shows
    as ``hand:SEAT``); ``"nonempty"`` shows it only while it holds cards (the turned trump).
    ``counted``: its size is in ``view.counts``; a text is what ``describe`` says of the count.
    ``sorted``: cards moved in keep it sorted (a hand the game keeps in order).
    ``owner``: for a place of one seat that is not per seat, the attribute naming that seat.
    ``momentary``: cards lie there only while one event is told (a card shown to two seats
    and taken back): a position never holds it.

    >>> Place("hand", "the seat's cards", per_seat=True, seen=OWNER).key(2)
    'hand:2'
    """

    name: str
    help: str
    attr: str = ""
    per_seat: bool = False
    seen: str = FACE_UP
    shown: bool | str = True
    counted: bool | str = False
    sorted: bool = False
    owner: str = ""
    momentary: bool = False

    @property
    def attribute(self) -> str:
        return self.attr or self.name

    def key(self, index: int | None) -> str:
        """The name of the place (``hand:2`` for seat 2's hand)."""
        return self.name if index is None else f"{self.name}:{index}"

    def shown_as(self) -> str:
        """How views and ``describe`` name it (``hand:SEAT`` for a place per seat)."""
        return f"{self.name}:SEAT" if self.per_seat else self.name


def described(places: Iterable[Place]) -> tuple[dict[str, str], dict[str, str]]:
    """The zones and counts sections of a vocabulary, from the declaration.

    >>> described([Place("stock", "the face-down stock", seen=FACE_DOWN, shown=False,
    ...                  counted="cards left in the stock")])
    ({}, {'stock': 'cards left in the stock'})
    """
    zones, counts = {}, {}
    for p in places:
        if p.shown and p.seen != FACE_DOWN and p.name != "hand":  # a seat's own: view.hand
            zones[p.shown_as()] = p.help
        if p.counted:
            counts[p.shown_as()] = p.counted if isinstance(p.counted, str) else p.help
    return zones, counts


def without(places: Iterable[Place], *names: str) -> tuple[Place, ...]:
    """``places`` but those named (a game whose trump is named, never turned, has no
    ``trump`` place).

    >>> [p.name for p in without((Place("trick", "."), Place("trump", ".")), "trump")]
    ['trick']
    """
    return tuple(p for p in places if p.name not in names)


_EVERYONE = None
#: What makes two cards equal (a card is a dataclass of these two), read in C.
_SUIT_RANK = attrgetter("suit", "rank")

#: Cards a seat lays face up for a moment and takes back (:meth:`Zoned.showing`): a game that
#: shows cards declares this place.
SHOWN = Place(
    "shown",
    "cards shown for a moment (to the seats told of them), then taken back",
    attr="shown_cards",
    seen="_shown_seen_by",
    shown=False,
    momentary=True,
)


class Zoned(GameState):
    """A game state whose cards lie in declared places (mix in before ``GameState``).

    A game sets ``PLACES``; the places' attributes hold lists of cards. :meth:`collect` gathers
    every card into ``undealt`` (a new deal), :meth:`move` moves cards, :meth:`table`,
    :meth:`view_zones`, :meth:`view_counts` and :meth:`place_values` read the declaration.
    """

    #: Where cards can lie, in the order tables, views and positions list them.
    PLACES: ClassVar[tuple[Place, ...]] = ()
    #: Cards named by a move since the conformance suite last looked (``None``: not watched).
    _moved: list[Card] | None = None
    #: Who sees the cards :meth:`showing` lays face up (``None``: everyone).
    _shown_to: frozenset[int] | None = frozenset()
    #: The deck holds equal cards (two decks): a move takes a card's first copy in its place,
    #: as the rules' order of a hand says, never a later copy that happens to lie last.
    copies: bool = False
    #: name -> (place, seat, attribute), per class (filled on first use).
    _by_name: ClassVar[dict[str, tuple[Place, int | None, str]]]
    #: players -> the view's zones and counts compiled from ``PLACES``, per class.
    _compiled: ClassVar[dict[int, tuple[_ZonesOf, _CountsOf]]]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._by_name = {}
        cls._compiled = {}

    # -- the cards of a place ---------------------------------------------------------------

    def _place(self, name: str) -> tuple[Place, int | None, str]:
        """The place ``name`` names, its seat and the attribute holding its cards: one dict
        lookup, per class (a move is made at every card played, in search playouts too)."""
        found = self._by_name.get(name)
        if found is None:
            base, _, seat = name.partition(":")
            place = next((p for p in self.PLACES if p.name == base), None)
            if place is None or bool(seat) != place.per_seat:
                raise KeyError(f"{self.game} has no place {name!r}")
            index = int(seat) if seat else None
            found = type(self)._by_name[name] = (place, index, place.attribute)
        return found

    def cards_at(self, name: str) -> list[Card]:
        """The cards of the place ``name`` (``"stock"``, ``"hand:1"``): the list itself."""
        _, index, attr = self._place(name)
        held = getattr(self, attr)
        return held if index is None else held[index]

    def seen_by(self, place: Place, index: int | None) -> frozenset[int] | None:
        """Who sees the faces of ``place`` (seat ``index``'s, for a place per seat)."""
        seen = place.seen
        if seen == FACE_UP:
            return _EVERYONE
        if seen == FACE_DOWN:
            return frozenset()
        if seen == OWNER:
            if index is None:
                index = getattr(self, place.owner)
            return frozenset() if index is None else frozenset({index})
        result: frozenset[int] | None = getattr(self, seen)(index)
        return result

    # -- moving cards -------------------------------------------------------------------------

    def move(
        self,
        cards: Card | Sequence[Card],
        src: str,
        dst: str,
        /,
        *,
        kind: str | None = None,
        seen_by: Iterable[int] | str | None = "dst",
        seat: int | None = None,
        at: int | None = None,
        **data: Any,
    ) -> Event | None:
        """Move ``cards`` from the place ``src`` to ``dst`` (at its end, or at index ``at``)
        and, with ``kind``, write the event naming them.

        The event's audience is ``seen_by``: by default whoever sees ``dst`` (a card played to
        the trick: everyone; a card drawn into a hand: its owner); ``None`` is everyone. A
        move without ``kind`` must tell nobody anything (face down to face down, or into a
        place its watchers saw the cards in); what else it means is told by the game's own
        event. This is the only way a card changes place.
        """
        moving = (cards,) if isinstance(cards, Card) else tuple(cards)
        places = self._by_name  # a move is made at every card played, in playouts too
        _, index, attr = places.get(src) or self._place(src)
        taken = getattr(self, attr) if index is None else getattr(self, attr)[index]
        place, index, attr = places.get(dst) or self._place(dst)
        put = getattr(self, attr) if index is None else getattr(self, attr)[index]
        if len(moving) > 1 or self.copies:
            _take(taken, moving, self.copies)
        elif taken and taken[-1] is moving[0]:
            taken.pop()  # a pile's top, a card just dealt
        else:
            _take_one(taken, moving[0])
        if place.sorted:
            for c in moving:
                bisect.insort(put, c)
        elif at is None:
            put.extend(moving)
        else:
            put[at:at] = moving
        if self._moved is not None:
            self._moved.extend(moving)
        if kind is None:
            return None
        if seen_by == "dst":
            audience = None if place.seen is FACE_UP else self.seen_by(place, index)
        else:
            audience = None if seen_by is None else frozenset(seen_by)  # type: ignore[arg-type]
        return self._emit(kind, audience=audience, seat=seat, cards=moving, **data)

    @contextmanager
    def showing(self, cards: Sequence[Card], src: str, to: Iterable[int] | None) -> Iterator[None]:
        """While the block runs (the event that tells of them), ``cards`` of ``src`` lie face
        up in :data:`SHOWN` for the seats ``to`` (``None``: everyone); then they go back where
        they were, in the same order."""
        held = self.cards_at(src)
        before = list(held)
        self._shown_to = None if to is None else frozenset(to)
        self.move(cards, src, "shown")
        try:
            yield
        finally:
            self.shown_cards: list[Card] = []
            held[:] = before  # back in place: the block only told of them
            self._shown_to = frozenset()

    def _shown_seen_by(self, _: int | None) -> frozenset[int] | None:
        return self._shown_to

    def collect(self, order: Sequence[Card], into: str = "undealt") -> None:
        """Gather every card into ``undealt``, in ``order`` (a new deal, before dealing): the
        other places are emptied. A game that deals from a place of its own (a shedding
        game's stock) names it as ``into``."""
        n = self.players
        for p in self.PLACES:
            setattr(self, p.attribute, [[] for _ in range(n)] if p.per_seat else [])
        self.cards_at(into).extend(order)
        if self._moved is not None:
            self._moved.extend(order)

    def _shallow_copy(self) -> Self:
        other = super()._shallow_copy()
        other.__dict__.pop("_moved", None)  # a copy is never watched: its moves are its own
        return other

    # -- what the declaration gives --------------------------------------------------------

    def _places(self) -> Iterable[tuple[Place, int | None, list[Card]]]:
        """Every place with its index and cards, in declaration order."""
        for p in self.PLACES:
            held = getattr(self, p.attribute)
            if p.per_seat:
                for s in range(self.players):
                    yield p, s, held[s]
            else:
                yield p, None, held

    def table(self) -> tuple[Zone, ...]:
        """Every place, its cards and who sees them (never sent to a bot)."""
        return tuple(
            Zone(
                p.key(i),
                tuple(cards),
                self.seen_by(p, i),
                owner=i if p.per_seat else (getattr(self, p.owner) if p.owner else None),
            )
            for p, i, cards in self._places()
        )

    def _compiled_view(self) -> tuple[_ZonesOf, _CountsOf]:
        compiled = type(self)._compiled.get(self.players)
        if compiled is None:
            compiled = type(self)._compiled[self.players] = _compile(self.PLACES, self.players)
        return compiled

    def view_zones(self, seat: int) -> dict[str, tuple[Card, ...]]:
        """The places ``seat`` sees and a view shows, by name: the places of the table first,
        then those of seats (a hand it sees, as Whist's foreheads); its own hand is
        ``view.hand``, never a zone."""
        return self._compiled_view()[0](self, seat)

    def view_counts(self) -> dict[str, int]:
        """The sizes a view shows (``hand:2``, ``stock``)."""
        return self._compiled_view()[1](self)

    def place_values(self) -> dict[str, list[Card]]:
        """Every place's cards by name, for a position."""
        return {p.key(i): cards for p, i, cards in self._places() if not p.momentary}

    def restore_places(self, view: SeatView) -> None:
        """Set every place but those per seat (hands) from a seat's view: the cards it shows
        of a shown place, else none (a world rebuilt from the view deals the hidden ones)."""
        for p in self.PLACES:
            if not p.per_seat:
                shown = p.shown and not p.momentary
                setattr(self, p.attribute, list(view.zones.get(p.name, ())) if shown else [])

    def load_places(self, cards: Any) -> None:
        """Set every place from ``cards(name)`` (a position read back)."""
        for p in self.PLACES:
            if p.momentary:
                setattr(self, p.attribute, [])
            elif p.per_seat:
                setattr(self, p.attribute, [cards(p.key(s)) for s in range(self.players)])
            else:
                setattr(self, p.attribute, cards(p.name))


def _take(held: list[Card], cards: tuple[Card, ...], copies: bool) -> None:
    """Take ``cards`` out of ``held`` (a move's source), each the first equal card there.

    Moves happen at every card played and dealt, in search playouts too, and a card compares
    in Python: a hand dealt or a trick gathered is found by identity, without comparing.
    With one deck each card is there once, so the card found by identity is the first equal
    one; two decks (``copies``) or an equal card that is not the same object fall back to
    ``list.remove``.

    >>> from levata.engine.cards import parse_cards
    >>> held = parse_cards("AS KS QS JS"); _take(held, (held[3], held[1]), False); held
    [Card('AS'), Card('QS')]
    """
    if not copies and len(cards) > 1:
        k, tail = len(cards), held[-len(cards) :]
        if tail == list(cards) or tail[::-1] == list(cards):  # a trick gathered, cards drawn
            del held[-k:]  # (lists compare their items by identity first)
            return
        gone = {id(c) for c in cards}
        kept = [c for c in held if id(c) not in gone]
        if len(kept) + len(cards) == len(held) and len(gone) == len(cards):
            held[:] = kept
            return
    for c in cards:
        held.remove(c)


def _take_one(held: list[Card], card: Card) -> None:
    """Take ``card`` out of ``held``: the first equal card, as ``list.remove`` takes it, found
    by comparing each card's suit and rank in C (``list.remove`` calls the cards' Python
    ``__eq__`` for every card before it; a card played comes from a legal action, which holds
    an equal card, not always the one dealt).

    >>> from levata.engine.cards import parse_cards
    >>> held = parse_cards("AS KS QS"); _take_one(held, Card.parse("KS")); held
    [Card('AS'), Card('QS')]
    """
    try:
        del held[indexOf(map(_SUIT_RANK, held), _SUIT_RANK(card))]
    except ValueError:
        held.remove(card)  # not there: the error list.remove raises


def _compile(places: Sequence[Place], players: int) -> tuple[_ZonesOf, _CountsOf]:
    """A view's zones and counts for ``places`` at a table of ``players``, as two functions
    generated once (a view is built at every decision and every search step that reads one).

    As :func:`levata.engine.fields._compiled` does for counters, the declaration becomes
    straight-line code: a place nobody sees is never read, a hand only its owner sees costs
    nothing in another seat's view, and who sees the rest is decided here, not per view.

    >>> zones, counts = _compile((Place("hand", ".", per_seat=True, seen=OWNER, counted=True),
    ...                           Place("trick", ".")), 2)
    >>> class T:
    ...     hand, trick = [["AS"], []], ["KS"]
    >>> zones(T(), 0), counts(T())
    ({'trick': ('KS',)}, {'hand:0': 1, 'hand:1': 0})
    """
    env: dict[str, Any] = {}
    zones = ["def zones_of(self, seat):", "    zones = {}", "    seats = {}"]
    for n, p in enumerate(places):
        if p.shown and p.seen != FACE_DOWN:
            zones += _zone_lines(p, players, n, env)
    zones.append("    return zones | seats if seats else zones")
    counts = ["def counts_of(self):", "    counts = {}"]
    for p in places:
        if p.counted and p.per_seat:
            counts.append(f"    held = self.{p.attribute}")
            counts += [f"    counts[{p.key(s)!r}] = len(held[{s}])" for s in range(players)]
        elif p.counted:
            counts.append(f"    counts[{p.name!r}] = len(self.{p.attribute})")
    counts.append("    return counts")
    exec("\n".join(zones + counts), env)  # generated from the declaration alone, never input
    return env["zones_of"], env["counts_of"]


def _zone_lines(p: Place, players: int, n: int, env: dict[str, Any]) -> list[str]:
    """The lines of ``zones_of`` that show place ``p`` (the ``n``-th declared) to ``seat``."""
    held = f"self.{p.attribute}"
    some = [] if p.shown is True else ["cards"]  # "nonempty": shown while it holds cards
    if not p.per_seat:
        if p.seen == OWNER:
            some.append(f"self.{p.owner} == seat")
        elif p.seen != FACE_UP:
            some.append(f"((a := self.{p.seen}(None)) is None or seat in a)")
        test = " and ".join(some) or "True"
        return [
            f"    cards = {held}",
            f"    if {test}:",
            f"        zones[{p.name!r}] = tuple(cards)",
        ]
    if p.seen == OWNER:  # only its owner sees it; its own hand is view.hand
        if p.name == "hand":
            return []
        env[f"keys{n}"] = tuple(p.key(s) for s in range(players))
        test = " and ".join(some) or "True"
        return [
            f"    cards = {held}[seat]",
            f"    if {test}:",
            f"        seats[keys{n}[seat]] = tuple(cards)",
        ]
    lines = [f"    held = {held}"]
    for i in range(players):
        tests = ([f"seat != {i}"] if p.name == "hand" else []) + some
        if p.seen != FACE_UP:
            tests.append(f"((a := self.{p.seen}({i})) is None or seat in a)")
        lines += [f"    cards = held[{i}]", f"    if {' and '.join(tests) or 'True'}:"]
        lines.append(f"        seats[{p.key(i)!r}] = tuple(cards)")
    return lines
