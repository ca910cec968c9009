"""Macao: every scenario of ``rules/macao.md`` §7, then playouts, options, sampling and the bot.

Seats are named as in the spec: A, B, C, D = 0, 1, 2, 3, clockwise.
"""

from __future__ import annotations

import itertools
import pickle
import random
from collections import Counter

import pytest

from levata.bots import RandomBot
from levata.bots.heuristic.macao import HeuristicBot
from levata.engine import Action, Card, IllegalAction, parse_cards
from levata.engine.cards import french_deck
from levata.engine.games.macao import SPEC, MacaoState, matches, stacks

A, B, C, D, E, F = range(6)


def pos(players: int, hands: list[str], top: str, **kw) -> MacaoState:
    return MacaoState.from_position(players, hands, top, **kw)


def act(state: MacaoState, seat: int, *moves: str) -> None:
    for move in moves:
        state.apply(seat, Action.parse(move))


def plays(state: MacaoState, seat: int) -> set[str]:
    return {str(a.card) for a in state.legal_actions(seat) if a.kind == "play"}


def kinds(state: MacaoState, seat: int) -> set[str]:
    return {a.kind for a in state.legal_actions(seat)}


def illegal(state: MacaoState, seat: int, move: str) -> None:
    before = pickle.dumps(state)
    with pytest.raises(IllegalAction):
        state.apply(seat, Action.parse(move))
    assert pickle.dumps(state) == before


def pending(state: MacaoState) -> dict | None:
    return state.view(A).facts["pending"]


def turns_by_drawing(state: MacaoState, count: int) -> list[int]:
    """The next ``count`` normal turns, each spent drawing (and keeping) one card."""
    seats = []
    for _ in range(count):
        seat = state.to_act()[0]
        seats.append(seat)
        act(state, seat, "draw")
        if state.phase == "drawn":
            act(state, seat, "end_turn")
    return seats


def card(text: str) -> Card:
    return Card.parse(text)


# -- §7 scenarios -------------------------------------------------------------------------------


def test_1_basic_matching():
    s = pos(2, ["9S 3H KC 7C", "5D 6D"], "9H")
    assert plays(s, A) == {"9S", "3H"}
    assert "draw" in kinds(s, A)
    assert "pass" not in kinds(s, A)  # the stock is not empty
    for move in ("play KC", "play 7C", "pass", "play 5D"):
        illegal(s, A, move)


@pytest.mark.parametrize("order", list(itertools.permutations(["7C", "7S", "7H"])))
def test_2_same_rank_group_in_any_order(order):
    s = pos(2, ["7C 7S 7H 8D", "5S 6S"], "7D")
    act(s, A, f"play {order[0]}")
    illegal(s, A, "play 8D")  # mixed ranks
    act(s, A, *(f"play {c}" for c in order[1:]), "done")
    assert [str(c) for c in s.discard[-3:]] == list(order)
    assert str(s.top) == order[-1]
    assert s.to_act() == (B,)


def test_3_stacking_on_a_two():
    s = pos(3, ["2S 5C", "3S 3D KH 2H KC", "6D 6H"], "9S")
    act(s, A, "play 2S", "done")
    assert pending(s) == {"kind": "draw", "amount": 2, "target": B, "dir": "fwd", "last": A}
    assert plays(s, B) == {"2H", "3S", "KC"}  # 3D: wrong suit, KH: wrong colour
    illegal(s, B, "play 3D")
    illegal(s, B, "play KH")
    for first, second in (("3S", "3D"), ("KC", "KH")):  # only G[0] is tested
        t = s.clone()
        act(t, B, f"play {first}")
        assert second in plays(t, B)
    act(s, B, "play 3S", "done")
    assert pending(s) == {"kind": "draw", "amount": 5, "target": C, "dir": "fwd", "last": B}


def reflect_start(players: int, a_hand: str = "2C KH 5D") -> MacaoState:
    """A plays 2C on its turn, B answers with the black KS (back to A)."""
    hands = [a_hand, "KS 8D", "6H 6D", "7H 7D"][:players]
    s = pos(players, hands, "9C")
    act(s, A, "play 2C", "done")
    act(s, B, "play KS", "done")
    return s


