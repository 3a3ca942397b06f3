"""A USB camera unplugged and plugged back, as the running table meets it: OpenCV's capture
(a fake one here, the real one in tests/box/test_box_camera.py) fails, the table lets go of
the device, says in its status that the camera is gone and what to do, tries to open it
again, and reads pictures again once it is back, with the journal saying each step."""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from waiting import until_async

from table_controller.table.camera_watch import OPEN_FIX, CameraWatch
from table_controller.table.health import Device, Health
from table_controller.vision.calibration import calibrate
from table_controller.vision.camera import OpenCVSource, open_capture, v4l2_index
from table_controller.vision.synthetic import Camera, Scene, render

CAMERA = Camera(width=320, height=180)
PICTURE = render(Scene(camera=CAMERA)).image
MAT = calibrate(PICTURE)


class Socket:
    """The USB socket a camera is plugged into, and the captures opened on it."""

    def __init__(self, *, read_timeout: float = 0.0) -> None:
        self.plugged = True
        self.held = 0  # captures open now: the device cannot be removed while any is
        self.opened = 0
        self.tries = 0  # captures made, opened or not
        # Like OpenCV's V4L2 capture on a device that stops sending (v4l2loopback with no
        # writer): a read waits this long for a picture, then fails.
        self.read_timeout = read_timeout
        self.back = threading.Event()  # a read waiting for a picture wakes when it is back

    def unplug(self) -> None:
        self.back.clear()
        self.plugged = False

    def plug_in(self) -> None:
        self.plugged = True
        self.back.set()

    def capture(self, device: Any) -> FakeCapture:
        return FakeCapture(self)


class FakeCapture:
    """cv2.VideoCapture's face, on a :class:`Socket`."""

    def __init__(self, socket: Socket) -> None:
        self.socket = socket
        socket.tries += 1
        self.open = socket.plugged
        if self.open:
            socket.held += 1
            socket.opened += 1

    def isOpened(self) -> bool:
        return self.open

    def set(self, prop: int, value: float) -> bool:
        return True

    def read(self) -> tuple[bool, np.ndarray | None]:
        if self.socket.plugged and self.open:
            time.sleep(0.005)
            return True, PICTURE.copy()
        if self.socket.read_timeout:
            self.socket.back.wait(self.socket.read_timeout)
        return False, None

    def release(self) -> None:
        if self.open:
            self.open = False
            self.socket.held -= 1


def watching(socket: Socket) -> tuple[CameraWatch, Health]:
    health = Health()
    watch = CameraWatch(
        lambda: OpenCVSource(0, width=320, height=180, capture=socket.capture),
        health=health,
        clock=time.monotonic,
        on_seen=lambda seen, frame, at: None,
        calibration=MAT,
        lost_after=0.2,
        reopen_after=0.05,
        drift_check=0,
    )
    return watch, health


def camera_fault(health: Health) -> str:
    fault = health.fault(Device.CAMERA)
    return "" if fault is None else fault.problem


@pytest.mark.parametrize("read_timeout", [0.0, 0.6], ids=["fails-at-once", "read-waits"])
def test_the_camera_unplugged_is_let_go_said_and_read_again_when_back(
    read_timeout: float, caplog: pytest.LogCaptureFixture
) -> None:
    """The camera's cable pulled: the capture is released (the device can go), the status
    says the camera cannot be opened and to plug it in, tried again and again but said once
    in the journal; plugged back: pictures again, the fault cleared. A read that waits
    (OpenCV's V4L2 capture waits for its select() timeout) shows "no picture" meanwhile."""
    socket = Socket(read_timeout=read_timeout)
    watch, health = watching(socket)
    caplog.set_level(logging.INFO, logger="table_controller.table.camera_watch")

    async def body() -> None:
        running = asyncio.create_task(watch.run())
        try:
            await until_async("pictures read", lambda: watch.frames > 3 and health.ok, 30)
            socket.unplug()
            if read_timeout:
                await until_async(
                    "the wait for a picture in the status",
                    lambda: "no picture from the camera" in camera_fault(health),
                    30,
                )
            await until_async(
                "the camera let go and missed",
                lambda: socket.held == 0 and "cannot be opened" in camera_fault(health),
                30,
            )
            fault = health.fault(Device.CAMERA)
            assert fault is not None
            assert "check it is plugged in" in fault.problem, fault.problem
            assert fault.fix == OPEN_FIX
            tries = socket.tries
            await until_async("opened again and again", lambda: socket.tries > tries + 2, 30)
            frames = watch.frames
            socket.plug_in()
            await until_async("pictures again", lambda: watch.frames > frames + 3 and health.ok, 30)
            assert socket.held == 1
        finally:
            running.cancel()
            with pytest.raises(asyncio.CancelledError):
                await running

    asyncio.run(body())
    said = [r.getMessage() for r in caplog.records]
    assert sum("gives pictures (320x180)" in line for line in said) == 2, said
    assert sum("cannot be opened" in line for line in said) == 1, said
    assert any("usb:0" in line and "failed" in line for line in said), said


def test_a_camera_by_index_or_device_path_is_opened_through_v4l2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A camera's device path, or a link to it (/dev/v4l/by-id/...), is opened by its
    number through OpenCV's V4L2 backend, never by name: by name OpenCV tries FFmpeg
    first, whose read of a camera that sends nothing never returns (seen in the box with
    v4l2loopback: the table held the device forever). Anything else goes by name."""
    link = tmp_path / "usb-Logitech_Webcam-video-index0"
    link.symlink_to("/dev/video7")
    assert v4l2_index(3) == 3
    assert v4l2_index("/dev/video2") == 2
    assert v4l2_index(str(link)) is None  # not under /dev: a file of that name
    assert v4l2_index("/dev/vid") is None and v4l2_index("rtsp://cam/stream") is None

    opened: list[tuple[Any, ...]] = []
    monkeypatch.setattr(cv2, "VideoCapture", lambda *args: opened.append(args))
    monkeypatch.setattr(sys, "platform", "linux")
    open_capture("/dev/video2")
    open_capture(0)
    open_capture("clip.avi")
    assert opened == [(2, cv2.CAP_V4L2), (0, cv2.CAP_V4L2), ("clip.avi",)]
