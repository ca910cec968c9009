# cython: language_level=3
"""Card sets as 64-bit masks, the representation every search kernel uses.

>>> from levata.engine.cards import parse_cards
>>> m = mask_of(parse_cards("AS KS 2C"))
>>> count(m)
3
>>> [str(c) for c in cards_of(m)]
['2C', 'KS', 'AS']
>>> [str(c) for c in cards_of(in_suit(m, 3))]
['KS', 'AS']
"""

from levata.engine.cards import Card


cpdef mask_t mask_of(object cards) except? 0:
    """The mask of distinct cards; a repeated card is an error (masks are sets)."""
    cdef mask_t m = 0
    cdef mask_t b
    for c in cards:
        b = bit(<int>c.index)
        if m & b:
            raise ValueError(f"card {c} appears twice; a mask holds distinct cards")
        m |= b
    return m


cpdef list cards_of(mask_t m, bint italian=False):
    """The cards of a mask in index order (suit slot, then rank)."""
    cdef list out = []
    cdef int i
    while m:
        i = lowest(m)
        out.append(Card.from_index(i, italian))
        m &= m - 1
    return out


cpdef int count(mask_t m) noexcept:
    """Number of cards in the set."""
    return popcount(m)


cpdef mask_t in_suit(mask_t m, int slot) noexcept:
    """The cards of one suit slot (0..3)."""
    return m & suit_bits(slot)


cpdef int highest_index(mask_t m) noexcept:
    """Index of the highest card by index order, -1 when empty."""
    return highest(m)


cpdef int lowest_index(mask_t m) noexcept:
    """Index of the lowest card by index order, -1 when empty."""
    return lowest(m)
