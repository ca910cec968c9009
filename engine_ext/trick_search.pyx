# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Information-set MCTS over the card play of a trick deal, in C.

:class:`TrickSearch` holds one search: a single-observer IS-MCTS tree of one seat's
information sets (Cowling, Powley and Whitehouse, 2012: UCB1 with availability counts over
the edges legal in the world at hand), a pool of *worlds* (full deals of the hidden cards the
seat cannot tell from the real one, which the caller deals with the exact sampler and adds
with :meth:`TrickSearch.add_world`) and the value of the deal's end to every seat. Each
iteration takes the next world of the pool, walks down the tree, expands one edge, plays the
deal out by a cheap policy (:mod:`levata.engine.playouts`: uniform random cards, or the
greedy one) and backs up each seat's value on the path. The rules are the deal's
:class:`~levata.engine.rules.TrickRules` (the same inline C rules the solver and the
playouts use), so the kernel knows no game by name: a game gives its rules and its deal's
values, a table per seat of what its side ending with ``k`` tricks is worth and a value per
card point (Whist's bid-based deal score, a team's tricks, card points).

Everything random comes from the seed; the loop releases the GIL.

>>> from levata.engine.rules import TrickRules
>>> r = TrickRules(2, None)
>>> s = TrickSearch(r, 0, [0, 0], [0, 0], [[0, 1, 2], [0, 1, 2]], seed=1)  # most tricks
>>> s.add_world([0b0101, 0b1010])      # seat 0 holds cards 0 and 2, seat 1 cards 1 and 3
>>> s.run(200)
200
>>> [(card, visits > 0) for card, visits, *_ in s.root_edges()]  # seat 0 may lead either
[(0, True), (2, True)]
"""

from libc.math cimport log, sqrt
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy, memset

from levata.engine.cardmask cimport bit, lowest, mask_t, popcount
from levata.engine.playouts cimport P_GREEDY, P_RANDOM, greedy_card, run_playout
from levata.engine.rules cimport (
    TK_MAX_SEATS,
    TrickRules,
    load_position,
    tk_legal,
    tk_play,
    tk_rules,
    tk_start,
    tk_trick,
)

cdef extern from *:
    """
    /* splitmix64, as the playouts' (one state per search: no shared state) */
    static inline unsigned long long ts_rand(unsigned long long *s) {
        unsigned long long z = (*s += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }
    static inline int ts_below(unsigned long long *s, int n) {
    #if defined(__SIZEOF_INT128__)
        return (int)(((unsigned __int128)ts_rand(s) * (unsigned long long)n) >> 64);
    #else
        return (int)(ts_rand(s) % (unsigned long long)n);
    #endif
    }
    """
    unsigned long long ts_rand(unsigned long long* s) nogil
    int ts_below(unsigned long long* s, int n) nogil

__all__ = ["POLICIES", "TrickSearch"]

#: Rollout policies by name (the playouts' own).
POLICIES = {"random": P_RANDOM, "greedy": P_GREEDY}

cdef enum:
    MAX_TRICKS = 33       # the most tricks a side can take (64 cards, 2 seats), plus one
    MAX_NODES = 4000000   # nodes a tree may hold (40 bytes each); past it, no more expanding


ctypedef struct ts_node:
    int child       # first child, -1 for none
    int sibling     # next child of the same parent, -1 for none
    int card        # internal card of the edge into this node (-1: the root)
    int seat        # the seat that plays that card
    int visits
    int avail       # iterations in which the edge was legal (availability)
    double reward   # sum of the playing seat's values, normalised to [0, 1]
    double square   # sum of their squares (the spread the final choice weighs)


cdef inline int random_card(mask_t legal, unsigned long long* rng) noexcept nogil:
    cdef int k = ts_below(rng, popcount(legal))
    while k > 0:
        legal &= legal - 1
        k -= 1
    return lowest(legal)


cdef inline int play_card(
    const tk_rules* r, mask_t* h, tk_trick* t, int seat, int card, int* won, int* pts
) noexcept nogil:
    """``seat`` plays ``card`` from its hand; a full trick is tallied to its taker (tricks,
    card points, the last trick's bonus) and the next one starts. Returns the taker, or -1
    while the trick is open."""
    cdef int g = 0, i, taker
    cdef mask_t x
    h[seat] ^= bit(card)
    tk_play(r, t, card)
    if t.count < r.seats:
        return -1
    taker = t.win_seat
    won[taker] += 1
    x = t.cards
    while x:
        i = lowest(x)
        x &= x - 1
        g += r.points[i]
    if h[taker] == 0:
        g += r.last_bonus
    pts[taker] += g
    tk_start(t, taker)
    return taker


cdef class TrickSearch:
    """One IS-MCTS search of the card play from one seat's view.

    ``rules``: the deal's :class:`~levata.engine.rules.TrickRules`; ``me``: the searching
    seat (as the rules number the seats); ``tricks`` and ``points``: what each seat took so
    far this deal (the trick in progress not included); ``values[s][k]``: what seat ``s``
    gets when its side (its team's seats) ends the deal with ``k`` tricks; ``per_point[s]``
    (default 0): what it gets per card point its side ends with (the last-trick bonus
    included). ``leader`` and ``trick``: the trick in progress, physical card indexes in
    play order. ``others_in_tree``: the other seats' moves are edges of the tree too (full
    single-observer IS-MCTS); else they are the rollout policy's even inside it, and the
    tree holds the searching seat's decisions only. ``policy``: ``"random"`` or
    ``"greedy"``, ``epsilon`` the greedy policy's share of random cards; ``c``: the UCB1
    exploration constant on values in [0, 1].
    """

    cdef TrickRules rules
    cdef tk_rules r
    cdef tk_trick t0
    cdef int me, seats, others_in_tree, policy
    cdef double epsilon, c, lo, span
    cdef int before_tricks[TK_MAX_SEATS]
    cdef int before_points[TK_MAX_SEATS]
    cdef double table[TK_MAX_SEATS][MAX_TRICKS]
    cdef double per_point[TK_MAX_SEATS]
    cdef int max_tricks
    cdef unsigned long long rng
    cdef ts_node* nodes
    cdef int count, cap
    cdef mask_t* worlds
    cdef int nworlds, wcap, next_world
    cdef mask_t my_hand
    cdef int first            # internal card tried first at the root, -1 for none
    # Per place (the seats, then the cards out of play: "the rest"), the cards a redeal may
    # put there; the places redealt by swaps. A world in the pool is its seats' hands and
    # its rest: seats + 1 masks.
    cdef mask_t movable[TK_MAX_SEATS + 1]
    cdef int redealt[TK_MAX_SEATS + 1]
    cdef int nredealt, swaps
    cdef readonly long long iterations
    cdef readonly long long actions
    cdef object _values       # the value tables as given, read once the deal's size is known
    cdef object _order        # the trick in progress, physical indexes in play order
    cdef int _points_all

    def __cinit__(self):
        self.nodes = NULL
        self.worlds = NULL

    def __dealloc__(self):
        free(self.nodes)
        free(self.worlds)

    def __init__(
        self,
        TrickRules rules not None,
        int me,
        tricks,
        points,
        values,
        per_point=None,
        *,
        int leader=0,
        trick=(),
        bint others_in_tree=True,
        policy="random",
        double epsilon=0.0,
        double c=0.7,
        seed=0,
    ):
        cdef int s, k, n = rules.seats, most, pts_all = 0
        if not 0 <= me < n:
            raise ValueError(f"seat {me} is not a seat of {n}")
        if policy not in POLICIES:
            raise ValueError(f"policy must be 'random' or 'greedy', not {policy!r}")
        if rules.sure_pot:  # its legality reads tricks won and unseen cards: not kept here
            raise ValueError("the sure-pot duty is not searched in this kernel")
        tricks, points, values = list(tricks), list(points), [list(v) for v in values]
        per_point = [0.0] * n if per_point is None else [float(x) for x in per_point]
        if not len(tricks) == len(points) == len(values) == len(per_point) == n:
            raise ValueError(f"tricks, points, values and per_point need one entry per seat ({n})")
        self.rules = rules
        self.r = rules.c
        self.me, self.seats = me, n
        self.others_in_tree = others_in_tree
        self.policy = POLICIES[policy]
        self.epsilon, self.c = epsilon, c
        self.rng = <unsigned long long>(int(seed) & 0xFFFFFFFFFFFFFFFF)
        # The trick in progress (each world's hands are checked against it in add_world).
        trick = [int(getattr(x, "index", x)) for x in trick]
        memset(&self.t0, 0, sizeof(tk_trick))
        tk_start(&self.t0, leader)
        if not 0 <= leader < n or len(trick) >= n:
            raise ValueError(f"leader {leader} and {len(trick)} cards do not fit {n} seats")
        for x in trick:
            tk_play(&self.r, &self.t0, rules._card(x))
        self._order = trick
        most = sum(int(x) for x in tricks)
        for s in range(n):
            self.before_tricks[s] = int(tricks[s])
            self.before_points[s] = int(points[s])
            self.per_point[s] = per_point[s]
            if self.before_tricks[s] < 0 or self.before_points[s] < 0:
                raise ValueError("tricks and points taken are never negative")
        self.max_tricks = most  # raised by each world's cards in add_world
        for k in range(64):
            if rules.c.deck >> k & 1:
                pts_all += rules.c.points[k]
        pts_all += rules.c.last_bonus
        self._values = values
        self._points_all = pts_all
        self.lo, self.span = 0.0, 0.0
        self.nworlds = self.wcap = self.next_world = 0
        self.first = -1
        self.nredealt = self.swaps = 0
        for s in range(n + 1):
            self.movable[s] = 0
        self.iterations = self.actions = 0
        self.count = 0
        self.cap = 1024
        self.nodes = <ts_node*>malloc(self.cap * sizeof(ts_node))
        if self.nodes == NULL:
            raise MemoryError()
        self._new_node(-1, -1, -1)

    cdef int _new_node(self, int parent, int card, int seat) noexcept nogil:
        """A fresh child of ``parent`` (``-1``: the root); -1 when the tree is full."""
        cdef ts_node* grown
        cdef ts_node* nd
        if self.count == self.cap:
            if self.cap >= MAX_NODES:
                return -1
            grown = <ts_node*>realloc(self.nodes, 2 * self.cap * sizeof(ts_node))
            if grown == NULL:
                return -1
            self.nodes, self.cap = grown, 2 * self.cap
        nd = &self.nodes[self.count]
        nd.child = nd.sibling = -1
        nd.card, nd.seat = card, seat
        nd.visits = nd.avail = 0
        nd.reward = nd.square = 0.0
        if parent >= 0:
            nd.sibling = self.nodes[parent].child
            self.nodes[parent].child = self.count
        self.count += 1
        return self.count - 1

    def add_world(self, hands, rest=0):
        """Add one world to the pool: every seat's hand (card masks or cards, as the rules
        number the seats) and ``rest``, a mask of the cards out of play in it that a
        redeal may move (:meth:`redeal`). The searching seat's hand must be the same in
        every world."""
        cdef mask_t h[TK_MAX_SEATS + 1]
        cdef tk_trick t
        cdef mask_t* grown
        cdef mask_t held = 0
        cdef int s, n = self.seats, cards = 0, k
        load_position(self.rules, hands, self.t0.leader, self._order, h, &t)
        h[n] = self.rules.to_internal(int(rest)) if rest else 0
        for s in range(n):
            held |= h[s]
        if h[n] & (held | t.cards):
            raise ValueError("a card out of play is in a hand or on the trick too")
        if self.nworlds == 0:
            self.my_hand = h[self.me]
            for s in range(n):
                cards += popcount(h[s])
            self.max_tricks += (cards + self.t0.count + n - 1) // n
            self._set_values()
        elif h[self.me] != self.my_hand:
            raise ValueError("a world holds another hand for the searching seat")
        if self.nworlds == self.wcap:
            k = max(16, 2 * self.wcap)
            grown = <mask_t*>realloc(self.worlds, k * (n + 1) * sizeof(mask_t))
            if grown == NULL:
                raise MemoryError()
            self.worlds, self.wcap = grown, k
        memcpy(&self.worlds[self.nworlds * (n + 1)], h, (n + 1) * sizeof(mask_t))
        self.nworlds += 1

    def _set_values(self):
        """The value tables, checked and brought to [0, 1] by the smallest and largest value
        any seat can reach (so any scale of points searches alike)."""
        cdef int s, k, n = self.seats, need = self.max_tricks + 1
        cdef double lo = 1e300, hi = -1e300, v, p
        if need > MAX_TRICKS:
            raise ValueError(f"a side can take at most {MAX_TRICKS - 1} tricks in the kernel")
        for s in range(n):
            row = self._values[s]
            if len(row) < need:
                raise ValueError(
                    f"values[{s}] needs an entry for every count of tricks 0..{need - 1}"
                )
            for k in range(need):
                v = float(row[k])
                self.table[s][k] = v
                for p in (0.0, self.per_point[s] * self._points_all):
                    lo = min(lo, v + p)
                    hi = max(hi, v + p)
        self.lo, self.span = lo, hi - lo

    def redeal(self, movable, int swaps, rest=0):
        """Before each iteration, move cards between the hidden hands of its world by
        ``swaps`` tries of a random swap: ``movable[s]`` is the mask of cards (physical)
        seat ``s`` may hold of those its hand is dealt at random from (0: a hand that stays
        as dealt; the searching seat's own), ``rest`` the cards the world's rest may hold
        (the undealt cards, where they are dealt at random too). A swap of two such cards
        of two places, each going where it may be, is tried with the same chance as the
        swap back, so a world dealt uniformly among the deals that respect those sets stays
        so after any number of swaps: each iteration searches a fresh world, not the same
        one again, at the cost of a few random numbers (the pool's worlds keep the swaps:
        a chain).

        >>> from levata.engine.rules import TrickRules
        >>> s = TrickSearch(TrickRules(3, None), 0, [0] * 3, [0] * 3, [[0, 1, 2]] * 3)
        >>> s.add_world([0b11, 0b1100, 0b110000])
        >>> s.redeal([0, 0b111100, 0b111100], 1)
        >>> seen = set()
        >>> for _ in range(20):
        ...     _ = s.run(1)
        ...     seen.add(tuple(s.hands()))
        >>> len(seen) > 1, {(h[0], h[1] | h[2]) for h in seen}  # seat 0 keeps its cards
        (True, {(3, 60)})
        >>> s = TrickSearch(TrickRules(3, None), 0, [0] * 3, [0] * 3, [[0, 1, 2]] * 3)
        >>> s.add_world([0b11, 0b1100, 0b110000], rest=0b11000000)  # cards 6, 7 undealt
        >>> s.redeal([0, 0b11111100, 0b11111100], 4, rest=0b11111100)
        >>> _ = s.run(30)
        >>> h = s.hands(); h[0], h[1] | h[2] | h[3]
        (3, 252)
        """
        cdef int s, n = self.seats
        movable = [int(m) for m in movable] + [int(rest)]
        if len(movable) != n + 1:
            raise ValueError(f"movable needs one mask per seat ({n})")
        if movable[self.me]:
            raise ValueError("the searching seat's hand is never redealt")
        if swaps < 0:
            raise ValueError("swaps must be >= 0")
        self.nredealt = 0
        for s in range(n + 1):
            self.movable[s] = self.rules.to_internal(movable[s]) if movable[s] else 0
            if self.movable[s]:
                self.redealt[self.nredealt] = s
                self.nredealt += 1
        self.swaps = swaps if self.nredealt >= 2 else 0

    def hands(self, int world=0):
        """The hands of world ``world`` of the pool as they stand, then its rest (physical
        masks)."""
        if not 0 <= world < self.nworlds:
            raise ValueError(f"the pool holds {self.nworlds} worlds, not world {world}")
        return [
            self.rules.to_physical(self.worlds[world * (self.seats + 1) + s])
            for s in range(self.seats + 1)
        ]

    cdef void _swap(self, mask_t* h) noexcept nogil:
        """One try of a random swap between two redealt places (see :meth:`redeal`)."""
        cdef int i = ts_below(&self.rng, self.nredealt)
        cdef int j = ts_below(&self.rng, self.nredealt - 1)
        cdef int a, b, x, y
        cdef mask_t ca, cb
        if j >= i:
            j += 1
        a, b = self.redealt[i], self.redealt[j]
        ca = h[a] & self.movable[a]
        cb = h[b] & self.movable[b]
        if ca == 0 or cb == 0:
            return
        x = random_card(ca, &self.rng)
        y = random_card(cb, &self.rng)
        if (self.movable[b] >> x & 1) and (self.movable[a] >> y & 1):
            h[a] ^= bit(x) | bit(y)
            h[b] ^= bit(x) | bit(y)

    def prefer(self, card):
        """Try ``card`` (physical index) first when the root's edges are expanded (the
        heuristic's move: it is never starved by an unlucky first rollout)."""
        self.first = self.rules._card(card)

    def run(self, long long iterations):
        """Run ``iterations`` iterations over the worlds of the pool, in turn; returns how
        many ran (all of them: the caller's clock decides how many to ask for)."""
        if self.nworlds == 0:
            raise ValueError("add a world before searching")
        if iterations < 0:
            raise ValueError("iterations must be >= 0")
        cdef long long i
        with nogil:
            for i in range(iterations):
                self._iterate()
        self.iterations += iterations
        return iterations

    cdef void _iterate(self) noexcept nogil:
        cdef int n = self.seats, me = self.me, seat, card, node = 0, child, s, k, i
        cdef int depth = 0, in_tree = 1, steps = 0
        cdef int path[72]
        cdef mask_t h[TK_MAX_SEATS]
        cdef mask_t legal
        cdef int won[TK_MAX_SEATS]
        cdef int pts[TK_MAX_SEATS]
        cdef int side_tricks[TK_MAX_SEATS]
        cdef int side_points[TK_MAX_SEATS]
        cdef double value[TK_MAX_SEATS]
        cdef double rew
        cdef tk_trick t = self.t0
        cdef ts_node* nd
        if self.swaps:  # the pool's world moves on by a few swaps: a fresh world each time
            for i in range(self.swaps):
                self._swap(&self.worlds[self.next_world * (n + 1)])
        memcpy(h, &self.worlds[self.next_world * (n + 1)], n * sizeof(mask_t))
        self.next_world += 1
        if self.next_world == self.nworlds:
            self.next_world = 0
        memset(won, 0, sizeof(won))
        memset(pts, 0, sizeof(pts))
        while True:
            seat = t.leader + t.count
            if seat >= n:
                seat -= n
            if h[seat] == 0:
                break
            if not in_tree:
                for s in range(n):
                    steps += popcount(h[s])
                run_playout(&self.r, h, t, self.policy, self.epsilon, &self.rng, won, pts, NULL)
                break
            legal = tk_legal(&self.r, h[seat], &t)
            if seat == me or self.others_in_tree:
                child = self._select(node, seat, legal, &card)
                if child < 0:  # the tree is full: play on by the policy
                    in_tree = 0
                    continue
                path[depth] = child
                depth += 1
                if self.nodes[child].visits == 0:
                    in_tree = 0  # just expanded: the rollout starts after its card
                node = child
            elif self.policy == P_GREEDY and not (
                self.epsilon > 0
                and <double>(ts_rand(&self.rng) >> 11) * (1.0 / 9007199254740992.0) < self.epsilon
            ):
                card = greedy_card(&self.r, legal, &t, seat)
            else:
                card = random_card(legal, &self.rng)
            play_card(&self.r, h, &t, seat, card, won, pts)
            steps += 1
        # Each seat's value: its side's tricks and points at the end of the deal.
        for s in range(n):
            side_tricks[s] = 0
            side_points[s] = 0
            for k in range(n):
                if self.r.team[k] == self.r.team[s]:
                    side_tricks[s] += self.before_tricks[k] + won[k]
                    side_points[s] += self.before_points[k] + pts[k]
            if side_tricks[s] > self.max_tricks:
                side_tricks[s] = self.max_tricks
            rew = self.table[s][side_tricks[s]] + self.per_point[s] * side_points[s]
            value[s] = (rew - self.lo) / self.span if self.span > 0 else 0.5
        for i in range(depth):
            nd = &self.nodes[path[i]]
            rew = value[nd.seat]
            nd.visits += 1
            nd.reward += rew
            nd.square += rew * rew
        self.actions += steps

    cdef int _select(self, int node, int seat, mask_t legal, int* card) noexcept nogil:
        """UCB1 with availability over the children legal in this world; an untried card
        first (the preferred one at the root). Returns the child (new, or -1 when full)."""
        cdef int ch = self.nodes[node].child, best = -1, k
        cdef mask_t tried = 0, untried
        cdef double v, best_v = -1.0
        cdef ts_node* nd
        while ch >= 0:
            nd = &self.nodes[ch]
            if nd.seat == seat and legal >> nd.card & 1:
                tried |= bit(nd.card)
                nd.avail += 1
                v = nd.reward / nd.visits + self.c * sqrt(log(<double>nd.avail) / nd.visits)
                if v > best_v:
                    best_v, best = v, ch
            ch = nd.sibling
        untried = legal & ~tried
        if untried:
            if node == 0 and self.first >= 0 and untried >> self.first & 1:
                k = self.first
            else:
                k = random_card(untried, &self.rng)
            ch = self._new_node(node, k, seat)
            if ch >= 0:
                self.nodes[ch].avail = 1
                card[0] = k
                return ch
            if best < 0:
                return -1
        card[0] = self.nodes[best].card
        return best

    def trace(self, int world=0, seed=0):
        """World ``world`` of the pool played out from the root by uniform random cards,
        each by the search's own steps (legal cards, tricks and their takers): for the
        tests that hold the kernel to the game's Python rules. Returns the plays as
        ``(seat, legal, card, taker)`` (``legal``: the physical mask the seat could play;
        ``taker``: the seat that took the trick the card closed, or -1) and each seat's
        tricks and card points from the root.

        >>> from levata.engine.rules import TrickRules
        >>> s = TrickSearch(TrickRules(2, None), 0, [0, 0], [0, 0], [[0, 1, 2]] * 2)
        >>> s.add_world([0b0101, 0b1010])
        >>> s.trace()[0][:2]
        [(0, 5, 2, -1), (1, 10, 1, 0)]
        """
        if not 0 <= world < self.nworlds:
            raise ValueError(f"the pool holds {self.nworlds} worlds, not world {world}")
        cdef int n = self.seats, seat, card, taker
        cdef mask_t h[TK_MAX_SEATS]
        cdef mask_t legal
        cdef int won[TK_MAX_SEATS]
        cdef int pts[TK_MAX_SEATS]
        cdef tk_trick t = self.t0
        cdef unsigned long long rng = <unsigned long long>(int(seed) & 0xFFFFFFFFFFFFFFFF)
        memcpy(h, &self.worlds[world * (n + 1)], n * sizeof(mask_t))
        memset(won, 0, sizeof(won))
        memset(pts, 0, sizeof(pts))
        plays = []
        while True:
            seat = t.leader + t.count
            if seat >= n:
                seat -= n
            if h[seat] == 0:
                break
            legal = tk_legal(&self.r, h[seat], &t)
            card = random_card(legal, &rng)
            taker = play_card(&self.r, h, &t, seat, card, won, pts)
            plays.append(
                (seat, self.rules.to_physical(legal), int(self.r.to_phys[card]), taker)
            )
        return plays, [won[s] for s in range(n)], [pts[s] for s in range(n)]

    def root_edges(self):
        """The searching seat's moves at the root: ``(card, visits, avail, reward, square)``
        per card tried (physical index; reward and square are sums of the seat's values in
        [0, 1]), by card."""
        out = []
        cdef int ch = self.nodes[0].child
        cdef ts_node* nd
        while ch >= 0:
            nd = &self.nodes[ch]
            if nd.seat == self.me:
                out.append(
                    (int(self.rules.c.to_phys[nd.card]), nd.visits, nd.avail, nd.reward, nd.square)
                )
            ch = nd.sibling
        return sorted(out)

    @property
    def nodes_used(self):
        """Nodes in the tree (the root included)."""
        return self.count

    @property
    def worlds(self):
        """Worlds in the pool."""
        return self.nworlds