def test_4_black_king_reflects():
    s = reflect_start(3, a_hand="2C 5D QH")
    assert pending(s) == {"kind": "draw", "amount": 7, "target": A, "dir": "back", "last": B}
    assert s.cursor == B
    assert kinds(s, A) == {"accept"}  # A holds no stacking card
    act(s, A, "accept")
    assert len(s.hands[A]) == 2 + 7
    assert s.to_act() == (C,) and s.phase == "turn"  # advance(B), not back to B


def test_5_reflect_war_three_players():
    s = reflect_start(3)
    act(s, A, "play KH", "done")
    assert pending(s) == {"kind": "draw", "amount": 12, "target": B, "dir": "fwd", "last": A}
    act(s, B, "accept")
    assert len(s.hands[B]) == 1 + 12
    assert s.to_act() == (C,)


def test_5_reflect_war_four_players():
    s = pos(4, ["2C KC 5D", "KS 8D", "6H 6D", "7H 7D"], "9C")
    act(s, A, "play 2C", "done")
    act(s, B, "play KS", "done")
    assert pending(s)["target"] == A
    act(s, A, "play KC", "done")
    assert pending(s) == {"kind": "draw", "amount": 12, "target": D, "dir": "back", "last": A}
    act(s, D, "accept")
    assert len(s.hands[D]) == 2 + 12
    assert s.to_act() == (C,)  # advance(cursor = B)


def test_5b_forward_answer_to_a_reflect_is_out_of_turn():
    s = pos(4, ["KH 5D", "KC 5H", "KS 5C", "8D 8H"], "9S", turn=C)
    act(s, C, "play KS", "done")
    assert pending(s) == {"kind": "draw", "amount": 5, "target": B, "dir": "back", "last": C}
    act(s, B, "play KC", "done")
    assert pending(s) == {"kind": "draw", "amount": 10, "target": A, "dir": "back", "last": B}
    act(s, A, "play KH", "done")
    assert pending(s) == {"kind": "draw", "amount": 15, "target": B, "dir": "fwd", "last": A}
    assert s.cursor == C  # pending.last = A != cursor: B answers out of turn
    act(s, B, "accept")
    assert len(s.hands[B]) == 1 + 15
    assert s.to_act() == (D,)  # advance(cursor = C), not back to C


@pytest.mark.parametrize("king, top", [("KD", "9D"), ("KS", "9S")])
def test_6_kings_with_two_players(king, top):
    s = pos(2, [f"{king} 5C", "6H 6C"], top)
    act(s, A, f"play {king}", "done")
    assert pending(s) == {"kind": "draw", "amount": 5, "target": B, "dir": "fwd", "last": A}
    assert kinds(s, B) == {"accept"}
    act(s, B, "accept")
    assert len(s.hands[B]) == 7
    assert s.to_act() == (A,) and s.phase == "turn"


def test_6b_a_skipping_seat_is_still_hit():
    s = pos(3, ["2H 5C 5S", "2D 8C", "6C 7C"], "9H", skips=[0, 1, 0])
    act(s, A, "play 2H", "done")
    assert pending(s)["target"] == B  # not C, although B is serving a skip
    assert plays(s, B) == {"2D"}  # it may stack
    act(s, B, "accept")
    assert len(s.hands[B]) == 4
    assert s.skips[B] == 1
    assert s.to_act() == (C,)
    assert turns_by_drawing(s, 3) == [C, A, C]  # B's next turn is the one it loses
    assert s.skips[B] == 0
    assert any(e.kind == "skipped" and e.seat == B for e in s.events())


def test_7_four_stack():
    s = pos(4, ["4H 4C 5D", "4S 5C", "6H 6C", "7H 7C"], "9H")
    act(s, A, "play 4H", "play 4C", "done")
    assert pending(s) == {"kind": "skip", "amount": 2, "target": B, "dir": "fwd", "last": A}
    assert plays(s, B) == {"4S"}
    act(s, B, "play 4S", "done")
    assert pending(s) == {"kind": "skip", "amount": 3, "target": C, "dir": "fwd", "last": B}
    act(s, C, "accept")
    assert s.skips[C] == 2
    order = turns_by_drawing(s, 10)
    assert order == [D, A, B, D, A, B, D, A, B, C]


