"""A table session recorded, and played back through the same path.

A recording is a folder: the camera's frames (``frame-000000.jpg``... with
``timestamps.csv``, as ``vision.camera.record`` writes them, so a ``folder:`` camera
reads them back) and ``inputs.jsonl``, every input that did not come from the camera
(a button pressed, the cube turned, a touch on the page, a ruling) with the number of
the frame it came before. ``replay --video DIR`` reads the frames with the table's
camera path and hands each input to the table just before its frame, so the rules see
the session in the order the table saw it. A folder (or a video file) with no
``inputs.jsonl`` is replayed from its frames alone: then the bidding must come from
the page, as nothing else said it.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from pathlib import Path
from typing import Required, TextIO, TypedDict

import cv2

from table_controller.cards import Suit
from table_controller.devices.seat_events import ButtonPressed, SeatButton
from table_controller.errors import TableControllerError
from table_controller.rules.codec import decode_input, encode
from table_controller.rules.events import InputEvent
from table_controller.rules.game import Game
from table_controller.safe_json import loads_limited
from table_controller.seats import Seat
from table_controller.table.noticed import (
    BotMoved,
    CameraClearer,
    CameraSaw,
    CubeTurned,
    Input,
    Noticed,
    PageTouched,
    Pressed,
    Ruled,
    SimTold,
)
from table_controller.vision.camera import TIMESTAMPS, Frame

INPUTS = "inputs.jsonl"


class RecordedInput(TypedDict, total=False):
    """One line of ``inputs.jsonl``: the frame it came before, its source's word, and
    what it was: a button (``seat``, ``button``), an event, the cube's face (``suit``)
    or a touch's ``payload``."""

    frame: Required[int]
    source: Required[str]
    seat: str | None
    button: str
    event: dict[str, object]  # rules/codec.py's JSON
    suit: str | None
    payload: dict[str, object]


# The inputs recorded with an event, by their source's word.
EVENT_INPUTS: dict[str, Callable[[InputEvent], Input]] = {
    "director": Ruled,
    "bot": BotMoved,
    "sim": SimTold,
}


class RecordingError(TableControllerError, ValueError):
    """A recording that cannot be read, and what to do."""


class Recorder:
    """Writes a session to ``folder`` as it runs (JPEG frames: a hand is a few hundred)."""

    def __init__(self, folder: Path, *, quality: int = 92) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        if any(folder.iterdir()):
            raise RecordingError(f"{folder} is not empty: record into a new folder")
        self.folder = folder
        self.quality = quality
        self._times: TextIO = (folder / TIMESTAMPS).open("w", newline="")
        self._writer = csv.writer(self._times)
        self._writer.writerow(["file", "index", "timestamp"])
        self._inputs: TextIO = (folder / INPUTS).open("w")
        self.frames = 0

    def frame(self, frame: Frame, _read_at: float = 0.0) -> None:
        name = f"frame-{self.frames:06d}.jpg"
        ok, buf = cv2.imencode(".jpg", frame.image, [cv2.IMWRITE_JPEG_QUALITY, self.quality])
        if ok:
            (self.folder / name).write_bytes(buf.tobytes())
            self._writer.writerow([name, self.frames, f"{frame.timestamp:.6f}"])
            self.frames += 1

    def noticed(self, frame: int, noticed: Noticed) -> None:
        """One line of ``inputs.jsonl`` for each input not from the camera."""
        doc: RecordedInput = {"frame": frame, "source": noticed.source}
        match noticed:
            case Pressed(press):
                doc["seat"] = None if press.seat is None else press.seat.name
                doc["button"] = press.button.value
            case Ruled(event) | BotMoved(event) | SimTold(event):
                doc["event"] = encode(event)
            case CubeTurned(suit):
                doc["suit"] = None if suit is None else suit.name
            case PageTouched(payload):
                doc["payload"] = dict(payload)
            case CameraSaw() | CameraClearer():
                return  # the frames are the camera's record
        self._inputs.write(json.dumps(doc) + "\n")
        self._inputs.flush()

    def close(self) -> None:
        self._times.close()
        self._inputs.close()


def read_inputs(path: Path) -> dict[int, list[RecordedInput]]:
    """The recorded inputs by frame; ``RecordingError`` names the bad line."""
    by_frame: dict[int, list[RecordedInput]] = {}
    if not path.exists():
        return by_frame
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            doc = loads_limited(line)
            frame = int(doc["frame"])
            str(doc["source"])
        except (ValueError, KeyError, TypeError) as exc:
            raise RecordingError(
                f"{path}, line {number}: not a recorded input ({exc}); fix or remove the line"
            ) from None
        by_frame.setdefault(frame, []).append(doc)
    return by_frame


class RecordedInputs:
    """Plays the recorded inputs back: the table calls ``act`` before each frame, as it
    calls the simulated players. ``submit(noticed)`` queues an input; ``set_cube``
    sets the suit the cube showed."""

    def __init__(
        self,
        inputs: dict[int, list[RecordedInput]],
        *,
        submit: Callable[[Input], None],
        set_cube: Callable[[Suit | None], None],
        source: str = INPUTS,
    ) -> None:
        self.inputs = inputs
        self.submit = submit
        self.set_cube = set_cube
        self.source = source

    def act(self, game: Game, frame: int) -> None:
        for doc in self.inputs.pop(frame, []):
            self._give(doc)

    def _give(self, doc: RecordedInput) -> None:
        try:
            match doc:
                case {"source": "cube-face"}:
                    suit = doc.get("suit")
                    self.set_cube(None if suit is None else Suit.parse(suit))
                case {"source": source, "button": button}:
                    seat = doc.get("seat")
                    press = ButtonPressed(
                        None if seat is None else Seat.parse(seat), SeatButton(button)
                    )
                    self.submit(Pressed(press, cube=source == "cube"))
                case {"source": source, "event": event}:
                    given = EVENT_INPUTS.get(source)
                    if given is None:
                        raise ValueError(f"no input of source {source!r} is an event")
                    self.submit(given(decode_input(event)))
                case {"source": source, "payload": payload}:  # through from_page, as live
                    self.submit(PageTouched(dict(payload), operator=source == "operator"))
        except (ValueError, KeyError, TypeError) as exc:
            raise RecordingError(
                f"{self.source}: the input {doc} cannot be replayed ({exc}); fix or remove it"
            ) from None

    @property
    def left(self) -> int:
        return sum(len(v) for v in self.inputs.values())


__all__ = ["INPUTS", "RecordedInput", "RecordedInputs", "Recorder", "RecordingError", "read_inputs"]
