"""The shared vocabulary of events: the kinds every game may emit and their payload names.

A game emits these kinds with these payload names whenever it means the same thing, so the
referee, the narration and the bots read any game alike; a game may add kinds of its own (and
narrates them itself: :attr:`GameSpec.narrate <levata.engine.contract.GameSpec.narrate>`).

>>> from levata.engine import game
>>> state = game("whist").new_match(players=3, seed=1)
>>> first = state.events()[0]
>>> first.kind == DEAL and {DEAL_NUMBER, SIZE, FIRST, DEALER} <= set(first.data)
True
"""

from __future__ import annotations

__all__ = [
    "BID",
    "BIDS",
    "DEAL",
    "DEALER",
    "DEAL_NUMBER",
    "DRAW",
    "END",
    "FINISH",
    "FIRST",
    "HAND",
    "KINDS",
    "NUMBER",
    "PASS",
    "PLACE",
    "PLAY",
    "POINTS",
    "POSITION",
    "RANK",
    "RANKS",
    "REASON",
    "SCORE",
    "SCORES",
    "SIZE",
    "TOTALS",
    "TRICK",
    "TRICKS",
    "TRUMP",
    "WINNERS",
]

# -- kinds ---------------------------------------------------------------------------------------

#: Cards are dealt (public); ``cards`` shows what is turned up (a trump, a starter).
DEAL = "deal"
#: The match was read from a position (public): the history starts here, as at a deal, each
#: seat's ``HAND`` follows; the game's own data says what the table showed before it.
POSITION = "position"
#: One seat's hand, seen by that seat only (``seat``, ``cards``).
HAND = "hand"
#: A seat bids ``NUMBER``.
BID = "bid"
#: A seat plays ``cards`` to the table.
PLAY = "play"
#: A seat draws (the count is public; the cards, if shown, only to that seat).
DRAW = "draw"
#: A seat passes its turn.
PASS = "pass"
#: A trick is complete: ``seat`` took ``cards``.
TRICK = "trick"
#: A deal is scored: per-seat lists (``BIDS``, ``TRICKS``, ``POINTS``, ``TOTALS``...).
SCORE = "score"
#: A seat is out of cards and leaves the race at ``PLACE`` (or ``RANK``).
FINISH = "finish"
#: The match is over: ``SCORES``, ``RANKS``, ``WINNERS``, ``REASON`` (those the game has).
END = "end"

#: Every shared kind, in the order a match usually meets them.
KINDS = (DEAL, POSITION, HAND, BID, PLAY, DRAW, PASS, TRICK, SCORE, FINISH, END)

# -- payload names (keys of Event.data) ----------------------------------------------------------

#: deal: which deal of the match this is, from 1.
DEAL_NUMBER = "deal"
#: deal: cards dealt to each seat.
SIZE = "size"
#: deal: the seat that acts first.
FIRST = "first"
#: deal: the dealer's seat.
DEALER = "dealer"
#: deal: the trump suit's letter, ``None`` for no trump (present only in trump games).
TRUMP = "trump"
#: bid: the number bid.
NUMBER = "number"
#: score: per seat, what it bid, the tricks it took, its points this deal, its running total.
BIDS, TRICKS, POINTS, TOTALS = "bids", "tricks", "points", "totals"
#: finish: the seat's place among those finished, from 1 (``RANK`` in some games).
PLACE, RANK = "place", "rank"
#: end: final scores, ranks (1 = best) and winners, and why the match ended.
SCORES, RANKS, WINNERS, REASON = "scores", "ranks", "winners", "reason"
