"""Kemps: every scenario of the rules, the convention and the signals' audit, real time, the
no-leak checks on cards and on the teams' secrets, positions, worlds and the bots."""

from __future__ import annotations

import dataclasses
import doctest
import random

import pytest

import levata.bots.heuristic.kemps as heuristic_module
import levata.engine.games.kemps as kemps_module
import levata.engine.games.kemps.policy as policy_module
import levata.engine.games.kemps.rules as rules_module
from levata.bots import make_bot, play_match
from levata.bots.heuristic.kemps import HeuristicBot, SilentBot, convention
from levata.engine import Action, BadConfig, Card, IllegalAction, game, parse_cards
from levata.engine.games.kemps import PASS, SPEC, KempsState
from levata.engine.games.kemps.rules import mask_of, swap
from levata.engine.testing import (
    ConformanceError,
    LeakWatch,
    check_game,
    check_position,
    check_world_from_view,
    random_steps,
)

HANDS = ["2S 3S 4S 5S", "7S 7H 7D 7C", "8S 8H 9D 9C", "JS QS KS AS"]


def exchange(hands=HANDS, table="2H 3H 4H 5H", **kw) -> KempsState:
    return KempsState.from_position(len(hands), hands, table=table, **kw)


def tick(state: KempsState, moves: dict[int, str]) -> None:
    """One tick: the named seats' actions, every other seat passes."""
    for seat in range(state.players):
        state.apply(seat, Action.parse(moves.get(seat, "pass")))


def kinds(state: KempsState, since: int = 0) -> list[str]:
    return [e.kind for e in state.events()[since:]]


# -- §7 scenarios ---------------------------------------------------------------------------------


def test_1_swap_conflict_goes_to_the_first_in_priority():
    state = exchange(tick=1)
    assert state.priority() == [1, 2, 3, 0]
    stock = len(state.stock)
    tick(state, {0: "swap 2S@3", 2: "swap 8S@3"})
    assert Card.parse("5H") in state.hands[2] and state.slots[3] == Card.parse("8S")
    assert state.hands[0] == parse_cards("2S 3S 4S 5S")
    failed = [e for e in state.events() if e.kind == "swap_failed"]
    assert [(e.seat, e.audience) for e in failed] == [(0, None)]  # public, the seat only
    assert "flush" not in kinds(state) and len(state.stock) == stock


def test_2_everyone_passing_flushes_the_table():
    state = exchange()
    stock, top = len(state.stock), state.stock[:4]
    tick(state, {})
    assert state.dead == parse_cards("2H 3H 4H 5H") and state.slots == top
    assert len(state.stock) == stock - 4


def test_3_exhaustion_last_call_then_a_new_deal_with_new_secrets():
    state = exchange()
    while state.phase == "exchange":
        tick(state, {})
    assert state.phase == "last_call" and not state.stock
    assert state.legal_actions(0) == [PASS, Action("kemps"), Action("contrakemps", number=1)]
    secrets = list(state.secrets)
    tick(state, {})
    assert state.penalties == [0, 0] and state.phase == "convene" and state.deal_no == 2
    assert all(a != b for a, b in zip(secrets, state.secrets, strict=True))


def test_4_correct_kemps_reveals_the_partner_and_penalises_the_others():
    state = exchange()
    tick(state, {3: "kemps"})
    revealed = [e for e in state.events() if e.kind == "revealed"]
    assert [(e.seat, e.audience, e.cards) for e in revealed] == [
        (1, None, tuple(parse_cards("7S 7H 7D 7C")))
    ]
    assert state.penalties == [1, 0] and state.phase == "convene"


def test_5_wrong_kemps_checks_the_partner_only():
    state = exchange(hands=["2S 3S 4S 5S", "8S 8H 9D 9C", "JS QS KS AS", "7S 7H 7D 7C"])
    tick(state, {3: "kemps"})  # seat 3 holds the quad, its partner does not
    assert state.penalties == [0, 1]


