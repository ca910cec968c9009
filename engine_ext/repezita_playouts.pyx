# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Repezita playouts in C: the rules of a tick (tick mode) and the heuristic player on a
compact state.

A search submits thousands of Repezita cards per decision; the game itself
(:class:`levata.engine.games.repezita.RepezitaState`) moves each one through the zones'
bookkeeping and logs an event for it. :class:`RepezitaPlayout` here holds each hand as counts of
the 52 cards (two decks repeat cards), the pile and the dead area as small arrays, copies with
one ``memcpy`` and plays out in C with either policy:

* ``"heuristic"``: the heuristic bot's rule (``levata.bots.heuristic.repezita``, restated here
  since the engine does not import bots): play a card that lands on the pile the seat sees,
  the one that leaves the most follow-ups in its hand, ties drawn from the state's splitmix64
  stream; with none that lands, pass;
* ``"random"``: uniform over the legal actions, from the same stream.

It knows tick mode only (the search's fast path); a real-time match keeps the contract. There
is no Python copy of these playouts: ``tests/engine/test_repezita_kernel.py`` proves the kernel
against the game (legal actions, successors, fields, choices, whole rollouts replayed).

>>> from levata.engine.games.repezita import RepezitaState
>>> s = RepezitaState.from_position(2, ["8C 9H 3S", "KD 5D"], pile="AD 6C 7D")
>>> fast = RepezitaPlayout(s.playout_fields(), seed=1)
>>> fast.legal_actions(0) == s.legal_actions(0), str(fast.choose(0)), str(fast.choose(1))
(True, 'play 8C', 'pass')
>>> copy = fast.clone()
>>> copy.rollout("heuristic") > 0, copy.is_over(), fast.is_over()
(True, True, False)
"""

from libc.math cimport exp
from libc.string cimport memcpy, memmove

from levata.engine import actions as kinds
from levata.engine.cards import french_deck
from levata.engine.contract import Action

from levata.engine.playout_base cimport MAX_CODES, POL_HEURISTIC, POL_RANDOM, Playout
from levata.engine.splitmix cimport below_n

from levata.engine.playout_base import POLICIES

__all__ = ["POLICIES", "RepezitaDealer", "RepezitaPlayout"]


cdef enum:
    MAX_SEATS = 12
    KINDS = 52           # the distinct cards, by code: (rank - 2) * 4 + suit, the legal order
    MAX_CARDS = 104      # two decks at most
    RANKS = 13           # the rank cycle A-2-...-K-A
    ACE_INDEX = 12       # rank 14 (the Ace) - 2
    A_PASS = 52          # action codes: 0..51 play that card, A_PASS
    N_CODES = 53
    A_NONE = -1          # not submitted yet
    MAX_PLACES = MAX_SEATS      # the dealer's places: the other seats, then the cards aside
    MAX_NEEDS = MAX_SEATS * 16  # distinct rank sets a bounce implies (15 in tick mode)

cdef double LEAD_SLOPE = 9.5  # repezita.LEAD_SLOPE (the differential test compares estimates)

cdef enum:
    END_NONE = 0
    END_COMPLETE = 1
    END_CAP = 2

ctypedef signed char card_t

cdef struct rp_state:
    int n
    unsigned char hand[MAX_SEATS][KINDS]    # copies of each card a seat holds
    unsigned char known[MAX_SEATS][KINDS]   # of those, picked up in public
    int held[MAX_SEATS]
    card_t pile[MAX_CARDS]                  # bottom first
    int npile
    card_t dead[MAX_CARDS]                  # in the order the piles died
    int ndead
    int finished[MAX_SEATS]
    int nfinished
    int subs[MAX_SEATS]                     # this tick's submissions (A_NONE: not in)
    bint waiting[MAX_SEATS]
    int tick
    int idle
    bint open_start
    int idle_ticks
    int tick_cap
    int decks
    int reason
    int ranks[MAX_SEATS]                    # once over
    bint over
    unsigned long long rng


_REASONS = ("", "complete", "cap")
_CARD = sorted(french_deck(), key=lambda c: (c.rank, int(c.suit)))  # by code
_CARD_CODE = {c: i for i, c in enumerate(_CARD)}
# Actions by code and codes by action: these Action objects compare equal to the game's.
_ACTION = [Action(kinds.PLAY, card=c) for c in _CARD] + [Action(kinds.PASS)]
_CODE = {a: i for i, a in enumerate(_ACTION)}
assert <int>N_CODES <= <int>MAX_CODES  # the face's buffer holds every code


cdef inline int rank_index(int code) noexcept nogil:
    return code >> 2

cdef inline bint adjacent(int a, int b) noexcept nogil:
    """Neighbours in the rank cycle (suits ignored): repezita.adjacent."""
    cdef int d = (rank_index(a) - rank_index(b) + RANKS) % RANKS
    return d == 1 or d == RANKS - 1

cdef inline bint lands(int code, int top, bint open_start) noexcept nogil:
    """repezita.lands: on an empty pile (top < 0) an Ace, or any card while it is open."""
    if top < 0:
        return open_start or rank_index(code) == ACE_INDEX
    return adjacent(code, top)

cdef inline double lead_odds(int mine, int theirs) noexcept nogil:
    """repezita.lead_share: the same operations in the same order, so the same double."""
    return 1.0 / (1.0 + exp(-(LEAD_SLOPE * (theirs - mine)) / (mine + theirs)))

cdef inline int top_of(const rp_state* s) noexcept nogil:
    return s.pile[s.npile - 1] if s.npile else -1

cdef inline int unfinished_count(const rp_state* s) noexcept nogil:
    cdef int k = 0, seat
    for seat in range(s.n):
        if s.held[seat]:
            k += 1
    return k

cdef void open_tick(rp_state* s) noexcept nogil:
    """Every unfinished seat is to submit (nobody once the match is over)."""
    cdef int seat
    for seat in range(s.n):
        s.subs[seat] = A_NONE
        s.waiting[seat] = (not s.over) and s.held[seat] > 0

cdef void end_match(rp_state* s, int reason) noexcept nogil:
    """RepezitaState._end: finishers by order, then fewest cards (ties share the better)."""
    cdef int seat, other, i
    for i in range(s.nfinished):
        s.ranks[s.finished[i]] = i + 1
    for seat in range(s.n):
        if s.held[seat]:
            s.ranks[seat] = s.nfinished + 1
            for other in range(s.n):
                if s.held[other] and s.held[other] < s.held[seat]:
                    s.ranks[seat] += 1
    s.reason = reason
    s.over = True

cdef void take_from_hand(rp_state* s, int seat, int code) noexcept nogil:
    s.hand[seat][code] -= 1
    s.held[seat] -= 1
    if s.known[seat][code]:  # the played copy is the known one, if any is
        s.known[seat][code] -= 1

cdef void land(rp_state* s, int seat, int code) noexcept nogil:
    take_from_hand(s, seat, code)
    s.pile[s.npile] = <card_t>code
    s.npile += 1
    s.open_start = False
    s.idle = 0

cdef void wrong_card(rp_state* s, int seat, int code) noexcept nogil:
    """The card goes on the pile, then the seat picks the whole pile up, in public."""
    cdef int i, c
    take_from_hand(s, seat, code)
    s.pile[s.npile] = <card_t>code
    s.npile += 1
    for i in range(s.npile):
        c = s.pile[i]
        s.hand[seat][c] += 1
        s.known[seat][c] += 1
    s.held[seat] += s.npile
    s.npile = 0
    s.idle = 0

cdef void count_idle(rp_state* s) noexcept nogil:
    """[D7] A tick without a change: after idle_ticks of them a pile dies, an empty one opens."""
    cdef int i
    s.idle += 1
    if s.idle >= s.idle_ticks:
        if s.npile:
            for i in range(s.npile):
                s.dead[s.ndead + i] = s.pile[i]
            s.ndead += s.npile
            s.npile = 0
            s.idle = 0
        elif not s.open_start:
            s.open_start = True  # the idle count goes on (RepezitaState._start_open)

cdef void resolve_tick(rp_state* s) noexcept nogil:
    """The last submission is in: the plays in P_t order (unfinished seats by (seat - t) mod
    n), then finishers, the end, the stall rules, the next tick and the cap."""
    cdef int order[MAX_SEATS]
    cdef int k = 0, j, seat, code, top0 = top_of(s)
    cdef bint open0 = s.open_start, changed = False, wrong = False
    for j in range(s.n):
        seat = (s.tick + j) % s.n
        if s.held[seat]:
            order[k] = seat
            k += 1
    for j in range(k):
        seat = order[j]
        code = s.subs[seat]
        if code == A_NONE or code == A_PASS or wrong:  # [D5] after a wrong card all bounce
            continue
        if lands(code, top_of(s), s.open_start):
            land(s, seat, code)
            changed = True
        elif lands(code, top0, open0):  # [D4] right on what it saw: bounces
            pass
        elif top0 < 0:  # [D6] rejected: no pile to take
            pass
        else:
            wrong_card(s, seat, code)
            changed = wrong = True
    for j in range(k):
        seat = order[j]
        if not s.held[seat]:
            s.finished[s.nfinished] = seat
            s.nfinished += 1
    if unfinished_count(s) <= 1:
        end_match(s, END_COMPLETE)
    elif not changed:
        count_idle(s)
    if not s.over:
        s.tick += 1
        if s.tick >= s.tick_cap:
            end_match(s, END_CAP)
    open_tick(s)

cdef void submit(rp_state* s, int seat, int code) noexcept nogil:
    cdef int other
    s.subs[seat] = code
    s.waiting[seat] = False
    for other in range(s.n):
        if s.waiting[other]:
            return
    resolve_tick(s)

cdef int legal(const rp_state* s, int seat, int* out) noexcept nogil:
    """RepezitaState.legal_actions: pass, then each card held (once) by rank then suit."""
    cdef int k = 1, c
    if seat < 0 or seat >= s.n or not s.waiting[seat]:
        return 0
    out[0] = A_PASS
    for c in range(KINDS):
        if s.hand[seat][c]:
            out[k] = c
            k += 1
    return k

cdef int heuristic_code(rp_state* s, int seat) noexcept nogil:
    """The heuristic bot's rule: among the cards that land on the pile the seat sees, one
    that leaves the most follow-ups (cards of a neighbouring rank) in its hand, ties at
    random; else pass."""
    cdef int by_rank[RANKS]
    cdef int ties[KINDS]
    cdef int r, c, score, best = -1, k = 0, top = top_of(s)
    for r in range(RANKS):
        by_rank[r] = 0
    for c in range(KINDS):
        by_rank[rank_index(c)] += s.hand[seat][c]
    for c in range(KINDS):
        if not s.hand[seat][c] or not lands(c, top, s.open_start):
            continue
        r = rank_index(c)
        score = by_rank[(r + 1) % RANKS] + by_rank[(r + RANKS - 1) % RANKS]
        if score > best:
            best = score
            k = 0
        if score == best:
            ties[k] = c
            k += 1
    if k == 0:
        return A_PASS
    return ties[below_n(&s.rng, k)] if k > 1 else ties[0]

cdef int choose_code(rp_state* s, int seat, int policy) noexcept nogil:
    cdef int codes[N_CODES]
    cdef int nl
    if policy == POL_RANDOM:
        nl = legal(s, seat, codes)
        return codes[below_n(&s.rng, nl)]
    return heuristic_code(s, seat)

cdef int run(rp_state* s, int policy, int limit) noexcept nogil:
    """Play on by ``policy`` until the match ends or ``limit`` submissions (0: no limit), the
    first seat to act submitting first; the submissions made."""
    cdef int taken = 0, seat
    while not s.over and (limit == 0 or taken < limit):
        seat = 0
        while not s.waiting[seat]:  # a match that is not over has a seat to act
            seat += 1
        submit(s, seat, choose_code(s, seat, policy))
        taken += 1
    return taken


# -- Python ------------------------------------------------------------------------------------

cdef int _count_into(object cards, unsigned char* out, str what) except -1:
    cdef int c
    for c in range(KINDS):
        out[c] = 0
    for card in cards:
        out[_CARD_CODE[card]] += 1
    return len(cards)

cdef int _cards_into(object cards, card_t* out, str what) except -1:
    cdef int k = 0
    if len(cards) > MAX_CARDS:
        raise ValueError(f"{what} holds {MAX_CARDS} cards at most")
    for card in cards:
        out[k] = <card_t>_CARD_CODE[card]
        k += 1
    return k

cdef list _counted(const unsigned char* counts):
    cdef int c, i
    return [_CARD[c] for c in range(KINDS) for i in range(counts[c])]


cdef class RepezitaPlayout(Playout):
    """A Repezita match in tick mode for playouts: play only, no events or views; see the
    module.

    ``fields``: the position as ``RepezitaState.playout_fields()`` says it; ``seed`` starts
    the state's random stream.

    >>> from levata.engine.games.repezita import RepezitaState
    >>> s = RepezitaState.from_position(3, ["AC 2D", "KH", "5S 6S"])
    >>> fast = RepezitaPlayout(s.playout_fields(), seed=3)
    >>> fast.to_act(), [str(a) for a in fast.legal_actions(0)]
    ((0, 1, 2), ['pass', 'play 2D', 'play AC'])
    """

    cdef rp_state s

    def __init__(self, fields, seed=0):
        cdef rp_state* s = &self.s
        cdef int n = int(fields["players"]), seat
        if not 2 <= n <= MAX_SEATS:
            raise ValueError(f"Repezita seats 2 to {MAX_SEATS}, not {n}")
        if fields["mode"] != "tick":
            raise ValueError("the kernel plays tick mode only")
        for key in ("hands", "known", "submissions"):
            if len(fields[key]) != n:
                raise ValueError(f"{key}: one for each seat")
        s.n = n
        s.rng = <unsigned long long>(int(seed) & 0xFFFFFFFFFFFFFFFF)
        for seat in range(n):
            s.held[seat] = _count_into(fields["hands"][seat], s.hand[seat], "a hand")
            _count_into(fields["known"][seat], s.known[seat], "known cards")
            sub = fields["submissions"][seat]
            s.subs[seat] = A_NONE if sub is None else _CODE[Action.parse(sub)]
            s.waiting[seat] = False
            s.ranks[seat] = 0
        s.npile = _cards_into(fields["pile"], s.pile, "the pile")
        s.ndead = _cards_into(fields["dead"], s.dead, "the dead area")
        s.nfinished = 0
        for seat in fields["finished"]:
            s.finished[s.nfinished] = seat
            s.nfinished += 1
        for seat in fields["waiting"]:
            s.waiting[seat] = True
        for seat, rank in enumerate(fields["ranks"]):
            s.ranks[seat] = rank
        s.tick = fields["tick"]
        s.idle = fields["idle"]
        s.open_start = bool(fields["open_start"])
        s.idle_ticks = fields["idle_ticks"]
        s.tick_cap = fields["tick_cap"]
        s.decks = fields["decks"]
        s.over = bool(fields["over"])
        s.reason = _REASONS.index(fields["reason"])

    def clone(self):
        """An independent copy (its random stream included)."""
        cdef RepezitaPlayout other = RepezitaPlayout.__new__(RepezitaPlayout)
        memcpy(&other.s, &self.s, sizeof(rp_state))
        return other

    def __cinit__(self, *args, **kwargs):
        self.actions, self.codes = _ACTION, _CODE

    cdef int seats(self) noexcept:
        return self.s.n

    cdef int legal_codes(self, int seat, int* codes) noexcept:
        return legal(&self.s, seat, codes)

    cdef void submit(self, int seat, int code) noexcept:
        submit(&self.s, seat, code)

    cdef int pick(self, int seat, int policy, const int* codes, int k) noexcept:
        return choose_code(&self.s, seat, policy)

    cdef int play_on(self, int policy, int max_actions) noexcept nogil:
        return run(&self.s, policy, max_actions)  # submissions

    cdef void reseed(self, unsigned long long seed) noexcept:
        self.s.rng = seed

    def is_over(self):
        return bool(self.s.over)

    def to_act(self):
        """The seats still to submit this tick, in seat order."""
        return tuple(seat for seat in range(self.s.n) if self.s.waiting[seat])

    def estimate(self):
        """``RepezitaState.estimate``: the final scores once over; before, each seat's
        expected score (finishers by their place, the others by their chances against each
        other seat still holding cards, ``repezita.lead_share``)."""
        cdef rp_state* s = &self.s
        cdef int n = s.n, seat, other, i
        cdef double share
        if s.over:
            return tuple(float(n - s.ranks[seat]) for seat in range(n))
        out = [0.0] * n
        for i in range(s.nfinished):
            out[s.finished[i]] = float(n - i - 1)
        for seat in range(n):
            if s.held[seat]:
                share = 0.0
                for other in range(n):
                    if other != seat and s.held[other]:
                        share += lead_odds(s.held[seat], s.held[other])
                out[seat] = share
        return tuple(out)

    def fields(self):
        """The position as ``RepezitaState.playout_fields()`` says it (the differential test)."""
        cdef rp_state* s = &self.s
        cdef int i, seat, n = s.n
        return {
            "players": n,
            "decks": s.decks,
            "hands": [_counted(s.hand[seat]) for seat in range(n)],
            "known": [_counted(s.known[seat]) for seat in range(n)],
            "pile": [_CARD[s.pile[i]] for i in range(s.npile)],
            "dead": [_CARD[s.dead[i]] for i in range(s.ndead)],
            "finished": [s.finished[i] for i in range(s.nfinished)],
            "waiting": [seat for seat in range(n) if s.waiting[seat]],
            "submissions": [
                None if s.subs[seat] == A_NONE else str(_ACTION[s.subs[seat]]) for seat in range(n)
            ],
            "tick": s.tick,
            "idle": s.idle,
            "open_start": bool(s.open_start),
            "over": bool(s.over),
            "reason": _REASONS[s.reason],
            "ranks": [s.ranks[seat] for seat in range(n)] if s.over else [],
            "idle_ticks": s.idle_ticks,
            "tick_cap": s.tick_cap,
            "mode": "tick",
        }


cdef class RepezitaDealer:
    """Worlds one seat cannot tell from a position, dealt in C: the search's determinizations.

    ``RepezitaState.from_view`` deals the hidden cards (the others' cards nobody saw them pick
    up, and the cards set aside) by :func:`levata.engine.games.repezita.world._deal`: shuffle
    the hidden pool, cut it into the places in order, and deal again while a seat whose play
    bounced holds no card of the ranks that bounce implies; after ``tries`` such shuffles,
    each unmet need first gets one card of its ranks (drawn among the pool's), then the rest
    is shuffled and cut. A search deals thousands of worlds a decision, and in Python that
    cost most of a simulation. This dealer restates that sampler step for step, on splitmix64
    instead of ``random.Random``: fed the same stream, the Python sampler deals the same
    cards to the same places (``tests/engine/test_repezita_kernel.py`` replays it).

    ``base``: one such world (its hidden cards are dealt afresh each time); ``pool``: the
    hidden cards in the sampler's order; ``sizes``: hidden cards per place (each other seat,
    then ``"aside"``), in the sampler's order; ``needs``: per seat, the rank sets its hidden
    cards must each meet, in the sampler's order; ``seed`` starts the dealer's stream.

    >>> from levata.engine.games.repezita import RepezitaState
    >>> state = RepezitaState.from_position(3, ["AC 2D", "KH 3S", "5S 6S"])
    >>> world = state.playout_dealer(0, seed=1).deal(seed=2)
    >>> world.fields()["hands"][0], [len(h) for h in world.fields()["hands"]]
    ([Card('2D'), Card('AC')], [2, 2, 2])
    """

    cdef rp_state base
    cdef int seat
    cdef card_t pool[MAX_CARDS]          # the hidden cards, in the sampler's order
    cdef int npool
    cdef int nplaces
    cdef int place_seat[MAX_PLACES]      # the seat a place is (-1: the cards aside)
    cdef int size[MAX_PLACES]            # its hidden cards
    cdef int need_place[MAX_NEEDS]       # a need: the place (a seat's) it binds ...
    cdef int need_ranks[MAX_NEEDS]       # ... and its ranks, one bit a rank index
    cdef int nneeds
    cdef int tries
    cdef unsigned long long rng

    def __init__(self, RepezitaPlayout base, int seat, pool, sizes, needs, seed=0, int tries=200):
        cdef rp_state* b = &base.s
        cdef int p, c, held, other
        if not 0 <= seat < b.n:
            raise ValueError(f"seat {seat} is not at this table")
        if tries < 1:
            raise ValueError("tries must be 1 or more")
        memcpy(&self.base, b, sizeof(rp_state))
        self.seat, self.tries = seat, tries
        self.rng = <unsigned long long>(int(seed) & 0xFFFFFFFFFFFFFFFF)
        self.npool = _cards_into(pool, self.pool, "the hidden pool")
        self.nplaces = 0
        for key, count in sizes.items():
            if self.nplaces == MAX_PLACES:
                raise ValueError(f"{MAX_PLACES} places at most")
            p = self.nplaces
            self.place_seat[p] = -1 if key == "aside" else int(key)
            self.size[p] = count
            self.nplaces += 1
            if key == "aside":
                continue
            other = key
            if not 0 <= other < b.n or other == seat:
                raise ValueError(f"a place for seat {other}, which hides nothing from seat {seat}")
            held = count
            for c in range(KINDS):
                held += b.known[other][c]
            if held != b.held[other]:
                raise ValueError(f"seat {other} holds {b.held[other]} cards, not {held}")
        if sum(sizes.values()) != self.npool or min(sizes.values(), default=0) < 0:
            raise ValueError(f"{self.npool} hidden cards for {dict(sizes)}")
        self._keep_needs(needs)

    cdef _keep_needs(self, needs):
        """Each seat's distinct rank sets, in order (a repeated set changes no deal: once
        met it stays met, and with no card to meet it none is drawn)."""
        cdef int p, mask, i
        self.nneeds = 0
        for key, rank_sets in needs.items():
            p = self._place_of(key)
            for ranks in rank_sets:
                mask = 0
                for rank in ranks:
                    mask |= 1 << (rank - 2)
                for i in range(self.nneeds):
                    if self.need_place[i] == p and self.need_ranks[i] == mask:
                        break
                else:
                    self._add_need(p, mask)

    cdef int _add_need(self, int p, int mask) except -1:
        if self.nneeds == MAX_NEEDS:
            raise ValueError(f"{MAX_NEEDS} rank sets at most")
        self.need_place[self.nneeds] = p
        self.need_ranks[self.nneeds] = mask
        self.nneeds += 1
        return 0

    cdef int _place_of(self, key) except -1:
        cdef int p
        for p in range(self.nplaces):
            if self.place_seat[p] == key:
                return p
        raise ValueError(f"a need for seat {key}, which has no hidden cards to meet it")

    def deal(self, seed=0):
        """A new world: the hidden cards dealt into the other seats' hands (and aside); the
        copy's own random stream starts from ``seed``."""
        cdef RepezitaPlayout out = RepezitaPlayout.__new__(RepezitaPlayout)
        with nogil:
            self._deal(&out.s)
        out.s.rng = <unsigned long long>(int(seed) & 0xFFFFFFFFFFFFFFFF)
        return out

    cdef void _deal(self, rp_state* w) noexcept nogil:
        cdef card_t cards[MAX_CARDS]
        cdef int dealt[MAX_PLACES]     # hidden cards given to each place so far
        cdef int ranks[MAX_PLACES]     # the ranks among them, one bit a rank index
        cdef int attempt, ncards, i, j, p, at, take
        cdef card_t t
        memcpy(w, &self.base, sizeof(rp_state))
        for attempt in range(self.tries + 1):
            ncards = self.npool  # each shuffle starts from the pool's order, as the sampler's
            memcpy(cards, self.pool, ncards * sizeof(card_t))
            for p in range(self.nplaces):
                dealt[p] = 0
                ranks[p] = 0
                if self.place_seat[p] >= 0:
                    memcpy(w.hand[self.place_seat[p]], self.base.known[self.place_seat[p]], KINDS)
            if attempt == self.tries:
                ncards = self._give_needs(w, cards, ncards, dealt, ranks)
            for i in range(ncards - 1, 0, -1):  # Fisher-Yates from the top, as random.shuffle
                j = below_n(&self.rng, i + 1)
                t = cards[i]
                cards[i] = cards[j]
                cards[j] = t
            at = 0
            for p in range(self.nplaces):  # the shuffled cards cut in the places' order
                take = self.size[p] - dealt[p]
                for i in range(take):
                    self._give(w, p, cards[at + i], dealt, ranks)
                at += take
            if attempt == self.tries or self._needs_met(ranks):
                return

    cdef int _give_needs(
        self, rp_state* w, card_t* cards, int ncards, int* dealt, int* ranks
    ) noexcept nogil:
        """The fallback: for each need not met yet, one card of its ranks, drawn among the
        pool's (while the seat has room); the cards left."""
        cdef int k, p, i, nfit, pick
        for k in range(self.nneeds):
            p = self.need_place[k]
            if dealt[p] >= self.size[p] or ranks[p] & self.need_ranks[k]:
                continue
            nfit = 0
            for i in range(ncards):
                if (1 << rank_index(cards[i])) & self.need_ranks[k]:
                    nfit += 1
            if not nfit:
                continue
            pick = below_n(&self.rng, nfit)
            for i in range(ncards):
                if (1 << rank_index(cards[i])) & self.need_ranks[k]:
                    if pick == 0:
                        break
                    pick -= 1
            self._give(w, p, cards[i], dealt, ranks)
            ncards -= 1
            memmove(&cards[i], &cards[i + 1], (ncards - i) * sizeof(card_t))
        return ncards

    cdef inline void _give(self, rp_state* w, int p, int code, int* dealt, int* ranks) noexcept nogil:
        cdef int seat = self.place_seat[p]
        dealt[p] += 1
        ranks[p] |= 1 << rank_index(code)
        if seat >= 0:
            w.hand[seat][code] += 1

    cdef bint _needs_met(self, const int* ranks) noexcept nogil:
        cdef int k
        for k in range(self.nneeds):
            if not ranks[self.need_place[k]] & self.need_ranks[k]:
                return False
        return True
