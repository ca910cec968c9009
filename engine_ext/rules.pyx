# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The rules of card play in trick games: who may play what, and who takes the trick.

One small rules value, :class:`TrickRules`, covers the card play of every single-deck trick
game in levata: how many seats, who partners whom, the trump, the duties a player has on a
trick (follow suit; trump when void; overtake when able, as in Bestia; over-trump), a
per-deal *layout* that maps each physical card to an effective suit and a power (a game may
make some cards top trumps whatever their suit, or rank the 10 above the King) and card
points. The kernel knows no game by name: each game builds its rules with the constructor
(tables of games not yet in the registry: :mod:`levata.engine.card_orders`).

Hands are card masks (:mod:`levata.engine.cardmask`: bit ``slot * 16 + rank``); a trick in
progress is the list of card indexes played to it, in order, from ``leader``. The search
kernels, :mod:`levata.engine.solver` and :mod:`levata.engine.playouts`, take the same rules
and ``cimport`` the C struct and the inline card-play functions from ``rules.pxd``.

>>> from levata.engine.cards import Suit, parse_cards
>>> from levata.engine.cardmask import cards_of, mask_of
>>> rules = TrickRules(4, Suit.HEARTS, must_trump=True)   # Romanian Whist, hearts trumps
>>> hand = mask_of(parse_cards("9H JH AD"))
>>> [str(c) for c in cards_of(legal_cards(rules, hand, [Card.parse("KS").index]))]
['9H', 'JH']
>>> trick_winner(rules, 0, [c.index for c in parse_cards("KS QH AS")])   # Q♥ ruffs
1
"""

from libc.string cimport memset

from levata.engine.cardmask cimport bit, lowest, mask_t, popcount

from levata.engine.cards import Card

if not tk_cpu_ok():
    raise ImportError("levata.engine was built for x86-64 CPUs with POPCNT; this one lacks it")

__all__ = [
    "TRUMP_SUIT",
    "TrickRules",
    "legal_cards",
    "legal_moves",
    "rank_order_layout",
    "trick_winner",
]

#: The effective suit of cards that are trumps whatever suit is named (Filcau's filcai).
TRUMP_SUIT = TK_TRUMP_SUIT

# ------------------------------------------------------------------------------------------
# Rules


def rank_order_layout(order, slots=(0, 1, 2, 3)):
    """A layout where every suit ranks its cards in ``order`` (highest first).

    For Huzur-style orders: the card of rank ``order[0]`` is the strongest of its suit.
    Returns ``{card_index: (slot, power)}`` for :class:`TrickRules`.

    >>> lay = rank_order_layout([14, 2, 3, 13], slots=(0,))
    >>> sorted(lay.items())
    [(2, (0, 2)), (3, (0, 1)), (13, (0, 0)), (14, (0, 3))]
    """
    order = [int(r) for r in order]
    top = len(order) - 1
    return {16 * s + rank: (int(s), top - i) for s in slots for i, rank in enumerate(order)}



cdef int _suit_value(object trump) except -2:
    if trump is None:
        return TK_NO_TRUMP
    if hasattr(trump, "slot"):  # a levata Suit: French and Italian suits share the slots
        return int(trump.slot)
    cdef int t = int(trump)
    if not 0 <= t < TK_SUITS:
        raise ValueError(f"trump must be None, a Suit or an effective suit 0..4, not {trump!r}")
    return t


cdef class TrickRules:
    """The card-play rules of one deal, as the kernel uses them.

    ``seats``: 2..8 players in play order. ``trump``: ``None``, a :class:`~levata.engine.cards.Suit`
    (its slot), or an effective suit ``0..3``/:data:`TRUMP_SUIT`. ``teams``: a team id per seat
    (default: everyone for himself). Duties on a trick, each ``True``/``False``:

    - ``follow``: play a card of the led (effective) suit when able;
    - ``must_trump``: void in the led suit, play a trump when holding one (needs ``follow``);
    - ``head``: when following, beat the card winning the trick if able (Bestia, Sixty-six
      once the stock is gone; needs ``follow``);
    - ``overtrump``: when trumping, beat a trump that is winning the trick if able, else any
      trump (Bestia; needs ``must_trump``);
    - ``sure_pot``: Bestia's sure pot and secured pot (``pot_tricks`` win the pot): a seat
      with ``pot_tricks`` won plays its strongest allowed card (the highest trump, else the
      highest rank); on lead with at least ``pot_tricks - won`` *masters* (cards no unseen
      card can beat on lead) it leads one; following, it plays a card certain to take the
      trick when that trick and its masters left reach the pot. These read per seat the
      tricks won and the cards out of play it has not seen: the ``won`` and ``hidden`` of
      :func:`legal_moves`, the solver and the playouts (a card is unseen to a seat when it is
      in another seat's hand or in its ``hidden``).

    ``layout``: ``{card_index: (effective_suit, power)}`` for every card in the deck; a higher
    power beats a lower one of the same effective suit; powers are distinct within a suit.
    ``None`` means suit = slot and power = rank (French and Italian decks alike). ``points``:
    ``{card_index: points}`` (missing cards score 0); ``last_trick_bonus``: points for taking
    the last trick.

    >>> from levata.engine.cards import Suit
    >>> r = TrickRules(4, Suit.SPADES, teams=(0, 1, 0, 1))
    >>> r
    TrickRules(seats=4, trump=3, teams=(0, 1, 0, 1), follow=True)
    >>> TrickRules(4, Suit.DENARI, must_trump=True, head=True, overtrump=True)   # Bestia
    TrickRules(seats=4, trump=1, follow=True, must_trump=True, head=True, overtrump=True)
    """

    def __init__(
        self,
        int seats=4,
        trump=None,
        *,
        teams=None,
        bint follow=True,
        bint must_trump=False,
        bint head=False,
        bint overtrump=False,
        layout=None,
        points=None,
        int last_trick_bonus=0,
        bint sure_pot=False,
        int pot_tricks=3,
    ):
        cdef int s, e, i, phys, nxt
        if not 2 <= seats <= TK_MAX_SEATS:
            raise ValueError(f"seats must be 2..{TK_MAX_SEATS}, not {seats}")
        if (must_trump or head) and not follow:
            raise ValueError("must_trump and head only make sense with follow=True")
        if overtrump and not must_trump:
            raise ValueError("overtrump needs must_trump=True")
        if sure_pot and not 1 <= pot_tricks <= 15:  # the solver's keys give a seat 4 bits
            raise ValueError(f"pot_tricks must be 1..15, not {pot_tricks}")
        memset(&self.c, 0, sizeof(tk_rules))
        self.seats = seats
        self.c.seats = seats
        self.c.trump = _suit_value(trump)
        self.trump = None if self.c.trump < 0 else self.c.trump
        if teams is None:
            teams = tuple(range(seats))
        teams = tuple(int(x) for x in teams)
        if len(teams) != seats:
            raise ValueError(f"teams needs one id per seat ({seats}), got {len(teams)}")
        self.teams = teams
        for s in range(seats):
            self.c.team[s] = teams[s]
        self.follow, self.must_trump, self.head, self.overtrump = follow, must_trump, head, overtrump
        self.c.duties = (
            (TK_FOLLOW if follow else 0)
            | (TK_MUST_TRUMP if must_trump else 0)
            | (TK_HEAD if head else 0)
            | (TK_OVERTRUMP if overtrump else 0)
            | (TK_SURE_POT if sure_pot else 0)
        )
        self.sure_pot = sure_pot
        self.pot_tricks = pot_tricks if sure_pot else 0
        self.c.pot = self.pot_tricks
        self.last_trick_bonus = last_trick_bonus
        self.c.last_bonus = last_trick_bonus
        for i in range(64):
            self.c.suit_of[i] = -1
            self.c.to_phys[i] = -1
            self.c.to_int[i] = -1
        if layout is None:
            self.layout = None
            self.c.identity = 1
            for i in range(64):
                self.c.suit_of[i] = i >> 4
                self.c.to_phys[i] = i
                self.c.to_int[i] = i
            for e in range(4):
                self.c.suit_mask[e] = (<mask_t>0xFFFF) << (16 * e)
            self.c.deck = ~(<mask_t>0)
        else:
            lay = {}
            for k, v in dict(layout).items():
                phys = int(getattr(k, "index", k))
                e, p = int(v[0]), int(v[1])
                if not 0 <= phys < 64:
                    raise ValueError(f"card index {phys} is outside 0..63")
                if not 0 <= e < TK_SUITS:
                    raise ValueError(f"effective suit {e} of card {phys} is outside 0..4")
                lay[phys] = (e, p)
            if len(lay) > 64:
                raise ValueError("a layout holds at most 64 cards")
            self.layout = lay
            # Each effective suit takes consecutive internal bits ordered by power: that is
            # what lets tk_beats compare two cards of a suit as integers.
            self.c.identity = 0
            nxt = 0
            for e in range(TK_SUITS):
                members = sorted((p, phys) for phys, (se, p) in lay.items() if se == e)
                powers = [p for p, _ in members]
                if len(set(powers)) != len(powers):
                    raise ValueError(f"two cards of effective suit {e} share a power")
                for p, phys in members:
                    self.c.suit_of[nxt] = e
                    self.c.to_phys[nxt] = phys
                    self.c.to_int[phys] = nxt
                    self.c.suit_mask[e] |= bit(nxt)
                    self.c.deck |= bit(nxt)
                    nxt += 1
            self.c.identity = 1
            for i in range(64):
                if self.c.to_int[i] >= 0 and self.c.to_int[i] != i:
                    self.c.identity = 0
        pts = {}
        if points is not None:
            for k, v in dict(points).items():
                phys = int(getattr(k, "index", k))
                if not 0 <= phys < 64 or self.c.to_int[phys] < 0:
                    raise ValueError(f"card {phys} has points but is not in the layout")
                if int(v):
                    pts[phys] = int(v)
                self.c.points[self.c.to_int[phys]] = int(v)
        self.points = pts

    cdef mask_t to_internal(self, mask_t physical) except? 0:
        cdef mask_t out = 0
        cdef int i
        if self.c.identity and (physical & ~self.c.deck) == 0:
            return physical
        while physical:
            i = lowest(physical)
            physical &= physical - 1
            if self.c.to_int[i] < 0:
                raise ValueError(f"card index {i} is not in this deal's layout")
            out |= bit(self.c.to_int[i])
        return out

    cdef mask_t to_physical(self, mask_t internal) noexcept:
        cdef mask_t out = 0
        cdef int i
        if self.c.identity:
            return internal
        while internal:
            i = lowest(internal)
            internal &= internal - 1
            out |= bit(self.c.to_phys[i])
        return out

    def beats(self, int card, int best):
        """Does physical card ``card`` beat ``best``, the card winning a trick?

        >>> TrickRules(2, 0).beats(0 * 16 + 2, 3 * 16 + 14)   # 2♣ trumps A♠
        True
        """
        cdef int a = self._card(card)
        cdef int b = self._card(best)
        return bool(tk_beats(&self.c, a, b))

    def effective_suit(self, int card):
        """The effective suit of a physical card (0..3 or :data:`TRUMP_SUIT`)."""
        return int(self.c.suit_of[self._card(card)])

    cdef int _card(self, object card) except -1:
        cdef int phys = int(getattr(card, "index", card))
        if not 0 <= phys < 64 or self.c.to_int[phys] < 0:
            raise ValueError(f"card index {phys} is not in this deal's layout")
        return self.c.to_int[phys]

    def __repr__(self):
        parts = [f"seats={self.seats}", f"trump={self.trump}"]
        if self.teams != tuple(range(self.seats)):
            parts.append(f"teams={self.teams}")
        for name in ("follow", "must_trump", "head", "overtrump", "sure_pot"):
            if getattr(self, name):
                parts.append(f"{name}=True")
        if self.sure_pot and self.pot_tricks != 3:
            parts.append(f"pot_tricks={self.pot_tricks}")
        if self.layout is not None:
            parts.append(f"layout=<{len(self.layout)} cards>")
        if self.points:
            parts.append(f"points=<{sum(self.points.values())} in all>")
        if self.last_trick_bonus:
            parts.append(f"last_trick_bonus={self.last_trick_bonus}")
        return "TrickRules(" + ", ".join(parts) + ")"

    def __reduce__(self):
        return (
            _rebuild,
            (
                self.seats,
                self.trump,
                self.teams,
                self.follow,
                self.must_trump,
                self.head,
                self.overtrump,
                self.layout,
                self.points,
                self.last_trick_bonus,
                self.sure_pot,
                self.pot_tricks,
            ),
        )


def _rebuild(
    seats, trump, teams, follow, must_trump, head, overtrump, layout, pts, bonus, pot=False, k=3
):
    return TrickRules(
        seats,
        trump,
        teams=teams,
        follow=follow,
        must_trump=must_trump,
        head=head,
        overtrump=overtrump,
        layout=layout,
        points=pts,
        last_trick_bonus=bonus,
        sure_pot=pot,
        pot_tricks=k or 3,
    )



# ------------------------------------------------------------------------------------------
# Positions: Python values in, internal masks out


cdef mask_t as_mask(object hand) except? 0:
    cdef mask_t m = 0
    if isinstance(hand, int):
        if hand < 0 or hand >> 64:
            raise ValueError(f"a hand mask is a 64-bit unsigned int, not {hand}")
        return <mask_t>hand
    for c in hand:
        i = int(getattr(c, "index", c))
        if not 0 <= i < 64:
            raise ValueError(f"card index {i} is outside 0..63")
        m |= bit(i)
    return m


cdef int load_position(
    TrickRules rules, object hands, int leader, object trick, mask_t* out, tk_trick* t
) except -1:
    """Check a position and translate it; raise ValueError with the reason."""
    cdef int n = rules.seats
    cdef int s, k, card
    cdef mask_t seen = 0, m
    hands = list(hands)
    if len(hands) != n:
        raise ValueError(f"need {n} hands, got {len(hands)}")
    if not 0 <= leader < n:
        raise ValueError(f"leader {leader} is not a seat of {n}")
    trick = [int(getattr(c, "index", c)) for c in trick]
    if len(trick) >= n:
        raise ValueError("the trick in progress already holds a card from every seat")
    for s in range(n):
        m = rules.to_internal(as_mask(hands[s]))
        if m & seen:
            raise ValueError(f"hand {s} shares a card with an earlier hand")
        seen |= m
        out[s] = m
    tk_start(t, leader)
    for card in trick:
        k = rules._card(card)
        if seen & bit(k):
            raise ValueError(f"card {card} is on the trick and in a hand")
        seen |= bit(k)
        tk_play(&rules.c, t, k)
    sizes = []
    for s in range(n):
        played = 1 if (s - leader + n) % n < len(trick) else 0
        sizes.append(popcount(out[s]) + played)
    if len(set(sizes)) != 1:
        raise ValueError(f"hand sizes {sizes} (cards on the trick included) must be equal")
    return 0


cdef mask_t sure_pot_cards(
    const tk_rules* r, const mask_t* hands, const tk_trick* t, int seat, const tk_pot* p,
    mask_t legal
) noexcept nogil:
    return tk_sure_pot(r, hands, t, seat, p, legal)


cdef int load_pot(TrickRules rules, object won, object hidden, tk_pot* p) except -1:
    """Read the sure-pot duty's ``won`` (tricks per seat) and ``hidden`` (per seat, the cards
    out of play it has not seen: a mask or cards); ``None``: none won, none hidden."""
    cdef int n = rules.seats, s
    memset(p, 0, sizeof(tk_pot))
    if won is not None:
        won = [int(x) for x in won]
        if len(won) != n or min(won) < 0:
            raise ValueError(f"won needs a count >= 0 per seat ({n}), got {won}")
        for s in range(n):
            p.won[s] = won[s]
    if hidden is not None:
        hidden = list(hidden)
        if len(hidden) != n:
            raise ValueError(f"hidden needs a mask per seat ({n}), got {len(hidden)}")
        for s in range(n):
            p.hidden[s] = rules.to_internal(as_mask(hidden[s]))
    return 0



# ------------------------------------------------------------------------------------------
# Legal cards, trick winners, playouts


def legal_cards(TrickRules rules not None, hand, trick=()):
    """The physical mask of the cards of ``hand`` that may go on ``trick`` (card indexes
    played so far, in order).

    >>> from levata.engine.cards import parse_cards
    >>> from levata.engine.cardmask import mask_of, cards_of
    >>> r = TrickRules(4, 1, must_trump=True, head=True, overtrump=True)  # Bestia, denari
    >>> hand = mask_of(parse_cards("7b 3b Ks"))
    >>> [str(c) for c in cards_of(legal_cards(r, hand, [c.index for c in parse_cards("5b")]), True)]
    ['7b']
    """
    cdef tk_trick t
    cdef mask_t h = rules.to_internal(as_mask(hand))
    tk_start(&t, 0)
    for card in trick:
        tk_play(&rules.c, &t, rules._card(card))
    if t.count >= rules.seats:
        raise ValueError("the trick is complete")
    return rules.to_physical(tk_legal(&rules.c, h, &t))


def legal_moves(TrickRules rules not None, hands, int leader, trick=(), won=None, hidden=None):
    """The physical mask of the cards the seat to play may play in a whole position (one hand
    per seat, the trick's cards from ``leader``), every duty of ``rules`` included: with
    ``sure_pot``, ``won`` (tricks per seat) and ``hidden`` (per seat, the cards out of play it
    has not seen) feed the sure-pot and secured-pot duties.

    >>> from levata.engine.cards import parse_cards
    >>> from levata.engine.cardmask import mask_of, cards_of
    >>> r = TrickRules(2, 1, must_trump=True, head=True, overtrump=True, sure_pot=True)
    >>> hands = [mask_of(parse_cards(h)) for h in ("Kd 7s", "Cd 2b")]
    >>> [str(c) for c in cards_of(legal_moves(r, hands, 0, won=[2, 0]), True)]
    ['Kd']
    >>> [str(c) for c in cards_of(legal_moves(r, hands, 0, won=[1, 0]), True)]   # 2 short
    ['Kd', '7s']
    """
    cdef mask_t h[TK_MAX_SEATS]
    cdef tk_trick t
    cdef tk_pot p
    load_position(rules, hands, leader, trick, h, &t)
    load_pot(rules, won, hidden, &p)
    if popcount(h[(leader + t.count) % rules.seats]) == 0:
        return 0
    return rules.to_physical(tk_legal_at(&rules.c, h, &t, &p))


def trick_winner(TrickRules rules not None, int leader, trick):
    """The seat that takes ``trick`` (card indexes in play order from ``leader``); a partial
    trick gives the seat winning it so far.

    >>> r = TrickRules(4, trump=2)
    >>> trick_winner(r, 1, [3 * 16 + 14, 3 * 16 + 2, 2 * 16 + 2])   # A♠, 2♠, 2♥ (trump)
    3
    """
    cdef tk_trick t
    if not trick:
        raise ValueError("an empty trick has no winner")
    if not 0 <= leader < rules.seats or len(trick) > rules.seats:
        raise ValueError(f"leader {leader} and {len(trick)} cards do not fit {rules.seats} seats")
    tk_start(&t, leader)
    for card in trick:
        tk_play(&rules.c, &t, rules._card(card))
    return t.win_seat

