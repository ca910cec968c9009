"""Banking Cards (Bancherul): 3 or 4 players, quotas of tricks, and the previous session's
over- and under-tricks paid back as face-down card exchanges (``docs/games/banking.md``).

A **session** (one deal) runs through these phases; each is skipped when it has nothing to do:

``refuse_a``  every seat is asked in turn from the Declarant ``K``; a figure-less hand may
              refuse (redeal, same roles, the credits kept).
``exchange``  the penalty exchanges: each unit of credit asks the first seat to its right
              that still owes a trick; the requester offers a card or waives, the target
              answers automatically (:func:`~levata.engine.games.banking.rules.answer`).
``trump``     ``K`` names the trump (never no-trump); the Surpriza is then turned face up
              and goes to ``K``'s hand, protected.
``declare``   every seat in turn may show its Perechiuțe (four 2s..7s).
``perechiuta`` each Perechiuța asks the round leader with the smallest quota (ranks
              ascending); no offer in the trump suit; the Surpriza cards count as absent.
``final``     the Final Exchange (a seat with >= 3 credits, 4 with 3 players): every other
              seat commits a card at once, each goes to the next participant.
``refuse_b``  as ``refuse_a``, ``K`` judged on all 16 (20) cards; a refusal cancels the
              credits of the redone session.
``gunoi``     ``K`` buries four cards face down, one at a time.
``play``      ``K`` leads; follow suit, else trump, else anything; ``tricks - quota``
              scores, and a round ends when a seat reaches 9 (11) round points.

Decisions beyond the rules' own [D1]..[D23] (all of which are implemented as written):

* **Prompts** (D4): ``to_act()`` is public, so asking only the figure-less seats would tell
  the table who may refuse (and a world rebuilt from a view could not agree with it). Every
  seat is asked in both refusal windows, as with the spec's ``uniformPrompts``; a seat with
  a figure has only ``keep``. Perechiuța declarations are asked of every seat the same way.
* **Gunoi** (S8): four single ``discard`` actions, so "3 or 5 cards" cannot be submitted: play
  does not start before the fourth, and a fifth is not legal.
* **Final Exchange** commits are ``give`` (not the shared ``pass``, which means "do nothing";
  a seat ending its declarations passes).
* **MAL** (D11, D12): ``mal_on_forfeit`` makes :meth:`BankingState.forfeit_scores` charge a
  forfeiting seat the MAL (the referee ends the match there); :meth:`BankingState.mal`
  applies it in the engine (points, ``T + 2``, the session redone with the credits kept). A
  MAL never ends a round by itself (the threshold rises with it).
* **Cap** (D23): at the cap, the tie-break's "last round" is the round in progress.
* **Duplicate unit**: option ``session`` >= 1 makes a match one session whose Dealer, carried
  credits and round points are fixed by the seed (or by ``dealer``, ``previous``,
  ``round_points``): ``session = k`` carries ``k - 1`` credits. Every seating of a duplicate
  board shares its seed, so each entry meets the same session in every seat. Its scores are
  that session's ``tricks - quota``.

>>> from levata.engine import game
>>> state = game("banking").new_match(players=4, seed=3)
>>> state.view(0).phase, len(state.view(0).hand)
('refuse_a', 12)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from levata.engine import actions, events, phases
from levata.engine.cards import Card, Suit
from levata.engine.contract import (
    Action,
    BadConfig,
    Event,
    GameSpec,
    Option,
    Result,
    SeatView,
)
from levata.engine.family.quotas import parse_row, practice_previous
from levata.engine.family.surpriza import (
    BURIED,
    EXCHANGED,
    NAME_TRUMP,
    SUITS,
    SurprizaGame,
    named_strain,
)
from levata.engine.family.surpriza import BURY as DISCARD
from levata.engine.family.surpriza import SURPRIZA as SURPRIZA_EV
from levata.engine.family.tricks import CARD_ORDER, PLAY, TRICK_ZONES, TrickGame
from levata.engine.fields import Counter, Fact, Kept, Seats
from levata.engine.games.banking import rules as br
from levata.engine.games.banking.worlds import BankingWorlds
from levata.engine.position import Position
from levata.engine.registry import register
from levata.engine.rules import TrickRules
from levata.engine.zones import OWNER, SHOWN, Place

__all__ = ["SPEC", "BankingState", "parse_row", "practice_previous"]

# -- phases, actions and events of its own ------------------------------------------------------
REFUSE_A, EXCHANGE, TRUMP, DECLARE, PERECHIUTA, FINAL, REFUSE_B, GUNOI = (
    "refuse_a",
    "exchange",
    "trump",
    "declare",
    "perechiuta",
    "final",
    "refuse_b",
    "gunoi",
)
KEEP, REFUSE, OFFER, WAIVE, DECLARE_KIND, GIVE = (
    "keep",
    "refuse",
    "offer",
    "waive",
    "declare",
    "give",
)
#: Event kinds (``refuse``, ``waive``, ``trump``, ``declare`` and ``discard`` share the names
#: of the actions they record; the Surpriza family's are its own: ``trump``, ``surpriza``,
#: ``exchanged``, ``discard``, ``buried``).
EXCHANGE_EV, COMMITTED, FINAL_EV, PASSED, ROUND = (
    "exchange",
    "committed",
    "final",
    "passed",
    "round",
)
#: A session's phases in order (each skipped when it has nothing to do).
SESSION = (REFUSE_A, EXCHANGE, TRUMP, DECLARE, PERECHIUTA, FINAL, REFUSE_B, GUNOI, PLAY)
PENALTY, PERECHIUTA_STAGE = "penalty", "perechiuta"


def _tuples(rows: list[list[int]]) -> list[tuple[int, ...]]:
    """A fact's rows read back as the tuples the match keeps."""
    return [tuple(r) for r in rows]


