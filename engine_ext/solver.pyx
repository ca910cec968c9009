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
"""

from libc.limits cimport LLONG_MAX
from libc.stdlib cimport free, malloc
from libc.string cimport memset

from levata.engine.cardmask cimport below, bit, highest, lowest, mask_t, popcount
from levata.engine.playouts cimport P_GREEDY, run_playout
from levata.engine.rules cimport (
    TK_FOLLOW,
    TK_HEAD,
    TK_MUST_TRUMP,
    TK_OVERTRUMP,
    TK_SUITS,
    TrickRules,
    load_position,
    tk_above,
    tk_beats,
    tk_legal,
    tk_play,
    tk_rules,
    tk_start,
    tk_trick,
)

from levata.engine.cards import Card

cdef extern from *:
    """
    #include <stdint.h>
    /* Parallel bit extract: BMI2 when the CPU has it, a portable loop otherwise. The kernel
       is built without -mbmi2 (one wheel for every x86-64), so the instruction lives in a
       function compiled for that target and is chosen at import. */
    static inline uint64_t tk_pext_sw(uint64_t x, uint64_t m) {
        uint64_t r = 0, bb = 1;
        while (m) {
            uint64_t low = m & (0 - m);
            if (x & low) r |= bb;
            bb <<= 1;
            m ^= low;
        }
        return r;
    }
    #if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    __attribute__((target("bmi2"))) static uint64_t tk_pext_hw(uint64_t x, uint64_t m) {
        return __builtin_ia32_pext_di(x, m);
    }
    static int tk_cpu_bmi2(void) { __builtin_cpu_init(); return __builtin_cpu_supports("bmi2"); }
    #else
    static uint64_t tk_pext_hw(uint64_t x, uint64_t m) { return tk_pext_sw(x, m); }
    static int tk_cpu_bmi2(void) { return 0; }
    #endif
    static int tk_use_bmi2 = 0;
    static inline uint64_t tk_pext(uint64_t x, uint64_t m) {
        return tk_use_bmi2 ? tk_pext_hw(x, m) : tk_pext_sw(x, m);
    }
    /* parallel bit deposit, the inverse: only on table hits, so the loop is enough */
    static inline uint64_t tk_pdep(uint64_t x, uint64_t m) {
        uint64_t r = 0, bb = 1;
        while (m) {
            uint64_t low = m & (0 - m);
            if (x & bb) r |= low;
            bb <<= 1;
            m ^= low;
        }
        return r;
    }
    /* murmur3's finaliser: every input bit moves every output bit */
    static inline uint64_t tk_fmix(uint64_t k) {
        k ^= k >> 33; k *= 0xff51afd7ed558ccdULL;
        k ^= k >> 33; k *= 0xc4ceb9fe1a85ec53ULL;
        k ^= k >> 33; return k;
    }
    static const uint64_t tk_golden = 0x9E3779B97F4A7C15ULL;
    /* The table: zeroed pages from the system, asking Linux for 2 MiB pages. Look-ups land
       anywhere in tens of MiB, and with 4 KiB pages nearly each one also misses the TLB. */
    #include <stdlib.h>
    #if defined(__unix__) || defined(__APPLE__)
    #include <sys/mman.h>
    #endif
    static void* tk_table_alloc(size_t n) {
    #if (defined(__unix__) || defined(__APPLE__)) && defined(MAP_ANONYMOUS)
        void* p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) return NULL;
    #ifdef MADV_HUGEPAGE
        madvise(p, n, MADV_HUGEPAGE);
    #endif
        return p;
    #else
        return calloc(n, 1);
    #endif
    }
    static void tk_table_free(void* p, size_t n) {
        if (p == NULL) return;
    #if (defined(__unix__) || defined(__APPLE__)) && defined(MAP_ANONYMOUS)
        munmap(p, n);
    #else
        (void)n;
        free(p);
    #endif
    }
    """
    void* tk_table_alloc(size_t n) nogil
    void tk_table_free(void* p, size_t n) nogil
    unsigned long long tk_pext(unsigned long long x, unsigned long long m) nogil
    unsigned long long tk_pdep(unsigned long long x, unsigned long long m) nogil
    unsigned long long tk_fmix(unsigned long long k) nogil
    unsigned long long tk_golden
    int tk_cpu_bmi2()
    int tk_use_bmi2

tk_use_bmi2 = tk_cpu_bmi2()

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


cdef enum:
    K_TRICKS = 0
    K_POINTS = 1
    K_EXACT = 2


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
# The solver


cdef enum:
    F_MERGE = 1       # search one card of each run of equivalent cards
    F_QUICK = 2       # bounds: quick tricks, top trumps, lost lead, later tricks; sure tricks
    F_TT = 4          # transposition table
    F_REL = 8         # key the table by relative ranks (tricks and exact objectives only)
    F_WR = 16         # winning-ranks table (tricks objective, follow/trump duties, <= 4 seats)
    F_PROBE = 32      # winning-ranks look-ups stop at a cut-off and move hits to the front
    F_SETS = 64       # winning-ranks buckets by the suits an entry reads (see wr_sets)
    BIG = 1 << 28
    WR_CHAIN = 256    # entries a look-up walks down one bucket's chain, at most
    WR_TOPS = 1       # top cards per suit whose owners pick the bucket
    GUESS_PLAYOUTS = 8  # greedy playouts behind the first null window's value

# entries fill cache lines exactly (the structs are in solver.pxd)
assert sizeof(tt_entry) * 2 == sizeof(wr_entry) == 64, "table entries changed size"


cdef inline int owner(const Ctx* c, int card) noexcept nogil:
    cdef int s
    for s in range(c.n):
        if (c.hand[s] >> card) & 1:
            return s
    return -1


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


cdef int points_left(const Ctx* c, mask_t live) noexcept nogil:
    cdef int g = c.r.last_bonus, i
    while live:
        i = lowest(live)
        live &= live - 1
        g += c.r.points[i]
    return g


cdef inline mask_t rank_win(const tk_rules* r, const tk_trick* t) noexcept nogil:
    """The card whose rank decided a finished trick: the winner, when it beat another card of
    its own suit; nothing when it won as the only card of its suit (a ruff, or discards)."""
    if popcount(t.cards & r.suit_mask[r.suit_of[t.win_card]]) > 1:
        return bit(t.win_card)
    return 0


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


cdef inline int min3(int a, int b, int c) noexcept nogil:
    if b < a:
        a = b
    return c if c < a else a


cdef int ruff_rounds(const Ctx* c, int leader, int e, int pending) noexcept nogil:
    """Rounds of suit `e` the leader's side can lead before a seat that could ruff may be
    out of it: the fewest cards of `e` held by a seat of the other side holding trumps, or by
    a partner holding trumps that a duty would make ruff (the lead would pass); 64 when no
    seat could (or `e` is trumps), 0 without a duty to follow. Seats in `pending` still
    play a card to the trick in progress: they may hold one card fewer by then."""
    cdef const tk_rules* r = c.r
    cdef int s, k, safe = 64, mine = (c.side >> leader) & 1
    cdef mask_t tm
    if r.trump < 0 or e == r.trump:
        return safe
    tm = r.suit_mask[r.trump]
    for s in range(c.n):
        if s == leader or (c.hand[s] & tm) == 0:
            continue
        if ((c.side >> s) & 1) == mine and not (r.duties & TK_MUST_TRUMP):
            continue  # a partner void in the suit may discard instead
        if not (r.duties & TK_FOLLOW):
            return 0
        k = popcount(c.hand[s] & r.suit_mask[e]) - ((pending >> s) & 1)
        if k < safe:
            safe = k
    return safe


cdef int suit_cash(
    const Ctx* c, int leader, int e, mask_t others, int pending, int need, mask_t* w
) noexcept nogil:
    """Tricks `leader` can cash at once in effective suit `e`: its cards above everything the
    others hold (all of them once that run outlasts every other holding, when the others must
    follow), and no more rounds than :func:`ruff_rounds` allows (`pending`: see there). Only
    as many tricks as `need` are counted, and `w` gets the lowest of the leader's cards the
    count rests on (its top cards down to that one must be the suit's top cards; the rest
    rests on suit lengths): the fewer cards a cut-off reads, the more positions its table
    entry covers."""
    cdef const tk_rules* r = c.r
    cdef mask_t h = c.hand[leader] & r.suit_mask[e], o, x
    cdef int s, k, run, longest, n, j, safe
    cdef bint whole
    cdef bint follow = (r.duties & TK_FOLLOW) != 0
    w[0] = 0
    if h == 0:
        return 0
    safe = ruff_rounds(c, leader, e, pending)
    if safe <= 0:
        return 0
    o = others & r.suit_mask[e]
    if o == 0:
        n = popcount(h)
        return min3(n, safe, need)
    run = popcount(h & tk_above(highest(o)))
    if run == 0:
        return 0
    longest = 0
    for s in range(c.n):
        if s != leader:
            k = popcount(c.hand[s] & r.suit_mask[e])
            if k > longest:
                longest = k
    # the rest of the suit is good once everyone else is out of it, which only a duty to
    # follow guarantees (without one a defender may keep a higher card back)
    whole = run >= longest and follow
    n = popcount(h) if whole else run
    n = min3(n, safe, need)
    # the count rests on the leader's top `j` cards of the suit being its top `j` cards
    j = n if not whole or n < longest else longest
    x = h
    while j > 1:
        x ^= bit(highest(x))
        j -= 1
    w[0] = bit(highest(x))
    return n


cdef int quick_tricks(
    const Ctx* c, int leader, int need, int pending, mask_t* win, int* ks_out
) noexcept nogil:
    """Tricks `leader` can cash at once (:func:`suit_cash` per suit; cashing keeps the lead,
    so the suits add up: a seat that must follow one suit keeps its holding in the others),
    counted only until `need` is reached: `win` gets the cards of the suits counted and no
    others, so that a cut-off leans on as few cards as it can (a table entry that reads fewer
    cards matches more positions). Suits nobody else holds come first: they cost no card at
    all. `pending`: see suit_cash. `ks_out` (if not NULL) gets the tricks counted per suit."""
    cdef const tk_rules* r = c.r
    cdef mask_t others = 0, w = 0, we
    cdef int s, e, q = 0, k, round_
    cdef int ks[TK_SUITS]
    for s in range(c.n):
        if s != leader:
            others |= c.hand[s]
    for e in range(TK_SUITS):
        ks[e] = 0
    for round_ in range(2):
        for e in range(TK_SUITS):
            if ((others & r.suit_mask[e]) == 0) != (round_ == 0):
                continue
            k = suit_cash(c, leader, e, others, pending, need - q, &we)
            if k:
                ks[e] = k
                q += k
                w |= we
                if q >= need:
                    break
        if q >= need:
            break
    if ks_out != NULL:
        for e in range(TK_SUITS):
            ks_out[e] = ks[e]
    if q < need and entry_trick(c, leader, others, ks, pending, &we):
        q += 1
        w |= we
    win[0] = w
    return q


cdef bint entry_trick(
    const Ctx* c, int leader, mask_t others, const int* ks, int pending, mask_t* w
) noexcept nogil:
    """After cashing `ks[e]` top cards of a suit, can the leader lead another card of it to
    a partner whose best card of the suit is above every other hand's (DDS's second best at
    partner)? The partner keeps that card back while the run is cashed (it holds more cards
    of the suit than the run), and no seat that could ruff is out of the suit by then. The
    lead passes to the partner, so this trick comes after all the others counted. `w` gets
    the partner's card."""
    cdef const tk_rules* r = c.r
    cdef int e, k, p, top, mine = (c.side >> leader) & 1
    cdef mask_t se
    if not (r.duties & TK_FOLLOW):
        return False
    for e in range(TK_SUITS):
        k = ks[e]
        if k == 0:
            continue
        se = r.suit_mask[e]
        if popcount(c.hand[leader] & se) <= k or (others & se) == 0:
            continue
        top = highest(others & se)
        p = owner(c, top)
        if ((c.side >> p) & 1) != mine or popcount(c.hand[p] & se) - ((pending >> p) & 1) <= k:
            continue
        if ruff_rounds(c, leader, e, pending) > k:
            w[0] = bit(top)
            return True
    return False


