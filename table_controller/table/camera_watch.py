"""The camera's side of the running table: frames read and read for cards in a worker
thread, what the tracker reports handed to the table, and the camera's own faults.

The event loop never waits on the camera: each frame is read and searched for cards in
a worker thread of its own, so the buttons, the cube and the page stay live while a
frame is processed (one thread: the frames' memory stays in one place, and a camera
that hangs holds only that thread). What can go wrong is a fault, never a stop:

- no frame for ``lost_after`` seconds (a pulled ribbon cable, a hung driver): the
  CAMERA fault, cleared by the next frame; a source that ends or fails is closed and
  opened again every ``reopen_after`` seconds;
- no calibration (the file is missing, or the mat's corner markers are not in view
  when the table calibrates itself): the CALIBRATION fault, tried again until it works;
- the fiducials have moved since the calibration (someone knocked the camera or the
  mat), checked every ``drift_check`` seconds: the CALIBRATION fault, cleared when they
  are back where they were.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar, TypeVarTuple

from table_controller.table.health import Device, Health
from table_controller.table.machine import SYNTHETIC_TABLE
from table_controller.vision.across import CardAcross
from table_controller.vision.calibration import DRIFT_PX, calibrate, drift
from table_controller.vision.camera import CameraError, Frame, FrameSource
from table_controller.vision.layout import Calibration, CalibrationError
from table_controller.vision.watcher import CardWatcher, Clearer, Seen

log = logging.getLogger(__name__)

T = TypeVar("T")
Ts = TypeVarTuple("Ts")

CAMERA_FIX = (
    "check the camera's cable and power; the table keeps trying to reopen it and "
    "catches up with the cards on the table when pictures come back"
)
OPEN_FIX = (
    "connect the camera [camera] source names (`table-controller config check FILE` says "
    "whether this machine has it); the table keeps trying to open it. Or, " + SYNTHETIC_TABLE
)
CALIBRATE_FIX = (
    "run `table-controller calibrate` with the mat's four corner markers in view, "
    "and name the file in the config ([camera] calibration)"
)


@dataclass
class _Read:
    """One frame's worth of work done in the worker thread."""

    frame: Frame | None  # None: the source ended
    seen: list[Seen]
    calibration_problem: str | None = None  # still no calibration: why
    calibrated: bool = False  # the calibration was loaded or made with this frame
    drift_px: float | None = None  # measured this frame (None: not measured or not seen)
    drift_checked: bool = False
    drift_problem: str | None = None
    clearer: list[Clearer] = field(default_factory=list)  # of cards reported before
    across: tuple[CardAcross, ...] = ()  # the cards lying across a zone's line now


