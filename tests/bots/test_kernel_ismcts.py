"""IS-MCTS of a trick deal's card play in the C kernel (``levata.engine.trick_search``) held
to the games' Python rules, and the ismcts bot's use of it: legal, seeded, replayable, and
the contract path wherever the deal's play does not fit the kernel."""

from __future__ import annotations

import random

import pytest

from levata.bots import make_bot
from levata.bots.search.card_play import card_actions, fits_kernel
from levata.bots.search.double_dummy import kernel_seat, position
from levata.bots.search.ismcts import IsmctsBot
from levata.bots.strategy import strategy_for
from levata.engine import Action, GameState, game
from levata.engine.cards import Card
from levata.engine.family.tricks import TrickGame, trick_taker
from levata.engine.trick_search import TrickSearch

#: Trick games whose card play the kernel searches, at a seat count and options of each.
KERNEL_GAMES = [
    ("whist", 4, {"deal_size": 8}),
    ("whist", 3, {"deal_size": 5, "must_trump": False}),
    ("tarneeb", 4, {}),
    ("three-five-eight", 3, {}),
    ("eight-five-three", 3, {}),
]


def to_card_play(name: str, players: int, options: dict, seed: int) -> TrickGame:
    """A seeded match played by heuristic bots up to its first card play."""
    state = game(name).new_match(players=players, options=options, seed=seed)
    bots = [make_bot("heuristic", name, seed=seed + s) for s in range(players)]
    while not (isinstance(state, TrickGame) and state.plays_out_by_rules()):
        seat = state.to_act()[0]
        state.apply(seat, bots[seat].act(state.view(seat), state.legal_actions(seat)))
    return state


def search_of(world: TrickGame, seed: int = 0) -> TrickSearch:
    """A kernel search of ``world``'s card play from the seat to play, with the world as
    its one world."""
    seat = world.to_act()[0]
    pos = position(world)
    values = strategy_for(world.spec).deal_values(world)
    search = TrickSearch(
        world.rules,
        kernel_seat(world, seat),
        list(world.tricks),
        [0] * world.rules.seats,
        values.by_tricks,
        values.per_point,
        leader=pos.leader,
        trick=pos.trick,
        seed=seed,
    )
    search.add_world(pos.hands)
    return search


@pytest.mark.parametrize(("name", "players", "options"), KERNEL_GAMES)
def test_kernel_play_agrees_with_the_python_rules(name: str, players: int, options: dict) -> None:
    """On seeded deals (and from a trick in progress), every card the kernel's own steps
    play is legal by the game's rules, the kernel allows exactly the cards the game does,
    and each trick goes to the seat the game gives it to."""
    for seed in range(4):
        state = to_card_play(name, players, options, seed)
        for _ in range(seed % players):  # some start in mid-trick
            seat = state.to_act()[0]
            state.apply(seat, state.legal_actions(seat)[0])
        plays, won, _ = search_of(state).trace(seed=seed)
        assert plays, "the deal had cards left to play"
        taken = [0] * players
        for seat, legal, card, taker in plays:
            assert state.to_act() == (seat,)
            assert legal == sum(1 << c.index for c in state.playable(seat))
            played = Card.from_index(card)
            closes = len(state.trick) == players - 1
            assert (taker >= 0) == closes
            if closes:  # the game's own reading of the trick (the deal may be scored after)
                assert trick_taker(state.rules, [*state.current, (seat, played)]) == taker
                taken[taker] += 1
            state.apply(seat, Action("play", card=played))
        assert taken == won


def test_the_kernel_search_is_seeded_and_replayable() -> None:
    world = to_card_play("whist", 4, {"deal_size": 8}, 5)

    def edges(seed: int) -> list:
        search = search_of(world, seed)
        search.run(3000)
        return search.root_edges()

    first = edges(1)
    assert first == edges(1)
    assert first != edges(2)
    legal = {c.index for c in world.playable(world.to_act()[0])}
    assert {card for card, *_ in first} == legal  # every legal card tried, nothing else
    assert sum(visits for _, visits, *_ in first) == 3000


def test_the_search_refuses_worlds_of_another_view() -> None:
    world = to_card_play("whist", 4, {"deal_size": 8}, 2)
    search = search_of(world)
    me = kernel_seat(world, world.to_act()[0])
    hands = position(world).hands
    other = (me + 1) % 4
    mine = hands[me] & -hands[me]  # swap one of this seat's cards with the next seat's
    theirs = hands[other] & -hands[other]
    swapped = list(hands)
    swapped[me] ^= mine | theirs
    swapped[other] ^= mine | theirs
    with pytest.raises(ValueError, match="another hand"):
        search.add_world(swapped)
    with pytest.raises(ValueError, match="shares a card"):
        search.add_world([hands[me]] * 4)


def test_the_bot_searches_card_play_in_the_kernel_and_the_rest_by_the_contract() -> None:
    state = game("whist").new_match(players=4, options={"deal_size": 3}, seed=4)
    bots = [IsmctsBot("whist", seed=s, iterations=80, time_ms=0) for s in range(4)]
    again = IsmctsBot("whist", seed=0, iterations=80, time_ms=0)
    kernel = contract = 0
    while not state.is_over():
        seat = state.to_act()[0]
        legal = state.legal_actions(seat)
        view = state.view(seat)
        before = bots[seat].stats.kernel_decisions
        pick = bots[seat].act(view, legal)
        assert pick in legal
        if len(legal) > 1:
            in_kernel = bots[seat].stats.kernel_decisions > before
            assert in_kernel == (card_actions(legal) is not None)  # bids: the contract path
            kernel += in_kernel
            contract += not in_kernel
            if seat == 0:
                assert again.act(view, legal) == pick  # same seed, same search, same card
        state.apply(seat, pick)
    assert kernel and contract
    assert bots[0].stats.worlds >= bots[0].stats.kernel_decisions