@pytest.mark.parametrize(
    ("hands", "penalties"),
    [
        (["2S 3S 4S 5S", "8S 8H 9D 9C", "JS KS AS 6S", "QS QH QD QC"], [0, 1]),
        (["2S 3S 4S 5S", "8S 8H 9D 9C", "JS KS AS 6S", "QS QH QD 6C"], [1, 0]),
    ],
)
def test_6_contrakemps_checks_both_members(hands, penalties):
    state = exchange(hands=hands)
    tick(state, {0: "contrakemps 1"})
    assert [e.seat for e in state.events() if e.kind == "revealed"] == [1, 3]
    assert state.penalties == penalties


def test_7_a_call_is_judged_on_the_tick_start_hands():
    state = exchange(
        hands=["2S 3S 4S 5S", "7S 7H 7D 2C", "8S 8H 9D 9C", "JS QS KS AS"], table="7C 3H 4H 5H"
    )
    tick(state, {1: "swap 2C@0", 3: "kemps"})
    assert state.penalties == [0, 1]
    assert "swapped" not in kinds(state)  # the swap is void


def test_8_a_call_beats_a_swap_in_the_same_tick():
    state = exchange(tick=1)  # seat 1 holds the four sevens
    tick(state, {0: "contrakemps 1", 1: "swap 7S@0"})
    assert state.penalties == [0, 1] and "swapped" not in kinds(state)


def test_9_every_seat_sees_every_signal_and_no_one_else_the_secret():
    state = exchange(tick=5, kemps_sets=[["G1"], ["G2"]])
    tick(state, {1: "pass signal=G7"})
    signal = [e for e in state.events() if e.kind == "signal"]
    assert [(e.seat, e.data["token"], e.data["tick"], e.audience) for e in signal] == [
        (1, "G7", 5, None)
    ]
    for seat in range(4):
        view = state.view(seat)
        assert view.counters["tick"] == 6 and view.facts["signals"] == [[1, "G7"]]
        mine = seat in (1, 3)
        assert (view.facts["team_secret"] == state.secrets[1]) == mine
        assert (view.facts["kemps_set"] == ["G2"]) == mine
        assert state.secrets[1 - seat % 2] not in str(view)


def test_10_the_audit_loses_the_game_for_a_kemps_token_without_a_quad():
    decoy = exchange(kemps_sets=[[], ["G7"]])
    tick(decoy, {1: "pass signal=G7", 3: "pass signal=G3"})  # seat 1 holds a quad; G3 a decoy
    assert not decoy.is_over()
    state = exchange(kemps_sets=[[], ["G7"]])
    tick(state, {3: "pass signal=G7"})
    assert state.is_over() and state.reason == "signal_violation"
    assert state.result().ranks == (1, 3, 1, 3)
    end = state.events()[-1]
    assert end.kind == "end" and end.data["kemps_sets"] == [[], ["G7"]]  # published at the end


def test_10_a_seat_that_completes_a_quad_signals_from_the_next_tick():
    state = exchange(
        hands=["2S 3S 4S 5S", "7S 7H 7D 2C", "8S 8H 9D 9C", "JS QS KS AS"],
        table="7C 3H 4H 5H",
        kemps_sets=[[], ["G7"]],
    )
    tick(state, {1: "swap 2C@0 signal=G7"})
    assert state.reason == "signal_violation"
    state = exchange(
        hands=["2S 3S 4S 5S", "7S 7H 7D 2C", "8S 8H 9D 9C", "JS QS KS AS"],
        table="7C 3H 4H 5H",
        kemps_sets=[[], ["G7"]],
    )
    tick(state, {1: "swap 2C@0"})
    tick(state, {1: "pass signal=G7"})
    assert not state.is_over()


def test_10_the_audit_is_an_option():
    state = exchange(kemps_sets=[[], ["G7"]], options={"signal_audit": False})
    tick(state, {3: "pass signal=G7"})
    assert not state.is_over()


