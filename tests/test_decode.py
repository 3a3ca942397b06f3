"""The second, finer decode of the outlines ArUco rejects (vision/decode.py) and how the
card reader uses it: it reads what the first pass could not, and never names a card
that is not there."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table_controller.vision.calibration import calibrate
from table_controller.vision.decode import Decoded, FinerDecoder
from table_controller.vision.detect import CardReader
from table_controller.vision.markers import FIDUCIALS, Sighting
from table_controller.vision.synthetic import Effects, Scene, TableRenderer, random_scene

RENDERER = TableRenderer()
CALIBRATION = calibrate(RENDERER.render(Scene()).image)
DICTIONARY = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
TABLE_IDS = (*range(24), *FIDUCIALS)
DECODER = FinerDecoder(DICTIONARY, TABLE_IDS)
CELL_PX = 3.4


def soft_table(seed: int = 0, blur: float = 1.6) -> np.ndarray:
    """A table of 8 cards through a soft lens: the first pass misses some of them."""
    scene = random_scene(np.random.default_rng(seed), 8, effects=Effects(blur=blur, noise=3.0))
    return RENDERER.render(scene).image


def marker_picture(
    marker: int, cell_px: float, blur: float, turn: int = 0, dictionary: int = cv2.aruco.DICT_4X4_50
) -> tuple[np.ndarray, np.ndarray]:
    """A marker (6 cells a side with its border) on white at ``cell_px`` a cell, blurred,
    and its outline (4 x 2, clockwise from the picture's top-left)."""
    d = cv2.aruco.getPredefinedDictionary(dictionary)
    fine = 10  # drawn 10 times finer, then reduced: cells land between pixels
    cells = d.markerSize + 2
    side = round(cells * cell_px * fine)
    drawn = np.rot90(cv2.aruco.generateImageMarker(d, marker, side), turn)
    page = np.full((2 * side, 2 * side), 255, np.uint8)
    page[side // 2 : side // 2 + side, side // 2 : side // 2 + side] = drawn
    page = (page.astype(np.float32) * (200 / 255) + 30).astype(np.uint8)
    size = round(2 * side / fine)
    img = cv2.resize(page, (size, size), interpolation=cv2.INTER_AREA)
    if blur:
        img = cv2.GaussianBlur(img, (0, 0), blur)
    s = size / (2 * side)  # reduced px per drawn px
    lo, hi = side // 2 * s - 0.5, (side // 2 + side) * s - 0.5
    outline = np.array([[lo, lo], [hi, lo], [hi, hi], [lo, hi]], np.float32)
    return np.ascontiguousarray(img), outline


def test_a_marker_the_first_pass_rejects_is_read_by_the_second() -> None:
    image = soft_table()
    first = {int(c.card) for c in CardReader(CALIBRATION, second=False).read(image)}
    reader = CardReader(CALIBRATION)
    both = {int(c.card): c for c in reader.read(image)}
    assert len(first) < 8, "the soft lens should hide some cards from the first pass"
    truth = soft_truth()
    assert set(both) == truth  # every card read, none other
    assert reader.second_looks > 0
    second = {s.marker for s in reader.sightings(image) if s.confidence < 1.0}
    assert truth - first <= second  # read by the second pass, which says so


def soft_truth() -> set[int]:
    scene = random_scene(np.random.default_rng(0), 8, effects=Effects(blur=1.6, noise=3.0))
    return {int(c.card) for c in scene.cards}


@pytest.mark.parametrize("turn", range(4))
def test_the_decoder_names_the_marker_and_its_top_left_corner(turn: int) -> None:
    img, outline = marker_picture(7, CELL_PX, 1.3, turn)
    for start in range(4):  # whichever corner the outline starts from
        (read,) = DECODER.read(img, np.roll(outline, start, axis=0)[None])
        assert read.marker == 7 and read.sure
        # Turned a quarter anticlockwise (np.rot90), its own top-left is the picture's
        # bottom-left, and so on round.
        expected = np.roll(outline, turn, axis=0)
        assert np.abs(read.corners - expected).max() < 1.0


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from([i for i in range(50) if i not in TABLE_IDS]),
    st.floats(3.0, 6.0),
    st.floats(0.0, 2.0),
    st.integers(0, 3),
)
def test_another_id_is_never_a_card(marker: int, cell_px: float, blur: float, turn: int) -> None:
    """A marker of the dictionary the table does not use (another game's, a stray
    sheet), however soft, is not read as one of ours."""
    img, outline = marker_picture(marker, cell_px, blur, turn)
    assert DECODER.read(img, outline[None]) == []


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 49), st.floats(3.0, 6.0), st.floats(0.0, 1.6))
def test_a_marker_of_another_dictionary_is_never_surely_a_card(
    marker: int, cell_px: float, blur: float
) -> None:
    """A 5x5 marker sampled as a 4x4 one may come out a *maybe* (the reader then needs
    the card's other marker to agree), never a sure read."""
    img, outline = marker_picture(marker, cell_px, blur, 0, cv2.aruco.DICT_5X5_50)
    assert not any(d.sure for d in DECODER.read(img, outline[None]))


