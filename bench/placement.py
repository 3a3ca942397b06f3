"""Where the reader places cards laid a little long or wide: the camera model's cases
of issue 31, each measured apart, over the venues ``calibrate`` accepts.

Every venue is drawn as ``bench/camera_model.py --as-calibrate`` draws it (its own
focus, light, lens and table; calibrated from its own empty mat; refused when too soft
or when glare is warned of), and shows one frame of each case:

- ``table``: a table as found mid-hand (``camera_model.table``: 6-10 cards, some
  stacked, a hand over a card half the time): the baseline;
- ``overhang``: cards hanging over a zone's outer edge onto the open table, no other
  zone within reach: laid long or wide in a play zone, near its corners, at an angle,
  and messy trick piles (a pile is 105 mm deep for a card 88.9 mm long); their centres
  from 15 mm outside the zone to 30 mm inside;
- ``across``: cards lying across the line between two zones (each holds 5 % or more);
- ``foreign``: a card of another deck: an ArUco marker of the same dictionary that is
  none of this deck's (ids 24-39, 44-49), or a QR-printed deck's card;
- ``twin``: the same card printed twice, both copies on the table.

A card counts when both its markers are wholly in view and uncovered (sharp and
unoccluded). For a card in one zone (no other zone touching it, by its true outline)
whose true centre is at least ``LINE_MM`` inside, *placed* is the reader naming that
zone in this one frame; a read is *wrong* when it names a zone its true centre is not in
(or any zone for a card whose centre lies outside every zone), or a card that is not on
the table. Each frame is also judged by the rule of before (the share alone,
``zones.placed(shares)``), from the same reads.

    PYTHONPATH=. python bench/placement.py --setups 300
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import shlex
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import cv2
import numpy as np
from camera_model import as_calibrate, table
from sysinfo import cpu_model

from table_controller.cards import DECK
from table_controller.seats import Seat
from table_controller.vision.detect import LINE_MM, CardReader, CardSeen
from table_controller.vision.layout import Calibration
from table_controller.vision.markers import FIDUCIALS
from table_controller.vision.optics import random_setup
from table_controller.vision.synthetic import (
    SEAT_ANGLE,
    SURFACES,
    CardPlacement,
    Rendered,
    Scene,
    TableRenderer,
)
from table_controller.vision.zones import TOUCH_SHARE, ZoneMap, alone, card_outline, placed

CASES = ("table", "overhang", "across", "foreign", "twin")
SHEET_MM = 300.0  # the fiducials' corner sheets: beyond this in both x and y


@dataclass
class Tally:
    """One case's count over the venues."""

    frames: int = 0
    counted: int = 0  # sharp unoccluded cards in one zone, centre >= LINE_MM inside
    placed: int = 0  # of which the reader named that zone
    placed_before: int = 0  # ... by the share alone (the rule before issue 31)
    short: int = 0  # of ``counted``: less than CLEAR_SHARE of the card inside (truly)
    short_placed: int = 0
    short_before: int = 0
    wrong: int = 0  # reads in a zone the true centre is not in, or of no card on the table
    wrong_before: int = 0
    across: int = 0  # sharp unoccluded cards across two zones (each >= TOUCH_SHARE)
    across_centre: int = 0  # of which placed in the zone holding the true centre
    across_none: int = 0  # ... in no zone (on the line)
    across_other: int = 0  # ... in a zone its centre is not in: never, the goal
    outside: int = 0  # one zone touching, the true centre on the open table (outside it)
    outside_placed: int = 0  # of which placed in that zone: never, the goal (wrong)
    edge: int = 0  # one zone touching, the true centre 0 to LINE_MM inside (not counted)
    edge_placed: int = 0  # of which placed in it
    errors: list[float] = field(default_factory=list)
    misses: list[str] = field(default_factory=list)
    notes: dict[str, int] = field(default_factory=dict)

    def note(self, what: str) -> None:
        self.notes[what] = self.notes.get(what, 0) + 1


