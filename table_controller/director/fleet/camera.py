"""The director's two camera commands of the fleet view: "show me the table's camera"
and "recalibrate it", sent as signed orders (fleet/orders.py) on the table's commands
topic, and the table's answer (a JPEG, and for a recalibration whether it worked) kept
as the table's latest picture of that kind (store/fleet_pictures.py).

Why signed: a command makes the table act on itself (a recalibration replaces its
calibration file); only the event's director may ask that, as only it may rule.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from table_controller.director.json_value import JSONValue
from table_controller.director.store import DirectorStore, StoreError
from table_controller.errors import TableControllerError
from table_controller.feed import messages
from table_controller.fleet import orders
from table_controller.pictures import JPEG_MAGIC

KINDS = ("camera-view", "recalibrate")
Publish = Callable[[str, bytes | str, bool], None]  # (topic, payload, retain)


class CameraCommandError(TableControllerError, ValueError):
    """A camera command that cannot be sent: what, and what to do."""


@dataclass
class CameraCommands:
    """Sends the camera commands of one event (topics under ``prefix``) signed with the
    director's ``private_pem`` through ``publish`` (the director's own MQTT client)."""

    store: DirectorStore
    private_pem: bytes | None
    prefix: str
    publish: Publish
    clock: Callable[[], float] = field(default=time.time)

    def ask(self, table: str, kind: str, *, who: str) -> orders.Order:
        """Sign and send ``kind`` to ``table`` for director ``who``; the signed order."""
        if kind not in KINDS:
            raise CameraCommandError(
                f"there is no camera command {kind[:40]!r}: use the fleet page's buttons"
            )
        bad = messages.id_problem(table)
        if bad is not None:
            raise CameraCommandError(bad)
        if self.private_pem is None:
            raise CameraCommandError(
                "the director has no signing key, so the tables would refuse its commands: "
                "start the director with its key (`table-controller director start` makes one)"
            )
        now = self.clock()
        command: orders.Order = {"kind": kind, "table": table, "id": uuid.uuid4().hex, "at": now}
        order = orders.sign_order(command, self.private_pem)
        self.store.pictures.fleet_asked(table, kind, now, who=who, order=order["id"])
        topic = messages.Topics(self.prefix.rstrip("/")).commands(table)
        self.publish(topic, json.dumps(order), False)
        return order


def camera_reply(
    store: DirectorStore, table: str, body: Mapping[str, JSONValue], now: float
) -> None:
    """A table's answer on ``fleet(table, "camera")`` (``fleet.replies.HANDLERS``): kept
    as its latest picture of that kind. StoreError in words when it cannot be read."""
    kind = body.get("kind")
    if kind not in KINDS:
        raise StoreError(f"a camera answer from {table} is of no kind the director asked for")
    at = body.get("at")
    if isinstance(at, bool) or not isinstance(at, int | float) or not math.isfinite(at):
        at = now
    jpeg = None
    text = body.get("jpeg")
    if isinstance(text, str) and text:
        try:
            jpeg = base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError):
            raise StoreError(f"the picture from {table} is not base64; it was not kept") from None
        if not jpeg.startswith(JPEG_MAGIC):
            raise StoreError(f"the picture from {table} is not a JPEG; it was not kept")
    ok = body.get("ok")
    if kind == "camera-view" and ok is None:
        ok = jpeg is not None
    problem = body.get("problem")
    try:
        store.pictures.fleet_picture_add(
            table,
            str(kind),
            at=float(at),
            ok=bool(ok),
            problem=str(problem)[:2000] if problem else None,
            jpeg=jpeg,
        )
    except ValueError as exc:
        raise StoreError(f"the picture from {table} was not kept: {exc}") from None


__all__ = ["KINDS", "CameraCommandError", "CameraCommands", "Publish", "camera_reply"]
