"""How long the review takes (issue 34: "the analysis of one hand takes <= 1 s on this
machine", and "a game of ten hands is analysed before a person can open it").

    nice .venv/bin/python bench/review.py                       # 40 hands a preset
    nice .venv/bin/python bench/review.py --hands 10 --presets bid-euchre
    nice .venv/bin/python bench/review.py --pure --game-hands 0  # the pure-Python solver

Each hand is dealt at random and bid and played by the rule-of-thumb bot (every hand
known, as at the kiosk), then reviewed alone: every decision's exact verdict and its
player's-view verdict over ``--deals`` sampled deals. Prints, per preset, the median and
the largest time a hand over the hands (wall clock, and the process's CPU time, which a
loaded machine does not inflate), then a game of ten hands reviewed at once, and the
solver's own figures from the first lead in the same run (bench/solver.py's deals), with
the machine's load average before and after. ``--pure`` puts the review's own solves on
the pure-Python solver; the player's view of a bid weighs its calls with the strong
bot's bidding search, which takes the compiled solver where it was built.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import solver as solver_bench  # type: ignore[import-not-found]
from sysinfo import cpu_model  # type: ignore[import-not-found]

from table_controller import simulate
from table_controller.bots import SeatView
from table_controller.bots.rule_of_thumb import RuleOfThumbBot
from table_controller.bots.search import ENGINE, Solver
from table_controller.review import ReviewOptions, analyse_game
from table_controller.rules.events import DealerChosen, HandScored, HandThrownIn, InputEvent
from table_controller.rules.game import Game
from table_controller.rules.presets import PRESETS, Rules, preset
from table_controller.seats import SEATS

BOT = RuleOfThumbBot()


def chooser(rng: random.Random) -> simulate.Chooser:
    def choose(game: Game, options: list[InputEvent]) -> InputEvent:
        seat = game.to_act
        if seat is None:
            return options[0]
        event = BOT.choose(SeatView(seat, game), rng)
        return event if event in options else options[0]

    return choose


def game_log(rules: Rules, rng: random.Random, hands: int) -> list[InputEvent]:
    """The log of a game up to the end of its ``hands``-th deal (bots bid and play)."""
    log: list[InputEvent] = [DealerChosen(rng.choice(SEATS))]
    game = Game(rules)
    game.push(log[0])
    choose = chooser(rng)
    ended = 0
    while ended < hands:
        if game.phase.value == "dealing":
            event: InputEvent = simulate.deal(rng, rules)
        elif game.phase.value == "over":
            break
        else:
            event = choose(game, game.legal_events())
        outputs = game.push(event)
        log.append(event)
        ended += sum(isinstance(o, HandScored | HandThrownIn) for o in outputs)
    return log


def timed(rules: Rules, log: list[InputEvent], opts: ReviewOptions) -> tuple[float, float, int]:
    w0, c0 = time.perf_counter(), time.process_time()
    review = analyse_game(rules, log, random.Random(1), opts)
    decisions = sum(len(h.decisions) for h in review.hands)
    return time.perf_counter() - w0, time.process_time() - c0, decisions


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.1f} {five:.1f} {fifteen:.1f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=40, help="random hands a preset")
    ap.add_argument("--presets", nargs="*", default=list(PRESETS), choices=list(PRESETS))
    ap.add_argument("--deals", type=int, default=ReviewOptions().deals)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--pure", action="store_true", help="the pure-Python solver, not the C")
    ap.add_argument("--game-hands", type=int, default=10, help="hands of the game (0: none)")
    args = ap.parse_args()
    opts = ReviewOptions(deals=args.deals, compiled=not args.pure)
    engine = "python" if args.pure else ENGINE
    print(f"# bench/review.py --hands {args.hands} --deals {args.deals} (solver: {engine})")
    print(f"# {cpu_model()}, {os.cpu_count()} cores; load average before: {load()}")
    print(
        f"{'preset':22} {'hands':>5} {'decisions':>9} {'wall med':>9} {'max':>8} "
        f"{'cpu med':>8} {'max':>8}"
    )
    every: list[float] = []
    for name in args.presets:
        rules = preset(name)
        rng = random.Random(f"{args.seed}-{name}")
        walls, cpus, counts = [], [], []
        for _ in range(args.hands):
            wall, cpu, n = timed(rules, game_log(rules, rng, 1), opts)
            walls.append(wall)
            cpus.append(cpu)
            counts.append(n)
        every += cpus
        print(
            f"{name:22} {len(walls):5} {statistics.mean(counts):9.1f} "
            f"{statistics.median(walls):8.3f}s {max(walls):7.3f}s "
            f"{statistics.median(cpus):7.3f}s {max(cpus):7.3f}s"
        )
    if every:
        print(
            f"{'all (cpu)':22} {len(every):5} {'':9} {'':9} {'':8} "
            f"{statistics.median(every):7.3f}s {max(every):7.3f}s"
        )
    for name in args.presets if args.game_hands else ():
        rules = preset(name)
        log = game_log(rules, random.Random(f"{args.seed}-game-{name}"), args.game_hands)
        wall, cpu, n = timed(rules, log, opts)
        print(
            f"# a game of {args.game_hands} hands, {name}: {n} decisions, "
            f"{wall:.2f} s wall, {cpu:.2f} s cpu"
        )
    times: list[float] = []
    for shape in solver_bench.SHAPES:
        for deal in solver_bench.deals(shape, 40, args.seed):
            t, _ = solver_bench.timed(lambda t, o: Solver(t, o, compiled=not args.pure), deal)
            times.append(t)
    print(
        f"# the solver from the first lead (bench/solver.py's shapes, 40 deals each): "
        f"median {statistics.median(times) * 1e3:.2f} ms, "
        f"p90 {statistics.quantiles(times, n=10)[-1] * 1e3:.2f} ms"
    )
    print(f"# load average after: {load()}")


if __name__ == "__main__":
    main()
