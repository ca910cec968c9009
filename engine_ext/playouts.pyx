# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Playouts of trick play: deals played to the end by a cheap policy, many times, in C.

The rules come from :class:`~levata.engine.rules.TrickRules`; hands are card masks, a trick
in progress the card indexes played to it from ``leader``. Every call takes a ``seed`` and
keeps its random state to itself, so calls repeat and may run in parallel threads (the loops
release the GIL).

>>> from levata.engine.rules import TrickRules
>>> r = TrickRules(2, None)
>>> playout(r, [0b1100, 0b0011], 0, policy="greedy")
([2, 0], [0, 0])
"""

from libc.stdlib cimport calloc, free
from libc.string cimport memset

from levata.engine.cardmask cimport bit, highest, lowest, mask_t, popcount
from levata.engine.rules cimport (
    TK_MAX_SEATS,
    TK_SUITS,
    TK_SURE_POT,
    TrickRules,
    as_mask,
    load_position,
    load_pot,
    tk_above,
    tk_legal,
    tk_play,
    tk_pot,
    tk_rules,
    sure_pot_cards,
    tk_start,
    tk_trick,
)

from levata.engine.splitmix cimport below_n, next_random

__all__ = ["aim_lines", "aim_reach", "deal_playouts", "playout", "playouts"]


cdef int pick_low(const tk_rules* r, mask_t legal, bint high) noexcept nogil:
    """The lowest (or highest) card by rank within its suit, trumps kept (or spent) last."""
    cdef int e, best = -1, best_rank = 0, rank, m
    cdef mask_t x
    cdef int pass_
    for pass_ in range(2):
        for e in range(TK_SUITS):
            if (e == r.trump) != (pass_ == 1):
                continue
            x = legal & r.suit_mask[e]
            if x == 0:
                continue
            m = highest(x) if high else lowest(x)
            rank = m - lowest(r.suit_mask[e])
            if best < 0 or (rank > best_rank if high else rank < best_rank):
                best = m
                best_rank = rank
        if best >= 0:
            return best
    return lowest(legal)


cdef int greedy_card(const tk_rules* r, mask_t legal, const tk_trick* t, int seat) noexcept nogil:
    """A cheap policy: lead high; partner winning -> low; else the cheapest winner; else low."""
    cdef mask_t win, same
    cdef int w
    if t.count == 0:
        return pick_low(r, legal, 1)
    w = t.win_card
    if r.team[t.win_seat] == r.team[seat]:
        return pick_low(r, legal, 0)
    same = legal & r.suit_mask[r.suit_of[w]] & tk_above(w)
    if same:
        return lowest(same)
    if r.trump >= 0 and r.suit_of[w] != r.trump:
        win = legal & r.suit_mask[r.trump]
        if win:
            return lowest(win)
    return pick_low(r, legal, 0)


cdef inline int random_card(mask_t legal, unsigned long long* rng) noexcept nogil:
    cdef int k = below_n(rng, popcount(legal))
    while k > 0:
        legal &= legal - 1
        k -= 1
    return lowest(legal)


cdef void run_playout(
    const tk_rules* r,
    mask_t* hands,
    tk_trick t,
    int policy,
    double epsilon,
    unsigned long long* rng,
    int* won,
    int* pts,
    const tk_pot* pot,
) noexcept nogil:
    """Play the deal out from `t` (hands are consumed); add tricks and points per seat.
    `pot`: the sure-pot duty's facts at `t` (NULL: none won, none hidden), for rules with it."""
    cdef int n = r.seats, seat, card, i, g
    cdef mask_t legal, x
    cdef bint duty = (r.duties & TK_SURE_POT) != 0
    cdef tk_pot q
    if duty:
        if pot != NULL:
            q = pot[0]
        else:
            memset(&q, 0, sizeof(tk_pot))
    while True:
        seat = t.leader + t.count
        if seat >= n:
            seat -= n
        if hands[seat] == 0:
            return
        legal = tk_legal(r, hands[seat], &t)
        if duty:
            legal = sure_pot_cards(r, hands, &t, seat, &q, legal)
        if policy == P_RANDOM or (
            epsilon > 0 and <double>(next_random(rng) >> 11) * (1.0 / 9007199254740992.0) < epsilon
        ):
            card = random_card(legal, rng)
        else:
            card = greedy_card(r, legal, &t, seat)
        hands[seat] ^= bit(card)
        tk_play(r, &t, card)
        if t.count == n:
            won[t.win_seat] += 1
            if duty:
                q.won[t.win_seat] += 1
            g = 0
            x = t.cards
            while x:
                i = lowest(x)
                x &= x - 1
                g += r.points[i]
            if hands[t.win_seat] == 0:
                g += r.last_bonus
            pts[t.win_seat] += g
            tk_start(&t, t.win_seat)


