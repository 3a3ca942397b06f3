"""`calibrate` on the synthetic table: lenses, heights, fields of view, focus.

Run it as ``.venv/bin/python bench/calibration.py`` (``--quick``: fewer cameras). For
each camera (1280x720 and 1920x1080, 0.9 and 1.2 m high, 66-102 degrees across, lens
barrel distortion k1 0 to -0.15, realistic effects) it calibrates from one picture of
the empty mat and prints:

- whether calibrate accepted, and whether it measured the lens from the mat;
- k1 true and found (found: at calibrate's focal length guess, then converted to the
  true focal length, since a flat mat tells only k1 / f^2);
- the position error of table points over the zones (a 10 mm grid in every zone):
  ``image_to_table(cal, camera.project(points))`` against the points, median and p99;
- the same for the homography alone, as calibrate fitted it before it measured lenses
  (``before``: '-' where it was refused).

Then the blur each picture's fiducials show at ``Effects(blur=s)``, the measured figure
against the one set.
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys

import cv2
import numpy as np

from table_controller.vision.calibration import (
    MAX_ERROR_MM,
    calibrate,
    find_fiducials,
    find_mat,
    image_to_table,
)
from table_controller.vision.focus import SOFTEST_BLUR_PX
from table_controller.vision.layout import CalibrationError, default_zones, fiducial_corners
from table_controller.vision.markers import FIDUCIALS
from table_controller.vision.mat_lens import focal_guess
from table_controller.vision.synthetic import (
    Camera,
    Effects,
    Scene,
    TableRenderer,
    realistic_cameras,
)


def zone_points(step: float = 10.0) -> np.ndarray:
    pts = []
    for z in default_zones():
        poly = np.array(z.polygon)
        lo, hi = poly.min(axis=0), poly.max(axis=0)
        xs = np.arange(lo[0], hi[0] + 1e-9, step)
        ys = np.arange(lo[1], hi[1] + 1e-9, step)
        pts.extend((x, y) for x in xs for y in ys if z.contains(x, y))
    return np.array(pts, np.float64)


def cameras(quick: bool) -> list[Camera]:
    out = list(realistic_cameras())
    sizes = [(1280, 720), (1920, 1080)]
    heights = [900.0, 1200.0]
    fovs = [66.0, 102.0] if quick else [66.0, 84.0, 102.0]
    k1s = [0.0, -0.1, -0.15] if quick else [0.0, -0.05, -0.1, -0.15]
    for (w, h), z, fov, k1 in itertools.product(sizes, heights, fovs, k1s):
        cam = Camera(
            width=w, height=h, hfov_deg=fov, position=(20.0, 60.0, z),
            distortion=(k1, 0.0, 0.0, 0.0, 0.0) if k1 else (),
        )  # fmt: skip
        if cam.sees(np.array([[-400, -400], [400, -400], [400, 400], [-400, 400]]), 2):
            out.append(cam)
    return out


def before(image: np.ndarray, seen: np.ndarray, pts: np.ndarray) -> np.ndarray | None:
    """The homography through the detector's 16 corners, as calibrate fitted it before:
    the errors at ``pts``, or None when its fit was refused."""
    fiducials, _ = find_fiducials(image)
    if set(fiducials) != set(FIDUCIALS):
        return None
    px = np.concatenate([fiducials[m].corners.astype(np.float64) for m in FIDUCIALS])
    mm = np.concatenate([fiducial_corners(m) for m in FIDUCIALS])
    hom, _ = cv2.findHomography(px, mm, 0)
    fit = cv2.perspectiveTransform(px.reshape(-1, 1, 2), hom).reshape(-1, 2)
    if np.linalg.norm(fit - mm, axis=1).max() > MAX_ERROR_MM:
        return None
    got = cv2.perspectiveTransform(seen.reshape(-1, 1, 2), hom).reshape(-1, 2)
    return np.asarray(np.linalg.norm(got - pts, axis=1))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument(
        "--hard",
        action="store_true",
        help="a harder picture: blur 0.8, dim and noisy, uneven light, JPEG 75",
    )
    args = ap.parse_args(argv)
    print("$ " + " ".join(["bench/calibration.py", *(argv or sys.argv[1:])]))
    renderer = TableRenderer()
    pts = zone_points()
    effects = Effects.realistic()
    if args.hard:
        effects = Effects(blur=0.8, lighting=0.5, cast=(1.08, 1.0, 0.9), exposure=0.7,
                          noise=6.0, jpeg=75)  # fmt: skip
    print(f"{len(pts)} points over the zones; effects: {effects}; MAX_ERROR_MM {MAX_ERROR_MM}")
    print(
        f"{'camera':<34} {'k1':>6} {'found':>6} {'lens':>4} {'median':>6} {'p99':>5} {'before':>12}"
    )
    worst = 0.0
    for cam in cameras(args.quick):
        image = renderer.render(Scene(camera=cam, effects=effects)).image
        seen = cam.project(pts)
        name = f"{cam.width}x{cam.height} {cam.hfov_deg:.0f}deg {cam.position[2] / 1000:.2f} m"
        if cam.position[:2] != (20.0, 60.0):
            name += f" at ({cam.position[0]:.0f},{cam.position[1]:.0f})"
        k1 = cam.distortion[0] if cam.distortion else 0.0
        old = before(image, seen, pts)
        was = "refused" if old is None else f"{np.median(old):.2f} {np.percentile(old, 99):.2f}"
        try:
            cal = calibrate(image)
        except CalibrationError as exc:
            print(f"{name:<34} {k1:+6.2f} {'':>6} {'':>4} refused: {str(exc)[:70]}  {was:>12}")
            worst = math.inf
            continue
        fit = find_mat(image)
        err = np.linalg.norm(image_to_table(cal, seen) - pts, axis=1)
        found = ""
        if cal.distortion is not None:
            found = f"{cal.distortion[0] * (cam.focal_px / focal_guess(cam.size)) ** 2:+.3f}"
        lens = "mat" if fit.lens_from_mat is not None else "-"
        p99 = float(np.percentile(err, 99))
        worst = max(worst, p99)
        print(
            f"{name:<34} {k1:+6.2f} {found:>6} {lens:>4} {np.median(err):6.2f} {p99:5.2f} {was:>12}"
        )
    print(f"worst p99 {worst:.2f} mm")
    print(f"\nFocus (SOFTEST_BLUR_PX {SOFTEST_BLUR_PX} px at 1280x720): blur set -> measured")
    for cam in (Camera(), Camera(width=1920, height=1080)):
        row = []
        for blur in (0.0, 0.6, 1.0, 1.5, 2.0):
            fx = Effects(blur=blur, noise=2.5, jpeg=90)
            image = renderer.render(Scene(camera=cam, effects=fx)).image
            s = find_mat(image).sharpness
            row.append(f"{blur:.1f}->{s.worst_px:.2f}" if s else f"{blur:.1f}->?")
        print(f"  {cam.width}x{cam.height}: " + ", ".join(row))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
