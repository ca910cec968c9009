# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Kemps playouts in C: one deal of the tick-mode exchange and the heuristic's choices on a
compact state.

The search plays every seat's submission at every tick of a rollout, and the Python copy
(:class:`levata.engine.games.kemps.playout.KempsPlayout`) builds a ``policy.Table`` and walks
its lists for each one. :class:`KempsPlayout` here holds the hands, the table, the stock, the
dead pile and the cards each seat was seen to take as small arrays of card indexes (two decks
repeat a card, so not as masks; the order is the Python copy's, as a hand's order decides
which equal card a swap gives and the legal list's order), the tokens shown as masks, copies
with one ``memcpy`` and plays out in C with either policy:

* ``"heuristic"``: the Python copy's choices (:mod:`levata.engine.games.kemps.policy`), the
  token shown beside each included; its decoys draw from the state's splitmix64 stream (a
  double in [0, 1) from the top 53 bits, then ``below_n(2)``) where the Python copy draws
  from its ``random.Random``;
* ``"random"``: uniform over the legal actions, from the same stream.

The rules and the policy here are those of :mod:`~levata.engine.games.kemps.rules`,
:mod:`~levata.engine.games.kemps.policy` and the Python copy, written again in C for speed;
``tests/engine/test_kemps_kernel.py`` proves they agree (legal actions, successors, the
estimate, heuristic choices with their tokens and whole rollouts over thousands of
positions, the Python copy given the same stream). The game builds one with
:meth:`KempsState.playout_state <levata.engine.games.kemps.KempsState.playout_state>`.

