"""What the vision benchmark's sections share: summaries of durations, headings, the
camera's label, and the score of cards read against the cards on the table."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from table_controller.vision.detect import LINE_MM, CardSeen
from table_controller.vision.layout import Calibration
from table_controller.vision.synthetic import Camera, Rendered

clock = time.process_time
FPS = 30.0


def ms(samples: Sequence[float]) -> tuple[float, float]:
    """Median and p99 of durations in seconds, in ms."""
    if not samples:
        return (math.nan, math.nan)
    a = np.asarray(samples, np.float64) * 1e3
    return (float(np.median(a)), float(np.percentile(a, 99)))


def pct(part: int, whole: int) -> str:
    return f"{100.0 * part / whole:.2f}%" if whole else "n/a"


def heading(title: str) -> None:
    print(f"\n== {title} ==", flush=True)


def camera_label(camera: Camera) -> str:
    x, y, h = camera.position
    return (
        f"{camera.width}x{camera.height} {camera.hfov_deg:.0f}deg at ({x:.0f}, {y:.0f}, {h:.0f}) mm"
        f", roll {camera.roll_deg:.0f}"
    )


def true_zone(cal: Calibration, card: Any) -> str | None:
    """The zone holding the card's true centre (what a perfect reader would say)."""
    zone = cal.zone_at(card.x, card.y)
    return None if zone is None else zone.name


EDGE_MM = 10.0  # a true centre this near a zone's edge: the zone is a matter of millimetres


@dataclass
class Score:
    """Cards on the table against cards read.

    A card the reader reports on a zone's line (``CardSeen.on_line``: in no zone until it
    is moved) is *undecided*, not wrong; cards whose true centre is on a line (within
    ``LINE_MM``) are left out of the read rate, since no zone is the right answer there."""

    sightings: int = 0  # cards on the table (face up)
    readable: int = 0  # of which at least one marker was wholly visible
    on_line: int = 0  # of the sightings: the true centre within LINE_MM of a zone's line
    counted: int = 0  # the cards the read rate is taken over
    read: int = 0  # of ``counted``, read in the right zone
    undecided: int = 0  # reads reported on a zone's line
    wrong: int = 0  # reads of a card not on the table, or in the wrong zone
    phantom: int = 0  # of ``wrong``: a card not on the table
    at_edge: int = 0  # of ``wrong``: another zone, the true centre within EDGE_MM of an edge
    errors_mm: list[float] | None = None
    worst: str = ""  # the read furthest from the truth

    def add(
        self,
        rendered: Rendered,
        seen: Sequence[CardSeen],
        cal: Calibration,
        counts: Callable[[Any], bool],
        examples: list[str] | None = None,
        tag: str = "",
    ) -> None:
        truth = {c.card: c for c in rendered.cards if c.face_up}
        zones = {card: true_zone(cal, c) for card, c in truth.items()}
        read_here = {(s.card, s.zone) for s in seen}
        for card, c in truth.items():
            self.sightings += 1
            self.readable += c.readable
            if cal.distance_to_line(c.x, c.y) < LINE_MM:
                self.on_line += 1
            elif counts(c):
                self.counted += 1
                self.read += (card, zones[card]) in read_here
        for s in seen:
            c = truth.get(s.card)
            if c is not None and s.on_line:
                self.undecided += 1
            elif c is None or s.zone != zones[s.card]:
                self.wrong += 1
                if c is None:
                    self.phantom += 1
                    where = "not on the table"
                else:
                    edge = cal.distance_to_line(c.x, c.y)
                    near = edge <= EDGE_MM
                    self.at_edge += near
                    where = (
                        f"truly in {zones[s.card]} at ({c.x:.0f}, {c.y:.0f}) mm, "
                        f"{edge:.1f} mm from a zone's edge"
                    )
                listed = c is None or not near  # every phantom and far one; a few near edges
                if examples is not None and len(examples) < (30 if listed else 10):
                    examples.append(
                        f"{tag}: {s.card.code} read in {s.zone} at ({s.x:.0f}, {s.y:.0f}) mm, "
                        f"{where}"
                    )
            if c is not None and self.errors_mm is not None:
                err = math.dist((s.x, s.y), (c.x, c.y))
                if not self.errors_mm or err > max(self.errors_mm):
                    self.worst = (
                        f"{tag}: {s.card.code} read {err:.1f} mm off, from {s.markers} marker(s)"
                    )
                self.errors_mm.append(err)

    def wrong_line(self) -> str:
        far = self.wrong - self.phantom - self.at_edge
        return (
            f"{self.wrong} ({self.phantom} not on the table, {self.at_edge} in another zone "
            f"with the true centre within {EDGE_MM:.0f} mm of a zone's edge, {far} in another "
            f"zone farther in); {self.undecided:,} reported on a zone's line (in no zone, "
            f"within {LINE_MM:.0f} mm), {self.on_line:,} sightings truly there"
        )


def all_markers_visible(card: Any) -> bool:
    return bool(card.markers) and all(m.visible for m in card.markers)


def readable(card: Any) -> bool:
    return bool(card.readable)
