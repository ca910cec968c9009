# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Huzur playouts in C: the rules of play and the heuristic's choices on a compact state.

A search plays thousands of Huzur actions per decision. The Python copy
(:class:`levata.engine.games.huzur.playout.HuzurPlayout`) already drops events and views,
but its heuristic (the cheapest beat, the best lead: :mod:`levata.engine.games.huzur.policy`)
still costs most of a rollout. :class:`HuzurPlayout` here holds hands and the out-of-play
cards as card masks, the stock, the table and its plays as small arrays, copies with one
``memcpy`` and plays out in C with either policy:

* ``"heuristic"``: the Python copy's choices, card for card (the plan made at a move's first
  card kept for its other cards; the policy draws no randomness);
* ``"random"``: uniform over the legal actions, from the state's splitmix64 stream.

The rules and the policy here are those of :mod:`levata.engine.games.huzur.rules`,
:mod:`~levata.engine.games.huzur.policy` and the Python copy, written again in C for speed;
``tests/engine/test_huzur_kernel.py`` proves they agree (legal actions, successor positions,
scores, heuristic choices and whole rollouts over thousands of positions). The game builds
one with :meth:`HuzurState.playout_state
<levata.engine.games.huzur.HuzurState.playout_state>`. All policy values are whole numbers,
so the C choices compare exactly as the Python floats do (ties go to the same card).

>>> from levata.engine.games.huzur import HuzurState
>>> state = HuzurState.from_position(3, ["8H 9H AC", "10H 2C 7S", "QS"], "10C")
>>> fast = state.playout_state(seed=1)
>>> fast.legal_actions(0) == state.legal_actions(0), str(fast.choose(0))
(True, 'play 8H')
>>> copy = fast.clone()
>>> copy.rollout("heuristic") > 0, copy.is_over(), fast.is_over()
(True, True, False)
"""

from libc.string cimport memcpy, memset

from levata.engine.cardmask cimport bit, below, lowest, mask_t, popcount, suit_bits

from levata.engine.cards import Card, Suit, french_deck
from levata.engine.contract import Action

from levata.engine.playout_base cimport MAX_CODES, POL_HEURISTIC, POL_RANDOM, Playout
from levata.engine.splitmix cimport below_n

from levata.engine.playout_base import POLICIES

__all__ = ["POLICIES", "HuzurDealer", "HuzurPlayout"]

cdef enum:
    MAX_SEATS = 4
    DECK = 48
    TABLE = 24       # four plays of five cards at most
    HAND_SIZE = 6
    LEAD_POOL = 8    # policy.LEAD_POOL

# the policy's weights (policy.py), all whole numbers
cdef enum:
    MIDDLE = 8
    LATE_MIDDLE = 3
    TRUMP_BONUS = 12
    PAIR_BONUS = 2
    CARD_COST = 6
    MULTI_BONUS = 3
    MASTER_BONUS = 4

cdef enum:
    PH_OPEN = 0
    PH_LEAD = 1
    PH_RESPOND = 2
    PH_BEATING = 3
    PH_OVER = 4

# action codes: a card's index plays it (0..63), 64 + index beats with it; then the others
cdef enum:
    A_BEAT = 64
    A_DONE = 128
    A_TAKE = 129
    A_SWAP = 130
    N_CODES = 131

cdef struct hz_state:
    int n
    int trump               # suit slot
    int low                 # the lowest trump's index
    mask_t hands[MAX_SEATS]
    int stock[DECK]         # top card last
    int nstock
    int turned              # the turned card under the stock, -1 once drawn
    int table[TABLE]        # in play order
    int ntable
    mask_t discard
    int pseat[MAX_SEATS]    # the plays on the table: seat and cards
    int pcount[MAX_SEATS]
    int nplays
    int opener
    int resp[MAX_SEATS]     # the seats still to answer, the first to act
    int nresp
    int finished[MAX_SEATS]
    int nfinished
    int active              # seat mask
    int hand_no, cap, min_cap
    int phase
    int has_plan            # the Python copy's plan: None (0), or plan[at:len]
    int plan[6]
    int plan_at, plan_len
    unsigned long long rng


_PHASE_NAMES = ("open", "lead", "respond", "beating", "over")
_PHASE_CODE = {name: i for i, name in enumerate(_PHASE_NAMES)}

_CARD = [None] * 64
for _c in french_deck():
    _CARD[_c.index] = _c
# Actions by code and codes by action: these Action objects compare equal to the game's.
_ACTION = [None] * N_CODES
for _c in french_deck():
    _ACTION[_c.index] = Action("play", card=_c)
    _ACTION[A_BEAT + _c.index] = Action("beat", card=_c)
_ACTION[A_DONE] = Action("done")
_ACTION[A_TAKE] = Action("take")
_ACTION[A_SWAP] = Action("swap")
_CODE = {a: i for i, a in enumerate(_ACTION) if a is not None}
assert <int>N_CODES <= <int>MAX_CODES  # the face's buffer holds every code


# -- cards (rules.py) -------------------------------------------------------------------------

cdef inline int rank_of(int c) noexcept nogil:
    return c & 15

cdef inline int suit_of(int c) noexcept nogil:
    return c >> 4

cdef inline int power(int c) noexcept nogil:
    """Strength inside the suit: 5..13 for 5..K, then 3, 2, A (14, 15, 16)."""
    cdef int r = c & 15
    if r == 14:
        return 16
    if r == 2:
        return 15
    if r == 3:
        return 14
    return r

cdef inline mask_t rank_bits(int r) noexcept nogil:
    return bit(r) | bit(16 + r) | bit(32 + r) | bit(48 + r)

cdef inline mask_t above(int c) noexcept nogil:
    """Every index over ``c``: the cards after it in the hand's order."""
    return ~below(c + 1)

