"""The trick-game base: what every trick-taking game shares, so a game writes only its own rules.

A trick game declares its card-play duties **once**, as the kernel's
:class:`~levata.engine.rules.TrickRules` returned by :meth:`TrickGame.card_rules` (follow
suit, trump when void, head = beat the winning card when following, overtrump, a card layout
for special orders such as Filcau's filcai or 66's ten, card points, a last-trick bonus,
teams). The readable Python rules below (:func:`duty_cards`, :func:`trick_taker`) read that
same value, and the search kernel reads it too, so the two cannot drift apart unnoticed
(``tests/test_trick_kernel_agrees.py`` plays every registered trick game against the kernel).

The base deals, keeps the trump, whose turn it is on a trick, the cards each seat may play,
voids, tricks and cards won, the zones, the view and the table, and redeals hidden cards for a
determinized world through the exact :class:`~levata.engine.sampler.Sampler`. A game writes its
hooks: see ``docs/writing-a-trick-game.md``.

>>> from levata.engine.cards import Suit, parse_cards
>>> from levata.engine.rules import TrickRules
>>> whist = TrickRules(3, Suit.HEARTS, must_trump=True)
>>> [str(c) for c in duty_cards(whist, parse_cards("9H JH AD"), parse_cards("KS"))]
['9H', 'JH']
>>> bestia = TrickRules(3, Suit.HEARTS, must_trump=True, head=True, overtrump=True)
>>> [str(c) for c in duty_cards(bestia, parse_cards("9H JH AD"), parse_cards("KS 10H"))]
['JH']
>>> trick_taker(whist, [(1, Card.parse("KS")), (2, Card.parse("2H")), (0, Card.parse("AS"))])
2
"""

from __future__ import annotations

import operator
import random
from abc import abstractmethod
from collections import Counter as Multiset
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Self

from levata.engine import actions, events, phases
from levata.engine import fields as declared
from levata.engine.cardmask import cards_of, mask_of
from levata.engine.cards import Card, Suit
from levata.engine.contract import Action, BadConfig, Event, GameSpec, GameState, Result, SeatView
from levata.engine.fields import Counter, Declared, Seats
from levata.engine.position import Position
from levata.engine.rules import TRUMP_SUIT, TrickRules
from levata.engine.vocabulary import Vocabulary
from levata.engine.worlds import (
    DealPlan,
    Evidence,
    PlaceSets,
    ViewCache,
    copy_state,
    plan_deal,
    reseed,
    seen_log,
)
from levata.engine.zones import FACE_DOWN, OWNER, Place, Zoned
from levata.engine.zones import described as zone_names

__all__ = [
    "PLAY",
    "TrickGame",
    "beats",
    "duty_cards",
    "play_action",
    "power",
    "suit_of",
    "trick_taker",
    "winning_card",
]

#: The names every trick game's views use (a game adds its own: see :class:`Vocabulary`).
TRICK_ZONES = {
    "trick": "the cards of the trick in progress, in the order they were played",
    "played": "every card played to a finished trick of this deal, in order",
    "trump": "the card turned up for trump (absent when the deal has none)",
}
TRICK_COUNTS = {"hand:SEAT": "how many cards the seat holds"}
TRICK_COUNTERS = {
    "leader": "the seat that leads (or led) the trick in progress",
    "tricks:SEAT": "tricks the seat has taken this deal",
}
TRICK_FACTS = {
    "trick_seats": "the seats that played to the trick in progress, in order (matches `trick`)",
    "voids": "per seat (its number as a string), the suit letters it has shown it lacks by"
    " not following suit",
}
TRICK_EVENTS = {
    "hand": "your cards for this deal (seen by you alone)",
    "position": "the match was read from a position: play goes on from it as from a deal;"
    " `data.tricks`, `data.taken` (per seat, the cards it won so far this deal) and"
    " `data.last_taker` say what"
    " the tricks before it were; each seat's `hand` follows",
    "play": "`seat` played `cards` to the trick",
    "trick": "a trick is complete: `seat` took `cards`",
}

PLAY = phases.PLAYING  # the phase in which cards go to tricks; others are the game's own

#: A card's place in the cards' own order (suit, then rank), compared in C: a view is built
#: for every decision, and sorting a hand by ``Card.__lt__`` is a Python call per comparison.
CARD_ORDER = operator.attrgetter("suit", "rank")


#: ``play CARD`` by the card's hash (``rank << 3 | suit``: one slot per card of either deck),
#: filled as cards are first played: a legal list is built at every step of a search, and a
#: cache keyed by the card itself would call its Python ``__hash__`` for every card.
_PLAYS: list[Action | None] = [None] * 128


def play_action(card: Card) -> Action:
    """``play CARD``, made once per card (actions are values; legal lists are built often).

    >>> play_action(Card.parse("QH")) is play_action(Card.parse("QH"))
    True
    """
    key = card.rank << 3 | card.suit
    action = _PLAYS[key]
    if action is None:
        action = _PLAYS[key] = Action(actions.PLAY, card=card)
    return action


#: Names of the per-seat entries of a view, made once (a view is built for every decision).
SEAT_NAMES = tuple(str(s) for s in range(16))
#: Suit letters by effective suit, French and Italian decks.
_SUIT_LETTERS = {it: tuple(Suit(s + 4 * it).letter for s in range(4)) for it in (False, True)}
_HAND = tuple(f"hand:{s}" for s in range(16))  # place names of the hands, made once
#: The hooks by which a game's card play departs from the rules' (plays_out_by_rules).
_PLAY_HOOKS = ("narrow_play", "rules_of_trick", "_after_trick", "play_card", "_take_trick")


# --------------------------------------------------------------------------------------------
# The duties, read from TrickRules (the kernel reads the same value)


def suit_of(rules: TrickRules, card: Card) -> int:
    """The card's effective suit: its printed slot, or what the layout makes of it.

    >>> from levata.engine.card_orders import trick_rules
    >>> from levata.engine.rules import TrickRules
    >>> suit_of(TrickRules(4, None), Card.parse("QS")), suit_of(trick_rules("filcau", 0),
    ...     Card.parse("QS")) == TRUMP_SUIT
    (3, True)
    """
    layout = rules.layout
    return card.suit & 3 if layout is None else layout[card.index][0]  # & 3: the suit's slot