def _sheets_clear(outline: np.ndarray) -> bool:
    """Whether a card stays off the mat's corner sheets (the fiducials) and on the mat."""
    xs, ys = np.abs(outline[:, 0]), np.abs(outline[:, 1])
    return bool((np.maximum(xs, ys) < 395).all() and not ((xs > SHEET_MM) & (ys > SHEET_MM)).any())


def _clear_of(outline: np.ndarray, taken: list[np.ndarray]) -> bool:
    """Whether a card lies clear of the cards already laid (2 mm apart at least)."""
    grown = outline.mean(axis=0) + (outline - outline.mean(axis=0)) * 1.04
    a = grown.astype(np.float32)
    return all(cv2.intersectConvexConvex(a, b.astype(np.float32))[0] <= 0.0 for b in taken)


def _outline(p: CardPlacement) -> np.ndarray:
    return np.asarray(p.corners_mm(), np.float64)


def _across_of(angle: float) -> tuple[float, float]:
    a = math.radians(angle)
    return (math.cos(a), math.sin(a))


def overhanging(
    rng: np.random.Generator, zones: ZoneMap, count: int, first: int = 0
) -> tuple[CardPlacement, ...]:
    """Cards hanging over a zone's outer edge, no other zone within reach: each laid
    with its centre 15 mm outside to 30 mm inside an edge of a play zone or a trick pile,
    half of them within 40 mm of a corner, turned to their seat (12 degrees off at the
    p68) or, one in three, at any angle; one group in four a messy trick pile of 2-3."""
    cal = zones.calibration
    targets = [z for z in cal.zones if z.kind in ("play", "tricks")]
    cards: list[CardPlacement] = []
    taken: list[np.ndarray] = []
    codes = [DECK[int(i)] for i in rng.permutation(24)]
    for _ in range(400):
        if len(cards) >= count:
            break
        zone = targets[int(rng.integers(len(targets)))]
        poly = np.array(zone.polygon, np.float64)
        k = int(rng.integers(len(poly)))
        a, b = poly[k], poly[(k + 1) % len(poly)]
        length = float(np.linalg.norm(b - a))
        along = (b - a) / length
        inward = np.array([-along[1], along[0]])
        if not zone.contains(*((a + b) / 2 + inward * 2)):
            inward = -inward
        if rng.random() < 0.5:
            t = float(rng.uniform(0, min(40.0, length / 2)))
            t = t if rng.random() < 0.5 else length - t
        else:
            t = float(rng.uniform(0, length))
        depth = float(rng.uniform(-15.0, 30.0))
        cx, cy = a + along * t + inward * depth
        seat = zone.seat if zone.seat is not None else Seat.S
        if rng.random() < 1 / 3:
            angle = float(rng.uniform(0, 360))
        else:
            angle = SEAT_ANGLE[seat] + float(rng.normal(0, 12.0))
        group = [CardPlacement(codes[len(cards)], float(cx), float(cy), angle % 360, True)]
        if zone.kind == "tricks" and rng.random() < 0.25:  # a messy pile, fanned
            for _ in range(int(rng.integers(1, 3))):
                dx, dy = rng.normal(0.0, 16.0, 2)
                turn = angle + float(rng.normal(0.0, 20.0))
                code = codes[(len(cards) + len(group)) % 24]
                group.append(CardPlacement(code, float(cx + dx), float(cy + dy), turn % 360, True))
        outlines = [_outline(p) for p in group]
        if not all(_sheets_clear(o) for o in outlines):
            continue
        if not all(_clear_of(o, taken) for o in outlines):
            continue
        shares = [zones.shares(card_outline((p.x, p.y), _across_of(p.angle))) for p in group]
        if not all(s and alone(s) and s[0][1] < 1.0 for s in shares):
            continue  # another zone within reach, or no overhang
        if len(cards) + len(group) > min(count, 24):
            continue
        cards.extend(group)
        taken.extend(outlines)
    return tuple(cards[first:])


