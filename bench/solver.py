"""The card-play solver's speed: the same seeded deals solved by the solver as it was
(bench/solver_baseline.py, search.py before issue 21) and by today's, in one run.

    nice .venv/bin/python bench/solver.py                 # 200 deals per shape
    nice .venv/bin/python bench/solver.py --deals 50 --shapes euchre bid
    nice .venv/bin/python bench/solver.py --pure     # the pure-Python fallback instead

Each deal is dealt in full and solved from the first lead: ``ns_tricks`` (the value) and
``move_values`` (every first card's value, what the strong bot asks). Shapes: every
preset's trump and sitting-out shapes: Euchre (5 cards, 4 out of play), Euchre alone (one
seat out), Bid Euchre with a trump and with no trump (6 cards, all 24 dealt), Bid Euchre
alone. Prints the median and 90th percentile time of a solve, the ratio baseline / new,
and fails if the two solvers disagree on any answer; then each question alone (ns_tricks,
ns_reach for 3 of 5 or 4 of 6 tricks, move_values) by the new solver.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import solver_baseline  # type: ignore[import-not-found]

from table_controller.bots import search
from table_controller.cards import DECK, Suit
from table_controller.seats import SEATS, Seat

# name: (cards a hand, trumps to draw from (None: no trump), a seat sits out)
SHAPES: dict[str, tuple[int, Sequence[Suit | None], bool]] = {
    "euchre": (5, list(Suit), False),
    "euchre-alone": (5, list(Suit), True),
    "bid": (6, list(Suit), False),
    "bid-no-trump": (6, [None], False),
    "bid-alone": (6, [*Suit, None], True),
}

Deal = tuple[Suit | None, Seat | None, list[int], Seat]


def deals(shape: str, n: int, seed: int) -> list[Deal]:
    size, trumps, alone = SHAPES[shape]
    rng = random.Random(f"{seed}-{shape}")
    out: list[Deal] = []
    for _ in range(n):
        deck = list(DECK)
        rng.shuffle(deck)
        trump = rng.choice(trumps)
        sitting_out = rng.choice(SEATS) if alone else None
        active = [s for s in SEATS if s != sitting_out]
        hands = [0, 0, 0, 0]
        for i, s in enumerate(active):
            for c in deck[i * size : (i + 1) * size]:
                hands[s] |= 1 << c
        out.append((trump, sitting_out, hands, rng.choice(active)))
    return out


def timed(make: Callable[..., Any], deal: Deal) -> tuple[float, tuple[int, dict[Any, int]]]:
    trump, out, hands, leader = deal
    t0 = time.perf_counter()
    solver = make(trump, out)
    value = solver.ns_tricks(hands, leader)
    values = solver.move_values(hands, leader)
    return time.perf_counter() - t0, (value, values)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=200, help="deals per shape")
    ap.add_argument("--shapes", nargs="*", default=list(SHAPES), choices=list(SHAPES))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-baseline", action="store_true", help="time today's solver only")
    ap.add_argument("--pure", action="store_true", help="today's pure-Python engine, not the C")
    args = ap.parse_args()
    engine = "python" if args.pure else search.ENGINE
    print(f"# bench/solver.py --deals {args.deals} --seed {args.seed}  (new solver: {engine})")
    print(f"{'shape':14} {'baseline med':>12} {'p90':>8} {'new med':>9} {'p90':>8} {'ratio':>6}")
    all_base: list[float] = []
    all_new: list[float] = []
    wrong = 0
    for shape in args.shapes:
        base_t: list[float] = []
        new_t: list[float] = []
        for deal in deals(shape, args.deals, args.seed):
            tn, answer = timed(lambda t, o: search.Solver(t, o, compiled=not args.pure), deal)
            new_t.append(tn)
            if not args.no_baseline:
                tb, expected = timed(solver_baseline.Solver, deal)
                base_t.append(tb)
                if answer != expected:
                    wrong += 1
                    print(f"  DISAGREE {shape} {deal}: {answer} vs baseline {expected}")
        all_base += base_t
        all_new += new_t
        print(row(shape, base_t, new_t))
    print(row("all", all_base, all_new))
    print(questions(args, engine))
    if wrong:
        sys.exit(f"{wrong} deals solved differently by the two solvers")


def questions(args: argparse.Namespace, engine: str) -> str:
    """Each question alone, new solver, over every shape's deals: what bidding pays."""
    times: dict[str, list[float]] = {"ns_tricks": [], "ns_reach": [], "move_values": []}
    for shape in args.shapes:
        size = SHAPES[shape][0]
        for trump, out, hands, leader in deals(shape, args.deals, args.seed):
            solver = search.Solver(trump, out, compiled=not args.pure)
            target = 3 if size == 5 else 4  # the makers' 3 of 5; a bid of 4 of 6
            t0 = time.perf_counter()
            solver.ns_tricks(hands, leader)
            t1 = time.perf_counter()
            solver.ns_reach(hands, leader, target)
            t2 = time.perf_counter()
            solver.move_values(hands, leader)
            t3 = time.perf_counter()
            times["ns_tricks"].append(t1 - t0)
            times["ns_reach"].append(t2 - t1)
            times["move_values"].append(t3 - t2)
    parts = [
        f"{name} {statistics.median(ts) * 1e3:.3f} ms (p90 "
        f"{statistics.quantiles(ts, n=10)[-1] * 1e3:.3f})"
        for name, ts in times.items()
    ]
    return f"# {engine}, each question alone, median: " + "; ".join(parts)


def row(name: str, base: list[float], new: list[float]) -> str:
    def q(ts: list[float]) -> tuple[float, float]:
        if not ts:
            return float("nan"), float("nan")
        return statistics.median(ts) * 1e3, statistics.quantiles(ts, n=10)[-1] * 1e3

    bm, b9 = q(base)
    nm, n9 = q(new)
    if not base:
        return f"{name:14} {'-':>12} {'-':>8} {nm:7.2f}ms {n9:6.2f}ms"
    return f"{name:14} {bm:10.2f}ms {b9:6.2f}ms {nm:7.2f}ms {n9:6.2f}ms {bm / nm:5.1f}x"


if __name__ == "__main__":
    main()
