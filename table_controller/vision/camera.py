"""Camera sources behind one interface, chosen by configuration, never by editing code.

A source is an iterator of :class:`Frame` (index, timestamp in seconds, BGR image) with
``close()``; use it in a ``with`` block. :func:`open_camera` builds one from a spec
string (the ``--camera`` option, or the ``TABLE_CONTROLLER_CAMERA`` environment
variable), the way gpiozero picks its pin factory:

=====================================  ================================================
``picamera2`` / ``picamera2:1``        the Raspberry Pi camera (number 0 or 1)
``usb:0`` / ``usb:/dev/video2``        a USB camera through OpenCV (index or device)
``video:game.avi``                     a video file
``folder:recordings/game1``            an image folder, sorted (a recorded session)
``synthetic`` / ``synthetic:FILE``     the synthetic table: a demo deal, or a script
=====================================  ================================================

Options follow after commas: ``usb:0,width=1920,height=1080,fps=30``,
``folder:DIR,loop=true,realtime=true``, ``synthetic,seed=3,effects=harsh``,
``synthetic,model=pi3-wide`` (a camera model of :mod:`optics`); ``limit=N``
stops any source after N frames. A bare path or number works too: a directory is a
folder, a file a video (or a single picture), a number or ``/dev/video*`` a USB camera.

Timestamps are seconds from the start of the source: since it was opened for live
cameras, the position in the recording for videos and folders (a folder written by
:func:`record` keeps the times it was recorded at), index / fps for the synthetic table.
"""

from __future__ import annotations

import csv
import importlib
import os
import re
import sys
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import cv2
import numpy as np
import numpy.typing as npt

from table_controller.closing import Closing
from table_controller.errors import TableControllerError
from table_controller.vision.picture import (
    MAX_PIXELS,
    PICTURE_SUFFIXES,
    PictureError,
    picture_size,
    read_picture,
)

Image = npt.NDArray[np.uint8]
N = TypeVar("N", int, float)

ENV = "TABLE_CONTROLLER_CAMERA"
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")
TIMESTAMPS = "timestamps.csv"
KINDS_HELP = "picamera2, usb:0, video:FILE, folder:DIR or synthetic"


class CameraError(TableControllerError, RuntimeError):
    """A camera that cannot be opened or read, and what to do about it."""


@dataclass(frozen=True, eq=False)
class Frame:
    """One picture from a source."""

    index: int
    timestamp: float  # seconds from the start of the source
    image: Image  # BGR, uint8
    name: str = ""  # the file it came from, for folders
    truth: Any = None  # the synthetic table's ground truth (synthetic.Rendered)
    # The brightness plane, when the camera delivers one (the Pi camera's YUV stream):
    # what the card reader reads, with no conversion.
    grey: Image | None = None

    @property
    def size(self) -> tuple[int, int]:
        h, w = self.image.shape[:2]
        return (w, h)


class FrameSource(Closing, ABC):
    """Frames from somewhere. Iterate it (it continues where it stopped), or ``read()``
    one frame (None at the end); ``close()`` when done, or use ``with``."""

    name: str = "camera"

    def __init__(self, *, limit: int | None = None, realtime: bool = False) -> None:
        self.limit = limit
        self.realtime = realtime
        self.index = 0
        self._closed = False
        self._start: float | None = None

    @abstractmethod
    def _next(self) -> Frame | None:
        """The next frame (numbered ``self.index``), or None at the end."""

    def read(self) -> Frame | None:
        if self._closed:
            raise CameraError(f"camera {self.name} is closed")
        if self.limit is not None and self.index >= self.limit:
            return None
        frame = self._next()
        if frame is None:
            return None
        if self.realtime:
            if self._start is None:
                self._start = time.monotonic() - frame.timestamp
            wait = self._start + frame.timestamp - time.monotonic()
            if wait > 0:
                time.sleep(wait)
        self.index += 1
        return frame

    def __iter__(self) -> Iterator[Frame]:
        while (frame := self.read()) is not None:
            yield frame

    def close(self) -> None:
        self._closed = True

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


