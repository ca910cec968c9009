# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Tables of the double-dummy solver: what the search remembers between positions.

Two kinds share one block of memory (:func:`table_layout`). The *transposition table*
holds exact positions at trick starts (:func:`pos_key`, ``tt_find``, :func:`tt_slot`),
keyed by relative ranks where that is sound: two positions that differ only in which small
cards are gone share an entry. The *winning-ranks table* (DDS's idea, for the tricks
objective under follow/trump duties with at most four seats) holds bounds that are true for
every position of the same shape whose significant cards (those down to the lowest rank
that decided a trick in the proof) sit in the same hands: :func:`wr_store` stores one under
that abstraction, :func:`wr_probe` and :func:`wr_probe_sets` find the ones that match. The
entries go to buckets by shape and by the owners of the top cards of the suits an entry
reads (the suit-set records, ``wr_sets``), and a look-up moves what it hits to the front of
its chain.

How much a table entry covers and how fast it is found decides most of the solver's speed
on full deals; none of it changes a value (a lost entry costs nodes, never an answer).
The tables read the hands and the cards a proof rests on; the search (``solver``) calls
them at trick starts, and owns the memory (its size, clearing, freeing).

Measured and dropped (900-deal benchmark, seeds 1, 5, 7): fixed buckets of 4, 16 or 32
entries side by side instead of chains (+47%, +6%, +2.5% nodes: a bounded bucket drops
entries that compete for real); a smaller table (2^17 slots: more nodes and walks, the same
time: the cache is not the limit); a look-up before the trick-start bounds at every trick
start (+4% nodes, +5% time; from 6 tricks left up it pays, see ``solver.ab``); no table at
two or three cards left. A look-up asks for its buckets' memory ahead
(``tk_prefetch``), so the misses overlap: about 2% of CPU. An exact-position cache in front
of the walk (2 MiB, one line per position: shape and hands in pext space, both bounds with
their cards) settled 25% of the look-ups alone but cost 10% more time and 2.3% more nodes
(seed 1, 300 deals): its miss is paid at every look-up, and the hits it takes no longer move
the walk's entries to the front. What is left to try is DDS's own
organisation, per-suit trees of winning ranks descended suit by suit.