>>> from levata.engine.games.kemps import KempsState
>>> state = KempsState.from_position(4, ["7S 7H 7D 2C", "2S 3S 4S 5S", "8S 8H 9D 9C",
...                                      "JS QS KS AS"], table="7C 3H 4H 5H")
>>> fast = state.playout_state(seed=1)
>>> fast.legal_actions(0) == state.legal_actions(0), str(fast.choose(0).without_payload())
(True, 'swap 2C@0')
>>> copy = fast.clone()
>>> copy.rollout("heuristic") > 0, copy.is_over(), fast.is_over()
(True, True, False)
"""

from libc.stdlib cimport free, malloc
from libc.string cimport memcpy

from levata.engine.cards import Card, french_deck
from levata.engine.contract import Action

from levata.engine.playout_base cimport (
    MAX_CODES,
    POL_HEURISTIC,
    POL_RANDOM,
    Playout,
    policy_code,
)
from levata.engine.cardmask cimport bit, mask_t
from levata.engine.splitmix cimport below_n, next_random

from levata.engine.playout_base import POLICIES

__all__ = ["POLICIES", "KempsDealer", "KempsPlayout"]

cdef enum:
    MAX_SEATS = 12
    MAX_TEAMS = 6
    DECK = 104          # two decks from ten players
    HAND = 5            # four cards, five for a moment inside a swap
    SLOTS = 4
    TOKENS = 16         # rules.ALPHABET
    SET_GUARD = 60      # ticks on one table set before a forced flush
    LOSING = 5          # an audit broken counts as five penalties
    BELIEVED_AFTER = 2  # policy.BELIEVED_AFTER
    MAX_CLUES = 64      # KempsDealer.weigh: clues a dealer weighs its worlds by
    MAX_POOL = 1024     # KempsDealer.weigh: candidate worlds a weighed deal draws

cdef double DECOY_RATE = 0.1  # policy.DECOY_RATE

cdef enum:
    PH_EXCHANGE = 0
    PH_LAST_CALL = 1
    PH_OVER = 2

# action codes: pass, kemps, contrakemps on team t, swap of card c into slot k
cdef enum:
    A_PASS = 0
    A_KEMPS = 1
    A_CONTRA = 2
    A_SWAP = 8                  # + card index * 4 + slot
    N_CODES = 8 + 64 * 4
    NO_TOKEN = -1

cdef struct kp_state:
    int n, teams
    int hands[MAX_SEATS][HAND]
    int nhand[MAX_SEATS]
    int slots[SLOTS]
    int nslots
    int stock[DECK]         # the top card at stock[top]
    int top, nstock         # stock[top:nstock]
    int dead[DECK]
    int ndead
    int known[MAX_SEATS][HAND]
    int nknown[MAX_SEATS]
    int sig_seat[MAX_SEATS]  # the last tick's signals
    int sig_token[MAX_SEATS]
    int nsig
    unsigned int shown[MAX_TEAMS]       # tokens each team showed before the last tick
    int penalties[MAX_TEAMS]
    int base[MAX_TEAMS]                 # the penalties at the copy: the deal's start
    unsigned int kemps_sets[MAX_TEAMS]
    int has_secret[MAX_TEAMS]
    int kemps_token[MAX_TEAMS]          # policy.convention of the team's secret
    int decoys[MAX_TEAMS][2]
    int audit, copies
    int tick, set_ticks, phase
    int sub[MAX_SEATS]                  # this tick's submissions: a code, or -1 (none)
    int sub_token[MAX_SEATS]
    int waiting[MAX_SEATS]
    int nwaiting
    unsigned int violators              # teams that broke the audit
    int searcher, start                 # serve(): the seat whose search this copy serves
    unsigned long long rng


_PHASE_NAMES = ("exchange", "last_call", "over")
_PHASE_CODE = {name: i for i, name in enumerate(_PHASE_NAMES)}

_CARD = [None] * 64
for _c in french_deck():
    _CARD[_c.index] = _c
_INDEX = {c: i for i, c in enumerate(_CARD) if c is not None}  # a world loads some 60 cards
# Actions by code and codes by action (these compare equal to the game's), the tokens and the
# convention: from the game's rules and policy, read at the first copy made (the game's
# package imports this module, so this module cannot import the package as it loads).
_ACTION = [None] * N_CODES
_CODE = {}  # action -> (code, token), dressed ones included as they are met
assert <int>N_CODES <= <int>MAX_CODES  # the face's buffer holds every code
_DRESSED = {}  # (code, token) -> the action with the token as its signal
_TOKENS = ()
_TOKEN_CODE = {}
_convention = None


cdef _load_rules():
    global _TOKENS, _TOKEN_CODE, _convention
    from levata.engine.games.kemps.policy import convention
    from levata.engine.games.kemps.rules import ALPHABET, contrakemps, swap

    _ACTION[A_PASS] = Action("pass")
    _ACTION[A_KEMPS] = Action("kemps")
    for t in range(MAX_TEAMS):
        _ACTION[A_CONTRA + t] = contrakemps(t)
    for card in french_deck():
        for k in range(SLOTS):
            _ACTION[A_SWAP + card.index * 4 + k] = swap(card, k)
    _CODE.update({a: (i, NO_TOKEN) for i, a in enumerate(_ACTION) if a is not None})
    _TOKENS = tuple(ALPHABET)
    _TOKEN_CODE = {t: i for i, t in enumerate(ALPHABET)}
    _convention = convention


# -- small rules (rules.py) -------------------------------------------------------------------

cdef inline int rank_of(int c) noexcept nogil:
    return c & 15

cdef inline int pmod(int a, int n) noexcept nogil:
    """``a % n`` as Python takes it (never negative)."""
    cdef int r = a % n
    return r + n if r < 0 else r

cdef inline int team_of(const kp_state* s, int seat) noexcept nogil:
    return seat % s.teams

cdef inline int partner(const kp_state* s, int seat) noexcept nogil:
    return (seat + s.teams) % s.n

cdef bint holds_quad(const int* hand, int k) noexcept nogil:
    """Four cards of one rank (rules.holds_quad)."""
    cdef int i
    if k != 4:
        return False
    for i in range(1, k):
        if rank_of(hand[i]) != rank_of(hand[0]):
            return False
    return True

cdef int most_of(const int* cards, int k) noexcept nogil:
    """The most cards of one rank among ``cards`` (policy._most)."""
    cdef int counts[16]
    cdef int i, best = 0
    for i in range(16):
        counts[i] = 0
    for i in range(k):
        counts[rank_of(cards[i])] += 1
        if counts[rank_of(cards[i])] > best:
            best = counts[rank_of(cards[i])]
    return best

cdef bint team_has_quad(const kp_state* s, int team) noexcept nogil:
    cdef int other = team + s.teams  # the team's two seats, opposite each other
    return holds_quad(s.hands[team], s.nhand[team]) or holds_quad(s.hands[other], s.nhand[other])

cdef inline bint is_waiting(const kp_state* s, int seat) noexcept nogil:
    cdef int i
    for i in range(s.nwaiting):
        if s.waiting[i] == seat:
            return True
    return False


# -- the legal list ---------------------------------------------------------------------------

cdef int legal(const kp_state* s, int seat, int* out) noexcept nogil:
    """The Python copy's ``legal_actions``: pass, the swaps (each distinct card of the hand in
    its order, by slot), KEMPS, CONTRAKEMPS on each other team."""
    cdef int k = 0, i, j, c, slot, t, own
    cdef bint seen
    if not is_waiting(s, seat):
        return 0
    out[k] = A_PASS
    k += 1
    if s.phase == PH_EXCHANGE:
        for i in range(s.nhand[seat]):
            c = s.hands[seat][i]
            seen = False
            for j in range(i):
                if s.hands[seat][j] == c:
                    seen = True
            if seen:
                continue
            for slot in range(s.nslots):
                out[k] = A_SWAP + c * 4 + slot
                k += 1
    out[k] = A_KEMPS
    k += 1
    own = team_of(s, seat)
    for t in range(s.teams):
        if t != own:
            out[k] = A_CONTRA + t
            k += 1
    return k

cdef bint is_legal(const kp_state* s, int seat, int code) noexcept nogil:
    cdef int codes[HAND * SLOTS + MAX_TEAMS + 2]
    cdef int i, k = legal(s, seat, codes)
    for i in range(k):
        if codes[i] == code:
            return True
    return False


# -- the tick (the Python copy's _resolve) ----------------------------------------------------

cdef void call(kp_state* s, int seat, int code) noexcept nogil:
    """A call's penalty: on the others if it is right, else on the caller's team."""
    cdef int own = team_of(s, seat), t, target
    if code == A_KEMPS:
        if holds_quad(s.hands[partner(s, seat)], s.nhand[partner(s, seat)]):
            for t in range(s.teams):
                if t != own:
                    s.penalties[t] += 1
        else:
            s.penalties[own] += 1
        return
    target = code - A_CONTRA
    if team_has_quad(s, target):
        s.penalties[target] += 1
    else:
        s.penalties[own] += 1

cdef void remove_first(int* cards, int* k, int c) noexcept nogil:
    """Remove the first card equal to ``c`` (list.remove; no change if none)."""
    cdef int i, j
    for i in range(k[0]):
        if cards[i] == c:
            for j in range(i, k[0] - 1):
                cards[j] = cards[j + 1]
            k[0] -= 1
            return

cdef void swap_card(kp_state* s, int seat, int card, int slot) noexcept nogil:
    """Give ``card``, take the slot's: the hand takes it at its end, then loses its first card
    equal to the one given (with two decks it may be the one taken); everyone saw it taken."""
    cdef int took = s.slots[slot]
    s.hands[seat][s.nhand[seat]] = took
    s.nhand[seat] += 1
    remove_first(s.hands[seat], &s.nhand[seat], card)
    s.slots[slot] = card
    remove_first(s.known[seat], &s.nknown[seat], card)
    if s.nknown[seat] < HAND:  # always so: the known cards are some of the hand's
        s.known[seat][s.nknown[seat]] = took
        s.nknown[seat] += 1

cdef bint swaps(kp_state* s, const int* order) noexcept nogil:
    """The swaps in priority order, the first on each slot only; whether any was tried."""
    cdef int i, seat, code, slot
    cdef unsigned int used = 0
    cdef bint tried = False
    for i in range(s.n):
        seat = order[i]
        code = s.sub[seat]
        if code < A_SWAP:
            continue
        tried = True
        slot = (code - A_SWAP) & 3
        if not (used >> slot) & 1:
            used |= 1u << slot
            swap_card(s, seat, (code - A_SWAP) >> 2, slot)
    return tried

cdef void flush(kp_state* s) noexcept nogil:
    """The table to the dead pile, four fresh cards from the stock (else the last call)."""
    cdef int i
    for i in range(s.nslots):
        s.dead[s.ndead] = s.slots[i]
        s.ndead += 1
    if s.nstock - s.top >= SLOTS:
        for i in range(SLOTS):
            s.slots[i] = s.stock[s.top + i]
        s.nslots = SLOTS
        s.top += SLOTS
        s.set_ticks = 0
    else:
        s.nslots = 0
        s.phase = PH_LAST_CALL

cdef void resolve(kp_state* s) noexcept nogil:
    """The tick's last submission came: the first call in the priority, else the swaps; the
    signals and their audit (judged on the tick-start hands); the flush; the deal's end."""
    cdef int order[MAX_SEATS]
    cdef bint quads[MAX_SEATS]
    cdef int i, seat, caller = -1, token, team
    cdef bint moved = False
    for i in range(s.n):
        order[i] = (s.tick + i) % s.n
        seat = order[i]
        quads[seat] = holds_quad(s.hands[seat], s.nhand[seat])
        if s.sub[seat] < 0:
            s.sub[seat] = A_PASS
    for i in range(s.n):
        if A_KEMPS <= s.sub[order[i]] < A_SWAP:
            caller = order[i]
            break
    if caller >= 0:
        call(s, caller, s.sub[caller])
    elif s.phase == PH_EXCHANGE:
        moved = swaps(s, order)
    for i in range(s.nsig):  # what every seat now remembers of the tick before
        s.shown[team_of(s, s.sig_seat[i])] |= 1u << s.sig_token[i]
    s.nsig = 0
    for i in range(s.n):
        seat = order[i]
        token = s.sub_token[seat]
        if token < 0:
            continue
        s.sig_seat[s.nsig] = seat
        s.sig_token[s.nsig] = token
        s.nsig += 1
        team = team_of(s, seat)
        if s.audit and not quads[seat] and (s.kemps_sets[team] >> token) & 1:
            s.violators |= 1u << team
    if s.violators:
        s.phase = PH_OVER
    elif caller >= 0 or s.phase == PH_LAST_CALL:
        s.phase = PH_OVER  # the deal is over: the copy plays one deal
    else:
        s.set_ticks += 1
        if not moved or s.set_ticks >= SET_GUARD:
            flush(s)
    for i in range(s.n):
        s.sub[i] = -1
        s.sub_token[i] = NO_TOKEN
    if s.phase != PH_OVER:
        s.tick += 1
        for i in range(s.n):
            s.waiting[i] = i
        s.nwaiting = s.n
    else:
        s.nwaiting = 0

