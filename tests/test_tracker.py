"""The tracker: steady readings become events; glimpses, gaps and conflicts do not."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table_controller.cards import DECK, Card
from table_controller.rules.events import CardPlayed
from table_controller.seats import Seat
from table_controller.vision.tracker import (
    CardLaid,
    CardMoved,
    CardRead,
    CardRemoved,
    CardSeenTwice,
    Tracker,
    to_input_event,
)

JH = Card.parse("JH")
FPS = 30.0


def read(
    card: Card = JH, zone: str | None = "play:S", x: float = 0.0, y: float = 150.0
) -> CardRead:
    return CardRead(card, zone, x, y)


def feed(tracker: Tracker, frames: list[list[CardRead]], start: int = 0) -> list[object]:
    out: list[object] = []
    for i, reads in enumerate(frames, start=start):
        out += tracker.update(i, i / FPS, reads)
    return out


def test_a_card_is_laid_on_its_second_steady_frame() -> None:
    tracker = Tracker()
    assert tracker.update(0, 0.0, [read()]) == []
    events = tracker.update(1, 1 / FPS, [read()])
    assert events == [CardLaid(JH, "play:S", 1, 1 / FPS, 0.0, 150.0)]
    assert to_input_event(events[0]) == CardPlayed(Seat.S, JH)
    assert feed(tracker, [[read()]] * 10, start=2) == []  # reported once


def test_a_single_glimpse_is_not_a_card() -> None:
    tracker = Tracker()
    frames = [[read()], [], [read(zone="play:W", x=-150, y=0)], []]
    assert feed(tracker, frames) == []


def test_a_hand_over_the_card_for_a_moment_is_not_a_removal() -> None:
    tracker = Tracker(gone_seconds=1.0)
    feed(tracker, [[read()]] * 3)
    assert feed(tracker, [[]] * 20, start=3) == []  # two thirds of a second covered
    assert feed(tracker, [[read()]] * 3, start=23) == []  # still where it was


def test_removal_after_the_card_is_gone_long_enough() -> None:
    tracker = Tracker(gone_seconds=1.0)
    feed(tracker, [[read()]] * 3)
    events = feed(tracker, [[]] * 40, start=3)
    assert [type(e) for e in events] == [CardRemoved]
    assert events[0].zone == "play:S"  # type: ignore[attr-defined]
    assert tracker.where(JH) is None


def test_a_trick_gathered_is_a_move() -> None:
    tracker = Tracker()
    feed(tracker, [[read()]] * 3)
    events = feed(tracker, [[read(zone="tricks:S", x=200, y=280)]] * 3, start=3)
    assert events == [CardMoved(JH, "play:S", "tricks:S", 4, 4 / FPS)]
    assert to_input_event(events[0]) is None


def test_the_same_card_in_two_places_is_an_alert_not_a_guess() -> None:
    tracker = Tracker()
    two = [read(), read(zone="play:N", x=0, y=-150)]
    events = feed(tracker, [two] * 5)
    assert [type(e) for e in events] == [CardSeenTwice]
    assert tracker.where(JH) is None  # nothing reported for it
    # Back in one place: reported, steadily.
    assert [type(e) for e in feed(tracker, [[read()]] * 2, start=5)] == [CardLaid]


def test_two_markers_of_one_card_are_one_place() -> None:
    tracker = Tracker()
    both = [read(x=-20, y=130), read(x=20, y=170)]  # its two corners' estimates
    assert [type(e) for e in feed(tracker, [both] * 2)] == [CardLaid]


def test_outside_every_zone_nothing_is_laid() -> None:
    assert feed(Tracker(), [[read(zone=None)]] * 10) == []


def test_settings_are_checked() -> None:
    with pytest.raises(ValueError, match="stable_frames"):
        Tracker(stable_frames=0)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.lists(
            st.tuples(st.sampled_from(DECK[:6]), st.sampled_from(["play:S", "play:N", None])),
            max_size=4,
        ),
        max_size=60,
    )
)
def test_only_cards_read_are_ever_reported(frames: list[list[tuple[Card, str | None]]]) -> None:
    tracker = Tracker()
    read_so_far: set[Card] = set()
    for i, frame in enumerate(frames):
        reads = [CardRead(c, z, 0.0 if z == "play:S" else 300.0, 150.0) for c, z in frame]
        read_so_far |= {c for c, _ in frame}
        for event in tracker.update(i, i / FPS, reads):
            assert event.card in read_so_far
            if isinstance(event, CardLaid):
                assert any(c == event.card and z == event.zone for c, z in frame)
