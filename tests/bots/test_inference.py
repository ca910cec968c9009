"""Inference in sampling (``levata.bots.inference``, ``Strategy.evidence``): worlds drawn in
proportion to how likely the other seats' bids and plays are under the model of their play
shift the cards the expected way."""

from __future__ import annotations

import random
from collections.abc import Callable

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


def test_at_a_table_of_heuristic_players_the_real_hands_meet_no_play_clue() -> None:
    """Whist's heuristic players keep the rule of the trick the plays are read by (a seat
    short of its bid wins when it can, one that made it loses when it can), so at every
    decision of every seat the real hands are as likely as a deal can be (1.0): a clue on a
    card a seat held then but not now, on the wrong seat, or on a play that kept the rule
    would lower them. Many clues are read all the same (plays that showed a seat held no
    winner, or no loser)."""
    from levata.bots.base import make_bot

    spec = game("whist")
    strategy = strategy_for(spec)
    read = 0
    for deal in range(12):
        state = spec.new_match(players=4, options={"deal_size": 7}, seed=100 + deal)
        bots = [make_bot("heuristic", "whist", seat) for seat in range(4)]
        for _ in range(4 + 28):
            seat = state.to_act()[0]
            view = state.view(seat)
            like = strategy.evidence(view, state, plays=True, calls=False)
            if like is not None:
                read += len(like.clues)
                real = [mask_of(h) if s != seat else 0 for s, h in enumerate(state.hands)]
                assert like(real) == 1.0, (deal, seat, like.clues)
            state.apply(seat, bots[seat].act(view, state.legal_actions(seat)))
    assert read > 200


def _rule_likelihood(state, viewer: int, plays: list) -> Callable:
    """The plays' likelihood re-stated from scratch (the reference of the test below): each
    play another seat made to the led suit against the rule of the trick costs its factor
    in a world where that seat held then (its hand now and what it played since) a card that
    would have kept the rule."""
    from levata.bots import inference
    from levata.engine.family.tricks import beats, power, suit_of

    rules = state.rules
    terms = []
    for k, (seat, card, before, want, last) in enumerate(plays):
        if seat == viewer or not before or want is None:
            continue
        led = suit_of(rules, before[0])
        if suit_of(rules, card) != led:
            continue
        best = before[0]
        for c in before[1:]:
            if beats(rules, c, best):
                best = c
        won = beats(rules, card, best)
        suit = [c for c in state.deck if suit_of(rules, c) == led]
        winners = [c for c in suit if beats(rules, c, best)]
        if want and not won:
            kept, factor = winners, inference.MISS_LAST if last else inference.MISS
        elif want and last:
            cheaper = [c for c in winners if power(rules, c) < power(rules, card)]
            kept, factor = cheaper, inference.DEARER
        elif not want and won:
            kept, factor = [c for c in suit if c not in winners], inference.SPARE
        else:
            continue
        cards = mask_of(kept)
        since = mask_of(c for s, c, *_ in plays[k + 1 :] if s == seat)
        terms.append((seat, cards, since, factor))

    def likelihood(hands) -> float:
        w = 1.0
        for seat, cards, since, factor in terms:
            if (hands[seat] | since) & cards:
                w *= factor
        return w

    likelihood.terms = terms  # type: ignore[attr-defined]
    return likelihood


def test_the_play_clues_weigh_worlds_as_the_rule_of_the_trick_read_from_scratch() -> None:
    """At a table of random players (who break the rule all the time), at decisions through
    the deal, the clues' likelihood of worlds of the view is the reference's up to one
    factor shared by every world (clues on cards a seat held for sure are no evidence)."""
    from levata.bots.base import make_bot
    from levata.engine.family.tricks import trick_taker

    spec = game("whist")
    strategy = strategy_for(spec)
    checked = 0
    for deal in range(6):
        state = spec.new_match(players=4, options={"deal_size": 7}, seed=200 + deal)
        bots = [make_bot("random", "whist", 10 * deal + s) for s in range(4)]
        plays: list = []
        taken, trick, who = [0] * 4, [], []
        rng = random.Random(deal)
        for step in range(4 + 28):
            seat = state.to_act()[0]
            view = state.view(seat)
            if step % 3 == 0 and plays:
                like = strategy.evidence(view, state, plays=True, calls=False)
                ref = _rule_likelihood(state, seat, plays)
                ratios = set()
                for _ in range(25):
                    world = spec.world_from_view(view, rng)
                    hands = [mask_of(h) for h in world.hands]
                    got = 1.0 if like is None else like(hands)
                    ratios.add(round(got / ref(hands), 9))
                assert len(ratios) == 1, (deal, step, ratios, like and like.clues, ref.terms)
                checked += 1
            action = bots[seat].act(view, state.legal_actions(seat))
            if action.kind == "play":
                want = strategy.wants_trick(state, seat, taken, None)
                plays.append((seat, action.card, list(trick), want, len(trick) == 3))
                trick.append(action.card)
                who.append(seat)
            state.apply(seat, action)
            if len(trick) == 4:
                taken[trick_taker(state.rules, list(zip(who, trick, strict=True)))] += 1
                trick, who = [], []
    assert checked > 50
