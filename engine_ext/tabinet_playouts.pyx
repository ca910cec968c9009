# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Tabinet playouts in C: the rules of play and the heuristic's choices on a compact state.

A search plays thousands of Tabinet moves per decision. The Python copy
(:class:`levata.engine.games.tabinet.playout.TabinetPlayout`) already drops events and views,
but the greedy player (:mod:`levata.engine.games.tabinet.policy`: every capture of every card
weighed, and the sweep each leaves) still costs most of a rollout. :class:`TabinetPlayout`
here holds the hands as card masks, the stock and the table as small arrays, copies with one
``memcpy`` and plays out in C with either policy:

* ``"heuristic"``: the Python copy's choices, card for card (a whole move at once in a
  rollout, an atomic step of it in :meth:`~TabinetPlayout.choose`);
* ``"random"``: uniform over the legal atomic actions, from the state's splitmix64 stream.

The rules and the policy here are those of :mod:`levata.engine.games.tabinet.rules`,
:mod:`~levata.engine.games.tabinet.policy`, :mod:`levata.engine.family.captures` and the
Python copy, written again in C for speed; ``tests/engine/test_tabinet_kernel.py`` proves
they agree (legal actions, successor positions, scores, heuristic choices and whole rollouts
over thousands of positions). The game builds one with :meth:`TabinetState.playout_state
<levata.engine.games.tabinet.TabinetState.playout_state>`. The policy's ratings are doubles
worked out in the Python copy's order of operations, so they are bit for bit its floats and
ties go to the same move.

>>> from levata.engine.games.tabinet import TabinetState
>>> state = TabinetState.from_position(2, ["9H 4C", "4D 5S"], table="AD 8C 2H 7S 5D")
>>> fast = state.playout_state(seed=1)
>>> fast.legal_actions(0) == state.legal_actions(0), str(fast.choose(0))
(True, 'capture 9H')
>>> copy = fast.clone()
>>> copy.rollout("heuristic") > 0, copy.is_over(), fast.is_over()
(True, True, False)
"""

from libc.stdio cimport fputs, stderr
from libc.stdlib cimport abort, free, qsort, realloc
from libc.string cimport memcpy

from levata.engine.cardmask cimport bit, lowest, mask_t, popcount

from levata.engine.cards import Card, french_deck
from levata.engine.contract import Action

from levata.engine.playout_base cimport MAX_CODES, POL_HEURISTIC, POL_RANDOM, Playout
from levata.engine.splitmix cimport below_n

from levata.engine.playout_base import POLICIES

__all__ = ["POLICIES", "TabinetDealer", "TabinetPlayout"]


cdef enum:
    MAX_SEATS = 4
    DECK = 52
    PACKET = 6
    FIRST_CARDS = 4
    LAYOUT = 4
    SWEEP_CHECKED = 6   # policy.SWEEP_CHECKED
    REFUSE_AT_MOST = 1  # rules.REFUSE_AT_MOST
    TWO_OF_CLUBS = 2    # Card index: clubs (slot 0) * 16 + 2
    TEN_OF_DIAMONDS = 26

# the policy's weights (policy.py)
cdef double TABLA = 1.0
cdef double PER_CARD = 0.05
cdef double SWEEP_RISK = 0.8
cdef double EXPOSE = 0.4

cdef enum:
    PH_DECIDE = 0
    PH_ACE = 1
    PH_CAPTURE = 2
    PH_PLAY = 3
    PH_OVER = 4

# action codes: a card's index trails it (0..63), 64 + index captures with it, 128 + index
# takes it from the table; then the others
cdef enum:
    A_CAPTURE = 64
    A_TAKE = 128
    A_ACE_1 = 192
    A_ACE_11 = 193
    A_DONE = 194
    A_ACCEPT = 195
    A_REFUSE = 196
    N_CODES = 197

cdef struct tb_state:
    int n
    int nsides
    int side_of[MAX_SEATS]
    mask_t hands[MAX_SEATS]
    int stock[DECK]         # top card last
    int nstock
    int table[DECK]         # in the order laid
    int ntable
    int played              # the card played to capture, -1: none
    int points[MAX_SEATS]   # per side: card points captured this round
    int cards[MAX_SEATS]    # per side: cards captured this round
    int tablas[MAX_SEATS]   # per side: active tablas
    int totals[MAX_SEATS]   # per side: earlier rounds
    int last                # the last capturer, -1: nobody yet
    int phase
    int actor
    int first
    int target              # the capture being built: its value (0: none) ...
    int taken[DECK]         # ... and the table indices taken so far, in order
    int ntaken
    int forced              # the forced_capture option
    int bonus               # the most_cards_bonus option
    unsigned long long rng

ctypedef unsigned long long u64


_PHASE_NAMES = ("decide", "ace", "capture", "play", "over")
_PHASE_CODE = {name: i for i, name in enumerate(_PHASE_NAMES)}

_CARD = [None] * 64
for _c in french_deck():
    _CARD[_c.index] = _c
# Actions by code and codes by action: these Action objects compare equal to the game's.
_ACTION = [None] * N_CODES
for _c in french_deck():
    _ACTION[_c.index] = Action("trail", card=_c)
    _ACTION[A_CAPTURE + _c.index] = Action("capture", card=_c)
    _ACTION[A_TAKE + _c.index] = Action("take", card=_c)
_ACTION[A_ACE_1] = Action("ace", number=1)
_ACTION[A_ACE_11] = Action("ace", number=11)
_ACTION[A_DONE] = Action("done")
_ACTION[A_ACCEPT] = Action("accept")
_ACTION[A_REFUSE] = Action("refuse")
_CODE = {a: i for i, a in enumerate(_ACTION) if a is not None}
assert <int>N_CODES <= <int>MAX_CODES  # the face's buffer holds every code


# -- cards (rules.py) -------------------------------------------------------------------------

cdef inline int rank_of(int c) noexcept nogil:
    return c & 15

cdef inline int low_value(int c) noexcept nogil:
    """A card's first value in a sum: J 12, Q 13, K 14, an ace 1 (``values(card)[0]``)."""
    cdef int r = c & 15
    if r == 14:
        return 1
    if r >= 11:
        return r + 1
    return r