def power(rules: TrickRules, card: Card) -> int:
    """The card's strength within its effective suit: the rank, or the layout's power."""
    layout = rules.layout
    return card.rank if layout is None else layout[card.index][1]


def beats(rules: TrickRules, card: Card, best: Card) -> bool:
    """Does ``card`` beat ``best``, the card winning the trick so far?

    A higher card of the same effective suit wins; a trump beats anything else; a discard
    never wins.
    """
    if rules.layout is None:  # the common case, without a call per card: suit = slot
        mine = card.suit & 3
        if mine == best.suit & 3:
            return card.rank > best.rank
        return mine == rules.trump
    mine, theirs = suit_of(rules, card), suit_of(rules, best)
    if mine == theirs:
        return power(rules, card) > power(rules, best)
    return mine == rules.trump


def winning_card(rules: TrickRules, trick: Sequence[Card]) -> Card:
    """The card winning a (partial) trick given in play order."""
    best = trick[0]
    for card in trick[1:]:
        if beats(rules, card, best):
            best = card
    return best


def trick_taker(rules: TrickRules, plays: Sequence[tuple[int, Card]]) -> int:
    """The seat that takes a trick given as ``(seat, card)`` pairs in play order."""
    best_seat, best = plays[0]
    for seat, card in plays[1:]:
        if beats(rules, card, best):
            best_seat, best = seat, card
    return best_seat


def duty_cards(rules: TrickRules, hand: Sequence[Card], trick: Sequence[Card]) -> list[Card]:
    """The cards of ``hand`` the duties allow on ``trick`` (its cards in play order).

    In order, as the kernel applies them: with ``follow``, a card of the led effective suit
    (with ``head``, one that beats the winning card when that card is of the led suit and the
    seat can); void, with ``must_trump``, a trump (with ``overtrump``, one above a winning
    trump when the seat can); otherwise anything. The leader may lead anything.
    """
    if not trick or not rules.follow:
        return list(hand)
    if rules.layout is None:  # the common case, without a call per card: suit = slot
        led = trick[0].suit & 3
        same = [c for c in hand if c.suit & 3 == led]
    else:
        led = suit_of(rules, trick[0])
        same = [c for c in hand if suit_of(rules, c) == led]
    if same:
        if rules.head:
            best = winning_card(rules, trick)
            if suit_of(rules, best) == led:
                return _above(rules, same, best) or same
        return same
    trump = rules.trump
    if rules.must_trump and trump is not None:
        if rules.layout is None:
            trumps = [c for c in hand if c.suit & 3 == trump]
        else:
            trumps = [c for c in hand if suit_of(rules, c) == trump]
        if trumps:
            if rules.overtrump:
                best = winning_card(rules, trick)
                if suit_of(rules, best) == trump:
                    return _above(rules, trumps, best) or trumps
            return trumps
    return list(hand)


def _above(rules: TrickRules, cards: list[Card], best: Card) -> list[Card]:
    return [c for c in cards if power(rules, c) > power(rules, best)]


# --------------------------------------------------------------------------------------------
# The base state


