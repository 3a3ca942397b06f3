"""The card reader's own pieces: the zone lookup and the detector it sets up."""

from __future__ import annotations

import itertools

import cv2
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from table_controller.vision.calibration import calibrate, image_to_table, scale
from table_controller.vision.detect import LINE_MM, CardReader, ZoneMap
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
    assert zones.at(x, y) == expected(zones, x, y)


def expected(zones: ZoneMap, x: float, y: float) -> str | None:
    """The polygons' answer, but no zone for a point on a zone's line."""
    cal = zones.calibration
    if cal.distance_to_line(x, y) < LINE_MM:
        return None
    zone = cal.zone_at(x, y)
    return None if zone is None else zone.name


def test_a_card_on_a_zones_line_is_in_no_zone() -> None:
    """Between the kitty (its line at y = 60) and South's play zone (y = 65) a card is
    placed only once it is clearly on one side: a zone decided by less than a reading's
    error would be a guess, and a wrong card is never reported."""
    zones = MAPS[0]
    assert zones.at(0.0, 62.5) is None and zones.on_line(0.0, 62.5)
    assert zones.at(0.0, 60.0 - LINE_MM + 0.1) is None
    assert zones.at(0.0, 60.0 - LINE_MM - 0.1) == "kitty"
    assert zones.at(0.0, 65.0 + LINE_MM + 0.1) == "play:S"
    assert zones.at(0.0, 150.0) == "play:S" and not zones.on_line(0.0, 150.0)


def test_points_on_and_next_to_every_edge() -> None:
    for zones in MAPS:
        for z in zones.calibration.zones:
            ring = np.array(z.polygon + z.polygon[:1])
            for a, b in itertools.pairwise(ring):
                for t in np.linspace(0.0, 1.0, 7):
                    px, py = a + t * (b - a)
                    for d in (0.0, 0.3, 0.7, 1.6, LINE_MM - 0.05, LINE_MM + 0.05, LINE_MM + 1.6):
                        for dx, dy in ((d, 0), (-d, 0), (0, d), (0, -d), (d, d)):
                            x, y = float(px + dx), float(py + dy)
                            assert zones.at(x, y) == expected(zones, x, y)


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
    assert cards and size_ok(reader, cards) == [True] * len(cards)
    for factor in (1.6, 0.55):
        centre = cards[0].corners.mean(axis=0)
        odd = Sighting(cards[0].marker, (cards[0].corners - centre) * factor + centre)
        assert size_ok(reader, [odd, *cards[1:]]) == [False] + [True] * (len(cards) - 1)


def size_ok(reader: CardReader, sightings: list[Sighting]) -> list[bool]:
    corners = np.array([s.corners for s in sightings], np.float64).reshape(-1, 2)
    mm = image_to_table(reader.calibration, corners).reshape(-1, 4, 2)
    return [bool(k) for k in reader._true_size(mm)]


def test_a_noisy_picture_is_smoothed_before_it_is_read_and_a_clean_one_is_not() -> None:
    """Dim light at high gain: the reader smooths only the noisy frame, and reads both."""
    from dataclasses import replace as with_

    from table_controller.vision.detect import NOISY_GREY, noise_level
    from table_controller.vision.optics import preset

    renderer = TableRenderer()
    camera = Camera()
    for white_e, noisy in ((5000.0, False), (120.0, True)):
        sensor = with_(preset("pi3"), white_e=white_e)
        empty = renderer.render(Scene(camera=camera, sensor=sensor)).image
        reader = CardReader(calibrate(empty))
        scene = with_(random_scene(np.random.default_rng(4), 6, camera=camera), sensor=sensor)
        frame = renderer.render(scene)
        grey = cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY)
        assert (noise_level(grey) >= NOISY_GREY) is noisy
        seen = {(c.card, c.zone) for c in reader.read(frame.image)}
        assert reader.smoothed == (1 if noisy else 0)
        cal = reader.calibration
        truth = {
            (c.card, cal.zone_at(c.x, c.y).name)  # type: ignore[union-attr]
            for c in frame.cards
            if all(m.visible for m in c.markers)
            and cal.zone_at(c.x, c.y) is not None
            and cal.distance_to_line(c.x, c.y) > 10
        }
        assert truth and truth <= seen


