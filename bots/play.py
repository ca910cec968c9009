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

from levata.bots.base import Bot, as_bot
from levata.engine import Action, GameState, IllegalAction, Result, SeatView

__all__ = ["CLOCK_STEP_MS", "BotFailed", "play_match"]

#: Referee milliseconds that pass per decision when a real-time game is played in-process.
CLOCK_STEP_MS = 100


class BotFailed(RuntimeError):
    """A bot's ``act`` raised, or chose an action the rules refuse: which bot, at which
    seat, and why, in one line (the original exception is its ``__cause__``).

    >>> from levata.engine import game
    >>> state = game("whist").new_match(players=3, seed=1)
    >>> def broken(view, legal):
    ...     raise KeyError("trump")
    >>> play_match(state, [broken, broken, broken])
    Traceback (most recent call last):
    ...
    levata.bots.play.BotFailed: bot broken at seat 0 raised KeyError: 'trump'
    """

    def __init__(self, bot: str, seat: int, what: str) -> None:
        super().__init__(f"bot {bot} at seat {seat} {what}")
        self.bot, self.seat = bot, seat


def play_match(
    state: GameState,
    bots: Sequence[Bot | Callable[..., Action]],
    on_action: Callable[[int, Action], None] | None = None,
    max_actions: int = 1_000_000,
) -> Result:
    """Ask the bots to act until the match ends; returns the result. A bot may be a plain
    function ``act(view, legal)``; one that raises or chooses an illegal action stops the
    match with :class:`BotFailed`.

    The seats of a simultaneous step (a tick) are all asked on the views from before any of
    them submits, as the referee asks them at once: a seat asked later must not learn that
    another is in. One whose legal actions an earlier submission changed is asked again, on
    its view then (as the referee asks it again). In real time the seats to act are asked in
    rotation instead, so a seat that waits never starves the others.
    """
    if len(bots) != state.players:
        raise ValueError(f"{state.players} seats need {state.players} bots, got {len(bots)}")
    players = [as_bot(b) for b in bots]
    step = 0
    while step < max_actions:
        if state.realtime:
            state.advance_clock(step * CLOCK_STEP_MS)
        if state.is_over():
            return state.result()
        seats = state.to_act()
        if state.realtime or len(seats) == 1:
            seats = (seats[step % len(seats)],)
        asked = [(seat, state.view(seat), state.legal_actions(seat)) for seat in seats]
        for k, (seat, view, legal) in enumerate(asked):
            if k and seat not in state.to_act():
                continue  # an earlier submission settled its part of the step
            if k and (fresh := state.legal_actions(seat)) != legal:
                view, legal = state.view(seat), fresh
            action = _ask(players[seat], seat, view, legal)
            try:
                state.apply(seat, action)
            except IllegalAction as exc:
                why = f"chose an illegal action {action}: {exc}"
                raise BotFailed(_name(players[seat]), seat, why) from exc
            if on_action is not None:
                on_action(seat, action)
            step += 1
    raise RuntimeError(f"the match did not end within {max_actions} actions")


def _ask(bot: Bot, seat: int, view: SeatView, legal: list[Action]) -> Action:
    """The bot's choice, or :class:`BotFailed` saying why there is none."""
    try:
        action = bot.act(view, legal)
    except Exception as exc:
        raise BotFailed(_name(bot), seat, f"raised {type(exc).__name__}: {exc}") from exc
    if not isinstance(action, Action):
        raise BotFailed(_name(bot), seat, f"returned {action!r}, not one of its legal actions")
    return action


def _name(bot: Bot) -> str:
    return str(getattr(bot, "name", "") or type(bot).__name__)