cdef int partner_tricks(
    const Ctx* c, int leader, int q, int need, mask_t* win, const int* ks
) noexcept nogil:
    """Raise `q` to a partner's quick tricks when the leader can put that partner on lead:
    a suit the leader holds whose top card the partner has, which nobody can ruff. The
    partner's count already includes that trick (its top card in the suit). The leader's
    own `q` (`ks` per suit, all from cashing) comes first when the partner follows every
    round of it: the partner keeps its cards, the others' can only get lower."""
    cdef const tk_rules* r = c.r
    cdef int p, e, s, top, qp, first, sum_ks = 0
    cdef int mine = (c.side >> leader) & 1
    cdef mask_t live = 0, x, wp, tm = r.suit_mask[r.trump] if r.trump >= 0 else 0, trumps_of
    cdef mask_t wl = win[0]
    if q >= need:
        return q
    for s in range(c.n):
        live |= c.hand[s]
    for e in range(TK_SUITS):
        sum_ks += ks[e]
    for p in range(c.n):
        if p == leader or ((c.side >> p) & 1) != mine or c.hand[p] == 0:
            continue
        # the leader cashes first only if all of `q` is cashing (no lead passed on) and
        # the partner follows each of those rounds
        first = q if sum_ks == q else 0
        for e in range(TK_SUITS):
            if first and popcount(c.hand[p] & r.suit_mask[e]) < ks[e]:
                first = 0
        trumps_of = (live & ~c.hand[p]) & tm
        for e in range(TK_SUITS):
            if (c.hand[leader] & r.suit_mask[e]) == 0:
                continue
            if e != r.trump and trumps_of:
                continue
            x = live & r.suit_mask[e]
            top = highest(x)
            if not (c.hand[p] >> top) & 1:
                continue
            qp = quick_tricks(c, p, need - first, 0, &wp, NULL) + first
            if qp > q:
                q = qp
                win[0] = wp | bit(top) | (wl if first else 0)
            break
    return q


cdef bint lost_lead(const Ctx* c, int leader, mask_t* win) noexcept nogil:
    """True when the leader's side cannot win the trick it leads: in every suit the leader
    holds, no partner of the leader can ruff (void in the suit, or at any time without a
    duty to follow) and either a seat of the other side can ruff or the top card is the
    other side's. The top card is always a legal play for its holder, and only a trump beats
    it; a ruff wins when no seat of the leader's side can trump. `win` gets the top cards
    relied on (a ruff rests on suit lengths alone)."""
    cdef const tk_rules* r = c.r
    cdef int e, s, top
    cdef int mine = (c.side >> leader) & 1
    cdef mask_t live = 0, x, w = 0, tm = r.suit_mask[r.trump] if r.trump >= 0 else 0
    for s in range(c.n):
        live |= c.hand[s]
    cdef bint ruff
    for e in range(TK_SUITS):
        if (c.hand[leader] & r.suit_mask[e]) == 0:
            continue
        x = live & r.suit_mask[e]
        top = highest(x)
        ruff = False
        if e != r.trump and tm:
            for s in range(c.n):
                if (
                    s != leader
                    and ((c.hand[s] & r.suit_mask[e]) == 0 or not (r.duties & TK_FOLLOW))
                    and (c.hand[s] & tm) != 0
                ):
                    if ((c.side >> s) & 1) == mine:
                        return False
                    ruff = True
        if ruff:
            # a seat of the other side can ruff it and none of the leader's side can
            continue
        s = owner(c, top)
        if ((c.side >> s) & 1) == mine:
            return False
        w |= bit(top)
    win[0] = w
    return True


