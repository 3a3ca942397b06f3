"""The camera model: each stage of the lens, sensor and processor does what it says, the
presets render, and without a sensor the synthetic table renders as before."""

from __future__ import annotations

import hashlib
from dataclasses import replace

import cv2
import numpy as np
import pytest

from table_controller.cards import Card
from table_controller.vision import optics
from table_controller.vision.optics import (
    PRESETS,
    Sensor,
    camera_for,
    cell_px,
    demosaic,
    jpeg,
    light_rgb,
    mosaic,
    pillbox,
    preset,
    random_setup,
    venue_cameras,
)
from table_controller.vision.synthetic import (
    SURFACES,
    Camera,
    CardPlacement,
    Effects,
    Hand,
    Scene,
    TableRenderer,
    random_scene,
)


@pytest.fixture(scope="module")
def renderer() -> TableRenderer:
    return TableRenderer()


def flat(value: tuple[int, int, int], shape: tuple[int, int] = (64, 96)) -> np.ndarray:
    img = np.empty((*shape, 3), np.uint8)
    img[:] = value
    return img


# --- the stages -------------------------------------------------------------------


def test_bayer_mosaic_keeps_one_colour_per_pixel_and_demosaic_restores_it() -> None:
    red = flat((0, 0, 200))  # BGR
    raw = mosaic(red)
    assert raw.shape == red.shape[:2]
    assert (raw[0::2, 0::2] == 200).all()  # R sites
    assert (raw[0::2, 1::2] == 0).all() and (raw[1::2, 0::2] == 0).all()  # G
    assert (raw[1::2, 1::2] == 0).all()  # B
    for method in ("bilinear", "ea", "vng"):
        back = demosaic(raw, method)[4:-4, 4:-4]
        assert (back[..., 2] >= 195).all() and (back[..., :2] <= 5).all(), method


def test_shot_noise_grows_with_the_signal() -> None:
    sensor = Sensor(white_e=400.0, read_noise_e=1.0, bayer=False, gamma=1.0, sharp_sigma=0.0)
    rng = np.random.default_rng(1)

    def spread(grey: int) -> float:
        out = sensor.develop(flat((grey, grey, grey), (200, 200)), rng)
        return float(out[..., 1].astype(np.float64).std())

    dark, mid, bright = spread(40), spread(120), spread(200)
    assert dark < mid < bright
    # Fewer photons (a dimmer room) at the same picture: more noise.
    dim = replace(sensor, white_e=100.0)
    assert float(dim.develop(flat((120, 120, 120), (200, 200)), rng)[..., 1].std()) > mid * 1.5


def test_no_photon_noise_when_white_e_is_zero() -> None:
    sensor = Sensor(bayer=False, sharp_sigma=0.0)
    out = sensor.develop(flat((90, 90, 90)), np.random.default_rng(0))
    assert out.std() == 0.0 and abs(int(out[0, 0, 1]) - 90) <= 1


def test_defocus_pillbox_is_a_disc_of_the_given_radius() -> None:
    k = pillbox(3.0)
    assert k.shape == (7, 7) and k.sum() == pytest.approx(1.0, abs=1e-5)
    assert k[3, 3] == pytest.approx(k[3, 1], rel=1e-6)  # flat inside, unlike a Gaussian
    assert k[0, 0] == 0.0  # the corners lie outside the disc
    # A point spreads to a disc of radius 3 px: nothing beyond it.
    img = np.zeros((41, 41, 3), np.uint8)
    img[20, 20] = 255
    out = Sensor(sharp_sigma=0.0, defocus_px=3.0).lens(img)
    ys, xs = np.nonzero(out[..., 0])
    r = np.hypot(ys - 20, xs - 20)
    assert r.max() <= 3.5 and r.max() >= 2.5
    assert pillbox(7.5).shape == (15, 15)


def test_lens_is_softer_in_the_corners() -> None:
    rng = np.random.default_rng(2)
    img = (rng.random((240, 320, 3)) > 0.5).astype(np.uint8) * 255
    out = Sensor(sharp_sigma=0.5, corner_sigma=2.0).lens(img).astype(np.float64)

    def detail(a: np.ndarray) -> float:
        return float(np.abs(np.diff(a, axis=1)).mean())

    assert detail(out[:30, :40]) < 0.6 * detail(out[105:135, 140:180])


def test_sharpening_overshoots_at_an_edge() -> None:
    img = np.full((40, 40, 3), 60, np.uint8)
    img[:, 20:] = 180
    rng = np.random.default_rng(0)
    soft = Sensor(bayer=False, sharpen=0.0).develop(cv2.GaussianBlur(img, (0, 0), 1.0), rng)
    sharp = Sensor(bayer=False, sharpen=1.0).develop(cv2.GaussianBlur(img, (0, 0), 1.0), rng)
    assert sharp.max() > soft.max() + 2 and sharp.min() < soft.min() - 2  # halos


