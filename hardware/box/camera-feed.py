"""The box's USB camera's picture: the simulated table's frames written to the box's
v4l2loopback device (camera.service loads it), which the table then reads as it reads a
USB camera plugged into a Pi, through OpenCV's V4L2 capture.

It negotiates the picture with the device as a camera's driver would offer it: a V4L2
output format (VIDIOC_S_FMT on the output side) of YUYV, which OpenCV's V4L2 capture
reads, at the size the table's config asks for (``[camera] source``'s width and height,
e.g. ``usb:/dev/video0,width=1280,height=720``). The device was loaded with
``exclusive_caps=1``, so it shows itself to readers as a capture device only once this
program has set that format, as a camera shows up once plugged in.

What the camera sees is a script of the synthetic table (table_controller/vision/
synthetic.py, ``script_from_json``'s JSON: scenes of cards by zone or position), kept in
a file the test rewrites: its scenes are shown in order (each for its ``frames``) and the
last one held; a new script is shown from its first scene as soon as the file changes.
No file yet: the empty mat. Run in the box with the table's own environment, which holds
the renderer: ``/opt/table-controller/.venv/bin/python camera-feed.py`` (box.sh installs
it with box-camera-feed.service, which the test starts and stops).
"""

from __future__ import annotations

import argparse
import fcntl
import os
import struct
import sys
import time
import tomllib
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from table_controller.vision.camera import CameraError, parse_spec
from table_controller.vision.synthetic import Camera, Scene, Step, TableRenderer, load_script

# linux/videodev2.h, for a 64-bit kernel: struct v4l2_capability is 104 bytes, struct
# v4l2_format 208 (its union is 8-byte aligned: it holds a pointer).
VIDIOC_QUERYCAP = 0x80685600  # _IOR('V', 0, struct v4l2_capability)
VIDIOC_S_FMT = 0xC0D05605  # _IOWR('V', 5, struct v4l2_format)
BUF_TYPE_VIDEO_OUTPUT = 2
FIELD_NONE = 1
COLORSPACE_SRGB = 8
PIX_FMT_YUYV = int.from_bytes(b"YUYV", "little")
FORMAT = struct.Struct("=I4x12I")  # type, then struct v4l2_pix_format's twelve fields
FORMAT_SIZE = 208


class FeedError(Exception):
    """What keeps the feed from running, and what to do."""


def wanted_size(config: Path | None, default: tuple[int, int]) -> tuple[int, int]:
    """The width and height the table's config asks of its camera (``[camera] source``'s
    options), or ``default`` where it names none."""
    if config is None:
        return default
    try:
        source = tomllib.loads(config.read_text())["camera"]["source"]
        spec = parse_spec(str(source))
    except (OSError, KeyError, tomllib.TOMLDecodeError, CameraError) as exc:
        raise FeedError(f"could not read the camera's size from {config} ({exc})") from None
    try:
        width = int(spec.options.get("width", default[0]))
        height = int(spec.options.get("height", default[1]))
    except ValueError:
        raise FeedError(f"{config}: the camera's width and height are not numbers") from None
    return width, height


def negotiate(fd: int, device: str, width: int, height: int) -> int:
    """Offers the device YUYV pictures of ``width`` x ``height``; the bytes of one picture,
    as the device agreed. Fails in words when the device is not a loopback's output or
    does not take the format."""
    caps = bytearray(104)
    try:
        fcntl.ioctl(fd, VIDIOC_QUERYCAP, caps)
    except OSError as exc:
        raise FeedError(f"{device} is not a video device ({exc.strerror})") from None
    driver = bytes(caps[:16]).split(b"\0")[0].decode(errors="replace")
    if driver != "v4l2 loopback":
        raise FeedError(
            f"{device} is a {driver} device, not the box's loopback camera (camera.service "
            "loads v4l2loopback as /dev/video0)"
        )
    line = width * 2
    fmt = bytearray(FORMAT_SIZE)
    FORMAT.pack_into(
        fmt, 0, BUF_TYPE_VIDEO_OUTPUT,
        width, height, PIX_FMT_YUYV, FIELD_NONE, line, line * height, COLORSPACE_SRGB,
        0, 0, 0, 0, 0,
    )  # fmt: skip
    try:
        fcntl.ioctl(fd, VIDIOC_S_FMT, fmt)
    except OSError as exc:
        raise FeedError(
            f"{device} refused YUYV pictures of {width}x{height} ({exc.strerror}): another "
            "program may be feeding it already (`fuser -v " + device + "`)"
        ) from None
    agreed = FORMAT.unpack_from(fmt, 0)
    got_w, got_h, pixels, size = agreed[1], agreed[2], agreed[3], agreed[6]
    if (got_w, got_h, pixels) != (width, height, PIX_FMT_YUYV):
        got = pixels.to_bytes(4, "little").decode(errors="replace")
        raise FeedError(
            f"{device} offered {got} pictures of {got_w}x{got_h}, not YUYV of "
            f"{width}x{height}: reload the module (sudo modprobe -r v4l2loopback; "
            "sudo modprobe v4l2loopback) and start the feed first"
        )
    return int(size) or line * height


