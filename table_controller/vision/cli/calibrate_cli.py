"""``table-controller calibrate``: calibrate the camera against the mat, print the mat.

    table-controller calibrate [--image FILE | --camera SPEC] [--out FILE] [--overlay PNG]
    table-controller calibrate mat --out FILE.pdf [--paper a4|letter] [--full-size]
    table-controller calibrate board --out FILE.pdf [--paper a4|letter]
    table-controller calibrate lens (--images DIR | --camera SPEC) [--out FILE]
    table-controller calibrate check [--image FILE | --camera SPEC] [--calibration FILE]

Exit codes as the rest of the command: 0 done, 1 the calibration failed (fiducials not
seen, a bad fit, the camera moved), 2 input that cannot be read (a missing picture, a
camera that will not open, a damaged file).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Generator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from table_controller.commands import help_of
from table_controller.paper import PAPERS, default_paper, paper_help
from table_controller.safe_json import JSONLimitError, loads_limited

if TYPE_CHECKING:  # OpenCV and numpy load only when a calibration runs
    import numpy as np

    from table_controller.vision.calibration import MatFit
    from table_controller.vision.camera import FrameSource
    from table_controller.vision.layout import Calibration

# What the options offer, named here so that building the parser (and --help) imports no
# OpenCV; the tests check them against markers.FAMILIES and calibration.py's.
FAMILY_NAMES = ("aruco", "qr-zbar", "qr-zxing")
MAX_ERROR_MM = 3.0  # calibration.MAX_ERROR_MM
DRIFT_PX = 3.0  # calibration.DRIFT_PX
DEFAULT_OUT = Path("calibration/table.json")
DEFAULT_LENS = Path("calibration/lens.json")
WARMUP_FRAMES = 5  # a live camera's first frames, while its exposure settles


def _err(message: str) -> None:
    print(f"error: {message}", file=sys.stderr)


def _read_image(path: str) -> np.ndarray:
    from table_controller.vision.camera import CameraError
    from table_controller.vision.picture import PictureError, read_picture

    p = Path(path)
    if not p.exists():
        raise CameraError(f"{p} does not exist (a PNG or JPEG from the table's camera)")
    if p.is_dir():
        raise CameraError(f"{p} is a folder: give one picture, or use --camera folder:{p}")
    try:
        return read_picture(p)
    except PictureError as exc:
        raise CameraError(str(exc)) from None


def _is_live(source: FrameSource) -> bool:
    return source.name.startswith(("usb:", "picamera2"))


def _frames(args: argparse.Namespace) -> Generator[tuple[str, np.ndarray], None, None]:
    """(where, image) for each picture to try, from --image or --camera."""
    from table_controller.vision.camera import open_camera

    if args.image:
        yield args.image, _read_image(args.image)
        return
    with open_camera(args.camera) as source:
        skip = WARMUP_FRAMES if _is_live(source) else 0
        tried = 0
        for frame in source:
            if frame.index < skip:
                continue
            yield f"camera {source.name}, frame {frame.index}", frame.image
            tried += 1
            if tried >= args.frames:
                return


def _may_write(path: Path, force: bool) -> str | None:
    """Why ``path`` must not be overwritten (it holds something else), or None."""
    from table_controller.vision.layout import FORMAT

    if force or not path.exists():
        return None
    if path.is_dir():
        return f"{path} is a folder; give a file name for the calibration"
    try:
        doc = loads_limited(path.read_bytes())
    except (OSError, JSONLimitError):
        doc = None
    if isinstance(doc, dict) and str(doc.get("format", "")).startswith(FORMAT.split("/")[0]):
        return None
    return (
        f"{path} exists and is not a table calibration, so it was left as it is: choose "
        "another --out, or move that file away (or pass --force to replace it)"
    )


def _report(fit: MatFit, cal: Calibration, where: str, out: TextIO) -> None:
    from table_controller.vision.calibration import (
        ADVISED_CELL_PX,
        MIN_CELL_PX,
        corner_label,
        scale,
    )

    w, h = cal.image_size
    s = scale(cal)
    out.write(f"Calibrated from {where} ({w}x{h}, marker family {cal.family}).\n")
    out.write(
        f"  fit: {fit.rms_mm:.1f} mm rms over the 16 fiducial corners, worst "
        f"{fit.max_mm:.1f} mm ({corner_label(fit.worst)})\n"
    )
    out.write(
        f"  scale: {s.px_per_mm:.2f} px/mm at the centre, {s.min_px_per_mm:.2f} at the "
        f"farthest zone; a card marker cell ({s.cell_mm:.1f} mm) gets {s.min_cell_px:.1f} px\n"
    )
    if fit.lens_from_mat is not None:
        lens = fit.lens_from_mat
        out.write(
            f"  lens: barrel distortion measured on the mat's corner markers and corrected "
            f"(k1 {lens.k1:+.3f} at a focal length of {lens.camera_matrix[0, 0]:.0f} px: it "
            f"pulls the mat's corners in by up to {lens.bend_px(fit.image_px):.0f} px); "
            f"without it the fit was {fit.plain_rms_mm:.1f} mm rms\n"
        )
    elif cal.camera_matrix is not None:
        out.write("  lens: distortion corrected with the measured lens\n")
    if fit.sharpness is not None and fit.sharpness.worst_px == fit.sharpness.worst_px:
        from table_controller.vision.focus import blur_figures

        worst, limit = blur_figures(fit.sharpness)
        out.write(
            f"  sharpness: the corner markers' edges blurred over {worst} px (sigma), "
            f"{limit} at most\n"
        )
    if not s.enough:
        out.write(
            f"warning: card markers get only {s.min_cell_px:.1f} px per cell; they read "
            f"reliably from {MIN_CELL_PX:.0f}. Bring the camera lower, use a narrower lens, or "
            f"a higher resolution{_better_size(w, h, s.min_cell_px, ADVISED_CELL_PX)}.\n"
        )
    elif s.min_cell_px < ADVISED_CELL_PX:
        better = _better_size(w, h, s.min_cell_px, ADVISED_CELL_PX)
        if better:
            out.write(
                f"advice: the farthest zone gets {s.min_cell_px:.1f} px per card marker cell; "
                f"from {ADVISED_CELL_PX:g} cards read in nearly every frame, blurred or "
                f"partly covered too. Set the camera to a larger picture{better}, or bring "
                "it lower.\n"
            )


def _glare(image: np.ndarray, cal: Calibration, family: str) -> tuple[str | None, list[str]]:
    """The refusal's reason when glare washes out a zone, and the warnings of glare."""
    from table_controller.vision.calibration import find_fiducials
    from table_controller.vision.glare import ADVICE, find_glare, zone_words

    _, cards = find_fiducials(image, family)
    spots = find_glare(image, cal, cards)
    for spot in spots:
        lost = spot.unreadable
        if lost is not None:
            share = spot.shares[spot.zones.index(lost)]
            return (
                f"glare {spot.where} washes out {100 * share:.0f}% of {zone_words(lost)}: "
                f"cards laid there cannot be read. {ADVICE[0].upper()}{ADVICE[1:]}; then "
                "calibrate again"
            ), []
    return None, [
        f"warning: {spot.describe()}: markers under it cannot be read; {ADVICE}.\n"
        for spot in spots
    ]