def test_11_five_penalties_end_the_game():
    state = exchange(penalties=[2, 4])
    tick(state, {3: "kemps"})  # right: team 0 takes its third
    tick_deal = state.deal_no
    assert not state.is_over() and tick_deal == 2
    state = exchange(penalties=[2, 4])
    tick(state, {2: "kemps"})  # wrong: seat 2's partner, seat 0, holds no quad
    assert state.penalties == [3, 4] and not state.is_over()
    state = exchange(penalties=[4, 2])
    tick(state, {3: "kemps"})
    assert state.is_over() and state.reason == "complete"
    result = state.result()
    assert result.ranks == (3, 1, 3, 1) and result.winners == (1, 3)


def test_12_no_leak_of_cards_or_secrets_in_random_matches():
    for seed, players in ((1, 4), (2, 6)):
        state = SPEC.new_match(players=players, seed=seed, options={"max_deals": 2})
        watch = LeakWatch(state)
        rng = random.Random(seed)
        for _ in random_steps(state, rng):
            watch.observe()
            if state.phase == "exchange":
                for seat in range(players):
                    view = state.view(seat)
                    assert list(view.hand) == state.hands[seat] and len(view.hand) == 4
                    holders = [
                        s
                        for s in range(players)
                        if view.facts["team_secret"] == state.secrets[s % (players // 2)]
                    ]
                    assert holders == [] or seat % (players // 2) == holders[0] % (players // 2)
        watch.close()


def test_12_the_leak_check_catches_a_secret_in_a_view(monkeypatch):
    state = exchange()
    watch = LeakWatch(state)
    real = KempsState.view

    def leaky(self, seat, history=True):
        view = real(self, seat, history)
        return dataclasses.replace(view, facts={**view.facts, "oops": self.secrets[1]})

    monkeypatch.setattr(KempsState, "view", leaky)
    with pytest.raises(ConformanceError, match="secret"):
        watch.observe()


def test_12_the_leak_check_catches_a_secret_in_an_event():
    state = exchange(kemps_sets=[["G1"], ["G2", "G5"]])
    watch = LeakWatch(state)
    with pytest.raises(ConformanceError, match="secret"):
        state._emit("oops", kemps=["G2", "G5"])  # team 1's set, told to every seat
    watch.close()


def test_no_view_shows_whether_anyone_holds_a_quad():
    quad = exchange(hands=["2S 3S 4S 5S", "7S 7H 7D 7C", "8S 8H 9D 9C", "JS QS KS AS"])
    plain = exchange(hands=["2S 3S 4S 5S", "7S 7H 7D 6C", "8S 8H 9D 9C", "JS QS KS AS"])
    for seat in (0, 2, 3):  # every seat but the holder: 7C or 6C lies unseen in the stock
        a, b = quad.view(seat), plain.view(seat)
        assert dataclasses.replace(a, facts={}) == dataclasses.replace(b, facts={})
        drop = ("team_secret",)
        assert {k: v for k, v in a.facts.items() if k not in drop} == {
            k: v for k, v in b.facts.items() if k not in drop
        }


# -- the convention ---------------------------------------------------------------------------


def test_the_convention_is_registered_as_a_union_told_to_the_team_only():
    state = SPEC.new_match(players=4, seed=1)
    assert state.phase == "convene" and state.legal_actions(0) == [Action("register")]
    state.apply(0, Action("register").with_payload(kemps=mask_of(["G3"])))
    state.apply(1, Action("register").with_payload(kemps=mask_of(["G9"])))
    state.apply(2, Action("register").with_payload(kemps=mask_of(["G3", "G4"])))
    state.apply(3, Action("register"))  # nothing, as a member who times out [D15]
    assert state.phase == "exchange"
    told = {
        e.data["team"]: (e.audience, e.data["kemps"])
        for e in state.events()
        if e.kind == "registered"
    }
    assert told == {0: (frozenset({0, 2}), ["G3", "G4"]), 1: (frozenset({1, 3}), ["G9"])}
    assert state.view(2).facts["kemps_set"] == ["G3", "G4"]
    assert all(len(h) == 4 for h in state.hands) and len(state.slots) == 4


def test_the_convention_payloads_are_checked():
    state = SPEC.new_match(players=4, seed=1)
    for bad in ("register kemps=0", "register kemps=65536", "register signal=G1", "pass"):
        with pytest.raises(IllegalAction):
            state.apply(0, Action.parse(bad))


def test_convention_chat_reaches_the_partner_only():
    state = SPEC.new_match(players=4, seed=1, options={"convention_chat": True})
    assert state.phase == "chat"
    with pytest.raises(IllegalAction):
        state.apply(0, Action.parse("chat text=" + "x" * 257))
    state.apply(0, Action.parse("chat text=odd-means-G5"))
    for seat in (1, 2, 3):
        state.apply(seat, Action("chat"))
    (chat,) = [e for e in state.events() if e.kind == "chat"]
    assert chat.audience == frozenset({0, 2}) and state.view(2).facts["chat"] == "odd-means-G5"
    assert state.view(1).facts["chat"] == "" and state.phase == "convene"
    assert ("odd-means-G5", frozenset({0, 2})) in state.secrets_of()


# -- signals ride as a payload ----------------------------------------------------------------


def test_signals_are_a_payload_beside_the_choice_never_a_list():
    state = exchange()
    legal = state.legal_actions(0)
    assert len(legal) == 1 + 16 + 2 and all(not a.payload for a in legal)
    assert state.payload_schema(0, swap(Card.parse("2S"), 1)) == {"signal": rules_module.ALPHABET}
    for bad in ("pass signal=G16", "pass colour=red", "swap 2S@1 expect=2H"):
        with pytest.raises(IllegalAction):
            state.apply(0, Action.parse(bad))
    state.apply(0, Action.parse("swap 2S@1 signal=G4"))


def test_three_teams_name_their_target_and_a_right_kemps_hits_every_other_team():
    hands = [
        "2S 3S 4S 5S",
        "7S 7H 7D 7C",
        "8S 8H 9D 9C",
        "JS QS KS AS",
        "10S 10H 6D 6C",
        "2D 3D 4D 5D",
    ]
    state = exchange(hands=hands)
    assert [str(a) for a in state.legal_actions(0)[-3:]] == [
        "kemps",
        "contrakemps 1",
        "contrakemps 2",
    ]
    tick(state, {4: "kemps"})  # seat 4's partner is seat 1
    assert state.penalties == [1, 0, 1]


def test_two_teams_at_five_at_once_share_last_place():
    hands = [
        "2S 3S 4S 5S",
        "7S 7H 7D 7C",
        "8S 8H 9D 9C",
        "JS QS KS AS",
        "10S 10H 6D 6C",
        "2D 3D 4D 5D",
    ]
    state = exchange(hands=hands, penalties=[4, 0, 4])
    tick(state, {4: "kemps"})
    assert state.is_over() and state.result().ranks == (3, 1, 3, 3, 1, 3)


def test_two_decks_from_ten_players_keep_the_slots_in_place():
    state = SPEC.new_match(players=10, seed=4)
    assert len(state.deck()) == 104 and state.copies
    state = KempsState.from_position(
        10,
        [
            "2S 3S 4S 5S",
            "6S 7S 8S 9S",
            "10S JS QS KS",
            "AS 2H 3H 4H",
            "5H 6H 7H 8H",
            "9H 10H JH QH",
            "KH AH 2D 3D",
            "4D 5D 6D 7D",
            "8D 9D 10D JD",
            "QD KD AD 2C",
        ],
        table="3C 4C 3C 5C",
    )
    tick(state, {0: "swap 2S@2"})
    assert state.slots == parse_cards("3C 4C 2S 5C") and Card.parse("3C") in state.hands[0]


def test_sixty_ticks_on_one_table_force_a_flush():
    state = exchange(
        hands=["2S 3S 4S 5S", "7S 7H 7D 6C", "8S 8H 9D 9C", "JS QS KS AS"], table="7C 3H 4H 5H"
    )
    for k in range(60):
        tick(state, {1: "swap 6C@0" if k % 2 == 0 else "swap 7C@0"})
    assert kinds(state).count("flush") == 1 and state.set_ticks == 0


def test_the_deal_cap_ends_the_game_with_the_fewest_penalties_first():
    state = exchange(penalties=[1, 0], options={"max_deals": 1})
    while not state.is_over():
        tick(state, {})
    assert state.reason == "cap" and state.result().ranks == (3, 1, 3, 1)


def test_options_and_players_are_checked():
    for players in (3, 5, 14):
        with pytest.raises(BadConfig):
            SPEC.new_match(players=players)
    with pytest.raises(BadConfig):
        SPEC.new_match(players=4, options={"mode": "fast"})


# -- real time --------------------------------------------------------------------------------


def realtime(**kw) -> KempsState:
    options = {"mode": "realtime", "quiet_ms": 1000, **kw.pop("options", {})}
    return exchange(options=options, **kw)


def test_realtime_a_swap_fails_when_the_slot_changed():
    state = realtime()
    state.advance_clock(10)
    state.apply(0, Action.parse("swap 2S@0 expect=2H"))
    state.apply(2, Action.parse("swap 8S@0 expect=2H"))  # 2H is gone: first to touch won
    assert state.slots[0] == Card.parse("2S") and state.hands[2][0] == Card.parse("8S")
    assert kinds(state)[-1] == "swap_failed"


def test_realtime_ready_flushes_and_a_swap_cancels_ready():
    state = realtime()
    for seat in (0, 1, 2):
        state.apply(seat, PASS)
    state.apply(3, Action.parse("swap JS@1"))  # cancels every ready flag
    for seat in (0, 1, 2):
        state.apply(seat, PASS)
    assert "flush" not in kinds(state)
    state.apply(3, PASS)
    assert kinds(state)[-2:] == ["flush", "table"]


def test_realtime_quiet_table_flushes_and_the_last_call_times_out():
    state = realtime()
    state.advance_clock(999)
    assert "flush" not in kinds(state)
    state.advance_clock(1000)
    assert kinds(state)[-2:] == ["flush", "table"]
    state.advance_clock(9000)  # eight more flushes empty the stock: the last call
    assert state.phase == "last_call" and not state.stock
    state.advance_clock(10_500)  # it lasted quiet_ms: no penalty, the next convention
    assert state.phase == "convene" and state.deal_no == 2 and state.penalties == [0, 0]


def test_realtime_calls_and_the_audit_are_judged_on_arrival():
    state = realtime(kemps_sets=[[], ["G7"]])
    state.apply(1, Action.parse("pass signal=G7"))  # seat 1 holds the quad: fine
    state.apply(3, Action.parse("kemps"))
    assert state.penalties == [1, 0]
    state = realtime(kemps_sets=[[], ["G7"]])
    state.apply(3, Action.parse("pass signal=G7"))
    assert state.reason == "signal_violation"


def test_realtime_convention_closes_when_all_registered_or_after_quiet_ms():
    state = SPEC.new_match(players=4, seed=2, options={"mode": "realtime", "quiet_ms": 500})
    state.apply(0, Action("register").with_payload(kemps=1))
    assert state.to_act() == (1, 2, 3)
    state.advance_clock(500)
    assert state.phase == "exchange" and state.kemps_sets == [1, 0]


# -- conformance, positions, worlds ----------------------------------------------------------------


def test_conformance():
    report = check_game(SPEC, matches=30, checked=4)
    assert report.skipped == ()


def test_positions_round_trip_mid_deal_and_at_the_convention():
    rng = random.Random(5)
    for mode in ("tick", "realtime"):
        state = SPEC.new_match(players=6, seed=3, options={"mode": mode, "max_deals": 3})
        check_position(state, rng)
        for step, _ in enumerate(random_steps(state, rng)):
            if step % 9 == 0 and not state.is_over():
                check_position(state, rng, moves=20)


def test_worlds_rebuilt_from_a_view_keep_the_seen_cards_and_the_own_secrets():
    state = exchange(kemps_sets=[["G1"], ["G2"]])
    tick(state, {0: "swap 2S@0"})  # seat 0 takes 2H in public
    world = check_world_from_view(state, 2, random.Random(1), moves=10)
    assert Card.parse("2H") in world.hands[0]
    assert world.secrets[0] == state.secrets[0] and world.secrets[1] != state.secrets[1]
    assert world.kemps_sets == [mask_of(["G1"]), 0]


# -- bots ---------------------------------------------------------------------------------------


def test_partners_derive_one_convention_and_register_it():
    state = SPEC.new_match(players=4, seed=9)
    bots = [HeuristicBot(seed=s) for s in range(4)]
    for seat in range(4):
        state.apply(seat, bots[seat].act(state.view(seat), state.legal_actions(seat)))
    for team in (0, 1):
        token, _ = convention(state.secrets[team])
        assert rules_module.tokens_of(state.kemps_sets[team]) == [token]


def test_the_holder_signals_when_its_partner_calls_first_and_the_partner_calls():
    state = exchange(kemps_sets=[[], []], tick=0)
    token, _ = convention(state.secrets[1])
    state.kemps_sets[1] = mask_of([token])
    bots = [HeuristicBot(seed=s) for s in range(4)]
    # Tick 0: next priority is 1, 2, 3, 0: seat 3 comes after seat 2, so seat 1 waits.
    first = bots[1].act(state.view(1), state.legal_actions(1))
    assert first == PASS
    tick(state, {})
    second = bots[1].act(state.view(1), state.legal_actions(1))  # next: 2, 3, 0, 1: wait
    assert second == PASS
    tick(state, {})
    third = bots[1].act(state.view(1), state.legal_actions(1))  # next: 3, 0, 1, 2
    assert third == PASS.with_payload(signal=token)
    tick(state, {1: str(third)})
    assert bots[3].act(state.view(3), state.legal_actions(3)) == Action("kemps")


def test_the_heuristic_calls_contrakemps_on_a_fresh_token_from_a_collector():
    state = exchange(
        hands=["2S 3S 4S 5S", "7S 7H 6D 6C", "8S 8H 9D 9C", "JS QS KS AS"], table="7D 3H 4H 5H"
    )
    tick(state, {1: "swap 6D@0"})  # seat 1 is seen with 7D
    state.known[1].append(Card.parse("7H"))  # and with 7H (taken earlier)
    tick(state, {1: "pass signal=G9"})
    bot = HeuristicBot(seed=1)
    assert bot.act(state.view(0), state.legal_actions(0)).without_payload() == Action(
        "contrakemps", number=1
    )


COLLECTOR = ["2S 3S 4S 5S", "7S 7H 2D 3C", "8S 8H 9D 9C", "JS QS KS AS"]


def collector(known: str = "7S") -> KempsState:
    """Seat 1 was seen taking ``known`` and would take the 7C of slot 0 next."""
    state = exchange(hands=COLLECTOR, table="7C 3H 4H 5H")
    state.known[1] = parse_cards(known)
    return state


def decoy_seed() -> int:
    """A seed whose stream shows a decoy at its first draw."""
    return next(s for s in range(100) if random.Random(s).random() < policy_module.DECOY_RATE)


def test_a_decoy_shown_before_the_swap_that_shows_a_collector_draws_a_wrong_contrakemps():
    """The old rule, decided on the cards seen before the tick's swap: seat 1 shows a decoy
    with the swap that makes it seen taking two sevens, and the next tick seat 0 reads the
    decoy as its kemps token, calls CONTRAKEMPS on no quad, and its team pays."""
    state = collector()
    seen = heuristic_module.seen_by(state.view(1))
    swapped = policy_module.choice(seen, {}, True)
    assert str(swapped) == "swap 2D@0"
    decoy = policy_module.token(seen, PASS, random.Random(decoy_seed()))  # before the swap
    assert decoy in convention(state.secrets[1])[1]
    tick(state, {1: str(swapped.with_payload(signal=decoy))})
    call = HeuristicBot(seed=1).act(state.view(0), state.legal_actions(0))
    assert call == Action("contrakemps", number=1)
    tick(state, {0: str(call)})
    assert state.penalties == [1, 0]


def test_no_decoy_with_the_swap_that_shows_a_collector_so_no_contrakemps():
    """The token is decided on the cards seen after the choice: no decoy beside the swap that
    shows seat 1 taking two sevens (and no draw), and no CONTRAKEMPS next tick."""
    state = collector()
    bot = HeuristicBot(seed=decoy_seed())
    before = bot.rng.getstate()
    action = bot.act(state.view(1), state.legal_actions(1))
    assert action == Action.parse("swap 2D@0") and not action.payload
    assert bot.rng.getstate() == before  # no decoy possible: nothing drawn
    tick(state, {1: str(action)})
    assert [str(c) for c in state.known[1]] == ["7S", "7C"]
    assert HeuristicBot(seed=1).act(state.view(0), state.legal_actions(0)).kind == "swap"


@pytest.mark.parametrize(
    ("known", "choice", "shows"),
    [
        ("7S", "swap 2D@0", False),  # 7S and 7C seen: collecting
        ("7S 7H", "pass", False),  # seen collecting already
        ("7S 7H", "swap 7S@1", False),  # no longer after, but the swap may fail
        ("", "swap 2D@0", True),  # 7C seen alone
        ("7S", "swap 7S@0", True),  # gives the 7S it was seen taking, takes 7C
        ("7S", "swap 2D@1", True),  # 7S and 3H
        ("7S", "pass", True),
    ],
)
def test_a_decoy_only_while_not_seen_collecting_before_the_choice_nor_after(known, choice, shows):
    seen = heuristic_module.seen_by(collector(known).view(1))
    rng = random.Random(decoy_seed())
    token = policy_module.token(seen, Action.parse(choice), rng)
    assert (token is not None) == shows
    assert shows or rng.getstate() == random.Random(decoy_seed()).getstate()


def test_the_silent_baseline_never_signals_nor_registers():
    state = SPEC.new_match(players=4, seed=4, options={"max_deals": 3})
    bots = [SilentBot(seed=s) for s in range(4)]
    play_match(state, bots)
    assert not any(e.kind == "signal" for e in state.events())
    assert all(e.data["kemps"] == [] for e in state.events() if e.kind == "registered")
    assert "silent" in SPEC.bots


def test_the_heuristic_beats_random():
    wins = {"heuristic": 0, "random": 0}
    for g in range(6):
        kinds_ = ["heuristic", "random"] if g % 2 == 0 else ["random", "heuristic"]
        bots = [make_bot(kinds_[s % 2], "kemps", seed=g * 10 + s) for s in range(4)]
        result = play_match(SPEC.new_match(players=4, seed=g), bots)
        wins[kinds_[result.winners[0] % 2]] += 1
    assert wins["heuristic"] == 6


@pytest.mark.parametrize("mode", ["tick", "realtime"])
def test_the_bots_play_whole_matches_in_both_modes(mode):
    for kind in ("heuristic", "silent"):
        bots = [make_bot(kind, "kemps", seed=s) for s in range(4)]
        state = SPEC.new_match(players=4, seed=1, options={"mode": mode, "max_deals": 3})
        assert play_match(state, bots).reason in ("complete", "cap")


def test_registered():
    assert game("kemps") is SPEC and SPEC.teams(6) == ((0, 3), (1, 4), (2, 5))


@pytest.mark.parametrize("module", [kemps_module, rules_module, policy_module, heuristic_module])
def test_doctests(module):
    assert doctest.testmod(module).failed == 0


def test_a_world_gives_a_partner_who_signalled_its_kemps_token_a_quad():
    state = exchange(kemps_sets=[[], ["G7"]])
    tick(state, {1: "pass signal=G7"})  # seat 1 holds the four sevens: the audit passed
    view = state.view(3)
    for k in range(5):
        world = SPEC.world_from_view(view, random.Random(k))
        assert rules_module.holds_quad(world.hands[1])
    other = SPEC.world_from_view(state.view(0), random.Random(1))  # no such proof for seat 0
    assert other.kemps_sets[1] == 0


# -- the fast copy and the search -----------------------------------------------------------------


@pytest.mark.parametrize("players", [4, 10])
def test_playout_copy_plays_by_the_rules_and_the_bots_policy(players):
    """Beside the state, tick by tick, for one deal: the same legal lists, the bot's choices,
    the same cards everywhere after each tick, and the same penalties at the deal's end."""
    spec_rng = random.Random(players)
    state = SPEC.new_match(players=players, seed=30 + players)
    bots = [HeuristicBot(seed=s) for s in range(players)]
    for seat in state.to_act():  # the convention step
        state.apply(seat, bots[seat].act(state.view(seat), state.legal_actions(seat)))
    fast = state.python_playout_state(seed=1)  # the reference; the kernel is proven against it
    deal, base = state.deal_no, list(state.penalties)
    while state.deal_no == deal and not state.is_over():
        assert fast.to_act() == state.to_act()
        for seat in state.to_act():
            legal = state.legal_actions(seat)
            assert fast.legal_actions(seat) == legal
            mine = bots[seat].act(state.view(seat, history=False), legal)
            assert fast.choose(seat).without_payload() == mine.without_payload()
            action = mine if spec_rng.random() < 0.8 else spec_rng.choice(legal)
            state.apply(seat, action)
            fast._apply(seat, action)
        if state.deal_no == deal and not state.is_over():
            assert (fast.hands, fast.slots, fast.stock, fast.dead, fast.known) == (
                state.hands,
                state.slots,
                state.stock,
                state.dead,
                state.known,
            )
            assert fast.signals == state.signals and fast.shown == state._shown_before()
    assert fast.is_over()
    taken = [p - b for p, b in zip(state.penalties, base, strict=True)]
    assert [p - b for p, b in zip(fast.penalties, base, strict=True)] == taken
    teams_ = players // 2
    assert fast.estimate()[0] == (sum(taken) - taken[0]) / (teams_ - 1) - taken[0]
    assert fast.estimate()[0] == fast.estimate()[teams_]  # partners score alike


def test_playout_estimate_is_what_the_deal_did_to_each_team():
    state = exchange()
    fast = state.playout_state(seed=1)
    assert fast.estimate() == (0.0, 0.0, 0.0, 0.0)
    for seat in range(4):  # seat 3 calls KEMPS: its partner, seat 1, holds the four sevens
        fast._apply(seat, Action("kemps") if seat == 3 else PASS)
    assert fast.is_over() and fast.estimate() == (-1.0, 1.0, -1.0, 1.0)
    assert fast.clone().estimate() == fast.estimate()
    with pytest.raises(ValueError, match="tick-mode exchange"):
        SPEC.new_match(players=4, seed=1).playout_state(seed=1)  # the convention step


def test_ismcts_searches_the_candidates_on_the_fast_copy_and_skips_a_wrong_contrakemps():
    """Seat 1 showed a fresh token after collecting two sevens in public: the heuristic calls
    CONTRAKEMPS, which worlds where seat 1's other two cards are dealt at random almost never
    bear out; the search, weighing pass, the calls and the swaps toward a quad, does not."""
    state = exchange(
        hands=["2S 3S 4S 5S", "7S 7H 6D 6C", "8S 8H 9D 9C", "JS QS KS AS"], table="7D 3H 4H 5H"
    )
    tick(state, {1: "swap 6D@0"})
    state.known[1].append(Card.parse("7H"))
    tick(state, {1: "pass signal=G9"})
    view, legal = state.view(0), state.legal_actions(0)
    heuristic = HeuristicBot(seed=1)
    assert heuristic.act(view, legal).without_payload() == Action("contrakemps", number=1)
    weighed = heuristic.candidates(view, legal)
    assert {"pass", "kemps", "contrakemps 1"} <= {str(a) for a in weighed}
    assert len(weighed) < len(legal) and all(a in legal for a in weighed)
    bot = make_bot("ismcts", "kemps", seed=3, iterations=12, time_ms=0)
    assert bot.act(view, legal).kind not in ("kemps", "contrakemps")
    assert bot.stats.rollouts == 12 * (len(weighed) if len(weighed) <= 6 else 1)
