"""The trick-play kernels: legal cards, trick winners and layouts (``rules``), playouts.

Legal cards and winners are checked against an independent statement of plain trick play
(``trick_reference.py``, Whist's) on random hands, and against the worked examples of the
rules specs of the games that use the kernel (``/shared/rules/*.md``).
"""

from __future__ import annotations

import pickle
import random
import threading

import pytest
import trick_reference as trick  # tests/engine: pytest puts it on the path
from hypothesis import given, settings
from hypothesis import strategies as st

from levata.bots.strategy import aim_card as _aim_card  # the kernel's aiming, in Python
from levata.bots.strategy import aim_playout
from levata.engine.card_orders import trick_rules
from levata.engine.cardmask import cards_of, mask_of
from levata.engine.cards import Card, Suit, french_deck, italian_deck, parse_cards
from levata.engine.family.tricks import (
    beats,
    duty_cards,
    power,
    suit_of,
    winning_card,
)
from levata.engine.games.whist import whist_deck
from levata.engine.playouts import aim_lines, aim_reach, deal_playouts, playout, playouts
from levata.engine.rules import (
    TRUMP_SUIT,
    TrickRules,
    legal_cards,
    rank_order_layout,
    trick_winner,
)
from levata.engine.solver import Solver, tricks

from probe import build_and_run


def idx(text: str) -> list[int]:
    return [c.index for c in parse_cards(text)]


def whist(seats: int = 4, trump: Suit | int | None = None) -> TrickRules:
    """Romanian Whist's card play (the game module declares the same)."""
    return TrickRules(seats, trump, must_trump=True)


def legal(rules: TrickRules, hand: str, played: str = "") -> set[str]:
    italian = any(c.suit.italian for c in parse_cards(hand))
    mask = legal_cards(rules, mask_of(parse_cards(hand)), idx(played) if played else [])
    return {str(c) for c in cards_of(mask, italian)}


# -- agreement with the Python rules ------------------------------------------------------------


def test_legal_cards_and_winners_match_the_python_whist_rules():
    rng = random.Random(5)
    deck = french_deck()
    for _ in range(3000):
        seats = rng.randrange(2, 7)
        trump = rng.choice([None, Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES])
        rules = whist(seats, trump)
        cards = rng.sample(deck, seats + rng.randrange(1, 8))
        played, hand = cards[: rng.randrange(seats)], cards[seats:]
        led = played[0].suit if played else None
        want = trick.legal_plays(hand, led, trump)
        got = legal_cards(rules, mask_of(hand), [c.index for c in played])
        assert got == mask_of(want), (hand, played, trump)
        if played:
            leader = rng.randrange(seats)
            plays = [((leader + i) % seats, c) for i, c in enumerate(played)]
            assert trick_winner(rules, leader, [c.index for c in played]) == trick.winner(
                plays, trump
            )


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.integers(0, 51), min_size=2, max_size=14, unique=True),
    st.sampled_from([None, 0, 1, 2, 3]),
    st.sampled_from(["whist", "tarneeb", "bestia", "sixty-six", "rentz"]),
    st.integers(0, 5),
)
def test_legal_cards_are_a_nonempty_part_of_the_hand(picks, trump, game, split):
    deck = [c.index for c in (italian_deck() if game == "bestia" else french_deck())]
    if game == "sixty-six":
        deck = [16 * s + r for s in range(4) for r in (10, 11, 12, 13, 14)]
    cards = [deck[p % len(deck)] for p in picks]
    cards = list(dict.fromkeys(cards))
    split = min(split, len(cards) - 1, 1 if game == "sixty-six" else 3)
    played, hand = cards[:split], cards[split:]
    rules = whist(trump=trump) if game == "whist" else trick_rules(game, trump=trump)
    hand_mask = sum(1 << c for c in hand)
    got = legal_cards(rules, hand_mask, played)
    assert got and got & ~hand_mask == 0
    if not played:
        assert got == hand_mask


# -- the worked examples of the rules specs -----------------------------------------------------


