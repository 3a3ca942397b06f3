"""The card reader on hard frames: the reader of a base commit against this tree's.

A development bench for the reader (issue 18), until the camera model
(``table_controller/vision/optics.py``) is ready: frames from the current renderer made
harder by hand. 1280x720 cameras at about 3.2-3.6 px per marker cell in the worst zone
(and a third at 1920x1080; heights of 1050-1150 mm gave 2.8-3.1 px a cell here, so
930-1030 mm), barrel distortion k1 -0.02 to -0.15 calibrated with the true
lens or without one, Gaussian blur 0.8-1.6 px, noise 3-9, uneven light, exposure
0.5-1.2, warm or cool cast, JPEG 60-90; then a pillbox (disc) defocus of radius 1-2 px,
an RGGB Bayer mosaic demosaiced by OpenCV, and JPEG again.

Tables of 8 cards, no hands, no stacking (``--hands``: 10 cards, stacked, two hands
over cards, to count wrong cards where markers are half covered): every card with both
markers in view and its centre clear of a zone's line counts. A card is read when named
in the zone holding its true centre; a wrong card is one not on the table ("phantom")
or put in another zone.
Times are CPU time on one core (``cv2.setNumThreads(1)``, ``time.process_time``) for the
whole ``CardReader.read`` of a frame (grey conversion included).

    PYTHONPATH=$PWD .venv/bin/python bench/reader_hard.py [--quick] [--frames N] [--base REV]

Frames are cached in /tmp (``--no-cache`` to render again).
"""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import hashlib
import importlib.util
import math
import pickle
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from table_controller.vision.calibration import calibrate, scale  # noqa: E402
from table_controller.vision.detect import LINE_MM, CardReader  # noqa: E402
from table_controller.vision.layout import Calibration, CalibrationError  # noqa: E402
from table_controller.vision.synthetic import (  # noqa: E402
    Camera,
    Effects,
    Scene,
    TableRenderer,
    random_scene,
)

clock = time.process_time


@dataclass(frozen=True)
class Truth:
    card: int
    x: float
    y: float
    counts: bool  # both markers wholly in view, uncovered


@dataclass(frozen=True)
class Frame:
    setup: int
    jpeg: bytes
    cards: tuple[Truth, ...]
    label: str  # the conditions, for the misses listed
    sigma: float = 0.0  # the whole blur, as one Gaussian's sigma (px)

    def softness(self) -> str:
        if self.sigma < 1.2:
            return "blur sigma < 1.2"
        return "blur sigma 1.2-1.5" if self.sigma < 1.5 else "blur sigma >= 1.5"


def disc(radius: float) -> np.ndarray:
    """A pillbox (defocus) kernel, anti-aliased at its edge."""
    n = math.ceil(radius) + 1
    yy, xx = np.mgrid[-n : n + 1, -n : n + 1].astype(np.float32)
    k = np.clip(radius + 0.5 - np.hypot(xx, yy), 0.0, 1.0)
    return np.asarray(k / k.sum(), np.float32)


def bayer(bgr: np.ndarray) -> np.ndarray:
    """An RGGB mosaic of the picture, demosaiced again (OpenCV calls RGGB "BayerBG")."""
    m = np.empty(bgr.shape[:2], np.uint8)
    m[0::2, 0::2] = bgr[0::2, 0::2, 2]
    m[0::2, 1::2] = bgr[0::2, 1::2, 1]
    m[1::2, 0::2] = bgr[1::2, 0::2, 1]
    m[1::2, 1::2] = bgr[1::2, 1::2, 0]
    return np.asarray(cv2.cvtColor(m, cv2.COLOR_BayerBG2BGR), np.uint8)


def hard_camera(rng: np.random.Generator, big: bool) -> Camera:
    k1 = float(rng.uniform(-0.15, -0.02))
    pos = (float(rng.uniform(-60, 60)), float(rng.uniform(-60, 60)), float(rng.uniform(930, 1030)))
    if big:
        return Camera(1920, 1080, float(rng.uniform(80, 90)), pos, (0.0, 0.0),
                      float(rng.uniform(-3, 3)), (k1, 0.0, 0.0, 0.0, 0.0))  # fmt: skip
    return Camera(1280, 720, float(rng.uniform(85, 90)), pos, (0.0, 0.0),
                  float(rng.uniform(-3, 3)), (k1, 0.0, 0.0, 0.0, 0.0))  # fmt: skip