def test_white_balance_error_casts_the_picture() -> None:
    grey = flat((128, 128, 128))
    rng = np.random.default_rng(0)
    warm = Sensor(bayer=False, light_k=2700.0, awb_k=4000.0).develop(grey, rng)
    cool = Sensor(bayer=False, light_k=6500.0, awb_k=5000.0).develop(grey, rng)
    right = Sensor(bayer=False, light_k=2700.0, awb_k=2700.0).develop(grey, rng)
    b, _, r = (float(warm[..., i].mean()) for i in range(3))
    assert r > b + 20  # tungsten the balance missed: orange
    b, _, r = (float(cool[..., i].mean()) for i in range(3))
    assert b > r + 5  # cool LED: blue
    assert np.ptp(right.reshape(-1, 3).mean(axis=0)) <= 2  # balanced: grey
    assert light_rgb(2700.0)[0] > 1.3 > light_rgb(6500.0)[0]


def test_jpeg_quality_changes_the_bytes() -> None:
    rng = np.random.default_rng(3)
    img = cv2.GaussianBlur((rng.random((120, 160, 3)) * 255).astype(np.uint8), (0, 0), 1.5)
    assert jpeg(img, 0) is img
    low, high = jpeg(img, 60), jpeg(img, 95)
    err = [float(np.abs(x.astype(int) - img).mean()) for x in (low, high)]
    assert err[0] > err[1] > 0
    assert not np.array_equal(low, high)


def test_rolling_shutter_shifts_rows_progressively() -> None:
    sensor = Sensor(readout_ms=20.0, exposure_ms=10.0)
    shift = sensor.shear(720, motion=4.0, motion_deg=0.0)
    assert shift.shape == (720, 2)
    assert np.all(np.diff(shift[:, 0]) > 0) and np.allclose(shift[:, 1], 0.0, atol=1e-5)
    # 4 px per 10 ms exposure, rows read over 20 ms: 8 px from the top to the bottom row.
    assert shift[-1, 0] - shift[0, 0] == pytest.approx(8.0, rel=1e-4)
    assert not Sensor().shear(720, 4.0, 0.0).any()  # a global shutter
    assert not sensor.shear(720, 0.0, 0.0).any()  # a still camera


def test_rolling_shutter_bends_a_vertical_line_in_a_frame(renderer: TableRenderer) -> None:
    base = Sensor(sharp_sigma=0.0, bayer=False, readout_ms=30.0, exposure_ms=10.0)
    cam = Camera()
    still = renderer.render(Scene(camera=cam, sensor=base, effects=Effects())).image
    moving = renderer.render(
        Scene(camera=cam, sensor=base, effects=Effects(motion=0.001, motion_deg=0.0))
    ).image
    assert np.array_equal(still, moving) or np.abs(still.astype(int) - moving).mean() < 0.5
    shaken = Effects(motion=6.0)
    top = renderer.render(Scene(camera=cam, sensor=base, effects=shaken)).image
    plain = renderer.render(
        Scene(camera=cam, sensor=replace(base, readout_ms=0.0), effects=shaken)
    ).image
    d = np.abs(top.astype(int) - plain).mean(axis=(1, 2))
    # Rows read mid-way are where they were; the top and bottom are shifted.
    assert d[:60].mean() > 3 * d[330:390].mean() and d[-60:].mean() > 3 * d[330:390].mean()


# --- the renderer ------------------------------------------------------------------


def test_without_a_sensor_frames_are_as_before() -> None:
    """The frames of issue 17's renderer, byte for byte (hashes taken before the camera
    model was added)."""
    r = TableRenderer()
    got = []
    for fx, cam in (
        (Effects.realistic(), Camera()),
        (Effects.harsh(), Camera(distortion=(-0.1, 0.0, 0.0, 0.0, 0.0))),
    ):
        scene = random_scene(
            np.random.default_rng(5), 8, hands=1, stacked=0.2, camera=cam, effects=fx
        )
        got.append(hashlib.sha256(r.render(scene).image.tobytes()).hexdigest()[:16])
    assert got == ["221056628b63f207", "38efada9ec9a8931"]


def test_legacy_preset_is_effects_realistic(renderer: TableRenderer) -> None:
    scene = random_scene(np.random.default_rng(6), 6, hands=1, effects=Effects.realistic())
    legacy = replace(scene, effects=Effects(lighting=0.25), sensor=preset("legacy"))
    assert np.array_equal(renderer.render(scene).image, renderer.render(legacy).image)


