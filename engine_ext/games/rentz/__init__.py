"""Rentz (Renț): 3-6 players, each for himself, eight sub-games each seat picks once when it
is first (``docs/games/rentz.md``).

The deck is the top ``8 * N`` cards (N=3: 9..A, 4: 7..A, 5: 5..A, 6: 3..A), all dealt, 8 a
seat from the first player ``F``; ``F`` moves on one seat each deal; a match is ``8 * N``
deals. ``F`` picks one of its sub-games still open (:mod:`.subgames`): seven trick games with
no trump that score the cards or tricks taken (King of Hearts and Ten of Clubs end as soon as
that card is taken), and Rentz itself, shed like dominoes around the jacks (:mod:`.domino`).
Blind options: ``off``; ``optional`` (``F`` may pick before seeing the cards, doubling the
deal's scores with ``blind_doubles``); ``full`` (every pick before the deal, never doubled).
The highest total wins, and with ``zero_wins`` also every total of exactly 0.

Options beyond those: the point table (``king_hearts``, ``queen``, ``diamond``, ``trick``,
``ten_clubs``, ``whist_trick``, ``places``), ``deals`` (0: the whole match; k: stop after k
deals) and ``deal`` (1..8: the duplicate unit, one deal of that sub-game).

>>> from levata.engine import game, Action
>>> state = game("rentz").new_match(players=4, options={"deal": 2}, seed=3)
>>> state.legal_actions(state.to_act()[0])
[Action('choose queens')]
>>> while not state.is_over():
...     seat = state.to_act()[0]
...     state.apply(seat, state.legal_actions(seat)[0])
>>> sum(state.result().scores)  # four queens taken, -40 each
-160.0
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Self

from levata.engine import events, phases
from levata.engine.cards import Card, french_deck
from levata.engine.contract import (
    Action,
    BadConfig,
    Event,
    GameSpec,
    GameState,
    Option,
    Result,
    SeatView,
    ranks_from_scores,
)
from levata.engine.deal import shuffled
from levata.engine.family.tricks import PLAY, TRICK_COUNTERS, TrickGame
from levata.engine.fields import Counter, Fact, Kept, Seats
from levata.engine.games.rentz.domino import ACE, next_holder, rows_of, valid_cards
from levata.engine.games.rentz.subgames import (
    ENDS_WITH,
    NAMES,
    RENTZ,
    SUBGAMES,
    TAKING,
    PointTable,
    solver_points,
    trick_points,
)
from levata.engine.registry import register
from levata.engine.rules import TrickRules
from levata.engine.worlds import Evidence, PlaceSets, reseed, seen_log
from levata.engine.zones import Place, without

__all__ = ["SPEC", "RentzState", "rentz_deck"]

CARDS_EACH = 8
#: Phases of a deal besides card play: the blind pick before the deal, the pick after it,
#: and the domino play of the Rentz sub-game.
BLIND, CHOOSE, DOMINO = "blind", "choose", "domino"
#: Actions: pick a sub-game (after the deal, or blind before it), decline the blind pick,
#: lay a card in the Rentz sub-game.
CHOOSE_KIND, BLIND_KIND, LOOK, LAY = "choose", "blind", "look", "lay"
#: Events of Rentz's own: a seat loses its turn after the lowest card.
SKIP = "skip"
BLIND_MODES = ("off", "optional", "full")
#: Draws of a domino world before the seat on turn is handed a valid card.
DOMINO_REDRAWS = 30


def rentz_deck(players: int) -> tuple[Card, ...]:
    """The top ``8 * players`` cards, Ace downwards.

    >>> len(rentz_deck(4)), min(c.rank for c in rentz_deck(4))
    (32, 7)
    """
    return french_deck(lowest=15 - 2 * players)


class RentzState(TrickGame):
    """A Rentz match: the trick sub-games are the trick base's card play; the Rentz
    sub-game is laid in the ``layout`` place."""

    #: The Rentz sub-game's table (a place: cards come and go by :meth:`move`).
    layout: list[Card]

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
        self.deal_no = 0
        self.first = self.rng.randrange(players)  # F of deal 1
        self.totals = [0] * players
        self.chosen: list[list[str]] = [[] for _ in range(players)]
        self._start_deal(order)

    def card_rules(self) -> TrickRules:
        """Follow suit, else any card; no trump in any sub-game; each seat for himself. In the
        sub-games that are won by taking (Whist, Ten of Clubs) the card points are the
        sub-game's score as the kernel counts them (:func:`solver_points`), for the search:
        its solver maximises what one side takes, never what a seat avoids."""
        game = getattr(self, "subgame", None)
        if game not in TAKING:
            return TrickRules(self.players, None)
        pts = solver_points(game, self.points_table, self.deck, self.players)
        return TrickRules(self.players, None, points=pts)

    def _settle(self) -> None:
        o = self.options
        if o["deal"] > 0 and o["deals"] not in (0, 1):
            raise BadConfig("options deal and deals: a single deal (deal > 0) is one deal")
        try:
            self.points_table = PointTable.from_options(o)
        except ValueError as e:
            raise BadConfig(str(e)) from None
        self.deck = rentz_deck(self.players)
        self.low = 15 - 2 * self.players

    # -- the match ----------------------------------------------------------------------------

    @property
    def deal_count(self) -> int:
        """Deals in the match: ``8 * N``, or what the ``deals`` / ``deal`` options say."""
        if self.options["deal"]:
            return 1
        return self.options["deals"] or CARDS_EACH * self.players

    @property
    def dealer(self) -> int:
        """The physical dealer: the seat before ``F``."""
        return (self.first - 1) % self.players

    @property
    def blind_mode(self) -> str:
        return "off" if self.options["deal"] else str(self.options["blind"])

    def open_to(self, seat: int) -> list[str]:
        """The sub-games ``seat`` may still pick (a single deal: the one it plays)."""
        if self.options["deal"]:
            return [SUBGAMES[self.options["deal"] - 1]]
        return [g for g in SUBGAMES if g not in self.chosen[seat]]

    @property
    def open_games(self) -> list[list[str]]:
        return [self.open_to(s) for s in range(self.players)]

    def _start_deal(self, order: list[Card] | None) -> None:
        if self.deal_no:
            self.first = (self.first + 1) % self.players
        self.deal_no += 1
        deck = order if order is not None else shuffled(self.deck, self.rng)
        self._clear_deal(self.first, deck)  # every card face down, in the deal's order
        self.subgame: str | None = None
        self.set_trump(None)
        self.blind = False
        self.turn: int | None = None
        self.finished: list[int] = []
        self._emit(
            events.DEAL,
            deal=self.deal_no,
            size=CARDS_EACH,
            first=self.first,
            dealer=self.dealer,
        )
        if self.blind_mode == "off":
            self._deal_cards()
        else:
            self.phase = BLIND

    def _deal_cards(self) -> None:
        self.deal_round_robin(list(self.undealt), self.first, CARDS_EACH)
        self.phase = CHOOSE
        self.show_hands()

    # -- the pick -----------------------------------------------------------------------------

    def seats_to_call(self) -> tuple[int, ...]:
        if self.phase in (BLIND, CHOOSE):
            return (self.first,)
        if self.phase == DOMINO and self.turn is not None:
            return (self.turn,)
        return ()

    def calls(self, seat: int) -> list[Action]:
        if self.phase == CHOOSE:
            return [Action(CHOOSE_KIND, choice=g) for g in self.open_to(seat)]
        if self.phase == BLIND:
            picks = [Action(BLIND_KIND, choice=g) for g in self.open_to(seat)]
            return [*picks, Action(LOOK)] if self.blind_mode == "optional" else picks
        if self.phase == DOMINO:
            rows = rows_of(self.layout)
            return [
                Action(LAY, card=c) for c in sorted(valid_cards(self.hands[seat], rows, self.low))
            ]
        return []

    def _make_call(self, seat: int, action: Action) -> None:
        if action.kind == LOOK:
            self._deal_cards()
        elif action.kind == LAY and action.card is not None:
            self._lay(seat, action.card)
        elif action.choice is not None:
            self._pick(seat, action.choice, blind=action.kind == BLIND_KIND)

    def _pick(self, seat: int, game: str, blind: bool) -> None:
        self.subgame, self.blind = game, blind
        self.chosen[seat].append(game)
        self._rules_changed()
        self._emit(CHOOSE_KIND, seat=seat, game=game, blind=blind)
        if blind:
            self._deal_cards()
        if game == RENTZ:
            self.phase = DOMINO
            self._turn_from(self.first)
        else:
            self.phase, self.leader = PLAY, self.first

    # -- the trick sub-games --------------------------------------------------------------------

    def _after_trick(self, winner: int) -> None:
        """King of Hearts and Ten of Clubs end when their card is taken [D1]; the base scores
        a deal whose hands are empty."""
        key = ENDS_WITH.get(self.subgame or "")
        if key is not None and key in self.taken[winner] and self.hands[winner]:
            self._score_deal()

    # -- the Rentz sub-game -----------------------------------------------------------------

    def _lay(self, seat: int, card: Card) -> None:
        self.move(card, f"hand:{seat}", "layout", kind=LAY, seat=seat)
        hands = self.hands
        if not hands[seat]:
            self._finish(seat)
        holders = [t for t in range(self.players) if hands[t]]
        if len(holders) <= 1:  # the last seat holding cards is last
            for t in holders:
                self._finish(t)
            self.turn = None
            self._score_deal()
        elif card.rank == ACE and hands[seat]:  # the ace: another turn [D8: not when out]
            self._turn_from(seat)
        elif card.rank == self.low:  # the lowest card: the next holder loses its turn [D9]
            skipped = next_holder(hands, seat)
            self._emit(SKIP, seat=skipped)
            self._turn_from(next_holder(hands, skipped))
        else:
            self._turn_from(next_holder(hands, seat))

    def _finish(self, seat: int) -> None:
        self.finished.append(seat)
        self._emit(events.FINISH, seat=seat, place=len(self.finished))

    def _turn_from(self, seat: int) -> None:
        """The turn goes to ``seat``, then on in play order past every seat holding no valid
        card (each passes, publicly [D7]); some seat always holds one while two hold cards."""
        rows = rows_of(self.layout)
        while not valid_cards(self.hands[seat], rows, self.low):
            self._emit(events.PASS, seat=seat)
            seat = next_holder(self.hands, seat)
        self.turn = seat

    # -- scoring ------------------------------------------------------------------------------

    @property
    def doubled(self) -> bool:
        """An optional blind pick doubles the deal's scores (with ``blind_doubles``) [D2]."""
        return self.blind and self.blind_mode == "optional" and self.options["blind_doubles"]

    @property
    def deal_points(self) -> list[int]:
        """Each seat's points of this deal so far (Rentz: the places finished)."""
        n, game, table = self.players, self.subgame, self.points_table
        if game is None:
            return [0] * n
        if game == RENTZ:
            points = [0] * n
            for k, s in enumerate(self.finished):
                points[s] = table.place_points(k + 1, n)
        else:
            points = [trick_points(game, self.taken[s], self.tricks[s], table) for s in range(n)]
        return [2 * p for p in points] if self.doubled else points

    def _score_deal(self) -> None:
        if self.phase not in (PLAY, DOMINO):  # the deal was scored when its key card fell
            return
        points = self.deal_points
        self.totals = [t + p for t, p in zip(self.totals, points, strict=True)]
        record: dict[str, Any] = {
            "deal": self.deal_no,
            "first": self.first,
            "game": self.subgame,
            "blind": self.blind,
            "doubled": self.doubled,
            "tricks": list(self.tricks),
            "finished": list(self.finished),
            "points": points,
            "totals": list(self.totals),
        }
        self._scored(record)
        if self.deal_no >= self.deal_count:
            self._end()
        else:
            self._start_deal(None)

    def _result(self) -> Result:
        best = max(self.totals)
        zero = self.options["zero_wins"]
        winners = tuple(
            s for s, t in enumerate(self.totals) if t == best or (zero and t == 0)
        )  # [D11]
        return Result(
            scores=tuple(float(t) for t in self.totals),
            ranks=ranks_from_scores(self.totals),
            winners=winners,
            deals=tuple(self.deal_log),
        )

    # -- what a seat may know -----------------------------------------------------------------

    PLACES = (
        *without(TrickGame.PLACES, "trump"),  # no trump is ever turned
        Place("layout", "the Rentz sub-game's table: the runs laid around the jacks", sorted=True),
    )

    FIELDS = (
        Counter("deal", "the deal in progress, from 1", attr="deal_no"),
        Counter("deals", "deals in the match (8 per player)", attr="deal_count", derived=True),
        Counter(
            "first",
            "the seat that acts first this deal: F, who picks the sub-game, gets the first card"
            " and leads",
        ),
        Counter("dealer", "the seat that deals this deal (the seat before `first`)", derived=True),
        Counter("leader", TRICK_COUNTERS["leader"], seat=True),
        Counter(
            "turn", "the Rentz sub-game: the seat to lay a card (-1: none)", none=-1, seat=True
        ),
        Seats(
            Counter("tricks", TRICK_COUNTERS["tricks:SEAT"]),
            Counter(
                "deal_points",
                "the seat's points this deal so far (doubled when the deal is)",
                attr="deal_points",
                derived=True,
            ),
        ),
        Fact(
            "game",
            "the sub-game of this deal: king, queens, diamonds, tricks, totals, ten, whist or"
            " rentz; null before F picks it",
            attr="subgame",
        ),
        Fact(
            "strain",
            "the trump named: C, D, H or S, or NT for no trump; null before it is named (Rentz:"
            " always NT, no sub-game has a trump)",
            attr="trump",
            derived=True,
            show=lambda trump: "NT",
        ),
        Fact("blind", "true when F picked this deal's sub-game blind, before the deal"),
        Fact(
            "chosen",
            "the table of choices: per seat, the sub-games it has picked, in order",
            each_seat=True,
        ),
        Fact(
            "open",
            "per seat, the sub-games it may still pick",
            attr="open_games",
            derived=True,
            each_seat=True,
        ),
        Fact(
            "finished",
            "the seats that emptied their hands, in order: the Rentz sub-game's finishing order",
            seats=True,
        ),
        Fact(
            "rows",
            "the Rentz sub-game: per started suit (its letter), the lowest and highest rank of"
            " its run",
            attr="layout",
            derived=True,
            show=lambda layout: {s.letter: list(r) for s, r in rows_of(layout).items()},
        ),
        Kept("scores", "each seat's total so far (what a view's `scores` shows)", attr="totals"),
    )

    def _view_scores(self) -> tuple[float, ...]:
        return tuple(float(t) for t in self.totals)

    def _check_position(self) -> None:
        """Beyond the base's checks: sub-games that exist, picked at most once each, and a
        phase that fits the pick (the domino's seat on turn holding a valid card)."""
        super()._check_position()
        problem = None
        if self.subgame is not None and self.subgame not in SUBGAMES:
            problem = f"game {self.subgame!r} is not one of {', '.join(SUBGAMES)}"
        elif any(g not in SUBGAMES or picks.count(g) > 1 for picks in self.chosen for g in picks):
            problem = f"chosen: each seat picks each of {', '.join(SUBGAMES)} at most once"
        elif self.phase in (PLAY, DOMINO) and (self.subgame == RENTZ) != (self.phase == DOMINO):
            problem = f"phase {self.phase!r} does not fit the game {self.subgame!r}"
        elif self.phase == DOMINO and (self.turn is None or not self.calls(self.turn)):
            problem = "the Rentz sub-game needs a seat on turn (turn=) holding a valid card"
        if problem is not None:
            raise BadConfig(f"position: {problem}")

    # -- a world rebuilt from a view ------------------------------------------------------------

    def _after_restore(self, view: SeatView) -> None:
        self.totals = [int(t) for t in view.scores]

    @classmethod
    def from_view(
        cls, spec: GameSpec, view: SeatView, rng: random.Random, evidence: Evidence | None = None
    ) -> Self:
        """Before a blind pick no card is dealt: the world is the deck face down, in an
        order of its own. Otherwise the trick base rebuilds it (with :meth:`_narrow_places`)."""
        if view.phase == DOMINO:
            return cls._domino_world(spec, view, rng)
        if view.phase != BLIND:
            return super().from_view(spec, view, rng, evidence)
        world = cls.__new__(cls)
        GameState.__init__(world, spec, view.players, dict(view.options), 0)
        world.phase, world.over = view.phase, False
        world._restore_from_view(view)
        world._restore_card_play(view)
        n = world.players
        world.tricks, world.taken, world.last_taker = [0] * n, [[] for _ in range(n)], None
        world._rules_changed()
        world.undealt = rng.sample(list(world.deck), len(world.deck))
        world._log = seen_log(view)
        world._hand_events = []
        return reseed(world, rng)

    @classmethod
    def _domino_world(cls, spec: GameSpec, view: SeatView, rng: random.Random) -> Self:
        """The seat whose turn it is holds a valid card (else it would have passed): worlds
        where it does not are drawn again, a share of them; the last draw gets one of the
        valid cards the others hold in exchange for one of its own (rare)."""
        turn = view.counters["turn"]
        world = super().from_view(spec, view, rng)
        if turn < 0 or turn == view.seat:
            return world
        for _ in range(DOMINO_REDRAWS):
            if world.calls(turn):
                return world
            world = super().from_view(spec, view, rng)
        if not world.calls(turn):
            rows = rows_of(world.layout)
            others = [t for t in range(world.players) if t not in (turn, view.seat)]
            spare = [(t, c) for t in others for c in valid_cards(world.hands[t], rows, world.low)]
            if spare:
                t, card = rng.choice(spare)
                mine = rng.choice(world.hands[turn])
                world.hands[t][world.hands[t].index(card)] = mine
                world.hands[turn][world.hands[turn].index(mine)] = card
        return world

    def _places_at_deal(self) -> list[int]:
        self._walk_laid: list[Card] = []  # the layout as the walk through the deal goes
        return []

    def _narrow_places(self, ev: Event, sets: PlaceSets, view: SeatView) -> None:
        """A card laid is gone; a pass tells that its seat held none of the cards valid then."""
        if ev.kind == LAY:
            sets.gone(ev.cards[0])
            self._walk_laid.append(ev.cards[0])
        elif ev.kind == events.PASS and ev.seat is not None:
            rows = rows_of(self._walk_laid)
            sets.not_at(ev.seat, valid_cards(list(sets), rows, self.low))