cdef bint all_fails(const Ctx* c, int leader, int R, mask_t* win) noexcept nogil:
    """True when the leader's side cannot take all `R` tricks left, with no trump live.

    To take them all the side must win every trick, so it leads every one. It cannot lead a
    suit whose top card the other side holds (that card is a legal play, and with no trump
    the highest card of the led suit wins), so every trick is led in a suit whose top card
    the side holds; each such trick takes a card of that suit from every hand of the side
    that holds one (under a duty to follow; without one, from the leader alone), so the side
    leads a suit at most as often as its longest holding in it (the sum of its holdings
    without a duty to follow). Fewer than `R` leads in all: the side loses a trick. This is
    DDS's later-tricks rule for no trump; a defender squeezed out of a top card would break
    the count, and the tests compare the rule with plain minimax on small deals of few ranks
    per suit, where tops and guards abound. `win` gets the other side's top cards relied
    on."""
    cdef const tk_rules* r = c.r
    cdef int e, s, k, mx, sm, tot = 0
    cdef int mine = (c.side >> leader) & 1
    cdef mask_t live = 0, x, w = 0
    cdef bint follow = (r.duties & TK_FOLLOW) != 0
    for s in range(c.n):
        live |= c.hand[s]
    if r.trump >= 0 and (live & r.suit_mask[r.trump]) != 0:
        return False
    for e in range(TK_SUITS):
        x = live & r.suit_mask[e]
        if x == 0:
            continue
        mx = 0
        sm = 0
        for s in range(c.n):
            if ((c.side >> s) & 1) == mine:
                k = popcount(c.hand[s] & x)
                sm += k
                if k > mx:
                    mx = k
        if mx == 0:
            continue
        s = owner(c, highest(x))
        if ((c.side >> s) & 1) == mine:
            tot += mx if follow else sm
            if tot >= R:
                return False
        else:
            w |= bit(highest(x))
    win[0] = w
    return True


cdef bint partner_ruff(const Ctx* c, int leader) noexcept nogil:
    """Can the leader's side make sure of the trick it leads by a partner's ruff? The leader
    leads a side suit it holds in which a partner playing later is void and holds a trump,
    while every seat of the other side must follow (holds the suit, under a duty to follow)
    or holds no trump: the ruff wins. Rests on suit lengths alone (no card)."""
    cdef const tk_rules* r = c.r
    cdef int e, s, i
    cdef int mine = (c.side >> leader) & 1
    cdef bint follow = (r.duties & TK_FOLLOW) != 0, ok
    cdef mask_t tm, se
    if r.trump < 0:
        return False
    tm = r.suit_mask[r.trump]
    for e in range(TK_SUITS):
        if e == r.trump:
            continue
        se = r.suit_mask[e]
        if (c.hand[leader] & se) == 0:
            continue
        ok = False
        for i in range(1, c.n):
            s = leader + i
            if s >= c.n:
                s -= c.n
            if ((c.side >> s) & 1) == mine:
                if (c.hand[s] & se) == 0 and (c.hand[s] & tm) != 0:
                    ok = True
            elif (c.hand[s] & tm) != 0 and not (follow and (c.hand[s] & se) != 0):
                ok = False
                break
        if ok:
            return True
    return False


cdef void trick_bounds(
    const Ctx* c, int leader, int R, bint cash_counts, int alpha, int beta,
    int* lo, int* hi, mask_t* wlo, mask_t* whi,
) noexcept nogil:
    """Bounds on the side's tricks from a trick start.

    Top trumps: the side holding the highest trump wins a trick with each trump a seat of it
    holds above every trump of the other side, whoever leads (the highest trump on a trick
    wins it, and every card gets played). Cashing: the leader's quick tricks are a lower bound for its side
    when the side may choose to take them (``cash_counts``: not for exact targets), and an
    upper bound for the other side in any case. `wlo`/`whi` get the cards each bound relies
    on (for the winning-ranks table). A bound is only worked out as far as the window
    (alpha, beta) needs: a cut-off that reads fewer cards makes a more general table entry."""
    cdef const tk_rules* r = c.r
    cdef int l = 0, h = R, s, top, cnt, q, need, mine, x, k, y, k2, k3
    cdef int tops[TK_MAX_SEATS]
    cdef int ks[TK_SUITS]
    cdef mask_t all_t = 0, tm, others_t, above, wt = 0, wq = 0, wl = 0, wh = 0, xt
    if r.trump >= 0:
        tm = r.suit_mask[r.trump]
        for s in range(c.n):
            all_t |= c.hand[s]
        all_t &= tm
        if all_t:
            top = highest(all_t)
            s = owner(c, top)
            mine = (c.side >> s) & 1
            others_t = 0
            for x in range(c.n):
                if ((c.side >> x) & 1) != mine:
                    others_t |= c.hand[x]
            others_t &= tm
            # every trump of the top trump's side above all of the other side's trumps
            # wins a trick for the side (partners may overtake each other; the trick stays
            # theirs): the most such trumps one seat holds
            above = tk_above(highest(others_t)) if others_t else ~(<mask_t>0)
            # the count rests on the side's trumps above the other side's best being the
            # top trumps: the lowest of them marks them all
            wt = bit(lowest(all_t & above)) if others_t else 0
            cnt = 0
            for x in range(c.n):
                if ((c.side >> x) & 1) == mine:
                    k = popcount(c.hand[x] & tm & above)
                    tops[x] = k
                    if k > cnt:
                        cnt = k
                    if k and not (r.duties & (TK_HEAD | TK_OVERTRUMP)):
                        # Two hands of the side with such trumps, A and B: each trick in
                        # which A (or B) plays a trump can hold one of their top trumps, as
                        # long as the one with a low trump plays it whenever both play trumps
                        # (a duty to beat the winning card forbids that): they take at least
                        # min(a + b, max(len A, len B)) tricks.
                        for y in range(x):
                            if ((c.side >> y) & 1) == mine and tops[y]:
                                k2 = popcount(c.hand[x] & tm)
                                k3 = popcount(c.hand[y] & tm)
                                if k3 > k2:
                                    k2 = k3
                                k3 = k + tops[y]
                                if k2 < k3:
                                    k3 = k2
                                if k3 > cnt:
                                    cnt = k3
            # only as many as a cut-off needs: one seat's top trumps down to the last one
            # needed mark fewer cards than the whole run above the other side's best
            k = beta if mine else R - alpha
            if others_t and k >= 1 and cnt >= k:
                for x in range(c.n):
                    if ((c.side >> x) & 1) == mine and tops[x] >= k:
                        y = k
                        wq = c.hand[x] & tm & above
                        while y > 1:
                            wq ^= bit(highest(wq))
                            y -= 1
                        wt = bit(highest(wq))
                        cnt = k
                        break
            if mine:
                l = cnt
                wl = wt
            else:
                h = R - cnt
                wh = wt
            # A hand of the other side sits right behind the top trump's holder (it plays
            # next after that holder in every trick it does not lead itself), every trump
            # above its best one is that holder's, m of them, it holds more than m trumps and
            # is not on lead: it takes a trick. Until it does it never leads; whenever it
            # must play a trump, the holder has played before it, so its best trump wins
            # unless one of the m higher ones is on the trick, and then it plays a lower
            # trump (it has one left) and keeps its best, which ends on top.
            y = s + 1 if s + 1 < c.n else 0
            xt = c.hand[y] & tm
            if (
                xt
                and y != leader
                and ((c.side >> y) & 1) != mine
                and not (r.duties & (TK_HEAD | TK_OVERTRUMP))
            ):
                above = tk_above(highest(xt))
                k = popcount(all_t & above)
                if (c.hand[s] & tm & above) == (all_t & above) and popcount(xt) > k:
                    if mine:
                        if R - 1 < h:
                            h = R - 1
                            wh = bit(highest(xt))
                    elif cash_counts and l < 1:
                        l = 1
                        wl = bit(highest(xt))
            # The side holding the top trump holds no other trump above the other side's
            # best two, and the hand with the second best holds another trump: the other
            # side takes a trick (DDS's later-tricks rule). The top trump can fell only one
            # of the two on a trick it is played to, and that hand keeps its second best
            # back with a lower trump; either of the two wins any trick the top trump is
            # not on. A duty to trump or to beat could force the two out together.
            if popcount(all_t) >= 3 and not (r.duties & (TK_MUST_TRUMP | TK_HEAD | TK_OVERTRUMP)):
                xt = all_t ^ bit(top)
                k2 = highest(xt)
                k3 = highest(xt ^ bit(k2))
                y = owner(c, k2)
                x = owner(c, k3)
                if (
                    ((c.side >> y) & 1) != mine
                    and ((c.side >> x) & 1) != mine
                    and popcount(c.hand[y] & tm) > 1
                ):
                    if mine:
                        if R - 1 < h:
                            h = R - 1
                            wh = bit(k3)
                    elif cash_counts and l < 1:
                        l = 1
                        wl = bit(k3)
    if l >= beta or h <= alpha:
        lo[0] = l
        hi[0] = h
        wlo[0] = wl
        whi[0] = wh
        return
    need = beta if (c.side >> leader) & 1 else R - alpha
    q = quick_tricks(c, leader, need, 0, &wq, ks)
    q = partner_tricks(c, leader, q, need, &wq, ks)
    if (c.side >> leader) & 1:
        if cash_counts and q > l:
            l = q
            wl = wq
    elif R - q < h:
        h = R - q
        wh = wq
    if q == 0 and lost_lead(c, leader, &wq):
        # whatever the leader leads, the other side can take this trick
        if (c.side >> leader) & 1:
            if R - 1 < h:
                h = R - 1
                wh = wq
        elif cash_counts and l < 1:
            l = 1
            wl = wq
    elif q == 0 and partner_ruff(c, leader):
        # the leader's side can take this trick by a ruff
        if (c.side >> leader) & 1:
            if cash_counts and l < 1:
                l = 1
                wl = 0
        elif R - 1 < h:
            h = R - 1
            wh = 0
    if (c.side >> leader) & 1:
        # only worked out where it cuts: the side needs every trick left
        if h == R and alpha >= R - 1 and all_fails(c, leader, R, &wq):
            h = R - 1
            wh = wq
    elif cash_counts and l == 0 and beta <= 1 and all_fails(c, leader, R, &wq):
        l = 1
        wl = wq
    lo[0] = l
    hi[0] = h
    wlo[0] = wl
    whi[0] = wh


