"""A Huzur bot that plays like a careful club player, from its view alone (no history).

What it does:

* **keeps trumps and pairs**: a card's worth grows with its rank, a trump is worth more than
  any plain card, and a card that pairs another in hand is worth a little more (pairs make
  the three- and five-card leads that are hard to beat);
* **beats cheaply**: of every way to beat the previous play it picks the one that spends the
  least worth (an exact search: a play has five cards at most); it takes the table instead
  when what the beat would spend is worth more than the cards it would take in, each extra
  card in hand counted against it, heavier once the stock is empty;
* **leads** the set that sheds the most low cards, a pair's lead over a single card, and,
  **counting what has left the game** (the discard pile, the table, its own hand and the
  cards others were seen to take), favours cards nobody can still beat once the stock is
  out, so that the next seat must take;
* swaps the lowest trump for the turned card whenever it may.

The card choices are :mod:`levata.engine.games.huzur.policy`'s, which the search's fast
playouts roll out with too.

>>> from levata.engine.games.huzur import HuzurState
>>> state = HuzurState.from_position(3, ["8H 9H AC", "10H 2C 7S", "QS"], "10C")
>>> bot = HeuristicBot()
>>> str(bot.act(state.view(0), state.legal_actions(0)))  # sheds a low card, keeps the trump
'play 8H'
>>> state.apply(0, bot.act(state.view(0), state.legal_actions(0)))
>>> str(bot.act(state.view(1), state.legal_actions(1)))  # beats with the 10H, not the 2C
'beat 10H'
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from levata.engine import Action, Card, SeatView, Suit, actions
from levata.engine.games.huzur import BEAT_KIND, DONE_KIND, SWAP_KIND, TAKE_KIND
from levata.engine.games.huzur.policy import best_beat, best_lead, should_beat

__all__ = ["HeuristicBot"]


class HeuristicBot:
    """Swap, lead low sets, beat cheaply or take when a beat would cost more than the cards."""

    name = "heuristic"

    def __init__(self, game: str = "huzur", seed: int = 0) -> None:
        self.rng = random.Random(seed)  # the bot is deterministic; kept for the interface

    def act(self, view: SeatView, legal: Sequence[Action]) -> Action:
        if len(legal) == 1:
            return legal[0]
        swap = next((a for a in legal if a.kind == SWAP_KIND), None)
        if swap is not None:
            return swap
        trump = Suit.parse(view.trump or "C")
        hand = list(view.hand)
        late = view.counts["stock"] == 0 and not view.zones.get("trump")
        plays = view.facts["plays"]
        table = list(view.zones.get("table", ()))
        if any(a.kind == actions.PLAY for a in legal) or any(a.kind == DONE_KIND for a in legal):
            return self._lead(view, legal, hand, trump, late, plays, table)
        return self._respond(view, legal, hand, trump, late, plays, table)

    def _lead(
        self,
        view: SeatView,
        legal: Sequence[Action],
        hand: list[Card],
        trump: Suit,
        late: bool,
        plays: list[list[int]],
        table: list[Card],
    ) -> Action:
        chosen = table[len(table) - plays[-1][1] :] if view.phase == "lead" else []
        out = list(view.zones.get("discard", ())) + table
        for s, held in enumerate(view.facts["known"]):
            if s != view.seat:  # cards another seat holds can still beat: not out
                out = [c for c in out if str(c) not in held]
        most = 5 if not view.options.get("cap_lead_to_min_hand") else _cap(view)
        lead = best_lead(
            hand, trump, late=late, out=out, players=view.players, most=most, chosen=chosen
        )
        rest = [c for c in lead if c not in chosen]
        if rest:
            want = Action(actions.PLAY, card=rest[0])
            if want in legal:
                return want
        done = Action(DONE_KIND)
        if not rest and done in legal:
            return done
        return legal[0]

    def _respond(
        self,
        view: SeatView,
        legal: Sequence[Action],
        hand: list[Card],
        trump: Suit,
        late: bool,
        plays: list[list[int]],
        table: list[Card],
    ) -> Action:
        if view.phase == "beating":
            n_prev, covered = plays[-2][1], plays[-1][1]
            end = len(table) - covered
            targets = table[end - n_prev : end][covered:]
        else:
            targets = table[len(table) - plays[-1][1] :]
        found = best_beat(targets, hand, trump)
        take = Action(TAKE_KIND)
        if found is None:
            return take if take in legal else legal[0]
        cost, cards = found
        if take in legal and not should_beat(cost, targets, table, trump, late):
            return take
        want = Action(BEAT_KIND, card=cards[0])
        return want if want in legal else next(a for a in legal if a.kind == BEAT_KIND)


def _cap(view: SeatView) -> int:
    """The most cards a lead may have under ``cap_lead_to_min_hand``."""
    done = set(view.facts["finished"])
    others = [
        view.counts[f"hand:{s}"] for s in range(view.players) if s != view.seat and s not in done
    ]
    return max(1, min([5, *others]))