Also measured and dropped (tuning seed 3, 100 deals, interleaved per deal against main's
build): a filter in the suit-set record (a bit per bucket an entry of the shape went to)
that skips the heads of empty buckets, 0.9 of the 2.4 a look-up asks for: the same nodes
and the same time (the heads are asked for together, so the misses it saves overlapped
anyway); visiting the suit sets by their number of suits (fewest first: the same nodes
within 0.03% and no faster; most first: +4.7% nodes); the chain walk inline in
wr_probe_sets (no change). A look-up waits on the chain of misses record, head, entry.
The bucket heads inside the shape's record (a 64-byte record: the shape, its suit sets and
13 heads, picked by the suit set and its top cards' owners; no head array between record and
entry; tuning seed 3, 150 deals, 3 rounds, sum of per-deal minima against main's build): with
records taking 1/4 of the block, +0.7% nodes and 1.014x CPU time (0.991x at the median); at
1/8, +1.2% nodes and 0.999x (0.971x at the median). The head array it saves is 2 MiB, which
the L3 cache (32 MiB here) mostly holds, so the miss it removes was seldom one to memory,
while the records grow from 4 MiB to 8 or 16 MiB and shapes share 13 chains.
"""

from libc.string cimport memset

from levata.engine.cardmask cimport below, bit, highest, lowest, mask_t, popcount
from levata.engine.rules cimport TK_SUITS, TK_SURE_POT, tk_rules
from levata.engine.solver_state cimport (
    BIG,
    F_PROBE,
    F_REL,
    F_SETS,
    K_EXACT,
    Ctx,
    owner,
    tt_entry,
    wr_entry,
    wr_sets,
)

tk_use_bmi2 = tk_cpu_bmi2()

cdef enum:
    WR_CHAIN = 256    # entries a look-up walks down one bucket's chain, at most
    WR_TOPS = 1       # top cards per suit whose owners pick the bucket

# entries fill cache lines exactly (the structs are in solver_state.pxd)
assert sizeof(tt_entry) * 2 == sizeof(wr_entry) == 64, "table entries changed size"


# ------------------------------------------------------------------------------------------
# The transposition table: exact positions


cdef unsigned long long pos_key(const Ctx* c, int leader, mask_t live) noexcept nogil:
    """Hash of the position at a trick start: every hand and the leader.

    With relative keys each hand is squeezed onto the live cards (pext), so two positions
    that differ only in which small cards are gone share an entry; the per-suit counts of live
    cards fix where one suit ends and the next begins."""
    cdef const tk_rules* r = c.r
    cdef unsigned long long h = tk_fmix(<unsigned long long>(leader + 1 + (c.kind << 4)))
    cdef unsigned long long counts = 0
    cdef int s, e
    cdef tk_squeeze_t sq
    if c.flags & F_REL:
        for e in range(TK_SUITS):
            counts = counts * 67 + popcount(live & r.suit_mask[e])
        h = tk_fmix(h ^ counts)
        tk_squeeze_prep(&sq, live)
        for s in range(c.n):
            h = tk_fmix(h ^ (tk_squeeze(&sq, c.hand[s]) + (<unsigned long long>s) * tk_golden))
    else:
        for s in range(c.n):
            h = tk_fmix(h ^ (c.hand[s] + (<unsigned long long>s) * tk_golden))
    if r.duties & TK_SURE_POT:
        # legality reads each seat's tricks (up to the pot: more plays alike) and the cards
        # out of play it has not seen (pot_key)
        counts = 0
        for s in range(c.n):
            counts = (counts << 4) | <unsigned long long>(
                c.pot.won[s] if c.pot.won[s] < r.pot else r.pot
            )
        h = tk_fmix(h ^ counts ^ c.pot_key)
    return h if h else 1


cdef tt_entry* tt_slot(Ctx* c, unsigned long long key, int depth) noexcept nogil:
    """The entry for `key`, claiming one of its two slots (the emptier or shallower)."""
    cdef unsigned long long i = key & c.tt_mask
    cdef tt_entry* e = &c.tt[i]
    cdef tt_entry* f = &c.tt[i ^ 1]
    if e.key == key:
        return e
    if f.key == key:
        return f
    if e.key != 0 and (f.key == 0 or f.depth <= e.depth):
        e = f
    e.key = key
    e.depth = depth
    e.hint = -1
    if c.kind == K_EXACT:
        e.a = 0
        e.b = 0
    else:
        e.a = 0
        e.b = BIG
    return e


# ------------------------------------------------------------------------------------------
# The winning-ranks table: bounds over positions that share their significant cards


cdef unsigned long long wr_bucket(const Ctx* c, unsigned long long shape, mask_t live) noexcept nogil:
    """Which bucket a position's entries go to: the shape plus who holds the top cards of each
    suit. Entries only match positions of the same shape, so the shape alone would do, but it
    piles thousands of positions into one bucket; the owners of the top cards (significant in
    nearly every entry) spread them. An entry that ignores a top card is then missed by a
    position where another hand holds it: a lost hit, never a wrong one."""
    cdef unsigned long long x = shape
    cdef mask_t sl
    cdef int e, j, card
    for e in range(TK_SUITS):
        sl = live & c.r.suit_mask[e]
        for j in range(WR_TOPS):
            if sl == 0:
                break
            card = highest(sl)
            sl ^= bit(card)
            x = x * 5 + <unsigned long long>owner(c, card)
    return tk_fmix(x) & c.wt_mask


cdef inline void wr_swap(wr_entry* a, wr_entry* b) noexcept nogil:
    """Swap two entries' contents, each keeping its place in the chains (`next`)."""
    cdef wr_entry t = a[0]
    cdef int an = a.next, bn = b.next
    a[0] = b[0]
    b[0] = t
    a.next = an
    b.next = bn


cdef bint wr_probe(
    Ctx* c, unsigned long long shape, unsigned long long bucket, mask_t live,
    const mask_t* comp, int alpha, int beta, int* lo, int* hi, mask_t* wlo, mask_t* whi,
    int* hint,
) noexcept nogil:
    """Tighten lo/hi with the entries of the bucket whose significant cards match here.

    Chains are walked for at most WR_CHAIN entries: a chain may run into slots the ring has
    since given to other buckets (even loop), which is harmless because every entry is checked
    on its own shape and cards, and each entry is a true bound wherever it matches.

    With ``F_PROBE`` the walk stops as soon as the bounds cut the window (alpha, beta) or
    meet, and an entry that matched moves to the front of its chain (its contents swap with
    the chain's head): the entries that keep matching are found after a step or two instead
    of a walk of hundreds of cache lines."""
    cdef int i = c.heads[bucket], steps = 0, s
    cdef bint ok, fast = (c.flags & F_PROBE) != 0
    cdef mask_t cards
    cdef wr_entry* e
    cdef wr_entry* head = &c.wt[i - 1] if i else NULL
    while i and steps < WR_CHAIN:
        e = &c.wt[i - 1]
        i = e.next
        steps += 1
        if e.shape != shape:
            continue
        ok = True
        for s in range(c.n):
            if (comp[s] & e.relmask) != e.comp[s]:
                ok = False
                break
        if not ok:
            continue
        c.hits += 1
        if e.lo > lo[0] or e.hi < hi[0]:
            cards = tk_pdep(e.relmask, live)  # the entry's significant cards, here
            if e.lo > lo[0]:
                lo[0] = e.lo
                wlo[0] = cards
            if e.hi < hi[0]:
                hi[0] = e.hi
                whi[0] = cards
        if e.hint >= 0:
            hint[0] = e.hint
        if fast:
            if e != head:
                wr_swap(e, head)
            if head.next:  # the next hit goes behind this one
                head = &c.wt[head.next - 1]
            if lo[0] >= beta or hi[0] <= alpha or lo[0] == hi[0]:
                break
    c.walked += steps
    return lo[0] >= beta or hi[0] <= alpha or lo[0] == hi[0]