cdef void submit(kp_state* s, int seat, int code, int token) noexcept nogil:
    """Submit for ``seat`` (the Python copy's ``_apply``); the tick's last resolves it."""
    cdef int i, k = 0
    s.sub[seat] = code
    s.sub_token[seat] = token
    for i in range(s.nwaiting):
        if s.waiting[i] != seat:
            s.waiting[k] = s.waiting[i]
            k += 1
    s.nwaiting = k
    if k == 0:
        resolve(s)

cdef void estimate(const kp_state* s, double* out) noexcept nogil:
    """The Python copy's ``estimate``: per seat, the other teams' penalties taken (on
    average) less its team's; a team that broke the audit counts five."""
    cdef int gains[MAX_TEAMS]
    cdef int t, seat, total = 0, others = s.teams - 1 if s.teams > 1 else 1, g
    for t in range(s.teams):
        gains[t] = s.penalties[t] - s.base[t]
        if (s.violators >> t) & 1:
            gains[t] += LOSING
        total += gains[t]
    for seat in range(s.n):
        g = gains[team_of(s, seat)]
        out[seat] = <double>(total - g) / others - g


# -- the heuristic (policy.py) ----------------------------------------------------------------

cdef int call_code(const kp_state* s, int seat) noexcept nogil:
    """policy.call with the seat's own convention read: KEMPS on the partner's kemps token or
    seen quad; CONTRAKEMPS on a team seen to take a quad, or that showed a fresh token right
    after collecting two or more of a rank in public; -1: none."""
    cdef int mate = partner(s, seat), own = team_of(s, seat), i, other, team, most
    if most_of(s.known[mate], s.nknown[mate]) >= 4:
        return A_KEMPS
    if s.has_secret[own]:
        for i in range(s.nsig):
            if s.sig_seat[i] == mate and s.sig_token[i] == s.kemps_token[own]:
                return A_KEMPS
    for other in range(s.n):
        team = team_of(s, other)
        if team == own:
            continue
        most = most_of(s.known[other], s.nknown[other])
        if most >= 4:
            return A_CONTRA + team
        if most >= BELIEVED_AFTER:
            for i in range(s.nsig):  # a token its team had not shown before: fresh
                if s.sig_seat[i] == other and not (s.shown[team] >> s.sig_token[i]) & 1:
                    return A_CONTRA + team
    return -1