class BankingState(BankingWorlds):
    """A Banking Cards match (a Tour, or one session): the trick play is :class:`TrickGame`'s."""

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
        self.rounds = options["rounds"] or n
        chosen = options["dealer"]
        if chosen >= n:
            raise BadConfig(f"option dealer: seat {chosen} does not exist")
        first_dealer = chosen if chosen >= 0 else self.rng.randrange(n)  # D1: uniform
        # A made-up session before: its Declarant was the present Dealer.
        previous = self._carry_previous(first_dealer)
        points = parse_row(options["round_points"], n, "round_points")
        if points is None:
            points = list(previous) if previous is not None and self.single else [0] * n
        self.round_no = 1
        self.kickoff = (first_dealer + 1) % n
        self.dealer = first_dealer
        self.round_pts = list(points)
        self.tour_pts = list(points)
        self.start_pts = list(points)  # what the match began with: its scores are the change
        self.mals = 0
        self.tops = [0] * n
        self.last_round = [0] * n
        self.sessions = 0  # every deal, redeals included (D23's max_sessions)
        self.reason = "complete"
        self._start_session(order, cancelled=False)

    def card_rules(self) -> TrickRules:
        """Follow suit, else trump if you can (no duty to over-trump or to beat)."""
        return TrickRules(self.players, self.trump, must_trump=True)

    # -- the session ----------------------------------------------------------------------------

    @property
    def declarant(self) -> int:
        """``K``: the seat after the Dealer; it names trump, takes the Surpriza and leads."""
        return (self.dealer + 1) % self.players

    #: In the Surpriza family's words: K takes the Surpriza up into ``turned`` and buries
    #: the Gunoi; ``exchange`` names a request's target.
    TAKER, BURIAL, TAKEN, ASKED = "declarant", "gunoi", "turned", EXCHANGE_EV

    def threshold(self) -> int:
        return br.round_threshold(self.players, self.mals)

    def _start_session(self, order: list[Card] | None, cancelled: bool) -> None:
        """S0: deal from ``K`` in play order, four cards to the Surpriza; plan the exchanges."""
        n, k = self.players, self.declarant
        self.sessions += 1
        self.cancelled = cancelled
        self.protected: set[Card] = set()
        self._deal_quotas(order)
        plan = not cancelled
        self.requests = br.requests(self.credit, self.debt, k) if plan else []
        self.finals = br.final_exchanges(self.credit, k) if plan else []
        self.step = 0  # the seat asked (from K), the request made, the final exchange...
        self.declared: list[tuple[int, int]] = []
        self.asks: list[tuple[int, int, int]] = []  # Perechiuța (holder, target, rank)
        self.lapsed: list[tuple[int, int]] = []  # Perechiuțe without a target (D7)
        self.committed: dict[int, Card] = {}
        self.phase = REFUSE_A
        self._emit(
            events.DEAL,
            deal=self.sessions,
            size=br.HAND_SIZE[n],
            first=k,
            dealer=self.dealer,
            round=self.round_no,
            quotas=list(self.quota),
            requests=[list(r) for r in self.requests],
            finals=list(self.finals),
        )
        self.show_hands()

    def _asked(self) -> int:
        return (self.declarant + self.step) % self.players

    def seats_to_call(self) -> tuple[int, ...]:
        p = self.phase
        if p in (REFUSE_A, REFUSE_B, DECLARE):
            return (self._asked(),)
        if p == EXCHANGE:
            return (self.requests[self.step][0],)
        if p == PERECHIUTA:
            return (self.asks[self.step][0],)
        if p in (TRUMP, GUNOI):
            return (self.declarant,)
        if p == FINAL:
            return tuple(s for s in self.participants() if s not in self.committed)
        return ()

    def participants(self) -> list[int]:
        """The seats of the Final Exchange in progress: all but its qualifier, play order."""
        q = self.finals[self.step]
        return [(q + i) % self.players for i in range(1, self.players)]

    def calls(self, seat: int) -> list[Action]:
        p, hand = self.phase, sorted(self.hands[seat], key=CARD_ORDER)  # Card order, in C
        if p in (REFUSE_A, REFUSE_B):
            return [Action(KEEP)] + ([Action(REFUSE)] if br.figureless(hand) else [])
        if p == EXCHANGE:
            return [Action(OFFER, card=c) for c in hand] + [Action(WAIVE)]
        if p == PERECHIUTA:  # D8: an offer in trump is not a legal action
            offers = [Action(OFFER, card=c) for c in hand if c.suit != self.trump]
            return [*offers, Action(WAIVE)]
        if p == TRUMP:
            return self.trump_calls()
        if p == DECLARE:
            return [Action(DECLARE_KIND, number=r) for r in self.quads(seat)] + [
                Action(actions.PASS)
            ]
        if p == FINAL:
            return [Action(GIVE, card=c) for c in hand] if seat not in self.committed else []
        if p == GUNOI:
            return [Action(DISCARD, card=c) for c in hand]
        return []

    def quads(self, seat: int) -> list[int]:
        """The Carboava ranks (2..7) whose four cards ``seat`` holds and has not declared."""
        ranks = [c.rank for c in self.hands[seat]]
        done = {r for s, r in self.declared if s == seat}
        return [r for r in br.CARBOAVE if ranks.count(r) == 4 and r not in done]

    def _make_call(self, seat: int, action: Action) -> None:
        kind = action.kind
        if kind == REFUSE:
            self._refuse(seat)
        elif kind == KEEP:
            self._next_asked()
        elif kind in (OFFER, WAIVE):
            self._request(seat, action.card)
        elif kind == NAME_TRUMP:
            self._take_surpriza(Suit.parse(action.choice or ""))  # S4: face up, into K's hand
            self.protected = set(self.turned)  # K's Surpriza cards: no Perechiuța takes them
            self._advance()
        elif kind == DECLARE_KIND:
            self._declare(seat, action.number or 0)
        elif kind == actions.PASS:
            self._next_asked()
        elif kind == GIVE:
            self._commit(seat, action.card)  # type: ignore[arg-type]  # gives carry cards
        elif kind == DISCARD:
            self._bury(action.card)  # type: ignore[arg-type]  # discards carry cards

    def _advance(self) -> None:
        """Move to the next phase that has something to do (S2..S9 in order)."""
        nxt = SESSION[SESSION.index(self.phase) + 1]
        self.phase, self.step = nxt, 0
        if nxt == EXCHANGE and not self.requests:
            self._advance()
        elif nxt == PERECHIUTA:
            self._plan_perechiute()
            if not self.asks:
                self._advance()
        elif nxt == FINAL and not self.finals:
            self._advance()
        elif nxt == PLAY:
            self.leader = self.declarant  # the Atac

    def _next_asked(self) -> None:
        self.step += 1
        if self.step == self.players:
            self._advance()

    # -- S1, S7: refusals -----------------------------------------------------------------------

    def _refuse(self, seat: int) -> None:
        window = "before" if self.phase == REFUSE_A else "after"
        self._emit(REFUSE, seat=seat, window=window)
        # S1 keeps the credits (D16); S7 cancels them for the redone session (seed 3.2).
        self._redo(cancelled=self.cancelled or window == "after")

    def _redo(self, cancelled: bool) -> None:
        """R: the same Dealer, Declarant and quotas; a fresh shuffle."""
        if self._capped():
            return
        self._start_session(None, cancelled)

    def _capped(self) -> bool:
        if self.sessions < self.options["max_sessions"]:
            return False
        self.reason = "cap"
        self._end()
        return True

    # -- S2, S5: exchanges ----------------------------------------------------------------------

    def _request(self, seat: int, card: Card | None) -> None:
        if self.phase == EXCHANGE:
            _, target = self.requests[self.step]
            stage = PENALTY
        else:
            _, target, _ = self.asks[self.step]
            stage = PERECHIUTA_STAGE
        if card is None:
            self._emit(WAIVE, seat=seat, target=target, stage=stage)
        else:
            self._exchange(seat, target, card, stage)
        self.step += 1
        if self.step == len(self.requests if self.phase == EXCHANGE else self.asks):
            self._advance()

    def _exchange(self, seat: int, target: int, card: Card, stage: str) -> None:
        kept = self.protected if stage == PERECHIUTA_STAGE and target == self.declarant else ()
        case, back = br.answer(card, self.hands[target], kept)
        self._emit(EXCHANGE_EV, seat=seat, target=target, stage=stage)
        self._answered(seat, target, card, back, case=case, stage=stage)

    def _hand_over(self, giver: int, receiver: int, card: Card) -> None:
        super()._hand_over(giver, receiver, card)
        self.protected.discard(card)  # a Surpriza card that leaves K is protected no more

    # -- S5: Perechiuțe -------------------------------------------------------------------------

    def _declare(self, seat: int, rank: int) -> None:
        cards = tuple(sorted(c for c in self.hands[seat] if c.rank == rank))
        self.declared.append((seat, rank))
        with self.showing(cards, f"hand:{seat}", None):  # face up, then back in the hand
            self._emit(DECLARE_KIND, seat=seat, cards=cards, rank=rank)

    def _plan_perechiute(self) -> None:
        self.asks = []
        for holder, rank in br.perechiuta_order(self.declared):
            target = br.perechiuta_target(holder, self.round_pts, self.quota)
            if target is None:  # D7: the lone leader asks nobody
                self.lapsed.append((holder, rank))
            else:
                self.asks.append((holder, target, rank))

    # -- S6: the Final Exchange -----------------------------------------------------------------

    def _commit(self, seat: int, card: Card) -> None:
        self.committed[seat] = card
        self._emit(COMMITTED, seat=seat)
        people = self.participants()
        if len(self.committed) < len(people):
            return
        to = br.receivers(people)
        for giver, card in self.committed.items():  # PASSED tells each pair
            self._hand_over(giver, to[giver], card)
        self._emit(FINAL_EV, seat=self.finals[self.step], participants=people)
        for giver in people:
            card = self.committed[giver]
            self._emit(PASSED, audience={giver, to[giver]}, seat=giver, cards=(card,), to=to[giver])
        self.committed = {}
        self.step += 1
        if self.step == len(self.finals):
            self._advance()

    # -- S8: the Gunoi --------------------------------------------------------------------------

    def _bury(self, card: Card) -> None:
        self.protected.discard(card)
        super()._bury(card)

    def _after_burial(self) -> None:
        self._advance()

    # -- S10: the score, the round, the Tour ----------------------------------------------------

    def _score_deal(self) -> None:
        n = self.players
        delta = [t - q for t, q in zip(self.tricks, self.quota, strict=True)]
        for s in range(n):
            self.round_pts[s] += delta[s]
            self.tour_pts[s] += delta[s]
        self.credit, self.debt = br.carried(self.tricks, self.quota)
        record: dict[str, Any] = {
            "deal": self.sessions,
            "round": self.round_no,
            "dealer": self.dealer,
            "trump": self.trump.letter if self.trump is not None else None,
            "quotas": list(self.quota),
            "tricks": list(self.tricks),
            "points": delta,
            "round_points": list(self.round_pts),
            "totals": list(self.tour_pts),
        }
        self._scored(record)
        if self.single:
            self._end()
            return
        if max(self.round_pts) >= self.threshold():
            self._end_round()
            if self.over:
                return
        else:
            self.dealer = (self.dealer + 1) % n
        if not self._capped():
            self._start_session(None, cancelled=False)

    def _end_round(self) -> None:
        n, top = self.players, max(self.round_pts)
        for s in range(n):
            self.tops[s] += self.round_pts[s] == top  # shared tops count for each (D2)
        self.last_round = list(self.round_pts)
        self._emit(ROUND, round=self.round_no, round_points=list(self.round_pts))
        if self.round_no == self.rounds:
            self._end()
            return
        self.round_no += 1
        self.kickoff = (self.kickoff + 1) % n
        self.dealer = (self.kickoff - 1) % n
        self.round_pts = [0] * n
        self.mals = 0

    END_TELLS_REASON = True

    def _end(self) -> None:
        if self.reason == "cap" and not self.single:
            self.last_round = list(self.round_pts)  # D23: the round in progress is the last
        super()._end()

    def _points(self) -> list[int]:
        """What this match has scored per seat: Tour points (one session: its own)."""
        return [t - s for t, s in zip(self.tour_pts, self.start_pts, strict=True)]

    def _result(self) -> Result:
        pts = self._points()
        if self.single:
            return self._ranked(pts, [(p,) for p in pts], self.reason)
        return self._ranked(pts, br.standing(pts, self.tops, self.last_round), self.reason)

    # -- MAL ------------------------------------------------------------------------------------

    def mal(self, seat: int) -> None:
        """A MAL by ``seat`` (the ``mal_on_forfeit`` hook): -6 (-4 for 3 players) to it, +2 to
        every other seat, the threshold +2 this round, and the session redone with its
        credits (the rules' "Schimburile păstrându-se")."""
        row = br.mal_points(self.players, seat, self.options["mal_literal_3p"])
        for s, p in enumerate(row):
            self.round_pts[s] += p
            self.tour_pts[s] += p
        self.mals += 1
        self._emit(
            events.SCORE,
            mal=seat,
            points=row,
            round_points=list(self.round_pts),
            totals=list(self.tour_pts),
            threshold=self.threshold(),
        )
        self._redo(self.cancelled)

    def forfeit_scores(self, seats: Sequence[int]) -> tuple[float, ...]:
        """With ``mal_on_forfeit``, each forfeiting seat's MAL counted in (the state is not
        changed); otherwise the scores so far."""
        if not self.options["mal_on_forfeit"]:
            return super().forfeit_scores(seats)
        pts = self._points()
        for seat in seats:
            for s, p in enumerate(
                br.mal_points(self.players, seat, self.options["mal_literal_3p"])
            ):
                pts[s] += p
        return tuple(float(p) for p in pts)

    # -- what a seat may know -------------------------------------------------------------------

    PLACES = (
        *SurprizaGame.PLACES,
        Place(
            "gunoi",
            "the Declarant's buried cards (the Declarant alone sees it)",
            seen=OWNER,
            owner="declarant",
            shown=False,  # shown by _view_zones, after the Surpriza
            counted="cards the Declarant has buried",
        ),
        SHOWN,
    )

    FIELDS = (
        *TrickGame.FIELDS,
        Counter("round", "the round in progress, from 1", attr="round_no"),
        Counter("rounds", "rounds in the Tour (one kick-off per seat by default)"),
        Counter(
            "session",
            "deals so far in the match, redeals included (capped by max_sessions)",
            attr="sessions",
        ),
        Counter("dealer", "the seat that deals this deal: the Dealer of this session", seat=True),
        Counter(
            "declarant",
            "the Declarant K (the seat after the Dealer): names trump, leads",
            derived=True,
        ),
        Counter("kickoff", "the kick-off Declarant of the round in progress", seat=True),
        Counter(
            "threshold",
            "round points that end the round (9 or 11, +2 per MAL this round)",
            attr="round_threshold",
            derived=True,
        ),
        Counter("mals", "MALs this round"),
        Counter(
            "step", "which seat (counted from the Declarant), request or Final Exchange is due"
        ),
        Seats(
            Counter("quota", "the seat's quota of tricks this session"),
            Counter("round_points", "the seat's points this round", attr="round_pts"),
            Counter("credit", "tricks the seat made over its quota last session (its requests)"),
            Counter(
                "debt", "tricks the seat made under its quota last session (requests it answers)"
            ),
        ),
        Fact(
            "requests",
            "the penalty exchanges of this session, in order: [requester, target]",
            read=_tuples,
            seats=True,
        ),
        Fact("finals", "the seats whose credit obliges a Final Exchange, in order", seats=True),
        Fact(
            "perechiute",
            "the Perechiuța requests, in order: [holder, target, rank]",
            attr="asks",
            read=_tuples,
        ),
        Fact("declared", "the Perechiuțe shown this session: [holder, rank]", read=_tuples),
        Fact(
            "lapsed",
            "the Perechiuțe whose holder leads the round alone: no request (D7)",
            read=_tuples,
        ),
        Fact(
            "committed",
            "the seats that have committed their Final Exchange card",
            attr="committed_seats",
            derived=True,
        ),
        Fact(
            "cancelled",
            "true when a refusal after the exchanges cancelled this session's exchanges",
        ),
        Fact("tour_points", "each seat's Tour points", attr="tour_pts", each_seat=True),
        Fact(
            "start_points",
            "each seat's points when the match began (one-session matches)",
            attr="start_pts",
            each_seat=True,
        ),
        Fact(
            "tops",
            "rounds each seat finished with the highest round points (a tie-break)",
            each_seat=True,
        ),
        Fact(
            "last_round",
            "each seat's points in the last finished round (a tie-break)",
            each_seat=True,
        ),
        named_strain("the Declarant"),
        Kept(
            "commits",
            "the Final Exchange cards committed so far, in order: [seat, card]",
            attr="committed",
            show=lambda d: [[s, str(c)] for s, c in d.items()],
            read=lambda v: {s: Card.parse(c) for s, c in v},
        ),
        Kept("reason", "why the match ended (or will): complete, or cap (max_sessions)"),
    )

    @property
    def round_threshold(self) -> int:
        """:meth:`threshold`, as the view shows it."""
        return self.threshold()

    @property
    def committed_seats(self) -> list[int]:
        """The seats that committed a Final Exchange card (which card is theirs to know)."""
        return sorted(self.committed)

    def _view_facts(self, seat: int) -> dict[str, Any]:
        facts = super()._view_facts(seat)
        if seat == self.declarant and self.protected:
            facts["protected"] = sorted(str(c) for c in self.protected)
        return facts

    def _view_scores(self) -> tuple[float, ...]:
        return tuple(float(p) for p in self._points())

    # -- a world rebuilt from a view ------------------------------------------------------------

    def _after_restore(self, view: SeatView) -> None:
        super()._after_restore(view)
        self.committed = {}  # who committed is public, which card is not: the worlds choose
        self.protected = {Card.parse(x) for x in view.facts.get("protected", ())}
        self.reason = "complete"
        self.deal_log = [d for d in self.deal_log if "mal" not in d]  # a MAL scores no deal

    # -- a position -----------------------------------------------------------------------------

    def _position_places(self) -> dict[str, list[Card]]:
        """Beside the Surpriza taken up, also in a hand: the Declarant's cards still protected."""
        return {**super()._position_places(), "protected": sorted(self.protected)}

    def _load_places(self, pos: Position) -> None:
        super()._load_places(pos)
        self.protected = set(pos.cards("protected"))

    def _check_position(self) -> None:
        """Beyond the base's checks: the seats named beside ranks, and a step within what the
        phase goes through."""
        super()._check_position()
        n, p = self.players, self.phase
        seats = [*self.committed, *(row[0] for row in (*self.asks, *self.declared, *self.lapsed))]
        seats += [row[1] for row in self.asks]
        if any(not 0 <= s < n for s in seats):
            raise BadConfig(f"position: a seat number is not one of the {n} seats")
        due = {EXCHANGE: len(self.requests), PERECHIUTA: len(self.asks), FINAL: len(self.finals)}
        if p != phases.OVER and not 0 <= self.step < due.get(p, n):
            raise BadConfig(f"position: step {self.step} is past what phase {p} goes through")


