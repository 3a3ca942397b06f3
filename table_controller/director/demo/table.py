"""One simulated table of the event demo, in a process of its own, round after round.

    python -m table_controller.director.demo.table PLAN.json

The plan (written by ``demo.tournament``) names the table's configuration for its first
games (the same table, log, page and feed; the players the event seats there), its
seed, whether its players renege, and its pace. Each game is played to its end by
``simulated_table``; its result stays on the table's page for the pace's pause, then the
next game's players sit down (a new game in the same log). Where the next players come
from results (a 12-hand round seated from the last one's, a bracket's next game), the
demo sends their configuration when it is known, as a line ``{"play": PATH}`` on our
standard input. The last game's result stays up until the table is stopped.

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
from typing import TYPE_CHECKING, TypedDict

if TYPE_CHECKING:
    from table_controller.table.app import Table

NEVER = 1e9  # seconds: the table never starts a game by itself; the plan says when
ROUND_SEED_STEP = 7919  # between one round's seed and the next's


class TablePlan(TypedDict):
    """A table's plan, as ``demo.tournament`` writes it (``plan.json``): its first
    games' configurations, its seed, whether its players renege, its pace, and whether
    it stops when its standard input closes."""

    rounds: list[str]
    seed: int
    renege: bool
    fast: bool
    watch_stdin: bool


def read_plan(path: Path) -> TablePlan:
    """The plan the demo wrote for this table (the demo's own file, so trusted as it
    is: a table started by hand with a plan of its own is on its own)."""
    plan: TablePlan = json.loads(path.read_text(encoding="utf-8"))
    return plan


def next_game(line: bytes) -> str | None:
    """A configuration to play next, from one line the demo wrote on our standard input
    (``{"play": PATH}``); None for anything else (a line we do not know is ignored)."""
    try:
        said = json.loads(line)
    except ValueError:
        return None
    path = said.get("play") if isinstance(said, dict) else None
    return path if isinstance(path, str) and path else None


async def play(plan: TablePlan, queue: asyncio.Queue[str], stop: asyncio.Event) -> None:
    """Each game at this table in turn: the plan's first ones, then each the demo sends
    once its players are known (a 12-hand round seated from the last one's results, a
    bracket's next game). A game's result stays up for the pace's pause and until the
    next game is known; the last one stays up until the table is stopped."""
    from table_controller.table.config import load_config
    from table_controller.table.simulated import DEMO, FAST, simulated_table

    pace = FAST if plan.get("fast") else DEMO
    for config_path in plan.get("rounds", []):
        queue.put_nowait(str(config_path))
    index = 0
    while not stop.is_set():
        waiting = asyncio.create_task(queue.get())
        stopping = asyncio.create_task(stop.wait())
        await asyncio.wait({waiting, stopping}, return_when=asyncio.FIRST_COMPLETED)
        stopping.cancel()
        if not waiting.done():
            waiting.cancel()
            return
        table = simulated_table(
            load_config(waiting.result()),
            seed=int(plan["seed"]) + ROUND_SEED_STEP * index,
            renege=bool(plan.get("renege")),
            pace=pace,
            new_game_after=NEVER,
        )
        index += 1
        table_stop = asyncio.Event()
        running = asyncio.create_task(table.run(stop=table_stop))

        async def game_over(table: Table = table) -> None:
            """Set when the game has been over for the pace's pause and the next is known."""
            while True:
                await asyncio.sleep(0.2)
                over = table.core.over_since if table.started else None
                if (
                    over is not None
                    and table.clock() - over >= pace.new_game_after
                    and not queue.empty()
                ):
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


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m table_controller.director.demo.table PLAN.json", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s: %(message)s")
    plan = read_plan(Path(argv[0]))

    async def run() -> None:
        stop = asyncio.Event()
        queue: asyncio.Queue[str] = asyncio.Queue()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        if plan.get("watch_stdin", False):
            pending = bytearray()

            def readable() -> None:  # a game to play next; or the demo is gone (EOF)
                with contextlib.suppress(OSError):
                    got = os.read(fd, 4096)
                    if got:
                        pending.extend(got)
                        while b"\n" in pending:
                            line, _, rest = bytes(pending).partition(b"\n")
                            pending[:] = rest
                            path = next_game(line)
                            if path is not None:
                                queue.put_nowait(path)
                        return
                loop.remove_reader(fd)
                stop.set()

            fd = sys.stdin.fileno()
            loop.add_reader(fd, readable)
        await play(plan, queue, stop)
        await stop.wait()

    asyncio.run(run())
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
