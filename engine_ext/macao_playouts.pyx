# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Macao playouts in C: the rules of play and the heuristic's choices on a compact state.

A search plays thousands of Macao actions per decision; through the contract each one builds
events, and the heuristic rollout policy builds a view for every move. :class:`MacaoPlayout`
holds only what play needs (hands as card masks, the stock, the discard, the group, the
penalty, the request, turn and counters: no events, no views), copies with one ``memcpy``
and plays out in C with either policy:

* ``"heuristic"``: the choices of :class:`levata.bots.heuristic.macao.HeuristicBot` (exact
  ties broken uniformly, as its own random tie-break does);
* ``"random"``: uniform over the legal actions.

The rules here are the rules of :mod:`levata.engine.games.macao`, written again in C for
speed; ``tests/engine/test_macao_kernel.py`` proves they agree (legal actions, successor
states, scores and the heuristic's choices, over thousands of random positions). The Python
game builds one with :meth:`MacaoState.playout_state
<levata.engine.games.macao.MacaoState.playout_state>`. Every random choice (a reshuffle, a
tie, a random move) comes from the state's splitmix64 stream, seeded by the caller.

>>> from levata.engine.games.macao import MacaoState
>>> state = MacaoState.from_position(players=2, hands=["9S 3H KC 7C", "5D 6D 8D"], top="9H")
>>> fast = state.playout_state(seed=1)
>>> [str(a) for a in fast.legal_actions(0)]
['play 3H', 'play 9S', 'draw']
>>> fast.choose(0, "heuristic")  # keeps the 3H for defence
Action('play 9S')
>>> copy = fast.clone()
>>> copy.rollout("heuristic", seed=7) > 0, copy.is_over(), fast.is_over()
(True, True, False)
"""

from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memmove

from levata.engine.cardmask cimport bit, lowest, mask_t, popcount, suit_bits

from levata.engine.cards import Card, french_deck
from levata.engine.contract import Action

from levata.engine.playout_base cimport MAX_CODES, POL_HEURISTIC, POL_RANDOM, Playout
from levata.engine.splitmix cimport below_n, next_random

from levata.engine.playout_base import POLICIES

__all__ = ["POLICIES", "MacaoDealer", "MacaoPlayout"]


cdef enum:
    MAX_SEATS = 6
    DECK = 52

cdef enum:
    FOUR = 4
    JACK = 11
    QUEEN = 12
    KING = 13
    ACE = 14

# phases (the strings of macao.py are in _PHASE_NAMES)
cdef enum:
    PH_TURN = 0
    PH_DRAWN = 1
    PH_GROUP = 2
    PH_REQUEST = 3
    PH_RESPOND = 4
    PH_OVER = 5

# pending kinds, directions, request kinds
cdef enum:
    PEND_NONE = 0
    PEND_DRAW = 1
    PEND_SKIP = 2
    FWD = 0
    BACK = 1
    REQ_NONE = 0
    REQ_RANK = 1
    REQ_SUIT = 2

# action codes: 0..63 play the card of that index; then the others
cdef enum:
    A_DONE = 64
    A_DRAW = 65
    A_PASS = 66
    A_END_TURN = 67
    A_ACCEPT = 68
    A_NO_REQUEST = 69
    A_REQ_RANK = 70   # + rank (5..12)
    A_REQ_SUIT = 90   # + suit slot (0..3)
    N_CODES = 94

cdef struct mc_state:
    int n
    mask_t hands[MAX_SEATS]
    int stock[DECK]        # top card last
    int nstock
    int discard[DECK]      # top card last
    int ndiscard
    int group[DECK]
    int ngroup
    int finished[MAX_SEATS]
    int nfinished
    int active             # seat mask
    int skips[MAX_SEATS]
    int pkind, pamount, ptarget, pdir, plast
    int rkind, rkey, rrequester, runserved  # runserved: seat mask
    int phase, actor, turn, cursor, drawn   # drawn: card index or -1
    int actions
    int passed             # seat mask
    int scope_lap, same_suit, wild, cap
    unsigned long long rng


_PHASE_NAMES = ("turn", "drawn", "group", "request", "respond", "over")
_PHASE_CODE = {name: i for i, name in enumerate(_PHASE_NAMES)}
_RANK_VALUES = {5: "5", 6: "6", 7: "7", 8: "8", 9: "9", 10: "10", 12: "Q"}
_RANK_KEYS = {v: k for k, v in _RANK_VALUES.items()}
_SUIT_VALUES = {0: "C", 1: "D", 2: "H", 3: "S"}
_SUIT_KEYS = {v: k for k, v in _SUIT_VALUES.items()}

# Actions by code and codes by action: the same Action objects compare equal to the game's.
_CARD = [None] * 64
for _c in french_deck():
    _CARD[_c.index] = _c
_ACTION = [None] * N_CODES
for _c in french_deck():
    _ACTION[_c.index] = Action("play", card=_c)
_ACTION[A_DONE] = Action("done")
_ACTION[A_DRAW] = Action("draw")
_ACTION[A_PASS] = Action("pass")
_ACTION[A_END_TURN] = Action("end_turn")
_ACTION[A_ACCEPT] = Action("accept")
_ACTION[A_NO_REQUEST] = Action("no_request")
for _k, _v in _RANK_VALUES.items():
    _ACTION[A_REQ_RANK + _k] = Action("request", choice=_v)
for _k, _v in _SUIT_VALUES.items():
    _ACTION[A_REQ_SUIT + _k] = Action("request", choice=_v)
_CODE = {a: i for i, a in enumerate(_ACTION) if a is not None}
assert <int>N_CODES <= <int>MAX_CODES  # the face's buffer holds every code


# -- cards ------------------------------------------------------------------------------------

cdef inline int rank_of(int c) noexcept nogil:
    return c & 15

cdef inline int suit_of(int c) noexcept nogil:
    return c >> 4

cdef inline bint is_red(int c) noexcept nogil:
    cdef int s = c >> 4
    return s == 1 or s == 2

cdef inline mask_t rank_bits(int r) noexcept nogil:
    return bit(r) | bit(16 + r) | bit(32 + r) | bit(48 + r)

cdef inline int penalty_of(int rank) noexcept nogil:
    """Cards to draw per penalty card (2, 3, K), else 0."""
    if rank == 2:
        return 2
    if rank == 3:
        return 3
    if rank == KING:
        return 5
    return 0

cdef inline bint is_plain(int rank) noexcept nogil:
    """A rank a J may name (5-10, Q): the heuristic's plain cards."""
    return (5 <= rank <= 10) or rank == QUEEN


# -- the rules (macao.py's, method for method) ------------------------------------------------

cdef inline int top_card(const mc_state* s) noexcept nogil:
    return s.discard[s.ndiscard - 1]

cdef bint matches(const mc_state* s, int c) noexcept nogil:
    cdef int top = top_card(s), r = rank_of(c)
    if s.wild and (r == JACK or r == ACE):
        return True
    if s.rkind == REQ_NONE:
        return suit_of(c) == suit_of(top) or r == rank_of(top)
    if s.rkind == REQ_RANK:
        return r == s.rkey or r == JACK
    return suit_of(c) == s.rkey or r == ACE

cdef bint stacks(int c, int top) noexcept nogil:
    cdef int r = rank_of(c), t = rank_of(top)
    if penalty_of(r) == 0:
        return False
    if r == t:
        return True
    if r == KING or t == KING:
        return is_red(c) == is_red(top)
    return suit_of(c) == suit_of(top)

cdef int next_active(const mc_state* s, int seat) noexcept nogil:
    cdef int t = (seat + 1) % s.n
    while not (s.active >> t) & 1:
        t = (t + 1) % s.n
    return t

cdef int prev_active(const mc_state* s, int seat) noexcept nogil:
    cdef int t = (seat - 1 + s.n) % s.n
    while not (s.active >> t) & 1:
        t = (t - 1 + s.n) % s.n
    return t

cdef inline int available(const mc_state* s) noexcept nogil:
    return s.nstock + s.ndiscard - 1

cdef int legal(const mc_state* s, int seat, int* out) noexcept nogil:
    """The legal action codes of ``seat``, in the order of ``MacaoState.legal_actions``."""
    cdef int k = 0, c, first, rank, suit, top
    cdef mask_t hand, x
    if s.phase == PH_OVER or seat != s.actor:
        return 0
    hand = s.hands[seat]
    x = hand
    if s.phase == PH_TURN:
        while x:
            c = lowest(x)
            x &= x - 1
            if matches(s, c):
                out[k] = c
                k += 1
        out[k] = A_DRAW if available(s) > 0 else A_PASS
        return k + 1
    if s.phase == PH_GROUP:
        first = s.group[0]
        rank, suit = -1, -1
        if s.ngroup == 1:
            rank = rank_of(first)
            if s.same_suit and s.pkind == PEND_NONE:
                suit = suit_of(first)
        elif rank_of(s.group[1]) == rank_of(first):
            rank = rank_of(first)
        else:
            suit = suit_of(first)
        while x:
            c = lowest(x)
            x &= x - 1
            if rank_of(c) == rank or suit_of(c) == suit:
                out[k] = c
                k += 1
        out[k] = A_DONE
        return k + 1
    if s.phase == PH_RESPOND:
        top = top_card(s)
        while x:
            c = lowest(x)
            x &= x - 1
            if (stacks(c, top) if s.pkind == PEND_DRAW else rank_of(c) == FOUR):
                out[k] = c
                k += 1
        out[k] = A_ACCEPT
        return k + 1
    if s.phase == PH_DRAWN:
        out[0] = s.drawn
        out[1] = A_END_TURN
        return 2
    if rank_of(top_card(s)) == JACK:  # PH_REQUEST
        for rank in range(5, QUEEN + 1):  # what a J may name: 5-10, Q
            if rank != JACK:
                out[k] = A_REQ_RANK + rank
                k += 1
    else:
        for suit in range(4):
            out[k] = A_REQ_SUIT + suit
            k += 1
    out[k] = A_NO_REQUEST
    return k + 1

cdef void serve(mc_state* s, int seat) noexcept nogil:
    if s.rkind != REQ_NONE and (s.runserved >> seat) & 1:
        s.runserved &= ~(1 << seat)
        if s.runserved == 0:
            s.rkind = REQ_NONE

cdef int advance(mc_state* s, int seat) noexcept nogil:
    cdef int t = next_active(s, seat)
    while s.skips[t] > 0:
        s.skips[t] -= 1
        serve(s, t)
        t = next_active(s, t)
    return t

cdef inline void start_turn(mc_state* s, int seat) noexcept nogil:
    s.phase = PH_TURN
    s.turn = seat
    s.actor = seat
    s.cursor = seat
    s.drawn = -1

cdef inline void turn_over(mc_state* s, int seat) noexcept nogil:
    serve(s, seat)
    start_turn(s, advance(s, seat))

cdef inline void end(mc_state* s) noexcept nogil:
    s.pkind = PEND_NONE
    s.phase = PH_OVER

cdef bint reshuffle(mc_state* s) noexcept nogil:
    """The discard pile but its top becomes the stock (shuffled); False if nothing is there."""
    cdef int k = s.ndiscard - 1, i, j, t
    if k <= 0:
        return False
    for i in range(k):
        s.stock[i] = s.discard[i]
    for i in range(k - 1, 0, -1):
        j = below_n(&s.rng, i + 1)
        t = s.stock[i]
        s.stock[i] = s.stock[j]
        s.stock[j] = t
    s.nstock = k
    s.discard[0] = s.discard[k]
    s.ndiscard = 1
    return True

cdef int draw(mc_state* s, int seat, int n) noexcept nogil:
    """Move up to ``n`` stock cards to ``seat``; the last card drawn, or -1."""
    cdef int i, c = -1
    for i in range(n):
        if s.nstock == 0 and not reshuffle(s):
            break
        s.nstock -= 1
        c = s.stock[s.nstock]
        s.hands[seat] |= bit(c)
    return c

cdef inline bint responds_in_turn(const mc_state* s) noexcept nogil:
    return s.pkind == PEND_SKIP or (s.pdir == FWD and s.plast == s.cursor)

cdef void finish(mc_state* s, int seat) noexcept nogil:
    s.active &= ~(1 << seat)
    s.finished[s.nfinished] = seat
    s.nfinished += 1
    serve(s, seat)
    if (s.n <= 4 and s.n - s.nfinished == 1) or (s.n >= 5 and s.nfinished == 3):
        end(s)

cdef void set_pending(mc_state* s, int kind, int amount, int seat) noexcept nogil:
    cdef int target, direction = FWD, last = top_card(s), prev
    if s.pkind != PEND_NONE and s.pkind == kind:
        amount += s.pamount  # a stack adds to what is pending
    target = next_active(s, seat)
    if kind == PEND_DRAW and rank_of(last) == KING and not is_red(last):
        prev = prev_active(s, seat)
        if prev != target:
            target, direction = prev, BACK
    s.pkind, s.pamount, s.ptarget, s.pdir, s.plast = kind, amount, target, direction, seat
    serve(s, seat)
    s.phase = PH_RESPOND
    s.actor = target

cdef void play(mc_state* s, int seat, int c) noexcept nogil:
    if s.phase != PH_GROUP:
        if s.phase == PH_RESPOND and responds_in_turn(s):
            s.cursor = seat
        s.phase = PH_GROUP
        s.drawn = -1
        s.passed = 0
    s.hands[seat] &= ~bit(c)
    s.group[s.ngroup] = c
    s.ngroup += 1

cdef void done(mc_state* s, int seat) noexcept nogil:
    cdef int ng = s.ngroup, base = s.ndiscard, i, amount, rank
    cdef bint by_rank
    for i in range(ng):
        s.discard[base + i] = s.group[i]
    s.ndiscard += ng
    s.ngroup = 0
    if s.hands[seat] == 0:
        finish(s, seat)
        if s.phase == PH_OVER:
            return
    by_rank = ng == 1 or rank_of(s.discard[base + 1]) == rank_of(s.discard[base])
    rank = rank_of(s.discard[base + ng - 1])
    if penalty_of(rank):
        if by_rank:
            amount = 0
            for i in range(ng):
                amount += penalty_of(rank_of(s.discard[base + i]))
        else:  # a suit group: only its last card acts
            amount = penalty_of(rank)
        set_pending(s, PEND_DRAW, amount, seat)
    elif rank == FOUR:
        set_pending(s, PEND_SKIP, ng if by_rank else 1, seat)
    elif rank == JACK or rank == ACE:
        s.phase = PH_REQUEST
    else:
        turn_over(s, seat)

cdef void name(mc_state* s, int seat, int kind, int key) noexcept nogil:
    """The request (kind REQ_NONE: none) after a J or A group; an earlier one ends here."""
    if kind == REQ_NONE:
        s.rkind = REQ_NONE
    else:
        s.rkind = REQ_RANK if rank_of(top_card(s)) == JACK else REQ_SUIT
        s.rkey = key
        s.rrequester = seat
        if s.scope_lap:
            s.runserved = s.active & ~(1 << seat)
        else:
            s.runserved = 1 << next_active(s, seat)
    turn_over(s, seat)

cdef void accept(mc_state* s, int seat) noexcept nogil:
    cdef int kind = s.pkind, amount = s.pamount
    if responds_in_turn(s):
        s.cursor = seat
    s.pkind = PEND_NONE
    if kind == PEND_DRAW:
        draw(s, seat, amount)
    else:
        s.skips[seat] += amount - 1  # this turn is the first one lost
    serve(s, seat)
    start_turn(s, advance(s, s.cursor))

cdef void apply_code(mc_state* s, int seat, int code) noexcept nogil:
    """Apply an action already known to be legal (``MacaoState._apply``)."""
    cdef int c
    s.actions += 1
    if code < 64:
        play(s, seat, code)
    elif code == A_DONE:
        done(s, seat)
    elif code >= A_REQ_SUIT:
        name(s, seat, REQ_SUIT, code - A_REQ_SUIT)
    elif code >= A_REQ_RANK:
        name(s, seat, REQ_RANK, code - A_REQ_RANK)
    elif code == A_NO_REQUEST:
        name(s, seat, REQ_NONE, 0)
    elif code == A_DRAW:
        c = draw(s, seat, 1)
        if matches(s, c):
            s.phase = PH_DRAWN
            s.drawn = c
        else:  # the turn ends by itself
            turn_over(s, seat)
    elif code == A_END_TURN:
        turn_over(s, seat)
    elif code == A_ACCEPT:
        accept(s, seat)
    elif code == A_PASS:
        s.passed |= 1 << seat
        if (s.active & ~s.passed) == 0:
            end(s)
        else:
            turn_over(s, seat)
    if s.phase != PH_OVER and s.actions >= s.cap:
        end(s)

cdef void scores(const mc_state* s, double* out) noexcept nogil:
    """``players - rank``: finishers by finish order, then the rest by fewest cards (D7)."""
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


# -- the heuristic's choices (bots/heuristic/macao.py, method for method) ---------------------

cdef int near_seat(const mc_state* s, int seat, int step) noexcept nogil:
    """``next_seat``: the nearest unfinished seat from ``seat`` in direction ``step``."""
    cdef int t = (seat + step + s.n) % s.n
    while not (s.active >> t) & 1 and t != seat:
        t = (t + step + s.n) % s.n
    return t

cdef int target_of(const mc_state* s, int seat, int c) noexcept nogil:
    cdef int nxt = near_seat(s, seat, 1), prev = near_seat(s, seat, -1)
    if rank_of(c) == KING and not is_red(c) and prev != nxt:
        return prev
    return nxt

cdef inline int cards_at(const mc_state* s, int seat) noexcept nogil:
    return popcount(s.hands[seat])

cdef int worth(const mc_state* s, int seat, int c) noexcept nogil:
    """``HeuristicBot._worth``: how much it wants to start a group with ``c`` now."""
    cdef mask_t hand = s.hands[seat]
    cdef int r = rank_of(c), same_rank, suit_left, base
    same_rank = popcount(hand & rank_bits(r))
    if same_rank == popcount(hand):
        return 1000
    suit_left = popcount(hand & suit_bits(suit_of(c)) & ~rank_bits(r))
    base = 10 * same_rank + suit_left
    if penalty_of(r) or r == FOUR:
        if cards_at(s, target_of(s, seat, c)) <= 2:
            return 500 + base
        if r == FOUR and s.n - s.nfinished == 2:
            return 200 + base
        return (60 if r == FOUR else 0) + base
    if r == JACK or r == ACE:
        return 40 + base
    return 100 + base

cdef int best_of(
    const int* cand, const int* key, int k, bint at_random, unsigned long long* rng
) noexcept nogil:
    """The candidate with the largest key: a uniform one of the tied (``max`` with a random
    tie-break), or the first of them (``max``/``min`` without one)."""
    cdef int i, best = key[0], ties = 0, pick
    for i in range(1, k):
        if key[i] > best:
            best = key[i]
    if not at_random:
        for i in range(k):
            if key[i] == best:
                return cand[i]
    for i in range(k):
        if key[i] == best:
            ties += 1
    pick = below_n(rng, ties) if ties > 1 else 0
    for i in range(k):
        if key[i] == best:
            if pick == 0:
                return cand[i]
            pick -= 1
    return cand[0]

cdef int heuristic_keys(
    mc_state* s, int seat, const int* legal, int nl, int* cand, int* key
) noexcept nogil:
    """The candidates the heuristic weighs and their keys (larger is better); the count.
    -1: the heuristic's choice needs no weighing, and ``cand[0]`` is it. Keys are the bot's
    sort keys packed into one int (each part's range fits below the next part's unit)."""
    cdef int i, j, k = 0, c, first_rank
    cdef mask_t hand = s.hands[seat]
    if nl == 1:
        cand[0] = legal[0]
        return -1
    if s.phase == PH_RESPOND:
        for i in range(nl):
            c = legal[i]
            if c < 64:  # (copies, -cards of the victim, penalty)
                cand[k] = c
                key[k] = (
                    popcount(hand & rank_bits(rank_of(c))) * 1000
                    + (64 - cards_at(s, target_of(s, seat, c))) * 8
                    + penalty_of(rank_of(c))
                )
                k += 1
    elif s.phase == PH_GROUP:
        first_rank = rank_of(s.group[0])
        for i in range(nl):
            c = legal[i]
            if c < 64 and (rank_of(c) == first_rank or is_plain(rank_of(c))):
                cand[k] = c
                if rank_of(c) == KING:  # min of (-cards of the victim, 0)
                    key[k] = -(-cards_at(s, target_of(s, seat, c)) * 4)
                else:  # min of (cards of its suit left, suit)
                    key[k] = -((popcount(hand & suit_bits(suit_of(c))) - 1) * 4 + suit_of(c))
                k += 1
    elif s.phase == PH_REQUEST:
        for i in range(nl):
            c = legal[i]
            if c == A_NO_REQUEST:
                continue
            cand[k] = c
            if c >= A_REQ_SUIT:  # (held, gone), by suit
                key[k] = popcount(hand & suit_bits(c - A_REQ_SUIT)) * 64
                for j in range(s.ndiscard):
                    if suit_of(s.discard[j]) == c - A_REQ_SUIT:
                        key[k] += 1
            else:  # by rank
                key[k] = popcount(hand & rank_bits(c - A_REQ_RANK)) * 64
                for j in range(s.ndiscard):
                    if rank_of(s.discard[j]) == c - A_REQ_RANK:
                        key[k] += 1
            k += 1
    elif s.phase == PH_DRAWN:
        c = legal[0]
        if penalty_of(rank_of(c)) and cards_at(s, target_of(s, seat, c)) > 2:
            cand[0] = legal[nl - 1]  # keep it to answer an attack
        else:
            cand[0] = c
        return -1
    else:  # a normal turn
        for i in range(nl):
            c = legal[i]
            if c < 64:
                cand[k] = c
                key[k] = worth(s, seat, c)
                k += 1
    if k == 0:
        cand[0] = legal[nl - 1]  # accept, done, draw or pass
        return -1
    return k

cdef inline bint random_tie(const mc_state* s) noexcept nogil:
    """A normal turn and an answer break exact ties at random; a group's close and a request
    take the first best (the bot's ``min``/``max`` without a tie-break)."""
    return s.phase == PH_TURN or s.phase == PH_RESPOND

cdef int choose_code(mc_state* s, int seat, const int* legal, int nl, int policy) noexcept nogil:
    cdef int cand[N_CODES]
    cdef int key[N_CODES]
    cdef int k
    if policy == POL_RANDOM:
        return legal[below_n(&s.rng, nl)] if nl > 1 else legal[0]
    k = heuristic_keys(s, seat, legal, nl, cand, key)
    if k < 0:
        return cand[0]
    return best_of(cand, key, k, random_tie(s), &s.rng)

cdef int run(mc_state* s, int policy, int limit) noexcept nogil:
    """Play on by ``policy`` until the match ends or ``limit`` actions (0: no limit)."""
    cdef int codes[N_CODES]
    cdef int taken = 0, nl, seat
    while s.phase != PH_OVER and (limit == 0 or taken < limit):
        seat = s.actor
        nl = legal(s, seat, codes)
        apply_code(s, seat, choose_code(s, seat, codes, nl, policy))
        taken += 1
    return taken


cdef int _card_index(object card) except -1:
    """``card.index`` without hashing the card (a world is loaded card by card)."""
    cdef int suit, rank
    if type(card) is not Card:
        raise ValueError(f"{card!r} is not a card of the French deck")
    suit, rank = card.suit, card.rank
    if not (0 <= suit < 4 and 2 <= rank <= ACE):
        raise ValueError(f"{card!r} is not a card of the French deck")
    return suit * 16 + rank

cdef void _load_pile(int* out, int* count, object cards) except *:
    cdef int i = 0
    for c in cards:
        if i >= DECK:
            raise ValueError("a pile holds 52 cards at most")
        out[i] = _card_index(c)
        i += 1
    count[0] = i


cdef class MacaoPlayout(Playout):
    """A Macao position for playouts: play only, no events or views; see the module.

    ``fields`` is :meth:`MacaoState._fields
    <levata.engine.games.macao.MacaoState._fields>`: hands, piles, the penalty, the request,
    turn, counters and options; ``seed`` starts the state's random stream.

    >>> from levata.engine.games.macao import MacaoState
    >>> s = MacaoState.from_position(2, ["7D 7S", "8D"], top="7H")
    >>> fast = MacaoPlayout(s._fields(), seed=3)
    >>> fast.to_act(), fast.estimate()
    ((0,), (0.0, 1.0))
    """

    cdef mc_state s

    def __init__(self, fields, seed=0):
        cdef mc_state* s = &self.s
        cdef int n = int(fields["players"]), seat
        if not 2 <= n <= MAX_SEATS:
            raise ValueError(f"Macao seats 2 to {MAX_SEATS}, not {n}")
        s.n = n
        s.rng = <unsigned long long>(int(seed) & 0xFFFFFFFFFFFFFFFF)
        for seat in range(MAX_SEATS):
            s.hands[seat] = 0
            s.skips[seat] = 0
        for seat, hand in enumerate(fields["hands"]):
            for c in hand:
                s.hands[seat] |= bit(_card_index(c))
        _load_pile(s.stock, &s.nstock, fields["stock"])
        _load_pile(s.discard, &s.ndiscard, fields["discard"])
        _load_pile(s.group, &s.ngroup, fields["group"])
        if s.ndiscard == 0:
            raise ValueError("the discard pile needs its top card")
        s.nfinished = 0
        for seat in fields["finished"]:
            s.finished[s.nfinished] = seat
            s.nfinished += 1
        s.active = 0
        for seat, on in enumerate(fields["active"]):
            if on:
                s.active |= 1 << seat
        for seat, k in enumerate(fields["skips"]):
            s.skips[seat] = k
        pend = fields["pending"]
        s.pkind = PEND_NONE
        if pend is not None:
            kind, s.pamount, s.ptarget, direction, s.plast = pend
            s.pkind = PEND_DRAW if kind == "draw" else PEND_SKIP
            s.pdir = FWD if direction == "fwd" else BACK
        req = fields["request"]
        s.rkind = REQ_NONE
        if req is not None:
            kind, value, s.rrequester, unserved = req
            s.rkind = REQ_RANK if kind == "rank" else REQ_SUIT
            s.rkey = _RANK_KEYS[value] if kind == "rank" else _SUIT_KEYS[value]
            s.runserved = 0
            for seat in unserved:
                s.runserved |= 1 << seat
        s.phase = _PHASE_CODE[fields["phase"]]
        s.actor, s.turn, s.cursor = fields["actor"], fields["turn"], fields["cursor"]
        drawn = fields["drawn"]
        s.drawn = -1 if drawn is None else _card_index(drawn)
        s.actions = fields["actions"]
        s.passed = 0
        for seat in fields["passed"]:
            s.passed |= 1 << seat
        opts = fields["options"]
        s.scope_lap = opts["request_scope"] == "lap"
        s.same_suit = bool(opts["group_same_suit"])
        s.wild = bool(opts["wild_changers"])
        s.cap = int(opts["action_cap"])

    def clone(self):
        """An independent copy (its random stream included)."""
        cdef MacaoPlayout other = MacaoPlayout.__new__(MacaoPlayout)
        memcpy(&other.s, &self.s, sizeof(mc_state))
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
        return choose_code(&self.s, seat, codes, k, policy)

    cdef int play_on(self, int policy, int max_actions) noexcept nogil:
        return run(&self.s, policy, max_actions)  # actions

    cdef void reseed(self, unsigned long long seed) noexcept:
        self.s.rng = seed

    def is_over(self):
        return self.s.phase == PH_OVER

    def to_act(self):
        return () if self.s.phase == PH_OVER else (self.s.actor,)

    def best_actions(self, int seat):
        """What the heuristic may play for ``seat`` now: every action it rates best where it
        breaks ties at random (a turn, an answer), else the one it picks. The differential
        test compares it with the Python bot."""
        cdef int codes[N_CODES]
        cdef int cand[N_CODES]
        cdef int key[N_CODES]
        cdef int i, k, nl, best
        nl = legal(&self.s, seat, codes) if 0 <= seat < self.s.n else 0
        if nl == 0:
            return []
        k = heuristic_keys(&self.s, seat, codes, nl, cand, key)
        if k < 0:
            return [_ACTION[cand[0]]]
        best = key[0]
        for i in range(1, k):
            if key[i] > best:
                best = key[i]
        tied = [_ACTION[cand[i]] for i in range(k) if key[i] == best]
        return tied if random_tie(&self.s) else tied[:1]

    def estimate(self):
        """Scores as if play stopped now (the final scores once it is over):
        ``MacaoState.estimate``."""
        cdef double out[MAX_SEATS]
        scores(&self.s, out)
        return tuple(out[i] for i in range(self.s.n))

    def fields(self):
        """The position as :meth:`MacaoState._fields` says it (for the differential test)."""
        cdef mc_state* s = &self.s
        cdef int i
        hands = [[_CARD[c] for c in range(64) if (s.hands[i] >> c) & 1] for i in range(s.n)]
        pending = None
        if s.pkind != PEND_NONE:
            pending = (
                "draw" if s.pkind == PEND_DRAW else "skip",
                s.pamount, s.ptarget, "fwd" if s.pdir == FWD else "back", s.plast,
            )
        request = None
        if s.rkind != REQ_NONE:
            request = (
                "rank" if s.rkind == REQ_RANK else "suit",
                _RANK_VALUES[s.rkey] if s.rkind == REQ_RANK else _SUIT_VALUES[s.rkey],
                s.rrequester,
                frozenset(i for i in range(s.n) if (s.runserved >> i) & 1),
            )
        return {
            "players": s.n,
            "hands": hands,
            "stock": [_CARD[s.stock[i]] for i in range(s.nstock)],
            "discard": [_CARD[s.discard[i]] for i in range(s.ndiscard)],
            "group": [_CARD[s.group[i]] for i in range(s.ngroup)],
            "finished": [s.finished[i] for i in range(s.nfinished)],
            "active": [bool((s.active >> i) & 1) for i in range(s.n)],
            "skips": [s.skips[i] for i in range(s.n)],
            "pending": pending,
            "request": request,
            "phase": _PHASE_NAMES[s.phase],
            "actor": s.actor,
            "turn": s.turn,
            "cursor": s.cursor,
            "drawn": None if s.drawn < 0 else _CARD[s.drawn],
            "actions": s.actions,
            "passed": frozenset(i for i in range(s.n) if (s.passed >> i) & 1),
            "options": {
                "request_scope": "lap" if s.scope_lap else "next_player",
                "group_same_suit": bool(s.same_suit),
                "wild_changers": bool(s.wild),
                "action_cap": s.cap,
            },
        }


# -- the search's worlds, dealt in C ------------------------------------------------------------

cdef inline void shuffle(unsigned long long* rng, int* items, int n) noexcept nogil:
    """Fisher-Yates from the top, drawing as ``random.shuffle`` does (one ``_randbelow(i + 1)``
    for each i from the top down to 1)."""
    cdef int i, j, t
    for i in range(n - 1, 0, -1):
        j = below_n(rng, i + 1)
        t = items[i]
        items[i] = items[j]
        items[j] = t


cdef struct dl_slot:
    int owner          # a seat, or -1: the stock
    long long seq      # the private event that dealt it (the stock: after every play)
    int epoch
    bint bound         # an on-turn draw whose outcome (matched the table or not) binds it
    mask_t fits        # the cards that meet that outcome (every card: no draw constraint)
    int card           # this deal's card there (-1: none yet)

cdef struct dl_epoch:
    int slots, nslots      # its slots: pool[slots:slots + nslots], in the walk's order
    int fixed, nfixed      # the cards fixed to one slot: (card, slot) pairs at pool[fixed:]
    int played, nplayed    # the cards played later: (card, seat, seq) triples at pool[played:]
    int rest, nrest        # the others, in the order they are shuffled: pool[rest:]
    mask_t gone            # its fixed and played cards: no hand holds them any more


cdef class MacaoDealer:
    """Worlds one seat cannot tell from a position, dealt in C: the search's determinizations.

    ``MacaoState.from_view`` deals the hidden cards (those the other seats drew unseen, and the
    stock) by :func:`levata.engine.games.macao.world.deal`: epoch by epoch (a reshuffle makes
    the new stock a public set), the cards played later placed first among their players'
    earlier slots, then the on-turn draws that matched the table (or did not) given cards
    that did (or did not), the rest shuffled into the slots left; an attempt that gets stuck
    starts the epoch again, and after ``tries`` of them the draw constraints are dropped. A
    search deals thousands of worlds a decision, and in Python that cost most of a
    simulation. This dealer restates that deal step for step on splitmix64 instead of
    ``random.Random``: fed the same stream, the Python deal places the same cards in the
    same slots (``tests/engine/test_macao_kernel.py`` replays it world after world), each
    ``deal`` then skipping the two draws ``from_view`` seeds its state with.

    ``base``: one such world (the others' hands, the stock and another actor's drawn card
    are dealt afresh each time); ``slots``, ``epochs``, ``stock`` and ``drawn``: the walk over
    the view's history as plain lists (:class:`levata.engine.games.macao.world.Plan`);
    ``seed`` starts the dealer's stream.

    >>> from levata.engine import game
    >>> state = game("macao").new_match(players=3, seed=4)
    >>> world = state.playout_dealer(1, seed=1).deal(seed=2)
    >>> world.fields()["hands"][1] == state._fields()["hands"][1]
    True
    >>> world.legal_actions(1) == state.legal_actions(1), world.fields()["stock"] == state.stock
    (True, False)
    """

    cdef mc_state base
    cdef int seat, tries
    cdef int nslots, nepochs, nstock, drawn
    cdef dl_slot* slots
    cdef dl_epoch* epochs
    cdef int* pool         # the epochs' lists, then the stock's slots (top card's last)
    cdef int stock_at
    cdef unsigned long long rng

    def __cinit__(self, *args, **kwargs):
        self.slots, self.epochs, self.pool = NULL, NULL, NULL

    def __dealloc__(self):
        free(self.slots)
        free(self.epochs)
        free(self.pool)

    def __init__(
        self, MacaoPlayout base, int seat, slots, epochs, stock, int drawn=-1, seed=0,
        int tries=30,
    ):
        cdef mc_state* b = &base.s
        if not 0 <= seat < b.n:
            raise ValueError(f"seat {seat} is not at this table")
        if tries < 1:
            raise ValueError("tries must be 1 or more")
        memcpy(&self.base, b, sizeof(mc_state))
        self.seat, self.tries = seat, tries
        self.rng = <unsigned long long>(int(seed) & 0xFFFFFFFFFFFFFFFF)
        self._keep_slots(slots)
        self._keep_epochs(epochs, stock)
        if not -1 <= drawn < self.nslots or (drawn >= 0 and self.slots[drawn].owner < 0):
            raise ValueError(f"slot {drawn} is no seat's drawn card")
        self.drawn = drawn
        self._check_hands()

    cdef _keep_slots(self, slots):
        cdef int i = 0
        cdef dl_slot* slot
        self.nslots = len(slots)
        free(self.slots)  # __init__ called again: its lists anew
        self.slots = <dl_slot*>malloc(max(self.nslots, 1) * sizeof(dl_slot))
        if self.slots == NULL:
            raise MemoryError()
        for owner, seq, fits in slots:
            slot = &self.slots[i]
            if not -1 <= owner < self.base.n or owner == self.seat:
                raise ValueError(f"a slot of seat {owner}, which hides nothing from {self.seat}")
            slot.owner, slot.seq, slot.epoch, slot.card = owner, seq, -1, -1
            slot.bound = fits is not None
            slot.fits = ~(<mask_t>0)
            if fits is not None:
                slot.fits = 0
                for c in fits:
                    slot.fits |= bit(_card_index(c))
            i += 1

    cdef _keep_epochs(self, epochs, stock):
        cdef int e = 0, at = 0, size = len(stock)
        cdef dl_epoch* ep
        for slots, fixed, played, rest in epochs:
            size += len(slots) + 2 * len(fixed) + 3 * len(played) + len(rest)
        self.nepochs = len(epochs)
        free(self.epochs)
        free(self.pool)
        self.epochs = <dl_epoch*>malloc(max(self.nepochs, 1) * sizeof(dl_epoch))
        self.pool = <int*>malloc(max(size, 1) * sizeof(int))
        if self.epochs == NULL or self.pool == NULL:
            raise MemoryError()
        for slots, fixed, played, rest in epochs:
            ep = &self.epochs[e]
            if len(slots) > DECK or len(slots) != len(fixed) + len(played) + len(rest):
                raise ValueError(f"epoch {e}: {len(slots)} slots for its cards")
            ep.slots, ep.nslots = at, len(slots)
            for i in slots:
                if not 0 <= i < self.nslots or self.slots[i].epoch >= 0:
                    raise ValueError(f"epoch {e}: slot {i} is not one of its own")
                self.slots[i].epoch = e
                self.pool[at] = i
                at += 1
            ep.fixed, ep.nfixed, ep.gone = at, len(fixed), 0
            for c, i in fixed:
                if not 0 <= i < self.nslots or self.slots[i].epoch != e:
                    raise ValueError(f"epoch {e}: slot {i} is not one of its own")
                if self.slots[i].owner < 0:
                    raise ValueError(f"epoch {e}: a card played from the stock's slot {i}")
                self.pool[at], self.pool[at + 1] = _card_index(c), i
                ep.gone |= bit(self.pool[at])
                at += 2
            ep.played, ep.nplayed = at, len(played)
            for c, seat, seq in played:
                self.pool[at], self.pool[at + 1], self.pool[at + 2] = _card_index(c), seat, seq
                ep.gone |= bit(self.pool[at])
                at += 3
            ep.rest, ep.nrest = at, len(rest)
            for c in rest:
                self.pool[at] = _card_index(c)
                at += 1
            e += 1
        for i in range(self.nslots):
            if self.slots[i].epoch < 0:
                raise ValueError(f"slot {i} is in no epoch")
        if len(stock) != self.base.nstock:
            raise ValueError(f"{len(stock)} stock slots for {self.base.nstock} cards")
        self.stock_at, self.nstock = at, len(stock)
        for i in stock:
            if not 0 <= i < self.nslots or self.slots[i].owner >= 0:
                raise ValueError(f"slot {i} is not in the stock")
            self.pool[at] = i
            at += 1

    cdef _check_hands(self):
        """Each other seat holds its slots' cards but those played since: as many as now."""
        cdef int held[MAX_SEATS]
        cdef int s, e, k
        cdef dl_epoch* ep
        for s in range(MAX_SEATS):
            held[s] = 0
        for k in range(self.nslots):
            if self.slots[k].owner >= 0:
                held[self.slots[k].owner] += 1
        for e in range(self.nepochs):
            ep = &self.epochs[e]
            for k in range(ep.nfixed):
                held[self.slots[self.pool[ep.fixed + 2 * k + 1]].owner] -= 1
            for k in range(ep.nplayed):
                s = self.pool[ep.played + 3 * k + 1]
                if not 0 <= s < self.base.n:
                    raise ValueError(f"epoch {e}: a card played by seat {s}")
                held[s] -= 1
        for s in range(self.base.n):
            if s != self.seat and held[s] != popcount(self.base.hands[s]):
                raise ValueError(
                    f"seat {s} holds {popcount(self.base.hands[s])} cards, not {held[s]}"
                )

    def deal(self, seed=0):
        """A new world: the hidden cards dealt into the other seats' hands and the stock; the
        copy's own random stream starts from ``seed``."""
        cdef MacaoPlayout out = MacaoPlayout.__new__(MacaoPlayout)
        cdef bint dealt
        with nogil:
            dealt = self._deal(&out.s)
        if not dealt:
            raise ValueError("no deal of the hidden cards fits the view")
        out.s.rng = <unsigned long long>(int(seed) & 0xFFFFFFFFFFFFFFFF)
        return out

    cdef bint _deal(self, mc_state* w) noexcept nogil:
        cdef int e, attempt, i, s
        cdef bint got
        cdef dl_slot* slot
        memcpy(w, &self.base, sizeof(mc_state))
        for e in range(self.nepochs):
            got = False
            for attempt in range(2 * self.tries):  # then without the draw constraints
                got = self._deal_epoch(&self.epochs[e], attempt < self.tries)
                if got:
                    break
            if not got:
                return False
        for s in range(w.n):
            if s != self.seat:
                w.hands[s] = 0
        for i in range(self.nslots):  # a seat holds its slots' cards but those it played
            slot = &self.slots[i]
            if slot.owner >= 0 and not self.epochs[slot.epoch].gone & bit(slot.card):
                w.hands[slot.owner] |= bit(slot.card)
        for i in range(self.nstock):
            w.stock[i] = self.slots[self.pool[self.stock_at + i]].card
        if self.drawn >= 0:
            w.drawn = self.slots[self.drawn].card
        next_random(&self.rng)  # from_view's getrandbits(32): its state's seed
        next_random(&self.rng)  # and getrandbits(64): its state's stream
        return True

    cdef bint _deal_epoch(self, const dl_epoch* ep, bint strict) noexcept nogil:
        """One attempt at one epoch (``world._deal_epoch``): False when it got stuck."""
        cdef int rest[DECK]
        cdef int bound[DECK]
        cdef int fit[DECK]    # the free slots, then the rest's positions, a card fits
        cdef const int* order = &self.pool[ep.slots]
        cdef const int* triple
        cdef int k, j, c, nfit, nrest, nbound
        cdef dl_slot* slot
        for k in range(ep.nslots):
            self.slots[order[k]].card = -1
        for k in range(ep.nfixed):
            self.slots[self.pool[ep.fixed + 2 * k + 1]].card = self.pool[ep.fixed + 2 * k]
        for k in range(ep.nplayed):  # earliest play first, among its player's earlier slots
            triple = &self.pool[ep.played + 3 * k]
            c = triple[0]
            nfit = 0
            for j in range(ep.nslots):
                slot = &self.slots[order[j]]
                if (
                    slot.card < 0 and slot.owner == triple[1] and slot.seq < triple[2]
                    and (not strict or slot.fits & bit(c))
                ):
                    fit[nfit] = order[j]
                    nfit += 1
            if nfit == 0:
                return False
            self.slots[fit[below_n(&self.rng, nfit)]].card = c
        nrest = ep.nrest
        memcpy(rest, &self.pool[ep.rest], nrest * sizeof(int))
        shuffle(&self.rng, rest, nrest)
        nbound = 0
        if strict:
            for j in range(ep.nslots):
                slot = &self.slots[order[j]]
                if slot.card < 0 and slot.bound:
                    bound[nbound] = order[j]
                    nbound += 1
        shuffle(&self.rng, bound, nbound)
        for k in range(nbound):  # each bound draw a card that meets its outcome
            slot = &self.slots[bound[k]]
            nfit = 0
            for j in range(nrest):
                if slot.fits & bit(rest[j]):
                    fit[nfit] = j
                    nfit += 1
            if nfit == 0:
                return False
            j = fit[below_n(&self.rng, nfit)]
            slot.card = rest[j]
            nrest -= 1
            memmove(&rest[j], &rest[j + 1], (nrest - j) * sizeof(int))
        for j in range(ep.nslots):  # the rest into the slots left, from the end (list.pop())
            slot = &self.slots[order[j]]
            if slot.card < 0:
                nrest -= 1
                slot.card = rest[nrest]
        return True