cdef int _policy(object policy) except -1:
    if policy == "random":
        return P_RANDOM
    if policy == "greedy":
        return P_GREEDY
    raise ValueError(f"policy must be 'random' or 'greedy', not {policy!r}")


def playout(
    TrickRules rules not None, hands, int leader, trick=(), *, policy="random",
    double epsilon=0.0, seed=0, won=None, hidden=None,
):
    """Play one deal out; returns ``(tricks, points)``, lists indexed by seat, counting from
    the position (the trick in progress included).

    ``policy``: ``"random"`` (uniform over legal cards) or ``"greedy"`` (lead high, play low
    under a winning partner, else win as cheaply as possible, else play low); ``epsilon``: the
    chance of a uniform random card at each turn of the greedy policy. ``won``, ``hidden``:
    for rules with the sure-pot duty, per seat the tricks won before the position and the
    cards out of play it has not seen (:func:`~levata.engine.rules.legal_moves`).

    >>> from levata.engine.rules import TrickRules
    >>> r = TrickRules(2, None)
    >>> playout(r, [0b1100, 0b0011], 0, policy="greedy")
    ([2, 0], [0, 0])
    """
    cdef mask_t h[TK_MAX_SEATS]
    cdef tk_trick t
    cdef int won_[TK_MAX_SEATS]
    cdef int pts[TK_MAX_SEATS]
    cdef unsigned long long rng = <unsigned long long>(int(seed) & 0xFFFFFFFFFFFFFFFF)
    cdef int p = _policy(policy)
    cdef tk_pot pot
    load_position(rules, hands, leader, trick, h, &t)
    load_pot(rules, won, hidden, &pot)
    memset(won_, 0, sizeof(won_))
    memset(pts, 0, sizeof(pts))
    with nogil:
        run_playout(&rules.c, h, t, p, epsilon, &rng, won_, pts, &pot)
    return [won_[s] for s in range(rules.seats)], [pts[s] for s in range(rules.seats)]


def playouts(
    TrickRules rules not None, hands, int leader, trick=(), *, int n=1000, policy="random",
    double epsilon=0.0, seed=0, won=None, hidden=None,
):
    """Play the same position out ``n`` times; returns a dict of per-seat lists:
    ``tricks`` and ``points`` (means) and ``hist`` (``hist[s][k]``: playouts where seat ``s``
    took ``k`` tricks from the position, for exact-bid games). ``won``, ``hidden``: the
    sure-pot duty's facts, as for :func:`playout`.

    >>> from levata.engine.rules import TrickRules
    >>> r = TrickRules(2, None)
    >>> playouts(r, [0b1100, 0b0011], 0, n=10)["hist"]
    [[0, 0, 10], [10, 0, 0]]
    """
    cdef mask_t h[TK_MAX_SEATS]
    cdef mask_t w[TK_MAX_SEATS]
    cdef tk_trick t
    cdef int won_[TK_MAX_SEATS]
    cdef int pts[TK_MAX_SEATS]
    cdef long long tot_won[TK_MAX_SEATS]
    cdef long long tot_pts[TK_MAX_SEATS]
    cdef int seats = rules.seats, s, i, size
    cdef int p = _policy(policy)
    cdef unsigned long long rng = <unsigned long long>(int(seed) & 0xFFFFFFFFFFFFFFFF)
    cdef long long* hist
    cdef tk_pot pot
    if n < 1:
        raise ValueError("n must be at least 1")
    load_position(rules, hands, leader, trick, h, &t)
    load_pot(rules, won, hidden, &pot)
    size = popcount(h[(leader + len(trick)) % seats]) + 1
    hist = <long long*>calloc(seats * size, sizeof(long long))
    if hist == NULL:
        raise MemoryError()
    memset(tot_won, 0, sizeof(tot_won))
    memset(tot_pts, 0, sizeof(tot_pts))
    try:
        with nogil:
            for i in range(n):
                for s in range(seats):
                    w[s] = h[s]
                    won_[s] = 0
                    pts[s] = 0
                run_playout(&rules.c, w, t, p, epsilon, &rng, won_, pts, &pot)
                for s in range(seats):
                    tot_won[s] += won_[s]
                    tot_pts[s] += pts[s]
                    hist[s * size + won_[s]] += 1
        return {
            "tricks": [<double>tot_won[s] / n for s in range(seats)],
            "points": [<double>tot_pts[s] / n for s in range(seats)],
            "hist": [[hist[s * size + k] for k in range(size)] for s in range(seats)],
        }
    finally:
        free(hist)


