# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""A Whist match whose hot calls run in C: the game contract at pyspiel's speed.

Every search and every test walks a match through ``to_act``, ``legal_actions``, ``apply``,
``clone`` and ``is_over``; through :class:`~levata.engine.games.whist.WhistState` each of
those is Python code that keeps events, voids and zones, about 8 us an action. A
:class:`WhistTable` holds the deal in progress as card masks and answers those five calls
in C. Everything else (a view, the events, the result, a position, any attribute) is the
Python state's to answer: the table replays the actions it took since it last asked into
that state, and hands the call on. The Python state stays the rules' one source of truth;
``tests/engine/test_whist_table.py`` proves the two agree action by action.

Three things keep the table honest:

* **The deal's end is Python's.** The next deal is shuffled from the Python state's random
  stream, so at the last trick of a deal that is not the match's last the table replays
  its actions and reads the new deal back; a forehead deal (one card, seen by the others)
  is played by the Python state alone, and the table takes over again at the next deal.
* **Anything it does not know, it leaves to Python for good.** Reading or setting any
  other attribute (``state.hands``, ``state.phase``, a private hook) hands the match to the
  Python state, which from then on answers every call (the caller may hold its lists). A
  clone starts afresh in C. The table passes for the Python state (``isinstance`` and
  ``__class__`` say ``WhistState``), so code written for it keeps working unchanged.
* **A clone shares the Python state until either side must write to it** (copy on write):
  a search clones the root thousands of times and asks a view of almost none of them.

