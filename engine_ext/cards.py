"""Cards as small values with a notation a card player reads at a glance.

French cards print as rank then suit letter, upper case: ``QH``, ``10S``, ``AD``, ``2C``.
Italian (40-card) cards print with a lower-case suit letter so the two decks never
collide: ``Kc`` (Re di coppe), ``7d`` (7 di denari), ``Cb`` (Cavallo di bastoni),
``Js`` (Fante di spade). Unicode suit symbols are accepted when parsing French cards.

>>> Card.parse("QH")
Card('QH')
>>> str(Card.parse("10♠"))
'10S'
>>> Card.parse("Cb").rank_name
'C'
>>> Card.parse("QH").index
44

Every card has an ``index`` in ``0..63`` (``suit_slot * 16 + rank``) so a set of distinct
cards is a 64-bit mask (see :mod:`levata.engine.cardmask`). Italian suits share the French
slots (bastoni=clubs, denari=diamonds, coppe=hearts, spade=swords) because the two decks are
never mixed in one game.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import IntEnum
from typing import Any, Self

__all__ = [
    "FRENCH_RANKS",
    "ITALIAN_RANKS",
    "Card",
    "Deck",
    "Suit",
    "french_deck",
    "italian_deck",
    "notation_examples",
    "parse_cards",
]


class Suit(IntEnum):
    """The eight suits. French and Italian suits sharing a slot have the same ``slot``."""

    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3
    BASTONI = 4  # batons
    DENARI = 5  # coins
    COPPE = 6  # cups
    SPADE = 7  # swords

    @property
    def slot(self) -> int:
        """Position of the suit in a 64-bit mask (0..3)."""
        return int(self) & 3

    @property
    def italian(self) -> bool:
        return self >= Suit.BASTONI

    @property
    def letter(self) -> str:
        return _SUIT_LETTER[self]

    @property
    def red(self) -> bool:
        """Hearts and diamonds (and their Italian slots) are red."""
        return self.slot in (1, 2)

    @classmethod
    def parse(cls, text: str) -> Suit:
        """Parse a suit letter or symbol: ``H``, ``♥``, ``c`` (coppe).

        >>> Suit.parse("♥") is Suit.HEARTS
        True
        """
        try:
            return _LETTER_SUIT[text]
        except KeyError:
            raise ValueError(f"unknown suit {text!r}") from None


_SUIT_LETTER = {
    Suit.CLUBS: "C",
    Suit.DIAMONDS: "D",
    Suit.HEARTS: "H",
    Suit.SPADES: "S",
    Suit.BASTONI: "b",
    Suit.DENARI: "d",
    Suit.COPPE: "c",
    Suit.SPADE: "s",
}
_LETTER_SUIT = {v: k for k, v in _SUIT_LETTER.items()}
_LETTER_SUIT.update({"♣": Suit.CLUBS, "♦": Suit.DIAMONDS, "♥": Suit.HEARTS, "♠": Suit.SPADES})

#: French ranks 2..14 (J=11, Q=12, K=13, A=14).
FRENCH_RANKS: dict[str, int] = {str(r): r for r in range(2, 11)} | {
    "J": 11,
    "Q": 12,
    "K": 13,
    "A": 14,
}
#: Italian ranks 1..10 (A=1, Fante J=8, Cavallo C=9, Re K=10).
ITALIAN_RANKS: dict[str, int] = (
    {"A": 1}
    | {str(r): r for r in range(2, 8)}
    | {
        "J": 8,
        "C": 9,
        "K": 10,
    }
)
_FRENCH_NAME = {v: k for k, v in FRENCH_RANKS.items()}
_ITALIAN_NAME = {v: k for k, v in ITALIAN_RANKS.items()}


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """One playing card: a suit and a numeric rank (French 2..14, Italian 1..10)."""

    suit: Suit
    rank: int

    def __copy__(self) -> Self:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Self:
        return self  # immutable: a clone of a state shares it (clone would rebuild each)

    def __post_init__(self) -> None:
        names = _ITALIAN_NAME if self.suit.italian else _FRENCH_NAME
        if self.rank not in names:
            raise ValueError(f"rank {self.rank} does not exist in suit {self.suit.name}")

    @property
    def index(self) -> int:
        """Bit position in a 64-bit card mask: ``slot * 16 + rank``."""
        return self.suit.slot * 16 + self.rank

    @property
    def rank_name(self) -> str:
        return (_ITALIAN_NAME if self.suit.italian else _FRENCH_NAME)[self.rank]

    @property
    def red(self) -> bool:
        return self.suit.red

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse ``QH``, ``10S``, ``10♠``, ``Kc``; raise ``ValueError`` with the reason."""
        text = text.strip()
        if len(text) < 2:
            raise ValueError(f"not a card: {text!r}")
        rank_text, suit_text = text[:-1], text[-1]
        suit = Suit.parse(suit_text)
        names = ITALIAN_RANKS if suit.italian else FRENCH_RANKS
        rank = names.get(rank_text.upper())
        if rank is None:
            raise ValueError(f"not a card: {text!r} (unknown rank {rank_text!r})")
        return cls(suit, rank)

    @classmethod
    def from_index(cls, index: int, italian: bool = False) -> Card:
        """Inverse of :attr:`index` for the given deck."""
        slot, rank = divmod(index, 16)
        return cls(Suit(slot + (4 if italian else 0)), rank)

    # Cards are dictionary keys and printed on every hot path (views, records, replies):
    # a hash and a name from plain arithmetic and a table, not a tuple or two properties.
    def __hash__(self) -> int:
        return self.rank << 3 | self.suit

    def __str__(self) -> str:
        return _CARD_NAMES[self.suit][self.rank]

    def __repr__(self) -> str:
        return f"Card({str(self)!r})"


Deck = tuple[Card, ...]

#: ``_CARD_NAMES[suit][rank]``: every card's notation, for :meth:`Card.__str__`.
_CARD_NAMES: tuple[dict[int, str], ...] = tuple(
    {
        rank: name + _SUIT_LETTER[suit]
        for rank, name in (_ITALIAN_NAME if suit.italian else _FRENCH_NAME).items()
    }
    for suit in Suit
)


def french_deck(lowest: int = 2) -> Deck:
    """A French deck from ``lowest`` up to the Ace in every suit, in a fixed order.

    >>> len(french_deck()), len(french_deck(7))
    (52, 32)
    """
    suits = (Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES)
    return tuple(Card(s, r) for s in suits for r in range(lowest, 15))


def italian_deck() -> Deck:
    """The 40-card Italian deck (A, 2-7, Fante, Cavallo, Re in four suits).

    >>> len(italian_deck())
    40
    """
    suits = (Suit.BASTONI, Suit.DENARI, Suit.COPPE, Suit.SPADE)
    return tuple(Card(s, r) for s in suits for r in range(1, 11))


def notation_examples(deck: Sequence[Card]) -> str:
    """Three cards of ``deck``'s family in their notation, for help texts (``levata
    describe``): the notation follows the deck, never the game's name.

    >>> notation_examples(italian_deck()), notation_examples(french_deck())
    ('Kc, 7d, Cb', '10S, QH, AD')
    """
    return "Kc, 7d, Cb" if deck and deck[0].suit.italian else "10S, QH, AD"


def parse_cards(text: str | Iterable[str]) -> list[Card]:
    """Parse a space- or comma-separated list of cards.

    >>> parse_cards("QH 10S, AD")
    [Card('QH'), Card('10S'), Card('AD')]
    """
    if isinstance(text, str):
        text = text.replace(",", " ").split()
    return [Card.parse(t) for t in text]
