"""Play a match in-process: each seat's bot sees only its own view and legal actions.

>>> from levata.engine import game
>>> from levata.bots import make_bot
>>> state = game("whist").new_match(players=3, options={"deal_size": 3}, seed=1)
>>> bots = [make_bot("random", "whist", seed=s) for s in range(3)]
>>> play_match(state, bots).winners != ()
True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from levata.bots.base import Bot
from levata.engine import Action, GameState, Result

__all__ = ["CLOCK_STEP_MS", "play_match"]

#: Referee milliseconds that pass per decision when a real-time game is played in-process.
CLOCK_STEP_MS = 100


def play_match(
    state: GameState,
    bots: Sequence[Bot],
    on_action: Callable[[int, Action], None] | None = None,
    max_actions: int = 1_000_000,
) -> Result:
    """Ask the bots to act until the match ends; returns the result.

    When several seats may act, they are asked in rotation, so a real-time seat that waits
    never starves the others; simultaneous choices stay hidden from each other because the
    game reveals them only when the joint step resolves.
    """
    if len(bots) != state.players:
        raise ValueError(f"{state.players} seats need {state.players} bots, got {len(bots)}")
    for step in range(max_actions):
        if state.realtime:
            state.advance_clock(step * CLOCK_STEP_MS)
        if state.is_over():
            return state.result()
        seats = state.to_act()
        seat = seats[step % len(seats)]
        action = bots[seat].act(state.view(seat), state.legal_actions(seat))
        state.apply(seat, action)
        if on_action is not None:
            on_action(seat, action)
    raise RuntimeError(f"the match did not end within {max_actions} actions")