def test_whist_must_trump_without_overtrumping():
    """whist.md example 4-5 (trump ♥)."""
    rules = whist(4, Suit.HEARTS)
    assert legal(rules, "9H JH AD", "KS") == {"9H", "JH"}
    assert legal(rules, "9H JH AD", "KS QH") == {"9H", "JH"}  # no duty to over-trump
    no_trump = whist(4)
    assert legal(no_trump, "9H JH AD", "KC") == {"9H", "JH", "AD"}


def test_banking_follow_then_trump():
    """banking.md example 13 (trump ♣)."""
    rules = trick_rules("banking", trump=Suit.CLUBS)
    assert legal(rules, "7C 2C AS", "5H") == {"7C", "2C"}
    assert legal(rules, "AS KD", "5H") == {"AS", "KD"}


def test_tarneeb_and_three_five_eight_have_no_duty_to_trump():
    """tarneeb.md 7-8, three-five-eight.md 7."""
    tarneeb = trick_rules("tarneeb", trump=Suit.SPADES)
    assert legal(tarneeb, "2S 3C", "5D") == {"2S", "3C"}
    nt = trick_rules("tarneeb", trump=None)
    assert trick_winner(nt, 0, idx("2H AS")) == 0  # a ♠ on a ♥ lead never wins in NT
    tse = trick_rules("three-five-eight", trump=Suit.DIAMONDS)
    assert legal(tse, "4C 9D", "KC") == {"4C"}
    assert legal(tse, "9D 8H", "KC") == {"9D", "8H"}


def test_rentz_follow_only_no_trump():
    """rentz.md 5: a ♥ played on a ♠ lead never wins."""
    rules = trick_rules("rentz", seats=4)
    assert legal(rules, "AH 7H", "8S") == {"AH", "7H"}
    assert trick_winner(rules, 2, idx("8S AH 9S")) == 0  # seat 0 played 9♠


def test_bestia_follow_overtake_and_overtrump():
    """bestia.md examples 1-4 (trump ♦ = denari)."""
    rules = trick_rules("bestia", seats=4, trump=Suit.DENARI)
    # 1. ranking: 2 beats A (lowest), K beats C, any denari beats K of spade
    assert rules.beats(idx("2s")[0], idx("As")[0])
    assert rules.beats(idx("Ks")[0], idx("Cs")[0])
    assert rules.beats(idx("2d")[0], idx("Ks")[0])
    # 2. follow and overtake
    assert legal(rules, "7b 3b Ks", "5b") == {"7b"}
    # 3. cannot overtake: any card of the suit
    assert legal(rules, "7b 3b", "5b Cb") == {"7b", "3b"}
    # 4. trump and over-trump; only a low trump; no trump at all
    assert legal(rules, "7d 2d", "4b 5d") == {"7d"}
    assert legal(rules, "2d Kc", "4b 5d") == {"2d"}
    assert legal(rules, "Kc 3s", "4b 5d") == {"Kc", "3s"}


def test_sixty_six_strict_play_and_winner():
    """sixty-six.md examples 2-3 (trump ♣): A > 10 > K > Q > J, must head, else trump."""
    rules = trick_rules("sixty-six", trump=Suit.CLUBS)
    assert legal(rules, "AH JH QC", "10H") == {"AH"}
    assert legal(rules, "JH QC", "10H") == {"JH"}
    assert legal(rules, "QC AS", "10H") == {"QC"}
    assert legal(rules, "AS KD", "10H") == {"AS", "KD"}
    assert trick_winner(rules, 0, idx("10D AD")) == 1
    assert trick_winner(rules, 0, idx("10D JC")) == 1
    assert trick_winner(rules, 0, idx("10D AS")) == 0
    assert sum(rules.points.values()) == 120 and rules.last_trick_bonus == 10


