"""8-5-3 (3 players) and 6-3-2-1 (4 players), the Tarnib variants: each seat plays for its
own quota of tricks, and the over- and under-tricks of a deal are paid back in the next one
by card requests the creditor aims freely (``docs/games/eight-five-three.md``).

Roles: the shuffler ``S`` and the first player ``F = next(S)`` (the rules call F the
"dealer": it gets the first card, names trump, takes the Surpriza and leads). Quotas in play
order from F: 8, 5, 3 or 6, 3, 2, 1 (:func:`~levata.engine.family.quotas.quotas`). A deal
runs through these phases, each skipped when it has nothing to do:

``exchange``  the seats with credit ask, in play order from F. A requester first names its
              target (``ask``: any seat that still owes a trick) or gives up the rest of its
              requests (``stop``); then it ``offer``\\ s a card of its hand. The answer is
              automatic (:func:`answer`): the target's highest card of the suit if it holds
              one above the offer (a swap), else the card comes back; either way one credit
              and one debt are used up (D3).
``trump``     F names a suit (no no-trump, D5); F then takes the four Surpriza cards, face up
              for all with ``surpriza_shown``, else seen by F alone.
``discard``   F buries four cards face down, one at a time (never shown to anyone).
``play``      F leads; follow suit, else any card (no duty to trump); ``tricks - quota``.

Decisions beyond the rules' own [D1]..[D7] (which are implemented as written):

* **A request in two actions**: ``ask SEAT`` then ``offer CARD`` (each action carries one
  argument, as every action of the protocol does). Naming the target is public (the rules'
  ``Asked(R, t)``), the cards and whether they were swapped go to the two seats alone (D4).
  A card that comes back was still shown to the target: it sees it for a moment.
* **Discards** one at a time: "3 cards" cannot be submitted; play does not start before the
  fourth and a fifth is not legal (the rules' scenario 6).
* **The end** (D6): after ``match_deals`` deals (default 4 x N, each seat F four times) the
  highest total wins, ties shared; with ``win_at_12`` (3 players) a seat taking 12 tricks or
  more in a deal wins at once, ranked above every total.
* **Duplicate unit**: option ``deal = k`` >= 1 makes a match one deal whose first player and
  carried credits come from the seed (or ``shuffler`` and ``previous``): ``k - 1`` credits
  from a previous deal made up as the rules allow
  (:func:`~levata.engine.family.quotas.practice_previous`), so every seating of a duplicate
  board meets the same exchanges; ``k = 1`` is a first deal, without any. Its scores are that
  deal's ``tricks - quota``.

>>> from levata.engine import game
>>> state = game("eight-five-three").new_match(players=3, seed=3)
>>> state.view(0).phase, len(state.view(0).hand)
('trump', 16)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from levata.engine import events, phases
from levata.engine.cards import Card, Suit, parse_cards  # noqa: F401  (examples)
from levata.engine.contract import (
    Action,
    BadConfig,
    Event,
    GameSpec,
    Option,
    Result,
    SeatView,
)
from levata.engine.family import quotas as qf
from levata.engine.family.surpriza import (
    BURIED,
    BURY,
    EXCHANGED,
    NAME_TRUMP,
    SUITS,
    SurprizaGame,
    named_strain,
)
from levata.engine.family.surpriza import SURPRIZA as SURPRIZA_EV
from levata.engine.family.tricks import CARD_ORDER, PLAY, TRICK_ZONES, TrickGame
from levata.engine.fields import Counter, Fact, Kept, Seats
from levata.engine.games.eight_five_three.worlds import EightFiveThreeWorlds
from levata.engine.registry import register
from levata.engine.rules import TrickRules
from levata.engine.zones import OWNER, SHOWN, Place

__all__ = [
    "SPEC",
    "EightFiveThreeState",
    "answer",
    "next_first",
    "requesters",
    "targets",
]

EXCHANGE, TRUMP, DISCARD = "exchange", "trump", "discard"
ASK, OFFER, STOP = "ask", "offer", "stop"
#: Event kinds: ``ask`` and ``stop`` share the names of the actions; the Surpriza family's
#: are its own (``trump``, ``surpriza``, ``exchanged``, ``discard``, ``buried``).
ROTATIONS = ("seed", "clockwise")


# -- the rules a card player would name --------------------------------------------------------


def answer(offered: Card, target: Iterable[Card]) -> Card | None:
    """The target's automatic answer to an offered card: its highest card of the suit when
    it holds one above the offer, else ``None`` (the offered card comes back: no higher card,
    or none of the suit at all).

    The rules' scenarios 3 and 4:

    >>> answer(Card.parse("4D"), parse_cards("KD 2D"))
    Card('KD')
    >>> print(answer(Card.parse("4D"), parse_cards("2D AS")), answer(Card.parse("4D"), []))
    None None
    """
    best = qf.highest_of(target, offered.suit)
    return best if best is not None and best.rank > offered.rank else None


def requesters(credit: Sequence[int], first: int) -> list[int]:
    """The seats that ask, in the order they ask: play order from F, credit only.

    >>> requesters([0, 2, 0, 1], first=3)
    [3, 1]
    """
    n = len(credit)
    return [(first + i) % n for i in range(n) if credit[(first + i) % n] > 0]


def targets(debt: Sequence[int]) -> list[int]:
    """The seats a requester may ask now: any seat that still owes a trick (free choice).

    The rules' scenario 5: seat 0 +2, seats 1 and 2 -1 each; after one request to seat 1,
    only seat 2 is left.

    >>> targets([0, 1, 1]), targets([0, 0, 1])
    ([1, 2], [2])
    """
    return [s for s, d in enumerate(debt) if d > 0]


def next_first(first: int, players: int, rotation: str = "seed") -> int:
    """F of the next deal: this deal's shuffler (``seed``, D1: "the one who dealt becomes
    dealer", so the roles move one seat against play), or the next seat (``clockwise``).

    The rules' scenario 2: deal 1 F = 0 (S = 2), so deal 2 F = 2 (S = 1).

    >>> next_first(0, 3), next_first(0, 3, "clockwise")
    (2, 1)
    """
    step = 1 if rotation == "clockwise" else -1
    return (first + step) % players


def previous_first(first: int, players: int, rotation: str = "seed") -> int:
    """F of the deal before the one whose F is ``first``.

    >>> previous_first(2, 3), previous_first(1, 3, "clockwise")
    (0, 0)
    """
    step = 1 if rotation == "clockwise" else -1
    return (first - step) % players


# -- the match ---------------------------------------------------------------------------------


class EightFiveThreeState(EightFiveThreeWorlds):
    """A match of 8-5-3 / 6-3-2-1 (``match_deals`` deals, or one): the card play is the
    trick base's."""

    def __init__(
        self,
        spec: GameSpec,
        players: int,
        options: dict[str, Any],
        seed: int,
        deal: Sequence[Card] | None = None,
    ) -> None:
        super().__init__(spec, players, options, seed)
        n = players
        order = self._check_order(deal)
        self.deals = 1 if self.single else options["match_deals"] or 4 * n
        chosen = options["shuffler"]
        if chosen >= n:
            raise BadConfig(f"option shuffler: seat {chosen} does not exist")
        shuffler = chosen if chosen >= 0 else self.rng.randrange(n)  # D1: at random
        self.first = (shuffler + 1) % n
        self._carry_previous(previous_first(self.first, n, self.rotation))
        self.points = [0] * n
        self.deal_no = 0
        self.champion: int | None = None  # a seat that took 12 tricks (win_at_12)
        self._start_deal(order)

    def card_rules(self) -> TrickRules:
        """Follow suit, else any card: no duty to trump."""
        return TrickRules(self.players, self.trump)

    #: In the Surpriza family's words: F takes the Surpriza up into ``surpriza`` and buries
    #: the discards; ``ask`` names a request's target.
    TAKER, BURIAL, TAKEN, ASKED = "first", "discards", "surpriza", ASK

    @property
    def shuffler(self) -> int:
        """``S``, the seat before F: it deals and plays for the smallest quota."""
        return (self.first - 1) % self.players

    # -- the deal -------------------------------------------------------------------------------

    def _start_deal(self, order: list[Card] | None) -> None:
        """E0: 16 or 12 cards each from F, the four left over face down (the Surpriza)."""
        n, f = self.players, self.first
        self.deal_no += 1
        self._deal_quotas(order)  # self.surpriza: the Surpriza cards once F has taken them
        self.order = requesters(self.credit, f)
        self.asked: list[list[int]] = []  # [requester, target] of every request made
        self.stopped: list[int] = []
        self.target: int | None = None  # the target named, its card not yet offered
        self._emit(
            events.DEAL,
            deal=self.deal_no,
            size=qf.HAND_SIZE[n],
            first=f,
            dealer=self.shuffler,
            quotas=list(self.quota),
            credits=list(self.credit),
            debts=list(self.debt),
        )
        self.show_hands()
        self.phase = EXCHANGE
        if self.requester() is None:
            self.phase = TRUMP

    def requester(self) -> int | None:
        """The seat whose request is due: the first in order with credit left."""
        return next((s for s in self.order if self.credit[s] > 0), None)

    def seats_to_call(self) -> tuple[int, ...]:
        if self.phase == EXCHANGE:
            r = self.requester()
            return (r,) if r is not None else ()
        if self.phase in (TRUMP, DISCARD):
            return (self.first,)
        return ()

    def calls(self, seat: int) -> list[Action]:
        p, hand = self.phase, sorted(self.hands[seat], key=CARD_ORDER)  # Card order, in C
        if p == EXCHANGE:
            if self.target is not None:
                return [Action(OFFER, card=c) for c in hand]
            return [Action(ASK, number=t) for t in targets(self.debt)] + [Action(STOP)]
        if p == TRUMP:
            return self.trump_calls()
        if p == DISCARD:
            return [Action(BURY, card=c) for c in hand]
        return []

    def _make_call(self, seat: int, action: Action) -> None:
        kind = action.kind
        if kind == ASK:
            self.target = action.number
            self._emit(ASK, seat=seat, target=action.number)
        elif kind == OFFER:
            self._exchange(seat, action.card)  # type: ignore[arg-type]  # offers carry cards
        elif kind == STOP:
            self.stopped.append(seat)
            self._emit(STOP, seat=seat, forfeited=self.credit[seat])
            self.credit[seat] = 0  # D2: the rest of its requests are given up
            self._after_request()
        elif kind == NAME_TRUMP:
            self._take_surpriza(Suit.parse(action.choice or ""))
            self.phase = DISCARD
        elif kind == BURY:
            self._bury(action.card)  # type: ignore[arg-type]  # discards carry cards

    # -- E1: the exchanges ----------------------------------------------------------------------

    def _exchange(self, seat: int, card: Card) -> None:
        t = self.target
        assert t is not None
        back = answer(card, self.hands[t])
        self.credit[seat] -= 1  # D3: a card that comes back uses the request up too
        self.debt[t] -= 1
        self.asked.append([seat, t])
        self.target = None
        self._answered(seat, t, card, back, swap=back is not None)
        self._after_request()

    def _after_request(self) -> None:
        if self.requester() is None:
            self.phase = TRUMP

    # -- E2, E3: trump, the Surpriza, the discards: the Surpriza family's ----------------------

    def surpriza_shown(self) -> bool:
        return bool(self.options["surpriza_shown"])

    # -- E5: the score --------------------------------------------------------------------------

    def _score_deal(self) -> None:
        n = self.players
        delta = qf.results(self.tricks, self.quota)
        for s in range(n):
            self.points[s] += delta[s]
        self.credit, self.debt = qf.carried(self.tricks, self.quota)
        record: dict[str, Any] = {
            "deal": self.deal_no,
            "first": self.first,
            "trump": self.trump.letter if self.trump is not None else None,
            "quotas": list(self.quota),
            "tricks": list(self.tricks),
            "points": delta,
            "totals": list(self.points),
        }
        self._scored(record)
        if self.options["win_at_12"] and n == 3 and max(self.tricks) >= 12:
            self.champion = self.tricks.index(max(self.tricks))
        if self.champion is not None or self.deal_no >= self.deals:
            self._end()
            return
        self.first = next_first(self.first, n, self.rotation)
        self._start_deal(None)

    END_TELLS_REASON = True

    def _result(self) -> Result:
        keys = [(s == self.champion, p) for s, p in enumerate(self.points)]
        return self._ranked(
            self.points, keys, "twelve" if self.champion is not None else "complete"
        )

    # -- what a seat may know -------------------------------------------------------------------

    PLACES = (
        *SurprizaGame.PLACES,
        Place(
            "discards",
            "the first player's discards (the first player alone sees them)",
            seen=OWNER,
            owner="first",
            shown=False,  # shown by _view_zones, after the Surpriza F took
            counted="cards the first player has discarded",
        ),
        SHOWN,
    )

    FIELDS = (
        *TrickGame.FIELDS,
        Counter("deal", "the deal in progress, from 1", attr="deal_no"),
        Counter("deals", "deals in the match"),
        Counter(
            "first",
            "the seat that acts first this deal: F, the seat after the dealer; it names trump"
            " and leads",
            seat=True,
        ),
        Counter(
            "dealer",
            "the seat that deals this deal: S, the seat before F, who shuffles; smallest quota",
            attr="shuffler",
            derived=True,
        ),
        Counter(
            "target",
            "the seat the requester has named and not yet offered a card to (-1: none)",
            none=-1,
            seat=True,
        ),
        Seats(
            Counter("quota", "the seat's quota of tricks this deal"),
            Counter(
                "score", "the seat's total so far: tricks - quota over the match", attr="points"
            ),
            Counter(
                "credit",
                "requests the seat still has to make this deal (its over-tricks of the deal"
                " before)",
            ),
            Counter(
                "debt",
                "requests the seat may still be asked this deal (its under-tricks of the deal"
                " before)",
            ),
        ),
        Fact(
            "requesters",
            "the seats with credit this deal, in the order they ask",
            attr="order",
            seats=True,
        ),
        Fact("asked", "every request made this deal, in order: [requester, target]", seats=True),
        Fact("stopped", "the requesters that gave up the rest of their requests", seats=True),
        named_strain("F"),
        Kept(
            "champion",
            "the seat that took 12 tricks in one deal (win_at_12); null: none",
            seats=True,
        ),
    )

    def _view_scores(self) -> tuple[float, ...]:
        return tuple(float(p) for p in self.points)

    # -- a world rebuilt from a view ------------------------------------------------------------

    def _settle(self) -> None:
        super()._settle()
        self.rotation = self.options["rotation"]

    def _after_restore(self, view: SeatView) -> None:
        super()._after_restore(view)
        self.champion = None

    # -- a position -----------------------------------------------------------------------------

    def _check_position(self) -> None:
        """Beyond the base's checks: a request due in the exchange."""
        super()._check_position()
        if self.phase == EXCHANGE and self.requester() is None:
            raise BadConfig("position: phase exchange with no request due (no credit left)")


