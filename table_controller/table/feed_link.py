"""The table's side of the director's feed (feed/publisher.py): the log sent to the
director's broker, a heartbeat of the table's state, and the director's signed rulings
applied through the table's one queue of inputs, then answered.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING

from table_controller.feed.messages import FleetStatus, MachineClaim
from table_controller.present import ruling_announcement
from table_controller.rules.events import InputEvent
from table_controller.table.fleet.identity import MachinePaths, machine_claim
from table_controller.table.fleet.status import (
    calibration_at,
    fleet_status,
    package_version,
)
from table_controller.table.health import Device
from table_controller.table.noticed import Refusal, Ruled
from table_controller.table.ports import CameraPort, FeedTable, TableStatus

if TYPE_CHECKING:
    from table_controller.feed.publisher import OrderListener, Publisher
    from table_controller.feed.signing import Ruling


class Heartbeat(TableStatus):
    """What the heartbeat tells the director: the table's state and its machine's."""

    fleet: FleetStatus


log = logging.getLogger(__name__)


class FeedLink:
    """The feed of ``table`` (its ``camera`` for the director's camera commands): started
    by ``start`` (in the loop) when the config wants it; its troubles are the FEED fault."""

    def __init__(
        self, table: FeedTable, camera: CameraPort, machine_paths: MachinePaths | None = None
    ) -> None:
        self.table = table
        self.camera = camera
        self.publisher: Publisher | None = None
        # The director's config and commands (a fleet's table: table/fleet/run.py), called
        # on the publisher's thread; None: the table does not listen for them.
        self.on_order: OrderListener | None = None
        self.offline_at_stop = True  # False: started again at once (table/fleet/run.py)
        self._tasks: set[asyncio.Future[None]] = set()
        self.version = package_version()
        # The fleet view's extras (table/fleet/status.py): a calibration made while the
        # table runs (wall clock; else the file's saved time), the director's config
        # applied (None until fleet mode applies one: table/fleet/run.py sets it).
        self.calibrated_at: float | None = None
        self.config_seq: int | None = None
        # Who hears the director's orders (fleet/orders.py), in the loop, each taking the
        # kinds it knows: the camera commands (table/fleet/commands.py), the config, ...
        self.order_handlers: list[OrderListener] = []
        # Which machine this is (table/fleet/identity.py), read once at start: the
        # director tells a copied SD card by it. ``machine_paths``: where it is read.
        self.machine_paths = machine_paths or MachinePaths()
        self.machine: MachineClaim | None = None

    def start(self) -> None:
        """Send the log to the director's broker."""
        from table_controller.feed.publisher import Publisher, settings_from_config

        table = self.table
        settings, problem = settings_from_config(table.config)
        if problem is not None:
            table.health.raise_fault(Device.FEED, *problem, table.clock())
        loop = asyncio.get_running_loop()
        self.machine = machine_claim(self.machine_paths)

        def state(problem: str | None, fix: str) -> None:  # the publisher's thread
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._state, problem, fix)

        def ruling(r: Ruling) -> None:  # the publisher's thread
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._on_ruling, r)

        def order(kind: str, payload: dict[str, object]) -> None:  # the publisher's thread
            if self.on_order is not None:  # a fleet's table: its config (table/fleet/run.py)
                self.on_order(kind, payload)
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._on_order, kind, payload)

        self.publisher = Publisher(
            settings, table.config.log, on_ruling=ruling, on_state=state, on_order=order
        )
        if settings.director_key is not None:
            from table_controller.table.fleet.commands import FleetCommands

            commands = FleetCommands(
                table,
                self,
                self.camera,
                table_id=settings.table,
                public_pem=settings.director_key,
                send=self.publisher.send,
            )
            self.order_handlers.append(commands.on_order)
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
        heartbeat: Heartbeat = {**self.table.status(), "fleet": self.fleet()}
        self.publisher.set_status(heartbeat)
        if new_events:
            self.publisher.notify()

    def fleet(self) -> FleetStatus:
        """The heartbeat's ``fleet`` part: the table's machine as the fleet view shows it."""
        table = self.table
        return fleet_status(
            version=self.version,
            faults=table.health.faults,
            cube=table.config.cube is not None,
            disk_free=table.disk_free_bytes,
            calibration=calibration_at(table.config.camera.calibration, self.calibrated_at),
            config_seq=self.config_seq,
            machine=self.machine,
        )

    async def forward(self, rulings: asyncio.Queue[InputEvent]) -> None:
        """Rulings handed to the table directly (tests, a director at the table)."""
        while True:
            event = await rulings.get()
            self.table.submit(Ruled(event))

    def _on_order(self, kind: str, payload: dict[str, object]) -> None:
        for handler in list(self.order_handlers):
            try:
                handler(kind, payload)
            except Exception:  # one part's fault never stops the others, nor the table
                log.exception("feed: an order's handler failed")

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

        table = self.table
        if table.ruling_applied(ruling.ruling_id):  # sent again: answered,
            if self.publisher is not None:  # not applied again
                self.publisher.answer(ruling.ruling_id, True, None)
            return
        refusal: Refusal | None = None
        change: InputEvent | None = None  # what the ruling changes at the table
        if ruling.event is None:
            refusal = table.ruling_refusal(ruling)
        else:
            try:
                event = decode_input(ruling.event)
            except (CodecError, ValueError) as exc:
                refusal = (f"the ruling's event cannot be read ({exc})", "make the ruling again")
            else:
                change = event
                refusal = await table.ask(Ruled(event, ruling))
        if refusal is None:
            said = ruling_announcement(
                ruling.kind, change, ruling.reason, table.page_names, ruling.hand
            )
            table.notice("director", None, said, "")
            table.changed()
        if self.publisher is not None:
            problem = None if refusal is None else f"{refusal[0]} ({refusal[1]})"
            self.publisher.answer(ruling.ruling_id, refusal is None, problem)


__all__ = ["FeedLink"]
