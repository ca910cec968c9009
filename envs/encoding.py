"""One game's observation tensor and fixed action space, derived from its declarations alone.

Nothing here names a game: the layout comes from the game's vocabulary (its zones, counts,
counters and phases: what :class:`~levata.engine.contract.SeatView` shows, declared once in
``PLACES`` and ``FIELDS``), its deck (read off a fresh match's table) and its players.

**Observation** (float32, one flat vector; :meth:`Encoding.describe` prints its segments), as
seat ``me`` sees it, every seat named *relative* to ``me`` (``+0`` is ``me``, ``+1`` the next
seat in turn order...):

* one plane per visible place, over the deck in :attr:`Encoding.deck` order: how many copies
  of each card the place shows (0/1 with one deck). ``hand`` is the seat's own hand; a place
  per seat (``pile:SEAT``) has one plane per relative seat;
* ``count`` scalars: the view's ``counts`` (cards a place holds, hidden ones too);
* ``counter`` scalars: the view's ``counters``, raw; each followed by a 0/1 ``shown`` flag
  (a counter may be absent: a bid not made yet). A counter that names a seat (``dealer``,
  ``leader``... or one its field declares ``seat=True``) holds the relative seat; -1 stays -1;
* ``phase``: one-hot over the game's phases; ``to_act``: one-hot over relative seats;
  ``trump``: one-hot over the deck's suit letters and ``NT``; ``score``: the running scores.

**Actions**: for every action kind, in sorted order, one slot for the bare kind, then one per
card of the deck if its meaning names a `` `card` ``, one per number ``0..len(deck)`` if it names
a `` `number` ``, one per word the vocabulary's ``choices`` lists for it. A payload (Kemps'
signals) is no part of an action here: every payload key is optional, so the choice alone is
always legal.

>>> from levata.engine import game
>>> enc = Encoding(game("whist"), players=3)
>>> enc.size, enc.actions
(221, 52)
>>> from levata.engine import Action
>>> enc.action(enc.index(Action.parse("bid 2")))
Action('bid 2')
>>> state = game("whist").new_match(players=3, seed=1)
>>> seat = state.to_act()[0]
>>> mask = enc.mask(state.legal_actions(seat))
>>> [str(enc.action(i)) for i in mask.nonzero()[0]]
['bid 0', 'bid 1']
>>> obs = enc.observe(state.view(seat, history=False))
>>> int(obs[enc.offset("hand") : enc.offset("hand") + len(enc.deck)].sum())
1
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from levata.engine import Action, Card, GameSpec, SeatView

__all__ = ["Encoding", "Segment"]

#: Counters the shared vocabulary (levata.engine.vocabulary.SHARED) defines as a seat.
_SEAT_COUNTERS = frozenset({"dealer", "first", "leader"})
_SEAT, _TEAM = ":SEAT", ":TEAM"


@dataclass(frozen=True)
class Segment:
    """A run of the observation vector: its name, where it starts, its length, its meaning."""

    name: str
    offset: int
    size: int
    meaning: str


class Encoding:
    """The observation tensor and the action space of ``spec`` at ``players`` seats under
    ``options`` (the deck and the places may depend on both)."""

    def __init__(
        self, spec: GameSpec, players: int, options: Mapping[str, Any] | None = None
    ) -> None:
        self.spec, self.players = spec, players
        self.options = spec.resolve_options(options)
        fresh = spec.new_match(players=players, options=self.options, seed=0)
        held = Counter(c for zone in fresh.table() for c in zone.cards)
        #: The distinct cards of the deck, in the order of every plane and card slot.
        self.deck: tuple[Card, ...] = tuple(sorted(held))
        self._card_at = {c: i for i, c in enumerate(self.deck)}
        teams = spec.teams(players)
        self._team_of = {s: t for t, seats in enumerate(teams or ()) for s in seats}
        self._teams = len(teams) if teams else players
        self._segments: list[Segment] = []
        self._size = 0
        self._layout(spec, fresh.view(0, history=False))
        self._action_space(spec, sum(held.values()))

    def __deepcopy__(self, memo: dict[int, Any]) -> Encoding:
        return self  # fixed once built: every copy of a match shares it

    # -- the layout --------------------------------------------------------------------------

    def _add(self, name: str, size: int, meaning: str) -> None:
        self._segments.append(Segment(name, self._size, size, meaning))
        self._size += size

    def _layout(self, spec: GameSpec, view: SeatView) -> None:
        vocab = spec.vocabulary
        n, cards = self.players, len(self.deck)
        self._add("hand", cards, "the seat's own cards")
        for name, meaning in sorted(vocab.zones.items()):
            for key in self._keys(name):
                self._add(f"zone {key}", cards, meaning)
        for name, meaning in sorted(vocab.counts.items()):
            for key in self._keys(name):
                self._add(f"count {key}", 1, meaning)
        fields = getattr(spec.factory, "FIELDS", ())
        declared_seats = {f.name for f in _flat(fields) if getattr(f, "seats", False)}
        self._seat_counters = _SEAT_COUNTERS | declared_seats
        self._counters: list[tuple[str, str]] = []  # (segment key, view key pattern)
        for name, meaning in sorted(vocab.counters.items()):
            for key in self._keys(name):
                self._counters.append((key, name))
                self._add(f"counter {key}", 2, f"{meaning} (value, shown 0/1)")
        self._phases = sorted(vocab.phases)
        self._add("phase", len(self._phases), "one-hot: " + ", ".join(self._phases))
        self._add("to_act", n, "one-hot, relative seats: who is to act")
        suits = [*sorted({c.suit.letter for c in self.deck}), "NT"]
        self._trumps = {s: i for i, s in enumerate(suits)}
        self._add("trump", len(suits), "one-hot: " + ", ".join(suits))
        self._add("score", len(view.scores), "the running scores, relative seats")
        self._offsets = {s.name: s.offset for s in self._segments}

    def _keys(self, name: str) -> list[str]:
        """``hand:SEAT`` -> ``hand:+0 .. hand:+N-1`` (relative seats); ``team_x:TEAM`` ->
        one per team, the seat's own first; other names as they are."""
        if name.endswith(_SEAT):
            return [f"{name[: -len(_SEAT)]}:+{r}" for r in range(self.players)]
        if name.endswith(_TEAM):
            return [f"{name[: -len(_TEAM)]}:+{r}" for r in range(self._teams)]
        return [name]

    def _action_space(self, spec: GameSpec, cards: int) -> None:
        self._slots: list[Action] = []
        for kind, meaning in sorted(spec.vocabulary.actions.items()):
            self._slots.append(Action(kind))
            if "`card`" in meaning:
                self._slots += [Action(kind, card=c) for c in self.deck]
            if "`number`" in meaning:
                self._slots += [Action(kind, number=k) for k in range(cards + 1)]
            self._slots += [Action(kind, choice=w) for w in spec.vocabulary.choices.get(kind, ())]
        self._index = {a: i for i, a in enumerate(self._slots)}

    # -- what callers read ---------------------------------------------------------------------

    @property
    def size(self) -> int:
        """The length of the observation vector."""
        return self._size

    @property
    def actions(self) -> int:
        """The number of actions (slots) of the fixed action space."""
        return len(self._slots)

    @property
    def segments(self) -> tuple[Segment, ...]:
        return tuple(self._segments)

    def offset(self, name: str) -> int:
        """Where segment ``name`` starts (``hand``, ``zone trick``, ``counter deal``...)."""
        return self._offsets[name]

    def index(self, action: Action) -> int:
        """The slot of ``action`` (its payload left out)."""
        try:
            return self._index[action.without_payload()]
        except KeyError:
            raise ValueError(
                f"{self.spec.name}: {action} has no slot in the action space (a word "
                "argument belongs in the vocabulary's choices)"
            ) from None

    def action(self, index: int) -> Action:
        """The action of slot ``index``."""
        return self._slots[index]

    def mask(self, legal: Iterable[Action]) -> np.ndarray:
        """1 at the slot of each legal action, else 0 (int8, PettingZoo's convention)."""
        out = np.zeros(len(self._slots), dtype=np.int8)
        for a in legal:
            out[self.index(a)] = 1
        return out

    def observe(self, view: SeatView, out: np.ndarray | None = None) -> np.ndarray:
        """The observation vector of ``view`` (written into ``out`` when given)."""
        obs = np.zeros(self._size, dtype=np.float32) if out is None else out
        if out is not None:
            obs.fill(0)
        me, n = view.seat, self.players
        at = self._offsets
        self._plane(obs, at["hand"], view.hand)
        for name, cards in view.zones.items():
            self._plane(obs, at[f"zone {self._relative(name, me)}"], cards)
        for name, count in view.counts.items():
            obs[at[f"count {self._relative(name, me)}"]] = count
        for key, name in self._counters:
            value = view.counters.get(self._absolute(key, name, me))
            if value is None:
                continue
            if name in self._seat_counters and value >= 0:
                value = (value - me) % n
            o = at[f"counter {key}"]
            obs[o], obs[o + 1] = value, 1.0
        if view.phase in self._phases:
            obs[at["phase"] + self._phases.index(view.phase)] = 1.0
        for s in view.to_act:
            obs[at["to_act"] + (s - me) % n] = 1.0
        if view.trump in self._trumps:
            obs[at["trump"] + self._trumps[view.trump]] = 1.0
        scores = view.scores
        for s, score in enumerate(scores):
            obs[at["score"] + (s - me) % len(scores)] = score
        return obs

    def _plane(self, obs: np.ndarray, offset: int, cards: Sequence[Card]) -> None:
        for c in cards:
            obs[offset + self._card_at[c]] += 1.0

    def _relative(self, key: str, me: int) -> str:
        """``pile:2`` seen by seat 3 of 4 -> ``pile:+3``; ``team_x:1`` by team 0's seat ->
        ``team_x:+1``."""
        base, sep, number = key.rpartition(":")
        if not sep or not number.isdigit():
            return key
        if base.startswith("team_"):
            mine = self._team_of.get(me, me)
            return f"{base}:+{(int(number) - mine) % self._teams}"
        return f"{base}:+{(int(number) - me) % self.players}"

    def _absolute(self, key: str, pattern: str, me: int) -> str:
        if not (pattern.endswith(_SEAT) or pattern.endswith(_TEAM)):
            return key
        base, _, rel = key.rpartition(":+")
        if pattern.endswith(_TEAM):
            return f"{base}:{(int(rel) + self._team_of.get(me, me)) % self._teams}"
        return f"{base}:{(int(rel) + me) % self.players}"

    def describe(self) -> str:
        """The layout as text: each segment's offset, length and meaning, then the action
        space's slots by kind."""
        lines = [
            f"{self.spec.name}, {self.players} players: observation of {self.size} floats, "
            f"{self.actions} actions",
            f"deck ({len(self.deck)} cards, the order of every plane and card slot): "
            + " ".join(str(c) for c in self.deck),
            "",
            "observation (offset, length, name: meaning)",
        ]
        lines += [f"  {s.offset:5} {s.size:3}  {s.name}: {s.meaning}" for s in self._segments]
        lines += ["", "actions (first slot, slots, kind: arguments)"]
        start = 0
        for kind, group in _by_kind(self._slots):
            args = [str(a)[len(kind) + 1 :] for a in group if str(a) != kind]
            shown = " ".join(args[:6]) + (f" ... {args[-1]}" if len(args) > 6 else "")
            lines.append(f"  {start:5} {len(group):3}  {kind}: (bare) {shown}".rstrip())
            start += len(group)
        return "\n".join(lines)


def _by_kind(slots: Sequence[Action]) -> list[tuple[str, list[Action]]]:
    groups: dict[str, list[Action]] = {}
    for a in slots:
        groups.setdefault(a.kind, []).append(a)
    return list(groups.items())


def _flat(fields: Iterable[Any]) -> Iterable[Any]:
    for f in fields:
        yield from getattr(f, "fields", (f,))
