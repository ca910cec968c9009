"""The signalling Kemps partner's choices, from what a seat sees: the heuristic bot
(``levata.bots.heuristic.kemps``) plays by these, and so do the search's fast playouts
(:mod:`.playout`), so the two cannot drift apart.

**The convention.** Both partners see the same team secret, so each works the same tokens out
of it with no message (:func:`convention`): the kemps token and two decoys. A seat that holds
four of a kind shows the kemps token at a tick after which its partner comes before every
opponent in the priority (:func:`partner_first_next`); otherwise now and then a decoy while it
is seen collecting neither now nor after its choice of the tick (:func:`token`).

**Its moves** (:func:`choice`): a call (:func:`call`), else the swap toward the rank it holds
most of (:func:`best_swap`), else ``pass``.

>>> from levata.engine.cards import parse_cards
>>> table = Table(seat=0, players=4, hand=parse_cards("7S 7H 7D 2C"),
...               table=parse_cards("7C 3H 4H 5H"), known=[[], [], [], []])
>>> str(choice(table, shown={}, signals=True))
'swap 2C@0'
"""

from __future__ import annotations

import functools
import hashlib
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from levata.engine.cards import Card
from levata.engine.contract import Action
from levata.engine.games.kemps.rules import (
    ALPHABET,
    KEMPS,
    SWAP,
    holds_quad,
    partner,
    swap,
    swap_parts,
    team_of,
)

__all__ = [
    "BELIEVED_AFTER",
    "DECOY_RATE",
    "Table",
    "best_swap",
    "call",
    "choice",
    "convention",
    "exposes",
    "nearer",
    "partner_first_next",
    "token",
]

#: How often a seat with no quad shows a decoy while seen collecting neither before its
#: choice nor after it (a decoy from a collector would be read as its kemps token).
DECOY_RATE = 0.1
#: Cards of one rank an opponent must be seen collecting for a token of its to be believed.
BELIEVED_AFTER = 2

_PASS = Action("pass")
_KEMPS = Action(KEMPS)
_CONTRAKEMPS: dict[int, Action] = {}


def _contrakemps(team: int) -> Action:
    action = _CONTRAKEMPS.get(team)
    if action is None:
        action = _CONTRAKEMPS[team] = Action("contrakemps", number=team)
    return action


@dataclass
class Table:
    """What one seat sees of an exchange tick: its hand, the table's slots, the dead pile,
    the cards each seat was seen to take and still holds (``known``), the last tick's
    signals, its team's secret (``None``: it has none), the tick, the stock's size and the
    mode."""

    seat: int
    players: int
    hand: Sequence[Card]
    table: Sequence[Card]
    known: Sequence[Sequence[Card]]
    dead: Sequence[Card] = ()
    signals: Sequence[Sequence[Any]] = ()
    secret: str | None = None
    tick: int = 0
    stock: int = 1
    realtime: bool = False
    swaps: bool = True  # whether swaps are allowed (not in the last call)


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


def partner_first_next(players: int, seat: int, tick: int, stock: int) -> bool:
    """Will the partner come before every opponent in the next tick's priority (so that no
    opponent who reads the token can call first)? Always yes when the stock is out (the last
    chance).

    >>> partner_first_next(4, 0, 1, stock=20)  # tick 2: priority 2, 3, 0, 1
    True
    >>> partner_first_next(4, 0, 2, stock=20), partner_first_next(4, 0, 2, stock=0)
    (False, True)
    """
    if not stock:
        return True
    n = players
    mate, own, t = partner(seat, n), team_of(seat, n), tick + 1
    ahead = (mate - t) % n
    return all((s - t) % n > ahead for s in range(n) if team_of(s, n) != own)


def token(seen: Table, choice: Action, rng: random.Random) -> str | None:
    """The token to show beside this tick's ``choice`` (``None``: none): the kemps token when
    holding a quad (in tick mode only when the partner calls first next tick), a decoy now and
    then while seen collecting neither now nor after the choice (:func:`exposes`). Draws from
    ``rng`` only when it may show a decoy.

    The readers (:func:`call`) see the token beside the cards seen taken once the tick's swaps
    are in: a decoy shown with the swap that makes the seat seen collecting reads as its kemps
    token, and calls a wrong CONTRAKEMPS.

    >>> from levata.engine.cards import parse_cards
    >>> seen = Table(seat=0, players=4, hand=parse_cards("7S 7H 2D 3C"),
    ...              table=parse_cards("7C 3H 4H 5H"), known=[parse_cards("7S"), [], [], []],
    ...              secret="00" * 16)
    >>> token(seen, swap(parse_cards("2D")[0], 0), random.Random(0)) is None  # 7S, then 7C
    True
    """
    if seen.secret is None:
        return None
    kemps, decoys = convention(seen.secret)
    exposed = _most(seen.known[seen.seat]) >= BELIEVED_AFTER
    if holds_quad(seen.hand):
        if seen.realtime:  # a race of speed: hide from readers
            return kemps if not exposed or not seen.stock else None
        return kemps if partner_first_next(seen.players, seen.seat, seen.tick, seen.stock) else None
    # Before the choice too: a swap may fail (another seat took the slot first).
    if exposed or exposes(seen, choice):
        return None
    if rng.random() < DECOY_RATE:
        return rng.choice(decoys)
    return None