def test_8_rank_request_lap():
    s = pos(4, ["JD 5H 6H", "8S 9S", "5S 8H", "JC 7C"], "9D")
    act(s, A, "play JD", "done", "request 8")
    assert s.view(B).facts["request"] == {
        "kind": "rank",
        "value": "8",
        "requester": A,
        "unserved": [B, C, D],
    }
    assert plays(s, B) == {"8S"}  # only 8s or a J; 9S would match nothing
    act(s, B, "play 8S", "done")
    assert plays(s, C) == {"8H"}  # 5S follows the top's suit, but the request overrides it
    illegal(s, C, "play 5S")
    act(s, C, "play 8H", "done")
    assert plays(s, D) == {"JC"}  # a J substitutes
    act(s, D, "play JC", "done", "no_request")
    assert s.request is None
    assert plays(s, A) == set()  # A needs a club or a J: it holds 5H 6H
    assert matches(card("2C"), s.top, s.request) and matches(card("JH"), s.top, s.request)


def test_8_request_ends_after_one_lap():
    s = pos(3, ["JD 5H 6H", "9S 10S", "9C 10C"], "9D")
    act(s, A, "play JD", "done", "request Q")
    turns_by_drawing(s, 1)  # B draws: served
    assert s.request is not None
    turns_by_drawing(s, 1)  # C draws: every other seat served
    assert s.request is None
    assert any(e.kind == "request_over" for e in s.events())


def test_9_illegal_requests():
    s = pos(2, ["JS 5S", "6D 7D"], "9S")
    act(s, A, "play JS", "done")
    for bad in ("4", "K", "A", "J", "2", "3", "H"):
        illegal(s, A, f"request {bad}")
    t = pos(2, ["AH 5S", "6D 7D"], "9H")
    act(t, A, "play AH", "done", "request H")
    assert t.request.value == "H" and t.request.kind == "suit"


def test_10_penalty_during_a_suit_request():
    s = pos(3, ["AS 5S", "2H 9C", "2C 3H KD 7H 3C KC"], "9S")
    act(s, A, "play AS", "done", "request H")
    assert plays(s, B) == {"2H"}
    act(s, B, "play 2H", "done")
    assert plays(s, C) == {"2C", "3H", "KD"}  # rank, suit, red K; not the plain 7H
    illegal(s, C, "play 7H")
    assert s.request is not None  # D17: the request stays


def test_11_draw_then_play():
    s = pos(2, ["9D 9C", "5S 8H"], "5C", stock="5D", turn=B)
    act(s, B, "draw")
    assert s.phase == "drawn"
    assert [str(a) for a in s.legal_actions(B)] == ["play 5D", "end_turn"]
    illegal(s, B, "play 5S")  # only the drawn card may start the group
    act(s, B, "play 5D")
    assert "5S" in plays(s, B)
    act(s, B, "play 5S", "done")
    assert str(s.top) == "5S"
    play_event = next(e for e in s.events() if e.kind == "play")
    assert play_event.data == {"first": True, "drawn": True}
    end = pos(2, ["9D 9C", "5S 8D"], "5C", stock="9H", turn=B)
    act(end, B, "draw")
    assert end.to_act() == (A,) and end.phase == "turn"  # 9H does not match: turn over
    kept = pos(2, ["9D 9C", "5S 8D"], "5C", stock="5D", turn=B)
    act(kept, B, "draw", "end_turn")
    assert kept.to_act() == (A,) and card("5D") in kept.hands[B]


def test_12_reshuffle():
    s = pos(2, ["9D 9C", "5S 8H"], "6D", discard="8C", stock=(), rest="discard", turn=B)
    under = Counter(s.discard[:-1])
    assert not s.stock and card("8C") in under
    act(s, B, "draw")
    assert s.discard == [card("6D")]
    drawn = [c for c in s.hands[B] if c not in parse_cards("5S 8H")]
    assert Counter(s.stock) + Counter(drawn) == under
    reshuffle = next(e for e in s.events() if e.kind == "reshuffle")
    assert reshuffle.data == {"count": len(under)}


