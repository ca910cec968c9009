"""Trombon strategy: what the bots know of the game beyond its rules.

Suits never matter in Trombon, so everything here counts cards by rank (13 counts, index
``rank - 2``, the Ace last).

* **The rules of thumb** the heuristic plays by and the rollouts reuse: the truth when it can
  (every card of the claimed rank), a lie when it must (its least useful card: a rank it
  holds fewest of), and a call when :func:`lie_odds` says the claim is unlikely from the
  caller's own hand and the cards it has seen (a claim of more copies than it can see left
  is impossible).
* **The opponent model** (:func:`honesty`): how likely a seat is to tell the truth when it
  can, from what calls turned up of its plays so far (a Beta prior of mostly honest
  players). In a world whose claimant could have told the truth, the world is split in two:
  the play as the truth (weight: the model's honesty) and as a lie (the rest); a world whose
  claimant held too few cards of the rank is a lie for sure. The search weighs the two by
  their likelihood, which is the likelihood of the claim given the claimant's possible
  hands; the uniform worlds alone would make almost every claim a lie.
* **The search** (:class:`SearchBot`): determinized search over worlds rebuilt from the
  view (the one-decision, paired root of IS-MCTS: every candidate played out on the same
  world with the same luck, common random numbers), candidates being the window's calls or a
  handful of whole plays (the truth, the truth with a bluff card, a lie of one or two
  cards); rollouts run on :class:`RankSim`, a fast copy of a world that plays by counts of
  ranks, by the rules of thumb above, with no events or views
  (:mod:`levata.engine.games.trombon.playout`), or rather on its C twin
  (:mod:`levata.engine.trombon_playouts`), which the search uses by default.

>>> lie_odds(claimed=3, left=2, unknown=30, held=8)
1.0
>>> round(lie_odds(claimed=1, left=3, unknown=30, held=8), 2)
0.33
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from levata.bots.clock import decision_start
from levata.engine import Action, SeatView
from levata.engine.cards import FRENCH_RANKS, Card
from levata.engine.games.trombon.playout import (
    RANKS,
    Caller,
    RankSim,
    _counts,
    _holds,
    _idx,
    lie_card,
    lie_odds,
    opening_rank,
)
from levata.engine.games.trombon.world import (
    PILE,
    HistoryReader,
    RankDealer,
    read_history,
    remember,
)
from levata.engine.trombon_playouts import TrombonPlayout

__all__ = [
    "Caller",
    "RankSim",
    "SearchBot",
    "Table",
    "call_choice",
    "call_worth",
    "callers",
    "claim_false",
    "cornered",
    "honesty",
    "lie_odds",
    "play_choice",
]

#: The model's prior of a seat telling the truth when it can: Beta(a, b).
PRIOR_TRUE, PRIOR_LIE = 3.0, 1.0


def honesty(history: Sequence[object], seat: int) -> float:
    """The model: how likely ``seat`` plays the truth when it can, from the calls that turned
    its plays up (``call`` events of the history) and a prior of mostly honest players.

    >>> honesty([], 1)
    0.75
    """
    true = false = 0
    for ev in history:
        data = getattr(ev, "data", {})
        if getattr(ev, "kind", "") == "call" and data.get("accused") == seat:
            if data.get("call") == "trombon" and data.get("honest"):
                true += 1
            elif data.get("call") == "trombon":
                false += 1
    return (PRIOR_TRUE + true) / (PRIOR_TRUE + PRIOR_LIE + true + false)


#: Calls per window a counting player makes (the rule of thumb's own rate, about); a seat
#: calling more calls the excess at random. The prior: one call in five windows.
USUAL_RATE, PRIOR_CALLS, PRIOR_WINDOWS = 0.25, 1.0, 5.0


def callers(history: Sequence[object], players: int) -> list[Caller]:
    """The model of every seat's calls, from the plays it could call and the calls it made
    (its void calls, ``beaten``, count too).

    >>> callers([], 3)[0]
    Caller(wild=0.0, silent=False, carti=0.0)
    """
    windows, calls, carti = [0] * players, [0] * players, [0] * players
    out: set[int] = set()
    for ev in history:
        kind, seat = getattr(ev, "kind", ""), getattr(ev, "seat", None)
        data = getattr(ev, "data", {})
        if kind == "play":
            for s in range(players):
                if s != seat and s not in out:
                    windows[s] += 1
        elif kind == "call" and seat is not None:
            calls[seat] += 1
            carti[seat] += data.get("call") == "trombon_de_carti"
            for b in data.get("beaten", ()):
                calls[b] += 1
        elif kind == "finish" and seat is not None:
            out.add(seat)
    model = []
    for s in range(players):
        rate = (calls[s] + PRIOR_CALLS) / (windows[s] + PRIOR_WINDOWS)
        model.append(
            Caller(
                wild=max(0.0, (rate - USUAL_RATE) / (1 - USUAL_RATE)),
                silent=windows[s] >= 8 and calls[s] == 0,
                carti=carti[s] / max(1, calls[s]),
            )
        )
    return model


@dataclass
class Table:
    """What one seat knows, by counts of ranks: its hand and staged cards, the round's rank
    and claims, and the copies of each rank it can account for."""

    seat: int
    players: int
    decks: int
    hand: list[int]
    staged: list[int]
    rank: int | None
    round_plays: list[tuple[int, int]]
    pending_out: int | None
    finished: list[int]
    mine_in_pile: list[int] = field(default_factory=lambda: [0] * RANKS)
    count_lies: bool = True
    #: The view read (for :meth:`held_away`, which replays its history only when asked),
    #: and the bot's reader of its histories (replaying only what is new).
    view: SeatView | None = field(default=None, repr=False, compare=False)
    reader: HistoryReader | None = field(default=None, repr=False, compare=False)

    @classmethod
    def from_view(cls, view: SeatView, reader: HistoryReader | None = None) -> Table:
        rank = view.facts.get("rank")
        laid = [0] * RANKS
        for ev in view.history:  # our cards in the pile: laid since the last call
            if ev.kind == "laid":
                for c in ev.cards:
                    laid[_idx(c)] += 1
            elif ev.kind == "call":
                laid = [0] * RANKS
        return cls(
            seat=view.seat,
            players=view.players,
            decks=1 if view.players <= 6 else 2,
            hand=_counts(view.hand),
            staged=_counts(view.zones.get("staged", ())),
            rank=None if rank is None else FRENCH_RANKS[rank] - 2,
            round_plays=[(s, d) for s, d in view.facts.get("round_plays", [])],
            pending_out=view.facts.get("pending_out"),
            finished=list(view.facts.get("finished", [])),
            mine_in_pile=laid,
            count_lies=bool(view.options.get("count_lies", True)),
            view=view,
            reader=reader,
        )

    def unknown(self) -> int:
        """Cards this seat cannot see."""
        return 52 * self.decks - sum(self.hand) - sum(self.staged) - sum(self.mine_in_pile)

    def in_play(self) -> int:
        return self.players - len(self.finished)

    def held_away(self) -> list[int]:
        """Per rank, the cards this seat knows to be in other hands, not in the pile (a pile
        it saw taken, a called play's cards): the world module's reading of its history."""
        out = [0] * RANKS
        if self.view is not None:
            read = self.reader.read if self.reader is not None else read_history
            for card, where in read(self.view).tokens:
                if where and PILE not in where:
                    out[_idx(card)] += 1
        return out


def claim_lie_odds(table: Table) -> float:
    """The odds the last play's claim is false, from ``table``'s seat."""
    if not table.round_plays or table.rank is None:
        return 0.0
    accused, claimed = table.round_plays[-1]
    r = table.rank
    before = sum(d for s, d in table.round_plays[:-1] if s != table.seat)
    left = 4 * table.decks - table.hand[r] - table.mine_in_pile[r] - before
    unknown = table.unknown()
    others = max(1, table.in_play() - 1)
    held = round(unknown / (others + 1)) + claimed if accused != table.pending_out else claimed
    return lie_odds(claimed, max(0, left), unknown, held)


def cornered(table: Table, seat: int) -> bool:
    """Whether ``seat`` plays next with none of the rank while the claims of the round
    already reach every copy it cannot account for (in its pile plays, or known to be in
    other hands): passing, it must lie, and the lie is one a seat that counts calls.

    >>> t = Table(1, 3, 1, [0, 2] + [0] * 11, [0] * 13, 0, [(0, 4)], None, [])
    >>> cornered(t, 1), cornered(t, 2)
    (True, False)
    """
    if table.rank is None or not table.round_plays or table.hand[table.rank]:
        return False
    x = table.round_plays[-1][0]
    n = table.players
    follower = next(
        (s for s in ((x + i) % n for i in range(1, n)) if s not in table.finished), None
    )
    if follower != seat:
        return False
    claimed = sum(d for s, d in table.round_plays if s != seat)
    r = table.rank
    return claimed >= 4 * table.decks - table.mine_in_pile[r] - table.held_away()[r]


def call_choice(table: Table, seat: int, rng: random.Random | None = None) -> str:
    """``trombon`` when the claim is unlikely enough for the pile at stake, else ``pass``.

    A :func:`cornered` seat takes the pile either way: calling now it takes it (unless the
    claim was a lie) and opens the next round; passing, it lies, is called and takes the
    pile and its lie, and the caller opens. It calls, but only mostly (with ``rng``): with
    nothing but full sets left in three hands either way alone goes round for ever.
    """
    if cornered(table, seat) and (rng is None or rng.random() < 0.75):
        return "trombon"
    odds = claim_lie_odds(table)
    at_stake = sum(d for _, d in table.round_plays)
    going_out = table.pending_out is not None
    need = 0.3 if going_out else 0.55 + min(0.35, at_stake / 40)
    return "trombon" if odds >= need else "pass"


def play_choice(table: Table, seat: int, legal: Sequence[Action], rng: random.Random) -> Action:
    """The next atomic step of the rule-of-thumb play."""
    if legal[0].kind == "claim":
        want = opening_rank(table.hand, 4 * table.decks, rng)
        return next(a for a in legal if _claim_rank(a) == want)
    r = table.rank
    assert r is not None
    staged = sum(table.staged)
    if table.hand[r] and (staged == 0 or table.staged[r] == staged):
        return _put_of(legal, r)
    if staged == 0:
        return _put_of(legal, lie_card(table.hand, r))
    return next(a for a in legal if a.kind == "declare" and a.number == staged)


def _claim_rank(action: Action) -> int:
    name = action.choice if action.choice is not None else str(action.number)
    return FRENCH_RANKS[name] - 2


def _put_of(legal: Sequence[Action], r: int) -> Action:
    return next(a for a in legal if a.kind == "put" and a.card is not None and a.card.rank - 2 == r)


# -- the call, by the model ----------------------------------------------------------------------

#: What a card in a rival's hand is worth to us, against one in ours (it keeps that rival
#: from its finish, but only one of the table), and a rival going out, in cards.
RIVAL_CARD, GOING_OUT = 0.5, 3.0
#: The most worlds a call is weighed over (one costs about a millisecond).
CALL_WORLDS = 48


def claim_false(worlds: Sequence[RankSim], trust: float, left: int, unknown: int) -> float:
    """The chance the last play's claim is false, over ``worlds`` (draws of the hidden cards).

    In each world the claimant's hand before its play (its hand and the play's cards) is
    read with each count ``j`` of the claimed rank it may have held, as likely as a hand of
    that size drawn from the ``unknown`` cards holds ``j`` of the ``left`` copies we cannot
    account for (the draw itself rarely holds the truth, so it is not counted on), and
    weighted by the likelihood of the claim given that hand: the truth (``trust``, the
    claimant's honesty) claims every card of the rank it held (a part of them: 10 times
    less likely), and an opener names the rank it holds most of; a lie (forced when a
    follower held none, else ``1 - trust``) claims ``k`` cards 0.6 * 0.4^(k-1) of the time.

    >>> w = RankSim(2, 1)
    >>> w.rank, w.last_d, w.last, w.round_plays = 0, 2, _only(1, 2), [(1, 3), (0, 2)]
    >>> w.hands[0] = [0, 1, 3] + [0] * 10
    >>> claim_false([w], 0.75, left=2, unknown=20), claim_false([w], 0.75, left=1, unknown=20)
    (0.7118, 1.0)
    >>> w.round_plays = [(0, 2)]  # an opener: it never has to lie
    >>> claim_false([w], 0.75, left=2, unknown=20)
    0.438
    """
    if not worlds:
        return 0.5
    true = false = 0.0
    for w in worlds:
        r, k = w.rank, w.last_d
        assert r is not None
        before = [h + c for h, c in zip(w.hands[w.actor], w.last, strict=True)]
        size = sum(before)
        lie = 0.6 * 0.4 ** (max(1, k) - 1)
        opener = len(w.round_plays) == 1
        for j in range(min(left, size) + 1):
            odds = _holds(j, left, unknown, size)
            if odds <= 0:
                continue
            truth = trust if j == k else (0.1 * trust if j > k else 0.0)
            if opener:
                # An opener names the rank: it never has to lie, and the truth names the
                # rank it holds most of (:func:`opening_rank`).
                before[r] = j
                false += odds * (1.0 - trust) * lie / RANKS
                true += odds * truth * _opening_odds(before, r, 4 * w.decks)
            else:
                false += odds * lie * (1.0 if j == 0 else 1.0 - trust)
                true += odds * truth
    return round(false / (true + false), 4) if true + false > 0 else 1.0


def _opening_odds(hand: list[int], r: int, copies: int) -> float:
    """The chance an opener holding ``hand`` names ``r`` by :func:`opening_rank` (a rank it
    would not name: one in ten).

    >>> _opening_odds([2, 2, 1] + [0] * 10, 0, 4), _opening_odds([2, 2, 1] + [0] * 10, 2, 4)
    (0.5, 0.1)
    """
    rest = [q for q in range(RANKS) if 0 < hand[q] < copies] or [q for q in range(RANKS) if hand[q]]
    most = max((hand[q] for q in rest), default=0)
    ties = [q for q in rest if hand[q] == most]
    return 1.0 / len(ties) if r in ties else 0.1


def later_call(worlds: Sequence[RankSim], me: int, model: Sequence[Caller]) -> float:
    """The chance a seat after ``me`` in the window's order calls (a call before ours voids
    ours, so only those after count): per world, a seat calls when its rule of thumb does
    from its hand there, or else at its ``wild`` rate; a ``silent`` seat never.

    >>> w = RankSim(3, 1)
    >>> w.rank, w.last_d, w.last, w.actor = 0, 1, _only(0, 1), 0
    >>> later_call([w], 1, [Caller(), Caller(), Caller(wild=0.9)])
    0.9
    >>> later_call([w], 2, [Caller(), Caller(), Caller(wild=0.9)])
    0.0
    """
    if not worlds:
        return 0.0
    total = 0.0
    for w in worlds:
        order = w.in_window()
        none = 1.0
        for s in order[order.index(me) + 1 :] if me in order else ():
            seat = model[s]
            if not seat.silent:
                none *= 0.0 if w.usual_call(s) != "pass" else 1.0 - seat.wild
        total += 1.0 - none
    return round(total / len(worlds), 4)


def call_worth(false: float, pile: float, later: float, going_out: bool, cornered: bool) -> float:
    """Calling's worth over passing, in cards of ours.

    Calling, a lie hands the ``pile`` to the liar (a rival's cards: :data:`RIVAL_CARD` each)
    and the truth hands it to us. Passing, a later caller (chance ``later``) hands it to a
    rival either way; else the play stands: a lie going out finishes
    (:data:`GOING_OUT`), and a :func:`cornered` seat must lie next and take the pile and
    its lie. So at a table where someone calls everything a call is worth nothing.

    >>> call_worth(0.9, 4, later=1.0, going_out=False, cornered=False) < 0
    True
    >>> call_worth(0.9, 4, later=0.0, going_out=False, cornered=False) > 0
    True
    >>> call_worth(0.5, 4, later=0.0, going_out=False, cornered=False) < 0
    True
    """
    stand = false * GOING_OUT * going_out + (pile + 1) * cornered
    return RIVAL_CARD * pile * (false - later) - (1 - false) * pile + (1 - later) * stand


# -- the search bot ------------------------------------------------------------------------------


#: A step of a planned play: ``("claim", rank)``, ``("put", rank)``, ``("declare", count)`` or
#: a call (``("trombon", 0)``...), resolved against the legal list when it is due.
Step = tuple[str, int]


def resolve_step(step: Step, legal: Sequence[Action]) -> Action | None:
    """The legal action a planned step stands for, or ``None`` when none is legal now.

    >>> resolve_step(("put", 5), [Action("put", card=Card.parse("7H"))])
    Action('put 7H')
    """
    kind, value = step
    for a in legal:
        if a.kind != kind:
            continue
        if kind == "claim" and _claim_rank(a) != value:
            continue
        if kind == "put" and (a.card is None or _idx(a.card) != value):
            continue
        if kind == "declare" and a.number != value:
            continue
        return a
    return None


@dataclass
class Candidate:
    """One whole play (or a call) the search compares: its steps."""

    steps: list[Step]
    cards: list[int] = field(default_factory=lambda: [0] * RANKS)
    declared: int = 0
    rank: int | None = None
    call: str = ""


class SearchBot:
    """Determinized search with an opponent model over :class:`RankSim` rollouts.

    ``time_ms`` and ``iterations`` bound a decision (0: no bound of that kind; the time
    counted from the request, :mod:`levata.bots.clock`); ``model`` turns the opponent model
    off (uniform worlds: the ablation that measures its gain); ``guard`` keeps the rule of
    thumb's choice unless a candidate beats it by that many standard errors; ``horizon``
    plays per rollout (then places by fewest cards); ``kernel`` plays the rollouts on the C
    kernel (:class:`~levata.engine.trombon_playouts.TrombonPlayout`; false: on the Python copy,
    :class:`RankSim`, its reference, with ``random.Random`` luck).
    """

    name = "search"

    def __init__(  # noqa: PLR0913  (the bot's options, keywords a bot entry sets)
        self,
        game: str = "trombon",
        seed: int = 0,
        *,
        time_ms: float = 100.0,
        iterations: int = 0,
        model: bool = True,
        guard: float = 1.0,
        horizon: int = 60,
        kernel: bool = True,
    ) -> None:
        if time_ms <= 0 and iterations <= 0:
            raise ValueError("search needs time_ms > 0 or iterations > 0")
        self.game = game
        self.rng = random.Random(seed)
        self.time_ms = time_ms
        self.iterations = iterations
        self.model = model
        self.guard = guard
        self.horizon = horizon
        self.kernel = kernel
        self.plan: list[Step] = []
        self.reader = HistoryReader()
        #: Seconds one world and its rollouts took, lately (a decision that cannot fit one
        #: in its budget keeps the rule of thumb's choice).
        self.world_cost = 0.0
        self.rollouts = 0
        self.searched = 0  # worlds the plays were searched over, in seconds
        self.worlds = 0  # worlds the calls were weighed over, in call_seconds
        self.call_seconds = 0.0
        self.seconds = 0.0
        self.times: list[float] = []

    def per_second(self) -> float:
        """Rollouts (simulations) per second of search so far."""
        return self.rollouts / self.seconds if self.seconds else 0.0

    def act(self, view: SeatView, legal: Sequence[Action]) -> Action:
        if len(legal) == 1:
            return legal[0]
        if self.plan:
            step = resolve_step(self.plan[0], legal)
            if step is not None:
                self.plan.pop(0)
                return step
        self.plan = []
        table = Table.from_view(view, self.reader)
        if view.phase == "window" and self.model:
            return self._call(view, table, legal)
        if view.phase == "window":
            cands = [Candidate([(a.kind, 0)], call=a.kind) for a in legal]
            usual = call_choice(table, view.seat)
            base = next(i for i, c in enumerate(cands) if c.call == usual)
        elif sum(table.staged):  # a play begun elsewhere (a plan lost): finish it simply
            return play_choice(table, view.seat, legal, self.rng)
        else:
            cands, base = self._plays(table, legal)
            if len(cands) > 1:
                base = self._search(view, cands, base)
            self.plan = list(cands[base].steps)
            return self.act(view, legal)
        pick = self._search(view, cands, base)
        return resolve_step(cands[pick].steps[0], legal) or legal[0]

    # -- the call -------------------------------------------------------------------------

    def _call(self, view: SeatView, table: Table, legal: Sequence[Action]) -> Action:
        """The window's call by the model (no rollouts): the chance the claim is false over
        as many weighted worlds as the budget allows (:data:`CALL_WORLDS` at most), the
        chance a later seat calls it, and what a wrong call costs (:func:`call_worth`)."""
        started = time.perf_counter()
        deadline = decision_start() + self.time_ms / 1000 if self.time_ms else math.inf
        margin = self.time_ms / 1000 * 0.25
        remember(view, self.reader)
        dealer = RankDealer(view)  # world_from_view's worlds by ranks, without the states
        worlds: list[RankSim] = []
        while len(worlds) < CALL_WORLDS:
            now = time.perf_counter()
            if worlds and now + (now - started) / len(worlds) > deadline - margin:
                break
            worlds.append(dealer.deal(self.rng))
        me, actor = view.seat, view.counters["actor"]
        r = table.rank
        assert r is not None
        before = sum(d for s, d in table.round_plays[:-1] if s != me)
        left = max(0, 4 * table.decks - table.hand[r] - table.mine_in_pile[r] - before)
        false = claim_false(worlds, honesty(view.history, actor), left, table.unknown())
        model = callers(view.history, view.players)
        later = later_call(worlds, me, model)
        pile = sum(sum(w.pile) for w in worlds) / len(worlds)
        going_out = view.facts.get("pending_out") == actor
        worth = call_worth(false, pile, later, going_out, cornered(table, me))
        spent = time.perf_counter() - started
        self.worlds += len(worlds)
        self.call_seconds += spent
        self.times.append(spent)
        kind = "trombon" if worth > 0 else "pass"
        return next((a for a in legal if a.kind == kind), legal[0])

    # -- the candidates ---------------------------------------------------------------------

    def _plays(self, table: Table, legal: Sequence[Action]) -> tuple[list[Candidate], int]:
        """A few whole plays: the truth (or, opening, the truth in each of the best ranks), the
        truth with one bluff card, a lie of one card, a lie of two declared as one."""
        hand = table.hand
        by_card: dict[int, list[Card]] = {}
        for a in legal:
            if a.kind == "put" and a.card is not None:
                by_card.setdefault(_idx(a.card), []).append(a.card)
        opening = legal[0].kind == "claim"
        out: list[Candidate] = []
        ranks: list[int | None] = [table.rank]
        if opening:  # the rule of thumb's rank first (the default), then the most held
            usual = opening_rank(hand, 4 * table.decks, self.rng)
            more = sorted((r for r in range(RANKS) if hand[r]), key=lambda r: (-hand[r], -r))
            ranks = [usual]
            ranks += [q for q in more if q != usual][:2]
        for r in ranks:
            assert r is not None
            plays: list[list[int]] = []
            if hand[r]:
                plays.append(_only(r, hand[r]))
                extra = lie_card(hand, r)
                if extra != r and sum(hand) > hand[r] + 1:
                    bluff = _only(r, hand[r])
                    bluff[extra] += 1
                    plays.append(bluff)
            else:
                one = lie_card(hand, r)
                plays.append(_only(one, 1))
            for cards in plays:
                out.append(self._candidate(table, r, cards, sum(cards), opening))
            if not opening and not hand[r] and sum(hand) >= 3:
                two = _only(lie_card(hand, r), 1)
                rest = list(hand)
                rest[lie_card(hand, r)] -= 1
                two[lie_card(rest, r)] += 1
                declared = 1 if table.count_lies else 2
                out.append(self._candidate(table, r, two, declared, opening))
        return out, 0

    def _candidate(
        self, table: Table, r: int, cards: list[int], declared: int, opening: bool
    ) -> Candidate:
        steps: list[Step] = [("claim", r)] if opening else []
        steps += [("put", q) for q in range(RANKS) for _ in range(cards[q])]  # any suit
        steps.append(("declare", declared))
        return Candidate(steps, cards, declared, r)

    # -- the search -------------------------------------------------------------------------

    def _search(self, view: SeatView, cands: list[Candidate], base: int) -> int:
        started = time.perf_counter()
        deadline = decision_start() + self.time_ms / 1000 if self.time_ms else math.inf
        me = view.seat
        diffs: list[list[float]] = [[] for _ in cands]
        weight = 0.0
        done = 0
        window = view.phase == "window"
        trust = honesty(view.history, view.counters["actor"]) if window else 1.0
        model: list[Caller] | None = None
        if self.model:  # how each seat calls; ours by rule of thumb
            model = callers(view.history, view.players)
            model[me] = Caller()
        margin = self.time_ms / 1000 * 0.25  # the reply's way back over the referee
        remember(view, self.reader)  # the history read once, only what is new
        dealer = RankDealer(view)  # world_from_view's worlds by ranks, without the states
        while True:
            if not done and time.perf_counter() + self.world_cost > deadline - margin:
                break  # not even one world fits: the rule of thumb's choice stands
            sim = dealer.deal(self.rng)
            sim.callers = model
            for variant, w in self._variants(sim, window, trust):
                seed = self.rng.getrandbits(32)  # the same luck for every candidate
                rollouts = self._rollouts if self.kernel else self._python_rollouts
                values = rollouts(variant, cands, seed, me, window)
                self.rollouts += len(values)
                for i, v in enumerate(values):
                    diffs[i].append(w * (v - values[base]))
                weight += w
            done += 1
            if self.iterations and done >= self.iterations:
                break
            now = time.perf_counter()
            if now + (now - started) / done > deadline - margin:
                break
        spent = time.perf_counter() - started
        self.seconds += spent
        self.searched += done
        self.times.append(spent)
        if done:
            self.world_cost = 0.7 * self.world_cost + 0.3 * spent / done
        return guarded_best(diffs, weight, base, self.guard)

    def _rollouts(
        self, world: RankSim, cands: list[Candidate], seed: int, me: int, window: bool
    ) -> list[float]:
        """Our score after each candidate, played out from ``world`` on the C kernel."""
        fast = TrombonPlayout(world.fields(), seed)
        values = []
        for cand in cands:
            trial = fast.clone()  # the stream from ``seed`` with it
            if window:
                trial.resolve({me: cand.call})
            else:
                trial.play(me, cand.cards, cand.declared, cand.rank)
            trial.rollout(None, self.horizon)
            values.append(trial.scores()[me])
        return values

    def _python_rollouts(
        self, world: RankSim, cands: list[Candidate], seed: int, me: int, window: bool
    ) -> list[float]:
        """The same on the Python copy (``kernel=False``: its reference and the benchmark's)."""
        values = []
        for cand in cands:
            trial = world.clone()
            luck = random.Random(seed)
            if window:
                trial.resolve({me: cand.call}, luck)
            else:
                trial.play(me, cand.cards, cand.declared, cand.rank)
            trial.rollout(luck, self.horizon)
            values.append(trial.scores()[me])
        return values

    def _variants(self, sim: RankSim, window: bool, trust: float) -> list[tuple[RankSim, float]]:
        """The world, or (the model, in a window) the world as the truth and as a lie, each
        weighted by its likelihood given the claimant's hand in it."""
        if not window or not self.model or sim.rank is None:
            return [(sim, 1.0)]
        x, r = sim.actor, sim.rank
        k = sum(sim.last)
        pooled = [h + c for h, c in zip(sim.hands[x], sim.last, strict=True)]
        if pooled[r] < k:
            return [(sim, 1.0)]  # too few of the rank: a lie in every reading
        honest = sim.clone()
        honest.last = _only(r, k)
        honest.hands[x] = [p - c for p, c in zip(pooled, honest.last, strict=True)]
        lie = sim.clone()
        if lie.last[r] == k:  # drawn as the truth: swap one card for another rank held
            other = next((q for q in range(RANKS) if q != r and lie.hands[x][q]), None)
            if other is None:
                return [(honest, 1.0)]
            lie.last[r] -= 1
            lie.last[other] += 1
            lie.hands[x][r] += 1
            lie.hands[x][other] -= 1
        return [(honest, trust), (lie, 1.0 - trust)]


def guarded_best(diffs: list[list[float]], weight: float, base: int, guard: float) -> int:
    """The candidate with the best weighted mean gain over ``base`` (``diffs``: its weighted
    differences, world by world), if that gain beats ``guard`` standard errors; else
    ``base``.

    >>> guarded_best([[0, 0], [1.0, 0.9], [0.2, -0.1]], 2.0, 0, 1.0)
    1
    >>> guarded_best([[0, 0], [1.0, -0.9]], 2.0, 0, 1.0)
    0
    """
    best, best_gain = base, 0.0
    if weight <= 0:
        return base
    for i, d in enumerate(diffs):
        if i == base or len(d) < 2:
            continue
        mean = sum(d) / weight
        average = sum(d) / len(d)  # once: summed again for each world, a decision's worlds cost
        var = sum((x - average) ** 2 for x in d) / (len(d) - 1)  # their square
        err = math.sqrt(var / len(d)) * len(d) / weight
        if mean > best_gain and mean > guard * err:
            best, best_gain = i, mean
    return best


def _only(r: int, k: int) -> list[int]:
    out = [0] * RANKS
    out[r] = k
    return out
