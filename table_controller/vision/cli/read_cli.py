"""``table-controller vision read IMAGE``: the cards in one picture, as JSON."""

from __future__ import annotations

import argparse
import json
import sys
import threading
from enum import Enum
from pathlib import Path
from typing import Any, TextIO

from table_controller.commands import help_of

DEFAULT_CALIBRATION = Path("calibration/table.json")
FAMILY_NAMES = ("aruco", "qr-zbar", "qr-zxing")  # markers.FAMILIES, without importing OpenCV


def cmd_read(args: argparse.Namespace, out: TextIO) -> int:
    import cv2
    import numpy as np

    from table_controller.vision.detect import CardReader, card_center_px
    from table_controller.vision.layout import Calibration, CalibrationError
    from table_controller.vision.markers import FIDUCIALS, family
    from table_controller.vision.picture import PictureError, read_picture

    try:
        frame = read_picture(args.image)
    except PictureError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    path = Path(args.calibration) if args.calibration else DEFAULT_CALIBRATION
    calibration: Calibration | None = None
    try:
        calibration = Calibration.load(path)
    except CalibrationError as exc:
        if args.calibration:  # asked for, so its absence is an error
            print(f"error: {exc}", file=sys.stderr)
            return 2
        print(
            f"note: no calibration at {path}: zones are not known "
            "(run `table-controller calibrate`)",
            file=sys.stderr,
        )
    fam = family(args.family or (calibration.family if calibration else "aruco"))
    cards: list[dict[str, Any]]
    if calibration is not None:
        h, w = frame.shape[:2]
        if (w, h) != calibration.image_size:
            print(
                f"error: the image is {w}x{h} but {path} was made for "
                f"{calibration.image_size[0]}x{calibration.image_size[1]}: use a picture from "
                "the same camera setting, or calibrate again",
                file=sys.stderr,
            )
            return 2
        cards = [c.to_json() for c in CardReader(calibration, fam).read(frame)]
    else:
        gray = np.asarray(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), np.uint8)
        cards = []
        for s in fam.read(gray):
            if s.marker in FIDUCIALS or s.card is None:
                continue
            cx, cy = card_center_px(s.corners)
            cards.append(
                {
                    "card": s.card.code,
                    "zone": None,
                    "center_px": [round(cx, 1), round(cy, 1)],
                    "corners": np.round(s.corners.astype(np.float64), 1).tolist(),
                    "confidence": round(s.confidence, 3),
                }
            )
    out.write(json.dumps(cards, indent=None if args.compact else 2) + "\n")
    return 0


