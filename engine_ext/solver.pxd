# The double-dummy solver: its search state and the two classes, for kernels that cimport
# them (a later search can drive a Solver's table, or read an Objective, without Python calls).
#
#   from levata.engine.solver cimport Solver, Objective
#
# The structs are the solver's own; they are declared here because Solver's cdef methods
# take them.

from levata.engine.cardmask cimport mask_t
from levata.engine.rules cimport TK_MAX_SEATS, TrickRules, tk_rules, tk_trick

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
    int pad

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
    signed char killer[33][TK_MAX_SEATS]  # per tricks left and leader: the last lead that cut off


cdef class Objective:
    cdef readonly str kind
    cdef readonly object seats
    cdef readonly object team
    cdef readonly int target
    cdef readonly int already
    cpdef int side_mask(self, TrickRules rules) except -1


cdef class Solver:
    cdef TrickRules rules
    cdef void* mem
    cdef int tt_bits_set
    cdef int bits
    cdef int tt_side
    cdef int tt_kind
    cdef int tt_wr
    cdef int wt_cursor
    cdef int flags
    cdef readonly long long nodes
    cdef readonly dict stats
    cdef int _prepare(
        self, Ctx* c, tk_trick* t, object hands, int leader, object trick, Objective objective
    ) except -1
    cdef object _objective(self, object objective, int leader, object trick)
    cdef void _keep_stats(self, const Ctx* c)
