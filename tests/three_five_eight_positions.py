"""3-5-8 positions for tests: a deck order that deals chosen cards, and short ways to play on
to a phase (the rules' scenarios and the bots' tests share them)."""

from __future__ import annotations

from collections.abc import Callable

from levata.engine import Action, Card, game, parse_cards
from levata.engine.cards import french_deck
from levata.engine.games.three_five_eight import ThreeFiveEightState
from levata.engine.games.three_five_eight import rules as tr

SPEC = game("three-five-eight")


def deal_for(
    eight: int,
    hands: dict[int, str],
    kitty: str = "",
    avoid: dict[int, Callable[[Card], bool]] | None = None,
) -> list[Card]:
    """A deck order dealing ``hands`` (a part of each seat's cards) from the 8-seat and
    ``kitty`` to the kitty; each seat is filled up with cards ``avoid[seat]`` accepts not."""
    n, size = tr.PLAYERS, tr.HAND_SIZE
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
    pot += rest[: tr.KITTY - len(pot)]
    order = [held[(eight + i) % n][i // n] for i in range(size * n)]
    return order + pot + [c for c in rest if c not in pot]


def new(eight: int = 0, hands=None, kitty="", avoid=None, **options) -> ThreeFiveEightState:
    options = {"first": eight, **options}
    deck = deal_for(eight, hands or {}, kitty, avoid)
    state = SPEC.new_match(players=3, options=options, seed=11, deal=deck)
    assert isinstance(state, ThreeFiveEightState)
    return state


def act(state: ThreeFiveEightState, text: str, seat: int | None = None) -> None:
    state.apply(state.to_act()[0] if seat is None else seat, Action.parse(text))


def keep_kitty(state: ThreeFiveEightState) -> None:
    """The 8-seat leaves every kitty card where it is."""
    while state.phase == "kitty":
        act(state, "keep")


def to_phase(state: ThreeFiveEightState, phase: str, contract: str = "C") -> None:
    """Play on with the plainest choices (``contract``, keep the kitty, stop drawing, the
    lowest card) until ``phase``."""
    while state.phase != phase and not state.is_over():
        seat = state.to_act()[0]
        legal = state.legal_actions(seat)
        kinds = {a.kind for a in legal}
        if state.phase == "announce":
            want = Action("contract", choice=contract)
            state.apply(
                seat, want if want in legal else next(a for a in legal if a != Action("pas"))
            )
        elif "keep" in kinds:
            act(state, "keep")
        elif "stop" in kinds:
            act(state, "stop")
        else:
            state.apply(seat, legal[0])


def play_deal(state: ThreeFiveEightState, contract: str = "C") -> None:
    """Play the counted deal in progress to its score with :func:`to_phase`'s choices."""
    counted = state.counted
    while state.counted == counted and not state.is_over():
        to_phase(state, "play", contract)
        while state.phase == "play":
            seat = state.to_act()[0]
            state.apply(seat, state.legal_actions(seat)[0])
