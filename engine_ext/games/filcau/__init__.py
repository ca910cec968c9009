"""Filcău: four players in two teams (seats 0+2 against 1+3), 20 cards, the four queens (the
filcăi) always trumps above the trump suit; a trump bound by counts, or named at once by a
"fris"; aces and tens count; the teams move between servant, equal and chief; first team to 11
(``docs/games/filcau.md``).

A deal, dealer ``D``, deal order ``next(D) .. D``:

``cut``    the seat before D cuts (3 cards each, then a fris window, then 2 more) or knocks
           (5 cards each at once).
``fris``   after a cut, each seat in deal order may show a filcău that its three cards allow
           (one filcău and two cards of a suit, two filcăi and a card, three filcăi): it names
           the trump and leads trick 1; the first fris ends the window.
``bind``   without a fris, one lap in deal order: ``bind S`` (a filcău and three or four
           trumps, a fourth not beside an ace), ``pass``, or ``inchis`` (five trumps: a
           compulsory pass). Counts beat counts, then the lowest trump; a hidden "farbă" (four)
           is challenged by "patru". Nobody binds: the same dealer deals again.
``trump``  the best binder names a suit of the value it called, and leads.
``play``   five tricks: follow, else trump (no duty to overtrump); trick 1 after a fris is
           free (seats asked before the fris may not beat it with a filcău), trick 1 led with
           a four-binder's farbă is won by that suit alone, and trick 2's leader leads a plain
           card when it holds one.

**Duplicate unit**: option ``deal = 1`` plays one deal from equal teams (redeals included);
its scores are that deal's points.

>>> from levata.engine import game
>>> state = game("filcau").new_match(players=4, options={"dealer": 0}, seed=3)
>>> state.view(3).phase, state.to_act()
('cut', (3,))
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Mapping, Sequence
from typing import Any, Self

from levata.engine import actions, events, phases
from levata.engine.cards import Card, Suit
from levata.engine.contract import (
    Action,
    BadConfig,
    GameSpec,
    Option,
    Result,
    SeatView,
)
from levata.engine.deal import shuffled
from levata.engine.evidence import Evidence
from levata.engine.family.tricks import PLAY, TrickGame
from levata.engine.fields import Counter, Fact, Kept, Seats
from levata.engine.games.filcau import rules as fr
from levata.engine.games.filcau.rules import (
    EGAL,
    LOW_NAMES,
    PLAYERS,
    SEF,
    SLUGA,
    SUITS,
    TARGET,
    TEAMS,
    binding_value,
    closed,
    fris_cards,
    fris_trump,
    is_filcau,
    next_dealer,
    partner,
    statuses_after,
    trump_power,
)
from levata.engine.games.filcau.table import (
    BIND,
    CLOSED,
    CUT,
    FARBA,
    FRIS,
    KNOCK,
    PATRU,
    REDEAL,
    TREI,
    TRUMP,
    narrate,
    trick_rules,
)
from levata.engine.registry import register
from levata.engine.rules import TrickRules
from levata.engine.zones import described as zone_names
from levata.engine.zones import without

__all__ = ["SPEC", "FilcauState", "narrate", "trick_rules"]


def _card(text: str | None) -> Card | None:
    return None if text is None else Card.parse(text)


def _low_name(low: int | None) -> str | None:
    return None if low is None else LOW_NAMES[low]


def _low_of(name: str | None) -> int | None:
    return None if name is None else LOW_NAMES.index(name)


class FilcauState(TrickGame):
    """A Filcău match (to 11, or one deal): the card play is the trick base's."""

    def __init__(
        self,
        spec: GameSpec,
        players: int,
        options: dict[str, Any],
        seed: int,
        deal: Sequence[Card] | None = None,
    ) -> None:
        super().__init__(spec, players, options, seed)
        if players != PLAYERS:
            raise BadConfig("Filcău is played at 4 seats (two_player: one person per team)")
        self.deck = fr.deck()
        if deal is not None and sorted(deal) != sorted(self.deck):
            raise BadConfig("the deal must be the 20-card deck")
        chosen = options["dealer"]
        if chosen >= players:
            raise BadConfig(f"option dealer: seat {chosen} does not exist")
        self.dealer = chosen if chosen >= 0 else self.rng.randrange(players)
        self.max_deals = options["max_deals"]
        self.scores = [0, 0]
        self.status = [EGAL, EGAL]
        self.deal_no = 0
        self.deal_log: list[dict[str, Any]] = []
        self._settle()
        self._start_deal(list(deal) if deal is not None else None)

    # -- what follows from the options ---------------------------------------------------------

    def _settle(self) -> None:
        o = self.options
        self.deck = fr.deck()
        self.single = o["deal"] > 0
        self.two_player = bool(o["two_player"])
        self.winner: int | None = None
        if self.over and self.scores[0] != self.scores[1]:
            self.winner = 0 if self.scores[0] > self.scores[1] else 1
        if not hasattr(self, "deal_log"):
            self.deal_log = []

    @property
    def cutter(self) -> int:
        """The seat on the dealer's right (before it in play order) cuts."""
        return (self.dealer - 1) % PLAYERS

    @property
    def strain(self) -> str | None:
        return self.trump.letter if self.trump is not None else None

    def deal_order(self) -> list[int]:
        """next(D), next²(D), next³(D), D: who gets cards, is asked and binds first."""
        return [(self.dealer + k) % PLAYERS for k in range(1, PLAYERS + 1)]

    # -- card play -----------------------------------------------------------------------------

    def card_rules(self) -> TrickRules:
        """Follow, else trump, no duty to overtrump [D11]; trick 1 after a fris or led with
        the farbă has its own duties and winner."""
        return self.rules_of_trick(len(self.played))

    def rules_of_trick(self, played: int) -> TrickRules:
        """The rules of this deal's trick that starts after ``played`` cards: trick 1 after a
        fris, or led by a four-binder with his farbă, has its own."""
        if self.trump is None:
            return trick_rules(None)
        slot = self.trump.slot
        if played == 0:
            if self.fris_card is not None:
                return trick_rules(slot, "fris")
            cards = self.played or self.trick
            if cards and self.bound == 4 and self._plain(cards[0]):
                return trick_rules(slot, "farba")
        return trick_rules(slot)

    def _plain(self, card: Card) -> bool:
        return not is_filcau(card) and card.suit != self.trump

    def narrow_play(self, seat: int, cards: list[Card]) -> list[Card]:
        if self.played == [] and self.fris_card is not None:
            if seat in self.earlier and seat not in self.exempt:  # rule 3: no overtaking
                f = trump_power(self.fris_card)
                return [c for c in cards if not (is_filcau(c) and trump_power(c) > f)]
            return cards
        if not self.played and self.trick and self.rules.trump is None:
            return self._farba_duty(cards)
        if len(self.played) == PLAYERS and not self.trick:  # rule 6: trick 2's lead
            return [c for c in cards if self._plain(c)] or cards
        return cards

    def _farba_duty(self, cards: list[Card]) -> list[Card]:
        """Trick 1 led with the farbă [D6]: its suit; else a small plain card (K, J); else a
        big plain card (A, 10) or a filcău; else anything (trumps)."""
        led = self.trick[0].suit
        if any(self._plain(c) and c.suit == led for c in cards):
            return cards
        small = [c for c in cards if self._plain(c) and c.rank in (11, 13)]
        if small:
            return small
        return [c for c in cards if self._plain(c) or is_filcau(c)] or cards

    def play_card(self, seat: int, card: Card) -> None:
        if len(self.played) == PLAYERS and not self.trick and not self._plain(card):
            plain = {s.slot for s in SUITS if s != self.trump}
            self.voids[seat] |= plain  # trick 2 led with a trump: it holds no plain card
        first_lead = not self.played and not self.trick
        super().play_card(seat, card)
        if first_lead and self.phase == PLAY:
            self._rules_changed()  # the farbă's trick, once its lead is known

    def _after_trick(self, winner: int) -> None:
        if len(self.played) == PLAYERS:
            self._rules_changed()  # trick 1's own rules are over

    # -- the deal ------------------------------------------------------------------------------

    def _start_deal(self, order: list[Card] | None) -> None:
        self.deal_no += 1
        deck = order if order is not None else shuffled(self.deck, self.rng)
        self._clear_deal(self.cutter, deck)  # every card back into the undealt pile
        self.set_trump(None)
        self.calls_made: list[list[Any]] = []  # [seat, call, low]: the fris and binding calls
        self.cut: str | None = None
        self.binder: int | None = None
        self.bound = 0  # 3 or 4: the best binding's count
        self.low: int | None = None  # its lowest trump's power, once public
        self.hidden_low: int | None = None  # an uncontested farbă's, seen by its binder
        self.fris_card: Card | None = None
        self.earlier: list[int] = []  # seats asked before the fris-maker
        self.exempt: list[int] = []  # of those, seats whose first cards were three filcăi
        self.turn = self.cutter
        self.phase = CUT
        self._emit(
            events.DEAL,
            deal=self.deal_no,
            dealer=self.dealer,
            cutter=self.cutter,
            status=list(self.status),
        )
        self.show_hands()  # nothing yet: the deal's hand events start here

    def _deal_packets(self, size: int) -> None:
        """Each seat in deal order gets its next ``size`` cards. The deck's ``5k..5k+4`` are
        the k-th seat's five cards whether the cutter cuts or knocks: the cut only decides
        whether the first three come before the fris window."""
        left = len(self.undealt) // PLAYERS
        packets = [self.undealt[k * left : k * left + size] for k in range(PLAYERS)]
        for seat, packet in zip(self.deal_order(), packets, strict=True):
            self.move(packet, "undealt", f"hand:{seat}")
        self.show_hands()

    def seats_to_call(self) -> tuple[int, ...]:
        if self.phase in (CUT, FRIS, BIND, TRUMP):
            return (self.turn,)
        return ()

    def calls(self, seat: int) -> list[Action]:
        hand = self.hands[seat]
        if self.phase == CUT:
            return [Action(CUT), Action(KNOCK)]
        if self.phase == FRIS:
            return [*(Action(FRIS, card=f) for f in fris_cards(hand)), Action(actions.PASS)]
        if self.phase == BIND:
            if closed(hand):
                return [Action(CLOSED)]
            binds = [Action(BIND, choice=s.letter) for s in SUITS if self._can_bind(hand, s)]
            return [*binds, Action(actions.PASS)]
        if self.phase == TRUMP:
            value = (self.bound, self.best_low())
            named = [s for s in SUITS if binding_value(hand, s) == value]
            # A world rebuilt for another seat may give the binder a hand that fits no call:
            # it names any suit there (never in a real match: the hand did not change).
            return [Action(TRUMP, choice=s.letter) for s in named or SUITS]
        return []

    def _can_bind(self, hand: Sequence[Card], suit: Suit) -> bool:
        value = binding_value(hand, suit)
        if value is None:
            return False
        if self.binder is None:
            return True
        count, low = value
        if count != self.bound:
            return count > self.bound
        if self.low is None:  # a hidden farbă: any four may challenge it
            return True
        return low > self.low

    def best_low(self) -> int:
        """The best binding's lowest trump (an unseen farbă's, in a world rebuilt for another
        seat, read off the binder's hand there)."""
        if self.low is not None:
            return self.low
        if self.hidden_low is not None:
            return self.hidden_low
        assert self.binder is not None
        lows = [v[1] for s in SUITS if (v := binding_value(self.hands[self.binder], s))]
        return max(lows, default=0)

    def _make_call(self, seat: int, action: Action) -> None:
        kind = action.kind
        if kind in (CUT, KNOCK):
            self.cut = kind
            self._emit(CUT, seat=seat, choice=kind)
            self._deal_packets(fr.FIRST_PACKET if kind == CUT else fr.HAND)
            self.phase = FRIS if kind == CUT else BIND
            self.turn = self.deal_order()[0]
        elif kind == FRIS and action.card is not None:
            self._fris(seat, action.card)
        elif kind == TRUMP and action.choice:
            self.set_trump(Suit.parse(action.choice))
            self._emit(TRUMP, seat=seat, trump=action.choice, binding=self.bound)
            self.phase, self.leader = PLAY, seat
        else:
            if kind == BIND and action.choice:
                self._bind(seat, Suit.parse(action.choice))
            else:
                call = CLOSED if kind == CLOSED else actions.PASS
                self.calls_made.append([seat, call, None])
                self._emit(call, seat=seat, phase=self.phase)
            self._next_caller(seat)

    def _fris(self, seat: int, card: Card) -> None:
        """The first fris: its card leads trick 1 and names the trump; then the rest is
        dealt."""
        trump = fris_trump(self.hands[seat])
        assert trump is not None
        self.binder, self.fris_card = seat, card
        self.earlier = [s for s, _, _ in self.calls_made]
        self.calls_made.append([seat, FRIS, None])
        top = set(fr.FILCAI[:3])
        if card == fr.FILCAI[3]:  # rule 3's exception: three filcăi over the lowest one
            self.exempt = [s for s in self.earlier if set(self.hands[s]) == top]
        self.set_trump(trump)
        self.phase, self.leader = PLAY, seat
        self.play_card(seat, card)
        self._emit(FRIS, seat=seat, cards=(card,), trump=trump.letter)
        self._deal_packets(fr.HAND - fr.FIRST_PACKET)

    def _bind(self, seat: int, suit: Suit) -> None:
        value = binding_value(self.hands[seat], suit)
        assert value is not None
        count, low = value
        shown: dict[str, Any] = {}
        if count == 3:
            call = TREI
            self.binder, self.bound, self.low = seat, 3, low
            shown["low"] = LOW_NAMES[low]
        elif self.bound == 4:  # a challenge: both lows are told
            call = PATRU
            standing = self.best_low()
            shown.update(low=LOW_NAMES[low], against=LOW_NAMES[standing])
            if low > standing:
                self.binder = seat
            self.low, self.hidden_low = max(low, standing), None
        else:
            call = FARBA
            self.binder, self.bound, self.low, self.hidden_low = seat, 4, None, low
        self.calls_made.append([seat, call, shown.get("low")])
        self._emit(BIND, seat=seat, call=call, best=self.binder, **shown)

    def _next_caller(self, seat: int) -> None:
        if seat != self.dealer:  # the dealer is asked last
            self.turn = (seat + 1) % PLAYERS
        elif self.phase == FRIS:  # nobody showed a filcău: the rest is dealt, then binding
            self._deal_packets(fr.HAND - fr.FIRST_PACKET)
            self.phase, self.turn = BIND, self.deal_order()[0]
        elif self.binder is None:  # nobody bound: the same dealer deals again [D3]
            self._emit(REDEAL, deal=self.deal_no, dealer=self.dealer)
            self._next_deal()
        else:
            self.phase, self.turn = TRUMP, self.binder

    # -- the score -----------------------------------------------------------------------------

    def _score_deal(self) -> None:
        points = [sum(self.card_points(s) for s in (t, t + 2)) for t in (0, 1)]
        tricks = [self.team_tricks(t) for t in (0, 1)]
        assert self.binder is not None
        bound_team = TEAMS[self.binder]
        gained = [0, 0]
        huda = next((t for t in (0, 1) if tricks[t] == fr.HAND), None)
        if huda is not None:  # all five tricks: chief at once, 2 points, nothing else [D7]
            self.status = [SEF, SLUGA] if huda == 0 else [SLUGA, SEF]
            gained[huda] = fr.HUDA_POINTS
            if bound_team != huda:
                gained[bound_team] = fr.HUDA_BOUND
        else:
            self.status = statuses_after(self.status, points)
            gained = [1 if s == SEF else 0 for s in self.status]  # after the change [D8]
        self.scores = [s + g for s, g in zip(self.scores, gained, strict=True)]
        record: dict[str, Any] = {
            "deal": self.deal_no,
            "dealer": self.dealer,
            "binder": self.binder,
            "fris": self.fris_card is not None,
            "trump": self.strain,
            "points": points,
            "tricks": tricks,
            "huda": huda,
            "status": list(self.status),
            "gained": gained,
            "totals": list(self.scores),
        }
        self.deal_log.append(record)
        self._emit(events.SCORE, **record)
        if max(self.scores) >= TARGET or self.single:
            self._end()
            return
        self.dealer = next_dealer(self.dealer, self.status)
        self._next_deal()

    def _next_deal(self) -> None:
        if self.deal_no >= self.max_deals:  # [D14]
            self._end()
            return
        self._start_deal(None)

    def _end(self) -> None:
        a, b = self.scores
        self.winner = None if a == b else (0 if a > b else 1)
        self.over, self.phase = True, phases.OVER
        res = self.result()
        self._emit(
            events.END, scores=list(res.scores), winners=list(res.winners), reason=res.reason
        )

    def _seat_scores(self) -> tuple[float, ...]:
        return tuple(float(self.scores[TEAMS[s]]) for s in range(PLAYERS))

    def result(self) -> Result:
        if not self.over:
            raise RuntimeError("the match is not over")
        ranks = tuple(1 + (self.scores[1 - TEAMS[s]] > self.scores[TEAMS[s]]) for s in range(4))
        winners = tuple(s for s in range(4) if self.winner is None or TEAMS[s] == self.winner)
        complete = self.single or max(self.scores) >= TARGET
        return Result(
            scores=self._seat_scores(),
            ranks=ranks,
            winners=winners,
            deals=tuple(self.deal_log),
            reason="complete" if complete else "max_deals",
        )

    # -- what a seat may know ------------------------------------------------------------------

    #: The base's places but the turned trump: Filcău's trump is named, never turned.
    # Two-player mode: a person sees its partner's hand too.
    PLACES = (
        dataclasses.replace(TrickGame.PLACES[0], seen="_hand_seen_by"),
        *without(TrickGame.PLACES, "hand", "trump"),
    )

    FIELDS = (
        *TrickGame.FIELDS,
        Counter("deal", "the deal in progress, from 1 (a redeal counts)", attr="deal_no"),
        Counter("max_deals", "deals (redeals included) after which the match ends at the latest"),
        Counter("dealer", "the seat that deals this deal", seat=True),
        Counter("cutter", "the seat that cuts or knocks: the one before the dealer", derived=True),
        Seats(
            Counter(
                "team_score",
                "the team's total so far (team 0: seats 0 and 2, team 1: seats 1 and 3)",
                attr="scores",
            ),
            count="team",
        ),
        Fact("status", "each team's status: sluga (servant), egal (equal) or sef (chief)"),
        Fact(
            "strain",
            "the trump named: C, D, H or S, or NT for no trump; null before it is named"
            " (Filcău always names a suit)",
            derived=True,
        ),
        Fact("cut", "the cutter's choice this deal: cut (3 + 2 cards) or knock (5); null before"),
        Fact(
            "calls",
            "this deal's fris and binding calls in order: [seat, call, low]; call pass, fris,"
            " inchis, trei (low told), farba (low hidden) or patru (low told)",
            attr="calls_made",
        ),
        Counter(
            "binder",
            "the seat holding the best binding so far, or the fris-maker (-1: none)",
            none=-1,
            seat=True,
        ),
        Counter(
            "binding",
            "the best binding's count of trumps: 3 or 4 (0: none, or a fris)",
            attr="bound",
        ),
        Fact(
            "low",
            "the best binding's lowest trump once told (J, K, 10, A, QD, QH, QC, QS); null"
            " while none, or for a farbă not challenged",
            show=_low_name,
            read=_low_of,
        ),
        Fact(
            "fris",
            "the filcău shown by the fris-maker (the first card of trick 1), or null",
            attr="fris_card",
            show=lambda c: None if c is None else str(c),
            read=_card,
        ),
        Fact(
            "earlier",
            "the seats asked before the fris-maker: on trick 1 they may not play a filcău"
            " above the fris card",
            seats=True,
        ),
        Kept("turn", "the seat whose call it is", seats=True),
        Kept("hidden_low", "an unchallenged farbă's lowest trump (its binder sees it)"),
        Kept("exempt", "earlier seats whose first three cards were the three top filcăi"),
    )

    def _view_facts(self, seat: int) -> dict[str, Any]:
        facts = super()._view_facts(seat)
        if self.hidden_low is not None and seat in self._controllers(self.binder):
            facts["farba_low"] = LOW_NAMES[self.hidden_low]
        return facts

    def _controllers(self, seat: int | None) -> tuple[int, ...]:
        """The seats whose person sees ``seat``'s cards: itself, and in two-player mode its
        partner too."""
        if seat is None:
            return ()
        return (seat, partner(seat)) if self.two_player else (seat,)

    def _hand_seen_by(self, seat: int) -> frozenset[int]:
        return frozenset(self._controllers(seat))

    def _view_scores(self) -> tuple[float, ...]:
        return self._seat_scores()

    # -- a world rebuilt from a view -----------------------------------------------------------

    def _after_restore(self, view: SeatView) -> None:
        self.turn = view.to_act[0] if view.to_act else self.cutter
        self.hidden_low = _low_of(view.facts.get("farba_low"))
        self.deal_log = [dict(ev.data) for ev in view.history if ev.kind == events.SCORE]
        self.exempt = []
        if self.fris_card == fr.FILCAI[3] and view.seat in self.earlier:
            three = self._first_three(view)
            if set(three) == set(fr.FILCAI[:3]):
                self.exempt = [view.seat]

    @staticmethod
    def _first_three(view: SeatView) -> tuple[Card, ...]:
        """The seat's first packet this deal, from its own hand events."""
        start = max((i for i, ev in enumerate(view.history) if ev.kind == events.DEAL), default=0)
        packets = [ev.cards for ev in view.history[start:] if ev.kind == events.HAND]
        return next((p for p in packets if len(p) == fr.FIRST_PACKET), ())

    @classmethod
    def from_view(
        cls, spec: GameSpec, view: SeatView, rng: random.Random, evidence: Evidence | None = None
    ) -> Self:
        """The base's world, then what the seat cannot see of the other seats' calls read off
        their hands there: an unseen farbă's low, and whether an earlier seat held the three
        top filcăi (so it may overtake a Q♦ fris) when it holds them now."""
        world = super().from_view(spec, view, rng, evidence)
        if world.hidden_low is None and world.low is None and world.bound == 4:
            world.hidden_low = world.best_low()
        if world.fris_card == fr.FILCAI[3] and not world.played:
            top = set(fr.FILCAI[:3])
            others = [s for s in world.earlier if s != view.seat]
            world.exempt = [*world.exempt, *(s for s in others if top <= set(world.hands[s]))]
        return world