def hard_effects(rng: np.random.Generator) -> Effects:
    warm = rng.random() < 0.5
    cast = (1.12, 1.0, 0.82) if warm else (0.9, 1.0, 1.12)
    return Effects(
        blur=float(rng.uniform(0.8, 1.6)),
        lighting=float(rng.uniform(0.3, 0.6)),
        cast=cast,
        exposure=float(rng.uniform(0.5, 1.2)),
        noise=float(rng.uniform(3.0, 9.0)),
        jpeg=int(rng.integers(60, 91)),
    )


def make_setups(
    rng: np.random.Generator, n: int, renderer: TableRenderer
) -> list[tuple[Camera, Calibration]]:
    """``n`` calibrated cameras: every other one calibrated with its true lens."""
    cals: list[tuple[Camera, Calibration]] = []
    while len(cals) < n:
        cam = hard_camera(rng, big=len(cals) % 3 == 2)
        empty = renderer.render(Scene(camera=cam, effects=Effects.realistic(), seed=1)).image
        with_lens = len(cals) % 2 == 0
        try:
            lens = (cam.matrix(), cam.dist_coeffs()) if with_lens else None
            cal = calibrate(empty, lens=lens)
        except CalibrationError:
            continue  # a wide lens refused without its measurement: another camera
        cals.append((cam, cal))
    return cals


def render_frames(
    seed: int, n_setups: int, n_frames: int, hands: bool = False
) -> tuple[list[Calibration], list[Frame]]:
    rng = np.random.default_rng(seed)
    renderer = TableRenderer()
    setups = make_setups(rng, n_setups, renderer)
    camera_of = [cam for cam, _ in setups]
    cals = [cal for _, cal in setups]
    frames: list[Frame] = []
    for i in range(n_frames):
        k = i % n_setups
        fx = hard_effects(rng)
        if hands:  # cards stacked, hands over some: for wrong cards, not the read rate
            scene = random_scene(
                rng, 10, stacked=0.3, hands=2, hand_fraction=(0.05, 0.9),
                camera=camera_of[k], effects=fx,
            )  # fmt: skip
        else:
            scene = random_scene(rng, 8, camera=camera_of[k], effects=fx)
        r = renderer.render(scene)
        radius = float(rng.uniform(1.0, 2.0))
        img = cv2.filter2D(r.image, -1, disc(radius))
        img = bayer(img)
        q = int(rng.integers(60, 91))
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, q])
        assert ok
        truth = tuple(
            Truth(int(c.card), c.x, c.y, bool(c.markers) and all(m.visible for m in c.markers))
            for c in r.cards
            if c.face_up
        )
        label = (
            f"setup {k} frame {i}: blur {fx.blur:.2f} disc {radius:.2f} noise {fx.noise:.1f} "
            f"exposure {fx.exposure:.2f} jpeg {fx.jpeg}/{q}"
        )
        sigma = math.hypot(fx.blur, radius / 2)
        frames.append(Frame(k, buf.tobytes(), truth, label, sigma))
    return cals, frames


def load_base(rev: str) -> ModuleType:
    """The reader (detect.py and markers.py) as it was at ``rev``, as a module."""
    tmp = Path(tempfile.mkdtemp(prefix="reader_base_"))
    for name in ("markers", "detect"):
        src = subprocess.run(
            ["git", "show", f"{rev}:table_controller/vision/{name}.py"],
            cwd=ROOT, check=True, capture_output=True, text=True,
        ).stdout  # fmt: skip
        src = src.replace("table_controller.vision.markers", "base_markers")
        (tmp / f"base_{name}.py").write_text(src)
    sys.path.insert(0, str(tmp))
    for name in ("base_markers", "base_detect"):
        spec = importlib.util.spec_from_file_location(name, tmp / f"{name}.py")
        assert spec and spec.loader
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
    return sys.modules["base_detect"]


@dataclass
class Tally:
    counted: int = 0
    read: int = 0
    sightings: int = 0
    phantom: int = 0
    wrong_zone: int = 0
    undecided: int = 0

    def line(self) -> str:
        rate = 100.0 * self.read / max(1, self.counted)
        return (
            f"read {self.read}/{self.counted} ({rate:.2f}%), phantom {self.phantom}, "
            f"wrong zone {self.wrong_zone}, on a line {self.undecided}"
        )


