# The double-dummy solver's search state, shared by its modules: what a node of the search
# sees (the hands, the side, the objective, the tables) and the few facts every part reads.
# A declaration file only: no module stands behind it, everything here is a struct, a
# constant or an inline function compiled into each kernel that cimports it.
#
# The solver is five files, one concern each (a change to the search usually lands in one):
#
#   solver_state.pxd  this file: the context (Ctx), the table entries' layout, the flags
#   solver_bounds     bounds at trick starts (quick tricks, top trumps, lost lead, later
#                     tricks) and inside a trick (sure tricks): they cut without searching
#   solver_order      which moves a node searches (one card per run of equivalent cards)
#                     and in what order (static card-play rules, the table's hint, killers)
#   solver_table      the transposition table and the winning-ranks table (DDS's idea):
#                     keys, look-ups, stores, the suit-set records, the memory layout
#   solver            the search itself (alpha-beta, exact targets, null windows from a
#                     playout guess) and the public API: Objective, Solver, solve()
#
# Calls between them are C calls (cdef functions declared in each module's .pxd); what a
# hot loop calls in another module is a `cdef inline` here or in that module's .pxd.
#
#   from levata.engine.solver_state cimport Ctx, owner, K_TRICKS, F_WR

from levata.engine.cardmask cimport mask_t
from levata.engine.rules cimport TK_MAX_SEATS, tk_pot, tk_rules

cdef enum:
    KILLER_BITS = 16  # killer leads: at most 2 x 64 KiB of slots (15: trick starts +0.5% / +0.1%)


ctypedef struct tt_entry:
    unsigned long long key      # 64-bit position hash; 0 marks an empty slot
    unsigned long long a        # tricks/points: lower bound; exact: targets known reachable
    unsigned long long b        # tricks/points: upper bound; exact: targets known missed
    int depth                   # tricks left: the replacement policy keeps the deeper entry
    int hint                    # best card found, as (suit << 8) | rank among live cards

ctypedef struct wr_entry:
    # A bound that holds for every position with this leader and these suit lengths per hand
    # in which the `relmask` cards (relative ranks: the top cards of each suit down to the
    # lowest rank that decided a trick in the proof) sit in the same hands as here.
    unsigned long long shape    # hash of leader + suit lengths per hand
    unsigned long long relmask  # significant positions among the live cards (pext space)
    unsigned long long comp[4]  # each hand's significant cards, in pext space
    short lo
    short hi
    int depth                   # tricks left
    int hint
    int next                    # 1 + index of the next entry of the bucket's chain; 0 ends it

ctypedef struct wr_sets:
    # Per shape (hash slot): the suit sets its winning-ranks entries were stored under.
    unsigned long long shape
    unsigned int used           # bit S: some entry reads exactly the suits of mask S
    unsigned int epoch          # the search that wrote it: another search's record is empty

ctypedef struct Ctx:
    const tk_rules* r
    mask_t hand[TK_MAX_SEATS]
    int n
    int side                    # seats of the maximising side, as a bit mask
    int kind
    int flags
    tt_entry* tt
    unsigned long long tt_mask
    wr_entry* wt                # entries, used as a ring: the oldest is overwritten first
    int* heads                  # per bucket: 1 + index of its newest entry (0: empty)
    unsigned long long wt_mask  # buckets - 1
    int wt_size
    wr_sets* sets               # the suit sets in use per shape (F_SETS)
    unsigned long long sets_mask
    int wt_cursor
    unsigned int epoch          # this search's mark on its suit-set records (>= 1)
    long long nodes
    long long probes            # table look-ups at trick starts
    long long hits              # look-ups that found a usable entry
    long long sig               # significant cards summed over abstract stores
    long long stores
    long long windows           # null-window searches from the root
    long long walked            # winning-ranks entries read by look-ups
    long long starts            # nodes at trick starts
    long long limit             # the most nodes a search may visit
    int stopped                 # 1 once the search ran out of nodes: nothing it returns counts
    int guess                   # the first null window's value at the root (-1: the middle)
    unsigned int path           # a hash of the tricks played since the root (see killer_slot)
    signed char* killer         # per killer_slot: the last lead that cut off (the Solver's)
    signed char* killer2        # ... and the one before it
    int killer_bits             # slots in use: 1 << killer_bits (at most 1 << KILLER_BITS)
    short tt_hint[33][TK_MAX_SEATS]  # per tricks left and leader: the hint of the last table
                                     # entry that cut off a look-up
    int at_root                 # 1 until the root node of a null window starts
    int root_lo[64]             # per card the root can play: its value's bounds from the
    int root_hi[64]             # root's earlier null windows (solve_value resets them)
    mask_t root_wlo[64]         # ... and the cards each bound rests on (kept apart: a card
    mask_t root_whi[64]         # skipped by one bound must bring that bound's proof along)
    # The sure-pot duty (rules with TK_SURE_POT; see tk_pot): the tricks each seat has won
    # (moved by the search), the cards out of play each has not seen, their union (cards
    # that part runs of equivalent cards, like live ones) and a hash of them for the keys.
    tk_pot pot
    mask_t sep
    unsigned long long pot_key


cdef enum:
    # Ctx.kind: the objective (see solver.Objective)
    K_TRICKS = 0
    K_POINTS = 1
    K_EXACT = 2


cdef enum:
    # Ctx.flags: the search features on (Solver's switches)
    F_MERGE = 1       # search one card of each run of equivalent cards
    F_QUICK = 2       # bounds: quick tricks, top trumps, lost lead, later tricks; sure tricks
    F_TT = 4          # transposition table
    F_REL = 8         # key the table by relative ranks (tricks and exact objectives only)
    F_WR = 16         # winning-ranks table (tricks objective, follow/trump duties, <= 4 seats)
    F_PROBE = 32      # winning-ranks look-ups stop at a cut-off and move hits to the front
    F_SETS = 64       # winning-ranks buckets by the suits an entry reads (see wr_sets)
    BIG = 1 << 28     # above any value: an upper bound not known yet



cdef inline unsigned int path_step(
    unsigned int path, int win_suit, bint lead_changed_sides
) noexcept nogil:
    """The path after one more trick: what it records of a trick is the suit of the card that
    won it and whether the lead went to the other side."""
    return path * 0x01000193u + <unsigned int>(win_suit * 2 + lead_changed_sides + 1)


cdef inline unsigned int killer_slot(const Ctx* c, int R, int seat) noexcept nogil:
    """The killer leads' slot of a trick start: its path, tricks left and leader, hashed.
    Positions that share all three were reached by tricks won in the same suits by the same
    sides, differing in the cards that followed: their best lead is most often the same."""
    return ((c.path ^ <unsigned int>(R * 8 + seat)) * 0x9E3779B1u) >> (32 - c.killer_bits)


cdef inline int owner(const Ctx* c, int card) noexcept nogil:
    cdef int s
    for s in range(c.n):
        if (c.hand[s] >> card) & 1:
            return s
    return -1
