"""3-5-8: three players, targets of 8, 5 and 3 tricks that rotate, five contracts per seat,
and the tricks over and under target paid back by drawing cards
(``docs/games/three-five-eight.md``).

A **deal** runs through these phases (each skipped when it has nothing to do):

``announce``  the 8-seat names a contract it has not used (a trump suit or no-trump) or, while
              it has Pas left, ``pas``: the cards are dealt again, same targets, credits kept.
``kitty``     the 8-seat is offered the four kitty cards one at a time: ``swap`` one of its
              own cards for it, or ``keep`` it face down. Always four decisions, so how many
              it swapped (k) stays its own [D3].
``draw``      (not under no-trump [D8]) each seat with credit, the higher target first [D4],
              draws once per unit of credit from an opponent in debt in a suit it holds, or
              stops; its lowest card of the suit goes over, the opponent's highest comes back
              [D5]; only the two seats see the suit and the cards [D6].
``play``      the 8-seat leads; follow suit if you can, else any card [D7]; 16 tricks.

Score: ``tricks - target`` each deal, added up; then the targets rotate (the 5-seat plays for
8 next). A match is 15 counted deals (a Pas deal does not count); the highest total wins.

Decisions beyond the rules' [D1]..[D9] (all implemented as written):

* **The kitty swap** is four ``swap``/``keep`` decisions, one per kitty card in a fixed order
  (sorted), each swap replacing that kitty card by a card of the 8-seat's own hand (never a
  card it took from the kitty: that would be no swap). Any k of 0..4 can be made, and the
  table sees four decisions whatever k is.
* **A forced announcement** (one contract left, no Pas) is still asked, with one legal action.
* **A drawer with credit but no opponent left in debt** loses its remaining credit (with the
  row summing to 0 this cannot happen after a real deal, only with a made-up ``previous``).
* **Duplicate unit**: option ``deal`` = k (1..15) makes a match counted deal k alone, its
  8-seat and the contracts used before it made up from the seed
  (:func:`~levata.engine.games.three_five_eight.rules.made_up_history`); no credits are
  carried unless ``previous`` gives the deal before's ``tricks - target`` row. Every seating
  of a duplicate board shares the seed, so each entry meets the same deal in every seat.

>>> from levata.engine import game
>>> state = game("three-five-eight").new_match(players=3, options={"first": 1}, seed=3)
>>> state.view(0).phase, state.to_act(), len(state.view(0).hand)
('announce', (1,), 16)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from levata.engine import events, phases
from levata.engine.cards import Card, Suit, french_deck
from levata.engine.contract import (
    Action,
    BadConfig,
    Event,
    GameSpec,
    Option,
    Result,
    SeatView,
)
from levata.engine.deal import shuffled
from levata.engine.family import quotas as quota_family
from levata.engine.family.tricks import PLAY, TrickGame
from levata.engine.fields import Counter, Fact, Kept, Seats
from levata.engine.games.three_five_eight import rules as tr
from levata.engine.games.three_five_eight.worlds import ThreeFiveEightWorlds
from levata.engine.registry import register
from levata.engine.rules import TrickRules
from levata.engine.zones import Place, without

__all__ = ["SPEC", "ThreeFiveEightState", "draw_choice"]

ANNOUNCE, KITTY, DRAW_PHASE = "announce", "kitty", "draw"
#: Actions (``contract``, ``pas``, ``swap``, ``keep``, ``draw``, ``stop``); the events of the
#: same names record them.
CONTRACT, PAS, SWAP, KEEP, DRAW, STOP = "contract", "pas", "swap", "keep", "draw", "stop"
#: Events of its own beyond those: the kitty swap is over; the cards of a draw (to its pair).
KITTY_DONE, DRAWN = "kitty_done", "drawn"


def draw_choice(opponent: int, suit: Suit | str) -> str:
    """The ``choice`` of a ``draw`` action: the opponent's seat and the suit's letter.

    >>> draw_choice(2, Suit.HEARTS), Action.parse("draw " + draw_choice(0, "S")).choice
    ('2:H', '0:S')
    """
    letter = suit.letter if isinstance(suit, Suit) else suit
    return f"{opponent}:{letter}"


def _parse_draw(choice: str) -> tuple[int, Suit]:
    seat, _, letter = choice.partition(":")
    return int(seat), Suit.parse(letter)


class ThreeFiveEightState(ThreeFiveEightWorlds):
    """A 3-5-8 match (15 counted deals, or one): the trick play is :class:`TrickGame`'s."""

    def __init__(
        self,
        spec: GameSpec,
        players: int,
        options: dict[str, Any],
        seed: int,
        deal: Sequence[Card] | None = None,
    ) -> None:
        super().__init__(spec, players, options, seed)
        if players != tr.PLAYERS:
            raise BadConfig("3-5-8 is played by exactly 3 players")
        self.deck = french_deck()
        order = self._check_order(deal)
        chosen = options["first"]
        if chosen >= players:
            raise BadConfig(f"option first: seat {chosen} does not exist")
        first = chosen if chosen >= 0 else self.rng.randrange(players)  # the lot [D1]
        single = options["deal"]
        self.single = single > 0
        self.last_deal = single if self.single else options["deals"]
        self.counted = single - 1 if self.single else 0  # counted deals already behind
        self.eight = (first + self.counted) % players
        self.used = tr.made_up_history(first, single, self.rng) if self.single else [[], [], []]
        self.pas_used = [0] * players
        previous = quota_family.parse_row(options["previous"], players, "previous")
        if previous is not None and sum(previous) != 0:
            raise BadConfig("option previous: a deal's row sums to 0")
        prev = previous or [0] * players
        self.credit = [max(0, d) for d in prev]
        self.debt = [max(0, -d) for d in prev]
        self.scores = [0] * players
        self.dealt = 0  # deals so far, Pas redeals included
        self._start_deal(order)

    def card_rules(self) -> TrickRules:
        """Follow suit if you can, else any card: no duty to trump [D7]."""
        return TrickRules(self.players, self.trump)

    @property
    def target(self) -> list[int]:
        return tr.targets(self.eight)

    @property
    def deal_no(self) -> int:
        """The counted deal in progress, from 1 (what views and positions call ``deal``)."""
        return self.counted + 1

    @deal_no.setter
    def deal_no(self, value: int) -> None:
        self.counted = value - 1

    @property
    def pas_lefts(self) -> list[int]:
        """Per seat, the times it may still say Pas (views and positions count down)."""
        return [self.pas_left(s) for s in range(self.players)]

    @pas_lefts.setter
    def pas_lefts(self, left: list[int]) -> None:
        self.pas_used = [self.options["max_pas"] - n for n in left]

    # -- M0: the deal --------------------------------------------------------------------------

    def _start_deal(self, order: list[Card] | None) -> None:
        self.dealt += 1
        deck = order if order is not None else shuffled(self.deck, self.rng)
        rest = self.deal_round_robin(deck, self.eight, tr.HAND_SIZE)
        self.move(sorted(rest[: tr.KITTY]), "undealt", "kitty")
        self.from_kitty: set[Card] = set()  # kitty cards the 8-seat took (not to give back)
        self.step = 0  # the kitty card offered
        self.contract: str | None = None
        self.set_trump(None)
        self.queue: list[int] = []  # the drawers, in order
        self.draws: list[tuple[int, int]] = []  # (drawer, opponent) of this deal
        self.phase = ANNOUNCE
        self._emit(
            events.DEAL,
            deal=self.counted + 1,
            dealt=self.dealt,
            size=tr.HAND_SIZE,
            first=self.eight,
            targets=self.target,
            credits=list(self.credit),
            debts=list(self.debt),
        )
        self.show_hands()

    # -- whose turn and what is legal ----------------------------------------------------------

    def seats_to_call(self) -> tuple[int, ...]:
        if self.phase in (ANNOUNCE, KITTY):
            return (self.eight,)
        if self.phase == DRAW_PHASE:
            return (self.queue[0],)
        return ()

    def pas_left(self, seat: int) -> int:
        return self.options["max_pas"] - self.pas_used[seat]

    def calls(self, seat: int) -> list[Action]:
        if self.phase == ANNOUNCE:
            out = []
            for c in tr.contract_options(self.used[seat], self.pas_left(seat)):
                out.append(Action(PAS) if c == "pas" else Action(CONTRACT, choice=c))
            return out
        if self.phase == KITTY:
            own = [c for c in sorted(self.hands[seat]) if c not in self.from_kitty]
            return [Action(SWAP, card=c) for c in own] + [Action(KEEP)]
        if self.phase == DRAW_PHASE:
            suits = sorted({c.suit for c in self.hands[seat]})
            return [
                Action(DRAW, choice=draw_choice(o, s)) for o in self.debtors(seat) for s in suits
            ] + [Action(STOP)]
        return []

    def debtors(self, seat: int) -> list[int]:
        """The opponents of ``seat`` still in debt (whom it may draw from)."""
        return [o for o in range(self.players) if o != seat and self.debt[o] > 0]

    def _make_call(self, seat: int, action: Action) -> None:
        kind = action.kind
        if kind == CONTRACT:
            self._announce(seat, action.choice or "")
        elif kind == PAS:
            self._pas(seat)
        elif kind in (SWAP, KEEP):
            self._kitty_step(seat, action.card)
        elif kind == DRAW:
            self._draw(seat, *_parse_draw(action.choice or ""))
        elif kind == STOP:
            self.credit[seat] = 0  # the rest of its credit is forfeited
            self._emit(STOP, seat=seat)
            self._next_drawer()

    # -- M1: the announcement ------------------------------------------------------------------

    def _announce(self, seat: int, contract: str) -> None:
        self.contract = contract
        self.used[seat].append(contract)
        self.set_trump(tr.trump_of(contract))
        self._emit(CONTRACT, seat=seat, contract=contract)
        self.phase, self.step = KITTY, 0

    def _pas(self, seat: int) -> None:
        self.pas_used[seat] += 1
        self._emit(PAS, seat=seat)
        self._start_deal(None)  # same targets, credits and debts kept, not counted

    # -- M2: the kitty -------------------------------------------------------------------------

    def _kitty_step(self, seat: int, card: Card | None) -> None:
        offered = self.kitty[self.step]
        if card is None:
            self._emit(KEEP, audience={seat}, seat=seat, cards=(offered,))
        else:
            self.move(offered, "kitty", f"hand:{seat}")
            self.move(card, f"hand:{seat}", "kitty", at=self.step)
            self.from_kitty.add(offered)
            self._emit(SWAP, audience={seat}, seat=seat, cards=(offered, card))
        self.step += 1
        if self.step < tr.KITTY:
            return
        self._emit(KITTY_DONE, seat=seat)
        if self.contract == tr.NO_TRUMP:  # D8: no draws, the credits are forfeited
            self.credit = [0] * self.players
            self.debt = [0] * self.players
        self.queue = tr.drawers(self.credit, self.target)
        self.phase = DRAW_PHASE
        self._next_drawer()

    # -- M3: the draws -------------------------------------------------------------------------

    def _draw(self, seat: int, opponent: int, suit: Suit) -> None:
        given, got = tr.draw_exchange(self.hands[seat], self.hands[opponent], suit)
        if given is not None and got is not None:  # DRAWN tells the two seats
            self.move(given, f"hand:{seat}", f"hand:{opponent}")
            self.move(got, f"hand:{opponent}", f"hand:{seat}")
        self.credit[seat] -= 1
        self.debt[opponent] -= 1
        self.draws.append((seat, opponent))
        self._emit(DRAW, seat=seat, opponent=opponent)
        moved = (given, got) if given is not None and got is not None else ()
        self._emit(
            DRAWN,
            audience={seat, opponent},
            seat=seat,
            cards=moved,
            opponent=opponent,
            suit=suit.letter,
        )
        self._next_drawer()

    def _next_drawer(self) -> None:
        """The seat due to draw next, or the play when nobody is."""
        while self.queue:
            head = self.queue[0]
            if self.credit[head] > 0 and self.debtors(head):
                return
            self.credit[head] = 0  # nobody left in debt to draw from: the rest lapses
            self.queue.pop(0)
        self.phase = PLAY
        self.leader = self.eight

    # -- M5: the score -------------------------------------------------------------------------

    def _score_deal(self) -> None:
        row = quota_family.results(self.tricks, self.target)
        self.scores = [a + b for a, b in zip(self.scores, row, strict=True)]
        self.credit, self.debt = quota_family.carried(self.tricks, self.target)
        self.counted += 1
        record: dict[str, Any] = {
            "deal": self.counted,
            "eight": self.eight,
            "contract": self.contract,
            "targets": self.target,
            "tricks": list(self.tricks),
            "points": row,
            "totals": list(self.scores),
        }
        self._scored(record)
        if self.counted >= self.last_deal:
            self._end()
            return
        self.eight = tr.next_eight(self.eight)
        self._start_deal(None)

    def _result(self) -> Result:
        pts = self.scores
        return Result(
            scores=tuple(float(p) for p in pts),
            ranks=tuple(1 + sum(1 for o in pts if o > p) for p in pts),
            winners=tr.winners(pts),
            deals=tuple(self.deal_log),
        )

    # -- what a seat may know ------------------------------------------------------------------

    def _kitty_seen_by(self, _: int | None = None) -> frozenset[int]:
        """The 8-seat sees the kitty once it has announced; nobody ever sees the final kitty."""
        return frozenset() if self.phase == ANNOUNCE else frozenset({self.eight})

    PLACES = (
        *without(TrickGame.PLACES, "trump"),  # trump is named, never turned
        Place(
            "kitty",
            "the four kitty cards, in their fixed order (the 8-seat alone sees them, from"
            " its announcement on)",
            seen="_kitty_seen_by",
            counted="cards in the kitty (always 4)",
        ),
    )

    FIELDS = (
        *TrickGame.FIELDS,
        Counter("eight", "the seat playing for 8 tricks this deal (it announces and leads)"),
        Counter(
            "deal",
            "the deal in progress, from 1; a Pas deal is dealt again and not counted",
            attr="deal_no",
        ),
        Counter("last_deal", "the counted deal after which the match ends (15 for a whole match)"),
        Counter("dealt", "deals so far, Pas redeals included"),
        Counter("step", "the kitty card offered (its place in `zones.kitty`), 0..3"),
        Seats(
            Counter("target", "tricks the seat plays for this deal (8, 5 or 3)", derived=True),
            Counter("credit", "draws the seat still has to make (tricks over its last target)"),
            Counter("debt", "draws the seat still has to answer (tricks under its last target)"),
            Counter("pas_left", "times the seat may still say Pas this match", attr="pas_lefts"),
            Counter("score", "the seat's total so far", attr="scores"),
        ),
        Fact(
            "strain",
            "the trump named: C, D, H or S, or NT for no trump; null before it is named (this"
            " deal's contract)",
            attr="contract",
        ),
        Fact("used", "per seat, the contracts it has used, in order"),
        Fact(
            "drawers",
            "the seats still to draw this deal, in order (the one at the head draws)",
            attr="queue",
        ),
        Fact(
            "draws",
            "the draws of this deal: [drawer, opponent]",
            read=lambda shown: [(a, b) for a, b in shown],
        ),
        Kept(
            "from_kitty",
            "the kitty cards the 8-seat took this deal (it may not give them back)",
            show=lambda cards: [str(c) for c in sorted(cards)],
            read=lambda shown: {Card.parse(c) for c in shown},
        ),
    )

    def _view_scores(self) -> tuple[float, ...]:
        return tuple(float(p) for p in self.scores)

    # -- a world rebuilt from a view -----------------------------------------------------------

    def _settle(self) -> None:
        self.deck = french_deck()
        self.single = self.options["deal"] > 0

    def _after_restore(self, view: SeatView) -> None:
        self.from_kitty = set()