cdef inline bint beats(int b, int a, int trump) noexcept nogil:
    if suit_of(b) == suit_of(a):
        return power(b) > power(a)
    return suit_of(b) == trump

cdef mask_t _BEATERS[4][64]  # by trump slot and card: every card of the deck beating it

cdef mask_t _beaters_of(int a, int trump) noexcept nogil:
    cdef mask_t out = 0
    cdef int r, s = suit_of(a)
    for r in range(2, 15):
        if power(s * 16 + r) > power(a):
            out |= bit(s * 16 + r)
    if s != trump:
        out |= (<mask_t>0x7FFC) << (16 * trump)  # ranks 2..14 of the trump suit
    return out

for _t in range(4):
    for _i in range(64):
        _BEATERS[_t][_i] = _beaters_of(_i, _t) if 2 <= (_i & 15) <= 14 else 0

cdef inline mask_t beaters(int a, int trump) noexcept nogil:
    """Every card of the full deck that beats ``a``."""
    return _BEATERS[trump][a]

cdef mask_t deck_mask(int players) noexcept nogil:
    """The cut deck (rules.deck): no 4, 5, 6 with three players, no 4 with four."""
    cdef mask_t out = 0
    cdef int s, r
    for s in range(4):
        for r in range(2, 15):
            if r == 4 or (players == 3 and (r == 5 or r == 6)):
                continue
            out |= bit(s * 16 + r)
    return out

cdef int pairs_of(const int* counts) noexcept nogil:
    """Disjoint pairs of one rank, from per-rank counts."""
    cdef int r, p = 0
    for r in range(2, 15):
        p += counts[r] // 2
    return p

cdef bint is_lead(const int* cards, int n) noexcept nogil:
    cdef int counts[16]
    cdef int i
    for i in range(16):
        counts[i] = 0
    for i in range(n):
        counts[rank_of(cards[i])] += 1
    return n == 1 or (n == 3 and pairs_of(counts) >= 1) or (n == 5 and pairs_of(counts) >= 2)

cdef bint extends(const int* chosen, int nc, int card, mask_t rest, int most) noexcept nogil:
    """rules.extends: ``chosen`` + ``card`` can still grow into a legal lead of 3 or 5 (at
    most ``most``) cards with cards of ``rest`` alone."""
    cdef int have[16]
    cdef int avail[16]
    cdef int i, r, nnow = nc + 1, nrest = popcount(rest), base, cheap = 0, dear = 0
    cdef int size, need, budget, one, half
    for i in range(16):
        have[i] = 0
        avail[i] = 0
    for i in range(nc):
        have[rank_of(chosen[i])] += 1
    have[rank_of(card)] += 1
    for r in range(2, 15):
        avail[r] = popcount(rest & rank_bits(r))
    base = pairs_of(have)
    for r in range(2, 15):
        if have[r] % 2 and avail[r] >= 1:
            cheap += 1
        if avail[r] >= 2 and have[r] == 0:
            dear += 1
    for need in range(1, 3):  # three cards need a pair, five two
        size = 2 * need + 1
        budget = size - nnow
        if size > most or budget < 0 or budget > nrest:
            continue
        one = cheap if cheap < budget else budget
        half = (budget - one) // 2
        if base + one + (dear if dear < half else half) >= need:
            return True
    return False

cdef bint place(int t, const mask_t* fits, int* owner, mask_t* seen) noexcept nogil:
    """One augmenting path for target ``t`` (can_beat's matching)."""
    cdef mask_t x = fits[t] & ~seen[0]
    cdef int i
    while x:
        i = lowest(x)
        x &= x - 1
        if seen[0] & bit(i):
            continue
        seen[0] |= bit(i)
        if owner[i] < 0 or place(owner[i], fits, owner, seen):
            owner[i] = t
            return True
    return False

cdef bint can_beat(const int* targets, int nt, mask_t hand, int trump) noexcept nogil:
    """rules.can_beat: ``hand`` holds one card for each target, each beating its own."""
    cdef mask_t fits[TABLE]
    cdef int owner[64]
    cdef int t, i
    cdef mask_t seen
    if nt > popcount(hand):
        return False
    for i in range(64):
        owner[i] = -1
    for t in range(nt):
        fits[t] = hand & beaters(targets[t], trump)
    for t in range(nt):
        seen = 0
        if not place(t, fits, owner, &seen):
            return False
    return True


# -- the rules (the Python copy's, method for method) -----------------------------------------

cdef inline int actor(const hz_state* s) noexcept nogil:
    if s.phase == PH_OPEN or s.phase == PH_LEAD:
        return s.opener
    return s.resp[0]

cdef int play_start(const hz_state* s, int i, int* count) noexcept nogil:
    """Where play ``i`` (negative: from the end, as Python's ``i %= len``) starts on the
    table; its cards in ``count``."""
    cdef int j, start = 0
    i = ((i % s.nplays) + s.nplays) % s.nplays
    for j in range(i):
        start += s.pcount[j]
    count[0] = s.pcount[i]
    return start

