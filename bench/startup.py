"""How long each command takes to start, against a bare Python's start-up.

Each command line runs ``--runs`` times as a new process (what a person typing it waits
for); the figure is the median wall time, and the ratio is against ``python -c pass`` in
the same run. The goal (issue 16): ``rules list`` and ``--help`` within 8x.

    .venv/bin/python bench/startup.py [--runs 15]
"""

from __future__ import annotations

import argparse
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

BIN = Path(sys.executable).parent
COMMANDS = [
    ["--help"],
    ["--version"],
    ["rules", "list"],
    ["rules", "show", "td-tournament"],
    ["replay", "--help"],
    ["demo", "--help"],
    *[[group, "--help"] for group in (
        "deck", "calibrate", "vision", "seats", "cube", "log", "config", "run", "director",
        "feed", "kiosk",
    )],
]  # fmt: skip


def timed(argv: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=15)
    args = ap.parse_args()
    print(f"Python {platform.python_version()}; {args.runs} runs each, median wall time")
    bare = timed([sys.executable, "-c", "pass"], args.runs)
    print(f"  {'python -c pass':<42} {bare * 1000:7.1f} ms   1.0x")
    for argv in COMMANDS:
        took = timed([str(BIN / "table-controller"), *argv], args.runs)
        line = "table-controller " + " ".join(argv)
        print(f"  {line:<42} {took * 1000:7.1f} ms  {took / bare:4.1f}x")


if __name__ == "__main__":
    main()
