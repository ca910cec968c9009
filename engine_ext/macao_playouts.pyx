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

from libc.string cimport memcpy

from levata.engine.cardmask cimport bit, lowest, mask_t, popcount, suit_bits

from levata.engine.cards import Card, french_deck
from levata.engine.contract import Action

from levata.engine.playout_base cimport MAX_CODES, POL_HEURISTIC, POL_RANDOM, Playout
from levata.engine.splitmix cimport below_n

from levata.engine.playout_base import POLICIES

__all__ = ["POLICIES", "MacaoPlayout"]


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
