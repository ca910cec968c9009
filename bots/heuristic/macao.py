"""A Macao bot that plays like a careful club player, from its view alone.

What it does, in order of importance:

* answers a pending penalty (2, 3, K) or skip (4) by stacking whenever it can, with the rank it
  holds most of, aimed (red or black K) at the seat closest to finishing;
* finishes when its whole hand is one playable group;
* attacks with a penalty card or a 4 when the seat it would hit is close to finishing;
* otherwise sheds plain cards first, in the biggest same-rank group, then 4s, then J/A, and
  keeps 2, 3 and K in hand to answer attacks;
* ends a group on the card whose suit it holds most of (a black K group ends on the colour
  that hits the seat with fewer cards);
* a J or an A names the rank or suit it holds most of; with nothing left, the one most
  exhausted on the discard pile;
* draws only when nothing matches; a drawn penalty card is kept unless it attacks.

>>> from levata.engine.games.macao import MacaoState
>>> state = MacaoState.from_position(2, ["9H 2H 5S", "6C 7C"], "9D")
>>> bot = HeuristicBot()
>>> str(bot.act(state.view(0), state.legal_actions(0)))  # keeps the 2H for defence
'play 9H'
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

from levata.engine import Action, Card, SeatView, actions
from levata.engine.cards import FRENCH_RANKS
from levata.engine.games import macao

__all__ = ["HeuristicBot"]

PENALTY_RANKS = macao.PENALTY  # rank -> cards to draw
FOUR, JACK, KING, ACE = macao.FOUR, macao.JACK, macao.KING, macao.ACE
CHANGERS = (JACK, ACE)
RANK_NAMES = {name: FRENCH_RANKS[name] for name in macao.RANK_REQUESTS}  # what a J may ask
#: A seat with this many cards or fewer is worth attacking.
DANGER = 2


def _active(view: SeatView) -> list[int]:
    done = set(view.facts["finished"])
    return [s for s in range(view.players) if s not in done]


def next_seat(view: SeatView, seat: int, step: int = 1) -> int:
    """The nearest active seat from ``seat`` clockwise (``step=1``) or back (``step=-1``)."""
    active = set(_active(view))
    t = (seat + step) % view.players
    while t not in active and t != seat:
        t = (t + step) % view.players
    return t


def target_of(view: SeatView, card: Card) -> int:
    """The seat a group ending on ``card`` would hit: a black K reflects to the previous seat."""
    nxt, prev = next_seat(view, view.seat), next_seat(view, view.seat, -1)
    if card.rank == KING and not card.red and prev != nxt:
        return prev
    return nxt


def cards_of(view: SeatView, seat: int) -> int:
    return view.counts[f"hand:{seat}"]


class HeuristicBot:
    """Stack penalties, shed plain cards in big groups, keep 2/3/K for defence."""

    name = "heuristic"

    def __init__(self, game: str = "macao", seed: int = 0) -> None:
        self.rng = random.Random(seed)  # only to break exact ties

    def act(self, view: SeatView, legal: Sequence[Action]) -> Action:
        if len(legal) == 1:
            return legal[0]
        chooser = {
            macao.RESPONDING: self._respond,
            macao.GROUPING: self._extend,
            macao.REQUESTING: self._name,
            macao.DRAWN: self._after_draw,
        }.get(view.phase, self._turn)
        return chooser(view, list(legal))

    # -- a normal turn ------------------------------------------------------------------------

    def _turn(self, view: SeatView, legal: list[Action]) -> Action:
        plays = [(a, a.card) for a in legal if a.kind == actions.PLAY and a.card is not None]
        if not plays:
            return legal[-1]  # draw, or pass when nothing can be drawn
        return max(plays, key=lambda p: (self._worth(view, p[1]), self.rng.random()))[0]

    def _worth(self, view: SeatView, card: Card) -> float:
        """How much this bot wants to start a group with ``card`` now."""
        hand = view.hand
        same_rank = sum(1 for c in hand if c.rank == card.rank)
        if same_rank == len(hand):
            return 1000.0  # the whole hand goes: finish
        suit_left = sum(1 for c in hand if c.suit == card.suit and c.rank != card.rank)
        base = 10 * same_rank + suit_left
        if card.rank in PENALTY_RANKS or card.rank == FOUR:
            victim = target_of(view, card)
            if cards_of(view, victim) <= DANGER:
                return 500.0 + base  # stop that seat finishing
            if card.rank == FOUR and view.players - len(view.facts["finished"]) == 2:
                return 200.0 + base  # head to head a 4 is a free extra turn
            return (60.0 if card.rank == FOUR else 0.0) + base
        if card.rank in CHANGERS:
            return 40.0 + base  # a changer is worth more saved for when nothing matches
        return 100.0 + base

    def _after_draw(self, view: SeatView, legal: list[Action]) -> Action:
        play, end = legal[0], legal[-1]
        card = play.card
        assert card is not None
        if card.rank in PENALTY_RANKS and cards_of(view, target_of(view, card)) > DANGER:
            return end  # keep it to answer an attack
        return play

    # -- adding to a group --------------------------------------------------------------------

    def _extend(self, view: SeatView, legal: list[Action]) -> Action:
        group = view.zones["group"]
        rank = group[0].rank
        adds = [
            a for a in legal if a.card is not None and (a.card.rank == rank or self._plain(a.card))
        ]
        if not adds:
            return legal[-1]  # done
        if len(adds) == 1:
            return adds[0]
        # Play the others first so the best closing card ends up on top.
        return min(adds, key=lambda a: self._closing(view, a.card))  # type: ignore[arg-type]  # plays carry cards

    @staticmethod
    def _plain(card: Card) -> bool:
        return card.rank in RANK_NAMES.values()

    def _closing(self, view: SeatView, card: Card) -> tuple[int, int]:
        """How good ``card`` is as the last card of the group (it becomes the top)."""
        if card.rank == KING:
            victim = target_of(view, card)
            return (-cards_of(view, victim), 0)  # hit whoever is closest to finishing
        follow = sum(1 for c in view.hand if c.suit == card.suit and c != card)
        return (follow, int(card.suit))

    # -- answering a penalty ------------------------------------------------------------------

    def _respond(self, view: SeatView, legal: list[Action]) -> Action:
        plays = [a for a in legal if a.kind == actions.PLAY]
        if not plays:
            return legal[-1]  # accept

        def strength(a: Action) -> tuple[int, int, int, float]:
            card = a.card
            assert card is not None
            copies = sum(1 for c in view.hand if c.rank == card.rank)
            victim = -cards_of(view, target_of(view, card))  # pass it to the closest finisher
            return (copies, victim, PENALTY_RANKS.get(card.rank, 0), self.rng.random())

        return max(plays, key=strength)

    # -- naming a rank or suit ----------------------------------------------------------------

    def _name(self, view: SeatView, legal: list[Action]) -> Action:
        asks = [a for a in legal if a.kind == macao.REQUEST_KIND]
        jack = asks[0].choice in RANK_NAMES
        mine = Counter(c.rank if jack else c.suit.letter for c in view.hand)
        gone = Counter(c.rank if jack else c.suit.letter for c in view.zones["discard"])

        def key(a: Action) -> tuple[int, int]:
            choice = a.choice or ""
            value: int | str = RANK_NAMES[choice] if jack else choice
            return (mine[value], gone[value])  # what I hold, else what others lack

        return max(asks, key=key)
