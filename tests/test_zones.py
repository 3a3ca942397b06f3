"""Zones by the card's whole outline: the share of its area in each zone, the zone
clearly holding it, and the hysteresis that keeps a card reported near a line."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from table_controller.vision.layout import CARD_H, CARD_W, Calibration, Zone
from table_controller.vision.zones import (
    CLEAR_SHARE,
    HOLD_SHARE,
    TOUCH_SHARE,
    Outline,
    ZoneMap,
    across_line,
    card_outline,
    held,
    placed,
)

CALIBRATION = Calibration((1280, 720), np.eye(3))
ZONES = ZoneMap(CALIBRATION)
ODD = ZoneMap(
    Calibration(
        (1280, 720),
        np.eye(3),
        (
            *CALIBRATION.zones,
            Zone("kitty2", "kitty", None, ((0.0, 0.0), (120.5, 30.25), (10.0, 200.0))),
            Zone(
                "notch",
                "kitty",
                None,
                ((-300, -300), (-200, -300), (-250, -250), (-200, -200), (-300, -200)),
            ),
        ),
    )
)


def truth(zones: ZoneMap, corners: Outline) -> dict[str, float]:
    """The shares measured on a fine grid (0.4 mm) over the card, each point in the first
    zone holding it (earlier zones win where zones overlap)."""
    outline = np.array(corners)
    u = (outline[1] - outline[0]) / CARD_W
    v = (outline[3] - outline[0]) / CARD_H
    a, b = np.meshgrid(np.arange(0.2, CARD_W, 0.4), np.arange(0.2, CARD_H, 0.4))
    pts = outline[0] + a.reshape(-1, 1) * u + b.reshape(-1, 1) * v
    free = np.ones(len(pts), bool)
    out = {}
    for z in zones.calibration.zones:
        inside = even_odd(np.array(z.polygon), pts) & free
        free &= ~inside
        if inside.any():
            out[z.name] = float(inside.mean())
    return out


def even_odd(poly: np.ndarray, pts: np.ndarray) -> np.ndarray:
    x, y = pts[:, 0], pts[:, 1]
    inside = np.zeros(len(pts), bool)
    for (x1, y1), (x2, y2) in zip(poly, np.roll(poly, -1, axis=0), strict=True):
        crosses = (y1 > y) != (y2 > y)
        with np.errstate(divide="ignore", invalid="ignore"):
            xi = x1 + (y - y1) * (x2 - x1) / (y2 - y1)
        inside ^= crosses & (x < xi)
    return inside


@settings(max_examples=400, deadline=None)
@given(
    st.sampled_from([0, 1]),
    st.floats(-380.0, 380.0),
    st.floats(-380.0, 380.0),
    st.floats(0.0, 360.0),
)
def test_the_shares_are_the_card_s_area_in_each_zone(
    which: int, x: float, y: float, deg: float
) -> None:
    zones = [ZONES, ODD][which]
    a = math.radians(deg)
    outline = card_outline((x, y), (math.cos(a), math.sin(a)))
    got = dict(zones.shares(outline))
    want = truth(zones, outline)
    for name in set(got) | set(want):
        assert abs(got.get(name, 0.0) - want.get(name, 0.0)) <= 0.025, (name, got, want)
    assert sum(got.values()) <= 1.0 + 1e-9


def test_a_card_8_mm_inside_a_zone_is_placed_even_4_mm_off() -> None:
    """South's play zone starts at y = 65 (the kitty ends at 60): a card whose centre is
    8 mm inside, read 4 mm towards the line, either way round, is in the zone."""
    for across in ((1.0, 0.0), (0.0, 1.0), (1.0, 1.0), (1.0, 0.3)):
        outline = card_outline((0.0, 65.0 + 8.0 - 4.0), across)
        assert placed(ZONES.shares(outline)) == "play:S"
    # On the line itself: in no zone, and said to lie across it.
    shares = ZONES.shares(card_outline((0.0, 62.5), (1.0, 0.0)))
    assert placed(shares) is None and across_line(shares)
    # Wholly outside every zone: not across a line.
    far = ZONES.shares(card_outline((0.0, 380.0), (1.0, 0.0)))
    assert far == () and placed(far) is None and not across_line(far)


def test_placed_means_its_centre_is_in_the_zone() -> None:
    """Above one half, a convex zone holds the card's centre: a card is never placed in a
    zone its estimated centre is not in."""
    rng = np.random.default_rng(1)
    for _ in range(2000):
        x, y = rng.uniform(-350, 350, 2)
        a = rng.uniform(0, 2 * math.pi)
        shares = ZONES.shares(card_outline((x, y), (math.cos(a), math.sin(a))))
        zone = placed(shares)
        if zone is not None:
            assert CALIBRATION.zone(zone).contains(x, y)


def test_hysteresis_holds_a_card_with_less_of_it_inside() -> None:
    assert held((("play:S", HOLD_SHARE), ("kitty", 0.5)), "play:S")
    assert not held((("play:S", HOLD_SHARE - 0.01), ("kitty", 0.5)), "play:S")
    assert not held((("kitty", CLEAR_SHARE), ("play:S", 0.4)), "play:S")  # clearly elsewhere
    assert held((("play:S", 1.0),), "play:S") and not held((), "play:S")
    # The band is more than twice the worst p99 reading error (7.4 mm) of the centre,
    # with the card's long side across the line.
    assert (CLEAR_SHARE - HOLD_SHARE) * CARD_H >= 2 * 7.4
    assert CLEAR_SHARE > 0.5 and (CLEAR_SHARE - 0.5) * CARD_H <= 4.0
    assert TOUCH_SHARE * CARD_W < 5.0


def test_a_card_wholly_inside_is_answered_from_its_corners() -> None:
    """The fast path (corners and centre in one convex zone) agrees with sampling."""
    outline = card_outline((0.0, 150.0), (1.0, 0.2))
    assert ZONES.shares(outline) == (("play:S", 1.0),)
    # Where play zones overlap at their corners the earlier zone wins, by sampling.
    corner = card_outline((72.0, 72.0), (1.0, 0.0))
    got, want = dict(ZONES.shares(corner)), truth(ZONES, corner)
    assert set(got) == set(want) == {"play:E", "play:S", "kitty"}
    assert all(abs(got[k] - want[k]) <= 0.025 for k in got)


def test_a_card_read_in_a_picture_is_placed_by_its_outline() -> None:
    """Cards 9 mm inside South's play zone (next to the kitty), either way round, read in
    a rendered frame: in the zone; one straddling the line: across it, in no zone."""
    from table_controller.cards import Card
    from table_controller.vision.calibration import calibrate
    from table_controller.vision.detect import CardReader
    from table_controller.vision.synthetic import CardPlacement, Effects, Scene, TableRenderer

    renderer = TableRenderer()
    fx = Effects.realistic()
    reader = CardReader(calibrate(renderer.render(Scene(effects=fx)).image))
    cards = (
        CardPlacement(Card.parse("JH"), -40.0, 65.0 + 9.0, 0.0),  # long side across
        CardPlacement(Card.parse("AS"), 40.0, 65.0 + 9.0, 90.0),  # short side across
        CardPlacement(Card.parse("KD"), 0.0, -175.0, 180.0),  # in North's zone
    )
    seen = {c.card.code: c for c in reader.read(renderer.render(Scene(cards, effects=fx)).image)}
    assert seen["JH"].zone == seen["AS"].zone == "play:S"
    assert seen["KD"].zone == "play:N" and seen["KD"].shares == (("play:N", 1.0),)
    assert seen["JH"].to_json()["shares"]["play:S"] >= CLEAR_SHARE  # type: ignore[index]
    across = CardPlacement(Card.parse("QC"), 0.0, 62.5, 0.0)
    (card,) = reader.read(renderer.render(Scene((across,), effects=fx)).image)
    assert card.zone is None and card.on_line
    assert {name for name, _ in card.shares} == {"kitty", "play:S"}
