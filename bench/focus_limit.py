"""Where `calibrate`'s focus limit belongs: the read rate of cards against the blur the
calibration measures at the corner markers, on random sharp venues of the camera model.

Each venue (``optics.random_setup(sharp=True)``: its own focus, defocus 0-3 px) is
calibrated from its own empty mat (the focus check off, so every venue is kept) and its
sharpness recorded (``Sharpness.worst_px``, in px of a 1280-wide picture); then
``--tables`` tables of 6-10 cards are read once each. Printed: the share of sharp
unoccluded cards read, by measured blur, for 1280x720 and 1920x1080, and with the worst
zone's px per cell. The limit goes where the rate is still at least 99.5 %.

    .venv/bin/python bench/focus_limit.py --venues 200
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import replace
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import cv2
import numpy as np
from camera_model import Tally, count

from table_controller.vision.calibration import calibrate, scale, sharpness_seen
from table_controller.vision.detect import CardReader
from table_controller.vision.focus import REFERENCE_WIDTH, SOFTEST_BLUR_PX
from table_controller.vision.layout import CalibrationError
from table_controller.vision.optics import random_setup
from table_controller.vision.synthetic import SURFACES, Scene, TableRenderer, random_scene

BINS = (0.0, 0.8, 0.9, 1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.8, 2.0, 9.0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--venues", type=int, default=200, help="venues per picture size")
    ap.add_argument("--tables", type=int, default=3, help="tables read per venue")
    ap.add_argument("--seed", type=int, default=31)
    args = ap.parse_args()
    cv2.setNumThreads(1)
    print(f"command: {' '.join(sys.argv)}; current limit {SOFTEST_BLUR_PX} px (1280 wide)")
    renderers = {s: TableRenderer(surface=s) for s in SURFACES}
    for size in ((1280, 720), (1920, 1080)):
        rows: dict[int, Tally] = {}
        cells: dict[int, list[float]] = {}
        for k in range(args.venues):
            rng = np.random.default_rng([args.seed, size[0], k])
            camera, effects, sensor = random_setup(rng, size=size, sharp=True)
            renderer = renderers[SURFACES[int(rng.integers(len(SURFACES)))]]
            empty = Scene(camera=camera, effects=effects, seed=k, sensor=sensor)
            image = renderer.render(empty).image
            try:
                cal = calibrate(image)
            except CalibrationError:
                continue
            sharp = sharpness_seen(cal, image)
            if not np.isfinite(sharp.worst_px):
                continue
            blur = sharp.worst_px * REFERENCE_WIDTH / max(REFERENCE_WIDTH, size[0])
            b = int(np.searchsorted(BINS, blur, side="right")) - 1
            reader = CardReader(cal)
            tally = rows.setdefault(b, Tally())
            cells.setdefault(b, []).append(scale(cal).min_cell_px)
            for t in range(args.tables):
                scene = random_scene(
                    rng, int(rng.integers(6, 11)), camera=camera, effects=effects, seed=k * 10 + t
                )
                count(tally, reader, cal, renderer.render(replace(scene, sensor=sensor)))
        print(
            f"\n{size[0]}x{size[1]}: read rate by the blur calibrate measures (sigma, px at 1280)"
        )
        print("  blur          venues  cards    read  wrong  cells px (min-max)")
        for b in sorted(rows):
            t = rows[b]
            lo, hi = BINS[b], BINS[b + 1]
            c = cells[b]
            print(
                f"  {lo:.1f}-{hi:.1f}  {len(c):>10} {t.counted:>6} "
                f"{100 * t.read / max(1, t.counted):6.1f}% "
                f"{t.wrong:>6}  {min(c):.1f}-{max(c):.1f}"
            )


if __name__ == "__main__":
    main()