def narrate(ev: Event) -> str | None:
    """Lines for 3-5-8's own event kinds.

    >>> narrate(Event(seq=1, kind="draw", seat=0, data={"opponent": 2}))
    'seat 0 draws a card from seat 2'
    """
    d, who = ev.data, f"seat {ev.seat}"
    if ev.kind == events.DEAL:
        return (
            f"-- deal {d['deal']} (dealt {d['dealt']}): seat {d['first']} plays for 8,"
            f" targets {d['targets']}, credits {d['credits']}"
        )
    if ev.kind == events.SCORE:
        parts = [
            f"seat {s}: {t}/{q} -> {p:+d} (total {tot})"
            for s, (t, q, p, tot) in enumerate(
                zip(d["tricks"], d["targets"], d["points"], d["totals"], strict=True)
            )
        ]
        return "   score (tricks/target): " + "; ".join(parts)
    if ev.kind == CONTRACT:
        return f"{who} announces {d.get('contract')}"
    if ev.kind == PAS:
        return f"{who} says Pas: the cards are dealt again"
    if ev.kind == SWAP:
        return f"   {who} takes {ev.cards[0]} from the kitty, puts {ev.cards[1]} there"
    if ev.kind == KEEP:
        return f"   {who} leaves {ev.cards[0]} in the kitty"
    if ev.kind == KITTY_DONE:
        return f"{who} has made its kitty swap"
    if ev.kind == DRAW:
        return f"{who} draws a card from seat {d.get('opponent')}"
    if ev.kind == DRAWN:
        moved = f"gives {ev.cards[0]}, gets {ev.cards[1]}" if ev.cards else "nothing moves"
        return f"   in {d.get('suit')}: {moved}"
    if ev.kind == STOP:
        return f"{who} stops drawing"
    return None


