"""The tracker: still readings become events; glimpses, gaps and conflicts do not, and a
card is removed only on evidence."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table_controller.cards import DECK, Card
from table_controller.rules.events import CardPlayed
from table_controller.seats import Seat
from table_controller.vision.tracker import (
    STILL_MM,
    CardLaid,
    CardMoved,
    CardRead,
    CardRemoved,
    CardSeenTwice,
    Tracker,
    to_input_event,
)
from table_controller.vision.zones import CENTRE_MM, CLEAR_SHARE, HOLD_MM, HOLD_SHARE

JH = Card.parse("JH")
FPS = 30.0


def read(
    card: Card = JH,
    zone: str | None = "play:S",
    x: float = 0.0,
    y: float = 150.0,
    shares: tuple[tuple[str, float], ...] = (),
) -> CardRead:
    return CardRead(card, zone, x, y, shares=shares)


def feed(
    tracker: Tracker, frames: list[list[CardRead]], start: int = 0, empty: set[Card] | None = None
) -> list[object]:
    out: list[object] = []
    for i, reads in enumerate(frames, start=start):
        out += tracker.update(i, i / FPS, reads, empty or set())
    return out


def types(events: list[object]) -> list[type]:
    return [type(e) for e in events]


def test_a_card_is_laid_on_its_second_still_read() -> None:
    tracker = Tracker()
    assert tracker.update(0, 0.0, [read()]) == []
    events = tracker.update(1, 1 / FPS, [read()])
    assert events == [CardLaid(JH, "play:S", 1, 1 / FPS, 0.0, 150.0)]
    assert to_input_event(events[0]) == CardPlayed(Seat.S, JH)
    assert feed(tracker, [[read()]] * 10, start=2) == []  # reported once


def test_frames_that_miss_it_do_not_count_against_a_card_lying_still() -> None:
    """Read in one frame of three: reported on the second read, three frames later."""
    tracker = Tracker()
    events = feed(tracker, [[read()], [], [], [read()]])
    assert events == [CardLaid(JH, "play:S", 3, 3 / FPS, 0.0, 150.0)]


def test_a_single_glimpse_is_not_a_card() -> None:
    tracker = Tracker()
    frames = [[read()], [], [read(zone="play:W", x=-150, y=0)], []]
    assert feed(tracker, frames) == []
    # Two reads too far apart in time are two glimpses.
    assert feed(Tracker(), [[read()], *[[]] * 20, [read()]]) == []


def test_a_card_carried_across_a_zone_is_not_laid() -> None:
    """Reads that move more than STILL_MM from the first are a card in a hand."""
    moving = [[read(y=100.0 + 1.5 * STILL_MM * i)] for i in range(4)]
    assert feed(Tracker(), moving) == []


def test_a_card_covered_however_long_is_not_removed_nor_laid_again() -> None:
    tracker = Tracker()
    feed(tracker, [[read()]] * 3)
    assert feed(tracker, [[]] * 300, start=3) == []  # ten seconds unread
    assert tracker.where(JH) == "play:S"
    assert feed(tracker, [[read(x=3.0)]] * 3, start=303) == []  # the same card, still there


def test_removed_once_its_place_is_seen_empty() -> None:
    tracker = Tracker(empty_frames=3)
    feed(tracker, [[read()]] * 3)
    assert feed(tracker, [[]] * 5, start=3) == []  # unread, place not seen
    # Seen empty twice, then not (a hand over it): the count starts again.
    assert feed(tracker, [[]] * 2, start=8, empty={JH}) == []
    assert feed(tracker, [[]], start=10) == []
    events = feed(tracker, [[]] * 3, start=11, empty={JH})
    assert events == [CardRemoved(JH, "play:S", 13, 13 / FPS, 2 / FPS)]
    assert tracker.where(JH) is None and tracker.lying() == []
    # Laid again after the removal: a new "laid".
    assert types(feed(tracker, [[read()]] * 2, start=14)) == [CardLaid]


def test_a_read_card_is_never_removed_for_an_empty_place() -> None:
    """An empty-place verdict for a card read in the same frame does not count."""
    tracker = Tracker(empty_frames=1)
    assert feed(tracker, [[read()]] * 10, empty={JH}) == [
        CardLaid(JH, "play:S", 1, 1 / FPS, 0.0, 150.0)
    ]


def test_read_steadily_outside_every_zone_is_a_removal() -> None:
    tracker = Tracker()
    feed(tracker, [[read()]] * 3)
    events = feed(tracker, [[read(zone=None, x=0.0, y=330.0)]] * 3, start=3)
    assert types(events) == [CardRemoved] and tracker.where(JH) is None


def test_a_trick_gathered_is_a_move() -> None:
    tracker = Tracker()
    feed(tracker, [[read()]] * 3)
    events = feed(tracker, [[read(zone="tricks:S", x=200, y=280)]] * 3, start=3)
    assert events == [CardMoved(JH, "play:S", "tricks:S", 4, 4 / FPS)]
    assert to_input_event(events[0]) is None


def test_a_card_near_a_line_is_held_in_the_zone_it_was_reported_in() -> None:
    """Hysteresis: laid with most of it in South's play zone, its later reads (a few mm
    off) put less of it there and no zone clearly: it stays; clearly in the kitty: moved."""
    tracker = Tracker()
    clear = (("play:S", CLEAR_SHARE + 0.02), ("kitty", 0.4))
    feed(tracker, [[read(y=69.0, shares=clear)]] * 2)
    assert tracker.where(JH) == "play:S"
    less = (("kitty", 0.5), ("play:S", HOLD_SHARE + 0.02))
    assert feed(tracker, [[read(zone=None, y=62.0, shares=less)]] * 10, start=2) == []
    assert tracker.where(JH) == "play:S"
    kitty = (("kitty", CLEAR_SHARE + 0.1), ("play:S", 0.3))
    events = feed(tracker, [[read(zone="kitty", y=55.0, shares=kitty)]] * 3, start=12)
    assert types(events) == [CardMoved] and tracker.where(JH) == "kitty"
    # Never reported there, the same "less" reads place it nowhere: nothing is laid.
    assert feed(Tracker(), [[read(zone=None, y=62.0, shares=less)]] * 10) == []


def test_a_card_hanging_over_the_open_table_is_laid_and_held_by_its_centre() -> None:
    """Issue 31: a card in North's play zone's corner, a third of it inside and no other
    zone touching it, its centre 9 mm in: laid; later reads a few mm off towards the open
    table (its centre under ``CENTRE_MM`` in) keep it there; pushed well out, removed."""
    corner = (("play:N", 0.33),)

    def hanging(inside: float, zone: str | None) -> CardRead:
        return CardRead(JH, zone, 70.0, -226.0, shares=corner, inside=inside)

    tracker = Tracker()
    assert types(feed(tracker, [[hanging(9.0, "play:N")]] * 2)) == [CardLaid]
    off = hanging(CENTRE_MM - 2.0, None)  # what the reader says of one read 5 mm off
    assert feed(tracker, [[off]] * 10, start=2) == [] and tracker.where(JH) == "play:N"
    gone = [[CardRead(JH, None, 70.0, -226.0, shares=(("play:N", 0.1),), inside=HOLD_MM - 1)]]
    assert types(feed(tracker, gone * 2, start=12)) == [CardRemoved]
    # Never reported, the same reads a few mm short lay nothing.
    assert feed(Tracker(), [[off]] * 10) == []


def test_the_same_card_in_two_places_is_an_alert_not_a_guess() -> None:
    tracker = Tracker()
    two = [read(), read(zone="play:N", x=0, y=-150)]
    events = feed(tracker, [two] * 5)
    assert types(events) == [CardSeenTwice]
    assert tracker.where(JH) is None  # nothing reported for it
    # Back in one place: reported, steadily.
    assert types(feed(tracker, [[read()]] * 2, start=5)) == [CardLaid]


def test_two_markers_of_one_card_are_one_place() -> None:
    tracker = Tracker()
    both = [read(x=-20, y=130), read(x=20, y=170)]  # its two corners' estimates
    assert types(feed(tracker, [both] * 2)) == [CardLaid]


def test_outside_every_zone_nothing_is_laid() -> None:
    assert feed(Tracker(), [[read(zone=None)]] * 10) == []


def test_settings_are_checked() -> None:
    with pytest.raises(ValueError, match="stable_frames"):
        Tracker(stable_frames=0)
    with pytest.raises(ValueError, match="within_seconds"):
        Tracker(within_seconds=0.0)
    with pytest.raises(ValueError, match="empty_frames"):
        Tracker(empty_frames=0)


@settings(max_examples=300, deadline=None)
@given(
    st.floats(0.45, 1.0),
    st.lists(
        st.one_of(
            st.none(),  # a frame that misses it
            st.tuples(st.floats(-6.0, 6.0), st.floats(-6.0, 6.0), st.floats(-0.08, 0.08)),
        ),
        min_size=1,
        max_size=150,
    ),
)
def test_a_card_lying_still_is_laid_at_most_once_and_never_removed(
    share: float, frames: list[tuple[float, float, float] | None]
) -> None:
    """Any sequence of reads and misses of a card lying still across South's line with
    the kitty: ``share`` of it truly in South's zone, each read a few mm off (its share
    off by up to 0.08, 5 mm across the card's long side). At most one "laid", never a
    removal or a move; and once two reads in a row, within half a second, put it clearly
    in the zone, it is reported."""
    tracker = Tracker()
    events: list[object] = []
    reads_at: list[tuple[int, bool]] = []  # (frame, clearly in the zone)
    for i, seen in enumerate(frames):
        reads = []
        if seen is not None:
            dx, dy, off = seen
            s = min(1.0, share + off)
            shares = (("play:S", s), ("kitty", 1.0 - s))
            zone = "play:S" if s >= CLEAR_SHARE else None
            reads = [read(zone=zone, x=dx, y=90.0 + dy, shares=shares)]
            reads_at.append((i, zone is not None))
        events += tracker.update(i, i / FPS, reads)
    assert types(events).count(CardLaid) <= 1
    assert CardRemoved not in types(events) and CardMoved not in types(events)
    pairs = itertools.pairwise(reads_at)
    if any(a[1] and b[1] and b[0] - a[0] <= 0.5 * FPS for a, b in pairs):
        assert types(events) == [CardLaid]


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.lists(
            st.tuples(st.sampled_from(DECK[:6]), st.sampled_from(["play:S", "play:N", None])),
            max_size=4,
        ),
        max_size=60,
    ),
    st.sets(st.sampled_from(DECK[:6])),
)
def test_only_cards_read_are_ever_reported(
    frames: list[list[tuple[Card, str | None]]], empty: set[Card]
) -> None:
    """Whatever is read, and whatever places are said empty: nothing is reported of a card
    not read, a card is laid only where it is read, and never laid twice without a
    removal between."""
    tracker = Tracker()
    read_so_far: set[Card] = set()
    lying: set[Card] = set()
    for i, frame in enumerate(frames):
        reads = [CardRead(c, z, 0.0 if z == "play:S" else 300.0, 150.0) for c, z in frame]
        read_so_far |= {c for c, _ in frame}
        for event in tracker.update(i, i / FPS, reads, empty):
            assert event.card in read_so_far
            if isinstance(event, CardLaid):
                assert any(c == event.card and z == event.zone for c, z in frame)
                assert event.card not in lying
                lying.add(event.card)
            if isinstance(event, CardRemoved):
                assert event.card in lying
                lying.discard(event.card)