def narrate(ev: Event) -> str | None:  # noqa: C901  (one flat branch per event kind)
    """Lines for Banking's own event kinds.

    >>> narrate(Event(seq=1, kind="exchange", seat=0, data={"target": 2, "stage": "penalty"}))
    'seat 0 asks seat 2 for a card (penalty exchange)'
    """
    d, who = ev.data, f"seat {ev.seat}"
    cards = " ".join(map(str, ev.cards))
    if ev.kind == events.DEAL:
        line = (
            f"-- session {d['deal']} (round {d['round']}): dealer seat {d['dealer']},"
            f" Declarant seat {d['first']}, quotas {d['quotas']}"
        )
        if d.get("requests"):
            line += f"; exchanges {' '.join(f'{r}->{t}' for r, t in d['requests'])}"
        if d.get("finals"):
            line += f"; Final Exchange for {d['finals']}"
        return line
    if ev.kind == events.SCORE:
        if "mal" in d:
            return f"   MAL by seat {d['mal']}: {d['points']}, threshold now {d['threshold']}"
        columns = (d["tricks"], d["quotas"], d["points"], d["round_points"], d["totals"])
        parts = [
            f"seat {s}: {t}/{q} -> {p:+d} (round {r}, Tour {tot})"
            for s, (t, q, p, r, tot) in enumerate(zip(*columns, strict=True))
        ]
        return "   score (tricks/quota): " + "; ".join(parts)
    if ev.kind == REFUSE:
        return f"{who} refuses the deal ({d.get('window')} the exchanges): redeal"
    if ev.kind == EXCHANGE_EV:
        return f"{who} asks seat {d.get('target')} for a card ({d.get('stage')} exchange)"
    if ev.kind == EXCHANGED:
        back = f", gets {ev.cards[1]}" if len(ev.cards) > 1 else ", it comes back"
        offered = ev.cards[0] if ev.cards else "?"
        return f"   {who} offers {offered} to seat {d.get('target')}{back} (case {d.get('case')})"
    if ev.kind == WAIVE:
        return f"{who} waives its request to seat {d.get('target')}"
    if ev.kind == NAME_TRUMP:
        return f"{who} names trump {d.get('trump')}"
    if ev.kind == SURPRIZA_EV:
        return f"   the Surpriza, face up to {who}: {cards}"
    if ev.kind == DECLARE_KIND:
        return f"{who} shows a Perechiuța: {cards}"
    if ev.kind == COMMITTED:
        return f"{who} commits a card to the Final Exchange"
    if ev.kind == FINAL_EV:
        return f"Final Exchange for {who}: {d.get('participants')} pass one card on"
    if ev.kind == PASSED:
        return f"   {who} passes {cards} to seat {d.get('to')}"
    if ev.kind == DISCARD:
        return f"   {who} buries {cards}"
    if ev.kind == BURIED:
        return f"{who} has buried {d.get('count')} card(s) in the Gunoi"
    if ev.kind == ROUND:
        return f"== round {d.get('round')} ends: round points {d.get('round_points')}"
    return None


