# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Trombon playouts in C: the search bot's rollouts, a whole play at a time, by counts of ranks.

Trombon's search (:class:`levata.bots.strategy.trombon.SearchBot`) plays out every candidate
on every world it draws, every seat by the heuristic's rules of thumb: the truth when it can
(every card of the rank), a lie of its rarest card when it must, and a call when the claim is
unlikely by Bayes (:func:`~levata.engine.games.trombon.playout.lie_odds`). The Python copy
(:class:`levata.engine.games.trombon.playout.RankSim`) already drops events, views and suits;
:class:`TrombonPlayout` here holds the same counts in one C struct, copies with one
``memcpy`` and plays out without the GIL.

The rules and choices here are the Python copy's, written again in C for speed;
``tests/engine/test_trombon_kernel.py`` proves they agree (plays, calls, the world after every
play and window, whole rollouts on the same random stream, scores). The call's odds are
floats: the hypergeometric chances are exact binomials (128-bit) divided with correct
rounding, as Python divides two ints, and the rest is the same float arithmetic in the same
order, so a call compares with its threshold exactly as the Python copy's does. A modelled
seat's wild calls draw from the state's splitmix64 stream (``random()``: 53 bits of a draw).

>>> fast = TrombonPlayout({"players": 3, "decks": 1,
...     "hands": [[2, 1] + [0] * 11, [0, 0, 3] + [0] * 10, [1, 1, 1] + [0] * 10]})
>>> fast.usual_play(0)
([2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], 2, 0)
>>> trial = fast.clone()
>>> trial.rollout(1, 60)
>>> trial.over(), trial.scores(), fast.over()
(True, [0.0, 2.0, 1.0], False)
"""

from libc.math cimport nearbyint
from libc.string cimport memcpy, memset

from levata.engine.splitmix cimport next_random

__all__ = ["CALLS", "TrombonPlayout", "lie_odds"]

#: The calls, by their code in the kernel.
CALLS = ("pass", "trombon", "trombon_de_carti")

cdef enum:
    RANKS = 13
    MAX_SEATS = 12
    MAX_ROUND = 256     # plays in one round (each puts a card down: 104 at most in a game)
    MAX_COPIES = 8      # copies of a rank: 4 a deck, two decks at most
    MAX_CARDS = 104

cdef enum:
    CALL_UNSET = -1
    CALL_PASS = 0
    CALL_RANK = 1       # trombon: the claim's rank is false
    CALL_COUNT = 2      # trombon_de_carti: its count is false

cdef enum:
    ERR_EMPTY_HAND = -1  # usual_play of an empty hand (the Python copy's StopIteration)
    ERR_ROUND_FULL = -2
    ERR_NO_RANK = -3     # a rank call with no rank named

cdef struct tb_caller:
    double wild
    double carti
    int silent

cdef struct tb_state:
    int n, decks
    int hands[MAX_SEATS][RANKS]
    int pile[RANKS]
    int last[RANKS]
    int last_d
    int rank            # -1: none named yet
    int actor
    int finished[MAX_SEATS]
    int nfinished
    int out             # the finished seats as a mask
    int pending         # -1: none
    int plays
    int rp_seat[MAX_ROUND]
    int rp_d[MAX_ROUND]
    int nrp
    int window
    int count_lies
    int mine_laid[MAX_SEATS][RANKS]
    int has_callers
    tb_caller callers[MAX_SEATS]
    unsigned long long rng
    int taker           # who took the pile at the last window's close (-1: nobody called)


# -- the call's odds (lie_odds) ------------------------------------------------------------------

cdef extern from *:
    """
    #include <stdint.h>
    #include <math.h>
    #if !defined(__SIZEOF_INT128__)
    #error "trombon_playouts needs 128-bit integers for exact binomials"
    #endif
    typedef unsigned __int128 tb_u128;
    /* C(n, k) for n <= 104: C(104, 52) < 2^101, a product with C(8, k) < 2^108 */
    static tb_u128 tb_binom[105][105];
    static void tb_init_binom(void) {
        int n, k;
        for (n = 0; n <= 104; n++) {
            tb_binom[n][0] = 1;
            for (k = 1; k <= n; k++)
                tb_binom[n][k] = tb_binom[n - 1][k - 1] + (k < n ? tb_binom[n - 1][k] : 0);
        }
    }
    /* a / b rounded to the nearest double (ties to even), as Python divides two ints: 64
       quotient bits by long division, the remainder kept as a sticky bit below them, then
       the hardware's own rounding of a 64-bit integer. */
    static double tb_ratio(tb_u128 a, tb_u128 b) {
        tb_u128 q, r;
        int shift = 0, sticky = 0;
        if (a == 0) return 0.0;
        q = a / b;
        r = a % b;
        while (q < ((tb_u128)1 << 63)) {
            r <<= 1;
            q <<= 1;
            if (r >= b) { r -= b; q |= 1; }
            shift++;
        }
        while (q >> 64) { sticky |= (int)(q & 1); q >>= 1; shift--; }
        return ldexp((double)((uint64_t)q | (uint64_t)(r != 0 || sticky)), -shift);
    }
    /* _holds: a hand of `held` of the `unknown` cards holds exactly j of the `left` copies */
    static double tb_holds(int j, int left, int unknown, int held) {
        if (j > left || j > held || held - j > unknown - left) return 0.0;
        return tb_ratio(tb_binom[left][j] * tb_binom[unknown - left][held - j],
                        tb_binom[unknown][held]);
    }
    /* lie_odds after its clamps, memoised (as the Python copy's lru_cache): the flag is
       published after the value, so a reader in another thread never sees a stale one */
    static double tb_odds_value[9][9][105][105];
    static unsigned char tb_odds_known[9][9][105][105];
    static double tb_lie_pow[9];  /* 0.4 ** (k - 1), from Python's own floats */
    static double tb_lie_odds(int claimed, int left, int unknown, int held) {
        double none, truth, odds;
        if (left > unknown) left = unknown;
        if (held > unknown) held = unknown;
        if (held < 1) held = 1;
        if (claimed > left) return 1.0;
        if (claimed < 0 || unknown > 104 || left > 8) return NAN;
        if (__atomic_load_n(&tb_odds_known[claimed][left][unknown][held], __ATOMIC_ACQUIRE))
            return tb_odds_value[claimed][left][unknown][held];
        none = tb_holds(0, left, unknown, held) * 0.6 * tb_lie_pow[claimed];
        truth = tb_holds(claimed, left, unknown, held);
        odds = (none + truth <= 0) ? 1.0 : none / (none + truth);
        tb_odds_value[claimed][left][unknown][held] = odds;
        __atomic_store_n(&tb_odds_known[claimed][left][unknown][held], 1, __ATOMIC_RELEASE);
        return odds;
    }
    """
    void tb_init_binom() noexcept nogil
    double tb_holds(int j, int left, int unknown, int held) noexcept nogil
    double tb_lie_odds(int claimed, int left, int unknown, int held) noexcept nogil
    double tb_lie_pow[9]

tb_init_binom()
for _k in range(MAX_COPIES + 1):
    tb_lie_pow[_k] = 0.4 ** (_k - 1)  # the very float the Python copy's ``0.4 ** (k - 1)`` is


def lie_odds(int claimed, int left, int unknown, int held):
    """The C ``lie_odds`` (:func:`levata.engine.games.trombon.playout.lie_odds`), for the
    differential test: the same float for every argument.

    >>> lie_odds(1, 0, 20, 5), round(lie_odds(2, 4, 20, 5), 2)
    (1.0, 0.24)
    """
    cdef double odds = tb_lie_odds(claimed, left, unknown, held)
    if odds != odds:
        raise ValueError("claimed must be 0 or more, with 104 cards and 8 copies at most")
    return odds


# -- the rules and the rules of thumb (RankSim's methods) ------------------------------------

cdef inline double rand01(unsigned long long* rng) noexcept nogil:
    """``random()`` on the splitmix64 stream: the top 53 bits of a draw, in [0, 1)."""
    return <double>(next_random(rng) >> 11) * (1.0 / 9007199254740992.0)

cdef inline bint is_out(const tb_state* s, int seat) noexcept nogil:
    return (s.out >> seat) & 1

cdef inline bint over(const tb_state* s) noexcept nogil:
    return s.n - s.nfinished <= 1

cdef inline int total(const int* counts) noexcept nogil:
    cdef int r, k = 0
    for r in range(RANKS):
        k += counts[r]
    return k

cdef inline void finish(tb_state* s, int seat) noexcept nogil:
    s.finished[s.nfinished] = seat
    s.nfinished += 1
    s.out |= 1 << seat

cdef int next_in(const tb_state* s, int seat) noexcept nogil:
    """The next seat still in after ``seat`` (a pending seat is skipped)."""
    cdef int step, t
    for step in range(1, s.n + 1):
        t = (seat + step) % s.n
        if not is_out(s, t) and t != s.pending:
            return t
    return seat

cdef int opening_rank(const int* hand, int copies) noexcept nogil:
    """The rank held most of (ties: the highest), a full set kept back (opening_rank, no rng)."""
    cdef int r, best = -1, most = -2147483647, rest = 0
    for r in range(RANKS):
        if 0 < hand[r] < copies:
            rest = 1
            if hand[r] >= most:
                best, most = r, hand[r]
    if rest:
        return best
    for r in range(RANKS):  # nothing but full sets (or nothing): every rank
        if hand[r] >= most:
            best, most = r, hand[r]
    return best

cdef int lie_card(const int* hand, int rank) noexcept nogil:
    """The rank to lie with: one held fewest of (ties: the highest); -1 for an empty hand."""
    cdef int r, best = -1, key_count = 99, key_rank = 99
    for r in range(RANKS):
        if hand[r] != 0 and r != rank and (
            hand[r] < key_count or (hand[r] == key_count and -r < key_rank)
        ):
            best, key_count, key_rank = r, hand[r], -r
    if best < 0:
        for r in range(RANKS):
            if hand[r] != 0:
                return r
    return best

cdef int usual_play(const tb_state* s, int seat, int* cards, int* rank) noexcept nogil:
    """The rule-of-thumb play: ``cards`` (counts) and the ``rank`` named; the declared count
    (returned) is their sum, or ERR_EMPTY_HAND."""
    cdef const int* hand = s.hands[seat]
    cdef int r = s.rank if s.rank >= 0 else opening_rank(hand, 4 * s.decks)
    cdef int lie
    memset(cards, 0, RANKS * sizeof(int))
    rank[0] = r
    if hand[r] != 0:
        cards[r] = hand[r]
        return hand[r]
    lie = lie_card(hand, r)
    if lie < 0:
        return ERR_EMPTY_HAND
    cards[lie] = 1
    return 1

cdef int play(tb_state* s, int seat, const int* cards, int declared, int rank) noexcept nogil:
    """``seat`` puts ``cards`` down and declares ``declared`` (an opener names ``rank``, or
    by rule of thumb if -1); 0, or ERR_ROUND_FULL (and no change)."""
    cdef int r
    cdef int* hand = s.hands[seat]
    if s.nrp >= MAX_ROUND:
        return ERR_ROUND_FULL
    if s.rank < 0:
        s.rank = rank if rank >= 0 else opening_rank(hand, 4 * s.decks)
    for r in range(RANKS):
        hand[r] -= cards[r]
        s.mine_laid[seat][r] += cards[r]
        s.pile[r] += cards[r]
        s.last[r] = cards[r]
    s.last_d = declared
    s.rp_seat[s.nrp] = seat
    s.rp_d[s.nrp] = declared
    s.nrp += 1
    s.plays += 1
    s.actor = seat
    for r in range(RANKS):
        if hand[r] != 0:
            break
    else:
        s.pending = seat
    s.window = 1
    return 0

cdef int usual_call(const tb_state* s, int seat) noexcept nogil:
    """The rule-of-thumb call from ``seat``'s hand and its cards in the pile (``rank`` set)."""
    cdef int r = s.rank, claimed = s.last_d, i, before = 0, at_stake = 0, left, unknown, others
    cdef int held, going_out = s.pending >= 0
    cdef const int* hand = s.hands[seat]
    cdef double odds, need, part
    for i in range(s.nrp):
        at_stake += s.rp_d[i]
        if i < s.nrp - 1 and s.rp_seat[i] != seat:
            before += s.rp_d[i]
    left = 4 * s.decks - hand[r] - s.mine_laid[seat][r] - before
    unknown = 52 * s.decks - total(hand) - total(s.mine_laid[seat])
    others = s.n - s.nfinished - 1
    if others < 1:
        others = 1
    if going_out:
        held = claimed
    else:  # Python's round(): the nearest, ties to even, of the same float
        held = <int>nearbyint(<double>unknown / <double>(others + 1)) + claimed
    odds = tb_lie_odds(claimed, left if left > 0 else 0, unknown, held)
    if going_out:
        need = 0.3
    else:
        part = <double>at_stake / 40.0
        need = 0.55 + (part if part < 0.35 else 0.35)
    return CALL_RANK if odds >= need else CALL_PASS