def cmd_live(args: argparse.Namespace, out: TextIO) -> int:
    """Watch a camera: print each card event and the frame times as JSON lines; show the
    annotated view in a browser (``--view``) and/or keep the latest annotated frame in
    ``--snapshot`` for a person to look at."""
    from table_controller.vision.camera import CameraError, open_camera
    from table_controller.vision.cli.live_view import LiveView, ViewError, parse_view
    from table_controller.vision.layout import Calibration, CalibrationError

    try:
        calibration = Calibration.load(args.calibration or DEFAULT_CALIBRATION)
        source = open_camera(args.camera)
        view = None if args.view is None else LiveView(*parse_view(args.view))
    except (CalibrationError, CameraError, ViewError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    stop = threading.Event()  # only Ctrl-C ends the wait on a finished source's view
    try:
        if view is not None:
            out.write(json.dumps({"view": view.url}) + "\n")
            out.flush()
        code = _watch(args, out, source, calibration, view)
        if code == 0:
            _ended(source, view, stop)
        return code
    except KeyboardInterrupt:
        return 0
    finally:
        if view is not None:
            view.close()


def _ended(source: Any, view: Any, stop: threading.Event) -> None:
    """The source ran out: say so (a script or a recording ends, a camera should not),
    and keep a ``--view`` up on its last picture until Ctrl-C, unless ``limit=N`` asked
    for the end."""
    asked = source.limit is not None and source.index >= source.limit
    if asked:
        return
    hint = (
        "; add ,loop=true to the camera to watch it again"
        if getattr(source, "loop", True) is False
        else ""
    )
    print(f"the camera's pictures ended after {source.index} frames{hint}", file=sys.stderr)
    if view is not None:
        print(f"the view at {view.url} keeps the last picture: Ctrl-C stops", file=sys.stderr)
        # Waited in slices: Ctrl-C's signal may land on the view's thread, and an
        # untimed wait would then never wake the main thread to raise KeyboardInterrupt.
        while not stop.wait(0.2):
            pass


def _watch(args: argparse.Namespace, out: TextIO, source: Any, calibration: Any, view: Any) -> int:
    import time

    import cv2

    from table_controller.rules.codec import encode
    from table_controller.vision.calibration import sharpness_seen
    from table_controller.vision.foreign import ForeignCardLaid
    from table_controller.vision.tracker import to_input_event
    from table_controller.vision.watcher import CardWatcher, annotate

    watcher = CardWatcher(calibration)
    sharp, measured = None, -1.0  # the sharpness the view shows, measured once a second
    costs: list[float] = []
    recent: list[float] = []  # the last 30 frame times, for the view
    with source:
        for frame in source:
            started = time.process_time()
            seen = watcher.process(frame.image, frame.index, frame.timestamp, frame.grey)
            costs.append((time.process_time() - started) * 1000)
            recent = [*recent[-29:], costs[-1]]
            if view is not None and view.due():
                ms = sorted(recent)[len(recent) // 2]
                if sharp is None or frame.timestamp - measured >= 1.0:
                    sharp, measured = sharpness_seen(calibration, frame.image), frame.timestamp
                view.show(annotate(calibration, frame.image, watcher.last, ms, sharp))
            for s in seen:
                doc: dict[str, Any] = {"frame": frame.index, "event": type(s.event).__name__}
                for key, value in vars(s.event).items():
                    if key not in ("frame", "time"):
                        doc[key] = (
                            round(value, 1)
                            if isinstance(value, float)
                            else value.value
                            if isinstance(value, Enum)
                            else str(value)
                        )
                play = None if isinstance(s.event, ForeignCardLaid) else to_input_event(s.event)
                if play is not None:
                    doc["input"] = encode(play)
                out.write(json.dumps(doc) + "\n")
            if watcher.across_changed:  # the cards across a zone's line, now
                across = [
                    {"card": a.card.code, "shares": {z: round(v, 2) for z, v in a.shares}}
                    for a in watcher.across
                ]
                out.write(json.dumps({"frame": frame.index, "across": across}) + "\n")
            if len(costs) == args.every:
                costs.sort()
                median = costs[len(costs) // 2]
                out.write(
                    json.dumps(
                        {
                            "frame": frame.index,
                            "ms_median": round(median, 2),
                            "ms_max": round(costs[-1], 2),
                            "cards": len(watcher.last),
                        }
                    )
                    + "\n"
                )
                costs = []
                if args.snapshot:
                    picture = annotate(calibration, frame.image, watcher.last, median)
                    tmp = Path(str(args.snapshot) + ".tmp.png")
                    cv2.imwrite(str(tmp), picture)
                    tmp.replace(args.snapshot)
            out.flush()
    return 0


def add_commands(subparsers: Any) -> None:
    vision = subparsers.add_parser("vision", help=help_of("vision"))
    vsub = vision.add_subparsers(dest="vision_command", required=True)
    read = vsub.add_parser("read", help="print the cards seen in an image as JSON")
    read.add_argument("image", help="a picture of the table (PNG or JPEG)")
    read.add_argument(
        "--calibration", help=f"the table's calibration (default: {DEFAULT_CALIBRATION})"
    )
    read.add_argument("--family", choices=FAMILY_NAMES, help="marker family of the deck")
    read.add_argument("--compact", action="store_true", help="one line of JSON")
    read.set_defaults(func=cmd_read)
    live = vsub.add_parser(
        "live", help="watch a camera: card events and frame times, and an annotated picture"
    )
    live.add_argument(
        "--camera", help="picamera2, usb:0, video:FILE, folder:DIR or synthetic (see docs)"
    )
    live.add_argument(
        "--calibration", help=f"the table's calibration (default: {DEFAULT_CALIBRATION})"
    )
    live.add_argument("--snapshot", help="keep the latest annotated frame in this PNG")
    live.add_argument(
        "--view",
        metavar="[HOST:]PORT",
        help="show the annotated view in a browser at this port (0.0.0.0:8090 to see it "
        "from another machine)",
    )
    live.add_argument("--every", type=int, default=30, help="frames between reports (30)")
    live.set_defaults(func=cmd_live)
