"""Bestia's strategy: what a seat plays its cards for, and what knocking is worth in one world.

* **Cards**: each for himself, a seat plays for its own tricks against every other
  participant (paranoid, as in Whist before the bids): three win the pot and none makes it
  the beast, so every trick counts. The solver works on the participants only (the trick
  base's ``seats_in_play``) under every duty of the card play: follow, trump, overtake, and
  the sure and secured pots, which the kernel reads from each seat's tricks and the cards
  out of play it has not seen (``BestiaState.out_of_sight``; see ``docs/games/bestia.md``).
* **Knock, terzo, fold** (:meth:`BestiaStrategy.rate_calls`): in each world, the seats that
  take part are those that knocked, this seat, and the seats still to speak whose hands the
  heuristic player would knock with (:func:`worth`); each changes as the heuristic changes,
  from this world's stock (:func:`changed_hands`); greedy playouts in C of those hands give
  this seat's chances of three tricks and of none: knocking is worth
  ``pot * (P(3+) - P(0))`` less a buio raise, the whole pot when nobody else plays, folding
  nothing. A terzo is worth the knock when at most two others take part, else nothing.
  Worlds where a seat knocked with a hand the heuristic would not knock with weigh less
  (:meth:`BestiaStrategy.plausibility`).
* **Cards beside the solve** (:meth:`BestiaStrategy.rate_cards`): each card's chips in
  greedy playouts of the rest of the hand (:func:`chip_values`).

>>> from levata.engine import game
>>> import random
>>> state = game("bestia").new_match(players=4, options={"dealer": 0}, seed=1)
>>> world = state.sample_world(1, random.Random(2))
>>> sorted(str(a) for a in BestiaStrategy().rate_calls(world, 1, world.legal_actions(1), None))
['fold', 'knock']
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from levata.bots.strategy import Strategy
from levata.engine.cardmask import mask_of
from levata.engine.cards import Card, Suit
from levata.engine.contract import Action
from levata.engine.family.tricks import TrickGame
from levata.engine.games.bestia import BestiaState
from levata.engine.playouts import playouts
from levata.engine.rules import TrickRules, trick_winner
from levata.engine.solver import Objective, Solver, tricks

__all__ = ["KNOCK_AT", "PER_KNOCKER", "PLAYOUTS", "BestiaStrategy", "knock_value", "worth"]

#: Tricks a hand must be worth to knock with nobody in yet, and more for each knocker.
KNOCK_AT, PER_KNOCKER = 1.0, 0.3
HORSE, KING = 9, 10


def worth(hand: Sequence[Card], trump: Suit | None) -> float:
    """The tricks a hand is worth, roughly: trumps by rank, plain Kings and Horses.

    >>> from levata.engine import parse_cards
    >>> round(worth(parse_cards("Kd 2d Kb 4s 5c"), Suit.DENARI), 2)
    2.1
    """
    total = 0.0
    for c in hand:
        if trump is not None and c.suit == trump:
            total += 0.4 + c.rank / 15
        elif c.rank == KING:
            total += 0.5
        elif c.rank == HORSE:
            total += 0.3
    return total


#: How much less likely a world is for each knock its hand there would not make.
UNLIKELY = 0.3
#: Greedy playouts per world for a knock (10% random cards, so that they differ).
PLAYOUTS = 16


def knock_value(world: BestiaState, seat: int) -> float:
    """What knocking is worth to ``seat`` in ``world``, in chips (see the module)."""
    said = world.declared
    order = world.speaking
    later = order[order.index(seat) + 1 :]
    trump = _trump_of(world)
    taking = [s for s in order if said[s] in ("knock", "terzo")]
    for s in later:
        bar = KNOCK_AT + PER_KNOCKER * len(taking)
        if worth(world.hands[s], trump) >= bar:
            taking.append(s)
    cost = world.options["raise"] if world.variant == "buio" and seat != world.dealer else 0
    players = [s for s in order if s in taking or s == seat]
    if len(players) == 1:
        return float(world.pot - cost)
    rules = TrickRules(
        len(players), trump, must_trump=True, head=True, overtrump=True, sure_pot=True
    )
    changed = changed_hands(world, players, trump)
    hands = [mask_of(changed[s]) for s in players]
    # out of play and unseen to every player: the deck less the hands and the turned card
    out = mask_of(world.deck) & ~mask_of(world.trump_shown)
    for h in hands:
        out &= ~h
    got: Any = playouts(  # the kernel's tallies: per-seat lists of numbers
        rules,
        hands,
        0,
        n=PLAYOUTS,
        policy="greedy",
        epsilon=0.1,
        seed=world.seed & 0xFFFFFFFF,
        hidden=[out] * len(players),
    )
    hist: list[int] = got["hist"][players.index(seat)]
    total = sum(hist) or 1
    p3, p0 = sum(hist[3:]) / total, hist[0] / total
    pot = world.pot + cost * len(players)
    return pot * (p3 - p0) - cost


def changed_hands(
    world: BestiaState, players: list[int], trump: Suit | None
) -> dict[int, list[Card]]:
    """The hands ``players`` (in speaking order) play after changing as the heuristic does
    (every plain card below the Horse), drawing from this world's stock and then from the
    folded hands, shuffled; in giro cieco and cucù they keep their cards."""
    if world.variant in ("giro", "cucu"):
        return {s: list(world.hands[s]) for s in players}
    stock = list(world.stock)
    folded = list(world.folded)
    folded += [c for s in world.speaking if s not in players for c in world.hands[s]]
    rng = random.Random(world.seed)
    out = {}
    for s in players:
        hand = list(world.hands[s])
        away = [c for c in hand if c.suit != trump and c.rank < HORSE]
        away = away[: min(5, len(stock) + len(folded))]
        keep = [c for c in hand if c not in away]
        for _ in away:
            if not stock:
                stock, folded = folded, []
                rng.shuffle(stock)
            keep.append(stock.pop())
        out[s] = keep
    return out


def _trump_of(world: BestiaState) -> Suit | None:
    """The trump of ``world``: the turned card's suit, or in cucù the card still face down
    in this world."""
    if world.trump is None and world.undealt:
        return world.undealt[-1].suit
    return world.trump


def chip_values(world: BestiaState, seat: int, seed: int) -> dict[int, float]:
    """Each card ``seat`` may play now worth its chips, ``pot * (P(3+) - P(0))`` over the
    hand's tricks, in :data:`PLAYOUTS` greedy playouts in C after it (10% random cards)."""
    order = world.in_play
    rules, n = world.rules, len(order)
    me, lead = order.index(seat), order.index(world.leader)
    hands = [mask_of(world.hands[s]) for s in order]
    trick = [c.index for c in world.trick]
    tricks = [world.tricks[s] for s in order]
    hidden = [mask_of(world.out_of_sight(s)) for s in order]  # the sure pot reads them
    out: dict[int, float] = {}
    for card in world.playable(seat):
        after = list(hands)
        after[me] &= ~(1 << card.index)
        now = [*trick, card.index]
        won, leader, before = world.tricks[seat], lead, tricks
        if len(now) == n:
            leader = trick_winner(rules, lead, now)
            won += leader == me
            before = [w + (k == leader) for k, w in enumerate(tricks)]
            now = []
        if any(after):
            got: Any = playouts(
                rules,
                after,
                leader,
                now,
                n=PLAYOUTS,
                policy="greedy",
                epsilon=0.1,
                seed=seed,
                won=before,
                hidden=hidden,
            )
            hist: list[int] = got["hist"][me]
        else:
            hist = [1]
        total = sum(hist) or 1
        p3 = sum(h for k, h in enumerate(hist) if won + k >= 3) / total
        p0 = sum(h for k, h in enumerate(hist) if won + k == 0) / total
        out[card.index] = world.pot * (p3 - p0)
    return out


