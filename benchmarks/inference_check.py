"""Does the inference model point at the real deal? Replays recorded matches of a tournament
database and, at each decision of a seat whose strategy gives evidence
(``Strategy.evidence``, ``docs/inference.md``), compares the likelihood of the real hands
with the mean likelihood of uniform worlds of the seat's view::

    python benchmarks/inference_check.py tarneeb.db --matches 20 --worlds 40

It prints, per game and phase, the decisions read, the mean ``log(L(real) / mean L(world))``
(above 0: the model makes the real deal likelier than a uniform world of the view, so
drawing by it moves the worlds towards the truth) and the share of decisions where it is
above 0. A model of the seats' policy that is wrong about the players at the table shows as
a mean at or below 0.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sqlite3
import statistics
from collections import defaultdict

from levata.bots.strategy import strategy_for
from levata.engine import Action, game
from levata.engine.cardmask import mask_of
from levata.engine.family.tricks import TrickGame


def check(db: str, matches: int, worlds: int, seed: int) -> dict[tuple[str, str], list[float]]:
    """Per (game, phase), the log ratio at each decision read."""
    rng = random.Random(seed)
    con = sqlite3.connect(db)
    rows = con.execute(
        "select id, game, players, options, seed from matches where status = 'finished'"
        " order by id limit ?",
        (matches,),
    ).fetchall()
    out: dict[tuple[str, str], list[float]] = defaultdict(list)
    for mid, name, players, options, match_seed in rows:
        spec = game(name)
        strategy = strategy_for(spec)
        state = spec.new_match(players=players, options=json.loads(options), seed=match_seed)
        acts = con.execute(
            "select seat, action from actions where match_id = ? order by n", (mid,)
        ).fetchall()
        for seat, text in acts:
            if seat is None or text is None:
                continue
            if isinstance(state, TrickGame) and len(state.legal_actions(seat)) > 1:
                ratio = _log_ratio(spec, strategy, state, seat, worlds, rng)
                if ratio is not None:
                    out[(name, state.phase)].append(ratio)
            state.apply(seat, Action.parse(text))
    return out


def _log_ratio(spec, strategy, state, seat, worlds, rng) -> float | None:  # type: ignore[no-untyped-def]
    view = state.view(seat)
    try:
        first = spec.world_from_view(view, random.Random(0))
    except NotImplementedError:
        return None
    likelihood = strategy.evidence(view, first)
    if likelihood is None:
        return None
    real = likelihood([mask_of(h) for h in state.hands])
    drawn = [
        likelihood([mask_of(h) for h in spec.world_from_view(view, rng).hands])
        for _ in range(worlds)
    ]
    mean = statistics.fmean(drawn)
    if real <= 0 or mean <= 0:
        return None
    return math.log(real / mean)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("db", nargs="+", help="tournament databases (levata tournament --db)")
    p.add_argument("--matches", type=int, default=20, help="matches replayed per database")
    p.add_argument("--worlds", type=int, default=40, help="uniform worlds per decision")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    for db in args.db:
        for (name, phase), xs in sorted(check(db, args.matches, args.worlds, args.seed).items()):
            above = sum(x > 0 for x in xs) / len(xs)
            print(
                f"{db} {name} {phase}: {len(xs)} decisions, mean log ratio"
                f" {statistics.fmean(xs):+.3f}, above 0 in {above:.0%}"
            )


if __name__ == "__main__":
    main()