def yuyv(image: np.ndarray) -> bytes:
    """A BGR picture as YUYV 4:2:2, in the coefficients OpenCV's own YUYV reading uses
    (BT.601, video range): through its I420 conversion, the chroma rows doubled."""
    h, w = image.shape[:2]
    i420 = cv2.cvtColor(image, cv2.COLOR_BGR2YUV_I420)
    y = i420[:h]
    u = i420[h : h + h // 4].reshape(h // 2, w // 2).repeat(2, axis=0)
    v = i420[h + h // 4 :].reshape(h // 2, w // 2).repeat(2, axis=0)
    out = np.empty((h, w * 2), np.uint8)
    out[:, 0::4], out[:, 2::4] = y[:, 0::2], y[:, 1::2]
    out[:, 1::4], out[:, 3::4] = u, v
    return out.tobytes()


class Script:
    """The scenes the camera shows, from the script file, read again when it changes."""

    def __init__(self, path: Path, size: tuple[int, int]) -> None:
        self.path = path
        self.size = size
        self.stamp: tuple[float, int] | None = None
        self.steps: list[Step] = [Step(Scene(camera=self._sized(Camera())))]
        self.schedule: list[int] = [0]
        self.pos = 0

    def _sized(self, camera: Camera) -> Camera:
        return replace(camera, width=self.size[0], height=self.size[1])

    def changed(self) -> bool:
        """Reads the file again if it changed; True when the script is a new one."""
        try:
            info = self.path.stat()
        except FileNotFoundError:
            return False
        stamp = (info.st_mtime, info.st_size)
        if stamp == self.stamp:
            return False
        self.stamp = stamp
        try:
            steps = load_script(self.path)
        except ValueError as exc:  # a half-written or wrong file: the picture stays
            print(f"camera feed: {exc}; still showing the last scene", flush=True)
            return False
        self.steps = [
            replace(s, scene=replace(s.scene, camera=self._sized(s.scene.camera))) for s in steps
        ]
        self.schedule = [i for i, s in enumerate(self.steps) for _ in range(max(1, s.frames))]
        self.pos = 0
        return True

    def next_step(self) -> int:
        """The step to show now: each for its frames, then the last one held."""
        step = self.schedule[min(self.pos, len(self.schedule) - 1)]
        self.pos += 1
        return step


def run(device: str, script: Script, fps: float) -> None:
    if not Path(device).exists():
        raise FeedError(
            f"no {device}: the box's camera is unplugged (sudo modprobe v4l2loopback plugs it "
            "back; camera.service does it at boot)"
        )
    try:
        fd = os.open(device, os.O_RDWR)
    except OSError as exc:
        raise FeedError(f"could not open {device} ({exc.strerror}): run as root") from None
    try:
        size = negotiate(fd, device, *script.size)
        print(
            f"camera feed: {device} shows YUYV {script.size[0]}x{script.size[1]} at {fps:g} "
            f"frames a second, the scenes of {script.path}",
            flush=True,
        )
        renderer = TableRenderer()
        pictures: dict[int, bytes] = {}  # by step: a clean scene renders the same each time
        shown = -1
        period = 1.0 / fps
        due = time.monotonic()
        while True:
            if script.changed():
                pictures.clear()
            step = script.next_step()
            if step not in pictures:
                scene = script.steps[step].scene
                pictures[step] = yuyv(renderer.render(scene, seed=scene.seed).image)
            picture = pictures[step]
            if len(picture) != size:
                raise FeedError(f"{device} wants {size} bytes a picture, not {len(picture)}")
            try:
                os.write(fd, picture)
            except OSError as exc:
                raise FeedError(
                    f"writing to {device} failed ({exc.strerror}): was it unplugged?"
                ) from None
            if step != shown:  # said once written: readers may open the device now
                cards = " ".join(str(c.card) for c in script.steps[step].scene.cards) or "none"
                print(
                    f"camera feed: scene {step + 1} of {len(script.steps)}, cards {cards}",
                    flush=True,
                )
                shown = step
            due += period
            time.sleep(max(0.0, due - time.monotonic()))
            due = max(due, time.monotonic() - period)  # fell behind: no burst to catch up
    finally:
        os.close(fd)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="/dev/video0", help="the loopback device")
    parser.add_argument("--scene", type=Path, required=True, help="the script file (JSON)")
    parser.add_argument(
        "--config", type=Path, help="the table's config: its camera's width and height"
    )
    parser.add_argument("--fps", type=float, default=5.0, help="pictures a second (5)")
    args = parser.parse_args(argv)
    try:
        if args.fps <= 0:
            raise FeedError(f"--fps {args.fps}: give a number of pictures a second above 0")
        size = wanted_size(args.config, (1280, 720))
        if size[0] % 2 or size[1] % 2:
            raise FeedError(f"a camera's size of {size[0]}x{size[1]}: YUYV needs even numbers")
        run(args.device, Script(args.scene, size), args.fps)
    except FeedError as exc:
        print(f"camera feed failed: {exc}", file=sys.stderr, flush=True)
        return 1
    except KeyboardInterrupt:
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
