# The double-dummy solver: its two classes, for kernels that cimport them (a later search
# can drive a Solver's table, or read an Objective, without Python calls).
#
#   from levata.engine.solver cimport Solver, Objective
#
# The search context (Ctx) and the table entries live in solver_state.pxd, shared by the
# solver's modules (solver_bounds, solver_order, solver_table); Solver's cdef methods take a
# Ctx, so it is cimported here.

from levata.engine.rules cimport TrickRules, tk_trick
from levata.engine.solver_state cimport Ctx


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
    cdef bint pristine  # every byte of mem is zero (no search has written to it since)
    cdef unsigned int epoch  # the winning-ranks searches' mark in mem (0: not theirs yet)
    cdef signed char* killers  # the searches' killer leads (Ctx.killer, killer2)
    cdef readonly long long nodes
    cdef readonly dict stats
    cdef int _prepare(
        self,
        Ctx* c,
        tk_trick* t,
        object hands,
        int leader,
        object trick,
        Objective objective,
        object won,
        object hidden,
    ) except -1
    cdef object _objective(self, object objective, int leader, object trick)
    cdef void _keep_stats(self, const Ctx* c)
    cdef void _wipe(self, bint wr) noexcept