def test_13_short_penalty():
    s = pos(
        2,
        ["5H", "6C"],
        "2S",
        discard="7C 8C",
        stock="9C 10C QC",
        rest=A,
        pending={"kind": "draw", "amount": 10, "target": B, "last": A},
    )
    act(s, B, "accept")
    assert len(s.hands[B]) == 1 + 5
    assert s.pending is None and s.to_act() == (A,)
    assert s.discard == [card("2S")] and not s.stock
    short = next(e for e in s.events() if e.kind == "short")
    assert short.data == {"missing": 5}


def test_14_starter_effect_ignored():
    rest = [c for c in french_deck() if str(c) not in ("2H", "2S")]
    order = [card("2H"), *rest[:9], card("2S"), *rest[9:]]
    s = SPEC.new_match(players=2, seed=4, deal=order)
    first = s.to_act()[0]
    assert str(s.top) == "2S" and card("2H") in s.hands[first]
    assert s.phase == "turn" and s.pending is None
    assert "accept" not in kinds(s, first)
    act(s, first, "play 2H", "done")
    assert s.pending.amount == 2 and s.pending.kind == "draw"


def test_15_end_with_three_players():
    s = pos(3, ["9S", "5S", "6D 7D 8D"], "9H")
    act(s, A, "play 9S", "done")
    assert s.finished == [A] and not s.is_over()
    act(s, B, "play 5S", "done")
    assert s.is_over()
    res = s.result()
    assert res.ranks == (1, 2, 3) and res.winners == (A,) and res.reason == "complete"
    assert res.scores == (2.0, 1.0, 0.0)
    assert s.to_act() == () and s.legal_actions(C) == []


def test_15_end_with_six_players():
    s = pos(6, ["9S", "5S", "5C", "6D 7D 8D", "6H 7H", "6S 7S"], "9H")
    act(s, A, "play 9S", "done")
    act(s, B, "play 5S", "done")
    act(s, C, "play 5C", "done")
    assert s.is_over()
    res = s.result()
    assert res.ranks == (1, 2, 3, 6, 4, 4)  # the rest by fewest cards, ties share
    assert res.winners == (A,)
    assert s.events()[-1].kind == "end"


def test_16_finishing_with_a_penalty_card():
    s = pos(3, ["5C 6C", "3H", "8D 9D"], "7H", turn=B)
    act(s, B, "play 3H", "done")
    assert s.finished == [B]
    assert pending(s) == {"kind": "draw", "amount": 3, "target": C, "dir": "fwd", "last": B}
    act(s, C, "accept")
    assert s.to_act() == (A,)


def test_17_no_leak():
    s = pos(3, ["9D 9C", "5S 8H", "6C 7C"], "4H", stock="KS", turn=B)
    act(s, B, "draw")  # KS does not match 4H: B keeps it, the turn ends
    drawn = card("KS")
    assert drawn in s.view(B).hand
    for seat in (A, C):
        view = s.view(seat)
        assert drawn not in view.cards_named()
        assert view.counts[f"hand:{B}"] == 3
    for seat, other in ((B, A), (A, B), (C, B)):
        view = s.view(seat)
        assert set(view.zones) == {"discard_top", "discard", "group"}  # no hand, no stock
        assert view.counts[f"hand:{other}"] == len(s.hands[other])
        assert view.counts["stock"] == len(s.stock)
        named = set(view.cards_named())
        assert not named & set(s.hands[other]) and not named & set(s.stock)
    draws = [e for e in s.events() if e.kind in ("draw", "drawn")]
    assert draws[0].audience is None and not draws[0].cards and draws[0].data == {"count": 1}
    assert draws[1].audience == frozenset({B}) and draws[1].cards == (drawn,)


