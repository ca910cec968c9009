"""Kemps bots: partners who agree a signal from their team secret, and a baseline that never
signals.

**The convention.** Both partners see the same ``team_secret``, so each works the same tokens
out of it with no message: a hash of the secret picks the kemps token (registered as the
team's kemps set) and two decoys. A seat that holds four of a kind at the start of a tick
shows the kemps token, at a tick after which its partner comes before every opponent in the
rotating priority (an opponent who reads the token cannot call first); otherwise now and then
a decoy while it is not seen collecting, so that a lone token says little. In real time there
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

>>> from levata.engine.games.kemps import KempsState
>>> state = KempsState.from_position(4, ["7S 7H 7D 2C", "2S 3S 4S 5S", "8S 8H 9D 9C",
...                                      "JS QS KS AS"], table="7C 3H 4H 5H")
>>> str(HeuristicBot(seed=1).act(state.view(0), state.legal_actions(0)))
'swap 2C@0'
"""

from __future__ import annotations

import functools
import hashlib
import random
from collections import Counter
from collections.abc import Sequence

from levata.engine import Action, Card, SeatView
from levata.engine.games.kemps.rules import (
    ALPHABET,
    CALL_KINDS,
    CONTRAKEMPS,
    KEMPS,
    SWAP,
    holds_quad,
    mask_of,
    partner,
    swap_parts,
    team_of,
)

__all__ = ["HeuristicBot", "SilentBot", "convention"]

#: How often a seat with no quad shows a decoy; more often once it is seen collecting, so
#: that a token from a collector is no proof.
DECOY_RATE = 0.1
#: Cards of one rank an opponent must be seen collecting for a token of its to be believed.
BELIEVED_AFTER = 2


@functools.lru_cache(maxsize=256)
def convention(secret: str) -> tuple[str, tuple[str, str]]:
    """The kemps token and two decoys both partners derive from their team secret.

    >>> convention("00" * 16)
    ('G7', ('G13', 'G6'))
    """
    digest = hashlib.sha256(secret.encode()).digest()
    order = sorted(range(len(ALPHABET)), key=lambda i: digest[i])
    kemps, *decoys = (ALPHABET[i] for i in order[:3])
    return kemps, (decoys[0], decoys[1])


def _ranks(cards: Sequence[Card]) -> Counter[int]:
    return Counter(c.rank for c in cards)


_CARDS: dict[str, Card] = {}


def _card(name: str) -> Card:
    """A card named in the view's facts (parsed once: a search asks at every step)."""
    card = _CARDS.get(name)
    if card is None:
        card = _CARDS[name] = Card.parse(name)
    return card


def _partner_first_next(view: SeatView) -> bool:
    """Will the partner come before every opponent in the next tick's priority (so that no
    opponent who reads the token can call first)? Always yes when the stock is out (the last
    chance).

    >>> from levata.engine.games.kemps import KempsState
    >>> state = KempsState.from_position(4, ["7S 7H 7D 7C", "2S 3S 4S 5S", "8S 8H 9D 9C",
    ...                                      "JS QS KS AS"], table="2H 3H 4H 5H", tick=1)
    >>> _partner_first_next(state.view(0))  # tick 2: priority 2, 3, 0, 1
    True
    """
    if not view.counts.get("stock"):
        return True
    n, me = view.players, view.seat
    mate, own, t = partner(me, n), team_of(me, n), view.counters["tick"] + 1
    ahead = (mate - t) % n
    return all((s - t) % n > ahead for s in range(n) if team_of(s, n) != own)


