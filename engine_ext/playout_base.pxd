# cython: language_level=3
"""What every game's playout kernel shares: the Python face a search plays through.

A kernel (``huzur_playouts``, ``macao_playouts``...) holds its position in a C struct and
subclasses :class:`Playout`, giving it the C-level hooks below; the Python methods
(``legal_actions``, ``apply``, ``choose``, ``rollout``...) are written once, here.

    from levata.engine.playout_base cimport MAX_CODES, POL_HEURISTIC, POL_RANDOM, Playout
"""

cdef enum:
    #: The most action codes of any kernel (Kemps: 8 + 64 x 4), the size of a codes buffer.
    MAX_CODES = 288
    #: The policies a rollout or a choice plays by (``POLICIES``' order).
    POL_HEURISTIC = 0
    POL_RANDOM = 1

cdef int policy_code(str policy) except -1

cdef class Playout:
    #: Each action code's :class:`~levata.engine.contract.Action` (``None`` for no action),
    #: and each action's code: the kernel's tables, set when an object is made.
    cdef list actions
    cdef dict codes

    # -- the hooks a kernel gives --------------------------------------------------------------
    cdef int seats(self) noexcept
    cdef int legal_codes(self, int seat, int* codes) noexcept
    cdef void submit(self, int seat, int code) noexcept
    cdef int pick(self, int seat, int policy, const int* codes, int k) noexcept
    cdef int play_on(self, int policy, int max_actions) noexcept nogil
    cdef void reseed(self, unsigned long long seed) noexcept

    # -- what the face builds on them -----------------------------------------------------------
    cdef int legal_of(self, int seat, int* codes) noexcept