cdef inline int high_value(int c) noexcept nogil:
    """A card's other value: 11 for an ace, else its only one."""
    return 11 if (c & 15) == 14 else low_value(c)

cdef inline int points_of(int c) noexcept nogil:
    if c == TEN_OF_DIAMONDS or c == TWO_OF_CLUBS:
        return 2
    return 1 if rank_of(c) >= 10 else 0

cdef inline bint is_point_card(int c) noexcept nogil:
    return rank_of(c) >= 10 or c == TWO_OF_CLUBS

cdef bint may_refuse(mask_t hand) noexcept nogil:
    cdef int count = 0
    while hand:
        if is_point_card(lowest(hand)):
            count += 1
        hand &= hand - 1
    return count <= REFUSE_AT_MOST

cdef inline int step_reach(int reach, int c, int mask) noexcept nogil:
    """The sums reachable adding card ``c`` (each of its values) to the sums ``reach``."""
    return ((reach << low_value(c)) | (reach << high_value(c))) & mask


# -- captures by sums (family/captures.py) ----------------------------------------------------

cdef bint completable(int target, const int* table, int n) noexcept nogil:
    """Some table cards sum to ``target`` (``completable(target, (), table, values)``)."""
    cdef int mask = (1 << (target + 1)) - 1, reach = 1, i
    for i in range(n):
        reach |= step_reach(reach, table[i], mask)
    return (reach >> target) & 1

cdef int able(int c, const int* table, int n, int* out) noexcept nogil:
    """The values a played ``c`` may capture for on ``table``, in ``targets`` order."""
    cdef int k = 0
    if completable(low_value(c), table, n):
        out[k] = low_value(c)
        k += 1
    if high_value(c) != low_value(c) and completable(high_value(c), table, n):
        out[k] = high_value(c)
        k += 1
    return k

cdef struct u64_list:
    u64* data
    int n
    int cap

cdef void push(u64_list* l, u64 x) noexcept nogil:
    cdef u64* grown
    if l.n == l.cap:
        l.cap = 64 if l.cap == 0 else 2 * l.cap
        grown = <u64*>realloc(l.data, l.cap * sizeof(u64))
        if grown == NULL:  # no exception can rise from C here: say so and stop, never write
            fputs(b"levata.engine.tabinet_playouts: out of memory listing captures\n", stderr)
            abort()
        l.data = grown
    l.data[l.n] = x
    l.n += 1

cdef int _by_value(const void* a, const void* b) noexcept nogil:
    cdef u64 x = (<const u64*>a)[0], y = (<const u64*>b)[0]
    return (x > y) - (x < y)

cdef void sort_unique(u64_list* l) noexcept nogil:
    cdef int i, k = 0
    if l.n < 2:
        return
    qsort(l.data, l.n, sizeof(u64), _by_value)
    for i in range(l.n):
        if k == 0 or l.data[i] != l.data[k - 1]:
            l.data[k] = l.data[i]
            k += 1
    l.n = k