cdef int call_of(tb_state* s, int seat, bint modelled) noexcept nogil:
    """``seat``'s call: by its modelled caller (drawing from the stream), else by rule of
    thumb."""
    cdef const tb_caller* c
    cdef bint carti
    if modelled and s.has_callers:
        c = &s.callers[seat]
        if c.silent:
            return CALL_PASS
        if c.wild != 0 and rand01(&s.rng) < c.wild:
            carti = rand01(&s.rng) < c.carti
            return CALL_COUNT if carti and s.count_lies else CALL_RANK
    return usual_call(s, seat)

cdef int resolve(tb_state* s, const int* calls, bint modelled) noexcept nogil:
    """Close the window: ``calls[seat]`` where given (CALL_UNSET: by :func:`call_of`), the
    nearest caller after the player wins; 0, or ERR_NO_RANK."""
    cdef int x = s.actor, caller = -1, kind = CALL_PASS, i, seat, choice, k, taker, r
    cdef bint honest
    for i in range(1, s.n):
        seat = (x + i) % s.n
        if is_out(s, seat):
            continue
        choice = calls[seat] if calls != NULL and calls[seat] != CALL_UNSET else call_of(
            s, seat, modelled
        )
        if choice != CALL_PASS:
            caller, kind = seat, choice
            break
    if caller >= 0 and kind == CALL_RANK and s.rank < 0:
        return ERR_NO_RANK
    s.window = 0
    s.taker = -1
    if caller < 0:
        if s.pending == x:
            finish(s, x)
            s.pending = -1
        s.actor = next_in(s, x)
        return 0
    k = total(s.last)
    honest = s.last[s.rank] == k if kind == CALL_RANK else k == s.last_d
    taker = caller if honest else x
    s.taker = taker
    for r in range(RANKS):
        s.hands[taker][r] += s.pile[r]
    memset(s.pile, 0, sizeof(s.pile))
    memset(s.mine_laid, 0, sizeof(s.mine_laid))
    memset(s.last, 0, sizeof(s.last))
    s.last_d = 0  # as RankSim.resolve: no play in the round
    s.nrp = 0
    s.rank = -1
    if s.pending == x and taker != x:
        finish(s, x)
    s.pending = -1
    s.actor = next_in(s, x)
    return 0

