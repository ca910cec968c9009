# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Moves of the double-dummy solver: which cards a node searches, and in what order.

Which: one card of each run of equivalent cards (``representatives``: adjacent in power
among the live cards, equal points when points count), and the ranks a merged run adds to
a proof (``class_ranks``) so that a stored bound covers every card the run stood for;
these, and the hint's coding, are inline in ``solver_order.pxd``. In what order
(:func:`order_moves`): static card-play rules (cash a sure winner, lead towards a partner's
top card or ruff, away from the other side's length and ruffs, through the second hand's top
to a partner's second best, not into the fourth hand's honours; follow low under a partner's
winner, else the cheapest card that wins, else force the fourth hand's top out cheaply, else
discard from length) plus two killer leads per path of tricks (``killer_slot``: the tricks'
winning suits and changes of side, tricks left and leader) and the table's best card (a hint,
stored by its relative rank: ``rel_rank`` writes it, ``hint_card`` reads it back). Alpha-beta
cuts sooner the better the order, so this is where node counts move without a change of
value: every order gives the same answers.

The scores are a tunable table, ``_order_weights`` (``benchmarks/solver_tune.py`` tunes it
by node counts). The ordering reads the bounds' test of a card that cannot be beaten later
in the trick (``solver_bounds.pxd``) and no table.