# --- image folders ------------------------------------------------------------------


def _natural(name: str) -> list[Any]:
    """Sort key: frame2 before frame10."""
    return [int(t) if t.isdigit() else t.lower() for t in re.split(r"(\d+)", name)]


def _read_image(path: Path) -> Image:
    try:
        return read_picture(path)
    except PictureError as exc:
        raise CameraError(str(exc)) from None


class FolderSource(FrameSource):
    """The pictures in a folder, in natural name order (or one picture file). The times
    come from the folder's ``timestamps.csv`` when :func:`record` wrote one, else
    index / fps."""

    def __init__(
        self,
        path: str | Path,
        *,
        fps: float = 30.0,
        loop: bool = False,
        limit: int | None = None,
        realtime: bool = False,
    ) -> None:
        super().__init__(limit=limit, realtime=realtime)
        p = Path(path)
        self.name = f"folder:{p}"
        if p.is_file():
            if p.suffix.lower() not in IMAGE_SUFFIXES:
                raise CameraError(
                    f"{p} is not a picture ({', '.join(IMAGE_SUFFIXES)}); for a video use video:{p}"
                )
            self.files = [p]
        elif p.is_dir():
            self.files = sorted(
                (f for f in p.iterdir() if f.suffix.lower() in IMAGE_SUFFIXES and f.is_file()),
                key=lambda f: _natural(f.name),
            )
            if not self.files:
                raise CameraError(
                    f"no pictures in {p} (looked for {', '.join(IMAGE_SUFFIXES)} files)"
                )
        else:
            raise CameraError(f"no such folder: {p} (check the path)")
        if fps <= 0:
            raise CameraError(f"fps must be positive, not {fps}")
        self.fps = fps
        self.loop = loop
        self.times = self._timestamps(p) if p.is_dir() else {}
        self._pos = 0

    @staticmethod
    def _timestamps(folder: Path) -> dict[str, float]:
        table = folder / TIMESTAMPS
        if not table.exists():
            return {}
        try:
            with table.open(newline="") as fh:
                return {row["file"]: float(row["timestamp"]) for row in csv.DictReader(fh)}
        except (OSError, KeyError, ValueError, csv.Error) as exc:
            raise CameraError(
                f"{table} is damaged ({exc}): fix it or delete it to replay at a fixed rate"
            ) from None

    def _next(self) -> Frame | None:
        if self._pos >= len(self.files):
            if not self.loop:
                return None
            self._pos = 0
        path = self.files[self._pos]
        lap = self.index // len(self.files)
        if path.name in self.times:
            span = max(self.times.values()) + 1.0 / self.fps
            stamp = self.times[path.name] + lap * span
        else:
            stamp = self.index / self.fps
        self._pos += 1
        return Frame(self.index, stamp, _read_image(path), path.name)


