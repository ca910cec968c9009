# Card sets as 64-bit masks: bit (slot * 16 + rank) is set when the card is in the set.
# Kernels `cimport` these inline helpers: `from levata.engine.cardmask cimport mask_t, popcount`.

ctypedef unsigned long long mask_t

cdef inline int popcount(mask_t m) noexcept nogil:
    return __builtin_popcountll(m)

cdef inline int lowest(mask_t m) noexcept nogil:
    """Index of the lowest set bit; -1 for the empty set."""
    if m == 0:
        return -1
    return __builtin_ctzll(m)

cdef inline int highest(mask_t m) noexcept nogil:
    """Index of the highest set bit; -1 for the empty set."""
    if m == 0:
        return -1
    return 63 - __builtin_clzll(m)

cdef inline mask_t bit(int i) noexcept nogil:
    """The set holding index `i` alone."""
    return (<mask_t>1) << i

cdef inline mask_t below(int i) noexcept nogil:
    """Every index under `i`."""
    return ((<mask_t>1) << i) - 1

cdef inline mask_t suit_bits(int slot) noexcept nogil:
    """Every rank position of one suit slot (0..3)."""
    return (<mask_t>0xFFFF) << (16 * slot)

cdef extern from *:
    int __builtin_popcountll(unsigned long long) nogil
    int __builtin_ctzll(unsigned long long) nogil
    int __builtin_clzll(unsigned long long) nogil