Measured (trick starts, 200 deals each of seeds 3 and 11; DDS's src/Moves.cpp for the ideas):
kept, one at a time on top of each other: the hint added to the static score below a
killer instead of first whatever it is (-2%, -3%: a hint from a fail-low entry is a poor
guess, the killer a better one); third hand forcing out the fourth hand's top with the
cheapest card above its second best (DDS's RankForcesAce; -5%, -4%); at leads, through the
second hand's top to a partner's second best (-3%, -2%), not into the fourth hand's top
or second best (-2%, -1%), the suit whose second and third best our side holds (-2%, -4%),
the leader's card of such a run (-1%, -1%), a second killer (-2%, -2%); then the killer
5000 -> 2500 (-5%, -3%); a re-tune (-2%, -5%). All together: -21% and -20% trick starts
(medians -23%, -27%; p90 -21%, -20%).
Dropped: a killer at follows (per cards held and seat: +100% at the smallest weight, the
static rules cut first at 97-99% of follows); no hint stored from a fail-low or fail-high
node (+1%); a penalty for every further card of a suit led, to try other suits sooner
(+1% to +4%); leads that drop a singleton top of an opponent, a singleton to a partner's top
for a ruff back, any card atop a sequence (0 to +4%); third hand overtaking a partner's
last card of the suit with the suit's top (+2%); not baring a king or throwing a bare ace
(0%); after the re-tune: a bonus or penalty for a suit whose top two cards our side holds
(+1% to +4%), the forcing play at second hand too (seed 11 +1%, log-sum worse on both), no
trump leads in a suit the partner is void in, penalised (-0.1%, noise); the other scores
moved by a quarter either way (within 1%, no better on both seeds).
Then at no trump leads (DDS's WeightAllocNT0 for ideas), kept: per card of the partner's
length in the suit led, 50 (trick starts -0.2% and -1.4%, nodes -0.2% and -1.4%; no-trump
deals' starts -1.7% and -13.5%; 25 and 80 less good on seed 3, 150 worse).
Dropped (trick starts on seeds 3 / 11, on top of the partner's length where marked +):
our side's length per card at no trump, +-50 (+0.3% / +0.1%, +1.0% / -0.05%), +-20 with
the partner's length (both worse on one seed); the partner's longest suit +300 (+0.1% /
-0.1%, and + worse); the other side's length at no trump +-50 over O_THEIR_LENGTH
(within 0.1%, + worse on seed 3); a lead where the fourth hand holds a tenace (top and
third best) over the second's second best, +-300 and +600 (+0.1% / 0.0%); at trump, the
partner's length +-50 (+0.9% / +2.8%, -0.3% / +1.8%) and the leader's own length +-30
(+0.7% / +1.6%, -0.3% / +1.3%); no-trump lead rank per rank +20 / -1 (seed 11 +1.2%
/ +0.1%); no-trump-only values of the other scores (to partner 1800/3300, finesse
1000/3000, into the fourth hand 0/800, killer 1500/3500, their length 100/200, establish
500/1600): none lower on both seeds (best: establish 1600, -0.3% / +0.1%).
Then (300 deals of seeds 3 / 11, trick starts), kept with the search's per-window resets
(solver.pyx): the best card of the last table entry that cut off a look-up at this depth and
leader, below the hint (DDS's bestMoveTT; alone -0.5% / -0.3% at 300, 800 -0.7% / +0.4%,
1500 +0.4% / +1.3%). Dropped: a trump-only killer of 1200 / 1800 / 3500 (+0.5% / +2.6%,
+0.1% / +1.5%, +2.8% / +4.1%).
Then killers per path instead of per depth and leader (solver_state's ``killer_slot``):
positions reached by tricks won in the same suits by the same sides (the cards that
followed aside) mostly share their best lead, where positions at one depth at large do not.
Trick starts -10.8% / -11.4% at the old weights, then killer 2500 -> 6000 (above a cash:
the killer is right more often now) and second killer 500 -> 2500: -16.2% / -14.8% in all
(nodes -16.4% / -15.4%), the median deal -16% (nodes). What a trick adds to the path, tried
(at the old weights): the led suit of the last trick only (no path: -2.8% / -3.0%); the
winner's suit and seat from the last leader, last trick only (-4.9% / -4.9%); over the path,
that (-10.5% / -11.0%), with the led suit (-10.4% / -11.6%), the led suit instead of the
winner's (-10.1% / -11.0%), the winning card itself (-9.4% / -9.9%), the winner's seat alone
(-3.7% / -4.3%), all four cards (+15.9% / +15.4%: too fine to share). Killer 5000 / 7000
/ 10000 (-15.5% / -14.4%, -16.0% / -14.6%, -15.9% / -13.7%), killer2 1000 / 1500 with 4000 /
7000 (within 0.5%), the hint 2500 (+0.2% / +0.6%), the path's killers kept across null
windows (+0.5% / +0.7%); a killer per depth as the second killer (+6% / +9%), or first with
the path's as the second (+11% / +11%); a third killer of 800 / 1500 (-0.1% / -0.2%,
-0.2% / -0.3%); the table-cut hint per path too (+0.2% / +0.7%); a path of the last 2 / 3 /
4 tricks only (+27% / +28%, +8% / +7%, +1.5% / +1.1%; 5 or 7: within 0.2%); a path blind to
the tricks' order (a sum over them: +0.3% / +1.5%). Slots: 2^14 and 2^15 +0.8% / +0.6% and
+0.5% / +0.1% against 2^16.
"""

from levata.engine.cardmask cimport below, bit, highest, lowest, mask_t, popcount
from levata.engine.rules cimport TK_FOLLOW, TK_SUITS, tk_above, tk_beats, tk_rules, tk_trick
from levata.engine.solver_bounds cimport beaten_by, beaten_later, later_threats
from levata.engine.solver_state cimport K_POINTS, Ctx, killer_slot, owner


cdef enum:
    # Move-ordering scores (higher first). Tuned on random bridge deals by node counts (the
    # last time by benchmarks/solver_tune.py, 100 deals of seed 11, after the rules from
    # DDS below: the killer 5000 -> 2500, -5% trick starts; then the hint 2500 -> 1250, the
    # other side's length 120 -> 150 and the DDS rules' weights, -2% and -5% on seeds 3 and
    # 11); the static rules beat history/killer tables everywhere except at leads.
    O_KILLER = 6000         # the lead that last cut off with the same path, tricks left, leader
    O_CASH = 4500           # a lead nobody can beat, or a follow that will win the trick
    O_SAFE_LOW = 3000       # a follow under a partner's card that will win
    O_OVERTAKE = 1000       # ... minus this for beating that partner's card anyway
    O_CONTEST = 3500        # a follow that beats the trick for now (cheapest first: OW[15])
    O_LOW = 2500            # everything else, lowest first
    O_TO_PARTNER = 2500     # a lead in a suit whose top card a partner holds
    O_PARTNER_RUFF = 800    # a lead a partner can ruff
    O_THEY_RUFF = 1200      # a lead the other side can ruff
    O_TRUMP_LEAD = 300      # a trump lead when the other side holds the top trump
    O_LENGTH = 2            # per card of the suit, for a discard (discard from length)
    O_KEEP_TRUMP = 500      # a trump discarded
    O_THEIR_LENGTH = 150    # per card the other side holds in a suit led
    O_THEIR_VOID = 16       # ... a void in it counts as this many cards
    # DDS's ideas (src/Moves.cpp), kept one at a time for fewer nodes on seeds 3 and 11:
    O_HINT_ADD = 1250       # the table's best card: added to its score, below a killer
    O_RHO_HIGH = 375        # a lead into the fourth hand's top or second-best card
    O_FINESSE = 2000        # a lead through the second hand's top to a partner's second best
    O_ESTABLISH = 1000      # a suit whose second and third best our side holds, not the top
    O_SEQ_LEAD = 600        # the card of the leader's run holding those two (KQ, A out)
    O_KILLER2 = 2500        # the lead that cut off before the killer
    O_FORCE = 300           # third hand: the cheapest card that forces out the fourth's top
    O_NT_PD_LEN = 50        # no trump leads: per card the partner holds in the suit
    O_TT_HINT = 300         # the best card of the last table entry that cut at this depth
    # (the killers were 2500 and 500 while they were per depth and leader, not per path)


# Tunable copies of the scores above (benchmarks/solver_tune.py tunes them by node counts)
cdef int OW[27]
OW[0] = O_HINT_ADD
OW[1] = O_KILLER
OW[2] = O_CASH
OW[3] = O_SAFE_LOW
OW[4] = O_OVERTAKE
OW[5] = O_CONTEST
OW[6] = O_LOW
OW[7] = O_TO_PARTNER
OW[8] = O_PARTNER_RUFF
OW[9] = O_THEY_RUFF
OW[10] = O_TRUMP_LEAD
OW[11] = O_LENGTH
OW[12] = O_KEEP_TRUMP
OW[13] = O_THEIR_LENGTH
OW[14] = O_THEIR_VOID
OW[15] = -1      # per relative rank: a contesting follow prefers higher cards (tuned: lower)
OW[16] = O_CONTEST  # a second-hand follow that beats the trick for now
OW[17] = 1       # per relative rank: a lead that does not cash prefers lower cards
OW[18] = 0       # a lead in a suit the leader's side holds the top card of, not cashing
OW[19] = O_RHO_HIGH
OW[20] = O_FINESSE
OW[21] = O_ESTABLISH
OW[22] = O_SEQ_LEAD
OW[23] = O_KILLER2
OW[24] = O_FORCE
OW[25] = O_NT_PD_LEN
OW[26] = O_TT_HINT

_OW_NAMES = (
    'O_HINT', 'O_KILLER', 'O_CASH', 'O_SAFE_LOW', 'O_OVERTAKE', 'O_CONTEST', 'O_LOW',
    'O_TO_PARTNER', 'O_PARTNER_RUFF', 'O_THEY_RUFF', 'O_TRUMP_LEAD', 'O_LENGTH', 'O_KEEP_TRUMP',
    'O_THEIR_LENGTH', 'O_THEIR_VOID', 'O_CONTEST_RANK', 'O_CONTEST2', 'O_LEAD_RANK', 'O_OUR_TOP',
    'O_RHO_HIGH', 'O_FINESSE', 'O_ESTABLISH', 'O_SEQ_LEAD', 'O_KILLER2', 'O_FORCE',
    'O_NT_PD_LEN', 'O_TT_HINT',
)


def _order_weights(dict new=None):
    """The move-ordering scores, by name; ``new`` sets some of them (for tuning only)."""
    cdef int i
    if new:
        for k, v in new.items():
            OW[_OW_NAMES.index(k)] = int(v)
    return {n: OW[i] for i, n in enumerate(_OW_NAMES)}


cdef bint partner_wins_fourth(const Ctx* c, const tk_trick* t, int seat) noexcept nogil:
    """At second hand of four: can the fourth hand, a partner, beat the card led and
    anything the third hand can play?"""
    cdef const tk_rules* r = c.r
    cdef int third = seat + 1, fourth = seat + 2, led = t.led
    cdef mask_t f4, f3, tm, t3, t4
    if third >= c.n:
        third -= c.n
    if fourth >= c.n:
        fourth -= c.n
    if ((c.side >> fourth) & 1) != ((c.side >> seat) & 1):
        return False
    f4 = c.hand[fourth] & r.suit_mask[led]
    f3 = c.hand[third] & r.suit_mask[led]
    tm = r.suit_mask[r.trump] if r.trump >= 0 else 0
    t3 = c.hand[third] & tm
    t4 = c.hand[fourth] & tm
    if f4:
        if not tk_beats(r, highest(f4), t.win_card):
            return False
        if f3 and tk_beats(r, highest(f3), highest(f4)):
            return False
        if not f3 and t3 and led != r.trump:
            return False  # the third hand may ruff
        return True
    if led == r.trump or not t4 or not (r.duties & TK_FOLLOW):
        return False
    # the fourth hand ruffs: beaten only by an over-ruff of a third hand void in the suit
    if f3 or not t3:
        return True
    return tk_beats(r, highest(t4), highest(t3))


cdef inline void add_move(long long* keys, int k, int sc, int m) noexcept nogil:
    """Insert move `m` with score `sc` into the `k` sorted `keys` (one int per move, score
    above card, best first): an insertion sort of at most a hand's worth of moves. The moves
    come lowest first, so ties keep the lower card first."""
    cdef long long key = (<long long>sc) * 256 + (255 - m)
    while k > 0 and keys[k - 1] < key:
        keys[k] = keys[k - 1]
        k -= 1
    keys[k] = key


cdef int order_moves(
    const Ctx* c, const tk_trick* t, int seat, mask_t moves, mask_t live, int hint, int tt_hint,
    int* out,
) noexcept nogil:
    """Write the moves into `out`, most promising first; return how many.

    Leads: cash a card nobody can beat; else lead towards a partner's top card or a
    partner's ruff, away from the other side's ruffs and its length (fewer replies), low;
    the killers, the table's `hint` and (below it) `tt_hint`, the best card of the last entry
    that cut off a look-up at this depth and leader (leads only), on top. Follows: a partner's card that
    will hold -> play low; else the cheapest card that will hold; else (second hand) a card
    that beats for now, (third hand) the one that forces the fourth hand's top out; else
    discard low from length, trumps last."""
    cdef const tk_rules* r = c.r
    cdef int n = c.n, k = 0, m, e, sc, rank, top, p, k2, x, killer, killer2, force
    cdef long long keys[64]
    cdef int base[TK_SUITS]   # leads: the score of a lead of the suit that does not cash
    cdef int seq[TK_SUITS]    # leads: the leader's card of a run holding the second and third best
    cdef int h2, h3, lho, pd, rho
    cdef bint pair
    cdef mask_t sl
    cdef int their[TK_SUITS]  # leads: the other side's length in the suit, as a penalty
    cdef int cash[TK_SUITS]   # leads: the suit's card that cashes, or -1
    cdef bint beats, secure_partner = False
    cdef int mycol = (c.side >> seat) & 1
    cdef mask_t suit_live, left, high, ruff, tm
    if moves & (moves - 1) == 0:  # one move or none: no order to find
        out[0] = lowest(moves)
        return 1 if moves else 0
    if t.count == 0:
        # Everything but a lead's rank depends on its suit alone: work it out once per suit
        # led (DDS's idea for the length: the fewer cards the other side holds in a suit led,
        # the fewer replies to search; a void counts as long, for the ruff or discard it
        # allows).
        tm = r.suit_mask[r.trump] if r.trump >= 0 else 0
        pd = seat + 2 if seat + 2 < n else seat + 2 - n
        lho = seat + 1 if seat + 1 < n else 0
        rho = seat + 3 if seat + 3 < n else seat + 3 - n
        pair = n == 4 and ((c.side >> pd) & 1) == mycol
        left = moves
        while left:
            e = r.suit_of[lowest(left)]
            left &= ~r.suit_mask[e]
            suit_live = live & r.suit_mask[e]
            their[e] = 0
            x = ((1 << n) - 1) & (~c.side if mycol else c.side)
            while x:
                p = lowest(x)
                x &= x - 1
                k2 = popcount(c.hand[p] & r.suit_mask[e])
                their[e] += OW[13] * (k2 if k2 else OW[14])
            # only the suit's top card can cash
            top = highest(suit_live)
            cash[e] = top if (moves >> top) & 1 and not beaten_later(c, t, seat, top) else -1
            sc = OW[6] - their[e]
            top = owner(c, top)
            if top != seat and ((c.side >> top) & 1) == mycol:
                sc += OW[7]
            elif top >= 0 and ((c.side >> top) & 1) == mycol:
                sc += OW[18]
            if e != r.trump:
                for p in range(n):
                    if p == seat or (c.hand[p] & r.suit_mask[e]) or not (c.hand[p] & tm):
                        continue
                    sc += OW[8] if ((c.side >> p) & 1) == mycol else -OW[9]
            elif top < 0 or ((c.side >> top) & 1) != mycol:
                sc -= OW[10]
            seq[e] = -1
            if pair and r.trump < 0:
                # towards the partner's length: its long suit is the side's source of tricks
                # at no trump (DDS's WeightAllocNT0 idea; -1.7% and -13% no-trump starts)
                sc += OW[25] * popcount(c.hand[pd] & r.suit_mask[e])
            if pair:
                # who holds the suit's top three cards (DDS's suit weights at leads)
                sl = suit_live & ~bit(highest(suit_live))
                h2 = owner(c, highest(sl)) if sl else -1
                if (top == rho or h2 == rho) and popcount(c.hand[rho] & r.suit_mask[e]) != 1:
                    sc -= OW[19]
                elif top == lho and h2 == pd and popcount(c.hand[pd] & r.suit_mask[e]) != 1:
                    sc += OW[20]
                if (top == lho or top == rho) and h2 >= 0:
                    sl &= ~bit(highest(sl))
                    h3 = owner(c, highest(sl)) if sl else -1
                    if h2 == seat and h3 == seat:
                        # the leader's run holding both: its searched card is the lowest
                        x = highest(sl)
                        sl &= below(x)
                        while sl and (c.hand[seat] >> highest(sl)) & 1:
                            x = highest(sl)
                            sl &= below(x)
                        seq[e] = x
                    elif (h2 == pd and h3 == pd) or (
                        (h2 == pd or h3 == pd) and (h2 == seat or h3 == seat)
                        and popcount(c.hand[pd] & r.suit_mask[e]) > 1
                    ):
                        sc += OW[21]
            base[e] = sc
        x = popcount(c.hand[seat])
        p = killer_slot(c, x, seat)
        killer = c.killer[p]
        killer2 = c.killer2[p]
        while moves:
            m = lowest(moves)
            moves &= moves - 1
            e = r.suit_of[m]
            rank = popcount(live & r.suit_mask[e] & below(m))
            if m == cash[e]:
                sc = OW[2] + rank - their[e]
            else:
                sc = base[e] - OW[17] * rank
                if m == seq[e]:
                    sc += OW[22]
            if m == killer:
                sc += OW[1]
            elif m == killer2:
                sc += OW[23]
            if m == hint:
                sc += OW[0]
            elif m == tt_hint:
                sc += OW[26]
            add_move(keys, k, sc, m)
            k += 1
    else:
        later_threats(c, t, seat, t.led, &high, &ruff)
        if ((c.side >> t.win_seat) & 1) == mycol:
            secure_partner = not beaten_by(r, t.led, high, ruff, t.win_card)
        elif t.count == 1 and n == 4:
            # second hand: the fourth hand (a partner) will win the trick whatever the third
            # plays -> play low, as under a partner's winning card
            secure_partner = partner_wins_fourth(c, t, seat)
        force = -1
        if t.count == 2 and n == 4 and not secure_partner:
            # DDS's RankForcesAce: the fourth hand holds the suit's top and another card above
            # the trick's winner: the cheapest card above that other one forces the top out
            x = seat + 1 if seat + 1 < n else 0
            sl = c.hand[x] & r.suit_mask[t.led]
            if sl & (sl - 1):
                top = highest(sl)
                sl = moves & r.suit_mask[t.led] & below(top) & ~below(highest(sl & ~bit(top)))
                if sl and tk_beats(r, lowest(sl), t.win_card):
                    force = lowest(sl)
        while moves:
            m = lowest(moves)
            moves &= moves - 1
            e = r.suit_of[m]
            rank = popcount(live & r.suit_mask[e] & below(m))
            beats = tk_beats(r, m, t.win_card)
            if secure_partner:
                sc = OW[3] - rank - (OW[4] if beats else 0)
            elif beats:
                if not beaten_by(r, t.led, high, ruff, m):
                    sc = OW[2] - rank
                else:
                    sc = (OW[16] if t.count == 1 else OW[5]) + OW[15] * rank
            else:
                sc = OW[6] - rank
            if m == force:
                sc += OW[24]
            if e != t.led and not beats:
                k2 = popcount(c.hand[seat] & r.suit_mask[e])
                sc += OW[11] * k2
                if e == r.trump:
                    sc -= OW[12]
            add_move(keys, k, sc, m)
            k += 1
    for p in range(k):
        out[p] = 255 - <int>(keys[p] & 255)
    return k


