"""3-5-8's strategy: what a contract, a Pas or a kitty swap is worth to the 8-seat in one world.
A search bot (``levata.bots.search.pimc``) averages these over worlds rebuilt from its view
(:class:`ThreeFiveEightStrategy`); the heuristic bot sizes up its kitty by :func:`keep_value`.

* **contract**: the 8-seat takes the world's kitty into its hand and keeps the best 16 of the
  20 cards (:func:`keep_order`), the draws are made the way a seat that sees the cards would
  make them (:func:`play_draws`; none under no-trump), and the deal is played out by greedy
  playouts in C (:func:`~levata.bots.strategy.playout_tricks`). A contract used now cannot be used
  later, and every contract the seat has left will be played once, so what a contract is
  worth *now* is its result here less what it is worth on an average hand
  (:data:`TYPICAL`): ``tricks - 8 - TYPICAL[c]``. The seat makes the contract that beats its
  average by the most, saving for later the ones this hand does not need.
* **pas**: :data:`PAS_VALUE`, a redeal being worth taking only when every contract left falls
  that far below its average (a Pas used now is not there for a worse hand later).
* **swap** / **keep** (the kitty): the hand after this decision, the later kitty cards
  swapped as :func:`keep_order` would, then draws and playouts as above: mean tricks.

Draws are left to the heuristic (a draw's worth hangs on cards the drawer cannot see, which
a world would show it). In card play a seat plays for its own tricks (the score is
``tricks - target``): the plain goal.

>>> from levata.engine import Suit, parse_cards
>>> [str(c) for c in keep_order(parse_cards("2D AS 3S 9S KH"), Suit.SPADES)[-2:]]
['KH', '2D']
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from levata.bots.inference import named_trump
from levata.bots.strategy import Strategy, playout_tricks
from levata.engine import SeatView
from levata.engine.cards import Card, Suit
from levata.engine.contract import Action
from levata.engine.family import quotas as quota_family
from levata.engine.family.tricks import TrickGame
from levata.engine.games.three_five_eight import ThreeFiveEightState
from levata.engine.games.three_five_eight import rules as tr
from levata.engine.rules import TrickRules
from levata.engine.solver import Solver
from levata.engine.worlds import Likelihood

__all__ = [
    "PAS_VALUE",
    "TYPICAL",
    "ThreeFiveEightStrategy",
    "keep_order",
    "keep_value",
    "play_draws",
    "typical_results",
]

#: The 8-seat's mean ``tricks - 8`` with each kind of contract on a random deal (no credits),
#: as :func:`typical_results` measures it (``typical_results(4000, seed=1)``; seed 2 gives
#: -1.72 and -2.04: the figures hold to a few hundredths).
TYPICAL = {"suit": -1.69, tr.NO_TRUMP: -2.0}
#: A Pas is rated this far below an average contract.
PAS_VALUE = -1.5


def keep_value(card: Card, hand: Sequence[Card], trump: Suit | None) -> float:
    """What keeping ``card`` is worth to the 8-seat (the lowest goes to the kitty first):
    trumps and Aces stay; a low card of a short side suit goes first (a void to ruff in).

    >>> from levata.engine import parse_cards
    >>> hand = parse_cards("3D AS 2S 9S 10S JS 5C")
    >>> keep_value(Card.parse("3D"), hand, Suit.SPADES) < keep_value(Card.parse("5C"), hand, None)
    True
    """
    if card.suit == trump:
        return 100.0 + card.rank
    if card.rank == 14:
        return 60.0
    length = sum(1 for c in hand if c.suit == card.suit)
    if trump is None:  # no-trump: length is tricks, high cards are stoppers
        return 3.0 * card.rank + 2.0 * length
    return 2.0 * card.rank + length


def keep_order(cards: Sequence[Card], trump: Suit | None) -> list[Card]:
    """``cards`` from the one most worth keeping to the least (:func:`keep_value`)."""
    return sorted(cards, key=lambda c: (-keep_value(c, cards, trump), c))


def play_draws(
    hands: list[list[Card]], credit: Sequence[int], debt: Sequence[int], target: Sequence[int]
) -> None:
    """Make this deal's draws in ``hands`` (changed in place) as a seat that sees every hand
    would: each unit of credit draws where the card it gets most outranks the one it gives,
    and stops when no draw gains."""
    left = list(debt)
    for x in tr.drawers(credit, target):
        for _ in range(credit[x]):
            best: tuple[int, int, Suit] | None = None
            for o in (o for o in range(tr.PLAYERS) if o != x and left[o] > 0):
                for suit in {c.suit for c in hands[x]}:
                    given, got = tr.draw_exchange(hands[x], hands[o], suit)
                    if given is not None and got is not None:
                        gain = got.rank - given.rank
                        if gain > 0 and (best is None or gain > best[0]):
                            best = (gain, o, suit)
            if best is None:
                break
            _, o, suit = best
            given, got = tr.draw_exchange(hands[x], hands[o], suit)
            assert given is not None and got is not None
            hands[x].remove(given)
            hands[o].append(given)
            hands[o].remove(got)
            hands[x].append(got)
            left[o] -= 1


def _tricks(
    trump: Suit | None, hands: list[list[Card]], leader: int, seat: int, seed: int
) -> float:
    return playout_tricks(TrickRules(tr.PLAYERS, trump), hands, leader, seat, seed)


def contract_tricks(
    hands: Sequence[Sequence[Card]],
    kitty: Sequence[Card],
    eight: int,
    contract: str,
    credit: Sequence[int],
    debt: Sequence[int],
    seed: int,
) -> float:
    """The 8-seat's mean tricks with ``contract``: kitty swap, draws, playouts."""
    trump = tr.trump_of(contract)
    now = [list(h) for h in hands]
    now[eight] = keep_order([*now[eight], *kitty], trump)[: tr.HAND_SIZE]
    if contract != tr.NO_TRUMP:
        play_draws(now, credit, debt, tr.targets(eight))
    return _tricks(trump, now, eight, eight, seed)