cdef int targets_of(const hz_state* s, int* nt, int* k) noexcept nogil:
    """The play being answered (its start on the table, ``nt`` cards) and the next card to
    cover (``k``)."""
    if s.phase == PH_BEATING:
        k[0] = s.pcount[s.nplays - 1]
        return play_start(s, -2, nt)
    k[0] = 0
    return play_start(s, -1, nt)

cdef int most(const hz_state* s) noexcept nogil:
    cdef int m = 5, seat, h
    if not s.min_cap:
        return 5
    for seat in range(s.n):
        if (s.active >> seat) & 1 and seat != s.opener:
            h = popcount(s.hands[seat])
            if h < m:
                m = h
    return m if m > 1 else 1

cdef inline bint can_swap(const hz_state* s, int seat) noexcept nogil:
    return s.turned >= 0 and s.turned != s.low and (s.hands[seat] & bit(s.low)) != 0

cdef bint lead_goes_on(const hz_state* s, int seat, int after) noexcept nogil:
    """Whether a card after ``after`` in the opener's hand can extend the lead on the table."""
    cdef int cnt, start = play_start(s, -1, &cnt), c
    cdef int m = most(s)
    cdef mask_t hand = s.hands[seat], x = hand & above(after)
    while x:
        c = lowest(x)
        x &= x - 1
        if extends(s.table + start, cnt, c, hand & above(c), m):
            return True
    return False

cdef int legal(const hz_state* s, int seat, int* out) noexcept nogil:
    """The legal action codes of ``seat``, in the order of ``HuzurState.legal_actions``."""
    cdef int k = 0, c, cnt, start, kk, m, last
    cdef mask_t hand, x
    if s.phase == PH_OVER or seat != actor(s):
        return 0
    hand = s.hands[seat]
    if (s.phase == PH_OPEN or s.phase == PH_RESPOND) and can_swap(s, seat):
        out[k] = A_SWAP
        k += 1
    x = hand
    if s.phase == PH_OPEN:
        while x:
            c = lowest(x)
            x &= x - 1
            out[k] = c
            k += 1
    elif s.phase == PH_LEAD:
        start = play_start(s, -1, &cnt)
        m = most(s)
        last = s.table[start + cnt - 1]
        while x:
            c = lowest(x)
            x &= x - 1
            if c > last and extends(s.table + start, cnt, c, hand & above(c), m):
                out[k] = c
                k += 1
        if is_lead(s.table + start, cnt):
            out[k] = A_DONE
            k += 1
    else:
        start = targets_of(s, &cnt, &kk)
        if cnt - kk <= popcount(hand):
            while x:
                c = lowest(x)
                x &= x - 1
                if beats(c, s.table[start + kk], s.trump) and can_beat(
                    s.table + start + kk + 1, cnt - kk - 1, hand & ~bit(c), s.trump
                ):
                    out[k] = A_BEAT + c
                    k += 1
        if s.phase == PH_RESPOND:
            out[k] = A_TAKE
            k += 1
    return k

cdef int next_active(const hz_state* s, int seat) noexcept nogil:
    cdef int t = (seat + 1) % s.n
    while not (s.active >> t) & 1:
        t = (t + 1) % s.n
    return t

cdef bint quads(hz_state* s, int seat) noexcept nogil:
    """Four of a rank leave the hand for the discard; whether any did."""
    cdef int r
    cdef mask_t four
    cdef bint found = False
    for r in range(2, 15):
        four = s.hands[seat] & rank_bits(r)
        if popcount(four) == 4:
            s.discard |= four
            s.hands[seat] &= ~four
            found = True
    return found

cdef void refill(hz_state* s, int seat) noexcept nogil:
    cdef int need, k, i
    while popcount(s.hands[seat]) < HAND_SIZE and (s.nstock or s.turned >= 0):
        need = HAND_SIZE - popcount(s.hands[seat])
        k = need if need < s.nstock else s.nstock
        for i in range(s.nstock - k, s.nstock):
            s.hands[seat] |= bit(s.stock[i])
        s.nstock -= k
        if k < need and s.turned >= 0:
            s.hands[seat] |= bit(s.turned)
            s.turned = -1
        if not quads(s, seat):
            break

cdef void check_finished(hz_state* s) noexcept nogil:
    cdef int seat
    if s.nstock or s.turned >= 0:
        return
    for seat in range(s.n):
        if (s.active >> seat) & 1 and s.hands[seat] == 0 and s.phase != PH_OVER:
            s.active &= ~(1 << seat)
            s.finished[s.nfinished] = seat
            s.nfinished += 1
            if popcount(<mask_t>s.active) <= 1:
                s.phase = PH_OVER

cdef void start_hand(hz_state* s, int opener) noexcept nogil:
    if s.hand_no >= s.cap:
        s.phase = PH_OVER
        return
    s.hand_no += 1
    s.opener = opener
    s.nresp = 0
    s.nplays = 0
    s.phase = PH_OPEN

cdef void lead_done(hz_state* s, int seat) noexcept nogil:
    cdef int t, seen = 0
    s.has_plan = 0
    refill(s, seat)
    check_finished(s)
    if s.phase == PH_OVER:
        return
    s.nresp = 0
    t = next_active(s, seat)
    while t != seat and not (seen >> t) & 1:
        seen |= 1 << t
        s.resp[s.nresp] = t
        s.nresp += 1
        t = next_active(s, t)
    s.phase = PH_RESPOND

