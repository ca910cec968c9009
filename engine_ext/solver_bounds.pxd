# The solver's bounds: what a position is worth at least or at most without a search, at a
# trick start (trick_bounds) and inside a trick (sure_then_cash); see solver_bounds.pyx.
# The search (solver.pyx) calls them (points_left, the points objective's bound, is
# inline); the move ordering (solver_order.pyx) shares the inline test of whether a card
# still to be played to the trick can be beaten.
#
#   from levata.engine.solver_bounds cimport trick_bounds, beaten_later

from levata.engine.cardmask cimport highest, lowest, mask_t
from levata.engine.rules cimport TK_FOLLOW, TK_MAX_SEATS, tk_rules, tk_trick
from levata.engine.solver_state cimport Ctx

# LATER[n][leader][count]: the seats that play to a trick of n seats after the seat at
# position `count` from `leader`, as a bit mask (filled when solver_bounds is imported)
cdef unsigned char LATER[TK_MAX_SEATS + 1][TK_MAX_SEATS][TK_MAX_SEATS]


cdef void trick_bounds(
    const Ctx* c, int leader, int R, bint cash_counts, int alpha, int beta,
    int* lo, int* hi, mask_t* wlo, mask_t* whi,
) noexcept nogil

cdef int sure_then_cash(
    Ctx* c, const tk_trick* t, int seat, mask_t legal, int need, mask_t* win
) noexcept nogil


cdef inline int later_others(const Ctx* c, const tk_trick* t, int seat) noexcept nogil:
    """The seats of the other side than `seat`'s that play to trick `t` after the seat whose
    turn it is, as a bit mask."""
    return LATER[c.n][t.leader][t.count] & (~c.side if (c.side >> seat) & 1 else c.side)


cdef inline void later_threats(
    const Ctx* c, const tk_trick* t, int seat, int led, mask_t* high, mask_t* ruff
) noexcept nogil:
    """What the seats of the other side still to play to trick `t` (led in `led`) could beat
    a card with: `high` gets their cards of the led suit, `ruff` the trumps of those that
    may play one (void in the led suit, or with no duty to follow). Once per node, so that
    each card's test (beaten_by) is a few comparisons."""
    cdef const tk_rules* r = c.r
    cdef int x = later_others(c, t, seat), s
    cdef bint follow = (r.duties & TK_FOLLOW) != 0
    cdef mask_t f, h = 0, u = 0
    while x:
        s = lowest(x)
        x &= x - 1
        f = c.hand[s] & r.suit_mask[led]
        h |= f
        if r.trump >= 0 and (not f or not follow):
            u |= c.hand[s] & r.suit_mask[r.trump]
    high[0] = h
    ruff[0] = u


cdef inline bint beaten_by(
    const tk_rules* r, int led, mask_t high, mask_t ruff, int card
) noexcept nogil:
    """Is `card`, as the winner of a trick led in `led`, beaten by a card of `high` or `ruff`
    (see later_threats)? Higher in the led suit; any trump over a side suit, a higher one
    over a trump."""
    cdef int sc = r.suit_of[card]
    if sc == led and highest(high) > card:
        return True
    return ruff != 0 and (sc != r.trump or highest(ruff) > card)


cdef inline bint beaten_later(const Ctx* c, const tk_trick* t, int seat, int card) noexcept nogil:
    """Could a seat of the other side still to play to this trick beat `card` (as if it were
    winning the trick after `seat` plays it)? Holders of the led suit can go higher in it;
    a holder of trumps can ruff or over-ruff when void in the led suit (or at any time when
    there is no duty to follow)."""
    cdef int led = t.led if t.count else c.r.suit_of[card]
    cdef mask_t high, ruff
    later_threats(c, t, seat, led, &high, &ruff)
    return beaten_by(c.r, led, high, ruff, card)


cdef inline int points_left(const Ctx* c, mask_t live) noexcept nogil:
    cdef int g = c.r.last_bonus, i
    while live:
        i = lowest(live)
        live &= live - 1
        g += c.r.points[i]
    return g
