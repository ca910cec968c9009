"""A Banking Cards player that sizes up its hand, works the exchanges, then plays to its quota.

* **Refusal**: a hand without figures refuses when it does not expect to make its quota.
* **Penalty and Perechiuța requests**: offer the lowest card of the suit the target is most
  likely long in: the one the requester itself is shortest in (the more of a suit lies
  outside, the likelier the target answers with a high card, case a), but not a suit where
  the target's answers showed nothing above the card. Figures are kept back.
  Its last request to a target it has already taken a figure from offers its cheapest
  figure (a J, at best) instead: the target keeps a figure, so it cannot refuse after the
  exchanges and cancel them.
* **Perechiuțe**: hunts the leader (declares when the declaration has a target), withholds
  when it would only show four cards for nothing (the holder leads the round alone).
* **Trump**: the suit with the most length and honours.
* **Final Exchange**: gives its lowest card of its longest side suit (short suits ruff).
* **Gunoi**: buries losers: low cards of short side suits first (a void to ruff in), never a
  trump or an Ace while a lower card is left.
* **Play**: short of its quota, it wins (the cheapest winner when last, else the strongest);
  once it has made it, it ducks, keeping its high cards for later tricks, and wins only when
  a low card (below a Queen, or the cheapest winner last to play) does it.

>>> from levata.engine import game
>>> state = game("banking").new_match(players=4, seed=4)
>>> seat = state.to_act()[0]
>>> HeuristicBot().act(state.view(seat), state.legal_actions(seat)).kind in ("keep", "refuse")
True
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from levata.bots.strategy import gunoi_value, trump_score
from levata.engine import Action, Card, SeatView, Suit, actions
from levata.engine.family.tricks import beats
from levata.engine.games.banking import rules as br
from levata.engine.rules import TrickRules

__all__ = ["HeuristicBot", "estimate_tricks", "gunoi_value", "trump_score"]


def estimate_tricks(hand: Sequence[Card], trump: Suit | None, players: int) -> float:
    """Tricks a hand is likely to take: Aces, guarded Kings and Queens, trumps.

    >>> from levata.engine import parse_cards
    >>> round(estimate_tricks(parse_cards("AS KS AH 9C 8C 7C"), Suit.CLUBS, 4), 2)
    4.45
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
            total += {14: 0.95, 13: 0.7 if i >= 1 else 0.35, 12: 0.4 if i >= 2 else 0.1}.get(r, 0)
    return total * (1.0 if players == 4 else 1.1)


def _suit(letter: str | None) -> Suit | None:
    return Suit.parse(letter) if letter else None