def record(
    frames: Iterable[Frame], folder: str | Path, *, limit: int | None = None, fmt: str = "png"
) -> int:
    """Write frames to a folder as ``frame-000000.png``... with ``timestamps.csv``, so a
    :class:`FolderSource` replays them exactly. Returns how many were written."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    n = 0
    with (out / TIMESTAMPS).open("w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["file", "index", "timestamp"])
        for frame in frames:
            if limit is not None and n >= limit:
                break
            name = f"frame-{frame.index:06d}.{fmt}"
            ok, buf = cv2.imencode("." + fmt, frame.image)
            if not ok:
                raise CameraError(f"could not encode a frame as {fmt}")
            (out / name).write_bytes(buf.tobytes())
            writer.writerow([name, frame.index, f"{frame.timestamp:.6f}"])
            n += 1
    return n


# --- video files and OpenCV cameras -------------------------------------------------


class VideoSource(FrameSource):
    """A video file, read with OpenCV (MJPG .avi and H.264 .mp4 work here)."""

    def __init__(
        self,
        path: str | Path,
        *,
        loop: bool = False,
        limit: int | None = None,
        realtime: bool = False,
    ) -> None:
        super().__init__(limit=limit, realtime=realtime)
        self.path = Path(path)
        self.name = f"video:{self.path}"
        if not self.path.exists():
            raise CameraError(f"no such video: {self.path} (check the path)")
        if self.path.is_dir():
            raise CameraError(f"{self.path} is a folder: for pictures use folder:{self.path}")
        self.loop = loop
        if self.path.suffix.lower() in PICTURE_SUFFIXES:  # OpenCV would decode it at once
            try:
                picture_size(self.path)
            except PictureError as exc:
                raise CameraError(str(exc)) from None
        self._open()
        fps = float(self.capture.get(cv2.CAP_PROP_FPS) or 0.0)
        self.fps = fps if fps > 0 else 30.0
        self._pos = 0

    def _open(self) -> None:
        self.capture = cv2.VideoCapture(str(self.path))
        if not self.capture.isOpened():
            self.capture.release()
            raise CameraError(
                f"could not read the video {self.path}: it is damaged or in a format OpenCV "
                "cannot decode here (MJPG .avi and H.264 .mp4 work)"
            )
        width = int(self.capture.get(cv2.CAP_PROP_FRAME_WIDTH) or 0)
        height = int(self.capture.get(cv2.CAP_PROP_FRAME_HEIGHT) or 0)
        if width * height > MAX_PIXELS:
            self.capture.release()
            raise CameraError(
                f"the video {self.path} is {width}x{height}; a table camera's frames have at "
                f"most {MAX_PIXELS:,} pixels: use a recording from the table's camera"
            )

    def _next(self) -> Frame | None:
        ok, img = self.capture.read()
        if not ok:
            if not self.loop or self._pos == 0:
                return None
            self.capture.release()
            self._open()
            ok, img = self.capture.read()
            if not ok:
                return None
        self._pos += 1
        return Frame(self.index, self.index / self.fps, np.asarray(img))

    def close(self) -> None:
        self.capture.release()
        super().close()


_VIDEO_NODE = re.compile(r"/dev/video(\d+)")


def v4l2_index(device: int | str) -> int | None:
    """The V4L2 device number of ``device``: an index, or a path to /dev/videoN (through
    its links, such as /dev/v4l/by-id/...); None for anything else (a URL, a file)."""
    if isinstance(device, int):
        return device
    match = _VIDEO_NODE.fullmatch(os.path.realpath(device)) if device.startswith("/dev/") else None
    return int(match.group(1)) if match else None


def open_capture(device: int | str) -> Any:
    """OpenCV's capture of ``device``. On Linux a camera (an index or a /dev/video path)
    is opened through OpenCV's V4L2 backend itself: given a path, OpenCV tries FFmpeg
    first, which reads the device node as a file, and on a camera that sends nothing
    (plugged in but stalled) that read never returns: the table would hold the camera
    forever, and never see it unplugged."""
    index = v4l2_index(device)
    if index is not None and sys.platform.startswith("linux"):
        return cv2.VideoCapture(index, cv2.CAP_V4L2)
    return cv2.VideoCapture(device)


class OpenCVSource(FrameSource):
    """A camera through OpenCV's capture: a USB webcam by index (0, 1...) or device path
    (/dev/video0)."""

    def __init__(
        self,
        device: int | str = 0,
        *,
        width: int | None = None,
        height: int | None = None,
        fps: float | None = None,
        fourcc: str | None = "MJPG",
        limit: int | None = None,
        capture: Callable[..., Any] | None = None,
    ) -> None:
        super().__init__(limit=limit)
        self.name = f"usb:{device}"
        opener = capture or open_capture
        if isinstance(device, str) and device.startswith("/dev/") and not Path(device).exists():
            raise CameraError(
                f"no camera at {device}: it is unplugged, or the config names another device; "
                "plug it in (`ls /dev/video*` lists the cameras the system sees)"
            )
        self.capture = opener(device)
        if not self.capture.isOpened():
            self.capture.release()
            raise CameraError(
                f"could not open camera {self.name}: check it is plugged in (`ls /dev/video*` "
                "lists the cameras), that no other program is using it, and that this user "
                "may (`sudo usermod -aG video $USER`, then log in again)"
            )
        if fourcc:
            self.capture.set(cv2.CAP_PROP_FOURCC, cv2.VideoWriter.fourcc(*fourcc[:4]))
        if width:
            self.capture.set(cv2.CAP_PROP_FRAME_WIDTH, width)
        if height:
            self.capture.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
        if fps:
            self.capture.set(cv2.CAP_PROP_FPS, fps)
        self.wanted = (width, height)
        self._t0 = time.monotonic()

    def _next(self) -> Frame | None:
        ok, img = self.capture.read()
        if not ok or img is None:
            if self.index == 0:
                raise CameraError(
                    f"camera {self.name} opened but gave no picture: another program may be "
                    "using it, or it does not support the size asked for"
                )
            raise CameraError(f"camera {self.name} stopped giving pictures: check its cable")
        w, h = self.wanted
        if self.index == 0 and w and h and (img.shape[1], img.shape[0]) != (w, h):
            self.close()
            raise CameraError(
                f"camera {self.name} gives {img.shape[1]}x{img.shape[0]} pictures, not the "
                f"{w}x{h} asked for: ask for a size it supports "
                "(`v4l2-ctl --list-formats-ext` lists them)"
            )
        return Frame(self.index, time.monotonic() - self._t0, np.asarray(img))

    def close(self) -> None:
        self.capture.release()
        super().close()


# --- the Raspberry Pi camera --------------------------------------------------------

PICAMERA2_HELP = (
    "The picamera2 camera runs on a Raspberry Pi with its camera module, and picamera2 "
    "is not installed here. On the Pi (Raspberry Pi OS Bookworm): "
    "`sudo apt install -y python3-picamera2`, and create the virtualenv with "
    "`python3 -m venv --system-site-packages .venv` so it sees that package. On another "
    f"computer choose a different camera: {KINDS_HELP}."
)


class Picamera2Source(FrameSource):
    """The Raspberry Pi camera through picamera2 (imported only when used)."""

    def __init__(
        self,
        camera_num: int = 0,
        *,
        width: int = 1280,
        height: int = 720,
        fps: float | None = None,
        lens_position: float | None = None,
        exposure_us: int | None = None,
        gain: float | None = None,
        limit: int | None = None,
    ) -> None:
        super().__init__(limit=limit)
        self.name = f"picamera2:{camera_num}"
        try:
            picamera2 = importlib.import_module("picamera2")
        except ImportError:
            raise CameraError(PICAMERA2_HELP) from None
        try:
            self.camera = picamera2.Picamera2(camera_num)
        except (IndexError, RuntimeError, OSError) as exc:
            raise CameraError(
                f"no Raspberry Pi camera {camera_num} found ({exc}): check the ribbon cable "
                "(contacts the right way round, pushed fully in) and that `rpicam-hello "
                "--list-cameras` lists it"
            ) from None
        controls: dict[str, Any] = {}
        if fps:
            controls["FrameRate"] = float(fps)
        if lens_position is not None:
            controls.update(AfMode=0, LensPosition=float(lens_position))  # manual focus
        if exposure_us is not None:
            controls.update(AeEnable=False, ExposureTime=int(exposure_us))
        if gain is not None:
            controls["AnalogueGain"] = float(gain)
        # "RGB888" gives pixels in B, G, R order: what OpenCV expects (for evidence and
        # the annotated view). The "lores" YUV420 stream of the same size is what the
        # reader reads: its first plane is the grey picture, made by the camera's ISP
        # for free. Cameras that cannot give both run on the colour stream alone.
        main = {"size": (width, height), "format": "RGB888"}
        lores = {"size": (width, height), "format": "YUV420"}
        self._lores = True
        try:
            try:
                config = self.camera.create_video_configuration(
                    main=main, lores=lores, controls=controls
                )
                self.camera.configure(config)
            except Exception:  # picamera2 raises many kinds
                self._lores = False
                config = self.camera.create_video_configuration(main=main, controls=controls)
                self.camera.configure(config)
            self.camera.start()
        except Exception as exc:  # picamera2 raises many kinds
            self.camera.close()
            raise CameraError(
                f"the Raspberry Pi camera would not start at {width}x{height} ({exc}): try "
                "another size (1280x720, 1920x1080, 2304x1296 on Camera Module 3)"
            ) from None
        self._height = height
        self._t0: float | None = None

    def _next(self) -> Frame | None:
        request = self.camera.capture_request()
        try:
            img = np.array(request.make_array("main"))[..., :3]
            grey = None
            if self._lores:  # I420: the Y plane is the first ``height`` rows
                grey = np.array(request.make_array("lores")[: self._height])
            meta = request.get_metadata()
        finally:
            request.release()
        sensor = meta.get("SensorTimestamp")
        now = sensor / 1e9 if sensor is not None else time.monotonic()
        if self._t0 is None:
            self._t0 = now
        return Frame(self.index, now - self._t0, np.ascontiguousarray(img), grey=grey)

    def close(self) -> None:
        try:
            self.camera.stop()
            self.camera.close()
        finally:
            super().close()


# --- the synthetic table ------------------------------------------------------------


class SyntheticSource(FrameSource):
    """The synthetic table playing a script of scenes; each frame carries its truth."""

    def __init__(
        self,
        steps: Sequence[Any] | None = None,
        *,
        fps: float = 30.0,
        loop: bool = False,
        seed: int = 0,
        marker_family: str = "aruco",
        limit: int | None = None,
        realtime: bool = False,
    ) -> None:
        from table_controller.vision import synthetic

        super().__init__(limit=limit, realtime=realtime)
        self.name = "synthetic"
        self.steps = list(steps) if steps is not None else synthetic.demo_script(seed)
        if not self.steps:
            raise CameraError("the synthetic table's script has no scenes")
        self.renderer = synthetic.TableRenderer(marker_family)
        self.fps = fps
        self.loop = loop
        self.seed = seed
        self._schedule = [i for i, s in enumerate(self.steps) for _ in range(max(1, s.frames))]
        self._pos = 0

    def _next(self) -> Frame | None:
        if self._pos >= len(self._schedule):
            if not self.loop:
                return None
            self._pos = 0
        step = self.steps[self._schedule[self._pos]]
        self._pos += 1
        # Fresh noise every frame, the same on every run.
        rendered = self.renderer.render(step.scene, seed=step.scene.seed * 100003 + self.index)
        return Frame(self.index, self.index / self.fps, rendered.image, truth=rendered)


# --- the factory --------------------------------------------------------------------


@dataclass(frozen=True)
class CameraSpec:
    """A parsed camera spec: kind, target (index, path...) and options."""

    kind: str
    target: str = ""
    options: dict[str, str] = field(default_factory=dict)

    def __str__(self) -> str:
        text = self.kind + (f":{self.target}" if self.target else "")
        return ",".join([text, *(f"{k}={v}" for k, v in self.options.items())])


class _Options:
    """Typed access to a spec's options, each consumed once; leftovers are errors."""

    def __init__(self, spec: CameraSpec) -> None:
        self.spec = spec
        self.left = dict(spec.options)

    def _get(self, key: str) -> str | None:
        return self.left.pop(key, None)

    def _bad(self, key: str, value: str, what: str) -> CameraError:
        return CameraError(f"camera {self.spec}: {key}={value!r} should be {what}")

    def int(self, key: str, default: int | None = None) -> int | None:
        return self._number(key, default, int, "a whole number")

    def float(self, key: str, default: float | None = None) -> float | None:
        return self._number(key, default, float, "a number")

    def _number(self, key: str, default: N | None, kind: Callable[[str], N], what: str) -> N | None:
        v = self._get(key)
        if v is None:
            return default
        try:
            return kind(v)
        except ValueError:
            raise self._bad(key, v, what) from None

    def bool(self, key: str, default: bool = False) -> bool:
        v = self._get(key)
        if v is None:
            return default
        if v.lower() in ("1", "true", "yes", "on"):
            return True
        if v.lower() in ("0", "false", "no", "off"):
            return False
        raise self._bad(key, v, "true or false")

    def str(self, key: str, default: str | None = None) -> str | None:
        v = self._get(key)
        return default if v is None else v

    def done(self) -> None:
        if self.left:
            raise CameraError(
                f"camera {self.spec}: unknown option(s) {', '.join(sorted(self.left))}"
            )