# Common camera modes, 16:9 and 4:3 (Camera Module 3: 2304x1296 and 4608x2592).
_MODES = ((1280, 720), (1920, 1080), (2304, 1296), (2560, 1440), (3840, 2160), (4608, 2592),
          (1024, 768), (1600, 1200), (2048, 1536), (2592, 1944), (3280, 2464))  # fmt: skip


def _better_size(w: int, h: int, cell_px: float, want: float) -> str:
    """' (1920x1080 would give 4.8 px: --camera ...,width=1920,height=1080)', the
    smallest common mode of the same shape giving ``want`` px a cell."""
    for mw, mh in sorted(_MODES, key=lambda m: m[0] * m[1]):
        if abs(mw / mh - w / h) > 0.05 or mw <= w:
            continue
        if cell_px * mw / w >= want:
            return (
                f" ({mw}x{mh} would give {cell_px * mw / w:.1f} px: "
                f"`--camera picamera2,width={mw},height={mh}`)"
            )
    return ""


def cmd_calibrate(args: argparse.Namespace, out: TextIO) -> int:
    import cv2

    from table_controller.vision.calibration import check_fit, find_mat, load_lens, overlay
    from table_controller.vision.camera import IMAGE_SUFFIXES, CameraError
    from table_controller.vision.layout import CalibrationError

    target = Path(args.out)
    reason = _may_write(target, args.force)
    if reason:
        _err(reason)
        return 2
    overlay_path = Path(args.overlay) if args.overlay else target.with_name(
        target.stem + "-overlay.png"
    )  # fmt: skip
    if overlay_path.suffix.lower() not in IMAGE_SUFFIXES:
        _err(f"--overlay {overlay_path}: give a picture file name ending in .png or .jpg")
        return 2
    lens = None
    lens_size = (0, 0)
    if args.lens:
        try:
            fit_lens = load_lens(args.lens)
        except CalibrationError as exc:
            _err(str(exc))
            return 2
        lens = (fit_lens.camera_matrix, fit_lens.distortion)
        lens_size = fit_lens.image_size
    last: CalibrationError | None = None
    frames = _frames(args)
    try:
        for where, image in frames:
            try:
                if lens is not None:
                    lw, lh = lens_size
                    if (image.shape[1], image.shape[0]) != (lw, lh):
                        _err(
                            f"the lens was measured at {lw}x{lh} but {where} is "
                            f"{image.shape[1]}x{image.shape[0]}: measure it again at this size"
                        )
                        return 2
                fit = find_mat(image, args.family, lens=lens)
                check_fit(fit, args.max_error)
            except CalibrationError as exc:
                last = exc
                continue
            cal = fit.calibration()
            refused, warnings = _glare(image, cal, args.family)
            if refused is not None:
                last = CalibrationError(refused)
                continue
            _report(fit, cal, where, out)
            out.writelines(warnings)
            cal.save(target)
            overlay_path.parent.mkdir(parents=True, exist_ok=True)
            if not cv2.imwrite(str(overlay_path), overlay(cal, image)):
                _err(f"could not write the overlay to {overlay_path}")
                return 2
            out.write(f"Calibration written to {target}\n")
            out.write(
                f"Overlay written to {overlay_path}: open it and check each zone sits where "
                "the players lay their cards, and the green squares on the corner markers.\n"
            )
            return 0
    except CameraError as exc:
        _err(str(exc) + ("" if args.camera else " (or give a picture: --image FILE)"))
        return 2
    except CalibrationError as exc:  # e.g. an unknown marker family
        _err(str(exc))
        return 2
    finally:
        frames.close()
    if last is None:
        _err("the camera gave no pictures to calibrate from")
        return 2
    _err(str(last))
    if target.exists():
        print(f"The calibration already in {target} was left as it was.", file=sys.stderr)
    return 1