def across_two(rng: np.random.Generator, zones: ZoneMap, count: int) -> tuple[CardPlacement, ...]:
    """Cards lying across the line between two zones, each holding 5 % or more."""
    cards: list[CardPlacement] = []
    taken: list[np.ndarray] = []
    codes = [DECK[int(i)] for i in rng.permutation(24)]
    for _ in range(4000):
        if len(cards) >= count:
            break
        x, y = rng.uniform(-330, 330, 2)
        angle = float(rng.uniform(0, 360))
        p = CardPlacement(codes[len(cards)], float(x), float(y), angle, True)
        shares = zones.shares(card_outline((p.x, p.y), _across_of(p.angle)))
        if len(shares) < 2 or shares[1][1] < TOUCH_SHARE:
            continue
        outline = _outline(p)
        if _sheets_clear(outline) and _clear_of(outline, taken):
            cards.append(p)
            taken.append(outline)
    return tuple(cards)


def foreign_cards(rng: np.random.Generator, zones: ZoneMap) -> tuple[CardPlacement, ...]:
    """Two cards of this deck in play zones, then two of another deck (an ArUco id that
    is none of this deck's, or a QR deck's card) in the other play zones."""
    names = [z.name for z in zones.calibration.zones if z.kind == "play"]
    rng.shuffle(names)
    codes = [DECK[int(i)] for i in rng.permutation(24)]
    out = []
    foreign_ids = [i for i in range(24, 50) if i not in FIDUCIALS]
    for k, name in enumerate(names):
        zone = zones.calibration.zone(name)
        cx, cy = np.mean(np.array(zone.polygon), axis=0)
        angle = SEAT_ANGLE[zone.seat or Seat.S] + float(rng.normal(0, 10.0))
        p = CardPlacement(codes[k], float(cx), float(cy), angle % 360, True)
        if k >= 2:
            if rng.random() < 0.5:
                p = replace(p, marker=int(rng.choice(foreign_ids)))
            else:
                p = replace(p, family="qr-zxing")
        out.append(p)
    return tuple(out)


def twin_cards(rng: np.random.Generator, zones: ZoneMap) -> tuple[CardPlacement, ...]:
    """A card and its copy (the same code printed twice) in two play zones, and two
    other cards in the others."""
    names = [z.name for z in zones.calibration.zones if z.kind == "play"]
    rng.shuffle(names)
    codes = [DECK[int(i)] for i in rng.permutation(24)]
    codes[1] = codes[0]
    out = []
    for k, name in enumerate(names):
        zone = zones.calibration.zone(name)
        cx, cy = np.mean(np.array(zone.polygon), axis=0) + rng.normal(0, 10.0, 2)
        angle = SEAT_ANGLE[zone.seat or Seat.S] + float(rng.normal(0, 10.0))
        out.append(CardPlacement(codes[k], float(cx), float(cy), angle % 360, True))
    return tuple(out)


def _true_zone(cal: Calibration, x: float, y: float) -> str | None:
    zone = cal.zone_at(x, y)
    return None if zone is None else zone.name