def deal_playouts(
    TrickRules rules not None, deck, int cards, *, int n=1000, leader=None,
    policy="random", double epsilon=0.0, seed=0,
):
    """Deal ``cards`` cards to every seat from ``deck`` (a mask or iterable of cards) and play
    the deal out, ``n`` times, all inside C. ``leader``: a seat, or ``None`` for a random one
    each deal. Returns ``{"tricks": [...], "points": [...]}`` summed per seat over all deals.

    >>> from levata.engine.cardmask import mask_of
    >>> from levata.engine.games.whist import whist_deck
    >>> from levata.engine.rules import TrickRules
    >>> r = TrickRules(4, None, must_trump=True)   # Romanian Whist, no trump
    >>> sum(deal_playouts(r, mask_of(whist_deck(4)), 8, n=100)["tricks"])
    800
    """
    cdef mask_t d = rules.to_internal(as_mask(deck))
    cdef int seats = rules.seats, s, i, j, k, lead, total, fixed_leader = -1
    cdef int p = _policy(policy)
    cdef int pool[64]
    cdef mask_t h[TK_MAX_SEATS]
    cdef int won[TK_MAX_SEATS]
    cdef int pts[TK_MAX_SEATS]
    cdef long long tot_won[TK_MAX_SEATS]
    cdef long long tot_pts[TK_MAX_SEATS]
    cdef tk_trick t
    cdef unsigned long long rng = <unsigned long long>(int(seed) & 0xFFFFFFFFFFFFFFFF)
    total = popcount(d)
    if cards < 1 or cards * seats > total:
        raise ValueError(f"{seats} hands of {cards} cards need more than the {total} in the deck")
    if leader is not None:
        fixed_leader = int(leader)
        if not 0 <= fixed_leader < seats:
            raise ValueError(f"leader {leader} is not a seat")
    i = 0
    while d:
        pool[i] = lowest(d)
        d &= d - 1
        i += 1
    memset(tot_won, 0, sizeof(tot_won))
    memset(tot_pts, 0, sizeof(tot_pts))
    with nogil:
        for i in range(n):
            # partial Fisher-Yates: only the dealt prefix needs shuffling
            for j in range(cards * seats):
                k = j + below_n(&rng, total - j)
                s = pool[j]
                pool[j] = pool[k]
                pool[k] = s
            for s in range(seats):
                h[s] = 0
                won[s] = 0
                pts[s] = 0
            for j in range(cards * seats):
                h[j % seats] |= bit(pool[j])
            lead = fixed_leader if fixed_leader >= 0 else below_n(&rng, seats)
            tk_start(&t, lead)
            run_playout(&rules.c, h, t, p, epsilon, &rng, won, pts, NULL)
            for s in range(seats):
                tot_won[s] += won[s]
                tot_pts[s] += pts[s]
    return {
        "tricks": [tot_won[s] for s in range(seats)],
        "points": [tot_pts[s] for s in range(seats)],
    }


# ------------------------------------------------------------------------------------------
# Steering for a number of tricks: what one seat can end with against players who aim


cdef int strongest(const tk_rules* r, mask_t legal) noexcept nogil:
    """The strongest card: the highest trump, else the highest-ranked card of any suit."""
    cdef int e, best = -1, best_rank = -1, rank, m
    cdef mask_t x
    if r.trump >= 0:
        x = legal & r.suit_mask[r.trump]
        if x:
            return highest(x)
    for e in range(TK_SUITS):
        x = legal & r.suit_mask[e]
        if x == 0:
            continue
        m = highest(x)
        rank = m - lowest(r.suit_mask[e])
        if rank > best_rank:
            best = m
            best_rank = rank
    return best


cdef inline mask_t beaters(const tk_rules* r, mask_t legal, const tk_trick* t) noexcept nogil:
    """The cards of `legal` that would win the trick now."""
    cdef int w = t.win_card
    cdef mask_t b = legal & r.suit_mask[r.suit_of[w]] & tk_above(w)
    if r.trump >= 0 and r.suit_of[w] != r.trump:
        b |= legal & r.suit_mask[r.trump]
    return b