VOCABULARY = FilcauState.vocabulary(
    choices={BIND: tuple(s.letter for s in SUITS), TRUMP: tuple(s.letter for s in SUITS)},
    phases={
        CUT: "the seat before the dealer cuts (3 cards each, a fris window, 2 more) or knocks"
        " (5 cards each)",
        FRIS: "after a cut, each seat in deal order may fris: show a filcău its three cards"
        " allow, naming the trump and leading trick 1 with it",
        BIND: "one lap in deal order: bind a suit (a filcău and 3 or 4 trumps), pass, or"
        " inchis (five trumps)",
        TRUMP: "the best binder names a suit of the value it called",
        PLAY: "the cards are played to five tricks",
        phases.OVER: "the match is over",
    },
    zones={
        **zone_names(FilcauState.PLACES)[0],
        "hand:SEAT": "two-player mode: your partner's hand, which you hold too",
    },
    facts={"farba_low": "your unchallenged farbă's lowest trump (you are its binder)"},
    actions={
        CUT: "cut: 3 cards each, then the fris window, then 2 more",
        KNOCK: "knock: 5 cards each, no fris",
        FRIS: "show the filcău `card` (your three cards allow it): it names the trump and leads"
        " trick 1",
        actions.PASS: "no fris, or no binding",
        BIND: "bind the suit `choice` (C, D, H, S): your filcăi and cards of it are 3, or 4"
        " beside a card that is no ace; it must beat the best binding so far",
        CLOSED: "închis: you hold five trumps for a suit and may not bind",
        TRUMP: "name the trump `choice` (C, D, H, S): a suit of the value you called",
        actions.PLAY: "play `card` to the trick",
    },
    events={
        events.DEAL: "a deal begins: `data.deal`, `dealer`, `cutter`, `status` (your hand is"
        " empty until the cards come)",
        CUT: "`seat` cut or knocked: `data.choice`",
        FRIS: "`seat` made a fris with `cards` (the first card of trick 1): `data.trump`",
        events.PASS: "`seat` passed (`data.phase`: fris or bind)",
        BIND: "`seat` bound: `data.call` (trei, farba, patru), `low` (told for trei and patru),"
        " `against` (the farbă's low it challenged), `best` (who holds the best binding now)",
        CLOSED: "`seat` said închis (five trumps) (`data.phase`)",
        TRUMP: "the binder `seat` named `data.trump` (`binding`: its count)",
        REDEAL: "nobody bound: the same dealer deals again (`data.deal`, `dealer`)",
        events.SCORE: "a deal is scored: `data.deal`, `dealer`, `binder`, `fris`, `trump`,"
        " per team `points` (aces and tens), `tricks`, `huda` (the team that took all five,"
        " or null), `status`, `gained`, `totals`",
        events.END: "the match is over: `data.scores`, `winners`, `reason` (complete, or"
        " max_deals)",
    },
)