def test_filcau_layout_top_trumps_and_effective_suits():
    """filcau.md examples 1-2 (trump ♥): the filcai are trumps above the trump suit."""
    rules = trick_rules("filcau", trump=Suit.HEARTS)
    assert rules.trump == TRUMP_SUIT
    qd, ah, qs, as_, ks, jh = idx("QD AH QS AS KS JH")
    assert rules.beats(qd, ah)
    assert all(rules.beats(qs, c) for c in idx("QC QH QD AH 10H AS"))
    assert rules.beats(as_, ks) and not rules.beats(as_, jh) and rules.beats(jh, as_)
    assert rules.effective_suit(qs) == TRUMP_SUIT
    # 2. led A♠; Q♠ is no spade: holding Q♠ J♥ K♦ means playing a trump
    assert legal(rules, "QS JH KD", "AS") == {"QS", "JH"}
    assert sum(rules.points.values()) == 8


def test_huzur_style_rank_order_layout():
    """huzur.md ranking (trumps ♣): A > 2 > 3 > K > ... within a suit."""
    order = [14, 2, 3, 13, 12, 11, 10, 9, 8, 7]
    rules = TrickRules(3, Suit.CLUBS, layout=rank_order_layout(order))
    two_d, kd, three_d, seven_c, ad = idx("2D KD 3D 7C AD")
    assert rules.beats(two_d, kd) and rules.beats(three_d, kd) and not rules.beats(kd, three_d)
    assert rules.beats(seven_c, ad) and not rules.beats(ad, seven_c)
    with pytest.raises(ValueError, match="not in this deal's layout"):
        rules.beats(idx("4D")[0], kd)


def test_trick_winner_of_a_partial_trick_and_bad_tricks():
    rules = TrickRules(4, Suit.SPADES)
    assert trick_winner(rules, 3, idx("2H")) == 3
    assert trick_winner(rules, 3, idx("2H 3H")) == 0
    with pytest.raises(ValueError):
        trick_winner(rules, 0, [])
    with pytest.raises(ValueError, match="complete"):
        legal_cards(rules, mask_of(parse_cards("2C")), idx("2H 3H 4H 5H"))


# -- the rules value ---------------------------------------------------------------------------


def test_rules_validation():
    with pytest.raises(ValueError, match="seats"):
        TrickRules(1)
    with pytest.raises(ValueError, match="follow"):
        TrickRules(4, follow=False, must_trump=True)
    with pytest.raises(ValueError, match="overtrump"):
        TrickRules(4, overtrump=True)
    with pytest.raises(ValueError, match="teams"):
        TrickRules(4, teams=(0, 1))
    with pytest.raises(ValueError, match="share a power"):
        TrickRules(2, layout={2: (0, 1), 3: (0, 1)})
    with pytest.raises(ValueError, match="effective suit"):
        TrickRules(2, layout={2: (7, 1)})
    with pytest.raises(ValueError, match="not in the layout"):
        TrickRules(2, layout={2: (0, 1)}, points={3: 1})
    with pytest.raises(ValueError, match="trump"):
        TrickRules(2, trump=9)
    with pytest.raises(ValueError, match="unknown trick game"):
        trick_rules("poker")


def test_rules_pickle_and_repr():
    rules = trick_rules("filcau", trump=Suit.SPADES)
    again = pickle.loads(pickle.dumps(rules))
    assert repr(again) == repr(rules)
    assert again.layout == rules.layout and again.points == rules.points
    assert "layout=<20 cards>" in repr(rules)


# -- playouts -----------------------------------------------------------------------------------


def whist_hands(seed: int, players: int = 4, size: int = 8) -> list[int]:
    deck = list(whist_deck(players))
    random.Random(seed).shuffle(deck)
    return [mask_of(deck[i * size : (i + 1) * size]) for i in range(players)]


def test_playouts_count_every_trick_and_repeat_with_the_seed():
    rules = whist(4)
    hands = whist_hands(1)
    won, pts = playout(rules, hands, 0, seed=3)
    assert sum(won) == 8 and pts == [0, 0, 0, 0]
    assert playout(rules, hands, 0, seed=3) == (won, pts)
    stats = playouts(rules, hands, 0, n=500, seed=9)
    assert sum(stats["tricks"]) == pytest.approx(8)
    assert all(sum(h) == 500 for h in stats["hist"])
    assert stats == playouts(rules, hands, 0, n=500, seed=9)