cdef inline int window_size(const tb_state* s) noexcept nogil:
    """The seats that submit in the open window: every seat still in but the player."""
    return s.n - s.nfinished - 1

cdef int run(tb_state* s, int max_plays, int max_actions, int* actions) noexcept nogil:
    """Play on by the rules of thumb for at most ``max_plays`` plays (RankSim.rollout), and
    with ``max_actions`` (0: no limit) until ``actions`` counts that many of the game's
    atomic actions (a claim, a put a card, a declare; a submission a seat in the window)."""
    cdef int start = s.plays, seat, declared, rank, err
    cdef int cards[RANKS]
    while not over(s) and s.plays - start < max_plays:
        if max_actions and actions[0] >= max_actions:
            break
        if s.window:
            actions[0] += window_size(s)
            err = resolve(s, NULL, True)
            if err:
                return err
            if over(s) or (max_actions and actions[0] >= max_actions):
                break
        seat = s.actor
        declared = usual_play(s, seat, cards, &rank)
        if declared < 0:
            return declared
        actions[0] += (s.rank < 0) + total(cards) + 1
        err = play(s, seat, cards, declared, rank)
        if err:
            return err
    return 0

cdef void scores(const tb_state* s, double* out) noexcept nogil:
    """Places as scores (``players - place``): finishers in order, then fewest cards."""
    cdef int i, o, seat, base = s.nfinished + 1, fewer
    cdef int sizes[MAX_SEATS]
    for i in range(s.n):
        out[i] = 0.0
        sizes[i] = total(s.hands[i])
    for i in range(s.nfinished):
        out[s.finished[i]] = <double>(s.n - (i + 1))
    for seat in range(s.n):
        if is_out(s, seat):
            continue
        fewer = 0
        for o in range(s.n):
            if not is_out(s, o) and sizes[o] < sizes[seat]:
                fewer += 1
        out[seat] = <double>(s.n - (base + fewer))