cdef inline unsigned int suit_set(const tk_rules* r, mask_t sig) noexcept nogil:
    """The effective suits with a card in `sig`, as a bit mask."""
    cdef unsigned int S = 0
    cdef int e
    for e in range(TK_SUITS):
        if sig & r.suit_mask[e]:
            S |= 1u << e
    return S


cdef inline void top_owners(const Ctx* c, mask_t live, int* tops) noexcept nogil:
    """Who holds the top live card of each suit (0 for a suit with none): the bucket of every
    suit set is hashed from these, so they are read once per look-up or store."""
    cdef int e, s
    cdef mask_t sl, b
    for e in range(TK_SUITS):
        tops[e] = 0
        sl = live & c.r.suit_mask[e]
        if sl:
            b = bit(highest(sl))
            for s in range(c.n):
                if c.hand[s] & b:
                    tops[e] = s
                    break


cdef inline unsigned long long wr_set_bucket(
    const Ctx* c, unsigned long long shape, const int* tops, unsigned int S
) noexcept nogil:
    """The bucket of the entries of this shape that read exactly the suits `S`: the shape,
    `S` and who holds the top card of each suit in `S` (`tops`; an entry reading a suit reads
    its top card: its significant cards are a top run). Suits outside `S` do not pick the
    bucket, so an entry that ignores a suit is found whoever holds that suit's top card."""
    cdef unsigned long long x = shape ^ ((<unsigned long long>S + 1) * tk_golden)
    cdef int e
    for e in range(TK_SUITS):
        if (S >> e) & 1:
            x = x * 5 + <unsigned long long>tops[e]
    return tk_fmix(x) & c.wt_mask


cdef inline wr_sets* sets_slot(const Ctx* c, unsigned long long shape) noexcept nogil:
    return &c.sets[shape & c.sets_mask]


cdef void wr_probe_sets(
    Ctx* c, unsigned long long shape, mask_t live, const mask_t* comp, int alpha, int beta,
    int* lo, int* hi, mask_t* wlo, mask_t* whi, int* hint,
) noexcept nogil:
    """wr_probe over the buckets of every suit set this shape has entries under (the shape's
    record in `sets`; a record another shape took over loses hits, never makes a wrong one),
    subsets of the suits with live cards only."""
    cdef wr_sets* rec = sets_slot(c, shape)
    cdef unsigned int used, S
    cdef int tops[TK_SUITS]
    cdef unsigned long long buckets[1 << TK_SUITS]
    cdef int nb = 0, j, h
    if rec.shape != shape or rec.epoch != c.epoch:
        return
    used = rec.used
    top_owners(c, live, tops)
    # every bucket's head, then every chain's first entry, asked for before any is read:
    # the misses overlap instead of queueing behind each other
    while used:
        S = lowest(used)
        used &= used - 1
        buckets[nb] = wr_set_bucket(c, shape, tops, S)
        tk_prefetch(&c.heads[buckets[nb]])
        nb += 1
    for j in range(nb):
        h = c.heads[buckets[j]]
        if h:
            tk_prefetch(&c.wt[h - 1])
    for j in range(nb):
        if wr_probe(c, shape, buckets[j], live, comp, alpha, beta, lo, hi, wlo, whi, hint):
            return


