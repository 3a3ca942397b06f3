"""The running table: latency from a card laid to the lights, the cube and the page;
events logged per second; memory over a 12-hand match.

Run it as ``.venv/bin/python bench/table.py`` (``--quick`` for a short run). It prints:

* latency on the simulated table (clean synthetic frames, as fast as they render): from
  the first frame showing a card laid in a play zone (the world's truth, read off the
  rendered frame) to the seat lights driven (mock pins), the page's snapshot published,
  and, where the card changed what the cube shows (a trick or a hand ending), the cube's
  firmware (behind a pty) applying the new state: median and p99. The tracker reports a
  card on the second frame that shows it (``stable_frames`` = 2), so a frame's time is
  in every figure;
* events logged per second, each committed and fsync'd (SQLite WAL, synchronous=FULL)
  before the next: ``EventLog.append`` alone, and the table's whole path for an input
  (rules, log, lights, cube, page snapshot);
* the table process's resident memory after each hand of a 12-hand match (nmu-tournament:
  a game is 12 hands), to show it does not grow with the hands played.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sysinfo import cpu_model, version

from table_controller.devices.emulator import CubeEmulator
from table_controller.event_log import EventLog
from table_controller.rules.events import CardPlayed, HandScored, InputEvent, OutputEvent
from table_controller.rules.presets import preset
from table_controller.simulate import play
from table_controller.table.config import TableConfig, parse_config
from table_controller.table.devices import TableDevices
from table_controller.table.simulated import FAST, simulated_table
from table_controller.vision.camera import Frame

GUARD = 900.0


def summary(values: list[float]) -> str:
    if not values:
        return "none"
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return (
        f"median {statistics.median(ordered) * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms, "
        f"max {ordered[-1] * 1000:.1f} ms (n={len(ordered)})"
    )


def table_config(folder: Path, rules: str = "td-tournament") -> TableConfig:
    return parse_config(
        {
            "table": {"name": "Bench table", "gpio": "mock", "log": "bench.sqlite"},
            "rules": {"preset": rules},
            "camera": {"source": "synthetic", "drift_check": 0},
            "cube": {"port": "emulator"},
            "web": {"host": "127.0.0.1", "port": 0},
        },
        folder,
        "<bench>",
    )


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


# --- latency ---------------------------------------------------------------------------


def latency(hands: int, folder: Path, seed: int) -> None:
    config = table_config(folder)
    emulator = CubeEmulator()
    emulator.start()
    devices = TableDevices(config, clock=time.monotonic, emulator=emulator)
    first_seen: dict[Any, float] = {}
    traced: dict[str, float] = {}
    led: list[float] = []
    page: list[float] = []
    cube_wanted: list[tuple[float, Any]] = []  # (first seen, the new state on the wire)
    last_cube: list[Any] = [None]

    def on_frame(frame: Frame, read_at: float) -> None:
        truth = frame.truth
        if truth is None:
            return
        showing = {
            c.card
            for c in truth.cards
            if c.face_up and c.zone is not None and c.zone.startswith("play:") and c.readable
        }
        for card in showing:
            first_seen.setdefault(card, read_at)
        for card in list(first_seen):
            if card not in showing:
                del first_seen[card]

    def trace(sink: str, at: float) -> None:
        traced[sink] = at

    def step(event: InputEvent, outputs: list[OutputEvent]) -> None:
        if not isinstance(event, CardPlayed) or event.card not in first_seen:
            return
        seen = first_seen[event.card]
        led.append(traced["lights"] - seen)
        page.append(traced["page"] - seen)
        state = table.sinks.shown_cube
        if state is not None and state != last_cube[0]:
            cube_wanted.append((seen, state.to_wire()))
        last_cube[0] = state

    table = simulated_table(
        config,
        seed=seed,
        pace=FAST,
        devices=devices,
        on_frame=on_frame,
        trace=trace,
        on_step=step,
    )
    try:
        asyncio.run(asyncio.wait_for(table.run(hands=hands), GUARD))
        time.sleep(0.5)  # the cube's last acknowledgement
        applied = list(emulator.applied)
    finally:
        emulator.close()
    cube: list[float] = []
    for seen, wire in cube_wanted:
        match = next((a for a in applied if a.state == wire and a.at >= seen), None)
        if match is not None:
            cube.append(match.at - seen)
    frames = table.camera.frames
    print(f"latency, a card laid to ... ({hands} hands, {frames} frames, clean frames):")
    print(f"  the seat lights driven (mock pins):      {summary(led)}")
    print(f"  the page's snapshot published:           {summary(page)}")
    print(f"  the cube's firmware applied its state:   {summary(cube)}")


# --- events logged per second -------------------------------------------------------------


def logging_rate(folder: Path, seed: int) -> None:
    rules = preset("td-tournament")
    events = [e for e, _ in play(rules, random.Random(seed))]
    with EventLog(folder / "rate.sqlite", table="Bench") as log:
        game = log.start_game("td-tournament", {}, {})
        started = time.perf_counter()
        for seq, event in enumerate(events, 1):
            log.append(game, seq, event, source="sim")
        spent = time.perf_counter() - started
    print(
        f"EventLog.append, fsync'd each: {len(events) / spent:,.0f} events/s "
        f"({spent / len(events) * 1000:.2f} ms each, {len(events)} events of a game)"
    )
    config = table_config(folder / "path")
    (folder / "path").mkdir()

    async def through_the_table() -> float:
        from table_controller.table.app import Table
        from table_controller.table.options import TableOptions

        table = Table(config, TableOptions(camera=_no_camera, serve_page=True))
        stop = asyncio.Event()
        task = asyncio.create_task(table.run(stop=stop))
        while table.sinks.snapshot is None:
            await asyncio.sleep(0.01)
        t0 = time.perf_counter()
        for event in events:
            assert await table.apply(event, "sim") is None
        spent = time.perf_counter() - t0
        stop.set()
        await task
        return spent

    spent = asyncio.run(through_the_table())
    print(
        f"the table's path (rules, log, lights, cube, page): {len(events) / spent:,.0f} "
        f"events/s ({spent / len(events) * 1000:.2f} ms each)"
    )


def _no_camera() -> Any:
    from table_controller.vision.camera import CameraError

    raise CameraError("no camera in this part of the bench")


# --- memory -------------------------------------------------------------------------------


def memory(hands: int, folder: Path, seed: int) -> None:
    config = table_config(folder, "nmu-tournament")
    samples: list[float] = []

    def step(event: InputEvent, outputs: list[OutputEvent]) -> None:
        if any(isinstance(o, HandScored) for o in outputs):
            samples.append(rss_mb())

    table = simulated_table(config, seed=seed, pace=FAST, on_step=step)
    before = rss_mb()
    asyncio.run(asyncio.wait_for(table.run(hands=hands), GUARD))
    print(f"resident memory (RSS) over a {hands}-hand match, after each hand (MB):")
    print(f"  at the start {before:.1f}; " + ", ".join(f"{s:.1f}" for s in samples))
    if len(samples) >= 4:
        print(
            f"  from hand 3 to hand {len(samples)}: {samples[-1] - samples[2]:+.1f} MB "
            f"({len(table.game.log)} events in the game's log at the end)"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a short run (for a smoke test)")
    ap.add_argument("--part", choices=("latency", "log", "memory"), help="only this part")
    ap.add_argument("--seed", type=int, default=3)
    args = ap.parse_args()
    hands, match = (1, 2) if args.quick else (4, 12)
    print(f"Python {platform.python_version()} ({platform.python_implementation()})")
    print(f"CPU: {cpu_model()} ({platform.machine()}, {os.cpu_count()} logical CPUs)")
    print(f"opencv {version('opencv-python-headless')}, gpiozero {version('gpiozero')}")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        if args.part in (None, "latency"):
            (root / "latency").mkdir()
            latency(hands, root / "latency", args.seed)
        if args.part in (None, "log"):
            (root / "log").mkdir()
            logging_rate(root / "log", args.seed)
        if args.part in (None, "memory"):
            (root / "memory").mkdir()
            memory(match, root / "memory", args.seed)


if __name__ == "__main__":
    main()