cdef void grow_sets(
    int target, const int* table, int n, int mask, u64 chosen, int reach, int nxt,
    u64_list* sets
) noexcept nogil:
    """captures._sets: every set of table cards (a bit set of indices) summing to
    ``target``."""
    cdef int j, step
    if chosen and (reach >> target) & 1:
        push(sets, chosen)
    for j in range(nxt, n):
        step = step_reach(reach, table[j], mask)
        if step:
            grow_sets(target, table, n, mask, chosen | (<u64>1 << j), step, j + 1, sets)

cdef void unions(int target, const int* table, int n, u64_list* out) noexcept nogil:
    """captures.unions, in increasing order (``sorted``): every union of disjoint sets
    summing to ``target``. ``out`` must start empty; the caller frees its data."""
    cdef u64_list sets
    cdef int i, k, m
    cdef u64 s
    sets.data, sets.n, sets.cap = NULL, 0, 0
    grow_sets(target, table, n, (1 << (target + 1)) - 1, 0, 1, 0, &sets)
    for i in range(sets.n):  # each union with the sets so far, kept once each
        s = sets.data[i]
        m = out.n
        push(out, s)
        for k in range(m):
            if not (out.data[k] & s):
                push(out, out.data[k] | s)
        sort_unique(out)
    free(sets.data)

cdef inline bint contains(const u64_list* l, u64 x) noexcept nogil:
    cdef int i
    for i in range(l.n):
        if l.data[i] == x:
            return True
    return False

cdef inline u64 taken_mask(const tb_state* s) noexcept nogil:
    cdef u64 m = 0
    cdef int i
    for i in range(s.ntaken):
        m |= <u64>1 << s.taken[i]
    return m

cdef int takes(const tb_state* s, const u64_list* options, int* out) noexcept nogil:
    """Selection.takes: the table indices that may be taken next."""
    cdef u64 have = taken_mask(s), prefix, low
    cdef int j, k = 0, i
    cdef int after = s.taken[s.ntaken - 1] if s.ntaken else -1
    for j in range(after + 1, s.ntable):
        prefix = have | (<u64>1 << j)
        low = (<u64>1 << (j + 1)) - 1
        for i in range(options.n):
            if options.data[i] & low == prefix:
                out[k] = j
                k += 1
                break
    return k


# -- the rules (the Python copy) --------------------------------------------------------------

cdef int legal(const tb_state* s, int seat, int* out) noexcept nogil:
    """The legal actions' codes in the game's order; their count."""
    cdef int k = 0, c, i, nt
    cdef int vals[2]
    cdef int idx[DECK]
    cdef bint any_able = False, may_trail
    cdef mask_t x
    cdef u64_list options
    if s.phase == PH_OVER or seat != s.actor:
        return 0
    if s.phase == PH_PLAY:
        x = s.hands[seat]
        while x:
            if able(lowest(x), s.table, s.ntable, vals):
                any_able = True
                break
            x &= x - 1
        may_trail = not (s.forced and any_able)
        x = s.hands[seat]
        while x:
            c = lowest(x)
            x &= x - 1
            if able(c, s.table, s.ntable, vals):
                out[k] = A_CAPTURE + c
                k += 1
            if may_trail:
                out[k] = c
                k += 1
        return k
    if s.phase == PH_CAPTURE:
        options.data, options.n, options.cap = NULL, 0, 0
        unions(s.target, s.table, s.ntable, &options)
        nt = takes(s, &options, idx)
        for i in range(nt):
            out[k] = A_TAKE + s.table[idx[i]]
            k += 1
        if s.ntaken and contains(&options, taken_mask(s)):
            out[k] = A_DONE
            k += 1
        free(options.data)
        return k
    if s.phase == PH_ACE:
        nt = able(s.played, s.table, s.ntable, vals)
        for i in range(nt):
            out[k] = A_ACE_1 if vals[i] == 1 else A_ACE_11
            k += 1
        return k
    out[0] = A_ACCEPT
    if may_refuse(s.hands[seat]):
        out[1] = A_REFUSE
        return 2
    return 1

cdef inline int pop_stock(tb_state* s) noexcept nogil:
    s.nstock -= 1
    return s.stock[s.nstock]

cdef void give(tb_state* s, int seat, int count) noexcept nogil:
    cdef int i
    for i in range(count):
        s.hands[seat] |= bit(pop_stock(s))