def score(
    tally: Tally, rendered: Rendered, seen: list[CardSeen], cal: Calibration, tag: str
) -> None:
    """Count one frame of the placement cases (table, overhang, across)."""
    zones = ZoneMap(cal)
    tally.frames += 1
    truth = {c.card: c for c in rendered.cards if c.face_up}
    now = {(s.card, s.zone) for s in seen}
    before = {(s.card, placed(s.shares)) for s in seen}
    for card, c in truth.items():
        if not (c.markers and all(m.visible for m in c.markers)):
            continue
        shares = zones.shares(card_outline((c.x, c.y), _across_of(c.angle)))
        zone = _true_zone(cal, c.x, c.y)
        if len(shares) >= 2 and shares[1][1] >= TOUCH_SHARE:
            tally.across += 1
            got = [s for s in seen if s.card == card]
            if any(s.zone is not None and s.zone != zone for s in got):
                tally.across_other += 1
            elif any(s.zone == zone and zone is not None for s in got):
                tally.across_centre += 1
            else:
                tally.across_none += 1
            continue
        if shares and zone is None:
            tally.outside += 1
            tally.outside_placed += any(s.card == card and s.zone is not None for s in seen)
            continue
        if zone is None or cal.distance_to_line(c.x, c.y) < LINE_MM:
            tally.edge += zone is not None
            tally.edge_placed += zone is not None and (card, zone) in now
            continue
        tally.counted += 1
        ok, ok_before = (card, zone) in now, (card, zone) in before
        tally.placed += ok
        tally.placed_before += ok_before
        short = shares[0][1] < 0.54
        tally.short += short
        tally.short_placed += short and ok
        tally.short_before += short and ok_before
        if not ok and len(tally.misses) < 20:
            got = [s for s in seen if s.card == card]
            depth = cal.distance_to_line(c.x, c.y)
            how = (
                "not read"
                if not got
                else ", ".join(
                    f"read in {s.zone} at {math.dist((s.x, s.y), (c.x, c.y)):.1f} mm off, "
                    f"centre {s.inside} mm inside"
                    for s in got
                )
            )
            tally.misses.append(
                f"{tag}: {card.code} truly {depth:.1f} mm inside {zone}, {shares[0][1]:.0%} "
                f"of it there: {how}"
            )
    for s in seen:
        c = truth.get(s.card)
        if c is None:
            tally.wrong += 1
            tally.wrong_before += 1
            continue
        tally.errors.append(math.dist((s.x, s.y), (c.x, c.y)))
        zone = _true_zone(cal, c.x, c.y)
        if s.zone is not None and s.zone != zone:
            tally.wrong += 1
            if len(tally.misses) < 40:
                tally.misses.append(
                    f"{tag}: WRONG {s.card.code} read in {s.zone}, true centre in {zone} "
                    f"({cal.distance_to_line(c.x, c.y):.1f} mm from a line)"
                )
        old = placed(s.shares)
        if old is not None and old != zone:
            tally.wrong_before += 1


def score_foreign(
    tally: Tally, rendered: Rendered, seen: list[CardSeen], reader: CardReader
) -> None:
    """Count what the reader reports of another deck's cards (and this deck's beside)."""
    tally.frames += 1
    scene = rendered.scene
    ours = {p.card for p in scene.cards if p.marker is None and p.family is None}
    listed = reader.foreign  # markers of no card of this deck, listed apart
    for p, c in zip(scene.cards, rendered.cards, strict=True):
        visible = bool(c.markers) and all(m.visible for m in c.markers)
        if not visible:
            continue
        if p.marker is None and p.family is None:
            tally.counted += 1
            tally.placed += any(s.card == p.card for s in seen)
            continue
        if p.family is not None:
            tally.note("a QR deck's cards in view")
            nothing = not any(math.dist((m.x, m.y), (p.x, p.y)) <= 30.0 for m in [*listed, *seen])
            tally.note(
                "  of them read as nothing (no card, nothing listed apart)"
                if nothing
                else "  of them read as something"
            )
        else:
            tally.note("cards of another ArUco id in view")
            near = [
                m
                for m in listed
                if m.marker == p.marker and math.dist((m.x, m.y), (p.x, p.y)) <= 15.0
            ]
            tally.note(
                "  of them listed apart (reader.foreign), its id, where it lies"
                if near
                else "  of them not reported"
            )
    for s in seen:
        if s.card not in ours:
            tally.wrong += 1  # a card taken for one of this deck's: never, the goal
    printed = [p for p in scene.cards if p.marker is not None]
    for m in listed:
        if not any(
            p.marker == m.marker and math.dist((m.x, m.y), (p.x, p.y)) <= 15.0 for p in printed
        ):
            tally.note("listed apart where no card of that id lies (the goal: none)")


