"""Inference from play: how likely a world's hands are given the cards the other seats played,
under a softened model of how they play.

The worlds a search bot draws (:mod:`levata.engine.worlds`) are uniform among the deals its
view allows: voids and exchanges are read, what a seat chose to play is not. The model read
here is the heuristic players' rule of the trick, softened: a seat that wants the trick wins
it when it can (the cheapest winner when it plays last), one that does not want it plays a
card that loses. A play against that rule does not rule a world out; it makes the worlds in
which the seat *could* have followed the rule less likely, by a factor (:data:`MISS_LAST`,
:data:`MISS`, :data:`DEARER`, :data:`SPARE`). Whether a seat wants the trick is the game's
word (``Strategy.wants_trick``: Whist, short of its bid; Tarneeb, unless its partner is
winning; 3-5-8, always).

Each play becomes a :class:`Clue` (:mod:`levata.engine.evidence`, re-exported here with
:func:`read_clues`) once per view: the seat, the cards that, held then, would
have made the play a deviation, and the factor. The cards a seat held then are its hand now
and the cards it played since, the latter the same in every world, so a world is read by one
mask test per clue (:func:`read_clues`): cheap enough for every draw of a decision.

>>> from levata.engine import game
>>> from levata.engine.cardmask import mask_of
>>> state = game("whist").new_match(players=3, options={"deal_size": 3}, seed=4)
>>> while state.phase == "bid":
...     seat = state.to_act()[0]
...     state.apply(seat, state.legal_actions(seat)[0])
>>> clues = play_clues(state.view(0), state, lambda seat, taken, winner: True)
>>> clues == []  # nothing played yet
True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from levata.engine import SeatView, events
from levata.engine.cardmask import mask_of
from levata.engine.cards import Card, Suit
from levata.engine.evidence import Clue, read_clues
from levata.engine.family.tricks import (
    TrickGame,
    beats,
    power,
    suit_of,
    trick_taker,
    winning_card,
)
from levata.engine.rules import TrickRules
from levata.engine.worlds import Likelihood

__all__ = [
    "DEARER",
    "MISS",
    "MISS_LAST",
    "SPARE",
    "TRUMP_EVIDENCE",
    "Clue",
    "Wants",
    "both",
    "named_trump",
    "play_clues",
    "played_this_deal",
    "read_clues",
]

#: A seat that wanted the trick and played last let it go though it held a winner.
MISS_LAST = 0.2
#: The same earlier in the trick (a seat may hold a winner back second in hand).
MISS = 0.6
#: A seat that wanted the trick and played last won it with a dearer card than it needed.
DEARER = 0.5
#: A seat that did not want the trick won it though it held a card that lost.
SPARE = 0.3

#: A seat that named a trump suit holds, for each card its longest suit has over the one it
#: named (its hand now and the cards it played this deal), a world this much less likely.
TRUMP_EVIDENCE = 0.5

#: Whether ``seat`` wants the trick in progress, given the tricks each seat has taken this
#: deal and the seat winning the trick so far (``None`` for the lead): ``None`` if the model
#: cannot say (the play is then no evidence).
Wants = Callable[[int, list[int], int | None], bool | None]


def played_this_deal(view: SeatView) -> list[int]:
    """The cards (a mask) each seat played this deal, as the view saw them: with its hand
    now, what a seat was dealt.

    >>> from levata.engine import game
    >>> state = game("whist").new_match(players=3, options={"deal_size": 3}, seed=4)
    >>> played_this_deal(state.view(0))
    [0, 0, 0]
    """
    out = [0] * view.players
    for e in view.history[_deal_start(view) :]:
        if e.kind == events.PLAY and e.seat is not None and e.cards:
            out[e.seat] |= 1 << e.cards[0].index
    return out


def _deal_start(view: SeatView) -> int:
    """Where the deal in progress starts in the view's history: its last hand event."""
    return max((i for i, e in enumerate(view.history) if e.kind == events.HAND), default=0)