cdef void wr_store(
    Ctx* c, unsigned long long shape, unsigned long long bucket, mask_t live, const mask_t* comp,
    mask_t win, int depth, int lo, int hi, int hint,
) noexcept nogil:
    """Store a bound under the abstraction `win` defines: in each suit, every live card from
    the lowest card of `win` up is significant; lower cards only count by number."""
    cdef const tk_rules* r = c.r
    cdef mask_t sig = 0, x, rm
    cdef int e, i, s, steps = 0, idx, old_next, nxt
    cdef int tops[TK_SUITS]
    cdef unsigned int S
    cdef bint same
    cdef wr_entry* b
    cdef wr_sets* rec
    for e in range(TK_SUITS):
        x = win & r.suit_mask[e]
        if x:
            sig |= live & r.suit_mask[e] & ~below(lowest(x))
    rm = tk_pext(sig, live)
    c.stores += 1
    c.sig += popcount(sig)
    if c.flags & F_SETS:
        S = suit_set(r, sig)
        top_owners(c, live, tops)
        bucket = wr_set_bucket(c, shape, tops, S)
        rec = sets_slot(c, shape)
        if rec.shape != shape or rec.epoch != c.epoch:
            rec.shape = shape
            rec.epoch = c.epoch
            rec.used = 0
        rec.used |= 1u << S
    i = c.heads[bucket]
    while i and steps < WR_CHAIN:  # the same abstract position: merge the bounds
        b = &c.wt[i - 1]
        i = b.next
        steps += 1
        if b.shape != shape or b.relmask != rm:
            continue
        same = True
        for s in range(c.n):
            if b.comp[s] != (comp[s] & rm):
                same = False
                break
        if same:
            if lo > b.lo:
                b.lo = lo
            if hi < b.hi:
                b.hi = hi
            if depth > b.depth:
                b.depth = depth
            if hint >= 0:
                b.hint = hint
            return
    idx = c.wt_cursor
    c.wt_cursor = idx + 1 if idx + 1 < c.wt_size else 0
    b = &c.wt[idx]
    old_next = b.next
    nxt = c.heads[bucket]
    b.next = old_next if nxt == idx + 1 else nxt
    c.heads[bucket] = idx + 1
    b.shape = shape
    b.relmask = rm
    for s in range(4):
        b.comp[s] = (comp[s] & rm) if s < c.n else 0
    b.lo = lo
    b.hi = hi
    b.depth = depth
    b.hint = hint


# ------------------------------------------------------------------------------------------
# The memory


cdef void wr_clear(void* mem, int bits, bint records) noexcept nogil:
    """Empty the winning-ranks table laid out in `mem` (see table_layout) by zeroing only
    its bucket heads, and its suit-set records if `records`: its entries are reached through
    the heads alone (a store reads an old entry only where a head of this search points to
    it), so whatever the rest of the block holds is never read, and a record of another
    search's epoch counts as empty (wr_probe_sets), so records need zeroing only where the
    block held no epochs. A 13-card block is 64 MiB, of which the heads are 2 MiB and the
    records 4: a full clear costs more than the search of a typical deal."""
    cdef int sets_bits = bits - 3 if bits > 6 else 0
    cdef size_t total = sizeof(tt_entry) << bits
    memset(mem, 0, sizeof(int) << (bits - 2))
    if records:
        memset(
            <char*>mem + total - (sizeof(wr_sets) << sets_bits), 0,
            sizeof(wr_sets) << sets_bits,
        )


cdef void table_layout(Ctx* c, void* mem, int bits) noexcept nogil:
    """Point the context's tables into `mem`, a zeroed block of ``sizeof(tt_entry) << bits``
    bytes. One block serves both kinds: 32-byte exact entries, or for winning ranks a bucket
    head array (1/32 of the block), a ring of 64-byte abstract entries and, at the end, the
    suit sets of each shape (1/16: a 13-card bridge search meets hundreds of thousands of
    shapes, and a shape whose record another one takes over loses the hits of all its
    entries; at 1/128, 6% more nodes on full deals)."""
    cdef int sets_bits
    c.tt = <tt_entry*>mem
    c.tt_mask = ((<unsigned long long>1) << bits) - 1
    c.heads = <int*>mem
    c.wt_mask = ((<unsigned long long>1) << (bits - 2)) - 1
    c.wt = <wr_entry*>(<char*>mem + (sizeof(int) << (bits - 2)))
    sets_bits = bits - 3 if bits > 6 else 0
    c.sets_mask = ((<unsigned long long>1) << sets_bits) - 1
    c.sets = <wr_sets*>(
        <char*>mem + (sizeof(tt_entry) << bits)
        - (sizeof(wr_sets) << sets_bits)
    )
    c.wt_size = <int>(
        (
            (sizeof(tt_entry) << bits)
            - (sizeof(int) << (bits - 2))
            - (sizeof(wr_sets) << sets_bits)
        )
        // sizeof(wr_entry)
    )