# -- the Python face ----------------------------------------------------------------------------

_CALL_CODE = {name: i for i, name in enumerate(CALLS)}

_ERRORS = {
    ERR_EMPTY_HAND: "the seat to play holds no card",
    ERR_ROUND_FULL: "a round of more than 256 plays",
    ERR_NO_RANK: "a call of the rank before any rank is named",
}


cdef int _check(int err) except -1:
    if err:
        raise ValueError(_ERRORS[err])
    return 0


cdef void _counts_in(int* out, values, str what) except *:
    cdef int r
    values = list(values)
    if len(values) != RANKS:
        raise ValueError(f"{what}: 13 counts (one a rank), not {len(values)}")
    for r in range(RANKS):
        out[r] = int(values[r])


cdef class TrombonPlayout:
    """A Trombon world for rollouts, by counts of ranks: the C twin of the Python copy
    (:class:`~levata.engine.games.trombon.playout.RankSim`); see the module.

    ``fields``: the world as ``RankSim.fields()`` says it (``players`` and ``decks`` are
    required, the rest default to a new round: empty hands, no rank); ``seed`` starts the
    state's random stream (a modelled seat's wild calls).

    >>> fast = TrombonPlayout({"players": 2, "decks": 1, "hands": [[1] + [0] * 12, [0, 2] + [0] * 11]})
    >>> fast.play(0, [1] + [0] * 12, 1)
    >>> fast.usual_call(1), fast.fields()["pending"], fast.fields()["window"]
    ('trombon', 0, True)
    """

    cdef tb_state s

    def __init__(self, fields, seed=0):
        cdef tb_state* s = &self.s
        cdef int n = int(fields["players"]), decks = int(fields.get("decks", 1)), seat, i
        memset(s, 0, sizeof(tb_state))
        if not 2 <= n <= MAX_SEATS:
            raise ValueError(f"Trombon seats 2 to 12, not {n}")
        if decks not in (1, 2):
            raise ValueError(f"one or two decks, not {decks}")
        s.n, s.decks = n, decks
        s.taker = -1
        s.rng = <unsigned long long>(int(seed) & 0xFFFFFFFFFFFFFFFF)
        for key in ("hands", "mine_laid"):
            if len(fields.get(key, ())) > n:
                raise ValueError(f"{key}: more entries than the {n} seats")
        for seat, hand in enumerate(fields.get("hands", ())):
            _counts_in(s.hands[seat], hand, "hands")
        for seat, laid in enumerate(fields.get("mine_laid", ())):
            _counts_in(s.mine_laid[seat], laid, "mine_laid")
        _counts_in(s.pile, fields.get("pile", [0] * RANKS), "pile")
        _counts_in(s.last, fields.get("last", [0] * RANKS), "last")
        s.last_d = int(fields.get("last_d", 0))
        rank = fields.get("rank")
        s.rank = -1 if rank is None else self._rank(rank)
        s.actor = self._seat(fields.get("actor", 0))
        for seat in fields.get("finished", ()):
            seat = self._seat(seat)
            if is_out(s, seat):
                raise ValueError(f"seat {seat} finished twice")
            finish(s, seat)
        pending = fields.get("pending")
        s.pending = -1 if pending is None else self._seat(pending)
        s.plays = int(fields.get("plays", 0))
        round_plays = list(fields.get("round_plays", ()))
        if len(round_plays) > MAX_ROUND:
            raise ValueError("a round of more than 256 plays")
        for i, (seat, declared) in enumerate(round_plays):
            s.rp_seat[i], s.rp_d[i] = self._seat(seat), int(declared)
        s.nrp = len(round_plays)
        s.window = bool(fields.get("window", False))
        if s.window and s.rank < 0:
            raise ValueError("a window needs the round's rank")
        s.count_lies = bool(fields.get("count_lies", True))
        self._set_callers(fields.get("callers"))

    def _seat(self, seat):
        if not 0 <= seat < self.s.n:
            raise ValueError(f"no seat {seat} at a table of {self.s.n}")
        return int(seat)

    def _rank(self, rank):
        if not 0 <= rank < RANKS:
            raise ValueError(f"a rank is 0 to 12 (2 to the Ace), not {rank}")
        return int(rank)

    def _set_callers(self, callers):
        cdef int seat
        self.s.has_callers = callers is not None
        if callers is None:
            return
        if len(callers) != self.s.n:
            raise ValueError(f"callers: one a seat ({self.s.n}), not {len(callers)}")
        for seat, caller in enumerate(callers):
            wild, silent, carti = caller
            self.s.callers[seat].wild = float(wild)
            self.s.callers[seat].silent = bool(silent)
            self.s.callers[seat].carti = float(carti)

    def clone(self):
        """An independent copy (its random stream included)."""
        cdef TrombonPlayout other = TrombonPlayout.__new__(TrombonPlayout)
        memcpy(&other.s, &self.s, sizeof(tb_state))
        return other

    def reseed(self, seed):
        """Restart the state's random stream from ``seed``."""
        self.s.rng = <unsigned long long>(int(seed) & 0xFFFFFFFFFFFFFFFF)

    def random(self):
        """The next ``random()`` of the state's stream (what a wild call draws)."""
        return rand01(&self.s.rng)

    @property
    def players(self):
        return self.s.n

    def over(self):
        return over(&self.s)

    def next_in(self, int seat):
        return next_in(&self.s, self._seat(seat))

    def in_window(self):
        """The seats that may call, nearest the player first."""
        cdef int i, x = self.s.actor
        return [
            (x + i) % self.s.n for i in range(1, self.s.n) if not is_out(&self.s, (x + i) % self.s.n)
        ]

    def play(self, int seat, cards, int declared, rank=None):
        """``seat`` puts ``cards`` (counts) down and declares ``declared`` (an opener names
        ``rank``, else the rule of thumb's)."""
        cdef int counts[RANKS]
        _counts_in(counts, cards, "cards")
        _check(play(&self.s, self._seat(seat), counts, declared, -1 if rank is None else self._rank(rank)))

    def usual_play(self, int seat):
        """The rule-of-thumb play: (cards, declared, rank named)."""
        cdef int cards[RANKS]
        cdef int rank, r, declared = usual_play(&self.s, self._seat(seat), cards, &rank)
        _check(min(declared, 0))
        return [cards[r] for r in range(RANKS)], declared, rank

    def usual_call(self, int seat):
        """The rule-of-thumb call of ``seat`` (a rank must be named)."""
        if self.s.rank < 0:
            raise ValueError("no rank named: nothing to call")
        return CALLS[usual_call(&self.s, self._seat(seat))]

    def call_of(self, int seat, bint modelled=True):
        """``seat``'s call: by its modelled caller when ``modelled`` (drawing from the
        stream; the Python copy's ``call_of(seat, rng)``), else by rule of thumb (its
        ``call_of(seat, None)``)."""
        seat = self._seat(seat)
        if self.s.rank < 0:
            raise ValueError("no rank named: nothing to call")
        return CALLS[call_of(&self.s, seat, modelled)]

    def resolve(self, calls=None, bint modelled=True):
        """Close the window: ``calls`` (seat: call) holds the seats' choices, the others call
        by :meth:`call_of`."""
        cdef int given[MAX_SEATS]
        cdef int seat
        if self.s.rank < 0:
            raise ValueError("no play to call: no rank named")
        for seat in range(MAX_SEATS):
            given[seat] = CALL_UNSET
        for seat, call in (calls or {}).items():
            given[self._seat(seat)] = _CALL_CODE[call]
        _check(resolve(&self.s, given, modelled))

    def rollout(self, seed, int max_plays):
        """Play on by the rules of thumb for at most ``max_plays`` plays; ``seed``: restart
        the stream from it first (``None``: go on with the state's stream)."""
        cdef int err, actions = 0
        if seed is not None:
            self.reseed(seed)
        with nogil:
            err = run(&self.s, max_plays, 0, &actions)
        _check(err)

    def rollout_actions(self, seed, int max_plays, int max_actions):
        """:meth:`rollout` counted in the game's atomic actions (what a search's horizon
        counts): on for at most ``max_plays`` plays and, with ``max_actions`` (0: no limit),
        until that many actions are taken (a play is its claim, its cards put one by one and
        its declare; a window one submission a seat in it, the window resolved whole).
        Returns the actions taken."""
        cdef int err, actions = 0
        if seed is not None:
            self.reseed(seed)
        with nogil:
            err = run(&self.s, max_plays, max_actions, &actions)
        _check(err)
        return actions

    def claim(self, int rank):
        """The opener names the round's ``rank`` before its cards go down (the card-by-card
        copy's ``claim``; :meth:`play` then keeps it)."""
        if self.s.rank >= 0:
            raise ValueError("the round's rank is already named")
        self.s.rank = self._rank(rank)

    @property
    def actor(self):
        """The seat to play, or whose play is open to calls."""
        return self.s.actor

    @property
    def rank(self):
        """The round's rank (0 to 12), ``None`` before it is named."""
        return None if self.s.rank < 0 else self.s.rank

    @property
    def window(self):
        return bool(self.s.window)

    @property
    def plays(self):
        return self.s.plays

    @property
    def taker(self):
        """Who took the pile at the last window's close (``None``: nobody called)."""
        return None if self.s.taker < 0 else self.s.taker

    def held(self, int seat):
        """How many cards ``seat`` holds (a play's cards count until it is declared)."""
        return total(self.s.hands[self._seat(seat)])

    def scores(self):
        """Places as scores (``players - place``): finishers in order, then fewest cards."""
        cdef double out[MAX_SEATS]
        cdef int i
        scores(&self.s, out)
        return [out[i] for i in range(self.s.n)]

    def fields(self):
        """The world as the Python copy's ``fields()`` says it (the differential test)."""
        cdef tb_state* s = &self.s
        cdef int i, r, seat
        callers = None
        if s.has_callers:
            callers = [
                (s.callers[i].wild, bool(s.callers[i].silent), s.callers[i].carti)
                for i in range(s.n)
            ]
        return {
            "players": s.n,
            "decks": s.decks,
            "hands": [[s.hands[seat][r] for r in range(RANKS)] for seat in range(s.n)],
            "pile": [s.pile[r] for r in range(RANKS)],
            "last": [s.last[r] for r in range(RANKS)],
            "last_d": s.last_d,
            "rank": None if s.rank < 0 else s.rank,
            "actor": s.actor,
            "finished": [s.finished[i] for i in range(s.nfinished)],
            "pending": None if s.pending < 0 else s.pending,
            "plays": s.plays,
            "round_plays": [(s.rp_seat[i], s.rp_d[i]) for i in range(s.nrp)],
            "window": bool(s.window),
            "count_lies": bool(s.count_lies),
            "mine_laid": [[s.mine_laid[seat][r] for r in range(RANKS)] for seat in range(s.n)],
            "callers": callers,
        }
