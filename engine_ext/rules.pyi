"""Type stub of the compiled ``levata.engine.rules`` (see ``rules.pyx``)."""

from collections.abc import Iterable, Mapping, Sequence

from levata.engine.cards import Card, Suit

__all__ = [
    "TRUMP_SUIT",
    "TrickRules",
    "legal_cards",
    "legal_moves",
    "rank_order_layout",
    "trick_winner",
]

# A hand: a card mask, or the cards (or card indexes) themselves.
_Hand = int | Iterable[Card | int]

TRUMP_SUIT: int

def rank_order_layout(
    order: Sequence[int], slots: Sequence[int] = (0, 1, 2, 3)
) -> dict[int, tuple[int, int]]: ...

class TrickRules:
    @property
    def seats(self) -> int: ...
    @property
    def trump(self) -> int | None: ...
    @property
    def teams(self) -> tuple[int, ...]: ...
    @property
    def follow(self) -> bool: ...
    @property
    def must_trump(self) -> bool: ...
    @property
    def head(self) -> bool: ...
    @property
    def overtrump(self) -> bool: ...
    @property
    def layout(self) -> dict[int, tuple[int, int]] | None: ...
    @property
    def points(self) -> dict[int, int]: ...
    @property
    def last_trick_bonus(self) -> int: ...
    @property
    def sure_pot(self) -> bool: ...
    @property
    def pot_tricks(self) -> int: ...
    def __init__(
        self,
        seats: int = 4,
        trump: Suit | int | None = None,
        *,
        teams: Sequence[int] | None = None,
        follow: bool = True,
        must_trump: bool = False,
        head: bool = False,
        overtrump: bool = False,
        layout: Mapping[Card | int, tuple[int, int]] | None = None,
        points: Mapping[Card | int, int] | None = None,
        last_trick_bonus: int = 0,
        sure_pot: bool = False,
        pot_tricks: int = 3,
    ) -> None: ...
    def beats(self, card: int, best: int) -> bool: ...
    def effective_suit(self, card: int) -> int: ...

def legal_cards(rules: TrickRules, hand: _Hand, trick: Sequence[Card | int] = ()) -> int: ...
def legal_moves(
    rules: TrickRules,
    hands: Sequence[_Hand],
    leader: int,
    trick: Sequence[Card | int] = (),
    won: Sequence[int] | None = None,
    hidden: Sequence[_Hand] | None = None,
) -> int: ...
def trick_winner(rules: TrickRules, leader: int, trick: Sequence[Card | int]) -> int: ...
