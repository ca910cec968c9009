"""Perfect-information Monte Carlo (PIMC) for Romanian Whist.

The bot sees only its view. For each decision it deals the cards it cannot see into many
worlds that agree with everything it knows (hand sizes, the trump card, cards played, every
suit a seat has shown out of: :class:`~levata.engine.sampler.Sampler` deals them exactly
uniformly), solves each world double-dummy with the Cython solver, and averages:

* **Bidding**: in each world, the most tricks it can be sure of against the rest (a paranoid
  double-dummy solve from the first lead). That gives a distribution of its tricks; it bids
  the legal number with the best expected deal score (``5 + bid`` if exact, else minus the
  miss), so the last bidder's forbidden number is handled by the same rule.
* **Play**: for each legal card, the share of worlds in which it can still force *exactly*
  its bid after that card (the solver's ``exact`` objective; the others are assumed to try to
  make it miss). Ties go to the card the heuristic player would choose.

``worlds`` (default 100) and ``time_ms`` (a soft budget per decision; sampling stops early
when it is spent) are options. Every choice flows from the bot's seed.

>>> from levata.engine import game
>>> from levata.bots import play_match
>>> state = game("whist").new_match(players=3, options={"deal_size": 3}, seed=5)
>>> bots = [PimcBot(seed=s, worlds=10) for s in range(3)]
>>> play_match(state, bots).reason
'complete'
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence

from levata.bots.heuristic.whist import HeuristicBot
from levata.engine import Action, Card, SeatView, Suit, actions
from levata.engine.cardmask import cards_of, mask_of
from levata.engine.games.whist import deal_points, whist_deck, whist_rules
from levata.engine.rules import TrickRules
from levata.engine.sampler import Sampler
from levata.engine.solver import Solver, exact, tricks

__all__ = ["PimcBot", "sample_hands"]


def sample_hands(view: SeatView, worlds: int, rng: random.Random) -> list[list[int]]:
    """``worlds`` deals of every seat's hand (card masks) consistent with a Whist view."""
    n = view.players
    known = [0] * n  # hands this seat can see
    visible = [False] * n
    if view.hand:
        known[view.seat] = mask_of(view.hand)
        visible[view.seat] = True
    for t in range(n):
        if f"hand:{t}" in view.zones:  # forehead mode: the others' cards
            known[t] = mask_of(view.zones[f"hand:{t}"])
            visible[t] = True
    gone = mask_of(
        list(view.zones.get("played", ()))
        + list(view.zones.get("trick", ()))
        + list(view.zones.get("trump", ()))
    )
    unseen = mask_of(whist_deck(n)) & ~gone
    for m in known:
        unseen &= ~m
    places = [t for t in range(n) if not visible[t] and view.counts[f"hand:{t}"] > 0]
    sizes = [view.counts[f"hand:{t}"] for t in places]
    undealt = bin(unseen).count("1") - sum(sizes)
    voids = view.facts.get("voids", {})
    allowed = []
    for t in places:
        void = {Suit.parse(letter) for letter in voids.get(str(t), [])}
        allowed.append(mask_of(c for c in _cards(unseen) if c.suit not in void))
    if undealt:
        sizes.append(undealt)
        allowed.append(unseen)
    sampler = Sampler(unseen, sizes, allowed)
    out = []
    for _ in range(worlds):
        dealt = sampler.sample(rng.getrandbits(64))
        hands = list(known)
        for t, m in zip(places, dealt, strict=False):
            hands[t] = m
        out.append(hands)
    return out


def _cards(mask: int) -> list[Card]:
    return cards_of(mask)


class PimcBot:
    """Samples worlds, solves each double-dummy, plays the card that best hits its bid."""

    name = "pimc"

    def __init__(
        self, game: str = "whist", seed: int = 0, worlds: int = 100, time_ms: float | None = None
    ) -> None:
        if game != "whist":
            raise ValueError(f"the pimc bot plays whist, not {game!r}")
        self.rng = random.Random(seed)
        self.worlds = worlds
        self.time_ms = time_ms
        self.fallback = HeuristicBot(game, seed)

    def act(self, view: SeatView, legal: Sequence[Action]) -> Action:
        if len(legal) == 1:
            return legal[0]
        if legal[0].kind == actions.BID:
            return self._bid(view, legal)
        return self._play(view, legal)

    def _rules(self, view: SeatView) -> TrickRules:
        trump = Suit.parse(view.trump) if view.trump else None
        return whist_rules(view.players, trump)

    def _deadline(self) -> float:
        return float("inf") if self.time_ms is None else time.perf_counter() + self.time_ms / 1000

    def _bid(self, view: SeatView, legal: Sequence[Action]) -> Action:
        solver = Solver(self._rules(view))
        leader = view.counters["leader"]
        counts: dict[int, int] = {}
        deadline = self._deadline()
        for hands in sample_hands(view, self.worlds, self.rng):
            t = solver.solve(hands, leader, (), tricks(view.seat))
            counts[t] = counts.get(t, 0) + 1
            if time.perf_counter() > deadline:
                break
        total = sum(counts.values())

        def expected(bid: int) -> float:
            return sum(k * deal_points(bid, t) for t, k in counts.items()) / total

        bids = {a: a.number for a in legal if a.number is not None}
        return max(bids, key=lambda a: (expected(bids[a]), -bids[a]))

    def _play(self, view: SeatView, legal: Sequence[Action]) -> Action:
        seat = view.seat
        bid = view.counters[f"bid:{seat}"]
        won = view.counters[f"tricks:{seat}"]
        solver = Solver(self._rules(view))
        leader = view.counters["leader"]
        trick = [c.index for c in view.zones.get("trick", ())]
        goal = exact(seat, bid, already=won)
        score: dict[int, float] = {}
        deadline = self._deadline()
        for hands in sample_hands(view, self.worlds, self.rng):
            for card, value in solver.best_cards(hands, leader, trick, seat, goal).items():
                score[card] = score.get(card, 0.0) + value
            if time.perf_counter() > deadline:
                break
        by_card = {a.card.index: a for a in legal if a.card is not None}
        if not by_card:  # forehead: the only action plays the unseen card
            return legal[0]
        best = max(score.get(i, 0.0) for i in by_card)
        top = [a for i, a in by_card.items() if score.get(i, 0.0) == best]
        if len(top) == 1:
            return top[0]
        pick = self.fallback.act(view, top)  # ties: the heuristic player's choice
        return pick if pick in top else top[0]