def narrate(ev: Event) -> str | None:
    """Lines for the game's own event kinds.

    >>> narrate(Event(seq=1, kind="ask", seat=0, data={"target": 2}))
    'seat 0 asks seat 2 for a card'
    """
    d, who = ev.data, f"seat {ev.seat}"
    cards = " ".join(map(str, ev.cards))
    if ev.kind == events.DEAL:
        line = (
            f"-- deal {d['deal']}: shuffler seat {d['dealer']}, first seat {d['first']},"
            f" quotas {d['quotas']}"
        )
        if any(d.get("credits", ())):
            line += f"; credits {d['credits']}, debts {d['debts']}"
        return line
    if ev.kind == events.SCORE:
        columns = (d["tricks"], d["quotas"], d["points"], d["totals"])
        parts = [
            f"seat {s}: {t}/{q} -> {p:+d} (total {tot})"
            for s, (t, q, p, tot) in enumerate(zip(*columns, strict=True))
        ]
        return "   score (tricks/quota): " + "; ".join(parts)
    if ev.kind == ASK:
        return f"{who} asks seat {d.get('target')} for a card"
    if ev.kind == EXCHANGED:
        offered = ev.cards[0] if ev.cards else "?"
        back = f", gets {ev.cards[1]}" if len(ev.cards) > 1 else ", it comes back"
        return f"   {who} offers {offered} to seat {d.get('target')}{back}"
    if ev.kind == STOP:
        return f"{who} gives up its {d.get('forfeited')} request(s) left"
    if ev.kind == NAME_TRUMP:
        return f"{who} names trump {d.get('trump')}"
    if ev.kind == SURPRIZA_EV:
        if ev.cards:
            return f"   {who} takes the Surpriza: {cards}"
        return f"   {who} takes the Surpriza, face down"
    if ev.kind == BURY:
        return f"   {who} discards {cards}"
    if ev.kind == BURIED:
        return f"{who} has discarded {d.get('count')} card(s) face down"
    return None


