# cython: language_level=3
"""World sampler: deal the unseen cards to hidden hands under constraints, exactly uniformly.

A position gives the unseen cards, the hidden places (hands, a stock...) with their sizes,
and for each place the cards it may hold (a seat that showed out of a suit may hold none of
it; cards known to be held are taken out beforehand and added back by the caller).

Cards whose sets of possible places are equal form a *class*. A deal is fixed by how many
cards of each class go to each place (a count table) and by which ones: for a given table the
number of deals is a product of multinomials. A table of counts is drawn with probability
proportional to that number (dynamic programming over classes), then each class is shuffled
into its places. Every deal that meets the constraints is therefore equally likely: the
sampler has **no bias** (tests compare it with exact enumeration by a chi-square test).

>>> from levata.engine.cards import parse_cards
>>> from levata.engine.cardmask import mask_of, cards_of
>>> unseen = mask_of(parse_cards("AS KS 2H 3H"))
>>> s = Sampler(unseen, [2, 2], [mask_of(parse_cards("2H 3H")), unseen])  # place 0: no spades
>>> [sorted(str(c) for c in cards_of(m)) for m in s.sample(7)]
[['2H', '3H'], ['AS', 'KS']]
>>> s.count()
1
"""

from libc.stdint cimport uint64_t

from levata.engine.cardmask cimport mask_t, popcount, lowest

__all__ = ["Sampler"]


cdef inline uint64_t _next(uint64_t* state) noexcept nogil:
    # splitmix64: small, fast, and good enough to pick among counted alternatives.
    state[0] += 0x9E3779B97F4A7C15ULL
    cdef uint64_t z = state[0]
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline double _uniform(uint64_t* state) noexcept nogil:
    return (_next(state) >> 11) * (1.0 / 9007199254740992.0)


def _compositions(int n, tuple caps):
    """Every way to split ``n`` cards over places with the given room: tuples of counts."""
    if len(caps) == 1:
        if n <= caps[0]:
            yield (n,)
        return
    cdef int k
    for k in range(min(n, caps[0]) + 1):
        for rest in _compositions(n - k, caps[1:]):
            yield (k,) + rest


cdef double _multinomial(int n, tuple parts):
    cdef double out = 1.0
    cdef int left = n, k, i
    for k in parts:
        for i in range(1, k + 1):
            out *= <double>(left - k + i) / i
        left -= k
    return out


cdef class Sampler:
    """Uniform deals of ``unseen`` into places of ``sizes`` where place i may hold ``allowed[i]``.

    Build once per position (the counting is done here), then call :meth:`sample` per world.
    Raises ``ValueError`` when no deal fits the constraints.
    """

    cdef readonly int places
    cdef readonly tuple allowed  # per place, the cards it may hold (as given)
    cdef list classes      # per class: (list of card indexes, tuple of place numbers)
    cdef list ways         # ways[c]: dict remaining-room tuple -> number of deals of classes c..
    cdef tuple sizes

    def __init__(self, mask_t unseen, sizes, allowed):
        sizes = tuple(int(s) for s in sizes)
        if len(sizes) != len(allowed):
            raise ValueError("one allowed mask per place")
        if sum(sizes) != popcount(unseen):
            raise ValueError(f"{popcount(unseen)} unseen cards do not fill places of {sizes}")
        self.places = len(sizes)
        self.sizes = sizes
        self.allowed = tuple(int(m) & unseen for m in allowed)
        groups = {}
        cdef mask_t rest = unseen
        cdef int card
        while rest:
            card = lowest(rest)
            rest &= rest - 1
            where = tuple(p for p in range(self.places) if (<mask_t>allowed[p] >> card) & 1)
            if not where:
                raise ValueError("no deal satisfies the constraints")
            groups.setdefault(where, []).append(card)
        # Big classes first keeps the tables small; order does not change the distribution.
        self.classes = sorted(((cards, where) for where, cards in groups.items()),
                              key=lambda cw: (-len(cw[0]), cw[1]))
        self._count()
        if self.ways[0].get(sizes, 0.0) == 0.0:
            raise ValueError("no deal satisfies the constraints")

    def _count(self):
        """ways[c][room]: deals of classes c.. filling exactly ``room``, memoised over rooms."""
        n = len(self.classes)
        self.ways = [dict() for _ in range(n + 1)]
        self.ways[n][(0,) * self.places] = 1.0
        # Rooms reachable from the top, class by class.
        reach = [set() for _ in range(n + 1)]
        reach[0].add(self.sizes)
        for c, (cards, where) in enumerate(self.classes):
            for room in reach[c]:
                for split in _compositions(len(cards), tuple(room[p] for p in where)):
                    nxt = list(room)
                    for p, k in zip(where, split):
                        nxt[p] -= k
                    reach[c + 1].add(tuple(nxt))
        for c in range(n - 1, -1, -1):
            cards, where = self.classes[c]
            table = self.ways[c]
            below = self.ways[c + 1]
            for room in reach[c]:
                total = 0.0
                for split in _compositions(len(cards), tuple(room[p] for p in where)):
                    nxt = list(room)
                    for p, k in zip(where, split):
                        nxt[p] -= k
                    w = below.get(tuple(nxt), 0.0)
                    if w:
                        total += w * _multinomial(len(cards), split)
                table[room] = total

    def count(self):
        """How many deals fit the constraints (exact while below 2**53)."""
        return int(self.ways[0][self.sizes])

    def sample(self, seed):
        """One uniform deal: a mask per place. ``seed`` is an int (one world per seed)."""
        cdef uint64_t state = <uint64_t>(seed & 0xFFFFFFFFFFFFFFFF)
        cdef int i, j, n, k, p
        cdef double pick, acc, w
        out = [0] * self.places
        room = self.sizes
        for c in range(len(self.classes)):
            cards, where = self.classes[c]
            n = len(cards)
            below = self.ways[c + 1]
            pick = _uniform(&state) * self.ways[c][room]
            acc = 0.0
            chosen = None
            for split in _compositions(n, tuple(room[q] for q in where)):
                nxt = list(room)
                for q, k in zip(where, split):
                    nxt[q] -= k
                w = below.get(tuple(nxt), 0.0)
                if w:
                    acc += w * _multinomial(n, split)
                    chosen = (split, tuple(nxt))
                    if pick < acc:
                        break
            split, room = chosen
            order = list(cards)
            for i in range(n - 1, 0, -1):  # Fisher-Yates
                j = <int>(_next(&state) % <uint64_t>(i + 1))
                order[i], order[j] = order[j], order[i]
            i = 0
            for q, k in zip(where, split):
                for _ in range(k):
                    out[q] |= 1 << order[i]
                    i += 1
        return out