def test_presets_all_render_and_are_deterministic(renderer: TableRenderer) -> None:
    assert {"legacy", "pi3", "pi3-wide", "webcam", "low-light", "tungsten", "cool-led"} <= set(
        PRESETS
    )
    scene = random_scene(np.random.default_rng(7), 6, hands=1, effects=Effects(lighting=0.3))
    cam = Camera(position=(0.0, 60.0, 1150.0))  # one mounting: the background is drawn once
    frames = {}
    for name, sensor in PRESETS.items():
        s = replace(scene, sensor=replace(sensor, distortion=()), camera=cam)
        frames[name] = renderer.render(s).image
        assert frames[name].shape == (720, 1280, 3) and frames[name].dtype == np.uint8, name
        if sensor.white_e:  # fresh noise for another frame
            assert not np.array_equal(frames[name], renderer.render(s, seed=5).image), name
    assert len({f.tobytes() for f in frames.values()}) == len(PRESETS)
    low = replace(scene, sensor=preset("low-light"), camera=cam)
    assert np.array_equal(frames["low-light"], TableRenderer().render(low).image)


def test_preset_names_an_unknown_model() -> None:
    with pytest.raises(ValueError, match="pi3-wide"):
        preset("pi4")
    with pytest.raises(ValueError, match="demosaic"):
        Sensor(demosaic="magic")


def test_camera_for_fits_the_mat_with_the_presets_lens() -> None:
    wide = camera_for(preset("pi3-wide"))
    assert wide.distortion == preset("pi3-wide").distortion
    assert wide.hfov_deg == preset("pi3-wide").hfov_deg
    pi3 = camera_for(preset("pi3"), (1920, 1080))
    assert pi3.size == (1920, 1080) and pi3.hfov_deg == 66.0
    assert pi3.position[2] > wide.position[2]  # a narrower lens hangs higher


def test_hand_motion_blurs_the_hand_and_its_card_only(renderer: TableRenderer) -> None:
    card = CardPlacement(Card.parse("JH"), 0.0, 250.0, 0.0)
    other = CardPlacement(Card.parse("9C"), 0.0, -250.0, 180.0)
    still = Scene((card, other), (Hand(over=0, fraction=0.3, skin=1),), seed=3)
    moving = replace(still, hands=(Hand(over=0, fraction=0.3, skin=1, motion_px=(12.0, 0.0)),))
    a, b = renderer.render(still), renderer.render(moving)
    diff = np.abs(a.image.astype(int) - b.image).sum(axis=2)
    x0, y0 = a.card("JH").corners.min(axis=0).astype(int)
    x1, y1 = a.card("JH").corners.max(axis=0).astype(int)
    assert diff[y0:y1, x0:x1].mean() > 5  # the card being laid is smeared
    ox0, oy0 = a.card("9C").corners.min(axis=0).astype(int)
    ox1, oy1 = a.card("9C").corners.max(axis=0).astype(int)
    assert diff[oy0:oy1, ox0:ox1].max() == 0  # the rest of the table is not

    # Blurred along x: the image's detail across x drops on the card.
    def detail(img: np.ndarray) -> float:
        return float(np.abs(np.diff(img[y0:y1, x0:x1].astype(int), axis=1)).mean())

    assert detail(b.image) < 0.7 * detail(a.image)


def test_a_pointing_finger_covers_less_than_a_hand(renderer: TableRenderer) -> None:
    card = CardPlacement(Card.parse("AS"), 0.0, 250.0, 0.0)
    flat_hand = renderer.render(Scene((card,), (Hand(over=0, fraction=0.4),), seed=1))
    finger = renderer.render(Scene((card,), (Hand(over=0, fraction=0.4, finger=True),), seed=1))
    assert finger.cards[0].covered == pytest.approx(0.4, abs=0.08)
    assert flat_hand.cards[0].covered == pytest.approx(0.4, abs=0.08)
    assert not np.array_equal(flat_hand.image, finger.image)


def test_an_arm_shadow_darkens_the_table_beside_the_arm(renderer: TableRenderer) -> None:
    card = CardPlacement(Card.parse("AS"), 0.0, 250.0, 0.0)
    plain = renderer.render(Scene((card,), (Hand(over=0, fraction=0.3, skin=0),), seed=1))
    shade = renderer.render(
        Scene((card,), (Hand(over=0, fraction=0.3, skin=0, shadow=0.6),), seed=1)
    )
    darker = plain.image.astype(int).sum(axis=2) - shade.image.astype(int).sum(axis=2)
    assert darker.min() >= -2 and (darker > 30).sum() > 2000