cdef void decide(tb_state* s, int seat, bint refuse) noexcept nogil:
    cdef int n = s.n, k, c
    cdef mask_t x
    if refuse:  # the four go face up as the table; everyone gets six
        x = s.hands[seat]
        while x:
            c = lowest(x)
            x &= x - 1
            s.table[s.ntable] = c
            s.ntable += 1
        s.hands[seat] = 0
        for k in range(n):
            give(s, (seat + k) % n, PACKET)
    else:
        give(s, seat, PACKET - FIRST_CARDS)
        for k in range(1, n):
            give(s, (seat + k) % n, PACKET)
        for k in range(LAYOUT):
            s.table[s.ntable] = pop_stock(s)
            s.ntable += 1
    s.phase, s.actor = PH_PLAY, seat

cdef int table_points(const tb_state* s) noexcept nogil:
    cdef int i, p = 0
    for i in range(s.ntable):
        p += points_of(s.table[i])
    return p

cdef bint any_hand(const tb_state* s) noexcept nogil:
    cdef int seat
    for seat in range(s.n):
        if s.hands[seat]:
            return True
    return False

cdef void round_points(const tb_state* s, int* out) noexcept nogil:
    cdef int k, top = -1, count = 0, at = 0
    for k in range(s.nsides):
        out[k] = s.tablas[k] + s.points[k]
    if s.bonus and not any_hand(s) and s.nstock == 0:
        for k in range(s.nsides):
            if s.cards[k] > top:
                top, count, at = s.cards[k], 1, k
            elif s.cards[k] == top:
                count += 1
        if count == 1:
            out[at] += s.bonus

cdef void end_round(tb_state* s) noexcept nogil:
    cdef int side, k
    cdef int now[MAX_SEATS]
    if s.last >= 0 and s.ntable:
        side = s.side_of[s.last]
        s.points[side] += table_points(s)
        s.cards[side] += s.ntable
        s.ntable = 0
    round_points(s, now)
    for k in range(s.nsides):
        s.totals[k] += now[k]
    # A match to a target goes on with fresh rounds: a rollout scores the round it is in.
    s.phase = PH_OVER

cdef void next_turn(tb_state* s, int seat) noexcept nogil:
    cdef int n = s.n, nxt, size, k
    s.phase = PH_PLAY
    if any_hand(s):
        nxt = (seat + 1) % n
        while not s.hands[nxt]:
            nxt = (nxt + 1) % n
        s.actor = nxt
        return
    if s.nstock:
        size = s.nstock // n
        if size > PACKET:
            size = PACKET
        for k in range(n):
            if s.nstock:  # a stock set up by hand may not split equally
                give(s, (s.first + k) % n, size if size > 1 else 1)
        s.actor = s.first
        return
    end_round(s)

cdef void bank(tb_state* s, int seat, int card, u64 got) noexcept nogil:
    """The played card and the table cards ``got`` to the seat's side; the table closes up."""
    cdef int side = s.side_of[seat], i, k = 0, c
    s.points[side] += points_of(card)
    s.cards[side] += 1
    for i in range(s.ntable):
        c = s.table[i]
        if (got >> i) & 1:
            s.points[side] += points_of(c)
            s.cards[side] += 1
        else:
            s.table[k] = c
            k += 1
    s.ntable = k
    s.last = seat

cdef void tabla(tb_state* s, int seat) noexcept nogil:
    cdef int side = s.side_of[seat]
    s.tablas[side] += 1
    if s.nsides == 2 and s.tablas[1 - side] > 0:
        s.tablas[1 - side] -= 1

cdef void whole_capture(tb_state* s, int seat, int card, u64 got) noexcept nogil:
    bank(s, seat, card, got)
    if not s.ntable:
        tabla(s, seat)
    next_turn(s, seat)

cdef void finish(tb_state* s, int seat) noexcept nogil:
    cdef int card = s.played
    cdef u64 got = taken_mask(s)
    s.target, s.ntaken, s.played = 0, 0, -1
    whole_capture(s, seat, card, got)

cdef int table_index(const tb_state* s, int c) noexcept nogil:
    cdef int i
    for i in range(s.ntable):
        if s.table[i] == c:
            return i
    return -1

cdef void apply_code(tb_state* s, int seat, int code) noexcept nogil:
    cdef int c
    cdef int vals[2]
    cdef int idx[DECK]
    cdef u64_list options
    if A_TAKE <= code < A_ACE_1:
        s.taken[s.ntaken] = table_index(s, code - A_TAKE)
        s.ntaken += 1
        options.data, options.n, options.cap = NULL, 0, 0
        unions(s.target, s.table, s.ntable, &options)
        c = takes(s, &options, idx)
        free(options.data)
        if not c:  # nothing more can be taken: the capture is whole
            finish(s, seat)
    elif code == A_DONE:
        finish(s, seat)
    elif code < A_CAPTURE:
        s.hands[seat] &= ~bit(code)
        s.table[s.ntable] = code
        s.ntable += 1
        next_turn(s, seat)
    elif code < A_TAKE:
        c = code - A_CAPTURE
        s.hands[seat] &= ~bit(c)
        s.played = c
        if able(c, s.table, s.ntable, vals) > 1:
            s.phase = PH_ACE
        else:
            s.target, s.ntaken, s.phase = vals[0], 0, PH_CAPTURE
    elif code == A_ACE_1 or code == A_ACE_11:
        s.target, s.ntaken, s.phase = (1 if code == A_ACE_1 else 11), 0, PH_CAPTURE
    else:
        decide(s, seat, code == A_REFUSE)

