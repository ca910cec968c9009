"""Rentz: every scenario of the rules' section 6, the match frame, conformance, positions and
worlds, and the bots' hooks."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from levata.bots import make_bot, play_match
from levata.bots.search.pimc import PimcBot
from levata.bots.strategy import strategy_for
from levata.bots.strategy.rentz import lay_card, pick_values, play_out, trick_card
from levata.engine import Action, BadConfig, Card, Suit, events, game, parse_cards
from levata.engine.family.tricks import trick_taker
from levata.engine.games.rentz import DOMINO, RentzState, rentz_deck
from levata.engine.games.rentz.domino import rows_of, valid_cards
from levata.engine.games.rentz.subgames import (
    QUEENS,
    SUBGAMES,
    TOTALS,
    WHIST,
    PointTable,
    solver_points,
    trick_points,
)
from levata.engine.testing import check_game, check_worlds_from_view, play_checked

SPEC = game("rentz")


def cards(text: str) -> str:
    return " ".join(text.split()) or "-"


def position(  # noqa: PLR0913  (a test's whole table, by keywords)
    hands: dict[int, str],
    *,
    n: int = 4,
    phase: str = "play",
    sub: str | None = "king",
    layout: str = "",
    played: str = "",
    trick: str = "",
    taken: dict[int, str] | None = None,
    first: int = 0,
    leader: int = 0,
    turn: int = -1,
    chosen: list[list[str]] | None = None,
    blind: bool = False,
    finished: tuple[int, ...] = (),
    options: dict | None = None,
) -> RentzState:
    """A match read from a position: the hands given, the rest of the deck in the places
    named (every card must lie somewhere)."""
    opts = SPEC.resolve_options(options)
    taken = taken or {}
    tricks = [len(parse_cards(taken.get(s, ""))) // n for s in range(n)]
    parts = [
        f"rentz/{n}",
        f"options={json.dumps(opts, separators=(',', ':'))}",
        f'phase="{phase}"',
        *(f"hand:{s}={cards(hands.get(s, ''))}" for s in range(n)),
        f"trick={cards(trick)}",
        f"played={cards(played)}",
        "undealt=-",
        f"layout={cards(layout)}",
        *(f"taken:{s}={cards(taken.get(s, ''))}" for s in range(n)),
        "trump_suit=null",
        f"voids={json.dumps([[] for _ in range(n)])}",
        "last_taker=null",
        "deal=1",
        f"first={first}",
        f"leader={leader}",
        f"turn={turn}",
        f"tricks={json.dumps(tricks)}",
        f"game={json.dumps(sub)}",
        f"blind={json.dumps(blind)}",
        f"chosen={json.dumps(chosen or [[] for _ in range(n)], separators=(',', ':'))}",
        f"finished={json.dumps(list(finished))}",
        f"scores={json.dumps([0] * n)}",
    ]
    state = SPEC.from_position("; ".join(parts))
    assert isinstance(state, RentzState)
    return state


def act(state: RentzState, text: str) -> None:
    seat = state.to_act()[0]
    state.apply(seat, Action.parse(text))


def scored(state: RentzState) -> list[dict]:
    return [dict(e.data) for e in state.events() if e.kind == events.SCORE]


# -- §6 scenarios --------------------------------------------------------------------------------


@pytest.mark.parametrize(("n", "low"), [(3, 9), (4, 7), (5, 5), (6, 3)])
def test_scenario_1_deck(n, low):
    deck = rentz_deck(n)
    assert len(deck) == 8 * n and min(c.rank for c in deck) == low
    state = SPEC.new_match(players=n, seed=1)
    assert state.low == low and [len(h) for h in state.hands] == [8] * n
    assert state.deal_count == 8 * n


def test_scenario_1_four_players_have_eight_diamonds():
    assert sum(c.suit == Suit.DIAMONDS for c in rentz_deck(4)) == 8


def test_scenario_2_choice_among_the_unused():
    chosen = [["king", "whist"], [], [], []]
    state = position({}, phase="choose", sub=None, chosen=chosen, played=_all(4))
    picks = [a.choice for a in state.legal_actions(0)]
    assert sorted(picks) == sorted(g for g in SUBGAMES if g not in ("king", "whist"))
    assert state.view(1).facts["open"][0] == picks
    assert state.view(2).facts["chosen"] == chosen


KH_HANDS = {
    0: "7C 8C 9C 7D 8D 9D 7S 8S",
    1: "10C JC QC 10D JD QD 9S 10S",
    2: "KC AC KD AD 7H 8H JS QS",
    3: "AS KS 9H 10H JH QH KH AH",
}


def _kh_deal(deals: int = 0) -> RentzState:
    state = position(KH_HANDS, options={"deals": deals})
    for text in ("7C", "10C", "KC", "9H", "AC", "10H", "8C", "JC", "KD", "KH", "7D", "10D"):
        act(state, f"play {text}")
    return state


def test_scenario_3_king_of_hearts_ends_the_deal():
    state = _kh_deal()
    (record,) = scored(state)
    assert record["game"] == "king" and record["tricks"] == [0, 0, 3, 0]
    assert record["points"] == [0, 0, -200, 0]
    assert state.deal_no == 2 and state.first == 1  # the next deal, F moved on
    assert [len(h) for h in state.hands] == [8, 8, 8, 8] and state.phase == "choose"


def test_scenario_4_totals():
    took = parse_cards("QD QS 9D 7C 8C 10H 7S 8S 9S 10S JS KS")
    assert trick_points(TOTALS, took, 3, PointTable()) == -290
    state = SPEC.new_match(players=4, options={"deal": 5}, seed=9)  # one deal of totals
    play_match(state, [make_bot("random", "rentz", seed=s) for s in range(4)])
    (record,) = scored(state)
    assert record["game"] == TOTALS and sum(record["points"]) == -1000


def test_scenario_5_follow_suit_else_any_card():
    hands = {0: "7S 8S", 1: "AH 7C 9D"}
    state = position(hands, sub=QUEENS, played=_rest(hands, 4), trick="")
    act(state, "play 7S")
    assert sorted(str(a.card) for a in state.legal_actions(1)) == ["7C", "9D", "AH"]
    act(state, "play AH")
    assert state.view(0).facts["voids"]["1"] == ["S"]


def test_scenario_5_a_discard_never_wins():
    rules = SPEC.new_match(players=4, options={"deal": 7}, seed=1).card_rules()
    plays = [(0, Card.parse("7S")), (1, Card.parse("AH")), (2, Card.parse("8S"))]
    assert trick_taker(rules, [*plays, (3, Card.parse("7C"))]) == 2


def test_scenario_6_rentz_validity():
    hands = {0: "9S QS 8S JH QH"}
    state = _domino(hands, layout="10S JS", turn=0)
    assert sorted(str(a.card) for a in state.legal_actions(0)) == ["9S", "JH", "QS"]
    assert state.view(1).facts["rows"] == {"S": [10, 11]}


def test_scenario_7_the_ace_plays_again():
    hands = {0: "AC JD 9H", 1: "9S 8S", 2: "7S 10S", 3: "QS KS"}
    state = _domino(hands, layout="JC QC KC", turn=0)
    act(state, "lay AC")
    assert state.to_act() == (0,)
    assert [str(a.card) for a in state.legal_actions(0)] == ["JD"]


def test_scenario_8_the_lowest_card_skips_the_next_seat():
    hands = {0: "9S", 1: "7H AS", 2: "QH KS", 3: "QS 7D"}
    state = _domino(hands, layout="8H 9H 10H JH JS 10S", turn=1)
    act(state, "lay 7H")
    skips = [e.seat for e in state.events() if e.kind == "skip"]
    assert skips == [2] and state.to_act() == (3,)


def test_scenario_9_places():
    hands = {0: "AH", 1: "AD", 2: "AC", 3: "AS"}
    state = _domino(hands, layout=_all_but("AH AD AC AS", 4), turn=3, full=True)
    for text in ("AS", "AH", "AD"):
        act(state, f"lay {text}")
    (record,) = scored(state)
    assert record["finished"] == [3, 0, 1, 2]
    assert record["points"] == [200, 100, 0, 400]


@pytest.mark.parametrize(
    ("blind", "mode", "want"),
    [
        (True, "optional", [-160, -80, -80, 0]),
        (False, "optional", [-80, -40, -40, 0]),
        (True, "full", [-80, -40, -40, 0]),
    ],
)
def test_scenario_10_blind_doubles(blind, mode, want):
    taken = {
        0: "QS QH 7C 8C 9C 10C JC AC",
        1: "QC 7D 8D 9D 10D JD KD AD",
        2: "QD 7H 8H 9H 10H JH KH AH",
        3: "KC 7S 8S 9S",
    }
    last = {0: "10S", 1: "JS", 2: "KS", 3: "AS"}
    played = " ".join(taken.values())
    state = position(
        last, sub=QUEENS, taken=taken, played=played, blind=blind, options={"blind": mode}
    )
    assert state.view(0).counters["deal_points:0"] == want[0]
    for text in ("10S", "JS", "KS", "AS"):
        act(state, f"play {text}")
    (record,) = scored(state)
    assert record["points"] == want and record["doubled"] == (blind and mode == "optional")


def test_scenario_11_no_leak_after_an_early_end():
    before = [list(h) for h in position(KH_HANDS).hands]
    state = _kh_deal(deals=1)
    assert state.is_over()
    played = set(state.played)
    for seat in range(4):
        told = set(state.view(seat).cards_named())
        for ev in state.events():
            if ev.visible_to(seat):
                told.update(ev.cards)
        for other in range(4):
            if other != seat:
                assert not (told & (set(before[other]) - played)), (seat, other)


# -- blind picks ------------------------------------------------------------------------------


def test_optional_blind_may_look_first_and_full_blind_must_pick_before_the_deal():
    state = SPEC.new_match(players=4, options={"blind": "optional"}, seed=2)
    f = state.to_act()[0]
    assert state.phase == "blind" and not any(state.hands)
    kinds = {a.kind for a in state.legal_actions(f)}
    assert kinds == {"blind", "look"}
    act(state, "look")
    assert state.phase == "choose" and all(len(h) == 8 for h in state.hands)
    full = SPEC.new_match(players=4, options={"blind": "full"}, seed=2)
    assert {a.kind for a in full.legal_actions(full.to_act()[0])} == {"blind"}
    act(full, "blind rentz")
    assert full.phase == DOMINO and full.view(0).facts["blind"] is True


# -- the match ----------------------------------------------------------------------------------


def test_a_whole_match_each_seat_picks_each_sub_game_once():
    state = SPEC.new_match(players=4, seed=11)
    result = play_match(state, [make_bot("random", "rentz", seed=s) for s in range(4)])
    log = scored(state)
    assert len(log) == 32 and all(sorted(c) == sorted(SUBGAMES) for c in state.chosen)
    firsts = Counter(r["first"] for r in log)
    assert firsts == {s: 8 for s in range(4)}
    assert list(result.scores) == [float(t) for t in log[-1]["totals"]]
    assert sum(sum(r["points"]) for r in log) == sum(result.scores)


def test_zero_wins_and_the_highest_total():
    state = SPEC.new_match(players=3, options={"deal": 7}, seed=1)
    state.totals = [0, 50, -20]
    state.over = True
    assert state.result().winners == (0, 1)
    state.options = {**state.options, "zero_wins": False}
    assert state.result().winners == (1,)


def test_options_are_checked():
    with pytest.raises(BadConfig):
        SPEC.new_match(players=4, options={"places": "a/b"}, seed=1)
    with pytest.raises(BadConfig):
        SPEC.new_match(players=4, options={"deal": 2, "deals": 5}, seed=1)
    with pytest.raises(BadConfig):
        SPEC.new_match(players=2, seed=1)


def test_point_table_options():
    state = SPEC.new_match(players=4, options={"deal": 2, "queen": 10}, seed=4)
    play_match(state, [make_bot("random", "rentz", seed=s) for s in range(4)])
    assert sum(scored(state)[0]["points"]) == -40
    assert PointTable.from_options({"places": "300/100"}).place_points(2, 4) == 100


def test_ten_of_clubs_ends_when_taken():
    state = SPEC.new_match(players=4, options={"deal": 6}, seed=3)
    play_match(state, [make_bot("random", "rentz", seed=s) for s in range(4)])
    (record,) = scored(state)
    assert sorted(record["points"]) == [0, 0, 0, 200]
    ten = Card.parse("10C")
    last = [e for e in state.events() if e.kind == events.TRICK][-1]
    assert ten in last.cards


def test_domino_passes_are_public_and_the_sub_game_ends_with_one_holder():
    state = SPEC.new_match(players=5, options={"deal": 8}, seed=6)
    play_match(state, [make_bot("heuristic", "rentz", seed=s) for s in range(5)])
    (record,) = scored(state)
    assert sorted(record["finished"]) == list(range(5))
    assert sorted(record["points"]) == [0, 25, 50, 100, 200] or sorted(record["points"]) == [
        0,
        50,
        100,
        200,
        400,
    ]
    passes = [e for e in state.events() if e.kind == events.PASS]
    assert passes and all(e.audience is None for e in passes)


# -- conformance, positions, worlds ----------------------------------------------------------


def test_conformance_checks_pass():
    report = check_game(SPEC, matches=12, checked=3)
    assert report.skipped == ()


@pytest.mark.parametrize("i", range(2))
def test_every_step_checked(i):
    play_checked(SPEC, i, seed=800 + i, sample_every=3)


def test_worlds_keep_what_each_seat_knows():
    phases = check_worlds_from_view(SPEC, matches=4, seed=5, every=5)
    for phase in ("choose", "play", "domino"):
        assert phases[phase] > 0


def test_blind_worlds_hold_the_deck_face_down():
    state = SPEC.new_match(players=4, options={"blind": "full"}, seed=3)
    view = state.view(2)
    world = SPEC.world_from_view(view, random.Random(1))
    assert world.view(2) == view and sorted(world.undealt) == sorted(state.deck)


def test_a_domino_world_honours_the_passes():
    state = SPEC.new_match(players=4, options={"deal": 8}, seed=12)
    bots = [make_bot("heuristic", "rentz", seed=s) for s in range(4)]
    rng = random.Random(3)
    checked = 0
    while not state.is_over():
        seat = state.to_act()[0]
        view = state.view(seat)
        lacks = _lacks(state)
        for _ in range(3):
            world = SPEC.world_from_view(view, rng)
            assert world.calls(world.to_act()[0])  # the seat on turn can lay
            for t, gone in lacks.items():
                assert not (set(world.hands[t]) & gone), (t, gone)
            checked += 1
        state.apply(seat, bots[seat].act(view, state.legal_actions(seat)))
    assert checked > 5


def test_positions_round_trip_mid_domino():
    state = SPEC.new_match(players=4, options={"deal": 8}, seed=2)
    for _ in range(5):
        act(state, str(state.legal_actions(state.to_act()[0])[0]))
    again = SPEC.from_position(state.position())
    assert again.position() == state.position()
    assert again.legal_actions(again.to_act()[0]) == state.legal_actions(state.to_act()[0])


# -- bots ---------------------------------------------------------------------------------------


def test_the_search_goal_takes_or_rates_by_playouts():
    state = position(KH_HANDS)
    assert not state.rules.points  # avoided: the solver has nothing to count
    whist = position(KH_HANDS, sub=WHIST)
    goal = strategy_for(SPEC).goal(whist, 1)
    assert goal.kind == "points" and goal.seats == (1,) and whist.rules.points
    pts = solver_points(TOTALS, PointTable(), rentz_deck(4), 4)
    assert sum(pts.values()) == 4 * 1000  # N times the deal's points
    rated = strategy_for(SPEC).rate_cards(state, 0)
    assert sorted(rated) == sorted(c.index for c in state.playable(0))


def test_policy_ducks_dumps_and_blocks():
    assert str(trick_card(QUEENS, parse_cards("9S KS"), parse_cards("10S"), [], 4)) == "9S"
    assert str(trick_card("king", parse_cards("KH 7C"), parse_cards("10S"), [], 4)) == "KH"
    assert str(trick_card(WHIST, parse_cards("9S KS AS"), parse_cards("10S QS JS"), [], 4)) == "KS"
    hand = parse_cards("AS KS 9H")
    assert str(lay_card(parse_cards("AS 9H"), hand, {Suit.SPADES: (9, 13)}, 7)) == "AS"
    strong = parse_cards("AS KS QS AH KH AD KD AC")
    weak = parse_cards("7S 8S 7H 8H 9H 7D 8D 7C")
    v_strong = pick_values(strong, SUBGAMES, 4, 7, PointTable())
    v_weak = pick_values(weak, SUBGAMES, 4, 7, PointTable())
    assert v_strong[WHIST] > v_weak[WHIST] and v_weak["tricks"] > v_strong["tricks"]


def test_playouts_add_up():
    state = SPEC.new_match(players=4, options={"deal": 5}, seed=3)
    act(state, "choose totals")
    got = play_out(state, random.Random(1))
    assert sum(got) == -1000


def test_ismcts_plays_from_worlds_of_every_phase():
    state = SPEC.new_match(players=3, options={"deals": 2, "blind": "optional"}, seed=8)
    bots = [make_bot("ismcts", "rentz", seed=0, iterations=8, time_ms=0)] + [
        make_bot("heuristic", "rentz", seed=s) for s in (1, 2)
    ]
    assert play_match(state, bots).reason == "complete"


def test_pimc_plays_a_short_match():
    state = SPEC.new_match(players=3, options={"deals": 2}, seed=5)
    bots = [PimcBot("rentz", seed=0, worlds=3, time_ms=0)] + [
        make_bot("heuristic", "rentz", seed=s) for s in (1, 2)
    ]
    assert play_match(state, bots).reason == "complete"


# -- helpers ------------------------------------------------------------------------------------


def _all(n: int) -> str:
    return " ".join(str(c) for c in rentz_deck(n))


def _all_but(text: str, n: int) -> str:
    out = set(parse_cards(text))
    return " ".join(str(c) for c in rentz_deck(n) if c not in out)


def _rest(hands: dict[int, str], n: int) -> str:
    held = " ".join(hands.values())
    return _all_but(held, n)


def _domino(hands: dict[int, str], *, layout: str, turn: int, full: bool = False) -> RentzState:
    """A domino position: ``hands`` and ``layout`` as given, the rest of the deck dealt to
    seat 3 (or, with ``full``, the hands and layout already hold the deck)."""
    hands = dict(hands)
    if not full:
        spare = _all_but(" ".join(hands.values()) + " " + layout, 4)
        owner = next(s for s in range(4) if s not in hands) if len(hands) < 4 else None
        if owner is None:
            return position(
                hands, phase=DOMINO, sub="rentz", layout=layout, turn=turn, played=spare
            )
        hands[owner] = spare
    return position(hands, phase=DOMINO, sub="rentz", layout=layout, turn=turn)


def _lacks(state: RentzState) -> dict[int, set[Card]]:
    """Per seat, the cards it showed it does not hold by passing (those valid then)."""
    laid: list[Card] = []
    out: dict[int, set[Card]] = {}
    start = max(i for i, e in enumerate(state.events()) if e.kind == events.HAND)
    for ev in state.events()[start:]:
        if ev.kind == "lay":
            laid.append(ev.cards[0])
        elif ev.kind == events.PASS and ev.seat is not None:
            rest = [c for c in state.deck if c not in laid]
            out.setdefault(ev.seat, set()).update(valid_cards(rest, rows_of(laid), state.low))
    return {t: {c for c in cs if c not in state.layout} for t, cs in out.items()}


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ('game="king"', 'game="chess"'),
        ('chosen=[["king"],[],[],[]]', 'chosen=[["king","king"],[],[],[]]'),
        ('phase="play"', 'phase="domino"'),
    ],
)
def test_a_position_that_does_not_fit_is_refused(change, words):
    state = position(KH_HANDS, chosen=[["king"], [], [], []])
    text = state.position()
    assert change in text
    with pytest.raises(BadConfig, match="position"):
        SPEC.from_position(text.replace(change, words))
