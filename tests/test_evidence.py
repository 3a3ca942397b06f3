"""The picture kept of a card laid: taken once the hand is off it, the whole card in it,
large enough to judge. What it is for, 001 s22: "All revokes must be supported by
evidence of cards played" (the director judges a renege on these pictures)."""

from __future__ import annotations

import asyncio

import cv2
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from table_controller.cards import Card
from table_controller.table.camera_watch import CameraWatch
from table_controller.table.health import Health
from table_controller.vision.calibration import calibrate
from table_controller.vision.camera import Frame, FrameSource
from table_controller.vision.evidence import (
    EVIDENCE_MIN_PX,
    EvidenceHold,
    Picture,
    crop_box,
)
from table_controller.vision.markers import family
from table_controller.vision.synthetic import (
    SKIN,
    Camera,
    CardPlacement,
    Effects,
    Hand,
    Rendered,
    Scene,
    TableRenderer,
    place,
)
from table_controller.vision.tracker import CardLaid, CardMoved, CardRemoved, TrackerEvent
from table_controller.vision.watcher import CardWatcher, Seen

CAMERA = Camera()
FX = Effects.realistic()
RENDERER = TableRenderer()
MAT = calibrate(RENDERER.render(Scene(camera=CAMERA, effects=FX, seed=1)).image)
JH, AS, KD = Card.parse("JH"), Card.parse("AS"), Card.parse("KD")
SKIN_TONE = 4  # the hands' skin in these tests (synthetic.SKIN)


def scene(card: CardPlacement | None, hand: Hand | None = None) -> Scene:
    return Scene(
        cards=() if card is None else (card,),
        hands=() if hand is None else (hand,),
        camera=CAMERA,
        effects=FX,
    )


def watched_mat() -> tuple[CardWatcher, int]:
    """A watcher that has seen the empty mat for a second (it has learned the mat)."""
    watcher = CardWatcher(MAT)
    empty = [RENDERER.render(scene(None), seed).image for seed in range(3)]
    for i in range(30):
        assert watcher.process(empty[i % 3], i, i / 30) == []
    return watcher, 30


def laying(card: CardPlacement, fractions: list[float], clear: int) -> list[Rendered]:
    """A card laid under its player's hand, the hand over ``fractions`` of it frame by
    frame (withdrawing), then ``clear`` frames of the card alone."""
    hands = [Hand(over=0, fraction=f, skin=SKIN_TONE) for f in fractions]
    scenes = [scene(card, h) for h in hands] + [scene(card)] * clear
    return [RENDERER.render(s, seed=100 + n) for n, s in enumerate(scenes)]


def feed(watcher: CardWatcher, start: int, rendered: list[Rendered]) -> list[Seen]:
    seen: list[Seen] = []
    for n, r in enumerate(rendered):
        seen += watcher.process(r.image, start + n, (start + n) / 30)
    return seen


def skin_share(picture: np.ndarray) -> float:
    """The share of a picture's pixels of the hands' skin (BGR within 30 levels)."""
    tone = np.array(SKIN[SKIN_TONE], np.int16)
    near = np.abs(picture.astype(np.int16) - tone).max(axis=2) <= 30
    return float(near.mean())


def decoded(jpeg: bytes) -> np.ndarray:
    picture = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    assert picture is not None
    return np.asarray(picture)


