"""The synthetic table: deterministic frames whose ground truth matches what a detector
reads."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from table_controller.cards import Card
from table_controller.vision.layout import fiducial_corners
from table_controller.vision.markers import FIDUCIALS, Sighting, family
from table_controller.vision.synthetic import (
    Camera,
    CardPlacement,
    Effects,
    Hand,
    MarkerTruth,
    Rendered,
    Scene,
    TableRenderer,
    demo_script,
    pile,
    place,
    random_scene,
    realistic_cameras,
    script_from_json,
)

ARUCO = family("aruco")


@pytest.fixture(scope="module")
def renderer() -> TableRenderer:
    return TableRenderer()


def read(image: np.ndarray) -> list[Sighting]:
    return ARUCO.read(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))


def matches(s: Sighting, m: MarkerTruth, tol: float = 2.0) -> bool:
    return s.marker == m.marker and float(np.abs(s.corners - m.corners).max()) <= tol


def all_markers(r: Rendered) -> list[MarkerTruth]:
    return [m for c in r.cards for m in c.markers] + list(r.fiducials.values())


def test_same_scene_same_pixels_and_seed_changes_noise(renderer: TableRenderer) -> None:
    scene = random_scene(np.random.default_rng(4), 8, hands=1, effects=Effects.realistic())
    a = renderer.render(scene).image
    b = TableRenderer().render(scene).image  # a fresh renderer: caches change nothing
    assert a.dtype == np.uint8 and a.shape == (720, 1280, 3)
    assert np.array_equal(a, b)
    c = renderer.render(scene, seed=99).image
    assert not np.array_equal(a, c)


def test_random_scenes_are_deterministic() -> None:
    one = random_scene(np.random.default_rng(11), 8, stacked=0.5, hands=2)
    two = random_scene(np.random.default_rng(11), 8, stacked=0.5, hands=2)
    assert one == two
    assert len({p.card for p in one.cards}) == 8


@pytest.mark.parametrize("camera", realistic_cameras()[:3] + realistic_cameras()[4:])
def test_truth_matches_what_aruco_reads_on_clean_frames(
    renderer: TableRenderer, camera: Camera
) -> None:
    for seed in range(3):
        r = renderer.render(random_scene(np.random.default_rng(seed), 8, camera=camera))
        sightings = read(r.image)
        truth = all_markers(r)
        for m in truth:
            if m.visible:
                assert any(matches(s, m) for s in sightings), (seed, m.marker, m.corners)
        for s in sightings:  # nothing read that is not there
            assert any(matches(s, m) for m in truth), (seed, s.marker)
        assert all(r.fiducials[f].visible for f in FIDUCIALS)


def test_corner_error_is_small_and_unbiased(renderer: TableRenderer) -> None:
    diffs = []
    for seed in range(3):
        r = renderer.render(random_scene(np.random.default_rng(seed), 8))
        sightings = read(r.image)
        for m in all_markers(r):
            diffs += [s.corners - m.corners for s in sightings if matches(s, m)]
    d = np.concatenate(diffs)
    assert np.abs(d).mean() < 0.6
    assert np.abs(d.mean(axis=0)).max() < 0.15  # no half-pixel shift


def test_occluded_markers_do_not_read(renderer: TableRenderer) -> None:
    hidden = 0
    for seed in range(12):
        scene = random_scene(
            np.random.default_rng(seed), 6, stacked=0.4, hands=2, hand_fraction=(0.3, 0.9)
        )
        r = renderer.render(scene)
        sightings = read(r.image)
        for m in all_markers(r):
            if m.occluded >= 0.2:
                hidden += 1
                assert not any(matches(s, m, 3.0) for s in sightings), (seed, m.marker)
    assert hidden > 10  # the scenes really did hide markers


def test_a_hand_covers_the_fraction_asked(renderer: TableRenderer) -> None:
    rng = np.random.default_rng(3)
    for fraction in (0.1, 0.3, 0.5, 0.8):
        card = place("JH", "play:S", rng)
        r = renderer.render(Scene((card,), (Hand(over="JH", fraction=fraction),)))
        assert r.cards[0].covered == pytest.approx(fraction, abs=0.04)


def test_hand_from_a_bearing_and_at_a_point(renderer: TableRenderer) -> None:
    card = CardPlacement(Card.parse("AS"), 0.0, 150.0)
    r = renderer.render(Scene((card,), (Hand(over=0, fraction=0.3, from_deg=90.0),)))
    top_right, bottom_left = r.cards[0].markers
    assert top_right.occluded > 0.5 and bottom_left.occluded == 0.0  # came from the East
    free = renderer.render(Scene((card,), (Hand(at=(0.0, -200.0), from_deg=0.0),)))
    assert free.cards[0].covered == 0.0
    with pytest.raises(ValueError, match="not in the scene"):
        renderer.render(Scene((card,), (Hand(over="9C"),)))


def test_face_down_cards_have_no_markers(renderer: TableRenderer) -> None:
    cards = pile(["9C", "TC", "JC", "QC"], "tricks:S", np.random.default_rng(1), face_up=False)
    r = renderer.render(Scene(cards))
    assert all(c.markers == () and not c.readable for c in r.cards)
    assert [s.marker for s in read(r.image) if s.marker < 24] == []


def test_stacked_card_hides_the_one_below(renderer: TableRenderer) -> None:
    below = CardPlacement(Card.parse("9D"), 0.0, 150.0)
    above = replace(below, card=Card.parse("TD"), angle=4.0)
    r = renderer.render(Scene((below, above)))
    assert r.cards[0].covered > 0.9 and not r.cards[0].readable
    assert r.cards[1].covered == 0.0 and r.cards[1].readable
    assert {s.marker for s in read(r.image) if s.marker < 24} == {int(Card.parse("TD"))}


def test_camera_geometry() -> None:
    cam = realistic_cameras()[3]
    pts = np.array([[0.0, 0.0], [350.0, -350.0], [-120.0, 210.0]])
    h = cam.table_to_image()
    projected = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), h).reshape(-1, 2)
    assert np.allclose(cam.project(pts), projected, atol=1e-6)
    back = cv2.perspectiveTransform(projected.reshape(-1, 1, 2), cam.image_to_table())
    assert np.allclose(back.reshape(-1, 2), pts, atol=1e-6)
    # Straight down from 1 m, North is up and East right.
    top = Camera(position=(0.0, 0.0, 1000.0))
    centre, north, east = top.project(np.array([[0.0, 0.0], [0.0, -100.0], [100.0, 0.0]]))
    assert centre == pytest.approx([639.5, 359.5])
    assert north[1] < centre[1] and east[0] > centre[0]
    assert top.px_per_mm() == pytest.approx(top.focal_px / 1000.0)
    for cam in realistic_cameras():
        corners = np.concatenate([fiducial_corners(m) for m in FIDUCIALS])
        assert cam.sees(corners, margin=10)


def test_lens_distortion_in_the_truth(renderer: TableRenderer) -> None:
    cam = Camera(distortion=(-0.2, 0.04, 0.0, 0.0, 0.0))
    r = renderer.render(random_scene(np.random.default_rng(5), 8, camera=cam))
    sightings = read(r.image)
    visible = [m for m in all_markers(r) if m.visible]
    found = sum(any(matches(s, m) for s in sightings) for m in visible)
    assert found >= 0.9 * len(visible)
    ideal = Camera().project(fiducial_corners(40))
    assert np.abs(r.fiducials[40].corners - ideal).max() > 5  # really bent


def test_effects_each_change_the_frame(renderer: TableRenderer) -> None:
    scene = random_scene(np.random.default_rng(8), 6)
    clean = renderer.render(scene).image.astype(int)
    for fx in (
        Effects(blur=1.5),
        Effects(motion=5.0, motion_deg=30.0),
        Effects(glare=0.9),
        Effects(lighting=0.6),
        Effects(cast=(1.2, 1.0, 0.8)),
        Effects(exposure=0.7),
        Effects(noise=5.0),
        Effects(jpeg=40),
        Effects.harsh(),
    ):
        img = renderer.render(replace(scene, effects=fx)).image
        assert img.shape == clean.shape and img.dtype == np.uint8
        assert np.abs(img.astype(int) - clean).mean() > 0.3, fx


def test_glare_lands_where_asked(renderer: TableRenderer) -> None:
    scene = Scene(effects=Effects(glare=1.0, glare_at=((0.0, 0.0),), glare_px=30.0))
    r = renderer.render(scene)
    x, y = np.round(r.camera.project(np.array([[0.0, 0.0]]))[0]).astype(int)
    assert r.image[y, x].min() > 240
    assert r.image[y, x + 200].max() < 200


def test_scripts(renderer: TableRenderer) -> None:
    doc = {
        "seed": 2,
        "effects": "realistic",
        "scenes": [
            {"frames": 2, "cards": [{"card": "JH", "zone": "play:S"}]},
            {
                "cards": [
                    {"card": "JH", "zone": "play:S"},
                    {"card": "9C", "x": 10, "y": -150, "angle": 180},
                ],
                "hands": [{"over": "9C", "fraction": 0.4}],
            },
        ],
    }
    steps = script_from_json(doc)
    assert [s.frames for s in steps] == [2, 1]
    assert steps[0].scene.cards[0] == steps[1].scene.cards[0]  # the JH stays put
    r = renderer.render(steps[1].scene)
    assert r.card("9C").zone == "play:N" and r.card("JH").zone == "play:S"
    for bad in ({"scenes": [{"cards": [{"card": "XX", "zone": "kitty"}]}]}, {"nope": 1}):
        with pytest.raises(ValueError, match="not a valid synthetic table script"):
            script_from_json(bad)
    demo = demo_script(1)
    assert len(demo) > 5 and sum(s.frames for s in demo) > 30