def _picamera2(spec: CameraSpec) -> FrameSource:
    o = _Options(spec)
    num = int(spec.target) if spec.target.isdigit() else 0
    if spec.target and not spec.target.isdigit():
        raise CameraError(f"camera {spec}: picamera2 takes a camera number (0 or 1)")
    src = Picamera2Source(
        num,
        width=o.int("width", 1280) or 1280,
        height=o.int("height", 720) or 720,
        fps=o.float("fps"),
        lens_position=o.float("lens_position"),
        exposure_us=o.int("exposure_us"),
        gain=o.float("gain"),
        limit=o.int("limit"),
    )
    o.done()
    return src


def _usb(spec: CameraSpec) -> FrameSource:
    o = _Options(spec)
    target = spec.target or "0"
    device: int | str = int(target) if target.isdigit() else target
    kw = dict(
        width=o.int("width"),
        height=o.int("height"),
        fps=o.float("fps"),
        fourcc=o.str("fourcc", "MJPG"),
        limit=o.int("limit"),
    )
    o.done()
    return OpenCVSource(device, **kw)  # type: ignore[arg-type]


def _video(spec: CameraSpec) -> FrameSource:
    if not spec.target:
        raise CameraError("video needs a file: video:PATH")
    o = _Options(spec)
    kw = dict(loop=o.bool("loop"), limit=o.int("limit"), realtime=o.bool("realtime"))
    o.done()
    return VideoSource(spec.target, **kw)  # type: ignore[arg-type]