cdef int best_swap(const kp_state* s, int seat) noexcept nogil:
    """policy.best_swap: the swap nearer to a quad taking the rank with the most copies still
    to find, giving a card of the rank held least, from the lowest slot; -1: none."""
    cdef int mine[16]
    cdef int out[16]
    cdef int counts[16]
    cdef unsigned int collected = 0
    cdef int give_of[SLOTS]
    cdef int i, j, c, other, r, top = 0, target = -1, copies = 4 if s.n <= 8 else 8
    cdef int own = team_of(s, seat), take, slot, best = -1
    cdef const int* hand = s.hands[seat]
    cdef int nhand = s.nhand[seat]
    cdef bint repeat
    for r in range(16):
        mine[r] = 0
        out[r] = 0
    for i in range(nhand):
        mine[rank_of(hand[i])] += 1
    for i in range(s.ndead):
        out[rank_of(s.dead[i])] += 1
    for other in range(s.n):
        if other == seat:
            continue
        for i in range(s.nknown[other]):
            out[rank_of(s.known[other][i])] += 1
        if team_of(s, other) != own and s.nknown[other] >= 3:
            for r in range(16):
                counts[r] = 0
            for i in range(s.nknown[other]):
                r = rank_of(s.known[other][i])
                counts[r] += 1
                if counts[r] >= 3:
                    collected |= 1u << r
    for r in range(2, 15):
        if mine[r] > top:
            top = mine[r]
        if mine[r] and (
            target < 0
            or mine[r] > mine[target]
            or (mine[r] == mine[target] and copies - out[r] >= copies - out[target])
        ):
            target = r  # ties on both go to the higher rank
    for slot in range(SLOTS):
        give_of[slot] = -1
    for i in range(nhand):  # each distinct card, in the hand's order
        c = hand[i]
        repeat = False
        for j in range(i):
            if hand[j] == c:
                repeat = True
        if repeat or rank_of(c) == target or (collected >> rank_of(c)) & 1:
            continue
        for slot in range(s.nslots):
            take = rank_of(s.slots[slot])
            if rank_of(c) == take or mine[take] < top:
                continue  # no nearer to a quad
            if give_of[slot] < 0 or mine[rank_of(c)] < mine[rank_of(give_of[slot])]:
                give_of[slot] = c
    for slot in range(s.nslots):
        if give_of[slot] < 0:
            continue
        if best < 0:
            best = slot
            continue
        take, r = rank_of(s.slots[slot]), rank_of(s.slots[best])
        if copies - out[take] > copies - out[r] or (
            copies - out[take] == copies - out[r]
            and mine[rank_of(give_of[slot])] < mine[rank_of(give_of[best])]
        ):
            best = slot
    if best < 0:
        return -1
    return A_SWAP + give_of[best] * 4 + best

cdef int plain_choice(const kp_state* s, int seat, bint calls) noexcept nogil:
    """policy.choice: a call (``calls``), else the best swap (none holding a quad), else pass."""
    cdef int code = call_code(s, seat) if calls else -1
    if code >= 0:
        return code
    if s.phase == PH_EXCHANGE and not holds_quad(s.hands[seat], s.nhand[seat]):
        code = best_swap(s, seat)
        if code >= 0:
            return code
    return A_PASS

cdef bint partner_first_next(const kp_state* s, int seat) noexcept nogil:
    """policy.partner_first_next: the partner before every opponent in the next tick's
    priority (always, once the stock is out)."""
    cdef int t = s.tick + 1, ahead, other, own = team_of(s, seat)
    if s.nstock == s.top:
        return True
    ahead = pmod(partner(s, seat) - t, s.n)
    for other in range(s.n):
        if team_of(s, other) != own and pmod(other - t, s.n) <= ahead:
            return False
    return True

cdef inline double uniform(unsigned long long* rng) noexcept nogil:
    """A double in [0, 1) from the top 53 bits of the next draw."""
    return <double>(next_random(rng) >> 11) * (1.0 / 9007199254740992.0)

cdef bint exposes(const kp_state* s, int seat, int code) noexcept nogil:
    """policy.exposes: the swap ``code`` leaves the seat seen collecting (two or more of a
    rank among the cards seen taken): its card leaves them, the slot's card joins them."""
    cdef int after[HAND + 1]
    cdef int k = s.nknown[seat], i, slot
    if code < A_SWAP:
        return False
    slot = (code - A_SWAP) & 3
    if slot >= s.nslots:
        return False
    for i in range(k):
        after[i] = s.known[seat][i]
    remove_first(after, &k, (code - A_SWAP) >> 2)
    after[k] = s.slots[slot]
    return most_of(after, k + 1) >= BELIEVED_AFTER

cdef int token_of(kp_state* s, int seat, int code) noexcept nogil:
    """policy.token in tick mode, beside the choice ``code``: the kemps token holding a quad
    when the partner calls first next tick, a decoy now and then while seen collecting neither
    now nor after the choice; draws only when it may show a decoy."""
    cdef int team = team_of(s, seat)
    if not s.has_secret[team]:
        return NO_TOKEN
    if holds_quad(s.hands[seat], s.nhand[seat]):
        return s.kemps_token[team] if partner_first_next(s, seat) else NO_TOKEN
    if most_of(s.known[seat], s.nknown[seat]) >= BELIEVED_AFTER or exposes(s, seat, code):
        return NO_TOKEN  # seen collecting, or after this swap: no decoy (readers would call)
    if uniform(&s.rng) < DECOY_RATE:
        return s.decoys[team][below_n(&s.rng, 2)]
    return NO_TOKEN

cdef int heuristic(kp_state* s, int seat) noexcept nogil:
    """The Python copy's heuristic choice: at the tick a search decides, the partner of the
    seat it serves leaves CONTRAKEMPS to that search."""
    cdef int code = plain_choice(s, seat, True)
    if (
        A_CONTRA <= code < A_SWAP
        and s.tick == s.start
        and s.searcher >= 0
        and seat == partner(s, s.searcher)
    ):
        code = plain_choice(s, seat, False)
    return code

cdef int choose_code(kp_state* s, int seat, int policy, int* token) noexcept nogil:
    cdef int codes[HAND * SLOTS + MAX_TEAMS + 2]
    cdef int k, code
    if policy == POL_RANDOM:
        k = legal(s, seat, codes)
        token[0] = NO_TOKEN
        return codes[below_n(&s.rng, k)]
    code = heuristic(s, seat)
    token[0] = token_of(s, seat, code)
    return code