VOCABULARY = BankingState.vocabulary(
    choices={NAME_TRUMP: SUITS},
    phases={
        REFUSE_A: "refusal window A, before any exchange: each seat in turn from the Declarant"
        " keeps or (figure-less) refuses the deal; credits are kept on a redeal",
        EXCHANGE: "penalty exchanges: the requester of `facts.requests[step]` offers a card or"
        " waives; the target answers automatically",
        TRUMP: "the Declarant names the trump",
        DECLARE: "each seat in turn from the Declarant may show Perechiuțe (four 2s..7s)",
        PERECHIUTA: "Perechiuța requests: the holder of `facts.perechiute[step]` offers a"
        " non-trump card or waives",
        FINAL: "the Final Exchange for `facts.finals[step]`: every other seat commits a card at"
        " once; each goes to the next participant",
        REFUSE_B: "refusal window B, after the exchanges: as refuse_a, the Declarant judged on"
        " its full hand; a refusal cancels the credits of the redone session",
        GUNOI: "the Declarant buries four cards face down, one at a time",
        PLAY: "the cards are played to tricks, the Declarant leading the first",
        phases.OVER: "the match is over",
    },
    zones={
        **{k: v for k, v in TRICK_ZONES.items() if k != "trump"},  # trump is named, not turned
        "surpriza": "the four Surpriza cards, turned face up for the Declarant (from trump on)",
        "gunoi": "the Declarant's buried cards (the Declarant alone sees it)",
    },
    facts={
        "protected": "the Declarant's Surpriza cards, which a Perechiuța cannot take (to the"
        " Declarant only)",
    },
    actions={
        KEEP: "keep the deal",
        REFUSE: "refuse the deal (only a hand without A, K, Q or J): it is dealt again",
        OFFER: "offer `card` to the target of the request: it gives its highest higher card of"
        " the suit, else its lowest of the suit, else the card comes back",
        WAIVE: "give up this request",
        NAME_TRUMP: "name the trump suit (`choice`: S, H, C or D)",
        DECLARE_KIND: "show the four cards of rank `number` (2..7): a Perechiuța",
        actions.PASS: "show no (more) Perechiuțe",
        GIVE: "commit `card` to the Final Exchange",
        DISCARD: "bury `card` in the Gunoi (four in all)",
        actions.PLAY: "play `card` to the trick: follow suit, else trump, else anything",
    },
    events={
        events.DEAL: "a session begins: `data.deal`, `size`, `first` (the Declarant), `dealer`,"
        " `round`, `quotas`, `requests`, `finals`",
        REFUSE: "`seat` refused the deal (`data.window`: before or after the exchanges)",
        EXCHANGE_EV: "`seat` asked `data.target` for a card (`data.stage`: penalty or perechiuta)",
        EXCHANGED: "to its two seats: the card offered and the card given back (`cards`),"
        " `data.case` a, b or c",
        WAIVE: "`seat` gave up its request to `data.target`",
        NAME_TRUMP: "the Declarant named `data.trump`",
        SURPRIZA_EV: "the Surpriza turned face up (`cards`), into the Declarant's hand",
        DECLARE_KIND: "`seat` showed a Perechiuța (`cards`, `data.rank`)",
        COMMITTED: "`seat` committed its Final Exchange card",
        FINAL_EV: "the Final Exchange for `seat` is made among `data.participants`",
        PASSED: "to giver and receiver: `seat` passed `cards` to `data.to`",
        DISCARD: "to the Declarant: it buried `cards`",
        BURIED: "the Declarant has buried `data.count` cards",
        events.SCORE: "a session is scored: `data.quotas`, `tricks`, `points`, `round_points`,"
        " `totals`; or a MAL (`data.mal`: the seat; `points`, `round_points`, `totals`,"
        " `threshold`)",
        ROUND: "a round is over: `data.round`, `round_points`",
        events.END: "the match is over: `data.scores`, `winners`, `reason`",
    },
)

