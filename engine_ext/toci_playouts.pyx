# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Toci playouts in C: the rules of play (tick mode) and the careful player on a compact state.

A search plays thousands of Toci cards per decision. The Python copy
(:class:`levata.engine.games.toci.TociPlayout`: a quiet :class:`~levata.engine.games.toci.TociState`)
still moves every card through the zones' bookkeeping. :class:`TociPlayout` here holds the
circle, the piles and the stocks as small arrays of card indices (two decks repeat cards, so
no masks), copies with one ``memcpy`` and plays out in C with either policy:

* ``"heuristic"``: the careful player (``careful_choice``; in a rollout the Python copy's
  ``_careful_rollout``, card for card);
* ``"random"``: uniform over the legal actions, from the state's splitmix64 stream (a tick's
  window: each waiting seat in seat order).

It knows tick mode only (the search's fast path); a real-time match keeps the Python copy.
``tests/engine/test_toci_kernel.py`` proves the two agree (legal actions, successors, choices,
whole rollouts). :class:`TociDealer` deals the search's worlds straight into such copies:
``TociState.from_view``'s shuffle of the circle, in C, draw for draw.

>>> from levata.engine.games.toci import TociState
>>> s = TociState.set_up(2, piles=["4S", "9D"], circle="10H 5C")
>>> fast = TociPlayout(s.playout_fields(), seed=1)
>>> fast.legal_actions(0) == s.legal_actions(0), str(fast.choose(0))
(True, 'place_on 1')
>>> copy = fast.clone()
>>> copy.rollout("heuristic") > 0, copy.is_over(), fast.is_over()
(True, True, False)
"""

from libc.string cimport memcpy

from levata.engine.cards import french_deck
from levata.engine.contract import Action

from levata.engine.playout_base cimport MAX_CODES, POL_HEURISTIC, POL_RANDOM, Playout
from levata.engine.splitmix cimport below_n, next_random

from levata.engine.playout_base import POLICIES

__all__ = ["POLICIES", "TociDealer", "TociPlayout"]


cdef enum:
    MAX_SEATS = 10
    MAX_CARDS = 104
    MAX_HOUSES = 8
    ACE = 14
    STALL_FLOOR = 200     # toci.STALL_FLOOR
    STALL_PER_CARD = 4    # toci.STALL_PER_CARD
    HOUSE_T = 10          # the house as a target (seats are 0..9)

cdef enum:
    PH_CIRCLE = 0
    PH_STOCK = 1
    PH_WINDOW = 2
    PH_OVER = 3

# action codes: place_on SEAT (0..9), correct SEAT (10..19), then the others
cdef enum:
    A_CORRECT = 10
    A_CORRECT_HOUSE = 20
    A_PLACE_HOUSE = 21
    A_PLACE_OWN = 22
    A_PASS = 23
    A_TOCI = 24
    N_CODES = 25
    A_NONE = -1

ctypedef signed char card_t

cdef struct tc_state:
    int n
    card_t circle[MAX_CARDS]          # top card last
    int ncircle
    int nhouse                        # cards on the houses
    card_t houses[MAX_HOUSES]         # each house's top, in the order opened
    int nhouses
    int revealed                      # the card turned up, -1: none
    card_t piles[MAX_SEATS][MAX_CARDS]   # bottom first
    int npile[MAX_SEATS]
    card_t stocks[MAX_SEATS][MAX_CARDS]  # top card last
    int nstock[MAX_SEATS]
    int phase
    int stage
    int actor
    int reveals
    int idle
    bint moved
    int skips[MAX_SEATS]
    int places[MAX_SEATS]
    int finished[MAX_SEATS]
    int nfinished
    int fitted[MAX_SEATS + 1]         # targets (HOUSE_T: the house)
    int nfitted
    bint waiting[MAX_SEATS]
    int subs[MAX_SEATS]               # A_NONE: not in
    int tick
    int turns
    bint call_mode
    bint skip_penalty
    bint by_suit
    int decks
    int reveal_cap
    unsigned long long rng


_PHASE_NAMES = ("circle", "stock", "window", "over")
_PHASE_CODE = {name: i for i, name in enumerate(_PHASE_NAMES)}
_CARD = [None] * 64
for _c in french_deck():
    _CARD[_c.index] = _c
# Actions by code and codes by action: these Action objects compare equal to the game's.
_ACTION = [None] * N_CODES
for _s in range(MAX_SEATS):
    _ACTION[_s] = Action("place_on", number=_s)
    _ACTION[A_CORRECT + _s] = Action("correct", number=_s)
_ACTION[A_CORRECT_HOUSE] = Action("correct", choice="house")
_ACTION[A_PLACE_HOUSE] = Action("place_house")
_ACTION[A_PLACE_OWN] = Action("place_own")
_ACTION[A_PASS] = Action("pass")
_ACTION[A_TOCI] = Action("toci")
_CODE = {a: i for i, a in enumerate(_ACTION)}
assert <int>N_CODES <= <int>MAX_CODES  # the face's buffer holds every code


# -- cards (rules.py) -------------------------------------------------------------------------

cdef inline int rank_of(int c) noexcept nogil:
    return c & 15

cdef inline int next_rank(int rank) noexcept nogil:
    """rules.NEXT: the rank that goes on ``rank`` (K -> A, A -> 2)."""
    if rank == ACE:
        return 2
    if rank == 13:
        return ACE
    return rank + 1

cdef int house_for(const tc_state* s, int card) noexcept nogil:
    """rules.house_for: the house index, ``nhouses`` for a new one, -1: none."""
    cdef int rank = rank_of(card), i
    if not s.by_suit:
        if s.nhouses == 0:
            return 0 if rank == ACE else -1
        return 0 if next_rank(rank_of(s.houses[0])) == rank else -1
    if rank == ACE:
        return s.nhouses
    for i in range(s.nhouses):
        if (s.houses[i] >> 4) == (card >> 4) and next_rank(rank_of(s.houses[i])) == rank:
            return i
    return -1

cdef int fitting(const tc_state* s, int card, int* out) noexcept nogil:
    """rules.targets for the actor: the house first, then the seats in order."""
    cdef int k = 0, seat, rank = rank_of(card)
    if house_for(s, card) >= 0:
        out[k] = HOUSE_T
        k += 1
    for seat in range(s.n):
        if s.npile[seat] and seat != s.actor:
            if next_rank(rank_of(s.piles[seat][s.npile[seat] - 1])) == rank:
                out[k] = seat
                k += 1
    return k

cdef inline int held(const tc_state* s, int seat) noexcept nogil:
    cdef int own = 1 if s.revealed >= 0 and seat == s.actor and s.phase != PH_WINDOW else 0
    return s.nstock[seat] + s.npile[seat] + own

cdef int careful_target(const tc_state* s, const int* fit, int nfit, int actor) noexcept nogil:
    """rules.careful_target: the rival holding the fewest cards (nearest clockwise on a tie),
    else the house."""
    cdef int best = HOUSE_T, i, t, h, bh = 0, bd = 0, d
    for i in range(nfit):
        t = fit[i]
        if t == HOUSE_T:
            continue
        h = held(s, t)
        d = (t - actor + s.n) % s.n
        if best == HOUSE_T or h < bh or (h == bh and d < bd):
            best, bh, bd = t, h, d
    return best


# -- rules (TociState) ------------------------------------------------------------------------

cdef inline int unfinished_count(const tc_state* s) noexcept nogil:
    cdef int k = 0, seat
    for seat in range(s.n):
        if not s.places[seat]:
            k += 1
    return k

cdef void end_match(tc_state* s) noexcept nogil:
    cdef int seat
    s.phase = PH_OVER
    for seat in range(s.n):
        s.waiting[seat] = False

cdef void finish(tc_state* s, const int* seats, int k) noexcept nogil:
    cdef int rank = s.nfinished + 1, i
    for i in range(k):
        s.finished[s.nfinished] = seats[i]
        s.nfinished += 1
        s.places[seats[i]] = rank
    if unfinished_count(s) <= 1:
        end_match(s)

cdef void finish_one(tc_state* s, int seat) noexcept nogil:
    finish(s, &seat, 1)

cdef void flip(tc_state* s, int seat) noexcept nogil:
    """The seat's pile turned over onto its stock (its first card on top)."""
    cdef int i, m = s.npile[seat]
    for i in range(m):
        s.stocks[seat][s.nstock[seat]] = s.piles[seat][m - 1 - i]
        s.nstock[seat] += 1
    s.npile[seat] = 0

cdef int next_seat(tc_state* s, int seat) noexcept nogil:
    cdef int t = (seat + 1) % s.n
    while True:
        if not s.places[t]:
            if not s.skips[t]:
                return t
            s.skips[t] -= 1
        t = (t + 1) % s.n


cdef void transition(tc_state* s) noexcept nogil:
    cdef int last = s.actor, seat, k = 0
    cdef int empty[MAX_SEATS]
    s.stage = s.phase = PH_STOCK
    for seat in range(s.n):
        if s.npile[seat]:
            flip(s, seat)
    for seat in range(s.n):
        if not s.nstock[seat] and not s.places[seat]:
            empty[k] = seat
            k += 1
    if k:
        finish(s, empty, k)
    if s.phase != PH_OVER:
        s.moved = False
        s.idle = 0
        start_turn(s, next_seat(s, last))

cdef void end_turn(tc_state* s) noexcept nogil:
    cdef int total = 0, seat
    if s.stage == PH_CIRCLE:
        if not s.ncircle:
            transition(s)
            return
    else:
        s.idle = 0 if s.moved else s.idle + 1
        if s.idle >= STALL_FLOOR:
            for seat in range(s.n):
                if not s.places[seat]:
                    total += held(s, seat)
            if s.idle >= STALL_PER_CARD * total:
                end_match(s)
                return
    start_turn(s, next_seat(s, s.actor))

cdef void reveal(tc_state* s) noexcept nogil:
    cdef int x = s.actor
    if s.phase == PH_OVER:
        return
    if s.reveals >= s.reveal_cap:
        end_match(s)
        return
    if s.stage == PH_CIRCLE:
        if not s.ncircle:
            transition(s)
            return
        s.reveals += 1
        s.ncircle -= 1
        s.revealed = s.circle[s.ncircle]
        return
    if not s.nstock[x] and s.npile[x]:
        flip(s, x)
    if not s.nstock[x]:
        finish_one(s, x)
        if s.phase != PH_OVER:
            end_turn(s)
        return
    s.reveals += 1
    s.nstock[x] -= 1
    s.revealed = s.stocks[x][s.nstock[x]]

cdef void start_turn(tc_state* s, int seat) noexcept nogil:
    s.turns += 1
    s.actor = seat
    s.moved = False
    reveal(s)

cdef void put(tc_state* s, int seat, int card, int target) noexcept nogil:
    """TociState._put: ``card`` (already taken from its place) on the house or a pile."""
    cdef int index
    if target == HOUSE_T:
        index = house_for(s, card)
        if index == s.nhouses:
            s.nhouses += 1
        s.houses[index] = card
        s.nhouse += 1
    else:
        s.piles[target][s.npile[target]] = card
        s.npile[target] += 1
    s.moved = True
    if s.stage == PH_STOCK and not s.nstock[seat] and not s.npile[seat]:
        finish_one(s, seat)
        if s.phase != PH_OVER:
            end_turn(s)
        return
    reveal(s)

cdef inline int take_revealed(tc_state* s) noexcept nogil:
    cdef int card = s.revealed
    s.revealed = -1
    return card

cdef void own_pile(tc_state* s, int seat, int card) noexcept nogil:
    s.piles[seat][s.npile[seat]] = card
    s.npile[seat] += 1

cdef void resolve_window(tc_state* s, bint called, int mine) noexcept nogil:
    cdef int x = s.actor, card
    cdef bint fitted = s.nfitted > 0
    s.phase = s.stage
    s.nfitted = 0
    if called and fitted:
        if s.skip_penalty:
            s.skips[x] += 1
        end_turn(s)
    elif mine >= A_CORRECT and mine <= A_CORRECT_HOUSE and fitted:
        s.npile[x] -= 1
        card = s.piles[x][s.npile[x]]
        put(s, x, card, HOUSE_T if mine == A_CORRECT_HOUSE else mine - A_CORRECT)
    else:
        end_turn(s)

cdef void clear_subs(tc_state* s) noexcept nogil:
    cdef int seat
    for seat in range(s.n):
        s.subs[seat] = A_NONE

cdef void resolve_tick(tc_state* s) noexcept nogil:
    cdef int seat
    cdef bint called = False
    for seat in range(s.n):
        if not s.places[seat] and seat != s.actor and s.subs[seat] == A_TOCI:
            called = True
    resolve_window(s, called, s.subs[s.actor])
    clear_subs(s)
    if s.phase != PH_OVER:
        s.tick += 1
    for seat in range(s.n):
        s.waiting[seat] = False  # a window never opens as another resolves

cdef int legal(const tc_state* s, int seat, int* out) noexcept nogil:
    """TociState.legal_actions (tick mode): the same codes in the same order."""
    cdef int k = 0, i, nfit
    cdef int fit[MAX_SEATS + 1]
    if seat < 0 or seat >= s.n:
        return 0
    if s.phase == PH_WINDOW:
        if not s.waiting[seat]:
            return 0
        out[0] = A_PASS
        if seat != s.actor:
            out[1] = A_TOCI
            return 2
        for i in range(s.nfitted):
            out[1 + i] = A_CORRECT_HOUSE if s.fitted[i] == HOUSE_T else A_CORRECT + s.fitted[i]
        return 1 + s.nfitted
    if s.phase == PH_OVER or seat != s.actor:
        return 0
    nfit = fitting(s, s.revealed, fit)
    for i in range(nfit):
        out[k] = A_PLACE_HOUSE if fit[i] == HOUSE_T else fit[i]
        k += 1
    if s.call_mode or not nfit:
        out[k] = A_PLACE_OWN
        k += 1
    return k

cdef void apply_code(tc_state* s, int seat, int code) noexcept nogil:
    cdef int card, other
    cdef bint left = False
    if s.phase == PH_WINDOW:
        s.subs[seat] = code
        s.waiting[seat] = False
        for other in range(s.n):
            left = left or s.waiting[other]
        if not left:
            resolve_tick(s)
        return
    if code == A_PLACE_OWN:
        card = s.revealed
        s.nfitted = fitting(s, card, s.fitted) if s.call_mode else 0
        own_pile(s, seat, take_revealed(s))
        if s.call_mode:
            s.phase = PH_WINDOW
            clear_subs(s)
            for other in range(s.n):
                s.waiting[other] = not s.places[other]
        else:
            end_turn(s)
        return
    card = take_revealed(s)
    put(s, seat, card, HOUSE_T if code == A_PLACE_HOUSE else code)


# -- the policies -------------------------------------------------------------------------------

cdef int careful_code(const tc_state* s, int seat) noexcept nogil:
    """careful_choice: the careful player's action for ``seat`` (to act now)."""
    cdef int codes[N_CODES]
    cdef int fit[MAX_SEATS + 1]
    cdef int nl = legal(s, seat, codes), nfit, t
    if s.phase == PH_WINDOW:
        if not s.nfitted or nl == 1:
            return codes[0]
        if seat != s.actor:
            return A_TOCI
        t = careful_target(s, s.fitted, s.nfitted, seat)
        return A_CORRECT_HOUSE if t == HOUSE_T else A_CORRECT + t
    if nl == 1:
        return codes[0]
    nfit = fitting(s, s.revealed, fit)
    if not nfit:
        return A_PLACE_OWN
    t = careful_target(s, fit, nfit, seat)
    return A_PLACE_HOUSE if t == HOUSE_T else t

cdef int choose_code(tc_state* s, int seat, int policy) noexcept nogil:
    cdef int codes[N_CODES]
    cdef int nl
    if policy == POL_RANDOM:
        nl = legal(s, seat, codes)
        return codes[below_n(&s.rng, nl)]
    return careful_code(s, seat)

cdef void careful_step(tc_state* s) noexcept nogil:
    """One step of TociPlayout._careful_rollout: a window ends the turn (every rival calls a
    miss); a fitting card goes where careful_target says, any other on the own pile."""
    cdef int fit[MAX_SEATS + 1]
    cdef int nfit, card, x = s.actor
    if s.phase == PH_WINDOW:
        if s.nfitted and s.skip_penalty:
            s.skips[x] += 1
        s.phase = s.stage
        s.nfitted = 0
        for card in range(s.n):
            s.waiting[card] = False
        clear_subs(s)
        s.tick += 1
        end_turn(s)
        return
    card = s.revealed
    nfit = fitting(s, card, fit)
    if nfit:
        put(s, x, take_revealed(s), careful_target(s, fit, nfit, x))
    else:
        own_pile(s, x, take_revealed(s))
        if s.call_mode:
            s.tick += 1  # its window: nothing fitted, nothing happens
        end_turn(s)

cdef void random_window(tc_state* s) noexcept nogil:
    """A tick's window by random moves: each waiting seat in seat order, then it resolves."""
    cdef int codes[N_CODES]
    cdef int seat, nl
    for seat in range(s.n):
        if s.waiting[seat]:
            nl = legal(s, seat, codes)
            s.subs[seat] = codes[below_n(&s.rng, nl)]
    for seat in range(s.n):
        s.waiting[seat] = False
    resolve_tick(s)

cdef int run(tc_state* s, int policy, int limit) noexcept nogil:
    """Play on by ``policy`` until the match ends or ``limit`` turns (0: no limit); the turns."""
    cdef int start = s.turns
    while s.phase != PH_OVER and (limit == 0 or s.turns - start < limit):
        if policy == POL_HEURISTIC:
            careful_step(s)
        elif s.phase == PH_WINDOW:
            random_window(s)
        else:
            apply_code(s, s.actor, choose_code(s, s.actor, policy))
    return s.turns - start


# -- Python ------------------------------------------------------------------------------------

cdef int _cards_into(object cards, card_t* out, int room, str what) except -1:
    cdef int k = 0
    if len(cards) > room:
        raise ValueError(f"{what} holds {room} cards at most")
    for c in cards:
        out[k] = <card_t>c.index
        k += 1
    return k

cdef int _target_code(object t) except -2:
    return HOUSE_T if t == "house" else int(t)


cdef class TociPlayout(Playout):
    """A Toci match in tick mode for playouts: play only, no events or views; see the module.

    ``fields``: the position as the Python copy's ``fields()`` says it; ``seed`` starts the
    state's random stream.

    >>> from levata.engine.games.toci import TociState
    >>> s = TociState.set_up(3, piles=["", "9S", "4H"], circle="10H 2C")
    >>> fast = TociPlayout(s.playout_fields(), seed=3)
    >>> fast.to_act(), [str(a) for a in fast.legal_actions(0)]
    ((0,), ['place_on 1', 'place_own'])
    """

    cdef tc_state s

    def __init__(self, fields, seed=0):
        cdef tc_state* s = &self.s
        cdef int n = int(fields["players"]), seat, i
        if not 2 <= n <= MAX_SEATS:
            raise ValueError(f"Toci seats 2 to 10, not {n}")
        if fields["mode"] != "tick":
            raise ValueError("the kernel plays tick mode only")
        s.n = n
        s.rng = <unsigned long long>(int(seed) & 0xFFFFFFFFFFFFFFFF)
        for key in ("piles", "stocks", "skips", "places", "submissions"):
            if len(fields[key]) != n:
                raise ValueError(f"{key}: one for each seat")
        s.ncircle = _cards_into(fields["circle"], s.circle, MAX_CARDS, "the circle")
        s.nhouse = int(fields["house"])
        s.nhouses = _cards_into(fields["houses"], s.houses, MAX_HOUSES, "houses")
        revealed = fields["revealed"]
        if len(revealed) > 1:
            raise ValueError("revealed: one card at most")
        s.revealed = revealed[0].index if revealed else -1
        for seat in range(MAX_SEATS):
            s.npile[seat] = s.nstock[seat] = s.skips[seat] = s.places[seat] = 0
            s.waiting[seat] = False
            s.subs[seat] = A_NONE
        for seat in range(n):
            s.npile[seat] = _cards_into(fields["piles"][seat], s.piles[seat], MAX_CARDS, "a pile")
            s.nstock[seat] = _cards_into(
                fields["stocks"][seat], s.stocks[seat], MAX_CARDS, "a stock"
            )
            s.skips[seat] = fields["skips"][seat]
            s.places[seat] = fields["places"][seat]
            sub = fields["submissions"][seat]
            s.subs[seat] = A_NONE if sub is None else _CODE[Action.parse(sub)]
        s.nfinished = 0
        for seat in fields["finished"]:
            s.finished[s.nfinished] = seat
            s.nfinished += 1
        for seat in fields["waiting"]:
            s.waiting[seat] = True
        s.nfitted = 0
        for t in fields["fitted"]:
            s.fitted[s.nfitted] = _target_code(t)
            s.nfitted += 1
        s.phase = _PHASE_CODE[fields["phase"]]
        s.stage = _PHASE_CODE[fields["stage"]]
        s.actor = fields["actor"]
        s.reveals = fields["reveals"]
        s.idle = fields["idle"]
        s.moved = bool(fields["moved"])
        s.tick = fields["tick"]
        s.turns = fields["turns"]
        s.call_mode = fields["toci_mode"] == "call"
        s.skip_penalty = fields["toci_penalty"] == "skip_next_turn"
        s.by_suit = bool(fields["house_by_suit"])
        s.decks = fields["decks"]
        s.reveal_cap = fields["reveal_cap"]

    def clone(self):
        """An independent copy (its random stream included)."""
        cdef TociPlayout other = TociPlayout.__new__(TociPlayout)
        memcpy(&other.s, &self.s, sizeof(tc_state))
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
        return run(&self.s, policy, max_actions)  # turns begun

    cdef void reseed(self, unsigned long long seed) noexcept:
        self.s.rng = seed

    def is_over(self):
        return self.s.phase == PH_OVER

    def to_act(self):
        if self.s.phase == PH_WINDOW:
            return tuple(seat for seat in range(self.s.n) if self.s.waiting[seat])
        return () if self.s.phase == PH_OVER else (self.s.actor,)

    def estimate(self):
        """``TociState.estimate``: seats out by rank, the others sharing the ranks left by
        the cards they hold."""
        cdef tc_state* s = &self.s
        cdef int n = s.n, seat, lo = 1 << 30, hi = -1, h
        cdef double best
        out = [float(n - s.places[seat]) if s.places[seat] else 0.0 for seat in range(n)]
        rest = [seat for seat in range(n) if not s.places[seat]]
        if not rest:
            return tuple(out)
        for seat in rest:
            h = held(s, seat)
            lo, hi = min(lo, h), max(hi, h)
        best = <double>(n - s.nfinished - 1)
        for seat in rest:
            h = held(s, seat)
            out[seat] = best * (hi - h) / (hi - lo) if hi > lo else best / 2
        return tuple(out)

    def fields(self):
        """The position as the Python copy's ``fields()`` says it (the differential test)."""
        cdef tc_state* s = &self.s
        cdef int i, seat, n = s.n
        return {
            "players": n,
            "decks": s.decks,
            "circle": [_CARD[s.circle[i]] for i in range(s.ncircle)],
            "house": s.nhouse,
            "houses": [_CARD[s.houses[i]] for i in range(s.nhouses)],
            "revealed": [] if s.revealed < 0 else [_CARD[s.revealed]],
            "piles": [[_CARD[s.piles[seat][i]] for i in range(s.npile[seat])] for seat in range(n)],
            "stocks": [
                [_CARD[s.stocks[seat][i]] for i in range(s.nstock[seat])] for seat in range(n)
            ],
            "phase": _PHASE_NAMES[s.phase],
            "stage": _PHASE_NAMES[s.stage],
            "actor": s.actor,
            "reveals": s.reveals,
            "idle": s.idle,
            "moved": bool(s.moved),
            "skips": [s.skips[seat] for seat in range(n)],
            "places": [s.places[seat] for seat in range(n)],
            "finished": [s.finished[i] for i in range(s.nfinished)],
            "fitted": ["house" if s.fitted[i] == HOUSE_T else s.fitted[i] for i in range(s.nfitted)],
            "waiting": [seat for seat in range(n) if s.waiting[seat]],
            "submissions": [None if s.subs[seat] < 0 else str(_ACTION[s.subs[seat]]) for seat in range(n)],
            "tick": s.tick,
            "turns": s.turns,
            "toci_mode": "call" if s.call_mode else "strict",
            "toci_penalty": "skip_next_turn" if s.skip_penalty else "none",
            "house_by_suit": bool(s.by_suit),
            "reveal_cap": s.reveal_cap,
            "mode": "tick",
        }


cdef class TociDealer:
    """Worlds a seat cannot tell from a position, dealt in C: the search's determinizations.

    The circle's order is all that no seat knows (every pile was turned up before all, and
    the history tells each stock card by card). ``TociState.from_view`` draws, in order:
    ``getrandbits(32)`` (the world's seed), ``random.shuffle`` of the circle's cards sorted
    (from the top card down, one ``_randbelow(i + 1)`` for each place ``i`` but the first),
    ``getrandbits(64)`` (the world's own stream). This dealer makes the same draws on
    splitmix64: one word for each ``getrandbits``, ``below_n`` for each ``_randbelow``; fed
    that stream, ``from_view`` deals the same circles (``tests/engine/test_toci_kernel.py``
    replays it). The rest of the world is ``base``'s, copied whole: the view is walked once.

    ``base``: one such world, its circle in the sampler's order (sorted); ``seed`` starts the
    dealer's stream.

    >>> from levata.engine.games.toci import TociState
    >>> s = TociState.set_up(2, piles=["4S", "9D"], circle="10H 5C")
    >>> dealer = s.playout_dealer(0, seed=1)
    >>> one, two = dealer.deal(seed=2).fields(), dealer.deal(seed=2).fields()
    >>> sorted(one["circle"]) == sorted(s.circle), one["circle"] != two["circle"]
    (True, True)
    >>> one["piles"], one["revealed"]
    ([[Card('4S')], [Card('9D')]], [Card('10H')])
    """

    cdef tc_state base
    cdef unsigned long long rng

    def __init__(self, TociPlayout base, seed=0):
        memcpy(&self.base, &base.s, sizeof(tc_state))
        self.rng = <unsigned long long>(int(seed) & 0xFFFFFFFFFFFFFFFF)

    def deal(self, seed=0):
        """A new world: the circle in a fresh order; the copy's own random stream starts from
        ``seed``."""
        cdef TociPlayout out = TociPlayout.__new__(TociPlayout)
        with nogil:
            self._deal(&out.s)
        out.s.rng = <unsigned long long>(int(seed) & 0xFFFFFFFFFFFFFFFF)
        return out

    cdef void _deal(self, tc_state* w) noexcept nogil:
        cdef int i, j
        cdef card_t t
        memcpy(w, &self.base, sizeof(tc_state))  # the circle starts in the sampler's order
        next_random(&self.rng)  # from_view's getrandbits(32): a seed the copy does not read
        for i in range(w.ncircle - 1, 0, -1):  # random.shuffle: Fisher-Yates from the top
            j = below_n(&self.rng, i + 1)
            t = w.circle[i]
            w.circle[i] = w.circle[j]
            w.circle[j] = t
        next_random(&self.rng)  # getrandbits(64): the world's stream, which deal's seed replaces
