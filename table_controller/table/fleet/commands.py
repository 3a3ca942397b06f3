"""The table's side of the fleet view's camera commands: the director asks for the
camera's view, or for a new calibration, with a signed order on the table's commands
topic (fleet/orders.py); the table checks the signature, does it, and answers on
``fleet(table, "camera")`` with the picture.

Why the table calibrates itself on the director's word: at an event the director
walks the hall with a laptop, not to each table with a keyboard; a camera knocked
between rounds is put back, then recalibrated from the dashboard, and the picture
(the mat's zones drawn over the camera's view) shows it worked.

A recalibration is refused while a hand is in play: the card watcher starts again
with the new calibration and would lose the cards already on the table.
"""

from __future__ import annotations

import asyncio
import base64
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypedDict

from table_controller.fleet import orders
from table_controller.pictures import encode_jpeg
from table_controller.rules.hand import HAND_PHASES
from table_controller.table.health import Device
from table_controller.table.ports import CameraPort, FeedPort, TableControl
from table_controller.vision.layout import CalibrationError

if TYPE_CHECKING:
    from table_controller.vision.camera import Frame

log = logging.getLogger(__name__)

KINDS = ("camera-view", "recalibrate")
SEEN_MAX = 200  # the command ids remembered (each is taken once)
Send = Callable[[str, "CameraAnswer"], None]  # Publisher.send
NO_FRAME = (
    "the camera has given no picture yet: check its cable and that it is switched on "
    "(the table's page says what is wrong), then ask again"
)


class CameraAnswer(TypedDict):
    """The answer on ``fleet(table, "camera")``: what was done, and the picture."""

    table: str
    id: str  # the order's
    kind: str  # "camera-view" or "recalibrate"
    ok: bool
    problem: str | None  # in words, when not ok
    jpeg: str | None  # base64
    at: float  # wall clock


@dataclass
class Done:
    """What the table did: the answer's fields."""

    ok: bool
    problem: str | None
    jpeg: bytes | None


class FleetCommands:
    """Takes the director's camera commands for ``table`` (its id on the feed
    ``table_id``, its ``feed`` and ``camera``), checked with the director's
    ``public_pem``; answers with ``send``."""

    def __init__(
        self,
        table: TableControl,
        feed: FeedPort,
        camera: CameraPort,
        *,
        table_id: str,
        public_pem: bytes,
        send: Send,
        clock: Callable[[], float] = time.time,
        stale_after: float | None = None,
    ) -> None:
        self.table = table
        self.feed = feed
        self.camera = camera
        self.table_id = table_id
        self.public_pem = public_pem
        self.send = send
        self.clock = clock
        # A frame older than this (the table's clock) is not the camera's view now.
        self.stale_after = stale_after if stale_after is not None else 2 * camera.lost_after
        self._seen: list[str] = []
        self._tasks: set[asyncio.Future[None]] = set()

    def on_order(self, topic_kind: str, payload: Mapping[str, object]) -> None:
        """An order from the feed (in the loop): a camera command is checked and done;
        anything else (a config, an update) is another part's."""
        if topic_kind != orders.COMMANDS or payload.get("kind") not in KINDS:
            return
        try:
            order = orders.verify_order(
                payload,
                self.public_pem,
                table=self.table_id,
                kind=orders.COMMANDS,
                now=self.clock(),
                seen=self._seen,
            )
        except orders.OrderRejected as exc:
            log.warning("fleet: a camera command was refused: %s", exc)
            return
        self._seen = [*self._seen, str(order["id"])][-SEEN_MAX:]
        task = asyncio.ensure_future(self.answer(order))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def answer(self, order: Mapping[str, object]) -> None:
        """Do what ``order`` asks and send the answer (never raises: an answer in words)."""
        kind = str(order["kind"])
        try:
            done = await (self.recalibrate() if kind == "recalibrate" else self.camera_view())
        except Exception as exc:  # the answer says it; the table plays on
            log.exception("fleet: the %s command failed", kind)
            done = Done(False, f"the table failed to do it ({exc}): ask again", None)
        reply: CameraAnswer = {
            "table": self.table_id,
            "id": str(order["id"]),  # a string: verify_order checked it
            "kind": kind,
            "ok": done.ok,
            "problem": done.problem,
            "jpeg": None if done.jpeg is None else base64.b64encode(done.jpeg).decode("ascii"),
            "at": self.clock(),
        }
        self.send("camera", reply)

    def _frame(self) -> Frame | None:
        camera = self.camera
        frame, read_at = camera.last_frame, camera.last_read_at
        if frame is None or read_at is None:
            return None
        if self.table.clock() - read_at > self.stale_after:
            return None
        return frame

    async def camera_view(self) -> Done:
        """The camera's latest frame, as JPEG."""
        frame = self._frame()
        if frame is None:
            return Done(False, NO_FRAME, None)
        jpeg = await asyncio.to_thread(encode_jpeg, frame.image)
        return Done(True, None, jpeg)

    async def recalibrate(self) -> Done:
        """A new calibration from the camera's view now (vision's ``calibrate``), saved
        to the calibration file the config names and used from the next frame; the
        picture shows the zones found over the view, or the view when it failed."""
        table = self.table
        if table.game.phase in HAND_PHASES:
            frame = self._frame()
            jpeg = None if frame is None else await asyncio.to_thread(encode_jpeg, frame.image)
            return Done(
                False,
                "a hand is being played at this table, and recalibrating would lose the "
                "cards already on the mat: ask again when the hand ends",
                jpeg,
            )
        frame = self._frame()
        if frame is None:
            return Done(False, NO_FRAME, None)
        done = await self.camera.in_camera_thread(self._calibrate, frame)
        if done.ok:
            table.health.clear(Device.CALIBRATION)
            self.feed.calibrated_at = self.clock()
            self.feed.status()
        return done

    def _calibrate(self, frame: Frame) -> Done:
        """In the camera's thread: calibrate, save, use; the picture either way."""
        from table_controller.vision.calibration import calibrate, overlay

        try:
            calibration = calibrate(frame.image)
        except CalibrationError as exc:
            return Done(
                False,
                f"{exc}. Check that the mat's four corner markers are in the camera's view "
                "(the picture shows what it sees), then ask again",
                encode_jpeg(frame.image),
            )
        path = self.table.config.camera.calibration
        if path is not None:
            try:
                calibration.save(path)  # atomic: a crash leaves the old one
            except OSError as exc:
                return Done(
                    False,
                    f"the new calibration could not be saved to {path} ({exc.strerror or exc}): "
                    "check the table's disk; the old calibration is still used",
                    encode_jpeg(frame.image),
                )
        self.camera.use_calibration(calibration)
        return Done(True, None, encode_jpeg(overlay(calibration, frame.image)))


__all__ = ["KINDS", "NO_FRAME", "CameraAnswer", "Done", "FleetCommands"]
