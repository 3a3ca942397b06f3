"""How long each command takes to start, against a bare Python's start-up.

Each command line runs ``--runs`` times as a new process (what a person typing it waits
for); the figure is the median wall time, and the ratio is against ``python -c pass`` in
the same run. The runs take turns (one of each command a round), so a change in the
shared machine's load hits every command alike; the CPU time each process used (user +
system) is printed too, as a loaded machine stretches wall time far more than CPU time.
The goal (issue 16): ``rules list`` and ``--help`` within 8x.

    .venv/bin/python bench/startup.py [--runs 15]
"""

from __future__ import annotations

import argparse
import platform
import resource
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


def once(argv: list[str]) -> tuple[float, float]:
    """(wall, CPU) seconds of one run of ``argv``."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime + after.ru_stime - used.ru_utime - used.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=15)
    args = ap.parse_args()
    print(
        f"Python {platform.python_version()}; {args.runs} runs each, in turns; medians of "
        "wall time and of CPU time"
    )
    lines = {"python -c pass": [sys.executable, "-c", "pass"]}
    for argv in COMMANDS:
        lines["table-controller " + " ".join(argv)] = [str(BIN / "table-controller"), *argv]
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in lines}
    for _ in range(args.runs):
        for name, argv in lines.items():
            times[name].append(once(argv))
    bare_wall, bare_cpu = (statistics.median(t) for t in zip(*times["python -c pass"], strict=True))
    print(f"  {'':<42} {'wall':>9}  {'':>4}  {'CPU':>9}")
    for name, took in times.items():
        wall, cpu = (statistics.median(t) for t in zip(*took, strict=True))
        print(
            f"  {name:<42} {wall * 1000:6.1f} ms  {wall / bare_wall:4.1f}x"
            f"  {cpu * 1000:6.1f} ms  {cpu / bare_cpu:4.1f}x"
        )


if __name__ == "__main__":
    main()
