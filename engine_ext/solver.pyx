# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Double-dummy solver of trick play: the value of a position with every hand in view.

The rules come from :class:`~levata.engine.rules.TrickRules`; hands are card masks, a trick
in progress the card indexes played to it from ``leader``.

>>> from levata.engine.cards import Suit, parse_cards
>>> from levata.engine.cardmask import mask_of
>>> from levata.engine.rules import TrickRules
>>> rules = TrickRules(3, Suit.HEARTS, must_trump=True)   # Romanian Whist, hearts trumps
>>> hands = [mask_of(parse_cards(h)) for h in ("AS KS 2H", "QS JS 3D", "10S 4H 5D")]
>>> solve(rules, hands, leader=0, objective=tricks(0))  # A♠ wins; seat 2 must ruff K♠
2
>>> [solve(rules, hands, leader=0, objective=exact(0, target=k)) for k in range(4)]
[0, 1, 1, 0]
>>> solve(rules, hands, leader=0, objective=exact(0, target=3, already=1))  # bid 3, won 1
1
>>> values = best_cards(rules, hands, leader=0, seat=0, objective=tricks(0))
>>> {str(Card.from_index(i)): v for i, v in values.items()}
{'2H': 1, 'KS': 2, 'AS': 2}

Objectives are *paranoid*: the side named by the objective maximises its value and every
other seat, whatever its own interest, minimises it. ``tricks(side)`` counts the tricks the
side takes from the position on (the trick in progress included); ``points(side)`` the card
points in those tricks (plus the rules' last-trick bonus); ``exact(side, target, already=k)``
is 1 when the side can force ending the deal with exactly ``target`` tricks, counting ``k``
tricks it won before the position, and 0 when the others can make it miss.

The solver is five files, one concern each: this one is the search (fail-soft alpha-beta,
exact targets, null windows from a playout guess) and the public API; ``solver_bounds``
the bounds that cut without searching, ``solver_order`` the moves searched and their
order, ``solver_table`` the transposition and winning-ranks tables, and
``solver_state.pxd`` the search context they share (see there for the map). They call
each other in C, through their ``.pxd`` files.

CPU time, measured (issue 30; 900 13-card deals against main's build, interleaved runs, the
same nodes on every deal): the search waits mostly on cache misses in the winning-ranks table
(its hottest instructions are the loads of a bucket head and of a chain entry), not on
calls or code. Kept: wr_probe deposits an entry's cards with the pdep instruction (0.98x).
Dropped: the five files as one extension (the parts as ``.pxi`` files included here, so
the search calls them directly and GCC inlines the table's look-up and store: 1.00x and
1.02x, commit 9f5d037); profile-guided optimisation (1.01x); -O2, -fno-wrapv or
-funroll-loops instead of the default -O3 (1.17x, 1.09x, 1.11x); asking for the likeliest
bucket head before the trick-start bounds (1.03x).

Nodes against DDS (150 deals of seed 1; DDS's futureTricks.nodes counts the tricks it
enters): before the move order took DDS's lead and third-hand rules, this search entered a
median 1.5x DDS's trick starts at about 1.15x its time per trick start, so the nodes, not
the time per node, made most of the gap; the leads are where the order errs (the first
lead searched failed at 10% of the lead nodes that cut off, the first follow at 1-3%). The
first null window's value matters less: an oracle guess (the true value) saved 14% of the
nodes at the median (seed 3, 100 deals, the old order), and neither 32 playouts, the move
order's own first choices, nor a bias of the guess up or down came near it (seeds 3 and 11;
the bias measured with the new order, 200 deals each).

