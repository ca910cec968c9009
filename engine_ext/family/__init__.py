"""Family bases: what games of one shape share, so each game module holds only its own rules.

* :mod:`levata.engine.family.tricks`: the trick-game base (Whist; later Banking Cards,
  8-5-3, 3-5-8, Tarneeb, Rentz, Sixty-six, Filcau, Bestia).
* :mod:`levata.engine.family.quotas`: quotas 8-5-3 / 6-3-2-1, the deal's score row, credits
  and debts carried into exchanges (Banking Cards, 8-5-3 / 6-3-2-1, 3-5-8).
* :mod:`levata.engine.family.shedding`: finish-order ranking, the stock and its reshuffle
  (Macao, Repezita; later Huzur, Trombon, Toci).
* :mod:`levata.engine.family.seen`: per-seat histories kept as events are emitted.
* :mod:`levata.engine.family.simultaneous`: ticks where every seat in play submits at once,
  hidden, resolved in a rotating priority, or real time on the referee's clock (Repezita;
  later Kemps, Toci's call, Trombon's calls).
* :mod:`levata.engine.family.captures`: fishing games: the face-up table, capture piles per
  seat and side, the last capturer, sweeps, packet deals, captures by sums as atomic steps
  (Tabinet).
"""
