"""The running table: one asyncio event loop from the sensors to the rules to the log,
the lights, the cube and the page.

Sources put what they notice on one queue, each kind its own type (noticed.py): the
camera's tracker events (read in a worker thread, camera_watch.py), the seat buttons'
presses (gpiozero's threads, handed over with ``call_soon_threadsafe``), the trump
cube's face and button (its link thread, likewise), the page's touches, the director's
rulings. One consumer takes them in order and, for each:

1. says what it means now (inputs.py), or refuses it with a reason;
2. pushes it into the ``Game``: the rules validate it (a refusal changes nothing);
3. appends it to the log, durably (committed and fsync'd), and only then counts it as
   acknowledged; if the log cannot take it the push is undone and the LOG fault raised;
4. drives the sinks from the whole state (sinks.py), which is idempotent.

A refusal is never silent: a notice on the page, the seat's light flashing, a line in
the log. Faults (table/health.py) are raised and cleared by their watchers, shown on
the page and the lights, and logged; none stops the table. On start the last game in
the log is replayed, so the table resumes mid-hand exactly where it was.

The parts beside the table (its feed, its policy) are given ``TableControls``, seen
through their ports (ports.py, policy.py), never the ``Table`` itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Protocol

from table_controller.cards import Suit
from table_controller.devices import cube_types
from table_controller.devices.seat_events import (
    ButtonEvent,
    ButtonFreed,
    ButtonPressed,
    ButtonStuck,
)
from table_controller.event_log import EventLog, LogError
from table_controller.rules.events import HandScored, HandThrownIn, InputEvent, OutputEvent
from table_controller.rules.game import Game
from table_controller.seats import Seat
from table_controller.table.camera_watch import CameraWatch
from table_controller.table.config import TableConfig
from table_controller.table.core import LOG_FIX, TableCore
from table_controller.table.devices import TableDevices
from table_controller.table.feed_link import FeedLink
from table_controller.table.health import Device, Health
from table_controller.table.log.pictures import ClearPictures
from table_controller.table.log.verdicts import TableVerdicts, verdicts_folder
from table_controller.table.noticed import (
    CameraClearer,
    CameraSaw,
    CubeTurned,
    Input,
    Noticed,
    PagePayload,
    PageTouched,
    Pressed,
    Refusal,
    Ruled,
    Source,
)
from table_controller.table.options import TableOptions
from table_controller.table.page.door import PageDoor
from table_controller.table.policy import PASS, TablePolicy
from table_controller.table.ports import TableStatus
from table_controller.table.sinks import Sinks, Snapshot
from table_controller.vision.across import CardAcross
from table_controller.vision.camera import Frame, FrameSource, open_camera
from table_controller.vision.evidence import Clearer, Seen
from table_controller.vision.tracker import CardLaid, CardMoved
from table_controller.web.guard import Sender

if TYPE_CHECKING:
    from table_controller.feed.signing import Ruling
    from table_controller.sim import World
    from table_controller.table.page.tls import PageTls
    from table_controller.web.server import TablePage

log = logging.getLogger(__name__)

DISK_FIX = "free some space on the table's disk (old logs, exports), or give the log a bigger disk"


class Actors(Protocol):
    """Whoever acts on a simulated table between two frames (sim/players.py)."""

    def act(self, game: Game, frame: int) -> None: ...


class Table:
    """One table, from its configuration, run as ``options`` say (options.py: the clock,
    the camera, the devices, the page, the timings and the hooks). ``world`` makes it the
    simulated table (the camera then renders the world unless ``options.camera`` is
    given; ``players`` act on it between frames, ``new_players`` fresh for each game);
    ``policy`` makes it a particular kind of table (the kiosk: table/policy.py)."""

    def __init__(
        self,
        config: TableConfig,
        options: TableOptions | None = None,
        *,
        world: World | None = None,
        policy: TablePolicy | None = None,
    ) -> None:
        options = options if options is not None else TableOptions()
        self.config = config
        self.world = world
        self.players: Actors | None = None
        self.new_players: Callable[[], Actors] | None = None
        self.clock = clock = options.clock
        self._disk_free = options.disk_free
        self.on_ack = options.on_ack
        self.on_step = options.on_step
        self.on_noticed = options.on_noticed
        self.new_game_after = options.new_game_after
        self.check_every = options.check_every
        self.hands_played = 0
        self.disk_free_bytes: int | None = None  # at the last check (the fleet view's)
        self.cube_suit: Suit | None = None  # the suit the trump cube shows, for calls
        self.log = EventLog(config.log, table=config.name)
        # Each game's verdicts, worked out as its hands end, kept beside the log.
        self.verdicts = TableVerdicts(verdicts_folder(config.log), options.judge)
        # Appends wait for fsync in a thread of their own, one at a time, in order.
        self._log_thread = ThreadPoolExecutor(1, thread_name_prefix="table-log")
        devices = options.devices
        self.devices = devices if devices is not None else TableDevices(config, clock=clock)
        self.sinks = Sinks(clock=clock, trace=options.trace)
        self.core = TableCore(
            config,
            self.log,
            self.sinks,
            clock=clock,
            policy=policy,
            notice_seconds=options.notice_seconds,
            on_logged=self._logged,
            on_new_game=self._new_game,
            on_health=self._health_changed,
        )
        self.policy = self.core.policy
        self.health = self.core.health
        self.shown = self.core.shown
        self.door = PageDoor(self.core, extra_pin=self.policy.operator_pin)
        self.page = self._page() if options.serve_page else None
        self.sinks.page = self.page
        self._queue: asyncio.Queue[tuple[Input, asyncio.Future[Refusal | None] | None]]
        self._queue = asyncio.Queue()
        self._item: Input | None = None  # the input being taken (by ``_consume``)
        self.pictures = ClearPictures(self.log)  # the camera's clearer pictures
        self.rulings: asyncio.Queue[InputEvent] = asyncio.Queue()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._hands_wanted: int | None = None
        self._taking: asyncio.Future[Refusal | None] | None = None
        self.url: str | None = None
        self.page_tls: PageTls | None = None  # the page's HTTPS, once it is served
        camera = options.camera
        self.camera = CameraWatch(
            camera if camera is not None else self._default_camera(),
            health=self.health,
            clock=clock,
            on_seen=self._on_seen,
            on_clearer=self._on_clearer,
            on_across=self._on_across,
            calibration=config.camera.calibration,
            lost_after=config.camera.lost_after,
            drift_check=config.camera.drift_check,
            before_frame=self._before_frame,
            on_frame=options.on_frame,
            end_with_source=options.end_with_camera,
        )
        self.controls = TableControls(self)
        self.feed = FeedLink(self.controls, self.camera)
        self.policy.attach(self.controls)
        self.core.resume()
        self.core.ready = True

    def _page(self) -> TablePage:
        from table_controller.review import review_qr_svg
        from table_controller.table.log.export import page_review
        from table_controller.web.server import TablePage

        door = self.door
        return TablePage(
            on_input=self.on_page,
            evidence=self.log.evidence,
            title=self.config.name,
            on_login=door.login if door.operator_pin_hash() else None,
            on_refused=door.refused,
            extra_inputs=self.policy.page_extra,
            review=functools.partial(
                page_review, self.log, table=self.config.name, verdicts=self.verdicts
            ),
            qr=review_qr_svg,
        )

    def _default_camera(self) -> Callable[[], FrameSource]:
        """The simulated world's camera when there is a world, else the config's."""
        if self.world is not None:
            from table_controller.sim import WorldCamera

            return functools.partial(WorldCamera, self.world)
        return functools.partial(open_camera, self.config.camera.source)

    @property
    def game(self) -> Game:
        return self.core.game

    @property
    def game_no(self) -> int:
        return self.core.game_no

    @property
    def seq(self) -> int:
        return self.core.seq

    def _health_changed(self) -> None:
        self.feed.status()

    def _logged(self, game_no: int, seq: int, event: InputEvent) -> None:
        self.feed.status(new_events=True)
        if self.on_ack is not None:
            self.on_ack(game_no, seq, event)

    def _new_game(self) -> None:
        """A game starts: the simulated table's cards gathered, its players fresh."""
        if self.world is not None:
            self.world.clear()
        if self.new_players is not None and self.core.ready:
            self.players = self.new_players()

    # --- applying an input --------------------------------------------------------------

    async def apply(
        self,
        event: InputEvent,
        source: Source,
        evidence: bytes | None = None,
        *,
        ruling_id: str | None = None,
    ) -> Refusal | None:
        """Push, log, show. None when taken; (problem, what to do) when refused."""
        core = self.core
        accepted = core.accept(event, source)
        if isinstance(accepted, tuple):
            return accepted
        try:
            await asyncio.get_running_loop().run_in_executor(
                self._log_thread,
                functools.partial(
                    self.log.append,
                    accepted.game_no,
                    accepted.seq,
                    event,
                    source=source,
                    evidence=evidence,
                    ruling_id=ruling_id,
                ),
            )
        except LogError as exc:
            return core.undo(accepted, exc)
        core.commit(accepted, evidence is not None)
        match self._item:
            case CameraSaw(Seen(event=CardLaid() | CardMoved() as laid)) if evidence is not None:
                # where the camera's clearer picture of this card, if one comes, will go
                self.pictures.logged(laid, accepted.game_no, accepted.seq)
        outputs = accepted.outputs
        if self.on_step is not None:
            self.on_step(event, outputs)
        if any(isinstance(o, HandScored | HandThrownIn) for o in outputs):
            # A hand ended: its verdicts worked out off the loop, kept with the log.
            self.verdicts.hand_ended(accepted.game_no, self.config.rules, tuple(core.game.log))
        scored = core.hands_scored(outputs)
        if scored:
            self.hands_played += scored
            wanted = self._hands_wanted
            if wanted is not None and self.hands_played >= wanted and self._stop:
                self._stop.set()
        self.policy.accepted(event, outputs)
        return None

    async def _take(self, item: Input) -> Refusal | None:
        match item:
            case CameraClearer(clearer):  # after its event, in turn: nothing to refuse
                await self._clearer(clearer)
                return None
            case Ruled(event, ruling) if ruling is not None:
                # checked here, in turn with every other input
                refusal = self.core.ruling_refusal(ruling)
                if refusal is not None:
                    return refusal
                return await self.apply(event, item.source, ruling_id=ruling.ruling_id)
        taken = await self.policy.take(item)
        if taken is not PASS:
            return taken
        operator_pin = bool(self.door.operator_pin_hash())
        meant = self.core.interpret(item, cube_suit=self.cube_suit, operator_pin=operator_pin)
        if meant is None or isinstance(meant, tuple):
            return meant
        return await self.apply(meant, item.source, item.evidence)

    async def _consume(self) -> None:
        while True:
            item, reply = await self._queue.get()
            try:
                # Shielded: stopping the table never cuts an input between its log
                # write and its acknowledgement (run() waits for it).
                self._item = item
                self._taking = asyncio.ensure_future(self._take(item))
                refusal = await asyncio.shield(self._taking)
                self._item = None
            except Exception as exc:  # a bug must not stop the table: say so, go on
                log.exception("the table could not handle %r", item)
                refusal = self.core.refuse(
                    None,
                    f"the table failed on an input ({exc!r})",
                    "tell the director",
                    item.source,
                )
            finally:
                self._queue.task_done()
            if reply is not None and not reply.done():
                reply.set_result(refusal)

    # --- the sources --------------------------------------------------------------------

    def submit(self, noticed: Input) -> None:
        """Queue something noticed (from the event loop's thread)."""
        self.noticed(noticed)
        self._queue.put_nowait((noticed, None))

    async def ask(self, noticed: Input) -> Refusal | None:
        """Queue ``noticed`` and wait for the table's answer."""
        self.noticed(noticed)
        reply: asyncio.Future[Refusal | None] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait((noticed, reply))
        return await reply

    def noticed(self, noticed: Noticed) -> None:
        """Something noticed, for the ``on_noticed`` hook (a recording keeps all but the
        camera's)."""
        if self.on_noticed is not None:
            self.on_noticed(self.camera.frames, noticed)

    def submit_threadsafe(self, noticed: Input) -> None:
        """Queue something noticed, from any thread."""
        loop = self._loop
        if loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop has closed: shutting down
                loop.call_soon_threadsafe(self.submit, noticed)

    def _on_seen(self, seen: Seen, frame: Frame, read_at: float) -> None:
        self._queue.put_nowait((CameraSaw(seen), None))

    def _on_clearer(self, clearer: Clearer, read_at: float) -> None:
        self._queue.put_nowait((CameraClearer(clearer), None))

    def _on_across(self, cards: tuple[CardAcross, ...], read_at: float) -> None:
        """Cards lying across a zone's line (came, went, or moved to other lines): shown
        at once (nothing for the rules, nothing to wait for), and told to the director."""
        self.core.across(cards)
        self.feed.status()

    async def _clearer(self, clearer: Clearer) -> None:
        """The camera's clearer picture of a card logged before: written over the first
        in the log (the page and the export show it from there), and sent on to the
        director by the feed. The game does not wait for it: it goes in turn with the
        inputs, after the card's own event, and changes nothing the rules see."""
        where = self.pictures.take(clearer)
        if where is None:
            return
        written = await asyncio.get_running_loop().run_in_executor(
            self._log_thread, self.pictures.write, where, clearer
        )
        if written:
            self.feed.status(new_events=True)

    def _before_frame(self, index: int) -> None:
        if self.players is not None:
            self.players.act(self.game, index)

    async def on_page(self, payload: PagePayload, sender: Sender | None = None) -> Refusal | None:
        """A touch on the page; the operator's (after the PIN) is logged as "operator"."""
        if sender is None:
            return await self.ask(PageTouched(payload))
        return await self.ask(PageTouched(payload, sender.operator, sender.address))

    def on_button(self, event: ButtonEvent) -> None:
        """The seat buttons' events (in the loop's thread)."""
        if isinstance(event, ButtonPressed):
            self.submit(Pressed(event))
        elif isinstance(event, ButtonStuck):
            self.health.raise_fault(
                Device.SEATS, "a button is stuck down", event.what_to_do, self.clock()
            )
        elif isinstance(event, ButtonFreed) and not self.devices.stuck_buttons():
            self.health.clear(Device.SEATS)

    def on_cube(self, event: cube_types.CubeEvent) -> None:
        """The trump cube's events (in the loop's thread)."""
        if isinstance(event, cube_types.FaceTurnedUp):
            self.cube_suit = event.suit
            self.noticed(CubeTurned(event.suit))
        elif isinstance(event, cube_types.ButtonPressed):
            if event.held:  # held 1.5 s: a call for the director
                self.submit(Pressed.cube_held())
        elif event.up:
            self.health.clear(Device.CUBE)
        else:
            self.health.raise_fault(
                Device.CUBE,
                f"the trump cube is not connected ({event.reason})",
                "check the cube's USB cable; it reconnects by itself",
                self.clock(),
            )

    # --- the watchers ----------------------------------------------------------------------

    async def _watch(self) -> None:
        """Every ``check_every`` s: the disk, the cube's link, old notices, a new game."""
        while True:
            self.check()
            await asyncio.sleep(self.check_every)

    def check(self) -> None:
        now = self.clock()
        folder = self.config.log.parent
        try:
            free = self._disk_free(folder)
        except OSError as exc:
            self.health.raise_fault(
                Device.DISK, f"cannot read the free space ({exc})", DISK_FIX, now
            )
        else:
            if self.disk_free_bytes is None or abs(free - self.disk_free_bytes) >= 1 << 24:
                self.disk_free_bytes = free  # told in the heartbeat from the next one
                self.feed.status()
            wanted = self.config.disk_min_free_mb * 1024 * 1024
            if free < wanted:
                self.health.raise_fault(
                    Device.DISK,
                    f"the disk is nearly full: {free // (1024 * 1024)} MB free, "
                    f"under {self.config.disk_min_free_mb} MB",
                    DISK_FIX,
                    now,
                )
            else:
                self.health.clear(Device.DISK)
        self.devices.check_cube(self.health, now)
        changed = self.core.expire(now)
        over_since = self.core.over_since
        if over_since is not None and now - over_since >= self.new_game_after:
            try:
                self.core.start_game()
            except LogError as exc:  # tried again at the next check
                self.health.raise_fault(Device.LOG, str(exc), LOG_FIX, now)
            changed = True
        if changed:
            self.core.changed()
        self.policy.check(now)

    # --- running ---------------------------------------------------------------------------

    async def run(self, *, stop: asyncio.Event | None = None, hands: int | None = None) -> None:
        """Run until ``stop`` is set, ``hands`` hands have been scored, or (replaying a
        recording) the camera's last frame has been taken. Closes everything at the end."""
        self._loop = asyncio.get_running_loop()
        self.verdicts.attach(self._loop)
        self._stop = stop if stop is not None else asyncio.Event()
        self._hands_wanted = hands
        tasks: list[asyncio.Task[object]] = []
        try:
            self.policy.starting()
            self.devices.open(self, self.health)
            self.sinks.lights = self.devices.lights
            self.sinks.cube = self.devices.cube
            if self.config.feed.enabled:
                self.feed.start()
            if self.page is not None:
                self.url = await self._serve_page(self.page)
            self.core.drive()  # after a restart: the lights, the cube and the page as they were
            self.check()
            tasks = [
                asyncio.create_task(self._consume(), name="table-inputs"),
                asyncio.create_task(self.feed.forward(self.rulings), name="table-rulings"),
                asyncio.create_task(self._watch(), name="table-watch"),
            ]
            camera = asyncio.create_task(self.camera.run(), name="table-camera")
            stopping = asyncio.create_task(self._stop.wait(), name="table-stop")
            tasks += [camera, stopping]
            done, _ = await asyncio.wait({camera, stopping}, return_when=asyncio.FIRST_COMPLETED)
            if camera in done:
                camera.result()  # a recording that could not be opened raises here
                await self._queue.join()  # the last frames' events, then stop
        finally:
            try:
                for task in tasks:
                    task.cancel()
                for task in tasks:
                    with contextlib.suppress(asyncio.CancelledError, Exception):
                        await task
                if self._taking is not None:  # the input being taken when the stop came
                    with contextlib.suppress(asyncio.CancelledError, Exception):
                        await self._taking
                if self.page is not None:
                    await self.page.stop()
                await self.feed.stop()
                await self.verdicts.close()  # a game cut short is worked out when opened
                await asyncio.to_thread(self.devices.close)
                self._log_thread.shutdown(wait=True)
                self.log.close()
            finally:
                await self.policy.stopped()

    async def _serve_page(self, page: TablePage) -> str:
        """The page served where the config says: HTTPS when it is open to the network
        (table/page/tls.py; its certificate made or checked off the loop, the start
        stopped in words when it cannot be had), plain HTTP on this machine alone."""
        from table_controller.table.page.tls import prepare

        web = self.config.web
        self.page_tls = await asyncio.to_thread(prepare, self.config)
        tls = self.page_tls
        return await page.start(
            web.host,
            web.port,
            tls_cert=None if tls is None else str(tls.cert),
            tls_key=None if tls is None else str(tls.key),
        )

    def stop(self) -> None:
        """Ask the running table to stop (it finishes the input it is taking)."""
        if self._stop is not None:
            self._stop.set()

    @property
    def started(self) -> bool:
        return self._loop is not None

    @property
    def stopping(self) -> bool:
        return self._stop is not None and self._stop.is_set()

    def snapshot(self) -> Snapshot | None:
        return self.sinks.snapshot


