"""Marker families report corners in the marker's own order, whichever way it lies."""

from __future__ import annotations

import numpy as np
import pytest

from table_controller.vision.markers import family, qr_marker, qr_text


@pytest.mark.parametrize("turns", [0, 1, 2, 3])
@pytest.mark.parametrize("name", ["aruco", "qr-zxing", "qr-zbar"])
def test_the_first_corner_is_the_marker_s_own_top_left(name: str, turns: int) -> None:
    fam = family(name)
    side, top, left = 126, 100, 150
    canvas = np.full((400, 400), 255, np.uint8)
    canvas[top : top + side, left : left + side] = np.rot90(fam.image(5, side), -turns)
    (seen,) = fam.read(canvas)
    assert seen.marker == 5
    # The marker's own top-left, after `turns` quarter turns clockwise in the image.
    expected = [(left, top), (left + side, top), (left + side, top + side), (left, top + side)]
    assert np.abs(seen.corners[0] - np.array(expected[turns])).max() <= 2.0


def test_qr_payloads() -> None:
    assert qr_marker(qr_text(14)) == 14 and qr_text(14) == "EU:JH"
    assert qr_marker(qr_text(41)) == 41
    assert qr_marker("EU:ZZ") is None and qr_marker("https://example.org") is None


def test_unknown_family() -> None:
    with pytest.raises(ValueError, match="families: aruco"):
        family("datamatrix")
