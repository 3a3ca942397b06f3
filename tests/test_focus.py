"""Focus and glare at set-up: the blur measured at the mat's corner markers, a soft
lens refused with what to do, glare named in the table's words, and the live view's
sharpness figure."""

from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np
import pytest
from calibrate_run import run

from table_controller.vision.calibration import (
    calibrate,
    find_fiducials,
    find_mat,
    overlay,
    sharpness_seen,
)
from table_controller.vision.focus import SOFTEST_BLUR_PX, Sharpness, blur_figures, marker_edges
from table_controller.vision.glare import GlareSpot, find_glare, zone_words
from table_controller.vision.layout import CalibrationError, default_zones
from table_controller.vision.synthetic import (
    Camera,
    Effects,
    Scene,
    TableRenderer,
    random_scene,
)


@pytest.fixture(scope="module")
def renderer() -> TableRenderer:
    return TableRenderer()


def _picture(renderer: TableRenderer, tmp_path: Path, effects: Effects, cards: int = 0) -> Path:
    scene = random_scene(np.random.default_rng(4), cards, effects=effects)
    path = tmp_path / "table.png"
    cv2.imwrite(str(path), renderer.render(scene).image)
    return path


# --- the blur measured -----------------------------------------------------------------


def test_softest_blur_is_a_number_of_pixels() -> None:
    assert isinstance(SOFTEST_BLUR_PX, float) and 0.8 <= SOFTEST_BLUR_PX <= 2.0


@pytest.mark.parametrize("blur", [0.6, 1.0, 1.5, 2.0])
def test_blur_is_measured_at_the_markers(renderer: TableRenderer, blur: float) -> None:
    # The renderer's own softness (about 0.3 px) adds to the blur set.
    expected = math.hypot(blur, 0.3)
    for fx in (
        Effects(blur=blur),
        Effects(blur=blur, noise=6.0, exposure=0.45, lighting=0.5, jpeg=75),  # dim, noisy
        Effects(blur=blur, exposure=1.25),  # bright
    ):
        r = renderer.render(Scene(effects=fx))
        s = find_mat(r.image).sharpness
        assert s is not None
        assert s.worst_px == pytest.approx(expected, abs=0.15), fx


def test_edges_place_the_corners_where_blur_does_not_move_them(
    renderer: TableRenderer,
) -> None:
    r = renderer.render(Scene(camera=Camera(position=(0.0, 0.0, 1000.0)), effects=Effects(blur=2)))
    gray = cv2.cvtColor(r.image, cv2.COLOR_BGR2GRAY)
    seen, _ = find_fiducials(gray)
    for m, s in seen.items():
        edges = marker_edges(gray, s.corners)
        assert edges.sides == 4
        assert np.abs(edges.corners - r.fiducials[m].corners).max() < 0.3


def test_the_limit_grows_with_the_picture() -> None:
    assert Sharpness({40: 1.0}, 1280).limit_px == SOFTEST_BLUR_PX
    assert Sharpness({40: 1.0}, 1920).limit_px == pytest.approx(1.5 * SOFTEST_BLUR_PX)
    assert Sharpness({40: 1.0}, 640).limit_px == SOFTEST_BLUR_PX
    assert Sharpness({40: math.nan}, 1280).sharp_enough  # nothing measured: not refused


# --- calibrate and focus ---------------------------------------------------------------