def test_table_surfaces_differ_off_the_mat() -> None:
    cam = Camera()
    frames = {s: TableRenderer(surface=s).render(Scene(camera=cam)).image for s in SURFACES}
    corner = (slice(0, 60), slice(0, 200))
    means = {s: frames[s][corner].reshape(-1, 3).mean(axis=0) for s in SURFACES}
    assert np.abs(means["felt"] - means["wood"]).max() > 20
    assert not np.array_equal(frames["photo"], frames["wood"])
    with pytest.raises(ValueError, match="surfaces"):
        TableRenderer(surface="glass")


# --- venues ------------------------------------------------------------------------


def test_venue_cameras_see_the_cards_as_coarsely_as_the_issues_venues() -> None:
    cams = venue_cameras((1280, 720))
    assert len(cams) == 12
    cells = [cell_px(c) for c in cams]
    assert min(cells) >= 3.15 and max(cells) <= 3.65
    k1 = sorted(c.distortion[0] for c in cams)
    assert k1[0] == pytest.approx(-0.15) and k1[-1] == pytest.approx(-0.02)
    heights = [c.position[2] for c in cams]
    assert min(heights) >= 900 and max(heights) <= 1200
    big = venue_cameras((1920, 1080))
    assert [c.size for c in big] == [(1920, 1080)] * 12
    assert cell_px(big[0]) == pytest.approx(1.5 * cells[0], rel=0.01)


def test_random_setup_is_deterministic_and_sharp_on_request() -> None:
    a = random_setup(np.random.default_rng(9))
    b = random_setup(np.random.default_rng(9))
    assert a == b
    for seed in range(30):
        cam, fx, sensor = random_setup(
            np.random.default_rng(seed), size=(1280, 720), sharp=True, max_defocus_px=1.0
        )
        assert fx.motion == 0.0 and sensor.defocus_px <= 1.0
        assert cam.size == (1280, 720) and 60 <= sensor.jpeg <= 95
    setups = [random_setup(np.random.default_rng(s)) for s in range(60)]
    assert any(fx.motion >= 4 for _, fx, _ in setups)
    assert any(s.white_e < 500 for _, _, s in setups)  # a dim room
    assert any(s.light_k < 3300 for _, _, s in setups) and any(s.light_k > 5500 for *_, s in setups)
    assert {c.size for c, _, _ in setups} == {(1280, 720), (1920, 1080)}


def test_a_random_venue_renders_with_its_truth(renderer: TableRenderer) -> None:
    cam, fx, sensor = random_setup(np.random.default_rng(11), size=(1280, 720))
    scene = replace(
        random_scene(np.random.default_rng(1), 6, camera=cam, effects=fx), sensor=sensor
    )
    r = renderer.render(scene)
    assert r.image.shape == (720, 1280, 3)
    assert all(m.in_frame for m in r.fiducials.values())
    assert optics.Sensor is Sensor


def test_the_synthetic_camera_takes_a_model() -> None:
    from table_controller.vision.camera import CameraError, open_camera

    source = open_camera("synthetic,model=pi3-wide,limit=2")
    frame = source.read()
    assert frame is not None and frame.truth is not None
    assert frame.truth.scene.sensor == preset("pi3-wide")
    assert frame.truth.camera.distortion == preset("pi3-wide").distortion
    assert all(m.in_frame for m in frame.truth.fiducials.values())
    with pytest.raises(CameraError, match="pi3-wide"):
        open_camera("synthetic,model=pi9")


def test_the_wide_preset_sees_102_degrees_edge_to_edge() -> None:
    """The Camera Module 3 Wide: 102 deg across, through its barrel distortion."""
    for name, fov in (("pi3", 66.0), ("pi3-wide", 102.0)):
        cam = camera_for(preset(name))
        mid = (cam.height - 1) / 2
        edges = np.array([[[0.0, mid]], [[cam.width - 1.0, mid]]], np.float32)
        x = cv2.undistortPoints(edges, cam.matrix(), cam.dist_coeffs()).reshape(-1, 2)[:, 0]
        seen = float(np.degrees(np.arctan(np.abs(x)).sum()))
        assert seen == pytest.approx(fov, abs=1.0), name


def test_a_defocus_too_small_to_see_changes_nothing() -> None:
    img = (np.random.default_rng(4).random((30, 40, 3)) * 255).astype(np.uint8)
    lens = Sensor(sharp_sigma=0.0, defocus_px=0.001)
    assert np.array_equal(lens.lens(img), img)
    assert np.array_equal(lens.lens(img, motion=(0.0, 0.0)), img)