cdef int run(kp_state* s, int policy, int limit) noexcept nogil:
    """Play ticks by ``policy`` to the deal's end or ``limit`` ticks (0: no limit)."""
    cdef int seats[MAX_SEATS]
    cdef int ticks = 0, i, k, code, token
    while s.phase != PH_OVER and (limit == 0 or ticks < limit):
        k = s.nwaiting
        for i in range(k):  # those to act when the tick began
            seats[i] = s.waiting[i]
        for i in range(k):
            code = choose_code(s, seats[i], policy, &token)
            submit(s, seats[i], code, token)
        ticks += 1
    return ticks


# -- Python's side ----------------------------------------------------------------------------

cdef int _card_index(object card) except -1:
    index = _INDEX.get(card) if type(card) is Card else None
    if index is None:
        raise ValueError(f"{card!r} is not a card of the French deck")
    return index

cdef int _token_code(object token) except -2:
    code = _TOKEN_CODE.get(token)
    if code is None:
        raise ValueError(f"{token!r} is not a signal token")
    return code

cdef object _action(int code, int token):
    """The action of ``code`` showing ``token`` (cached: a search dresses thousands)."""
    if token < 0:
        return _ACTION[code]
    action = _DRESSED.get((code, token))
    if action is None:
        action = _ACTION[code].with_payload(signal=_TOKENS[token])
        _DRESSED[code, token] = action
        _CODE[action] = (code, token)
    return action

cdef tuple _decode(object action):
    """(code, token) of an action (its signal, if any, its only payload)."""
    found = _CODE.get(action)
    if found is not None:
        return found
    if not isinstance(action, Action):
        raise ValueError(f"{action!r} is not a Kemps action")
    bare = _CODE.get(action.without_payload())
    signal = action.payload_value("signal")
    if bare is None:
        raise ValueError(f"{action} is not a Kemps action")
    token = NO_TOKEN if signal is None else _token_code(signal)
    if _action(bare[0], token) != action:
        raise ValueError(f"{action}: a signal is the only payload a Kemps action carries")
    return bare[0], token

cdef int _cards_into(object cards, int* out, int most, str what) except -1:
    cdef int k = 0
    if len(cards) > most:
        raise ValueError(f"{what} holds {most} cards at most")
    for c in cards:
        out[k] = _card_index(c)
        k += 1
    return k