class CameraWatch:
    """Reads ``open_source()``'s frames until cancelled (or, with ``end_with_source``, until
    the source ends: the replay of a recording). ``on_seen(seen, frame, read_at)`` gets
    each tracker event; ``on_clearer(clearer, read_at)`` each clearer picture of a card
    reported before (after the frame's events); ``on_across(cards, read_at)`` the cards
    lying across a zone's line, each time they change (a card comes or goes, or the
    zones it lies across change); ``before_frame(n)`` runs in the loop
    before frame ``n`` is read (the simulated players act there); ``on_frame(frame,
    read_at)`` after each frame."""

    def __init__(
        self,
        open_source: Callable[[], FrameSource],
        *,
        health: Health,
        clock: Callable[[], float],
        on_seen: Callable[[Seen, Frame, float], None],
        on_clearer: Callable[[Clearer, float], None] | None = None,
        on_across: Callable[[tuple[CardAcross, ...], float], None] | None = None,
        calibration: Path | Calibration | None = None,
        lost_after: float = 3.0,
        drift_check: float = 10.0,
        reopen_after: float | None = None,
        before_frame: Callable[[int], None] | None = None,
        on_frame: Callable[[Frame, float], None] | None = None,
        end_with_source: bool = False,
        make_watcher: Callable[[Calibration], CardWatcher] = CardWatcher,
    ) -> None:
        if lost_after <= 0:
            raise ValueError(f"lost_after {lost_after}: choose a number of seconds above 0")
        self._open_source = open_source
        self.health = health
        self._clock = clock
        self._on_seen = on_seen
        self._on_clearer = on_clearer
        self._on_across = on_across
        self._across: tuple[tuple[object, ...], ...] = ()  # as last told: (card, zones)
        self._calibration_file = calibration if isinstance(calibration, Path) else None
        self.calibration = calibration if isinstance(calibration, Calibration) else None
        self.lost_after = lost_after
        self.drift_check = drift_check
        self.reopen_after = lost_after if reopen_after is None else reopen_after
        self.before_frame = before_frame
        self.on_frame = on_frame
        self.end_with_source = end_with_source
        self._make_watcher = make_watcher
        self.watcher: CardWatcher | None = None
        self._thread: ThreadPoolExecutor | None = None
        self.frames = 0  # frames read since the table started
        self.last_frame: Frame | None = None  # the latest frame read (the fleet's view)
        self.last_read_at: float | None = None  # when it was read (``clock``)
        self.opened = 0  # times a source was opened
        self._open_problem: str | None = None  # the last failure to open, as logged
        self._next_calibration = 0.0
        self._next_drift = 0.0

    # --- the loop ---------------------------------------------------------------------

    async def run(self) -> None:
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="table-camera")
        try:
            await self._run()
        finally:
            self._thread.shutdown(wait=False)  # the source closes after its last frame

    def _in_thread(self, call: Callable[[*Ts], T], *args: *Ts) -> asyncio.Future[T]:
        return asyncio.get_running_loop().run_in_executor(self._thread, call, *args)

    def in_camera_thread(self, call: Callable[[*Ts], T], *args: *Ts) -> asyncio.Future[T]:
        """Run ``call`` in the camera's own thread, between two frames: what changes the
        calibration or the watcher (a recalibration the director asked for) never races
        a frame being read. In the loop, while the camera runs."""
        if self._thread is None:
            raise RuntimeError("the camera is not running")
        return self._in_thread(call, *args)

    def use_calibration(self, calibration: Calibration) -> None:
        """Read cards with ``calibration`` from the next frame (in the camera's thread:
        ``in_camera_thread``)."""
        self.calibration = calibration
        self.watcher = self._make_watcher(calibration)

    async def _run(self) -> None:
        while True:
            source = await self._open()
            try:
                await self._frames(source)
            finally:
                _ = self._in_thread(_close, source)  # after the frame being read, if any
            if self.end_with_source:
                return
            log.warning(
                "the camera %s stopped giving pictures: opened again in %g s",
                source.name, self.reopen_after,
            )  # fmt: skip
            self.health.raise_fault(
                Device.CAMERA, "the camera stopped giving pictures", CAMERA_FIX, self._clock()
            )
            await asyncio.sleep(self.reopen_after)

    async def _open(self) -> FrameSource:
        while True:
            try:
                source = await self._in_thread(self._open_source)
            except (CameraError, OSError) as exc:
                if self.end_with_source:
                    raise
                problem = f"the camera cannot be opened: {exc}"
                if problem != self._open_problem:  # once, not at every try
                    log.warning("%s; trying again every %g s", problem, self.reopen_after)
                    self._open_problem = problem
                self.health.raise_fault(Device.CAMERA, problem, OPEN_FIX, self._clock())
                await asyncio.sleep(self.reopen_after)
                continue
            self._open_problem = None
            self.opened += 1
            return source

    async def _frames(self, source: FrameSource) -> None:
        first = True
        while True:
            if self.before_frame is not None:
                self.before_frame(self.frames)
            work = self._in_thread(self._read, source)
            try:
                while True:
                    done, _ = await asyncio.wait({work}, timeout=self.lost_after)
                    if done:
                        break
                    if not self.end_with_source:
                        self.health.raise_fault(
                            Device.CAMERA,
                            f"no picture from the camera for over {self.lost_after:g} s",
                            CAMERA_FIX,
                            self._clock(),
                        )
            except asyncio.CancelledError:
                # The thread finishes its frame on its own; the source is closed after.
                work.cancel()
                raise
            try:
                result = work.result()
            except Exception as exc:
                log.warning(
                    "reading the camera %s failed (%s): it is closed and opened again in %g s",
                    source.name, exc, self.reopen_after,
                )  # fmt: skip
                self.health.raise_fault(
                    Device.CAMERA, f"reading the camera failed ({exc})", CAMERA_FIX, self._clock()
                )
                return
            if result.frame is None:
                return
            if first:  # the journal tells when pictures came, and came back
                width, height = result.frame.size
                log.info("the camera %s gives pictures (%dx%d)", source.name, width, height)
                first = False
            read_at = self._clock()
            self.frames += 1
            self.last_frame, self.last_read_at = result.frame, read_at
            self.health.clear(Device.CAMERA)
            self._calibration_health(result, read_at)
            for seen in result.seen:
                self._on_seen(seen, result.frame, read_at)
            if self._on_clearer is not None:
                for clearer in result.clearer:
                    self._on_clearer(clearer, read_at)
            across = tuple((a.card, a.zones) for a in result.across)
            if across != self._across:
                self._across = across
                if self._on_across is not None:
                    self._on_across(result.across, read_at)
            if self.on_frame is not None:
                self.on_frame(result.frame, read_at)

    def _calibration_health(self, result: _Read, now: float) -> None:
        if result.calibration_problem is not None:
            self.health.raise_fault(
                Device.CALIBRATION, result.calibration_problem, CALIBRATE_FIX, now
            )
        elif result.drift_problem is not None:
            self.health.raise_fault(Device.CALIBRATION, result.drift_problem, CALIBRATE_FIX, now)
        elif result.drift_checked and result.drift_px is not None:
            if result.drift_px > DRIFT_PX:
                self.health.raise_fault(
                    Device.CALIBRATION,
                    "the camera or the mat has moved since the calibration (the corner "
                    f"markers are {result.drift_px:.0f} px from where they were)",
                    "put the camera and the mat back as they were, or run "
                    "`table-controller calibrate` again",
                    now,
                )
            else:
                self.health.clear(Device.CALIBRATION)
        elif result.calibrated:
            self.health.clear(Device.CALIBRATION)

    # --- in the worker thread -----------------------------------------------------------

    def _read(self, source: FrameSource) -> _Read:
        frame = source.read()
        if frame is None:
            return _Read(None, [])
        now = self._clock()
        calibrated = False
        if self.watcher is None:
            problem = self._calibrate(source, frame, now)
            if problem is not None:
                return _Read(frame, [], calibration_problem=problem)
            calibrated = True
        assert self.watcher is not None and self.calibration is not None
        seen = self.watcher.process(frame.image, frame.index, frame.timestamp, frame.grey)
        result = _Read(
            frame,
            seen,
            calibrated=calibrated,
            clearer=self.watcher.clearer,
            across=self.watcher.across,
        )
        if self.drift_check > 0 and now >= self._next_drift:
            self._next_drift = now + self.drift_check
            result.drift_checked = True
            try:
                result.drift_px = drift(self.calibration, frame.image)
            except CalibrationError as exc:
                result.drift_problem = str(exc)
        return result

    def _calibrate(self, source: FrameSource, frame: Frame, now: float) -> str | None:
        """Load or make the calibration; why not, if it cannot be had yet."""
        if now < self._next_calibration:
            return "the table is not calibrated yet"
        self._next_calibration = now + max(self.reopen_after, 1.0)
        try:
            if self.calibration is None:
                if self._calibration_file is not None:
                    self.calibration = Calibration.load(self._calibration_file)
                else:
                    own = getattr(source, "calibration", None)  # the simulated table's camera
                    self.calibration = own() if callable(own) else calibrate(frame.image)
        except CalibrationError as exc:
            return f"no calibration: {exc}"
        self.watcher = self._make_watcher(self.calibration)
        return None


def _close(source: FrameSource) -> None:
    with contextlib.suppress(Exception):  # a camera that failed may fail to close too
        source.close()


__all__ = ["CALIBRATE_FIX", "CAMERA_FIX", "OPEN_FIX", "CameraWatch"]