def _pdf_path(args: argparse.Namespace) -> Path | None:
    path = Path(args.pdf_out)
    if path.suffix.lower() != ".pdf":
        _err(f"--out {path}: give a file name ending in .pdf")
        return None
    return path


def cmd_mat(args: argparse.Namespace, out: TextIO) -> int:
    from table_controller.vision.calibration import write_corner_sheets, write_full_mat

    args.paper = args.paper or default_paper()
    path = _pdf_path(args)
    if path is None:
        return 2
    try:
        if args.full_size:
            write_full_mat(path, args.family)
            out.write(
                f"Full-size mat (800 x 800 mm, one page) written to {path}: have it printed "
                "at 100% by a print shop.\n"
            )
        else:
            write_corner_sheets(path, args.paper, args.family)
            out.write(
                f"Corner sheets ({args.paper.upper()}, four pages) written to {path}: print "
                "at 100% ('Actual size'), check the 100 mm bar, cut and place them as each "
                "page says.\n"
            )
    except OSError as exc:
        _err(f"could not write {path}: {exc.strerror or exc}")
        return 2
    return 0


def cmd_board(args: argparse.Namespace, out: TextIO) -> int:
    from table_controller.vision.calibration import write_board

    args.paper = args.paper or default_paper()
    path = _pdf_path(args)
    if path is None:
        return 2
    try:
        write_board(path, args.paper)
    except OSError as exc:
        _err(f"could not write {path}: {exc.strerror or exc}")
        return 2
    out.write(
        f"ChArUco board written to {path}: print at 100%, glue flat onto card, then take "
        "10-20 pictures of it with the table's camera and run `table-controller calibrate "
        "lens`.\n"
    )
    return 0


