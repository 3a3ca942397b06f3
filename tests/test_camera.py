"""Camera sources: one interface, chosen by a spec; folders, videos and the synthetic
table yield the expected frames; bad paths and devices give clear errors."""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from table_controller.vision import camera as camera_mod
from table_controller.vision.camera import (
    ENV,
    CameraError,
    CameraSpec,
    FolderSource,
    Frame,
    FrameSource,
    OpenCVSource,
    SyntheticSource,
    VideoSource,
    open_camera,
    parse_spec,
    record,
    register_source,
)
from table_controller.vision.synthetic import CardPlacement, Scene, Step


def picture(i: int, size: tuple[int, int] = (64, 48)) -> np.ndarray:
    """A distinct picture for frame i."""
    w, h = size
    img = np.zeros((h, w, 3), np.uint8)
    img[:] = (i * 20 % 256, 255 - i * 20 % 256, 100)
    cv2.putText(img, str(i), (5, 30), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (255, 255, 255), 2)
    return img


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    d = tmp_path / "shots"
    d.mkdir()
    for i in (1, 2, 10, 3):  # natural order: 1 2 3 10
        cv2.imwrite(str(d / f"shot{i}.png"), picture(i))
    (d / "notes.txt").write_text("not a picture")
    return d


def test_folder_replays_in_natural_order(folder: Path) -> None:
    with open_camera(f"folder:{folder}") as src:
        frames = list(src)
    assert [f.name for f in frames] == ["shot1.png", "shot2.png", "shot3.png", "shot10.png"]
    assert [f.index for f in frames] == [0, 1, 2, 3]
    assert [f.timestamp for f in frames] == pytest.approx([0, 1 / 30, 2 / 30, 3 / 30])
    for f, i in zip(frames, (1, 2, 3, 10), strict=True):
        assert np.array_equal(f.image, picture(i)) and f.size == (64, 48)


def test_folder_options_and_reading_on(folder: Path) -> None:
    src = open_camera(f"{folder},fps=10,loop=true,limit=6")  # a bare directory is a folder
    assert isinstance(src, FolderSource)
    first = src.read()
    assert first is not None and first.name == "shot1.png"
    rest = list(src)  # iteration continues where reading stopped
    assert [f.name for f in rest] == [
        "shot2.png",
        "shot3.png",
        "shot10.png",
        "shot1.png",
        "shot2.png",
    ]
    assert rest[-1].timestamp == pytest.approx(0.5)
    assert src.read() is None
    src.close()
    with pytest.raises(CameraError, match="closed"):
        src.read()


def test_recorded_sessions_replay_exactly(tmp_path: Path) -> None:
    frames = [Frame(i, 0.25 + i * 0.04 + (0.01 if i == 3 else 0), picture(i)) for i in range(6)]
    assert record(frames, tmp_path / "rec") == 6
    with FolderSource(tmp_path / "rec") as src:
        back = list(src)
    assert [f.index for f in back] == list(range(6))
    assert [f.timestamp for f in back] == pytest.approx([f.timestamp for f in frames])
    for a, b in zip(frames, back, strict=True):
        assert np.array_equal(a.image, b.image)
    (tmp_path / "rec" / "timestamps.csv").write_text("file,index\nframe-000000.png,0\n")
    with pytest.raises(CameraError, match="timestamps.csv is damaged"):
        FolderSource(tmp_path / "rec")


def test_one_picture_is_a_source(tmp_path: Path) -> None:
    path = tmp_path / "table.png"
    cv2.imwrite(str(path), picture(7))
    with open_camera(str(path)) as src:
        frames = list(src)
    assert len(frames) == 1 and np.array_equal(frames[0].image, picture(7))


def test_folder_errors(tmp_path: Path) -> None:
    with pytest.raises(CameraError, match=r"no such folder: .*nowhere"):
        open_camera(f"folder:{tmp_path / 'nowhere'}")
    (tmp_path / "empty").mkdir()
    with pytest.raises(CameraError, match="no pictures in"):
        open_camera(f"folder:{tmp_path / 'empty'}")
    bad = tmp_path / "bad"
    bad.mkdir()
    cv2.imwrite(str(bad / "a.png"), picture(1))
    (bad / "b.png").write_bytes(b"\x89PNG broken")
    with FolderSource(bad) as src:
        assert src.read() is not None
        with pytest.raises(CameraError, match=r"b.png is not a picture"):
            src.read()
    text = tmp_path / "notes.txt"
    text.write_text("x")
    with pytest.raises(CameraError, match="not a picture"):
        FolderSource(text)


