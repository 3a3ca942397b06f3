"""The camera's whole path on the synthetic table: frames in, CardPlayed out, with evidence."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from table_controller.cards import Card, cards
from table_controller.pictures import JPEG_MAGIC, PNG_MAGIC, data_uri, media_type
from table_controller.rules.events import CardPlayed
from table_controller.seats import Seat
from table_controller.vision.calibration import calibrate
from table_controller.vision.markers import family
from table_controller.vision.synthetic import (
    Camera,
    CardPlacement,
    Effects,
    Hand,
    Scene,
    TableRenderer,
    card_markers_mm,
    pile,
    place,
    render,
)
from table_controller.vision.tracker import CardLaid, CardMoved, CardRemoved, to_input_event
from table_controller.vision.watcher import CardWatcher

CAMERA = Camera()
JH, AS, KD = Card.parse("JH"), Card.parse("AS"), Card.parse("KD")


def frames(*scenes: Scene) -> list[np.ndarray]:
    return [render(s).image for s in scenes]


def test_a_card_laid_becomes_that_seat_s_play_with_evidence() -> None:
    rng = np.random.default_rng(4)
    empty = Scene(camera=CAMERA, effects=Effects.realistic(), seed=1)
    calibration = calibrate(render(empty).image)
    laid = Scene(cards=(place(JH, "play:S", rng),), camera=CAMERA, effects=Effects.realistic())
    watcher = CardWatcher(calibration)
    seen = []
    for i, frame in enumerate(frames(empty, laid, laid, laid)):
        seen += watcher.process(frame, i, i / 30)
    assert [to_input_event(s.event) for s in seen] == [CardPlayed(Seat.S, JH)]
    event = seen[0].event
    assert isinstance(event, CardLaid) and event.frame == 2  # the second frame showing it
    # The evidence is a picture of that card.
    assert seen[0].evidence
    crop = cv2.imdecode(np.frombuffer(seen[0].evidence, np.uint8), cv2.IMREAD_GRAYSCALE)
    assert JH in {s.card for s in family("aruco").read(crop)}
    # Large enough for the director to judge (the card with a margin of the table,
    # 480 px at least on its long side), small enough to send over MQTT.
    assert 480 <= max(crop.shape[:2]) <= 640 and max(crop.shape[:2]) <= 2 * min(crop.shape[:2])
    # A photograph kept as JPEG (a sixth of the PNG), still read by the marker reader.
    assert seen[0].evidence.startswith(JPEG_MAGIC) and len(seen[0].evidence) < 100_000
    assert media_type(seen[0].evidence) == "image/jpeg"
    assert data_uri(seen[0].evidence).startswith("data:image/jpeg;base64,")
    assert media_type(PNG_MAGIC + b"...") == "image/png"  # a log of before: PNG crops


def test_one_marker_is_enough_and_a_gathered_trick_moves() -> None:
    rng = np.random.default_rng(7)
    calibration = calibrate(render(Scene(camera=CAMERA)).image)
    card = place(AS, "play:W", rng)
    covered = Scene(cards=(card,), hands=(Hand(over=0, fraction=0.35),), camera=CAMERA, seed=3)
    truth = render(covered).cards[0]
    assert sum(m.visible for m in truth.markers) == 1  # the hand hides one corner
    gathered = Scene(cards=(place(AS, "tricks:W", rng),), camera=CAMERA)
    watcher = CardWatcher(calibration)
    events = []
    for i, frame in enumerate(frames(covered, covered, gathered, gathered)):
        events += [s.event for s in watcher.process(frame, i, i / 30)]
    assert [type(e) for e in events] == [CardLaid, CardMoved]
    assert to_input_event(events[0]) == CardPlayed(Seat.W, AS)
    assert isinstance(events[1], CardMoved) and events[1].zone == "tricks:W"


# --- a card lying still is kept until its place is seen empty ---------------------------

RENDERER = TableRenderer()
FX = Effects.realistic()
MAT = calibrate(RENDERER.render(Scene(camera=CAMERA, effects=FX, seed=1)).image)


def pictures(scene: Scene, n: int = 3) -> list[np.ndarray]:
    """``n`` frames of one scene, each with its own noise."""
    return [RENDERER.render(scene, seed).image for seed in range(n)]


class Feed:
    """A watcher fed frames at 30 fps, counting them."""

    def __init__(self) -> None:
        self.watcher = CardWatcher(MAT)
        self.frames = 0

    def __call__(self, frames: list[np.ndarray], repeat: int = 1) -> list[object]:
        """The events of ``frames``, cycled ``repeat`` times."""
        out: list[object] = []
        for _ in range(repeat):
            for frame in frames:
                out += [s.event for s in self.watcher.process(frame, self.frames, self.frames / 30)]
                self.frames += 1
        return out

    def unread(self, frames: list[np.ndarray]) -> bool:
        return not any(self.watcher.reader.read(f) for f in frames)


def the_empty_mat() -> Feed:
    """A watcher that has seen the empty mat for a second."""
    feed = Feed()
    assert feed(pictures(Scene(camera=CAMERA, effects=FX)), repeat=10) == []
    return feed


def laid_on_the_mat(*cards: CardPlacement) -> Feed:
    """The empty mat, then ``cards`` laid: each reported laid once."""
    feed = the_empty_mat()
    events = feed(pictures(Scene(cards=cards, camera=CAMERA, effects=FX)), repeat=2)
    assert sorted((e.card, e.zone) for e in events if isinstance(e, CardLaid)) == sorted(
        (c.card, c.zone) for c in cards
    )
    return feed


def test_a_card_covered_by_a_hand_for_three_seconds_is_not_removed_nor_laid_again() -> None:
    card = place(JH, "play:S", np.random.default_rng(3))
    feed = laid_on_the_mat(card)
    hand = Scene(cards=(card,), hands=(Hand(over=0, fraction=1.0),), camera=CAMERA, effects=FX)
    covered = pictures(hand)
    assert feed.unread(covered)  # not read under the hand
    assert feed(covered, repeat=30) == []  # 90 frames, 3 s
    again = pictures(Scene(cards=(card,), camera=CAMERA, effects=FX))
    assert feed(again, repeat=2) == []  # the same card, still lying there
    assert feed.watcher.tracker.where(JH) == "play:S"


def test_glare_over_a_card_is_not_its_removal() -> None:
    card = place(AS, "play:W", np.random.default_rng(5))
    feed = laid_on_the_mat(card)
    spot = replace(FX, glare=1.0, glare_spots=2, glare_px=45.0, glare_at=card_markers(card))
    glare = pictures(Scene(cards=(card,), camera=CAMERA, effects=spot))
    assert feed.unread(glare)  # both markers under glare
    assert feed(glare, repeat=20) == []
    assert feed.watcher.tracker.where(AS) == "play:W"


def card_markers(card: CardPlacement) -> tuple[tuple[float, float], ...]:
    """The table mm of a card's two markers' centres."""
    return tuple((float(m[:, 0].mean()), float(m[:, 1].mean())) for m in card_markers_mm(card))


def test_a_card_picked_up_is_removed_once_its_place_is_seen_empty() -> None:
    card = place(JH, "play:E", np.random.default_rng(8))
    feed = laid_on_the_mat(card)
    lifting = Scene(cards=(card,), hands=(Hand(over=0, fraction=0.9),), camera=CAMERA, effects=FX)
    assert feed(pictures(lifting), repeat=2) == []  # the hand over it: not yet
    gone_at = feed.frames
    events = feed(pictures(Scene(camera=CAMERA, effects=FX)), repeat=2)
    assert [type(e) for e in events] == [CardRemoved]
    removed = events[0]
    assert isinstance(removed, CardRemoved) and removed.zone == "play:E"
    assert removed.frame == gone_at + 2  # the third frame showing its place empty


def test_a_trick_gathered_face_down_removes_its_cards_from_the_play_zones() -> None:
    rng = np.random.default_rng(11)
    trick = [place(c, f"play:{s}", rng) for c, s in zip(cards("JH AS 9C KD"), "NESW", strict=True)]
    feed = laid_on_the_mat(*trick)
    gathered = pile([c.card for c in trick], "tricks:S", rng, face_up=False)
    events = feed(pictures(Scene(cards=tuple(gathered), camera=CAMERA, effects=FX)), repeat=2)
    removed = {(e.card, e.zone) for e in events if isinstance(e, CardRemoved)}
    assert removed == {(c.card, c.zone) for c in trick}
    assert all(isinstance(e, CardRemoved) for e in events)  # the backs are never read


def test_a_card_read_in_one_frame_of_three_is_reported_and_kept() -> None:
    card = place(KD, "play:N", np.random.default_rng(2))
    feed = the_empty_mat()
    sharp = pictures(Scene(cards=(card,), camera=CAMERA, effects=FX), 1)
    shaken = replace(FX, motion=16.0, motion_deg=35.0)
    blurred = pictures(Scene(cards=(card,), camera=CAMERA, effects=shaken), 2)
    assert feed.unread(blurred)
    start = feed.frames
    events = feed(sharp + blurred, repeat=30)  # 90 frames, 30 reads
    assert [type(e) for e in events] == [CardLaid]
    assert isinstance(events[0], CardLaid) and events[0].frame == start + 3


def test_a_covered_lens_removes_nothing_and_is_not_learned_as_the_mat() -> None:
    """Dark blank frames for 3 s (a bag over the camera): nothing removed, nothing laid
    again after; a card picked up after it is removed as soon as its place shows."""
    card = place(JH, "play:S", np.random.default_rng(3))
    feed = laid_on_the_mat(card)
    lying = pictures(Scene(cards=(card,), camera=CAMERA, effects=FX))
    dark = [np.full_like(lying[0], 14)]
    assert feed(dark, repeat=90) == []
    assert feed(lying, repeat=2) == []
    events = feed(pictures(Scene(camera=CAMERA, effects=FX)), repeat=2)
    assert [type(e) for e in events] == [CardRemoved]


def test_a_card_picked_up_from_under_another_s_edge_is_removed() -> None:
    """The part of its place under another card read in the frame is left out: the rest
    shows the mat."""
    under = CardPlacement(JH, -20.0, 130.0, 0.0, zone="play:S")
    over = CardPlacement(AS, 25.0, 160.0, 0.0, zone="play:S")  # over its right edge
    feed = laid_on_the_mat(under, over)
    events = feed(pictures(Scene(cards=(over,), camera=CAMERA, effects=FX)), repeat=2)
    assert [(type(e), e.card) for e in events] == [(CardRemoved, JH)]  # type: ignore[attr-defined]
    assert feed.watcher.tracker.where(AS) == "play:S"
