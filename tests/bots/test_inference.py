"""Inference in sampling (``levata.bots.inference``, ``Strategy.evidence``): worlds drawn in
proportion to how likely the other seats' bids and plays are under the model of their play
shift the cards the expected way."""

from __future__ import annotations

import random

from levata.bots.heuristic.tarneeb import hcp
from levata.bots.strategy import strategy_for
from levata.engine import Action, game
from levata.engine.cardmask import mask_of
from levata.engine.cards import parse_cards
from levata.engine.worlds import Evidence

TARNEEB = game("tarneeb")


def _worlds(view, evidence, n=150):
    rng = random.Random(7)
    return [TARNEEB.world_from_view(view, rng, evidence) for _ in range(n)]


def _evidence(view):
    first = TARNEEB.world_from_view(view, random.Random(0))
    likelihood = strategy_for(TARNEEB).evidence(view, first)
    assert likelihood is not None
    return Evidence(likelihood, pool=8)


def test_a_seat_that_bid_high_holds_more_honours_in_the_worlds_drawn() -> None:
    """Seat 3 opens at 10, the others pass: seat 0's worlds give seat 3 more high-card
    points with the evidence than without (uniform: a third of those seat 0 does not see)."""
    state = TARNEEB.new_match(players=4, seed=5)
    state.apply(3, Action("bid", number=10))
    for seat in (0, 1, 2):
        state.apply(seat, Action("pass"))
    view = state.view(0)
    plain = sum(hcp(w.hands[3]) for w in _worlds(view, None)) / 150
    inferred = sum(hcp(w.hands[3]) for w in _worlds(view, _evidence(view))) / 150
    uniform = (40 - hcp(state.hands[0])) / 3
    assert abs(plain - uniform) < 1.0 and inferred > plain + 1.5, (uniform, plain, inferred)


def test_a_seat_that_let_a_trick_go_last_in_hand_seldom_held_a_winner() -> None:
    """Seat 3's queen of clubs wins the trick so far; seat 0 plays last, wants the trick
    and plays the 3: in seat 1's worlds seat 0 seldom holds the king or ace of clubs."""
    state = TARNEEB.new_match(players=4, seed=5)
    rng = random.Random(5)
    while state.phase != "play":
        seat = state.to_act()[0]
        state.apply(seat, rng.choice(state.legal_actions(seat)))
    for k in range(4):
        seat = state.to_act()[0]
        legal = state.legal_actions(seat)
        state.apply(seat, min(legal, key=lambda a: a.card.rank) if k == 3 else rng.choice(legal))
    view = state.view(1)
    trick = [str(e) for e in view.history if e.kind == "trick"][-1]
    assert trick == "seat 3 trick 4C 9C QC 3C"
    winners = mask_of(parse_cards("KC AC"))
    held = [bool(mask_of(w.hands[0]) & winners) for w in _worlds(view, None)]
    inferred = [bool(mask_of(w.hands[0]) & winners) for w in _worlds(view, _evidence(view))]
    assert sum(held) > 60 and sum(inferred) < sum(held) / 2


def test_the_search_bots_draw_by_the_evidence_only_when_inferring() -> None:
    """``pimc`` picks each world among ``pool`` deals with ``read=all``, one deal with
    ``infer=0``; ``ismcts`` builds the evidence only with ``infer=1`` (the kernel path)."""
    from levata.bots.search.ismcts import IsmctsBot
    from levata.bots.search.pimc import PimcBot

    state = TARNEEB.new_match(players=4, seed=5)
    state.apply(3, Action("bid", number=10))
    for seat in (0, 1, 2):
        state.apply(seat, Action("pass"))
    state.apply(3, Action("trump", choice="S"))
    state.apply(3, state.legal_actions(3)[0])  # the declarer leads: seat 0 reads its bid
    seat = state.to_act()[0]
    view, legal = state.view(seat), state.legal_actions(seat)
    for infer, draws in ((1, 4 * 6), (0, 6)):
        bot = PimcBot("tarneeb", seed=1, worlds=6, time_ms=0, infer=infer, pool=4, read="all")
        assert bot.act(view, legal) in legal and bot.last_draws == draws
    for infer in (1, 0):
        searcher = IsmctsBot("tarneeb", seed=1, iterations=64, time_ms=0, infer=infer)
        assert searcher.act(view, legal) in legal
        assert (searcher._drawing is not None) == bool(infer)
        assert searcher.stats.kernel_decisions == 1


def test_pimc_reading_the_plays_alone_reads_no_bid() -> None:
    """Whist with the bids read as counting: at a bid, with three bids made and no play
    seen, ``read=plays`` has no evidence, and draws the worlds ``infer=0`` draws (it once
    fell back on the bids' plausibility there, by rejection: the ablation read the bids);
    ``read=calls`` reads them (more draws than worlds)."""
    from levata.bots.search.pimc import PimcBot

    state = game("whist").new_match(players=4, options={"deal_size": 7}, seed=3)
    for _ in range(3):
        seat = state.to_act()[0]
        state.apply(seat, state.legal_actions(seat)[2])
    seat = state.to_act()[0]
    view, legal = state.view(seat), state.legal_actions(seat)
    searched = {}
    for infer, read in ((0, "none"), (1, "plays"), (1, "calls")):
        bot = PimcBot(
            "whist", seed=1, worlds=12, time_ms=0, min_worlds=12, infer=infer, read=read,
            bidders="counting",
        )  # fmt: skip
        worlds = []
        draw = bot._draw

        def kept(*args, draw=draw, worlds=worlds):
            got = draw(*args)
            if got is not None:
                worlds.append([mask_of(h) for h in got[0].hands])
            return got

        bot._draw = kept  # type: ignore[method-assign]
        bot.act(view, legal)
        searched[read] = (worlds, bot.last_draws)
    assert searched["plays"] == searched["none"] == (searched["none"][0], 12)
    assert searched["calls"][1] > 12
