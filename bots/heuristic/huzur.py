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

import itertools
import random
from collections.abc import Iterable, Sequence

from levata.engine import Action, Card, SeatView, Suit, actions
from levata.engine.games.huzur import BEAT_KIND, DONE_KIND, SWAP_KIND, TAKE_KIND
from levata.engine.games.huzur.rules import beats, deck, power

__all__ = ["HeuristicBot", "best_beat", "best_lead", "worth"]

#: Worth of a middling card: spending a card above it costs, shedding one below gains.
MIDDLE = 8.0
#: Worth of each card a trump stands above the plain suits.
TRUMP_BONUS = 12.0
#: Extra worth of a card that pairs another in hand.
PAIR_BONUS = 2.0
#: The cost of one more card in hand while the stock lasts, and once it is empty.
CARD_COST, LATE_CARD_COST = 6.0, 10.0
#: A lead's bonus per card beyond the first (several cards are harder to beat).
MULTI_BONUS = 3.0
#: A lead card nobody can beat any more, once the stock is empty.
MASTER_BONUS = 4.0


def worth(card: Card, trump: Suit, hand: Sequence[Card] = ()) -> float:
    """What a card is worth keeping: its rank (1 for the lowest), a trump's bonus, a pair's.

    >>> from levata.engine.cards import parse_cards
    >>> hand = parse_cards("8H 8S AC")
    >>> [worth(c, Suit.CLUBS, hand) for c in hand]
    [6.0, 6.0, 24.0]
    """
    value = float(power(card) - 4) + (TRUMP_BONUS if card.suit == trump else 0.0)
    if sum(1 for c in hand if c.rank == card.rank) >= 2:
        value += PAIR_BONUS
    return value


def best_beat(
    targets: Sequence[Card], hand: Sequence[Card], trump: Suit
) -> tuple[float, list[Card]] | None:
    """The cheapest way to beat ``targets`` (card by card, in order) from ``hand``: its total
    worth and the cards, or ``None`` when nothing beats them.

    >>> from levata.engine.cards import parse_cards
    >>> cost, cards = best_beat(parse_cards("8H 9H"), parse_cards("10H JH AC"), Suit.CLUBS)
    >>> [str(c) for c in cards]
    ['10H', 'JH']
    """
    values = {c: worth(c, trump, hand) for c in hand}
    fits = [sorted((c for c in hand if beats(c, t, trump)), key=values.__getitem__) for t in targets]
    best: list[tuple[float, list[Card]] | None] = [None]

    def walk(k: int, spent: float, used: list[Card]) -> None:
        found = best[0]
        if found is not None and spent >= found[0]:
            return
        if k == len(targets):
            best[0] = (spent, list(used))
            return
        for c in fits[k]:
            if c not in used:
                used.append(c)
                walk(k + 1, spent + values[c], used)
                used.pop()

    walk(0, 0.0, [])
    return best[0]


def _leads(hand: Sequence[Card], most: int) -> Iterable[tuple[Card, ...]]:
    """Every legal lead of ``hand`` (cards in the hand's order), up to ``most`` cards."""
    for c in hand:
        yield (c,)
    if most < 3:
        return
    by_rank: dict[int, list[Card]] = {}
    for c in hand:
        by_rank.setdefault(c.rank, []).append(c)
    pairs = [p for cards in by_rank.values() for p in itertools.combinations(cards, 2)]
    seen: set[tuple[Card, ...]] = set()
    for p in pairs:
        for k in hand:
            if k not in p:
                lead = tuple(sorted((*p, k)))
                if lead not in seen:
                    seen.add(lead)
                    yield lead
    if most < 5:
        return
    for p, q in itertools.combinations(pairs, 2):
        if p[0].rank == q[0].rank:
            continue
        for k in hand:
            if k not in p and k not in q:
                lead = tuple(sorted((*p, *q, k)))
                if lead not in seen:
                    seen.add(lead)
                    yield lead


def best_lead(
    hand: Sequence[Card],
    trump: Suit,
    *,
    late: bool,
    out: Iterable[Card] = (),
    players: int = 3,
    most: int = 5,
    chosen: Sequence[Card] = (),
) -> tuple[Card, ...]:
    """The lead to play: the most worth shed below the middle, a bonus for each card beyond
    the first and, once the stock is out (``late``), for cards no unseen card can beat
    (``out``: every card this seat knows is not in another hand that could beat it).
    ``chosen``: the cards already led (the lead must start with them).

    >>> from levata.engine.cards import parse_cards
    >>> [str(c) for c in best_lead(parse_cards("7H 7S 9D AC KS"), Suit.CLUBS, late=False)]
    ['9D', '7H', '7S']
    """
    gone = set(out) | set(hand)
    live = [c for c in deck(players) if c not in gone]
    pool = sorted(set(hand) | set(chosen))
    best: tuple[float, tuple[Card, ...]] = (-1e9, tuple(pool[:1]))
    middle = MIDDLE + (3.0 if late else 0.0)
    for lead in _leads(pool, most):
        if chosen and (lead[: len(chosen)] != tuple(chosen)):
            continue
        score = sum(middle - worth(c, trump, pool) for c in lead) + MULTI_BONUS * (len(lead) - 1)
        if late:
            score += MASTER_BONUS * sum(
                1 for c in lead if not any(beats(x, c, trump) for x in live)
            )
        if score > best[0]:
            best = (score, lead)
    return best[1]


def should_beat(
    cost: float, targets: Sequence[Card], table: Sequence[Card], trump: Suit, late: bool
) -> bool:
    """Beat (spending ``cost`` of worth on ``targets``) rather than take the ``table``: the
    cards a take brings in are worth their worth less a cost per card.

    >>> from levata.engine.cards import parse_cards
    >>> should_beat(15.0, parse_cards("8H"), parse_cards("8H"), Suit.CLUBS, late=False)
    True
    >>> should_beat(24.0, parse_cards("8H"), parse_cards("8H"), Suit.CLUBS, late=False)
    False
    """
    if late:
        return True  # with the stock out every card taken must be shed again: beat
    per_card = CARD_COST
    spend = cost - MIDDLE * len(targets)
    take = sum(worth(c, trump) - MIDDLE for c in table) - per_card * len(table)
    return -spend >= take


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