cdef int aim_card(
    const tk_rules* r, mask_t legal, const tk_trick* t, bint short, bint last
) noexcept nogil:
    """The card of a seat steering for its number (``aim_playout``'s policy): short of it,
    win (lead the strongest; the cheapest winner last to play, the strongest before);
    once it is made, lose (a low lead, the strongest card that still loses)."""
    cdef mask_t win, lose
    if t.count == 0:
        return strongest(r, legal) if short else pick_low(r, legal, 0)
    win = beaters(r, legal, t)
    if short and win:
        return pick_low(r, win, 0) if last else strongest(r, win)
    lose = legal & ~win
    if not short and lose:
        return strongest(r, lose)
    return pick_low(r, legal, 0)


cdef mask_t reach(
    const tk_rules* r,
    const mask_t* hands,
    tk_trick t,
    const int* got,
    const int* targets,
    int seat,
    long long* budget,
) noexcept nogil:
    """The trick totals `seat` can end with (bit k: k tricks) choosing its cards freely
    while every other seat plays `aim_card` toward its target. Cards of one suit with no
    card of another hand (or the trick) between them are one choice. Stops branching once
    `budget` nodes are spent (the totals found so far)."""
    cdef mask_t h[TK_MAX_SEATS]
    cdef mask_t h2[TK_MAX_SEATS]
    cdef int g[TK_MAX_SEATS]
    cdef int g2[TK_MAX_SEATS]
    cdef int n = r.seats, s, o, c, prev, card
    cdef mask_t legal, x, outside, result = 0
    cdef tk_trick t2
    for s in range(n):
        h[s] = hands[s]
        g[s] = got[s]
    while True:
        s = t.leader + t.count
        if s >= n:
            s -= n
        if h[s] == 0:
            return bit(g[seat])
        legal = tk_legal(r, h[s], &t)
        if s == seat:
            break
        card = aim_card(r, legal, &t, g[s] < targets[s], t.count == n - 1)
        h[s] ^= bit(card)
        tk_play(r, &t, card)
        if t.count == n:
            g[t.win_seat] += 1
            tk_start(&t, t.win_seat)
    budget[0] -= 1
    outside = t.cards
    for o in range(n):
        if o != seat:
            outside |= h[o]
    x = legal
    prev = -1
    while x:
        c = lowest(x)
        x &= x - 1
        if prev >= 0 and r.suit_of[prev] == r.suit_of[c]:
            if outside & (((<mask_t>1) << c) - 1) & ~(((<mask_t>2) << prev) - 1) == 0:
                prev = c  # nothing anyone else holds lies between: the same choice
                continue
        prev = c
        if result and budget[0] <= 0:
            break
        for o in range(n):
            h2[o] = h[o]
            g2[o] = g[o]
        h2[seat] ^= bit(c)
        t2 = t
        tk_play(r, &t2, c)
        if t2.count == n:
            g2[t2.win_seat] += 1
            tk_start(&t2, t2.win_seat)
        result |= reach(r, h2, t2, g2, targets, seat, budget)
    return result


cdef int read_aims(int n, targets, taken, int seat, int* got, int* aims) except -1:
    """Every seat's target and tricks taken (none: 0 each) into ``aims`` and ``got``,
    checked: one of each per seat, and ``seat`` one of them."""
    targets = list(targets)
    taken = list(taken) if taken is not None else [0] * n
    if len(targets) != n or len(taken) != n:
        raise ValueError(f"need {n} targets and {n} tricks taken")
    if not 0 <= seat < n:
        raise ValueError(f"seat {seat} is not a seat of {n}")
    for s in range(n):
        got[s] = taken[s]
        aims[s] = targets[s]
    return 0


def aim_reach(
    TrickRules rules not None, hands, int leader, trick=(), targets=(), int seat=0,
    taken=None, long long max_nodes=200000,
):
    """The trick totals ``seat`` can end the deal with when it picks its cards freely and
    every other seat steers for ``targets[seat]`` tricks the way
    :func:`~levata.bots.strategy.aim_playout` plays (short of it: win; made: duck).
    A mask: bit ``k`` set when ``k`` tricks (``taken`` before the position included) are
    within reach. Not what the seat can force against everyone (the solver's paranoid
    value), but what it can steer to against players who play for their own numbers.
    ``max_nodes`` bounds the search (then: the totals found within it).

    >>> from levata.engine.rules import TrickRules
    >>> r = TrickRules(2, None)
    >>> bin(aim_reach(r, [0b1010, 0b0101], 0, targets=[0, 0], seat=0))  # 3 and 1 against 2 and 0: both
    '0b100'
    >>> bin(aim_reach(r, [0b010101, 0b101010], 0, targets=[0, 0], seat=0))  # 0, 1 or 2
    '0b111'
    """
    cdef mask_t h[TK_MAX_SEATS]
    cdef tk_trick t
    cdef int got[TK_MAX_SEATS]
    cdef int aims[TK_MAX_SEATS]
    cdef int s, n = rules.seats
    cdef long long budget = max_nodes
    cdef mask_t out
    load_position(rules, hands, leader, trick, h, &t)
    read_aims(n, targets, taken, seat, got, aims)
    with nogil:
        out = reach(&rules.c, h, t, got, aims, seat, &budget)
    return int(out)