def test_greedy_playout_follows_its_policy():
    """Lead high; under a partner's winning card play low; else win as cheaply as possible."""
    a_s, k_s = idx("AS KS")
    rules = TrickRules(4, None, teams=(0, 1, 0, 1), points={k_s: 10})
    hands = [mask_of(parse_cards(h)) for h in ("AS 2H", "2S 3H", "KS 4S", "3S 5H")]
    # A♠ 2♠ 4♠ (not K♠ under the partner's ace) 3♠; then 2♥ 3♥ K♠ (discard) 5♥: the
    # ten points of K♠ go to seat 3
    assert playout(rules, hands, 0, policy="greedy") == ([1, 0, 0, 1], [0, 0, 0, 10])
    assert a_s != k_s


def test_playouts_from_the_middle_of_a_trick_and_with_points():
    rules = trick_rules("sixty-six", trump=Suit.CLUBS)
    hands = [mask_of(parse_cards("AH KH")), mask_of(parse_cards("10H JC"))]
    # seat 1 led 10♥; seat 0 must head it with A♥
    won, pts = playout(rules, [hands[0], mask_of(parse_cards("JC"))], 1, idx("10H"), seed=1)
    assert sum(won) == 2 and sum(pts) == 11 + 4 + 10 + 2 + 10  # all card points + last trick
    stats = playouts(rules, hands, 0, n=50, policy="greedy", epsilon=0.5, seed=2)
    assert sum(stats["points"]) == pytest.approx(11 + 4 + 10 + 2 + 10)


def test_deal_playouts_deal_from_the_deck():
    rules = whist(4)
    out = deal_playouts(rules, mask_of(whist_deck(4)), 8, n=2000, seed=4)
    assert sum(out["tricks"]) == 8 * 2000
    assert all(t > 3000 for t in out["tricks"])  # random leaders: every seat takes its share
    fixed = deal_playouts(rules, mask_of(whist_deck(4)), 2, n=100, leader=0, policy="greedy")
    assert sum(fixed["tricks"]) == 200
    with pytest.raises(ValueError, match="deck"):
        deal_playouts(rules, mask_of(whist_deck(4)), 9, n=1)
    filcau = trick_rules("filcau", trump=Suit.HEARTS)
    deck = [16 * s + r for s in range(4) for r in (10, 11, 12, 13, 14)]
    out = deal_playouts(filcau, deck, 5, n=300, seed=1)
    assert sum(out["points"]) == 8 * 300


def test_bad_positions_are_rejected_with_the_reason():
    rules = TrickRules(3)
    with pytest.raises(ValueError, match="shares a card"):
        playout(rules, [0b100, 0b100, 0b1000], 0)
    with pytest.raises(ValueError, match="policy"):
        playout(rules, [0b100, 0b1000, 0b10000], 0, policy="smart")
    with pytest.raises(ValueError, match="on the trick and in a hand"):
        playout(rules, [0b100, 0b1000, 0b10000], 0, [2])
    filcau = trick_rules("filcau", trump=Suit.HEARTS)
    with pytest.raises(ValueError, match="not in this deal's layout"):
        legal_cards(filcau, mask_of(parse_cards("2H")))


def test_solves_run_in_parallel_threads():
    """The search releases the GIL and shares nothing between solver objects."""
    rules = trick_rules("bridge", trump=Suit.SPADES)
    deals = []
    rng = random.Random(3)
    for _ in range(8):
        deck = [c.index for c in french_deck()]
        rng.shuffle(deck)
        deals.append([sum(1 << c for c in deck[i * 7 : i * 7 + 7]) for i in range(4)])
    want = [Solver(rules).solve(d, 0, objective=tricks(team=0)) for d in deals]
    got: dict[int, int] = {}

    def work(i: int) -> None:
        got[i] = Solver(rules).solve(deals[i], 0, objective=tricks(team=0))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(deals))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [got[i] for i in range(len(deals))] == want


def test_cards_print_back_for_italian_decks():
    rules = trick_rules("bestia", trump=Suit.COPPE)
    hand = [Card.parse(t) for t in ("Kc", "7b", "Ab")]
    assert legal(rules, " ".join(map(str, hand)), "2b") == {"7b"}