VOCABULARY = EightFiveThreeState.vocabulary(
    choices={NAME_TRUMP: SUITS},
    phases={
        EXCHANGE: "the requests: the seat with credit in turn names a target (`ask`) or gives"
        " up (`stop`), then offers a card; the target answers automatically",
        TRUMP: "the first player names the trump",
        DISCARD: "the first player, with the Surpriza in hand, discards four cards face down,"
        " one at a time",
        PLAY: "the cards are played to tricks, the first player leading",
        phases.OVER: "the match is over",
    },
    zones={
        **{k: v for k, v in TRICK_ZONES.items() if k != "trump"},  # trump is named, not turned
        "surpriza": "the four Surpriza cards the first player took (to it alone, or to all with"
        " surpriza_shown)",
        "discards": "the first player's discards (the first player alone sees them)",
    },
    actions={
        ASK: "name the seat (`number`) the next request goes to: any seat with debt left",
        OFFER: "offer `card` to the target named: it gives its highest card of the suit if it"
        " holds one above, else the card comes back",
        STOP: "give up the rest of your requests",
        NAME_TRUMP: "name the trump suit (`choice`: S, H, C or D)",
        BURY: "discard `card` face down (four in all)",
        PLAY: "play `card` to the trick: follow suit, else any card",
    },
    events={
        events.DEAL: "a deal begins: `data.deal`, `size`, `first`, `dealer` (the shuffler),"
        " `quotas`, `credits`, `debts`",
        ASK: "`seat` names `data.target` for its next request",
        EXCHANGED: "to its two seats: the card offered and the card given back (`cards`),"
        " `data.target`, `data.swap` (false: the card came back)",
        STOP: "`seat` gave up its `data.forfeited` requests left",
        NAME_TRUMP: "the first player named `data.trump`",
        SURPRIZA_EV: "the first player took the Surpriza (`cards`: its four cards, to it alone"
        " unless surpriza_shown; the others are told without cards)",
        BURY: "to the first player: it discarded `cards`",
        BURIED: "the first player has discarded `data.count` cards",
        events.SCORE: "a deal is scored: `data.deal`, `first`, `trump`, `quotas`, `tricks`,"
        " `points`, `totals`",
        events.END: "the match is over: `data.scores`, `winners`, `reason` (complete, or twelve:"
        " a seat took 12 tricks with win_at_12)",
    },
)

