# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""What every game's playout kernel shares: the Python face a search plays through.

Each kernel keeps its position in a C struct of its own and gives :class:`Playout` six
C-level hooks: how many seats, the legal action codes of a seat, applying a code, the
policy's pick, a whole rollout (without the GIL) and restarting its random stream. The
methods a search and the differential tests call (``legal_actions``, ``apply``, ``choose``,
``rollout``...) are written here once, so every kernel checks a seat, refuses an illegal
action and names a policy alike. ``clone``, ``is_over``, ``to_act``, ``estimate`` and
``fields`` read the struct, so each kernel keeps its own.

>>> from levata.engine.games.toci import TociState
>>> fast = TociState.set_up(2, piles=["4S", "9D"], circle="10H 5C").playout_state(seed=1)
>>> isinstance(fast, Playout), [str(a) for a in fast.legal_actions(0)][:2]
(True, ['place_on 1', 'place_own'])
>>> fast.legal_actions(7), fast.players
([], 2)
"""

POLICIES = ("heuristic", "random")

__all__ = ["POLICIES", "Playout"]


cdef int policy_code(str policy) except -1:
    if policy == "heuristic":
        return POL_HEURISTIC
    if policy == "random":
        return POL_RANDOM
    raise ValueError(f"policy must be one of {', '.join(POLICIES)}, not {policy!r}")


cdef class Playout:
    """A position a search plays out in C: see the module. Not made directly: each game's
    kernel subclasses it."""

    # -- the hooks (a kernel overrides every one) ----------------------------------------------

    cdef int seats(self) noexcept:
        return 0

    cdef int legal_codes(self, int seat, int* codes) noexcept:
        """The legal codes of ``seat`` (a seat of the table), in the game's order; how many."""
        return 0

    cdef void submit(self, int seat, int code) noexcept:
        """Apply ``code`` for ``seat``, known legal."""
        pass

    cdef int pick(self, int seat, int policy, const int* codes, int k) noexcept:
        """The code ``policy`` picks for ``seat`` among its ``k`` legal ``codes`` (never 0)."""
        return codes[0]

    cdef int play_on(self, int policy, int max_actions) noexcept nogil:
        """Play on by ``policy`` (``max_actions``: 0, no limit); the count the kernel keeps."""
        return 0

    cdef void reseed(self, unsigned long long seed) noexcept:
        pass

    # -- the face ------------------------------------------------------------------------------

    cdef int legal_of(self, int seat, int* codes) noexcept:
        """:meth:`legal_codes` for any int: none for a seat not at the table."""
        if not 0 <= seat < self.seats():
            return 0
        return self.legal_codes(seat, codes)

    @property
    def players(self):
        return self.seats()

    def legal_actions(self, int seat):
        """The game state's ``legal_actions``: the same actions in the same order."""
        cdef int codes[MAX_CODES]
        cdef int i, k = self.legal_of(seat, codes)
        actions = self.actions
        return [actions[codes[i]] for i in range(k)]

    def _apply(self, int seat, action):
        """Apply an action already known to be legal (as ``GameState._apply``)."""
        self.submit(seat, self.codes[action])

    def apply(self, int seat, action):
        """Apply ``action`` for ``seat``; ``ValueError`` (and no change) if it is not legal."""
        cdef int codes[MAX_CODES]
        cdef int i, k = self.legal_of(seat, codes), code = self.codes.get(action, -1)
        for i in range(k):
            if codes[i] == code:
                self.submit(seat, code)
                return
        raise ValueError(f"{action} is not legal for seat {seat} now")

    def choose(self, int seat, str policy="heuristic"):
        """The action ``policy`` (the heuristic bot's rule, or ``random``) picks for ``seat``
        now; its ties and random picks come from the state's stream."""
        cdef int codes[MAX_CODES]
        cdef int p = policy_code(policy), k = self.legal_of(seat, codes)
        if k == 0:
            raise ValueError(f"seat {seat} is not to act now")
        return self.actions[self.pick(seat, p, codes, k)]

    def rollout(self, str policy="heuristic", int max_actions=0, seed=None):
        """Play on by ``policy`` until the match ends or for ``max_actions`` (0: no limit), in
        the kernel's unit (its docs say which: actions, turns or ticks); returns how many were
        played. ``seed``: restart the state's stream from it first."""
        cdef int p = policy_code(policy), taken
        if max_actions < 0:
            raise ValueError("max_actions must be 0 (no limit) or more")
        if seed is not None:
            self.reseed(<unsigned long long>(int(seed) & 0xFFFFFFFFFFFFFFFF))
        with nogil:
            taken = self.play_on(p, max_actions)
        return taken
