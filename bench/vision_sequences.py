"""Section 5 of the vision benchmark: cards laid by players' hands and left still for a
second, at 30 fps through ``CardWatcher``, in random venues.

Each venue (``vision_world.world``: camera, effects, sensor; defocus no softer than
``calibrate`` accepts) is calibrated from a picture of its empty mat, as ``table-controller
calibrate`` would (with the lens measured when the mat alone is refused), then plays a few
sequences, each with a fresh ``CardWatcher``: 4-8 cards, each brought in by its player's
hand (blurred by its motion when the renderer can), laid under it, the hand withdrawing
over 3-9 frames; the next player starts 0-3 frames later; the last card then lies for 1 s.
Every frame is rendered afresh (its own noise). Sometimes the camera shakes (the frame
moves by up to 2 px, blurred by that motion), a hand hovers over a card already laid, or
the venue's light makes glare spots (fixed on the table).

Counted per card: reported (a ``CardLaid`` in its zone) within the second after the hand
left it, and on which frame after (1: the first frame without the hand); cards declared
removed while they lie there; duplicate ``CardLaid``; and per card read (a sighting), a
wrong card: one not on the table, or read in another zone than the one holding its true
centre. Every figure names the seed and venue of its worst cases; ``--venue V`` plays that
venue again and prints, for each card, what was read frame by frame.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import time
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import cv2
import numpy as np
from vision_common import FPS, clock, heading, ms, pct, true_zone
from vision_world import (
    defocus_limit,
    glare_warned,
    hands_blurred,
    model_name,
    moving,
    scene,
    sensor_label,
    world,
)

from table_controller.cards import DECK, Card
from table_controller.seats import Seat
from table_controller.vision.calibration import calibrate
from table_controller.vision.layout import CARD_H, Calibration, CalibrationError
from table_controller.vision.synthetic import (
    SEAT_BEARING,
    Camera,
    CardPlacement,
    Effects,
    Hand,
    TableRenderer,
    place,
)
from table_controller.vision.tracker import CardLaid, CardMoved, CardRemoved, CardSeenTwice
from table_controller.vision.watcher import CardWatcher

SEATS = (Seat.N, Seat.E, Seat.S, Seat.W)
# Section 5's venues at 1280x720 by default: the mode docs/calibration.md recommends and
# the harder to read (3.2-3.6 px a cell); 1920x1080 frames cost twice as much to render.
SIZE_CHOICE = ["720"]
STILL = 30  # frames the last card lies after its hand left: 1 s
SHUTTER = 0.5  # the share of a frame's time the shutter is open (motion blur)
SEQUENCES_PER_VENUE = 6  # each calibration (about 0.5 s) serves ~36 cards


@dataclass
class Lay:
    """One card laid in a sequence, and what the watcher made of it."""

    card: Card
    zone: str
    laid: int  # the first frame with the card on the table (under the hand)
    left: int  # the first frame its hand is off it
    reported: int = -1  # the frame of its CardLaid
    duplicates: int = 0  # further CardLaid for it
    removed: list[int] = field(default_factory=list)  # frames of CardRemoved while it lay
    reads: int = 0  # frames read in its zone in the second after ``left``
    shown: int = 0  # frames in that second with a marker wholly visible (the truth)
    trace: str = ""  # from ``laid``: '#' read in its zone, '-' on a line, 'x' elsewhere, '.' not

    @property
    def after(self) -> int:
        """The frame after the hand left that reported it (1: the first without the hand;
        0: reported while the hand was still over it; -1: not within the second)."""
        if self.reported < 0 or self.reported > self.left + STILL:
            return -1
        return max(0, self.reported - self.left + 1)


@dataclass
class Script:
    """A sequence, frame by frame: the cards laid so far are ``cards[:n]`` where n is the
    number with ``laid`` at or before the frame."""

    cards: list[CardPlacement]
    lays: list[Lay]
    hands: dict[int, list[Hand]]
    frames: int
    shake: dict[int, tuple[float, float]]  # frame -> image shift (px)
    notes: list[str]


@dataclass
class VenueResult:
    venue: int
    conditions: str
    refused: str = ""
    lens_measured: bool = False
    lays: list[tuple[int, Lay]] = field(default_factory=list)  # (sequence, card)
    notes: dict[int, str] = field(default_factory=dict)  # sequence -> what happened in it
    frames: int = 0
    reads: int = 0  # cards read, frame by frame (sightings)
    on_table: int = 0  # cards on the table face up, frame by frame
    wrong: int = 0
    phantom: int = 0
    undecided: int = 0  # reads on a zone's line (in no zone)
    wrong_events: list[str] = field(default_factory=list)
    examples: list[str] = field(default_factory=list)
    watch_s: list[float] = field(default_factory=list)
    render_s: float = 0.0
    cpu_s: float = 0.0
    glare: bool = False


def motion_px(camera: Camera, a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """The image blur of something moving from table point a to b in one frame."""
    hom = camera.table_to_image()
    pts = np.array([[*a, 1.0], [*b, 1.0]]) @ hom.T
    px = pts[:, :2] / pts[:, 2:]
    d = (px[1] - px[0]) * SHUTTER
    return (float(d[0]), float(d[1]))


def build_script(rng: np.random.Generator, camera: Camera, n: int) -> Script:
    """The hands and cards of one sequence of ``n`` cards (see the module's docstring)."""
    seats = [SEATS[int(i)] for i in rng.permutation(4)]
    others = ["kitty", *(f"tricks:{s}" for s in SEATS)]
    extra = [others[int(i)] for i in rng.permutation(len(others))[: max(0, n - 4)]]
    zones = [f"play:{s}" for s in seats[:n]] + extra
    deck = [DECK[int(i)] for i in rng.permutation(len(DECK))[:n]]
    skins = {s: int(rng.integers(6)) for s in SEATS}
    hands: dict[int, list[Hand]] = defaultdict(list)
    cards: list[CardPlacement] = []
    lays: list[Lay] = []
    free = dict.fromkeys(SEATS, 0)
    start = 0
    for k, (card, zone) in enumerate(zip(deck, zones, strict=True)):
        who = next((s for s in SEATS if zone.endswith(f":{s}")), SEATS[int(rng.integers(4))])
        start = max(start + (int(rng.integers(0, 4)) if k else 0), free[who])
        spot = place(card, zone, rng)
        bearing = SEAT_BEARING[who]
        b = math.radians(bearing)
        toward = np.array([math.sin(b), -math.cos(b)])  # from the card to the seat
        here = np.array([spot.x, spot.y])
        skin = skins[who]
        prev = here + 350.0 * toward
        for j, d in enumerate((260.0, 170.0, 90.0)):  # the card comes in, in the hand
            tip = here + d * toward
            hand = Hand(at=(float(tip[0]), float(tip[1])), from_deg=bearing, skin=skin)
            hands[start + j].append(moving(hand, motion_px(camera, prev, tip)))
            prev = tip
        laid = start + 3
        steps = int(rng.integers(3, 10))
        f0 = float(rng.uniform(0.6, 0.95))
        back = motion_px(camera, here, here + f0 * CARD_H / steps * toward)
        for j in range(steps):  # laid, and the hand withdraws
            hand = Hand(over=k, fraction=f0 * (1 - j / steps), from_deg=bearing, skin=skin)
            hands[laid + j].append(moving(hand, back if j else (0.0, 0.0)))
        left = laid + steps
        prev = here + 0.5 * CARD_H * toward
        for j, d in enumerate((60.0, 150.0)):  # and is gone
            tip = here + (d + 0.5 * CARD_H) * toward
            hand = Hand(at=(float(tip[0]), float(tip[1])), from_deg=bearing, skin=skin)
            hands[left + j].append(moving(hand, motion_px(camera, prev, tip)))
            prev = tip
        free[who] = left + 2
        cards.append(spot)
        lays.append(Lay(card, zone, laid, left))
    frames = max(lay.left for lay in lays) + STILL + 1
    notes = []
    if n > 1 and rng.random() < 0.3:  # a hand over a card laid, pointing or straightening it
        k = int(rng.integers(n))
        who = SEATS[int(rng.integers(4))]
        t0 = lays[k].left + int(rng.integers(2, 20))
        span = int(rng.integers(2, 7))
        frac = float(rng.uniform(0.2, 0.7))
        for f in range(t0, min(frames, t0 + span)):
            hands[f].append(
                Hand(over=k, fraction=frac, from_deg=SEAT_BEARING[who], skin=skins[who])
            )
        notes.append(f"a hand over {lays[k].card.code} ({frac:.0%}) at frames {t0}-{t0 + span - 1}")
    shake: dict[int, tuple[float, float]] = {}
    if rng.random() < 0.2:  # someone knocks the table: the camera shakes for a moment
        amp = float(rng.uniform(0.5, 2.0))
        period = float(rng.uniform(3.0, 6.0))  # frames: 5-10 Hz
        t0 = int(rng.integers(0, frames - 10))
        span = int(rng.integers(10, 31))
        phase = rng.uniform(0, 2 * math.pi, 2)
        for f in range(t0, min(frames, t0 + span)):
            decay = 1.0 - (f - t0) / span
            w = 2 * math.pi * (f - t0) / period
            shake[f] = (
                amp * decay * math.sin(w + phase[0]),
                amp * decay * math.sin(w + phase[1]),
            )
        notes.append(f"camera shaking up to {amp:.1f} px at frames {t0}-{t0 + span - 1}")
    return Script(cards, lays, hands, frames, shake, notes)


_RENDERER: dict[str, TableRenderer] = {}


def renderer() -> TableRenderer:
    """One renderer per process (its caches are what make frames cheap)."""
    if "aruco" not in _RENDERER:
        _RENDERER["aruco"] = TableRenderer("aruco")
    return _RENDERER["aruco"]


def with_glare(rng: np.random.Generator, effects: Effects) -> Effects:
    """Glare spots fixed on the table (a lamp does not move between frames): sometimes
    added, and pinned when the venue's effects already have them."""
    if effects.glare <= 0 and rng.random() >= 0.3:
        return effects
    strength = effects.glare if effects.glare > 0 else float(rng.uniform(0.4, 1.0))
    spots = effects.glare_spots if effects.glare > 0 else int(rng.integers(1, 4))
    at = tuple((float(x), float(y)) for x, y in rng.uniform(-330.0, 330.0, (spots, 2)))
    return replace(effects, glare=strength, glare_spots=spots, glare_at=effects.glare_at or at)


def describe(camera: Camera, effects: Effects, sensor: Any | None) -> str:
    k1 = camera.distortion[0] if camera.distortion else 0.0
    glare = (
        f"glare {effects.glare:.1f} at "
        + ", ".join(f"({x:.0f}, {y:.0f})" for x, y in effects.glare_at)
        + " mm"
        if effects.glare > 0
        else "no glare"
    )
    x, y, h = camera.position
    return (
        f"{camera.width}x{camera.height} {camera.hfov_deg:.0f}deg at ({x:.0f}, {y:.0f}, {h:.0f})"
        f", k1 {k1:+.2f}, {sensor_label(sensor)}, defocus "
        f"{getattr(sensor, 'defocus_px', effects.blur):.2f} px, noise "
        f"{effects.noise:.1f}, exposure {effects.exposure:.2f}, {glare}"
    )


def calibrated(
    camera: Camera, effects: Effects, sensor: Any | None, seed: int
) -> tuple[Calibration | None, bool, str]:
    """The venue's calibration from its empty mat, as ``table-controller calibrate`` makes
    it: refused when the picture is too soft (the director refocuses), and, with the lens
    measured (as after ``calibrate lens``), when the mat alone is refused; a venue whose
    glare calibrate warns of is not played either (the director moves the lamp).
    (calibration, lens measured, why not)"""
    image = renderer().render(scene((), (), camera, effects, seed, sensor)).image
    cal, lens = None, False
    try:
        cal = calibrate(image, require_sharp=True)
    except CalibrationError as exc:
        why = str(exc)
        if not any(camera.distortion) or "soft" in why or "blur" in why:
            return None, False, why
    if cal is None:
        try:
            cal = calibrate(image, lens=(camera.matrix(), camera.dist_coeffs()), require_sharp=True)
            lens = True
        except CalibrationError as exc:
            return None, False, str(exc)
    glare = glare_warned(image, cal)
    if glare is not None:
        return None, lens, f"glare flagged by calibrate: {glare}"
    return cal, lens, ""


def run_venue(job: tuple[int, int, int, bool]) -> VenueResult:
    """Play ``sequences`` sequences in venue ``venue`` of seed ``seed``."""
    seed, venue, sequences, trace = job
    cv2.setNumThreads(1)
    cpu0 = clock()
    rng = np.random.default_rng([seed, 5, venue])
    size = {"720": (1280, 720), "1080": (1920, 1080)}.get(SIZE_CHOICE[0])
    camera, effects, sensor = world(rng, size=size, sharp=True)
    effects = with_glare(rng, effects)
    out = VenueResult(venue, describe(camera, effects, sensor), glare=effects.glare > 0)
    cal, out.lens_measured, why = calibrated(camera, effects, sensor, seed * 7919 + venue)
    if cal is None:
        out.refused = why
        out.cpu_s = clock() - cpu0
        return out
    draw = renderer()
    for q in range(sequences):
        script = build_script(rng, camera, int(rng.integers(6, 10)))
        out.notes[q] = "; ".join(script.notes)
        play(script, cal, camera, effects, sensor, (seed * 1_000_003 + venue) * 16 + q, draw, out)
        out.lays.extend((q, lay) for lay in script.lays)
    if not trace:
        for _, lay in out.lays:
            lay.trace = ""
    out.cpu_s = clock() - cpu0
    return out


def play(
    script: Script,
    cal: Calibration,
    camera: Camera,
    effects: Effects,
    sensor: Any | None,
    seed: int,
    draw: TableRenderer,
    out: VenueResult,
) -> None:
    """Render the sequence frame by frame through a fresh CardWatcher, and score it."""
    watcher = CardWatcher(cal)
    index = {lay.card: k for k, lay in enumerate(script.lays)}
    zones = {}
    for f in range(script.frames):
        n = sum(lay.laid <= f for lay in script.lays)
        fx = effects
        if f in script.shake:  # the frame moves, blurred by how fast it moves
            dx, dy = script.shake[f]
            px, py = script.shake.get(f - 1, (0.0, 0.0))
            v = math.hypot(dx - px, dy - py) * SHUTTER
            if v > 0.3:
                fx = replace(fx, motion=v, motion_deg=math.degrees(math.atan2(dy - py, dx - px)))
        sc = scene(
            tuple(script.cards[:n]), tuple(script.hands.get(f, ())), camera, fx, seed, sensor
        )
        t = clock()
        r = draw.render(sc, seed=seed * 1009 + f)
        image = r.image
        if f in script.shake:
            dx, dy = script.shake[f]
            m = np.array([[1.0, 0.0, dx], [0.0, 1.0, dy]])
            image = cv2.warpAffine(image, m, camera.size, borderMode=cv2.BORDER_REPLICATE)
        out.render_s += clock() - t
        t = clock()
        events = watcher.process(image, f, f / FPS)
        out.watch_s.append(clock() - t)
        out.frames += 1
        here = {c.card: c for c in r.cards if c.face_up}
        for card, c in here.items():
            if card not in zones:
                zones[card] = true_zone(cal, c)
        out.on_table += len(here)
        read_at: dict[Card, str] = {}
        for s in watcher.last:
            out.reads += 1
            c = here.get(s.card)
            if c is not None and s.on_line:
                out.undecided += 1
                read_at[s.card] = "-"
            elif c is None or s.zone != zones[s.card]:
                out.wrong += 1
                out.phantom += c is None
                read_at.setdefault(s.card, "x")
                if len(out.examples) < 5:
                    truth = "not on the table" if c is None else f"truly in {zones[s.card]}"
                    out.examples.append(
                        f"venue {out.venue} frame {f}: {s.card.code} read in {s.zone} at "
                        f"({s.x:.0f}, {s.y:.0f}) mm, {truth}"
                    )
            else:
                read_at[s.card] = "#"
        for lay in script.lays:
            if lay.laid <= f:
                mark = read_at.get(lay.card, ".")
                lay.trace += mark
                if lay.left <= f <= lay.left + STILL:
                    lay.reads += mark == "#"
                    lay.shown += here[lay.card].readable
        for seen in events:
            e = seen.event
            where = f"venue {out.venue} frame {f}"
            k = index.get(e.card) if isinstance(e, CardLaid | CardRemoved) else None
            lay = None if k is None else script.lays[k]
            if isinstance(e, CardLaid):
                if lay is None or lay.laid > f or e.zone != lay.zone:
                    out.wrong_events.append(f"{where}: {e}")
                elif lay.reported >= 0:
                    lay.duplicates += 1
                else:
                    lay.reported = f
            elif isinstance(e, CardRemoved):
                if lay is not None and lay.laid <= f:
                    lay.removed.append(f)
                else:
                    out.wrong_events.append(f"{where}: {e}")
            elif isinstance(e, CardMoved | CardSeenTwice):
                out.wrong_events.append(f"{where}: {e}")


# --- running and reporting --------------------------------------------------------------


def venues(args: argparse.Namespace, sequences: int) -> Iterator[VenueResult]:
    """Venue results in order (0, 1, 2...), over ``args.jobs`` processes."""
    jobs = 1 if args.quick else max(1, args.jobs)
    if jobs == 1:
        v = 0
        while True:
            yield run_venue((args.seed, v, sequences, False))
            v += 1
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(jobs) as pool:
        v = 0
        while True:
            batch = range(v, v + 4 * jobs)
            yield from pool.imap(
                run_venue, [(args.seed, i, sequences, False) for i in batch], chunksize=1
            )
            v = batch.stop


def section_still(args: argparse.Namespace, cals: Any = None) -> None:
    SIZE_CHOICE[0] = args.still_size
    heading("5. Cards laid and left still: 1 s at 30 fps through CardWatcher")
    limit, source = defocus_limit()
    if args.venue is not None:
        trace_venue(args, args.venue)
        return
    sequences = 1 if args.quick else SEQUENCES_PER_VENUE
    results: list[VenueResult] = []
    cards = 0
    wall0 = time.perf_counter()
    for res in venues(args, sequences):
        results.append(res)
        cards += len(res.lays)
        if cards >= args.cards:
            break
    wall = time.perf_counter() - wall0
    report(args, results, wall, limit, source)


def report(
    args: argparse.Namespace, results: list[VenueResult], wall: float, limit: float, source: str
) -> None:
    lays = [(r, q, lay) for r in results for q, lay in r.lays]
    n = len(lays)
    played = [r for r in results if not r.refused]
    frames = sum(r.frames for r in results)
    cpu = sum(r.cpu_s for r in results)
    render = sum(r.render_s for r in results)
    seqs = sum(len(r.notes) for r in results)
    print(
        f"camera model: {model_name()}; venues at {SIZE_CHOICE[0]}p, their own focus, played "
        f"when calibrate accepts them (blur at most {limit:.2f} px, {source}; no glare "
        "warned of); hands "
        + ("blurred by their motion" if hands_blurred() else "not blurred (Hand has no motion_px)")
    )
    print(
        f"{n:,} cards in {seqs:,} sequences at {len(played)} venues ({len(results) - len(played)}"
        f" refused by calibrate, {sum(r.lens_measured for r in played)} calibrated with the lens "
        f"measured); {frames:,} frames; glare at {sum(r.glare for r in played)} venues, camera "
        f"shake in {sum('shaking' in s for r in results for s in r.notes.values())} sequences, a "
        f"hand hovering in {sum('hand over' in s for r in results for s in r.notes.values())}"
    )
    if not n:
        return
    print(
        f"  cost: {wall:.0f} s wall with {1 if args.quick else args.jobs} job(s), "
        f"{wall / n:.3f} s a card; CPU "
        f"{cpu / n:.3f} s a card ({render / cpu:.0%} rendering)"
    )
    watch = [t for r in results for t in r.watch_s]
    med, p99 = ms(watch)
    print(f"  CardWatcher.process per frame: {med:.2f} ms median, {p99:.2f} ms p99")
    reported = [lay for _, _, lay in lays if lay.after >= 0]
    print(
        f"  reported within 1 s of the hand leaving: {len(reported):,} of {n:,} "
        f"({pct(len(reported), n)}); later: "
        f"{sum(lay.reported > lay.left + STILL for _, _, lay in lays)}; never: "
        f"{sum(lay.reported < 0 for _, _, lay in lays)}"
    )
    if reported:
        a = np.array([lay.after for lay in reported])
        q = [int(np.percentile(a, p, method="higher")) for p in (50, 90, 99)]
        print(
            f"  frame after the hand left that reported it (1: the first without the hand): "
            f"median {q[0]}, p90 {q[1]}, p99 {q[2]}, max {a.max()}; while the hand was "
            f"still over it: {int((a == 0).sum())}"
        )
        b = np.array([lay.reported - lay.laid + 1 for lay in reported])
        q = [int(np.percentile(b, p, method="higher")) for p in (50, 90, 99)]
        print(
            f"  frame after being laid (under the hand) that reported it: median {q[0]}, "
            f"p90 {q[1]}, p99 {q[2]}, max {b.max()}"
        )
    removed = [(r, q, lay) for r, q, lay in lays if lay.removed]
    dup = [(r, q, lay) for r, q, lay in lays if lay.duplicates]
    reads = sum(r.reads for r in results)
    wrong = sum(r.wrong for r in results)
    print(
        f"  declared removed while lying there: {len(removed)} cards; duplicate CardLaid: "
        f"{sum(lay.duplicates for _, _, lay in dup)}; other wrong events: "
        f"{sum(len(r.wrong_events) for r in results)}"
    )
    print(
        f"  wrong cards: {wrong} in {reads:,} cards read ({sum(r.phantom for r in results)} not "
        f"on the table); {sum(r.undecided for r in results):,} read on a zone's line; "
        f"{sum(r.on_table for r in results):,} cards on the table, frame by frame"
    )
    worst(args, lays, removed, dup, results)
    print(
        "  goals: 100% reported within 1 s, median at most 3 frames; none removed while "
        "lying; no duplicate; 0 wrong cards"
    )


def _case(args: argparse.Namespace, r: VenueResult, q: int, lay: Lay) -> str:
    note = r.notes.get(q, "")
    return (
        f"{lay.card.code} in {lay.zone}, venue {r.venue} sequence {q}: laid at frame "
        f"{lay.laid}, hand off at {lay.left}, CardLaid at {lay.reported}"
        + "".join(f", CardRemoved at {f}" for f in lay.removed)
        + f"; read in {lay.zone} "
        f"in {lay.reads} of the {STILL + 1} frames after, a marker wholly visible in "
        f"{lay.shown}{'; ' + note if note else ''}\n"
        f"        {r.conditions}; again: bench/vision.py --sections 5 --seed {args.seed} "
        f"--venue {r.venue}"
    )


def worst(
    args: argparse.Namespace,
    lays: list[tuple[VenueResult, int, Lay]],
    removed: list[tuple[VenueResult, int, Lay]],
    dup: list[tuple[VenueResult, int, Lay]],
    results: list[VenueResult],
) -> None:
    never = [x for x in lays if x[2].after < 0]
    slow = sorted((x for x in lays if x[2].after > 3), key=lambda x: -x[2].after)
    for title, cases in (
        ("not reported within 1 s", never),
        ("slowest (after frame 3)", slow),
        ("declared removed while lying there", removed),
        ("reported twice", dup),
    ):
        if cases:
            print(f"  {title}: {len(cases)}")
            for r, q, lay in cases[:8]:
                print(f"    {_case(args, r, q, lay)}")
    refused = [r for r in results if r.refused]
    for r in refused[:5]:
        print(f"    venue {r.venue} refused: {r.refused[:160]} ({r.conditions})")
    for r in results:
        for line in (r.wrong_events + r.examples)[:3]:
            print(f"    {line}")


def trace_venue(args: argparse.Namespace, venue: int) -> None:
    """One venue again, with every card's frames from being laid: '#' read in its zone,
    '-' on a zone's line, 'x' elsewhere, '.' not read; '|' marks the hand leaving."""
    r = run_venue((args.seed, venue, 1 if args.quick else SEQUENCES_PER_VENUE, True))
    print(f"venue {venue}: {r.conditions}")
    if r.refused:
        print(f"  refused by calibrate: {r.refused}")
    for q, lay in r.lays:
        cut = lay.left - lay.laid
        print(
            f"  seq {q} {lay.card.code:>3} {lay.zone:<9} laid {lay.laid:>3} CardLaid "
            f"{lay.reported:>3}: {lay.trace[:cut]}|{lay.trace[cut:]}"
        )
    for q, note in r.notes.items():
        if note:
            print(f"  seq {q}: {note}")
    for line in r.wrong_events + r.examples:
        print(f"  {line}")
