"""Toci's placement rule and the careful player's choice, shared by the game, its fast
playout copy and the heuristic bot.

Ranks run in a cycle ``A,2,...,10,J,Q,K`` and back to ``A``; suits never matter. A card
*fits* the house when it is the house top's successor (an A on an empty house), and another
seat's pile when it is that pile top's successor (an empty pile takes nothing).

>>> from levata.engine.cards import Card
>>> fits(Card.parse("AD"), None), fits(Card.parse("AD"), Card.parse("KC"))
(True, True)
>>> fits(Card.parse("5C"), Card.parse("4D")), fits(Card.parse("5C"), None, house=False)
(True, False)
"""

from __future__ import annotations

from collections.abc import Sequence

from levata.engine.cards import Card

__all__ = ["ACE", "HOUSE", "careful_target", "fits", "step", "targets"]

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


def targets(
    card: Card,
    house_top: Card | None,
    pile_tops: Sequence[Card | None],
    actor: int,
    finished: Sequence[int] = (),
) -> list[int | str]:
    """Where ``card``, held by ``actor``, fits: ``"house"`` first, then the seats in order.

    A finished seat's pile is empty, so it takes nothing (D10); the actor's own pile never
    counts as a fit.

    >>> from levata.engine.cards import parse_cards
    >>> tops = parse_cards("6S 6H 9C")
    >>> targets(Card.parse("7D"), Card.parse("6C"), tops, actor=0)
    ['house', 1]
    """
    out: list[int | str] = [HOUSE] if fits(card, house_top) else []
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
