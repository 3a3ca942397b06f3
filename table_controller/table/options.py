"""How a running table (app.py) is run, besides its config: its clock, where its frames
come from, its devices, whether it serves its page, its timings, and the hooks the
command line, the tests and the bench listen with. The defaults are the real table's.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

from table_controller.review import GameJob, GameJudged
from table_controller.rules.events import InputEvent, OutputEvent
from table_controller.table.devices import TableDevices
from table_controller.table.noticed import Noticed
from table_controller.table.sinks import Trace
from table_controller.vision.camera import Frame, FrameSource


def disk_free(path: Path) -> int:
    """Bytes free on the disk holding ``path``."""
    return shutil.disk_usage(path).free


@dataclass(frozen=True)
class TableOptions:
    """``camera`` opens the frame source (None: the config's camera, or the simulated
    world's when the table has one); ``devices`` the table's pins and cube (None: from
    the config); ``disk_free(path)`` (bytes) is injectable so a test can fill the disk.
    ``end_with_camera``: stop when the camera's source ends (a recording).
    ``new_game_after`` s after a game ends the next starts; ``notice_seconds`` a notice
    stays; ``check_every`` s the table checks its disk, cube and notices.

    The hooks: ``on_ack(game, seq, event)`` after each durable append,
    ``on_step(event, outputs)`` after each accepted event, ``trace(sink, clock)`` after
    each sink is driven, ``on_frame(frame, read_at)`` after each camera frame and
    ``on_noticed(frame, noticed)`` for each input not from the camera (a recording
    keeps them). ``judge`` works out a game's verdicts in the runner's process (None:
    ``review.judge``; a test gives its own)."""

    clock: Callable[[], float] = time.monotonic
    camera: Callable[[], FrameSource] | None = None
    devices: TableDevices | None = None
    disk_free: Callable[[Path], int] = disk_free
    serve_page: bool = True
    end_with_camera: bool = False
    new_game_after: float = 10.0
    notice_seconds: float = 30.0
    check_every: float = 1.0
    on_ack: Callable[[int, int, InputEvent], None] | None = None
    on_step: Callable[[InputEvent, list[OutputEvent]], None] | None = None
    on_frame: Callable[[Frame, float], None] | None = None
    on_noticed: Callable[[int, Noticed], None] | None = None
    trace: Trace | None = None
    judge: Callable[[GameJob], GameJudged] | None = None  # a game's verdicts (review.judge)


class TableOptionFields(TypedDict, total=False):
    """``TableOptions``' fields but the camera, by name, each one optional: what the
    command line gathers (its hooks, a fleet table's pause between games) and what the
    simulated table, which brings its own camera, passes on."""

    clock: Callable[[], float]
    devices: TableDevices | None
    disk_free: Callable[[Path], int]
    serve_page: bool
    end_with_camera: bool
    new_game_after: float
    notice_seconds: float
    check_every: float
    on_ack: Callable[[int, int, InputEvent], None] | None
    on_step: Callable[[InputEvent, list[OutputEvent]], None] | None
    on_frame: Callable[[Frame, float], None] | None
    on_noticed: Callable[[int, Noticed], None] | None
    trace: Trace | None
    judge: Callable[[GameJob], GameJudged] | None


__all__ = ["TableOptionFields", "TableOptions", "disk_free"]