SPEC = register(
    GameSpec(
        name="banking",
        title="Banking Cards",
        players=(3, 4),
        summary="Make your quota of tricks; over- and under-tricks become card exchanges.",
        options=(
            Option("rounds", 0, "rounds in the Tour (0: one per player)", minimum=0, maximum=12),
            Option("max_sessions", 400, "deals after which the Tour ends (D23)", minimum=1),
            Option("mal_on_forfeit", False, "a seat that forfeits is charged a MAL"),
            Option("mal_literal_3p", False, "3 players: a MAL costs -6, not -4 (seed literal)"),
            Option(
                "session",
                0,
                "0 plays the Tour; k >= 1 plays one session carrying k-1 credits (the"
                " duplicate unit)",
                minimum=0,
                maximum=7,
            ),
            Option("dealer", -1, "the first Dealer (-1: drawn from the seed)", minimum=-1),
            Option("previous", "", "tricks - quota of the session before, e.g. 2,-1,1,-2"),
            Option("round_points", "", "round points at the start, e.g. 5,5,-4,-6"),
        ),
        factory=BankingState,
        short_options={"max_sessions": 3},
        duplicate_unit="session",
        narrate=narrate,
        vocabulary=VOCABULARY,
        bots={
            "heuristic": "levata.bots.heuristic.banking:HeuristicBot",
            "pimc": "levata.bots.search.pimc:PimcBot",
        },
        strategy="levata.bots.strategy.banking:BankingStrategy",
    )
)
