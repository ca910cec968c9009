"""Kemps bots: partners who agree a signal from their team secret, and a baseline that never
signals.

**The convention.** Both partners see the same ``team_secret``, so each works the same tokens
out of it with no message: a hash of the secret picks the kemps token (registered as the
team's kemps set) and two decoys. A seat that holds four of a kind at the start of a tick
shows the kemps token, at a tick after which its partner comes before every opponent in the
rotating priority (an opponent who reads the token cannot call first); otherwise now and then
a decoy, so that a lone token says little, while it is seen collecting neither as the tick
begins nor after its choice of the tick (two cards of a rank seen taken: the opponents would
read a decoy from a collector as its kemps token, and call CONTRAKEMPS wrongly). In real time there
is no priority to wait for: it signals at once unless everybody saw it collect (two cards of
the rank), and then only once the stock is out.

**Its own moves.** It collects the rank it holds most of (ties: the rank with more copies still
to be found), swapping a card of another rank for a table card of that rank; it never leaves a
card on the table that an opponent is seen to collect three of. With nothing to take it passes
(everyone passing flushes the table). In real time every swap names the card it expects.

**Calls.** KEMPS when its partner showed the kemps token in the last tick, or when everybody
saw the partner take four of a kind. CONTRAKEMPS on a team when everybody saw one of its seats
take four of a kind, or when one of its seats showed a token right after collecting in public
(two or more cards of one rank seen taken) that its team had not shown before in the deal (a
team's decoys come back, its kemps token is shown once), the moment its partner would call.

:class:`SilentBot` is the same player without the signals: it registers nothing and never
signals, so its partner calls only on what everybody saw (the baseline).

The choices themselves are :mod:`levata.engine.games.kemps.policy`'s, which the search's
fast playouts play by too.

>>> from levata.engine.games.kemps import KempsState
>>> state = KempsState.from_position(4, ["7S 7H 7D 2C", "2S 3S 4S 5S", "8S 8H 9D 9C",
...                                      "JS QS KS AS"], table="7C 3H 4H 5H")
>>> str(HeuristicBot(seed=1).act(state.view(0), state.legal_actions(0)))
'swap 2C@0'
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from levata.engine import Action, Card, SeatView
from levata.engine.games.kemps import policy
from levata.engine.games.kemps.policy import BELIEVED_AFTER, DECOY_RATE, convention
from levata.engine.games.kemps.rules import SWAP, holds_quad, mask_of, swap_parts, team_of

__all__ = ["BELIEVED_AFTER", "DECOY_RATE", "HeuristicBot", "SilentBot", "convention", "seen_by"]

#: The swaps a search weighs (the best that get nearer to a quad): with pass and the calls,
#: few enough to be played out on the same worlds (``ismcts``' paired root).
SWAPS_WEIGHED = 2

_CARDS: dict[str, Card] = {}


def _card(name: str) -> Card:
    """A card named in the view's facts (parsed once: a search asks at every step)."""
    card = _CARDS.get(name)
    if card is None:
        card = _CARDS[name] = Card.parse(name)
    return card


def seen_by(view: SeatView, signals: bool = True) -> policy.Table:
    """What the policy reads of ``view`` (``signals``: the seat keeps its team's convention)."""
    secret = view.facts.get("team_secret") if signals else None
    return policy.Table(
        seat=view.seat,
        players=view.players,
        hand=view.hand,
        table=view.zones["table"],
        known=[[_card(c) for c in k] for k in view.facts["known"]],
        dead=view.zones.get("dead", ()),
        signals=view.facts["signals"],
        secret=secret,
        tick=view.counters["tick"],
        stock=view.counts.get("stock", 0),
        realtime=view.options.get("mode") == "realtime",
    )