class TrickGame(Zoned):
    """A trick-taking match. The base plays the cards; the game writes its own rules.

    Cards lie in the places of :attr:`PLACES` (``hands``, ``trick``, ``played``, the turned
    ``trump_shown``, ``undealt``, and the game's own) and move only by :meth:`move`. State the
    base keeps for the deal in progress (games read it freely): ``hands``, ``trick`` (its
    cards; ``current`` pairs them with the seats), ``played`` (cards of finished tricks),
    ``taken`` (cards each seat won), ``tricks`` (tricks per seat), ``leader``, ``last_taker``,
    ``voids`` (effective suits each seat has shown out of, public), ``trump`` (the printed
    suit or ``None``), ``trump_card`` (the turned card, if one lies face up), ``undealt``
    (cards nobody sees), ``rules`` (this deal's :class:`TrickRules`), ``phase``, ``over``.

    Hooks a game writes (see ``docs/writing-a-trick-game.md``): ``deck``, :meth:`card_rules`,
    :meth:`_score_deal`, :meth:`result`; and, when it has them, :meth:`seats_to_call`,
    :meth:`calls`, :meth:`_make_call` (bidding, contracts, exchanges, claims),
    :meth:`_after_trick` (draws from a stock), :meth:`narrow_play` (lead rules beyond the
    duties), and the view hooks :meth:`_view_counters`, :meth:`_view_facts`,
    :meth:`_view_scores`.
    """

    #: Every card the game deals from, in a fixed order (the game sets it).
    deck: tuple[Card, ...]
    #: The state the game keeps beyond the cards, declared once (:mod:`levata.engine.fields`):
    #: the view's counters and facts, the restore of a world, the vocabulary and the position
    #: are derived from it. A game lists the base's fields and its own:
    #: ``FIELDS = (*TrickGame.FIELDS, Counter("deal", ...), ...)``.
    FIELDS: ClassVar[tuple[Declared, ...]] = (
        Counter("leader", TRICK_COUNTERS["leader"], seat=True),
        Seats(Counter("tricks", TRICK_COUNTERS["tricks:SEAT"])),
    )
    #: Where cards lie (:mod:`levata.engine.zones`): a game adds its own places after these,
    #: ``PLACES = (*TrickGame.PLACES, Place("kitty", ...))``.
    PLACES: ClassVar[tuple[Place, ...]] = (
        Place(
            "hand",
            "the seat's cards",
            attr="hands",
            per_seat=True,
            seen=OWNER,  # a game that shows a hand to others: seen="_hand_seen_by"
            shown="nonempty",
            counted=TRICK_COUNTS["hand:SEAT"],
        ),
        Place("trick", TRICK_ZONES["trick"]),
        Place("played", TRICK_ZONES["played"]),
        Place("trump", TRICK_ZONES["trump"], attr="trump_shown", shown="nonempty"),
        Place("undealt", "cards nobody sees this deal", seen=FACE_DOWN, shown=False),
    )
    #: This deal's card-play rules, from :meth:`card_rules` (set with the trump).
    rules: TrickRules
    #: The end event tells the result's ``reason`` (a game whose match can end early).
    END_TELLS_REASON: ClassVar[bool] = False
    #: In a world rebuilt from a view: each seat's hand as dealt for the deal in progress
    #: (what it holds and what it played of it); ``None`` in a real match.
    dealt_hands: list[list[Card]] | None = None

    def __init__(self, spec: GameSpec, players: int, options: dict[str, Any], seed: int) -> None:
        super().__init__(spec, players, options, seed)
        self.over = False
        self.phase = PLAY
        self.trump: Suit | None = None
        self.trump_shown: list[Card] = []
        #: The deals scored so far, as their ``score`` events told them (the result's deals).
        self.deal_log: list[dict[str, Any]] = []

    def _check_order(self, deal: Sequence[Card] | None) -> list[Card] | None:
        """The first deal's deck order a caller gave (``None``: shuffle): the game's deck."""
        if deal is not None and sorted(deal) != sorted(self.deck):
            raise BadConfig(f"the deal must be the {len(self.deck)}-card deck {self.game} uses")
        return None if deal is None else list(deal)

    def result(self) -> Result:
        if not self.over:
            raise RuntimeError("the match is not over")
        return self._result()

    def _result(self) -> Result:
        """The end of the match (asked only once it is over): the game writes it."""
        raise NotImplementedError(f"{type(self).__name__} writes _result()")

    def _scored(self, record: dict[str, Any]) -> None:
        """Keep a scored deal's record and tell it (the ``score`` event)."""
        self.deal_log.append(record)
        self._emit(events.SCORE, **record)

    def _end(self) -> None:
        """The match is over: tell its result (``end``: scores, winners, and the reason where
        :attr:`END_TELLS_REASON`)."""
        self.over, self.phase = True, phases.OVER
        res = self.result()
        why: dict[str, Any] = {"reason": res.reason} if self.END_TELLS_REASON else {}
        self._emit(events.END, scores=list(res.scores), winners=list(res.winners), **why)

    @property
    def trump_card(self) -> Card | None:
        """The card turned for trump, face up, if one lies there."""
        return self.trump_shown[0] if self.trump_shown else None

    @trump_card.setter
    def trump_card(self, card: Card | None) -> None:  # a world or a position being set up
        self.trump_shown = [] if card is None else [card]

    @property
    def current(self) -> list[tuple[int, Card]]:
        """The trick in progress as ``(seat, card)``: seats play in number order from the
        leader (among :meth:`seats_in_play`)."""
        if self.seats_in_play() is None:
            n, lead = self.players, self.leader
            return [((lead + i) % n, c) for i, c in enumerate(self.trick)]
        return list(zip(self.trick_seats(), self.trick, strict=True))

    def seats_in_play(self) -> tuple[int, ...] | None:
        """The seats that play to tricks this deal, in play order, when not every seat does
        (Bestia's folded seats sit the hand out): the kernel's rules then hold only these
        (``rules.seats`` is their number; the kernel's seat ``k`` is ``seats_in_play()[k]``).
        ``None``: every seat plays, the kernel's seat ``s`` is seat ``s``."""
        return None

    # -- hooks the game writes ----------------------------------------------------------------

    @abstractmethod
    def card_rules(self) -> TrickRules:
        """This deal's card-play rules: seats, trump, teams, duties, layout, points.

        Called when the trump is set and by :meth:`_rules_changed`; both the Python rules and
        the kernel read the value kept in ``self.rules``.
        """

    @abstractmethod
    def _score_deal(self) -> None:
        """Every hand is empty: score the deal, then deal again or end the match."""

    def seats_to_call(self) -> tuple[int, ...]:
        """Who acts outside card play (bidding, exchanging...); the game's own phases."""
        return ()

    def calls(self, seat: int) -> list[Action]:
        """Actions other than playing a card (bids, exchanges, claims), legal for ``seat`` now.

        Asked in every phase, card play included (66 closes or marries before leading)."""
        return []

    def _make_call(self, seat: int, action: Action) -> None:
        """Apply a legal action returned by :meth:`calls`."""
        raise NotImplementedError(f"{type(self).__name__} has no calls")

    def _after_trick(self, winner: int) -> None:
        """A trick was just taken by ``winner`` (and ``leader`` is set): draws from a stock,
        a change of duties... Runs before the base checks whether the deal is over."""

    def narrow_play(self, seat: int, cards: list[Card]) -> list[Card]:
        """Rules of the game beyond the trick duties (a forced first lead...): the cards of
        ``cards`` (what the duties allow) that ``seat`` may play now."""
        return cards

    def out_of_sight(self, seat: int) -> list[Card]:
        """The cards out of play for the rest of the deal that ``seat`` has not seen (a stock,
        folded hands, others' discards), for rules with the kernel's sure-pot duty
        (``TrickRules(sure_pot=True)``), which counts them unseen beside the other hands.
        Read only for such rules (Bestia)."""
        return []

    def _view_counters(self, seat: int) -> dict[str, int]:
        """The declared counters (:attr:`FIELDS`); a game adds what depends on the seat."""
        return declared.shown_counters(self.FIELDS, self, self.players)

    def _view_facts(self, seat: int) -> dict[str, Any]:
        """The declared facts (:attr:`FIELDS`); a game adds what depends on the seat."""
        return declared.shown_facts(self.FIELDS, self)

    def _settle(self) -> None:
        """Set what follows from the options alone (``deck``, flags read off the options):
        called on a world rebuilt from a view and on a state read from a position, after the
        declared fields are set. A game whose ``__init__`` sets such things writes it."""

    def _after_restore(self, view: SeatView) -> None:
        """What a world rebuilt from ``view`` needs beyond the declared fields: state only
        the history or ``to_act`` tells (the deals scored so far, whose bid it is)."""

    def _view_scores(self) -> tuple[float, ...]:
        return (0.0,) * self.players

    # -- dealing ------------------------------------------------------------------------------

    def deal_round_robin(self, order: Sequence[Card], first: int, each: int) -> list[Card]:
        """Gather the cards in ``order`` and deal ``each`` to every seat, one at a time from
        ``first``; clear the tricks.

        Returns the cards left in ``order``, which stay ``undealt`` (a game moves a trump card
        or a stock out of them). Games that deal in packets call :meth:`_clear_deal` with the
        order and move the packets themselves.
        """
        n = self.players
        self._clear_deal(first, order)
        dealt = each * n
        for s in range(n):
            k = (s - first) % n
            self.move(order[k:dealt:n], "undealt", f"hand:{s}")
        return list(order[dealt:])

    def _clear_deal(self, leader: int, order: Sequence[Card] = ()) -> None:
        """A new deal: every card back into ``undealt`` in ``order``, the tricks cleared."""
        n = self.players
        self.hands: list[list[Card]]
        self.trick: list[Card]
        self.played: list[Card]
        self.undealt: list[Card]
        self.collect(order)
        self.tricks = [0] * n
        self.taken: list[list[Card]] = [[] for _ in range(n)]
        self.leader = leader
        self.last_taker: int | None = None
        self.voids: list[set[int]] = [set() for _ in range(n)]

    def set_trump(self, suit: Suit | None, card: Card | None = None, src: str = "undealt") -> None:
        """Name the trump (``card``: the card turned for it, moved from ``src`` to lie face
        up; the game's deal event shows it)."""
        self.trump = suit
        if card is not None and card not in self.trump_shown:
            self.move(card, src, "trump")
        self._rules_changed()

    def rules_of_trick(self, played: int) -> TrickRules:
        """The rules this deal's trick that starts after ``played`` cards is (or was) played
        under: this deal's rules, unless the game changes duties for some tricks (Filcău's
        first trick, 66's tricks once the stock is closed); a check replaying a deal reads
        each trick's duties here."""
        return self.rules

    def plays_out_by_rules(self) -> bool:
        """Whether the rest of this deal is card play under :attr:`rules` alone, so that a
        search kernel may play it out in C (:mod:`levata.engine.trick_search`): the cards go
        to tricks, each seat may play what the trick duties allow, the same rules hold to
        the end of the deal, nothing happens between tricks and the deal ends when the
        hands are empty. The base reads it off the hooks: a game that narrows the play
        (:meth:`narrow_play`), changes the rules by trick (:meth:`rules_of_trick`), acts
        after a trick (:meth:`_after_trick`: a stock, an early end) or plays a card its own
        way does not; a game whose deal fits only sometimes writes this itself.

        >>> from levata.engine import game
        >>> game("whist").new_match(players=4, seed=1).plays_out_by_rules()  # bidding first
        False
        """
        if self.over or self.phase != PLAY:
            return False
        cls = type(self)
        return all(getattr(cls, hook) is getattr(TrickGame, hook) for hook in _PLAY_HOOKS)

    def _rules_changed(self) -> None:
        """Read :meth:`card_rules` again (the trump or a duty changed). Kept eagerly, never
        filled by a query, so that asking the state never changes it."""
        self.rules = self.card_rules()

    def show_hands(self) -> None:
        """Tell each seat its cards in a private ``hand`` event (one per seat, in seat order)."""
        self._hand_events = [self._show_hand(s).seq for s in range(self.players)]

    def _show_hand(self, seat: int) -> Event:
        return self._emit(events.HAND, audience={seat}, seat=seat, cards=self.hands[seat])

    # -- whose turn and what is legal ---------------------------------------------------------

    def player_to_play(self) -> int:
        """The seat whose card goes on the trick next (seats play in number order)."""
        order = self.seats_in_play()
        if order is None:
            return (self.leader + len(self.trick)) % self.players
        return order[(order.index(self.leader) + len(self.trick)) % len(order)]

    def to_act(self) -> tuple[int, ...]:
        if self.over:
            return ()
        return (self.player_to_play(),) if self.phase == PLAY else self.seats_to_call()

    def legal_actions(self, seat: int) -> list[Action]:
        if seat not in self.to_act():
            return []
        return self._offer(seat, self._legal_now(seat))

    def _legal_now(self, seat: int) -> list[Action]:
        """The legal actions of ``seat``, known to act now: its cards, then its calls."""
        plays = self._play_actions(seat) if self.phase == PLAY else []
        return plays + self.calls(seat)

    def _legal_to_act(self, seat: int) -> list[Action]:
        if type(self).legal_actions is TrickGame.legal_actions:
            return self._legal_now(seat)
        return self.legal_actions(seat)  # a game's own: as it says

    def duty_cards(self, seat: int) -> list[Card]:
        """What the trick duties alone allow ``seat`` (the part the kernel also computes)."""
        return duty_cards(self.rules, self.hands[seat], self.trick)

    def playable(self, seat: int) -> list[Card]:
        """The cards ``seat`` may play now, sorted: the duties, then the game's own limits."""
        return sorted(self.narrow_play(seat, self.duty_cards(seat)), key=CARD_ORDER)

    def _play_actions(self, seat: int) -> list[Action]:
        plays = _PLAYS  # each card's action by its hash, inline: one list built per step
        return [plays[c.rank << 3 | c.suit] or play_action(c) for c in self.playable(seat)]

    def _card_of(self, seat: int, action: Action) -> Card | None:
        """The card an action plays, or ``None`` for a call."""
        return action.card if action.kind == actions.PLAY else None

    # -- applying -----------------------------------------------------------------------------

    def _apply(self, seat: int, action: Action) -> None:
        card = self._card_of(seat, action) if self.phase == PLAY else None
        if card is None:
            self._make_call(seat, action)
        else:
            self.play_card(seat, card)

    def play_card(self, seat: int, card: Card) -> None:
        """Put ``card`` on the trick; take the trick when everyone has played."""
        self._note_voids(seat, card)
        self.move(card, _HAND[seat], "trick", kind=events.PLAY, seat=seat)
        order = self.seats_in_play()
        if len(self.trick) == (self.players if order is None else len(order)):
            self._take_trick()

    def _note_voids(self, seat: int, card: Card) -> None:
        """What a seat fails to follow (or to trump, when it must) is public knowledge."""
        rules = self.rules
        if not self.trick or not rules.follow:
            return
        led, mine = suit_of(rules, self.trick[0]), suit_of(rules, card)
        if mine != led:
            self.voids[seat].add(led)
            trump = rules.trump
            if rules.must_trump and trump is not None and mine != trump:
                self.voids[seat].add(trump)

    def _take_trick(self) -> None:
        won_by = trick_taker(self.rules, self.current)
        cards = list(self.trick)
        self.tricks[won_by] += 1
        self.taken[won_by].extend(cards)  # who won which cards: a record, not a place
        # Everyone saw the trick taken, also where finished tricks lie face down (66).
        self.move(cards, "trick", "played", kind=events.TRICK, seat=won_by, seen_by=None)
        self.leader = self.last_taker = won_by
        self._after_trick(won_by)
        if not self.hands[won_by]:
            self._score_deal()

    # -- counting -----------------------------------------------------------------------------

    def team_of(self, seat: int) -> int:
        return self.rules.teams[seat]

    def team_tricks(self, team: int) -> int:
        """Tricks taken by the seats of ``team`` this deal."""
        return sum(t for s, t in enumerate(self.tricks) if self.team_of(s) == team)

    def card_points(self, seat: int) -> int:
        """Card points ``seat`` took this deal, with the last-trick bonus (from the rules)."""
        rules = self.rules
        got = sum(rules.points.get(c.index, 0) for c in self.taken[seat])
        if self.last_taker == seat and not any(self.hands):
            got += rules.last_trick_bonus
        return got

    # -- what a seat may know -----------------------------------------------------------------

    def suit_letter(self, suit: int) -> str:
        """How a view names an effective suit: the deck's letter, ``T`` for layout trumps."""
        if suit == TRUMP_SUIT:
            return "T"
        return _SUIT_LETTERS[self.deck[0].suit.italian][suit]

    def _hand_seen_by(self, seat: int) -> frozenset[int]:
        """Who sees the cards of ``seat``'s hand (its owner; Whist's forehead turns it): read
        where the game's ``hand`` place says ``seen="_hand_seen_by"``."""
        return frozenset({seat})

    def _view_hand(self, seat: int) -> tuple[Card, ...]:
        return tuple(sorted(self.hands[seat], key=CARD_ORDER))

    def _view_zones(self, seat: int) -> dict[str, tuple[Card, ...]]:
        return self.view_zones(seat)

    def view(self, seat: int, history: bool = True) -> SeatView:
        n = self.players
        voids = {
            SEAT_NAMES[s]: sorted([self.suit_letter(v) for v in void]) if void else []
            for s, void in enumerate(self.voids)
        }
        return SeatView(
            game=self.game,
            seat=seat,
            players=n,
            phase=self.phase,
            to_act=self.to_act(),
            hand=self._view_hand(seat),
            zones=self._view_zones(seat),
            counts=self.view_counts(),
            counters=self._view_counters(seat),
            trump=self.trump.letter if self.trump is not None else None,
            scores=self._view_scores(),
            facts={"trick_seats": self.trick_seats(), **self._view_facts(seat)} | {"voids": voids},
            history=self.history(seat) if history else (),
            options=self.options,
        )

    def trick_seats(self) -> list[int]:
        """The seats that played to the trick in progress, in order."""
        n, lead = self.players, self.leader
        order = self.seats_in_play()
        if order is None:
            return [(lead + i) % n for i in range(len(self.trick))]
        first = order.index(lead)
        return [order[(first + i) % len(order)] for i in range(len(self.trick))]

    def is_over(self) -> bool:
        return self.over

    # -- determinization: a world rebuilt from a view -----------------------------------------

    @classmethod
    def from_view(
        cls, spec: GameSpec, view: SeatView, rng: random.Random, evidence: Evidence | None = None
    ) -> Self:
        """A full state whose ``view(view.seat)`` is ``view``: the one way a trick game
        redeals hidden cards (:meth:`sample_world` comes here too). With ``evidence`` the
        hidden cards are picked among several exact deals by their likelihood (inference
        from what the seats did: :mod:`levata.engine.worlds`).

        The base restores the card play from the view (trump, trick, played cards, tricks and
        cards won, voids), the game restores its own state in :meth:`_restore_from_view`
        (bids, scores, where the match stands), every unseen card gets the places it may be
        in (:mod:`levata.engine.worlds`: a hidden hand or the undealt rest, narrowed by the
        voids; a game whose cards change hands before the play narrows them further, see
        :meth:`_narrow_places`), the exact :class:`~levata.engine.sampler.Sampler` deals
        them, and the event log is rebuilt: the seat's own events as it saw them, the other
        seats' private deal events naming the cards of this world. Everything random comes
        from ``rng``.

        What does not depend on the hidden cards is worked out once per view object and
        kept (a search bot draws many worlds from one view; a view is never changed).
        """
        plan = _PLANS.get(view, (cls, spec), lambda: _make_plan(cls, spec, view))
        world = copy_state(plan.proto)
        weighed = () if evidence is None else (evidence,)  # a game's own override may take none
        if plan.walked:  # the draws in the order the place-walking games always made them
            world._deal_places(plan, view, rng, *weighed)
            reseed(world, rng)
        else:
            reseed(world, rng)
            world._deal_hidden(plan, rng, *weighed)
            world._finish_log(plan)
        return world  # type: ignore[return-value]  # the plan's prototype is of this class

    @classmethod
    def redealt_cards(cls, spec: GameSpec, view: SeatView) -> dict[int, int]:
        """For each place :meth:`from_view` deals at random, the cards (a mask) it may be
        dealt of those dealt at random: the other seats' hands by seat number, then the
        places out of play (the undealt rest: place ``players``; a game's own places). What
        a search may move between two such places by swaps, each card staying where the
        view allows it, and keep its worlds equally likely (every constraint of the deal is
        such a set: the voids, what an exchange told).

        >>> from levata.engine import game
        >>> spec = game("whist")
        >>> state = spec.new_match(players=3, options={"deal_size": 2}, seed=1)
        >>> sets = spec.factory.redealt_cards(spec, state.view(0))
        >>> {p: m.bit_count() for p, m in sets.items()}  # 24 less seat 0's 2 and the trump
        {1: 21, 2: 21, 3: 21}
        """
        plan = _PLANS.get(view, (cls, spec), lambda: _make_plan(cls, spec, view))
        sampler = plan.deal.sampler
        if sampler is None:
            return {}
        names = plan.deal.names
        return {p: m for p, m in zip(names, sampler.allowed, strict=True) if p != view.seat}

    def sample_world(self, seat: int, rng: random.Random) -> Self:
        """Redeal what ``seat`` cannot see: :meth:`from_view` on the seat's view."""
        return type(self).from_view(self.spec, self.view(seat), rng)

    def _restore_from_view(self, view: SeatView) -> None:
        """Set the game's own state (bids, scores, deal number...) from ``view``: the declared
        fields from its counters and facts, then :meth:`_settle` and :meth:`_after_restore`.
        The base restores the cards (:meth:`_restore_card_play`)."""
        declared.restore(self.FIELDS, self, view.counters, view.facts, self.players)
        self.trump_shown = []  # a game whose trump is named has no place for a turned card
        self.restore_places(view)
        self._settle()
        self.deal_log = [dict(ev.data) for ev in view.history if ev.kind == events.SCORE]
        self._after_restore(view)

    # -- positions: the whole state as text ---------------------------------------------------

    def _position(self) -> tuple[dict[str, Any], set[str]]:
        values: dict[str, Any] = {"phase": self.phase}
        values.update(self.place_values())
        won = {f"taken:{s}": cards for s, cards in enumerate(self.taken)}  # who won what
        values.update(won)
        kept = self._position_places()
        values.update(kept)
        values["trump_suit"] = self.trump.letter if self.trump is not None else None
        values["voids"] = [sorted(self.suit_letter(v) for v in void) for void in self.voids]
        values["last_taker"] = self.last_taker
        values.update(declared.stored(self.FIELDS, self))
        return values, {*self.place_values(), *won, *kept}

    def _position_places(self) -> dict[str, list[Card]]:
        """Card lists the game keeps beyond its places, by name: records of cards that lie
        in a place of their own now (the Surpriza cards taken into a hand)."""
        return {}

    def _load_places(self, pos: Position) -> None:
        """Read the lists of :meth:`_position_places` back."""

    @classmethod
    def _from_position(
        cls, spec: GameSpec, pos: Position, options: dict[str, Any], seed: int
    ) -> GameState:
        state = cls.__new__(cls)
        GameState.__init__(state, spec, pos.players, options, seed)
        n = pos.players
        state.phase = pos.value("phase")
        state.over = state.phase == phases.OVER
        state.trump_shown = []  # a game whose trump is named has no place for a turned card
        if pos.has("trump") and all(p.name != "trump" for p in cls.PLACES) and pos.cards("trump"):
            raise BadConfig("position: this game turns no card for trump (trump= must be empty)")
        state.load_places(pos.cards)
        declared.load(cls.FIELDS, state, pos.values(declared.names(cls.FIELDS)))
        suit = pos.value("trump_suit")
        state.trump = Suit.parse(suit) if suit else None
        state.taken = [pos.cards(f"taken:{s}") for s in range(n)]
        state.voids = [{_suit_named(x) for x in void} for void in pos.value("voids")]
        state.last_taker = pos.value("last_taker")
        state._load_places(pos)
        state._hand_events = []
        state.deal_log = []  # a position carries no history: the deals scored from it on
        state._settle()
        state._rules_changed()
        state._check_position()
        state._check_deck()
        state._open_log()
        return state

    def _open_log(self) -> None:
        """Start the history of a match read from a position as a deal starts it: a public
        ``position`` event (the tricks so far), then each seat's ``hand``. A seat's view of
        it is then enough to rebuild worlds, as after a deal."""
        taken = [[str(c) for c in cards] for cards in self.taken]
        self._emit(
            events.POSITION, tricks=list(self.tricks), taken=taken, last_taker=self.last_taker
        )
        self.show_hands()

    def _check_position(self) -> None:
        """A position read back must fit the rules: a phase of the game, one value per seat
        where the rules keep one, seat numbers that exist. A game with more to check (a step
        within what its phase goes through) adds it, calling ``super()`` first."""
        phases_known = self.spec.vocabulary.phases
        if phases_known and self.phase not in phases_known:
            known = ", ".join(phases_known)
            raise BadConfig(f"position: phase {self.phase!r} is not one of {known}")
        problem = declared.misfit(self.FIELDS, self, self.players)
        if problem is None and len(self.voids) != self.players:
            problem = f"voids needs one value per seat ({self.players}), not {self.voids}"
        if problem is not None:
            raise BadConfig(f"position: {problem}")

    def _check_deck(self) -> None:
        """Every card of the deck lies in exactly one place (a position names them all)."""
        placed = Multiset(c for zone in self.table() for c in zone.cards)
        if placed != Multiset(self.deck):
            extra = sorted((placed - Multiset(self.deck)).elements())
            missing = sorted((Multiset(self.deck) - placed).elements())
            raise BadConfig(
                f"every card of the deck must lie in one place: extra {extra}, missing {missing}"
            )

    @classmethod
    def vocabulary(  # noqa: PLR0913  (a declaration: every section a keyword)
        cls,
        *,
        phases: dict[str, str],
        actions: dict[str, str],
        events: dict[str, str],
        zones: dict[str, str] | None = None,
        counts: dict[str, str] | None = None,
        facts: dict[str, str] | None = None,
        counters: dict[str, str] | None = None,
        choices: dict[str, tuple[str, ...]] | None = None,
    ) -> Vocabulary:
        """The game's vocabulary: the base's names and every declared field's meaning, with
        the game's phases, actions and events (and zones, counts, seat-dependent facts or
        counters the declaration does not hold)."""
        shown, sized = zone_names(cls.PLACES)
        return Vocabulary(
            phases=phases,
            zones=zones if zones is not None else shown,
            counts=counts if counts is not None else sized,
            counters={**declared.described(cls.FIELDS, "counters"), **(counters or {})},
            facts={
                **TRICK_FACTS,
                **declared.described(cls.FIELDS, "facts"),
                **(facts or {}),
            },
            actions=actions,
            events={**TRICK_EVENTS, **events},
            choices=choices or {},
        )

    # Narrowing hooks of a game whose cards change hands before the play (exchanges, a kitty,
    # discards). Overriding :meth:`_narrow_places` makes the base walk the seat's history of
    # the deal: every card not its own starts in every other hand and in
    # :meth:`_places_at_deal`; each event of the deal (a play aside: the card is gone) goes
    # to :meth:`_narrow_places`; :meth:`_plan_places` adds the game's places and sizes; the
    # seat's hand and the voids narrow last. Places are numbered: seats ``0..N-1``, the
    # game's own places from ``N``.

    def _narrow_places(self, ev: Event, sets: PlaceSets, view: SeatView) -> None:
        """What ``ev`` (an event of the deal in progress, as the viewing seat saw it) tells
        of where cards are: :class:`~levata.engine.worlds.PlaceSets` ``put`` a card known to
        be somewhere, ``not_at`` for "holds none of these", ``spread`` for a move that may
        have happened. Called on the prototype world, restored from the view."""

    def _places_at_deal(self) -> list[int]:
        """The game's places dealt face down with the hands (a kitty: ``[self.players]``)."""
        return []

    def _places_at_position(self, view: SeatView) -> list[int]:
        """The game's places where an unseen card may lie when the match was read from a
        position (its history then starts there, without the deal's moves): by default those
        of the deal."""
        return self._places_at_deal()

    def _narrow_position(self, view: SeatView, sets: PlaceSets) -> None:
        """What ``view`` itself tells of where cards lie when the match was read from a
        position (cards a zone shows that are in a hand or a place of the game)."""

    def _plan_places(self, view: SeatView, sets: PlaceSets) -> dict[int, int]:
        """After the walk: the game's own hidden places (from ``N``) with the cards each
        holds, and what the view shows of them (``sets.put``). Set here, on the prototype,
        what every world of the view shares."""
        return {}

    def _settle_places(
        self, view: SeatView, dealt: dict[int, list[Card]], rng: random.Random
    ) -> None:
        """Put the cards ``dealt`` to the game's own places where the game keeps them (the
        hands are done)."""

    def _is_hand_event(self, event: Event) -> bool:
        """Is ``event`` a seat's share of :meth:`show_hands` (the private deal events)?"""
        return event.kind == events.HAND

    def _hidden_hand_event(self, seq: int, seat: int, own: Event, dealt: list[list[Card]]) -> Event:
        """``seat``'s private deal event at ``seq`` in a rebuilt world, given each seat's
        ``dealt`` hand and the viewing seat's own event ``own`` of the same deal."""
        return Event(seq, events.HAND, frozenset({seat}), seat, tuple(dealt[seat]))

    def _restore_card_play(self, view: SeatView) -> None:
        n = self.players
        self.trump = Suit.parse(view.trump) if view.trump else None
        self.hands = [[] for _ in range(n)]  # the other places: restore_places
        self.tricks = [0] * n
        self.taken = [[] for _ in range(n)]
        self.last_taker = None
        start = max((i for i, ev in enumerate(view.history) if self._is_hand_event(ev)), default=0)
        opened = view.history[start - 1] if start else None
        if opened is not None and opened.kind == events.POSITION:  # read from a position
            self.tricks = list(opened.data["tricks"])
            self.taken = [[Card.parse(c) for c in cards] for cards in opened.data["taken"]]
            self.last_taker = opened.data.get("last_taker")
        for ev in view.history[start:]:
            if ev.kind == events.TRICK and ev.seat is not None:
                self.tricks[ev.seat] += 1
                self.taken[ev.seat].extend(ev.cards)
                self.last_taker = ev.seat
        self.leader = view.counters["leader"]
        voids = view.facts["voids"]
        self.voids = [{_suit_named(x) for x in voids[str(s)]} for s in range(n)]
        n, seat = self.players, view.seat
        for t in range(n):
            if t == seat and len(view.hand) == view.counts[f"hand:{t}"]:
                self.hands[t] = list(view.hand)
            elif f"hand:{t}" in view.zones:  # a hand this seat sees (Whist's foreheads)
                self.hands[t] = list(view.zones[f"hand:{t}"])

    def _deal_hidden(
        self, plan: _Plan, rng: random.Random, evidence: Evidence | None = None
    ) -> None:
        """Deal the cards the view does not show, by the plan's exact sampler."""
        if plan.deal.sampler is None:
            return
        dealt = plan.deal.deal(rng, self.deck[0].suit.italian, evidence, self.players)
        for t in plan.hidden:
            self.hands[t] = dealt[t]
        left = dealt.get(self.players)  # the undealt rest, in an order of this world
        if left is not None:
            self.undealt = rng.sample(left, len(left))

    def _deal_places(
        self, plan: _Plan, view: SeatView, rng: random.Random, evidence: Evidence | None = None
    ) -> None:
        """Deal the places walked from the view, then let the game settle its own."""
        dealt = plan.deal.deal(rng, self.deck[0].suit.italian, evidence, self.players)
        for t in range(self.players):
            if t != plan.seat:
                self.hands[t] = sorted(dealt.get(t, []))
        self._settle_places(view, dealt, rng)

    def _finish_log(self, plan: _Plan) -> None:
        """Name this world's hands in the other seats' deal events of the deal in progress."""
        if plan.own is None:
            return
        self._log = log = list(self._log)
        dealt = [self.hands[t] + plan.played[t] for t in range(self.players)]
        self.dealt_hands = dealt
        for t in range(self.players):
            if t != plan.seat:
                seq = plan.first + t
                log[seq] = self._hidden_hand_event(seq, t, plan.own, dealt)


