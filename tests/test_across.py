"""Cards lying across a zone's line, frame by frame (vision/across.py): reported only
when the reader says so steadily, and ended on evidence: read in a zone, its place seen
empty, or unread for long. Pure: readings in, no pictures."""

from __future__ import annotations

import pytest

from table_controller.cards import Card
from table_controller.vision.across import AcrossLines, CardAcross, Reading
from table_controller.vision.tracker import CardRead

C9S, JH = Card.parse("9S"), Card.parse("JH")
ACROSS = (("play:S", 0.47), ("kitty", 0.45))
IN_S = (("play:S", 1.0),)
OUTLINE = ((-32.0, 18.0), (32.0, 18.0), (32.0, 106.0), (-32.0, 106.0))


def across(card: Card = C9S, x: float = 0.0, y: float = 62.0) -> Reading:
    return Reading(CardRead(card, None, x, y, 1.0, ACROSS, OUTLINE), True)


def in_play_s(card: Card = C9S, x: float = 0.0, y: float = 120.0) -> Reading:
    return Reading(CardRead(card, "play:S", x, y, 1.0, IN_S, OUTLINE), False)


def test_a_card_read_across_a_line_twice_still_is_reported() -> None:
    lines = AcrossLines()
    assert not lines.update(0.0, [across()])
    assert lines.cards == ()  # one glimpse is never reported
    assert lines.update(1 / 30, [across()])
    (card,) = lines.cards
    assert card == CardAcross(C9S, ACROSS, 0.0, 62.0, OUTLINE)
    assert card.zones == ("play:S", "kitty")
    assert not lines.update(2 / 30, [across(x=1.0)])  # read again there: nothing new


def test_a_card_carried_over_a_line_is_not_reported() -> None:
    lines = AcrossLines()
    for n in range(6):  # a hand carries it 30 mm a frame across the line
        assert not lines.update(n / 30, [across(y=62.0 + 30 * n)])
    assert lines.cards == ()


def test_reads_too_far_apart_in_time_do_not_count_together() -> None:
    lines = AcrossLines()
    lines.update(0.0, [across()])
    assert not lines.update(2.0, [across()])  # 2 s later: a new start
    assert lines.update(2.1, [across()])


def test_pushed_into_a_zone_it_ends_once_read_there_steadily() -> None:
    lines = AcrossLines()
    lines.update(0.0, [across()])
    lines.update(0.1, [across()])
    assert not lines.update(0.2, [in_play_s()])  # one read in the zone: not yet
    assert lines.cards
    assert lines.update(0.3, [in_play_s()])
    assert lines.cards == ()


def test_a_reading_flickering_between_a_zone_and_the_line_changes_nothing() -> None:
    lines = AcrossLines()
    lines.update(0.0, [across()])
    lines.update(0.1, [across()])
    for n in range(10):
        reading = in_play_s(y=64.0) if n % 2 else across()
        assert not lines.update(0.2 + n / 10, [reading])
    assert [c.card for c in lines.cards] == [C9S]


def test_its_place_seen_empty_three_frames_running_ends_it() -> None:
    lines = AcrossLines()
    lines.update(0.0, [across()])
    lines.update(0.1, [across()])
    assert not lines.update(0.2, [], empty={C9S})
    assert not lines.update(0.3, [], empty={C9S})
    assert not lines.update(0.4, [])  # a hand over it: not empty, the count starts again
    assert not lines.update(0.5, [], empty={C9S})
    assert not lines.update(0.6, [], empty={C9S})
    assert lines.update(0.7, [], empty={C9S})
    assert lines.cards == ()


def test_a_hand_over_it_keeps_it_until_it_is_unread_for_long() -> None:
    lines = AcrossLines(forget_seconds=10.0)
    lines.update(0.0, [across()])
    lines.update(0.1, [across()])
    assert not lines.update(9.0, [])
    assert [c.card for c in lines.cards] == [C9S]
    assert lines.update(10.2, [])
    assert lines.cards == ()


def test_moved_across_another_line_is_a_change() -> None:
    lines = AcrossLines()
    lines.update(0.0, [across()])
    lines.update(0.1, [across()])
    other = (("play:S", 0.5), ("play:E", 0.3))
    moved = Reading(CardRead(C9S, None, 70.0, 70.0, 1.0, other, OUTLINE), True)
    assert not lines.update(0.2, [moved])
    assert lines.update(0.3, [moved])
    assert lines.cards[0].zones == ("play:S", "play:E")


def test_two_cards_each_their_own_and_a_card_read_twice_counts_once() -> None:
    lines = AcrossLines()
    lines.update(0.0, [across(), across(JH, x=200.0), across(x=400.0)])
    assert lines.update(0.1, [across(), across(JH, x=200.0)])
    assert [c.card for c in lines.cards] == [C9S, JH]


@pytest.mark.parametrize(
    "bad",
    [
        {"stable_frames": 0},
        {"within_seconds": 0.0},
        {"empty_frames": 0},
        {"forget_seconds": -1.0},
    ],
)
def test_settings_that_cannot_work_are_refused(bad: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        AcrossLines(**bad)  # type: ignore[arg-type]
