"""Bestia (Fiara cu 5 cărți): 4 or 5 players each for himself, the 40-card Italian deck, a
pot that carries over, knocking, a change of cards, and duties to follow, trump, overtake
and make the pot sure (``docs/games/bestia.md``).

A hand, dealer ``D``, seats speaking and playing from ``next(D)``, ``D`` last:

``variant``  (tables that enabled variants) ``D`` picks one for this hand or ``none``.
``declare``  each seat once: ``knock`` (plays), ``fold`` (out of the hand), ``terzo``
             (option: plays only as one of three at most).
``change``   each participant ``discard``s up to five cards one at a time, then ``done``:
             it receives as many from the stock (the folded hands become the stock when it
             runs out; discards never come back).
``play``     five tricks among the participants: follow suit, else trump, and beat the
             winning card when able; make the pot sure when you can (masters, judged from
             what you have seen); once you have three tricks play your strongest card.

Three tricks (or two while three others took one) win the pot; a participant without a
trick is a *beast* and pays the pot into the next one.

>>> from levata.engine import game
>>> state = game("bestia").new_match(players=5, options={"dealer": 0}, seed=3)
>>> state.phase, state.to_act(), len(state.view(1).hand), state.view(1).counts["stock"]
('declare', (1,), 5, 14)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from levata.engine import actions, events, phases
from levata.engine.cards import Card, Suit, italian_deck
from levata.engine.contract import (
    Action,
    BadConfig,
    Event,
    GameSpec,
    Option,
    Result,
    SeatView,
    ranks_from_scores,
)
from levata.engine.deal import shuffled
from levata.engine.family.tricks import PLAY, TrickGame
from levata.engine.fields import Counter, Fact, Kept, Seats
from levata.engine.games.bestia.rules import (
    HAND_SIZE,
    beasts,
    pot_winner,
    secured_cards,
    split_leftover,
    sure_pot_cards,
    terzo_entries,
)
from levata.engine.games.bestia.worlds import BestiaWorlds
from levata.engine.registry import register
from levata.engine.rules import TrickRules
from levata.engine.zones import FACE_DOWN, Place

__all__ = ["SPEC", "BestiaState", "narrate"]

# Phases, actions and events of the game's own
VARIANT, DECLARE, CHANGE = "variant", "declare", "change"
KNOCK, FOLD, TERZO = "knock", "fold", "terzo"
DISCARD, DONE = "discard", "done"
CHOOSE = "variant"
RECEIVE, RECYCLE, TURN, ENTER, POT = "receive", "recycle", "turn", "enter", "pot"

GIRO, BUIO, CUCU, PERDERE, OBBLIGATORIO = "giro", "buio", "cucu", "perdere", "obbligatorio"
NONE = "none"
#: The variants, in the order the dealer is offered them, by their option.
VARIANT_OPTIONS = {
    GIRO: "giro_cieco",
    BUIO: "buio",
    CUCU: "cucu",
    PERDERE: "a_perdere",
    OBBLIGATORIO: "terzo_obbligatorio",
}


class BestiaState(BestiaWorlds, TrickGame):
    """A Bestia match: rotations of the deal, then one called rotation without antes."""

    PLACES = (
        *TrickGame.PLACES,
        Place("stock", "the face-down stock", seen=FACE_DOWN, shown=False, counted=True),
        Place(
            "folded",
            "the folded hands, face down (they become the stock when it runs out)",
            seen=FACE_DOWN,
            shown=False,
            counted=True,
        ),
        Place(
            "discards",
            "the cards the seat changed away, face down and out of play for the hand",
            per_seat=True,
            seen=FACE_DOWN,
            shown=False,
            counted=True,
        ),
    )
    FIELDS = (
        *TrickGame.FIELDS,
        Counter("deal", "the deal in progress, from 1 (one hand)", attr="deal_no"),
        Counter("deals", "deals in the match: the rotations, then the called one", attr="total"),
        Counter("dealer", "the seat that deals this deal (it speaks and plays last)"),
        Counter("pot", "chips in the pot of this hand (antes, raises and carry included)"),
        Counter(
            "final",
            "1 in the called last rotation (no antes; the pot left is shared at the end)",
            derived=True,
        ),
        Seats(Counter("balance", "the seat's chips won less chips paid so far", attr="balances")),
        Fact(
            "strain",
            "the trump named: b, d, c or s, the turned card's suit; null before it is turned",
            derived=True,
        ),
        Fact("variant", "the variant the dealer picked for this hand, or null"),
        Fact(
            "declared",
            "per seat this hand: knock, fold, terzo (before its outcome) or null",
            attr="declared",
        ),
        Fact("in_play", "the seats that play this hand's cards, in play order", attr="in_play"),
        Fact("changed", "per seat, cards received in the change (null: not changed yet)"),
        Fact("recycled", "the folded hands became the stock this hand"),
        Kept("speaker", "the seat whose declaration or change it is"),
    )

    def __init__(
        self,
        spec: GameSpec,
        players: int,
        options: dict[str, Any],
        seed: int,
        deal: Sequence[Card] | None = None,
    ) -> None:
        super().__init__(spec, players, options, seed)
        self._settle()
        order = self._check_order(deal)
        chosen = options["dealer"]
        if chosen >= players:
            raise BadConfig(f"option dealer: seat {chosen} does not exist")
        self.dealer = chosen if chosen >= 0 else self.rng.randrange(players)
        self.total = 1 if self.single else (options["rotations"] + 1) * players
        self.deal_no = 0
        self.pot = max(0, options["deal"] - 1)  # a board: chips carried from earlier hands
        self.balances = [0] * players
        self._start_hand(order)

    def _settle(self) -> None:
        self.deck = italian_deck()
        self.single = self.options["deal"] > 0
        self.variants = tuple(v for v, o in VARIANT_OPTIONS.items() if self.options[o])

    # -- seats --------------------------------------------------------------------------------

    def order_from(self, first: int) -> list[int]:
        """Every seat in play order from ``first``."""
        return [(first + i) % self.players for i in range(self.players)]

    @property
    def speaking(self) -> list[int]:
        """The seats in speaking order this hand: from next(D), the dealer last."""
        return self.order_from((self.dealer + 1) % self.players)

    @property
    def final(self) -> int:
        return int(not self.single and self.deal_no > self.total - self.players)

    @property
    def strain(self) -> str | None:
        return self.trump.letter if self.trump is not None else None

    def seats_in_play(self) -> tuple[int, ...] | None:
        return tuple(self.in_play) if self.phase == PLAY else None

    def card_rules(self) -> TrickRules:
        """Follow, trump when void, beat the winning card (over-trumping) when able; the sure
        pot and the secured pot (the kernel reads them too: :meth:`out_of_sight`)."""
        seats = len(self.in_play) if self.phase == PLAY and len(self.in_play) > 1 else self.players
        return TrickRules(
            seats, self.trump, must_trump=True, head=True, overtrump=True, sure_pot=True
        )

    # -- the hand ------------------------------------------------------------------------------

    def _start_hand(self, order: list[Card] | None) -> None:
        self.deal_no += 1
        self.variant: str | None = None
        self.declared: list[str | None] = [None] * self.players
        self.in_play: list[int] = []
        self.changed: list[int | None] = [None] * self.players
        self.recycled = False
        self.stock: list[Card] = []
        self.folded: list[Card] = []
        self.discards: list[list[Card]] = [[] for _ in range(self.players)]
        # Shuffled now, dealt after the dealer's pick: the undealt pile keeps the order.
        self._clear_deal(
            self.speaking[0], order if order is not None else shuffled(self.deck, self.rng)
        )
        self.trump = None
        self.trump_shown = []
        self.speaker = self.dealer
        self.phase = DECLARE
        if self.variants and self._offered():
            self.phase = VARIANT
            self._rules_changed()
            return
        self._ante_and_deal()

    def _offered(self) -> list[str]:
        """The variants the dealer may pick this hand (no raise in the called rotation)."""
        return [v for v in self.variants if not (v == BUIO and self.final)]

    def _pay(self, seat: int, chips: int) -> None:
        self.balances[seat] -= chips
        self.pot += chips

    def _ante_and_deal(self) -> None:
        o, d = self.options, self.dealer
        if not self.final and self.variant != PERDERE:
            for seat in self.order_from(d) if o["ante_mode"] == "all" else [d]:
                self._pay(seat, o["ante"])
        if self.variant == BUIO:
            self._pay(d, o["raise"])
        order = list(self.undealt)
        n, seats = self.players, self.speaking
        for i, s in enumerate(seats):
            self.move(order[3 * i : 3 * i + 3], "undealt", f"hand:{s}")
        turned = order[3 * n]
        for i, s in enumerate(seats):
            self.move(order[3 * n + 1 + 2 * i : 3 * n + 3 + 2 * i], "undealt", f"hand:{s}")
        self.move(order[5 * n + 1 :], "undealt", "stock")
        if self.variant == CUCU:
            self.trump = None  # the card stays face down until everyone has spoken
            self._rules_changed()
        else:
            self.set_trump(turned.suit, turned)
        self._emit(
            events.DEAL,
            deal=self.deal_no,
            dealer=d,
            first=seats[0],
            variant=self.variant,
            pot=self.pot,
            trump=self.trump.letter if self.trump is not None else None,
        )
        self.show_hands()
        if self.variant in (GIRO, PERDERE):
            self.declared = [KNOCK] * n
            self._declarations_done()
        else:
            self.phase = DECLARE
            self.speaker = seats[0]

    # -- calls ---------------------------------------------------------------------------------

    def seats_to_call(self) -> tuple[int, ...]:
        if self.phase in (VARIANT, DECLARE, CHANGE):
            return (self.speaker,)
        return ()

    def calls(self, seat: int) -> list[Action]:
        if self.phase == VARIANT:
            return [Action(CHOOSE, choice=v) for v in (NONE, *self._offered())]
        if self.phase == DECLARE:
            out = [Action(KNOCK)]
            if self._may_fold(seat):
                out.append(Action(FOLD))
            if self.options["terzo"]:
                out.append(Action(TERZO))
            return out
        if self.phase == CHANGE:
            out = [Action(DONE)]
            if len(self.discards[seat]) < self._may_change():
                out += [Action(DISCARD, card=c) for c in sorted(self.hands[seat])]
            return out
        return []

    def _may_fold(self, seat: int) -> bool:
        """Terzo obbligatorio: no fold that would leave fewer than three possible players."""
        if self.variant != OBBLIGATORIO:
            return True
        seats = self.speaking
        later = len(seats) - seats.index(seat) - 1
        taking = sum(1 for d in self.declared if d in (KNOCK, TERZO))
        return taking + later >= 3

    def _may_change(self) -> int:
        """Most cards the speaker may change: five, or the cards left to give (the stock and
        the folded hands not yet recycled)."""
        return min(HAND_SIZE, len(self.stock) + len(self.folded))

    def _make_call(self, seat: int, action: Action) -> None:
        kind = action.kind
        if kind == CHOOSE:
            self.variant = None if action.choice == NONE else action.choice
            self._emit(CHOOSE, seat=seat, choice=action.choice)
            self._ante_and_deal()
        elif kind in (KNOCK, FOLD, TERZO):
            self._declare(seat, kind)
        elif kind == DISCARD and action.card is not None:
            self.move(action.card, f"hand:{seat}", f"discards:{seat}")  # face down: no news
            self._emit(DISCARD, seat=seat, number=len(self.discards[seat]))
        elif kind == DONE:
            self._change(seat)

    def _declare(self, seat: int, kind: str) -> None:
        self.declared[seat] = kind
        if kind == FOLD:
            self.move(self.hands[seat], f"hand:{seat}", "folded")
        elif kind == KNOCK and self.variant == BUIO and seat != self.dealer:
            self._pay(seat, self.options["raise"])  # the dealer's raise counts for him [D6]
        self._emit(kind, seat=seat)
        if seat == self.dealer:
            self._declarations_done()
        else:
            self.speaker = (seat + 1) % self.players

    def _declarations_done(self) -> None:
        said = [(s, self.declared[s] or FOLD) for s in self.speaking]
        for seat, enters in terzo_entries(said).items():
            self.declared[seat] = KNOCK if enters else FOLD
            if enters and self.variant == BUIO and seat != self.dealer:
                self._pay(seat, self.options["raise"])
            if not enters:
                self.move(self.hands[seat], f"hand:{seat}", "folded")
            self._emit(ENTER, seat=seat, choice=KNOCK if enters else FOLD)
        self.in_play = [s for s in self.speaking if self.declared[s] == KNOCK]
        if self.variant == CUCU:
            turned = self.undealt[-1]
            self.set_trump(turned.suit, turned)
            self._emit(TURN, cards=[turned], trump=turned.suit.letter)
        if len(self.in_play) <= 1:
            self._settle_hand({s: HAND_SIZE for s in self.in_play}, played=False)
            return
        if self.variant in (GIRO, CUCU):
            self._start_play()
            return
        self.phase = CHANGE
        self.speaker = self.in_play[0]

    def _change(self, seat: int) -> None:
        k = len(self.discards[seat])
        self.changed[seat] = k
        self._emit(CHANGE, seat=seat, number=k)
        got = min(k, len(self.stock))
        if got:
            self.move(self.stock[-got:], "stock", f"hand:{seat}", kind=RECEIVE, seat=seat)
        if got < k:  # the stock ran out: the folded hands, shuffled and cut, become the stock
            self.move(list(self.folded), "folded", "stock")
            self.rng.shuffle(self.stock)
            self.recycled = True
            self._emit(RECYCLE, number=len(self.stock))
            rest = k - got
            self.move(self.stock[-rest:], "stock", f"hand:{seat}", kind=RECEIVE, seat=seat)
        later = self.in_play.index(seat) + 1
        if later < len(self.in_play):
            self.speaker = self.in_play[later]
        else:
            self._start_play()

    def _start_play(self) -> None:
        self.phase = PLAY
        self.leader = self.in_play[0]
        self._rules_changed()

    # -- the duties beyond the trick's ----------------------------------------------------------

    def unseen_by(self, seat: int) -> set[Card]:
        """The cards ``seat`` has not seen and that are still to be played or lie out of
        play unseen: the deck less its hand, the cards played, the turned trump and its own
        discards. Only what the seat knows: the duties never read where hidden cards lie."""
        seen = {*self.hands[seat], *self.played, *self.trick, *self.trump_shown}
        seen.update(self.discards[seat])
        return {c for c in self.deck if c not in seen}

    def out_of_sight(self, seat: int) -> list[Card]:
        """The cards out of play that ``seat`` has not seen (the stock, the folded hands,
        the undealt pile, the others' discards): with the other participants' hands, what
        is unseen to it, as the kernel's sure-pot duty reads it."""
        held = {c for s in self.in_play if s != seat for c in self.hands[s]}
        return sorted(c for c in self.unseen_by(seat) if c not in held)

    def narrow_play(self, seat: int, cards: list[Card]) -> list[Card]:
        """The sure-pot and secured-pot duties (rules 3 and 4) after the trick's."""
        won = self.tricks[seat]
        if won >= 3:
            return secured_cards(self.rules, cards, won)
        unseen = self.unseen_by(seat)
        return sure_pot_cards(self.rules, self.hands[seat], cards, self.trick, won, unseen)

    # -- the end of a hand ---------------------------------------------------------------------

    def _score_deal(self) -> None:
        self._settle_hand({s: self.tricks[s] for s in self.in_play}, played=True)

    def _settle_hand(self, taken: dict[int, int], played: bool) -> None:
        pot = self.pot
        winner = pot_winner(taken) if played else (self.in_play[0] if self.in_play else None)
        losers = beasts(taken) if played else []
        pays = self.options["beast"] if self.variant == PERDERE else pot
        if winner is not None:
            self.balances[winner] += pot
        nxt = (0 if winner is not None else pot) + pays * len(losers)
        for s in losers:
            self.balances[s] -= pays
        self.pot = nxt
        self._scored(
            {
                "deal": self.deal_no,
                "dealer": self.dealer,
                "variant": self.variant,
                "in_play": list(self.in_play),
                "tricks": [taken.get(s, 0) for s in range(self.players)],
                "pot": pot,
                "winner": winner,
                "beasts": losers,
                "beast_pays": pays if losers else 0,
                "next_pot": nxt,
                "balances": list(self.balances),
            }
        )
        if self.deal_no >= self.total:
            self._finish()
            return
        self.dealer = (self.dealer + 1) % self.players
        self._start_hand(None)

    def _finish(self) -> None:
        if not self.single and self.pot:
            shares = split_leftover(self.pot, self.players, (self.dealer + 1) % self.players)
            self.balances = [b + x for b, x in zip(self.balances, shares, strict=True)]
            self._emit(POT, number=self.pot, shares=shares, balances=list(self.balances))
            self.pot = 0
        self._end()

    def _view_scores(self) -> tuple[float, ...]:
        return tuple(float(b) for b in self.balances)

    def _result(self) -> Result:
        return Result(
            scores=self._view_scores(),
            ranks=ranks_from_scores(self.balances),
            winners=tuple(s for s, b in enumerate(self.balances) if b == max(self.balances)),
            deals=tuple(self.deal_log),
        )

    def _restore_card_play(self, view: SeatView) -> None:
        super()._restore_card_play(view)
        if self.phase == VARIANT:  # the last hand's tricks are gathered already
            self.tricks = [0] * self.players
            self.taken = [[] for _ in range(self.players)]
            self.last_taker = None

    def _after_restore(self, view: SeatView) -> None:
        self.speaker = view.to_act[0] if view.to_act and self.phase != PLAY else self.dealer


def narrate(ev: Event) -> str | None:
    """Lines for Bestia's own events.

    >>> narrate(Event(seq=1, kind="knock", seat=2))
    'seat 2 knocks'
    """
    d = ev.data
    lines = {
        events.DEAL: lambda: (
            f"-- hand {d.get('deal')}: dealer seat {d.get('dealer')}, pot {d.get('pot')},"
            f" trump {d.get('trump')}, variant {d.get('variant')}"
        ),
        KNOCK: lambda: f"seat {ev.seat} knocks",
        FOLD: lambda: f"seat {ev.seat} folds",
        TERZO: lambda: f"seat {ev.seat} would play as a third",
        ENTER: lambda: f"seat {ev.seat} ({d.get('choice')}s as third)",
        CHOOSE: lambda: f"dealer seat {ev.seat} picks variant {d.get('choice')}",
        DISCARD: lambda: f"seat {ev.seat} changes a card away ({d.get('number')} so far)",
        CHANGE: lambda: f"seat {ev.seat} changes {d.get('number')}",
        RECEIVE: lambda: f"   seat {ev.seat} receives {' '.join(map(str, ev.cards))}",
        RECYCLE: lambda: f"the folded hands become the stock ({d.get('number')} cards)",
        TURN: lambda: f"trump turned: {d.get('trump')}",
        events.SCORE: lambda: (
            f"   hand {d['deal']}: tricks {d['tricks']}, pot {d['pot']} to {d['winner']},"
            f" beasts {d['beasts']}, next pot {d['next_pot']}, balances {d['balances']}"
        ),
        POT: lambda: f"the pot left ({d.get('number')}) is shared: {d.get('shares')}",
    }
    line = lines.get(ev.kind)
    return line() if line is not None else None


VOCABULARY = BestiaState.vocabulary(
    choices={CHOOSE: (NONE, *VARIANT_OPTIONS)},
    phases={
        VARIANT: "the dealer picks a variant for this hand, or none",
        DECLARE: "from the seat after the dealer, the dealer last: knock, fold, or terzo",
        CHANGE: "each participant in turn discards up to five cards, then says done and"
        " receives as many",
        PLAY: "five tricks among the participants",
        phases.OVER: "the match is over",
    },
    actions={
        CHOOSE: "the dealer picks `choice` for this hand: none, giro, buio, cucu, perdere or"
        " obbligatorio (those the table enabled)",
        KNOCK: "take part in this hand",
        FOLD: "leave this hand: your cards go face down",
        TERZO: "take part only if at most two others do",
        DISCARD: "change `card` away (face down, out of play), one card at a time",
        DONE: "end your change: you receive one card for each card discarded",
        actions.PLAY: "play `card`: follow suit, else trump; beat the winning card when you"
        " can; lead or play what makes the pot sure; with three tricks, your strongest card",
    },
    events={
        events.DEAL: "a hand is dealt: `data.deal`, `dealer`, `first`, `variant`, `pot`,"
        " `trump` (null in cucu until turned)",
        CHOOSE: "the dealer `seat` picked `data.choice`",
        KNOCK: "`seat` knocked",
        FOLD: "`seat` folded",
        TERZO: "`seat` said terzo",
        ENTER: "the terzo `seat` takes part (`data.choice` knock) or folds",
        TURN: "cucu: the trump card `cards` is turned after the declarations",
        DISCARD: "`seat` changed away a card (face down; `data.number` so far)",
        CHANGE: "`seat` changed `data.number` cards",
        RECEIVE: "the `cards` you received in the change (you alone see them)",
        RECYCLE: "the stock ran out: the folded hands became the stock (`data.number` cards)",
        events.SCORE: "a hand is settled: `data.deal`, `dealer`, `variant`, `in_play`,"
        " per seat `tricks`, `pot`, `winner` (null: the pot is saved), `beasts`,"
        " `beast_pays`, `next_pot`, `balances`",
        POT: "the match ends: the pot left (`data.number`) is shared (`shares`), `balances`",
        events.END: "the match is over: `data.scores` (balances), `winners`",
    },
)

SPEC = register(
    GameSpec(
        name="bestia",
        title="Bestia (Fiara cu 5 cărți)",
        players=(4, 5),
        summary="Italian 40 cards, each for himself: knock or fold, change, five tricks;"
        " three win the pot, none makes you the beast.",
        options=(
            Option("rotations", 3, "rotations of the deal before the called one", minimum=0),
            Option("ante", 1, "chips an ante puts in the pot", minimum=0),
            Option("ante_mode", "dealer", "who antes each hand", ("dealer", "all")),
            Option("terzo", False, "seats may declare terzo (play only as one of three)"),
            Option("giro_cieco", False, "variant: everyone plays, no declaration, no change"),
            Option("buio", False, "variant: the dealer raises the pot, knockers pay the same"),
            Option("raise", 1, "buio: chips of the dealer's raise", minimum=1),
            Option("cucu", False, "variant: trump turned only after the declarations"),
            Option("a_perdere", False, "variant: no ante, everyone plays, beasts pay `beast`"),
            Option("beast", 1, "a perdere: what a beast pays", minimum=0),
            Option("terzo_obbligatorio", False, "variant: no fold leaving fewer than three"),
            Option("dealer", -1, "the first dealer (-1: drawn from the seed)", minimum=-1),
            Option(
                "deal",
                0,
                "0 plays the match; k = 1..3 plays one hand with k-1 chips carried in the pot"
                " (the duplicate unit)",
                minimum=0,
                maximum=3,
            ),
        ),
        factory=BestiaState,
        short_options={"rotations": 0},
        duplicate_unit="deal",
        narrate=narrate,
        vocabulary=VOCABULARY,
        bots={
            "heuristic": "levata.bots.heuristic.bestia:HeuristicBot",
            "pimc": "levata.bots.search.pimc:PimcBot",
        },
        strategy="levata.bots.strategy.bestia:BestiaStrategy",
    )
)

_ = Suit  # the deck's suits are Italian (kept for doctests reading this module)