def test_a_soft_lens_is_refused_with_how_to_focus(
    renderer: TableRenderer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    picture = _picture(renderer, tmp_path, Effects(blur=2.0, noise=2.5, jpeg=90))
    out = tmp_path / "table.json"
    code, text = run(["calibrate", "--image", str(picture), "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 1 and not out.exists() and text == ""
    assert "the picture is soft: the corner markers' edges are blurred over 1.9 px" in err
    assert f"at most {SOFTEST_BLUR_PX:.1f} px reads cards reliably" in err
    assert "--camera picamera2,lens_position=D" in err and "1 / the camera's height" in err
    assert "autofocus" in err and "turn the lens ring" in err
    assert "table-controller vision live --view" in err
    with pytest.raises(CalibrationError, match="the picture is soft"):
        calibrate(cv2.imread(str(picture)), require_sharp=True)
    calibrate(cv2.imread(str(picture)))  # the geometry alone: a simulated harsh camera


def test_a_sharp_lens_is_accepted(renderer: TableRenderer, tmp_path: Path) -> None:
    picture = _picture(renderer, tmp_path, Effects.realistic(), cards=8)
    code, text = run(["calibrate", "--image", str(picture), "--out", str(tmp_path / "t.json")])
    assert code == 0, text
    assert "sharpness: the corner markers' edges blurred over 0.7 px (sigma), " in text
    assert "glare" not in text  # white card faces are not glare


def test_a_wider_picture_may_be_softer_in_pixels(renderer: TableRenderer, tmp_path: Path) -> None:
    big = Camera(width=1920, height=1080, position=(30.0, 40.0, 950.0))
    r = renderer.render(Scene(camera=big, effects=Effects(blur=1.4, noise=2.5)))
    cal = calibrate(r.image)  # 1.4 px at 1920 is 0.93 px at 1280
    assert cal.image_size == (1920, 1080)


# --- glare -----------------------------------------------------------------------------


def test_glare_over_the_north_play_zone_is_named(renderer: TableRenderer, tmp_path: Path) -> None:
    fx = Effects(glare=0.8, glare_px=25, glare_at=((0.0, -150.0),), noise=2.5)
    picture = _picture(renderer, tmp_path, fx)
    code, text = run(["calibrate", "--image", str(picture), "--out", str(tmp_path / "t.json")])
    assert code == 0, text
    warning = next(line for line in text.splitlines() if line.startswith("warning: glare"))
    assert warning.startswith("warning: glare over the North play zone: a washed-out spot")
    assert "play:N" not in text and "move or turn the lamp" in warning
    assert "a matte mat" in warning and "polarising filter" in warning


def test_glare_washing_out_a_play_zone_is_refused(
    renderer: TableRenderer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fx = Effects(glare=0.9, glare_px=45, glare_at=((200.0, 0.0),), noise=2.5)
    picture = _picture(renderer, tmp_path, fx)
    out = tmp_path / "t.json"
    code, _ = run(["calibrate", "--image", str(picture), "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 1 and not out.exists()
    assert "error: glare over the East play zone washes out" in err
    assert "cards laid there cannot be read" in err and "calibrate again" in err


def test_glare_between_zones_names_the_nearest(renderer: TableRenderer) -> None:
    fx = Effects(glare=0.7, glare_px=20, glare_at=((-150.0, 150.0),))
    r = renderer.render(Scene(effects=fx))
    spots = find_glare(r.image, calibrate(r.image))
    assert len(spots) == 1 and not spots[0].zones
    assert spots[0].where in (
        "on the mat between the zones near the West play zone",
        "on the mat between the zones near the South play zone",
    )


def test_zones_in_table_words() -> None:
    words = {z.name: zone_words(z) for z in default_zones()}
    assert words["play:N"] == "the North play zone"
    assert words["tricks:E"] == "East's trick pile"
    assert words["kitty"] == "the kitty"


# --- the live view's figure -------------------------------------------------------------


def test_the_live_view_shows_the_sharpness(renderer: TableRenderer) -> None:
    cal = calibrate(renderer.render(Scene(effects=Effects.realistic())).image)
    sharp = renderer.render(Scene(effects=Effects(blur=0.6))).image
    soft = renderer.render(Scene(effects=Effects(blur=1.8))).image
    assert sharpness_seen(cal, sharp).sharp_enough
    assert not sharpness_seen(cal, soft).sharp_enough
    assert sharpness_seen(cal, soft).worst_px == pytest.approx(1.8, abs=0.2)
    # The figure is drawn under the scale, green or red.
    top = (slice(30, 60), slice(0, 300))
    red = overlay(cal, soft)[top]
    green = overlay(cal, sharp)[top]
    assert ((red[..., 2] > 200) & (red[..., 1] < 100)).sum() > 50
    assert ((green[..., 2] > 200) & (green[..., 1] < 100)).sum() == 0


def test_a_blur_just_over_the_limit_shows_why_it_was_refused() -> None:
    """1.54 against 1.50 printed with one decimal read "over 1.5, at most 1.5"."""
    assert blur_figures(Sharpness({40: 1.54}, 1280)) == ("1.54", "1.50")
    assert blur_figures(Sharpness({40: 2.3}, 1280)) == ("2.3", "1.5")


def test_a_spot_that_only_touches_a_zone_is_said_to_be_beside_it() -> None:
    """A spot named by the zone it barely touches read "(0% of North's trick pile)"."""
    pile = next(z for z in default_zones() if z.kind == "tricks")
    spot = GlareSpot((0.0, 0.0), 12_000.0, zones=(pile,), shares=(0.002,))
    assert spot.describe().startswith(f"glare beside {zone_words(pile)}: a washed-out spot")
    assert "%" not in spot.describe()
    over = GlareSpot((0.0, 0.0), 12_000.0, zones=(pile,), shares=(0.3,))
    assert over.describe().endswith(f"(30% of {zone_words(pile)})")