class HeuristicBot:
    """The Banking player described in the module docstring."""

    name = "heuristic"

    def __init__(self, game: str = "banking", seed: int = 0) -> None:
        self.seed = seed

    def act(self, view: SeatView, legal: Sequence[Action]) -> Action:
        if len(legal) == 1:
            return legal[0]
        kinds = {a.kind for a in legal}
        if "refuse" in kinds:
            return self._refusal(view, legal)
        if "offer" in kinds:
            return self._offer(view, legal)
        if "trump" in kinds:
            return self._trump(view, legal)
        if "declare" in kinds:
            return self._declare(view, legal)
        if "give" in kinds:
            return self._give(view, legal)
        if "discard" in kinds:
            return self._bury(view, legal)
        return self._play(view, legal)

    # -- before the cards are played -----------------------------------------------------------

    def _refusal(self, view: SeatView, legal: Sequence[Action]) -> Action:
        seat = view.seat
        quota = view.counters[f"quota:{seat}"]
        hand = view.hand
        best = max(Suit.__members__.values(), key=lambda s: trump_score(hand, s))
        trump = _suit(view.trump) or (best if seat == view.counters["declarant"] else None)
        keep = estimate_tricks(hand, trump, view.players) >= quota
        return Action("keep") if keep else Action("refuse")

    def _offer(self, view: SeatView, legal: Sequence[Action]) -> Action:
        cards = [a.card for a in legal if a.card is not None]
        if not cards:
            return Action("waive")
        target = self._target(view)
        hand = view.hand
        if target is not None and self._must_protect(view, target):
            figures = [c for c in cards if c.rank in br.FIGURES]
            if figures:
                return Action("offer", card=min(figures, key=lambda c: (c.rank, _len(hand, c))))
        plain = [c for c in cards if c.rank not in br.FIGURES] or cards
        ceiling = self._ceilings(view, target) if target is not None else {}

        def worth(c: Card) -> tuple[bool, int, int]:
            # A suit where the target showed it has nothing above the card last; then its
            # own shortest suit (the target likely longest there); then the lowest card.
            top = ceiling.get(c.suit)
            return (top is not None and c.rank >= top - 1, _len(hand, c), c.rank)

        return Action("offer", card=min(plain, key=worth))

    def _ceilings(self, view: SeatView, target: int) -> dict[Suit, int]:
        """Per suit, a rank the target holds nothing above (what its answers to this seat's
        offers this session showed): case a, the card it gave back; b, the card offered;
        c, nothing at all."""
        seat = view.seat
        start = max((e.seq for e in view.history if e.kind == "deal"), default=0)
        out: dict[Suit, int] = {}
        for e in view.history:
            if e.seq < start or e.kind != "exchanged" or e.seat != seat:
                continue
            if e.data.get("target") != target or not e.cards:
                continue
            offered, case = e.cards[0], e.data.get("case")
            top = e.cards[1].rank if case == "a" else offered.rank if case == "b" else 0
            out[offered.suit] = min(out.get(offered.suit, 15), top)
        return out

    def _target(self, view: SeatView) -> int | None:
        step = view.counters["step"]
        if view.phase == "exchange":
            return int(view.facts["requests"][step][1])
        if view.phase == "perechiuta":
            return int(view.facts["perechiute"][step][1])
        return None

    def _must_protect(self, view: SeatView, target: int) -> bool:
        """Its last request to ``target``, which has already given it a figure this session."""
        seat, step = view.seat, view.counters["step"]
        if view.phase != "exchange":
            return False
        later = [r for r in view.facts["requests"][step + 1 :] if r == [seat, target]]
        if later:
            return False
        start = max((e.seq for e in view.history if e.kind == "deal"), default=0)
        return any(
            e.seq >= start
            and e.kind == "exchanged"
            and e.seat == seat
            and e.data.get("target") == target
            and len(e.cards) > 1
            and e.cards[1].rank in br.FIGURES
            for e in view.history
        )

    def _trump(self, view: SeatView, legal: Sequence[Action]) -> Action:
        return max(legal, key=lambda a: trump_score(view.hand, Suit.parse(a.choice or "S")))

    def _declare(self, view: SeatView, legal: Sequence[Action]) -> Action:
        seat, n = view.seat, view.players
        points = [view.counters[f"round_points:{s}"] for s in range(n)]
        quota = [view.counters[f"quota:{s}"] for s in range(n)]
        if br.perechiuta_target(seat, points, quota) is None:
            return Action(actions.PASS)  # withhold: it would show four cards for nothing
        return next(a for a in legal if a.kind == "declare")

    def _give(self, view: SeatView, legal: Sequence[Action]) -> Action:
        trump = _suit(view.trump)
        cards = [a.card for a in legal if a.card is not None]
        side = [c for c in cards if c.suit != trump] or cards
        pick = min(side, key=lambda c: (-_len(view.hand, c), c.rank))
        return Action("give", card=pick)

    def _bury(self, view: SeatView, legal: Sequence[Action]) -> Action:
        trump = _suit(view.trump)
        cards = [a.card for a in legal if a.card is not None]
        return Action("discard", card=min(cards, key=lambda c: gunoi_value(c, view.hand, trump)))

    # -- card play --------------------------------------------------------------------------------

    def _play(self, view: SeatView, legal: Sequence[Action]) -> Action:
        seat = view.seat
        need = view.counters[f"quota:{seat}"] - view.counters[f"tricks:{seat}"]
        trump = _suit(view.trump)
        rules = TrickRules(view.players, trump, must_trump=True)
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
        if winners and need > 0:
            pick = min(winners, key=power) if last else max(winners, key=power)
        elif winners and (last or min(winners, key=power).rank < 12):
            pick = min(winners, key=power)  # made it already: only a cheap win
        else:
            losers = [c for c in cards if not beats(rules, c, best)] or cards
            pick = min(losers, key=power)
        return Action(actions.PLAY, card=pick)


def _len(hand: Sequence[Card], card: Card) -> int:
    return Counter(c.suit for c in hand)[card.suit]