def test_17_no_leak_over_random_playouts():
    for i in range(6):
        s = SPEC.new_match(players=2 + i % 5, seed=500 + i)
        rng = random.Random(i)
        while not s.is_over():
            seat = s.to_act()[0]
            s.apply(seat, rng.choice(s.legal_actions(seat)))
            public = {c for e in s.events() if e.audience is None for c in e.cards}
            for b in range(s.players):
                view = s.view(b)
                assert view.hand == tuple(s.hands[b])
                assert all(e.visible_to(b) for e in view.history)
                own = {c for e in view.history if e.audience is not None for c in e.cards}
                assert set(view.cards_named()) <= public | own


# -- the state machine beyond §7 --------------------------------------------------------------


def test_stacks_and_colour_rules():
    def ok(c: str, top: str) -> bool:
        return stacks(card(c), card(top))

    assert ok("KH", "2D") and not ok("KH", "2C")  # K on 2: same colour
    assert ok("2S", "KC") and not ok("2S", "KD")  # 2 on K: same colour
    assert ok("KC", "3S") and ok("3H", "KD") and not ok("3H", "KS")
    assert ok("2D", "3D") and not ok("2D", "3H")  # 2 on 3: same suit
    assert ok("KS", "KH") and ok("3C", "3D")  # same rank always
    assert not ok("4S", "2S") and not ok("9S", "2S")


def test_skip_stack_accept_lands_on_target_skips():
    s = pos(2, ["4H 5D 6D", "7C 8C"], "9H", skips=[0, 2])
    act(s, A, "play 4H", "done")
    act(s, B, "accept")
    assert s.skips[B] == 2  # the 4 costs only the current turn; old skips are kept
    assert turns_by_drawing(s, 3) == [A, A, A]


def test_request_next_player_scope():
    s = pos(3, ["JD 5H 6H", "9S 10S", "9C 10C"], "9D", options={"request_scope": "next_player"})
    act(s, A, "play JD", "done", "request Q")
    assert s.request.unserved == frozenset({B})
    turns_by_drawing(s, 1)
    assert s.request is None


def test_finishing_jack_still_names():
    s = pos(3, ["JD", "9S 10S", "9C 10C"], "9D")
    act(s, A, "play JD", "done")
    assert s.finished == [A] and s.phase == "request"
    act(s, A, "request 7")
    assert s.request.unserved == frozenset({B, C}) and s.to_act() == (B,)


def test_a_group_is_one_rank_or_one_suit_by_default():
    """D4: the seed's general rule names groups of one suit beside groups of one rank."""
    s = pos(2, ["5H 8H 2H 5C", "7C 8C"], "9H")
    act(s, A, "play 5H")
    assert plays(s, A) == {"8H", "2H", "5C"}  # either kind may follow
    act(s, A, "play 8H")
    assert plays(s, A) == {"2H"}  # now a suit group: 5C no longer joins
    act(s, A, "play 2H", "done")
    assert s.pending.amount == 2  # only the last card acts
    by_rank = pos(2, ["5H 5C 8C", "7D 8D"], "9H")
    act(by_rank, A, "play 5H", "play 5C")
    assert plays(by_rank, A) == set()  # a rank group: 8C, though a club, does not join
    act(by_rank, A, "done")
    assert str(by_rank.top) == "5C"
    plain = pos(2, ["5H 8H", "7C 8C"], "9H", options={"group_same_suit": False})
    act(plain, A, "play 5H")
    assert plays(plain, A) == set()  # the option off: one rank only


def test_in_a_one_suit_group_only_the_last_card_acts():
    """A 2 or a 4 inside a suit group does nothing; the last card's effect is the group's."""
    quiet = pos(3, ["2H 4H 8H 9C", "7C 8C", "7D 8D"], "9H")
    act(quiet, A, "play 2H", "play 4H", "play 8H", "done")
    assert quiet.pending is None and quiet.to_act() == (B,)  # no draw, no skip
    skip = pos(3, ["2H 4H 9C", "7C 8C", "7D 8D"], "9H")
    act(skip, A, "play 2H", "play 4H", "done")
    assert skip.pending.kind == "skip" and skip.pending.amount == 1  # one 4: one skip
    jack = pos(3, ["5H JH 9C", "7C 8C", "7D 8D"], "9H")
    act(jack, A, "play 5H", "play JH", "done")
    assert jack.phase == "request" and jack.to_act() == (A,)  # a J last still names