cdef void lead_card(hz_state* s, int seat, int c) noexcept nogil:
    if s.phase == PH_OPEN:
        s.pseat[s.nplays] = seat
        s.pcount[s.nplays] = 0
        s.nplays += 1
        s.phase = PH_LEAD
    s.pcount[s.nplays - 1] += 1
    s.hands[seat] &= ~bit(c)
    s.table[s.ntable] = c
    s.ntable += 1
    if not lead_goes_on(s, seat, c):
        lead_done(s, seat)

cdef void beat_card(hz_state* s, int seat, int c) noexcept nogil:
    cdef int nt, kk, i, j, opener
    targets_of(s, &nt, &kk)
    if s.phase == PH_RESPOND:
        s.pseat[s.nplays] = seat
        s.pcount[s.nplays] = 0
        s.nplays += 1
        s.phase = PH_BEATING
    s.pcount[s.nplays - 1] += 1
    s.hands[seat] &= ~bit(c)
    s.table[s.ntable] = c
    s.ntable += 1
    if kk + 1 < nt:
        return
    s.has_plan = 0
    refill(s, seat)
    check_finished(s)
    if s.phase == PH_OVER:
        return
    j = 0
    for i in range(1, s.nresp):
        if (s.active >> s.resp[i]) & 1:
            s.resp[j] = s.resp[i]
            j += 1
    s.nresp = j
    if j:
        s.phase = PH_RESPOND
        return
    for i in range(s.ntable):
        s.discard |= bit(s.table[i])
    s.ntable = 0
    s.nplays = 0
    opener = s.opener if (s.active >> s.opener) & 1 else next_active(s, s.opener)
    start_hand(s, opener)

cdef void take(hz_state* s, int seat) noexcept nogil:
    cdef int i
    for i in range(s.ntable):
        s.hands[seat] |= bit(s.table[i])
    s.ntable = 0
    s.nplays = 0
    s.has_plan = 0
    quads(s, seat)
    refill(s, seat)
    check_finished(s)
    if s.phase != PH_OVER:
        start_hand(s, next_active(s, seat))

cdef void swap(hz_state* s, int seat) noexcept nogil:
    s.hands[seat] = (s.hands[seat] & ~bit(s.low)) | bit(s.turned)
    s.turned = s.low
    if quads(s, seat):
        refill(s, seat)
    check_finished(s)

cdef void apply_code(hz_state* s, int seat, int code) noexcept nogil:
    """Apply an action already known to be legal (the Python copy's ``_apply``)."""
    if code < A_BEAT:
        lead_card(s, seat, code)
    elif code < A_DONE:
        beat_card(s, seat, code - A_BEAT)
    elif code == A_DONE:
        lead_done(s, seat)
    elif code == A_TAKE:
        take(s, seat)
    elif code == A_SWAP:
        swap(s, seat)

cdef void scores(const hz_state* s, double* out) noexcept nogil:
    """``players - rank``: finishers by finish order, then the rest by fewest cards."""
    cdef int i, seat, other, rank, mine
    for i in range(s.nfinished):
        out[s.finished[i]] = s.n - (i + 1)
    for seat in range(s.n):
        if not (s.active >> seat) & 1:
            continue
        mine = popcount(s.hands[seat])
        rank = s.nfinished + 1
        for other in range(s.n):
            if (s.active >> other) & 1 and popcount(s.hands[other]) < mine:
                rank += 1
        out[seat] = s.n - rank


# -- the heuristic's choices (policy.py, function for function) -------------------------------

cdef inline int worth(int c, int trump, bint paired) noexcept nogil:
    cdef int v = power(c) - 4
    if suit_of(c) == trump:
        v += TRUMP_BONUS
    if paired:
        v += PAIR_BONUS
    return v

cdef void sort_by_key_desc(int* cards, int n, const int* key) noexcept nogil:
    """Stable sort of ``cards`` by ``key[card]``, largest first (``sorted(reverse=True)``
    keeps equal keys in their order)."""
    cdef int i, j, c
    for i in range(1, n):
        c = cards[i]
        j = i - 1
        while j >= 0 and key[cards[j]] < key[c]:
            cards[j + 1] = cards[j]
            j -= 1
        cards[j + 1] = c

cdef struct beat_search:
    int nt
    int fits[5][DECK]
    int nfits[5]
    int floor[6]
    int used[5]
    int best_cards[5]
    int best
    bint found

cdef void walk(beat_search* b, int k, int spent, mask_t used, const int* value) noexcept nogil:
    cdef int i, c
    if b.found and spent + b.floor[k] >= b.best:
        return
    if k == b.nt:
        b.best = spent
        b.found = True
        for i in range(b.nt):
            b.best_cards[i] = b.used[i]
        return
    for i in range(b.nfits[k]):
        c = b.fits[k][i]
        if not (used & bit(c)):
            b.used[k] = c
            walk(b, k + 1, spent + value[c], used | bit(c), value)

