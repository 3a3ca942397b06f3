"""The card reader's own pieces: the zone lookup and the detector it sets up."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from table_controller.vision.calibration import calibrate, scale
from table_controller.vision.detect import CardReader, ZoneMap
from table_controller.vision.layout import Calibration, Zone
from table_controller.vision.markers import ArucoFamily, Sighting
from table_controller.vision.synthetic import Camera, Scene, TableRenderer, random_scene

CALIBRATION = calibrate(TableRenderer().render(Scene()).image)
# Odd zones too: a triangle overlapping a play zone, and a sliver.
ODD = Calibration(
    CALIBRATION.image_size,
    CALIBRATION.homography,
    (
        *CALIBRATION.zones,
        Zone("kitty2", "kitty", None, ((0.0, 0.0), (120.5, 30.25), (10.0, 200.0))),
        Zone("sliver", "kitty", None, ((-300.0, -300.0), (-299.2, -300.0), (-299.2, 300.0))),
    ),
)
MAPS = [ZoneMap(CALIBRATION), ZoneMap(ODD)]

coordinate = st.floats(-450.0, 450.0, allow_nan=False)


@settings(max_examples=3000, deadline=None)
@given(st.sampled_from([0, 1]), coordinate, coordinate)
def test_the_zone_grid_answers_exactly_as_the_polygons(which: int, x: float, y: float) -> None:
    zones = MAPS[which]
    zone = zones.calibration.zone_at(x, y)
    assert zones.at(x, y) == (None if zone is None else zone.name)


def test_points_on_and_next_to_every_edge() -> None:
    for zones in MAPS:
        for z in zones.calibration.zones:
            ring = np.array(z.polygon + z.polygon[:1])
            for a, b in itertools.pairwise(ring):
                for t in np.linspace(0.0, 1.0, 7):
                    px, py = a + t * (b - a)
                    for dx, dy in ((0, 0), (0.3, 0), (-0.3, 0), (0, 0.7), (0, -0.7), (1.6, 1.6)):
                        x, y = float(px + dx), float(py + dy)
                        want = zones.calibration.zone_at(x, y)
                        assert zones.at(x, y) == (None if want is None else want.name)


def test_the_detector_is_set_up_for_the_markers_size() -> None:
    reader = CardReader(CALIBRATION)
    s = scale(CALIBRATION)
    assert reader.reduce == 1  # 1280x720: about 4 px a cell, no room to reduce
    assert isinstance(reader.family, ArucoFamily)
    p = reader.family.params
    assert p.adaptiveThreshWinSizeMin == p.adaptiveThreshWinSizeMax  # one pass
    x0, y0, x1, y1 = reader.roi
    side = max(x1 - x0, y1 - y0)
    perimeter = 24 * np.array([s.min_cell_px, s.max_cell_px])  # a marker is 6 cells a side
    assert p.minMarkerPerimeterRate * side < perimeter[0] < perimeter[1]
    assert perimeter[1] < p.maxMarkerPerimeterRate * side
    # A sharper camera is read at half size, and its box is in whole reduced pixels.
    big = calibrate(TableRenderer().render(Scene(camera=Camera(width=2304, height=1296))).image)
    half = CardReader(big)
    assert half.reduce == 2 and all(v % 2 == 0 for v in half.roi)


def test_a_reduced_read_places_cards_as_a_full_one() -> None:
    camera = Camera(width=2304, height=1296)
    renderer = TableRenderer()
    cal = calibrate(renderer.render(Scene(camera=camera)).image)
    table = renderer.render(random_scene(np.random.default_rng(5), 8, camera=camera))
    full = {c.card: c for c in CardReader(cal, reduce=1).read(table.image)}
    half = {c.card: c for c in CardReader(cal).read(table.image)}
    truth = {c.card for c in table.cards if c.face_up}
    assert set(half) == set(full) == truth
    for card, seen in half.items():
        assert seen.zone == full[card].zone
        assert abs(seen.x - full[card].x) < 2.0 and abs(seen.y - full[card].y) < 2.0  # mm


def test_a_marker_of_the_wrong_size_is_not_a_card() -> None:
    """bench/vision.py found the only misreads over 100,000 sightings were outlines far
    from a card marker's printed size; a marker 60% too big or too small is dropped."""
    renderer = TableRenderer()
    table = renderer.render(random_scene(np.random.default_rng(2), 4))
    reader = CardReader(CALIBRATION)
    found = reader.sightings(table.image)
    cards = [s for s in found if s.card is not None]
    assert cards and reader._true_size(cards) == cards
    for factor in (1.6, 0.55):
        centre = cards[0].corners.mean(axis=0)
        odd = Sighting(cards[0].marker, (cards[0].corners - centre) * factor + centre)
        assert reader._true_size([odd, *cards[1:]]) == cards[1:]