def test_wild_changers_option():
    hands = ["JC AD 5S", "7C 8C"]
    assert plays(pos(2, hands, "9H"), A) == set()
    assert plays(pos(2, hands, "9H", options={"wild_changers": True}), A) == {"JC", "AD"}


def test_pass_and_deadlock():
    s = pos(2, ["9C", "8C"], "5H", stock=(), rest=A, turn=B)
    assert not s.stock and len(s.discard) == 1
    assert kinds(s, B) == {"pass"}  # nothing to draw, not even by reshuffling
    act(s, B, "pass")
    assert s.to_act() == (A,)
    act(s, A, "pass")
    assert s.is_over() and s.result().reason == "deadlock"
    assert s.result().ranks == (2, 1)


def test_action_cap():
    s = SPEC.new_match(players=4, seed=2, options={"action_cap": 30})
    rng = random.Random(0)
    while not s.is_over():
        seat = s.to_act()[0]
        s.apply(seat, rng.choice(s.legal_actions(seat)))
    assert s.actions_taken == 30 and s.result().reason == "cap"


def test_deal_order_is_honoured():
    order = list(french_deck())
    random.Random(3).shuffle(order)
    s = SPEC.new_match(players=3, seed=9, deal=order)
    first = (s.dealer + 1) % 3
    for i in range(3):
        assert sorted(s.hands[(first + i) % 3]) == sorted(order[i:15:3])
    assert s.top == order[15]
    assert next(z.cards for z in s.table() if z.name == "stock") == tuple(order[16:])
    assert s.to_act() == (first,)
    with pytest.raises(ValueError):
        SPEC.new_match(players=3, seed=9, deal=order[:-1])


def test_illegal_actions_change_nothing():
    s = SPEC.new_match(players=4, seed=8)
    rng = random.Random(8)
    for _ in range(150):
        if s.is_over():
            break
        seat = s.to_act()[0]
        views = [s.view(t) for t in range(4)]
        log = list(s.events())
        legal = s.legal_actions(seat)
        wrong = [Action("play", card=c) for c in french_deck()]
        wrong += [Action("request", choice="K"), Action("bid", number=1), Action("done")]
        for move in [a for a in wrong if a not in legal][:8]:
            with pytest.raises(IllegalAction):
                s.apply(seat, move)
        with pytest.raises(IllegalAction):
            s.apply((seat + 1) % 4, legal[0])
        assert [s.view(t) for t in range(4)] == views and s.events() == log
        s.apply(seat, rng.choice(legal))


def test_random_playouts_terminate():
    deck = Counter(french_deck())
    for i in range(300):
        players = 2 + i % 5
        s = SPEC.new_match(players=players, seed=i)
        rng = random.Random(i)
        while not s.is_over():
            seat = s.to_act()[0]
            s.apply(seat, rng.choice(s.legal_actions(seat)))
            if i % 50 == 0:
                assert Counter(c for z in s.table() for c in z.cards) == deck
        res = s.result()
        assert res.reason in ("complete", "cap", "deadlock")
        assert sorted(res.ranks)[0] == 1 and all(1 <= r <= players for r in res.ranks)
        assert res.winners and all(res.ranks[w] == 1 for w in res.winners)
        assert res.scores == tuple(float(players - r) for r in res.ranks)
        if res.reason == "complete":
            assert len(s.finished) == (players - 1 if players <= 4 else 3)


def test_same_seed_same_match():
    def run() -> tuple:
        s = SPEC.new_match(players=4, seed=21)
        rng = random.Random(1)
        while not s.is_over():
            seat = s.to_act()[0]
            s.apply(seat, rng.choice(s.legal_actions(seat)))
        return [e.to_dict() for e in s.events()], s.result()

    assert run() == run()


