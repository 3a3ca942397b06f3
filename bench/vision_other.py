"""Section 7 of the vision benchmark: the other marker family (issue 31), a QR-printed
card at a table whose deck has ArUco markers.

Venues as ``camera_model.py --as-calibrate`` draws them (their own focus, light, lens
and table, calibrated from their own empty mat, the ones ``calibrate`` refuses left
out), ``--other-venues`` a picture size, at 1280x720 and 1920x1080. At each venue:

- **cost**: the reader's time per frame (CPU time, one core) without the look for the
  other family (``CardReader.read`` with ``other_every=0``) and the look itself
  (``CardReader.other_cards``) on the same frame, in the same run: a table as found
  mid-hand (6-10 of this deck's cards, some stacked, a hand over one half the time) and
  a frame with two QR cards (where the look has codes to check: the first look at them,
  and the looks after, which know them); with the look one frame in ``OTHER_EVERY``, a
  frame costs on average the read plus a fifth of the look: the ratio to the read
  alone; a frame that looks costs the read plus the look;
- **found per frame**: two of this deck's cards and two QR cards of the project's QR
  deck in the four play zones (``placement.foreign_cards``, its other deck's cards all
  printed in QR codes); a QR card with both markers wholly in view is found in a look
  when the look lists a QR card within 15 mm of it;
- **found per second**: the same table in the looks of one second at 30 frames a second
  (``30 / OTHER_EVERY`` looks, each frame drawn anew: the noise differs), through the
  tracker the watcher uses (two looks lying still within half a second): reported
  within the second, and when;
- **false alarms**: a QR card listed where none lies, over every look; and the look run
  as if the reader had read nothing (every card shape checked: this deck's cards, the
  felt, glare) on the table frames.
"""

from __future__ import annotations

import argparse
import math
import time
from dataclasses import dataclass, field, replace

import numpy as np
from camera_model import as_calibrate, table
from placement import foreign_cards
from vision_common import clock, heading, pct

from table_controller.rules.events import Printing
from table_controller.vision.calibration import image_to_table
from table_controller.vision.detect import CardReader
from table_controller.vision.foreign import ForeignSeen, ForeignTracker
from table_controller.vision.optics import random_setup
from table_controller.vision.other_family import OTHER_EVERY
from table_controller.vision.qr_look import card_shapes
from table_controller.vision.synthetic import SURFACES, Rendered, TableRenderer
from table_controller.vision.zones import ZoneMap

FOUND_MM = 15.0
SIZES = ((1280, 720), (1920, 1080))


@dataclass
class Tally:
    """One picture size's counts."""

    venues: int = 0
    refused: int = 0
    read_table: list[float] = field(default_factory=list)  # s, the read without the look
    look_table: list[float] = field(default_factory=list)  # s, the look
    read_qr: list[float] = field(default_factory=list)
    look_qr: list[float] = field(default_factory=list)  # s, the first look at them
    look_kept: list[float] = field(default_factory=list)  # s, the looks after it
    qr_in_view: int = 0
    qr_found: int = 0
    qr_marker_read: int = 0
    second_cards: int = 0
    second_found: int = 0
    second_at: list[float] = field(default_factory=list)  # s after the first look
    looks: int = 0
    false: int = 0
    blind_shapes: int = 0
    blind_false: int = 0


def qr_cards_in_view(rendered: Rendered) -> list[tuple[float, float]]:
    """The QR cards of a frame with both markers wholly in view: their true centres."""
    return [
        (p.x, p.y)
        for p, c in zip(rendered.scene.cards, rendered.cards, strict=True)
        if p.family is not None and c.markers and all(m.visible for m in c.markers)
    ]


def qr_listed(listed: list[ForeignSeen]) -> list[ForeignSeen]:
    return [f for f in listed if f.family is Printing.QR]


def look(
    plain: CardReader, looker: CardReader, image: np.ndarray
) -> tuple[float, float, list[ForeignSeen]]:
    """The read without the look, and the look, timed: (read s, look s, QR cards)."""
    t = clock()
    cards = plain.read(image)
    read = clock() - t
    looker.foreign = plain.foreign
    t = clock()
    found = looker.other_cards(image, cards)
    return read, clock() - t, qr_listed(found)


def near(found: list[ForeignSeen], x: float, y: float) -> list[ForeignSeen]:
    return [f for f in found if math.dist((f.x, f.y), (x, y)) <= FOUND_MM]