def score_twin(tally: Tally, rendered: Rendered, seen: list[CardSeen]) -> None:
    """Count whether both copies of a card printed twice are reported, each where it lies."""
    tally.frames += 1
    scene = rendered.scene
    twin = scene.cards[0].card
    copies = [
        (p, c)
        for p, c in zip(scene.cards, rendered.cards, strict=True)
        if p.card == twin and c.markers and all(m.visible for m in c.markers)
    ]
    truth = {p.card for p in scene.cards}
    for s in seen:
        if s.card not in truth:
            tally.wrong += 1
    if len(copies) < 2:
        tally.note("twin frames with a copy not wholly in view (not counted)")
        return
    tally.counted += 1
    found = [s for s in seen if s.card == twin]
    both = all(any(math.dist((s.x, s.y), (p.x, p.y)) <= 15.0 for s in found) for p, _ in copies)
    tally.placed += both and len(found) == 2
    tally.note(f"the twin read {len(found)} time(s)")


def case_scene(case: str, base: Scene, rng: np.random.Generator, zones: ZoneMap) -> Scene:
    """A case's frame at a venue: its cards on the venue's table (hands only on the
    baseline table)."""
    if case == "table":
        return base
    cards: Callable[[], tuple[CardPlacement, ...]] = {
        "overhang": lambda: overhanging(rng, zones, 8),
        "across": lambda: across_two(rng, zones, 6),
        "foreign": lambda: foreign_cards(rng, zones),
        "twin": lambda: twin_cards(rng, zones),
    }[case]
    return replace(base, cards=cards(), hands=())


def run(
    size: tuple[int, int], setups: int, seed: int, cases: list[str]
) -> tuple[dict[str, Tally], int]:
    """The cases over ``setups`` venues drawn as ``camera_model --as-calibrate`` draws
    them (the same seeds: the same venues); (tallies, venues accepted)."""
    renderers = {s: TableRenderer(surface=s) for s in SURFACES}
    tallies = {case: Tally() for case in cases}
    accepted = 0
    for k in range(setups):
        rng = np.random.default_rng([seed, size[0], k, 2])
        camera, effects, sensor = random_setup(rng, size=size, sharp=True)
        renderer = renderers[SURFACES[int(rng.integers(len(SURFACES)))]]
        cal, _ = as_calibrate(renderer, camera, effects, sensor)
        if cal is None:
            continue
        accepted += 1
        reader = CardReader(cal)
        zones = ZoneMap(cal)
        base = replace(table(rng, camera, effects), sensor=sensor)
        cases_rng = np.random.default_rng([seed, size[0], k, 31])
        for case in cases:
            scene = case_scene(case, base, cases_rng, zones)
            rendered = renderer.render(scene)
            t = time.process_time()
            seen = reader.read(rendered.image)
            tally = tallies[case]
            tally.notes.setdefault("ms", 0)
            tally.notes["ms"] += round((time.process_time() - t) * 1e6)
            tag = f"venue {k} ({size[0]}x{size[1]})"
            if case == "foreign":
                score_foreign(tally, rendered, seen, reader)
            elif case == "twin":
                score_twin(tally, rendered, seen)
            else:
                score(tally, rendered, seen, cal, tag)
    return tallies, accepted


def pct(a: int, b: int) -> str:
    return f"{100.0 * a / b:.2f} % ({a:,} of {b:,})" if b else "n/a"


