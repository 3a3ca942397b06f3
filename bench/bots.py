"""The bots' decision times and strength (issue 7).

    nice .venv/bin/python bench/bots.py --hands 10000            # the full figure
    nice .venv/bin/python bench/bots.py --hands 1000 --presets bicycle-head-to-head

For each preset: the strong bot against the rule-of-thumb bot over ``--hands`` deals,
each played both ways round (A north-south, then A east-west, same dealer and cards),
as A's points minus B's per hand with a 95% confidence interval; and the time of every
decision by kind (median and 99th percentile, wall clock on this machine). (Against
OpenSpiel's MCTS bot: not done yet, see docs/bots.md.)
"""

from __future__ import annotations

import argparse
import collections
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from table_controller.bots.match import play_match
from table_controller.bots.rule_of_thumb import RuleOfThumbBot
from table_controller.bots.strong import DEFAULT_BUDGET, StrongBot
from table_controller.rules.presets import PRESETS, preset


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=1000, help="deals per preset (each twice)")
    ap.add_argument("--presets", nargs="*", default=list(PRESETS))
    ap.add_argument("--budget", type=float, default=DEFAULT_BUDGET, help="strong bot, s")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    print(f"# bench/bots.py --hands {args.hands} --budget {args.budget} --seed {args.seed}")
    for name in args.presets:
        times: dict[str, list[float]] = collections.defaultdict(list)
        started = time.time()
        result = play_match(
            preset(name),
            StrongBot(budget=args.budget),
            RuleOfThumbBot(),
            args.hands,
            seed=args.seed,
            timing=lambda kind, s, times=times: times[kind].append(s),
        )
        print(f"{name}: {result.summary()} [{time.time() - started:.0f} s]", flush=True)
        for kind, values in sorted(times.items()):
            values.sort()
            p99 = values[min(len(values) - 1, int(len(values) * 0.99))]
            print(
                f"  {kind:<28} n={len(values):>6}  median {statistics.median(values) * 1e3:6.1f} ms"
                f"  p99 {p99 * 1e3:6.1f} ms",
                flush=True,
            )


if __name__ == "__main__":
    main()
