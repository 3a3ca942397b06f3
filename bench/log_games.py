"""How long ``table-controller log games LOG`` takes, as a new process: the median wall
time and CPU time (user + sys: steadier than wall time on a shared machine), against a
bare Python; and, in this process, how that splits between imports, opening the log and
replaying its games.

    table-controller demo --hands 8 --fast --seed 1 --log-dir /tmp/demo8
    .venv/bin/python bench/log_games.py /tmp/demo8/demo.sqlite [--runs 9] [--tree DIR]

``--tree DIR`` times another checkout's package (an older commit, unpacked with
``git archive COMMIT table_controller | tar -x -C DIR``), for a before and after.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path


def timed(argv: list[str], env: dict[str, str], runs: int) -> tuple[float, float]:
    """Median (wall, cpu) seconds of ``runs`` new processes."""
    walls, cpus = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, check=True)
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return statistics.median(walls), statistics.median(cpus)


def split(log: str) -> str:
    """Imports, opening and replaying, timed in this process (the first import here)."""
    start = time.perf_counter()
    from table_controller.event_log import EventLog
    from table_controller.table.log import cli  # noqa: F401  what the command imports
    from table_controller.table.log.export import replay_sheet

    imported = time.perf_counter()
    with EventLog.open_existing(log) as opened:
        ready = time.perf_counter()
        records = opened.games()
        for record in records:
            replay_sheet(opened, record.game)
    done = time.perf_counter()
    ms = [round((b - a) * 1000) for a, b in ((start, imported), (imported, ready), (ready, done))]
    return (
        f"in process: imports {ms[0]} ms, open {ms[1]} ms, "
        f"replay of {len(records)} games {ms[2]} ms"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("log", help="a table's log (table-controller demo writes one)")
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--tree", metavar="DIR", help="time the package in DIR instead")
    args = ap.parse_args()
    env = dict(os.environ)
    if args.tree:
        env["PYTHONPATH"] = str(Path(args.tree).resolve())
    argv = [sys.executable, "-m", "table_controller.cli", "log", "games", args.log]
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, check=True)  # warm the cache
    print(f"{args.runs} runs each, median; load average {os.getloadavg()[0]:.2f}")
    for name, line in (("python -c pass", [sys.executable, "-c", "pass"]), ("log games", argv)):
        wall, cpu = timed(line, env, args.runs)
        print(f"  {name:<16} wall {wall * 1000:6.0f} ms   cpu {cpu * 1000:5.0f} ms")
    if not args.tree:
        print("  " + split(args.log))


if __name__ == "__main__":
    main()
