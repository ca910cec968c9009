"""Tarneeb's strategy: what a bid, a pass or a trump is worth to a seat in one world. A search
bot (``levata.bots.search.pimc``) averages these over worlds rebuilt from its view
(:class:`TarneebStrategy`); in card play a seat plays for its team's tricks (partners pool
them, and every trick moves the score): the plain goal.

Tricks come from greedy playouts in C (:func:`levata.engine.playouts.playout`; a
double-dummy solve of 13 cards a hand is far too slow for an auction): for each strain, the
team's tricks in :data:`PLAYOUTS` playouts with the would-be declarer leading.

* **bid b**: the seat declares ``b`` in the strain where its team takes the most tricks;
  its value is the mean, over the playouts, of the deal's score difference (own team minus
  the other, :func:`~levata.engine.games.tarneeb.rules.deal_points`, the idle penalties included).
* **pass**: the contract the auction most plainly ends in without this seat: when both
  opponents have passed, the partner's standing bid in the partner's best strain; otherwise
  the next opponent still bidding declares ``max(7, high + 1)`` in its own best strain. The
  value is the same score difference, from this seat's side. (A model, not a forecast: the
  partner bidding on, or the opponents going higher, is not weighed.)
* **trump**: the declaring team's mean tricks with that strain.

>>> from levata.engine import game
>>> import random
>>> state = game("tarneeb").new_match(players=4, options={"shuffler": 0}, seed=1)
>>> world = state.sample_world(1, random.Random(2))
>>> rated = TarneebStrategy().rate_calls(world, 1, world.legal_actions(1), None)
>>> len(rated) == len(world.legal_actions(1))
True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from levata.bots.inference import both, named_trump, played_this_deal
from levata.bots.strategy import DealValues, Strategy, deal_tricks
from levata.engine import SeatView, actions, events
from levata.engine.cardmask import mask_of
from levata.engine.cards import Card
from levata.engine.contract import Action
from levata.engine.family.tricks import TrickGame
from levata.engine.games.tarneeb import TarneebState
from levata.engine.games.tarneeb import rules as tn
from levata.engine.playouts import playout
from levata.engine.rules import TrickRules
from levata.engine.solver import Solver
from levata.engine.worlds import Likelihood

__all__ = [
    "BID_EVIDENCE",
    "PLAYOUTS",
    "RAISE_OWN",
    "RAISE_STEP",
    "TarneebStrategy",
    "diff",
    "hand_count",
    "strain_tricks",
]

#: High-card points and the tricks a partner that has not bid is taken to bring, as the
#: heuristic bidder counts them (:mod:`levata.bots.heuristic.tarneeb`; the strategy reads
#: bids the way that player makes them).
POINTS = {14: 4, 13: 3, 12: 2, 11: 1}
PARTNER_SHARE = 2.5
#: How much less likely a world is for each point a raise's bidder's own count falls short
#: of what the raise shows (:meth:`TarneebStrategy.call_likelihood`).
BID_EVIDENCE = 0.5
#: The own count (:func:`hand_count`) a raise to 8 shows, and each trick above 8 more: the
#: search's raises to 8 came from hands of 4.25 on average (3.6 for its passes) on the
#: tuning deals (seed 32); a little under that, as a floor.
RAISE_OWN = 4.0
RAISE_STEP = 0.75
#: Greedy playouts per strain and world (10% random cards, so that they differ).
PLAYOUTS = 8


def strain_tricks(state: TarneebState, leader: int, seed: int) -> dict[str, list[int]]:
    """Per strain, the leader's team's tricks in each playout of this world's hands."""
    hands = [mask_of(h) for h in state.hands]
    team = tn.TEAMS[leader]
    out: dict[str, list[int]] = {}
    for k, strain in enumerate(tn.STRAINS):
        rules = TrickRules(tn.PLAYERS, tn._strain_trump(strain), teams=tn.TEAMS)
        got = []
        for i in range(PLAYOUTS):
            won, _ = playout(
                rules, hands, leader, policy="greedy", epsilon=0.1, seed=seed + 97 * k + i
            )
            got.append(sum(w for s, w in enumerate(won) if tn.TEAMS[s] == team))
        out[strain] = got
    return out


def diff(contract: int, made: int, declarers: int, idle: Sequence[int]) -> int:
    """The deal's score difference, declaring team minus the other, penalties included.

    >>> diff(8, 9, 0, [0, 0]), diff(8, 9, 0, [0, 2])
    (10, 20)
    """
    ours, theirs = tn.deal_points(contract, made)
    _, penalty = tn.idle_after(idle, declarers)
    return ours + penalty[declarers] - theirs - penalty[1 - declarers]


def _value(tricks: list[int], contract: int, declarers: int, idle: Sequence[int]) -> float:
    return sum(diff(contract, m, declarers, idle) for m in tricks) / len(tricks)


def _best(by_strain: dict[str, list[int]]) -> list[int]:
    return max(by_strain.values(), key=sum)


def _pass_value(state: TarneebState, seat: int, seed: int) -> float:
    """The pass model of the module's docstring, from ``seat``'s side."""
    team, n = tn.TEAMS[seat], tn.PLAYERS
    opponents = [(seat + k) % n for k in range(1, n) if tn.TEAMS[(seat + k) % n] != team]
    bidding = [o for o in opponents if o not in state.passed]
    if not bidding and state.declarer is not None:  # the partner's bid stands
        tricks = _best(strain_tricks(state, state.declarer, seed))
        return _value(tricks, state.high, team, state.idle)
    if not bidding:  # nobody bid and the opponents passed: take the forced 7 as theirs
        bidding = opponents
    other = bidding[0]
    contract = max(tn.MIN_BID, state.high + 1)
    tricks = _best(strain_tricks(state, other, seed))
    return -_value(tricks, contract, 1 - team, state.idle)