Between null windows (300 deals of seeds 3 and 11; trick starts and nodes about -1.3% and
-1.0% together): each window starts with fresh killers and table-cut hints (DDS's
ResetBestMoves; alone -0.8% / -0.2%), and the root skips a card an earlier window's bound
settles (alone -0.3% / -0.2%: the table makes the re-search of a refuted card cheap).
Where the order errs most (seed 3): the root, whose cards searched before the one that cut
in a window that succeeded hold 14% of the trick starts; 60% are in the root's failing windows,
where every card is searched. Dropped: at a node where every card failed, the hint stored
is the card whose search took the most nodes, not the first of the best fail-soft values
(-2.3% / +1.0%; at the root alone -2.9% / +0.4%, one deal of seed 3 making the gain), or
the killer (+0.1% / +0.4%); keeping the killer as the second one across windows (-0.7% /
-0.1%), or resetting the second killer only (-0.2% / +0.1%).
"""

from libc.limits cimport LLONG_MAX
from libc.stdlib cimport free, malloc
from libc.string cimport memset

from levata.engine.cardmask cimport below, bit, highest, lowest, mask_t, popcount
from levata.engine.playouts cimport P_GREEDY, run_playout
from levata.engine.rules cimport (
    TK_HEAD,
    TK_MAX_SEATS,
    TK_OVERTRUMP,
    TK_SUITS,
    TK_SURE_POT,
    TrickRules,
    load_position,
    load_pot,
    tk_legal,
    tk_legal_at,
    tk_play,
    tk_rules,
    sure_pot_cards,
    tk_start,
    tk_trick,
)
from levata.engine.solver_bounds cimport points_left, sure_then_cash, trick_bounds
from levata.engine.solver_order cimport (
    class_ranks,
    hint_card,
    order_moves,
    rel_rank,
    representatives,
)
from levata.engine.solver_state cimport (
    BIG,
    F_MERGE,
    F_PROBE,
    F_QUICK,
    F_REL,
    F_SETS,
    F_TT,
    F_WR,
    K_EXACT,
    K_POINTS,
    K_TRICKS,
    KILLER_BITS,
    Ctx,
    killer_slot,
    path_step,
    tt_entry,
)
from levata.engine.solver_table cimport (
    pos_key,
    shape_key,
    table_layout,
    tk_cpu_bmi2,
    tk_prefetch,
    tk_squeeze,
    tk_squeeze_prep,
    tk_squeeze_t,
    tk_table_alloc,
    tk_table_free,
    tk_use_bmi2,
    tt_find,
    tt_slot,
    wr_bucket,
    wr_clear,
    wr_probe,
    wr_probe_sets,
    wr_store,
)

from levata.engine.cards import Card

tk_use_bmi2 = tk_cpu_bmi2()  # for the hands squeezed into pext space (see solver_table.pxd)

__all__ = [
    "Objective",
    "SearchLimit",
    "Solver",
    "best_cards",
    "exact",
    "points",
    "solve",
    "tricks",
]


class SearchLimit(RuntimeError):
    """A search ran out of the nodes it was given (``max_nodes``) before it had a value."""


# ------------------------------------------------------------------------------------------
# Objectives


cdef class Objective:
    """What a search maximises; build it with :func:`tricks`, :func:`points` or :func:`exact`.

    The side is a seat, several seats, or a ``team`` id of the rules; every other seat plays
    against it (paranoid search).
    """

    def __init__(self, str kind, seats=None, team=None, int target=0, int already=0):
        if kind not in ("tricks", "points", "exact"):
            raise ValueError(f"unknown objective {kind!r}")
        if (seats is None) == (team is None):
            raise ValueError("name the side by seat(s) or by team, not both")
        if seats is not None:
            seats = (int(seats),) if isinstance(seats, int) else tuple(int(s) for s in seats)
            if not seats:
                raise ValueError("the side needs at least one seat")
        self.kind, self.seats, self.team = kind, seats, team
        self.target, self.already = target, already

    cpdef int side_mask(self, TrickRules rules) except -1:
        """The seats of the side as a bit mask (bit s = seat s)."""
        cdef int m = 0
        if self.team is not None:
            for s in range(rules.seats):
                if rules.teams[s] == self.team:
                    m |= 1 << s
            if m == 0:
                raise ValueError(f"no seat is in team {self.team}")
            return m
        for s in self.seats:
            if not 0 <= s < rules.seats:
                raise ValueError(f"seat {s} is not a seat of {rules.seats}")
            m |= 1 << s
        return m

    def __repr__(self):
        side = f"team={self.team}" if self.team is not None else f"seats={self.seats}"
        extra = f", target={self.target}, already={self.already}" if self.kind == "exact" else ""
        return f"Objective({self.kind!r}, {side}{extra})"


def tricks(side=None, *, team=None):
    """Tricks the side takes from the position on (the trick in progress included).

    ``side``: a seat or an iterable of seats; or ``team=`` a team id of the rules.
    """
    return Objective("tricks", side, team)


def points(side=None, *, team=None):
    """Card points the side takes from the position on (cards already on the current trick
    and the rules' last-trick bonus included)."""
    return Objective("points", side, team)


def exact(side=None, target=None, *, team=None, int already=0):
    """1 if the side can force ending with exactly ``target`` tricks, else 0.

    ``already``: tricks the side won before the position (they count toward the target). The
    others try to make the side miss, by taking tricks from it or by giving it extra ones.
    """
    if target is None:
        raise ValueError("exact() needs a target number of tricks")
    return Objective("exact", side, team, int(target), already)


# ------------------------------------------------------------------------------------------
# The search


cdef enum:
    PROBE_FIRST = 6
    GUESS_PLAYOUTS = 8  # greedy playouts behind the first null window's value


cdef inline int trick_gain(const Ctx* c, const tk_trick* t) noexcept nogil:
    """What the completed trick `t` is worth to the side."""
    cdef int g = 0, i
    cdef mask_t x
    if not ((c.side >> t.win_seat) & 1):
        return 0
    if c.kind != K_POINTS:
        return 1
    x = t.cards
    while x:
        i = lowest(x)
        x &= x - 1
        g += c.r.points[i]
    if c.hand[t.win_seat] == 0:
        g += c.r.last_bonus
    return g


cdef inline mask_t rank_win(const tk_rules* r, const tk_trick* t) noexcept nogil:
    """The card whose rank decided a finished trick: the winner, when it beat another card of
    its own suit; nothing when it won as the only card of its suit (a ruff, or discards)."""
    if popcount(t.cards & r.suit_mask[r.suit_of[t.win_card]]) > 1:
        return bit(t.win_card)
    return 0


cdef inline mask_t searched(const Ctx* c, mask_t legal, mask_t live, int seat) noexcept nogil:
    """The legal cards a node searches: one of each run of equivalent cards (F_MERGE).

    Under the sure-pot duty cards are alike only where no card out of play that some seat
    has not seen parts them (it makes one a master and not the other), and only while the
    mover cannot reach the pot holding the other: a secured pot then ranks its cards
    across suits, where neighbours of one suit differ."""
    cdef int w
    if not (c.flags & F_MERGE):
        return legal
    if c.r.duties & TK_SURE_POT:
        w = c.pot.won[seat]
        if w < c.r.pot and w + popcount(c.hand[seat]) > c.r.pot:
            return legal
    return representatives(c, legal, live | c.sep)  # (one inline copy: c.sep is 0 without)


cdef int last_trick(Ctx* c, int leader, mask_t* win) noexcept nogil:
    """Every hand holds one card: play them out."""
    cdef tk_trick t
    cdef int i, s
    cdef int g
    cdef mask_t saved[TK_MAX_SEATS]
    tk_start(&t, leader)
    for i in range(c.n):
        s = (leader + i) % c.n
        saved[s] = c.hand[s]
        tk_play(c.r, &t, lowest(c.hand[s]))
        c.hand[s] = 0
    g = trick_gain(c, &t)
    for s in range(c.n):
        c.hand[s] = saved[s]
    win[0] = rank_win(c.r, &t)
    return g


cdef inline unsigned long long wr_look_up(
    Ctx* c, unsigned long long key, mask_t live, mask_t* comp, int alpha, int beta,
    int* lo, int* hi, mask_t* wlo, mask_t* whi, int* hint,
) noexcept nogil:
    """Tighten lo/hi with the winning-ranks table at a trick start: squeeze the hands into
    `comp` (the store at the node's end reads them too) and look the position up; returns
    its bucket where the table has no suit-set records (wr_store needs it), else 0."""
    cdef tk_squeeze_t sq
    cdef unsigned long long bucket = 0
    cdef int s
    tk_squeeze_prep(&sq, live)  # one mask for the four hands
    for s in range(c.n):
        comp[s] = tk_squeeze(&sq, c.hand[s])
    c.probes += 1
    if c.flags & F_SETS:
        wr_probe_sets(c, key, live, comp, alpha, beta, lo, hi, wlo, whi, hint)
    else:
        bucket = wr_bucket(c, key, live)
        wr_probe(c, key, bucket, live, comp, alpha, beta, lo, hi, wlo, whi, hint)
    return bucket


cdef int ab(Ctx* c, const tk_trick* tp, int alpha, int beta, mask_t* win) noexcept nogil:
    """Fail-soft alpha-beta on the side's value from this node to the end of the deal.

    With the winning-ranks table on, `win` returns the cards whose ranks the result relies
    on (see wr_store); otherwise it is left alone."""
    cdef const tk_rules* r = c.r
    cdef int n = c.n
    cdef int seat = tp.leader + tp.count
    cdef int R = 0, lo, hi, a0 = alpha, b0 = beta, best, v, gain, i, k, m, hint = -1, bestm = -1
    cdef int maxim, s, low, l2, h2
    cdef mask_t wl2 = 0, wh2 = 0
    cdef bint wr = (c.flags & F_WR) != 0, cut = False, root = c.at_root != 0
    cdef mask_t live, legal, moves, wlo = 0, whi = 0, w = 0, wc, wnode = 0
    cdef unsigned long long key = 0, bucket = 0
    cdef tt_entry* e
    cdef tk_trick t2, t3
    cdef int mv[64]
    cdef int small[TK_SUITS]
    cdef mask_t comp[4]
    cdef unsigned int path = c.path
    if seat >= n:
        seat -= n
    c.at_root = 0
    c.nodes += 1
    if c.nodes > c.limit:  # out of nodes: unwind, storing nothing
        c.stopped = 1
    if c.stopped:
        win[0] = 0
        return 0
    live = tp.cards
    for i in range(n):
        live |= c.hand[i]
    if tp.count == 0:
        c.starts += 1
        R = popcount(c.hand[tp.leader])
        if R == 0:
            win[0] = 0
            return 0
        if R == 1:
            return last_trick(c, tp.leader, win)
        if wr:
            # the shape's suit-set record is a cache miss: ask for it now, and the bounds
            # below run while it comes
            key = shape_key(c, tp.leader)
            if c.flags & F_SETS:
                tk_prefetch(&c.sets[key & c.sets_mask])
        if wr and R >= PROBE_FIRST and (c.flags & F_SETS) and (c.flags & F_QUICK):
            # Far from the end the table cuts three starts in five and the bounds one in six:
            # look it up first, as DDS does from 6 tricks left, and work the bounds out only
            # where it did not cut (1.6-2% more trick starts, as a cut by the table rests on
            # more cards than one by a bound would, but 0.94-0.96x CPU time on tuning seeds
            # 3 and 11; from 5 or 7 tricks left on, 0.94-0.95x and 0.95-0.99x).
            lo = 0
            hi = R
            wr_look_up(c, key, live, comp, alpha, beta, &lo, &hi, &wlo, &whi, &hint)
            if lo >= beta:
                win[0] = wlo
                return lo
            if hi <= alpha:
                win[0] = whi
                return hi
            trick_bounds(c, tp.leader, R, 1, alpha, beta, &l2, &h2, &wl2, &wh2)
            if l2 > lo:
                lo = l2
                wlo = wl2
            if h2 < hi:
                hi = h2
                whi = wh2
        else:
            if c.kind == K_TRICKS:
                if c.flags & F_QUICK:
                    trick_bounds(c, tp.leader, R, 1, alpha, beta, &lo, &hi, &wlo, &whi)
                else:
                    lo = 0
                    hi = R
            else:
                lo = 0
                hi = points_left(c, live)
            if lo >= beta:
                win[0] = wlo
                return lo
            if hi <= alpha:
                win[0] = whi
                return hi
            if wr:
                bucket = wr_look_up(c, key, live, comp, alpha, beta, &lo, &hi, &wlo, &whi, &hint)
            elif c.flags & F_TT:
                key = pos_key(c, tp.leader, live)
                e = tt_find(c, key)
                c.probes += 1
                if e != NULL:
                    c.hits += 1
                    if <int>e.a > lo:
                        lo = <int>e.a
                    if <int>e.b < hi:
                        hi = <int>e.b
                    hint = e.hint
        if hint >= 0 and (lo >= beta or hi <= alpha or lo == hi):
            # the entry's best card, for the next lead of this leader at this depth (DDS's
            # bestMoveTT)
            c.tt_hint[R][tp.leader] = <short>hint
        if lo >= beta:
            win[0] = wlo
            return lo
        if hi <= alpha:
            win[0] = whi
            return hi
        if lo == hi:
            win[0] = wlo | whi
            return lo
        # a window narrowed by a known bound makes the result lean on that bound's cards too
        if lo > alpha:
            alpha = lo
            wnode |= wlo
        if hi < beta:
            beta = hi
            wnode |= whi
        a0 = alpha
        b0 = beta
    legal = tk_legal(r, c.hand[seat], tp)
    if r.duties & TK_SURE_POT:
        legal = sure_pot_cards(r, c.hand, tp, seat, &c.pot, legal)
    maxim = (c.side >> seat) & 1
    if tp.count and c.kind == K_TRICKS and (c.flags & F_QUICK):
        # mid-trick: a side that makes sure of this trick has a bound one trick better, and
        # at second hand (DDS's place for it) better by the winner's quick tricks as well:
        # at the other seats these cost more time than they save nodes
        R = popcount(c.hand[seat])
        if maxim:
            if beta <= 1 or tp.count == 1:
                v = sure_then_cash(c, tp, seat, legal, beta if tp.count == 1 else 1, &wc)
                if v >= beta:
                    win[0] = wc
                    return v
        elif R - 1 <= alpha or tp.count == 1:
            v = sure_then_cash(c, tp, seat, legal, R - alpha if tp.count == 1 else 1, &wc)
            if v and R - v <= alpha:
                win[0] = wc
                return R - v
    moves = searched(c, legal, live, seat)
    if tp.count == 0:
        hint = hint_card(c, hint, live, legal)
        k = order_moves(
            c, tp, seat, moves, live, hint, hint_card(c, c.tt_hint[R][seat], live, legal), mv
        )
    else:
        k = order_moves(c, tp, seat, moves, live, -1, -1, mv)
    best = -1 if maxim else BIG
    for i in range(TK_SUITS):
        small[i] = -1
    for i in range(k):
        m = mv[i]
        if wr and small[r.suit_of[m]] > m:
            # A card of this suit below every rank the searched cards' proofs used was tried
            # already: this one plays the same (one "small" card per suit).
            continue
        if root and (c.root_hi[m] <= alpha if maxim else c.root_lo[m] >= beta):
            # an earlier null window's bound on this card settles it in this one
            v = c.root_hi[m] if maxim else c.root_lo[m]
            w |= c.root_whi[m] if maxim else c.root_wlo[m]
            if (v > best) if maxim else (v < best):
                best = v
                bestm = m
            continue
        c.hand[seat] ^= bit(m)
        t2 = tp[0]
        tk_play(r, &t2, m)
        wc = 0
        if t2.count == n:
            gain = trick_gain(c, &t2)
            tk_start(&t3, t2.win_seat)
            c.path = path_step(
                path, r.suit_of[t2.win_card], ((c.side >> tp.leader) ^ (c.side >> t2.win_seat)) & 1
            )
            if r.duties & TK_SURE_POT:
                c.pot.won[t2.win_seat] += 1
                v = gain + ab(c, &t3, alpha - gain, beta - gain, &wc)
                c.pot.won[t2.win_seat] -= 1
            else:
                v = gain + ab(c, &t3, alpha - gain, beta - gain, &wc)
            if wr:
                wc |= rank_win(r, &t2)
        else:
            v = ab(c, &t2, alpha, beta, &wc)
        c.path = path
        c.hand[seat] ^= bit(m)
        if c.stopped:
            win[0] = 0
            return 0
        if root:
            if v <= alpha and v < c.root_hi[m]:
                c.root_hi[m] = v
                c.root_whi[m] = wc
            if v >= beta and v > c.root_lo[m]:
                c.root_lo[m] = v
                c.root_wlo[m] = wc
        w |= wc
        if maxim:
            if v > best:
                best = v
                bestm = m
                if best > alpha:
                    alpha = best
        else:
            if v < best:
                best = v
                bestm = m
                if best < beta:
                    beta = best
        if alpha >= beta:
            # a cut-off rests on the refuting card alone
            w = wc
            cut = True
            if tp.count == 0:
                s = killer_slot(c, R, seat)
                if c.killer[s] != m:
                    c.killer2[s] = c.killer[s]
                    c.killer[s] = m
            break
        if wr and small[r.suit_of[m]] < 0:
            # every card of the suit below the lowest rank the proofs so far rely on
            # (all of them, if none) now plays like `m`
            wc = w & r.suit_mask[r.suit_of[m]]
            low = lowest(wc) if wc else 64
            if m < low:
                small[r.suit_of[m]] = low
    if wr:
        w |= wnode
        if (c.flags & F_MERGE) and not cut:
            # Only where every move was refuted: a cut-off rests on the one card that made
            # it, and a position sharing the abstraction plays the card in the same place
            # of its own ranks, whatever runs it holds; an all-moves proof must also cover
            # the cards a merged run stood for.
            w |= class_ranks(c, moves, legal, live, w)
        win[0] = w
    if tp.count == 0 and (c.flags & (F_TT | F_WR)):
        if best <= a0:
            lo = 0
            hi = best
        elif best >= b0:
            lo = best
            hi = BIG
        else:
            lo = best
            hi = best
        hint = (r.suit_of[bestm] << 8) | rel_rank(c, bestm, live) if bestm >= 0 else -1
        if wr:
            wr_store(c, key, bucket, live, comp, w, R, lo, hi if hi < R else R, hint)
        else:
            e = tt_slot(c, key, R)
            if <unsigned long long>hi < e.b:
                e.b = hi
            if <unsigned long long>lo > e.a:
                e.a = lo
            e.hint = hint
    return best


cdef int ex(Ctx* c, const tk_trick* tp, int need) noexcept nogil:
    """1 if the side can force taking exactly `need` more tricks (the current one included)."""
    cdef const tk_rules* r = c.r
    cdef int n = c.n
    cdef int seat = tp.leader + tp.count
    cdef int R = 0, lo, hi, res, v, gain, i, k, m, maxim
    cdef mask_t live, legal, moves, wdummy = 0
    cdef unsigned long long key = 0
    cdef tt_entry* e
    cdef tk_trick t2, t3
    cdef int mv[64]
    if seat >= n:
        seat -= n
    c.nodes += 1
    if c.nodes > c.limit:
        c.stopped = 1
    if c.stopped:
        return 0
    live = tp.cards
    for i in range(n):
        live |= c.hand[i]
    if tp.count == 0:
        R = popcount(c.hand[tp.leader])
        if need < 0 or need > R:
            return 0
        if R == 0:
            return 1
        if R == 1:
            return last_trick(c, tp.leader, &wdummy) == need
        if c.flags & F_QUICK:
            trick_bounds(c, tp.leader, R, 0, -1, BIG, &lo, &hi, &wdummy, &wdummy)
            if need < lo or need > hi:
                return 0
        if c.flags & F_TT:
            key = pos_key(c, tp.leader, live)
            e = tt_find(c, key)
            if e != NULL:
                if (e.a >> need) & 1:
                    return 1
                if (e.b >> need) & 1:
                    return 0
    legal = tk_legal(r, c.hand[seat], tp)
    if r.duties & TK_SURE_POT:
        legal = sure_pot_cards(r, c.hand, tp, seat, &c.pot, legal)
    moves = searched(c, legal, live, seat)
    k = order_moves(c, tp, seat, moves, live, -1, -1, mv)
    maxim = (c.side >> seat) & 1
    res = 0 if maxim else 1
    for i in range(k):
        m = mv[i]
        c.hand[seat] ^= bit(m)
        t2 = tp[0]
        tk_play(r, &t2, m)
        if t2.count == n:
            gain = trick_gain(c, &t2)
            tk_start(&t3, t2.win_seat)
            if r.duties & TK_SURE_POT:
                c.pot.won[t2.win_seat] += 1
                v = ex(c, &t3, need - gain)
                c.pot.won[t2.win_seat] -= 1
            else:
                v = ex(c, &t3, need - gain)
        else:
            v = ex(c, &t2, need)
        c.hand[seat] ^= bit(m)
        if c.stopped:
            return 0
        if v == maxim:  # the side found a way in, or the others found a way out
            res = v
            break
    if tp.count == 0 and (c.flags & F_TT):
        e = tt_slot(c, key, R)
        if res:
            e.a |= (<unsigned long long>1) << need
        else:
            e.b |= (<unsigned long long>1) << need
    return res


cdef int solve_value(Ctx* c, const tk_trick* t, int lo, int hi, int guess) noexcept nogil:
    """The exact value by null-window probes (MTD(f)); bisection when the range is wide."""
    cdef int g = guess, b
    cdef mask_t w = 0
    cdef bint bisect = (hi - lo) > 16
    for b in range(64):
        c.root_lo[b] = -BIG
        c.root_hi[b] = BIG
    if g < lo:
        g = lo
    if g > hi:
        g = hi
    while lo < hi:
        b = g if g > lo else lo + 1
        c.windows += 1
        # each window starts with fresh killers, as DDS's ResetBestMoves (a cut-off in the
        # last window, on the other side of the value, is a poorer guess than none)
        memset(c.killer, -1, 1 << c.killer_bits)
        memset(c.killer2, -1, 1 << c.killer_bits)
        memset(c.tt_hint, -1, sizeof(c.tt_hint))
        c.at_root = 1
        g = ab(c, t, b - 1, b, &w)
        if c.stopped:
            return 0
        if g < b:
            hi = g
        else:
            lo = g
        if bisect:
            g = (lo + hi + 1) // 2
    return lo


cdef int playout_guess(const Ctx* c, const tk_trick* t) noexcept nogil:
    """The side's mean take over a few greedy playouts of the position (a tenth of the cards
    random, from a fixed seed): within a trick or two of the value on most deals, which
    saves about a quarter of the nodes against starting from the middle (one null window
    or two fewer)."""
    cdef mask_t hands[TK_MAX_SEATS]
    cdef int won[TK_MAX_SEATS]
    cdef int pts[TK_MAX_SEATS]
    cdef unsigned long long rng = 0x9E3779B97F4A7C15ULL
    cdef int i, s, total = 0
    for i in range(GUESS_PLAYOUTS):
        for s in range(c.n):
            hands[s] = c.hand[s]
            won[s] = 0
            pts[s] = 0
        run_playout(c.r, hands, t[0], P_GREEDY, 0.1, &rng, won, pts, &c.pot)
        for s in range(c.n):
            if (c.side >> s) & 1:
                total += pts[s] if c.kind == K_POINTS else won[s]
    return (total + GUESS_PLAYOUTS // 2) // GUESS_PLAYOUTS


cdef int root_value(Ctx* c, const tk_trick* t, int need) noexcept nogil:
    """Solve from any node (mid-trick too) for the context's objective."""
    cdef int seat = (t.leader + t.count) % c.n, i, hi
    cdef mask_t live = t.cards
    cdef int R = popcount(c.hand[seat])
    if c.kind == K_EXACT:
        return ex(c, t, need)
    if c.kind == K_TRICKS:
        return solve_value(c, t, 0, R, c.guess if c.guess >= 0 else playout_guess(c, t))
    for i in range(c.n):
        live |= c.hand[i]
    hi = points_left(c, live)
    return solve_value(c, t, 0, hi, c.guess if c.guess >= 0 else playout_guess(c, t))


cdef inline unsigned long long _mix(unsigned long long h) noexcept nogil:
    h ^= h >> 33
    h *= 0xFF51AFD7ED558CCDULL
    h ^= h >> 33
    h *= 0xC4CEB9FE1A85EC53ULL
    return h ^ (h >> 33)


# 2^21 slots for full deals; 2^20 measured and kept out (interleaved against 2^21, 120 deals,
# 3 rounds, sum of per-deal minima): tuning seed 3 +0.6% nodes, 1.004x CPU time (0.978x at
# the median); seed 11 +0.3% nodes, 0.992x (0.984x at the median): under the 3% a change
# must win.
cdef int _default_bits(int cards) noexcept:
    if cards <= 12:
        return 10
    if cards <= 24:
        return 14
    if cards <= 36:
        return 18
    return 21


# One spare table block per size: a solver's block goes here when the solver goes (or
# grows), and the next solver of that size takes it instead of asking the system for fresh
# pages. A fresh 13-card block costs the first touch of 6 MiB of pages at random places
# (the kernel zeroes each one): 0.97x CPU time per deal at the median, 0.93x in total (150
# deals of tuning seed 3, a solver per deal, interleaved). Blocks above SPARE_BITS go back
# to the system at once, so the spares hold at most about twice the largest default block
# (64 MiB). Solvers are made and dropped with the GIL held, which keeps the spares
# consistent.
#
# A spare block's 4 MiB of suit-set records are emptied for its next winning-ranks search by
# a new epoch, not by zeroing (Solver._wipe): each record carries the epoch of the search
# that wrote it, and a look-up reads a record of another epoch as empty (a record only
# names buckets: one read wrongly would cost visits to empty buckets, never a value). Its
# 2 MiB of bucket heads are still zeroed: epochs on the entries instead (a walk stopping at
# an entry of another epoch) cost a cache miss at the first look-up of each bucket, 1.1x CPU
# time in all. Without the records' memset a solve that ends at its first node takes 0.26x
# the time (58 us, was 228), and the deals of tuning seeds 3 and 11 0.94x and 0.97x at the
# median (150 deals each, 3 rounds, per-deal minima, against the memset's build).
cdef enum:
    SPARE_BITS = 21
    EPOCH_LAST = 0x7FFFFFFF

cdef void* _spare[SPARE_BITS + 1]
cdef bint _spare_pristine[SPARE_BITS + 1]
cdef unsigned int _spare_epoch[SPARE_BITS + 1]


cdef void _spare_put(void* mem, int bits, bint pristine, unsigned int epoch) noexcept:
    """Keep a solver's block as the spare of its size, or free it."""
    if mem == NULL:
        return
    if bits <= SPARE_BITS and _spare[bits] == NULL:
        _spare[bits] = mem
        _spare_pristine[bits] = pristine
        _spare_epoch[bits] = epoch
    else:
        tk_table_free(mem, sizeof(tt_entry) << bits)


cdef void* _spare_take(int bits, bint* pristine, unsigned int* epoch) noexcept:
    """A block of `bits`: the spare of that size if there is one, else fresh (zero) pages."""
    cdef void* mem
    if bits <= SPARE_BITS and _spare[bits] != NULL:
        mem = _spare[bits]
        _spare[bits] = NULL
        pristine[0] = _spare_pristine[bits]
        epoch[0] = _spare_epoch[bits]
        return mem
    pristine[0] = True
    epoch[0] = 0
    return tk_table_alloc(sizeof(tt_entry) << bits)


cdef class Solver:
    """A double-dummy solver bound to one :class:`TrickRules`; reuse it to keep its
    transposition table warm across positions of the same deal (or any deal: the table is
    keyed by positions, so entries stay true; it is cleared when the objective's side or kind
    changes).

    The search: fail-soft alpha-beta driven by null-window probes (MTD(f)); one card of each
    run of equivalent cards (adjacent in power with no live card between, equal points when
    points count); quick-trick (no trump: the leader's, then its partner's after crossing
    to it), top-trump, lost-lead and (no trump) later-tricks bounds at trick starts, a sure-trick bound inside tricks and, at second hand, the sure trick plus
    its winner's quick tricks; move ordering by static card-play rules plus the table's best card
    and two killer leads per path of tricks; a transposition table at trick starts keyed by relative
    ranks. For the tricks objective under follow/trump duties with at most four seats
    (bridge-like play) the table stores *winning ranks* instead (DDS's idea): each bound holds
    for every position that differs only in cards below the ranks that decided a trick in its
    proof, and after a small card of a suit fails, the other small cards of that suit are
    skipped. How far an entry reaches is what makes it pay: every bound marks the fewest
    cards it rests on (quick tricks the leader's last cashing card and only as many tricks
    as the window needs, top trumps the side's own lowest one), and a cut-off rests on its
    refuting card alone, merged runs widening only all-moves proofs. A look-up walks its bucket's chain only until the bounds found cut the window,
    and an entry that matched moves to the chain's front (``fast_probe``: at three hands of
    16 cards a table of hundreds of thousands of entries made the walks, not the nodes, the
    cost). Entries go to buckets by the suits they read (``suit_buckets``): the shape, that
    suit set and who holds each of those suits' top card, so an entry that ignores a suit is
    found whoever holds its top card; a look-up visits the buckets of the sets its shape has
    entries under. Values are exact: every bound and skip is sound, and the tests compare against
    plain minimax and DDS (``tests/engine/test_solver_three_hands.py``: each three-hand
    means against the plain table on larger deals).

    Under the rules' ``sure_pot`` duty (Bestia), whose legal cards read each seat's tricks
    and the cards out of play it has not seen (``won``, ``hidden``), the table is keyed by the
    cards themselves, those tricks and those cards, the quick-trick bounds are off, and
    equivalent cards merge only where they stay equivalent under the duty
    (``tests/engine/test_sure_pot_kernel.py``: against a plain minimax).

    ``tt_bits``: the table takes ``32 * 2**tt_bits`` bytes (default: sized to the deal, at
    most 2**21 entries = 64 MiB); full, it overwrites its oldest (winning ranks) or shallowest
    entries. The switches turn off one search feature each (all on by default) and exist to
    test that none of them changes a value. ``nodes`` and ``stats`` describe the last search.
    A solver is not thread-safe: use one per thread (each search releases the GIL).

    >>> from levata.engine.cards import parse_cards
    >>> from levata.engine.cardmask import mask_of
    >>> from levata.engine.rules import TrickRules
    >>> rules = TrickRules(4, None, teams=(0, 1, 0, 1))   # bridge, no trump
    >>> hands = [mask_of(parse_cards(h)) for h in ("AS KS", "QS JS", "2S 3S", "4S 5S")]
    >>> s = Solver(rules)
    >>> s.solve(hands, leader=0, objective=tricks(team=0)), s.nodes > 0
    (2, True)
    """

    def __init__(
        self,
        TrickRules rules not None,
        *,
        tt_bits=None,
        bint merge=True,
        bint quick_tricks=True,
        bint transposition=True,
        bint relative_keys=True,
        bint winning_ranks=True,
        bint fast_probe=True,
        bint suit_buckets=True,
    ):
        self.rules = rules
        self.mem = NULL
        self.bits = 0
        self.tt_bits_set = -1 if tt_bits is None else int(tt_bits)
        if tt_bits is not None and not 4 <= self.tt_bits_set <= 26:
            raise ValueError("tt_bits must be 4..26")
        self.tt_side = -1
        self.tt_kind = -1
        self.flags = (
            (F_MERGE if merge else 0)
            | (F_QUICK if quick_tricks else 0)
            | (F_TT if transposition else 0)
            | (F_REL if relative_keys else 0)
            | (F_WR if winning_ranks else 0)
            | (F_PROBE if fast_probe else 0)
            | (F_SETS if suit_buckets else 0)
        )
        self.nodes = 0
        self.tt_wr = -1
        self.wt_cursor = 0
        self.pristine = True
        self.epoch = 0
        self.stats = {}

    def __dealloc__(self):
        _spare_put(self.mem, self.bits, self.pristine, self.epoch)
        free(self.killers)

    def clear(self):
        """Forget every transposition-table entry."""
        self.wt_cursor = 0
        if self.mem != NULL:
            memset(self.mem, 0, sizeof(tt_entry) << self.bits)
            self.pristine = True

    cdef void _wipe(self, bint wr) noexcept:
        """Empty the table for a search of the given kind: a winning-ranks search needs a
        new epoch (see the spare blocks above), an exact one every entry zeroed.

        Zeroed memory has every record of epoch 0, so a winning-ranks search there starts at
        1. A block an exact search wrote to holds no epochs: its records are zeroed too."""
        self.wt_cursor = 0
        if not wr:
            self.epoch = 0  # the exact entries below are no winning-ranks table
            if not self.pristine:
                memset(self.mem, 0, sizeof(tt_entry) << self.bits)
                self.pristine = True
            return
        if self.pristine:
            self.epoch = 1
        elif self.epoch == 0 or self.epoch >= EPOCH_LAST:
            wr_clear(self.mem, self.bits, True)
            self.epoch = 1
        else:
            wr_clear(self.mem, self.bits, False)
            self.epoch += 1

    cdef int _prepare(
        self,
        Ctx* c,
        tk_trick* t,
        object hands,
        int leader,
        object trick,
        Objective objective,
        object won,
        object hidden,
    ) except -1:
        cdef int bits, cards, side, s
        memset(c, 0, sizeof(Ctx))
        if self.killers == NULL:
            self.killers = <signed char*>malloc(2 << KILLER_BITS)
            if self.killers == NULL:
                raise MemoryError("no memory for the killer leads")
        c.killer = self.killers
        c.killer2 = self.killers + (1 << KILLER_BITS)
        memset(c.tt_hint, -1, sizeof(c.tt_hint))
        c.r = &self.rules.c
        c.n = self.rules.seats
        load_position(self.rules, hands, leader, trick, c.hand, t)
        load_pot(self.rules, won, hidden, &c.pot)
        side = objective.side_mask(self.rules)
        c.side = side
        c.kind = {"tricks": K_TRICKS, "points": K_POINTS, "exact": K_EXACT}[objective.kind]
        c.flags = self.flags
        if c.kind == K_POINTS:
            c.flags &= ~F_REL  # card points tell apart cards of equal relative rank
        if c.r.duties & TK_SURE_POT:
            # The sure pot reads cards out of play and each seat's tricks: keys hold the
            # cards themselves (a card out of play can tell apart two of equal relative
            # rank), the tricks and the hidden cards (pos_key); the bounds, which assume a
            # seat picks its cards freely, are off.
            c.flags &= ~(F_REL | F_QUICK | F_WR)
            for s in range(c.n):
                c.sep |= c.pot.hidden[s]
                c.pot_key = _mix(c.pot_key ^ (c.pot.hidden[s] + <unsigned long long>(s + 1)))
        # Winning ranks abstract away low cards; sound only where a low card's rank never
        # changes what is legal (no duty to beat) and the value counts tricks alone.
        if not (
            c.kind == K_TRICKS
            and (c.flags & F_TT)
            and (c.flags & F_REL)
            and c.n <= 4
            and (c.r.duties & (TK_HEAD | TK_OVERTRUMP)) == 0
        ):
            c.flags &= ~F_WR
        cards = 0
        for s in range(c.n):
            cards += popcount(c.hand[s])
        # killer slots to suit the tree: fewer for a small one, so that emptying them (each
        # null window) costs next to nothing there
        c.killer_bits = 6 + cards // 5 if cards < 5 * (KILLER_BITS - 6) else KILLER_BITS
        memset(c.killer, -1, 1 << c.killer_bits)
        memset(c.killer2, -1, 1 << c.killer_bits)
        bits = self.tt_bits_set if self.tt_bits_set > 0 else _default_bits(cards)
        if c.flags & F_TT:
            if bits > self.bits:
                _spare_put(self.mem, self.bits, self.pristine, self.epoch)
                self.mem = _spare_take(bits, &self.pristine, &self.epoch)
                if self.mem == NULL:
                    self.bits = 0
                    raise MemoryError("no memory for the transposition table")
                self.bits = bits
                self._wipe(c.flags & F_WR)  # a spare block holds another solver's entries
            elif (
                self.tt_side != side
                or self.tt_kind != c.kind
                or self.tt_wr != (c.flags & F_WR)
            ):
                self._wipe(c.flags & F_WR)
            self.pristine = False  # the search below writes to it
            self.tt_side = side
            self.tt_kind = c.kind
            self.tt_wr = c.flags & F_WR
            table_layout(c, self.mem, self.bits)  # both kinds share the block
            c.wt_cursor = self.wt_cursor
            c.epoch = self.epoch
        return 0

    cdef void _keep_stats(self, const Ctx* c):
        self.nodes = c.nodes
        self.wt_cursor = c.wt_cursor
        self.stats = {
            "nodes": c.nodes,
            "probes": c.probes,
            "hits": c.hits,
            "stores": c.stores,
            "windows": c.windows,
            "walked": c.walked,
            "starts": c.starts,
            "significant": <double>c.sig / c.stores if c.stores else 0.0,
        }

    def solve(
        self,
        hands,
        int leader,
        trick=(),
        objective=None,
        *,
        long long max_nodes=0,
        guess=None,
        won=None,
        hidden=None,
    ):
        """The value of the position under ``objective`` (see the module docstring).

        ``hands``: one card mask (or iterable of cards) per seat, without the cards on the
        trick; ``leader``: the seat that led the trick in progress (or leads next);
        ``trick``: the card indexes played to it so far, in order. Default objective: tricks
        for the team of the seat to play. ``max_nodes`` (> 0): give up after visiting that
        many nodes and raise :class:`SearchLimit` (the table keeps only what was proven, so
        the solver stays fit for use). ``guess``: a value the position likely has (the same
        position in a similar world, say); the search starts its null windows there, which
        saves windows when it is close, and never changes the value. ``won`` and ``hidden``:
        what rules with the sure-pot duty read (see :func:`~levata.engine.rules.legal_moves`),
        per seat: tricks won this deal, and the cards out of play it has not seen.
        """
        cdef Ctx* c = <Ctx*>malloc(sizeof(Ctx))
        cdef tk_trick t
        cdef int v, need
        if c == NULL:
            raise MemoryError()
        try:
            objective = self._objective(objective, leader, trick)
            self._prepare(c, &t, hands, leader, trick, objective, won, hidden)
            c.limit = max_nodes if max_nodes > 0 else LLONG_MAX
            c.guess = -1 if guess is None else max(0, int(guess))
            need = objective.target - objective.already
            with nogil:
                v = root_value(c, &t, need)
            self._keep_stats(c)
            if c.stopped:
                raise SearchLimit(f"no value within {max_nodes} nodes")
            return v
        finally:
            free(c)

    def best_cards(
        self,
        hands,
        int leader,
        trick=(),
        seat=None,
        objective=None,
        *,
        long long max_nodes=0,
        guess=None,
        won=None,
        hidden=None,
    ):
        """``{card_index: value}`` for every legal card of the seat to play: the value of the
        position after that card, under ``objective``, always from the objective side's point
        of view (the side picks a card of highest value, the others one of lowest).
        ``seat``, when given, must be the seat to play. ``max_nodes`` (> 0): the most nodes
        for all the cards together, else :class:`SearchLimit`. ``guess``: ``{card_index:
        value}`` the cards likely have (from a similar world); a card without one starts
        from the value of the card searched before it (cards of one hand tend to be worth
        about the same). Guesses only save time; they never change a value. ``won``,
        ``hidden``: the sure-pot duty's facts, as for :meth:`solve`."""
        cdef Ctx* c = <Ctx*>malloc(sizeof(Ctx))
        cdef tk_trick t, t2, t3
        cdef int to_play, v, gain, m, p, need, taker, last = -1
        cdef mask_t legal, moves, live, x, lower
        if c == NULL:
            raise MemoryError()
        try:
            objective = self._objective(objective, leader, trick)
            to_play = (leader + len(trick)) % self.rules.seats
            if seat is not None and int(seat) != to_play:
                raise ValueError(f"seat {seat} is not to play; seat {to_play} is")
            self._prepare(c, &t, hands, leader, trick, objective, won, hidden)
            c.limit = max_nodes if max_nodes > 0 else LLONG_MAX
            need = objective.target - objective.already
            legal = tk_legal_at(c.r, c.hand, &t, &c.pot)
            live = t.cards
            for s in range(c.n):
                live |= c.hand[s]
            moves = searched(c, legal, live, to_play)
            values = {}
            x = moves
            while x:
                m = lowest(x)
                x &= x - 1
                g = guess.get(int(c.r.to_phys[m])) if guess is not None else None
                c.guess = last if g is None else max(0, int(round(g)))
                with nogil:
                    c.hand[to_play] ^= bit(m)
                    t2 = t
                    tk_play(c.r, &t2, m)
                    gain = 0
                    taker = -1
                    if t2.count == c.n:
                        gain = trick_gain(c, &t2)
                        taker = t2.win_seat
                        c.pot.won[taker] += 1
                        tk_start(&t3, t2.win_seat)
                        t2 = t3
                    if c.guess >= 0:  # the guess is the card's value, gain included
                        c.guess = c.guess - gain if c.guess > gain else 0
                    if c.kind == K_EXACT:
                        v = ex(c, &t2, need - gain)
                    else:
                        v = gain + root_value(c, &t2, need)
                    c.hand[to_play] ^= bit(m)
                    if taker >= 0:
                        c.pot.won[taker] -= 1
                if c.stopped:
                    self._keep_stats(c)
                    raise SearchLimit(f"no values within {max_nodes} nodes")
                values[m] = v
                last = v
            out = {}
            x = legal
            while x:
                m = lowest(x)
                x &= x - 1
                p = m
                while not (moves >> p) & 1:  # an equivalent card: take its run's value
                    lower = (live | c.sep) & c.r.suit_mask[c.r.suit_of[p]] & below(p)
                    p = highest(lower)
                out[int(c.r.to_phys[m])] = values[p]
            self._keep_stats(c)
            return dict(sorted(out.items()))
        finally:
            free(c)

    cdef object _objective(self, object objective, int leader, object trick):
        if objective is None:
            to_play = (leader + len(trick)) % self.rules.seats
            return tricks(team=self.rules.teams[to_play])
        if not isinstance(objective, Objective):
            raise TypeError("objective must be built by tricks(), points() or exact()")
        return objective


def solve(TrickRules rules not None, hands, int leader, trick=(), objective=None, **options):
    """Double-dummy value of a position: see :meth:`Solver.solve` (``options`` go to
    :class:`Solver`)."""
    return Solver(rules, **options).solve(hands, leader, trick, objective)


def best_cards(
    TrickRules rules not None, hands, int leader, trick=(), seat=None, objective=None, **options
):
    """The value of each legal card of the seat to play: see :meth:`Solver.best_cards`."""
    return Solver(rules, **options).best_cards(hands, leader, trick, seat, objective)