def _folder(spec: CameraSpec) -> FrameSource:
    if not spec.target:
        raise CameraError("folder needs a directory: folder:PATH")
    o = _Options(spec)
    kw = dict(
        fps=o.float("fps", 30.0),
        loop=o.bool("loop"),
        limit=o.int("limit"),
        realtime=o.bool("realtime"),
    )
    o.done()
    return FolderSource(spec.target, **kw)  # type: ignore[arg-type]


def _synthetic(spec: CameraSpec) -> FrameSource:
    from dataclasses import replace

    from table_controller.vision import synthetic

    o = _Options(spec)
    seed = o.int("seed", 0) or 0
    effects = o.str("effects")
    fam = o.str("family", "aruco") or "aruco"
    model = o.str("model")
    kw = dict(
        fps=o.float("fps", 30.0),
        loop=o.bool("loop"),
        limit=o.int("limit"),
        realtime=o.bool("realtime"),
    )
    o.done()
    try:
        steps = synthetic.load_script(spec.target) if spec.target else synthetic.demo_script(seed)
        if effects is not None:
            fx = synthetic.effects_from(effects)
            steps = [replace(s, scene=replace(s.scene, effects=fx)) for s in steps]
        if model is not None:
            steps = _with_model(steps, model)
    except ValueError as exc:
        raise CameraError(str(exc)) from None
    return SyntheticSource(steps, seed=seed, marker_family=fam, **kw)  # type: ignore[arg-type]