def narrate(ev: Event) -> str | None:
    """Lines for Rentz's own events.

    >>> narrate(Event(seq=1, kind="choose", seat=2, data={"game": "queens", "blind": True}))
    'seat 2 picks queens (blind)'
    >>> narrate(Event(seq=2, kind="skip", seat=1))
    '   seat 1 loses its turn'
    """
    d = ev.data
    if ev.kind == CHOOSE_KIND:
        return f"seat {ev.seat} picks {d['game']}" + (" (blind)" if d.get("blind") else "")
    if ev.kind == LAY:
        return f"   seat {ev.seat} lays {ev.cards[0]}"
    if ev.kind == SKIP:
        return f"   seat {ev.seat} loses its turn"
    if ev.kind == events.PASS:
        return f"   seat {ev.seat} cannot lay: passes"
    if ev.kind == events.FINISH:
        return f"   seat {ev.seat} is out, place {d['place']}"
    if ev.kind == events.SCORE:
        return f"   score ({d['game']}): points {d['points']}, totals {d['totals']}"
    return None


VOCABULARY = RentzState.vocabulary(
    choices={CHOOSE_KIND: tuple(SUBGAMES), BLIND_KIND: tuple(SUBGAMES)},
    phases={
        BLIND: "blind options: F picks a sub-game before the deal (optional: or looks first)",
        CHOOSE: "F, seeing its cards, picks one of its open sub-games",
        PLAY: "a trick sub-game: follow suit, else any card; no trump; `leader` leads",
        DOMINO: "the Rentz sub-game: `turn` lays a valid card (passes are automatic)",
        phases.OVER: "the match is over",
    },
    actions={
        CHOOSE_KIND: "pick the sub-game `choice` (one of your open ones): "
        + "; ".join(f"{g}: {NAMES[g]}" for g in SUBGAMES),
        BLIND_KIND: "pick the sub-game `choice` blind, before the deal (optional blind: the"
        " deal's scores are doubled)",
        LOOK: "optional blind: see your cards first, then pick",
        "play": "play `card` to the trick: follow suit if you can, else any card",
        LAY: "the Rentz sub-game: lay `card`: a jack of a suit not started, or the card just"
        " below or above a suit's run",
    },
    events={
        events.DEAL: "a deal begins: `data.deal`, `size`, `first`, `dealer`",
        CHOOSE_KIND: "`seat` (F) picked `data.game`, `data.blind` true for a blind pick",
        LAY: "the Rentz sub-game: `seat` laid `cards`",
        events.PASS: "the Rentz sub-game: `seat` held no valid card and passed",
        SKIP: "the Rentz sub-game: `seat` loses its turn (the lowest card was just laid)",
        events.FINISH: "the Rentz sub-game: `seat` laid its last card and finished `data.place`"
        " (the last seat still holding cards finishes last)",
        events.SCORE: "a deal is scored: `data.game`, `blind`, `doubled`, per seat `tricks`,"
        " `points`, `totals`; `finished` (the Rentz sub-game's order)",
        events.END: "the match is over: `data.scores`, `winners`",
    },
)


