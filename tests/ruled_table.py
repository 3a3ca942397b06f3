"""A real table process for the feed's security tests (tests/security/): the table app
(its real log, feed and rulings) with an empty table in view, so nothing moves but what
the director rules; on a new log the first hand is dealt (a director's input), so the
table sits in hand 1's bidding and a score ruling can apply.

    python tests/ruled_table.py CONFIG

Prints ``started`` once the table runs; stops cleanly on SIGTERM (its feed leaves the
offline status), and may be killed at any time.
"""

from __future__ import annotations

import asyncio
import signal
import sys

from waiting import until_async

from table_controller.cards import Card
from table_controller.rules.events import HandDealt
from table_controller.sim import World, WorldCamera
from table_controller.table.app import Table
from table_controller.table.config import load_config
from table_controller.table.options import TableOptions
from table_controller.vision.camera import Frame, FrameSource
from table_controller.vision.synthetic import Effects


class Empty(FrameSource):
    """The camera over an empty table: no card is ever seen."""

    def __init__(self) -> None:
        super().__init__()
        self.inner = WorldCamera(World(effects=Effects()))

    def _next(self) -> Frame | None:
        return self.inner.read()


async def main(path: str) -> None:
    table = Table(load_config(path), TableOptions(camera=Empty, serve_page=False))
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    task = asyncio.create_task(table.run(stop=stop))

    def ended() -> BaseException | None:
        return (task.exception() or RuntimeError("it stopped")) if task.done() else None

    await until_async("the table started", lambda: table.started, 120.0, ended)
    if table.game.hand is None and table.game.last_hand is None:
        table.rulings.put_nowait(HandDealt(Card.parse("9H")))
    print("started", flush=True)
    await task


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