def _with_model(steps: list[Any], model: str) -> list[Any]:
    """The script seen through a camera model (``optics.PRESETS``): its sensor, and its
    lens mounted where each scene's camera hangs (as high as the lens needs to see the
    whole mat)."""
    from dataclasses import replace

    from table_controller.vision import optics

    sensor = optics.preset(model)
    cameras: dict[Any, Any] = {}
    out = []
    for step in steps:
        cam = step.scene.camera
        if sensor.hfov_deg is not None:
            if cam not in cameras:
                cameras[cam] = optics.camera_for(
                    sensor, cam.size, offset=cam.position[:2], roll_deg=cam.roll_deg
                )
            cam = cameras[cam]
        out.append(replace(step, scene=replace(step.scene, camera=cam, sensor=sensor)))
    return out


SOURCES: dict[str, Callable[[CameraSpec], FrameSource]] = {
    "picamera2": _picamera2,
    "usb": _usb,
    "opencv": _usb,
    "video": _video,
    "folder": _folder,
    "image": _folder,
    "synthetic": _synthetic,
}


def register_source(kind: str, factory: Callable[[CameraSpec], FrameSource]) -> None:
    """Add a kind of source (a plug-in camera) to the factory."""
    SOURCES[kind] = factory


_OPTION = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


def parse_spec(text: str) -> CameraSpec:
    """``kind[:target][,key=value...]``, or a bare path or camera number."""
    raw = text.strip()
    if not raw:
        raise CameraError(f"empty camera spec: choose one of {KINDS_HELP}")
    parts = raw.split(",")
    head = [parts[0]]
    options: dict[str, str] = {}
    for part in parts[1:]:
        if _OPTION.match(part.strip()):
            key, _, value = part.strip().partition("=")
            options[key] = value
        elif options:
            raise CameraError(f"camera {raw!r}: {part!r} is not a key=value option")
        else:
            head.append(part)
    first = ",".join(head)
    kind, sep, target = first.partition(":")
    if sep and kind in SOURCES:
        return CameraSpec(kind, target, options)
    if not sep and first in SOURCES:
        return CameraSpec(first, "", options)
    # A bare number, device, directory or file.
    if first.isdigit() or first.startswith("/dev/video"):
        return CameraSpec("usb", first, options)
    p = Path(first)
    if p.is_dir():
        return CameraSpec("folder", first, options)
    if p.suffix.lower() in IMAGE_SUFFIXES:
        return CameraSpec("folder", first, options)
    if p.exists() or p.suffix:
        return CameraSpec("video", first, options)
    raise CameraError(f"unknown camera {raw!r}: choose one of {KINDS_HELP}")


