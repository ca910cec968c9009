"""Card notation round-trips, card masks agree with the Python card values."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from levata.engine import Card, Suit, cardmask, french_deck, italian_deck, parse_cards

ALL_CARDS = french_deck() + italian_deck()


@pytest.mark.parametrize("card", ALL_CARDS, ids=str)
def test_notation_round_trips(card):
    assert Card.parse(str(card)) == card


def test_examples_of_notation():
    assert str(Card(Suit.HEARTS, 12)) == "QH"
    assert str(Card(Suit.SPADES, 10)) == "10S"
    assert str(Card(Suit.DIAMONDS, 14)) == "AD"
    assert Card.parse("10♠") == Card.parse("10S")
    assert str(Card(Suit.COPPE, 10)) == "Kc"  # Re di coppe
    assert str(Card(Suit.BASTONI, 9)) == "Cb"  # Cavallo di bastoni
    assert str(Card(Suit.DENARI, 1)) == "Ad"


@pytest.mark.parametrize("bad", ["", "Q", "1H", "11H", "QX", "CH", "8c", "10 S"])
def test_bad_notation_is_a_clear_error(bad):
    with pytest.raises(ValueError, match=r"card|suit|rank"):
        Card.parse(bad)


def test_decks():
    assert len(set(french_deck())) == 52 and len(set(italian_deck())) == 40
    assert len({c.index for c in french_deck()}) == 52
    assert len({c.index for c in italian_deck()}) == 40
    assert all(0 <= c.index < 64 for c in ALL_CARDS)


def test_colour():
    assert Card.parse("KH").red and Card.parse("2D").red
    assert not Card.parse("KC").red and not Card.parse("KS").red


@given(st.lists(st.sampled_from(french_deck()), unique=True))
def test_mask_round_trip_french(cards):
    m = cardmask.mask_of(cards)
    assert cardmask.count(m) == len(cards)
    assert cardmask.cards_of(m) == sorted(cards, key=lambda c: c.index)


@given(st.lists(st.sampled_from(italian_deck()), unique=True))
def test_mask_round_trip_italian(cards):
    m = cardmask.mask_of(cards)
    assert cardmask.cards_of(m, italian=True) == sorted(cards, key=lambda c: c.index)


@given(st.lists(st.sampled_from(french_deck()), unique=True), st.integers(0, 3))
def test_mask_suits_and_extremes(cards, slot):
    m = cardmask.mask_of(cards)
    in_suit = [c for c in cards if c.suit.slot == slot]
    assert cardmask.cards_of(cardmask.in_suit(m, slot)) == sorted(in_suit, key=lambda c: c.index)
    if cards:
        assert cardmask.highest_index(m) == max(c.index for c in cards)
        assert cardmask.lowest_index(m) == min(c.index for c in cards)
    else:
        assert cardmask.highest_index(m) == cardmask.lowest_index(m) == -1


def test_mask_rejects_duplicates():
    with pytest.raises(ValueError, match="twice"):
        cardmask.mask_of(parse_cards("AS AS"))


def test_highest_card_of_a_suit_is_a_bit_scan():
    rng = random.Random(3)
    for _ in range(200):
        hand = rng.sample(french_deck(), 13)
        for slot in range(4):
            mine = [c for c in hand if c.suit.slot == slot]
            top = cardmask.highest_index(cardmask.in_suit(cardmask.mask_of(hand), slot))
            assert top == (max(c.index for c in mine) if mine else -1)