cdef unsigned long long pos_key(const Ctx* c, int leader, mask_t live) noexcept nogil:
    """Hash of the position at a trick start: every hand and the leader.

    With relative keys each hand is squeezed onto the live cards (pext), so two positions
    that differ only in which small cards are gone share an entry; the per-suit counts of live
    cards fix where one suit ends and the next begins."""
    cdef const tk_rules* r = c.r
    cdef unsigned long long h = tk_fmix(<unsigned long long>(leader + 1 + (c.kind << 4)))
    cdef unsigned long long counts = 0
    cdef int s, e
    if c.flags & F_REL:
        for e in range(TK_SUITS):
            counts = counts * 67 + popcount(live & r.suit_mask[e])
        h = tk_fmix(h ^ counts)
        for s in range(c.n):
            h = tk_fmix(h ^ (tk_pext(c.hand[s], live) + (<unsigned long long>s) * tk_golden))
    else:
        for s in range(c.n):
            h = tk_fmix(h ^ (c.hand[s] + (<unsigned long long>s) * tk_golden))
    return h if h else 1


cdef inline tt_entry* tt_find(const Ctx* c, unsigned long long key) noexcept nogil:
    cdef unsigned long long i = key & c.tt_mask
    if c.tt[i].key == key:
        return &c.tt[i]
    if c.tt[i ^ 1].key == key:
        return &c.tt[i ^ 1]
    return NULL


cdef tt_entry* tt_slot(Ctx* c, unsigned long long key, int depth) noexcept nogil:
    """The entry for `key`, claiming one of its two slots (the emptier or shallower)."""
    cdef unsigned long long i = key & c.tt_mask
    cdef tt_entry* e = &c.tt[i]
    cdef tt_entry* f = &c.tt[i ^ 1]
    if e.key == key:
        return e
    if f.key == key:
        return f
    if e.key != 0 and (f.key == 0 or f.depth <= e.depth):
        e = f
    e.key = key
    e.depth = depth
    e.hint = -1
    if c.kind == K_EXACT:
        e.a = 0
        e.b = 0
    else:
        e.a = 0
        e.b = BIG
    return e


cdef inline int rel_rank(const Ctx* c, int card, mask_t live) noexcept nogil:
    return popcount(live & c.r.suit_mask[c.r.suit_of[card]] & below(card))


cdef int hint_card(const Ctx* c, int hint, mask_t live, mask_t legal) noexcept nogil:
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


# LATER[n][leader][count]: the seats that play to a trick of n seats after the seat at
# position `count` from `leader`, as a bit mask
cdef unsigned char LATER[TK_MAX_SEATS + 1][TK_MAX_SEATS][TK_MAX_SEATS]


cdef void fill_later() noexcept:
    cdef int n, leader, count, i
    for n in range(1, TK_MAX_SEATS + 1):
        for leader in range(n):
            for count in range(n):
                LATER[n][leader][count] = 0
                for i in range(count + 1, n):
                    LATER[n][leader][count] |= 1 << ((leader + i) % n)


fill_later()


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


cdef bint beaten_later(const Ctx* c, const tk_trick* t, int seat, int card) noexcept nogil:
    """Could a seat of the other side still to play to this trick beat `card` (as if it were
    winning the trick after `seat` plays it)? Holders of the led suit can go higher in it;
    a holder of trumps can ruff or over-ruff when void in the led suit (or at any time when
    there is no duty to follow)."""
    cdef int led = t.led if t.count else c.r.suit_of[card]
    cdef mask_t high, ruff
    later_threats(c, t, seat, led, &high, &ruff)
    return beaten_by(c.r, led, high, ruff, card)


cdef bint sure_trick(
    const Ctx* c, const tk_trick* t, int seat, mask_t legal, mask_t* win, int* by, int* card
) noexcept nogil:
    """Can `seat`'s side make sure of the trick in progress? Either a partner's card already
    wins it and cannot be beaten later (and `seat` may play under it), or `seat` can play such
    a card itself. `win` gets the card relied on, `by` the seat that will win the trick and
    `card` the card `seat` plays to win it (-1 when the partner's card holds)."""
    cdef const tk_rules* r = c.r
    cdef int m, i
    cdef mask_t x
    if ((c.side >> t.win_seat) & 1) == ((c.side >> seat) & 1) and not beaten_later(
        c, t, seat, t.win_card
    ):
        x = legal
        while x:
            m = lowest(x)
            x &= x - 1
            if not tk_beats(r, m, t.win_card):
                win[0] = bit(t.win_card)
                by[0] = t.win_seat
                card[0] = -1
                return True
    # only the highest legal card of the led suit and of trumps can be the best try: a
    # lower card of the same suit is beaten whenever that one is (and relies on more ranks)
    for i in range(2):
        if i == 0:
            x = legal & r.suit_mask[t.led]
        elif r.trump >= 0 and r.trump != t.led:
            x = legal & r.suit_mask[r.trump]
        else:
            break
        if x == 0:
            continue
        m = highest(x)
        if tk_beats(r, m, t.win_card) and not beaten_later(c, t, seat, m):
            win[0] = bit(m)
            by[0] = seat
            card[0] = m
            return True
    return False