@dataclass
class _Plan:
    """What a world rebuilt from one view needs beyond its random draws."""

    proto: TrickGame  # every field set, hidden hands empty, deal events of this deal left out
    seat: int
    hidden: list[int]  # the seats whose hands are dealt at random
    deal: DealPlan  # their hands (and the undealt rest, or the game's places), exactly uniform
    walked: bool = False  # the places were walked through the game's narrowing hooks
    own: Event | None = None  # the seat's deal event of the deal in progress
    first: int = 0  # its seq minus the seat: where that deal's private events start
    played: list[list[Card]] = field(default_factory=list)  # what each seat played since


#: The plan of the last view (a search draws many worlds of one view in a row).
_PLANS: ViewCache[_Plan] = ViewCache()


def _make_plan(cls: type[TrickGame], spec: GameSpec, view: SeatView) -> _Plan:
    world = cls.__new__(cls)
    GameState.__init__(world, spec, view.players, dict(view.options), 0)
    world.phase = view.phase
    world.over = view.phase == phases.OVER
    world._restore_from_view(view)
    world._restore_card_play(view)
    world._rules_changed()
    if cls._narrow_places is not TrickGame._narrow_places:
        return _walked_plan(world, view)
    n, seat = world.players, view.seat
    hidden = [t for t in range(n) if view.counts[f"hand:{t}"] and not world.hands[t]]
    shown = mask_of(view.hand) | mask_of(c for cards in view.zones.values() for c in cards)
    pool = cards_of(mask_of(world.deck) & ~shown, world.deck[0].suit.italian)
    sizes = {t: view.counts[f"hand:{t}"] for t in hidden}
    rest = len(pool) - sum(sizes.values())
    if rest < 0:
        raise ValueError(
            f"the view's hands need {sum(sizes.values())} unseen cards, not {len(pool)}"
        )
    if rest:
        sizes[n] = rest  # the undealt rest: place N
    sets = PlaceSets(pool, sizes)
    for t in hidden:
        void = world.voids[t]
        if void:
            sets.not_at(t, [c for c in pool if suit_of(world.rules, c) in void])
    plan = _Plan(world, seat, hidden, plan_deal(sets, sizes, pin=False))
    _plan_log(world, view, plan)
    return plan