# ------------------------------------------------------------------------------------------
# Lines of one seat's own: fixed ways of steering for its number, each played to the end


cdef int own_card(
    const tk_rules* r, mask_t legal, const tk_trick* t, int need, int left, bint last,
    int style,
) noexcept nogil:
    """The card of `seat` steering by `style` (bit 0: win with the cheapest winner, not the
    strongest; bit 1: lead the strongest side-suit card to win, trumps kept; style >> 2:
    the pace, in percent of the cards left, that the tricks still needed must reach before
    it plays to win, else it waits: low leads, the lowest loser). Style 0 is `aim_card`."""
    cdef mask_t win, lose, side
    if need <= 0:
        return aim_card(r, legal, t, 0, last)
    if 100 * need >= (style >> 2) * left:  # play to win
        if t.count == 0:
            side = legal & ~r.suit_mask[r.trump] if (style & 2 and r.trump >= 0) else 0
            return strongest(r, side if side else legal)
        win = beaters(r, legal, t)
        if win:
            return pick_low(r, win, 0) if (last or style & 1) else strongest(r, win)
        return pick_low(r, legal, 0)
    if t.count == 0:
        return pick_low(r, legal, 0)
    lose = legal & ~beaters(r, legal, t)
    return pick_low(r, lose if lose else legal, 0)


def aim_lines(
    TrickRules rules not None, hands, int leader, trick=(), targets=(), int seat=0,
    taken=None, styles=(0,),
):
    """The tricks ``seat`` ends the deal with (``taken`` before the position included) on
    each of its own ``styles`` of steering for ``targets[seat]``, every other seat aiming at
    its target the way :func:`~levata.bots.strategy.aim_playout` plays. A style is
    ``cheap + 2 * side + 4 * pace``: ``cheap`` (0 or 1) wins with the cheapest winner
    rather than the strongest before the last hand; ``side`` (0 or 1) leads to win with the
    strongest card of a side suit, keeping its trumps; while the tricks still needed are
    under ``pace`` percent of the seat's cards left it waits (leads low, plays its lowest
    loser). Style 0 is :func:`aim_playout`'s own play; each decides from what the seat sees.

    >>> from levata.engine.cards import parse_cards
    >>> from levata.engine.rules import TrickRules
    >>> hands = [parse_cards("AS 7H"), parse_cards("KH 8S")]
    >>> aim_lines(TrickRules(2, None), hands, 0, targets=[1, 0], seat=0, styles=(0, 400))
    [1, 1]
    """
    cdef mask_t h[TK_MAX_SEATS]
    cdef mask_t start[TK_MAX_SEATS]
    cdef tk_trick t0, t
    cdef int got0[TK_MAX_SEATS]
    cdef int g[TK_MAX_SEATS]
    cdef int aims[TK_MAX_SEATS]
    cdef int s, n = rules.seats, card, style
    cdef mask_t legal
    cdef const tk_rules* r = &rules.c
    load_position(rules, hands, leader, trick, start, &t0)
    read_aims(n, targets, taken, seat, got0, aims)
    out = []
    for style in styles:
        for s in range(n):
            h[s] = start[s]
            g[s] = got0[s]
        t = t0
        with nogil:
            while True:
                s = t.leader + t.count
                if s >= n:
                    s -= n
                if h[s] == 0:
                    break
                legal = tk_legal(r, h[s], &t)
                if s == seat:
                    card = own_card(
                        r, legal, &t, aims[s] - g[s], popcount(h[s]), t.count == n - 1, style
                    )
                else:
                    card = aim_card(r, legal, &t, g[s] < aims[s], t.count == n - 1)
                h[s] ^= bit(card)
                tk_play(r, &t, card)
                if t.count == n:
                    g[t.win_seat] += 1
                    tk_start(&t, t.win_seat)
        out.append(g[seat])
    return out