def test_another_kernel_can_cimport_the_rules_struct(tmp_path):
    """Later kernels reach the C rules and the inline legal-card test through rules.pxd."""
    out = build_and_run(
        tmp_path,
        """
        # cython: language_level=3
        from levata.engine.cardmask cimport mask_t
        from levata.engine.rules cimport TrickRules, tk_trick, tk_start, tk_play, tk_legal

        def legal_after(TrickRules rules, mask_t hand, int led_card):
            cdef tk_trick t
            tk_start(&t, 0)
            tk_play(&rules.c, &t, led_card)
            return tk_legal(&rules.c, hand, &t)
        """,
        "import probe; from levata.engine import parse_cards as p;"
        "from levata.engine.cardmask import mask_of;"
        "from levata.engine.rules import TrickRules;"
        "r = TrickRules(4, 2, must_trump=True);"
        "print(probe.legal_after(r, mask_of(p('9H JH AD')), p('KS')[0].index)"
        " == mask_of(p('9H JH')))",
    )
    assert out == "True"


# -- steering: aim_reach ------------------------------------------------------------------------


def reach_reference(rules, hands, leader, trick, targets, seat, taken):
    """aim_reach by brute force in Python: every card of ``seat`` tried, every other seat
    playing aim_playout's policy (``_aim_card``)."""
    n = rules.seats
    held = [list(h) for h in hands]
    current, got, lead = list(trick), list(taken), leader
    while True:
        if len(current) == n:
            best = winning_card(rules, current)
            lead = (lead + current.index(best)) % n
            got[lead] += 1
            current = []
        s = (lead + len(current)) % n
        if not held[s]:
            return 1 << got[seat]
        allowed = duty_cards(rules, held[s], current)
        if s == seat:
            out = 0
            for card in allowed:
                after = [list(h) for h in held]
                after[seat].remove(card)
                out |= reach_reference(rules, after, lead, [*current, card], targets, seat, got)
            return out
        card = _aim_card(rules, allowed, current, got[s] < targets[s], len(current) == n - 1)
        held[s].remove(card)
        current.append(card)


@pytest.mark.parametrize("seed", range(12))
def test_aim_reach_is_every_total_the_seat_can_steer_to(seed):
    """The kernel's totals are the brute-force ones (its merged cards change nothing), and
    each seat's own aiming playout ends inside them."""
    rng = random.Random(seed)
    players, size = 3 + seed % 2, 4
    deck = list(whist_deck(players))
    rng.shuffle(deck)
    rules = whist(players, rng.choice([None, *Suit]))
    hands = [sorted(deck[i * size : (i + 1) * size]) for i in range(players)]
    leader = rng.randrange(players)
    trick = []
    for k in range(seed % players):  # a trick in progress, from legal cards
        s = (leader + k) % players
        card = rng.choice(duty_cards(rules, hands[s], trick))
        hands[s].remove(card)
        trick.append(card)
    taken = [rng.randrange(2) for _ in range(players)]
    targets = [rng.randrange(size + 1) for _ in range(players)]
    masks = [mask_of(h) for h in hands]
    for seat in range(players):
        got = aim_reach(rules, masks, leader, trick, targets, seat, taken)
        assert got == reach_reference(rules, hands, leader, trick, targets, seat, taken)
        for aim in range(size + 1):
            mine = [*targets[:seat], aim, *targets[seat + 1 :]]
            took = aim_playout(rules, hands, leader, trick, mine, taken)[seat]
            assert got >> took & 1


