"""Kemps' strategy: what the other seats' takes say of their hands, for a search bot's worlds.

A collector takes a rank only while it holds the most of it (the heuristic's
``policy.best_swap``, and any sensible player): a seat seen taking three cards of one rank
held one before its first take, so it holds the fourth. The engine's worlds are uniform and
put the fourth in its hand about once in forty; :class:`KempsStrategy` gives the search
(``ismcts:infer=1``) a :class:`~levata.bots.inference.Clue` for each such seat, which makes
the worlds where it holds a hidden card of that rank :data:`COLLECTOR` times as likely. The
worlds are then drawn among ``pool`` uniform deals in proportion to it (in C: the game's
dealer weighs them, ``KempsDealer.weigh``). Softened, not a pin: a player that took three
without the fourth still has its worlds.

>>> from levata.engine.cards import parse_cards
>>> from levata.engine.games.kemps import KempsState
>>> state = KempsState.from_position(4, ["7S 7H 7D 2C", "2S 3S 4S 5S", "8S 8H 9D 9C",
...                                      "JS QS KS AS"], table="7C 3H 4H 5H")
>>> state.known[2] = parse_cards("8S 8H 8D")
>>> [(c.seat, c.factor) for c in collector_clues(state.view(0), state.deck())]
[(2, 200.0)]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from levata.bots.inference import Clue, read_clues
from levata.bots.strategy import Strategy
from levata.engine import GameState, SeatView
from levata.engine.cardmask import mask_of
from levata.engine.cards import Card
from levata.engine.worlds import Likelihood

__all__ = ["COLLECTOR", "SEEN_TAKING", "KempsStrategy", "collector_clues"]

#: How much likelier a world is in which a seat seen taking three of a rank holds a hidden
#: card of it. The heuristic's collectors held the fourth every time (823 of 823 seat-ticks
#: over 40 heuristic games), where a uniform world deals it about once in forty: at 200 the
#: worlds holding it outweigh the others about five to one (a pool large enough to show
#: them, 64 draws, picks them about two times in three), enough for the search to call on
#: it, while a seat that took three without the fourth (a player of another kind) keeps a
#: world in six.
COLLECTOR = 200.0

#: Cards of one rank a seat must be seen taking (and still hold) to be read as collecting it.
SEEN_TAKING = 3


class KempsStrategy(Strategy):
    """Kemps for the search bots: the other seats' takes as evidence (:meth:`evidence`); the
    rest is the plain strategy's (Kemps has no tricks: the bots search on its own kernel).

    >>> from levata.engine import game
    >>> state = game("kemps").new_match(players=4, seed=1)
    >>> KempsStrategy().evidence(state.view(0), state) is None  # nothing taken yet
    True
    """

    def evidence(
        self, view: SeatView, world: GameState, plays: bool = True, calls: bool = True
    ) -> Likelihood | None:
        """The worlds' likelihood under :func:`collector_clues` (``world``: any world of the
        view, for its deck; ``plays`` off: none). Kemps has no calls to read before the
        deal's end."""
        deck = getattr(world, "deck", None)
        if not plays or deck is None:
            return None
        clues = collector_clues(view, deck())
        return read_clues(clues) if clues else None


def collector_clues(view: SeatView, deck: Sequence[Card]) -> list[Clue]:
    """A :class:`~levata.bots.inference.Clue` for each other seat seen taking
    :data:`SEEN_TAKING` or more cards of one rank it still holds, while a card of its hand is
    hidden: the faces of that rank it was not seen taking (with two decks a face seen may
    have a hidden twin, which a mask of faces cannot tell from the seen one), factor
    :data:`COLLECTOR`. None outside the exchange and the last call."""
    if view.phase not in ("exchange", "last_call"):
        return []
    clues = []
    for seat, shown in enumerate(view.facts["known"]):
        if seat == view.seat or len(shown) >= view.counts[f"hand:{seat}"]:
            continue  # its own hand, or every card of it seen
        known = [Card.parse(c) for c in shown]
        rank, count = _most_taken(known)
        if count < SEEN_TAKING:
            continue
        mask = mask_of({c for c in deck if c.rank == rank and c not in known})  # faces
        if mask:
            clues.append(Clue(seat, mask, COLLECTOR))
    return clues


def _most_taken(known: Sequence[Card]) -> tuple[int, int]:
    """The rank seen taken most often and how often (0, 0: none)."""
    counts = Counter(c.rank for c in known)
    return max(counts.items(), key=lambda rc: rc[1], default=(0, 0))