cdef void scores(const tb_state* s, double* out) noexcept nogil:
    """Each seat's side's points: the totals, or as if the round stopped now with the table
    going to the last capturer."""
    cdef int per_side[MAX_SEATS]
    cdef int k, seat
    if s.phase == PH_OVER:
        for k in range(s.nsides):
            per_side[k] = s.totals[k]
    else:
        round_points(s, per_side)
        if s.last >= 0:
            per_side[s.side_of[s.last]] += table_points(s)
        for k in range(s.nsides):
            per_side[k] += s.totals[k]
    for seat in range(s.n):
        out[seat] = per_side[s.side_of[seat]]


# -- the greedy player (policy.py) ------------------------------------------------------------

cdef bint splits(const int* cards, int left, int value) noexcept nogil:
    """policy._splits: the cards whose bits are in ``left`` split wholly into sets each
    summing to ``value``."""
    cdef int first, rest, sub, reach, x, mask = (1 << (value + 1)) - 1
    if not left:
        return True
    first = lowest(left)
    rest = left & ~(1 << first)
    sub = rest
    while True:  # every set holding the first card: it and a subset of the rest
        reach = step_reach(1, cards[first], mask)
        x = sub
        while x and reach:
            reach = step_reach(reach, cards[lowest(x)], mask)
            x &= x - 1
        if (reach >> value) & 1 and splits(cards, rest & ~sub, value):
            return True
        if not sub:
            return False
        sub = (sub - 1) & rest

cdef bint sweepable(const int* cards, int n) noexcept nogil:
    """policy._sweepable: some value from 1 to 14 splits the cards into sets of that sum
    (one card could take the whole table)."""
    cdef int value
    for value in range(1, 15):
        if splits(cards, (1 << n) - 1, value):
            return True
    return False

cdef double rate(
    const tb_state* s, int card, int value, u64 taken, bint lift, bint exposed
) noexcept nogil:
    """policy._rate, its floats worked out in the same order."""
    cdef int left[SWEEP_CHECKED + 1]
    cdef int nleft = 0, i, n = s.ntable, ngot = 0, got_points = 0
    cdef double score
    if value:
        for i in range(n):
            if (taken >> i) & 1:
                ngot += 1
                got_points += points_of(s.table[i])
        score = <double>(points_of(card) + got_points) + PER_CARD * (1 + ngot)
        if ngot == n:
            return score + TABLA * (2 if lift else 1)
        if not exposed or n - ngot > SWEEP_CHECKED:
            return score
        for i in range(n):
            if not (taken >> i) & 1:
                left[nleft] = s.table[i]
                nleft += 1
    else:
        score = -EXPOSE * points_of(card) if exposed else 0.0
        score -= 0.01 * low_value(card)  # trail the small cards first
        if not exposed or n + 1 > SWEEP_CHECKED:
            return score
        for i in range(n):
            left[i] = s.table[i]
        left[n] = card
        nleft = n + 1
    if sweepable(left, nleft):
        score -= SWEEP_RISK
    return score

cdef struct move:
    int card
    int value   # 0: a trail
    u64 taken

cdef move best_move(
    const tb_state* s, mask_t hand, bint lift, bint exposed, int card, int value,
    bint may_trail
) noexcept nogil:
    """policy.best_move: the first best-rated move in ``moves`` order. ``card`` (-1: any in
    ``hand``), ``value`` (0: any it may count) and the capture begun (``s.taken``) narrow
    the choice."""
    cdef move best
    cdef double r, best_rate = -1e9
    cdef bint found = False, trails = card < 0 and may_trail
    cdef u64 have = taken_mask(s), low = 0
    cdef int c, t, i, nv
    cdef int vals[2]
    cdef mask_t x = hand if card < 0 else bit(card)
    cdef u64_list options
    if s.ntaken:
        low = (<u64>1 << (s.taken[s.ntaken - 1] + 1)) - 1
    while x:
        c = lowest(x)
        x &= x - 1
        if value:
            vals[0], nv = value, 1
        else:
            vals[0], vals[1] = low_value(c), high_value(c)
            nv = 2 if vals[1] != vals[0] else 1
        for t in range(nv):
            options.data, options.n, options.cap = NULL, 0, 0
            unions(vals[t], s.table, s.ntable, &options)
            for i in range(options.n):
                if options.data[i] & low == have:
                    r = rate(s, c, vals[t], options.data[i], lift, exposed)
                    if r > best_rate:
                        best.card, best.value, best.taken = c, vals[t], options.data[i]
                        best_rate, found = r, True
            free(options.data)
        if trails:
            r = rate(s, c, 0, 0, lift, exposed)
            if r > best_rate:
                best.card, best.value, best.taken = c, 0, 0
                best_rate, found = r, True
    if not found:  # nothing to capture while trailing is forbidden: a trail after all
        return best_move(s, hand, lift, exposed, -1, 0, True)
    return best

