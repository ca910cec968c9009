"""The Surpriza games: quota games whose four left-over cards go to the seat that names trump.

Banking Cards and 8-5-3 / 6-3-2-1 play one deal the same way around their own rules: 16 or 12
cards each from the seat that plays for the most (the *taker*: Banking's Declarant ``K``,
8-5-3's first player ``F``), the four left over face down (the **Surpriza**); seats with
credit from the deal before ask cards of the seats in debt, and the target answers by a
rule (each game's own); the taker names a suit, never no-trump, takes the Surpriza up and
buries four cards face down, one at a time, then leads. :class:`SurprizaGame` writes that
once: the deal and the carried credits, an answered request's moves and event, naming trump
and taking the Surpriza, the burial, their places, and what a view, a position and a world
rebuilt from a view make of them. A game names its taker, its burial place and the
attribute keeping the Surpriza cards taken up (:attr:`~SurprizaGame.TAKER`,
:attr:`~SurprizaGame.BURIAL`, :attr:`~SurprizaGame.TAKEN`), and writes its own requests.

What a seat learns of where cards lie, for every Surpriza game (its narrowing hooks; a game
adds its own events):

* at the deal: its own cards are its own; every other card is in another hand or the Surpriza;
* a request between two others: any card of either may now be with the other;
* a request it answered: the card it got was the requester's, the card it gave is there now;
* a request it made: the card it offered is in the target's hand when it got one back (else
  its own again), and the answer rules cards of the suit out of the target's hand
  (:meth:`~SurprizaGame._not_held`, the game's rule);
* the burial: any card the taker may hold may have been buried (the taker knows which);
* card play (the trick base): played cards are gone, a seat that showed out of a suit holds
  none of it.

>>> from levata.engine import game
>>> state = game("eight-five-three").new_match(players=3, options={"shuffler": 2}, seed=3)
>>> state.taker, state.view(0).phase
(0, 'trump')
>>> state.apply(0, state.legal_actions(0)[0])  # F names spades and takes the Surpriza up
>>> len(state.hands[0]), len(state.view(0).zones["surpriza"]), "surpriza" in state.view(1).zones
(20, 4, False)
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from contextlib import nullcontext
from typing import Any, ClassVar

from levata.engine.cards import Card, Suit, french_deck
from levata.engine.contract import Action, BadConfig, Event, GameSpec, Result, SeatView
from levata.engine.deal import shuffled
from levata.engine.family.quotas import (
    HAND_SIZE,
    LEFT_OVER,
    parse_row,
    practice_previous,
    quotas,
)
from levata.engine.family.tricks import PLAY, TrickGame
from levata.engine.fields import Fact, Field
from levata.engine.position import Position
from levata.engine.worlds import PlaceSets
from levata.engine.zones import Place, without

__all__ = [
    "BURIED",
    "BURY",
    "EXCHANGED",
    "NAME_TRUMP",
    "SUITS",
    "SURPRIZA",
    "SurprizaGame",
    "named_strain",
]

#: The action naming trump and its event; the Surpriza taken up; a request answered (to its
#: two seats); a card buried (to the taker) and how many are (to all).
NAME_TRUMP, SURPRIZA, EXCHANGED, BURY, BURIED = (
    "trump",
    "surpriza",
    "exchanged",
    "discard",
    "buried",
)
#: The suits the taker may name (never no-trump).
SUITS = ("S", "H", "C", "D")


def named_strain(who: str) -> Field:
    """The ``strain`` fact of a game whose trump ``who`` names, never no-trump.

    >>> named_strain("F").help[-26:]
    '(F names a suit, never NT)'
    """
    return Fact(
        "strain",
        "the trump named: C, D, H or S, or NT for no trump; null before it is named"
        f" ({who} names a suit, never NT)",
        attr="trump",
        derived=True,
        show=lambda trump: None if trump is None else trump.letter,
    )


class SurprizaGame(TrickGame):
    """A quota game with a Surpriza the taker takes up and four cards it buries (see the
    module). Places: the seats' hands, ``N`` the face-down Surpriza, ``N + 1`` the burial."""

    #: The attribute naming the taker: the seat that names trump, takes the Surpriza, buries.
    TAKER: ClassVar[str]
    #: The place (and attribute) of the cards the taker buries.
    BURIAL: ClassVar[str]
    #: The attribute keeping the Surpriza cards taken up (in a hand now, or buried since).
    TAKEN: ClassVar[str]
    #: The event naming a request's target (to every seat: the two may then trade cards).
    ASKED: ClassVar[str]
    #: Who sees the Surpriza's faces: nobody, but within the action that takes it up.
    kitty_seen: frozenset[int] | None = frozenset()
    kitty: list[Card]
    single: bool
    quota: list[int]
    credit: list[int]
    debt: list[int]

    PLACES = (
        *without(TrickGame.PLACES, "trump"),  # trump is named, never turned
        Place(
            "surpriza",
            "the four Surpriza cards, face down until the taker takes them up",
            attr="kitty",
            seen="_kitty_seen_by",
            shown=False,  # the view shows the cards taken up: _view_zones
            counted="cards still face down in the Surpriza (4 until trump is named)",
        ),
    )

    def __init__(self, spec: GameSpec, players: int, options: dict[str, Any], seed: int) -> None:
        super().__init__(spec, players, options, seed)
        self._settle()  # a new match sets what the options give as a world or a position does

    def _settle(self) -> None:
        self.deck = french_deck()
        self.single = self.options[self._unit] > 0

    @property
    def _unit(self) -> str:
        """The option that makes a match one deal (the duplicate unit: ``session``, ``deal``)."""
        unit = self.spec.duplicate_unit
        assert unit is not None, "a Surpriza game plays duplicate by the deal"
        return unit

    @property
    def taker(self) -> int:
        """The seat that names trump, takes the Surpriza up, buries and leads."""
        seat: int = getattr(self, self.TAKER)
        return seat

    @property
    def taken_up(self) -> list[Card]:
        """The Surpriza cards the taker took up this deal."""
        cards: list[Card] = getattr(self, self.TAKEN)
        return cards

    @property
    def kitty_up(self) -> bool:
        """The Surpriza lies face up for everyone (only within the action that takes it up)."""
        return self.kitty_seen is None

    def surpriza_shown(self) -> bool:
        """The Surpriza is shown to every seat as the taker takes it up (else to it alone)."""
        return True

    # -- the deal ---------------------------------------------------------------------------

    def _carry_previous(self, first_before: int) -> list[int] | None:
        """The first deal's credits and debts: the over- and under-tricks of the deal before,
        option ``previous`` (``tricks - quota`` per seat); a one-deal match carrying ``k - 1``
        credits (the duplicate unit ``k``) makes one up, seat ``first_before`` having played
        for the most. Returns the row (``None``: no deal before)."""
        n, unit = self.players, self._unit
        previous = parse_row(self.options["previous"], n, "previous")
        if previous is None and self.options[unit] > 1:
            previous = practice_previous(n, first_before, self.options[unit] - 1, self.rng)
        if previous is not None and sum(previous) != 0:
            raise BadConfig(f"option previous: a {unit}'s row sums to 0")
        prev = previous or [0] * n
        self.credit = [max(0, d) for d in prev]
        self.debt = [max(0, -d) for d in prev]
        return previous

    def _deal_quotas(self, order: list[Card] | None) -> None:
        """The quotas from the taker on; 16 or 12 cards each from it, one at a time (from
        ``order``, else a fresh shuffle); the four left over face down: the Surpriza."""
        n, first = self.players, self.taker
        self.quota = quotas(n, first)
        deck = order if order is not None else shuffled(self.deck, self.rng)
        rest = self.deal_round_robin(deck, first, HAND_SIZE[n])
        self.move(rest[:LEFT_OVER], "undealt", "surpriza")
        setattr(self, self.TAKEN, [])
        self.set_trump(None)

    def _hand_over(self, giver: int, receiver: int, card: Card) -> None:
        """``card`` goes from one hand to another before the play (the game's event tells)."""
        self.move(card, f"hand:{giver}", f"hand:{receiver}")

    def _answered(self, seat: int, target: int, card: Card, back: Card | None, **data: Any) -> None:
        """``seat`` offered ``card`` to ``target``, which gives ``back`` (``None``: the card
        comes back): the cards change hands, and ``exchanged`` tells the two seats."""
        if back is not None:
            self._hand_over(seat, target, card)
            self._hand_over(target, seat, back)
        shown = (card,) if back is None else (card, back)
        # A card that comes back was still shown to the target: it sees it for a moment.
        at_target = self.showing((card,), f"hand:{seat}", {seat, target})
        with at_target if back is None else nullcontext():
            self._emit(
                EXCHANGED, audience={seat, target}, seat=seat, cards=shown, target=target, **data
            )

    def trump_calls(self) -> list[Action]:
        """The taker's choices of trump: a suit, never no-trump."""
        return [Action(NAME_TRUMP, choice=s) for s in SUITS]

    def _take_surpriza(self, suit: Suit) -> None:
        """The taker names ``suit`` and takes the Surpriza up: face up for every seat, or
        seen by the taker alone (the others are told it was taken, not what it holds)."""
        k = self.taker
        self.set_trump(suit)
        self._emit(NAME_TRUMP, seat=k, trump=suit.letter)
        to = None if self.surpriza_shown() else frozenset({k})
        self.kitty_seen = to
        self._emit(SURPRIZA, audience=to, seat=k, cards=self.kitty)
        if to is not None:
            self._emit(SURPRIZA, audience=set(range(self.players)) - to, seat=k)
        taken = list(self.kitty)
        setattr(self, self.TAKEN, taken)
        self.move(taken, "surpriza", f"hand:{k}")
        self.kitty_seen = frozenset()

    def _bury(self, card: Card) -> None:
        """The taker buries ``card`` face down; after the fourth, :meth:`_after_burial`."""
        k = self.taker
        self.move(card, f"hand:{k}", self.BURIAL, kind=BURY, seat=k)
        buried = len(self.cards_at(self.BURIAL))
        self._emit(BURIED, seat=k, count=buried)
        if buried == LEFT_OVER:
            self._after_burial()

    def _after_burial(self) -> None:
        """The play: the taker leads."""
        self.phase, self.leader = PLAY, self.taker

    def _ranked(self, scores: list[int], keys: Sequence[tuple[int, ...]], reason: str) -> Result:
        """The result: ``scores``, seats ranked by ``keys`` (higher is better; equal keys
        share a rank, and the win at the top)."""
        best = max(keys)
        return Result(
            scores=tuple(float(p) for p in scores),
            ranks=tuple(1 + sum(1 for o in keys if o > k) for k in keys),
            winners=tuple(s for s, k in enumerate(keys) if k == best),
            deals=tuple(self.deal_log),
            reason=reason,
        )

    # -- what a seat may know ---------------------------------------------------------------

    def _kitty_seen_by(self, _: int | None) -> frozenset[int] | None:
        return self.kitty_seen

    def _view_zones(self, seat: int) -> dict[str, tuple[Card, ...]]:
        zones = super()._view_zones(seat)
        if self.taken_up and (seat == self.taker or self.surpriza_shown()):
            zones["surpriza"] = tuple(self.taken_up)
        buried = self.cards_at(self.BURIAL)
        if seat == self.taker and buried:
            zones[self.BURIAL] = tuple(buried)
        return zones

    def _after_restore(self, view: SeatView) -> None:
        setattr(self, self.TAKEN, list(view.zones.get("surpriza", ())))
        setattr(self, self.BURIAL, list(view.zones.get(self.BURIAL, ())))

    def _position_places(self) -> dict[str, list[Card]]:
        """Written as cards though they lie in the taker's hand now: the Surpriza taken up."""
        return {"surpriza_taken": self.taken_up}

    def _load_places(self, pos: Position) -> None:
        setattr(self, self.TAKEN, pos.cards("surpriza_taken"))

    # -- a world rebuilt from a view: the narrowing hooks (see the module) -----------------

    def _places_at_deal(self) -> list[int]:
        return [self.players]  # the Surpriza

    def _narrow_places(self, ev: Event, sets: PlaceSets, view: SeatView) -> None:
        seat, k, kind = view.seat, self.taker, ev.kind
        by = ev.seat if ev.seat is not None else -1
        if kind == self.ASKED and seat not in (by, ev.data["target"]):
            sets.swap(by, ev.data["target"])
        elif kind == EXCHANGED:
            self._narrow_exchanged(ev, sets, seat)
        elif kind == BURIED and seat != k:
            sets.spread({k: self.players + 1})  # the sizes say how many went
        elif kind == BURY:
            sets.put(ev.cards[0], self.players + 1)

    def _narrow_exchanged(self, ev: Event, sets: PlaceSets, seat: int) -> None:
        """An answered request, as one of its two seats saw it (see the module)."""
        r, t = ev.seat if ev.seat is not None else -1, ev.data["target"]
        offered = ev.cards[0]
        back = ev.cards[1] if len(ev.cards) > 1 else None
        if seat != r:
            sets.put(offered, r if back is None else seat)
            if back is not None:
                sets.put(back, r)
            return
        sets.put(offered, seat if back is None else t)
        if back is not None:
            sets.put(back, seat)
        sets.not_at(t, self._not_held(ev, offered, back))

    def _not_held(self, ev: Event, offered: Card, back: Card | None) -> list[Card]:
        """The cards the target's answer to ``offered`` (giving ``back``, or nothing) shows
        it does not hold: the game's rule of answering, read backwards."""
        raise NotImplementedError(f"{type(self).__name__} writes _not_held()")

    def _plan_places(self, view: SeatView, sets: PlaceSets) -> dict[int, int]:
        sizes = {self.players: view.counts["surpriza"]}
        if view.seat != self.taker:
            sizes[self.players + 1] = view.counts[self.BURIAL]
        return sizes

    def _settle_places(
        self, view: SeatView, dealt: dict[int, list[Card]], rng: random.Random
    ) -> None:
        self.kitty = dealt.get(self.players, [])
        if view.seat != self.taker:
            setattr(self, self.BURIAL, dealt.get(self.players + 1, []))
