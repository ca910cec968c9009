# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Bounds of the double-dummy solver: what a position is worth at least or at most, read off
the cards without a search.

At a trick start, :func:`trick_bounds` combines top trumps (the side holding the highest
trumps wins a trick with each one above the other side's best), quick tricks (the leader's
cards it can cash at once, trumps first so that the seats they draw cannot ruff the rest;
then a partner's after an entry, the leader's own first where the partner keeps the cards
its count rests on; with no trump in play, crossing to the partner when it holds the top
of a suit the leader has), lost lead (the leader's side cannot
win the trick it leads), a partner's ruff or over-ruff and the later-tricks rules of DDS (no trump: a
side that needs every trick left leads only suits it holds the top card of; trumps: the
top trump cannot fell both the second and the third best). Inside a trick,
:func:`sure_then_cash` finds a card (or a partner's) that wins the trick for certain and,
at second hand, the quick tricks of its winner. Each bound also returns the cards it rests
on, for the winning-ranks table (``solver_table``): the fewer, the more positions a stored
bound covers, so each is worked out only as far as the search window needs.

This is the part of the solver most changes land in (a new rule, a cheaper proof), and it
reads only the hands: no table, no search. The search (``solver``) calls
:func:`trick_bounds`, :func:`sure_then_cash` and ``points_left``; the move ordering
(``solver_order``) shares ``beaten_later`` and its helpers, declared inline in
``solver_bounds.pxd``.

CPU time (about a quarter of the solver's before; interleaved per deal against main's build,
100-150 deals of tuning seed 3, the same nodes on seeds 3 and 11): the search's windows are
null, so a bound that neither cuts nor narrows the window is read nowhere, and
:func:`trick_bounds` works out each rule only where its value could (lost lead, partner's
ruff and the trump later-tricks rules move a bound by one trick; the quick tricks are
skipped where the lengths of the suits whose top card the side holds cannot reach the
need); ``suit_cash`` and ``ruff_rounds`` are inline, and quick_tricks walks a bit mask of
the suits whose top card the leader holds instead of a branch per suit and round (its
hottest line: the branches mispredict), and entry_trick only the suits it cashed that
others hold. Together 0.90-0.93x. Measured and dropped: the
same skip for the second-hand quick tricks in :func:`sure_then_cash` (the test costs
more than it saves: 0.98x against 0.95x without), the owner loop of the side's tops
without branches (0.95x against 0.93x), quick_tricks inline (GCC keeps it a call: no
change).

DDS's QuickTricks rules, ported to Python and run on the positions our bounds left (tuning
seed 3, R = 2..5), decide about 1% of them (3% at R = 3 with the trump draw, the entries
in trump games and the over-ruff alone, before the leader's cashing ahead of the partner
and the finesse); most of the rest are its long-suit counts across the two hands (Ax
opposite Kxx). Measured and dropped (nodes
on tuning seeds 3/11): after a lost lead, the quick tricks of the seat winning it with its
top card (sure_then_cash one node earlier), 0.996x/0.996x, and after a partner's ruff the
ruffer's, 0.997x/0.997x: testing lost lead and the ruff at every start without quick
tricks made the bounds 20% dearer, 1.05x time; a lost lead by a ruff above any ruff of
the leader's side: no node changed; the partner's other cards of the entry suit once
everyone else is out of it (DDS's Ax opposite Kxx), 0.999x/0.9995x; the side's top trumps
added to the leader's cashes in side suits where its hands keep their trumps meanwhile,
0.992x/0.996x with the bounds about 4% dearer.
"""

from levata.engine.cardmask cimport bit, highest, lowest, mask_t, popcount
from levata.engine.rules cimport (
    TK_FOLLOW,
    TK_HEAD,
    TK_MAX_SEATS,
    TK_MUST_TRUMP,
    TK_OVERTRUMP,
    TK_SUITS,
    tk_above,
    tk_beats,
    tk_rules,
    tk_trick,
)
from levata.engine.solver_state cimport Ctx, owner


cdef void fill_later() noexcept:
    cdef int n, leader, count, i
    for n in range(1, TK_MAX_SEATS + 1):
        for leader in range(n):
            for count in range(n):
                LATER[n][leader][count] = 0
                for i in range(count + 1, n):
                    LATER[n][leader][count] |= 1 << ((leader + i) % n)


fill_later()


cdef inline int min3(int a, int b, int c) noexcept nogil:
    if b < a:
        a = b
    return c if c < a else a


cdef inline int ruff_rounds(
    const Ctx* c, int leader, int e, int pending, int drawn
) noexcept nogil:
    """Rounds of suit `e` the leader's side can lead before a seat that could ruff may be
    out of it: the fewest cards of `e` held by a seat of the other side holding trumps, or by
    a partner holding trumps that a duty would make ruff (the lead would pass); 64 when no
    seat could (or `e` is trumps), 0 without a duty to follow. Seats in `pending` still
    play a card to the trick in progress: they may hold one card fewer by then. `drawn`:
    rounds of trumps the leader cashes first (only under a duty to follow): a seat with no
    more trumps than that is out of them by then."""
    cdef const tk_rules* r = c.r
    cdef int s, k, safe = 64, mine = (c.side >> leader) & 1
    cdef mask_t tm
    if r.trump < 0 or e == r.trump:
        return safe
    tm = r.suit_mask[r.trump]
    for s in range(c.n):
        if s == leader or popcount(c.hand[s] & tm) <= drawn:
            continue
        if ((c.side >> s) & 1) == mine and not (r.duties & TK_MUST_TRUMP):
            continue  # a partner void in the suit may discard instead
        if not (r.duties & TK_FOLLOW):
            return 0
        k = popcount(c.hand[s] & r.suit_mask[e]) - ((pending >> s) & 1)
        if k < safe:
            safe = k
    return safe


cdef inline int suit_cash(
    const Ctx* c, int leader, int e, mask_t others, int pending, int drawn, int need, mask_t* w
) noexcept nogil:
    """Tricks `leader` can cash at once in effective suit `e`: its cards above everything the
    others hold (all of them once that run outlasts every other holding, when the others must
    follow), and no more rounds than :func:`ruff_rounds` allows (`pending`: see there). Only
    as many tricks as `need` are counted, and `w` gets the lowest of the leader's cards the
    count rests on (its top cards down to that one must be the suit's top cards; the rest
    rests on suit lengths): the fewer cards a cut-off reads, the more positions its table
    entry covers."""
    cdef const tk_rules* r = c.r
    cdef mask_t h = c.hand[leader] & r.suit_mask[e], o, x
    cdef int s, k, run, longest, n, j, safe
    cdef bint whole
    cdef bint follow = (r.duties & TK_FOLLOW) != 0
    w[0] = 0
    if h == 0:
        return 0
    o = others & r.suit_mask[e]
    # the top card first: most suits fail there, before the seats' lengths are read
    run = popcount(h & tk_above(highest(o))) if o else 0
    if o and run == 0:
        return 0
    safe = ruff_rounds(c, leader, e, pending, drawn)
    if safe <= 0:
        return 0
    if o == 0:
        n = popcount(h)
        return min3(n, safe, need)
    longest = 0
    for s in range(c.n):
        if s != leader:
            k = popcount(c.hand[s] & r.suit_mask[e])
            if k > longest:
                longest = k
    # the rest of the suit is good once everyone else is out of it, which only a duty to
    # follow guarantees (without one a defender may keep a higher card back)
    whole = run >= longest and follow
    n = popcount(h) if whole else run
    n = min3(n, safe, need)
    # the count rests on the leader's top `j` cards of the suit being its top `j` cards
    j = n if not whole or n < longest else longest
    x = h
    while j > 1:
        x ^= bit(highest(x))
        j -= 1
    w[0] = bit(highest(x))
    return n


cdef int quick_tricks(
    const Ctx* c, int leader, int need, int pending, int drawn, mask_t* win, int* ks_out
) noexcept nogil:
    """Tricks `leader` can cash at once (:func:`suit_cash` per suit; cashing keeps the lead,
    so the suits add up: a seat that must follow one suit keeps its holding in the others),
    counted only until `need` is reached: `win` gets the cards of the suits counted and no
    others, so that a cut-off leans on as few cards as it can (a table entry that reads fewer
    cards matches more positions). Suits nobody else holds come first: they cost no card at
    all. `pending`: see suit_cash; `drawn`: rounds of trumps led before (see ruff_rounds).
    `ks_out` (if not NULL) gets the tricks counted per suit."""
    cdef const tk_rules* r = c.r
    cdef mask_t others = 0, w = 0, we, h, o
    cdef int s, e, q = 0, k, round_
    cdef unsigned int free = 0, tops = 0, x, cashed = 0
    cdef int ks[TK_SUITS]
    for s in range(c.n):
        if s != leader:
            others |= c.hand[s]
    # the suits whose top card the leader holds (the only ones suit_cash counts), as bit
    # masks: those nobody else holds first, then the others, each in suit order
    for e in range(TK_SUITS):
        ks[e] = 0
        h = c.hand[leader] & r.suit_mask[e]
        o = others & r.suit_mask[e]
        if h:
            if o == 0:
                free |= 1u << e
            elif highest(h) > highest(o):
                tops |= 1u << e
    # Trumps first when others hold some: each round cashed draws one from every seat that
    # must follow, so a seat with no more trumps than the rounds cashed cannot ruff the
    # suits cashed after them (DDS counts its opponents' trumps down the same way)
    if r.trump >= 0 and (tops >> r.trump) & 1:
        tops ^= 1u << r.trump
        k = suit_cash(c, leader, r.trump, others, pending, 0, need, &we)
        if k:
            ks[r.trump] = k
            q = k
            w = we
            cashed = 1u << r.trump
            if (r.duties & TK_FOLLOW) and k > drawn:
                drawn = k
    if q < need:
        for round_ in range(2):
            x = free if round_ == 0 else tops
            while x:
                e = lowest(x)
                x &= x - 1
                k = suit_cash(c, leader, e, others, pending, drawn, need - q, &we)
                if k:
                    ks[e] = k
                    q += k
                    w |= we
                    if round_:
                        cashed |= 1u << e
                    if q >= need:
                        break
            if q >= need:
                break
    if ks_out != NULL:
        for e in range(TK_SUITS):
            ks_out[e] = ks[e]
    if q < need and cashed and entry_trick(
        c, leader, others, ks, cashed, pending, drawn, &we
    ):
        q += 1
        w |= we
    win[0] = w
    return q


cdef bint entry_trick(
    const Ctx* c, int leader, mask_t others, const int* ks, unsigned int cashed, int pending,
    int drawn, mask_t* w,
) noexcept nogil:
    """After cashing `ks[e]` top cards of a suit, can the leader lead another card of it to
    a partner whose best card of the suit is above every other hand's (DDS's second best at
    partner)? The partner keeps that card back while the run is cashed (it holds more cards
    of the suit than the run), and no seat that could ruff is out of the suit by then. The
    lead passes to the partner, so this trick comes after all the others counted. `w` gets
    the partner's card. `cashed`: the suits with a run cashed that others hold, as a bit
    mask (the only ones that can pass the lead)."""
    cdef const tk_rules* r = c.r
    cdef int e, k, p, top, mine = (c.side >> leader) & 1
    cdef mask_t se
    if not (r.duties & TK_FOLLOW):
        return False
    while cashed:
        e = lowest(cashed)
        cashed &= cashed - 1
        k = ks[e]
        se = r.suit_mask[e]
        if popcount(c.hand[leader] & se) <= k or (others & se) == 0:
            continue
        top = highest(others & se)
        p = owner(c, top)
        if ((c.side >> p) & 1) != mine or popcount(c.hand[p] & se) - ((pending >> p) & 1) <= k:
            continue
        if ruff_rounds(c, leader, e, pending, drawn) > k:
            w[0] = bit(top)
            return True
    return False


cdef int partner_cash(
    const Ctx* c, int p, int entry, int skip, int need, mask_t* win, int* kept
) noexcept nogil:
    """No trump: the tricks partner `p` cashes once on lead, its first trick in `entry` (a
    suit whose top card it holds), then the suits nobody else holds, then the others, not
    those of the `skip` mask (bit e: suit e), counted until `need` is reached. `kept` gets
    how many of its cards the count rests on: the top cards cashed, or the whole suit when
    the count rests on its length; every other card the partner may discard while the
    leader cashes first (see cross_to_partner). `win` gets the cards relied on."""
    cdef const tk_rules* r = c.r
    cdef mask_t others = 0, w = 0, we, h, o
    cdef int s, e, q = 0, k, round_, run, res = 0
    for s in range(c.n):
        if s != p:
            others |= c.hand[s]
    for round_ in range(3):
        for e in range(TK_SUITS):
            if (skip >> e) & 1:
                continue
            o = others & r.suit_mask[e]
            if round_ == 0:
                if e != entry:
                    continue
            elif e == entry or (o == 0) != (round_ == 1):
                continue
            k = suit_cash(c, p, e, others, 0, 0, need - q, &we)
            if k == 0:
                continue
            h = c.hand[p] & r.suit_mask[e]
            run = popcount(h & tk_above(highest(o))) if o else popcount(h)
            res += k if k <= run else popcount(h)
            q += k
            w |= we
            if q >= need:
                break
        if q >= need:
            break
    win[0] = w
    kept[0] = res
    return q


cdef int cross_to_partner(
    const Ctx* c, int leader, int R, int need, mask_t* win, const int* ks, mask_t wl
) noexcept nogil:
    """No trump (no trump left in play): the leader cashes its own quick tricks (`ks` per
    suit, relying on `wl`), then leads a suit whose top card a partner holds, and the
    partner cashes its own: its entry trick and its quick tricks in the suits the leader
    did not cash (DDS's quick tricks that cross between partners). The partner follows the
    leader's winners or discards; it keeps the cards its count rests on as long as it holds
    enough others: R - kept cards to play while the leader cashes. The leader cashes no
    more tricks than that, so the two counts add up; the others' discards only make the
    partner's cards better. `win` gets the cards relied on (lengths are in the shape)."""
    cdef const tk_rules* r = c.r
    cdef int p, e, s, q1 = 0, q2, kept, best = 0, skip = 0
    cdef int mine = (c.side >> leader) & 1
    cdef mask_t live = 0, x, wp
    for s in range(c.n):
        live |= c.hand[s]
    for e in range(TK_SUITS):
        q1 += ks[e]
        if ks[e]:
            skip |= 1 << e
    for p in range(c.n):
        if p == leader or ((c.side >> p) & 1) != mine or c.hand[p] == 0:
            continue
        for e in range(TK_SUITS):
            x = live & r.suit_mask[e]
            if (c.hand[leader] & x) == 0 or not (c.hand[p] >> highest(x)) & 1:
                continue
            q2 = partner_cash(c, p, e, skip, need - q1, &wp, &kept)
            if R - kept < q1:
                q2 += R - kept
                if R - kept > 0:
                    wp |= wl
            else:
                q2 += q1
                wp |= wl
            if q2 > best:
                best = q2
                win[0] = wp
            break
    return best


cdef inline bint entry_safe(const Ctx* c, int leader, int p, int e, int drawn) noexcept nogil:
    """Does partner `p`'s top card of side suit `e` win the trick when `leader` leads `e`?
    Every other seat holds `e` under a duty to follow, or holds no more trumps than `drawn`
    (rounds of trumps led first: see ruff_rounds): DDS's entry to the partner."""
    cdef const tk_rules* r = c.r
    cdef int s
    cdef mask_t tm = r.suit_mask[r.trump]
    cdef bint follow = (r.duties & TK_FOLLOW) != 0
    for s in range(c.n):
        if s == leader or s == p or popcount(c.hand[s] & tm) <= drawn:
            continue
        if not (follow and (c.hand[s] & r.suit_mask[e]) != 0):
            return False
    return True


cdef inline int finesse(
    const Ctx* c, int leader, int p, int e, mask_t live, int drawn
) noexcept nogil:
    """Partner `p` holds the top and the third best card of suit `e`, the seat between the
    leader and `p` (of the other side) the second best and another card: the leader leads
    `e` and `p` takes two tricks in it, whichever card that seat plays (its second best
    falls to the top card, or `p`'s third best wins and the top card stays; the seats after
    `p` hold nothing above it). Every seat that could ruff either round holds two cards of
    `e` (or no more trumps than `drawn`, the rounds of trumps led first), and the leader
    cannot be made to ruff the second. Returns the third best card (the count rests on it),
    or -1 (DDS's finesse in its partner's quick tricks)."""
    cdef const tk_rules* r = c.r
    cdef int s, k2, k3, s1 = leader + 1 if leader + 1 < c.n else 0
    cdef mask_t se = r.suit_mask[e], x, tm
    if not (r.duties & TK_FOLLOW) or (s1 + 1 if s1 + 1 < c.n else 0) != p:
        return -1
    if ((c.side >> s1) & 1) == ((c.side >> p) & 1) or popcount(c.hand[s1] & se) < 2:
        return -1
    x = live & se
    x ^= bit(highest(x))
    if x == 0:
        return -1
    k2 = highest(x)
    x ^= bit(k2)
    if x == 0 or not (c.hand[s1] >> k2) & 1:
        return -1
    k3 = highest(x)
    if not (c.hand[p] >> k3) & 1:
        return -1
    if r.trump >= 0 and e != r.trump:
        tm = r.suit_mask[r.trump]
        for s in range(c.n):
            if s == leader or s == s1 or s == p:
                continue
            if popcount(c.hand[s] & se) < 2 and popcount(c.hand[s] & tm) > drawn:
                return -1
        if (r.duties & TK_MUST_TRUMP) and popcount(c.hand[leader] & se) < 2 and (
            c.hand[leader] & tm
        ):
            return -1
    return k3


cdef int partner_tricks(
    const Ctx* c, int leader, int q, int need, mask_t* win, const int* ks
) noexcept nogil:
    """Raise `q` to a partner's quick tricks when the leader can put that partner on lead:
    a suit the leader holds whose top card the partner has, which nobody can ruff. The
    partner's count already includes that trick (its top card in the suit). The leader's
    own `q` (`ks` per suit, all from cashing) comes first when the partner can keep the
    cards its count rests on: the others' can only get lower, and seats drawn of trumps by
    the leader's trumps cannot ruff. Without trumps in play, also :func:`cross_to_partner`."""
    cdef const tk_rules* r = c.r
    cdef int p, e, s, y, k, top, qp, first, drawn, fin, sum_ks = 0, own = q
    cdef int mine = (c.side >> leader) & 1
    cdef int kp[TK_SUITS]
    cdef mask_t live = 0, x, wp, kept, h, o, tm = r.suit_mask[r.trump] if r.trump >= 0 else 0
    cdef mask_t wl = win[0]
    if q >= need:
        return q
    for s in range(c.n):
        live |= c.hand[s]
    for e in range(TK_SUITS):
        sum_ks += ks[e]
    if (live & tm) == 0:
        qp = cross_to_partner(c, leader, popcount(c.hand[leader]), need, &wp, ks, wl)
        if qp > q:
            q = qp
            win[0] = wp
            if q >= need:
                return q
    # the leader cashes first only if all of `q` is cashing (no lead passed on); its trumps
    # cashed draw the others' (see quick_tricks)
    first = own if sum_ks == own else 0
    drawn = ks[r.trump] if r.trump >= 0 and (r.duties & TK_FOLLOW) else 0
    for p in range(c.n):
        if p == leader or ((c.side >> p) & 1) != mine or c.hand[p] == 0:
            continue
        for e in range(TK_SUITS):
            if (c.hand[leader] & r.suit_mask[e]) == 0:
                continue
            x = live & r.suit_mask[e]
            top = highest(x)
            if not (c.hand[p] >> top) & 1:
                continue
            qp = -1
            fin = -1
            if first and (e == r.trump or not tm or entry_safe(c, leader, p, e, drawn)):
                # The partner plays a card to each of the leader's `first` tricks: it
                # follows in the leader's suits (none of them its count's, whose top cards
                # it holds) and discards from those too or from the rest, so it keeps the
                # cards its count rests on (its top cards cashed, or the whole suit where
                # the count rests on its length or passes the lead back) and its entry if
                # it holds enough others.
                qp = quick_tricks(c, p, need - first, 0, drawn, &wp, kp)
                if kp[e] == 1 and qp < need - first:
                    fin = finesse(c, leader, p, e, live, drawn)
                kept = bit(top) | (bit(fin) if fin >= 0 else 0)
                k = 0
                for y in range(TK_SUITS):
                    k += kp[y]
                for y in range(TK_SUITS):
                    if kp[y]:
                        h = c.hand[p] & r.suit_mask[y]
                        o = live & ~c.hand[p] & r.suit_mask[y]
                        if k < qp or popcount(h & tk_above(highest(o)) if o else h) < kp[y]:
                            kept |= h
                        else:
                            for s in range(kp[y]):
                                kept |= bit(highest(h))
                                h ^= bit(highest(h))
                if popcount(c.hand[p] & ~kept) >= first:
                    qp += first
                    wp |= wl
                else:
                    qp = -1
            if qp < 0:
                if e != r.trump and tm and not entry_safe(c, leader, p, e, 0):
                    continue
                qp = quick_tricks(c, p, need, 0, 0, &wp, kp)
                fin = finesse(c, leader, p, e, live, 0) if kp[e] == 1 and qp < need else -1
            if fin >= 0:
                qp += 1
                wp |= bit(fin)
            if qp > q:
                q = qp
                win[0] = wp | bit(top)
            break
    return q


cdef bint lost_lead(const Ctx* c, int leader, mask_t* win) noexcept nogil:
    """True when the leader's side cannot win the trick it leads: in every suit the leader
    holds, no partner of the leader can ruff (void in the suit, or at any time without a
    duty to follow) and either a seat of the other side can ruff or the top card is the
    other side's. The top card is always a legal play for its holder, and only a trump beats
    it; a ruff wins when no seat of the leader's side can trump. `win` gets the top cards
    relied on (a ruff rests on suit lengths alone)."""
    cdef const tk_rules* r = c.r
    cdef int e, s, top
    cdef int mine = (c.side >> leader) & 1
    cdef mask_t live = 0, x, w = 0, tm = r.suit_mask[r.trump] if r.trump >= 0 else 0
    for s in range(c.n):
        live |= c.hand[s]
    cdef bint ruff
    for e in range(TK_SUITS):
        if (c.hand[leader] & r.suit_mask[e]) == 0:
            continue
        x = live & r.suit_mask[e]
        top = highest(x)
        ruff = False
        if e != r.trump and tm:
            for s in range(c.n):
                if (
                    s != leader
                    and ((c.hand[s] & r.suit_mask[e]) == 0 or not (r.duties & TK_FOLLOW))
                    and (c.hand[s] & tm) != 0
                ):
                    if ((c.side >> s) & 1) == mine:
                        return False
                    ruff = True
        if ruff:
            # a seat of the other side can ruff it and none of the leader's side can
            continue
        s = owner(c, top)
        if ((c.side >> s) & 1) == mine:
            return False
        w |= bit(top)
    win[0] = w
    return True


cdef bint all_fails(const Ctx* c, int leader, int R, mask_t* win) noexcept nogil:
    """True when the leader's side cannot take all `R` tricks left, with no trump live.

    To take them all the side must win every trick, so it leads every one. It cannot lead a
    suit whose top card the other side holds (that card is a legal play, and with no trump
    the highest card of the led suit wins), so every trick is led in a suit whose top card
    the side holds; each such trick takes a card of that suit from every hand of the side
    that holds one (under a duty to follow; without one, from the leader alone), so the side
    leads a suit at most as often as its longest holding in it (the sum of its holdings
    without a duty to follow). Fewer than `R` leads in all: the side loses a trick. This is
    DDS's later-tricks rule for no trump; a defender squeezed out of a top card would break
    the count, and the tests compare the rule with plain minimax on small deals of few ranks
    per suit, where tops and guards abound. `win` gets the other side's top cards relied
    on."""
    cdef const tk_rules* r = c.r
    cdef int e, s, k, mx, sm, tot = 0
    cdef int mine = (c.side >> leader) & 1
    cdef mask_t live = 0, x, w = 0
    cdef bint follow = (r.duties & TK_FOLLOW) != 0
    for s in range(c.n):
        live |= c.hand[s]
    if r.trump >= 0 and (live & r.suit_mask[r.trump]) != 0:
        return False
    for e in range(TK_SUITS):
        x = live & r.suit_mask[e]
        if x == 0:
            continue
        mx = 0
        sm = 0
        for s in range(c.n):
            if ((c.side >> s) & 1) == mine:
                k = popcount(c.hand[s] & x)
                sm += k
                if k > mx:
                    mx = k
        if mx == 0:
            continue
        s = owner(c, highest(x))
        if ((c.side >> s) & 1) == mine:
            tot += mx if follow else sm
            if tot >= R:
                return False
        else:
            w |= bit(highest(x))
    win[0] = w
    return True


cdef bint partner_ruff(const Ctx* c, int leader, mask_t* win) noexcept nogil:
    """Can the leader's side make sure of the trick it leads by a partner's ruff? The leader
    leads a side suit it holds in which a partner is void and holds a trump, while every
    seat of the other side must follow (holds the suit, under a duty to follow), holds no
    trump, or holds none above that partner's best (which over-ruffs it or stands: DDS's
    lowest quick trick). `win` gets the partner's best trump where an over-ruff is relied
    on; otherwise the ruff rests on suit lengths alone (no card)."""
    cdef const tk_rules* r = c.r
    cdef int e, s, pt
    cdef int mine = (c.side >> leader) & 1
    cdef bint follow = (r.duties & TK_FOLLOW) != 0, over
    cdef mask_t tm, se, f
    if r.trump < 0:
        return False
    tm = r.suit_mask[r.trump]
    for e in range(TK_SUITS):
        if e == r.trump:
            continue
        se = r.suit_mask[e]
        if (c.hand[leader] & se) == 0:
            continue
        # the partner's best trump among those void in the suit
        pt = -1
        for s in range(c.n):
            if s != leader and ((c.side >> s) & 1) == mine and (c.hand[s] & se) == 0:
                f = c.hand[s] & tm
                if f and highest(f) > pt:
                    pt = highest(f)
        if pt < 0:
            continue
        over = False
        for s in range(c.n):
            if ((c.side >> s) & 1) == mine:
                continue
            f = c.hand[s] & tm
            if f == 0 or (follow and (c.hand[s] & se) != 0):
                continue
            if highest(f) > pt:
                break
            over = True
        else:
            win[0] = bit(pt) if over else 0
            return True
    return False


cdef inline int side_tops_length(const Ctx* c, int leader, int ls, int* own) noexcept nogil:
    """The tricks the quick-trick rules (quick_tricks, partner_tricks) can count at most for
    the leader's side (`ls`): each counts only suits whose top card a hand of the side
    holds, and no more rounds than that hand's length (an entry to the partner is one of
    them). `own` gets the leader's part."""
    cdef int e, s, u = 0, k
    cdef mask_t live = 0, x
    for s in range(c.n):
        live |= c.hand[s]
    for e in range(TK_SUITS):
        x = live & c.r.suit_mask[e]
        if x == 0:
            continue
        s = owner(c, highest(x))
        if ((c.side >> s) & 1) == ls:
            k = popcount(c.hand[s] & c.r.suit_mask[e])
            u += k
            if s == leader:
                own[0] += k
    return u


cdef void trick_bounds(
    const Ctx* c, int leader, int R, bint cash_counts, int alpha, int beta,
    int* lo, int* hi, mask_t* wlo, mask_t* whi,
) noexcept nogil:
    """Bounds on the side's tricks from a trick start.

    Top trumps: the side holding the highest trump wins a trick with each trump a seat of it
    holds above every trump of the other side, whoever leads (the highest trump on a trick
    wins it, and every card gets played). Cashing: the leader's quick tricks are a lower bound for its side
    when the side may choose to take them (``cash_counts``: not for exact targets), and an
    upper bound for the other side in any case. `wlo`/`whi` get the cards each bound relies
    on (for the winning-ranks table). A bound is only worked out as far as the window
    (alpha, beta) needs: a cut-off that reads fewer cards makes a more general table entry."""
    cdef const tk_rules* r = c.r
    cdef int l = 0, h = R, s, top, cnt, q, need, mine, x, k, y, k2, k3, ls, ub, ul
    cdef bint ll, pr, useful
    cdef int tops[TK_MAX_SEATS]
    cdef int ks[TK_SUITS]
    cdef mask_t all_t = 0, tm, others_t, above, wt = 0, wq = 0, wl = 0, wh = 0, xt
    if r.trump >= 0:
        tm = r.suit_mask[r.trump]
        for s in range(c.n):
            all_t |= c.hand[s]
        all_t &= tm
        if all_t:
            top = highest(all_t)
            s = owner(c, top)
            mine = (c.side >> s) & 1
            others_t = 0
            for x in range(c.n):
                if ((c.side >> x) & 1) != mine:
                    others_t |= c.hand[x]
            others_t &= tm
            # every trump of the top trump's side above all of the other side's trumps
            # wins a trick for the side (partners may overtake each other; the trick stays
            # theirs): the most such trumps one seat holds
            above = tk_above(highest(others_t)) if others_t else ~(<mask_t>0)
            # the count rests on the side's trumps above the other side's best being the
            # top trumps: the lowest of them marks them all
            wt = bit(lowest(all_t & above)) if others_t else 0
            cnt = 0
            for x in range(c.n):
                if ((c.side >> x) & 1) == mine:
                    k = popcount(c.hand[x] & tm & above)
                    tops[x] = k
                    if k > cnt:
                        cnt = k
                    if k and not (r.duties & (TK_HEAD | TK_OVERTRUMP)) and (
                        cash_counts or not mine
                    ):
                        # Two hands of the side with such trumps, A and B: each trick in
                        # which A (or B) plays a trump can hold one of their top trumps, as
                        # long as the one with a low trump plays it whenever both play trumps
                        # (a duty to beat the winning card forbids that): they take at least
                        # min(a + b, max(len A, len B)) tricks. That is the side's choice
                        # (it may drop a top trump on the other's), so it bounds the
                        # objective's side from below only where it may choose to take its
                        # tricks (cash_counts: not for exact targets), the other side's
                        # tricks (an upper bound) always.
                        for y in range(x):
                            if ((c.side >> y) & 1) == mine and tops[y]:
                                k2 = popcount(c.hand[x] & tm)
                                k3 = popcount(c.hand[y] & tm)
                                if k3 > k2:
                                    k2 = k3
                                k3 = k + tops[y]
                                if k2 < k3:
                                    k3 = k2
                                if k3 > cnt:
                                    cnt = k3
            # The other side holds no trump and the leader is of this side: a partner void in
            # a side suit the leader holds ruffs it, and each of the leader's trumps wins
            # another trick (DDS's quick tricks with every trump on one side). Lengths only.
            # The side chooses to ruff: a lower bound for it only where it may (cash_counts).
            if others_t == 0 and ((c.side >> leader) & 1) == mine and (cash_counts or not mine):
                k = 1 + popcount(c.hand[leader] & tm)
                if k > cnt and (beta if mine else R - alpha) > cnt:
                    for x in range(c.n):
                        if x != leader and ((c.side >> x) & 1) == mine and c.hand[x] & tm:
                            for y in range(TK_SUITS):
                                if (
                                    y != r.trump
                                    and c.hand[leader] & r.suit_mask[y]
                                    and (c.hand[x] & r.suit_mask[y]) == 0
                                ):
                                    cnt = k
                                    break
            # only as many as a cut-off needs: one seat's top trumps down to the last one
            # needed mark fewer cards than the whole run above the other side's best
            k = beta if mine else R - alpha
            if others_t and k >= 1 and cnt >= k:
                for x in range(c.n):
                    if ((c.side >> x) & 1) == mine and tops[x] >= k:
                        y = k
                        wq = c.hand[x] & tm & above
                        while y > 1:
                            wq ^= bit(highest(wq))
                            y -= 1
                        wt = bit(highest(wq))
                        cnt = k
                        break
            if mine:
                l = cnt
                wl = wt
            else:
                h = R - cnt
                wh = wt
            # A hand of the other side sits right behind the top trump's holder (it plays
            # next after that holder in every trick it does not lead itself), every trump
            # above its best one is that holder's, m of them, it holds more than m trumps and
            # is not on lead: it takes a trick. Until it does it never leads; whenever it
            # must play a trump, the holder has played before it, so its best trump wins
            # unless one of the m higher ones is on the trick, and then it plays a lower
            # trump (it has one left) and keeps its best, which ends on top.
            # (the two rules below move a bound by one trick: only worked out where that
            # cuts or narrows the window, as the leader's rules further down)
            y = s + 1 if s + 1 < c.n else 0
            xt = c.hand[y] & tm
            if (
                (R - 1 < h and R - 1 < beta if mine else cash_counts and l < 1 and alpha < 1)
                and xt
                and y != leader
                and ((c.side >> y) & 1) != mine
                and not (r.duties & (TK_HEAD | TK_OVERTRUMP))
            ):
                above = tk_above(highest(xt))
                k = popcount(all_t & above)
                if (c.hand[s] & tm & above) == (all_t & above) and popcount(xt) > k:
                    if mine:
                        if R - 1 < h:
                            h = R - 1
                            wh = bit(highest(xt))
                    elif cash_counts and l < 1:
                        l = 1
                        wl = bit(highest(xt))
            # The side holding the top trump holds no other trump above the other side's
            # best two, and the hand with the second best holds another trump: the other
            # side takes a trick (DDS's later-tricks rule). The top trump can fell only one
            # of the two on a trick it is played to, and that hand keeps its second best
            # back with a lower trump; either of the two wins any trick the top trump is
            # not on. A duty to trump or to beat could force the two out together.
            if (
                (R - 1 < h and R - 1 < beta if mine else cash_counts and l < 1 and alpha < 1)
                and popcount(all_t) >= 3
                and not (r.duties & (TK_MUST_TRUMP | TK_HEAD | TK_OVERTRUMP))
            ):
                xt = all_t ^ bit(top)
                k2 = highest(xt)
                k3 = highest(xt ^ bit(k2))
                y = owner(c, k2)
                x = owner(c, k3)
                if (
                    ((c.side >> y) & 1) != mine
                    and ((c.side >> x) & 1) != mine
                    and popcount(c.hand[y] & tm) > 1
                ):
                    if mine:
                        if R - 1 < h:
                            h = R - 1
                            wh = bit(k3)
                    elif cash_counts and l < 1:
                        l = 1
                        wl = bit(k3)
    if l >= beta or h <= alpha:
        lo[0] = l
        hi[0] = h
        wlo[0] = wl
        whi[0] = wh
        return
    # The bounds below are worked out only where they can cut the window or narrow it (a
    # lower bound above alpha, an upper one below beta): the search reads a bound that does
    # neither nowhere (its windows are null: such a bound leaves every cut-off, value and
    # card set as it was), so the nodes stay the same and the time goes down.
    ls = (c.side >> leader) & 1
    if ls:
        need = beta
        ll = R - 1 < h and R - 1 < beta  # lost lead: an upper bound of R - 1
        pr = cash_counts and l < 1 and alpha < 1  # partner's ruff: a lower bound of 1
    else:
        need = R - alpha
        ll = cash_counts and l < 1 and alpha < 1
        pr = R - 1 < h and R - 1 < beta
    # The side's quick tricks, its partner's included, come from suits one of its hands
    # holds the top card of, at most that hand's length in each (ub): where ub cannot cut
    # or narrow, they are only worked out for whether they are none (the rules below)
    q = -1
    ul = 0
    ub = side_tops_length(c, leader, ls, &ul)
    if ub == 0:
        q = 0
    else:
        useful = (cash_counts and ub > alpha) if ls else R - ub < beta
        if useful or ll or pr:
            q = quick_tricks(c, leader, need, 0, 0, &wq, ks)
            # a partner adds no more than its own tops' lengths (ub - ul) to the leader's
            if q + ub - ul >= need or (q == 0 and ub > ul and (ll or pr)):
                q = partner_tricks(c, leader, q, need, &wq, ks)
            if ls:
                if cash_counts and q > l:
                    l = q
                    wl = wq
            elif R - q < h:
                h = R - q
                wh = wq
    # (lost_lead and partner_ruff never hold together: a partner's ruff wins the lead)
    if q == 0 and ll and lost_lead(c, leader, &wq):
        # whatever the leader leads, the other side can take this trick
        if (c.side >> leader) & 1:
            if R - 1 < h:
                h = R - 1
                wh = wq
        elif cash_counts and l < 1:
            l = 1
            wl = wq
    elif q == 0 and pr and partner_ruff(c, leader, &wq):
        # the leader's side can take this trick by a ruff
        if (c.side >> leader) & 1:
            if cash_counts and l < 1:
                l = 1
                wl = wq
        elif R - 1 < h:
            h = R - 1
            wh = wq
    if (c.side >> leader) & 1:
        # only worked out where it cuts: the side needs every trick left
        if h == R and alpha >= R - 1 and all_fails(c, leader, R, &wq):
            h = R - 1
            wh = wq
    elif cash_counts and l == 0 and beta <= 1 and all_fails(c, leader, R, &wq):
        l = 1
        wl = wq
    lo[0] = l
    hi[0] = h
    wlo[0] = wl
    whi[0] = wh


cdef bint sure_trick(
    const Ctx* c, const tk_trick* t, int seat, mask_t legal, mask_t* win, int* by, int* card
) noexcept nogil:
    """Can `seat`'s side make sure of the trick in progress? Either a partner's card already
    wins it and cannot be beaten later (and `seat` may play under it), or `seat` can play such
    a card itself. `win` gets the card relied on, `by` the seat that will win the trick and
    `card` the card `seat` plays to win it (-1 when the partner's card holds)."""
    cdef const tk_rules* r = c.r
    cdef int m, i
    cdef mask_t x
    if ((c.side >> t.win_seat) & 1) == ((c.side >> seat) & 1) and not beaten_later(
        c, t, seat, t.win_card
    ):
        x = legal
        while x:
            m = lowest(x)
            x &= x - 1
            if not tk_beats(r, m, t.win_card):
                win[0] = bit(t.win_card)
                by[0] = t.win_seat
                card[0] = -1
                return True
    # only the highest legal card of the led suit and of trumps can be the best try: a
    # lower card of the same suit is beaten whenever that one is (and relies on more ranks)
    for i in range(2):
        if i == 0:
            x = legal & r.suit_mask[t.led]
        elif r.trump >= 0 and r.trump != t.led:
            x = legal & r.suit_mask[r.trump]
        else:
            break
        if x == 0:
            continue
        m = highest(x)
        if tk_beats(r, m, t.win_card) and not beaten_later(c, t, seat, m):
            win[0] = bit(m)
            by[0] = seat
            card[0] = m
            return True
    return False


cdef int sure_then_cash(
    Ctx* c, const tk_trick* t, int seat, mask_t legal, int need, mask_t* win
) noexcept nogil:
    """Tricks `seat`'s side makes sure of from here (this one included): 0, or 1 for the
    trick in progress (see sure_trick) plus, when `need` asks for more, the quick tricks of
    the seat that wins it, which leads next (DDS's second-hand quick tricks). Only when no
    partner playing later could overtake the winning card (a duty may make it), or another
    seat would lead. The winner's tricks are counted with the other hands as they are now:
    the cards still to come to this trick only add to what the winner must beat, so the
    count stays true. `win` gets the cards relied on."""
    cdef const tk_rules* r = c.r
    cdef int by, card, wc, q = 0, i, s, mine = (c.side >> seat) & 1, pending
    cdef mask_t w, wq = 0, f
    if not sure_trick(c, t, seat, legal, &w, &by, &card):
        return 0
    win[0] = w
    if need <= 1:
        return 1
    wc = card if card >= 0 else t.win_card
    for i in range(t.count + 1, c.n):
        s = t.leader + i
        if s >= c.n:
            s -= c.n
        if ((c.side >> s) & 1) != mine:
            continue
        f = c.hand[s] & r.suit_mask[t.led]
        if f and tk_beats(r, highest(f), wc):
            return 1
        if r.trump >= 0 and (not f or not (r.duties & TK_FOLLOW)):
            f = c.hand[s] & r.suit_mask[r.trump]
            if f and tk_beats(r, highest(f), wc):
                return 1
    # the seats still to play to this trick (`seat` too, unless its card is taken out here)
    pending = 0
    for i in range(t.count, c.n):
        s = t.leader + i
        if s >= c.n:
            s -= c.n
        pending |= 1 << s
    if card >= 0:
        c.hand[seat] ^= bit(card)
        pending &= ~(1 << seat)
    if c.hand[by] != 0:
        q = quick_tricks(c, by, need - 1, pending, 0, &wq, NULL)
    if card >= 0:
        c.hand[seat] ^= bit(card)
    win[0] = w | wq
    return 1 + q