def play_clues(view: SeatView, world: TrickGame, wants: Wants) -> list[Clue]:
    """The clues of the other seats' plays this deal (``world``: any world of ``view``, for
    the rules and the deck)."""
    rules, deck = world.rules, world.deck
    size = rules.seats
    start = _deal_start(view)
    taken = [0] * world.players
    plays: list[tuple[int, Card, list[Card], list[int], list[int]]] = []
    trick: list[Card] = []
    seats: list[int] = []
    for e in view.history[start:]:
        if e.kind == events.PLAY and e.seat is not None and e.cards:
            plays.append((e.seat, e.cards[0], list(trick), list(seats), list(taken)))
            trick.append(e.cards[0])
            seats.append(e.seat)
        elif e.kind == events.TRICK:
            if e.seat is not None:
                taken[e.seat] += 1
            trick, seats = [], []
    clues: list[Clue] = []
    for k, (seat, card, before, who, count) in enumerate(plays):
        if seat == view.seat or not before:
            continue
        led = suit_of(rules, before[0])
        if suit_of(rules, card) != led:
            continue  # a discard or a ruff: the voids already say what it can
        best = winning_card(rules, before)
        winner = trick_taker(rules, list(zip(who, before, strict=True)))
        want = wants(seat, count, winner)
        if want is None:
            continue
        suit = [c for c in deck if suit_of(rules, c) == led and c != card]
        rule = _deviation(rules, suit, card, best, want, len(before) == size - 1)
        if rule is None:
            continue
        held, factor = rule
        later = mask_of(c for s, c, *_ in plays[k + 1 :] if s == seat)
        mask = mask_of(held)
        if mask and not mask & later:  # held for sure: the same in every world, no evidence
            clues.append(Clue(seat, mask, factor))
    return clues


def _deviation(
    rules: TrickRules, suit: list[Card], card: Card, best: Card, want: bool, last: bool
) -> tuple[list[Card], float] | None:
    """The cards of ``suit`` (the led suit, ``card`` left out) whose holding would have made
    playing ``card`` on ``best`` against the rule, and the factor; ``None``: no evidence."""
    won = beats(rules, card, best)
    if want and not won:
        return [c for c in suit if beats(rules, c, best)], MISS_LAST if last else MISS
    if want and last:
        dear = power(rules, card)
        return [c for c in suit if beats(rules, c, best) and power(rules, c) < dear], DEARER
    if not want and won:
        return [c for c in suit if not beats(rules, c, best)], SPARE
    return None


def named_trump(view: SeatView, world: TrickGame, kind: str, key: str) -> Likelihood | None:
    """The trump named this deal by another seat (its event ``kind``, the suit's letter in
    its data's ``key``; no-trump or none: ``None``), read as the heuristic players name it:
    their longest suit. A world loses :data:`TRUMP_EVIDENCE` for each card the namer's
    longest suit outnumbers the named one by.

    >>> from levata.engine import game
    >>> state = game("tarneeb").new_match(players=4, seed=3)
    >>> named_trump(state.view(0), state, "trump", "trump") is None  # nothing named yet
    True
    """
    named = [
        e
        for e in view.history[_deal_start(view) :]
        if e.kind == kind and e.seat is not None and e.seat != view.seat
    ]
    letter = named[-1].data.get(key) if named else None
    if not named or not isinstance(letter, str) or letter not in "CDHS" or len(letter) != 1:
        return None
    seat = named[-1].seat
    assert seat is not None  # kept above
    played = played_this_deal(view)[seat]
    suits = {c.suit for c in world.deck}
    by_suit = {x: mask_of(c for c in world.deck if c.suit == x) for x in suits}
    trump = by_suit[Suit.parse(letter)]

    def likelihood(hands: Sequence[int]) -> float:
        held = hands[seat] | played
        longest = max((held & m).bit_count() for m in by_suit.values())
        return TRUMP_EVIDENCE ** (longest - (held & trump).bit_count())

    return likelihood


def both(*parts: Likelihood | None) -> Likelihood | None:
    """The product of the likelihoods given (``None``: none given).

    >>> both(None, None) is None, both(lambda h: 0.5, lambda h: 0.5)([0])
    (True, 0.25)
    """
    given = [p for p in parts if p is not None]
    if not given:
        return None
    if len(given) == 1:
        return given[0]

    def likelihood(hands: Sequence[int]) -> float:
        w = 1.0
        for p in given:
            w *= p(hands)
        return w

    return likelihood