cdef int sure_then_cash(
    Ctx* c, const tk_trick* t, int seat, mask_t legal, int need, mask_t* win
) noexcept nogil:
    """Tricks `seat`'s side makes sure of from here (this one included): 0, or 1 for the
    trick in progress (see sure_trick) plus, when `need` asks for more, the quick tricks of
    the seat that wins it, which leads next (DDS's second-hand quick tricks). Only when no
    partner playing later could overtake the winning card (a duty may make it), or another
    seat would lead. The winner's tricks are counted with the other hands as they are now:
    the cards still to come to this trick only add to what the winner must beat, so the
    count stays true. `win` gets the cards relied on."""
    cdef const tk_rules* r = c.r
    cdef int by, card, wc, q = 0, i, s, mine = (c.side >> seat) & 1, pending
    cdef mask_t w, wq = 0, f
    if not sure_trick(c, t, seat, legal, &w, &by, &card):
        return 0
    win[0] = w
    if need <= 1:
        return 1
    wc = card if card >= 0 else t.win_card
    for i in range(t.count + 1, c.n):
        s = t.leader + i
        if s >= c.n:
            s -= c.n
        if ((c.side >> s) & 1) != mine:
            continue
        f = c.hand[s] & r.suit_mask[t.led]
        if f and tk_beats(r, highest(f), wc):
            return 1
        if r.trump >= 0 and (not f or not (r.duties & TK_FOLLOW)):
            f = c.hand[s] & r.suit_mask[r.trump]
            if f and tk_beats(r, highest(f), wc):
                return 1
    # the seats still to play to this trick (`seat` too, unless its card is taken out here)
    pending = 0
    for i in range(t.count, c.n):
        s = t.leader + i
        if s >= c.n:
            s -= c.n
        pending |= 1 << s
    if card >= 0:
        c.hand[seat] ^= bit(card)
        pending &= ~(1 << seat)
    if c.hand[by] != 0:
        q = quick_tricks(c, by, need - 1, pending, &wq, NULL)
    if card >= 0:
        c.hand[seat] ^= bit(card)
    win[0] = w | wq
    return 1 + q


cdef enum:
    # Move-ordering scores (higher first). Tuned on random bridge deals by node counts (the
    # last time by benchmarks/solver_tune.py); the static rules below beat history/killer
    # tables everywhere except at leads.
    O_HINT = 1 << 20        # the best card stored with a matching table entry
    O_KILLER = 5000         # the lead that last cut off with as many tricks left, same leader
    O_CASH = 4500           # a lead nobody can beat, or a follow that will win the trick
    O_SAFE_LOW = 3000       # a follow under a partner's card that will win
    O_OVERTAKE = 1000       # ... minus this for beating that partner's card anyway
    O_CONTEST = 3500        # a follow that beats the trick for now (cheapest first: OW[15])
    O_LOW = 2500            # everything else, lowest first
    O_TO_PARTNER = 2500     # a lead in a suit whose top card a partner holds
    O_PARTNER_RUFF = 800    # a lead a partner can ruff
    O_THEY_RUFF = 1200      # a lead the other side can ruff
    O_TRUMP_LEAD = 300      # a trump lead when the other side holds the top trump
    O_LENGTH = 2            # per card of the suit, for a discard (discard from length)
    O_KEEP_TRUMP = 500      # a trump discarded
    O_THEIR_LENGTH = 60     # per card the other side holds in a suit led
    O_THEIR_VOID = 16       # ... a void in it counts as this many cards



# Tunable copies of the scores above (benchmarks/solver_nodes.py tunes them by node counts)
cdef int OW[19]
OW[0] = O_HINT
OW[1] = O_KILLER
OW[2] = O_CASH
OW[3] = O_SAFE_LOW
OW[4] = O_OVERTAKE
OW[5] = O_CONTEST
OW[6] = O_LOW
OW[7] = O_TO_PARTNER
OW[8] = O_PARTNER_RUFF
OW[9] = O_THEY_RUFF
OW[10] = O_TRUMP_LEAD
OW[11] = O_LENGTH
OW[12] = O_KEEP_TRUMP
OW[13] = O_THEIR_LENGTH
OW[14] = O_THEIR_VOID
OW[15] = -1      # per relative rank: a contesting follow prefers higher cards (tuned: lower)
OW[16] = O_CONTEST  # a second-hand follow that beats the trick for now
OW[17] = 1       # per relative rank: a lead that does not cash prefers lower cards
OW[18] = 0       # a lead in a suit the leader's side holds the top card of, not cashing

_OW_NAMES = ('O_HINT', 'O_KILLER', 'O_CASH', 'O_SAFE_LOW', 'O_OVERTAKE', 'O_CONTEST', 'O_LOW', 'O_TO_PARTNER', 'O_PARTNER_RUFF', 'O_THEY_RUFF', 'O_TRUMP_LEAD', 'O_LENGTH', 'O_KEEP_TRUMP', 'O_THEIR_LENGTH', 'O_THEIR_VOID', 'O_CONTEST_RANK', 'O_CONTEST2', 'O_LEAD_RANK', 'O_OUR_TOP')


def _order_weights(dict new=None):
    """The move-ordering scores, by name; ``new`` sets some of them (for tuning only)."""
    cdef int i
    if new:
        for k, v in new.items():
            OW[_OW_NAMES.index(k)] = int(v)
    return {n: OW[i] for i, n in enumerate(_OW_NAMES)}


cdef bint partner_wins_fourth(const Ctx* c, const tk_trick* t, int seat) noexcept nogil:
    """At second hand of four: can the fourth hand, a partner, beat the card led and
    anything the third hand can play?"""
    cdef const tk_rules* r = c.r
    cdef int third = seat + 1, fourth = seat + 2, led = t.led
    cdef mask_t f4, f3, tm, t3, t4
    if third >= c.n:
        third -= c.n
    if fourth >= c.n:
        fourth -= c.n
    if ((c.side >> fourth) & 1) != ((c.side >> seat) & 1):
        return False
    f4 = c.hand[fourth] & r.suit_mask[led]
    f3 = c.hand[third] & r.suit_mask[led]
    tm = r.suit_mask[r.trump] if r.trump >= 0 else 0
    t3 = c.hand[third] & tm
    t4 = c.hand[fourth] & tm
    if f4:
        if not tk_beats(r, highest(f4), t.win_card):
            return False
        if f3 and tk_beats(r, highest(f3), highest(f4)):
            return False
        if not f3 and t3 and led != r.trump:
            return False  # the third hand may ruff
        return True
    if led == r.trump or not t4 or not (r.duties & TK_FOLLOW):
        return False
    # the fourth hand ruffs: beaten only by an over-ruff of a third hand void in the suit
    if f3 or not t3:
        return True
    return tk_beats(r, highest(t4), highest(t3))


cdef inline void add_move(long long* keys, int k, int sc, int m) noexcept nogil:
    """Insert move `m` with score `sc` into the `k` sorted `keys` (one int per move, score
    above card, best first): an insertion sort of at most a hand's worth of moves. The moves
    come lowest first, so ties keep the lower card first."""
    cdef long long key = (<long long>sc) * 256 + (255 - m)
    while k > 0 and keys[k - 1] < key:
        keys[k] = keys[k - 1]
        k -= 1
    keys[k] = key


