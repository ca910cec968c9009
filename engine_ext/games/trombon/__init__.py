"""Trombon: the bluffing game. Cards go down face down under a claim, and anyone may call
"TROMBON" (the claim's rank) or "TROMBON DE CĂRȚI" (its count) before the next player covers
them (rules: ``docs/games/trombon.md``).

A round opens with a claimed rank ``R`` that holds until the next call. On its turn a seat
puts one or more cards face down and declares how many it put; the claim may be false in its
rank, and (with ``count_lies``, the default) in its count too. Before the next seat covers the
play, every other seat still in may call: the play's cards are turned up, and the pile goes to
the caller if the tested part of the claim was true, else to the one who made it. The first
seat to empty its hand (and keep it empty through its play's window) wins; the last seat
holding cards loses.

How it is built:

* **Turn play** (phases ``open`` and ``follow``): a play is a sequence of atomic actions, as
  every multi-card move of the engine. The opener first names the round's rank
  (``claim R``); then a seat ``put``\\ s cards one at a time into ``staged`` (seen by itself
  only) and ends with ``declare d``. Nothing of the puts is told to anyone: the play is told
  once, by a public ``play`` event with ``d`` and ``R`` (and ``k``, the true count, only with
  ``count_lies`` off); the seat's own ``laid`` event names its cards to it alone.
* **The call window** (phase ``window``) is one tick of the simultaneous family
  (:class:`~levata.engine.family.simultaneous.Simultaneous`) among the seats still in but the
  one who played: each submits ``pass``, ``trombon`` or ``trombon_de_carti``, hidden until
  the tick resolves. The resolution order is the spec's, not the family's rotating one: the
  seats clockwise from the player (its left-hand neighbour first), so the nearest caller wins
  and every other call is void (the ``call`` event lists them as ``beaten``).
* **A call** turns the play's cards face up for everyone (:meth:`Zoned.showing`, the ``call``
  event names them), then the pile goes to its taker, whose private ``took`` event names
  every card of it. The rest of the pile is never shown to anyone else.
* **Hidden counts**: with ``count_lies`` on, a view shows no hand size and no pile size (they
  would give the true counts away); an empty hand is public (``pending_out``, ``finished``).

Decisions beyond the spec:

* The deal event tells each seat's share and the remainder put to the pile (both follow from
  the number of players, so they are public); the cards are told by no event (a seat's hand
  is in its view).
* The 3000-play cap is checked when a window closes: the last play's window still resolves.
* Only tick mode is offered: the spec's real-time call window is optional and left out.
* ``declare`` ranges over ``1..52 x decks`` (every lie allowed); with ``count_lies`` off it
  must be the true count, and ``trombon_de_carti`` is not offered.

>>> state = TrombonState.from_position(3, ["7S 9D KH", "2C 3C", "4H 5H"], pile="")
>>> for text in ("claim 7", "put 7S", "put 9D", "declare 2"):
...     state.apply(0, Action.parse(text))
>>> state.to_act(), [str(e) for e in state.events(seat=1)][-1]
((1, 2), 'seat 0 play out=False count=2 rank=7')
>>> state.apply(1, Action.parse("trombon")); state.apply(2, Action.parse("pass"))
>>> [str(e) for e in state.events(seat=2)][-1]
'seat 1 call 7S 9D call=trombon accused=0 honest=False taker=0 beaten=[]'
>>> sorted(map(str, state.hands[0])), state.to_act()
(['7S', '9D', 'KH'], (1,))
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from levata.engine import actions, events, phases
from levata.engine import fields as declared
from levata.engine.cards import FRENCH_RANKS, Card, french_deck, parse_cards
from levata.engine.contract import (
    Action,
    BadConfig,
    Event,
    GameSpec,
    Option,
    Result,
    SeatView,
)
from levata.engine.deal import deal_order
from levata.engine.family.shedding import ranks_by_finish
from levata.engine.family.simultaneous import SUBMISSIONS, Simultaneous
from levata.engine.fields import Counter as Count
from levata.engine.fields import Declared, Fact, Kept
from levata.engine.position import Position, check_deck
from levata.engine.registry import register
from levata.engine.vocabulary import Vocabulary
from levata.engine.zones import FACE_DOWN, OWNER, SHOWN, Place, Zoned, described

if TYPE_CHECKING:
    from levata.engine.games.trombon.fast import CardDealer, CardPlayout

__all__ = [
    "CALLS",
    "DECLARE",
    "PUT",
    "RANK_NAMES",
    "SPEC",
    "TROMBON",
    "TROMBON_DE_CARTI",
    "TrombonState",
    "call_actions",
    "claim",
    "deck_count",
    "declare",
    "play_actions",
    "put",
]

OPEN = "open"
FOLLOW = "follow"
WINDOW = "window"

CLAIM = "claim"
PUT = "put"
DECLARE = "declare"
TROMBON = "trombon"
TROMBON_DE_CARTI = "trombon_de_carti"
PASS = Action(actions.PASS)
CALLS = (TROMBON, TROMBON_DE_CARTI)

#: Rank numbers (French, 2..14 with the Ace 14) -> the names a claim uses.
RANK_NAMES: dict[int, str] = {v: k for k, v in FRENCH_RANKS.items()}
_CLAIMS = {r: Action.parse(f"{CLAIM} {name}") for r, name in RANK_NAMES.items()}
_CLAIMED = {a: r for r, a in _CLAIMS.items()}
_PUTS: dict[Card, Action] = {}
_DECLARES: dict[int, Action] = {}
_CALL_ACTIONS = {kind: Action(kind) for kind in CALLS}
_EVERY_COUNT: dict[int, list[Action]] = {}


def claim(rank: int) -> Action:
    """The opener's ``claim <rank>`` (the rank as a French rank number, the Ace 14).

    >>> claim(14), claim(7)
    (Action('claim A'), Action('claim 7'))
    """
    return _CLAIMS[rank]


def rank_claimed(action: Action) -> int:
    """The rank a ``claim`` action names.

    >>> rank_claimed(Action.parse("claim Q"))
    12
    """
    return _CLAIMED[action]


def put(card: Card) -> Action:
    """The shared ``put <card>`` action."""
    action = _PUTS.get(card)
    if action is None:
        action = _PUTS[card] = Action(PUT, card=card)
    return action


def declare(count: int) -> Action:
    """The shared ``declare <count>`` action."""
    action = _DECLARES.get(count)
    if action is None:
        action = _DECLARES[count] = Action(DECLARE, number=count)
    return action


def call_actions(count_lies: bool) -> list[Action]:
    """A seat's choices in the call window (``trombon_de_carti`` only with ``count_lies``).

    >>> [str(a) for a in call_actions(False)]
    ['pass', 'trombon']
    """
    if count_lies:
        return [PASS, _CALL_ACTIONS[TROMBON], _CALL_ACTIONS[TROMBON_DE_CARTI]]
    return [PASS, _CALL_ACTIONS[TROMBON]]


def play_actions(
    hand: Sequence[Card], rank: int | None, staged: int, count_lies: bool, most: int
) -> list[Action]:
    """The actions of the seat to play: a claim while the round has no rank, then a ``put``
    of each card it holds (equal cards once) and, once ``staged`` cards are down, a
    ``declare`` of any count up to ``most`` (the true count only, without ``count_lies``).
    The game and its fast copy (:mod:`.fast`) both list them here.

    >>> [str(a) for a in play_actions(parse_cards("7S 2C 7S"), 7, 1, False, 52)]
    ['put 2C', 'put 7S', 'declare 1']
    """
    if rank is None:
        return [claim(r) for r in RANK_NAMES]
    out = [put(c) for c in sorted(set(hand), key=_by_rank)]
    if staged:
        if count_lies:
            every = _EVERY_COUNT.get(most)
            if every is None:  # made once: a search lists them at each of its steps
                every = _EVERY_COUNT[most] = [declare(d) for d in range(1, most + 1)]
            out += every
        else:
            out.append(declare(staged))
    return out


def deck_count(players: int) -> int:
    """[D1] One 52-card deck for 2-6 players, two for 7-12.

    >>> deck_count(6), deck_count(7)
    (1, 2)
    """
    return 1 if players <= 6 else 2


def _rank_shown(rank: int | None) -> str | None:
    return None if rank is None else RANK_NAMES[rank]


def _rank_read(shown: str | None) -> int | None:
    return None if shown is None else FRENCH_RANKS[shown]


def _cards_shown(cards: Sequence[Card]) -> list[str]:
    return [str(c) for c in cards]


def _cards_read(shown: Sequence[str]) -> list[Card]:
    return [Card.parse(c) for c in shown]


class TrombonState(Simultaneous, Zoned):
    """A Trombon match in progress. Hands are lists (two decks hold equal cards)."""

    hands: list[list[Card]]
    staged: list[Card]
    pile: list[Card]

    PLACES: ClassVar[tuple[Place, ...]] = (
        Place(
            "hand",
            "the seat's cards",
            attr="hands",
            per_seat=True,
            seen=OWNER,
            shown=False,  # a seat's own hand is view.hand
            counted="how many cards the seat holds (count_lies off only)",
        ),
        Place(
            "staged",
            "the cards you have put down this turn, before you declare (yours only)",
            seen=OWNER,
            owner="actor",
            counted="cards the seat to play has put down this turn (count_lies off only)",
        ),
        Place(
            "pile",
            "the face-down table pile (the deal's remainder, then every play of the round)",
            seen=FACE_DOWN,
            shown=False,
            counted="cards in the table pile (count_lies off only)",
        ),
        SHOWN,  # a called play's cards, face up while the call is told
    )

    FIELDS: ClassVar[tuple[Declared, ...]] = (
        Count("tick", "call windows resolved so far (each is one tick), from 0"),
        Count("plays", "plays made so far (the match stops at play_cap)"),
        Count("round", "the round in progress (a call ends one), from 1", attr="round_no"),
        Count("dealer", "the seat that deals this deal"),
        Count(
            "actor",
            "the seat to play (open, follow), or whose play is open to calls (window)",
            none=-1,
            seat=True,
        ),
        Count("declared", "the counts declared in this round, summed", derived=True),
        Count(
            "last_count",
            "the count declared by the last play of this round (0: none)",
            derived=True,
        ),
        Fact(
            "rank",
            "the rank claimed for this round (null before the opener names it)",
            show=_rank_shown,
            read=_rank_read,
        ),
        Fact(
            "pending_out",
            "the seat whose last play emptied its hand: out once its window closes without a"
            " call it loses (null: none)",
            seats=True,
        ),
        Fact("finished", "the seats that emptied their hands, in order", seats=True),
        Fact(
            "priority",
            "window: the seats that may call, in the order a call wins (the player's left first)",
            attr="priority_shown",
            derived=True,
        ),
        Fact(
            "round_plays",
            "this round's plays so far, each [seat, declared count]",
            show=lambda plays: [list(p) for p in plays],
            read=lambda shown: [tuple(p) for p in shown],
        ),
        Kept("phase", "open, follow, window or over", attr="phase"),
        Kept(
            "last_cards",
            "the cards of the last play (turned up if it is called)",
            show=_cards_shown,
            read=_cards_read,
        ),
        SUBMISSIONS,
        Kept("reason", "why the match ended (empty while it runs)"),
        Kept("ranks", "the final ranks (empty while the match runs)"),
    )

    def __init__(
        self,
        spec: GameSpec,
        players: int,
        options: dict[str, Any],
        seed: int,
        deal: Sequence[Card] | None = None,
    ) -> None:
        self._configure(spec, players, options, seed)
        deck = self.deck()
        order = deal_order(
            deck,
            self.rng,
            deal,
            f"the deal must be the {len(deck)}-card deck of {self.decks} deck(s) that"
            f" {players} players use",
        )
        per_seat = len(order) // players
        dealt = per_seat * players
        self.collect(order, into="pile")  # [D2] what is not dealt starts the pile, face down
        for s in range(players):
            self.move(order[s:dealt:players], "pile", f"hand:{s}")  # the view shows the hand
        dealer = self.rng.randrange(players)
        self._settle(dealer=dealer, actor=(dealer + 1) % players)
        self._emit(
            events.DEAL,
            hand=per_seat,
            pile=len(order) - dealt,
            decks=self.decks,
            dealer=dealer,
            first=self.actor,
        )

    def _configure(self, spec: GameSpec, players: int, options: dict[str, Any], seed: int) -> None:
        super().__init__(spec, players, options, seed)
        self.decks = deck_count(players)
        self.copies = self.decks > 1
        self.count_lies: bool = options["count_lies"]
        self.most = 52 * self.decks  # [D3] the largest count a play may declare

    def deck(self) -> list[Card]:
        """Every card of this table's deck(s), in a fixed order."""
        return list(french_deck()) * self.decks

    def _settle(  # noqa: PLR0913  (every part of the state beside the cards, by keyword)
        self,
        dealer: int = 0,
        actor: int | None = 0,
        phase: str = OPEN,
        rank: int | None = None,
        finished: Sequence[int] = (),
        pending_out: int | None = None,
        plays: int = 0,
        round_no: int = 1,
        round_plays: Sequence[tuple[int, int]] = (),
        last_cards: Sequence[Card] = (),
        tick: int = 0,
    ) -> None:
        """Everything but the cards' places, once they lie where they do."""
        self.dealer = dealer
        self.actor = actor
        self.phase = phase
        self.rank = rank
        self.finished: list[int] = list(finished)
        self.pending_out = pending_out
        self.plays = plays
        self.round_no = round_no
        self.round_plays: list[tuple[int, int]] = [tuple(p) for p in round_plays]  # type: ignore[misc]
        self.last_cards: list[Card] = list(last_cards)
        self.reason = ""
        self.ranks: list[int] = []
        if not hasattr(self, "shown_cards"):
            self.shown_cards: list[Card] = []
        self._start_ticks(tick)
        if phase != WINDOW:
            self._waiting = ()

    @property
    def declared(self) -> int:
        return sum(d for _, d in self.round_plays)

    @property
    def last_count(self) -> int:
        return self.round_plays[-1][1] if self.round_plays else 0

    @classmethod
    def from_position(
        cls,
        players: int,
        hands: Sequence[str | Iterable[Card]],
        *,
        pile: str | Iterable[Card] | None = None,
        actor: int = 0,
        finished: Sequence[int] = (),
        options: dict[str, Any] | None = None,
        seed: int = 0,
    ) -> TrombonState:
        """A hand-made position at the opening of a round (tests, puzzles): ``actor`` opens.
        ``pile`` defaults to every card not in a hand. Its history starts with a public
        ``position`` event telling each hand's size and the pile's (a match never shows one).

        >>> s = TrombonState.from_position(2, ["AS", "KH"])
        >>> s.to_act(), len(s.pile)
        ((0,), 50)
        """
        if players not in SPEC.players:
            raise BadConfig(f"trombon is played by 2-12 players, not {players}")
        if len(hands) != players:
            raise ValueError(f"{len(hands)} hands for {players} players")
        state = cls.__new__(cls)
        state._configure(SPEC, players, SPEC.resolve_options(options), seed)
        held = [_cards(h) for h in hands]
        if pile is None:
            rest = Counter(state.deck())
            for h in held:
                rest.subtract(h)
            if any(v < 0 for v in rest.values()):
                raise ValueError("more copies than the deck holds")
            pile_cards = list(rest.elements())
        else:
            pile_cards = _cards(pile)
        state.hands = held
        state.pile = pile_cards
        state.staged = []
        state._settle(actor=actor, finished=finished)
        state._emit(events.POSITION, hands=[len(h) for h in held], pile=len(pile_cards))
        return state

    # -- small helpers --------------------------------------------------------------------------

    def unfinished(self) -> list[int]:
        """Seats still in (a pending-out seat is still in until its window closes)."""
        return [s for s in range(self.players) if s not in self.finished]

    def next_in(self, seat: int) -> int:
        """The next seat still in clockwise after ``seat``."""
        n = self.players
        for step in range(1, n + 1):
            s = (seat + step) % n
            if s not in self.finished and s != self.pending_out:
                return s
        return seat

    def seats_in_play(self) -> list[int]:
        """The seats that may call in the open window: every seat still in but the player."""
        if self.phase != WINDOW:
            return []
        return [s for s in self.unfinished() if s != self.actor]

    def priority(self) -> list[int]:
        """[D4] The callers clockwise from the player: the nearest call wins."""
        n, x = self.players, self.actor or 0
        return sorted(self.seats_in_play(), key=lambda s: (s - x - 1) % n)

    @property
    def priority_shown(self) -> list[int]:
        return self.priority() if self.phase == WINDOW else []

    def to_act(self) -> tuple[int, ...]:
        if self.phase in (OPEN, FOLLOW):
            return (self.actor,)  # type: ignore[return-value]  # set while a seat plays
        return self._waiting

    # -- legal actions ---------------------------------------------------------------------------

    def legal_actions(self, seat: int) -> list[Action]:
        if self.phase == WINDOW:
            if seat not in self._waiting:
                return []
            return call_actions(self.count_lies)
        if self.phase not in (OPEN, FOLLOW) or seat != self.actor:
            return []
        return play_actions(
            self.hands[seat], self.rank, len(self.staged), self.count_lies, self.most
        )

    # -- turn play -------------------------------------------------------------------------------

    def _apply(self, seat: int, action: Action) -> None:
        if self.phase == WINDOW:
            self._submit(seat, action)
        elif action.kind == CLAIM:
            self.rank = rank_claimed(action)
        elif action.kind == PUT:
            self.move(action.card, f"hand:{seat}", "staged")  # type: ignore[arg-type]
        else:
            self._play(seat, action.number)  # type: ignore[arg-type]  # a declare

    def _play(self, seat: int, count: int) -> None:
        cards = list(self.staged)
        self.move(cards, "staged", "pile", kind="laid", seen_by=[seat], seat=seat)
        self.last_cards = cards
        self.round_plays.append((seat, count))
        self.plays += 1
        out = not self.hands[seat]
        if out:
            self.pending_out = seat
        data: dict[str, Any] = {"count": count, "rank": RANK_NAMES[self.rank]}  # type: ignore[index]
        if not self.count_lies:
            data["true_count"] = len(cards)
        self._emit(events.PLAY, seat=seat, out=out, **data)
        self.phase = WINDOW
        self._open_tick()

    # -- the call window (one tick) --------------------------------------------------------------

    def _resolve(self, order: Sequence[int]) -> bool:
        x = self.actor
        assert x is not None
        callers = [s for s in order if (a := self.submissions[s]) is not None and a.kind in CALLS]
        if not callers:
            self._close_window(x)
            return False
        caller = callers[0]
        kind = self.submissions[caller].kind  # type: ignore[union-attr]
        shown = self.last_cards
        if kind == TROMBON:
            honest = all(c.rank == self.rank for c in shown)
        else:
            honest = len(shown) == self.last_count
        taker = caller if honest else x
        data: dict[str, Any] = {}
        if not self.count_lies:
            data["pile"] = len(self.pile)
        with self.showing(shown, "pile", None):  # [4.3] the play is turned up for everyone
            self._emit(
                "call",
                seat=caller,
                cards=shown,
                call=kind,
                accused=x,
                honest=honest,
                taker=taker,
                beaten=callers[1:],
                **data,
            )
        self.move(list(self.pile), "pile", f"hand:{taker}", kind="took", seat=taker)
        self.round_plays = []
        self.last_cards = []
        self.rank = None
        self.round_no += 1
        if self.pending_out == x and taker != x:
            self._finish(x)
        self.pending_out = None
        self.phase = OPEN
        self.actor = self.next_in(x)  # [D6] the seat after the accused opens
        self._check_end()
        return True

    def _close_window(self, x: int) -> None:
        """Nobody called: the play stands, and its player is out if its hand is empty."""
        if self.pending_out == x:
            self._finish(x)
            self.pending_out = None
        self.phase = FOLLOW
        self.actor = self.next_in(x)
        self._check_end()

    def _after_tick(self, order: Sequence[int], changed: bool) -> None:
        if self.phase != phases.OVER and self.plays >= self.options["play_cap"]:
            self._end("cap")  # [D8]

    def _finish(self, seat: int) -> None:
        self.finished.append(seat)
        self._emit(events.FINISH, seat=seat, rank=len(self.finished))

    def _check_end(self) -> None:
        if len(self.unfinished()) <= 1:
            self._end("complete")

    def _end(self, reason: str) -> None:
        cards = [len(h) for h in self.hands]
        self.ranks = list(ranks_by_finish(self.finished, self.unfinished(), cards))
        self.reason = reason
        self.phase = phases.OVER
        self.actor = None
        self._stop_ticks()
        data: dict[str, Any] = {"held": cards} if reason != "complete" else {}
        self._emit(events.END, ranks=list(self.ranks), reason=reason, **data)

    # -- what a seat may know ----------------------------------------------------------------

    def view_counts(self) -> dict[str, int]:
        # [D12] With count_lies on, sizes would give the true counts away: none are shown.
        return {} if self.count_lies else super().view_counts()

    def view(self, seat: int, history: bool = True) -> SeatView:
        counters = declared.shown_counters(self.FIELDS, self, self.players)
        counters["submitted"] = self.submitted(seat)
        return SeatView(
            game=self.game,
            seat=seat,
            players=self.players,
            phase=self.phase,
            to_act=self.to_act(),
            hand=tuple(sorted(self.hands[seat], key=_by_rank)),
            zones=self.view_zones(seat),
            counts=self.view_counts(),
            counters=counters,
            trump=None,
            scores=self._scores(),
            facts=declared.shown_facts(self.FIELDS, self),
            history=self.history(seat) if history else (),
            options=self.options,
        )

    # -- outcome ----------------------------------------------------------------------------------

    def is_over(self) -> bool:
        return self.phase == phases.OVER

    def estimate(self) -> tuple[float, ...]:
        """Scores as if play stopped now (finishers, then fewest cards).

        >>> TrombonState.from_position(3, ["8C 9H", "6S", "KH 2C 3C"]).estimate()
        (1.0, 2.0, 0.0)
        """
        cards = [
            len(h) + (len(self.staged) if s == self.actor else 0) for s, h in enumerate(self.hands)
        ]
        ranks = ranks_by_finish(self.finished, self.unfinished(), cards)
        return tuple(float(self.players - r) for r in ranks)

    def _scores(self) -> tuple[float, ...]:
        if not self.is_over():
            return (0.0,) * self.players
        return tuple(float(self.players - r) for r in self.ranks)

    def result(self) -> Result:
        if not self.is_over():
            raise RuntimeError("the match is not over")
        best = min(self.ranks)
        return Result(
            scores=self._scores(),
            ranks=tuple(self.ranks),
            winners=tuple(s for s, r in enumerate(self.ranks) if r == best),
            reason=self.reason,
        )

    # -- copies, positions and worlds -------------------------------------------------------------

    def clone(self) -> TrombonState:
        """An independent copy, without deepcopy (cards, actions and events are immutable)."""
        other: TrombonState = self._shallow_copy()
        other.hands = [list(h) for h in self.hands]
        other.staged = list(self.staged)
        other.pile = list(self.pile)
        other.shown_cards = []
        other.finished = list(self.finished)
        other.round_plays = list(self.round_plays)
        other.last_cards = list(self.last_cards)
        other.ranks = list(self.ranks)
        return other

    def _position(self) -> tuple[dict[str, Any], set[str]]:
        places = self.place_values()
        values: dict[str, Any] = {**places}
        values.update(declared.stored(self.FIELDS, self))
        return values, set(places)

    @classmethod
    def _from_position(
        cls, spec: GameSpec, pos: Position, options: dict[str, Any], seed: int
    ) -> TrombonState:
        state = cls.__new__(cls)
        state._configure(spec, pos.players, options, seed)
        state.load_places(pos.cards)
        check_deck(list(state.place_values().values()), state.deck())
        state._settle()
        declared.load(cls.FIELDS, state, pos.values(declared.names(cls.FIELDS)))
        wrong = declared.misfit(cls.FIELDS, state, pos.players)
        if wrong:
            raise BadConfig(f"position: {wrong}")
        if state.phase not in (OPEN, FOLLOW, WINDOW, phases.OVER):
            raise BadConfig(f"position: no phase {state.phase!r}")
        if Counter(state.last_cards) - Counter(state.pile):
            raise BadConfig("position: the last play's cards must be in the pile")
        state._resume_ticks()
        if state.phase != WINDOW:
            state._waiting = ()
        return state

    @classmethod
    def from_view(cls, spec: GameSpec, view: SeatView, rng: random.Random) -> TrombonState:
        """A state whose ``view(view.seat)`` is ``view``: the hidden cards (and, with
        ``count_lies``, the hidden sizes) dealt from ``rng`` under what the history implies
        (see :mod:`levata.engine.games.trombon.world`)."""
        from levata.engine.games.trombon.world import rebuild

        state = cls.__new__(cls)
        state._configure(spec, view.players, dict(view.options), rng.getrandbits(32))
        rebuild(state, view, rng)
        return state

    def playout_state(self, seed: int) -> CardPlayout:
        """A copy for the search's fast path (:mod:`.fast`): the game's atomic actions on the
        rank kernel (:mod:`levata.engine.trombon_playouts`), play only, with no events, views
        or history; its random stream starts from ``seed``."""
        from levata.engine.games.trombon.fast import CardPlayout

        waiting = self._waiting if self.phase == WINDOW else ()
        calls = {s: a.kind for s, a in enumerate(self.submissions) if a is not None}
        # The cards laid this round read from the log (a world's: its seat's own only).
        return CardPlayout.of(
            self, seed, cap=self.options["play_cap"], waiting=waiting, calls=calls
        )

    def playout_dealer(self, seat: int, seed: int) -> CardDealer:
        """The search's dealer of worlds ``seat`` cannot tell from this one, as fast copies
        (:class:`~levata.engine.games.trombon.fast.CardDealer`): :meth:`from_view`'s deal,
        draw for draw, from ``seat``'s view."""
        from levata.engine.games.trombon.fast import CardDealer

        return CardDealer(self.view(seat), seed)

    def playout_fields(self) -> dict[str, Any]:
        """This position as plain values, as the fast copy's ``fields()`` says it
        (:func:`~levata.engine.games.trombon.fast.table_fields`)."""
        from levata.engine.games.trombon.fast import table_fields
        from levata.engine.games.trombon.playout import RankSim

        window = self.phase == WINDOW
        return table_fields(
            RankSim.of(self).fields(),
            over=self.is_over(),
            hands=self.hands,
            staged=self.staged,
            pile=self.pile,
            last=self.last_cards,
            waiting=self._waiting if window else (),
            calls={s: a.kind for s, a in enumerate(self.submissions) if a is not None},
        )

    def sample_world(self, seat: int, rng: random.Random) -> TrombonState:
        # What the seat knows is its view: a world rebuilt from it keeps the view, and the
        # true hidden sizes (count_lies) never reach it.
        world = type(self).from_view(self.spec, self.view(seat), rng)
        world._log = list(self._log)
        return world