def _known(view: SeatView, seat: int) -> list[Card]:
    """The cards everybody saw ``seat`` take that it still holds."""
    return [_card(c) for c in view.facts["known"][seat]]


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
        choice = self._choice(view, legal)
        for seat, token in view.facts["signals"]:  # remembered once this decision is made
            self._shown.setdefault(team_of(seat, view.players), set()).add(token)
        payload: dict[str, str | int] = {}
        if choice.kind == SWAP and view.options.get("mode") == "realtime":
            _, slot = swap_parts(choice)
            payload["expect"] = str(view.zones["table"][slot])
        token = self._token(view)
        if token is not None:
            payload["signal"] = token
        return choice.with_payload(**payload) if payload else choice

    # -- the signal -------------------------------------------------------------------------

    def _token(self, view: SeatView) -> str | None:
        if not self.signals or "team_secret" not in view.facts:
            return None
        kemps, decoys = convention(view.facts["team_secret"])
        exposed = max(_ranks(_known(view, view.seat)).values(), default=0) >= BELIEVED_AFTER
        if holds_quad(view.hand):
            if view.options.get("mode") == "realtime":  # a race of speed: hide from readers
                return kemps if not exposed or not view.counts.get("stock") else None
            return kemps if _partner_first_next(view) else None
        if not exposed and self.rng.random() < DECOY_RATE:
            return self.rng.choice(decoys)
        return None

    # -- what to do -------------------------------------------------------------------------

    def _choice(self, view: SeatView, legal: Sequence[Action]) -> Action:
        call = self._call(view, legal)
        if call is not None:
            return call
        swaps = [a for a in legal if a.kind == SWAP]
        if not swaps or holds_quad(view.hand):
            return next((a for a in legal if a.kind == "pass"), legal[0])
        best = self._swap(view, swaps)
        return legal[0] if best is None else best

    def _call(self, view: SeatView, legal: Sequence[Action]) -> Action | None:
        n, me = view.players, view.seat
        mate = partner(me, n)
        known = [[_card(c) for c in k] for k in view.facts["known"]]
        seen = [_ranks(k) for k in known]
        calls = {(a.kind, a.number): a for a in legal if a.kind in CALL_KINDS}
        if max(seen[mate].values(), default=0) >= 4:
            return calls.get((KEMPS, None))
        # A token its team has not shown before in this deal: its kemps token, likely.
        fresh = {
            seat
            for seat, token in view.facts["signals"]
            if token not in self._shown.get(team_of(seat, n), ())
        }
        if self.signals and "team_secret" in view.facts:
            kemps, _ = convention(view.facts["team_secret"])
            if [mate, kemps] in view.facts["signals"]:
                return calls.get((KEMPS, None))
        own = team_of(me, n)
        for seat in range(n):
            team = team_of(seat, n)
            if team == own:
                continue
            most = max(seen[seat].values(), default=0)
            if most >= 4 or (seat in fresh and most >= BELIEVED_AFTER):
                return calls.get((CONTRAKEMPS, team))
        return None

    def _swap(self, view: SeatView, swaps: Sequence[Action]) -> Action | None:
        hand = list(view.hand)
        mine = _ranks(hand)
        table = view.zones["table"]
        gone = _ranks(view.zones.get("dead", ()))
        n, me = view.players, view.seat
        own = team_of(me, n)
        others = Counter[int]()
        collected: set[int] = set()  # ranks an opponent is seen to hold three of
        for seat, cards in enumerate(view.facts["known"]):
            if seat == me:
                continue
            ranks = _ranks([_card(c) for c in cards])
            others.update(ranks)
            if team_of(seat, n) != own:
                collected.update(r for r, k in ranks.items() if k >= 3)
        copies = 4 * (1 if n <= 8 else 2)

        def room(rank: int) -> int:  # copies not yet out of reach
            return copies - gone[rank] - others[rank]

        target = max(mine, key=lambda r: (mine[r], room(r), r))
        best: tuple[tuple[int, ...], Action] | None = None
        for action in swaps:
            give, slot = swap_parts(action)
            take = table[slot]
            if give.rank == target or give.rank in collected:
                continue
            after = mine.copy()
            after[give.rank] -= 1
            after[take.rank] += 1
            top = max(after.values())
            if top <= mine[target]:
                continue  # no nearer to a quad
            key = (top, room(take.rank), -mine[give.rank], -slot)
            if best is None or key > best[0]:
                best = (key, action)
        return None if best is None else best[1]


class SilentBot(HeuristicBot):
    """The baseline: the same player that never registers a kemps set nor shows a token."""

    name = "silent"
    signals = False
