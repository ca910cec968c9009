"""8-5-3 positions for tests: a deck order that deals chosen cards, and short ways to play on
to a phase (the rules' scenarios and the bots' tests share them)."""

from __future__ import annotations

from collections.abc import Callable

from levata.engine import Action, Card, game, parse_cards
from levata.engine.cards import french_deck
from levata.engine.family import quotas as qf
from levata.engine.games.eight_five_three import EightFiveThreeState

SPEC = game("eight-five-three")


def deal_for(
    players: int,
    shuffler: int,
    hands: dict[int, str],
    kitty: str = "",
    avoid: dict[int, Callable[[Card], bool]] | None = None,
) -> list[Card]:
    """A deck order dealing ``hands`` (a part of each seat's cards) from F and ``kitty`` to
    the Surpriza; each seat is filled up with cards ``avoid[seat]`` accepts not."""
    n, size = players, qf.HAND_SIZE[players]
    f = (shuffler + 1) % n
    held = {s: parse_cards(hands.get(s, "")) for s in range(n)}
    pot = parse_cards(kitty)
    used = {c for cs in held.values() for c in cs} | set(pot)
    rest = [c for c in french_deck() if c not in used]
    avoid = avoid or {}
    for s in sorted(range(n), key=lambda s: s not in avoid):  # the choosy seats fill first
        bad = avoid.get(s, lambda c: False)
        while len(held[s]) < size:
            card = next(c for c in rest if not bad(c))
            rest.remove(card)
            held[s].append(card)
    pot += rest[: qf.LEFT_OVER - len(pot)]
    order = [held[(f + i) % n][i // n] for i in range(size * n)]
    return order + pot + [c for c in rest if c not in pot]


def new(players: int = 3, shuffler: int = 2, hands=None, kitty="", avoid=None, **options):
    options = {"shuffler": shuffler, **options}
    deck = deal_for(players, shuffler, hands or {}, kitty, avoid)
    state = SPEC.new_match(players=players, options=options, seed=11, deal=deck)
    assert isinstance(state, EightFiveThreeState)
    return state


def act(state: EightFiveThreeState, text: str, seat: int | None = None) -> None:
    state.apply(state.to_act()[0] if seat is None else seat, Action.parse(text))


def to_phase(state: EightFiveThreeState, phase: str, trump: str = "C") -> None:
    """Play on with the plainest choices (stop, name ``trump``, the lowest card) until
    ``phase``."""
    while state.phase != phase:
        seat = state.to_act()[0]
        kinds = {a.kind for a in state.legal_actions(seat)}
        if state.phase == "trump":
            act(state, f"trump {trump}")
        elif "stop" in kinds:
            act(state, "stop")
        else:
            state.apply(seat, state.legal_actions(seat)[0])
