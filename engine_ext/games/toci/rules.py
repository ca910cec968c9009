"""Toci's placement rule and the careful player's choice, shared by the game, its fast
playout copy and the heuristic bot.

Ranks run in a cycle ``A,2,...,10,J,Q,K`` and back to ``A``. A card *fits* another seat's
pile when it is that pile top's successor, suits ignored (an empty pile takes nothing). The
houses are given by their top cards: with one house (the default) a card fits it when it is
the top's successor, suits ignored (an A on an empty house); with ``house_by_suit`` every A
opens a house of its own and any other card fits the house of its suit whose top is the rank
below (:func:`house_for`).

>>> from levata.engine.cards import Card
>>> fits(Card.parse("AD"), None), fits(Card.parse("AD"), Card.parse("KC"))
(True, True)
>>> fits(Card.parse("5C"), Card.parse("4D")), fits(Card.parse("5C"), None, house=False)
(True, False)
"""

from __future__ import annotations

from collections.abc import Sequence

from levata.engine.cards import Card

__all__ = ["ACE", "HOUSE", "careful_target", "fits", "house_for", "step", "targets"]

ACE = 14  # French ranks run 2..14: the cycle A,2,...,K puts the A first
CYCLE = 13
#: The house as a target (a seat's number names that seat's pile).
HOUSE = "house"


def step(rank: int) -> int:
    """A rank's place in the cycle: A is 0, 2 is 1, ..., K is 12.

    >>> step(14), step(2), step(13)
    (0, 1, 12)
    """
    return 0 if rank == ACE else rank - 1


#: ``NEXT[rank]``: the rank that goes on ``rank`` (K -> A, A -> 2), French ranks 2..14.
NEXT = [0, 0, *range(3, 14), ACE, 2]


def fits(card: Card, top: Card | None, house: bool = True) -> bool:
    """Whether ``card`` goes on a heap whose top is ``top`` (``None``: empty). Only the
    house takes a card when empty, and then only an A.

    >>> all(NEXT[r] % 13 == (r + 1) % 13 for r in range(2, 15))
    True
    """
    if top is None:
        return house and card.rank == ACE
    return card.rank == NEXT[top.rank]


def house_for(card: Card, houses: Sequence[Card], by_suit: bool = False) -> int:
    """The house ``card`` goes on, given the houses' tops in the order they were opened: its
    index, ``len(houses)`` for a house it opens, -1 where it fits none.

    One house (``by_suit`` off): ``houses`` is empty or holds the one top; suits are ignored.
    One house per A (``by_suit``): an A always opens a new house; any other card goes on the
    first house of its own suit whose top is the rank below. A house topped by its K is
    complete (an A never goes on it).

    >>> c = Card.parse
    >>> house_for(c("AD"), []), house_for(c("5C"), [c("4D")]), house_for(c("5C"), [c("5D")])
    (0, 0, -1)
    >>> tops = [c("4D"), c("4C")]
    >>> house_for(c("5C"), tops, True), house_for(c("AC"), tops, True)
    (1, 2)
    >>> house_for(c("5H"), tops, True), house_for(c("2S"), [], True)
    (-1, -1)
    """
    rank = card.rank
    if not by_suit:
        if not houses:
            return 0 if rank == ACE else -1
        return 0 if NEXT[houses[0].rank] == rank else -1
    if rank == ACE:
        return len(houses)
    suit = card.suit
    for i, top in enumerate(houses):
        if top.suit == suit and NEXT[top.rank] == rank:
            return i
    return -1


def targets(
    card: Card,
    houses: Sequence[Card],
    pile_tops: Sequence[Card | None],
    actor: int,
    finished: Sequence[int] = (),
    by_suit: bool = False,
) -> list[int | str]:
    """Where ``card``, held by ``actor``, fits: ``"house"`` first, then the seats in order.
    ``houses`` are the houses' tops (:func:`house_for`).

    A finished seat's pile is empty, so it takes nothing (D10); the actor's own pile never
    counts as a fit.

    >>> from levata.engine.cards import parse_cards
    >>> tops = parse_cards("6S 6H 9C")
    >>> targets(Card.parse("7D"), [Card.parse("6C")], tops, actor=0)
    ['house', 1]
    >>> targets(Card.parse("7D"), [Card.parse("6C")], tops, actor=0, by_suit=True)
    [1]
    """
    out: list[int | str] = [HOUSE] if house_for(card, houses, by_suit) >= 0 else []
    rank = card.rank
    for seat, top in enumerate(pile_tops):  # an empty pile, a finished seat's, takes nothing
        if top is not None and NEXT[top.rank] == rank and seat != actor:
            out.append(seat)
    return out


def careful_target(fitting: Sequence[int | str], held: Sequence[int], actor: int) -> int | str:
    """Where a careful player puts a card that fits somewhere: on the pile of the rival
    holding the fewest cards (the one nearest to going out; a card there is one more it must
    get rid of), the nearest such seat clockwise on a tie; on the house when no rival's pile
    takes it. ``held[s]`` is what seat ``s`` holds (stock and pile).

    >>> careful_target(["house", 1, 2], held=[4, 9, 3], actor=0)
    2
    >>> careful_target(["house"], held=[4, 9, 3], actor=0)
    'house'
    """
    n = len(held)
    seats = [t for t in fitting if isinstance(t, int)]
    if not seats:
        return HOUSE
    return min(seats, key=lambda s: (held[s], (s - actor) % n))