SPEC = register(
    GameSpec(
        name="rentz",
        title="Rentz",
        players=(3, 4, 5, 6),
        summary="Eight sub-games in one: each seat picks each once when it leads the deal.",
        options=(
            Option(
                "blind",
                "off",
                "blind picks: off; optional (F may pick before the deal, doubling it);"
                " full (every pick before the deal, not doubled)",
                choices=BLIND_MODES,
            ),
            Option("blind_doubles", True, "an optional blind pick doubles the deal's scores"),
            Option("zero_wins", True, "a final total of exactly 0 also wins"),
            Option("king_hearts", 200, "King of Hearts: what taking the K♥ costs", minimum=0),
            Option("queen", 40, "Queens (and Totals): what each queen taken costs", minimum=0),
            Option("diamond", 30, "Diamonds (and Totals): what each ♦ taken costs", minimum=0),
            Option("trick", 50, "Tricks (and Totals): what each trick taken costs", minimum=0),
            Option("ten_clubs", 200, "Ten of Clubs: what taking the 10♣ brings", minimum=0),
            Option("whist_trick", 50, "Whist: what each trick taken brings", minimum=0),
            Option(
                "places",
                "400/200/100/50/25",
                "the Rentz sub-game: points of places 1, 2, ... (the last place always 0)",
            ),
            Option("deals", 0, "0: the whole match (8 deals a player); k: stop after k", minimum=0),
            Option(
                "deal",
                0,
                "0 plays the match; 1..8 plays one deal of that sub-game (king, queens,"
                " diamonds, tricks, totals, ten, whist, rentz): the duplicate unit",
                minimum=0,
                maximum=len(SUBGAMES),
            ),
        ),
        factory=RentzState,
        short_options={"deals": 3},
        duplicate_unit="deal",
        narrate=narrate,
        vocabulary=VOCABULARY,
        bots={
            "heuristic": "levata.bots.heuristic.rentz:HeuristicBot",
            "pimc": "levata.bots.search.pimc:PimcBot",
        },
        strategy="levata.bots.strategy.rentz:RentzStrategy",
    )
)
