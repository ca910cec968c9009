"""A 3-5-8 player that sizes up its hand, works the kitty and the draws, then plays to its target.

* **Contract**: no-trump for a balanced strong hand (every suit two to five cards, about 7
  tricks in honours), else the trump suit with the most length and honours (no-trump
  only when it is the one contract left). It
  says Pas when even its best contract looks well short of 8 tricks and it has a Pas left.
* **Kitty**: takes an offered kitty card when it is worth more than its own worst card, which
  goes to the kitty: low cards of short side suits first, never a trump or an Ace while a
  lower card is left (:func:`~levata.bots.strategy.three_five_eight.keep_value`).
* **Draws**: in a suit where it holds a low card and the opponent likely holds a high one:
  the most cards above its lowest unseen by it (so likely elsewhere), not a suit the
  opponent showed void of in an earlier draw. Its trump suit first when it is short there.
* **Play**: every trick counts (the score is ``tricks - target``, and tricks over the target
  become draws next deal), so it plays to win each one: the cheapest winner when last to
  play, else its strongest; it leads its strongest card while short of its target, and its
  lowest once it has made it (the others, still short, spend their winners on it).

>>> from levata.engine import game
>>> state = game("three-five-eight").new_match(players=3, seed=4)
>>> seat = state.to_act()[0]
>>> HeuristicBot().act(state.view(seat), state.legal_actions(seat)).kind in ("contract", "pas")
True
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from levata.bots.strategy.three_five_eight import keep_value
from levata.engine import Action, Card, SeatView, Suit, actions
from levata.engine.family.tricks import beats
from levata.engine.games.three_five_eight import rules as tr
from levata.engine.rules import TrickRules

__all__ = ["NT_STRONG", "PAS_BELOW", "HeuristicBot", "contract_score", "estimate_tricks"]

HONOURS = {14: 3.0, 13: 2.0, 12: 1.0, 11: 0.5}
#: Below this estimate of its tricks with its best contract, the 8-seat says Pas.
PAS_BELOW = 5.0
#: A balanced hand expected to take this many tricks without trumps names no-trump: its
#: honours need no trump, and no opponent can ruff them.
NT_STRONG = 7.0


def estimate_tricks(hand: Sequence[Card], trump: Suit | None) -> float:
    """Tricks a 16-card hand is likely to take: Aces, guarded Kings and Queens, trumps, and
    long cards at no-trump.

    >>> from levata.engine import parse_cards
    >>> round(estimate_tricks(parse_cards("AS KS QS JS 9S AH KH 2C"), Suit.SPADES), 2)
    6.25
    """
    by: dict[Suit, list[int]] = {}
    for c in hand:
        by.setdefault(c.suit, []).append(c.rank)
    total = 0.0
    for suit, ranks in by.items():
        ranks.sort(reverse=True)
        if suit == trump:
            total += sum(1.0 if r >= 12 else 0.75 if r >= 9 else 0.55 for r in ranks)
            continue
        for i, r in enumerate(ranks):
            total += {14: 1.0, 13: 0.75 if i >= 1 else 0.4, 12: 0.5 if i >= 2 else 0.15}.get(r, 0)
        if trump is None:
            total += 0.5 * max(0, len(ranks) - 4)  # long cards take tricks without trumps
    return total


def contract_score(hand: Sequence[Card], contract: str) -> float:
    """How good ``contract`` is for ``hand``: its estimated tricks; no-trump only for a
    balanced hand (every suit 2..5 cards), else it scores low.

    >>> from levata.engine import parse_cards
    >>> hand = parse_cards("AS KS 2H 3H 4H 5H 6H 7H 9C 2D")
    >>> contract_score(hand, "H") > contract_score(hand, "S") > contract_score(hand, "NT")
    True
    """
    trump = tr.trump_of(contract)
    if trump is None:
        lengths = Counter(c.suit for c in hand)
        if len(lengths) < 4 or min(lengths.values()) < 2 or max(lengths.values()) > 5:
            return 0.0
    return estimate_tricks(hand, trump)


def _suit(letter: str | None) -> Suit | None:
    return Suit.parse(letter) if letter else None


class HeuristicBot:
    """The 3-5-8 player described in the module docstring."""

    name = "heuristic"

    def __init__(self, game: str = "three-five-eight", seed: int = 0) -> None:
        self.seed = seed

    def act(self, view: SeatView, legal: Sequence[Action]) -> Action:
        if len(legal) == 1:
            return legal[0]
        kinds = {a.kind for a in legal}
        if "contract" in kinds:
            return self._announce(view, legal)
        if "keep" in kinds:
            return self._kitty(view, legal)
        if "stop" in kinds:
            return self._draw(view, legal)
        return self._play(view, legal)

    def _announce(self, view: SeatView, legal: Sequence[Action]) -> Action:
        options = [a for a in legal if a.kind == "contract"]
        nt = Action("contract", choice=tr.NO_TRUMP)
        if nt in options and contract_score(view.hand, tr.NO_TRUMP) >= NT_STRONG:
            return nt
        suits = [a for a in options if a != nt] or options
        best = max(suits, key=lambda a: contract_score(view.hand, a.choice or "NT"))
        if len(options) > 1 and contract_score(view.hand, best.choice or "NT") < PAS_BELOW:
            pas = [a for a in legal if a.kind == "pas"]
            if pas:
                return pas[0]
        return best

    def _kitty(self, view: SeatView, legal: Sequence[Action]) -> Action:
        trump = _suit(view.trump)
        offered = view.zones["kitty"][view.counters["step"]]
        own = [a.card for a in legal if a.card is not None]
        cards = [*view.hand, offered]
        worst = min(own, key=lambda c: keep_value(c, cards, trump), default=None)
        if worst is not None and keep_value(worst, cards, trump) < keep_value(
            offered, cards, trump
        ):
            return Action("swap", card=worst)
        return Action("keep")

    def _draw(self, view: SeatView, legal: Sequence[Action]) -> Action:
        draws = [a for a in legal if a.kind == "draw" and a.choice]
        if not draws:
            return Action("stop")
        hand = view.hand
        seen = set(hand) | set(view.zones.get("kitty", ())) | set(view.zones["played"])
        void = self._shown_void(view)
        trump = _suit(view.trump)

        def worth(a: Action) -> tuple[int, int]:
            seat, _, letter = (a.choice or "").partition(":")
            suit = Suit.parse(letter)
            if (int(seat), suit) in void:
                return (-1, 0)
            mine = [c for c in hand if c.suit == suit]
            low = min(c.rank for c in mine)
            above = sum(
                1 for r in range(low + 1, 15) if Card.parse(f"{_rank(r)}{letter}") not in seen
            )
            return (above + (2 if suit == trump else 0), -len(mine))

        best = max(draws, key=worth)
        return best if worth(best)[0] > 0 else Action("stop")

    def _shown_void(self, view: SeatView) -> set[tuple[int, Suit]]:
        """(opponent, suit) pairs where a draw of this seat this deal moved nothing."""
        start = max((e.seq for e in view.history if e.kind == "hand"), default=0)
        return {
            (int(e.data["opponent"]), Suit.parse(e.data["suit"]))
            for e in view.history
            if e.seq > start and e.kind == "drawn" and e.seat == view.seat and not e.cards
        }

    # -- card play --------------------------------------------------------------------------------

    def _play(self, view: SeatView, legal: Sequence[Action]) -> Action:
        seat = view.seat
        need = view.counters[f"target:{seat}"] - view.counters[f"tricks:{seat}"]
        trump = _suit(view.trump)
        rules = TrickRules(view.players, trump)
        cards = [a.card for a in legal if a.card is not None]
        if not cards:
            return legal[0]
        trick = list(view.zones["trick"])

        def power(c: Card) -> tuple[int, int]:
            return (1 if c.suit == trump else 0, c.rank)

        if not trick:
            return Action(
                actions.PLAY, card=max(cards, key=power) if need > 0 else min(cards, key=power)
            )
        best = trick[0]
        for c in trick[1:]:
            if beats(rules, c, best):
                best = c
        winners = [c for c in cards if beats(rules, c, best)]
        last = len(trick) == view.players - 1
        if winners:
            pick = min(winners, key=power) if last else max(winners, key=power)
        else:
            losers = [c for c in cards if not beats(rules, c, best)] or cards
            pick = min(losers, key=power)
        return Action(actions.PLAY, card=pick)


def _rank(r: int) -> str:
    return {11: "J", 12: "Q", 13: "K", 14: "A"}.get(r, str(r))