cdef bint exposed_after(const tb_state* s, int seat) noexcept nogil:
    """Another side plays after ``seat``'s move this round."""
    cdef int other
    if s.nstock:
        return True
    for other in range(s.n):
        if s.side_of[other] != s.side_of[seat] and s.hands[other]:
            return True
    return False

cdef move plan(const tb_state* s, int seat) noexcept nogil:
    """The greedy whole move from here (a capture begun is carried on)."""
    cdef mask_t hand = s.hands[seat], x
    cdef bint lift = s.nsides == 2 and s.tablas[1 - s.side_of[seat]] > 0
    cdef bint exposed = exposed_after(s, seat), any_able = False
    cdef int vals[2]
    if s.phase == PH_PLAY:
        x = hand
        while x:
            if able(lowest(x), s.table, s.ntable, vals):
                any_able = True
                break
            x &= x - 1
        return best_move(s, hand, lift, exposed, -1, 0, not (s.forced and any_able))
    return best_move(s, hand, lift, exposed, s.played, s.target, True)

cdef int heuristic(const tb_state* s, int seat) noexcept nogil:
    """The Python copy's ``choose(seat, "heuristic")``: the atomic step toward the plan."""
    cdef move m
    cdef u64 have
    cdef int i
    if s.phase == PH_DECIDE:  # four weak cards are worth swapping for six fresh ones
        return A_REFUSE if may_refuse(s.hands[seat]) else A_ACCEPT
    m = plan(s, seat)
    if s.phase == PH_PLAY:
        return A_CAPTURE + m.card if m.value else m.card
    if s.phase == PH_ACE:
        return A_ACE_1 if m.value == 1 else A_ACE_11
    have = taken_mask(s)
    for i in range(s.ntable):
        if (m.taken >> i) & 1 and not (have >> i) & 1:
            return A_TAKE + s.table[i]
    return A_DONE

cdef int choose_code(tb_state* s, int seat, int policy) noexcept nogil:
    cdef int codes[N_CODES]
    cdef int nl
    if policy == POL_RANDOM:
        nl = legal(s, seat, codes)
        return codes[below_n(&s.rng, nl)]
    return heuristic(s, seat)

cdef int run(tb_state* s, int policy, int limit) noexcept nogil:
    """Play on by ``policy`` until the round ends or ``limit`` turns (0: no limit); the
    heuristic plays each whole move at once (one turn)."""
    cdef int taken = 0, seat
    cdef move m
    while s.phase != PH_OVER and (limit == 0 or taken < limit):
        seat = s.actor
        if policy == POL_HEURISTIC and s.phase == PH_PLAY:
            m = plan(s, seat)
            s.hands[seat] &= ~bit(m.card)
            if m.value:
                whole_capture(s, seat, m.card, m.taken)
            else:
                s.table[s.ntable] = m.card
                s.ntable += 1
                next_turn(s, seat)
        else:
            apply_code(s, seat, choose_code(s, seat, policy))
        taken += 1
    return taken


cdef int _card_index(object card) except -1:
    cdef int suit, rank
    if type(card) is not Card:
        raise ValueError(f"{card!r} is not a card of the French deck")
    suit, rank = card.suit, card.rank
    if not (0 <= suit < 4 and 2 <= rank <= 14):
        raise ValueError(f"{card!r} is not a card of the French deck")
    return suit * 16 + rank

cdef int _cards_into(object cards, int* out, str what) except -1:
    cdef int k = 0
    if len(cards) > DECK:
        raise ValueError(f"{what} holds 52 cards at most")
    for c in cards:
        out[k] = _card_index(c)
        k += 1
    return k


