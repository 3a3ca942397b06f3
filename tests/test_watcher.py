"""The camera's whole path on the synthetic table: frames in, CardPlayed out, with evidence."""

from __future__ import annotations

import cv2
import numpy as np

from table_controller.cards import Card
from table_controller.rules.events import CardPlayed
from table_controller.seats import Seat
from table_controller.vision.calibration import calibrate
from table_controller.vision.markers import family
from table_controller.vision.synthetic import Camera, Effects, Hand, Scene, place, render
from table_controller.vision.tracker import CardLaid, CardMoved, to_input_event
from table_controller.vision.watcher import CardWatcher

CAMERA = Camera()
JH, AS = Card.parse("JH"), Card.parse("AS")


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