def test_a_card_printed_twice_is_read_as_two_cards_each_where_it_lies() -> None:
    """Two copies of one code (two decks mixed): one reading each, at its own place,
    both markers of each copy combined, so the tracker sees one code in two places."""
    from table_controller.cards import Card
    from table_controller.vision.synthetic import CardPlacement

    jh = Card.parse("JH")
    copies = (
        CardPlacement(jh, 0.0, 150.0, 0.0),
        CardPlacement(jh, 70.0, 150.0, 0.0),  # side by side: 70 mm apart
        CardPlacement(jh, 0.0, -150.0, 180.0),
    )
    frame = TableRenderer().render(Scene(copies)).image
    seen = sorted(CardReader(CALIBRATION).read(frame), key=lambda c: (round(c.y, -2), c.x))
    assert [c.card for c in seen] == [jh] * 3 and [c.markers for c in seen] == [2, 2, 2]
    for c, p in zip(seen, sorted(copies, key=lambda p: (p.y, p.x)), strict=True):  # N, then S
        assert abs(c.x - p.x) < 3.0 and abs(c.y - p.y) < 3.0


def test_another_decks_marker_is_no_card_and_is_listed_apart_where_it_lies() -> None:
    """A card printed with an id of the dictionary that is none of this deck's (nor a
    fiducial) is never read as a card, and is listed apart with its id and where it
    lies; a QR deck's card at an ArUco table is never read as a card either, and is
    listed apart too, as printed in QR codes, in the frames the other family is looked
    for in (the first, then one in ``OTHER_EVERY``)."""
    from table_controller.cards import Card
    from table_controller.rules.events import Printing
    from table_controller.vision.other_family import OTHER_EVERY
    from table_controller.vision.synthetic import CardPlacement

    ours = CardPlacement(Card.parse("9C"), 0.0, 150.0, 0.0)
    other = CardPlacement(Card.parse("9C"), 0.0, -150.0, 180.0, marker=31)
    qr = CardPlacement(Card.parse("AS"), 150.0, 0.0, 270.0, family="qr-zxing")
    reader = CardReader(CALIBRATION)
    frame = TableRenderer().render(Scene((ours, other, qr))).image
    for n in range(OTHER_EVERY + 1):
        seen = reader.read(frame)
        assert [(c.card.code, c.zone) for c in seen] == [("9C", "play:S")]
        ours_apart = [f for f in reader.foreign if f.family is None]
        assert [f.marker for f in ours_apart] == [31, 31]  # its two markers
        for f in ours_apart:
            assert abs(f.x - 0.0) < 3.0 and abs(f.y + 150.0) < 3.0 and f.zone == "play:N"
        qr_cards = [f for f in reader.foreign if f.family is Printing.QR]
        if n % OTHER_EVERY:
            assert qr_cards == []  # not looked for in this frame
            continue
        (card,) = qr_cards
        assert abs(card.x - 150.0) < 3.0 and abs(card.y) < 3.0 and card.zone == "play:E"
        assert card.marker in (None, int(Card.parse("AS")))  # read where the picture lets it


def test_a_soft_marker_of_another_deck_read_by_the_second_decode_is_foreign() -> None:
    """The second decode fits every id of the dictionary: an outline it reads surely as
    another deck's id is listed apart, never dropped nor taken for a card."""
    from table_controller.cards import Card
    from table_controller.vision.synthetic import CardPlacement

    other = CardPlacement(Card.parse("9C"), 0.0, -150.0, 180.0, marker=31)
    frame = TableRenderer().render(Scene((other,))).image
    reader = CardReader(CALIBRATION)
    gray = reader.grey(frame)
    _, quads, foreign = reader.family.read_all(gray)  # type: ignore[attr-defined]
    # As if ArUco's pass had found the outlines and not read them.
    both = np.concatenate([quads, np.array([f.corners for f in foreign], np.float32)])
    offset = np.array(reader.roi[:2], np.float32) + (reader.reduce - 1) / 2
    reader.foreign_sightings = []
    assert reader._second_look(gray, both, [], offset, frame) == []
    assert {s.marker for s in reader.foreign_sightings} == {31}