cdef class TabinetPlayout(Playout):
    """A Tabinet round for playouts: play only, no events or views; see the module.

    ``fields``: the position as the Python copy's ``fields()`` says it (players, sides,
    hands, stock top last, layout, played, points, cards, tablas and totals per side,
    last_capturer, phase, actor, first, selection, forced_capture, most_cards_bonus);
    ``seed`` starts the state's random stream.

    >>> from levata.engine.games.tabinet import TabinetState
    >>> s = TabinetState.from_position(2, ["9D", "4C"], table="9C", stock="", rest=1)
    >>> fast = s.playout_state(seed=3)
    >>> fast.to_act(), [str(a) for a in fast.legal_actions(0)]
    ((0,), ['capture 9D', 'trail 9D'])
    """

    cdef tb_state s

    def __init__(self, fields, seed=0):
        cdef tb_state* s = &self.s
        cdef int n = int(fields["players"]), seat, k
        if not 2 <= n <= MAX_SEATS:
            raise ValueError(f"Tabinet seats 2 to 4, not {n}")
        s.n = n
        s.rng = <unsigned long long>(int(seed) & 0xFFFFFFFFFFFFFFFF)
        sides = fields["sides"]
        if not 2 <= len(sides) <= n or sorted(x for side in sides for x in side) != list(range(n)):
            raise ValueError("sides: each seat on one side, two sides at least")
        s.nsides = len(sides)
        for k, members in enumerate(sides):
            for seat in members:
                s.side_of[seat] = k
        for key in ("points", "cards", "tablas", "totals"):
            if len(fields[key]) != s.nsides:
                raise ValueError(f"{key}: one value for each side")
        if len(fields["hands"]) != n:
            raise ValueError("hands: one for each seat")
        for seat in range(MAX_SEATS):
            s.hands[seat] = 0
            s.points[seat] = s.cards[seat] = s.tablas[seat] = s.totals[seat] = 0
        for seat, hand in enumerate(fields["hands"]):
            for c in hand:
                s.hands[seat] |= bit(_card_index(c))
        s.nstock = _cards_into(fields["stock"], s.stock, "the stock")
        s.ntable = _cards_into(fields["layout"], s.table, "the table")
        played = fields["played"]
        s.played = -1 if played is None else _card_index(played)
        for k in range(s.nsides):
            s.points[k] = fields["points"][k]
            s.cards[k] = fields["cards"][k]
            s.tablas[k] = fields["tablas"][k]
            s.totals[k] = fields["totals"][k]
        last = fields["last_capturer"]
        s.last = -1 if last is None else int(last)
        s.phase = _PHASE_CODE[fields["phase"]]
        s.actor = fields["actor"]
        s.first = fields["first"]
        selection = fields["selection"]
        s.target, s.ntaken = 0, 0
        if selection is not None:
            s.target = selection[0]
            for i in selection[1]:
                if not 0 <= i < s.ntable:
                    raise ValueError(f"selection: no table card {i}")
                s.taken[s.ntaken] = i
                s.ntaken += 1
        s.forced = bool(fields["forced_capture"])
        s.bonus = int(fields["most_cards_bonus"])

    def clone(self):
        """An independent copy (its random stream included)."""
        cdef TabinetPlayout other = TabinetPlayout.__new__(TabinetPlayout)
        memcpy(&other.s, &self.s, sizeof(tb_state))
        return other

    def __cinit__(self, *args, **kwargs):
        self.actions, self.codes = _ACTION, _CODE

    cdef int seats(self) noexcept:
        return self.s.n

    cdef int legal_codes(self, int seat, int* codes) noexcept:
        return legal(&self.s, seat, codes)

    cdef void submit(self, int seat, int code) noexcept:
        apply_code(&self.s, seat, code)

    cdef int pick(self, int seat, int policy, const int* codes, int k) noexcept:
        return choose_code(&self.s, seat, policy)

    cdef int play_on(self, int policy, int max_actions) noexcept nogil:
        return run(&self.s, policy, max_actions)  # turns

    cdef void reseed(self, unsigned long long seed) noexcept:
        self.s.rng = seed

    def is_over(self):
        return self.s.phase == PH_OVER

    def to_act(self):
        return () if self.s.phase == PH_OVER else (self.s.actor,)

    def estimate(self):
        """Each seat's side's points: the totals once over, else as if the round stopped
        now with the table going to the last capturer (``TabinetState.estimate``)."""
        cdef double out[MAX_SEATS]
        scores(&self.s, out)
        return tuple(out[i] for i in range(self.s.n))

    def fields(self):
        """The position as the Python copy's ``fields()`` says it (the differential test)."""
        cdef tb_state* s = &self.s
        cdef int i, k = s.nsides
        hands = [[_CARD[c] for c in range(64) if (s.hands[i] >> c) & 1] for i in range(s.n)]
        return {
            "players": s.n,
            "sides": [[seat for seat in range(s.n) if s.side_of[seat] == j] for j in range(k)],
            "hands": hands,
            "stock": [_CARD[s.stock[i]] for i in range(s.nstock)],
            "layout": [_CARD[s.table[i]] for i in range(s.ntable)],
            "played": None if s.played < 0 else _CARD[s.played],
            "points": [s.points[i] for i in range(k)],
            "cards": [s.cards[i] for i in range(k)],
            "tablas": [s.tablas[i] for i in range(k)],
            "totals": [s.totals[i] for i in range(k)],
            "last_capturer": None if s.last < 0 else s.last,
            "phase": _PHASE_NAMES[s.phase],
            "actor": s.actor,
            "first": s.first,
            "selection": (
                None if not s.target else [s.target, [s.taken[i] for i in range(s.ntaken)]]
            ),
            "forced_capture": bool(s.forced),
            "most_cards_bonus": s.bonus,
        }


