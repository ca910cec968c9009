"""Trombon's fast copy for the generic search (:mod:`levata.bots.search.ismcts`): the game's
own atomic actions (``claim``, ``put`` a card, ``declare``, the window's calls) played on the
rank kernel (:class:`~levata.engine.trombon_playouts.TrombonPlayout`).

The kernel plays a whole play at a time by counts of ranks (suits never matter in Trombon);
the search's tree walks the game's atomic actions, whose ``put``\\ s name a card, suit and
all. So the copy is the kernel plus the cards: every hand, the staged cards, the pile and the
last play as cards, moved as the game moves them. Every rule stays the kernel's (one source
of truth: it is proven against the Python copy, ``RankSim``, in
``tests/engine/test_trombon_kernel.py``): a ``claim`` names the kernel's rank, the ``put``\\ s
only stage cards, a ``declare`` is the kernel's whole play of the staged cards, and the
window's last submission resolves it in the kernel, whose taker gets the pile's cards. The
legal actions are listed by the game's own functions (``play_actions``, ``call_actions`` of
:mod:`levata.engine.games.trombon`).
The play cap is the game's: it ends the match when a window closes at or past it.

Policies: ``heuristic`` is the kernel's rule of thumb (``RankSim``'s: the truth when it can,
its rarest card when it must, a call when the claim is unlikely), told card by card as the
heuristic bot plays it (every card of the rank, lowest suit first, then the true count; a
play begun otherwise is declared with its true count, as the bot does). Beside the heuristic
bot it does not call a seat it knows to be cornered, and an opener names the highest of the
ranks it holds most of (the bot draws among them). ``random`` picks uniformly among the legal
actions, from the copy's splitmix64 stream. A ``heuristic`` rollout finishes the play or the
window begun card by card, then plays whole plays in the kernel, counting the atomic actions
each stands for (a play: its claim, its cards, its declare; a window: each seat's
submission), so a search's horizon means what it does on the game. After such a rollout the
cards are no longer followed (the kernel moved them by rank): only :meth:`~CardPlayout.is_over`
and :meth:`~CardPlayout.estimate` may be asked.

``tests/engine/test_trombon_fast.py`` proves the copy agrees with the game: legal actions and
positions after every legal action, the policy's choices, rollouts, and the dealer's worlds.

>>> from levata.engine.games.trombon import TrombonState
>>> state = TrombonState.from_position(3, ["7S 9D KH", "2C 3C", "4H 5H"], pile="")
>>> fast = state.playout_state(seed=1)
>>> fast.legal_actions(0) == state.legal_actions(0), str(fast.choose(0))
(True, 'claim K')
>>> for text in ("claim 7", "put 7S", "declare 1"):
...     fast._apply(0, Action.parse(text))
>>> fast.to_act(), [str(a) for a in fast.legal_actions(1)]
((1, 2), ['pass', 'trombon', 'trombon_de_carti'])
>>> fast.rollout("heuristic", 0, seed=3) > 0 and fast.is_over()
True
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from types import SimpleNamespace
from typing import Any

from levata.engine import fields as declared
from levata.engine import phases
from levata.engine.cards import Card, french_deck
from levata.engine.contract import Action, SeatView
from levata.engine.games.trombon import (
    CLAIM,
    PASS,
    PUT,
    TROMBON,
    WINDOW,
    TrombonState,
    _by_rank,
    call_actions,
    claim,
    deck_count,
    declare,
    play_actions,
    put,
    rank_claimed,
)
from levata.engine.games.trombon.playout import RANKS, RankSim, _counts, laid_this_round
from levata.engine.games.trombon.world import Hidden
from levata.engine.playout_base import POLICIES
from levata.engine.trombon_playouts import TrombonPlayout

__all__ = ["CardDealer", "CardPlayout", "laid_this_round", "table_fields"]

_CALLED = Action(TROMBON)


def table_fields(  # noqa: PLR0913  (every part of a position, by keyword)
    ranks: Mapping[str, Any],
    *,
    over: bool,
    hands: Sequence[Sequence[Card]],
    staged: Sequence[Card],
    pile: Sequence[Card],
    last: Sequence[Card],
    waiting: Sequence[int],
    calls: Mapping[int, str],
) -> dict[str, Any]:
    """A position as plain values, the same for the game and its fast copy: the kernel's
    world by ranks (``ranks``, as ``RankSim.fields()`` says it, without what only steers the
    rule of thumb: each seat's cards in the pile, the callers' model) and the cards. What
    the rules never read again is left out: the seat after an ended match, the pile's order."""
    table = {k: v for k, v in ranks.items() if k not in ("mine_laid", "callers")}
    if over:
        table["actor"], table["window"] = None, False
    return {
        "over": over,
        "table": table,
        "hands": [[str(c) for c in sorted(h, key=_by_rank)] for h in hands],
        "staged": [str(c) for c in staged],
        "pile": sorted(str(c) for c in pile),
        "last": [str(c) for c in last],
        "waiting": list(waiting),
        "calls": dict(sorted(calls.items())),
    }