def _lens_frames(args: argparse.Namespace) -> Generator[np.ndarray, None, None]:
    from table_controller.vision.camera import open_camera

    spec = f"folder:{args.images}" if args.images else args.camera
    with open_camera(spec) as source:
        for n, frame in enumerate(source):
            if n >= args.frames:
                return
            yield frame.image


def cmd_lens(args: argparse.Namespace, out: TextIO) -> int:
    from table_controller.vision.calibration import LensFit, measure_lens, save_lens
    from table_controller.vision.camera import CameraError
    from table_controller.vision.layout import CalibrationError

    path = Path(args.lens_out)
    frames = _lens_frames(args)
    try:
        fit: LensFit = measure_lens(frames)
    except CameraError as exc:
        _err(str(exc))
        return 2
    except CalibrationError as exc:
        _err(str(exc))
        return 1
    save_lens(path, fit)
    k1 = float(fit.distortion[0])
    out.write(
        f"Lens measured from {fit.views} pictures ({fit.image_size[0]}x{fit.image_size[1]}): "
        f"focal length {fit.camera_matrix[0, 0]:.0f} px, k1 {k1:+.3f}, "
        f"{fit.rms_px:.2f} px error.\n"
        f"Lens written to {path}; now run `table-controller calibrate --lens {path}`.\n"
    )
    return 0


def cmd_check(args: argparse.Namespace, out: TextIO) -> int:
    from table_controller.vision.calibration import drift
    from table_controller.vision.camera import CameraError
    from table_controller.vision.layout import Calibration, CalibrationError

    path = Path(args.calibration)
    try:
        cal = Calibration.load(path)
    except CalibrationError as exc:
        _err(str(exc))
        return 2
    args.frames = 1
    frames = _frames(args)
    try:
        where, image = next(frames)
        moved = drift(cal, image)
    except StopIteration:
        _err("the camera gave no picture to check")
        return 2
    except CameraError as exc:
        _err(str(exc))
        return 2
    except CalibrationError as exc:
        _err(str(exc))
        return 1
    finally:
        frames.close()
    if moved is None:
        _err(
            f"no corner marker seen in {where}: uncover the mat's corners (and light them) "
            "to check the calibration"
        )
        return 1
    if moved > args.limit:
        _err(
            f"the camera or the mat has moved by {moved:.1f} px since the calibration "
            f"(more than {args.limit:g}): put it back, or run `table-controller calibrate` "
            "again"
        )
        return 1
    out.write(f"Calibration {path} still fits ({where}): corner markers within {moved:.1f} px.\n")
    return 0


