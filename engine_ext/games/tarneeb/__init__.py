"""Tarneeb: four players in two partnerships (seats 0+2 against 1+3), an auction for 7 to 13
tricks, the declarer names a trump or no-trump and leads; race to 100 (``docs/games/tarneeb.md``).

A deal: the shuffler ``S`` deals 13 cards each from ``F = next(S)``, the first bidder.

``bid``    from F in play order, skipping seats that passed: ``bid b`` with
           ``max(7, high + 1) <= b <= 13`` or ``pass`` (final for the deal). The auction ends
           when a bid exists and the three other seats have passed, or at once on a 13. When F
           and the next two seats all passed without a bid, S's one legal action is ``bid 7``.
``trump``  the declarer names ``C``, ``D``, ``H``, ``S`` or ``NT``.
``play``   the declarer leads; follow suit, else any card (no duty to trump).

Score (``m``: the declaring team's tricks, ``b``: the contract): made, declarers
``5 + m`` and the others ``13 - m``; failed, declarers ``-b`` and the others
``13 - m + 5``. A team that has not declared for 3 deals in a row loses 10 (then counts
again from 0). A team at 100 or more with the higher total wins; equal totals play on;
``max_deals`` (default 200) ends a match that never gets there, the higher total winning.

**Duplicate unit**: option ``deal = k`` (1..3) makes a match one deal whose shuffler comes
from the seed (or ``shuffler``) and whose idle counters are those after ``k - 1`` earlier
deals declared by teams drawn from the seed, so every seating of a board meets the same
idle threat. Its scores are that deal's points (the idle penalty included).

>>> from levata.engine import game
>>> state = game("tarneeb").new_match(players=4, options={"shuffler": 0}, seed=3)
>>> state.view(0).phase, state.to_act(), len(state.view(0).hand)
('bid', (1,), 13)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from levata.engine import actions, events, phases
from levata.engine.cards import Card, french_deck
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
from levata.engine.family.tricks import PLAY, TrickGame
from levata.engine.fields import Counter, Fact, Kept, Seats
from levata.engine.games.tarneeb.rules import (  # noqa: F401  (re-exported)
    DEFEAT_BONUS,
    HAND_SIZE,
    IDLE_DEALS,
    IDLE_PENALTY,
    MADE_BONUS,
    MAX_BID,
    MIN_BID,
    NO_TRUMP,
    PLAYERS,
    ROTATIONS,
    STRAINS,
    TARGET,
    TEAMS,
    TRUMP,
    _strain_trump,
    deal_points,
    idle_after,
    legal_bids,
    next_shuffler,
    partnerships,
)
from levata.engine.registry import register
from levata.engine.rules import TrickRules
from levata.engine.zones import without

__all__ = [
    "SPEC",
    "TarneebState",
    "deal_points",
    "idle_after",
    "legal_bids",
    "next_shuffler",
    "partnerships",
]

# -- the match ---------------------------------------------------------------------------------


class TarneebState(TrickGame):
    """A Tarneeb match (to 100, or one deal): the card play is the trick base's."""

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
            raise BadConfig("Tarneeb is played by exactly 4 players")
        self.deck = french_deck()
        order = self._check_order(deal)
        chosen = options["shuffler"]
        if chosen >= players:
            raise BadConfig(f"option shuffler: seat {chosen} does not exist")
        self.shuffler = chosen if chosen >= 0 else self.rng.randrange(players)
        self.single = options["deal"] > 0
        self.max_deals = 1 if self.single else options["max_deals"]
        self.rotation = options["rotation"]
        self.scores = [0, 0]  # per team
        self.idle = [0, 0]
        for _ in range(max(0, options["deal"] - 1)):  # the made-up deals before a board
            self.idle, _ = idle_after(self.idle, self.rng.randrange(2))
        self.deal_no = 0
        self.winner: int | None = None  # the winning team, None for a draw
        self._start_deal(order)

    def card_rules(self) -> TrickRules:
        """Follow suit, else any card: no duty to trump [D5]; partners pool their tricks."""
        return TrickRules(self.players, self.trump, teams=TEAMS)

    @property
    def first(self) -> int:
        """F, the seat after the shuffler: it gets the first card and bids first."""
        return (self.shuffler + 1) % self.players

    # -- the deal -------------------------------------------------------------------------------

    def _start_deal(self, order: list[Card] | None) -> None:
        self.deal_no += 1
        deck = order if order is not None else shuffled(self.deck, self.rng)
        self.deal_round_robin(deck, self.first, HAND_SIZE)
        self.set_trump(None)
        self.strain: str | None = None
        self.high = 0
        self.declarer: int | None = None
        self.passed: list[int] = []
        self.calls_made: list[list[int]] = []  # [seat, bid] in order, 0 for a pass
        self.bidder = self.first
        self.phase = phases.BIDDING
        self._emit(
            events.DEAL,
            deal=self.deal_no,
            size=HAND_SIZE,
            first=self.first,
            dealer=self.shuffler,
            idle=list(self.idle),
        )
        self.show_hands()

    # -- the auction ----------------------------------------------------------------------------

    def forced(self) -> bool:
        """S must bid 7: the three seats before it passed without a bid [D4]."""
        return self.high == 0 and len(self.passed) == self.players - 1

    def seats_to_call(self) -> tuple[int, ...]:
        if self.phase == phases.BIDDING:
            return (self.bidder,)
        if self.phase == TRUMP:
            return (self.declarer,) if self.declarer is not None else ()
        return ()

    def calls(self, seat: int) -> list[Action]:
        if self.phase == phases.BIDDING:
            if self.forced():
                return [Action(actions.BID, number=MIN_BID)]
            bids = [Action(actions.BID, number=b) for b in legal_bids(self.high)]
            return [*bids, Action(actions.PASS)]
        if self.phase == TRUMP:
            return [Action(TRUMP, choice=s) for s in STRAINS]
        return []

    def _make_call(self, seat: int, action: Action) -> None:
        if action.kind == TRUMP:
            self._name_trump(seat, action.choice or NO_TRUMP)
            return
        if action.kind == actions.PASS:
            self.passed.append(seat)
            self.calls_made.append([seat, 0])
            self._emit(events.PASS, seat=seat)
        else:
            bid = action.number or MIN_BID
            self.high, self.declarer = bid, seat
            self.calls_made.append([seat, bid])
            self._emit(events.BID, seat=seat, number=bid)
        self._next_bidder(seat)

    def _next_bidder(self, seat: int) -> None:
        done = self.high == MAX_BID or (self.high and len(self.passed) == self.players - 1)
        if done:
            self.phase = TRUMP
            return
        nxt = (seat + 1) % self.players
        while nxt in self.passed:  # a pass is final [D3]
            nxt = (nxt + 1) % self.players
        self.bidder = nxt

    def _name_trump(self, seat: int, strain: str) -> None:
        self.strain = strain
        self.set_trump(_strain_trump(strain))
        self._emit(TRUMP, seat=seat, trump=strain, contract=self.high)
        self.phase, self.leader = PLAY, seat

    # -- the score ------------------------------------------------------------------------------

    @property
    def declaring_team(self) -> int:
        return TEAMS[self.declarer] if self.declarer is not None else 0

    def _score_deal(self) -> None:
        team = self.declaring_team
        made = self.team_tricks(team)
        ours, theirs = deal_points(self.high, made)
        points = [ours, theirs] if team == 0 else [theirs, ours]
        self.idle, penalty = idle_after(self.idle, team)
        points = [p + q for p, q in zip(points, penalty, strict=True)]
        self.scores = [s + p for s, p in zip(self.scores, points, strict=True)]
        record: dict[str, Any] = {
            "deal": self.deal_no,
            "dealer": self.shuffler,
            "first": self.first,
            "declarer": self.declarer,
            "contract": self.high,
            "trump": self.strain,
            "tricks": [self.team_tricks(0), self.team_tricks(1)],
            "penalties": penalty,
            "points": points,
            "totals": list(self.scores),
            "idle": list(self.idle),
        }
        self._scored(record)
        if self._decided():
            self._end()
            return
        self.shuffler = next_shuffler(self.shuffler, self.rotation)
        self._start_deal(None)

    def _decided(self) -> bool:
        """A team at 100 with the higher total wins; equal totals play on [D7], up to
        ``max_deals`` [D10] (a single deal is always decided)."""
        a, b = self.scores
        if (max(a, b) >= TARGET and a != b) or self.deal_no >= self.max_deals:
            self.winner = None if a == b else (0 if a > b else 1)
            return True
        return False

    END_TELLS_REASON = True

    def _seat_scores(self) -> tuple[float, ...]:
        return tuple(float(self.scores[TEAMS[s]]) for s in range(self.players))

    def _result(self) -> Result:
        a, b = self.scores
        reached = max(a, b) >= TARGET and a != b
        ranks = tuple(1 + (self.scores[1 - TEAMS[s]] > self.scores[TEAMS[s]]) for s in range(4))
        winners = tuple(s for s in range(4) if self.winner is None or TEAMS[s] == self.winner)
        return Result(
            scores=self._seat_scores(),
            ranks=ranks,
            winners=winners,
            deals=tuple(self.deal_log),
            reason="complete" if reached or self.single else "max_deals",
        )

    # -- what a seat may know -------------------------------------------------------------------

    PLACES = without(TrickGame.PLACES, "trump")  # trump is named, never turned
    FIELDS = (
        *TrickGame.FIELDS,
        Counter("deal", "the deal in progress, from 1", attr="deal_no"),
        Counter("max_deals", "deals after which the match ends at the latest"),
        Counter("dealer", "the seat that deals this deal: the shuffler S", attr="shuffler"),
        Counter(
            "first",
            "the seat that acts first this deal: the first bidder F (the seat after the dealer)",
            derived=True,
        ),
        Counter(
            "contract",
            "the tricks contracted: the highest bid so far (0: none); final once the auction"
            " is over",
            attr="high",
        ),
        Counter("declarer", "the seat holding the highest bid (-1: none yet)", none=-1),
        Seats(
            Counter(
                "team_score",
                "the team's total so far (team 0: seats 0 and 2, team 1: seats 1 and 3)",
                attr="scores",
            ),
            Counter(
                "team_idle",
                "deals in a row the team has not declared (3 cost it 10 points)",
                attr="idle",
            ),
            count="team",
        ),
        Fact(
            "strain", "the trump named: C, D, H or S, or NT for no trump; null before it is named"
        ),
        Fact("passed", "the seats that passed this deal, in order"),
        Fact(
            "calls", "this deal's calls in order: [seat, bid], bid 0 for a pass", attr="calls_made"
        ),
        Kept("bidder", "the seat whose call it is in the auction"),
    )

    def _view_scores(self) -> tuple[float, ...]:
        return self._seat_scores()

    # -- a world rebuilt from a view (the trick base deals the cards) --------------------------

    def _settle(self) -> None:
        o = self.options
        self.deck = french_deck()
        self.single = o["deal"] > 0
        self.rotation = o["rotation"]
        self.winner = None
        if self.over:
            a, b = self.scores
            self.winner = None if a == b else (0 if a > b else 1)

    def _after_restore(self, view: SeatView) -> None:
        self.bidder = view.to_act[0] if view.phase == phases.BIDDING else self.first