>>> from levata.engine import game
>>> state = game("whist").new_match(players=4, options={"deal_size": 2}, seed=3)
>>> type(state).__name__, state.__class__.__name__, state.kernel_live
('WhistTable', 'WhistState', True)
>>> copy = state.clone()
>>> while not copy.is_over():
...     seat = copy.to_act()[0]
...     copy.apply(seat, copy.legal_actions(seat)[-1])
>>> len(copy.result().scores), copy.kernel_live, state.is_over()
(4, True, False)
>>> state.phase, state.kernel_live  # an attribute of its own: the Python state answers now
('bid', False)
"""

from cpython.list cimport PyList_New, PyList_SET_ITEM
from cpython.ref cimport Py_INCREF, PyObject
from cpython.tuple cimport PyTuple_GET_ITEM
from libc.string cimport memcpy

from levata.engine.cardmask cimport bit, lowest, mask_t, popcount
from levata.engine.rules cimport TK_MAX_SEATS, TrickRules, tk_beats, tk_legal, tk_rules, tk_trick

from levata.engine import phases
from levata.engine.cards import Card
from levata.engine.contract import Action, IllegalAction

__all__ = ["WhistTable"]

cdef enum:
    BIDDING = 0
    PLAYING = 1
    OVER = 2
    BID_CODE = 64      # an action's code: a card's index 0..63, or BID_CODE + the bid
    PENDING = 72       # actions kept before a replay: more than a deal's (6 bids, 48 cards)
    OFFERED = 16       # a legal list's length at most (9 bids, 8 cards)

cdef str PLAY_KIND = "play"
cdef str BID_KIND = "bid"


cdef class WhistTable:
    """A Whist match (its Python state ``py``) whose hot calls run in C; see the module.

    ``plays``: the ``play`` action of each card index (64 entries, ``None`` for cards not in
    the deck) and ``bids``: the ``bid`` action of each number, the very objects the Python
    state offers, so that an action from either list is found by identity.
    """

    cdef object py              # the WhistState: the rules' one source of truth
    cdef bint owns              # no other table shares py (copy on write)
    cdef bint live              # the C position below is the match's; else py answers all
    cdef bint waiting           # not live for this deal only (forehead): look at the next
    cdef tuple plays, bids, seats
    cdef TrickRules rules       # this deal's; kept alive for r
    cdef const tk_rules* r
    cdef int n, size, first, phase, made, bid_sum, deal
    cdef bint last_deal
    cdef mask_t hands[TK_MAX_SEATS]
    cdef tk_trick trick
    cdef int npend              # actions taken in C and not yet replayed into py
    cdef unsigned char pend_code[PENDING]
    cdef unsigned char pend_seat[PENDING]
    cdef int noffered, offered_seat  # the legal list last handed out, nothing applied since
    cdef PyObject* offered[OFFERED]  # borrowed: plays and bids keep them alive
    cdef unsigned char offered_code[OFFERED]

    def __init__(self, py, tuple plays, tuple bids):
        if len(plays) != 64:
            raise ValueError("plays must give the action of each of the 64 card indexes")
        self.py, self.owns, self.plays, self.bids = py, True, plays, bids
        self.seats = tuple((s,) for s in range(TK_MAX_SEATS))
        self._load()

    # -- the Python state, brought up to date ---------------------------------------------------

    cdef int _load(self) except -1:
        """Read the deal in progress from py (py is up to date); live unless it cannot."""
        cdef object py = self.py
        cdef int s, c
        self.npend = self.noffered = 0
        self.waiting = False
        self.deal = py.deal_index
        if py.over:
            self.phase, self.live = OVER, True
            return 0
        rules = py.rules
        if py.forehead or not isinstance(rules, TrickRules) or not (<TrickRules>rules).c.identity:
            self.live, self.waiting = False, True  # Python plays this deal; see _resume
            return 0
        self.rules = <TrickRules>rules
        self.r = &self.rules.c
        self.n, self.size, self.first = py.players, py.cards, py.first
        self.last_deal = py.deal_index + 1 == len(py.schedule)
        self.phase = BIDDING if py.phase == phases.BIDDING else PLAYING
        self.made = self.bid_sum = 0
        for b in py.bids:
            if b is not None:
                self.made += 1
                self.bid_sum += b
        for s in range(self.n):
            self.hands[s] = 0
            for card in py.hands[s]:
                self.hands[s] |= bit(card.index)
        self.trick.leader, self.trick.count, self.trick.cards = py.leader, 0, 0
        for s, card in py.current:
            self._to_trick(s, card.index)
        self.live = True
        return 0

    cdef object _read(self):
        """py with every action taken in C replayed into it: for a call that only reads."""
        cdef int i
        cdef object py, apply_legal
        if self.npend:
            if not self.owns:
                self.py, self.owns = self.py.clone(), True
            py = self.py
            apply_legal = py.apply_legal  # legal: the table checked each one
            for i in range(self.npend):
                apply_legal(self.pend_seat[i], self._action(self.pend_code[i]))
            self.npend = 0
        return self.py

    cdef object _own(self):
        """py up to date and this table's alone: for a call that may write to it."""
        self._read()
        if not self.owns:
            self.py, self.owns = self.py.clone(), True
        return self.py

    cdef object _hand_over(self):
        """Leave the match to py for good (the caller may keep what it reads of it)."""
        py = self._own()
        self.live = self.waiting = False
        self.noffered = 0
        return py

    cdef int _resume(self) except -1:
        """After py played an action alone: take over again once a new deal starts."""
        if self.waiting and (self.py.deal_index != self.deal or self.py.over):
            self._load()
        return 0

    cdef object _action(self, int code):
        return self.bids[code - BID_CODE] if code >= BID_CODE else self.plays[code]

    # -- the hot calls, in C ------------------------------------------------------------------

    cdef inline int _actor(self) noexcept:
        if self.phase == BIDDING:
            return (self.first + self.made) % self.n
        return (self.trick.leader + self.trick.count) % self.n

    def to_act(self):
        if not self.live:
            return self.py.to_act()
        if self.phase == OVER:
            return ()
        return self.seats[self._actor()]

    def is_over(self):
        if not self.live:
            return self.py.is_over()
        return self.phase == OVER

    def legal_actions(self, seat):
        cdef int s, b, i, k, card
        cdef mask_t legal
        cdef object out, a
        if not self.live or type(seat) is not int:
            return self._read().legal_actions(seat) if self.live else self.py.legal_actions(seat)
        if self.phase == OVER or seat != self._actor():
            return []
        s = seat
        k = 0
        if self.phase == BIDDING:
            out = PyList_New(0)
            for b in range(self.size + 1):
                if self.made == self.n - 1 and self.bid_sum + b == self.size:
                    continue  # the dealer may not make the bids add up to the cards
                a = <object>PyTuple_GET_ITEM(self.bids, b)
                out.append(a)
                self.offered[k], self.offered_code[k] = <PyObject*>a, BID_CODE + b
                k += 1
        else:
            legal = tk_legal(self.r, self.hands[s], &self.trick)
            out = PyList_New(popcount(legal))
            while legal:  # ascending index: the cards' own order, as the Python state sorts
                card = lowest(legal)
                legal &= legal - 1
                a = <object>PyTuple_GET_ITEM(self.plays, card)
                Py_INCREF(a)
                PyList_SET_ITEM(out, k, a)
                self.offered[k], self.offered_code[k] = <PyObject*>a, card
                k += 1
        self.noffered, self.offered_seat = k, s
        return out

    def apply(self, seat, action):
        """Apply ``action`` for ``seat`` or raise :class:`IllegalAction`, as the contract."""
        cdef int s, i, code = -1
        if not self.live:
            self.py.apply(seat, action)
            self._resume()
            return
        if self.phase == OVER:
            raise IllegalAction("the match is over")
        s = self._actor()
        if type(seat) is int and seat == s:
            if self.offered_seat == s:
                for i in range(self.noffered):
                    if self.offered[i] == <PyObject*>action:
                        code = self.offered_code[i]
                        break
            if code < 0:
                code = self._code_of(action)
            if code >= 0:
                self._take(s, code)
                return
        # Not to act, or not legal: the Python state says why, in its own words, and raises
        # (should it apply it after all, the table reads the match back from it).
        py = self._own()
        py.apply(seat, action)
        self._load()

    def apply_legal(self, seat, action):
        """The contract's ``apply_legal``: the table checks every action anyway."""
        self.apply(seat, action)

    cdef int _code_of(self, object action) except -2:
        """The code of a legal ``action`` given by value (not one of the objects offered),
        -1 when it is not legal now (or not of this deck: compared whole, not by index)."""
        cdef int b, card
        if type(action) is not Action:
            return -1  # the Python state judges anything else, as it would
        kind = action.kind
        if self.phase == BIDDING and kind == BID_KIND:
            number = action.number
            if type(number) is not int or not 0 <= number <= self.size:
                return -1
            b = number
            if self.made == self.n - 1 and self.bid_sum + b == self.size:
                return -1
            return BID_CODE + b if self.bids[b] == action else -1
        if self.phase == PLAYING and kind == PLAY_KIND and type(action.card) is Card:
            card = action.card.index
            if not 0 <= card < 64 or self.plays[card] is None or self.plays[card] != action:
                return -1
            if tk_legal(self.r, self.hands[self._actor()], &self.trick) & bit(card):
                return card
        return -1

    cdef int _take(self, int s, int code) except -1:
        """Apply a legal action in C; at a deal's end, hand the next deal to Python."""
        cdef int w
        self.noffered = 0
        if self.npend == PENDING:
            self._read()
        self.pend_seat[self.npend], self.pend_code[self.npend] = s, code
        self.npend += 1
        if code >= BID_CODE:
            self.made += 1
            self.bid_sum += code - BID_CODE
            if self.made == self.n:
                self.phase = PLAYING
            return 0
        self.hands[s] &= ~bit(code)
        self._to_trick(s, code)
        if self.trick.count == self.n:
            w = self.trick.win_seat
            self.trick.leader, self.trick.count, self.trick.cards = w, 0, 0
            if self.hands[w] == 0:  # the deal is over
                if self.last_deal:
                    self.phase = OVER
                else:
                    self._own()  # py scores it and shuffles the next from its stream
                    self._load()
        return 0

    cdef inline void _to_trick(self, int s, int card) noexcept:
        cdef tk_trick* t = &self.trick
        if t.count == 0:
            t.led, t.win_card, t.win_seat = self.r.suit_of[card], card, s
        elif tk_beats(self.r, card, t.win_card):
            t.win_card, t.win_seat = card, s
        t.count += 1
        t.cards |= bit(card)

    def clone(self):
        """An independent copy: the C position copied, the Python state shared until one of
        the two must write to it."""
        cdef WhistTable other
        if not self.live:
            return WhistTable(self.py.clone(), self.plays, self.bids)
        other = WhistTable.__new__(WhistTable)
        other.py, other.owns, self.owns = self.py, False, False
        other.live, other.waiting = True, False
        other.plays, other.bids, other.seats = self.plays, self.bids, self.seats
        other.rules, other.r = self.rules, self.r
        other.n, other.size, other.first, other.phase = self.n, self.size, self.first, self.phase
        other.made, other.bid_sum, other.deal = self.made, self.bid_sum, self.deal
        other.last_deal = self.last_deal
        memcpy(other.hands, self.hands, sizeof(self.hands))
        other.trick = self.trick
        other.npend = self.npend
        memcpy(other.pend_code, self.pend_code, self.npend)
        memcpy(other.pend_seat, self.pend_seat, self.npend)
        other.noffered = 0
        return other

    def __copy__(self):
        return self.clone()

    def __deepcopy__(self, memo):
        return self.clone()

    def __reduce__(self):
        # A pickle holds the Python state; reading it back wraps it again (the spec says how).
        return (_at_the_table, (self._read(),))

    # -- the Python state's answers -------------------------------------------------------------

    @property
    def kernel_live(self):
        """True while C holds the match (False: the Python state answers every call)."""
        return self.live

    @property
    def __class__(self):
        return type(self.py)  # isinstance(table, WhistState): it passes for one, and is

    @property
    def spec(self):
        return self.py.spec

    @property
    def players(self):
        return self.py.players

    @property
    def options(self):
        return self.py.options

    @property
    def seed(self):
        return self.py.seed

    @property
    def game(self):
        return self.py.game

    @property
    def realtime(self):
        return False

    def view(self, seat, history=True):
        return self._read().view(seat, history)

    def result(self):
        return self._read().result()

    def events(self, since=0, seat=None):
        return self._read().events(since, seat)

    def event_count(self):
        return self._read().event_count()

    def history(self, seat):
        return self._read().history(seat)

    def table(self):
        return self._read().table()

    def position(self):
        return self._read().position()

    def forfeit_scores(self, seats):
        return self._read().forfeit_scores(seats)

    def payload_schema(self, seat, choice):
        return self._read().payload_schema(seat, choice)

    def sample_world(self, seat, rng):
        return self._read().sample_world(seat, rng)

    def advance_clock(self, now_ms):
        return None  # a turn-based game: the contract's default ignores the clock

    def __repr__(self):
        return repr(self.py)

    def __getattr__(self, name):
        return getattr(self._hand_over(), name)

    def __setattr__(self, name, value):
        setattr(self._hand_over(), name, value)

    def __delattr__(self, name):
        delattr(self._hand_over(), name)


def _at_the_table(py):
    """A pickled table read back: its Python state, wrapped as the game's spec says."""
    wrap = py.spec.kernel_state
    return py if wrap is None else wrap(py)