def hand_count(deck: Sequence[Card]) -> Callable[[int], float]:
    """The heuristic bidder's own tricks, ``(hcp + length) / 3``
    (:func:`~levata.bots.heuristic.tarneeb.estimate` less the partner's share), of a hand
    given as a card mask: a few bit counts.

    >>> from levata.bots.heuristic.tarneeb import estimate
    >>> from levata.engine import french_deck, parse_cards
    >>> hand = parse_cards("AS KS QS JS 9S 5S AH KH 2D 3D 4C 5C 6C")
    >>> hand_count(french_deck())(mask_of(hand)) + PARTNER_SHARE == estimate(hand)
    True
    """
    ranks = [(mask_of(c for c in deck if c.rank == r), p) for r, p in POINTS.items()]
    suits = [mask_of(c for c in deck if c.suit == x) for x in {c.suit for c in deck}]

    def count(hand: int) -> float:
        hcp = sum(p * (hand & m).bit_count() for m, p in ranks)
        longest = max((hand & m).bit_count() for m in suits)
        return (hcp + max(0, longest - 4)) / 3

    return count


class TarneebStrategy(Strategy):
    """Tarneeb for the search bots: bids, the pass and the trump, by greedy playouts."""

    def wants_trick(
        self, world: TrickGame, seat: int, taken: list[int], winner: int | None
    ) -> bool | None:
        """A seat wants every trick its partner is not already winning (the team's tricks
        score)."""
        return winner is None or tn.TEAMS[winner] != tn.TEAMS[seat]

    def call_likelihood(self, view: SeatView, world: TrickGame) -> Likelihood | None:
        """The other seats' raises and the trump named. A raise (a bid above the minimum
        from a seat whose partner has not bid) from a hand whose own count
        (:func:`hand_count`) is under :data:`RAISE_OWN` (and :data:`RAISE_STEP` more for
        each trick above 8) costs :data:`BID_EVIDENCE` per point short; opening bids,
        passes and bids beside a partner's are not read: the search's bids there barely
        follow the hand (``benchmarks/inference_check.py``). The trump named is the
        declarer's longest suit (:func:`~levata.bots.inference.named_trump`)."""
        start = max((i for i, e in enumerate(view.history) if e.kind == events.HAND), default=0)
        bids = [
            (e.seat, int(e.data["number"]))
            for e in view.history[start:]
            if e.kind == actions.BID and e.seat is not None and "number" in e.data
        ]
        raises: list[tuple[int, float]] = []  # seat, the own count it shows
        bid_by = [0] * tn.PLAYERS
        for s, number in bids:
            if s != view.seat and number > tn.MIN_BID and not bid_by[(s + 2) % tn.PLAYERS]:
                raises.append((s, RAISE_OWN + RAISE_STEP * (number - tn.MIN_BID - 1)))
            bid_by[s] = number
        trump = named_trump(view, world, tn.TRUMP, "trump")
        if not raises:
            return trump
        played = played_this_deal(view)
        count = hand_count(world.deck)

        def likelihood(hands: Sequence[int]) -> float:
            w = 1.0
            for s, shown in raises:
                short = shown - count(hands[s] | played[s])
                if short > 0:
                    w *= BID_EVIDENCE**short
            return w

        return both(likelihood, trump)

    def deal_values(self, world: TrickGame) -> DealValues:
        """Each seat's deal points by its team's tricks: the declarers score their
        contract made or lost, the defenders their tricks and the defeat bonus
        (:func:`~levata.engine.games.tarneeb.rules.deal_points`; idle penalties do not
        depend on the play).

        >>> from levata.engine import game
        >>> w = game("tarneeb").new_match(players=4, seed=1)
        >>> w.declarer, w.high = 0, 8   # as if seat 0 had won the bidding with 8
        >>> rows = TarneebStrategy().deal_values(w).by_tricks
        >>> rows[0][9], rows[0][7], rows[1][4], rows[1][6]
        (14.0, -8.0, 4.0, 11.0)
        """
        assert isinstance(world, TarneebState)
        size = deal_tricks(world)
        declarers = world.declaring_team
        rows = []
        for seat in range(world.players):
            if world.team_of(seat) == declarers:
                row = [float(tn.deal_points(world.high, k)[0]) for k in range(size + 1)]
            else:
                row = [float(tn.deal_points(world.high, size - k)[1]) for k in range(size + 1)]
            rows.append(row)
        return DealValues(rows, [0.0] * world.players)

    def rate_calls(
        self, world: TrickGame, seat: int, calls: Sequence[Action], solver: Solver | None
    ) -> dict[Action, float]:
        """Each call of ``calls`` rated for ``seat`` in ``world``."""
        assert isinstance(world, TarneebState)
        state = world
        seed = state.seed & 0xFFFFFFFF
        out: dict[Action, float] = {}
        if state.phase == tn.TRUMP:
            by_strain = strain_tricks(state, seat, seed)
            for a in calls:
                if a.kind == tn.TRUMP and a.choice in by_strain:
                    out[a] = sum(by_strain[a.choice]) / len(by_strain[a.choice])
            return out
        if state.phase != "bid":
            return out
        team = tn.TEAMS[seat]
        mine = _best(strain_tricks(state, seat, seed))
        for a in calls:
            if a.kind == actions.BID and a.number is not None:
                out[a] = _value(mine, a.number, team, state.idle)
            elif a.kind == actions.PASS:
                out[a] = _pass_value(state, seat, seed)
        return out
