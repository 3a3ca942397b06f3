"""The bots' decision times and strength (issue 7).

    nice .venv/bin/python bench/bots.py --hands 10000            # the full figure
    nice .venv/bin/python bench/bots.py --hands 1000 --presets bicycle-head-to-head
    nice .venv/bin/python bench/bots.py --hands 500 --presets bicycle-head-to-head \
        --opponent strong-rule-of-thumb-bids       # bidding by search against without
    nice .venv/bin/python bench/bots.py --hands 5000 --presets nmu-tournament \
        --opponent strong-before                   # today's strong bot against issue 21's
    nice -n 19 .venv/bin/python bench/bots.py --opponent openspiel-ismcts \
        --presets bicycle-head-to-head --minutes 14          # against OpenSpiel's ISMCTS

For each preset: the strong bot against ``--opponent`` (the rule-of-thumb bot, or
OpenSpiel's information-set MCTS bot through bots/openspiel_bot.py, Euchre presets only)
over ``--hands`` deals (or as many as ``--minutes`` allows), each played both ways round
(A north-south, then A east-west, same dealer and cards), as A's points minus B's per
hand with a 95% confidence interval; and the time of every decision by kind (median and
99th percentile, wall clock on this machine). ``--a`` picks the first bot (default the
strong bot; ``--a rule-of-thumb --opponent openspiel-ismcts`` measures OpenSpiel's bot
against the rule-of-thumb bot; ``strong-rule-of-thumb-bids`` is the strong bot bidding
by the rule of thumb, with today's solver; ``strong-before`` is the strong bot as issue
21 found it: the rule-of-thumb bids and the solver before it, bench/solver_baseline.py).
For each strong bot: how often each kind of decision it searches (bid, play) fell back
to the rule of thumb, and why.
"""

from __future__ import annotations

import argparse
import collections
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # solver_baseline, for strong-before

from table_controller.bots import Bot
from table_controller.bots.match import MatchResult, play_match
from table_controller.bots.rule_of_thumb import RuleOfThumbBot
from table_controller.bots.strong import DEFAULT_BUDGET, MIN_DEALS, OVERRULE, StrongBot
from table_controller.rules.presets import PRESETS, Rules, preset

BOTS = (
    "strong",
    "strong-rule-of-thumb-bids",
    "strong-before",
    "rule-of-thumb",
    "openspiel-ismcts",
)


class Stop(Exception):
    pass


def make_bot(kind: str, rules: Rules, args: argparse.Namespace) -> Bot:
    if kind == "strong":
        return StrongBot(budget=args.budget, overrule=args.overrule, min_deals=args.min_deals)
    if kind == "strong-rule-of-thumb-bids":
        return StrongBot(budget=args.budget, bid_by_search=False)
    if kind == "strong-before":  # the strong bot as issue 21 found it
        import solver_baseline  # type: ignore[import-not-found]

        return StrongBot(
            budget=args.budget,
            bid_by_search=False,
            solver=solver_baseline.Solver,
            name="strong-before",
        )
    if kind == "rule-of-thumb":
        return RuleOfThumbBot()
    from table_controller.bots.openspiel_bot import OpenSpielBot  # needs pyspiel

    return OpenSpielBot(rules, simulations=args.simulations)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=1000, help="deals per preset (each twice)")
    ap.add_argument("--presets", nargs="*", default=list(PRESETS))
    ap.add_argument("--budget", type=float, default=DEFAULT_BUDGET, help="strong bot, s")
    ap.add_argument(
        "--overrule",
        type=float,
        default=OVERRULE,
        help="strong bot: SEs a bid must gain",
    )
    ap.add_argument("--min-deals", type=int, default=MIN_DEALS, help="strong bot: deals for a bid")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--a", choices=BOTS, default="strong", help="the bot measured")
    ap.add_argument("--opponent", choices=BOTS, default="rule-of-thumb")
    ap.add_argument("--simulations", type=int, default=None, help="OpenSpiel ISMCTS, per decision")
    ap.add_argument("--minutes", type=float, default=None, help="stop after this long a preset")
    args = ap.parse_args()
    if args.simulations is None and "openspiel-ismcts" in (args.a, args.opponent):
        from table_controller.bots.openspiel_bot import DEFAULT_SIMULATIONS

        args.simulations = DEFAULT_SIMULATIONS
    print(
        f"# bench/bots.py --hands {args.hands} --budget {args.budget} --seed {args.seed} "
        f"--a {args.a} --opponent {args.opponent} --simulations {args.simulations} "
        f"--minutes {args.minutes} --overrule {args.overrule} --min-deals {args.min_deals}"
    )
    for name in args.presets:
        rules = preset(name)
        times: dict[str, list[float]] = collections.defaultdict(list)
        started = time.time()
        deadline = None if args.minutes is None else started + args.minutes * 60
        done: list[MatchResult] = []

        def progress(
            r: MatchResult,
            deadline: float | None = deadline,
            done: list[MatchResult] = done,
            started: float = started,
        ) -> None:
            done[:] = [r]
            if r.deals % 50 == 0:
                print(f"  ... {r.summary()} [{time.time() - started:.0f} s]", flush=True)
            if deadline is not None and time.time() > deadline:
                raise Stop

        a, b = make_bot(args.a, rules, args), make_bot(args.opponent, rules, args)
        try:
            result = play_match(
                rules,
                a,
                b,
                args.hands,
                seed=args.seed,
                timing=lambda kind, s, times=times: times[kind].append(s),
                progress=progress,
            )
        except Stop:
            result = done[0]
        print(f"{name}: {result.summary()} [{time.time() - started:.0f} s]", flush=True)
        for bot in (a, b):
            fallbacks = getattr(bot, "fallbacks", None)
            if fallbacks is not None:
                print(f"  {bot.name} left to the rule-of-thumb bot: {dict(fallbacks)}")
            decisions = getattr(bot, "decisions", None)
            for kind, n in sorted((decisions or {}).items()):
                fell = sum(v for k, v in (fallbacks or {}).items() if k.startswith(kind + ": "))
                print(f"  {bot.name} {kind} fallbacks: {fell}/{n} ({100 * fell / max(n, 1):.2f} %)")
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