def _walked_plan(world: TrickGame, view: SeatView) -> _Plan:
    """The plan of a game whose cards change hands before the play: its places walked
    through the game's narrowing hooks over the seat's history of the deal."""
    n, seat = world.players, view.seat
    world.hands[seat] = list(view.hand)
    start = max((i for i, e in enumerate(view.history) if e.kind == events.HAND), default=0)
    history = view.history[start:]
    opened = bool(start) and view.history[start - 1].kind == events.POSITION
    places = world._places_at_position(view) if opened else world._places_at_deal()
    sets = PlaceSets(world.deck, [t for t in range(n) if t != seat] + places)
    if opened:  # read from a position: what went before it is the view's, not the history's
        for c in (*view.zones.get("played", ()), *view.zones.get("trick", ())):
            sets.gone(c)
        world._narrow_position(view, sets)
    if history and history[0].kind == events.HAND:
        for c in history[0].cards:
            sets.put(c, seat)
    for ev in history[1:]:
        if ev.kind == events.PLAY:
            sets.gone(ev.cards[0])
        else:
            world._narrow_places(ev, sets, view)
    sizes = {t: view.counts[f"hand:{t}"] for t in range(n) if t != seat}
    sizes.update(world._plan_places(view, sets))
    sets.hand(seat, view.hand)
    for t in range(n):
        void = world.voids[t]
        if void:
            sets.not_at(t, [c for c in sets if suit_of(world.rules, c) in void])
    try:
        deal = plan_deal(sets, sizes, mine=seat)
    except ValueError as e:
        raise ValueError(f"{world.game}: {e}") from None
    world._log = seen_log(view)
    first = max((e.seq for e in view.history if e.kind == events.HAND), default=seat) - seat
    world._hand_events = [first + t for t in range(n)]
    return _Plan(world, seat, [t for t in range(n) if t != seat], deal, walked=True)