def test_clone_is_independent():
    s = SPEC.new_match(players=3, seed=5)
    before = pickle.dumps(s)
    twin = s.clone()
    rng = random.Random(2)
    for _ in range(40):
        seat = twin.to_act()[0]
        twin.apply(seat, rng.choice(twin.legal_actions(seat)))
    assert pickle.dumps(s) == before


def test_sample_world_keeps_the_view():
    deck = Counter(french_deck())
    for i in range(10):
        s = SPEC.new_match(players=2 + i % 5, seed=900 + i)
        rng = random.Random(i)
        for step in range(400):
            if s.is_over():
                break
            if step % 9 == 0:
                for seat in range(s.players):
                    world = s.sample_world(seat, random.Random(step))
                    assert world.view(seat) == s.view(seat)
                    assert Counter(c for z in world.table() for c in z.cards) == deck
                    for t in range(s.players):  # other seats' private records stay true
                        dealt = [e for e in world.events(seat=t) if e.audience is not None]
                        named = {c for e in dealt for c in e.cards}
                        assert set(world.hands[t]) <= named
            seat = s.to_act()[0]
            s.apply(seat, rng.choice(s.legal_actions(seat)))


def test_sample_world_keeps_reshuffled_cards_in_their_epoch():
    # B drew from a reshuffled stock: those cards are public, the deal hand is not.
    s = pos(2, ["9D 9C 7S", "5S 8H"], "6D", discard="8C QD", stock=(), rest="discard", turn=B)
    act(s, B, "draw")
    old_pile = set(french_deck()) - set(parse_cards("9D 9C 7S 5S 8H 6D"))
    for k in range(30):
        world = s.sample_world(A, random.Random(k))
        assert set(world.hands[B]) - set(parse_cards("5S 8H")) <= old_pile
        assert world.view(A) == s.view(A)


# -- the heuristic bot --------------------------------------------------------------------------


def bot_match(seed: int) -> int:
    """A 2-player match, heuristic against random; the heuristic seat's rank."""
    s = SPEC.new_match(players=2, seed=seed)
    me = seed % 2
    bots = {me: HeuristicBot(seed=seed), 1 - me: RandomBot("macao", seed=seed)}
    while not s.is_over():
        seat = s.to_act()[0]
        legal = s.legal_actions(seat)
        action = bots[seat].act(s.view(seat), legal)
        assert action in legal
        s.apply(seat, action)
    return s.result().ranks[me]


def test_heuristic_beats_random():
    wins = sum(bot_match(seed) == 1 for seed in range(200))
    assert wins >= 160, f"heuristic won only {wins} of 200"


def test_heuristic_keeps_penalty_cards():
    bot = HeuristicBot()
    s = pos(3, ["9H 2H KH 3H 5C", "6C 7C 8C 6S", "6D 7D 8D 6H"], "9D")
    assert str(bot.act(s.view(A), s.legal_actions(A))) == "play 9H"
    only_penalty = pos(3, ["2D KC 5C", "6C 7C 8C 6S", "6D 7D 8D 6H"], "9D")
    assert str(bot.act(only_penalty.view(A), only_penalty.legal_actions(A))) == "play 2D"


def test_heuristic_attacks_a_seat_about_to_finish():
    bot = HeuristicBot()
    s = pos(3, ["9S 2H 5C", "6C", "6D 7D 8D 6H"], "9H")
    assert str(bot.act(s.view(A), s.legal_actions(A))) == "play 2H"


def test_heuristic_stacks_and_names_what_it_holds():
    bot = HeuristicBot()
    s = pos(2, ["2S 5C", "3S 3D 7H 7D 9D"], "9S")
    act(s, A, "play 2S", "done")
    assert str(bot.act(s.view(B), s.legal_actions(B))) == "play 3S"
    j = pos(2, ["JD 7C 7S 5H", "6C 8C"], "9D")
    act(j, A, "play JD", "done")
    assert str(bot.act(j.view(A), j.legal_actions(A))) == "request 7"
    a = pos(2, ["AD 7C 8C 5H", "6C 8S"], "9D")
    act(a, A, "play AD", "done")
    assert str(bot.act(a.view(A), a.legal_actions(A))) == "request C"