def typical_results(deals: int, seed: int) -> dict[str, float]:
    """The 8-seat's mean ``tricks - 8`` on ``deals`` random deals, with a trump suit (the
    mean over the four) and with no-trump: what :data:`TYPICAL` holds."""
    rng = random.Random(seed)
    deck = [Card.parse(f"{r}{s}") for s in "CDHS" for r in [*map(str, range(2, 11)), *"JQKA"]]
    sums = {"suit": 0.0, tr.NO_TRUMP: 0.0}
    zero = [0] * tr.PLAYERS
    for _ in range(deals):
        cards = rng.sample(deck, len(deck))
        hands = [cards[s * 16 : (s + 1) * 16] for s in range(tr.PLAYERS)]
        kitty = cards[48:]
        for c in tr.CONTRACTS:
            got = contract_tricks(hands, kitty, 0, c, zero, zero, rng.getrandbits(32)) - 8
            sums["suit" if c != tr.NO_TRUMP else c] += got / (4 if c != tr.NO_TRUMP else 1)
    return {k: round(v / deals, 2) for k, v in sums.items()}


def typical(contract: str) -> float:
    return TYPICAL[tr.NO_TRUMP if contract == tr.NO_TRUMP else "suit"]


def _after_kitty(state: ThreeFiveEightState, action: Action) -> list[list[Card]]:
    """The hands once the 8-seat has made ``action`` on the kitty card offered and swapped
    the later ones as :func:`keep_order` would."""
    k, trump = state.eight, state.trump
    hands = [list(h) for h in state.hands]
    kitty = list(state.kitty)
    barred = set(state.from_kitty)
    for step in range(state.step, tr.KITTY):
        offered = kitty[step]
        own = [c for c in hands[k] if c not in barred]
        if step == state.step:
            give = action.card
        else:  # swap the worst own card out when the kitty card is worth more
            worst = keep_order([*hands[k], offered], trump)[-1]
            give = worst if worst in own else None
        if give is not None:
            hands[k].remove(give)
            hands[k].append(offered)
            kitty[step] = give
            barred.add(offered)
    return hands


class ThreeFiveEightStrategy(Strategy):
    """3-5-8 for the search bots: the 8-seat's contract, Pas and kitty, by greedy playouts."""

    def wants_trick(
        self, world: TrickGame, seat: int, taken: list[int], winner: int | None
    ) -> bool | None:
        """Every seat wants every trick (a seat scores its tricks less its target)."""
        return True

    def call_likelihood(self, view: SeatView, world: TrickGame) -> Likelihood | None:
        """The 8-seat's trump read as the heuristic names it: its longest suit
        (:func:`~levata.bots.inference.named_trump`; its hand now, after the kitty)."""
        return named_trump(view, world, "contract", "contract")

    def rate_calls(
        self, world: TrickGame, seat: int, calls: Sequence[Action], solver: Solver | None
    ) -> dict[Action, float]:
        """Each contract, Pas or kitty decision of ``calls`` rated for the 8-seat in
        ``world``; ``{}`` for draws."""
        assert isinstance(world, ThreeFiveEightState)
        state = world
        k = state.eight
        if seat != k or state.phase not in ("announce", "kitty"):
            return {}
        seed = state.seed & 0xFFFFFFFF
        out: dict[Action, float] = {}
        credit, debt = state.credit, state.debt
        for action in calls:
            if action.kind == "contract" and action.choice:
                c = action.choice
                got = contract_tricks(state.hands, state.kitty, k, c, credit, debt, seed)
                out[action] = got - quota_family.QUOTAS[tr.PLAYERS][0] - typical(c)
            elif action.kind == "pas":
                out[action] = PAS_VALUE
            elif action.kind in ("swap", "keep"):
                hands = _after_kitty(state, action)
                if state.contract != tr.NO_TRUMP:
                    play_draws(hands, credit, debt, state.target)
                out[action] = _tricks(state.trump, hands, k, k, seed)
        return out