def test_a_card_laid_under_a_hand_is_pictured_whole_once_the_hand_is_off_it() -> None:
    card = place(JH, "play:S", np.random.default_rng(3))
    watcher, start = watched_mat()
    rendered = laying(card, [0.3, 0.2, 0.1], clear=3)  # frames start .. start + 5
    seen = feed(watcher, start, rendered)
    assert [type(s.event) for s in seen] == [CardLaid]
    laid, evidence, frame = seen[0].event, seen[0].evidence, seen[0].evidence_frame
    assert isinstance(laid, CardLaid) and evidence and frame is not None
    # Reported as before, while the hand is still over the card ...
    assert rendered[laid.frame - start].card("JH").covered > 0
    # ... but pictured once nothing covers it and nothing moves round it: the hand left
    # in frame start + 3, and start + 4 shows the same as start + 3.
    truth = rendered[frame - start]
    assert truth.scene.hands == () and truth.card("JH").covered == 0
    assert frame == start + 4
    picture = decoded(evidence)
    assert skin_share(picture) < 0.001
    # What the picture of the event's own frame would have been: a hand over the card.
    box = crop_box(MAT, rendered[laid.frame - start].image.shape, laid.x, laid.y)
    assert box is not None
    x0, y0, x1, y1 = box
    assert skin_share(rendered[laid.frame - start].image[y0:y1, x0:x1]) > 0.02
    # Large enough to judge: at least 480 px on its long side, both markers read in it.
    assert max(picture.shape[:2]) >= EVIDENCE_MIN_PX == 480
    assert max(picture.shape[:2]) <= 2 * min(picture.shape[:2])
    grey = cv2.cvtColor(picture, cv2.COLOR_BGR2GRAY)
    assert [s.card for s in family("aruco").read(grey)] == [JH, JH]
    # Whole: the card's four corners in that frame lie inside the crop, with a margin.
    spot = next(c for c in watcher.reader.read(truth.image) if c.card == JH)
    box = crop_box(MAT, truth.image.shape, spot.x, spot.y, spot.outline)
    assert box is not None
    x0, y0, x1, y1 = box
    scale = picture.shape[1] / (x1 - x0)
    assert abs(picture.shape[0] / (y1 - y0) - scale) < 0.02  # the box, scaled evenly
    for cx, cy in truth.card("JH").corners:
        assert x0 + 5 <= cx <= x1 - 5 and y0 + 5 <= cy <= y1 - 5


def test_a_card_laid_clear_is_pictured_at_once_and_waits_for_nothing() -> None:
    card = place(AS, "play:W", np.random.default_rng(5))
    watcher, start = watched_mat()
    rendered = laying(card, [], clear=2)
    seen = feed(watcher, start, rendered)
    assert [type(s.event) for s in seen] == [CardLaid]
    assert seen[0].event.frame == seen[0].evidence_frame == start + 1  # the second frame
    assert len(watcher.hold) == 0


def test_a_hand_left_on_the_card_holds_its_event_no_longer_than_the_wait() -> None:
    card = place(KD, "play:E", np.random.default_rng(8))
    watcher, start = watched_mat()
    still = laying(card, [0.35], clear=0)[0]  # the hand stays, not moving
    frames = [still] * 25
    seen = feed(watcher, start, frames)
    assert [type(s.event) for s in seen] == [CardLaid]
    laid = seen[0].event
    assert isinstance(laid, CardLaid)
    released = laid.frame + 15  # 0.5 s at 30 fps: the tracker's within_seconds
    assert seen[0].evidence and seen[0].evidence_frame == released
    assert watcher.flush() == []


def test_a_finger_or_a_sleeve_over_the_card_is_seen_and_the_bare_card_is_clear() -> None:
    card = place(JH, "play:N", np.random.default_rng(11))
    watcher, start = watched_mat()
    covers = [
        Hand(over=0, fraction=0.1, skin=SKIN_TONE, finger=True),
        Hand(over=0, fraction=0.05, skin=0),
        Hand(over=0, fraction=0.2, skin=5, from_deg=90.0),
    ]
    for n, hand in enumerate([*covers, None]):
        r = RENDERER.render(scene(card, hand), seed=n)
        watcher.process(r.image, start + n, (start + n) / 30)
        spot = next((c for c in watcher.last if c.card == JH), None)
        assert spot is not None, hand
        assert watcher.mat.around(r.image, spot.outline) is (hand is None), hand


def test_a_new_source_gives_what_the_watcher_held() -> None:
    card = place(AS, "play:S", np.random.default_rng(2))
    watcher, start = watched_mat()
    seen = feed(watcher, start, laying(card, [0.3, 0.25, 0.2], clear=0))
    assert seen == [] and len(watcher.hold) == 1  # laid, waiting for the hand to leave
    flushed = watcher.flush()
    assert [type(s.event) for s in flushed] == [CardLaid] and flushed[0].evidence
    assert len(watcher.hold) == 0


# --- the order of events, whatever waits -------------------------------------------------

CROP = np.zeros((4, 4, 3), np.uint8)


def laid(card: Card, frame: int) -> CardLaid:
    return CardLaid(card, "play:N", frame, frame / 30, 0.0, 0.0)