cdef int order_moves(
    const Ctx* c, const tk_trick* t, int seat, mask_t moves, mask_t live, int hint, int* out
) noexcept nogil:
    """Write the moves into `out`, most promising first; return how many.

    Leads: cash a card nobody can beat; else lead towards a partner's top card or a
    partner's ruff, away from the other side's ruffs and its length (fewer replies), low.
    Follows: a partner's card that will hold -> play low; else the cheapest card that will
    hold; else (second hand) a card that beats for now; else discard low from length,
    trumps last."""
    cdef const tk_rules* r = c.r
    cdef int n = c.n, k = 0, m, e, sc, rank, top, p, k2, x, killer
    cdef long long keys[64]
    cdef int base[TK_SUITS]   # leads: the score of a lead of the suit that does not cash
    cdef int their[TK_SUITS]  # leads: the other side's length in the suit, as a penalty
    cdef int cash[TK_SUITS]   # leads: the suit's card that cashes, or -1
    cdef bint beats, secure_partner = False
    cdef int mycol = (c.side >> seat) & 1
    cdef mask_t suit_live, left, high, ruff, tm
    if moves & (moves - 1) == 0:  # one move or none: no order to find
        out[0] = lowest(moves)
        return 1 if moves else 0
    if t.count == 0:
        # Everything but a lead's rank depends on its suit alone: work it out once per suit
        # led (DDS's idea for the length: the fewer cards the other side holds in a suit led,
        # the fewer replies to search; a void counts as long, for the ruff or discard it
        # allows).
        tm = r.suit_mask[r.trump] if r.trump >= 0 else 0
        left = moves
        while left:
            e = r.suit_of[lowest(left)]
            left &= ~r.suit_mask[e]
            suit_live = live & r.suit_mask[e]
            their[e] = 0
            x = ((1 << n) - 1) & (~c.side if mycol else c.side)
            while x:
                p = lowest(x)
                x &= x - 1
                k2 = popcount(c.hand[p] & r.suit_mask[e])
                their[e] += OW[13] * (k2 if k2 else OW[14])
            # only the suit's top card can cash
            top = highest(suit_live)
            cash[e] = top if (moves >> top) & 1 and not beaten_later(c, t, seat, top) else -1
            sc = OW[6] - their[e]
            top = owner(c, top)
            if top != seat and ((c.side >> top) & 1) == mycol:
                sc += OW[7]
            elif top >= 0 and ((c.side >> top) & 1) == mycol:
                sc += OW[18]
            if e != r.trump:
                for p in range(n):
                    if p == seat or (c.hand[p] & r.suit_mask[e]) or not (c.hand[p] & tm):
                        continue
                    sc += OW[8] if ((c.side >> p) & 1) == mycol else -OW[9]
            elif top < 0 or ((c.side >> top) & 1) != mycol:
                sc -= OW[10]
            base[e] = sc
        killer = c.killer[popcount(c.hand[seat])][seat]
        while moves:
            m = lowest(moves)
            moves &= moves - 1
            e = r.suit_of[m]
            rank = popcount(live & r.suit_mask[e] & below(m))
            if m == hint:
                sc = OW[0]
            else:
                sc = OW[2] + rank - their[e] if m == cash[e] else base[e] - OW[17] * rank
                if m == killer:
                    sc += OW[1]
            add_move(keys, k, sc, m)
            k += 1
    else:
        later_threats(c, t, seat, t.led, &high, &ruff)
        if ((c.side >> t.win_seat) & 1) == mycol:
            secure_partner = not beaten_by(r, t.led, high, ruff, t.win_card)
        elif t.count == 1 and n == 4:
            # second hand: the fourth hand (a partner) will win the trick whatever the third
            # plays -> play low, as under a partner's winning card
            secure_partner = partner_wins_fourth(c, t, seat)
        while moves:
            m = lowest(moves)
            moves &= moves - 1
            e = r.suit_of[m]
            rank = popcount(live & r.suit_mask[e] & below(m))
            beats = tk_beats(r, m, t.win_card)
            if m == hint:
                sc = OW[0]
            elif secure_partner:
                sc = OW[3] - rank - (OW[4] if beats else 0)
            elif beats:
                if not beaten_by(r, t.led, high, ruff, m):
                    sc = OW[2] - rank
                else:
                    sc = (OW[16] if t.count == 1 else OW[5]) + OW[15] * rank
            else:
                sc = OW[6] - rank
            if m != hint and e != t.led and not beats:
                sc += OW[11] * popcount(c.hand[seat] & r.suit_mask[e])
                if e == r.trump:
                    sc -= OW[12]
            add_move(keys, k, sc, m)
            k += 1
    for p in range(k):
        out[p] = 255 - <int>(keys[p] & 255)
    return k


cdef unsigned long long shape_key(const Ctx* c, int leader) noexcept nogil:
    """Hash of the leader and the length of every suit in every hand."""
    cdef unsigned long long h = tk_fmix(<unsigned long long>(leader + 1 + 0x500))
    cdef unsigned long long x
    cdef int s, e
    for s in range(c.n):
        x = 0
        for e in range(TK_SUITS):
            x = x * 65 + popcount(c.hand[s] & c.r.suit_mask[e])
        h = tk_fmix(h ^ (x + (<unsigned long long>s) * tk_golden))
    return h if h else 1


cdef unsigned long long wr_bucket(const Ctx* c, unsigned long long shape, mask_t live) noexcept nogil:
    """Which bucket a position's entries go to: the shape plus who holds the top cards of each
    suit. Entries only match positions of the same shape, so the shape alone would do, but it
    piles thousands of positions into one bucket; the owners of the top cards (significant in
    nearly every entry) spread them. An entry that ignores a top card is then missed by a
    position where another hand holds it: a lost hit, never a wrong one."""
    cdef unsigned long long x = shape
    cdef mask_t sl
    cdef int e, j, card
    for e in range(TK_SUITS):
        sl = live & c.r.suit_mask[e]
        for j in range(WR_TOPS):
            if sl == 0:
                break
            card = highest(sl)
            sl ^= bit(card)
            x = x * 5 + <unsigned long long>owner(c, card)
    return tk_fmix(x) & c.wt_mask


cdef inline void wr_swap(wr_entry* a, wr_entry* b) noexcept nogil:
    """Swap two entries' contents, each keeping its place in the chains (`next`)."""
    cdef wr_entry t = a[0]
    cdef int an = a.next, bn = b.next
    a[0] = b[0]
    b[0] = t
    a.next = an
    b.next = bn


cdef bint wr_probe(
    Ctx* c, unsigned long long shape, unsigned long long bucket, mask_t live,
    const mask_t* comp, int alpha, int beta, int* lo, int* hi, mask_t* wlo, mask_t* whi,
    int* hint,
) noexcept nogil:
    """Tighten lo/hi with the entries of the bucket whose significant cards match here.

    Chains are walked for at most WR_CHAIN entries: a chain may run into slots the ring has
    since given to other buckets (even loop), which is harmless because every entry is checked
    on its own shape and cards, and each entry is a true bound wherever it matches.

    With ``F_PROBE`` the walk stops as soon as the bounds cut the window (alpha, beta) or
    meet, and an entry that matched moves to the front of its chain (its contents swap with
    the chain's head): the entries that keep matching are found after a step or two instead
    of a walk of hundreds of cache lines."""
    cdef int i = c.heads[bucket], steps = 0, s
    cdef bint ok, fast = (c.flags & F_PROBE) != 0
    cdef wr_entry* e
    cdef wr_entry* head = &c.wt[i - 1] if i else NULL
    while i and steps < WR_CHAIN:
        e = &c.wt[i - 1]
        i = e.next
        steps += 1
        if e.shape != shape:
            continue
        ok = True
        for s in range(c.n):
            if (comp[s] & e.relmask) != e.comp[s]:
                ok = False
                break
        if not ok:
            continue
        c.hits += 1
        if e.lo > lo[0]:
            lo[0] = e.lo
            wlo[0] = tk_pdep(e.relmask, live)
        if e.hi < hi[0]:
            hi[0] = e.hi
            whi[0] = tk_pdep(e.relmask, live)
        if e.hint >= 0:
            hint[0] = e.hint
        if fast:
            if e != head:
                wr_swap(e, head)
            if head.next:  # the next hit goes behind this one
                head = &c.wt[head.next - 1]
            if lo[0] >= beta or hi[0] <= alpha or lo[0] == hi[0]:
                break
    c.walked += steps
    return lo[0] >= beta or hi[0] <= alpha or lo[0] == hi[0]