def _plan_log(world: TrickGame, view: SeatView, plan: _Plan) -> None:
    """The event log: the seat's own events, and at the seqs it did not see, the other
    seats' deal events naming what they were dealt (the cards they played in that deal; for
    the deal in progress :meth:`TrickGame._finish_log` adds what they hold in the world)."""
    n, seat = world.players, view.seat
    log: dict[int, Event] = {ev.seq: ev for ev in view.history}
    own: list[Event] = []  # the seat's deal event of each deal
    dealt: list[list[list[Card]]] = []  # per deal, the cards each seat played in it
    for ev in view.history:
        if world._is_hand_event(ev):
            own.append(ev)
            dealt.append([[] for _ in range(n)])
        elif ev.kind == events.PLAY and ev.seat is not None and dealt:
            dealt[-1][ev.seat].extend(ev.cards)
    for k, (ev, hands) in enumerate(zip(own, dealt, strict=True)):
        first = ev.seq - seat  # show_hands tells the seats in seat order
        for t in range(n):
            if t != seat:  # this deal's: a placeholder until the world's hands are dealt
                now = k == len(own) - 1
                log[first + t] = ev if now else world._hidden_hand_event(first + t, t, ev, hands)
    size = max(log, default=-1) + 1
    if len(log) != size:
        missing = [q for q in range(size) if q not in log]
        raise ValueError(f"cannot rebuild hidden events {missing[:5]} of {world.game}")
    world._log = [log[q] for q in range(size)]
    if own:
        plan.own, plan.first, plan.played = own[-1], own[-1].seq - seat, dealt[-1]
    world._hand_events = [plan.first + t for t in range(n)]


def _suit_named(letter: str) -> int:
    """The effective suit a view's letter names (``T``: a layout's trumps)."""
    return TRUMP_SUIT if letter == "T" else Suit.parse(letter).slot