def venue(
    tally: Tally,
    renderers: dict[str, TableRenderer],
    size: tuple[int, int],
    seed: int,
    k: int,
) -> None:
    rng = np.random.default_rng([seed, size[0], k, 2])
    camera, effects, sensor = random_setup(rng, size=size, sharp=True)
    renderer = renderers[SURFACES[int(rng.integers(len(SURFACES)))]]
    cal, _ = as_calibrate(renderer, camera, effects, sensor)
    if cal is None:
        tally.refused += 1
        return
    tally.venues += 1
    plain, looker = CardReader(cal, other_every=0), CardReader(cal)
    assert looker.other is not None
    base = replace(table(rng, camera, effects), sensor=sensor)
    cards = foreign_cards(np.random.default_rng([seed, size[0], k, 77]), ZoneMap(cal))
    qr = tuple(
        replace(p, marker=None, family="qr-zxing") if p.marker or p.family else p for p in cards
    )
    foreign = replace(base, cards=qr, hands=())
    # The table as found mid-hand: cost, false alarms, and the look as if blind.
    frame = renderer.render(base)
    read_s, look_s, found = look(plain, looker, frame.image)
    tally.read_table.append(read_s)
    tally.look_table.append(look_s)
    tally.looks += 1
    tally.false += len(found)
    x0, y0 = looker.roi[:2]
    box = np.ascontiguousarray(looker.full_size(frame.image))
    shift = np.array([x0, y0], np.float64)
    tally.blind_shapes += len(
        card_shapes(box, looker.other.px_per_mm, lambda p: image_to_table(cal, p + shift))
    )
    tally.blind_false += len(looker.other.qr_cards(box, (x0, y0), read=[]))
    # The QR cards: one second of looks, the first also counted alone.
    tracker = ForeignTracker()
    reported: dict[int, float] = {}
    looks = round(30 / OTHER_EVERY)
    for n in range(looks):
        shown = renderer.render(replace(foreign, seed=foreign.seed + 7919 * n))
        read_s, look_s, found = look(plain, looker, shown.image)
        truth = qr_cards_in_view(shown)
        tally.looks += 1
        tally.false += len([f for f in found if not any(near([f], *c) for c in truth)])
        if n > 0:
            tally.look_kept.append(look_s)
        if n == 0:
            tally.read_qr.append(read_s)
            tally.look_qr.append(look_s)
            tally.qr_in_view += len(truth)
            for c in truth:
                got = near(found, *c)
                tally.qr_found += bool(got)
                tally.qr_marker_read += any(f.marker is not None for f in got)
        when = n * OTHER_EVERY / 30
        for laid in tracker.update(n, when, found):
            for i, p in enumerate(qr):
                if p.family is not None and math.dist((laid.x, laid.y), (p.x, p.y)) <= FOUND_MM:
                    reported.setdefault(i, when)
    for i, p in enumerate(qr):
        if p.family is None:
            continue
        tally.second_cards += 1
        if i in reported:
            tally.second_found += 1
            tally.second_at.append(reported[i])


def ms(samples: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(samples) * 1e3, q)) if samples else math.nan


def section_other(args: argparse.Namespace, cals: object = None) -> None:
    heading("7. The other marker family: QR cards at an ArUco table")
    venues = 2 if args.quick else args.other_venues
    sizes = SIZES[:1] if args.quick else SIZES
    renderers = {s: TableRenderer(surface=s) for s in SURFACES}
    print(
        f"{venues} random sharp venues a size as camera_model.py --as-calibrate draws them; "
        f"the look for the other family one frame in {OTHER_EVERY}; CPU time, one core"
    )
    for size in sizes:
        tally = Tally()
        t0 = time.perf_counter()
        for k in range(venues):
            venue(tally, renderers, size, args.seed, k)
        report(tally, size, time.perf_counter() - t0)


def report(t: Tally, size: tuple[int, int], wall: float) -> None:
    w, h = size
    print(f"\n{w}x{h}: {t.venues} venues accepted of {t.venues + t.refused} ({wall:.0f} s wall)")
    for name, read, seen in (
        ("a table mid-hand", t.read_table, t.look_table),
        ("two QR cards in view", t.read_qr, t.look_qr),
    ):
        mean_read, mean_look = float(np.mean(read)) * 1e3, float(np.mean(seen)) * 1e3
        every = mean_read + mean_look / OTHER_EVERY
        both = [(a + b) * 1e3 for a, b in zip(read, seen, strict=True)]
        print(
            f"  {name}: read {ms(read, 50):.2f} ms median, {ms(read, 99):.2f} p99 "
            f"(mean {mean_read:.2f}); the look {ms(seen, 50):.2f} ms median, "
            f"{ms(seen, 99):.2f} p99 (mean {mean_look:.2f})"
        )
        print(
            f"    with the look one frame in {OTHER_EVERY}: {every:.2f} ms a frame on average, "
            f"x{every / mean_read:.3f} the read alone; a frame that looks: "
            f"{float(np.percentile(both, 50)):.2f} ms median, {float(np.percentile(both, 99)):.2f}"
            f" p99, x{(mean_read + mean_look) / mean_read:.2f}"
        )
    kept, first = float(np.mean(t.look_kept)) * 1e3, float(np.mean(t.read_qr)) * 1e3
    print(
        f"  the looks after, the QR cards still lying there (found before: not checked "
        f"again): {ms(t.look_kept, 50):.2f} ms median, {ms(t.look_kept, 99):.2f} p99 (mean "
        f"{kept:.2f}); one frame in {OTHER_EVERY}: x{(first + kept / OTHER_EVERY) / first:.3f}"
        " the read alone"
    )
    print(
        f"  QR cards found in one look: {pct(t.qr_found, t.qr_in_view)} "
        f"({t.qr_found} of {t.qr_in_view} with both markers in view); their text read: "
        f"{t.qr_marker_read}"
    )
    at = np.asarray(t.second_at) if t.second_at else np.asarray([math.nan])
    print(
        f"  QR cards reported within one second ({round(30 / OTHER_EVERY)} looks, two lying "
        f"still within 0.5 s): {pct(t.second_found, t.second_cards)} ({t.second_found} of "
        f"{t.second_cards}); after the first look: median {np.median(at):.2f} s, "
        f"max {np.max(at):.2f} s"
    )
    print(
        f"  false alarms (a QR card listed where none lies): {t.false} in {t.looks} looks; "
        f"the look as if the reader had read nothing: {t.blind_false} of {t.blind_shapes} "
        "card shapes taken for QR cards"
    )


__all__ = ["section_other"]