cdef inline unsigned int suit_set(const tk_rules* r, mask_t sig) noexcept nogil:
    """The effective suits with a card in `sig`, as a bit mask."""
    cdef unsigned int S = 0
    cdef int e
    for e in range(TK_SUITS):
        if sig & r.suit_mask[e]:
            S |= 1u << e
    return S


cdef inline void top_owners(const Ctx* c, mask_t live, int* tops) noexcept nogil:
    """Who holds the top live card of each suit (0 for a suit with none): the bucket of every
    suit set is hashed from these, so they are read once per look-up or store."""
    cdef int e, s
    cdef mask_t sl, b
    for e in range(TK_SUITS):
        tops[e] = 0
        sl = live & c.r.suit_mask[e]
        if sl:
            b = bit(highest(sl))
            for s in range(c.n):
                if c.hand[s] & b:
                    tops[e] = s
                    break


cdef inline unsigned long long wr_set_bucket(
    const Ctx* c, unsigned long long shape, const int* tops, unsigned int S
) noexcept nogil:
    """The bucket of the entries of this shape that read exactly the suits `S`: the shape,
    `S` and who holds the top card of each suit in `S` (`tops`; an entry reading a suit reads
    its top card: its significant cards are a top run). Suits outside `S` do not pick the
    bucket, so an entry that ignores a suit is found whoever holds that suit's top card."""
    cdef unsigned long long x = shape ^ ((<unsigned long long>S + 1) * tk_golden)
    cdef int e
    for e in range(TK_SUITS):
        if (S >> e) & 1:
            x = x * 5 + <unsigned long long>tops[e]
    return tk_fmix(x) & c.wt_mask


cdef inline wr_sets* sets_slot(const Ctx* c, unsigned long long shape) noexcept nogil:
    return &c.sets[shape & c.sets_mask]


cdef void wr_probe_sets(
    Ctx* c, unsigned long long shape, mask_t live, const mask_t* comp, int alpha, int beta,
    int* lo, int* hi, mask_t* wlo, mask_t* whi, int* hint,
) noexcept nogil:
    """wr_probe over the buckets of every suit set this shape has entries under (the shape's
    record in `sets`; a record another shape took over loses hits, never makes a wrong one),
    subsets of the suits with live cards only."""
    cdef wr_sets* rec = sets_slot(c, shape)
    cdef unsigned int used, S
    cdef int tops[TK_SUITS]
    if rec.shape != shape:
        return
    used = rec.used
    top_owners(c, live, tops)
    while used:
        S = lowest(used)
        used &= used - 1
        if wr_probe(c, shape, wr_set_bucket(c, shape, tops, S), live, comp, alpha, beta,
                    lo, hi, wlo, whi, hint):
            return


cdef void wr_store(
    Ctx* c, unsigned long long shape, unsigned long long bucket, mask_t live, const mask_t* comp,
    mask_t win, int depth, int lo, int hi, int hint,
) noexcept nogil:
    """Store a bound under the abstraction `win` defines: in each suit, every live card from
    the lowest card of `win` up is significant; lower cards only count by number."""
    cdef const tk_rules* r = c.r
    cdef mask_t sig = 0, x, rm
    cdef int e, i, s, steps = 0, idx, old_next, nxt
    cdef int tops[TK_SUITS]
    cdef unsigned int S
    cdef bint same
    cdef wr_entry* b
    cdef wr_sets* rec
    for e in range(TK_SUITS):
        x = win & r.suit_mask[e]
        if x:
            sig |= live & r.suit_mask[e] & ~below(lowest(x))
    rm = tk_pext(sig, live)
    c.stores += 1
    c.sig += popcount(sig)
    if c.flags & F_SETS:
        S = suit_set(r, sig)
        top_owners(c, live, tops)
        bucket = wr_set_bucket(c, shape, tops, S)
        rec = sets_slot(c, shape)
        if rec.shape != shape:
            rec.shape = shape
            rec.used = 0
        rec.used |= 1u << S
    i = c.heads[bucket]
    while i and steps < WR_CHAIN:  # the same abstract position: merge the bounds
        b = &c.wt[i - 1]
        i = b.next
        steps += 1
        if b.shape != shape or b.relmask != rm:
            continue
        same = True
        for s in range(c.n):
            if b.comp[s] != (comp[s] & rm):
                same = False
                break
        if same:
            if lo > b.lo:
                b.lo = lo
            if hi < b.hi:
                b.hi = hi
            if depth > b.depth:
                b.depth = depth
            if hint >= 0:
                b.hint = hint
            return
    idx = c.wt_cursor
    c.wt_cursor = idx + 1 if idx + 1 < c.wt_size else 0
    b = &c.wt[idx]
    old_next = b.next
    nxt = c.heads[bucket]
    b.next = old_next if nxt == idx + 1 else nxt
    c.heads[bucket] = idx + 1
    b.shape = shape
    b.relmask = rm
    for s in range(4):
        b.comp[s] = (comp[s] & rm) if s < c.n else 0
    b.lo = lo
    b.hi = hi
    b.depth = depth
    b.hint = hint


cdef mask_t class_ranks(const Ctx* c, mask_t moves, mask_t legal, mask_t live, mask_t win) noexcept nogil:
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


cdef int ab(Ctx* c, const tk_trick* tp, int alpha, int beta, mask_t* win) noexcept nogil:
    """Fail-soft alpha-beta on the side's value from this node to the end of the deal.

    With the winning-ranks table on, `win` returns the cards whose ranks the result relies
    on (see wr_store); otherwise it is left alone."""
    cdef const tk_rules* r = c.r
    cdef int n = c.n
    cdef int seat = tp.leader + tp.count
    cdef int R = 0, lo, hi, a0 = alpha, b0 = beta, best, v, gain, i, k, m, hint = -1, bestm = -1
    cdef int maxim, s, low
    cdef bint wr = (c.flags & F_WR) != 0, cut = False
    cdef mask_t live, legal, moves, wlo = 0, whi = 0, w = 0, wc, wnode = 0
    cdef unsigned long long key = 0, bucket = 0
    cdef tt_entry* e
    cdef tk_trick t2, t3
    cdef int mv[64]
    cdef int small[TK_SUITS]
    cdef mask_t comp[4]
    if seat >= n:
        seat -= n
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
            key = shape_key(c, tp.leader)
            for s in range(n):
                comp[s] = tk_pext(c.hand[s], live)
            c.probes += 1
            if c.flags & F_SETS:
                wr_probe_sets(c, key, live, comp, alpha, beta, &lo, &hi, &wlo, &whi, &hint)
            else:
                bucket = wr_bucket(c, key, live)
                wr_probe(c, key, bucket, live, comp, alpha, beta, &lo, &hi, &wlo, &whi, &hint)
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
    moves = representatives(c, legal, live) if c.flags & F_MERGE else legal
    hint = hint_card(c, hint, live, legal) if tp.count == 0 else -1
    k = order_moves(c, tp, seat, moves, live, hint, mv)
    best = -1 if maxim else BIG
    for i in range(TK_SUITS):
        small[i] = -1
    for i in range(k):
        m = mv[i]
        if wr and small[r.suit_of[m]] > m:
            # A card of this suit below every rank the searched cards' proofs used was tried
            # already: this one plays the same (one "small" card per suit).
            continue
        c.hand[seat] ^= bit(m)
        t2 = tp[0]
        tk_play(r, &t2, m)
        wc = 0
        if t2.count == n:
            gain = trick_gain(c, &t2)
            tk_start(&t3, t2.win_seat)
            v = gain + ab(c, &t3, alpha - gain, beta - gain, &wc)
            if wr:
                wc |= rank_win(r, &t2)
        else:
            v = ab(c, &t2, alpha, beta, &wc)
        c.hand[seat] ^= bit(m)
        if c.stopped:
            win[0] = 0
            return 0
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
                c.killer[R][seat] = m
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
    moves = representatives(c, legal, live) if c.flags & F_MERGE else legal
    k = order_moves(c, tp, seat, moves, live, -1, mv)
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
    if g < lo:
        g = lo
    if g > hi:
        g = hi
    while lo < hi:
        b = g if g > lo else lo + 1
        c.windows += 1
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
        run_playout(c.r, hands, t[0], P_GREEDY, 0.1, &rng, won, pts)
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