def narrate(ev: Event) -> str | None:
    """Lines for Tarneeb's deal, trump and score events.

    >>> narrate(Event(seq=1, kind="trump", seat=2, data={"trump": "NT", "contract": 9}))
    'seat 2 names NT for 9 tricks'
    """
    d = ev.data
    if ev.kind == events.DEAL:
        return (
            f"-- deal {d['deal']}: shuffler seat {d['dealer']}, first bidder seat {d['first']},"
            f" idle {d['idle']}"
        )
    if ev.kind == TRUMP:
        return f"seat {ev.seat} names {d.get('trump')} for {d.get('contract')} tricks"
    if ev.kind == events.SCORE:
        return (
            f"   score: seat {d['declarer']} bid {d['contract']}, team tricks {d['tricks']},"
            f" points {d['points']} (idle penalties {d['penalties']}), totals {d['totals']}"
        )
    return None


VOCABULARY = TarneebState.vocabulary(
    choices={TRUMP: tuple(STRAINS)},
    phases={
        phases.BIDDING: "the auction, from the first bidder: bid 7..13 above the highest bid, or"
        " pass (final); the shuffler must bid 7 when the other three passed",
        TRUMP: "the declarer names the trump suit or NT",
        PLAY: "the cards are played to tricks, the declarer leading the first",
        phases.OVER: "the match is over",
    },
    actions={
        actions.BID: "bid `number` tricks for your team (7..13, above the highest bid)",
        actions.PASS: "pass: you call no more this deal",
        TRUMP: "name the trump `choice`: C, D, H, S or NT (no trump)",
        actions.PLAY: "play `card` to the trick: follow suit if you can, else any card",
    },
    events={
        events.DEAL: "a deal begins: `data.deal`, `size`, `first`, `dealer`, `idle`",
        events.BID: "`seat` bid `data.number`",
        events.PASS: "`seat` passed",
        TRUMP: "the declarer `seat` named `data.trump` for `data.contract` tricks",
        events.SCORE: "a deal is scored: `data.deal`, `dealer`, `first`, `declarer`,"
        " `contract`, `trump`, per team `tricks`, `penalties`, `points`, `totals`, `idle`",
        events.END: "the match is over: `data.scores`, `winners`, `reason` (complete, or"
        " max_deals)",
    },
)

SPEC = register(
    GameSpec(
        name="tarneeb",
        title="Tarneeb",
        players=(PLAYERS,),
        summary="Partners bid 7 to 13 tricks, the declarer names trump; first team to 100.",
        options=(
            Option("max_deals", 200, "deals after which the higher total wins", minimum=1),
            Option("rotation", "seed", "next S: the seat before (seed) or after it", ROTATIONS),
            Option(
                "deal",
                0,
                "0 plays the match; k = 1..3 plays one deal after k-1 made-up deals (the"
                " duplicate unit)",
                minimum=0,
                maximum=3,
            ),
            Option("shuffler", -1, "the first shuffler (-1: drawn from the seed)", minimum=-1),
        ),
        factory=TarneebState,
        short_options={"max_deals": 3},
        teams=partnerships,
        duplicate_unit="deal",
        narrate=narrate,
        vocabulary=VOCABULARY,
        bots={
            "heuristic": "levata.bots.heuristic.tarneeb:HeuristicBot",
            "pimc": "levata.bots.search.pimc:PimcBot",
        },
        strategy="levata.bots.strategy.tarneeb:TarneebStrategy",
    )
)