def exposes(seen: Table, choice: Action) -> bool:
    """Whether ``choice`` leaves the seat seen collecting (two or more of a rank among the
    cards everybody saw it take and that it still holds, the ``known`` ones): a swap gives its
    card (one of them leaves them) and takes the slot's card in sight of all.

    >>> from levata.engine.cards import parse_cards
    >>> seen = Table(seat=0, players=4, hand=parse_cards("7S 7H 2D 3C"),
    ...              table=parse_cards("7C 3H 4H 5H"), known=[parse_cards("7S"), [], [], []])
    >>> exposes(seen, swap(parse_cards("2D")[0], 0)), exposes(seen, swap(parse_cards("7S")[0], 0))
    (True, False)
    >>> exposes(seen, swap(parse_cards("2D")[0], 1)), exposes(seen, Action("pass"))
    (False, False)
    """
    if choice.kind != SWAP:
        return False
    give, slot = swap_parts(choice)
    if slot >= len(seen.table):
        return False
    after = list(seen.known[seen.seat])
    if give in after:
        after.remove(give)
    after.append(seen.table[slot])
    return _most(after) >= BELIEVED_AFTER


def call(seen: Table, shown: Mapping[int, set[str]], signals: bool) -> Action | None:
    """KEMPS when the partner showed the kemps token in the last tick or everybody saw it take
    four of a kind; CONTRAKEMPS on a team one of whose seats everybody saw take four of a kind,
    or showed a token its team had not ``shown`` before in the deal right after collecting two
    or more of a rank in public. ``signals``: the seat reads its own convention."""
    n, me = seen.players, seen.seat
    mate = partner(me, n)
    known = seen.known
    if _most(known[mate]) >= 4:
        return _KEMPS
    # A token its team has not shown before in this deal: its kemps token, likely.
    fresh = {s for s, t in seen.signals if t not in shown.get(team_of(s, n), ())}
    if signals and seen.secret is not None:
        kemps, _ = convention(seen.secret)
        if any(s == mate and t == kemps for s, t in seen.signals):
            return _KEMPS
    own = team_of(me, n)
    for seat in range(n):
        team = team_of(seat, n)
        if team == own:
            continue
        most = _most(known[seat])
        if most >= 4 or (seat in fresh and most >= BELIEVED_AFTER):
            return _contrakemps(team)
    return None


def nearer(
    seen: Table, swaps: Sequence[Action] | None = None, most: int | None = None
) -> list[Action]:
    """The swaps that get nearer to a quad, best first, one per slot (the best taking its
    card; a slot none does is left out), at most ``most``: :func:`best_swap` is the first.
    ``swaps``: the swaps to weigh (default: every one, in the legal list's order).

    Only a card of a rank held most of gets nearer: the swap takes one (of another rank than
    the card it gives), so each such swap ends with one more than the most held now. The best
    takes the rank with the most copies still to be found, giving a card of the rank held
    least, from the lowest slot; it never leaves a card an opponent is seen to collect three
    of, nor one of the rank it collects (the one held most: ties, more copies to be found).

    >>> from levata.engine.cards import parse_cards
    >>> seen = Table(seat=0, players=4, hand=parse_cards("7S 7H 2D 3C"),
    ...              table=parse_cards("7C 3H 2H 7D"), known=[[], [], [], []])
    >>> [str(a) for a in nearer(seen)], str(best_swap(seen))
    (['swap 2D@0', 'swap 2D@3'], 'swap 2D@0')
    """
    best = _nearer(seen, swaps)
    slots = sorted(best, key=lambda k: best[k][0], reverse=True)[:most]
    return [swap(best[k][1], k) for k in slots]


def _nearer(
    seen: Table, swaps: Sequence[Action] | None
) -> dict[int, tuple[tuple[int, int, int], Card]]:
    hand, table, n, me = seen.hand, seen.table, seen.players, seen.seat
    mine = [0] * 15  # by rank (2..14)
    for c in hand:
        mine[c.rank] += 1
    out = [0] * 15  # out of reach: dead, or seen taken by another seat
    for c in seen.dead:
        out[c.rank] += 1
    own = team_of(me, n)
    collected: set[int] = set()  # ranks an opponent is seen to hold three of
    for seat, cards in enumerate(seen.known):
        if seat == me:
            continue
        for c in cards:
            out[c.rank] += 1
        if team_of(seat, n) != own and len(cards) >= 3:
            counts = [0] * 15
            for c in cards:
                counts[c.rank] += 1
                if counts[c.rank] >= 3:
                    collected.add(c.rank)
    copies = 4 * (1 if n <= 8 else 2)
    top = max(mine)
    target = max({c.rank for c in hand}, key=lambda r: (mine[r], copies - out[r], r))
    pairs = (
        [(c, k) for c in dict.fromkeys(hand) for k in range(len(table))]
        if swaps is None
        else [swap_parts(a) for a in swaps]
    )
    best: dict[int, tuple[tuple[int, int, int], Card]] = {}
    for give, slot in pairs:
        take = table[slot].rank
        if give.rank in (target, take) or give.rank in collected or mine[take] < top:
            continue  # no nearer to a quad
        key = (copies - out[take], -mine[give.rank], -slot)
        if slot not in best or key > best[slot][0]:
            best[slot] = (key, give)
    return best


def best_swap(seen: Table, swaps: Sequence[Action] | None = None) -> Action | None:
    """The best swap of :func:`nearer` (``None``: no swap gets nearer to a quad)."""
    best = nearer(seen, swaps, most=1)
    return best[0] if best else None


def choice(seen: Table, shown: Mapping[int, set[str]], signals: bool, calls: bool = True) -> Action:
    """The seat's choice, no payload: a call (``calls``), else the best swap (none while
    holding a quad), else ``pass``."""
    called = call(seen, shown, signals) if calls else None
    if called is not None:
        return called
    if seen.swaps and not holds_quad(seen.hand):
        best = best_swap(seen)
        if best is not None:
            return best
    return _PASS


def _most(cards: Sequence[Card]) -> int:
    """The most cards of one rank among ``cards`` (a few: a hand's worth)."""
    ranks = [c.rank for c in cards]
    return max((ranks.count(r) for r in ranks), default=0)
