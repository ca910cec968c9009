"""Romanian Whist: 3-6 players, every deal a bid of exact tricks (spec ``rules/whist.md``).

A match follows the schedule 1..8..1 (N one-card deals, 2..7, N eight-card deals, 7..2,
N one-card deals). Each deal: cards are dealt from the first player ``F``; below eight cards
the next card is turned for trump. Everyone bids once from ``F``; the last bidder (the
physical dealer) may not make the bids add up to the number of cards. Follow suit, else
trump if you can (no over-trump duty). Exact bid: ``5 + bid``; otherwise ``-|tricks - bid|``.
Five exact (or missed) deals in a row on deals of two cards or more: ``+10`` (``-10``).

Options: ``one_card_mode`` (``normal`` | ``forehead``: on one-card deals each seat sees the
other cards and not its own), ``zero_wins`` (a final total of exactly 0 also wins),
``deal_size`` (0 plays the whole schedule; 1..8 plays a single deal of that many cards, the
duplicate-tournament unit).

>>> from levata.engine import game, Action
>>> state = game("whist").new_match(players=3, options={"deal_size": 2}, seed=3)
>>> state.view(state.to_act()[0]).counters["size"]
2
>>> while not state.is_over():
...     seat = state.to_act()[0]
...     state.apply(seat, state.legal_actions(seat)[0])
>>> len(state.result().scores)
3
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from levata.engine import events, trick
from levata.engine.cardmask import cards_of, mask_of
from levata.engine.cards import Card, Suit, french_deck
from levata.engine.contract import (
    Action,
    BadConfig,
    Event,
    GameSpec,
    GameState,
    Option,
    Result,
    SeatView,
    Zone,
    ranks_from_scores,
)
from levata.engine.deal import shuffled
from levata.engine.registry import register
from levata.engine.sampler import Sampler

__all__ = ["WhistState", "schedule", "whist_deck"]

STREAK = 5  # deals in a row that earn the streak bonus or penalty
STREAK_POINTS = 10
PLAY_OWN = Action("play_own")  # forehead mode: play the card you cannot see


def whist_deck(players: int) -> tuple[Card, ...]:
    """The top ``8 * players`` cards, Ace downwards (N=4: 7..A).

    >>> len(whist_deck(5)), min(c.rank for c in whist_deck(5))
    (40, 5)
    """
    return french_deck(lowest=15 - 2 * players)


def schedule(players: int) -> list[int]:
    """Cards per player in each deal of a full match.

    >>> schedule(3)
    [1, 1, 1, 2, 3, 4, 5, 6, 7, 8, 8, 8, 7, 6, 5, 4, 3, 2, 1, 1, 1]
    """
    ones = [1] * players
    return ones + list(range(2, 8)) + [8] * players + list(range(7, 1, -1)) + ones


def deal_points(bid: int, tricks: int) -> int:
    """Points for one deal: exact ``5 + bid``, else minus the distance.

    >>> [deal_points(2, 2), deal_points(0, 0), deal_points(4, 1), deal_points(1, 3)]
    [7, 5, -3, -2]
    """
    return 5 + bid if bid == tricks else -abs(tricks - bid)


class WhistState(GameState):
    """A Romanian Whist match in progress."""

    def __init__(
        self,
        spec: GameSpec,
        players: int,
        options: dict[str, Any],
        seed: int,
        deal: Sequence[Card] | None = None,
    ) -> None:
        super().__init__(spec, players, options, seed)
        size = options["deal_size"]
        self.schedule = [size] if size else schedule(players)
        self.deck = whist_deck(players)
        if deal is not None and sorted(deal) != sorted(self.deck):
            raise BadConfig(f"the deal must be the {len(self.deck)}-card deck 'whist' uses")
        self.deal_index = -1
        self.first = self.rng.randrange(players)  # F of deal 1; F moves on each deal
        self.totals = [0] * players
        self.hits = [0] * players
        self.misses = [0] * players
        self.deal_log: list[dict[str, Any]] = []
        self.over = False
        self._start_deal(list(deal) if deal is not None else None)

    # -- the deal ---------------------------------------------------------------------------

    @property
    def cards(self) -> int:
        """Cards per player in the current deal."""
        return self.schedule[self.deal_index]

    @property
    def forehead(self) -> bool:
        return self.cards == 1 and self.options["one_card_mode"] == "forehead"

    @property
    def dealer(self) -> int:
        """The physical dealer, who bids last: the seat before ``F``."""
        return (self.first - 1) % self.players

    def _start_deal(self, order: list[Card] | None) -> None:
        if self.deal_index >= 0:
            self.first = (self.first + 1) % self.players
        self.deal_index += 1
        n, c = self.players, self.cards
        deck = order if order is not None else shuffled(self.deck, self.rng)
        self.hands: list[list[Card]] = [[] for _ in range(n)]
        for i in range(c * n):  # one card at a time from F
            self.hands[(self.first + i) % n].append(deck[i])
        self.trump_card: Card | None = deck[c * n] if c < 8 else None
        self.undealt = deck[c * n + (1 if c < 8 else 0) :]
        self.bids: list[int | None] = [None] * n
        self.tricks = [0] * n
        self.played: list[Card] = []  # cards of completed tricks this deal
        self.current: list[tuple[int, Card]] = []
        self.leader = self.first
        self.voids: list[set[Suit]] = [set() for _ in range(n)]
        self.phase = "bid"
        self._emit(
            events.DEAL,
            cards=(self.trump_card,) if self.trump_card else (),
            deal=self.deal_index + 1,
            size=c,
            first=self.first,
            dealer=self.dealer,
            trump=self.trump_card.suit.letter if self.trump_card else None,
        )
        self._hand_events: list[int] = []
        for s in range(n):
            if self.forehead:  # s sees every card but its own
                others = [t for t in range(n) if t != s]
                ev = self._emit(
                    "foreheads",
                    audience={s},
                    cards=[self.hands[t][0] for t in others],
                    seats=others,
                )
            else:
                ev = self._emit(events.HAND, audience={s}, seat=s, cards=self.hands[s])
            self._hand_events.append(ev.seq)

    @property
    def trump(self) -> Suit | None:
        return self.trump_card.suit if self.trump_card else None

    # -- whose turn and what is legal --------------------------------------------------------

    def _bidder(self) -> int:
        made = sum(b is not None for b in self.bids)
        return (self.first + made) % self.players

    def _player(self) -> int:
        return (self.leader + len(self.current)) % self.players

    def to_act(self) -> tuple[int, ...]:
        if self.over:
            return ()
        return (self._bidder(),) if self.phase == "bid" else (self._player(),)

    def legal_actions(self, seat: int) -> list[Action]:
        if seat not in self.to_act():
            return []
        if self.phase == "bid":
            return [Action("bid", number=b) for b in self.legal_bids()]
        if self.forehead:
            return [PLAY_OWN]
        led = self.current[0][1].suit if self.current else None
        cards = trick.legal_plays(self.hands[seat], led, self.trump)
        return [Action("play", card=c) for c in sorted(cards)]

    def legal_bids(self) -> list[int]:
        """Bids open to the seat bidding now: the last may not make the total equal the cards."""
        c = self.cards
        made = [b for b in self.bids if b is not None]
        if len(made) == self.players - 1:
            return [b for b in range(c + 1) if sum(made) + b != c]
        return list(range(c + 1))

    # -- applying -----------------------------------------------------------------------------

    def _apply(self, seat: int, action: Action) -> None:
        if action.kind == "bid":
            self._bid(seat, action.number)  # type: ignore[arg-type]
        else:
            card = self.hands[seat][0] if action == PLAY_OWN else action.card
            self._play(seat, card)  # type: ignore[arg-type]

    def _bid(self, seat: int, bid: int) -> None:
        self.bids[seat] = bid
        self._emit(events.BID, seat=seat, number=bid)
        if all(b is not None for b in self.bids):
            self.phase = "play"

    def _play(self, seat: int, card: Card) -> None:
        if self.current:  # what a seat fails to follow is public knowledge
            led = self.current[0][1].suit
            if card.suit != led:
                self.voids[seat].add(led)
                if self.trump is not None and card.suit != self.trump:
                    self.voids[seat].add(self.trump)
        self.hands[seat].remove(card)
        self.current.append((seat, card))
        self._emit(events.PLAY, seat=seat, cards=(card,))
        if len(self.current) == self.players:
            self._finish_trick()

    def _finish_trick(self) -> None:
        won_by = trick.winner(self.current, self.trump)
        self.tricks[won_by] += 1
        self.played.extend(card for _, card in self.current)
        self._emit(events.TRICK, seat=won_by, cards=[c for _, c in self.current])
        self.current = []
        self.leader = won_by
        if not self.hands[won_by]:
            self._score_deal()

    def _score_deal(self) -> None:
        points = []
        for s in range(self.players):
            bid, got = self.bids[s], self.tricks[s]
            p = deal_points(bid, got)  # type: ignore[arg-type]
            if self.cards >= 2:  # one-card deals neither extend nor break a streak
                p += self._streak(s, bid == got)
            self.totals[s] += p
            points.append(p)
        record = {
            "deal": self.deal_index + 1,
            "size": self.cards,
            "first": self.first,
            "trump": self.trump_card and str(self.trump_card),
            "bids": list(self.bids),
            "tricks": list(self.tricks),
            "points": points,
            "totals": list(self.totals),
        }
        self.deal_log.append(record)
        self._emit(events.SCORE, **record)
        if self.deal_index + 1 == len(self.schedule):
            self.over = True
            self.phase = "over"
            res = self.result()
            self._emit(events.END, scores=list(res.scores), winners=list(res.winners))
        else:
            self._start_deal(None)

    def _streak(self, seat: int, exact: bool) -> int:
        if exact:
            self.hits[seat], self.misses[seat] = self.hits[seat] + 1, 0
            if self.hits[seat] == STREAK:
                self.hits[seat] = 0
                return STREAK_POINTS
        else:
            self.misses[seat], self.hits[seat] = self.misses[seat] + 1, 0
            if self.misses[seat] == STREAK:
                self.misses[seat] = 0
                return -STREAK_POINTS
        return 0

    # -- what a seat may know -----------------------------------------------------------------

    def view(self, seat: int, history: bool = True) -> SeatView:
        n = self.players
        zones: dict[str, tuple[Card, ...]] = {
            "trick": tuple(c for _, c in self.current),
            "played": tuple(self.played),
        }
        if self.trump_card is not None:
            zones["trump"] = (self.trump_card,)
        if self.forehead:
            for t in range(n):
                if t != seat and self.hands[t]:
                    zones[f"hand:{t}"] = tuple(self.hands[t])
        counters = {
            "deal": self.deal_index + 1,
            "deals": len(self.schedule),
            "size": self.cards,
            "first": self.first,
            "dealer": self.dealer,
            "leader": self.leader,
        }
        for s in range(n):
            if self.bids[s] is not None:
                counters[f"bid:{s}"] = self.bids[s]  # type: ignore[assignment]
            counters[f"tricks:{s}"] = self.tricks[s]
            counters[f"hit:{s}"] = self.hits[s]
            counters[f"miss:{s}"] = self.misses[s]
        return SeatView(
            game=self.game,
            seat=seat,
            players=n,
            phase=self.phase,
            to_act=self.to_act(),
            hand=() if self.forehead else tuple(sorted(self.hands[seat])),
            zones=zones,
            counts={f"hand:{s}": len(self.hands[s]) for s in range(n)},
            counters=counters,
            trump=self.trump.letter if self.trump is not None else None,
            scores=tuple(float(t) for t in self.totals),
            facts={
                "trick_seats": [s for s, _ in self.current],
                "one_card_mode": self.options["one_card_mode"],
                "voids": {str(s): sorted(v.letter for v in self.voids[s]) for s in range(n)},
            },
            history=(self.history(seat)) if history else (),
        )

    def table(self) -> tuple[Zone, ...]:
        n = self.players
        zones = []
        for s in range(n):
            # A forehead card is seen by everyone but its owner.
            seen = frozenset(range(n)) - {s} if self.forehead else frozenset({s})
            zones.append(Zone(f"hand:{s}", tuple(self.hands[s]), seen, owner=s))
        zones.append(Zone("trick", tuple(c for _, c in self.current), None))
        zones.append(Zone("played", tuple(self.played), None))
        zones.append(Zone("trump", (self.trump_card,) if self.trump_card else (), None))
        zones.append(Zone("undealt", tuple(self.undealt), frozenset()))
        return tuple(zones)

    # -- outcome ------------------------------------------------------------------------------

    def is_over(self) -> bool:
        return self.over

    def result(self) -> Result:
        if not self.over:
            raise RuntimeError("the match is not over")
        best = max(self.totals)
        winners = [
            s
            for s, t in enumerate(self.totals)
            if t == best or (self.options["zero_wins"] and t == 0)
        ]
        return Result(
            scores=tuple(float(t) for t in self.totals),
            ranks=ranks_from_scores(self.totals),
            winners=tuple(winners),
            deals=tuple(self.deal_log),
        )

    # -- determinization ------------------------------------------------------------------------

    def sample_world(self, seat: int, rng: random.Random) -> WhistState:
        """Redeal what ``seat`` cannot see, uniformly among deals that respect every void."""
        world: WhistState = self.clone()  # type: ignore[assignment]
        places = [z for z in self.table() if not z.visible_to(seat) and z.cards]
        unseen = mask_of(c for z in places for c in z.cards)
        allowed = []
        for z in places:
            banned = self.voids[z.owner] if z.owner is not None else set()
            allowed.append(mask_of(c for z2 in places for c in z2.cards if c.suit not in banned))
        dealt = Sampler(unseen, [len(z.cards) for z in places], allowed).sample(rng.getrandbits(64))
        for z, m in zip(places, dealt, strict=True):
            cards = cards_of(m)
            if z.owner is not None:
                world.hands[z.owner] = cards
            else:
                world.undealt = rng.sample(cards, len(cards))
        world._rewrite_hand_events()
        world._reseed_for_sample(rng)
        return world

    def _rewrite_hand_events(self) -> None:
        """Make each seat's private deal event name the cards of this (sampled) world."""
        played_by: list[list[Card]] = [[] for _ in range(self.players)]
        for ev in self._log[self._hand_events[0] :]:
            if ev.kind == "play":
                played_by[ev.seat].extend(ev.cards)  # type: ignore[index]
        initial = [self.hands[s] + played_by[s] for s in range(self.players)]
        for s, seq in enumerate(self._hand_events):
            ev = self._log[seq]
            if ev.kind == "hand":
                cards = tuple(initial[s])
            else:
                cards = tuple(initial[t][0] for t in ev.data["seats"])
            if sorted(cards) != sorted(ev.cards):
                self._log[seq] = replace(ev, cards=cards)


