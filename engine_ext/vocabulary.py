"""What a bot of a game sees, named and explained: each game declares its :class:`Vocabulary`
(``GameSpec.vocabulary``) beside its rules, and :mod:`levata.engine.describe` prints it
(and, with :func:`~levata.engine.describe.observe`, checks it against random play).

A key that exists once per seat is declared with ``SEAT`` in place of the seat number:
``hand:SEAT`` describes ``hand:0``, ``hand:1``...; one per team (its name starts with
``team_``), with ``TEAM``: ``team_score:TEAM``.

The same thing has the same name in every game: :data:`SHARED` holds the names games share
and the sense each keeps (a game's meaning of a shared name starts with it, and may go on to
say more), and :data:`SYNONYMS` the other words once used for them, which no game uses.

>>> seat_pattern("tricks:2"), seat_pattern("stock"), seat_pattern("team_score:1")
('tricks:SEAT', 'stock', 'team_score:TEAM')
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["PASS", "SHARED", "SYNONYMS", "Observed", "Vocabulary", "seat_pattern"]

_SEAT_SUFFIX = re.compile(r":\d+$")
PASS = "pass"  # the shared kind (levata.engine.actions.PASS)


def seat_pattern(key: str) -> str:
    """``hand:3`` -> ``hand:SEAT`` (``team_score:1`` -> ``team_score:TEAM``): the name a
    per-seat (per-team) key is declared under."""
    return _SEAT_SUFFIX.sub(":TEAM" if key.startswith("team_") else ":SEAT", key)


#: Names every game gives the same thing, by section, with the sense each keeps: a game that
#: shows one of these things uses this name, and a game that uses this name means this (its
#: meaning starts with these words; it may go on to say more).
SHARED: Mapping[str, Mapping[str, str]] = {
    "counters": {
        "dealer": "the seat that deals this deal",
        "first": "the seat that acts first this deal",
        "leader": "the seat that leads (or led) the trick in progress",
        "deal": "the deal in progress, from 1",
        "deals": "deals in the match",
        "contract": "the tricks contracted",
        "tricks:SEAT": "tricks the seat has taken this deal",
        "score:SEAT": "the seat's total so far",
        "team_score:TEAM": "the team's total so far",
    },
    "facts": {
        # French decks go on "C, D, H or S, or NT for no trump"; Italian ones "b, d, c or s".
        "strain": "the trump named",
        "trick_seats": "the seats that played to the trick in progress, in order",
        "finished": "the seats that emptied their hands, in order",
    },
    "counts": {"hand:SEAT": "how many cards the seat holds"},
}

#: Other words once used for a shared thing (name -> the shared name): no game uses them.
SYNONYMS: Mapping[str, str] = {
    "shuffler": "dealer",
    "high": "contract",
    "points:SEAT": "score:SEAT",
    "score:TEAM": "team_score:TEAM",
    "idle:TEAM": "team_idle:TEAM",
    "trump_suit": "strain",
}


@dataclass(frozen=True)
class Vocabulary:
    """Every name a game's views, legal actions and events use, each with its meaning.

    ``phases``: :attr:`SeatView.phase` values. ``zones``: names in ``zones`` (visible cards).
    ``counts``: keys of ``counts`` (how many cards a zone holds, hidden ones too).
    ``counters``: keys of ``counters`` (the game's numbers). ``facts``: keys of ``facts``.
    ``actions``: action kinds. ``events``: event kinds of the history.
    ``choices``: for each action kind whose argument is a word (``Action.choice``), every
    word it may take at any table size and options: what a fixed action space enumerates
    (:mod:`levata.envs`; cards and numbers need no list, the deck and the meaning's
    `` `number` `` say them).
    """

    phases: Mapping[str, str] = field(default_factory=dict)
    zones: Mapping[str, str] = field(default_factory=dict)
    counts: Mapping[str, str] = field(default_factory=dict)
    counters: Mapping[str, str] = field(default_factory=dict)
    facts: Mapping[str, str] = field(default_factory=dict)
    actions: Mapping[str, str] = field(default_factory=dict)
    events: Mapping[str, str] = field(default_factory=dict)
    choices: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    SECTIONS = ("phases", "zones", "counts", "counters", "facts", "actions", "events")

    def section(self, name: str) -> Mapping[str, str]:
        value: Mapping[str, str] = getattr(self, name)
        return value


@dataclass
class Observed:
    """What seeded random matches of a game showed its seats, by section, with the first
    action seen of each kind (``examples``), every card named (``cards``) and, per action
    kind, the arguments its legal actions took (``arguments``: ``card``, ``number``, or the
    ``choice`` word itself)."""

    names: dict[str, set[str]] = field(
        default_factory=lambda: {s: set() for s in Vocabulary.SECTIONS}
    )
    examples: dict[str, str] = field(default_factory=dict)
    cards: set[Any] = field(default_factory=set)
    arguments: dict[str, set[str]] = field(default_factory=dict)

    def add_view(self, view: Any) -> None:
        self.names["phases"].add(view.phase)
        self.names["zones"].update(seat_pattern(z) for z in view.zones)
        self.names["counts"].update(seat_pattern(k) for k in view.counts)
        self.names["counters"].update(seat_pattern(k) for k in view.counters)
        self.names["facts"].update(seat_pattern(k) for k in view.facts)
        self.cards.update(view.hand)
        for cards in view.zones.values():
            self.cards.update(cards)

    def add_actions(self, actions: Iterable[Any]) -> None:
        for a in actions:
            self.names["actions"].add(a.kind)
            self.examples.setdefault(a.kind, str(a))
            taken = self.arguments.setdefault(a.kind, set())
            if a.card is not None:
                taken.add("card")
            elif a.number is not None:
                taken.add("number")
            elif a.choice is not None:
                taken.add(a.choice)

    def add_events(self, events: Iterable[Any]) -> None:
        for e in events:
            self.names["events"].add(e.kind)