def test_events_wait_in_order_behind_a_card_waiting_for_its_picture() -> None:
    hold = EvidenceHold(0.5)
    hold.add(laid(JH, 1), 1 / 30, Picture(CROP, 1, clear=False), (0.0, 0.0))
    hold.add(laid(AS, 2), 2 / 30, Picture(CROP, 2, clear=True), (0.0, 0.0))
    assert hold.release(2 / 30) == []  # AS is ready, but JH was first
    hold.offer(JH, Picture(CROP, 3, clear=False, both=True))
    assert hold.release(3 / 30) == []
    hold.offer(JH, Picture(CROP, 4, clear=True))
    out = hold.release(4 / 30)
    assert [(s.event.card, s.evidence_frame) for s in out] == [(JH, 4), (AS, 2)]
    # A card taken away before it lay clear: its event goes with the best it had.
    hold.add(laid(KD, 5), 5 / 30, Picture(CROP, 5, clear=False), (0.0, 0.0))
    hold.offer(KD, Picture(CROP, 6, clear=False, both=True))
    hold.offer(KD, Picture(CROP, 7, clear=False))  # one marker: not better
    hold.add(CardRemoved(KD, "play:N", 8, 8 / 30), 8 / 30, None, (0.0, 0.0))
    out = hold.release(8 / 30)
    assert [(type(s.event), s.evidence_frame) for s in out] == [(CardLaid, 6), (CardRemoved, None)]
    # Into a tricks pile, under the next cards: never waited for.
    hold.add(CardMoved(JH, "play:N", "tricks:N", 9, 0.3), 0.3, Picture(CROP, 9, False), (0, 0))
    assert [s.evidence_frame for s in hold.release(0.3)] == [9]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from([JH, AS, KD]), st.booleans(), st.booleans()),
        max_size=20,
    )
)
def test_every_event_comes_out_once_in_order(steps: list[tuple[Card, bool, bool]]) -> None:
    """Laid and removed cards, clear or not, frame after frame: whatever waits, the
    events come out in the order they came in, each once, none later than the wait."""
    hold = EvidenceHold(0.1)
    sent: list[TrackerEvent] = []
    out: list[Seen] = []
    for n, (card, clear, remove) in enumerate(steps):
        time = n / 30
        for waiting in hold.awaited():
            hold.offer(waiting, Picture(CROP, n, clear))
        event: TrackerEvent = CardRemoved(card, "play:N", n, time) if remove else laid(card, n)
        hold.add(event, time, Picture(CROP, n, clear), (0.0, 0.0))
        sent.append(event)
        ready = hold.release(time)
        for s in ready:
            assert time - s.event.time <= 0.1 + 1 / 30 + 1e-9  # the frame after the wait
        out += ready
    out += hold.flush()
    assert [s.event for s in out] == sent
    assert all(s.evidence for s in out if isinstance(s.event, CardLaid))


# --- the running table's camera: nothing held is lost when the frames end -----------------


class Frames(FrameSource):
    """Frames rendered beforehand, then the end (a recording replayed)."""

    def __init__(self, images: list[np.ndarray]) -> None:
        super().__init__()
        self.images = images

    def _next(self) -> Frame | None:
        if self.index >= len(self.images):
            return None
        return Frame(self.index, self.index / 30, self.images[self.index])


def test_the_camera_s_last_frames_give_the_events_still_waiting() -> None:
    card = place(KD, "play:S", np.random.default_rng(4))
    empty = [RENDERER.render(scene(None), seed).image for seed in range(3)]
    under = [r.image for r in laying(card, [0.3, 0.25, 0.2], clear=0)]
    images = [empty[i % 3] for i in range(30)] + under  # ends with the hand still over it
    seen: list[Seen] = []
    watch = CameraWatch(
        lambda: Frames(images),
        health=Health(),
        clock=lambda: 0.0,
        on_seen=lambda s, frame, at: seen.append(s),
        calibration=MAT,
        end_with_source=True,
        drift_check=0,
    )
    asyncio.run(watch.run())
    assert [(type(s.event), s.event.card) for s in seen] == [(CardLaid, KD)]
    assert seen[0].evidence and seen[0].evidence_frame == 32  # the last frame: the best