def narrate(ev: Event) -> str | None:
    """Whist's own event kind: ``foreheads``, what a seat sees in a forehead deal.

    >>> from levata.engine import Card
    >>> narrate(Event(seq=1, kind="foreheads", audience=frozenset({2}), cards=(Card.parse("QH"),)))
    '   seat 2 sees QH (not its own)'
    """
    if ev.kind == "foreheads":
        seat = min(ev.audience or [0])
        return f"   seat {seat} sees {' '.join(map(str, ev.cards))} (not its own)"
    return None


SPEC = register(
    GameSpec(
        name="whist",
        title="Romanian Whist",
        players=(3, 4, 5, 6),
        summary="Bid exact tricks on every deal of the 1..8..1 schedule.",
        options=(
            Option(
                "one_card_mode",
                "normal",
                "one-card deals: normal, or forehead (see the others' cards, not your own)",
                choices=("normal", "forehead"),
            ),
            Option("zero_wins", True, "a final total of exactly 0 also wins"),
            Option(
                "deal_size",
                0,
                "0 plays the full schedule; 1-8 plays one deal of that many cards",
                minimum=0,
                maximum=8,
            ),
        ),
        factory=WhistState,
        duplicate_unit="deal_size",  # one deal of n cards: a duplicate board
        narrate=narrate,
        bots={
            "heuristic": "levata.bots.heuristic.whist:HeuristicBot",
            "pimc": "levata.bots.pimc:PimcBot",
        },
    )
)
