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
    TK_SURE_POT = 16      # make the pot sure, then play the strongest card (Bestia; tk_pot)

ctypedef struct tk_rules:
    int seats
    int trump                   # effective suit 0..4, or TK_NO_TRUMP
    int duties                  # TK_FOLLOW | TK_MUST_TRUMP | TK_HEAD | TK_OVERTRUMP
    int last_bonus              # card points for taking the last trick (66: 10)
    int pot                     # TK_SURE_POT: the tricks that win the pot (Bestia: 3)
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


ctypedef struct tk_pot:
    # What the sure-pot duty reads beyond the hands and the trick, per seat: the tricks it
    # won this deal (a search moves them) and the cards out of play it has NOT seen (others'
    # discards, a stock...; fixed for a search). Unseen to a seat = the other seats' hands
    # (the cards still to play it does not hold) and its `hidden`.
    int won[TK_MAX_SEATS]
    mask_t hidden[TK_MAX_SEATS]  # internal bits


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


cdef inline mask_t tk_masters(const tk_rules* r, mask_t hand, mask_t unseen) noexcept nogil:
    """The cards of `hand` sure to win a trick they lead, by what is `unseen`: a trump with
    no higher trump unseen; a plain card with no higher card of its suit unseen while no
    trump at all is unseen."""
    cdef mask_t out = 0, h, u
    cdef int e
    cdef bint trumps_out = r.trump >= 0 and (unseen & r.suit_mask[r.trump]) != 0
    for e in range(TK_SUITS):
        h = hand & r.suit_mask[e]
        if h == 0 or (e != r.trump and trumps_out):
            continue
        u = unseen & r.suit_mask[e]
        if u:
            h &= tk_above(highest(u))
        out |= h
    return out


cdef inline mask_t tk_strongest(const tk_rules* r, mask_t legal) noexcept nogil:
    """The secured pot's card: the highest trump; without one, the cards of the highest
    rank (power within its suit), whatever their suit."""
    cdef mask_t x, out = 0
    cdef int b, k, top = -1
    if r.trump >= 0:
        x = legal & r.suit_mask[r.trump]
        if x:
            return (<mask_t>1) << highest(x)
    x = legal
    while x:
        b = lowest(x)
        x &= x - 1
        k = b - lowest(r.suit_mask[r.suit_of[b]])
        if k > top:
            top = k
            out = 0
        if k == top:
            out |= (<mask_t>1) << b
    return out


cdef inline mask_t tk_sure_pot(
    const tk_rules* r, const mask_t* hands, const tk_trick* t, int seat, const tk_pot* p,
    mask_t legal
) noexcept nogil:
    """The sure-pot and secured-pot duties on the cards `legal` (what the trick's duties
    allow `seat`): with `r.pot` tricks won, the strongest; on lead with at least
    `pot - won` masters, a master; following, a card certain to take the trick when it and
    the masters left after it reach the pot. Else `legal`."""
    cdef int won = p.won[seat], s, b
    cdef mask_t unseen, hand = hands[seat], sure = 0, x, beaters
    if legal == 0:
        return legal
    if won >= r.pot:
        return tk_strongest(r, legal)
    unseen = p.hidden[seat]
    for s in range(r.seats):
        if s != seat:
            unseen |= hands[s]
    if t.count == 0:
        x = tk_masters(r, hand, unseen)
        if (x & legal) and popcount(x) >= r.pot - won:
            return x & legal
        return legal
    x = legal
    while x:
        b = lowest(x)
        x &= x - 1
        if not tk_beats(r, b, t.win_card):
            continue
        if t.count < r.seats - 1:
            # an unseen card that would beat it: higher of its suit, or a trump over a plain
            beaters = unseen & r.suit_mask[r.suit_of[b]] & tk_above(b)
            if r.trump >= 0 and r.suit_of[b] != r.trump:
                beaters |= unseen & r.suit_mask[r.trump]
            if beaters:
                continue
        if won + 1 + popcount(tk_masters(r, hand & ~((<mask_t>1) << b), unseen)) >= r.pot:
            sure |= (<mask_t>1) << b
    return sure if sure else legal


cdef inline mask_t tk_legal_at(
    const tk_rules* r, const mask_t* hands, const tk_trick* t, const tk_pot* p
) noexcept nogil:
    """The cards the seat to play may put on trick `t`, every duty of `r` included (the
    sure pot's read `p`, which may be NULL when `r` has no such duty)."""
    cdef int seat = t.leader + t.count
    cdef mask_t legal
    if seat >= r.seats:
        seat -= r.seats
    legal = tk_legal(r, hands[seat], t)
    if r.duties & TK_SURE_POT:
        return tk_sure_pot(r, hands, t, seat, p, legal)
    return legal


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
    cdef readonly bint sure_pot
    cdef readonly int pot_tricks
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
cdef int load_pot(TrickRules rules, object won, object hidden, tk_pot* p) except -1
# tk_sure_pot out of line: a search calls it through the module, so that the rare duty does
# not grow its hot loop (where the inline copy cost other games' solves a few per cent)
cdef mask_t sure_pot_cards(
    const tk_rules* r, const mask_t* hands, const tk_trick* t, int seat, const tk_pot* p,
    mask_t legal
) noexcept nogil
