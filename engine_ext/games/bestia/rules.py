"""Bestia's rules that need no match: the sure pot and the secured pot, who wins the pot,
the beasts, the third-player declarations and the leftover split (``docs/games/bestia.md``).

The Italian 40-card deck ranks K > C (horse) > J > 7 > ... > 2 > A in every suit, which is the
order of the cards' numeric ranks (A = 1 ... K = 10): the trick base's plain order.

>>> from levata.engine.cards import Suit, parse_cards
>>> hand = parse_cards("Kd 7s")
>>> unseen = set(parse_cards("Cd Jd 2b"))   # the horse of denari is still out there
>>> [str(c) for c in masters(hand, Suit.DENARI.slot, unseen)]
['Kd']
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from levata.engine.cards import Card
from levata.engine.family.tricks import beats, winning_card
from levata.engine.rules import TrickRules

__all__ = [
    "HAND_SIZE",
    "POT_TRICKS",
    "beasts",
    "is_master",
    "masters",
    "pot_winner",
    "secured_cards",
    "split_leftover",
    "sure_pot_cards",
    "terzo_entries",
]

HAND_SIZE = 5
#: Tricks that win the pot (or two, when three other participants took one each).
POT_TRICKS = 3


def is_master(card: Card, trump: int | None, unseen: set[Card]) -> bool:
    """Is ``card`` sure to win a trick it leads, by what its holder can see?

    A trump with no higher trump unseen; a plain card with no higher card of its suit
    unseen while no trump at all is unseen.

    >>> from levata.engine.cards import parse_cards
    >>> kb, cd = parse_cards("Kb Cd")
    >>> is_master(kb, 1, {cd}), is_master(kb, 1, set()), is_master(cd, 1, {kb})
    (False, True, True)
    """
    slot = card.suit.slot
    if slot == trump:
        return not any(u.suit.slot == slot and u.rank > card.rank for u in unseen)
    for u in unseen:
        s = u.suit.slot
        if s == trump or (s == slot and u.rank > card.rank):
            return False
    return True


def masters(hand: Iterable[Card], trump: int | None, unseen: set[Card]) -> list[Card]:
    """The cards of ``hand`` that are masters (:func:`is_master`)."""
    return [c for c in hand if is_master(c, trump, unseen)]


def _sure_winner(
    rules: TrickRules, card: Card, trick: Sequence[Card], unseen: set[Card], last: bool
) -> bool:
    """``card``, played now, takes the trick whatever the unseen cards are: it beats the
    trick so far and (unless it is the last card of the trick) no unseen card beats it."""
    if trick and not beats(rules, card, winning_card(rules, trick)):
        return False
    return last or not any(beats(rules, u, card) for u in unseen)


def sure_pot_cards(
    rules: TrickRules,
    hand: Sequence[Card],
    allowed: list[Card],
    trick: Sequence[Card],
    won: int,
    unseen: set[Card],
) -> list[Card]:
    """The sure-pot duty (rule 3): the cards of ``allowed`` that keep the pot sure when the
    seat can make it sure, else ``allowed``. ``unseen``: the cards the seat has not seen
    (never the hidden truth: the duty must not tell where an unseen card lies).

    On lead with ``3 - won`` masters or more, a master must be led. Following, a card
    certain to take the trick must be played when that trick and the masters left after it
    reach three.

    >>> from levata.engine.cards import Suit, parse_cards
    >>> rules = TrickRules(4, Suit.DENARI, must_trump=True, head=True, overtrump=True)
    >>> hand = parse_cards("Kd 7s")
    >>> [str(c) for c in sure_pot_cards(rules, hand, hand, [], 2, set(parse_cards("Ks 2d")))]
    ['Kd']
    >>> hand = parse_cards("Jd 7s")   # the horse of denari unseen: no duty
    >>> [str(c) for c in sure_pot_cards(rules, hand, hand, [], 2, set(parse_cards("Cd")))]
    ['Jd', '7s']
    """
    if won >= POT_TRICKS:
        return allowed
    trump = rules.trump
    if not trick:
        lead = masters(allowed, trump, unseen)
        if lead and len(masters(hand, trump, unseen)) >= POT_TRICKS - won:
            return sorted(lead)
        return allowed
    last = len(trick) == rules.seats - 1
    sure = []
    for card in allowed:
        if not _sure_winner(rules, card, trick, unseen, last):
            continue
        after = len(masters([c for c in hand if c != card], trump, unseen))
        if won + 1 + after >= POT_TRICKS:
            sure.append(card)
    return sorted(sure) or allowed


def secured_cards(rules: TrickRules, allowed: list[Card], won: int) -> list[Card]:
    """The secured-pot duty (rule 4): with three tricks won, the strongest allowed card (a
    trump above any plain card; the highest rank, any suit among equals, when discarding).

    >>> from levata.engine.cards import Suit, parse_cards
    >>> rules = TrickRules(4, Suit.DENARI)
    >>> [str(c) for c in secured_cards(rules, parse_cards("Jc 6c"), 3)]
    ['Jc']
    >>> [str(c) for c in secured_cards(rules, parse_cards("Jc Js 2d"), 3)]
    ['2d']
    >>> [str(c) for c in secured_cards(rules, parse_cards("Jc Js 6b"), 3)]
    ['Jc', 'Js']
    """
    if won < POT_TRICKS or not allowed:
        return allowed
    trumps = [c for c in allowed if c.suit.slot == rules.trump]
    if trumps:
        return [max(trumps, key=lambda c: c.rank)]
    top = max(c.rank for c in allowed)
    return sorted(c for c in allowed if c.rank == top)


def pot_winner(tricks: dict[int, int]) -> int | None:
    """The participant who wins the pot: three tricks or more, or exactly two while three
    others took one each; ``None``: the pot is saved.

    >>> pot_winner({0: 3, 1: 1, 2: 1, 3: 0}), pot_winner({0: 2, 1: 1, 2: 1, 3: 1})
    (0, 0)
    >>> pot_winner({0: 2, 1: 2, 2: 1}) is None
    True
    """
    for seat, n in tricks.items():
        if n >= POT_TRICKS:
            return seat
    twos = [s for s, n in tricks.items() if n == 2]
    ones = [s for s, n in tricks.items() if n == 1]
    if len(twos) == 1 and len(ones) == 3:
        return twos[0]
    return None


def beasts(tricks: dict[int, int]) -> list[int]:
    """The participants with no trick ("in bestia"), who pay into the next pot.

    >>> beasts({0: 3, 1: 2, 4: 0})
    [4]
    """
    return sorted(s for s, n in tricks.items() if n == 0)


def terzo_entries(declared: Sequence[tuple[int, str]]) -> dict[int, bool]:
    """Which *terzo* seats enter [D2]: in speaking order, a terzo seat enters when at most
    two others (the knockers, and the terzi admitted before it) take part.

    >>> terzo_entries([(1, "terzo"), (2, "knock"), (3, "fold"), (4, "knock"), (0, "knock")])
    {1: False}
    >>> terzo_entries([(1, "terzo"), (2, "knock"), (3, "fold"), (4, "knock"), (0, "fold")])
    {1: True}
    """
    taking = sum(1 for _, d in declared if d == "knock")
    out = {}
    for seat, d in declared:
        if d == "terzo":
            out[seat] = taking <= 2
            taking += out[seat]
    return out


def split_leftover(pot: int, players: int, first: int) -> list[int]:
    """The chips each seat gets when the pot is shared at the end [D5]: equal parts, the
    remainder one chip at a time in play order from ``first``.

    >>> split_leftover(7, 5, 3)
    [1, 1, 1, 2, 2]
    """
    each, rest = divmod(pot, players)
    out = [each] * players
    for i in range(rest):
        out[(first + i) % players] += 1
    return out
