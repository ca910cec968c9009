"""Strategy: what the bots know of a game beyond its rules, shared by the search and the
heuristic players.

The engine keeps the rules (what may be played, who takes a trick, how a deal scores); how to
play well lives here, on the bots' side:

* :class:`Strategy`, what a search bot (:mod:`levata.bots.search.pimc`,
  :mod:`levata.bots.regret`) asks of a game in one full world: the objective a seat plays its
  cards for (:meth:`Strategy.goal`), how likely the world is given what the other seats did
  (:meth:`Strategy.plausibility`; the other seats' bids, calls and plays as evidence that
  weighs the draws themselves, :meth:`Strategy.evidence`), and its own values of the seat's
  calls and cards (:meth:`Strategy.rate_calls`, :meth:`Strategy.rate_cards` and their
  lines). A game names its subclass in its spec (``GameSpec.strategy``, ``"module:Class"``,
  one module per game in this package); :func:`strategy_for` loads it, so the search bots
  name no game;
* the rules of thumb several games share: :func:`bury_order` (the cards a quota-family
  player buries), :func:`trump_score` (how good a suit is as trump), :func:`aim_playout`
  (every seat steering for a number of tricks) and :func:`playout_tricks` (greedy playouts
  in C). A game's own module imports these, never another game's module.

>>> from levata.engine import game
>>> state = game("whist").new_match(players=3, options={"deal_size": 2}, seed=1)
>>> strategy_for(game("whist")).goal(state, 0)  # before the bids: its tricks
Objective('tricks', team=0)
>>> Strategy().rate_calls(state, 0, state.legal_actions(0), None)  # the base rates none
{}
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Sequence
from typing import Any, NamedTuple

from levata.bots.inference import both, play_clues, read_clues
from levata.engine import Action, BadConfig, GameSpec, GameState, SeatView
from levata.engine.cardmask import mask_of
from levata.engine.cards import Card, Suit
from levata.engine.family.tricks import TrickGame, beats, duty_cards, power, suit_of, winning_card
from levata.engine.playouts import playouts
from levata.engine.rules import TrickRules
from levata.engine.solver import Objective, Solver
from levata.engine.solver import tricks as most_tricks
from levata.engine.worlds import Likelihood

__all__ = [
    "BIDDERS",
    "HONOURS",
    "PLAYOUTS",
    "DealValues",
    "Strategy",
    "aim_playout",
    "bury_order",
    "deal_tricks",
    "gunoi_value",
    "playout_tricks",
    "rate_taking_up",
    "strategy_for",
    "trump_score",
]


class DealValues(NamedTuple):
    """What the end of a deal's card play is worth to each seat, for a search that plays the
    deal out in C (:mod:`levata.engine.trick_search`): seats as the kernel numbers them
    (:func:`~levata.bots.search.double_dummy.kernel_seat`), a seat's side being its team
    in the deal's rules."""

    #: ``by_tricks[s][k]``: seat ``s``'s value when its side ends the deal with ``k``
    #: tricks (every ``k`` from 0 to the deal's number of tricks).
    by_tricks: list[list[float]]
    #: ``per_point[s]``: its value per card point its side ends the deal with.
    per_point: list[float]


#: What a search bot may assume of the other seats' bids and calls (its ``bidders`` option,
#: :meth:`Strategy.assuming`): ``counting``, that they bid as the game's own model of a
#: player bids (Whist: counting the winners of the hand, as the heuristic bot does);
#: ``unknown``, that a seat bids so only half the time and any legal number otherwise;
#: ``random``, that a bid says nothing of the hand.
BIDDERS = ("counting", "unknown", "random")