class HeuristicBot:
    """The signalling partner; see the module."""

    name = "heuristic"
    #: Whether it registers a kemps set and shows tokens (the baseline does neither).
    signals = True

    def __init__(self, game: str = "kemps", seed: int = 0) -> None:
        self.rng = random.Random(seed)
        #: The deal the memory is of, and the tokens each team has shown in it (a team's
        #: decoys come back; its kemps token is shown once, just before its call).
        self._deal = -1
        self._shown: dict[int, set[str]] = {}

    def act(self, view: SeatView, legal: Sequence[Action]) -> Action:
        """Its move among ``legal`` (a search may hand it a single choice to dress with the
        payload it would give: the registered set, a signal, the card a swap expects)."""
        if view.phase == "convene":
            if not self.signals:
                return legal[0]
            kemps, _ = convention(view.facts["team_secret"])
            return legal[0].with_payload(kemps=mask_of([kemps]))
        if view.phase not in ("exchange", "last_call"):
            return legal[0]  # a convention word: the secret says it all
        deal = view.counters["deal"]
        if deal != self._deal:
            self._deal, self._shown = deal, {}
        seen = seen_by(view, self.signals)
        choice = self._choice(seen, legal, self._shown)
        for seat, token in view.facts["signals"]:  # remembered once this decision is made
            self._shown.setdefault(team_of(seat, view.players), set()).add(token)
        payload: dict[str, str | int] = {}
        if choice.kind == SWAP and seen.realtime:
            _, slot = swap_parts(choice)
            payload["expect"] = str(view.zones["table"][slot])
        token = policy.token(seen, choice, self.rng)
        if token is not None:
            payload["signal"] = token
        return choice.with_payload(**payload) if payload else choice

    def settled(self, view: SeatView, legal: Sequence[Action]) -> Action | None:
        """Its move where a search need not weigh it: every move but a call (``None``: the
        call it would make, to be weighed). Reads what it remembers, changes nothing, draws
        nothing.

        A call ends the deal and is judged at once on the hands, so worlds dealt from the
        view value it well; a swap is worth what the deal's next ticks make of it, which few
        playouts measure worse than the rule does.

        >>> from levata.engine.games.kemps import KempsState
        >>> state = KempsState.from_position(4, ["7S 7H 7D 2C", "2S 3S 4S 5S", "8S 8H 9D 9C",
        ...                                      "JS QS KS AS"], table="7C 3H 4H 5H")
        >>> str(HeuristicBot().settled(state.view(0), state.legal_actions(0)))
        'swap 2C@0'
        """
        if view.phase not in ("exchange", "last_call"):
            return None
        shown = self._shown if view.counters["deal"] == self._deal else {}
        seen = seen_by(view, self.signals)
        call = policy.call(seen, shown, self.signals)
        if call is not None and call in legal:
            return None
        return self._choice(seen, legal, shown)

    def candidates(self, view: SeatView, legal: Sequence[Action]) -> list[Action]:
        """The choices worth a search's time, in ``legal``'s order: ``pass``, every call, and
        the :data:`SWAPS_WEIGHED` best swaps that get nearer to a quad (its own move is among
        them; none while holding a quad: breaking it never pays), few enough for the search
        to weigh them all on the same worlds. Reads nothing it remembers, draws nothing.

        >>> from levata.engine.games.kemps import KempsState
        >>> state = KempsState.from_position(4, ["7S 7H 7D 2C", "2S 3S 4S 5S", "8S 8H 9D 9C",
        ...                                      "JS QS KS AS"], table="7C 3H 4H 5H")
        >>> [str(a) for a in HeuristicBot().candidates(state.view(0), state.legal_actions(0))]
        ['pass', 'swap 2C@0', 'kemps', 'contrakemps 1']
        """
        if view.phase not in ("exchange", "last_call"):
            return list(legal)
        seen = seen_by(view, self.signals)
        swaps = [a for a in legal if a.kind == SWAP]
        keep = set() if holds_quad(seen.hand) else set(policy.nearer(seen, swaps, SWAPS_WEIGHED))
        return [a for a in legal if a.kind != SWAP or a in keep]

    def _choice(
        self, seen: policy.Table, legal: Sequence[Action], shown: dict[int, set[str]]
    ) -> Action:
        """The policy's choice where ``legal`` holds it; else the best legal swap, or the
        first legal action."""
        call = policy.call(seen, shown, self.signals)
        if call is not None and call in legal:
            return call
        swaps = [a for a in legal if a.kind == SWAP]
        if not swaps or holds_quad(seen.hand):
            return next((a for a in legal if a.kind == "pass"), legal[0])
        best = policy.best_swap(seen, swaps)
        return legal[0] if best is None else best


class SilentBot(HeuristicBot):
    """The baseline: the same player that never registers a kemps set nor shows a token."""

    name = "silent"
    signals = False
