"""The deck's integrity, every hand (issue 31): two decks mixed, a card not of this deck,
a card seen twice, a hand ended short and a wrong kitty, each from the camera's real
path (the synthetic table rendered, read by the watcher) to an alert with its picture
on the table's page and on the director's dashboard, both in Debian's chromium.

The rule each quotes: 001 s2 "Only 24 cards, each suit's nine (9) through ace, are in
play."; 003 "If an incorrect number of cards are found at any time during play, the hand
is void and the deal is passed to the next player"; 003 "The kitty is then set aside and
no one is allowed to look it." None of them is the table's to rule: the card is not
taken into the game and the director is told ("DO NOT make your own Rulings! Please
call the Tournament Director (TD)", 003)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2

import numpy as np
import pytest
from playwright.sync_api import Browser, Page, expect
from test_director_service import client, publish, topic, wait_until
from test_director_store import feed_messages
from test_director_web import ARTIFACTS, World, log_in_page
from test_table_app import _Stopped, config_in, running, until

from table_controller.cards import Card
from table_controller.devices.seat_events import SeatButton
from table_controller.rules.events import (
    CardPlayed,
    ForeignCardSeen,
    HandDealt,
    IrregularityFound,
    KittyCardSeen,
    SecondCopySeen,
)
from table_controller.rules.hand import Phase
from table_controller.seats import Seat
from table_controller.table.app import Table
from table_controller.vision.calibration import calibrate
from table_controller.vision.evidence import Seen
from table_controller.vision.foreign import ForeignCardLaid, ForeignSeen, ForeignTracker
from table_controller.vision.markers import family
from table_controller.vision.synthetic import Camera, CardPlacement, Effects, Scene, place, render
from table_controller.vision.tracker import CardLaid, CardSeenTwice
from table_controller.vision.watcher import CardWatcher

N, E, S, W = Seat
NINE_S, TEN_S, KS, QH, NINE_H = (Card.parse(c) for c in ("9S", "TS", "KS", "QH", "9H"))
CAMERA = Camera()
FOREIGN_MARKER = 31  # an ArUco 4x4 marker numbered past the deck's 24: another deck's card


def watched(*scenes: Scene) -> list[Seen]:
    """What the watcher reports over ``scenes``, each shown for two frames."""
    calibration = calibrate(render(Scene(camera=CAMERA, seed=1)).image)
    watcher = CardWatcher(calibration)
    seen: list[Seen] = []
    frame = 0
    for scene in scenes:
        image = render(scene).image
        for _ in range(2):
            seen += watcher.process(image, frame, frame / 30)
            frame += 1
    return seen


def only(seen: list[Seen], kind: type) -> Seen:
    (found,) = [s for s in seen if isinstance(s.event, kind)]
    return found


@pytest.fixture(scope="module")
def camera_seen() -> dict[str, Seen]:
    """The camera's reports, with their pictures, for each case: the 9♠ laid in North's
    square and in East's, two 9♥ at once, a card of another deck in West's, a card laid
    in the kitty."""
    rng = np.random.default_rng(5)
    out: dict[str, Seen] = {}
    for name, card, zone in (
        ("N", NINE_S, "play:N"),
        ("E", NINE_S, "play:E"),
        ("kitty", NINE_S, "kitty"),
        ("S", TEN_S, "play:S"),
        ("W", KS, "play:W"),
    ):
        out[name] = only(watched(Scene(cards=(place(card, zone, rng),), camera=CAMERA)), CardLaid)
    two = (place(NINE_H, "play:N", rng), place(NINE_H, "play:S", rng))
    out["twice"] = only(watched(Scene(cards=two, camera=CAMERA)), CardSeenTwice)
    foreign = Scene(cards=(_marked(place(QH, "play:W", rng), FOREIGN_MARKER),), camera=CAMERA)
    out["foreign"] = only(watched(foreign), ForeignCardLaid)
    return out


def _marked(p: CardPlacement, marker: int) -> CardPlacement:
    return replace(p, marker=marker)


# --- the camera -------------------------------------------------------------------------


def test_the_camera_reports_a_card_of_another_deck_and_two_copies_with_pictures(
    camera_seen: dict[str, Seen],
) -> None:
    foreign = camera_seen["foreign"]
    assert isinstance(foreign.event, ForeignCardLaid)
    assert (foreign.event.marker, foreign.event.zone) == (FOREIGN_MARKER, "play:W")
    twice = camera_seen["twice"]
    assert isinstance(twice.event, CardSeenTwice) and twice.event.card == NINE_H
    for seen in (foreign, twice):
        assert seen.evidence is not None and seen.evidence[:2] == b"\xff\xd8"  # a JPEG
    both = cv2.imdecode(np.frombuffer(twice.evidence or b"", np.uint8), cv2.IMREAD_GRAYSCALE)
    # Both copies in the one picture, side by side.
    assert [s.card for s in family("aruco").read(both)].count(NINE_H) >= 2


def test_a_foreign_marker_is_reported_once_it_lies_still_and_once_only() -> None:
    tracker = ForeignTracker()
    at = ForeignSeen(31, 10.0, 20.0, "play:N")
    assert tracker.update(0, 0.0, [at]) == []  # one glimpse proves nothing
    (laid,) = tracker.update(1, 0.03, [at, ForeignSeen(31, 12.0, 21.0, "play:N")])
    assert (laid.marker, laid.zone) == (31, "play:N")
    assert tracker.update(2, 0.06, [at]) == []  # lying there: not again
    moving = ForeignTracker()
    assert moving.update(0, 0.0, [at]) == []
    assert moving.update(1, 0.03, [ForeignSeen(31, 50.0, 20.0, "play:N")]) == []  # carried