def _check_policy(policy: str) -> None:
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {', '.join(POLICIES)}, not {policy!r}")


class CardPlayout:
    """A Trombon position to search on quickly: the rank kernel and the cards (see the
    module). ``cap``: the match's play cap; ``waiting``, ``calls``: in a window, the seats
    still to submit and what the others submitted.

    >>> from levata.engine.games.trombon import TrombonState
    >>> state = TrombonState.from_position(2, ["AS", "KH"], pile="")
    >>> fast = CardPlayout.of(state, seed=1, cap=60, waiting=(), calls={})
    >>> fast.to_act(), fast.estimate()
    ((0,), (1.0, 1.0))
    """

    __slots__ = (
        "calls",
        "cap",
        "capped",
        "count_lies",
        "hands",
        "kernel",
        "last",
        "most",
        "pile",
        "rolled",
        "staged",
        "waiting",
    )

    kernel: TrombonPlayout
    hands: list[list[Card]]
    staged: list[Card]
    pile: list[Card]
    last: list[Card]
    waiting: tuple[int, ...]
    calls: dict[int, str]
    cap: int
    capped: bool
    count_lies: bool
    most: int
    rolled: bool

    @classmethod
    def of(
        cls,
        table: Any,
        seed: int,
        *,
        cap: int,
        waiting: Sequence[int],
        calls: Mapping[int, str],
        laid: list[list[int]] | None = None,
    ) -> CardPlayout:
        """The copy of ``table``: a :class:`TrombonState`, or anything with its attributes
        (the dealer's table, read from a view); ``laid``: each seat's cards in the pile as
        far as it is known (:func:`laid_this_round`; ``None``: as the table's log tells,
        :meth:`RankSim.of`)."""
        fast = cls.__new__(cls)
        ranks = RankSim.of(table, laid).fields()
        fast.kernel = TrombonPlayout(ranks, seed)
        fast.hands = [list(h) for h in table.hands]
        fast.staged = list(table.staged)
        fast.pile = list(table.pile)
        fast.last = list(table.last_cards)
        fast.waiting = tuple(waiting)
        fast.calls = dict(calls)
        fast.cap = cap
        fast.capped = table.phase == phases.OVER and not fast.kernel.over()
        fast.count_lies = bool(table.count_lies)
        fast.most = 52 * table.decks
        fast.rolled = False
        return fast

    def clone(self) -> CardPlayout:
        other = CardPlayout.__new__(CardPlayout)
        other.kernel = self.kernel.clone()
        other.hands = [list(h) for h in self.hands]
        other.staged = list(self.staged)
        other.pile = list(self.pile)
        other.last = list(self.last)
        other.waiting = self.waiting
        other.calls = dict(self.calls)
        other.cap, other.capped, other.rolled = self.cap, self.capped, self.rolled
        other.count_lies, other.most = self.count_lies, self.most
        return other

    def _cards_followed(self) -> None:
        if self.rolled:
            raise RuntimeError("a rolled-out copy no longer follows the cards: only its estimate")

    # -- the contract's questions (and the kernels' face, :mod:`levata.engine.playout_base`) ---

    @property
    def players(self) -> int:
        return self.kernel.players

    def is_over(self) -> bool:
        return self.capped or self.kernel.over()

    def to_act(self) -> tuple[int, ...]:
        self._cards_followed()
        if self.is_over():
            return ()
        if self.kernel.window:
            return self.waiting
        return (self.kernel.actor,)

    def legal_actions(self, seat: int) -> list[Action]:
        self._cards_followed()
        k = self.kernel
        if self.is_over():
            return []
        if k.window:
            return call_actions(self.count_lies) if seat in self.waiting else []
        if seat != k.actor:
            return []
        return play_actions(self.hands[seat], k.rank, len(self.staged), self.count_lies, self.most)

    def apply(self, seat: int, action: Action) -> None:
        """Apply ``action`` for ``seat``; ``ValueError`` (and no change) if it is not legal."""
        if action not in self.legal_actions(seat):
            raise ValueError(f"{action} is not legal for seat {seat} now")
        self._apply(seat, action)

    def _apply(self, seat: int, action: Action) -> None:
        """Play ``action`` (one of :meth:`legal_actions`: it is not checked again)."""
        self._cards_followed()
        k = self.kernel
        if k.window:
            self._submit(seat, action.kind)
        elif action.kind == CLAIM:
            k.claim(rank_claimed(action) - 2)
        elif action.kind == PUT:
            assert action.card is not None
            self.hands[seat].remove(action.card)
            self.staged.append(action.card)
        else:
            self._declare(seat, action.number or 0)

    def _declare(self, seat: int, count: int) -> None:
        """The play is the kernel's: the staged cards go down under the declared count."""
        cards = self.staged
        self.kernel.play(seat, _counts(cards), count)
        self.pile += cards
        self.last = cards
        self.staged = []
        self.waiting = tuple(sorted(self.kernel.in_window()))  # in seat order, as the game's
        self.calls = {}

    def _submit(self, seat: int, kind: str) -> None:
        self.calls[seat] = kind
        self.waiting = tuple(s for s in self.waiting if s != seat)
        if not self.waiting:
            self._close_window()

    def _close_window(self) -> None:
        """The last submission is in: the kernel resolves the window, and the pile's cards go
        to the taker it names (nobody: the play stands)."""
        k = self.kernel
        k.resolve(self.calls, False)
        self.calls = {}
        taker = k.taker
        if taker is not None:
            self.hands[taker] += self.pile
            self.pile = []
            self.last = []
        if not k.over() and k.plays >= self.cap:
            self.capped = True

    def estimate(self) -> tuple[float, ...]:
        """Scores as if play stopped now (finishers, then fewest cards, staged cards still
        held): the game's ``estimate``, and at the end its result."""
        return tuple(self.kernel.scores())

    def fields(self) -> dict[str, Any]:
        """This position as plain values (:func:`table_fields`)."""
        self._cards_followed()
        return table_fields(
            self.kernel.fields(),
            over=self.is_over(),
            hands=self.hands,
            staged=self.staged,
            pile=self.pile,
            last=self.last,
            waiting=self.to_act() if self.kernel.window else (),
            calls=self.calls,
        )

    # -- the policies -------------------------------------------------------------------------

    def choose(self, seat: int, policy: str = "heuristic") -> Action:
        """The action ``policy`` (``heuristic`` or ``random``) picks for ``seat`` now."""
        _check_policy(policy)
        legal = self.legal_actions(seat)
        if not legal:
            raise ValueError(f"seat {seat} is not to act now")
        if policy == "random":
            return legal[int(self.kernel.random() * len(legal))]
        k = self.kernel
        if k.window:
            return PASS if k.call_of(seat, False) == "pass" else _CALLED
        plan, _, rank = k.usual_play(seat)  # by the hand before this play's cards went down
        if k.rank is None:
            return claim(rank + 2)
        staged = _counts(self.staged)
        if all(s <= p for s, p in zip(staged, plan, strict=True)):
            short = next((r for r in range(RANKS) if staged[r] < plan[r]), None)
            if short is not None:
                return put(min((c for c in self.hands[seat] if c.rank - 2 == short), key=_by_rank))
        return declare(len(self.staged))

    def rollout(
        self, policy: str = "heuristic", max_actions: int = 0, seed: int | None = None
    ) -> int:
        """Play on by ``policy`` to the end or for about ``max_actions`` actions (0: no
        limit; ``heuristic`` stops at the first play or window that reaches it); ``seed``
        restarts the copy's stream first. Returns the actions taken."""
        _check_policy(policy)
        self._cards_followed()
        k = self.kernel
        if seed is not None:
            k.reseed(seed)
        steps = 0
        # Random moves, and the play or window begun, card by card.
        while not self.is_over() and (not max_actions or steps < max_actions):
            if policy == "heuristic" and not (self.staged or (k.window and self.calls)):
                break
            seat = self.to_act()[0]
            self._apply(seat, self.choose(seat, policy))
            steps += 1
        if self.is_over() or (max_actions and steps >= max_actions):
            return steps
        # Whole plays in the kernel, up to the cap, whose last window resolves as the game's.
        self.rolled = True
        steps += k.rollout_actions(
            None, self.cap - k.plays, max_actions - steps if max_actions else 0
        )
        if not k.over() and k.plays >= self.cap:
            if k.window:
                steps += len(k.in_window())
                k.resolve(None, False)
            self.capped = True
        return steps


