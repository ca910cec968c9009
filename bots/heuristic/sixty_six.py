"""A Sixty-six player that counts: it remembers every card it saw played this deal (completed
tricks lie face down, so its memory is the events it was told), keeps both seats' points,
and decides from them.

* **Claim**: as soon as its counted points reach 66 on lead (or after the last trick); never
  below (a wrong claim gives the other seat 2 or 3).
* **Exchange**: the trump jack for the turned card whenever it may.
* **Marriage**: whenever it holds one on lead with the stock open (trumps first); it leads the
  queen and keeps the king.
* **Close**: when its points and the tricks it is sure of (top trumps, then aces and tens
  whose betters are gone) make 66.
* **Play**: leading, a cheap card of a side suit (never half of a marriage); following with
  the stock open, it wins an ace or a ten cheaply, wins low leads with the ten or ace of
  their suit, and otherwise throws its cheapest card; once play is strict, it wins with its
  lowest winner or throws its cheapest card.

The compact deal (:class:`Deal`) and the policy (:func:`choose`) are also what the search
bot (:mod:`levata.bots.strategy.sixty_six`) plays its simulations with: the policy reads only
the seat's own hand and what it has seen (``peek`` lets it see the other hand, for the plain
search that assumes it does).

>>> from levata.engine import game
>>> state = game("sixty-six").new_match(players=2, options={"first": 0}, seed=4)
>>> bot = HeuristicBot("sixty-six")
>>> bot.act(state.view(0), state.legal_actions(0)) in state.legal_actions(0)
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from levata.engine import Action, Card, Event, SeatView, Suit, actions, events

__all__ = [
    "CLAIM",
    "CLOSE",
    "EXCHANGE",
    "PASS",
    "Deal",
    "HeuristicBot",
    "action_of",
    "beats",
    "choose",
    "deal_from_view",
    "move_of",
]

#: Card points and strength in a suit, by rank: A 11, 10 10, K 4, Q 3, J 2.
PTS = {14: 11, 10: 10, 13: 4, 12: 3, 11: 2}
POWER = {14: 4, 10: 3, 13: 2, 12: 1, 11: 0}
ALL = frozenset(16 * s + r for s in range(4) for r in PTS)
#: Moves of the compact deal: a card index plays it; these are the calls.
MARRY, CLOSE, EXCHANGE, CLAIM, PASS = 100, 200, 201, 202, 203


def beats(card: int, led: int, trump: int) -> bool:
    """Does ``card``, played second, take the trick led by ``led``?

    >>> beats(16 + 14, 16 + 10, 0), beats(0 + 11, 16 + 14, 0), beats(32 + 14, 16 + 11, 0)
    (True, True, False)
    """
    if card >> 4 == led >> 4:
        return POWER[card & 15] > POWER[led & 15]
    return card >> 4 == trump


def strict_follow(hand: Sequence[int], led: int, trump: int) -> list[int]:
    """The cards the strict duties allow: a higher card of the suit led, else one of it,
    else a trump, else any."""
    suit = led >> 4
    same = [c for c in hand if c >> 4 == suit]
    if same:
        return [c for c in same if POWER[c & 15] > POWER[led & 15]] or same
    return [c for c in hand if c >> 4 == trump] or list(hand)


@dataclass(slots=True)
class Deal:
    """One deal of Sixty-six as ints (a card is ``16 * suit slot + rank``), quick to copy and
    play on. Hidden parts a seat does not know are ``-1`` (a stock card) or left out (the
    other hand, in a deal read from one seat's view)."""

    hands: list[list[int]]
    stock: list[int]  # face down, top first
    turned: int  # the trump card under the stock (-1: drawn)
    trump: int
    closed_by: int = -1
    close_tricks: int = -1
    pts: list[int] = field(default_factory=lambda: [0, 0])  # card points taken
    tricks: list[int] = field(default_factory=lambda: [0, 0])
    pending: list[int] = field(default_factory=lambda: [0, 0])  # marriages announced
    leader: int = 0
    last_taker: int = -1
    trick: int = -1  # the card led to the trick in progress
    marrying: int = -1
    played: set[int] = field(default_factory=set)
    known: list[set[int]] = field(default_factory=lambda: [set(), set()])  # seen in a hand
    schnapsen: bool = False
    winner: int = -1
    award: int = -1  # set when the deal is over (0: nobody scores)

    def copy(self) -> Deal:
        return Deal(
            [list(self.hands[0]), list(self.hands[1])],
            list(self.stock),
            self.turned,
            self.trump,
            self.closed_by,
            self.close_tricks,
            list(self.pts),
            list(self.tricks),
            list(self.pending),
            self.leader,
            self.last_taker,
            self.trick,
            self.marrying,
            set(self.played),
            [set(self.known[0]), set(self.known[1])],
            self.schnapsen,
            self.winner,
            self.award,
        )

    @property
    def over(self) -> bool:
        return self.award >= 0

    def stock_count(self) -> int:
        return len(self.stock) + (self.turned >= 0)

    def strict(self) -> bool:
        return self.closed_by >= 0 or self.stock_count() == 0

    def points(self, seat: int) -> int:
        got = self.pts[seat] + (self.pending[seat] if self.tricks[seat] else 0)
        if not self.schnapsen and self.last_taker == seat and not (self.hands[0] or self.hands[1]):
            got += 10
        return got

    def actor(self) -> int:
        return self.leader if self.trick < 0 else 1 - self.leader

    def unseen(self, seat: int) -> set[int]:
        """The cards ``seat`` has not seen placed: the other hand and the stock."""
        out = set(ALL - self.played)
        out.difference_update(self.hands[seat])
        if self.turned >= 0:
            out.discard(self.turned)
        return out

    def legal(self) -> list[int]:
        a = self.actor()
        hand = self.hands[a]
        if self.trick >= 0:
            return strict_follow(hand, self.trick, self.trump) if self.strict() else list(hand)
        out = [CLAIM] if self.last_taker == a else []
        if self.marrying >= 0:
            return [self.marrying, *out]
        out += hand
        if not self.strict():
            least = 4 if self.schnapsen else 1
            if self.stock_count() >= least:
                out.append(CLOSE)
                if self.last_taker == a and 16 * self.trump + 11 in hand:
                    out.append(EXCHANGE)
            for c in hand:
                if c & 15 in (12, 13) and (c & ~15) + 25 - (c & 15) in hand:
                    out.append(MARRY + c)
        return out

    def apply(self, move: int) -> None:
        a = self.actor()
        if move == CLAIM:
            self.finish(a)
        elif move == PASS:
            self.finish(-1)
        elif move == CLOSE:
            self.closed_by, self.close_tricks = a, self.tricks[1 - a]
        elif move == EXCHANGE:
            jack = 16 * self.trump + 11
            self.hands[a].remove(jack)
            self.hands[a].append(self.turned)
            self.known[a].add(self.turned)
            self.turned = jack
        elif move >= MARRY:
            card = move - MARRY
            self.pending[a] += 40 if card >> 4 == self.trump else 20
            self.known[a].update((card, (card & ~15) + 25 - (card & 15)))
            self.marrying = card
        else:
            self._play(a, move)

    def _play(self, a: int, card: int) -> None:
        self.hands[a].remove(card)
        self.played.add(card)
        self.known[a].discard(card)
        self.marrying = -1
        if self.trick < 0:
            self.trick = card
            return
        led, self.trick = self.trick, -1
        w = a if beats(card, led, self.trump) else 1 - a
        self.pts[w] += PTS[card & 15] + PTS[led & 15]
        self.tricks[w] += 1
        self.leader = self.last_taker = w
        if not self.strict():
            for s in (w, 1 - w):  # the winner draws first; the turned trump comes last
                if self.stock:
                    self.hands[s].append(self.stock.pop(0))
                elif self.turned >= 0:
                    self.hands[s].append(self.turned)
                    self.known[s].add(self.turned)
                    self.turned = -1
        if not self.hands[w]:
            self.finish(w if self.points(w) >= 66 else -1)

    def finish(self, claimer: int) -> None:
        """End the deal: ``claimer`` claims (-1: nobody did, the hands are empty)."""
        if claimer >= 0:
            other = 1 - claimer
            if self.points(claimer) < 66:
                self.winner, self.award = other, 3 if self.tricks[other] == 0 else 2
                return
            award = 3 if self.tricks[other] == 0 else 2 if self.points(other) < 33 else 1
            if self.closed_by == other:
                award = max(award, 3 if self._closing_tricks(claimer) == 0 else 2)
            self.winner, self.award = claimer, award
        elif self.closed_by >= 0:
            other = 1 - self.closed_by
            self.winner, self.award = other, 3 if self._closing_tricks(other) == 0 else 2
        elif self.schnapsen:
            self.winner, self.award = self.last_taker, 1
        else:
            a, b = self.points(0), self.points(1)
            self.winner, self.award = (-1, 0) if a == b else ((0 if a > b else 1), 1)

    def _closing_tricks(self, seat: int) -> int:
        return self.close_tricks if self.schnapsen else self.tricks[seat]

    def value(self, seat: int) -> int:
        """The deal's game points for ``seat``: won positive, lost negative."""
        return self.award if self.winner == seat else -self.award if self.winner >= 0 else 0


# --------------------------------------------------------------------------------------------
# The policy


def choose(d: Deal, seat: int, legal: Sequence[int], peek: bool = False) -> int:
    """The move ``seat`` makes (one of ``legal``) from its hand and what it has seen; with
    ``peek`` it knows the other hand as if it saw it."""
    if CLAIM in legal and d.points(seat) >= 66:
        return CLAIM
    if PASS in legal:
        return PASS
    if EXCHANGE in legal:
        return EXCHANGE
    if d.marrying >= 0:
        return d.marrying
    other = set(d.hands[1 - seat]) if peek else d.unseen(seat)
    cards = [m for m in legal if m < MARRY]
    if d.trick >= 0:
        return _follow(d, seat, cards)
    marriages = [m - MARRY for m in legal if MARRY <= m < CLOSE and (m - MARRY) & 15 == 12]
    if marriages:
        marriages.sort(key=lambda c: c >> 4 != d.trump)  # the trump marriage first
        return MARRY + marriages[0]
    if CLOSE in legal and _sure_points(d, seat, other) + d.points(seat) >= 66:
        return CLOSE
    return _lead(d, seat, cards, other)


def _sure_winners(d: Deal, seat: int, other: set[int]) -> list[int]:
    """Cards of ``seat`` no card of ``other`` can beat in strict play (a side card counts
    only while the other side may have no trump left to ruff it... taken as: no trump out)."""
    hand = d.hands[seat]
    trumps_out = any(c >> 4 == d.trump for c in other)
    out = []
    for c in hand:
        better = [o for o in other if o >> 4 == c >> 4 and POWER[o & 15] > POWER[c & 15]]
        if not better and (c >> 4 == d.trump or not trumps_out):
            out.append(c)
    return out


def _sure_points(d: Deal, seat: int, other: set[int]) -> int:
    """Points the sure winners bring (each with a small card of the other seat beside it),
    and the marriages they make count."""
    sure = _sure_winners(d, seat, other)
    got = sum(PTS[c & 15] + 3 for c in sure)
    if sure and not d.tricks[seat]:
        got += d.pending[seat]
    return got


def _in_marriage(d: Deal, seat: int, card: int) -> bool:
    return card & 15 in (12, 13) and (card & ~15) + 25 - (card & 15) in d.hands[seat]


def _cheap_key(d: Deal, seat: int) -> object:
    """Order cards to give away: side cards before trumps, marriage halves last, cheap first."""
    return lambda c: (c >> 4 == d.trump, _in_marriage(d, seat, c), PTS[c & 15])


def _lead(d: Deal, seat: int, cards: list[int], other: set[int]) -> int:
    if d.strict():
        sure = _sure_winners(d, seat, other)
        if sure:  # cash the winners, trumps first to draw the other's
            return max(sure, key=lambda c: (c >> 4 == d.trump, POWER[c & 15]))
        return min(cards, key=_cheap_key(d, seat))  # type: ignore[arg-type]
    need = 66 - d.points(seat)
    for c in cards:  # a sure winner that brings the 66 home
        if c in _sure_winners(d, seat, other) and PTS[c & 15] + 2 >= need:
            return c
    side = [c for c in cards if c >> 4 != d.trump and PTS[c & 15] < 10]
    pool = side or cards
    return min(pool, key=_cheap_key(d, seat))  # type: ignore[arg-type]


def _follow(d: Deal, seat: int, cards: list[int]) -> int:
    led = d.trick
    winners = [c for c in cards if beats(c, led, d.trump)]
    losers = [c for c in cards if c not in winners]
    cheap = _cheap_key(d, seat)
    gain = d.pending[seat] if not d.tricks[seat] else 0
    for c in sorted(winners, key=lambda c: POWER[c & 15]):  # a winner that makes 66
        if d.points(seat) + gain + PTS[led & 15] + PTS[c & 15] >= 66:
            return c
    if d.strict():
        if winners:
            return min(winners, key=lambda c: (c >> 4 == d.trump, POWER[c & 15]))
        return min(cards, key=cheap)  # type: ignore[arg-type]
    same = [c for c in winners if c >> 4 == led >> 4]
    if PTS[led & 15] >= 10 and winners:  # an ace or a ten: take it cheaply
        return min(winners, key=lambda c: (c >> 4 == d.trump and PTS[c & 15] >= 10, PTS[c & 15]))
    if same and any(PTS[c & 15] >= 10 for c in same):  # a low lead taken by the ten or ace
        return max(same, key=lambda c: PTS[c & 15])
    if losers:
        return min(losers, key=cheap)  # type: ignore[arg-type]
    return min(cards, key=cheap)  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------------
# From a view: the seat's memory of the deal


def _int(card: Card) -> int:
    return card.index


def deal_from_view(view: SeatView) -> Deal:
    """The deal as ``view``'s seat knows it: its hand, every card it saw played (it counts
    them), both seats' points and marriages, the cards it saw go into the other hand; the
    other hand and the stock are unknown (``-1`` in the stock)."""
    me = view.seat
    start = max((i for i, ev in enumerate(view.history) if ev.kind == events.HAND), default=0)
    deal = view.history[max(0, start - 1) :]
    trump = Suit.parse(view.trump).slot if view.trump else 0
    d = Deal([[], []], [], -1, trump, leader=view.counters["leader"])
    d.hands[me] = [_int(c) for c in view.hand]
    d.schnapsen = bool(view.options.get("schnapsen", False))
    turned = _recall(d, deal)
    shown = view.zones.get("trump", ())
    if shown:
        turned = _int(shown[0])
    stock = view.counts.get("stock", 0)
    d.turned = turned if stock else -1
    d.stock = [-1] * (stock - (d.turned >= 0))
    d.tricks = [view.counters.get(f"tricks:{s}", 0) for s in range(2)]
    facts = view.facts
    d.closed_by = facts.get("closed_by") if facts.get("closed_by") is not None else -1
    close = facts.get("close_tricks")
    d.close_tricks = close if close is not None else -1
    marrying = facts.get("marrying")
    d.marrying = _int(Card.parse(marrying)) if marrying else -1
    trick = view.zones.get("trick", ())
    d.trick = _int(trick[0]) if trick else -1
    for s in range(2):
        d.known[s] = {c for c in d.known[s] if c not in d.played}
        d.known[s].update(_int(c) for c in view.zones.get(f"shown:{s}", ()))
    d.known[me] = set()
    d.hands[1 - me] = sorted(d.known[1 - me])  # what it knows of the other hand
    return d


def _recall(d: Deal, deal: Sequence[Event]) -> int:
    """Replay the seat's events of the deal into ``d`` (cards played, points, marriages,
    cards seen going into a hand); returns the card last seen turned under the stock."""
    turned = -1
    for ev in deal:
        kind, by = ev.kind, ev.seat
        if kind == events.DEAL and ev.cards:
            turned = _int(ev.cards[0])
        elif kind == events.POSITION:
            for s, cards in enumerate(ev.data["taken"]):
                got = [_int(Card.parse(c)) for c in cards]
                d.played.update(got)
                d.pts[s] += sum(PTS[c & 15] for c in got)
            d.last_taker = (
                ev.data.get("last_taker") if ev.data.get("last_taker") is not None else -1
            )
        elif kind == events.PLAY and ev.cards:
            d.played.add(_int(ev.cards[0]))
        elif kind == events.TRICK and by is not None:
            d.pts[by] += sum(PTS[c.rank] for c in ev.cards)
            d.last_taker = by
        elif kind == "marriage" and by is not None:
            d.pending[by] += ev.data["points"]
        elif kind == "exchange" and by is not None:
            turned = _int(ev.cards[0])
            d.known[by].add(_int(ev.cards[1]))
        elif kind == events.DRAW and ev.cards and by is not None:
            if _int(ev.cards[0]) == turned:
                turned = -1
            d.known[by].add(_int(ev.cards[0]))
    return turned


def move_of(action: Action) -> int:
    """The compact deal's move for an action."""
    kind = action.kind
    if kind == actions.PLAY and action.card is not None:
        return action.card.index
    if kind == "marry" and action.card is not None:
        return MARRY + action.card.index
    return {"close": CLOSE, "exchange": EXCHANGE, "claim": CLAIM}.get(kind, PASS)


def action_of(move: int, legal: Sequence[Action]) -> Action:
    """The legal action a move names."""
    for a in legal:
        if move_of(a) == move:
            return a
    return legal[0]


class HeuristicBot:
    """Counts what it saw and plays by :func:`choose`."""

    name = "heuristic"

    def __init__(self, game: str = "sixty-six", seed: int = 0) -> None:
        self.game = game

    def act(self, view: SeatView, legal: Sequence[Action]) -> Action:
        if len(legal) == 1:
            return legal[0]
        d = deal_from_view(view)
        moves = [move_of(a) for a in legal]
        if view.phase == "claim":
            d.hands = [[], []]  # the last trick is in: the points are final
            return action_of(CLAIM if d.points(view.seat) >= 66 else PASS, legal)
        return action_of(choose(d, view.seat, moves), legal)
