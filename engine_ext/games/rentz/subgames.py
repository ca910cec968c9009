"""Rentz's eight sub-games and what each scores (``docs/games/rentz.md``).

Seven are trick games with no trump that score the cards (or the tricks) a seat takes: King
of Hearts (``king``), Queens (``queens``), Diamonds (``diamonds``), Tricks (``tricks``), Totals
(``totals``: the four avoidance games at once), Ten of Clubs (``ten``) and Whist (``whist``).
The eighth, Rentz itself (``rentz``), is shed like dominoes around the jacks
(:mod:`.domino`). The points are the match's options; these are pure functions that the
match and the bots both read.

>>> table = PointTable()
>>> trick_points(TOTALS, parse_cards("QD QS 9D 7C 8C 10H 7S 8S 9S 10S JS KS"), 3, table)
-290
>>> trick_points(KING_OF_HEARTS, parse_cards("KH 7H 8H 9H"), 1, table)
-200
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from levata.engine.cards import Card, Suit, parse_cards  # noqa: F401  (doctests)

__all__ = [
    "DIAMONDS",
    "ENDS_WITH",
    "KING_OF_HEARTS",
    "NAMES",
    "QUEENS",
    "RENTZ",
    "SUBGAMES",
    "TAKING",
    "TEN_OF_CLUBS",
    "TOTALS",
    "TRICKS",
    "TRICK_GAMES",
    "WHIST",
    "PointTable",
    "card_values",
    "per_trick",
    "solver_points",
    "trick_points",
]

# Words, not the spec's KH / Q / D / LT / TOT / 10C / W / R: "KH" and "10C" read as cards.
KING_OF_HEARTS, QUEENS, DIAMONDS, TRICKS = "king", "queens", "diamonds", "tricks"
TOTALS, TEN_OF_CLUBS, WHIST, RENTZ = "totals", "ten", "whist", "rentz"
#: Every sub-game, in the order of the table of choices.
SUBGAMES = (KING_OF_HEARTS, QUEENS, DIAMONDS, TRICKS, TOTALS, TEN_OF_CLUBS, WHIST, RENTZ)
#: The sub-games played to tricks (every one but Rentz).
TRICK_GAMES = SUBGAMES[:-1]
#: The trick sub-games a seat scores by taking (the others it scores by avoiding).
TAKING = (TEN_OF_CLUBS, WHIST)
NAMES = {
    KING_OF_HEARTS: "King of Hearts (Regele de cupă): avoid the K♥",
    QUEENS: "Queens (Dame): avoid the queens",
    DIAMONDS: "Diamonds (Caro): avoid the diamonds",
    TRICKS: "Tricks (Levate mici): avoid tricks",
    TOTALS: "Totals (Totale): avoid all of the above at once",
    TEN_OF_CLUBS: "Ten of Clubs (10 Treflă): take the 10♣",
    WHIST: "Whist (Levate mari): take tricks",
    RENTZ: "Rentz: shed your cards first around the jacks",
}
#: The card whose taking ends the deal (the rest would score nothing) [D1].
ENDS_WITH = {KING_OF_HEARTS: Card(Suit.HEARTS, 13), TEN_OF_CLUBS: Card(Suit.CLUBS, 10)}


@dataclass(frozen=True)
class PointTable:
    """What each sub-game scores (the match's options; the seed's values by default).

    >>> PointTable.from_options({"places": "400/200/100/0"}).places
    (400, 200, 100, 0)
    """

    king_hearts: int = 200
    queen: int = 40
    diamond: int = 30
    trick: int = 50
    ten_clubs: int = 200
    whist_trick: int = 50
    places: tuple[int, ...] = (400, 200, 100, 50, 25)

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> PointTable:
        """The table a match's options set (missing ones: the defaults)."""
        base = cls()
        text = options.get("places")
        places = base.places if not text else parse_places(str(text))
        return cls(
            king_hearts=options.get("king_hearts", base.king_hearts),
            queen=options.get("queen", base.queen),
            diamond=options.get("diamond", base.diamond),
            trick=options.get("trick", base.trick),
            ten_clubs=options.get("ten_clubs", base.ten_clubs),
            whist_trick=options.get("whist_trick", base.whist_trick),
            places=places,
        )

    def place_points(self, place: int, players: int) -> int:
        """Rentz: the points of finishing ``place`` (1 = first) of ``players``; last gets 0 [D4].

        >>> [PointTable().place_points(p, 4) for p in range(1, 5)]
        [400, 200, 100, 0]
        """
        if place >= players or place > len(self.places):
            return 0
        return self.places[place - 1]


def parse_places(text: str) -> tuple[int, ...]:
    """``"400/200/100/50/25"`` (or commas) as the points of places 1, 2, ...

    >>> parse_places("400,200")
    (400, 200)
    """
    try:
        return tuple(int(x) for x in text.replace(",", "/").split("/") if x.strip())
    except ValueError:
        raise ValueError(f"places: expected numbers like 400/200/100/50/25, got {text!r}") from None


def card_values(game: str, table: PointTable) -> dict[Card, int]:
    """What each scoring card costs (negative) or brings its taker in a trick sub-game,
    tricks aside: Totals counts the Q♦ both as a queen and as a diamond.

    >>> card_values(TOTALS, PointTable())[Card.parse("QD")]
    -70
    """
    out: dict[Card, int] = {}

    def add(cards: Iterable[Card], points: int) -> None:
        for c in cards:
            out[c] = out.get(c, 0) + points

    if game in (KING_OF_HEARTS, TOTALS):
        add([ENDS_WITH[KING_OF_HEARTS]], -table.king_hearts)
    if game in (QUEENS, TOTALS):
        add(
            [Card(s, 12) for s in (Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES)],
            -table.queen,
        )
    if game in (DIAMONDS, TOTALS):
        add([Card(Suit.DIAMONDS, r) for r in range(2, 15)], -table.diamond)
    if game == TEN_OF_CLUBS:
        add([ENDS_WITH[TEN_OF_CLUBS]], table.ten_clubs)
    return out


def per_trick(game: str, table: PointTable) -> int:
    """What each trick taken scores in ``game`` (negative: a penalty).

    >>> table = PointTable()
    >>> per_trick(WHIST, table), per_trick(TRICKS, table), per_trick(QUEENS, table)
    (50, -50, 0)
    """
    if game in (TRICKS, TOTALS):
        return -table.trick
    if game == WHIST:
        return table.whist_trick
    return 0


def solver_points(
    game: str, table: PointTable, deck: Sequence[Card], players: int
) -> dict[Card | int, int]:
    """Card points for the trick kernel (``TrickRules.points``, never negative): ``players``
    times what each card scores, plus what a trick scores on every card, so that a trick of
    ``players`` cards carries its own score. The points a seat takes are ``players`` times
    the size of its score in ``game``: what the search's solver counts.

    >>> pts = solver_points(TOTALS, PointTable(), parse_cards("QD 7S"), 4)
    >>> pts[Card.parse("QD")], pts[Card.parse("7S")]
    (330, 50)
    """
    values, trick = card_values(game, table), abs(per_trick(game, table))
    out = {c: players * abs(values.get(c, 0)) + trick for c in deck}
    return {c: v for c, v in out.items() if v}  # keyed by card, as TrickRules reads them


def trick_points(game: str, taken: Sequence[Card], tricks: int, table: PointTable) -> int:
    """A seat's points in a trick sub-game from the cards it took and its tricks."""
    values = card_values(game, table)
    return sum(values.get(c, 0) for c in taken) + tricks * per_trick(game, table)