cdef bint best_beat(
    const int* targets, int nt, mask_t hand, int trump, int* cost, int* cards
) noexcept nogil:
    """policy.best_beat: the cheapest cards beating ``targets`` in order (exact, the same
    depth-first order and pruning); False when nothing beats them."""
    cdef beat_search b
    cdef int value[64]
    cdef int t, c, k
    cdef mask_t x
    if nt > 5:
        return False
    x = hand
    while x:
        c = lowest(x)
        x &= x - 1
        value[c] = worth(c, trump, popcount(hand & rank_bits(rank_of(c))) >= 2)
    b.nt = nt
    for t in range(nt):
        b.nfits[t] = 0
        x = hand & beaters(targets[t], trump)
        while x:
            c = lowest(x)
            x &= x - 1
            b.fits[t][b.nfits[t]] = c
            b.nfits[t] += 1
        if b.nfits[t] == 0:
            return False
        # sorted(key=value): stable, smallest first; the negated key sorts largest first
        _sort_by_value_asc(b.fits[t], b.nfits[t], value)
    b.floor[nt] = 0
    for k in range(nt - 1, -1, -1):
        b.floor[k] = b.floor[k + 1] + value[b.fits[k][0]]
    b.found = False
    b.best = 0
    walk(&b, 0, 0, 0, value)
    if not b.found:
        return False
    cost[0] = b.best
    for t in range(nt):
        cards[t] = b.best_cards[t]
    return True

cdef void _sort_by_value_asc(int* cards, int n, const int* value) noexcept nogil:
    cdef int i, j, c
    for i in range(1, n):
        c = cards[i]
        j = i - 1
        while j >= 0 and value[cards[j]] > value[c]:
            cards[j + 1] = cards[j]
            j -= 1
        cards[j + 1] = c

cdef bint should_beat(
    int cost, int ntargets, const int* table, int ntable, int trump, bint late
) noexcept nogil:
    """policy.should_beat: beat rather than take when it spends less worth than the table's
    cards would bring in, each counted against its place in the hand."""
    cdef int i, spend, take_worth = 0
    if late:
        return True
    spend = cost - MIDDLE * ntargets
    for i in range(ntable):
        take_worth += worth(table[i], trump, False) - MIDDLE
    take_worth -= CARD_COST * ntable
    return -spend >= take_worth

cdef int best_opening(const int* pool, int npool, const int* gain, int m, int* out) noexcept nogil:
    """policy._best_opening: the best card; a pair with the best card left; two pairs with
    the best card left. The lead's cards in the hand's order; their count."""
    cdef int ranked[DECK]
    cdef int first_of[16]      # the rank's best two cards, in ranked order
    cdef int second_of[16]
    cdef int order[16]         # ranks in the order they first appear in ranked
    cdef int pair_a[16]
    cdef int pair_b[16]
    cdef int pair_v[16]
    cdef int best_cards[5]
    cdef int i, j, r, c, nr = 0, npairs = 0, best, nbest, score, kick
    cdef mask_t used
    for i in range(npool):
        ranked[i] = pool[i]
    sort_by_key_desc(ranked, npool, gain)
    best = gain[ranked[0]]
    best_cards[0] = ranked[0]
    nbest = 1
    if m >= 3:
        for r in range(16):
            first_of[r] = -1
            second_of[r] = -1
        for i in range(npool):
            c = ranked[i]
            r = rank_of(c)
            if first_of[r] < 0:
                first_of[r] = c
                order[nr] = r
                nr += 1
            elif second_of[r] < 0:
                second_of[r] = c
        for i in range(nr):
            r = order[i]
            if second_of[r] >= 0:
                pair_a[npairs] = first_of[r]
                pair_b[npairs] = second_of[r]
                pair_v[npairs] = gain[first_of[r]] + gain[second_of[r]]
                npairs += 1
        for i in range(npairs):
            if npool >= 3:
                used = bit(pair_a[i]) | bit(pair_b[i])
                kick = _kicker(ranked, npool, used)
                score = pair_v[i] + gain[kick] + 2 * MULTI_BONUS
                if score > best:
                    best = score
                    best_cards[0], best_cards[1], best_cards[2] = pair_a[i], pair_b[i], kick
                    nbest = 3
        if m >= 5 and npool >= 5:
            for i in range(npairs):
                for j in range(i + 1, npairs):
                    used = bit(pair_a[i]) | bit(pair_b[i]) | bit(pair_a[j]) | bit(pair_b[j])
                    kick = _kicker(ranked, npool, used)
                    score = pair_v[i] + pair_v[j] + gain[kick] + 4 * MULTI_BONUS
                    if score > best:
                        best = score
                        best_cards[0], best_cards[1] = pair_a[i], pair_b[i]
                        best_cards[2], best_cards[3] = pair_a[j], pair_b[j]
                        best_cards[4] = kick
                        nbest = 5
    used = 0
    for i in range(nbest):
        used |= bit(best_cards[i])
    i = 0
    while used:
        out[i] = lowest(used)
        used &= used - 1
        i += 1
    return nbest

cdef inline int _kicker(const int* ranked, int n, mask_t used) noexcept nogil:
    cdef int i
    for i in range(n):
        if not (used & bit(ranked[i])):
            return ranked[i]
    return ranked[0]