def report(case: str, t: Tally) -> None:
    us = t.notes.pop("ms", 0) / max(1, t.frames)
    print(f"  {case} ({t.frames} frames, read {us / 1000:.1f} ms a frame CPU):")
    if case in ("table", "overhang", "across"):
        if t.counted:
            print(f"    in one zone, placed there: {pct(t.placed, t.counted)}; wrong {t.wrong}")
            print(
                f"      by the share alone (before): {pct(t.placed_before, t.counted)}; "
                f"wrong {t.wrong_before}"
            )
            if t.short:
                print(
                    f"      of them less than 54 % inside: {t.short:,}; placed "
                    f"{pct(t.short_placed, t.short)}, before {pct(t.short_before, t.short)}"
                )
        if t.outside or t.edge:
            print(
                f"    one zone touching, the true centre on the open table: {t.outside:,}, "
                f"placed in the zone {t.outside_placed}; 0 to {LINE_MM:.0f} mm inside (not "
                f"counted above): {t.edge:,}, placed {pct(t.edge_placed, t.edge)}"
            )
        if t.across:
            print(
                f"    across two zones: {t.across:,}; in the zone of the true centre "
                f"{pct(t.across_centre, t.across)}, in no zone {pct(t.across_none, t.across)}, "
                f"in the zone the centre is not in: {t.across_other}"
            )
        if t.errors:
            e = np.array(t.errors)
            print(
                f"    position: median {np.median(e):.1f} mm, p99 {np.percentile(e, 99):.1f} "
                f"mm, max {e.max():.1f} mm"
            )
    elif case == "foreign":
        print(f"    this deck's cards beside them read: {pct(t.placed, t.counted)}")
        print(f"    another deck's card read as one of this deck's: {t.wrong}")
    else:
        print(
            f"    both copies read, each where it lies: {pct(t.placed, t.counted)}; "
            f"phantom cards {t.wrong}"
        )
    for what, n in t.notes.items():
        print(f"    {what}: {n:,}")
    for m in t.misses[:12]:
        print(f"    - {m}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--setups", type=int, default=300, help="venues per size")
    ap.add_argument("--seed", type=int, default=18)
    ap.add_argument("--size", choices=["720", "1080", "both"], default="both")
    ap.add_argument("--cases", default=",".join(CASES), help="of " + ", ".join(CASES))
    args = ap.parse_args()
    cases = [c for c in args.cases.split(",") if c]
    unknown = set(cases) - set(CASES)
    if unknown:
        ap.error(f"unknown cases {sorted(unknown)}; cases: {', '.join(CASES)}")
    sizes = {"720": [(1280, 720)], "1080": [(1920, 1080)]}.get(
        args.size, [(1280, 720), (1920, 1080)]
    )
    cv2.setNumThreads(1)
    print(f"command: PYTHONPATH=. .venv/bin/python bench/placement.py {shlex.join(sys.argv[1:])}")
    print(
        f"CPU: {cpu_model()} ({os.cpu_count()} logical CPUs); Python "
        f"{platform.python_version()}, OpenCV {cv2.__version__} on one thread; "
        f"{time.strftime('%Y-%m-%d')}"
    )
    print(
        f"{args.setups} random sharp venues per size, as `calibrate` accepts them "
        f"(bench/camera_model.py --as-calibrate's draws, seed {args.seed}); one frame a case"
    )
    for size in sizes:
        t0 = time.perf_counter()
        tallies, accepted = run(size, args.setups, args.seed, cases)
        print(f"\n{size[0]}x{size[1]}: {accepted} venues of {args.setups} accepted")
        for case in cases:
            report(case, tallies[case])
        one = [tallies[c] for c in ("table", "overhang") if c in tallies]
        if len(one) == 2:
            counted = sum(t.counted for t in one)
            placed_ = sum(t.placed for t in one)
            across = tallies["across"].wrong if "across" in tallies else 0
            wrong = sum(t.wrong for t in one) + across
            print(
                f"  sharp unoccluded cards in one zone, overhanging ones included: "
                f"placed {pct(placed_, counted)} a frame; wrong {wrong}"
            )
        print(f"  ({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
