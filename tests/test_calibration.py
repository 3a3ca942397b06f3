"""Calibration against the mat: the homography recovered from synthetic frames, clear
errors, drift, the overlay, the lens, the printable sheets and the ``calibrate``
command."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest
from calibrate_run import run

from table_controller.cards import Card
from table_controller.vision.calibration import (
    DRIFT_PX,
    MIN_CELL_PX,
    _runs,
    board_image,
    calibrate,
    drift,
    find_mat,
    image_to_table,
    lens,
    load_lens,
    measure_lens,
    overlay,
    save_lens,
    scale,
    table_to_image,
    write_board,
    write_corner_sheets,
    write_full_mat,
)
from table_controller.vision.layout import Calibration, CalibrationError, default_zones
from table_controller.vision.synthetic import (
    Camera,
    CardPlacement,
    Effects,
    Hand,
    Rendered,
    Scene,
    Sheet,
    TableRenderer,
    random_scene,
    realistic_cameras,
)

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def renderer() -> TableRenderer:
    return TableRenderer()


@pytest.fixture(scope="module")
def table(renderer: TableRenderer) -> Rendered:
    return renderer.render(random_scene(np.random.default_rng(21), 8))


# --- the homography ------------------------------------------------------------------


@pytest.mark.parametrize("camera", realistic_cameras(), ids=lambda c: str(c.position))
def test_calibration_recovers_the_true_homography(renderer: TableRenderer, camera: Camera) -> None:
    scene = random_scene(np.random.default_rng(1), 8, camera=camera, effects=Effects.realistic())
    r = renderer.render(scene)
    cal = calibrate(r.image)
    assert cal.image_size == camera.size
    # Table points land where the true camera puts them...
    grid = np.array([(x, y) for x in range(-350, 351, 50) for y in range(-350, 351, 50)], float)
    assert np.abs(cal.to_image(grid) - camera.project(grid)).max() < 1.5
    # ...and each card's centre, seen in the image, maps to within a few mm of the truth.
    for card in r.cards:
        centre_px = camera.project(np.array([[card.x, card.y]]))
        (x, y), *_ = cal.to_table(centre_px)
        assert np.hypot(x - card.x, y - card.y) < 3.0, card.code
        zone = cal.zone_at(x, y)
        if card.zone is not None and zone is not None and zone.contains(card.x, card.y):
            assert zone.name == card.zone
    assert set(cal.fiducials_px) == {40, 41, 42, 43}
    assert cal.distortion is None  # a straight lens keeps the plain homography
    for m, (px, py) in cal.fiducials_px.items():
        assert np.hypot(*(np.array([px, py]) - r.fiducials[m].corners.mean(axis=0))) < 1.5


def test_calibration_survives_a_harsh_camera(renderer: TableRenderer) -> None:
    scene = random_scene(np.random.default_rng(2), 8, effects=replace(Effects.harsh(), glare=0))
    r = renderer.render(scene)
    fit = find_mat(r.image)
    assert fit.max_mm < 4.0
    assert (
        np.abs(fit.calibration().to_image(np.zeros((1, 2))) - r.camera.project([[0, 0]])).max() < 2
    )


def test_calibration_file_round_trip(table: Rendered, tmp_path: Path) -> None:
    cal = calibrate(table.image)
    cal.save(tmp_path / "table.json")
    back = Calibration.load(tmp_path / "table.json")
    assert np.allclose(back.homography, cal.homography)
    assert back.fiducials_px.keys() == cal.fiducials_px.keys()
    for m, xy in cal.fiducials_px.items():
        assert back.fiducials_px[m] == pytest.approx(xy)
    assert back.zones == default_zones()


@pytest.mark.parametrize(
    "text",
    ["", "{not json", '{"format": "something-else/1"}', '{"format": "table-calibration/1"}'],
)
def test_corrupt_or_foreign_file_is_an_error_and_left_alone(tmp_path: Path, text: str) -> None:
    path = tmp_path / "table.json"
    path.write_text(text)
    with pytest.raises(CalibrationError, match="calibrate"):
        Calibration.load(path)
    assert path.read_text() == text


# --- errors --------------------------------------------------------------------------


def _cover(scene: Scene, *spots: tuple[float, float]) -> Scene:
    """Face-down cards lying on fiducials."""
    backs = tuple(
        CardPlacement(Card.parse(c), x, y, 10.0, face_up=False)
        for c, (x, y) in zip(("9S", "TS", "JS", "QS"), spots, strict=False)
    )
    return replace(scene, cards=scene.cards + backs)


def test_a_missing_fiducial_is_named(renderer: TableRenderer) -> None:
    scene = _cover(Scene(), (350.0, -350.0))
    with pytest.raises(CalibrationError) as exc:
        calibrate(renderer.render(scene).image)
    message = str(exc.value)
    assert "fiducial NE (41) not seen" in message
    assert "north-east corner is in view and lit" in message
    assert "NW" not in message and "SE" not in message

    two = _cover(Scene(), (-350.0, 350.0), (350.0, 350.0))
    with pytest.raises(CalibrationError) as exc:
        calibrate(renderer.render(two).image)
    message = str(exc.value)
    assert "SE (42)" in message and "SW (43)" in message and "south-west" in message


def test_a_hand_over_a_corner_is_named(renderer: TableRenderer) -> None:
    scene = Scene(hands=(Hand(at=(-350.0, -330.0), from_deg=0.0),))
    with pytest.raises(CalibrationError, match=r"NW \(40\) not seen"):
        calibrate(renderer.render(scene).image)


def test_no_mat_at_all(renderer: TableRenderer) -> None:
    black = np.full((720, 1280, 3), 8, np.uint8)
    with pytest.raises(CalibrationError, match="none of the mat's four corner markers") as exc:
        calibrate(black)
    assert "almost black" in str(exc.value)
    away = Camera(position=(2000.0, 0.0, 1000.0), target=(2000.0, 10.0))
    with pytest.raises(CalibrationError, match="none of the mat's"):
        calibrate(renderer.render(Scene(camera=away)).image)


def _marker_box(r: Rendered, marker: int, margin: int = 3) -> tuple[slice, slice]:
    c = r.fiducials[marker].corners
    x0, y0 = np.floor(c.min(axis=0)).astype(int) - margin
    x1, y1 = np.ceil(c.max(axis=0)).astype(int) + margin
    side = max(x1 - x0, y1 - y0)
    return slice(y0, y0 + side), slice(x0, x0 + side)


def _straight_on() -> Rendered:
    return TableRenderer().render(Scene(camera=Camera(position=(0.0, 0.0, 1000.0))))


def test_a_misplaced_sheet_gives_a_bad_calibration() -> None:
    r = _straight_on()
    img = r.image.copy()
    # Move the SE corner sheet (the 100 mm square) 40 mm towards the mat's centre.
    square = r.camera.project(np.array([[300.0, 300.0], [400.0, 400.0]]))
    (x0, y0), (x1, y1) = np.round(square).astype(int)
    patch = img[y0:y1, x0:x1].copy()
    shift = round(40 / np.sqrt(2) * r.camera.px_per_mm())
    img[y0 - shift : y1 - shift, x0 - shift : x1 - shift] = patch
    with pytest.raises(CalibrationError, match=r"bad calibration: .*SE \(42\).*mm out"):
        calibrate(img)
    calibrate(img, max_error_mm=40.0)  # accepted when asked to be lenient


def test_a_turned_sheet_is_named() -> None:
    r = _straight_on()
    img = r.image.copy()
    ys, xs = _marker_box(r, 41)
    img[ys, xs] = np.rot90(img[ys, xs]).copy()
    with pytest.raises(CalibrationError, match=r"NE \(41\) \(a quarter turn\) is turned"):
        calibrate(img)


def test_swapped_sheets_are_noticed() -> None:
    r = _straight_on()
    img = r.image.copy()
    a, b = _marker_box(r, 40), _marker_box(r, 41)
    pa, pb = img[a].copy(), img[b].copy()
    n = min(pa.shape[0], pb.shape[0])
    img[a][:n, :n], img[b][:n, :n] = pb[:n, :n], pa[:n, :n]
    with pytest.raises(CalibrationError, match="not in their corners") as exc:
        calibrate(img)
    assert "NW (40) is in the north-east corner, NE (41) is in the north-west" in str(exc.value)


def test_sheets_printed_at_the_wrong_size() -> None:
    r = _straight_on()
    img = r.image.copy()
    for m in (40, 41, 42, 43):
        ys, xs = _marker_box(r, m, margin=1)
        patch = img[ys, xs].copy()
        paper = np.median(img[ys.start - 5, xs], axis=0)
        img[ys, xs] = paper
        n = patch.shape[0]
        small = cv2.resize(patch, None, fx=0.8, fy=0.8, interpolation=cv2.INTER_AREA)
        k = (n - small.shape[0]) // 2
        img[
            ys.start + k : ys.start + k + small.shape[0],
            xs.start + k : xs.start + k + small.shape[1],
        ] = small
    with pytest.raises(CalibrationError, match="measure about 4[6-9] mm, not 60 mm"):
        calibrate(img)


def _printed_at(r: Rendered, scale_: float) -> np.ndarray:
    """The picture with every corner marker shrunk about its centre, as a print at
    ``scale_`` would show it."""
    img = r.image.copy()
    for m in (40, 41, 42, 43):
        c = r.fiducials[m].corners
        x0, y0 = np.floor(c.min(axis=0)).astype(int) - 2
        x1, y1 = np.ceil(c.max(axis=0)).astype(int) + 2
        patch = img[y0:y1, x0:x1].copy()
        img[y0:y1, x0:x1] = np.median(img[y0 - 4, x0:x1], axis=0)
        small = cv2.resize(patch, None, fx=scale_, fy=scale_, interpolation=cv2.INTER_AREA)
        ky, kx = (np.array(patch.shape[:2]) - small.shape[:2]) // 2
        img[y0 + ky : y0 + ky + small.shape[0], x0 + kx : x0 + kx + small.shape[1]] = small
    return img


WIDE_LENSES = (
    Camera(hfov_deg=102, position=(20.0, 60.0, 900.0), distortion=(-0.15, 0, 0, 0, 0)),
    Camera(hfov_deg=84, position=(20.0, 60.0, 900.0), distortion=(-0.13, 0, 0, 0, 0)),
    Camera(1920, 1080, hfov_deg=66, position=(20.0, 60.0, 1200.0), distortion=(-0.15, 0, 0, 0, 0)),
    Camera(1920, 1080, hfov_deg=84, position=(20.0, 60.0, 900.0), distortion=(-0.1, 0, 0, 0, 0)),
)


def _zone_points() -> np.ndarray:
    pts = []
    for z in default_zones():
        (x0, y0), (x1, y1) = np.min(z.polygon, axis=0), np.max(z.polygon, axis=0)
        pts += [(x, y) for x in np.linspace(x0, x1, 7) for y in np.linspace(y0, y1, 7)]
    return np.array(pts)


@pytest.mark.parametrize("camera", WIDE_LENSES, ids=lambda c: f"{c.width}-{c.hfov_deg:.0f}deg")
def test_a_wide_lens_is_measured_from_the_mat(renderer: TableRenderer, camera: Camera) -> None:
    r = renderer.render(Scene(camera=camera, effects=Effects.realistic()))
    cal = calibrate(r.image)
    assert cal.camera_matrix is not None and cal.distortion is not None
    # k1 at calibrate's focal length guess, converted to the camera's: only k1/f^2 counts.
    k1 = cal.distortion[0] * (camera.focal_px / cal.camera_matrix[0, 0]) ** 2
    assert k1 == pytest.approx(camera.distortion[0], abs=0.025)
    pts = _zone_points()
    error = np.linalg.norm(image_to_table(cal, camera.project(pts)) - pts, axis=1)
    assert np.percentile(error, 99) <= 3.0
    assert np.abs(table_to_image(cal, pts) - camera.project(pts)).max() < 3.0


@pytest.mark.parametrize(
    "camera", [Camera(position=(0.0, 0.0, 1000.0)), Camera(), realistic_cameras()[3]],
    ids=["straight", "tilted", "from-the-edge"],
)  # fmt: skip
def test_a_print_at_95_percent_gets_the_print_message(
    renderer: TableRenderer, camera: Camera
) -> None:
    r = renderer.render(Scene(camera=camera, effects=Effects.realistic()))
    with pytest.raises(CalibrationError, match=r"measure about 57 mm, not 60 mm.*print the "):
        calibrate(_printed_at(r, 0.95))


@pytest.mark.parametrize("camera", WIDE_LENSES[:2], ids=["102deg", "84deg"])
def test_a_wide_lens_never_gets_the_print_message(renderer: TableRenderer, camera: Camera) -> None:
    r = renderer.render(Scene(camera=camera, effects=Effects.realistic()))
    # Asked for more than the mat's one-number lens can give: the lens is named.
    with pytest.raises(CalibrationError) as exc:
        calibrate(r.image, max_error_mm=0.2)
    message = str(exc.value)
    assert "print the sheets" not in message and "measure about" not in message
    assert "the lens bends the picture" in message and "the print is right" in message
    assert "calibrate board" in message and "10-20 pictures" in message
    assert "calibrate lens --images DIR" in message


def test_unknown_family_and_empty_picture() -> None:
    with pytest.raises(CalibrationError, match="unknown marker family"):
        calibrate(np.zeros((10, 10, 3), np.uint8), "nope")
    with pytest.raises(CalibrationError, match="empty"):
        calibrate(np.zeros((0, 0, 3), np.uint8))


# --- drift, scale, overlay --------------------------------------------------------------


def test_drift_notices_a_moved_camera(renderer: TableRenderer, table: Rendered) -> None:
    cal = calibrate(table.image)
    assert drift(cal, table.image) == pytest.approx(0.0, abs=0.01)
    again = renderer.render(table.scene, seed=5)  # the same table, new noise
    assert drift(cal, again.image) < 0.5
    for moved in (
        replace(table.camera, position=(15.0, 60.0, 1000.0), target=(15.0, 0.0)),
        replace(table.camera, roll_deg=1.0),
        replace(table.camera, position=(0.0, 60.0, 960.0)),
    ):
        d = drift(cal, renderer.render(replace(table.scene, camera=moved)).image)
        assert d is not None and d > DRIFT_PX
    hidden = _cover(Scene(), (-350, -350), (350, -350), (350, 350), (-350, 350))
    assert drift(cal, renderer.render(hidden).image) is None
    with pytest.raises(CalibrationError, match="1920x1080 pictures.*1280x720"):
        drift(cal, np.zeros((1080, 1920, 3), np.uint8))


def test_scale(table: Rendered) -> None:
    s = scale(calibrate(table.image))
    assert s.px_per_mm == pytest.approx(table.camera.px_per_mm(), rel=0.02)
    assert s.min_px_per_mm <= s.px_per_mm
    assert s.cell_mm == pytest.approx(5.0)
    assert s.enough  # 1280x720 over the whole mat: about 4 px a cell of a 30 mm marker
    low = TableRenderer().render(Scene(camera=Camera(width=640, height=360)))
    assert not scale(calibrate(low.image)).enough
    hi = TableRenderer().render(Scene(camera=Camera(width=2304, height=1296)))
    assert scale(calibrate(hi.image)).min_cell_px > MIN_CELL_PX


def test_overlay_draws_in_every_zone(table: Rendered, tmp_path: Path) -> None:
    cal = calibrate(table.image)
    drawn = overlay(cal, table.image)
    assert drawn.shape == table.image.shape and not np.shares_memory(drawn, table.image)
    changed = np.abs(drawn.astype(int) - table.image.astype(int)).sum(axis=2) > 20
    for zone in cal.zones:
        mask = np.zeros(changed.shape, np.uint8)
        px = np.round(cal.to_image(np.array(zone.polygon))).astype(np.int32)
        cv2.fillPoly(mask, [px], 1)
        inside = changed[mask.astype(bool)]
        assert inside.mean() > 0.5, zone.name
    gray = overlay(cal, cv2.cvtColor(table.image, cv2.COLOR_BGR2GRAY))
    assert gray.ndim == 3
    cv2.imwrite(str(tmp_path / "overlay.png"), drawn)


# --- the lens -------------------------------------------------------------------------


def _board_views(camera: Camera, n: int, seed: int = 0) -> list[np.ndarray]:
    renderer = TableRenderer()
    board = board_image(None, 4.0)
    rng = np.random.default_rng(seed)
    views = []
    for _ in range(n):
        x, y = rng.uniform(-300, 300), rng.uniform(-180, 180)
        turn = (rng.uniform(-35, 35), rng.uniform(-35, 35), rng.uniform(-20, 20))
        sheet = Sheet(board, (252.0, 180.0), (x, y, rng.uniform(150, 450)), turn)
        scene = Scene(camera=camera, effects=Effects(blur=0.5, noise=2.0), sheets=(sheet,))
        views.append(renderer.render(scene).image)
    return views


def test_lens_is_measured_and_used(tmp_path: Path) -> None:
    cam = Camera(distortion=(-0.22, 0.05, 0.0, 0.0, 0.0))
    k, dist = lens(_board_views(cam, 10))
    assert k[0, 0] == pytest.approx(cam.focal_px, rel=0.03)
    assert dist[0] == pytest.approx(-0.22, abs=0.04)

    r = TableRenderer().render(random_scene(np.random.default_rng(3), 8, camera=cam))
    # From the mat alone, the first-order lens fitted on its corner markers...
    from_mat = calibrate(r.image)
    assert from_mat.distortion is not None and from_mat.distortion[0] < -0.1
    for card in r.cards:
        (x, y), *_ = image_to_table(from_mat, cam.project(np.array([[card.x, card.y]])))
        assert np.hypot(x - card.x, y - card.y) < 3.0
    # ...and with the lens measured on the board.
    cal = calibrate(r.image, lens=(k, dist))
    assert cal.camera_matrix is not None
    for card in r.cards:
        seen = cam.project(np.array([[card.x, card.y]]))
        (x, y), *_ = image_to_table(cal, seen)
        assert np.hypot(x - card.x, y - card.y) < 3.0
    corners = table_to_image(cal, np.array([[350.0, -350.0]]))
    assert np.abs(corners - cam.project(np.array([[350.0, -350.0]]))).max() < 1.5
    cal.save(tmp_path / "t.json")
    back = Calibration.load(tmp_path / "t.json")
    assert back.distortion is not None and np.allclose(back.distortion, cal.distortion)


def test_lens_needs_enough_board_pictures(tmp_path: Path) -> None:
    with pytest.raises(CalibrationError, match="only 0 of 2 pictures show the ChArUco board"):
        lens([np.zeros((720, 1280, 3), np.uint8)] * 2)
    with pytest.raises(CalibrationError, match="differ in size"):
        lens([np.zeros((720, 1280), np.uint8), np.zeros((480, 640), np.uint8)])
    fit = measure_lens(_board_views(Camera(), 6, seed=1))
    save_lens(tmp_path / "lens.json", fit)
    assert load_lens(tmp_path / "lens.json").image_size == (1280, 720)
    (tmp_path / "bad.json").write_text("[]")
    with pytest.raises(CalibrationError, match="not a lens file"):
        load_lens(tmp_path / "bad.json")


# --- printables -----------------------------------------------------------------------


def test_bitmaps_become_exact_rectangles() -> None:
    rng = np.random.default_rng(0)
    for _ in range(20):
        bits = rng.random((7, 9)) < 0.5
        canvas = np.zeros_like(bits)
        for x, y, w, h in _runs(bits):
            assert not canvas[y : y + h, x : x + w].any()
            canvas[y : y + h, x : x + w] = True
        assert np.array_equal(canvas, bits)


def test_printables_are_written_and_small(tmp_path: Path) -> None:
    for path in (
        write_corner_sheets(tmp_path / "corners.pdf", "a4"),
        write_corner_sheets(tmp_path / "corners-letter.pdf", "letter"),
        write_full_mat(tmp_path / "mat.pdf"),
        write_board(tmp_path / "board.pdf", "letter"),
    ):
        data = path.read_bytes()
        assert data.startswith(b"%PDF") and len(data) < 300_000
    assert b"/Count 4" in (tmp_path / "corners.pdf").read_bytes()  # four pages
    for name in ("mat-corners-a4.pdf", "mat-corners-letter.pdf", "charuco-board-a4.pdf"):
        committed = ROOT / "calibration" / name
        assert committed.exists() and committed.stat().st_size < 300_000, name


# --- the command -----------------------------------------------------------------------


def test_cli_calibrates_a_picture(table: Rendered, tmp_path: Path) -> None:
    picture = tmp_path / "table.png"
    cv2.imwrite(str(picture), table.image)
    out = tmp_path / "cal" / "table.json"
    code, text = run(["calibrate", "--image", str(picture), "--out", str(out)])
    assert code == 0, text
    assert Calibration.load(out).image_size == (1280, 720)
    overlay_png = tmp_path / "cal" / "table-overlay.png"
    assert cv2.imread(str(overlay_png)) is not None
    assert f"Calibration written to {out}" in text and str(overlay_png) in text
    assert "px/mm" in text and "a card marker cell (5.0 mm) gets" in text and "warning" not in text
    # A camera too coarse for the markers is told what would do.
    small = tmp_path / "small.png"
    cv2.imwrite(str(small), cv2.resize(table.image, (640, 360), interpolation=cv2.INTER_AREA))
    code, text = run(["calibrate", "--image", str(small), "--out", str(tmp_path / "s.json")])
    assert code == 0, text
    assert "warning: card markers" in text and "1280x720 would give" in text


def test_cli_calibrates_a_wide_lens(renderer: TableRenderer, tmp_path: Path) -> None:
    r = renderer.render(Scene(camera=WIDE_LENSES[1], effects=Effects.realistic()))
    picture = tmp_path / "wide.png"
    cv2.imwrite(str(picture), r.image)
    out = tmp_path / "table.json"
    code, text = run(["calibrate", "--image", str(picture), "--out", str(out)])
    assert code == 0, text
    assert "lens: barrel distortion measured on the mat's corner markers and corrected" in text
    assert "without it the fit was" in text and "print the sheets" not in text
    assert Calibration.load(out).distortion is not None


def test_cli_advises_a_larger_picture_below_3_5_px_a_cell(
    renderer: TableRenderer, tmp_path: Path
) -> None:
    camera = Camera(hfov_deg=84, position=(0.0, 60.0, 1000.0))  # 3.4 px a cell
    picture = tmp_path / "t.png"
    cv2.imwrite(str(picture), renderer.render(Scene(camera=camera)).image)
    code, text = run(["calibrate", "--image", str(picture), "--out", str(tmp_path / "t.json")])
    assert code == 0 and "warning: card markers" not in text
    assert "advice: the farthest zone gets 3.4 px per card marker cell" in text
    assert "1920x1080 would give 5.1 px: `--camera picamera2,width=1920,height=1080`" in text


def test_cli_errors(table: Rendered, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "table.json"
    code, _ = run(["calibrate", "--image", str(tmp_path / "missing.png"), "--out", str(out)])
    assert code == 2 and "missing.png does not exist" in capsys.readouterr().err

    junk = tmp_path / "junk.png"
    junk.write_text("not a picture")
    code, _ = run(["calibrate", "--image", str(junk), "--out", str(out)])
    assert code == 2 and "not a picture" in capsys.readouterr().err

    # A good calibration stays when a new attempt fails.
    good = tmp_path / "good.png"
    cv2.imwrite(str(good), table.image)
    assert run(["calibrate", "--image", str(good), "--out", str(out)])[0] == 0
    before = out.read_text()
    covered = TableRenderer().render(_cover(table.scene, (350.0, 350.0)))
    bad = tmp_path / "bad.png"
    cv2.imwrite(str(bad), covered.image)
    code, _ = run(["calibrate", "--image", str(bad), "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 1 and "fiducial SE (42) not seen" in err and "left as it was" in err
    assert out.read_text() == before

    # A file that is not a calibration is never overwritten.
    foreign = tmp_path / "notes.json"
    foreign.write_text(json.dumps({"my": "notes"}))
    code, _ = run(["calibrate", "--image", str(good), "--out", str(foreign)])
    assert code == 2 and "not a table calibration" in capsys.readouterr().err
    assert json.loads(foreign.read_text()) == {"my": "notes"}
    assert run(["calibrate", "--image", str(good), "--out", str(foreign), "--force"])[0] == 0

    code, _ = run(["calibrate", "--image", str(good), "--overlay", str(tmp_path / "o.txt")])
    assert code == 2 and ".png" in capsys.readouterr().err


def test_cli_from_a_camera_and_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "table.json"
    code, text = run(["calibrate", "--camera", "synthetic,limit=3", "--out", str(out)])
    assert code == 0 and "camera synthetic, frame 0" in text
    code, text = run(["calibrate", "check", "--camera", "synthetic", "--calibration", str(out)])
    assert code == 0 and "still fits" in text
    moved = TableRenderer().render(Scene(camera=Camera(position=(20.0, 60.0, 1000.0))))
    picture = tmp_path / "moved.png"
    cv2.imwrite(str(picture), moved.image)
    code, _ = run(["calibrate", "check", "--image", str(picture), "--calibration", str(out)])
    assert code == 1 and "has moved by" in capsys.readouterr().err
    code, _ = run(["calibrate", "--camera", "usb:/dev/video-none", "--out", str(out)])
    assert code == 2 and "no camera at /dev/video-none" in capsys.readouterr().err


def test_cli_prints_the_mat_and_board(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, text = run(["calibrate", "mat", "--out", str(tmp_path / "m.pdf"), "--paper", "letter"])
    assert code == 0 and "LETTER" in text and (tmp_path / "m.pdf").exists()
    code, text = run(["calibrate", "mat", "--out", str(tmp_path / "f.pdf"), "--full-size"])
    assert code == 0 and "800 x 800 mm" in text
    code, text = run(["calibrate", "board", "--out", str(tmp_path / "b.pdf")])
    assert code == 0 and (tmp_path / "b.pdf").read_bytes().startswith(b"%PDF")
    code, _ = run(["calibrate", "mat", "--out", str(tmp_path / "m.png")])
    assert code == 2 and ".pdf" in capsys.readouterr().err


def test_cli_lens(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cam = Camera(distortion=(-0.15, 0.0, 0.0, 0.0, 0.0))
    folder = tmp_path / "board"
    folder.mkdir()
    for i, view in enumerate(_board_views(cam, 8, seed=4)):
        cv2.imwrite(str(folder / f"{i}.png"), view)
    lens_file = tmp_path / "lens.json"
    code, text = run(["calibrate", "lens", "--images", str(folder), "--out", str(lens_file)])
    assert code == 0 and "Lens written to" in text
    table = TableRenderer().render(random_scene(np.random.default_rng(6), 6, camera=cam))
    picture = tmp_path / "table.png"
    cv2.imwrite(str(picture), table.image)
    out = tmp_path / "table.json"
    code, text = run(
        ["calibrate", "--image", str(picture), "--lens", str(lens_file), "--out", str(out)]
    )
    assert code == 0 and "lens: distortion corrected" in text
    assert Calibration.load(out).camera_matrix is not None
    empty = tmp_path / "empty"
    empty.mkdir()
    code, _ = run(["calibrate", "lens", "--images", str(empty)])
    assert code == 2 and "no pictures" in capsys.readouterr().err