def _cards(cards: str | Iterable[Card]) -> list[Card]:
    return parse_cards(cards) if isinstance(cards, str) else list(cards)


def _by_rank(card: Card) -> tuple[int, int]:
    return (card.rank, int(card.suit))


_NAMES = {TROMBON: "TROMBON", TROMBON_DE_CARTI: "TROMBON DE CĂRȚI"}


def _call_line(ev: Event) -> str:
    d = ev.data
    tested = "rank" if d["call"] == TROMBON else "count"
    verdict = "true" if d["honest"] else "a lie"
    cards = " ".join(str(c) for c in ev.cards)
    return (
        f"seat {ev.seat} calls {_NAMES[d['call']]} on seat {d['accused']}: {cards} -"
        f" the {tested} was {verdict}; seat {d['taker']} takes the pile"
    )


_LINES = {
    "call": _call_line,
    "laid": lambda ev: f"   (you put {' '.join(str(c) for c in ev.cards)})",
    "took": lambda ev: f"   (you take {len(ev.cards)} cards)",
}


def narrate(ev: Event) -> str | None:
    """A line for Trombon's own events (``None`` for the shared ones, and for ``play``,
    which the shared narration says well enough).

    >>> narrate(Event(seq=3, kind="took", cards=tuple(parse_cards("7S 9D"))))
    '   (you take 2 cards)'
    """
    if ev.kind == events.PLAY:
        return f"seat {ev.seat} puts down {ev.data['count']} x {ev.data['rank']}"
    line = _LINES.get(ev.kind)
    return None if line is None else line(ev)