class Strategy:
    """What a search bot asks of a game in one full world (``world``, the game's state with
    every card dealt). The defaults: a seat plays for its team's tricks, every world is as
    likely as another, and no call or card is rated (the bot then leaves calls to its
    fallback and values cards by the solver alone). A game overrides what it knows better.
    """

    def assuming(self, bidders: str) -> Strategy:
        """This strategy with the other seats' bids and calls read as ``bidders`` bid (one
        of ``BIDDERS``). A game without a model of the other seats' calls reads none, so
        the base is the same strategy under every assumption.

        >>> plain = Strategy()
        >>> plain.assuming("unknown") is plain
        True
        >>> try:
        ...     plain.assuming("wild")
        ... except BadConfig as e:
        ...     print(e)
        bidders must be counting, unknown or random, not 'wild'
        """
        if bidders not in BIDDERS:
            raise BadConfig(
                f"bidders must be {', '.join(BIDDERS[:-1])} or {BIDDERS[-1]}, not {bidders!r}"
            )
        return self

    def goal(self, world: TrickGame, seat: int) -> Objective:
        """The solver objective ``seat`` plays its cards for: its team's tricks unless the
        game says otherwise (exact tricks for a bid, card points...)."""
        return most_tricks(team=world.team_of(seat))

    def plausibility(self, world: TrickGame, seat: int) -> float:
        """How likely, relative to other worlds drawn from the same view of ``seat``,
        ``world`` is given what the other seats did that the sampler does not read (their
        bids, say): a search bot weighs the world's values by it. Worlds are drawn
        uniformly among the deals the view allows; the base weighs them all alike."""
        return 1.0

    def evidence(
        self, view: SeatView, world: GameState, plays: bool = True, calls: bool = True
    ) -> Likelihood | None:
        """The model of the other seats' play for one view (``world``: any world of it, for
        the rules; the base reads trick games alone): the likelihood of a world's hands
        given their plays (:mod:`levata.bots.inference`, read where :meth:`wants_trick` says
        what a seat wanted) and their calls (:meth:`call_likelihood`). A search bot passes it to the
        worlds (:class:`~levata.engine.worlds.Evidence`), which then draw in proportion to
        it; ``None`` (the base: no game's word on either): worlds stay uniform. ``plays``,
        ``calls``: read those (an ablation reads one alone). A likelihood of clues alone
        (:func:`~levata.bots.inference.read_clues`) carries them to the evidence, for a
        dealer in C to weigh (:meth:`~levata.engine.worlds.Evidence.of`)."""
        if not isinstance(world, TrickGame):
            return None
        by_plays = None
        if plays and type(self).wants_trick is not Strategy.wants_trick:

            def wants(seat: int, taken: list[int], winner: int | None) -> bool | None:
                return self.wants_trick(world, seat, taken, winner)

            clues = play_clues(view, world, wants)
            by_plays = read_clues(clues) if clues else None
        return both(by_plays, self.call_likelihood(view, world) if calls else None)

    def wants_trick(
        self, world: TrickGame, seat: int, taken: list[int], winner: int | None
    ) -> bool | None:
        """Whether ``seat`` wanted the trick it played to, given the tricks each seat had
        taken this deal (``taken``) and the seat winning the trick before its card
        (``winner``), as the model reads its play; ``None``: no word (the play is no
        evidence). The base has none: a game opts in by saying it."""
        return None

    def call_likelihood(self, view: SeatView, world: TrickGame) -> Likelihood | None:
        """The likelihood of a world's hands (card masks by seat) given the other seats'
        bids and calls in ``view``; ``None``: they say nothing (the base)."""
        return None

    def deal_values(self, world: TrickGame) -> DealValues:
        """What the end of this deal's card play is worth to every seat: by default what
        each seat plays for (:meth:`goal`: its side's tricks, its card points, 1 for ending
        with exactly its target). A game whose deal scores otherwise (Whist's bids) gives
        its deal's points.

        >>> from levata.engine import Action, game
        >>> w = game("tarneeb").new_match(players=4, seed=1)
        >>> Strategy().deal_values(w).by_tricks[0][:4], Strategy().deal_values(w).per_point
        ([0.0, 1.0, 2.0, 3.0], [0.0, 0.0, 0.0, 0.0])
        """
        order = world.seats_in_play() or range(world.players)
        size = deal_tricks(world)
        by_tricks: list[list[float]] = []
        per_point: list[float] = []
        for seat in order:
            goal = self.goal(world, seat)
            if goal.kind == "exact":
                by_tricks.append([float(k == goal.target) for k in range(size + 1)])
            else:
                by_tricks.append(
                    [float(k) if goal.kind == "tricks" else 0.0 for k in range(size + 1)]
                )
            per_point.append(1.0 if goal.kind == "points" else 0.0)
        return DealValues(by_tricks, per_point)

    def rate_cards(self, world: TrickGame, seat: int) -> dict[int, float]:
        """Each card ``seat`` may play now (by index) valued on the game's own scale (its
        points for the deal, say) when the deal is played out the way players really play
        it, not against a defence that only wants ``seat`` to fail. A search bot adds it,
        scaled, to the solver's value, which is a paranoid one: where a goal cannot be
        forced against everyone in a world, this still tells a near miss from a wide one."""
        return {}

    def rate_lines(self, world: TrickGame, seat: int) -> dict[int, list[float]]:
        """Like :meth:`rate_cards`, each card's value after it on each of a few fixed ways
        the seat may go on playing (the same ones in every world, each deciding from what
        the seat sees). A search bot sums each line over worlds and values the card by its
        best line: how well the seat does after the card when it must commit to one way of
        playing without seeing the cards. Where a game gives these, they replace
        :meth:`rate_cards`."""
        return {}

    def rate_calls(
        self, world: TrickGame, seat: int, calls: Sequence[Action], solver: Solver | None
    ) -> dict[Action, float]:
        """The value of each of ``calls`` (bids, contracts...) to ``seat`` in ``world``, on
        one scale the game chooses (its points for the deal, say); ``solver`` is a solver of
        ``world.rules`` to use where the game needs one. A search bot averages them over
        worlds and makes the best call; a call left out is left to its fallback."""
        return {}

    def rate_call_lines(
        self, world: TrickGame, seat: int, calls: Sequence[Action], solver: Solver | None
    ) -> dict[Action, list[float]]:
        """Like :meth:`rate_calls`, each call's value on each of a few fixed ways the seat
        may play after it (as :meth:`rate_lines` for cards). Where a game gives these, they
        replace :meth:`rate_calls`."""
        return {}


