"""The running table: one asyncio event loop from the sensors to the rules to the log,
the lights, the cube and the page.

Sources put what they notice on one queue: the camera's tracker events (read in a
worker thread, camera_watch.py), the seat buttons' presses (gpiozero's threads, handed
over with ``call_soon_threadsafe``), the trump cube's face and button (its link
thread, likewise), the page's touches, the director's rulings. One consumer takes them
in order and, for each:

1. says what it means now (inputs.py), or refuses it with a reason;
2. pushes it into the ``Game``: the rules validate it (a refusal changes nothing);
3. appends it to the log, durably (committed and fsync'd), and only then counts it as
   acknowledged; if the log cannot take it the push is undone and the LOG fault raised;
4. drives the sinks from the whole state (sinks.py), which is idempotent.

A refusal is never silent: a notice on the page, the seat's light flashing, a line in
the log. Faults (table/health.py) are raised and cleared by their watchers, shown on
the page and the lights, and logged; none stops the table. On start the last game in
the log is replayed, so the table resumes mid-hand exactly where it was.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import shlex
import shutil
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from table_controller.cards import Suit
from table_controller.devices import cube_types
from table_controller.devices.seat_events import (
    ButtonEvent,
    ButtonFreed,
    ButtonPressed,
    ButtonStuck,
    DirectorCalled,
    SeatButton,
)
from table_controller.event_log import EventLog, LogError
from table_controller.rules.codec import encode
from table_controller.rules.errors import RulesError
from table_controller.rules.events import (
    DealerChosen,
    GameEnded,
    HandScored,
    HandStarted,
    InputEvent,
    OutputEvent,
)
from table_controller.rules.game import Game
from table_controller.rules.hand import Phase
from table_controller.seats import Seat
from table_controller.table.camera_watch import CameraWatch
from table_controller.table.config import TableConfig
from table_controller.table.devices import TableDevices
from table_controller.table.health import Device, Fault, Health
from table_controller.table.inputs import Refused, from_page, from_press, from_vision
from table_controller.table.resume import UnusableRules, resume_last_game
from table_controller.table.sinks import Shown, Sinks, Trace
from table_controller.vision.camera import Frame, FrameSource, open_camera
from table_controller.vision.watcher import Seen
from table_controller.web.guard import Sender
from table_controller.web.pin import Guesses, verify_pin
from table_controller.web.view import Notice

log = logging.getLogger(__name__)

Refusal = tuple[str, str]
MAX_NOTICES = 6
REFUSALS_QUIET = 10.0  # seconds: one log line per address for refused requests
DISK_FIX = "free some space on the table's disk (old logs, exports), or give the log a bigger disk"
LOG_FIX = (
    "check the disk the log is on (full, read-only, unplugged?); the table keeps playing "
    "but cannot record until it is fixed"
)


@dataclass
class _Input:
    """Something a source noticed, waiting for the consumer."""

    source: str  # "camera", "button", "cube", "page", "operator", "director", "sim"
    what: Any  # a Seen, a ButtonPressed, a page payload or an InputEvent
    evidence: bytes | None = None
    reply: asyncio.Future[Refusal | None] | None = None
    at: float = 0.0  # the table's clock when it was noticed (the frame read, the press)
    address: str = ""  # the page's client, for a touch on the page
    ruling: Any = None  # the director's signed ruling that carries ``what``


def disk_free(path: Path) -> int:
    """Bytes free on the disk holding ``path``."""
    return shutil.disk_usage(path).free


class Table:
    """One table, from its configuration. ``world`` and ``players`` make it the simulated
    table (the camera then renders the world unless ``camera`` is given). Hooks for the
    CLI, the tests and the bench: ``on_ack(game, seq, event)`` after each durable append,
    ``on_step(event, outputs)`` after each accepted event, ``trace(sink, clock)`` after
    each sink is driven, ``on_frame(frame, read_at)`` after each camera frame and
    ``on_noticed(frame, source, what)`` for each input not from the camera (a recording
    keeps them). ``disk_free(path)`` (bytes) is injectable so a test can fill
    the disk."""

    def __init__(
        self,
        config: TableConfig,
        *,
        world: Any | None = None,
        players: Any | None = None,
        clock: Callable[[], float] = time.monotonic,
        camera: Callable[[], FrameSource] | None = None,
        devices: TableDevices | None = None,
        disk_free: Callable[[Path], int] = disk_free,
        on_ack: Callable[[int, int, InputEvent], None] | None = None,
        on_step: Callable[[InputEvent, list[OutputEvent]], None] | None = None,
        on_frame: Callable[[Frame, float], None] | None = None,
        on_noticed: Callable[[int, str, Any], None] | None = None,
        trace: Trace | None = None,
        serve_page: bool = True,
        end_with_camera: bool = False,
        new_players: Callable[[], Any] | None = None,
        new_game_after: float = 10.0,
        notice_seconds: float = 30.0,
        check_every: float = 1.0,
    ) -> None:
        self.config = config
        self.world = world
        self.players = players
        self.new_players = new_players
        self._clock = clock
        self._disk_free = disk_free
        self.on_ack = on_ack
        self.on_step = on_step
        self.on_noticed = on_noticed
        self.end_with_camera = end_with_camera
        self.new_game_after = new_game_after
        self.notice_seconds = notice_seconds
        self.check_every = check_every
        self.hands_played = 0
        self.cube_suit: Suit | None = None  # the suit the trump cube shows, for calls
        self.health = Health(self._on_health)
        self.shown = Shown(table=config.name, players=dict(config.players))
        self.log = EventLog(config.log, table=config.name)
        # Appends wait for fsync in a thread of their own, one at a time, in order.
        self._log_thread = ThreadPoolExecutor(1, thread_name_prefix="table-log")
        self.devices = devices if devices is not None else TableDevices(config, clock=clock)
        self._page_wanted = serve_page
        self.guesses = Guesses()  # wrong operator PINs, rate-limited (web/pin.py)
        self._refused_from: dict[str, tuple[float, int]] = {}  # address: (noted at, since)
        self.page: Any = None
        if serve_page:
            from table_controller.web.server import TablePage

            self.page = TablePage(
                on_input=self._on_page,
                evidence=self.log.evidence,
                title=config.name,
                on_login=self._operator_login if self.operator_pin_hash() else None,
                on_refused=self._page_refused,
                extra_inputs=self.PAGE_EXTRA,
            )
        self.sinks = Sinks(lights=None, cube=None, page=self.page, clock=clock, trace=trace)
        self._queue: asyncio.Queue[_Input] = asyncio.Queue()
        self.rulings: asyncio.Queue[InputEvent] = asyncio.Queue()
        self.feed: Any = None  # the director's feed (feed/publisher.py) while running
        self._ruling_tasks: set[asyncio.Future[None]] = set()
        self._ruling_id: str | None = None  # the ruling the input being applied carries
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._hands_wanted: int | None = None
        self._over_since: float | None = None
        self._ready = False
        self._taking: asyncio.Future[Refusal | None] | None = None
        self.url: str | None = None
        if camera is None:
            if world is not None:
                from table_controller.table.world import WorldCamera

                camera = lambda: WorldCamera(world)  # noqa: E731
            else:
                camera = lambda: open_camera(config.camera.source)  # noqa: E731
        self.camera = CameraWatch(
            camera,
            health=self.health,
            clock=clock,
            on_seen=self._on_seen,
            calibration=config.camera.calibration,
            lost_after=config.camera.lost_after,
            drift_check=config.camera.drift_check,
            before_frame=self._before_frame,
            on_frame=on_frame,
            end_with_source=end_with_camera,
        )
        self.game = Game(config.rules)
        self.game_no = 0
        self.seq = 1
        self._resume()
        self._ready = True

    # --- the game and the log ---------------------------------------------------------

    def _resume(self) -> None:
        """Replay the last game in the log (resume.py), or start the first."""
        try:
            resumed = resume_last_game(self.log)
        except UnusableRules as exc:
            old = self.log.last_game()
            n = 0 if old is None else old.game
            log = shlex.quote(str(self.config.log))
            self.health.raise_fault(
                Device.LOG,
                str(exc),
                "a new game was started; export the old one with "
                f"`table-controller log export {log} --game {n} --transcript game-{n}.jsonl`",
                self._clock(),
            )
            resumed = None
        if resumed is None:
            self._start_game()
            return
        number = resumed.record.game
        self.shown.recent, self.shown.last = [], []
        for step in resumed.steps:
            self._note(number, step.seq, step.event, step.outputs, step.has_evidence)
        self.game, self.game_no = resumed.game, number
        self.seq = self.log.next_seq(number)
        if resumed.problem is not None:
            self.health.raise_fault(
                Device.LOG,
                resumed.problem,
                "the game goes on without them; check it with "
                f"`table-controller log check {shlex.quote(str(self.config.log))}`",
                self._clock(),
            )
        if self.game.phase is Phase.OVER:
            self._start_game()

    def _start_game(self) -> None:
        config = self.config
        self.game = Game(config.rules)
        self.game_no = self.log.start_game(config.rules_name, config.options, config.players)
        self.seq = 1
        self.shown.recent, self.shown.last = [], []
        self.shown.evidence_urls = {}
        self._over_since = None
        if self.world is not None:
            self.world.clear()
        if self.new_players is not None and self._ready:
            self.players = self.new_players()
        if config.first_dealer is not None:
            event = DealerChosen(config.first_dealer)
            outputs = self.game.push(event)
            self._append(event, "director", None)
            self._note(self.game_no, self.seq - 1, event, outputs, False)

    def _append(self, event: InputEvent, source: str, evidence: bytes | None) -> None:
        """Write the next event; acknowledged when this returns (raises ``LogError``)."""
        game_no, seq = self.game_no, self.seq
        self.log.append(game_no, seq, event, source=source, evidence=evidence)
        self.seq = seq + 1
        self._feed_status(new_events=True)
        if self.on_ack is not None:
            self.on_ack(game_no, seq, event)

    def _note(
        self,
        game_no: int,
        seq: int,
        event: InputEvent,
        outputs: list[OutputEvent],
        evidence: bool,
    ) -> None:
        """Keep what the sinks show besides the game: this hand's outputs, the last
        event's, the evidence pictures of the cards."""
        shown = self.shown
        for out in outputs:
            if isinstance(out, HandStarted):
                shown.recent = []  # the view shows this hand's; memory stays flat
        shown.recent.extend(outputs)
        shown.last = list(outputs)
        card = getattr(event, "card", None)
        if evidence and card is not None:
            shown.evidence_urls[card] = f"/evidence/{game_no}/{seq}.png"

    # --- applying an input --------------------------------------------------------------

    async def apply(
        self, event: InputEvent, source: str, evidence: bytes | None = None
    ) -> Refusal | None:
        """Push, log, show. None when taken; (problem, what to do) when refused."""
        ruling_id, self._ruling_id = self._ruling_id, None
        seat = getattr(event, "seat", None)
        seat = seat if isinstance(seat, Seat) else None
        try:
            outputs = self.game.push(event)
        except RulesError as exc:
            return self._refuse(seat, exc.message, exc.expected or "ask the director", source)
        game_no, seq = self.game_no, self.seq
        try:
            await asyncio.get_running_loop().run_in_executor(
                self._log_thread,
                functools.partial(
                    self.log.append,
                    game_no,
                    seq,
                    event,
                    source=source,
                    evidence=evidence,
                    ruling_id=ruling_id,
                ),
            )
        except LogError as exc:
            self.game.pop()
            self.health.raise_fault(Device.LOG, str(exc), LOG_FIX, self._clock())
            return self._refuse(
                seat, "the table could not record this, so it did not count", LOG_FIX, source
            )
        self.seq = seq + 1
        self.health.clear(Device.LOG)
        self._feed_status(new_events=True)
        if self.on_ack is not None:
            self.on_ack(game_no, seq, event)
        self._note(game_no, seq, event, outputs, evidence is not None)
        if seat is not None:
            self.shown.refused.discard(seat)
        self.shown.director_called = False
        self.shown.version += 1
        self.drive()
        if self.on_step is not None:
            self.on_step(event, outputs)
        self._after(outputs)
        return None

    def _after(self, outputs: list[OutputEvent]) -> None:
        for out in outputs:
            if isinstance(out, HandScored):
                self.hands_played += 1
                wanted = self._hands_wanted
                if wanted is not None and self.hands_played >= wanted and self._stop:
                    self._stop.set()
            elif isinstance(out, GameEnded) and self.game.phase is Phase.OVER:
                self._over_since = self._clock()

    def _refuse(self, seat: Seat | None, problem: str, fix: str, source: str) -> Refusal:
        now = self._clock()
        notices = self.shown.notices
        notices.append(Notice("refused", seat, problem, fix, now))
        del notices[:-MAX_NOTICES]
        if seat is not None:
            self.shown.refused.add(seat)
        where = f"{source}, seat {seat}" if seat is not None else source
        self._record("notice", f"refused ({where}): {problem}", fix)
        self.shown.version += 1
        self.drive()
        return (problem, fix)

    def _director_called(self, seat: Seat | None) -> None:
        who = f"seat {seat}" if seat is not None else "a player"
        self.shown.director_called = True
        notices = self.shown.notices
        notices.append(
            Notice(
                "director",
                seat,
                f"{who} called the director",
                "the director is coming",
                self._clock(),
            )
        )
        del notices[:-MAX_NOTICES]
        self._record("notice", f"{who} called the director", "")
        self.shown.version += 1
        self.drive()

    def _record(self, device: str, problem: str | None, fix: str) -> None:
        """A line in the log's fault list; a log that cannot take it is already a fault."""
        try:
            self.log.record_fault(device, problem, fix, time.time())
        except LogError as exc:
            log.warning("could not record %s in the log: %s", device, exc)

    def drive(self) -> None:
        """Show the whole state on every sink (idempotent)."""
        self.shown.faults = self.health.faults
        self.sinks.drive(self.game, self.shown)

    # --- the sources --------------------------------------------------------------------

    def submit(self, what: Any, source: str, evidence: bytes | None = None) -> None:
        """Queue something noticed (from the event loop's thread)."""
        self._noticed(source, what)
        self._queue.put_nowait(_Input(source, what, evidence, at=self._clock()))

    def _noticed(self, source: str, what: Any) -> None:
        if self.on_noticed is not None:
            self.on_noticed(self.camera.frames, source, what)

    def submit_threadsafe(self, what: Any, source: str) -> None:
        """Queue something noticed, from any thread."""
        loop = self._loop
        if loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop has closed: shutting down
                loop.call_soon_threadsafe(self.submit, what, source)

    def tell(self, event: InputEvent) -> None:
        """The simulated players' word for what a table has no sensor for."""
        self.submit(event, "sim")

    def _on_seen(self, seen: Seen, frame: Frame, read_at: float) -> None:
        self._queue.put_nowait(_Input("camera", seen, seen.evidence, at=read_at))

    def _before_frame(self, index: int) -> None:
        if self.players is not None:
            self.players.act(self.game, index)

    async def _on_page(
        self, payload: dict[str, Any], sender: Sender | None = None
    ) -> Refusal | None:
        """A touch on the page; the operator's (after the PIN) is logged as "operator"."""
        source = "operator" if sender is not None and sender.operator else "page"
        reply: asyncio.Future[Refusal | None] = asyncio.get_running_loop().create_future()
        self._noticed(source, payload)
        address = sender.address if sender is not None else ""
        self._queue.put_nowait(
            _Input(source, payload, reply=reply, at=self._clock(), address=address)
        )
        return await reply

    # --- the page's operator and its refusals (web/guard.py, web/roles.py) -------------

    PAGE_EXTRA: frozenset[str] = frozenset()  # event names the page takes besides the rules'

    def operator_pin_hash(self) -> str:
        """The hash of the PIN that makes the page's operator ("": none)."""
        return self.config.web.operator_pin_hash

    async def _operator_login(self, pin: str, sender: Sender) -> Refusal | None:
        refusal = await self.pin_refusal(pin, self.operator_pin_hash(), f"from {sender.address}")
        if refusal is None:
            self._record("notice", f"the operator logged in on the page from {sender.address}", "")
        return refusal

    async def pin_refusal(self, pin: object, stored: str, where: str) -> Refusal | None:
        """Whether ``pin`` is the operator's: None, or why not; wrong PINs are counted
        (``guesses``: a lock after a few) and recorded in the log. The hash is worked in
        a thread, so the table never waits for it."""
        wait = self.guesses.wait(self._clock())
        if wait > 0:
            return ("too many wrong PINs", f"wait {wait:.0f} s before trying again")
        if not stored:
            return ("no operator PIN is set", "set [web] operator_pin_hash in the table's config")
        loop = asyncio.get_running_loop()
        ok = isinstance(pin, str) and await loop.run_in_executor(None, verify_pin, pin, stored)
        if ok:
            self.guesses.succeeded()
            return None
        self.guesses.failed(self._clock())
        self._record("notice", f"a wrong operator PIN {where}", "")
        wait = self.guesses.wait(self._clock())
        return ("wrong PIN", f"try again in {wait:.0f} s" if wait > 0 else "try again")

    def _page_refused(self, sender: Sender, problem: str) -> None:
        """A request the page refused at its door: a notice on the page and a line in the
        log, so the players and the director see someone tried. One line per address per
        ``REFUSALS_QUIET`` s (the others counted in the next), so a flood fills no disk."""
        now = self._clock()
        address = sender.address
        noted = self._refused_from.get(address)
        if noted is not None and now - noted[0] < REFUSALS_QUIET:
            self._refused_from[address] = (noted[0], noted[1] + 1)
            return
        if len(self._refused_from) >= 1000:
            self._refused_from.clear()
        self._refused_from[address] = (now, 0)
        more = f" (and {noted[1]} more before)" if noted is not None and noted[1] else ""
        text = f"the page refused a request from {address}: {problem}{more}"
        notices = self.shown.notices
        notices.append(Notice("refused", None, text, "the director can see it in the log", now))
        del notices[:-MAX_NOTICES]
        self._record("notice", text, "")
        self.shown.version += 1
        self.drive()

    def on_button(self, event: ButtonEvent) -> None:
        """The seat buttons' events (in the loop's thread)."""
        if isinstance(event, ButtonPressed):
            self.submit(event, "button")
        elif isinstance(event, ButtonStuck):
            self.health.raise_fault(
                Device.SEATS, "a button is stuck down", event.what_to_do, self._clock()
            )
        elif isinstance(event, ButtonFreed) and not self.devices.stuck_buttons():
            self.health.clear(Device.SEATS)

    def on_cube(self, event: cube_types.CubeEvent) -> None:
        """The trump cube's events (in the loop's thread)."""
        if isinstance(event, cube_types.FaceTurnedUp):
            self.cube_suit = event.suit
            self._noticed("cube-face", event.suit)
        elif isinstance(event, cube_types.ButtonPressed):
            if event.held:  # held 1.5 s: a call for the director
                self.submit(ButtonPressed(None, SeatButton.DIRECTOR), "cube")
        elif event.up:
            self.health.clear(Device.CUBE)
        else:
            self.health.raise_fault(
                Device.CUBE,
                f"the trump cube is not connected ({event.reason})",
                "check the cube's USB cable; it reconnects by itself",
                self._clock(),
            )

    # --- the consumer ---------------------------------------------------------------------

    async def _consume(self) -> None:
        while True:
            item = await self._queue.get()
            try:
                # Shielded: stopping the table never cuts an input between its log
                # write and its acknowledgement (run() waits for it).
                self._taking = asyncio.ensure_future(self._take(item))
                refusal = await asyncio.shield(self._taking)
            except Exception as exc:  # a bug must not stop the table: say so, go on
                log.exception("the table could not handle %r", item)
                refusal = self._refuse(
                    None,
                    f"the table failed on an input ({exc!r})",
                    "tell the director",
                    item.source,
                )
            finally:
                self._queue.task_done()
            if item.reply is not None and not item.reply.done():
                item.reply.set_result(refusal)

    async def _take(self, item: _Input) -> Refusal | None:
        game = self.game
        what = item.what
        if item.ruling is not None:  # checked here, in turn with every other input
            refusal = self._ruling_refusal(item.ruling)
            if refusal is not None:
                return refusal
            self._ruling_id = item.ruling.ruling_id  # logged with the event (apply)
            return await self.apply(what, item.source)
        try:
            if item.source == "camera":
                event = from_vision(game, what.event)
                if event is None:
                    return None
            elif item.source in ("button", "cube"):
                meant = from_press(game, what, self.cube_suit)
                if isinstance(meant, DirectorCalled):
                    self._director_called(meant.seat)
                    return None
                event = meant
            elif item.source in ("page", "operator"):
                operator = item.source == "operator"
                pin = bool(self.operator_pin_hash())
                event = from_page(game, what, operator=operator, operator_pin=pin)
            else:
                event = what
        except Refused as refused:
            where = f"{item.source} from {item.address}" if item.address else item.source
            return self._refuse(refused.seat, refused.problem, refused.what_to_do, where)
        return await self.apply(event, item.source, item.evidence)

    # --- the director's feed (feed/publisher.py) ----------------------------------------

    def _start_feed(self) -> None:
        """Send the log to the director's broker; its troubles are the FEED fault."""
        from table_controller.feed.publisher import Publisher, settings_from_config

        settings, problem = settings_from_config(self.config)
        if problem is not None:
            self.health.raise_fault(Device.FEED, *problem, self._clock())
        loop = asyncio.get_running_loop()

        def state(problem: str | None, fix: str) -> None:  # the publisher's thread
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._feed_state, problem, fix)

        def ruling(r: Any) -> None:  # the publisher's thread
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._on_ruling, r)

        self.feed = Publisher(settings, self.config.log, on_ruling=ruling, on_state=state)
        self._feed_status(new_events=True)
        self.feed.start()

    def _feed_state(self, problem: str | None, fix: str) -> None:
        if problem is None:
            self.health.clear(Device.FEED)
        else:
            self.health.raise_fault(Device.FEED, problem, fix, self._clock())

    def _feed_status(self, *, new_events: bool = False) -> None:
        """The heartbeat's contents, and a nudge when the log has new events."""
        feed = self.feed
        if feed is None:
            return
        game = self.game
        hand = game.hand or game.last_hand
        feed.set_status(
            {
                "game": self.game_no,
                "hand": hand.number if hand is not None else None,
                "phase": game.phase.value,
                "scores": list(game.team_scores()),
                "players": {s.name: n for s, n in self.config.players.items()},
                "faults": [f.to_json() for f in self.health.faults],
            }
        )
        if new_events:
            feed.notify()

    def _on_ruling(self, ruling: Any) -> None:
        """A ruling the director signed (checked by the publisher): applied through the
        same queue as every input, then answered."""
        task = asyncio.ensure_future(self._apply_ruling(ruling))
        self._ruling_tasks.add(task)
        task.add_done_callback(self._ruling_tasks.discard)

    async def _apply_ruling(self, ruling: Any) -> None:
        from table_controller.rules.codec import CodecError, decode_input

        if self.log.ruling_applied(ruling.ruling_id) is not None:  # sent again: answered,
            if self.feed is not None:  # not applied again
                self.feed.answer(ruling.ruling_id, True, None)
            return
        refusal: Refusal | None = None
        if ruling.event is None:
            refusal = self._ruling_refusal(ruling)
        else:
            try:
                event = decode_input(ruling.event)
            except (CodecError, ValueError) as exc:
                refusal = (f"the ruling's event cannot be read ({exc})", "make the ruling again")
            else:
                reply: asyncio.Future[Refusal | None] = asyncio.get_running_loop().create_future()
                self._noticed("director", event)
                item = _Input("director", event, reply=reply, at=self._clock(), ruling=ruling)
                self._queue.put_nowait(item)
                refusal = await reply
        if refusal is None:
            notices = self.shown.notices
            notices.append(
                Notice("director", None, f"the director ruled: {ruling.reason}", "", self._clock())
            )
            del notices[:-MAX_NOTICES]
            self.shown.version += 1
            self.drive()
        if self.feed is not None:
            problem = None if refusal is None else f"{refusal[0]} ({refusal[1]})"
            self.feed.answer(ruling.ruling_id, refusal is None, problem)

    def _ruling_refusal(self, ruling: Any) -> Refusal | None:
        """A ruling for another game or hand than this table's: refused, in words."""
        from table_controller.feed.signing import position_problem

        hand = self.game.hand or self.game.last_hand
        problem = position_problem(
            ruling, game=self.game_no, hand=hand.number if hand is not None else None
        )
        fix = "the director should look at the table and make the ruling again"
        return None if problem is None else (problem, fix)

    async def _forward_rulings(self) -> None:
        while True:
            event = await self.rulings.get()
            self.submit(event, "director")

    # --- the watchers ----------------------------------------------------------------------

    async def _watch(self) -> None:
        """Every ``check_every`` s: the disk, the cube's link, old notices, a new game."""
        while True:
            self.check()
            await asyncio.sleep(self.check_every)

    def check(self) -> None:
        now = self._clock()
        changed = False
        folder = self.config.log.parent
        try:
            free = self._disk_free(folder)
        except OSError as exc:
            self.health.raise_fault(
                Device.DISK, f"cannot read the free space ({exc})", DISK_FIX, now
            )
        else:
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
        notices = self.shown.notices
        kept = [n for n in notices if now - n.at < self.notice_seconds]
        if len(kept) != len(notices):
            self.shown.notices = kept
            self.shown.refused &= {n.seat for n in kept if n.kind == "refused"}
            changed = True
        if self._over_since is not None and now - self._over_since >= self.new_game_after:
            try:
                self._start_game()
            except LogError as exc:  # tried again at the next check
                self.health.raise_fault(Device.LOG, str(exc), LOG_FIX, now)
            changed = True
        if changed:
            self.shown.version += 1
            self.drive()

    def _on_health(self, fault: Fault | None, device: Device) -> None:
        if fault is None:
            self._record(device.value, None, "")
        else:
            self._record(device.value, fault.problem, fault.fix)
        self._feed_status()
        if self._ready:
            self.shown.version += 1
            self.drive()

    # --- running ---------------------------------------------------------------------------

    async def run(self, *, stop: asyncio.Event | None = None, hands: int | None = None) -> None:
        """Run until ``stop`` is set, ``hands`` hands have been scored, or (replaying a
        recording) the camera's last frame has been taken. Closes everything at the end."""
        self._loop = asyncio.get_running_loop()
        self._stop = stop if stop is not None else asyncio.Event()
        self._hands_wanted = hands
        tasks: list[asyncio.Task[Any]] = []
        try:
            self.devices.open(self, self.health)
            self.sinks.lights = self.devices.lights
            self.sinks.cube = self.devices.cube
            if self.config.feed.enabled:
                self._start_feed()
            if self.page is not None:
                self.url = await self.page.start(self.config.web.host, self.config.web.port)
            self.drive()  # after a restart: the lights, the cube and the page as they were
            self.check()
            tasks = [
                asyncio.create_task(self._consume(), name="table-inputs"),
                asyncio.create_task(self._forward_rulings(), name="table-rulings"),
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
            if self.feed is not None:  # what the broker can still take, then offline
                await asyncio.to_thread(self.feed.stop)
            await asyncio.to_thread(self.devices.close)
            self._log_thread.shutdown(wait=True)
            self.log.close()

    @property
    def started(self) -> bool:
        return self._loop is not None

    def snapshot(self) -> dict[str, Any] | None:
        return self.sinks.snapshot

    def encoded_log(self) -> list[dict[str, Any]]:
        return [encode(e) for e in self.game.log]


__all__ = ["Refusal", "Table", "disk_free"]