class TableControls:
    """The running table behind its ports: ``FeedTable`` for its feed (ports.py) and
    ``PolicyTable`` for its policy (policy.py), each member one of the table's or its
    core's, so the parts beside the table see only what their port names."""

    def __init__(self, table: Table) -> None:
        self._table = table
        self._core = table.core

    # --- the table's control (ports.TableControl) ----------------------------------------

    @property
    def config(self) -> TableConfig:
        return self._table.config

    @property
    def health(self) -> Health:
        return self._core.health

    def clock(self) -> float:
        return self._table.clock()

    @property
    def game(self) -> Game:
        return self._core.game

    @property
    def game_no(self) -> int:
        return self._core.game_no

    @property
    def page_names(self) -> Mapping[Seat, str]:
        return self._core.shown.players

    def submit(self, noticed: Input) -> None:
        self._table.submit(noticed)

    async def ask(self, noticed: Input) -> Refusal | None:
        return await self._table.ask(noticed)

    def notice(self, kind: str, seat: Seat | None, text: str, fix: str) -> None:
        self._core.notice(kind, seat, text, fix)

    def changed(self) -> None:
        self._core.changed()

    # --- the feed's (ports.FeedTable) ------------------------------------------------------

    @property
    def disk_free_bytes(self) -> int | None:
        return self._table.disk_free_bytes

    def status(self) -> TableStatus:
        return self._core.status()

    def ruling_applied(self, ruling_id: str) -> bool:
        return self._table.log.ruling_applied(ruling_id) is not None

    def ruling_refusal(self, ruling: Ruling) -> Refusal | None:
        return self._core.ruling_refusal(ruling)

    # --- the policy's (policy.PolicyTable) -------------------------------------------------

    @property
    def started(self) -> bool:
        return self._table.started

    @property
    def stopping(self) -> bool:
        return self._table.stopping

    def stop(self) -> None:
        self._table.stop()

    @property
    def recent(self) -> list[OutputEvent]:
        return self._core.shown.recent

    async def apply(
        self, event: InputEvent, source: Source, evidence: bytes | None = None
    ) -> Refusal | None:
        return await self._table.apply(event, source, evidence)

    def record_now(self, event: InputEvent, source: Source) -> None:
        self._core.record_now(event, source)

    def start_game(self) -> None:
        self._core.start_game()

    def record(self, line: str) -> None:
        self._core.record("notice", line, "")

    def refuse(self, seat: Seat | None, problem: str, fix: str, source: str) -> Refusal:
        return self._core.refuse(seat, problem, fix, source)

    def drive(self) -> None:
        self._core.drive()

    async def pin_refusal(self, pin: object, stored: str, where: str) -> Refusal | None:
        return await self._table.door.pin_refusal(pin, stored, where)

    def pin_wait(self) -> float:
        return self._table.door.pin_wait()


__all__ = ["Actors", "Refusal", "Table", "TableControls"]