def write_video(path: Path, n: int = 6, fps: float = 10.0) -> list[np.ndarray]:
    """An MJPG .avi (the codec that works with opencv-python-headless here)."""
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), fps, (64, 48))
    assert writer.isOpened()
    images = [picture(i) for i in range(n)]
    for img in images:
        writer.write(img)
    writer.release()
    return images


def test_video_file(tmp_path: Path) -> None:
    path = tmp_path / "game.avi"
    images = write_video(path)
    with open_camera(f"video:{path}") as src:
        frames = list(src)
    assert isinstance(src, VideoSource) and src.fps == pytest.approx(10.0)
    assert [f.index for f in frames] == list(range(6))
    assert [f.timestamp for f in frames] == pytest.approx([i / 10 for i in range(6)])
    for f, img in zip(frames, images, strict=True):
        assert f.image.shape == img.shape
        assert np.abs(f.image.astype(int) - img.astype(int)).mean() < 8  # JPEG-compressed
    with open_camera(f"{path},loop=true,limit=9") as src:  # a bare file is a video
        again = list(src)
    assert len(again) == 9
    assert np.abs(again[6].image.astype(int) - frames[0].image.astype(int)).max() == 0


def test_video_errors(tmp_path: Path) -> None:
    with pytest.raises(CameraError, match=r"no such video: .*missing.avi"):
        open_camera(f"video:{tmp_path / 'missing.avi'}")
    fake = tmp_path / "fake.avi"
    fake.write_text("this is not a video")
    with pytest.raises(CameraError, match="could not read the video"):
        open_camera(f"video:{fake}")
    with pytest.raises(CameraError, match="is a folder"):
        VideoSource(tmp_path)


def test_synthetic_source_is_deterministic_and_carries_truth() -> None:
    with open_camera("synthetic,limit=4,seed=2") as a, open_camera("synthetic,limit=4,seed=2") as b:
        fa, fb = list(a), list(b)
    assert len(fa) == 4 and isinstance(a, SyntheticSource)
    for x, y in zip(fa, fb, strict=True):
        assert np.array_equal(x.image, y.image)
        assert x.image.shape == (720, 1280, 3) and x.truth is not None
    assert fa[1].timestamp == pytest.approx(1 / 30)
    assert not np.array_equal(fa[0].image, fa[1].image)  # fresh noise each frame