def partnerships(players: int) -> tuple[tuple[int, ...], ...]:
    """The spec's ``teams`` trait: partners sit opposite.

    >>> partnerships(4)
    ((0, 2), (1, 3))
    """
    return ((0, 2), (1, 3))


def players_of(options: Mapping[str, Any], players: int) -> tuple[tuple[int, ...], ...]:
    """The spec's ``held_together`` trait: with ``two_player`` one person holds a team.

    >>> players_of({"two_player": True}, 4), players_of({"two_player": False}, 4)
    (((0, 2), (1, 3)), ())
    """
    return partnerships(players) if options.get("two_player") else ()


SPEC = register(
    GameSpec(
        name="filcau",
        title="Filcău",
        players=(PLAYERS,),
        summary="Two teams, 20 cards, four queens over the trumps; bind or fris; first to 11.",
        options=(
            Option(
                "max_deals",
                300,
                "deals (redeals included) after which the higher total wins",
                minimum=1,
            ),
            Option(
                "deal",
                0,
                "0 plays the match; 1 plays one deal from equal teams (the duplicate unit)",
                minimum=0,
                maximum=1,
            ),
            Option("dealer", -1, "the first dealer (-1: drawn from the seed)", minimum=-1),
            Option(
                "two_player",
                False,
                "two players: each controls both seats of a team and sees both hands",
            ),
        ),
        factory=FilcauState,
        short_options={"max_deals": 6},
        teams=partnerships,
        held_together=players_of,
        duplicate_unit="deal",
        narrate=narrate,
        vocabulary=VOCABULARY,
        bots={
            "heuristic": "levata.bots.heuristic.filcau:HeuristicBot",
            "pimc": "levata.bots.search.pimc:PimcBot",
        },
        strategy="levata.bots.strategy.filcau:FilcauStrategy",
    )
)
