"""The table's side of the director's feed (feed/publisher.py): the log sent to the
director's broker, a heartbeat of the table's state, and the director's signed rulings
applied through the table's one queue of inputs, then answered.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING

from table_controller.rules.events import InputEvent
from table_controller.table.health import Device
from table_controller.table.policy import Input, Refusal

if TYPE_CHECKING:
    from table_controller.feed.publisher import OrderListener, Publisher
    from table_controller.feed.signing import Ruling
    from table_controller.table.app import Table


class FeedLink:
    """The feed of ``table``: started by ``start`` (in the loop) when the config wants
    it; its troubles are the FEED fault."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.publisher: Publisher | None = None
        # The director's config and commands (a fleet's table: table/fleet_run.py), called
        # on the publisher's thread; None: the table does not listen for them.
        self.on_order: OrderListener | None = None
        self.offline_at_stop = True  # False: started again at once (fleet_run.py)
        self._tasks: set[asyncio.Future[None]] = set()

    def start(self) -> None:
        """Send the log to the director's broker."""
        from table_controller.feed.publisher import Publisher, settings_from_config

        table = self.table
        settings, problem = settings_from_config(table.config)
        if problem is not None:
            table.health.raise_fault(Device.FEED, *problem, table.clock())
        loop = asyncio.get_running_loop()

        def state(problem: str | None, fix: str) -> None:  # the publisher's thread
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._state, problem, fix)

        def ruling(r: Ruling) -> None:  # the publisher's thread
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._on_ruling, r)

        self.publisher = Publisher(
            settings, table.config.log, on_ruling=ruling, on_state=state, on_order=self.on_order
        )
        self.status(new_events=True)
        self.publisher.start()

    async def stop(self) -> None:
        """What the broker can still take, then offline."""
        if self.publisher is not None:
            await asyncio.to_thread(self.publisher.stop, offline=self.offline_at_stop)

    def status(self, *, new_events: bool = False) -> None:
        """The heartbeat's contents, and a nudge when the log has new events."""
        if self.publisher is None:
            return
        self.publisher.set_status(self.table.core.status())
        if new_events:
            self.publisher.notify()

    async def forward(self, rulings: asyncio.Queue[InputEvent]) -> None:
        """Rulings handed to the table directly (tests, a director at the table)."""
        while True:
            event = await rulings.get()
            self.table.submit(event, "director")

    def _state(self, problem: str | None, fix: str) -> None:
        health = self.table.health
        if problem is None:
            health.clear(Device.FEED)
        else:
            health.raise_fault(Device.FEED, problem, fix, self.table.clock())

    def _on_ruling(self, ruling: Ruling) -> None:
        """A ruling the director signed (checked by the publisher): applied through the
        same queue as every input, then answered."""
        task = asyncio.ensure_future(self._apply(ruling))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _apply(self, ruling: Ruling) -> None:
        from table_controller.rules.codec import CodecError, decode_input

        table, core = self.table, self.table.core
        if table.log.ruling_applied(ruling.ruling_id) is not None:  # sent again: answered,
            if self.publisher is not None:  # not applied again
                self.publisher.answer(ruling.ruling_id, True, None)
            return
        refusal: Refusal | None = None
        if ruling.event is None:
            refusal = core.ruling_refusal(ruling)
        else:
            try:
                event = decode_input(ruling.event)
            except (CodecError, ValueError) as exc:
                refusal = (f"the ruling's event cannot be read ({exc})", "make the ruling again")
            else:
                table.noticed("director", event)
                item = Input("director", event, at=table.clock(), ruling=ruling)
                refusal = await table.ask(item)
        if refusal is None:
            core.notice("director", None, f"the director ruled: {ruling.reason}", "")
            core.changed()
        if self.publisher is not None:
            problem = None if refusal is None else f"{refusal[0]} ({refusal[1]})"
            self.publisher.answer(ruling.ruling_id, refusal is None, problem)


__all__ = ["FeedLink"]
