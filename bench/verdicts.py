"""How long a game's verdicts take as the table and the director work them out (issue
34: "a game of ten hands is analysed before a person can open it"): through the
review's runner (``review.game_analyst``: a process of its own, started the spawn way
for each job, as at the table), the last hand alone (what a game's end asks for, the
hands before it kept) and the whole game at once (a game opened that nothing was kept
of).

    nice .venv/bin/python bench/verdicts.py                # 3 simulated games
    nice .venv/bin/python bench/verdicts.py --games 5 --rules bid-euchre

Prints each job's wall time, process start included, and the machine's load average.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from table_controller.review import GameJob, GameJudged, game_analyst, judge
from table_controller.rules.presets import preset
from table_controller.simulate import play


async def _through_runner(jobs: list[tuple[str, GameJob]]) -> list[tuple[str, float, int]]:
    analyst = game_analyst()
    out = []
    for label, job in jobs:
        answered: asyncio.Future[GameJudged] = asyncio.get_running_loop().create_future()
        start = time.perf_counter()
        analyst.start(job, answered.set_result)
        judged = await answered
        assert judged.kept.state == "ready", judged.kept.problem
        out.append((label, time.perf_counter() - start, len(judged.kept.hands)))
    await analyst.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--rules", default="td-tournament")
    args = parser.parse_args()
    rules = preset(args.rules)
    print(f"load average before: {os.getloadavg()[0]:.1f}")
    for seed in range(args.games):
        events = tuple(e for e, _ in play(rules, random.Random(seed)))
        whole = judge(GameJob(seed, rules, events))  # which hands there are
        done = frozenset(whole.kept.hands[:-1])
        jobs = [
            ("last hand", GameJob(seed, rules, events, done)),
            ("whole game", GameJob(seed, rules, events)),
        ]
        for label, seconds, hands in asyncio.run(_through_runner(jobs)):
            print(f"game {seed}: {label:10} {hands:3} hands  {seconds:5.2f} s")
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
