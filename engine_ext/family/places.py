"""Worlds dealt by places: a search world rebuilt from one seat's view, where every hidden
card lies in a known *place* (another seat's hand, the kitty or Surpriza, the discards) with
the cards known to be there and its size.

A game's worlds module makes the :class:`PlacePlan` of a view once (its prototype world, the
known cards, the exact :class:`~levata.engine.sampler.Sampler` over the unknown ones);
:func:`deal_places` then deals each world from it. Banking Cards, 8-5-3 and 3-5-8 build their
worlds this way.
"""

from __future__ import annotations

import random
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from levata.engine.cardmask import cards_of
from levata.engine.cards import Card
from levata.engine.contract import SeatView
from levata.engine.family.tricks import _copy_state

__all__ = ["PlacePlan", "deal_places", "plan_for", "reseed"]


@dataclass
class PlacePlan:
    """How to deal the worlds of one view."""

    proto: Any  # the world with every known card placed and the hidden ones not yet dealt
    seat: int
    fixed: dict[int, list[Card]]  # place -> cards known to be there
    names: list[int]  # the places dealt at random, in sampler order
    sampler: Any  # levata.engine.sampler.Sampler, or None when nothing is hidden


Plan = TypeVar("Plan", bound=PlacePlan)

# The last view's plan: a search draws many worlds of one view in a row.
_cache: list[tuple[weakref.ref[SeatView], type, PlacePlan]] = []


def plan_for(cls: type, view: SeatView, make: Callable[[], Plan]) -> Plan:
    """The plan of ``view`` for game class ``cls``: the last one if it is for this very view,
    else ``make()`` (kept for the next call)."""
    if _cache:
        ref, kind, kept = _cache[0]
        if ref() is view and kind is cls:
            return kept  # type: ignore[return-value]  # made by this same `make` for `cls`
    plan = make()
    _cache[:] = [(weakref.ref(view), cls, plan)]
    return plan


def deal_places(plan: PlacePlan, rng: random.Random) -> tuple[Any, dict[int, list[Card]]]:
    """A copy of the plan's prototype with every other seat's hand dealt, and the cards of
    every place (the game puts those of its own places, such as a kitty, where they go)."""
    world = _copy_state(plan.proto)
    dealt: dict[int, list[Card]] = {p: list(cs) for p, cs in plan.fixed.items()}
    if plan.sampler is not None:
        for place, m in zip(plan.names, plan.sampler.sample(rng.getrandbits(64)), strict=True):
            dealt.setdefault(place, []).extend(cards_of(m))
    for t in range(world.players):
        if t != plan.seat:
            world.hands[t] = sorted(dealt.get(t, []))
    return world, dealt


def reseed(world: Any, rng: random.Random) -> Any:
    """The world with a seed of its own from ``rng`` (its future deals differ per world)."""
    world.seed = rng.getrandbits(63)
    world.rng = random.Random(world.seed)
    return world