VOCABULARY = ThreeFiveEightState.vocabulary(
    # a draw names the opponent and the suit: SEAT:SUIT (3 seats)
    choices={
        CONTRACT: tuple(tr.CONTRACTS),
        DRAW: tuple(draw_choice(seat, suit) for seat in range(3) for suit in "CDHS"),
    },
    phases={
        ANNOUNCE: "the 8-seat names a contract it has not used, or says Pas (a redeal)",
        KITTY: "the 8-seat is offered the kitty cards one at a time (`counters.step`): swap one"
        " of its own cards for it, or keep it face down",
        DRAW_PHASE: "the seat at the head of `facts.drawers` draws once per unit of credit from"
        " an opponent in debt, or stops",
        PLAY: "the cards are played to tricks, the 8-seat leading the first",
        phases.OVER: "the match is over",
    },
    actions={
        CONTRACT: "name the contract `choice`: C, D, H, S (trump) or NT (no trump)",
        PAS: "say Pas: the cards are dealt again with the same targets",
        SWAP: "take the offered kitty card and put `card` (one of your own) in its place",
        KEEP: "leave the offered kitty card in the kitty",
        DRAW: "draw from opponent and suit `choice` (`SEAT:SUIT`, e.g. `2:H`): your lowest"
        " card of the suit goes over, its highest comes back",
        STOP: "draw no more this deal (the rest of your credit is lost)",
        "play": "play `card` to the trick: follow suit if you can, else any card",
    },
    events={
        events.DEAL: "a deal begins: `data.deal`, `dealt`, `size`, `first` (the 8-seat),"
        " `targets`, `credits`, `debts`",
        CONTRACT: "`seat` announced `data.contract`",
        PAS: "`seat` said Pas: the cards are dealt again",
        SWAP: "to the 8-seat: it took `cards[0]` from the kitty and put `cards[1]` there",
        KEEP: "to the 8-seat: it left `cards[0]` in the kitty",
        KITTY_DONE: "the 8-seat has finished with the kitty",
        DRAW: "`seat` drew from `data.opponent`",
        DRAWN: "to the drawer and its opponent: `data.suit`, and `cards` (the card given, the"
        " card got; none when the opponent had none of the suit)",
        STOP: "`seat` stopped drawing",
        events.SCORE: "a counted deal is scored: `data.deal`, `eight`, `contract`, `targets`,"
        " `tricks`, `points`, `totals`",
        events.END: "the match is over: `data.scores`, `winners`",
    },
)

