# The solver's moves: which cards a node searches and in what order; see solver_order.pyx.
# The helpers the search calls once per node or trick start are inline here, so that they
# compile into the search as they did when the solver was one file; order_moves, the big
# one, is a C call.
#
#   from levata.engine.solver_order cimport order_moves, representatives

from levata.engine.cardmask cimport below, bit, highest, lowest, mask_t, popcount
from levata.engine.rules cimport tk_above, tk_rules, tk_trick
from levata.engine.solver_state cimport K_POINTS, Ctx


cdef int order_moves(
    const Ctx* c, const tk_trick* t, int seat, mask_t moves, mask_t live, int hint, int tt_hint,
    int* out,
) noexcept nogil


cdef inline int rel_rank(const Ctx* c, int card, mask_t live) noexcept nogil:
    """A card as a hint to store: its rank among the live cards of its suit (hint_card reads
    it back)."""
    return popcount(live & c.r.suit_mask[c.r.suit_of[card]] & below(card))


cdef inline mask_t representatives(const Ctx* c, mask_t legal, mask_t live) noexcept nogil:
    """One card of each run of equivalent legal cards: a card whose next lower live card of
    its suit is also a legal card of this hand wins and loses exactly like it (with equal
    points when points count)."""
    cdef const tk_rules* r = c.r
    cdef mask_t out = 0, x = legal, lower, suit, l, up
    cdef int b, p
    if legal & (legal - 1) == 0:
        return legal
    if c.kind == K_POINTS:
        # equal points as well: a card at a time
        while x:
            b = lowest(x)
            x &= x - 1
            lower = live & r.suit_mask[r.suit_of[b]] & below(b)
            if lower:
                p = highest(lower)
                if (legal >> p) & 1 and r.points[p] == r.points[b]:
                    continue
            out |= bit(b)
        return out
    # a suit at a time: adding (l << 1) carries each legal card's bit above it up through
    # everything but the suit's live cards, to the next live card of the suit; the cards
    # reached sit on top of a legal card
    while x:
        suit = live & r.suit_mask[r.suit_of[lowest(x)]]
        l = x & suit
        x &= ~l
        up = ((l << 1) + ~suit) & suit
        out |= l & ~up
    return out


cdef inline int hint_card(const Ctx* c, int hint, mask_t live, mask_t legal) noexcept nogil:
    """Turn a stored hint back into a card of this position, or -1."""
    cdef int e, k, card, p
    cdef mask_t x
    if hint < 0:
        return -1
    e = hint >> 8
    k = hint & 255
    x = live & c.r.suit_mask[e]
    while k > 0 and x:
        x &= x - 1
        k -= 1
    if x == 0:
        return -1
    card = lowest(x)
    if not (legal >> card) & 1:
        return -1
    # the stored card may stand for a lower equivalent one: walk down to the run's lowest
    while True:
        x = live & c.r.suit_mask[e] & below(card)
        if x == 0:
            break
        p = highest(x)
        if not (legal >> p) & 1:
            break
        card = p
    return card


cdef inline mask_t class_ranks(const Ctx* c, mask_t moves, mask_t legal, mask_t live, mask_t win) noexcept nogil:
    """Ranks to add to `win` because equivalent cards were merged at this node: a run that
    reaches the significant part of its suit must be significant as a whole, or a position
    sharing the abstraction could split it."""
    cdef const tk_rules* r = c.r
    cdef mask_t add = 0, up, ws
    cdef int m, top, e, nxt
    if moves == legal and c.kind != K_POINTS:
        # nothing was merged: no legal card sits right above another (see representatives)
        return 0
    while moves:
        m = lowest(moves)
        moves &= moves - 1
        e = r.suit_of[m]
        top = m
        while True:
            up = live & r.suit_mask[e] & tk_above(top)
            if up == 0:
                break
            nxt = lowest(up)
            if not (legal >> nxt) & 1:
                break
            top = nxt
        if top != m:
            ws = win & r.suit_mask[e]
            if ws and lowest(ws) <= top:
                add |= bit(m)
    return add