_ZONES, _COUNTS = described(TrombonState.PLACES)
_COUNTERS = declared.described(TrombonState.FIELDS, "counters")
_COUNTERS["submitted"] = "window: 1 once you have submitted (you wait for the others)"

VOCABULARY = Vocabulary(
    # a claim names A, J, Q or K as a word (2-10 are numbers)
    choices={CLAIM: tuple(n for n in RANK_NAMES.values() if not n.isdigit())},
    phases={
        OPEN: "the opener names the round's rank (claim), then plays",
        FOLLOW: "the next seat plays under the round's rank",
        WINDOW: "every other seat still in may call the last play (one tick)",
        phases.OVER: "the match is over",
    },
    zones=_ZONES,
    counts=_COUNTS,
    counters=_COUNTERS,
    facts=declared.described(TrombonState.FIELDS, "facts"),
    actions={
        CLAIM: "the opener names the round's rank `choice` (A, J, Q, K) or `number` (2-10)",
        PUT: "put `card` face down (it goes to staged; any number of cards, one at a time)",
        DECLARE: "end the play: say you put down `number` cards of the round's rank",
        actions.PASS: "window: let the play stand",
        TROMBON: "window: call the play's rank (TROMBON)",
        TROMBON_DE_CARTI: "window: call the play's count (TROMBON DE CĂRȚI; count_lies only)",
    },
    events={
        events.DEAL: "the deal: `data.hand` (cards each), `pile` (the remainder, face down),"
        " `decks`, `dealer`, `first`",
        events.PLAY: "`seat` played: `data.count` declared of `data.rank`, `out` when its hand"
        " is now empty, `true_count` with count_lies off",
        "laid": "yours only: the `cards` you put down",
        "call": "`seat` called `data.call` on `data.accused`'s play: its `cards` turned up,"
        " `honest`, `taker` of the pile, `beaten` (void calls), `pile` size (count_lies off)",
        "took": "the taker only: every card (`cards`) of the pile it takes",
        events.FINISH: "`seat` is out (its empty hand's window closed): `data.rank`",
        events.END: "the match is over: `data.ranks` (1 = best), `data.reason`, and at the cap"
        " `data.held` (every hand's size)",
    },
)

SPEC = register(
    GameSpec(
        name="trombon",
        title="Trombon",
        players=tuple(range(2, 13)),
        summary="Bluff: play cards face down under a claim; call TROMBON before it is covered.",
        options=(
            Option("count_lies", True, "the declared count may be false (hides all counts)"),
            Option("play_cap", 3000, "plays before the match stops", minimum=1),
        ),
        factory=TrombonState,
        short_options={"play_cap": 60},  # random seats call at random: keep checks quick
        bots={
            "heuristic": "levata.bots.heuristic.trombon:HeuristicBot",
            "always_call": "levata.bots.heuristic.trombon:AlwaysCallBot",
            "never_lie": "levata.bots.heuristic.trombon:NeverLieBot",
            "search": "levata.bots.strategy.trombon:SearchBot",
            # the contract path until the fast copy's search is shown no weaker: on it the
            # search finished first far less often (docs/games/trombon.md); fast=1 is the copy
            "ismcts": "levata.bots.search.ismcts:IsmctsBot:fast=0",
        },
        strategy=None,
        narrate=narrate,
        vocabulary=VOCABULARY,
    )
)