SPEC = register(
    GameSpec(
        name="three-five-eight",
        title="3-5-8",
        players=(3,),
        summary="Make your 8, 5 or 3 tricks; tricks over and under are paid back by drawing cards.",
        options=(
            Option("max_pas", 1, "times each seat may say Pas in a match", minimum=0, maximum=5),
            Option(
                "deals",
                tr.MATCH_DEALS,
                "counted deals in the match (15: each contract once)",
                minimum=1,
                maximum=tr.MATCH_DEALS,
            ),
            Option(
                "deal",
                0,
                "0 plays the match; k >= 1 plays counted deal k alone (the duplicate unit)",
                minimum=0,
                maximum=tr.MATCH_DEALS,
            ),
            Option("first", -1, "the first 8-seat (-1: drawn from the seed)", minimum=-1),
            Option("previous", "", "tricks - target of the deal before, e.g. 2,-1,-1"),
        ),
        factory=ThreeFiveEightState,
        short_options={"deals": 3},
        duplicate_unit="deal",
        narrate=narrate,
        vocabulary=VOCABULARY,
        bots={
            "heuristic": "levata.bots.heuristic.three_five_eight:HeuristicBot",
            "pimc": "levata.bots.search.pimc:PimcBot",
        },
        strategy="levata.bots.strategy.three_five_eight:ThreeFiveEightStrategy",
    )
)