def run(
    name: str,
    make: Callable[[Calibration], object],
    cals: list[Calibration],
    frames: list[Frame],
    show_misses: int,
) -> None:
    readers = [make(c) for c in cals]
    by_size: dict[str, Tally] = {}
    times: list[float] = []
    noisy: list[float] = []
    misses: list[str] = []
    for f in frames:
        img = cv2.imdecode(np.frombuffer(f.jpeg, np.uint8), cv2.IMREAD_COLOR)
        cal = cals[f.setup]
        reader = readers[f.setup]
        t = clock()
        seen = reader.read(img)  # type: ignore[attr-defined]
        dt = clock() - t
        times.append(dt)
        if "noise" in f.label and float(f.label.split("noise ")[1].split()[0]) >= 7.0:
            noisy.append(dt)
        key = f"{cal.image_size[0]}x{cal.image_size[1]} {f.softness()}"
        tally = by_size.setdefault(key, Tally())
        truth = {t.card: t for t in f.cards}
        zone_of = {t.card: _zone(cal, t.x, t.y) for t in f.cards}
        reads = {(int(s.card), s.zone) for s in seen}
        for t in f.cards:
            tally.sightings += 1
            if t.counts and cal.distance_to_line(t.x, t.y) >= LINE_MM:
                tally.counted += 1
                if (t.card, zone_of[t.card]) in reads:
                    tally.read += 1
                elif len(misses) < show_misses:
                    misses.append(f"{f.label}: card {t.card} at ({t.x:.0f}, {t.y:.0f})")
        for s in seen:
            c = truth.get(int(s.card))
            if c is None:
                tally.phantom += 1
                misses.append(f"PHANTOM {f.label}: {s.card} at ({s.x:.0f}, {s.y:.0f})")
            elif s.on_line:
                tally.undecided += 1
            elif s.zone != zone_of[c.card]:
                tally.wrong_zone += 1
    a = np.asarray(times) * 1e3
    n = np.asarray(noisy or [0.0]) * 1e3
    print(f"\n{name}:")
    for key, tally in sorted(by_size.items()):
        print(f"  {key}: {tally.line()}")
    print(
        f"  time per frame: median {np.median(a):.2f} ms, p99 {np.percentile(a, 99):.2f} ms; "
        f"noise >= 7: median {np.median(n):.2f} ms, p99 {np.percentile(n, 99):.2f} ms"
    )
    for m in misses[:show_misses]:
        print(f"    miss {m}")


def _zone(cal: Calibration, x: float, y: float) -> str | None:
    z = cal.zone_at(x, y)
    return None if z is None else z.name


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="a few frames, seconds")
    ap.add_argument("--frames", type=int, default=300)
    ap.add_argument("--setups", type=int, default=12)
    ap.add_argument("--seed", type=int, default=18)
    ap.add_argument("--base", default="7f00eb4", help="the revision of the old reader")
    ap.add_argument("--misses", type=int, default=0, help="list this many misses")
    ap.add_argument("--no-cache", action="store_true")
    ap.add_argument("--only-new", action="store_true")
    ap.add_argument("--hands", action="store_true", help="10 cards, stacked, two hands over cards")
    args = ap.parse_args()
    if args.quick:
        args.frames, args.setups = 24, 6
    cv2.setNumThreads(1)
    print("$ " + " ".join(sys.argv), flush=True)
    key = hashlib.sha1(
        f"{args.seed} {args.setups} {args.frames} {args.hands} v2".encode()
    ).hexdigest()[:10]
    cache = Path(tempfile.gettempdir()) / f"reader_hard_{key}.pickle"
    t0 = time.perf_counter()
    if cache.exists() and not args.no_cache:
        cals, frames = pickle.loads(cache.read_bytes())
    else:
        cals, frames = render_frames(args.seed, args.setups, args.frames, args.hands)
        cache.write_bytes(pickle.dumps((cals, frames)))
    print(f"{len(frames)} frames, {len(cals)} cameras ({time.perf_counter() - t0:.0f} s to make)")
    for i, cal in enumerate(cals):
        s = scale(cal)
        lens = "true lens" if cal.distortion is not None else "no lens"
        w, h = cal.image_size
        print(f"  [{i}] {w}x{h} {lens}: {s.min_cell_px:.2f}-{s.max_cell_px:.2f} px per cell")
    if not args.only_new:
        base = load_base(args.base)
        run(f"reader at {args.base}", base.CardReader, cals, frames, args.misses)
    run("reader of this tree", CardReader, cals, frames, args.misses)


if __name__ == "__main__":
    main()