def _on_a_pi() -> bool:
    try:
        return "raspberry pi" in Path("/proc/device-tree/model").read_text().lower()
    except OSError:
        return False


def open_camera(spec: str | CameraSpec | Mapping[str, Any] | None = None) -> FrameSource:
    """A frame source from a spec string (see the module's doc), a :class:`CameraSpec`,
    or a mapping such as ``{"kind": "usb", "target": 0, "width": 1280}``. With none,
    the ``TABLE_CONTROLLER_CAMERA`` environment variable, else the Pi camera on a
    Raspberry Pi."""
    if spec is None:
        spec = os.environ.get(ENV) or None
    if spec is None:
        if _on_a_pi():
            spec = "picamera2"
        else:
            raise CameraError(
                "no camera chosen, and this machine is not a Raspberry Pi, so there is no "
                f"Pi camera to use: pass --camera (or set {ENV}) to one of {KINDS_HELP} "
                "(synthetic tries it without a camera)"
            )
    if isinstance(spec, Mapping):
        doc = {str(k): v for k, v in spec.items()}
        kind = str(doc.pop("kind", doc.pop("source", "")))
        if kind not in SOURCES:
            raise CameraError(
                f"unknown camera kind {kind!r}: kinds are {', '.join(sorted(SOURCES))}"
            )
        target = doc.pop("target", doc.pop("device", doc.pop("path", "")))
        options = {k: (str(v).lower() if isinstance(v, bool) else str(v)) for k, v in doc.items()}
        spec = CameraSpec(kind, str(target), options)
    elif isinstance(spec, str):
        spec = parse_spec(spec)
    return SOURCES[spec.kind](spec)


__all__ = [
    "ENV",
    "CameraError",
    "CameraSpec",
    "FolderSource",
    "Frame",
    "FrameSource",
    "OpenCVSource",
    "Picamera2Source",
    "SyntheticSource",
    "VideoSource",
    "open_camera",
    "open_capture",
    "parse_spec",
    "record",
    "register_source",
    "v4l2_index",
]