def test_the_kernel_path_keeps_its_budget() -> None:
    state = to_card_play("whist", 4, {"deal_size": 8}, 3)
    bot = IsmctsBot("whist", seed=1, time_ms=30)
    seat = state.to_act()[0]
    bot.act(state.view(seat), state.legal_actions(seat))
    assert bot.stats.kernel_decisions == 1
    assert bot.stats.times[0] < 0.2  # 30 ms asked; a loaded machine may add a little
    assert bot.stats.iterations > bot.stats.worlds  # worlds are searched more than once


def _fits(name: str, players: int, seed: int) -> bool:
    """Whether the first card play of a random match of ``name`` fits the kernel."""
    state: GameState = game(name).new_match(players=players, seed=seed)
    rng = random.Random(seed)
    while not state.is_over():
        seat = state.to_act()[0]
        legal = state.legal_actions(seat)
        cards = card_actions(legal)
        if cards is not None and len(legal) > 1:
            return fits_kernel(state, seat, cards)
        state.apply(seat, rng.choice(legal))
    return False


def test_only_plain_card_play_fits_the_kernel() -> None:
    assert _fits("whist", 4, 1) and _fits("tarneeb", 4, 1)
    assert not _fits("sixty-six", 2, 1)  # its stock and its duties once closed
    assert not _fits("filcau", 4, 1)  # trick 1's own duties


def test_deal_values_read_the_game() -> None:
    """Whist and Tarneeb value a deal by its points; a game without its own values by what
    each seat plays for (3-5-8: its tricks)."""
    whist = to_card_play("whist", 4, {"deal_size": 8}, 1)
    rows = strategy_for(whist.spec).deal_values(whist).by_tricks
    for seat, bid in enumerate(whist.bids):
        assert bid is not None
        assert rows[seat][bid] == 5 + bid and rows[seat][bid + 1] == -1
    tarneeb = to_card_play("tarneeb", 4, {}, 1)
    rows = strategy_for(tarneeb.spec).deal_values(tarneeb).by_tricks
    made = rows[tarneeb.declarer]
    assert made[tarneeb.high] > 0 > made[tarneeb.high - 1]
    quota = to_card_play("three-five-eight", 3, {}, 1)
    assert strategy_for(quota.spec).deal_values(quota).by_tricks[1][:3] == [0.0, 1.0, 2.0]


def test_swaps_keep_worlds_uniform_and_within_the_view() -> None:
    """Seat 1 is void in clubs: of the four unseen cards it may hold three. Starting from
    one deal, the swaps visit the three deals the view allows equally often and never give
    seat 1 the club."""
    from levata.engine.cardmask import mask_of
    from levata.engine.cards import parse_cards
    from levata.engine.rules import TrickRules

    a, b, c, club = (mask_of(parse_cards(x)) for x in ("AS", "KS", "AH", "2C"))
    mine = mask_of(parse_cards("QS QH"))
    search = TrickSearch(TrickRules(3, None), 0, [0] * 3, [0] * 3, [[0, 1, 2]] * 3, seed=7)
    search.add_world([mine, a | b, c | club])
    search.redeal([0, a | b | c, a | b | c | club], 1)
    counts: dict[int, int] = {}
    for _ in range(3000):
        search.run(1)
        hand = search.hands()[1]
        counts[hand] = counts.get(hand, 0) + 1
    assert set(counts) == {a | b, a | c, b | c}
    assert all(abs(n / 3000 - 1 / 3) < 0.05 for n in counts.values())


def test_swaps_of_a_real_view_keep_its_voids_and_cards() -> None:
    """Whist, 4 players, 3 cards (the undealt rest is a place too): after thousands of
    swaps every world of the pool still gives each seat only what the view allows, keeps
    the seat's own hand and the sizes, and deals exactly the unseen cards."""
    state = to_card_play("whist", 4, {"deal_size": 3}, 11)
    rng = random.Random(1)
    while len(state.played) < 4:  # a trick played: perhaps a void shown
        seat = state.to_act()[0]
        state.apply(seat, rng.choice(state.legal_actions(seat)))
    seat = state.to_act()[0]
    view = state.view(seat)
    world = game("whist").world_from_view(view, rng)
    assert isinstance(world, TrickGame)
    sets = type(world).redealt_cards(world.spec, view)
    assert 4 in sets  # the undealt rest
    dealt = 0
    for m in sets.values():
        dealt |= m
    search = search_of(world)
    hands = position(world).hands
    search.redeal([0 if s == seat else sets[s] for s in range(4)], 8, sets[4])
    held = 0
    for h in hands:
        held |= h
    search.add_world(hands, dealt & ~held)  # world 1: the one the swaps move
    search.run(4000)
    after = search.hands(1)
    assert after[seat] == hands[seat]
    assert [h.bit_count() for h in after] == [h.bit_count() for h in [*hands, dealt & ~held]]
    for place, cards in enumerate(after):
        if place != seat:
            assert cards & ~sets[place] == 0
    assert after[4] != dealt & ~held or after[:4] != hands  # it moved


@pytest.mark.parametrize("options", [{"cheap": "greedy"}, {"others": "policy", "swaps": 0}])
def test_the_kernel_options_play_legal_cards(options: dict) -> None:
    state = to_card_play("tarneeb", 4, {}, 6)
    bot = IsmctsBot("tarneeb", seed=3, iterations=500, time_ms=0, **options)
    for _ in range(6):
        seat = state.to_act()[0]
        legal = state.legal_actions(seat)
        pick = bot.act(state.view(seat), legal)
        assert pick in legal
        state.apply(seat, pick)
    assert bot.stats.kernel_decisions >= 1
