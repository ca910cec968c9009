"""A Filcău player that binds and frises from its hand's strength and plays for aces and tens.

* **Cut**: it always cuts (every seat, its partner too, may then fris).
* **Fris** and **binding**: as :func:`~levata.bots.strategy.filcau.wants_fris` and
  :func:`~levata.bots.strategy.filcau.wants_bind` say (two filcăi or a high one to fris; any
  four, or a strong three, to bind), never over its partner's binding; it names the legal
  suit where its trumps are strongest.
* **Play**: leading, the binding side draws trumps while it holds the highest one still out;
  otherwise it leads a plain ace, else its lowest plain card. Following, when its partner
  wins the trick for sure (a trump nobody can beat) or it is the last to play, it gives a
  point card (an ace or ten of a plain suit); when the other side wins, it takes the trick
  as cheaply as it can (with its strongest card while others are still to play and points
  lie on it), else throws its cheapest card.

>>> from levata.engine import game
>>> state = game("filcau").new_match(players=4, options={"dealer": 0}, seed=4)
>>> HeuristicBot().act(state.view(3), state.legal_actions(3))
Action('cut')
"""

from __future__ import annotations

from collections.abc import Sequence

from levata.bots.strategy.filcau import trump_strength, wants_bind, wants_fris
from levata.engine import Action, Card, SeatView, Suit, actions
from levata.engine.family.tricks import beats, power, suit_of, winning_card
from levata.engine.games.filcau import rules as fr
from levata.engine.games.filcau.table import BIND, CUT, FRIS, TRUMP, trick_rules
from levata.engine.rules import TRUMP_SUIT, TrickRules

__all__ = ["HeuristicBot", "current_rules"]


def current_rules(view: SeatView) -> TrickRules:
    """The rules of the trick in progress as the view tells them (trick 1's own after a fris
    or a farbă lead)."""
    if view.trump is None:
        return trick_rules(None)
    slot = Suit.parse(view.trump).slot
    if not view.zones["played"]:
        if view.facts.get("fris") is not None:
            return trick_rules(slot, "fris")
        trick = view.zones["trick"]
        lead = trick[0] if trick else None
        four = view.counters["binding"] == 4
        if four and lead is not None and not fr.is_filcau(lead) and lead.suit.letter != view.trump:
            return trick_rules(slot, "farba")
    return trick_rules(slot)


def _points(card: Card) -> int:
    return 1 if card.rank in (10, 14) else 0


class HeuristicBot:
    """The Filcău player described in the module docstring."""

    name = "heuristic"

    def __init__(self, game: str = "filcau", seed: int = 0) -> None:
        self.seed = seed

    def act(self, view: SeatView, legal: Sequence[Action]) -> Action:
        if len(legal) == 1:
            return legal[0]
        kinds = {a.kind for a in legal}
        if CUT in kinds:
            return Action(CUT)
        if FRIS in kinds:
            card = wants_fris(view.hand)
            chosen = Action(FRIS, card=card) if card is not None else Action(actions.PASS)
            return chosen if chosen in legal else Action(actions.PASS)
        if BIND in kinds:
            return self._bind(view, legal)
        if TRUMP in kinds:
            hand = view.hand
            named = [a for a in legal if a.choice]
            return max(named, key=lambda a: trump_strength(hand, Suit.parse(a.choice or "")))
        return self._play(view, legal)

    def _bind(self, view: SeatView, legal: Sequence[Action]) -> Action:
        binder = view.counters["binder"]
        if binder >= 0 and fr.TEAMS[binder] == fr.TEAMS[view.seat]:
            return Action(actions.PASS)  # the partner holds the binding
        hand = view.hand
        binds = [
            (fr.binding_value(hand, s), trump_strength(hand, s), a)
            for a in legal
            if a.kind == BIND and a.choice and wants_bind(hand, s := Suit.parse(a.choice))
        ]
        if not binds:
            return Action(actions.PASS)
        return max(binds, key=lambda b: (b[0], b[1]))[2]

    # -- card play ----------------------------------------------------------------------------

    def _play(self, view: SeatView, legal: Sequence[Action]) -> Action:
        cards = [a.card for a in legal if a.card is not None]
        if not cards:
            return legal[0]
        rules = current_rules(view)
        trick = list(view.zones["trick"])
        if not trick:
            return Action(actions.PLAY, card=self._lead(view, cards, rules))
        best = winning_card(rules, trick)
        winner = view.facts["trick_seats"][trick.index(best)]
        last = len(trick) == fr.PLAYERS - 1
        if fr.TEAMS[winner] == fr.TEAMS[view.seat]:
            if last or self._sure(view, rules, best):
                return Action(actions.PLAY, card=self._give(cards, rules))
            return Action(actions.PLAY, card=self._cheapest(cards, rules))
        winners = [c for c in cards if beats(rules, c, best)]
        if winners:
            on_it = sum(_points(c) for c in trick)
            if not last and on_it:
                card = max(winners, key=lambda c: self._strength(c, rules))
            else:
                card = min(winners, key=lambda c: self._strength(c, rules))
            return Action(actions.PLAY, card=card)
        return Action(actions.PLAY, card=self._cheapest(cards, rules))

    @staticmethod
    def _strength(card: Card, rules: TrickRules) -> tuple[bool, int]:
        return (suit_of(rules, card) == TRUMP_SUIT, power(rules, card))

    def _cheapest(self, cards: list[Card], rules: TrickRules) -> Card:
        return min(cards, key=lambda c: (_points(c), *self._strength(c, rules)))

    def _give(self, cards: list[Card], rules: TrickRules) -> Card:
        """A point card that is no trump, else the cheapest card."""
        plain_points = [c for c in cards if _points(c) and suit_of(rules, c) != TRUMP_SUIT]
        if plain_points:
            return max(plain_points, key=lambda c: power(rules, c))
        return self._cheapest(cards, rules)

    def _unseen_trumps(self, view: SeatView, rules: TrickRules) -> list[Card]:
        seen = {*view.hand, *view.zones["played"], *view.zones["trick"]}
        return [c for c in fr.deck() if suit_of(rules, c) == TRUMP_SUIT and c not in seen]

    def _sure(self, view: SeatView, rules: TrickRules, best: Card) -> bool:
        """``best`` wins whatever is still to be played: a trump above every unseen one."""
        if rules.trump is None or suit_of(rules, best) != TRUMP_SUIT:
            return False
        return all(power(rules, c) < power(rules, best) for c in self._unseen_trumps(view, rules))

    def _lead(self, view: SeatView, cards: list[Card], rules: TrickRules) -> Card:
        binder = view.counters["binder"]
        ours = binder >= 0 and fr.TEAMS[binder] == fr.TEAMS[view.seat]
        trumps = [c for c in cards if suit_of(rules, c) == TRUMP_SUIT]
        if ours and trumps:
            top = max(trumps, key=lambda c: power(rules, c))
            if self._sure(view, rules, top):
                return top
        plain = [c for c in cards if suit_of(rules, c) != TRUMP_SUIT]
        aces = [c for c in plain if c.rank == 14]
        if aces:
            return aces[0]
        if plain:
            return min(plain, key=lambda c: (_points(c), power(rules, c)))
        return min(cards, key=lambda c: power(rules, c))