def _source_options(p: argparse.ArgumentParser) -> None:
    group = p.add_mutually_exclusive_group()
    group.add_argument("--image", metavar="FILE", help="a picture from the table's camera")
    group.add_argument(
        "--camera",
        metavar="SPEC",
        help="take the picture from a camera: picamera2, usb:0, video:FILE, folder:DIR, "
        "synthetic (default: $TABLE_CONTROLLER_CAMERA, else the Pi camera on a Raspberry Pi)",
    )


def add_commands(subparsers: Any) -> None:
    """Add ``calibrate`` (and its ``mat``, ``board``, ``lens``, ``check``) to a CLI."""
    families = sorted(FAMILY_NAMES)
    cal = subparsers.add_parser(
        "calibrate",
        help=help_of("calibrate"),
        usage="%(prog)s [--image FILE | --camera SPEC] [--out FILE] [--overlay PNG] "
        "[--family F] [--lens FILE] [--frames N] [--max-error MM] [--force]\n"
        "       %(prog)s {mat,board,lens,check} ...",
        description="Find the mat's four corner markers in a picture from the table's camera "
        "and write the calibration that maps the picture onto the table, with an overlay "
        "picture to check it by eye.",
    )
    _source_options(cal)
    cal.add_argument(
        "--out", default=str(DEFAULT_OUT), help=f"the calibration file (default {DEFAULT_OUT})"
    )
    cal.add_argument(
        "--overlay", metavar="PNG", help="the overlay picture (default: next to --out)"
    )
    cal.add_argument("--family", default="aruco", choices=families, help="marker family")
    cal.add_argument("--lens", metavar="FILE", help="a lens measured by `calibrate lens`")
    cal.add_argument(
        "--frames", type=int, default=30, metavar="N", help="camera pictures to try (default 30)"
    )
    cal.add_argument(
        "--max-error",
        type=float,
        default=MAX_ERROR_MM,
        metavar="MM",
        help=f"the worst fiducial corner allowed off a flat mat (default {MAX_ERROR_MM:g})",
    )
    cal.add_argument(
        "--force", action="store_true", help="replace --out even if it is not a calibration"
    )
    cal.set_defaults(func=cmd_calibrate)
    sub = cal.add_subparsers(dest="calibrate_command", metavar="{mat,board,lens,check}")

    mat = sub.add_parser("mat", help="print the mat's corner markers (PDF)")
    mat.add_argument(
        "--out", dest="pdf_out", required=True, metavar="FILE.pdf", help="the PDF to write"
    )
    mat.add_argument("--paper", choices=PAPERS, help=paper_help())
    mat.add_argument(
        "--full-size", action="store_true", help="the whole 800 mm mat on one page instead"
    )
    mat.add_argument("--family", default="aruco", choices=families)
    mat.set_defaults(func=cmd_mat)

    board = sub.add_parser("board", help="print the ChArUco board for measuring the lens (PDF)")
    board.add_argument(
        "--out", dest="pdf_out", required=True, metavar="FILE.pdf", help="the PDF to write"
    )
    board.add_argument("--paper", choices=PAPERS, help=paper_help())
    board.set_defaults(func=cmd_board)

    lens = sub.add_parser("lens", help="measure the lens from pictures of the ChArUco board")
    group = lens.add_mutually_exclusive_group(required=True)
    group.add_argument("--images", metavar="DIR", help="a folder of board pictures")
    group.add_argument("--camera", metavar="SPEC", help="take them from a camera")
    lens.add_argument("--frames", type=int, default=200, help="pictures to use at most")
    lens.add_argument(
        "--out", dest="lens_out", default=str(DEFAULT_LENS), help=f"default {DEFAULT_LENS}"
    )
    lens.set_defaults(func=cmd_lens)

    check = sub.add_parser("check", help="check the camera and mat have not moved")
    _source_options(check)
    check.add_argument("--calibration", default=str(DEFAULT_OUT), metavar="FILE")
    check.add_argument(
        "--limit", type=float, default=DRIFT_PX, help=f"px allowed (default {DRIFT_PX:g})"
    )
    check.set_defaults(func=cmd_check)