def test_synthetic_script(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(
        '{"scenes": [{"frames": 2, "cards": [{"card": "JH", "zone": "play:S"}]}, {"cards": []}]}'
    )
    with open_camera(f"synthetic:{script},effects=harsh") as src:
        frames = list(src)
    assert len(frames) == 3
    assert [c.code for c in frames[0].truth.cards] == ["JH"] and frames[2].truth.cards == ()
    steps = [Step(Scene((CardPlacement(frames[0].truth.cards[0].card, 0.0, 0.0),)), 1)]
    with SyntheticSource(steps, loop=True, limit=3) as src:
        assert len(list(src)) == 3
    script.write_text("{}")
    with pytest.raises(CameraError, match="not a valid synthetic table script"):
        open_camera(f"synthetic:{script}")
    with pytest.raises(CameraError, match="no synthetic table script"):
        open_camera(f"synthetic:{tmp_path / 'none.json'}")


def test_usb_camera_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(CameraError, match=r"no camera at /dev/video-none.*ls /dev/video"):
        open_camera("usb:/dev/video-none")

    class Closed:
        def __init__(self, device: Any) -> None:
            self.device = device

        def isOpened(self) -> bool:
            return False

        def release(self) -> None:
            pass

    with pytest.raises(CameraError, match=r"could not open camera usb:3.*plugged in"):
        OpenCVSource(3, capture=Closed)


def test_usb_camera_through_a_fake_capture() -> None:
    class Fake:
        def __init__(self, device: Any) -> None:
            self.n = 0
            self.props: dict[int, float] = {}

        def isOpened(self) -> bool:
            return True

        def set(self, prop: int, value: float) -> bool:
            self.props[prop] = value
            return True

        def read(self) -> tuple[bool, np.ndarray | None]:
            self.n += 1
            return (self.n <= 3, picture(self.n, (32, 24)) if self.n <= 3 else None)

        def release(self) -> None:
            pass

    src = OpenCVSource(0, width=32, height=24, capture=Fake)
    assert src.capture.props[cv2.CAP_PROP_FRAME_WIDTH] == 32
    frames = [src.read() for _ in range(3)]
    assert [f.index for f in frames if f] == [0, 1, 2]
    with pytest.raises(CameraError, match="stopped giving pictures"):
        src.read()
    wrong = OpenCVSource(0, width=640, height=480, capture=Fake)
    with pytest.raises(CameraError, match="gives 32x24 pictures, not the 640x480"):
        wrong.read()


def test_picamera2_missing_says_it_runs_on_a_pi(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "picamera2", None)  # import fails
    with pytest.raises(CameraError) as exc:
        open_camera("picamera2")
    message = str(exc.value)
    assert "Raspberry Pi" in message and "sudo apt install -y python3-picamera2" in message
    assert "usb:0" in message


def test_picamera2_through_a_fake_module(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[Any] = []

    class Request:
        def __init__(self, n: int) -> None:
            self.n = n

        def make_array(self, name: str) -> np.ndarray:
            return picture(self.n, (32, 24))

        def get_metadata(self) -> dict[str, Any]:
            return {"SensorTimestamp": 5_000_000_000 + self.n * 33_000_000}

        def release(self) -> None:
            calls.append("release")

    class Picamera2:
        def __init__(self, num: int) -> None:
            calls.append(("open", num))
            self.n = 0

        def create_video_configuration(self, **kw: Any) -> dict[str, Any]:
            calls.append(("config", kw))
            return kw

        def configure(self, config: Any) -> None:
            pass

        def start(self) -> None:
            calls.append("start")

        def capture_request(self) -> Request:
            self.n += 1
            return Request(self.n)

        def stop(self) -> None:
            calls.append("stop")

        def close(self) -> None:
            calls.append("close")

    monkeypatch.setitem(sys.modules, "picamera2", types.SimpleNamespace(Picamera2=Picamera2))
    with open_camera("picamera2:1,width=32,height=24,lens_position=1.5,limit=2") as src:
        frames = list(src)
    assert ("open", 1) in calls and "stop" in calls and "close" in calls
    config = next(c for c in calls if isinstance(c, tuple) and c[0] == "config")[1]
    assert config["main"] == {"size": (32, 24), "format": "RGB888"}
    assert config["controls"] == {"AfMode": 0, "LensPosition": 1.5}
    assert [f.timestamp for f in frames] == pytest.approx([0.0, 0.033])
    assert np.array_equal(frames[1].image, picture(2, (32, 24)))


def test_parse_spec(tmp_path: Path) -> None:
    assert parse_spec("usb:0,width=1920,height=1080") == CameraSpec(
        "usb", "0", {"width": "1920", "height": "1080"}
    )
    assert parse_spec("2") == CameraSpec("usb", "2")
    assert parse_spec("/dev/video1").kind == "usb"
    assert parse_spec("synthetic,seed=3") == CameraSpec("synthetic", "", {"seed": "3"})
    assert parse_spec("picamera2") == CameraSpec("picamera2")
    assert parse_spec(str(tmp_path)).kind == "folder"
    assert parse_spec("game.mp4").kind == "video"
    assert parse_spec("shot.jpg").kind == "folder"
    assert str(parse_spec("video:a.avi,loop=true")) == "video:a.avi,loop=true"
    for bad in ("", "webcam", "usb:0,width=1,height"):
        with pytest.raises(CameraError):
            parse_spec(bad)


def test_bad_options_are_named(folder: Path) -> None:
    with pytest.raises(CameraError, match="fps='fast' should be a number"):
        open_camera(f"folder:{folder},fps=fast")
    with pytest.raises(CameraError, match="unknown option.*colour"):
        open_camera(f"folder:{folder},colour=red")
    with pytest.raises(CameraError, match="loop='maybe' should be true or false"):
        open_camera(f"folder:{folder},loop=maybe")


def test_chosen_by_configuration(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    monkeypatch.setenv(ENV, f"folder:{folder}")
    with open_camera() as src:
        assert isinstance(src, FolderSource)
    monkeypatch.delenv(ENV)
    monkeypatch.setattr(camera_mod, "_on_a_pi", lambda: False)
    with pytest.raises(CameraError, match=r"no camera chosen, and this machine is not a Raspberry"):
        open_camera()
    with open_camera({"kind": "folder", "path": str(folder), "loop": True, "limit": 5}) as src:
        assert len(list(src)) == 5
    with pytest.raises(CameraError, match="unknown camera kind 'webcam'"):
        open_camera({"kind": "webcam"})


def test_register_a_source() -> None:
    class Still(FrameSource):
        name = "still"

        def _next(self) -> Frame | None:
            return Frame(self.index, float(self.index), picture(0))

    register_source("still", lambda spec: Still(limit=int(spec.options.get("limit", "2"))))
    try:
        with open_camera("still,limit=3") as src:
            assert [f.index for f in src] == [0, 1, 2]
    finally:
        camera_mod.SOURCES.pop("still")
