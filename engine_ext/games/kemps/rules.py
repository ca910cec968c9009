"""Kemps' small rules, free of the state: teams, quads, the signal alphabet, the swap notation.

>>> team_of(5, 6), partner(1, 4), teams(6)
(2, 3, ((0, 3), (1, 4), (2, 5)))
>>> holds_quad(parse_cards("7S 7H 7D 7C")), holds_quad(parse_cards("7S 7H 7D 8C"))
(True, False)
>>> tokens_of(mask_of(["G3", "G7"]))
['G3', 'G7']
>>> str(swap(Card.parse("7C"), 2)), swap_parts(swap(Card.parse("7C"), 2))
('swap 7C@2', (Card('7C'), 2))
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Iterator, Sequence

from levata.engine.cards import Card, parse_cards
from levata.engine.contract import Action

__all__ = [
    "ALPHABET",
    "CALL_KINDS",
    "CHAT",
    "CONTRAKEMPS",
    "HAND_SIZE",
    "KEMPS",
    "REGISTER",
    "SLOTS",
    "ChatText",
    "contrakemps",
    "holds_quad",
    "mask_of",
    "parse_cards",
    "partner",
    "swap",
    "swap_parts",
    "team_of",
    "teams",
    "tokens_of",
]

#: Cards in every hand, and slots on the table.
HAND_SIZE = 4
SLOTS = 4
#: The public gesture tokens [D2]: any seat may attach one to an action; what a token means is
#: its team's secret (its kemps set), the rest are decoys.
ALPHABET: tuple[str, ...] = tuple(f"G{i}" for i in range(16))

# Action kinds of Kemps (``pass`` is the shared one).
SWAP = "swap"
KEMPS = "kemps"
CONTRAKEMPS = "contrakemps"
REGISTER = "register"
CHAT = "chat"
CALL_KINDS = frozenset({KEMPS, CONTRAKEMPS})

_SWAPS: dict[tuple[Card, int], Action] = {}


def teams(players: int) -> tuple[tuple[int, ...], ...]:
    """The partnerships: seat ``i`` and seat ``i + N/2`` (opposite), team ``i mod N/2``."""
    half = players // 2
    return tuple((t, t + half) for t in range(half))


def team_of(seat: int, players: int) -> int:
    return seat % (players // 2)


def partner(seat: int, players: int) -> int:
    return (seat + players // 2) % players


def holds_quad(hand: Sequence[Card]) -> bool:
    """Four cards of one rank in the hand (suits do not matter; two decks may repeat a card)."""
    return len(hand) == HAND_SIZE and all(c.rank == hand[0].rank for c in hand)


def mask_of(tokens: Iterable[str]) -> int:
    """A kemps set as the integer a ``register`` carries (bit ``i`` is ``Gi``)."""
    return sum(1 << ALPHABET.index(t) for t in set(tokens))


def tokens_of(mask: int) -> list[str]:
    """The tokens of a registered mask, in alphabet order."""
    return [t for i, t in enumerate(ALPHABET) if mask >> i & 1]


def swap(card: Card, slot: int) -> Action:
    """The (shared) ``swap <card>@<slot>`` action: give ``card``, take the card in ``slot``."""
    action = _SWAPS.get((card, slot))
    if action is None:
        action = _SWAPS[card, slot] = Action(SWAP, choice=f"{card}@{slot}")
    return action


_PARTS: dict[str, tuple[Card, int]] = {}


def swap_parts(action: Action) -> tuple[Card, int]:
    """The card given and the slot of a swap (read once per notation: bots ask at every
    decision of a search)."""
    text = action.choice or ""
    parts = _PARTS.get(text)
    if parts is None:
        card, _, slot = text.partition("@")
        parts = _PARTS[text] = (Card.parse(card), int(slot))
    return parts


def contrakemps(team: int) -> Action:
    return Action(CONTRAKEMPS, number=team)


_CHAT_WORD = re.compile(r"[A-Za-z0-9_.,:+-]{1,256}")


class ChatText(Collection[str | int]):
    """The values a convention message may take: one word of at most 256 bytes (letters,
    digits, ``_.,:+-``), so a payload never needs quoting. A collection that only answers
    ``in``: the schema never lists every message.

    >>> "meet-at-G3" in ChatText(), "two words" in ChatText(), 42 in ChatText()
    (True, False, True)
    """

    def __contains__(self, value: object) -> bool:
        if isinstance(value, int) and not isinstance(value, bool):
            value = str(value)
        return isinstance(value, str) and _CHAT_WORD.fullmatch(value) is not None

    def __iter__(self) -> Iterator[str | int]:
        return iter(("hello", "G3-means-kemps"))  # examples: the words are not listed

    def __len__(self) -> int:
        return 2