cdef int best_lead(
    const hz_state* s, mask_t hand, bint late, mask_t out_cards, int m,
    const int* chosen, int nc, int* lead
) noexcept nogil:
    """policy.best_lead: the lead to play (``chosen`` and the cards to add, in order); its
    count."""
    cdef int gain[64]
    cdef int counts[16]
    cdef int pool[DECK]
    cdef int free[DECK]
    cdef int idx[5]
    cdef int best_more[5]
    cdef int lead_counts[16]
    cdef int npool = 0, nfree = 0, i, j, c, r, size, extra, base, score, best, nbest_more
    cdef int middle = MIDDLE + (LATE_MIDDLE if late else 0), last
    cdef mask_t pool_mask = hand, live, x, chosen_mask = 0
    memset(gain, 0, sizeof(gain))  # only the pool's entries are read; this quiets gcc
    for i in range(nc):
        chosen_mask |= bit(chosen[i])
    pool_mask |= chosen_mask
    for i in range(16):
        counts[i] = 0
    x = pool_mask
    while x:
        c = lowest(x)
        x &= x - 1
        pool[npool] = c
        npool += 1
        counts[rank_of(c)] += 1
    for i in range(npool):
        c = pool[i]
        gain[c] = middle - worth(c, s.trump, counts[rank_of(c)] >= 2)
    if late:
        live = deck_mask(s.n) & ~(out_cards | pool_mask)
        for i in range(npool):
            c = pool[i]
            if not (beaters(c, s.trump) & live):
                gain[c] += MASTER_BONUS
    if nc == 0:
        return best_opening(pool, npool, gain, m, lead)
    last = chosen[nc - 1]
    for i in range(npool):
        c = pool[i]
        if not (chosen_mask & bit(c)) and c > last:
            free[nfree] = c
            nfree += 1
    sort_by_key_desc(free, nfree, gain)
    if nfree > LEAD_POOL:
        nfree = LEAD_POOL
    x = 0
    for i in range(nfree):
        x |= bit(free[i])
    nfree = 0
    while x:  # back in the hand's order
        free[nfree] = lowest(x)
        x &= x - 1
        nfree += 1
    best = -1000000000
    nbest_more = 0
    base = 0
    for i in range(nc):
        base += gain[chosen[i]]
    for size in range(1, 6, 2):
        extra = size - nc
        if size > m or extra < 0 or extra > nfree:
            continue
        for i in range(extra):  # combinations(free, extra), in itertools' order
            idx[i] = i
        while True:
            score = base + MULTI_BONUS * (size - 1)
            for i in range(16):
                lead_counts[i] = 0
            for i in range(nc):
                lead_counts[rank_of(chosen[i])] += 1
            for i in range(extra):
                score += gain[free[idx[i]]]
                lead_counts[rank_of(free[idx[i]])] += 1
            if (size == 1 or pairs_of(lead_counts) >= size // 2) and score > best:
                best = score
                nbest_more = extra
                for i in range(extra):
                    best_more[i] = free[idx[i]]
            # the next combination
            i = extra - 1
            while i >= 0 and idx[i] == i + nfree - extra:
                i -= 1
            if i < 0:
                break
            idx[i] += 1
            for j in range(i + 1, extra):
                idx[j] = idx[j - 1] + 1
    for i in range(nc):
        lead[i] = chosen[i]
    for i in range(nbest_more):
        lead[nc + i] = best_more[i]
    return nc + nbest_more

cdef int heuristic(hz_state* s, int seat) noexcept nogil:
    """The Python copy's ``choose(seat, "heuristic")``: a plan made at a move's first card
    is kept for the move's other cards."""
    cdef int lead[10]
    cdef int cards[5]
    cdef int n, i, start, cnt, kk, cost
    cdef bint late = s.nstock == 0 and s.turned < 0
    cdef mask_t hand = s.hands[seat], chosen_mask, out_cards
    if (s.phase == PH_OPEN or s.phase == PH_RESPOND) and can_swap(s, seat):
        return A_SWAP
    if s.phase == PH_OPEN or s.phase == PH_LEAD:
        if s.phase == PH_OPEN or not s.has_plan:
            out_cards = s.discard
            for i in range(s.ntable):
                out_cards |= bit(s.table[i])
            if s.phase == PH_LEAD:
                start = play_start(s, -1, &cnt)
            else:
                start, cnt = 0, 0
            n = best_lead(s, hand, late, out_cards, most(s), s.table + start, cnt, lead)
            chosen_mask = 0
            for i in range(cnt):
                chosen_mask |= bit(s.table[start + i])
            s.plan_len = 0
            s.plan_at = 0
            for i in range(n):
                if not (chosen_mask & bit(lead[i])):
                    s.plan[s.plan_len] = lead[i]
                    s.plan_len += 1
            s.has_plan = 1
        if s.plan_at < s.plan_len:
            s.plan_at += 1
            return s.plan[s.plan_at - 1]
        return A_DONE
    if s.phase == PH_RESPOND or not s.has_plan or s.plan_at >= s.plan_len:
        start = targets_of(s, &cnt, &kk)
        if not best_beat(s.table + start + kk, cnt - kk, hand, s.trump, &cost, cards):
            return A_TAKE  # nothing beats it (a beat begun can always be finished)
        if s.phase == PH_RESPOND and not should_beat(
            cost, cnt, s.table, s.ntable, s.trump, late
        ):
            return A_TAKE
        s.plan_len = cnt - kk
        s.plan_at = 0
        for i in range(s.plan_len):
            s.plan[i] = cards[i]
        s.has_plan = 1
    s.plan_at += 1
    return A_BEAT + s.plan[s.plan_at - 1]

cdef int choose_code(hz_state* s, int seat, int policy) noexcept nogil:
    cdef int codes[N_CODES]
    cdef int nl
    if policy == POL_RANDOM:
        nl = legal(s, seat, codes)
        return codes[below_n(&s.rng, nl)]
    return heuristic(s, seat)

cdef int run(hz_state* s, int policy, int limit) noexcept nogil:
    """Play on by ``policy`` until the match ends or ``limit`` actions (0: no limit)."""
    cdef int taken = 0, seat
    while s.phase != PH_OVER and (limit == 0 or taken < limit):
        seat = actor(s)
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

cdef mask_t _mask(object cards) except? 0:
    cdef mask_t m = 0
    for c in cards:
        m |= bit(_card_index(c))
    return m


cdef class HuzurPlayout(Playout):
    """A Huzur position for playouts: play only, no events or views; see the module.

    ``fields``: the position as the Python copy's ``fields()`` says it (players, trump
    slot, hands, stock top last, the turned card, table, discard, plays, opener, responders,
    finished, active, hand_no, hand_cap, cap_lead_to_min_hand, phase; ``plan`` optional);
    ``seed`` starts the state's random stream.

    >>> from levata.engine.games.huzur import HuzurState
    >>> s = HuzurState.from_position(3, ["7H", "8H 9H", "10H"], "10C", stock="")
    >>> fast = s.playout_state(seed=3)
    >>> fast.to_act(), fast.estimate()
    ((0,), (2.0, 0.0, 2.0))
    """

    cdef hz_state s

    def __init__(self, fields, seed=0):
        cdef hz_state* s = &self.s
        cdef int n = int(fields["players"]), seat, i
        if not 3 <= n <= MAX_SEATS:
            raise ValueError(f"Huzur seats 3 or 4, not {n}")
        s.n = n
        s.rng = <unsigned long long>(int(seed) & 0xFFFFFFFFFFFFFFFF)
        s.trump = int(fields["trump"])
        s.low = s.trump * 16 + (7 if n == 3 else 5)
        for key in ("hands", "active", "plays", "responders", "finished"):
            if len(fields[key]) > n:
                raise ValueError(f"{key}: more entries than the {n} seats")
        plan = fields.get("plan")
        if plan is not None and len(plan) > 6:
            raise ValueError("a plan holds the five cards of a move at most")
        for seat in range(MAX_SEATS):
            s.hands[seat] = 0
        for seat, hand in enumerate(fields["hands"]):
            s.hands[seat] = _mask(hand)
        stock = fields["stock"]
        if len(stock) > DECK:
            raise ValueError("the stock holds 48 cards at most")
        s.nstock = 0
        for c in stock:
            s.stock[s.nstock] = _card_index(c)
            s.nstock += 1
        turned = list(fields["turned"])
        s.turned = _card_index(turned[0]) if turned else -1
        table = fields["table"]
        if len(table) > TABLE:
            raise ValueError("the table holds 24 cards at most")
        s.ntable = 0
        for c in table:
            s.table[s.ntable] = _card_index(c)
            s.ntable += 1
        s.discard = _mask(fields["discard"])
        s.nplays = 0
        for who, count in fields["plays"]:
            s.pseat[s.nplays], s.pcount[s.nplays] = who, count
            s.nplays += 1
        s.opener = fields["opener"]
        s.nresp = 0
        for seat in fields["responders"]:
            s.resp[s.nresp] = seat
            s.nresp += 1
        s.nfinished = 0
        for seat in fields["finished"]:
            s.finished[s.nfinished] = seat
            s.nfinished += 1
        s.active = 0
        for seat, on in enumerate(fields["active"]):
            if on:
                s.active |= 1 << seat
        s.hand_no = fields["hand_no"]
        s.cap = int(fields["hand_cap"])
        s.min_cap = bool(fields["cap_lead_to_min_hand"])
        s.phase = _PHASE_CODE[fields["phase"]]
        s.has_plan = plan is not None
        s.plan_at = 0
        s.plan_len = 0
        if plan is not None:
            for c in plan:
                s.plan[s.plan_len] = _card_index(c)
                s.plan_len += 1

    def clone(self):
        """An independent copy (its random stream and plan included)."""
        cdef HuzurPlayout other = HuzurPlayout.__new__(HuzurPlayout)
        memcpy(&other.s, &self.s, sizeof(hz_state))
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
        return choose_code(&self.s, seat, policy)  # the heuristic keeps its plan

    cdef int play_on(self, int policy, int max_actions) noexcept nogil:
        return run(&self.s, policy, max_actions)  # actions

    cdef void reseed(self, unsigned long long seed) noexcept:
        self.s.rng = seed

    def is_over(self):
        return self.s.phase == PH_OVER

    def to_act(self):
        return () if self.s.phase == PH_OVER else (actor(&self.s),)

    def estimate(self):
        """Scores as if play stopped now (the final scores once it is over):
        ``HuzurState.estimate``."""
        cdef double out[MAX_SEATS]
        scores(&self.s, out)
        return tuple(out[i] for i in range(self.s.n))

    def fields(self):
        """The position as the Python copy's ``fields()`` says it (the differential test)."""
        cdef hz_state* s = &self.s
        cdef int i
        hands = [[_CARD[c] for c in range(64) if (s.hands[i] >> c) & 1] for i in range(s.n)]
        plan = None
        if s.has_plan:
            plan = [_CARD[s.plan[i]] for i in range(s.plan_at, s.plan_len)]
        return {
            "players": s.n,
            "trump": s.trump,
            "hands": hands,
            "stock": [_CARD[s.stock[i]] for i in range(s.nstock)],
            "turned": [] if s.turned < 0 else [_CARD[s.turned]],
            "table": [_CARD[s.table[i]] for i in range(s.ntable)],
            "discard": [_CARD[c] for c in range(64) if (s.discard >> c) & 1],
            "plays": [[s.pseat[i], s.pcount[i]] for i in range(s.nplays)],
            "opener": s.opener,
            "responders": [s.resp[i] for i in range(s.nresp)],
            "finished": [s.finished[i] for i in range(s.nfinished)],
            "active": [bool((s.active >> i) & 1) for i in range(s.n)],
            "hand_no": s.hand_no,
            "hand_cap": s.cap,
            "cap_lead_to_min_hand": bool(s.min_cap),
            "phase": _PHASE_NAMES[s.phase],
            "plan": plan,
        }


cdef bint has_quad(mask_t hand) noexcept nogil:
    cdef int r
    for r in range(2, 15):
        if popcount(hand & rank_bits(r)) == 4:
            return True
    return False


cdef class HuzurDealer:
    """Worlds one seat cannot tell from a position, dealt in C: the search's determinizations.

    ``HuzurState.from_view`` deals the cards the seat cannot place (the stock, and the other
    seats' cards that no one has seen them take) uniformly into the stock and those hands,
    dealing again while a hand holds four of a rank or the seat to act has no legal action
    (at most ``tries`` times, the last deal then kept). A search deals thousands of worlds
    a decision, and in Python that cost most of an iteration. The dealer takes one such
    world (``base``: any of them, the hidden cards are dealt afresh each time) and each
    :meth:`deal` shuffles the same hidden cards into the same places, by the same rule, in
    C: a uniform draw of the same set of worlds. ``tests/engine/test_huzur_kernel.py``
    proves the worlds are those ``from_view`` deals (the same cards fixed, the same counts,
    no quad) and that each hidden card lands in each place as often.

    ``fixed``: per seat, the cards it is known to hold (all of ``seat``'s own); ``seed``
    starts the dealer's stream.

    >>> from levata.engine.games.huzur import HuzurState
    >>> state = HuzurState.from_position(3, ["7H 8S", "8H 9H", "10H"], "10C", stock="JS QS")
    >>> dealer = state.playout_dealer(0, seed=1)
    >>> world = dealer.deal(seed=2)
    >>> world.fields()["hands"][0], len(world.fields()["stock"])
    ([Card('7H'), Card('8S')], 2)
    """

    cdef hz_state base
    cdef mask_t fixed[MAX_SEATS]
    cdef int gaps[MAX_SEATS]
    cdef int pool[DECK]
    cdef int npool
    cdef int seat
    cdef int tries
    cdef unsigned long long rng

    def __init__(self, HuzurPlayout base, int seat, fixed, seed=0, int tries=50):
        cdef int s, c
        cdef mask_t hidden
        if not 0 <= seat < base.s.n:
            raise ValueError(f"seat {seat} is not at this table")
        if len(fixed) != base.s.n:
            raise ValueError("fixed: one entry for each seat")
        if tries < 1:
            raise ValueError("tries must be 1 or more")
        memcpy(&self.base, &base.s, sizeof(hz_state))
        self.seat, self.tries = seat, tries
        self.rng = <unsigned long long>(int(seed) & 0xFFFFFFFFFFFFFFFF)
        self.npool = 0
        for s in range(MAX_SEATS):
            self.fixed[s] = 0
            self.gaps[s] = 0
        for s in range(base.s.n):
            self.fixed[s] = base.s.hands[s] if s == seat else _mask(fixed[s]) & base.s.hands[s]
            if s == seat:
                continue
            hidden = base.s.hands[s] & ~self.fixed[s]
            self.gaps[s] = popcount(hidden)
            while hidden:
                c = lowest(hidden)
                hidden &= hidden - 1
                self.pool[self.npool] = c
                self.npool += 1
        for c in range(base.s.nstock):
            self.pool[self.npool] = base.s.stock[c]
            self.npool += 1

    def deal(self, seed=0):
        """A new world: the hidden cards shuffled into the stock and the other seats' hands;
        the copy's own random stream starts from ``seed``."""
        cdef HuzurPlayout out = HuzurPlayout.__new__(HuzurPlayout)
        with nogil:
            self._deal(&out.s)
        out.s.rng = <unsigned long long>(int(seed) & 0xFFFFFFFFFFFFFFFF)
        return out

    cdef void _deal(self, hz_state* w) noexcept nogil:
        cdef int attempt, i, j, t, s, at
        cdef int codes[N_CODES]
        cdef bint fine
        memcpy(w, &self.base, sizeof(hz_state))
        for attempt in range(self.tries):
            for i in range(self.npool - 1, 0, -1):  # Fisher-Yates: any order in, uniform out
                j = below_n(&self.rng, i + 1)
                t = self.pool[i]
                self.pool[i] = self.pool[j]
                self.pool[j] = t
            at = 0
            for s in range(w.n):
                w.hands[s] = self.fixed[s]
                for i in range(self.gaps[s]):
                    w.hands[s] |= bit(self.pool[at])
                    at += 1
            w.nstock = self.npool - at
            for i in range(w.nstock):
                w.stock[i] = self.pool[at + i]
            fine = True
            for s in range(w.n):
                if has_quad(w.hands[s]):
                    fine = False
            if fine and (w.phase == PH_LEAD or w.phase == PH_BEATING):
                fine = legal(w, actor(w), codes) > 0
            if fine:
                return