cdef int _default_bits(int cards) noexcept:
    if cards <= 12:
        return 10
    if cards <= 24:
        return 14
    if cards <= 36:
        return 18
    return 21


cdef class Solver:
    """A double-dummy solver bound to one :class:`TrickRules`; reuse it to keep its
    transposition table warm across positions of the same deal (or any deal: the table is
    keyed by positions, so entries stay true; it is cleared when the objective's side or kind
    changes).

    The search: fail-soft alpha-beta driven by null-window probes (MTD(f)); one card of each
    run of equivalent cards (adjacent in power with no live card between, equal points when
    points count); quick-trick, top-trump, lost-lead and (no trump) later-tricks bounds at
    trick starts, a sure-trick bound inside tricks and, at second hand, the sure trick plus
    its winner's quick tricks; move ordering by static card-play rules plus the table's best card
    and a killer lead per depth; a transposition table at trick starts keyed by relative
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
        self.stats = {}

    def __dealloc__(self):
        tk_table_free(self.mem, sizeof(tt_entry) << self.bits)

    def clear(self):
        """Forget every transposition-table entry."""
        self.wt_cursor = 0
        if self.mem != NULL:
            memset(self.mem, 0, sizeof(tt_entry) << self.bits)

    cdef int _prepare(
        self, Ctx* c, tk_trick* t, object hands, int leader, object trick, Objective objective
    ) except -1:
        cdef int bits, cards, side, s, sets_bits
        memset(c, 0, sizeof(Ctx))
        memset(c.killer, -1, sizeof(c.killer))
        c.r = &self.rules.c
        c.n = self.rules.seats
        load_position(self.rules, hands, leader, trick, c.hand, t)
        side = objective.side_mask(self.rules)
        c.side = side
        c.kind = {"tricks": K_TRICKS, "points": K_POINTS, "exact": K_EXACT}[objective.kind]
        c.flags = self.flags
        if c.kind == K_POINTS:
            c.flags &= ~F_REL  # card points tell apart cards of equal relative rank
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
        bits = self.tt_bits_set if self.tt_bits_set > 0 else _default_bits(cards)
        if c.flags & F_TT:
            if bits > self.bits:
                tk_table_free(self.mem, sizeof(tt_entry) << self.bits)
                self.mem = tk_table_alloc(sizeof(tt_entry) << bits)
                if self.mem == NULL:
                    self.bits = 0
                    raise MemoryError("no memory for the transposition table")
                self.bits = bits
                self.wt_cursor = 0
            elif (
                self.tt_side != side
                or self.tt_kind != c.kind
                or self.tt_wr != (c.flags & F_WR)
            ):
                self.clear()
            self.tt_side = side
            self.tt_kind = c.kind
            self.tt_wr = c.flags & F_WR
            # One block of memory: 32-byte exact entries, or for winning ranks a bucket head
            # array (1/32 of the block), a ring of 64-byte abstract entries and, at the end,
            # the suit sets of each shape (1/16: a 13-card bridge search meets hundreds of
            # thousands of shapes, and a shape whose record another one takes over loses
            # the hits of all its entries; at 1/128, 6% more nodes on full deals).
            c.tt = <tt_entry*>self.mem
            c.tt_mask = ((<unsigned long long>1) << self.bits) - 1
            c.heads = <int*>self.mem
            c.wt_mask = ((<unsigned long long>1) << (self.bits - 2)) - 1
            c.wt = <wr_entry*>(<char*>self.mem + (sizeof(int) << (self.bits - 2)))
            sets_bits = self.bits - 3 if self.bits > 6 else 0
            c.sets_mask = ((<unsigned long long>1) << sets_bits) - 1
            c.sets = <wr_sets*>(
                <char*>self.mem + (sizeof(tt_entry) << self.bits)
                - (sizeof(wr_sets) << sets_bits)
            )
            c.wt_size = <int>(
                (
                    (sizeof(tt_entry) << self.bits)
                    - (sizeof(int) << (self.bits - 2))
                    - (sizeof(wr_sets) << sets_bits)
                )
                // sizeof(wr_entry)
            )
            c.wt_cursor = self.wt_cursor
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
        self, hands, int leader, trick=(), objective=None, *, long long max_nodes=0, guess=None
    ):
        """The value of the position under ``objective`` (see the module docstring).

        ``hands``: one card mask (or iterable of cards) per seat, without the cards on the
        trick; ``leader``: the seat that led the trick in progress (or leads next);
        ``trick``: the card indexes played to it so far, in order. Default objective: tricks
        for the team of the seat to play. ``max_nodes`` (> 0): give up after visiting that
        many nodes and raise :class:`SearchLimit` (the table keeps only what was proven, so
        the solver stays fit for use). ``guess``: a value the position likely has (the same
        position in a similar world, say); the search starts its null windows there, which
        saves windows when it is close, and never changes the value.
        """
        cdef Ctx* c = <Ctx*>malloc(sizeof(Ctx))
        cdef tk_trick t
        cdef int v, need
        if c == NULL:
            raise MemoryError()
        try:
            objective = self._objective(objective, leader, trick)
            self._prepare(c, &t, hands, leader, trick, objective)
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
    ):
        """``{card_index: value}`` for every legal card of the seat to play: the value of the
        position after that card, under ``objective``, always from the objective side's point
        of view (the side picks a card of highest value, the others one of lowest).
        ``seat``, when given, must be the seat to play. ``max_nodes`` (> 0): the most nodes
        for all the cards together, else :class:`SearchLimit`. ``guess``: ``{card_index:
        value}`` the cards likely have (from a similar world); a card without one starts
        from the value of the card searched before it (cards of one hand tend to be worth
        about the same). Guesses only save time; they never change a value."""
        cdef Ctx* c = <Ctx*>malloc(sizeof(Ctx))
        cdef tk_trick t, t2, t3
        cdef int to_play, v, gain, m, p, need, last = -1
        cdef mask_t legal, moves, live, x, lower
        if c == NULL:
            raise MemoryError()
        try:
            objective = self._objective(objective, leader, trick)
            to_play = (leader + len(trick)) % self.rules.seats
            if seat is not None and int(seat) != to_play:
                raise ValueError(f"seat {seat} is not to play; seat {to_play} is")
            self._prepare(c, &t, hands, leader, trick, objective)
            c.limit = max_nodes if max_nodes > 0 else LLONG_MAX
            need = objective.target - objective.already
            legal = tk_legal(c.r, c.hand[to_play], &t)
            live = t.cards
            for s in range(c.n):
                live |= c.hand[s]
            moves = representatives(c, legal, live) if c.flags & F_MERGE else legal
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
                    if t2.count == c.n:
                        gain = trick_gain(c, &t2)
                        tk_start(&t3, t2.win_seat)
                        t2 = t3
                    if c.guess >= 0:  # the guess is the card's value, gain included
                        c.guess = c.guess - gain if c.guess > gain else 0
                    if c.kind == K_EXACT:
                        v = ex(c, &t2, need - gain)
                    else:
                        v = gain + root_value(c, &t2, need)
                    c.hand[to_play] ^= bit(m)
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
                    lower = live & c.r.suit_mask[c.r.suit_of[p]] & below(p)
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