class BestiaStrategy(Strategy):
    """Bestia for the search bots: the seat's own tricks, knocks by simulation."""

    def plausibility(self, world: TrickGame, seat: int) -> float:
        """While the seats speak, each knock before this seat's read as evidence: a knocker
        whose hand in this world the heuristic would not knock with (short of its bar by
        more than 0.3) makes the world :data:`UNLIKELY` times as likely. Once the cards are
        changed, the dealt hands are gone and every world weighs alike."""
        assert isinstance(world, BestiaState)
        if world.phase != "declare":
            return 1.0
        trump = _trump_of(world)
        weight, knockers = 1.0, 0
        for s in world.speaking:
            said = world.declared[s]
            if said is None:
                break
            if said in ("knock", "terzo"):
                bar = KNOCK_AT + PER_KNOCKER * knockers
                if s != seat and worth(world.hands[s], trump) < bar - 0.3:
                    weight *= UNLIKELY
                knockers += 1
        return weight

    def rate_cards(self, world: TrickGame, seat: int) -> dict[int, float]:
        """Each card's chips when the hand is played out greedily (:func:`chip_values`)."""
        assert isinstance(world, BestiaState)
        if world.phase != "play":
            return {}
        return chip_values(world, seat, world.seed & 0xFFFFFFFF)

    def goal(self, world: TrickGame, seat: int) -> Objective:
        order = world.seats_in_play()
        return tricks(seat if order is None else order.index(seat))

    def rate_calls(
        self, world: TrickGame, seat: int, calls: Sequence[Action], solver: Solver | None
    ) -> dict[Action, float]:
        assert isinstance(world, BestiaState)
        kinds = {a.kind for a in calls}
        if world.phase != "declare" or "knock" not in kinds:
            return {}  # the dealer's variant and the change: the heuristic player's
        knock = knock_value(world, seat)
        out = {}
        for a in calls:
            if a.kind == "knock":
                out[a] = knock
            elif a.kind == "fold":
                out[a] = 0.0
            elif a.kind == "terzo":
                others = sum(1 for s, d in enumerate(world.declared) if d == "knock" and s != seat)
                out[a] = knock if others <= 2 else 0.0
        return out