cdef class TabinetDealer:
    """Worlds one seat cannot tell from a position, dealt in C: the search's determinizations.

    ``TabinetState.from_view`` deals the cards the seat cannot see (the other hands and the
    stock: no event pins any of them down) uniformly into those hands, to their sizes, and
    the stock. A search deals thousands of worlds a decision, and in Python that costs more
    than the kernel's rollouts. The dealer takes one such world (``base``: any of them, the
    hidden cards are dealt afresh each time) and each :meth:`deal` shuffles the same hidden
    cards into the same places in C: a uniform draw of the same set of worlds.
    ``tests/engine/test_tabinet_kernel.py`` proves the worlds are those ``from_view`` deals
    (the same cards in the open, the same counts) and that each hidden card lands in each
    place as often.

    ``seat``: whose view the worlds share (its hand stays); ``seed`` starts the dealer's
    stream.

    >>> from levata.engine.games.tabinet import TabinetState
    >>> state = TabinetState.from_position(2, ["9H 4C", "4D 5S"], table="AD 8C 2H 7S 5D")
    >>> dealer = state.playout_dealer(0, seed=1)
    >>> world = dealer.deal(seed=2)
    >>> world.fields()["hands"][0], len(world.fields()["hands"][1]), len(world.fields()["stock"])
    ([Card('4C'), Card('9H')], 2, 43)
    """

    cdef tb_state base
    cdef int gaps[MAX_SEATS]
    cdef int pool[DECK]
    cdef int npool
    cdef int seat
    cdef unsigned long long rng

    def __init__(self, TabinetPlayout base, int seat, seed=0):
        cdef int s, i
        cdef mask_t hand
        if not 0 <= seat < base.s.n:
            raise ValueError(f"seat {seat} is not at this table")
        memcpy(&self.base, &base.s, sizeof(tb_state))
        self.seat = seat
        self.rng = <unsigned long long>(int(seed) & 0xFFFFFFFFFFFFFFFF)
        self.npool = 0
        for s in range(MAX_SEATS):
            self.gaps[s] = 0
        for s in range(base.s.n):
            if s == seat:
                continue
            hand = base.s.hands[s]
            self.gaps[s] = popcount(hand)
            while hand:
                self.pool[self.npool] = lowest(hand)
                self.npool += 1
                hand &= hand - 1
        for i in range(base.s.nstock):
            self.pool[self.npool] = base.s.stock[i]
            self.npool += 1

    def deal(self, seed=0):
        """A new world: the hidden cards shuffled into the other seats' hands and the stock;
        the copy's own random stream starts from ``seed``."""
        cdef TabinetPlayout out = TabinetPlayout.__new__(TabinetPlayout)
        with nogil:
            self._deal(&out.s)
        out.s.rng = <unsigned long long>(int(seed) & 0xFFFFFFFFFFFFFFFF)
        return out

    cdef void _deal(self, tb_state* w) noexcept nogil:
        cdef int i, j, t, s, at = 0
        memcpy(w, &self.base, sizeof(tb_state))
        for i in range(self.npool - 1, 0, -1):  # Fisher-Yates: any order in, uniform out
            j = below_n(&self.rng, i + 1)
            t = self.pool[i]
            self.pool[i] = self.pool[j]
            self.pool[j] = t
        for s in range(w.n):
            if s == self.seat:
                continue
            w.hands[s] = 0
            for i in range(self.gaps[s]):
                w.hands[s] |= bit(self.pool[at])
                at += 1
        w.nstock = self.npool - at
        for i in range(w.nstock):
            w.stock[i] = self.pool[at + i]