cdef class KempsPlayout(Playout):
    """One Kemps deal, tick mode, for playouts: play only, no events or views; see the module.

    ``fields``: the position as :meth:`KempsState.playout_fields
    <levata.engine.games.kemps.KempsState.playout_fields>` gives it (the Python copy loads
    the same); ``seed`` starts the state's random stream.

    >>> from levata.engine.games.kemps import KempsState
    >>> s = KempsState.from_position(4, ["7S 7H 7D 7C", "2S 3S 4S 5S", "8S 8H 9D 9C",
    ...                                  "JS QS KS AS"], table="2C 3H 4H 5H")
    >>> fast = s.playout_state(seed=3)
    >>> for seat in range(4):
    ...     fast._apply(seat, Action("kemps") if seat == 2 else Action("pass"))
    >>> fast.is_over(), fast.estimate()  # seat 0 held the quad: team 1 takes the penalty
    (True, (1.0, -1.0, 1.0, -1.0))
    """

    cdef kp_state s
    cdef tuple secrets  # shared by clones: the team secrets, as given

    def __init__(self, fields, seed=0):
        cdef kp_state* s = &self.s
        cdef int n = int(fields["players"]), seat, t, i
        if _convention is None:
            _load_rules()
        if not (4 <= n <= MAX_SEATS and n % 2 == 0):
            raise ValueError(f"Kemps seats 4 to 12, in teams of two, not {n}")
        s.n, s.teams = n, n // 2
        s.rng = <unsigned long long>(int(seed) & 0xFFFFFFFFFFFFFFFF)
        for key in ("hands", "known", "submissions"):
            if len(fields[key]) != n:
                raise ValueError(f"{key}: one entry for each of the {n} seats")
        for key in ("shown", "penalties", "secrets", "kemps_sets"):
            if len(fields[key]) != s.teams:
                raise ValueError(f"{key}: one entry for each of the {s.teams} teams")
        for seat in range(n):
            s.nhand[seat] = _cards_into(fields["hands"][seat], s.hands[seat], 4, "a hand")
            s.nknown[seat] = _cards_into(fields["known"][seat], s.known[seat], 4, "known")
        s.nslots = _cards_into(fields["slots"], s.slots, SLOTS, "the table")
        s.top = 0
        s.nstock = _cards_into(fields["stock"], s.stock, DECK, "the stock")
        s.ndead = _cards_into(fields["dead"], s.dead, DECK, "the dead pile")
        if s.ndead + s.nslots + s.nstock > DECK:
            raise ValueError("the table, the stock and the dead pile hold two decks at most")
        if len(fields["signals"]) > n:
            raise ValueError("signals: one a seat at most")
        s.nsig = 0
        for seat, token in fields["signals"]:
            if not 0 <= seat < n:
                raise ValueError(f"signals: no seat {seat}")
            s.sig_seat[s.nsig], s.sig_token[s.nsig] = seat, _token_code(token)
            s.nsig += 1
        self.secrets = tuple(fields["secrets"])
        for t in range(s.teams):
            s.shown[t] = 0
            for token in fields["shown"][t]:
                s.shown[t] |= 1u << _token_code(token)
            s.penalties[t] = s.base[t] = int(fields["penalties"][t])
            s.kemps_sets[t] = int(fields["kemps_sets"][t]) & 0xFFFF
            secret = self.secrets[t]
            s.has_secret[t] = secret is not None
            if secret is not None:
                kemps, decoys = _convention(secret)
                s.kemps_token[t] = _token_code(kemps)
                s.decoys[t][0] = _token_code(decoys[0])
                s.decoys[t][1] = _token_code(decoys[1])
        s.audit = bool(fields["audit"])
        s.copies = bool(fields["copies"])
        s.tick = int(fields["tick"])
        s.set_ticks = int(fields["set_ticks"])
        phase = _PHASE_CODE.get(fields["phase"])
        if phase is None or phase == PH_OVER:
            raise ValueError("a Kemps playout copy is of a tick-mode exchange or last call")
        s.phase = phase
        for seat, action in enumerate(fields["submissions"]):
            s.sub[seat], s.sub_token[seat] = (-1, NO_TOKEN) if action is None else _decode(action)
        waiting = tuple(fields["waiting"])
        if len(set(waiting)) != len(waiting) or not all(0 <= w < n for w in waiting):
            raise ValueError(f"waiting: seats of the table, each once, not {waiting}")
        s.nwaiting = len(waiting)
        for i, seat in enumerate(waiting):
            s.waiting[i] = seat
        s.violators = 0
        s.searcher = -1
        s.start = s.tick

    def clone(self):
        """An independent copy (its random stream included)."""
        cdef KempsPlayout other = KempsPlayout.__new__(KempsPlayout)
        memcpy(&other.s, &self.s, sizeof(kp_state))
        other.secrets = self.secrets
        return other

    def __cinit__(self, *args, **kwargs):
        self.actions, self.codes = _ACTION, {}  # an action's code and token: _decode

    cdef int seats(self) noexcept:
        return self.s.n

    cdef int legal_codes(self, int seat, int* codes) noexcept:
        return legal(&self.s, seat, codes)

    cdef void submit(self, int seat, int code) noexcept:
        submit(&self.s, seat, code, NO_TOKEN)  # the face's _apply, apply and choose: below

    cdef int pick(self, int seat, int policy, const int* codes, int k) noexcept:
        cdef int token
        return choose_code(&self.s, seat, policy, &token)

    cdef int play_on(self, int policy, int max_actions) noexcept nogil:
        return run(&self.s, policy, max_actions)  # ticks

    cdef void reseed(self, unsigned long long seed) noexcept:
        self.s.rng = seed

    def is_over(self):
        return self.s.phase == PH_OVER

    def to_act(self):
        return tuple(self.s.waiting[i] for i in range(self.s.nwaiting))

    def _apply(self, int seat, action):
        """Submit ``action`` (its signal too) for ``seat``; the tick's last submission
        resolves it. ``ValueError`` (and no change) if it is not legal."""
        code, token = _decode(action)
        if not 0 <= seat < self.s.n or not is_legal(&self.s, seat, code):
            raise ValueError(f"{action} is not legal for seat {seat} now")
        submit(&self.s, seat, code, token)

    def apply(self, int seat, action):
        """As :meth:`_apply` (every submission is checked: it costs a few comparisons)."""
        self._apply(seat, action)

    def serve(self, int seat):
        """This copy serves the search of ``seat``: at the tick being decided, its partner
        played by the heuristic leaves CONTRAKEMPS to the search (the Python copy's ``serve``)."""
        if not 0 <= seat < self.s.n:
            raise ValueError(f"no seat {seat} at this table")
        self.s.searcher = seat

    def choose(self, int seat, str policy="heuristic"):
        """The action ``policy`` picks for ``seat`` now: the heuristic's with the token it shows
        beside it, or a uniform legal one."""
        cdef int p = policy_code(policy), token, code
        if not 0 <= seat < self.s.n or not is_waiting(&self.s, seat):
            raise ValueError(f"seat {seat} is not to act now")
        code = choose_code(&self.s, seat, p, &token)
        return _action(code, token)

    def dress(self, int seat, choice):
        """``choice`` (a search's, no payload) with the token the heuristic shows beside it."""
        code, _ = _decode(choice)
        if not 0 <= seat < self.s.n:
            raise ValueError(f"no seat {seat} at this table")
        return _action(code, token_of(&self.s, seat, code))

    def estimate(self):
        """What the deal did to each seat's team so far (the Python copy's ``estimate``)."""
        cdef double out[MAX_SEATS]
        estimate(&self.s, out)
        return tuple(out[i] for i in range(self.s.n))

    def fields(self):
        """The position as the Python copy's ``fields()`` says it (the differential test)."""
        cdef kp_state* s = &self.s
        cdef int i, t
        n = s.n
        return {
            "players": n,
            "hands": [[_CARD[s.hands[i][k]] for k in range(s.nhand[i])] for i in range(n)],
            "slots": [_CARD[s.slots[k]] for k in range(s.nslots)],
            "stock": [_CARD[s.stock[k]] for k in range(s.top, s.nstock)],
            "dead": [_CARD[s.dead[k]] for k in range(s.ndead)],
            "known": [[_CARD[s.known[i][k]] for k in range(s.nknown[i])] for i in range(n)],
            "signals": [[s.sig_seat[k], _TOKENS[s.sig_token[k]]] for k in range(s.nsig)],
            "shown": [
                {_TOKENS[k] for k in range(TOKENS) if (s.shown[t] >> k) & 1}
                for t in range(s.teams)
            ],
            "penalties": [s.penalties[t] for t in range(s.teams)],
            "secrets": list(self.secrets),
            "kemps_sets": [int(s.kemps_sets[t]) for t in range(s.teams)],
            "audit": bool(s.audit),
            "copies": bool(s.copies),
            "tick": s.tick,
            "set_ticks": s.set_ticks,
            "phase": _PHASE_NAMES[s.phase],
            "submissions": [
                None if s.sub[i] < 0 else _action(s.sub[i], s.sub_token[i]) for i in range(n)
            ],
            "waiting": tuple(s.waiting[i] for i in range(s.nwaiting)),
            "base": [s.base[t] for t in range(s.teams)],
            "violators": [t for t in range(s.teams) if (s.violators >> t) & 1],
            "searcher": None if s.searcher < 0 else s.searcher,
            "start": s.start,
        }