def test_a_maybe_alone_is_never_a_card() -> None:
    """A maybe read counts only when another read of its card, a marker away, places the
    card at the same spot: not alone, not with its own outline found twice, not with a
    read of the card elsewhere."""
    image = soft_table()
    reader = CardReader(CALIBRATION)
    gray = reader.grey(image)
    found, _ = reader.family.read_and_reject(gray)
    x0, y0, _, _ = reader.roi
    offset = np.array([x0, y0], np.float32)
    card = next(s for s in found if s.card is not None)
    quad = card.corners[None].astype(np.float32)
    maybe = Decoded(card.marker, card.corners, False, 0.5, 1.2)
    reader.decoder.read = lambda *a: [maybe]  # type: ignore[method-assign, union-attr]
    assert reader._second_look(gray, quad, [], offset) == []
    shifted = Sighting(card.marker, card.corners + offset + 1.0)  # the same outline
    assert reader._second_look(gray, quad, [shifted], offset) == []
    far = Sighting(card.marker, card.corners + offset + 200.0)  # the card elsewhere
    assert reader._second_look(gray, quad, [far], offset) == []


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.floats(0.0, 80.0), st.floats(0.0, 2.0))
def test_noise_and_random_outlines_are_never_a_card(seed: int, noise: float, blur: float) -> None:
    rng = np.random.default_rng(seed)
    base = rng.uniform(20, 235)
    img = np.clip(base + rng.normal(0, noise, (120, 120)), 0, 255).astype(np.uint8)
    if rng.random() < 0.5:  # blotches of dark and light, a few cells across
        blotches = cv2.resize(rng.uniform(0, 255, (8, 8)), (120, 120))
        img = ((img.astype(np.float64) + blotches) / 2).astype(np.uint8)
    if blur:
        img = cv2.GaussianBlur(img, (0, 0), blur)
    quads = rng.uniform(10, 110, (20, 4, 2)).astype(np.float32)
    assert all(d.marker not in range(24) for d in DECODER.read(img, quads))


def test_a_card_with_one_marker_covered_reads_from_the_other() -> None:
    scene = random_scene(np.random.default_rng(4), 6, effects=Effects(blur=1.4, noise=3.0))
    rendered = RENDERER.render(scene)
    image = rendered.image.copy()
    for card in rendered.cards:  # cover each card's first marker with a grey patch
        m = card.markers[0]
        centre = m.corners.mean(axis=0)
        patch = (m.corners - centre) * 1.15 + centre
        cv2.fillConvexPoly(image, np.round(patch).astype(np.int32), (120, 120, 120))
    seen = {int(c.card): c for c in CardReader(CALIBRATION).read(image)}
    truth = {int(c.card) for c in rendered.cards}
    assert set(seen) <= truth
    assert len(seen) >= len(truth) - 1  # the soft lens may still cost one
    assert all(c.markers == 1 for c in seen.values())


def test_a_marker_of_the_wrong_size_is_not_given_a_second_look() -> None:
    """An outline 60% larger or smaller than a card marker on the table is not decoded."""
    image = soft_table()
    reader = CardReader(CALIBRATION)
    found, _ = reader.family.read_and_reject(reader.grey(image))
    marker = next(s for s in found if s.card is not None)
    x0, y0, _, _ = reader.roi
    offset = np.array([x0, y0], np.float32)
    for factor in (1.6, 0.55):
        centre = marker.corners.mean(axis=0)
        quad = ((marker.corners - centre) * factor + centre)[None]
        before = reader.second_looks
        assert reader._second_look(reader.grey(image), quad, [], offset) == []
        assert reader.second_looks == before


def test_the_second_pass_is_not_run_without_plausible_outlines() -> None:
    empty = RENDERER.render(Scene(effects=Effects(blur=1.6, noise=3.0))).image
    reader = CardReader(CALIBRATION)

    def refuse(*args: object) -> list[Sighting]:
        raise AssertionError("the second decode ran")

    reader.decoder.read = refuse  # type: ignore[method-assign, union-attr]
    assert reader.read(empty) == []
    assert reader.second_looks == 0


def test_a_maybe_is_taken_when_the_cards_other_marker_agrees() -> None:
    image = RENDERER.render(random_scene(np.random.default_rng(0), 8)).image
    reader = CardReader(CALIBRATION)
    gray = reader.grey(image)
    found, _ = reader.family.read_and_reject(gray)
    x0, y0, _, _ = reader.roi
    offset = np.array([x0, y0], np.float32)
    one, other = next((a, b) for a in found for b in found if a.marker == b.marker and a is not b)
    maybe = Decoded(one.marker, one.corners, False, 0.5, 1.2)
    reader.decoder.read = lambda *a: [maybe]  # type: ignore[method-assign, union-attr]
    first = [Sighting(other.marker, other.corners + offset)]
    (taken,) = reader._second_look(gray, one.corners[None], first, offset)
    assert taken.marker == one.marker and taken.confidence < 1.0


@pytest.mark.parametrize("shrink", [1.0, 0.92, 0.87])
def test_an_outline_found_inside_a_soft_markers_edge_still_reads(shrink: float) -> None:
    """The first pass finds a soft marker's outline about 13% small: the polish scales
    and shifts the grid back onto the cells."""
    img, outline = marker_picture(11, CELL_PX, 1.4)
    centre = outline.mean(axis=0)
    small = (outline - centre) * shrink + centre + 0.4  # and a little off-centre
    (read,) = DECODER.read(img, small[None])
    assert read.marker == 11
    assert np.abs(read.corners - outline).max() < 0.6 * CELL_PX  # about half a cell