class CardDealer:
    """The search's worlds of one view, as fast copies: ``deal(seed)`` is
    ``TrombonState.from_view(view, random.Random(seed)).playout_state(...)``, the same cards
    from the same draws (the copy's stream seeded by the world's own), without building the
    state. ``seed`` feeds :meth:`deal` when it is given none.

    >>> from levata.engine import game
    >>> state = game("trombon").new_match(players=3, seed=4)
    >>> view = state.view(1)
    >>> fast = CardDealer(view, seed=0).deal(7)
    >>> world = TrombonState.from_view(game("trombon"), view, random.Random(7))
    >>> fast.fields() == world.playout_fields()
    True
    """

    def __init__(self, view: SeatView, seed: int = 0) -> None:
        n = view.players
        decks = deck_count(n)
        count_lies = bool(view.options["count_lies"])
        self.view = view  # kept: the hidden cards' reading is cached by this very view
        self.hidden = Hidden.of(view, list(french_deck()) * decks, count_lies)
        # What the view tells of the table (all but the cards), read as a world reads it.
        table = SimpleNamespace(players=n, decks=decks, phase=view.phase, count_lies=count_lies)
        declared.restore(TrombonState.FIELDS, table, view.counters, view.facts, n)
        self.table = table
        self.cap = int(view.options["play_cap"])
        window = view.phase == WINDOW
        self.waiting = tuple(view.to_act) if window else ()
        # Those in already submitted: a pass, as a world rebuilt from the view says.
        self.calls = {
            s: PASS.kind
            for s in range(n)
            if window and s not in table.finished and s != table.actor and s not in self.waiting
        }
        self.laid = laid_this_round(view.history, n)
        self.rng = random.Random(seed)

    def deal(self, seed: int | None = None) -> CardPlayout:
        """One world, drawn as :meth:`TrombonState.from_view` draws it."""
        rng = self.rng if seed is None else random.Random(seed)
        rng.getrandbits(32)  # the world's seed there: the draws after it stay in step
        dealt = self.hidden.deal(rng)
        stream = rng.getrandbits(64)  # the world's own random source: the copy's stream
        table = self.table
        table.hands, table.pile, table.staged = dealt.hands, dealt.pile, dealt.staged
        table.last_cards = dealt.last
        return CardPlayout.of(
            table, stream, cap=self.cap, waiting=self.waiting, calls=self.calls, laid=self.laid
        )