def own_card_reference(rules, allowed, trick, need, left, last, style):
    """aim_lines' own play in Python: made, duck as aim_playout does; short and at the
    style's pace, play to win (the cheapest winner with style bit 0, a side-suit lead with
    bit 1); else wait (lead low, the lowest loser)."""

    def weak(c):
        return suit_of(rules, c) == rules.trump, power(rules, c), suit_of(rules, c)

    def strong(c):
        return suit_of(rules, c) == rules.trump, power(rules, c), -suit_of(rules, c)

    if need <= 0:
        return _aim_card(rules, allowed, trick, False, last)
    if 100 * need >= (style >> 2) * left:
        side = [c for c in allowed if suit_of(rules, c) != rules.trump]
        if not trick and style & 2 and side:
            return max(side, key=strong)
        if not trick or not style & 1:
            return _aim_card(rules, allowed, trick, True, last)
        best = winning_card(rules, trick)
        winners = [c for c in allowed if beats(rules, c, best)]
        return min(winners or allowed, key=weak)
    if not trick:
        return min(allowed, key=weak)
    best = winning_card(rules, trick)
    losers = [c for c in allowed if not beats(rules, c, best)]
    return min(losers or allowed, key=weak)


def line_reference(rules, hands, leader, trick, targets, seat, taken, style):  # noqa: PLR0913  (the kernel call it checks, argument for argument)
    n = rules.seats
    held = [list(h) for h in hands]
    current, got, lead = list(trick), list(taken), leader
    while True:
        if len(current) == n:
            best = winning_card(rules, current)
            lead = (lead + current.index(best)) % n
            got[lead] += 1
            current = []
        s = (lead + len(current)) % n
        if not held[s]:
            return got[seat]
        allowed = duty_cards(rules, held[s], current)
        last = len(current) == n - 1
        if s == seat:
            need = targets[s] - got[s]
            card = own_card_reference(rules, allowed, current, need, len(held[s]), last, style)
        else:
            card = _aim_card(rules, allowed, current, got[s] < targets[s], last)
        held[s].remove(card)
        current.append(card)


@pytest.mark.parametrize("seed", range(12))
def test_aim_lines_play_each_style_to_the_end(seed):
    """Each style's total is the Python reference's; style 0 is aim_playout's play; every
    style ends inside aim_reach's totals; and the styles do not all agree everywhere."""
    rng = random.Random(100 + seed)
    players, size = 3 + seed % 3, 6
    deck = list(whist_deck(players))
    rng.shuffle(deck)
    rules = whist(players, rng.choice([None, *Suit]))
    hands = [sorted(deck[i * size : (i + 1) * size]) for i in range(players)]
    leader = rng.randrange(players)
    trick = []
    for k in range(seed % players):
        s = (leader + k) % players
        card = rng.choice(duty_cards(rules, hands[s], trick))
        hands[s].remove(card)
        trick.append(card)
    taken = [rng.randrange(2) for _ in range(players)]
    masks = [mask_of(h) for h in hands]
    styles = (0, 1, 2, 3, 200, 201, 202, 203, 400, 401, 403, 132)
    differ = 0
    for seat in range(players):
        for _ in range(4):
            targets = [rng.randrange(size + 1) for _ in range(players)]
            got = aim_lines(rules, masks, leader, trick, targets, seat, taken, styles)
            want = [
                line_reference(rules, hands, leader, trick, targets, seat, taken, style)
                for style in styles
            ]
            assert got == want
            assert got[0] == aim_playout(rules, hands, leader, trick, targets, taken)[seat]
            reach = aim_reach(rules, masks, leader, trick, targets, seat, taken)
            assert all(reach >> t & 1 for t in got)
            differ += len(set(got)) > 1
    assert differ


def test_aim_reach_checks_its_arguments():
    rules = whist(3)
    hands = whist_hands(2, players=3, size=2)
    assert aim_reach(rules, hands, 0, targets=[0, 0, 0], seat=1) > 0
    with pytest.raises(ValueError, match="targets"):
        aim_reach(rules, hands, 0, targets=[0, 0], seat=1)
    with pytest.raises(ValueError, match="seat"):
        aim_reach(rules, hands, 0, targets=[0, 0, 0], seat=3)
    assert len(aim_lines(rules, hands, 0, targets=[0, 0, 0], seat=1, styles=(0, 1))) == 2
    with pytest.raises(ValueError, match="targets"):
        aim_lines(rules, hands, 0, targets=[0, 0], seat=1)
    with pytest.raises(ValueError, match="seat"):
        aim_lines(rules, hands, 0, targets=[0, 0, 0], seat=3)
