"""Banking positions for tests: a deck order that deals chosen cards, and short ways to play
on to a phase (the rules' scenarios and the heuristic bot's tests share them)."""

from __future__ import annotations

from collections.abc import Callable

from levata.engine import Action, Card, game, parse_cards
from levata.engine.cards import french_deck
from levata.engine.games.banking import BankingState
from levata.engine.games.banking import rules as br

SPEC = game("banking")


def deal_for(
    players: int,
    dealer: int,
    hands: dict[int, str],
    kitty: str = "",
    avoid: dict[int, Callable[[Card], bool]] | None = None,
) -> list[Card]:
    """A deck order dealing ``hands`` (a part of each seat's cards) from the Declarant and
    ``kitty`` to the Surpriza; each seat is filled up with cards ``avoid[seat]`` accepts not."""
    n, size = players, br.HAND_SIZE[players]
    k = (dealer + 1) % n
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
    pot += rest[: br.SURPRIZA - len(pot)]
    order = [held[(k + i) % n][i // n] for i in range(size * n)]
    return order + pot + [c for c in rest if c not in pot]


def new(players: int = 4, dealer: int = 3, hands=None, kitty="", avoid=None, **options):
    options = {"dealer": dealer, **options}
    deck = deal_for(players, dealer, hands or {}, kitty, avoid)
    state = SPEC.new_match(players=players, options=options, seed=11, deal=deck)
    assert isinstance(state, BankingState)
    return state


def act(state: BankingState, text: str, seat: int | None = None) -> None:
    state.apply(state.to_act()[0] if seat is None else seat, Action.parse(text))


def keep_all(state: BankingState) -> None:
    """Everyone keeps the deal in the refusal window in progress."""
    phase = state.phase
    while state.phase == phase:
        act(state, "keep")


def to_phase(state: BankingState, phase: str, trump: str = "C") -> None:
    """Play on with the plainest choices (keep, waive, name ``trump``, no Perechiuța, the
    lowest card) until ``phase``."""
    while state.phase != phase:
        seat = state.to_act()[0]
        kinds = {a.kind: a for a in reversed(state.legal_actions(seat))}
        if state.phase == "trump":
            act(state, f"trump {trump}")
        elif "keep" in kinds:
            act(state, "keep")
        elif "waive" in kinds:
            act(state, "waive")
        elif "pass" in kinds:
            act(state, "pass")
        else:
            state.apply(seat, state.legal_actions(seat)[0])
