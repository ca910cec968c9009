"""How often the players at a table break the rule of the trick that inference from plays
reads (:mod:`levata.bots.inference`), in each of its situations, from simulated deals where
every hand is known: the deviation rates the factors ``MISS_LAST``, ``MISS``, ``DEARER``
and ``SPARE`` stand for.

    python benchmarks/rule_breaks.py --bot pimc:worlds=20:time_ms=0:min_worlds=20 --deals 60
"""

from __future__ import annotations

import argparse
from collections import Counter

from levata.bots.base import Bot, make_bot
from levata.bots.entry import split_entry
from levata.bots.strategy import strategy_for
from levata.engine import actions, game
from levata.engine.family.tricks import TrickGame, beats, power, suit_of, trick_taker, winning_card


def tally(state: TrickGame, bots: list[Bot], counts: Counter, deal_size: int) -> None:
    """Play one Whist deal of ``deal_size`` cards a seat with ``bots``, and count each play
    to the led suit (not a lead) where the seat could keep the rule, and whether it broke it."""
    strategy = strategy_for(game("whist"))
    rules = state.rules
    size = rules.seats
    taken = [0] * state.players
    trick: list = []
    who: list[int] = []
    plays = 0
    while plays < size * deal_size:
        seat = state.to_act()[0]
        legal = state.legal_actions(seat)
        action = bots[seat].act(state.view(seat), legal)
        if action.kind != actions.PLAY:
            state.apply(seat, action)
            continue
        hand, card = list(state.hands[seat]), action.card
        if trick and suit_of(rules, card) == suit_of(rules, trick[0]):
            want = strategy.wants_trick(state, seat, taken, None)
            led = suit_of(rules, trick[0])
            best = winning_card(rules, trick)
            suit = [c for c in hand if suit_of(rules, c) == led]
            winners = [c for c in suit if beats(rules, c, best)]
            losers = [c for c in suit if not beats(rules, c, best)]
            last = len(trick) == size - 1
            won = beats(rules, card, best)
            if want and winners:
                key = "MISS_LAST" if last else "MISS"
                counts[key, "could"] += 1
                counts[key, "broke"] += not won
                if last and won and len(winners) > 1:
                    counts["DEARER", "could"] += 1
                    counts["DEARER", "broke"] += power(rules, card) > min(
                        power(rules, c) for c in winners
                    )
            if want is False and losers:
                counts["SPARE", "could"] += 1
                counts["SPARE", "broke"] += won
        state.apply(seat, action)
        plays += 1
        trick.append(card)
        who.append(seat)
        if len(trick) == size:
            taken[trick_taker(rules, list(zip(who, trick, strict=True)))] += 1
            trick, who = [], []


def main() -> None:
    """Tally ``--deals`` deals of one bot entry at every seat, and print the rates."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bot", default="pimc:worlds=20:time_ms=0:min_worlds=20")
    parser.add_argument("--deals", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--deal-size", type=int, default=7)
    args = parser.parse_args()
    kind, options = split_entry(args.bot)
    counts: Counter = Counter()
    for d in range(args.deals):
        state = game("whist").new_match(
            players=args.players, options={"deal_size": args.deal_size}, seed=args.seed + d
        )
        bots = [
            make_bot(kind, "whist", args.seed * 1000 + 10 * d + s, **options)
            for s in range(args.players)
        ]
        tally(state, bots, counts, args.deal_size)
    for key in ("MISS_LAST", "MISS", "DEARER", "SPARE"):
        could, broke = counts[key, "could"], counts[key, "broke"]
        rate = broke / could if could else float("nan")
        print(f"{key:9} could follow {could:5}  broke {broke:5}  rate {rate:.2f}")


if __name__ == "__main__":
    main()