def deal_tricks(world: TrickGame) -> int:
    """Tricks in the deal in progress: those taken and those still to play.

    >>> from levata.engine import game
    >>> deal_tricks(game("whist").new_match(players=4, options={"deal_size": 5}, seed=1))
    5
    """
    order = world.seats_in_play() or range(world.players)
    cards = sum(len(world.hands[s]) for s in order) + len(world.trick)
    return sum(world.tricks[s] for s in order) + -(-cards // len(order))


def strategy_for(spec: GameSpec) -> Strategy:
    """The strategy ``spec`` names (``GameSpec.strategy``), or the plain :class:`Strategy`.

    >>> from levata.engine import game
    >>> type(strategy_for(game("whist"))).__name__
    'WhistStrategy'
    """
    return _load(spec.strategy) if spec.strategy else _PLAIN


_PLAIN = Strategy()


@functools.cache
def _load(path: str) -> Strategy:
    """One instance per class named: strategies hold no state of their own."""
    module_name, _, name = path.partition(":")
    try:
        cls = getattr(importlib.import_module(module_name), name)
    except (ImportError, AttributeError) as exc:
        raise BadConfig(f"strategy {path}: {exc}") from None
    if not (isinstance(cls, type) and issubclass(cls, Strategy)):
        raise BadConfig(f"strategy {path} is not a Strategy")
    return cls()


# --------------------------------------------------------------------------------------------
# Rules of thumb several games share

#: A, K, Q, J: what each honour adds to a suit's worth as trump (:func:`trump_score`).
HONOURS = {14: 3.0, 13: 2.0, 12: 1.0, 11: 0.5}
#: Greedy playouts per candidate and world (10% random cards, so that they differ).
PLAYOUTS = 12


def trump_score(hand: Sequence[Card], suit: Suit) -> float:
    """How good ``suit`` is as trump for ``hand``: two points a card and its honours.

    >>> from levata.engine import parse_cards
    >>> hand = parse_cards("AS KS 2H 3H 4H 5H 6H 9C")
    >>> trump_score(hand, Suit.HEARTS) > trump_score(hand, Suit.SPADES)
    True
    """
    cards = [c for c in hand if c.suit == suit]
    return 2.0 * len(cards) + sum(HONOURS.get(c.rank, 0) for c in cards)


def gunoi_value(card: Card, hand: Sequence[Card], trump: Suit | None) -> float:
    """What keeping ``card`` is worth to a quota-family player who must bury cards (Banking's
    Gunoi, 8-5-3's discards): the lowest is buried first. Trumps and Aces stay; a low card
    of a short side suit goes first (burying it makes a void).

    >>> from levata.engine import parse_cards
    >>> hand = parse_cards("3D AS 2S 9S 10S JS 5C")
    >>> gunoi_value(Card.parse("3D"), hand, Suit.CLUBS) < gunoi_value(Card.parse("2S"), hand, None)
    True
    """
    if card.suit == trump:
        return 100.0 + card.rank
    if card.rank == 14:
        return 60.0
    length = sum(1 for c in hand if c.suit == card.suit)
    return 2.0 * card.rank + length


def bury_order(hand: Sequence[Card], trump: Suit | None) -> list[Card]:
    """``hand`` in the order a player buries it (:func:`gunoi_value`, lowest first).

    >>> from levata.engine import parse_cards
    >>> [str(c) for c in bury_order(parse_cards("3D AS 2S 9S 10S JS 5C"), Suit.CLUBS)[:2]]
    ['3D', '2S']
    """
    return sorted(hand, key=lambda c: (gunoi_value(c, hand, trump), c))


def playout_tricks(
    rules: TrickRules, hands: Sequence[Sequence[Card]], leader: int, seat: int, seed: int
) -> float:
    """``seat``'s mean tricks in :data:`PLAYOUTS` greedy playouts in C of ``hands`` (10%
    random cards), ``leader`` leading.

    >>> from levata.engine import parse_cards
    >>> playout_tricks(TrickRules(2, None), [parse_cards("AS KS"), parse_cards("2S 3S")], 0, 0, 1)
    2.0
    """
    got: Any = playouts(
        rules,
        [mask_of(h) for h in hands],
        leader,
        n=PLAYOUTS,
        policy="greedy",
        epsilon=0.1,
        seed=seed,
    )
    return float(got["tricks"][seat])


def rate_taking_up(
    world: TrickGame,
    taker: int,
    calls: Sequence[Action],
    taken: Sequence[Card],
    buried: Sequence[Card],
    left_over: int,
    must_trump: bool,
) -> dict[Action, float]:
    """The mean tricks of ``taker``, the seat that names trump and takes the ``taken`` cards
    up (Banking's Declarant and Surpriza, 8-5-3's F and Surpriza), after each ``trump`` or
    ``discard`` of ``calls``: the rest of ``left_over`` cards buried by :func:`bury_order`
    (``buried`` already are), then :func:`playout_tricks` from ``taker``'s lead."""
    n, seed = world.players, world.seed & 0xFFFFFFFF
    out: dict[Action, float] = {}
    for action in calls:
        hands = [list(h) for h in world.hands]
        if action.kind == "trump" and action.choice:
            suit = Suit.parse(action.choice)
            hands[taker] = hands[taker] + list(taken)
            bury = bury_order(hands[taker], suit)[:left_over]
            rules = TrickRules(n, suit, must_trump=must_trump)
        elif action.kind == "discard" and action.card is not None:
            hands[taker] = [c for c in hands[taker] if c != action.card]
            bury = bury_order(hands[taker], world.trump)[: left_over - len(buried) - 1]
            rules = world.rules
        else:
            continue
        hands[taker] = [c for c in hands[taker] if c not in bury]
        out[action] = playout_tricks(rules, hands, taker, taker, seed)
    return out


def aim_playout(
    rules: TrickRules,
    hands: Sequence[Sequence[Card]],
    leader: int,
    trick: Sequence[Card],
    targets: Sequence[int],
    taken: Sequence[int] | None = None,
) -> list[int]:
    """Play a deal out with every seat aiming at ``targets[seat]`` tricks; the tricks each
    seat ends with (``taken`` before the position included).

    A seat short of its target plays to win (the strongest card leading or before the last
    hand, the cheapest winner last); one that has made it ducks (the strongest card that
    still loses, a low lead). How players of an exact-bid game handle their cards, and what
    a search reads to see how many tricks a hand will really take, not merely guarantee.
    The kernel's :func:`~levata.engine.playouts.aim_reach` and
    :func:`~levata.engine.playouts.aim_lines` play the same policy in C.

    >>> from levata.engine.cards import parse_cards
    >>> rules = TrickRules(2, None)
    >>> aim_playout(rules, [parse_cards("AS 3S"), parse_cards("KS 2S")], 0, [], [1, 1])
    [1, 1]
    >>> aim_playout(rules, [parse_cards("AS 3S"), parse_cards("KS 2S")], 0, [], [2, 0])
    [2, 0]
    """
    n = rules.seats
    held = [list(h) for h in hands]
    got = list(taken) if taken is not None else [0] * n
    current = list(trick)
    lead = leader
    while True:
        if len(current) == n:  # also a full trick passed in: its taker leads next
            best = winning_card(rules, current)
            lead = (lead + current.index(best)) % n
            got[lead] += 1
            current = []
        seat = (lead + len(current)) % n
        if not held[seat]:
            return got
        allowed = duty_cards(rules, held[seat], current)
        card = aim_card(rules, allowed, current, got[seat] < targets[seat], len(current) == n - 1)
        held[seat].remove(card)
        current.append(card)


def aim_card(
    rules: TrickRules, allowed: list[Card], trick: list[Card], short: bool, last: bool
) -> Card:
    """The card :func:`aim_playout` plays from ``allowed``: ``short`` of its number it wins
    (the cheapest winner when ``last`` to play), else it ducks.

    >>> from levata.engine.cards import parse_cards
    >>> rules = TrickRules(2, None)
    >>> str(aim_card(rules, parse_cards("AS 3S"), parse_cards("KS"), True, True))
    'AS'
    >>> str(aim_card(rules, parse_cards("AS 3S"), parse_cards("KS"), False, True))
    '3S'
    """

    # Trumps above the rest, then power; between equals the lower effective suit, whatever
    # the order of the hand (as the kernel's aim_reach picks).
    def strong(c: Card) -> tuple[bool, int, int]:
        return suit_of(rules, c) == rules.trump, power(rules, c), -suit_of(rules, c)

    def weak(c: Card) -> tuple[bool, int, int]:
        return suit_of(rules, c) == rules.trump, power(rules, c), suit_of(rules, c)

    if not trick:
        return max(allowed, key=strong) if short else min(allowed, key=weak)
    best = winning_card(rules, trick)
    winners = [c for c in allowed if beats(rules, c, best)]
    if short and winners:
        return min(winners, key=weak) if last else max(winners, key=strong)
    losers = [c for c in allowed if not beats(rules, c, best)]
    if not short and losers:
        return max(losers, key=strong)
    return min(allowed, key=weak)