SPEC = register(
    GameSpec(
        name="eight-five-three",
        title="8-5-3 / 6-3-2-1",
        players=(3, 4),
        summary="Make your quota of tricks (8-5-3, or 6-3-2-1 at four); over-tricks ask cards"
        " of the seats under.",
        options=(
            Option("match_deals", 0, "deals in the match (0: four per player)", minimum=0),
            Option("surpriza_shown", False, "the Surpriza is shown to all as F takes it"),
            Option("win_at_12", False, "3 players: 12 tricks in one deal win (ignored at 4)"),
            Option("rotation", "seed", "next F: this shuffler (seed) or F's neighbour", ROTATIONS),
            Option(
                "deal",
                0,
                "0 plays the match; k >= 1 plays one deal carrying k-1 credits (the duplicate"
                " unit)",
                minimum=0,
                maximum=5,
            ),
            Option("shuffler", -1, "the first shuffler (-1: drawn from the seed)", minimum=-1),
            Option("previous", "", "tricks - quota of the deal before, e.g. 1,-1,0"),
        ),
        factory=EightFiveThreeState,
        short_options={"match_deals": 3},
        duplicate_unit="deal",
        narrate=narrate,
        vocabulary=VOCABULARY,
        bots={
            "heuristic": "levata.bots.heuristic.eight_five_three:HeuristicBot",
            "pimc": "levata.bots.search.pimc:PimcBot",
        },
        strategy="levata.bots.strategy.eight_five_three:EightFiveThreeStrategy",
    )
)
