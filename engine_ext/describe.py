"""``levata describe GAME``: what a bot of a game sees, generated from the engine.

The meanings come from the game's :class:`~levata.engine.vocabulary.Vocabulary` (declared
beside its rules), the options from its spec, the decks from fresh matches and the action
examples from seeded random play, so the text cannot drift from the code.

>>> from levata.engine import game
>>> text = describe(game("whist"))
>>> text.splitlines()[0]
'whist: Romanian Whist, 3-6 players'
>>> "A = 14" in text and "tricks:SEAT" in text
True
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable

from levata.engine.cards import Suit, notation_examples
from levata.engine.contract import Action, GameSpec, GameState, _describe_counts
from levata.engine.testing import CLOCK_STEP_MS, MAX_ACTIONS, new_random_match
from levata.engine.vocabulary import PASS, Observed

__all__ = ["describe", "observe"]

_SECTIONS = (
    ("phases", "phases (view.phase)"),
    ("zones", "zones (view.zones: cards you can see, by name)"),
    ("counts", "counts (view.counts: how many cards a place holds, hidden ones too)"),
    ("counters", "counters (view.counters: the game's numbers)"),
    ("facts", "facts (view.facts)"),
    ("actions", "actions (legal[].action.kind)"),
    ("events", "events (view.history[].kind)"),
)


def describe(spec: GameSpec) -> str:
    """The whole description of ``spec``, as ``levata describe`` prints it."""
    vocab = spec.vocabulary
    lines = [f"{spec.name}: {spec.title}, {_describe_counts(spec.players)} players"]
    if spec.summary:
        lines.append(spec.summary)
    lines += ["", "options (-o NAME=VALUE; MatchStart.options)"]
    for o in spec.options:
        allowed = f" [{', '.join(map(str, o.choices))}]" if o.choices else ""
        lines.append(f"  {o.name} = {o.default}: {o.help}{allowed}")
    lines += ["", *_cards(spec)]
    examples = observe(spec, until=vocab.actions).examples
    lines += ["", "SEAT stands for a seat number (0 is the first seat): hand:SEAT is hand:0, ..."]
    if spec.teams(spec.players[0]) is not None:
        lines.append("TEAM stands for a team number: team_score:TEAM is team_score:0, ...")
    for name, title in _SECTIONS:
        lines += ["", title]
        entries = vocab.section(name)
        width = max((len(k) for k in entries), default=0)
        for key in sorted(entries):
            meaning = entries[key]
            if name == "actions" and key in examples and examples[key] != key:
                meaning += f" (e.g. {examples[key]!r})"
            lines.append(f"  {key.ljust(width)}  {meaning}")
    lines += ["", *_position_example(spec)]
    return "\n".join(lines) + "\n"


def _position_example(spec: GameSpec) -> list[str]:
    """A new match's position (seed 0, default options, the fewest players), as
    ``levata play --position`` and ``GameSpec.from_position`` read it."""
    state = spec.new_match(spec.players[0], seed=0)
    try:
        text = state.position()
    except NotImplementedError:
        return ["position: not written for this game yet"]
    return [
        "position (state.position(), GameSpec.from_position(), levata play --position): the"
        " whole state as one line, name=value fields separated by '; ', cards in their"
        " notation (- for none), other values JSON; per-seat numbers as one list. A new match:",
        f"  {text}",
    ]


def _cards(spec: GameSpec) -> list[str]:
    """Card notation, and the deck at each player count (read off a fresh match's table)."""
    options = spec.resolve_options(None)
    decks = []
    for players in spec.players:
        state = spec.new_match(players, options=options, seed=0)
        decks.append((players, [c for z in state.table() for c in z.cards]))
    names = {c.rank: c.rank_name for _, cards in decks for c in cards}
    plain = sorted(r for r, n in names.items() if n == str(r))
    named = [f"{names[r]} = {r}" for r in sorted(names) if names[r] != str(r)]
    ranks = [f"{plain[0]}..{plain[-1]} as themselves"] if plain else []
    suits = sorted({c.suit for _, cards in decks for c in cards})
    lines = [
        "cards",
        f"  notation: the rank, then the suit's letter ({notation_examples(decks[0][1])}); a"
        " Card message has suit, rank and notation",
        "  ranks (Card.rank): " + ", ".join(ranks + named),
        "  suits: " + ", ".join(f"{s.letter} = {_suit_name(s)}" for s in suits),
    ]
    for players, cards in decks:
        copies = len(cards) // len(set(cards))
        each = f", {copies} of each" if copies > 1 else ""
        spans = rank_spans({c.rank for c in cards}, names)
        lines.append(f"  deck, {players} players: {len(cards)} cards, {spans}{each}")
    return lines


def rank_spans(ranks: set[int], names: dict[int, str]) -> str:
    """The ranks of a deck as runs, so that a cut deck shows its gap (Huzur drops 4, 5, 6).

    >>> rank_spans({2, 3, 7, 8, 9, 10, 11, 12, 13, 14}, {11: "J", 12: "Q", 13: "K", 14: "A"})
    '2, 3, 7..A'
    >>> rank_spans({7, 8, 9, 10, 11}, {11: "J"})
    '7..J'
    """
    runs: list[list[int]] = []
    for r in sorted(ranks):
        if runs and r == runs[-1][-1] + 1:
            runs[-1].append(r)
        else:
            runs.append([r])
    name = lambda r: names.get(r, str(r))  # noqa: E731
    parts = []
    for run in runs:
        if len(run) > 2:
            parts.append(f"{name(run[0])}..{name(run[-1])}")
        else:
            parts.extend(name(r) for r in run)
    return ", ".join(parts)


def _suit_name(suit: Suit) -> str:
    return f"SUIT_{suit.name}"


def observe(
    spec: GameSpec, matches: int = 24, seed: int = 0, until: Iterable[str] | None = None
) -> Observed:
    """Play ``matches`` seeded random matches (players and options varying as in the
    conformance suite's first matches: every choice and flag gets its turn), and one more
    read from a position midway, and record everything each seat was shown: its views, its legal
    actions, its events. With ``until`` (action kinds), stop as soon as each of them has an
    example."""
    wanted = set(until) if until is not None else None
    seen = Observed()
    for i in range(matches):
        if wanted is not None and wanted <= set(seen.examples):
            return seen
        state, _ = new_random_match(spec, i, seed + i, combine=False)
        _record(seen, state, random.Random(seed + i), lazy=bool(i // 2 % 2))
    state, _ = new_random_match(spec, 0, seed, combine=False)
    rng = random.Random(seed)
    for _ in range(7):
        if state.is_over():
            break
        seat = rng.choice(state.to_act())
        state.apply(seat, rng.choice(state.legal_actions(seat)))
    try:
        again = spec.from_position(state.position(), seed=seed)
    except NotImplementedError:  # a game that writes no positions yet
        return seen
    _record(seen, again, rng, lazy=False)
    return seen


def _with_payload(state: GameState, seat: int, action: Action, rng: random.Random) -> Action:
    """``action``, half the time with one payload key the game takes beside it (Kemps'
    signals), so that what a payload makes happen is seen too; a game that takes none draws
    nothing."""
    schema = state.payload_schema(seat, action)
    if not schema or rng.random() < 0.5:
        return action
    key = rng.choice(sorted(schema))
    values = list(itertools.islice(iter(schema[key]), 64))
    return action.with_payload(**{key: rng.choice(values)}) if values else action


def _record(seen: Observed, state: GameState, rng: random.Random, lazy: bool) -> None:
    """Play ``state`` out at random, recording what every seat is shown."""
    for seat in range(state.players):
        seen.add_view(state.view(seat, history=False))
    for step in range(MAX_ACTIONS):
        if state.is_over():
            break
        if state.realtime:
            state.advance_clock(step * CLOCK_STEP_MS)
            if state.is_over():
                continue
        seats = state.to_act()
        for seat in seats:
            seen.add_actions(state.legal_actions(seat))
        seat = rng.choice(seats)
        seen.add_view(state.view(seat, history=False))  # the view a request carries
        legal = state.legal_actions(seat)
        # A lazy player passes when it may, and adds no payload: what only a quiet table
        # shows (a pile left alone until it dies, a stock played out) shows up too.
        passes = [a for a in legal if a.kind == PASS] if lazy else []
        action = passes[0] if passes and rng.random() < 0.8 else rng.choice(legal)
        state.apply(seat, action if lazy else _with_payload(state, seat, action, rng))
    for seat in range(state.players):
        seen.add_view(state.view(seat, history=False))
    seen.add_events(state.events())
