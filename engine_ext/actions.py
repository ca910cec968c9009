"""The shared action kinds: what :attr:`Action.kind <levata.engine.contract.Action.kind>` says
when a game means the same move. A game adds kinds of its own as constants in its module
(Macao's ``done``, ``request``...), never as bare strings repeated.

>>> from levata.engine import Action, Card
>>> Action(PLAY, card=Card.parse("QH")).kind == PLAY == "play"
True
"""

from __future__ import annotations

__all__ = ["BID", "DRAW", "PASS", "PLAY"]

#: Put a card (``card``) on the table: to a trick, a pile, a discard.
PLAY = "play"
#: Bid a number (``number``).
BID = "bid"
#: Take a card from the stock.
DRAW = "draw"
#: Do nothing this turn (when the rules allow it).
PASS = "pass"
