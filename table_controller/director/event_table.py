"""One simulated table of the event demo, in a process of its own, round after round.

    python -m table_controller.director.event_table PLAN.json

The plan (written by ``event_demo``) names the table's configuration for each round of
the event (the same table, log, page and feed; the players the progressive chart seats
there), its seed, whether its players renege, and its pace. Each round's game is played
to its end by ``simulated_table``; the result stays on the table's page for the pace's
pause, then the next round's players sit down (a new game in the same log). After the
last round the table stays up, showing the final result, until it is stopped.

A process of its own, as a real table is: its camera frames are rendered and read on a
core of their own, it logs in to the broker with its own user, and a table that fails
takes no other down. It stops cleanly on SIGTERM or SIGINT, and also when its standard
input closes: the demo holds the other end, so a demo that dies (even by SIGKILL) leaves
no table running behind it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
import sys
from pathlib import Path
from typing import Any

NEVER = 1e9  # seconds: the table never starts a game by itself; the plan says when
ROUND_SEED_STEP = 7919  # between one round's seed and the next's


def read_plan(path: Path) -> dict[str, Any]:
    plan: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return plan


async def play(plan: dict[str, Any], stop: asyncio.Event) -> None:
    """Each round's game at this table, until the last round's is over, then wait."""
    from table_controller.table.config import load_config
    from table_controller.table.simulated import DEMO, FAST, simulated_table

    pace = FAST if plan.get("fast") else DEMO
    rounds: list[str] = list(plan["rounds"])
    for index, config_path in enumerate(rounds):
        last = index == len(rounds) - 1
        table = simulated_table(
            load_config(config_path),
            seed=int(plan["seed"]) + ROUND_SEED_STEP * index,
            renege=bool(plan.get("renege")),
            pace=pace,
            new_game_after=NEVER,
        )
        table_stop = asyncio.Event()
        running = asyncio.create_task(table.run(stop=table_stop))

        async def game_over(last: bool = last, table: Any = table) -> None:
            """Set when the game has been over for the pace's pause (never, the last)."""
            while True:
                await asyncio.sleep(0.2)
                over = table.core.over_since if table.started else None
                if not last and over is not None and table.clock() - over >= pace.new_game_after:
                    return

        ended = asyncio.create_task(game_over())
        stopping = asyncio.create_task(stop.wait())
        try:
            await asyncio.wait({running, ended, stopping}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            ended.cancel()
            stopping.cancel()
            table_stop.set()
            await running  # a table that failed says why, here
        if stop.is_set():
            return


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m table_controller.director.event_table PLAN.json", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s: %(message)s")
    plan = read_plan(Path(argv[0]))

    async def run() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        if plan.get("watch_stdin", False):

            def closed() -> None:  # the demo is gone (or closed the pipe to stop us)
                with contextlib.suppress(OSError):
                    if os.read(fd, 4096):
                        return
                loop.remove_reader(fd)
                stop.set()

            fd = sys.stdin.fileno()
            loop.add_reader(fd, closed)
        await play(plan, stop)
        await stop.wait()

    asyncio.run(run())
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