cdef class KempsDealer:
    """Worlds one seat cannot tell from a position, dealt in C: the search's determinizations.

    ``KempsState.from_view`` keeps the seat's hand, the table, the dead pile and the cards
    everybody saw each seat take (``known``), and deals the rest (the others' unseen cards and
    the stock) uniformly to their sizes, in a random order (a hand's order matters: it decides
    which equal card a swap gives). When the view proves the partner holds a quad (it showed
    a token of the team's kemps set in the last tick and took nothing since: ``quad``, the
    partner's seat, else -1), it first completes the partner's known cards to four of a kind:
    a rank drawn uniformly among those the hidden cards can complete, then the missing cards
    drawn uniformly among the hidden cards of that rank. The other teams' secrets are fresh
    (``f"{128 random bits:032x}"``, each world its own: their conventions differ) and their
    kemps sets empty. A search deals thousands of worlds a decision, and in Python that costs
    more than the kernel's rollouts: each :meth:`deal` here draws the same worlds in C from
    one such world (``base``: any of them, the hidden cards are dealt afresh each time).
    ``tests/engine/test_kemps_kernel.py`` proves the worlds keep what ``from_view`` keeps and
    that each hidden card lands in each place as often.

    ``seat``: whose view the worlds share; ``seed`` starts the dealer's stream.

    Inference (:meth:`weigh`): given a bot's clues (:class:`~levata.engine.evidence.Clue`:
    a world where a seat holds any of some cards is a factor as likely), each world is picked
    among ``pool`` such deals in proportion to the product of the factors of the clues it
    meets, as ``world_from_view`` picks among whole worlds with the same evidence.

    >>> from levata.engine.games.kemps import KempsState
    >>> state = KempsState.from_position(4, ["7S 7H 7D 2C", "2S 3S 4S 5S", "8S 8H 9D 9C",
    ...                                      "JS QS KS AS"], table="7C 3H 4H 5H")
    >>> world = state.playout_dealer(0, seed=1).deal(seed=2)
    >>> world.fields()["hands"][0], len(world.fields()["hands"][1]), len(world.fields()["stock"])
    ([Card('7S'), Card('7H'), Card('7D'), Card('2C')], 4, 32)
    """

    cdef kp_state base
    cdef int gaps[MAX_SEATS]        # per seat: its cards nobody saw it take
    cdef int pool[DECK]             # the hidden cards
    cdef int npool
    cdef int seat, quad, need
    cdef int ranks[16]              # the ranks the partner's quad may be of
    cdef int nranks
    cdef tuple secrets
    cdef unsigned long long rng
    cdef int nclues, draws          # weigh(): the clues and the candidates a world is one of
    cdef int clue_seat[MAX_CLUES]
    cdef mask_t clue_cards[MAX_CLUES]
    cdef double clue_factor[MAX_CLUES]
    cdef kp_state* drawn            # the candidates (draws of them), while weighing
    cdef double* weights

    def __cinit__(self, *args, **kwargs):
        self.nclues, self.draws, self.drawn, self.weights = 0, 1, NULL, NULL

    def __dealloc__(self):
        free(self.drawn)
        free(self.weights)

    def __init__(self, KempsPlayout base, int seat, int quad=-1, seed=0):
        cdef kp_state* b = &base.s
        cdef int s, i, r, held_rank = -1
        cdef int count[16]
        if not 0 <= seat < b.n:
            raise ValueError(f"seat {seat} is not at this table")
        if quad != -1 and quad != partner(b, seat):
            raise ValueError(f"seat {quad} is not the partner of seat {seat}")
        memcpy(&self.base, b, sizeof(kp_state))
        self.secrets = base.secrets
        self.seat, self.quad, self.need, self.nranks = seat, quad, 0, 0
        self.rng = <unsigned long long>(int(seed) & 0xFFFFFFFFFFFFFFFF)
        self.npool = 0
        for i in range(b.top, b.nstock):
            self._hide(b.stock[i])
        for s in range(b.n):
            self.gaps[s] = 0
            if s != seat:
                self.gaps[s] = b.nhand[s] - b.nknown[s]
                self._hide_unseen(b, s)
        if quad < 0:
            return
        for i in range(b.nknown[quad]):  # cards seen taken: all of one rank, or no quad
            r = rank_of(b.known[quad][i])
            if held_rank >= 0 and r != held_rank:
                self.quad = -1
                return
            held_rank = r
        self.need = 4 - b.nknown[quad]
        for r in range(16):
            count[r] = 0
        for i in range(self.npool):
            count[rank_of(self.pool[i])] += 1
        for r in range(16):
            if (held_rank < 0 or r == held_rank) and count[r] >= self.need and count[r] > 0:
                self.ranks[self.nranks] = r
                self.nranks += 1
        if self.nranks == 0:
            self.quad = -1

    cdef void _hide(self, int card):
        self.pool[self.npool] = card
        self.npool += 1

    cdef void _hide_unseen(self, const kp_state* b, int s):
        """The seat's cards but those it was seen to take (each seen card once)."""
        cdef int seen[HAND]
        cdef int nseen = b.nknown[s], i, k
        for i in range(nseen):
            seen[i] = b.known[s][i]
        for i in range(b.nhand[s]):
            for k in range(nseen):
                if seen[k] == b.hands[s][i]:
                    seen[k] = seen[nseen - 1]
                    nseen -= 1
                    break
            else:
                self._hide(b.hands[s][i])

    def weigh(self, clues, int pool):
        """From now on, each :meth:`deal` picks its world among ``pool`` deals in proportion to
        the product of the factors of ``clues`` it meets (each a ``seat``, a mask of ``cards``
        by ``Card.index``, any copy of a face, and a ``factor``): one draw of the stream, as
        :func:`~levata.engine.evidence.pick_weighed` (all weights 0: uniform). No clues, or
        ``pool`` 1: the deals are exactly those of an unweighed dealer.

        >>> from levata.engine.evidence import Clue
        >>> from levata.engine.games.kemps import KempsState
        >>> state = KempsState.from_position(4, ["7S 7H 7D 2C", "2S 3S 4S 5S", "8S 8H 9D 9C",
        ...                                      "JS QS KS AS"], table="7C 3H 4H 5H")
        >>> dealer = state.playout_dealer(0, seed=1)
        >>> ace = Card.parse("AD").index
        >>> dealer.weigh([Clue(1, 1 << ace, 1000.0)], pool=64)
        >>> sum(Card.parse("AD") in dealer.deal(k).fields()["hands"][1] for k in range(20)) > 10
        True
        """
        cdef int k, n = len(clues)
        if not 1 <= pool <= MAX_POOL:
            raise ValueError(f"a pool of 1 to {MAX_POOL} draws, not {pool}")
        if n > MAX_CLUES:
            raise ValueError(f"{MAX_CLUES} clues at most, not {n}")
        for k, clue in enumerate(clues):
            if not 0 <= clue.seat < self.base.n:
                raise ValueError(f"a clue on seat {clue.seat}, not at this table")
            self.clue_seat[k] = clue.seat
            self.clue_cards[k] = <mask_t>(int(clue.cards) & 0xFFFFFFFFFFFFFFFF)
            self.clue_factor[k] = float(clue.factor)
        free(self.drawn)
        free(self.weights)
        self.drawn, self.weights = NULL, NULL
        self.nclues, self.draws = n, (pool if n else 1)
        if self.draws > 1:
            self.drawn = <kp_state*>malloc(self.draws * sizeof(kp_state))
            self.weights = <double*>malloc(self.draws * sizeof(double))
            if self.drawn == NULL or self.weights == NULL:
                self.draws = 1
                raise MemoryError()

    def deal(self, seed=0):
        """A new world: the hidden cards shuffled into the other seats' hands (after the cards
        they were seen to take) and the stock, the other teams' secrets fresh; the copy's own
        random stream starts from ``seed``. Weighed (:meth:`weigh`): the world picked among
        the pool's."""
        cdef KempsPlayout out = KempsPlayout.__new__(KempsPlayout)
        cdef kp_state* w = &out.s
        cdef int t, own = team_of(&self.base, self.seat)
        cdef unsigned long long high, low
        with nogil:
            if self.draws > 1:
                self._deal_weighed(w)
            else:
                self._deal(w)
        secrets = list(self.secrets)
        for t in range(w.teams):
            if t == own:
                continue
            high = next_random(&self.rng)
            low = next_random(&self.rng)
            secrets[t] = f"{high:016x}{low:016x}"
            kemps, decoys = _convention(secrets[t])
            w.has_secret[t] = 1
            w.kemps_sets[t] = 0
            w.kemps_token[t] = _token_code(kemps)
            w.decoys[t][0] = _token_code(decoys[0])
            w.decoys[t][1] = _token_code(decoys[1])
        out.secrets = tuple(secrets)
        w.rng = <unsigned long long>(int(seed) & 0xFFFFFFFFFFFFFFFF)
        return out

    cdef void _deal_weighed(self, kp_state* w) noexcept nogil:
        """``draws`` deals, then one picked in proportion to its weight (``pick_weighed``)."""
        cdef int k, pick = self.draws - 1
        cdef double total = 0.0, x
        for k in range(self.draws):
            self._deal(&self.drawn[k])
            self.weights[k] = self._weight(&self.drawn[k])
            total += self.weights[k]
        x = uniform(&self.rng)
        if total <= 0.0:  # no world the clues can explain: uniform among the draws
            pick = <int>(x * self.draws)
        else:
            x *= total
            for k in range(self.draws):
                x -= self.weights[k]
                if x < 0.0:
                    pick = k
                    break
        memcpy(w, &self.drawn[pick], sizeof(kp_state))

    cdef double _weight(self, const kp_state* w) noexcept nogil:
        """The product of the factors of the clues ``w``'s hands meet."""
        cdef int k, i, s
        cdef mask_t held
        cdef double weight = 1.0
        for k in range(self.nclues):
            s = self.clue_seat[k]
            held = 0
            for i in range(w.nhand[s]):
                held |= bit(w.hands[s][i])
            if held & self.clue_cards[k]:
                weight *= self.clue_factor[k]
        return weight

    cdef void _deal(self, kp_state* w) noexcept nogil:
        cdef int i, j, t, s, at = 0, end = self.npool
        memcpy(w, &self.base, sizeof(kp_state))
        for s in range(w.n):
            if s != self.seat:
                w.nhand[s] = w.nknown[s]
                for i in range(w.nknown[s]):
                    w.hands[s][i] = w.known[s][i]
        if self.quad >= 0:
            end = self._draw_quad(w)
        for i in range(end - 1, 0, -1):  # Fisher-Yates: any order in, uniform out
            j = below_n(&self.rng, i + 1)
            t = self.pool[i]
            self.pool[i] = self.pool[j]
            self.pool[j] = t
        for s in range(w.n):
            if s == self.seat:
                continue
            for i in range(self.gaps[s] - (self.need if s == self.quad else 0)):
                w.hands[s][w.nhand[s]] = self.pool[at]
                w.nhand[s] += 1
                at += 1
        w.top = 0
        w.nstock = end - at
        for i in range(w.nstock):
            w.stock[i] = self.pool[at + i]

    cdef int _draw_quad(self, kp_state* w) noexcept nogil:
        """The partner's quad first: a rank, then the cards it lacks one by one among the
        hidden cards of that rank not yet drawn, each moved to the pool's end; the pool's
        size left."""
        cdef int rank = self.ranks[below_n(&self.rng, self.nranks)]
        cdef int end = self.npool, k, i, t, left
        for k in range(self.need):
            left = 0
            for i in range(end):
                left += rank_of(self.pool[i]) == rank
            left = below_n(&self.rng, left)  # the drawn one among them, counted from the start
            i = 0
            while rank_of(self.pool[i]) != rank or left > 0:
                left -= rank_of(self.pool[i]) == rank
                i += 1
            end -= 1
            t = self.pool[i]
            self.pool[i] = self.pool[end]
            self.pool[end] = t
            w.hands[self.quad][w.nhand[self.quad]] = t
            w.nhand[self.quad] += 1
        return end
