# The rules of card play: plain C structs and inline nogil rules that other kernels cimport
# (the solver and the playouts do, and so can any later search kernel).
#
#   from levata.engine.rules cimport tk_rules, tk_trick, tk_legal, tk_play, TrickRules
#
# Cards inside the kernel live in an *internal* 64-bit space built from the deal's layout:
# the cards of one effective suit occupy consecutive bits, ordered by power (a higher bit is
# a stronger card of the same effective suit). So "beats within a suit" is an integer
# comparison and "the cards of a suit" is one AND. With the default layout (suit = slot,
# power = rank) the internal space is the physical one (`identity` is set) and nothing is
# translated. `TrickRules.c` holds the struct; `to_int`/`to_phys` translate single cards.

from levata.engine.cardmask cimport mask_t, popcount, lowest, highest

cdef extern from *:
    """
    /* Searches count cards constantly: with GCC on x86-64, compile every module that
       cimports the rules for the POPCNT instruction (every x86-64 CPU since 2008 has it;
       importing levata.engine.rules checks) instead of libgcc's table-driven
       __popcountdi2. Declared here, not in each .pyx, so the inline rules below and the
       card-mask helpers get it wherever they are compiled. */
    #if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
    #pragma GCC target("popcnt")
    #define TK_NEEDS_POPCNT 1
    #else
    #define TK_NEEDS_POPCNT 0
    #endif
    #if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    static inline int tk_cpu_ok(void) {
        __builtin_cpu_init();
        return !TK_NEEDS_POPCNT || __builtin_cpu_supports("popcnt");
    }
    #else
    static inline int tk_cpu_ok(void) { return 1; }
    #endif
    """
    int tk_cpu_ok()

cdef enum:
    TK_MAX_SEATS = 8
    TK_SUITS = 5          # four printed suits plus the special trump suit of a layout
    TK_TRUMP_SUIT = 4     # the effective suit of e.g. Filcau's filcai (always trumps)
    TK_NO_TRUMP = -1
    # Card-play duties (bit flags of tk_rules.duties)
    TK_FOLLOW = 1         # follow the led effective suit when able
    TK_MUST_TRUMP = 2     # void in the led suit: play a trump when holding one
    TK_HEAD = 4           # following: beat the winning card when able (Bestia, 66 strict)
    TK_OVERTRUMP = 8      # trumping: beat a winning trump when able (Bestia)

ctypedef struct tk_rules:
    int seats
    int trump                   # effective suit 0..4, or TK_NO_TRUMP
    int duties                  # TK_FOLLOW | TK_MUST_TRUMP | TK_HEAD | TK_OVERTRUMP
    int last_bonus              # card points for taking the last trick (66: 10)
    int identity                # 1 when internal index == physical index
    int team[TK_MAX_SEATS]      # team id per seat
    mask_t suit_mask[TK_SUITS]  # internal bits of each effective suit
    mask_t deck                 # internal bits of every card in the layout
    signed char suit_of[64]     # internal bit -> effective suit (-1: no card)
    signed char to_phys[64]     # internal bit -> physical card index (-1: no card)
    signed char to_int[64]      # physical card index -> internal bit (-1: not in the deck)
    int points[64]              # internal bit -> card points

ctypedef struct tk_trick:
    int leader
    int count                   # cards played to the trick so far
    int led                     # effective suit of the first card
    int win_card                # internal bit of the card winning so far
    int win_seat
    mask_t cards                # internal bits of the cards on the trick


cdef inline bint tk_beats(const tk_rules* r, int card, int best) noexcept nogil:
    """Does `card` beat the trick's winning card `best`? Higher of the same effective suit, or
    any trump over a non-trump; anything else (a discard) loses."""
    cdef int sc = r.suit_of[card]
    cdef int sb = r.suit_of[best]
    if sc == sb:
        return card > best
    return sc == r.trump


cdef inline mask_t tk_above(int card) noexcept nogil:
    # Every internal bit above `card`; `2 << 63` wraps to 0 and the mask to 0, as it should.
    return ~(((<mask_t>2) << card) - 1)


cdef inline mask_t tk_legal(const tk_rules* r, mask_t hand, const tk_trick* t) noexcept nogil:
    """The cards of `hand` that may go on trick `t` (internal bits)."""
    cdef mask_t f, b
    cdef int w
    if t.count == 0 or hand == 0:
        return hand
    w = t.win_card
    if r.duties & TK_FOLLOW:
        f = hand & r.suit_mask[t.led]
        if f:
            if (r.duties & TK_HEAD) and r.suit_of[w] == t.led:
                b = f & tk_above(w)
                if b:
                    return b
            return f
        if (r.duties & TK_MUST_TRUMP) and r.trump >= 0:
            f = hand & r.suit_mask[r.trump]
            if f:
                if (r.duties & TK_OVERTRUMP) and r.suit_of[w] == r.trump:
                    b = f & tk_above(w)
                    if b:
                        return b
                return f
    return hand


cdef inline void tk_start(tk_trick* t, int leader) noexcept nogil:
    t.leader = leader
    t.count = 0
    t.led = -1
    t.win_card = -1
    t.win_seat = leader
    t.cards = 0


cdef inline void tk_play(const tk_rules* r, tk_trick* t, int card) noexcept nogil:
    """Put `card` (internal bit) on the trick for the seat whose turn it is."""
    cdef int seat = t.leader + t.count
    if seat >= r.seats:
        seat -= r.seats
    if t.count == 0:
        t.led = r.suit_of[card]
        t.win_card = card
        t.win_seat = seat
    elif tk_beats(r, card, t.win_card):
        t.win_card = card
        t.win_seat = seat
    t.cards |= (<mask_t>1) << card
    t.count += 1


cdef class TrickRules:
    cdef tk_rules c
    cdef readonly int seats
    cdef readonly object trump
    cdef readonly tuple teams
    cdef readonly bint follow
    cdef readonly bint must_trump
    cdef readonly bint head
    cdef readonly bint overtrump
    cdef readonly object layout
    cdef readonly object points
    cdef readonly int last_trick_bonus
    cdef mask_t to_internal(self, mask_t physical) except? 0
    cdef mask_t to_physical(self, mask_t internal) noexcept
    cdef int _card(self, object card) except -1


# Python values in, internal masks out: the checks every entry point (solver, playouts) runs.
cdef mask_t as_mask(object hand) except? 0
cdef int load_position(
    TrickRules rules, object hands, int leader, object trick, mask_t* out, tk_trick* t
) except -1
