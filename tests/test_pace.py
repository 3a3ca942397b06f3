"""The pace of play, judged by its one pure module (director/pace/model.py) on a driven
clock: a slow table is flagged while the round still has time, in words, with the
minutes it needs; a fast one is not; a table with no hand scored is judged at the
room's pace; nothing is projected before the round's clock starts; a round's time
changed mid-round moves every projection; a steady table's projected finish is its
start plus its hands at its pace, whenever it is looked at (hypothesis).

The hands a round: 001 s5, "Each match consists of 12 hands."; a misdeal does not count
(001 s9: "misdeal re-dealt without counting")."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from table_controller.director.pace import (
    Goal,
    HandMark,
    PaceError,
    RoundClock,
    TablePlay,
    check_round_time,
    judge,
)

T0 = 1_800_000_000.0  # the round's clock started (the director's time, seconds)
MIN = 60.0
TWELVE = Goal(hands=12)  # 001 s5: a match is 12 hands


def steady(
    table: str, minutes_a_hand: float, *, until: float, start: float = T0, goal: Goal = TWELVE
) -> TablePlay:
    """A table whose hands take ``minutes_a_hand`` each, one after the other from
    ``start``, as its marks would be at ``until`` (a hand begun then is open)."""
    marks: list[HandMark] = []
    for hand in range(1, (goal.hands or 99) + 1):
        at = start + (hand - 1) * minutes_a_hand * MIN
        end = start + hand * minutes_a_hand * MIN
        if at > until:
            break
        marks.append(HandMark(2 * hand - 1, "started", at, hand))
        if end > until:
            break
        marks.append(HandMark(2 * hand, "scored", end, hand, (hand, 0)))
    return TablePlay(table, f"Table {table}", tuple(marks), goal)


def row(view: dict, table: str) -> dict:  # type: ignore[type-arg]
    return next(r for r in view["tables"] if r["table"] == table)


ROUND = RoundClock(minutes=60, hands=12, round=2, started=T0)


def test_a_slow_table_is_flagged_before_the_rounds_end_and_a_fast_one_is_not() -> None:
    now = T0 + 21 * MIN  # 21 minutes in, 39 left
    slow = steady("7", 7.0, until=now)  # 3 hands in 21 minutes: 84 for 12
    fast = steady("3", 4.0, until=now)  # 5 hands and one begun: 48 for 12
    view = judge(ROUND, [slow, fast], now)

    s, f = row(view, "7"), row(view, "3")  # type: ignore[arg-type]
    assert (s["hands_done"], s["hands_left"], s["minutes_a_hand"]) == (3, 9, 7.0)
    assert s["state"] == "late"
    assert s["over_minutes"] == pytest.approx(24.0)  # 84 - 60
    assert s["needs_minutes"] == pytest.approx(63.0)  # 9 hands at 7
    assert s["sentence"].startswith("Table 7 needs about 24 minutes more than the round has left")
    assert "9 hands to play at 7.0 minutes a hand" in s["sentence"]
    assert "the round has 39 minutes left" in s["sentence"]
    assert view["flagged"] == [s["sentence"]]
    assert view["state"] == "running"
    assert view["minutes_left"] == pytest.approx(39.0)

    assert (f["hands_done"], f["hands_left"], f["state"]) == (5, 7, "playing")
    assert f["sentence"] == "" and f["over_minutes"] == pytest.approx(-12.0)
    assert "within the round" in f["finish_text"]


def test_the_flag_comes_as_soon_as_the_table_falls_behind_not_at_the_end() -> None:
    """Looked at minute by minute, the slow table is flagged at its second hand's end,
    while the round has over 45 minutes left."""
    first = None
    for minute in range(1, 60):
        now = T0 + minute * MIN
        if row(judge(ROUND, [steady("7", 7.0, until=now)], now), "7")["state"] == "late":  # type: ignore[arg-type]
            first = minute
            break
    assert first is not None and first <= 14


def test_a_table_with_no_hand_scored_is_judged_at_the_rooms_pace() -> None:
    now = T0 + 10 * MIN
    others = [steady("1", 4.0, until=now), steady("2", 5.0, until=now), steady("3", 6.0, until=now)]
    begun = TablePlay("4", "Table 4", (HandMark(1, "started", T0 + 6 * MIN, 1),), TWELVE)
    view = judge(ROUND, [*others, begun], now)
    r = row(view, "4")  # type: ignore[arg-type]
    assert r["minutes_a_hand"] is None and r["pace_used"] == pytest.approx(5.0)  # the middle
    assert r["pace_text"] == "no hand scored yet: judged at the room's 5.0 minutes a hand"
    # 12 hands at 5, less the 4 minutes of the hand under way: 56 from minute 10
    assert r["needs_minutes"] == pytest.approx(56.0)
    assert r["state"] == "late" and r["over_minutes"] == pytest.approx(6.0)


def test_alone_with_no_hand_scored_a_table_is_judged_at_the_rounds_own_pace() -> None:
    now = T0 + 3 * MIN
    begun = TablePlay("4", "Table 4", (HandMark(1, "started", T0, 1),), TWELVE)
    r = row(judge(ROUND, [begun], now), "4")  # type: ignore[arg-type]
    assert r["pace_used"] == pytest.approx(5.0)  # 60 minutes over 12 hands
    assert r["pace_text"] == "no hand scored yet: judged at the round's 5.0 minutes a hand"
    assert r["state"] == "playing"  # on the round's own pace: it finishes on time


def test_a_table_that_has_not_begun_is_flagged_once_the_round_cannot_wait_for_it() -> None:
    waiting = TablePlay("9", "Table 9", (), TWELVE)
    early = row(judge(ROUND, [waiting], T0 + 0.5 * MIN), "9")  # type: ignore[arg-type]
    assert early["state"] == "not_started" and early["sentence"] == ""
    later = row(judge(ROUND, [waiting], T0 + 10 * MIN), "9")  # type: ignore[arg-type]
    assert later["state"] == "late" and later["hands_done"] == 0
    assert later["sentence"].startswith(
        "Table 9 has not begun its first hand and needs about 10 minutes more"
    )


def test_a_round_not_started_projects_nothing_and_says_how_to_start_it() -> None:
    now = T0 + 30 * MIN
    slow = steady("7", 9.0, until=now)
    for clock in (RoundClock(minutes=60, hands=12, round=1), None):
        view = judge(clock, [slow], now)
        r = row(view, "7")  # type: ignore[arg-type]
        assert r["hands_done"] == 3 and r["minutes_a_hand"] == pytest.approx(9.0)
        assert r["finish"] is None and r["state"] == "playing" and view["flagged"] == []
        assert r["finish_text"] == "projected once the round's clock starts"
    assert judge(RoundClock(minutes=60, round=1), [slow], now)["state"] == "not_started"
    assert (
        "its clock has not started (start it in the event section"
        in judge(RoundClock(minutes=60, round=1), [slow], now)["round_text"]
    )
    assert judge(None, [slow], now)["state"] == "not_set"
    assert "set the minutes a round in the event section" in judge(None, [slow], now)["round_text"]


def test_the_rounds_time_changed_mid_round_moves_every_projection() -> None:
    now = T0 + 21 * MIN
    slow = steady("7", 7.0, until=now)  # finishes at minute 84
    sixty = judge(ROUND, [slow], now)
    assert row(sixty, "7")["state"] == "late"  # type: ignore[arg-type]
    ninety = judge(RoundClock(minutes=90, hands=12, round=2, started=T0), [slow], now)
    r = row(ninety, "7")  # type: ignore[arg-type]
    assert r["state"] == "playing" and r["over_minutes"] == pytest.approx(-6.0)
    assert ninety["flagged"] == [] and ninety["minutes_left"] == pytest.approx(69.0)
    # and the hands a round: 8 hands at 7 minutes fit in 60
    eight = judge(RoundClock(minutes=60, hands=8, round=2, started=T0), [slow], now)
    assert row(eight, "7")["hands_left"] == 5 and eight["flagged"] == []  # type: ignore[arg-type]


def test_the_round_befores_game_is_not_this_rounds_and_a_finished_table_is_done() -> None:
    before = TablePlay(
        "5",
        "Table 5",
        (
            HandMark(1, "started", T0 - 50 * MIN, 1),
            HandMark(2, "scored", T0 - 45 * MIN, 1, (2, 0)),
            HandMark(2, "game_ended", T0 - 45 * MIN),
        ),
        Goal(hands=1),
    )
    r = row(judge(ROUND, [before], T0 + 0.5 * MIN), "5")  # type: ignore[arg-type]
    assert r["hands_done"] == 0 and r["state"] == "not_started"
    done = TablePlay(
        "5",
        "Table 5",
        (
            HandMark(1, "started", T0 + 1 * MIN, 1),
            HandMark(2, "thrown_in", T0 + 2 * MIN, 1),  # all passed: not counted
            HandMark(3, "started", T0 + 3 * MIN, 2),
            HandMark(4, "game_ended", T0 + 8 * MIN),  # a hand's end and the game's, one event
            HandMark(4, "scored", T0 + 8 * MIN, 2, (2, 0)),
        ),
        Goal(hands=1),
    )
    r = row(judge(ROUND, [done], T0 + 20 * MIN), "5")  # type: ignore[arg-type]
    assert r["state"] == "finished" and r["hands_done"] == 1 and r["hands_left"] is None
    assert r["minutes_a_hand"] == pytest.approx(7.0)  # the hand thrown in is part of it


def test_a_table_still_finishing_the_round_before_has_not_begun_this_one() -> None:
    """Round 2's clock starts while table 6 still plays round 1's game (begun 50 minutes
    before): none of its hands are this round's, and it is said so once it is late. A
    table that dealt a minute before the director's call is playing this round's."""
    old = steady("6", 5.0, until=T0 + 20 * MIN, start=T0 - 50 * MIN)
    view = judge(ROUND, [old], T0 + 20 * MIN)
    r = row(view, "6")  # type: ignore[arg-type]
    assert (r["hands_done"], r["hands_left"], r["state"]) == (0, 12, "late")
    assert r["sentence"].startswith(
        "Table 6 is still playing the round before's game, needs about 20 minutes more"
    )
    early = steady("8", 4.0, until=T0 + 20 * MIN, start=T0 - 1 * MIN)
    r = row(judge(ROUND, [early], T0 + 20 * MIN), "8")  # type: ignore[arg-type]
    assert (r["hands_done"], r["state"]) == (5, "playing")


def test_a_game_to_a_target_score_is_judged_by_its_leaders_points_a_hand() -> None:
    """000: a game to 10, no fixed hands. 6 points after 5 hands is 1.2 a hand: 4 more."""
    marks = []
    for i in range(5):
        marks += [
            HandMark(2 * i + 1, "started", T0 + 5 * i * MIN, i + 1),
            HandMark(2 * i + 2, "scored", T0 + 5 * (i + 1) * MIN, i + 1, (6 if i == 4 else i, 2)),
        ]
    play = TablePlay("2", "Table 2", tuple(marks), Goal(points=10))
    view = judge(RoundClock(minutes=40, round=1, started=T0), [play], T0 + 25 * MIN)
    r = row(view, "2")  # type: ignore[arg-type]
    assert (r["hands_left"], r["estimated"]) == (4, True)
    assert r["needs_minutes"] == pytest.approx(20.0)  # 4 hands at 5: minute 45, 5 late
    assert r["state"] == "late" and "about 4 hands to play" in r["sentence"]
    assert "target score" in view["how"]


@pytest.mark.parametrize(
    ("minutes", "hands", "words"),
    [
        (0, 12, "a whole number of minutes from 1 to 1440, not 0"),
        (-5, None, "not -5"),
        (90.5, None, "not 90.5"),
        ("60", None, "not '60'"),
        (2000, None, "not 2000"),
        (60, 0, "a round's hands are a whole number from 1 to 100, not 0"),
        (60, 101, "not 101"),
        (60, True, "not True"),
    ],
)
def test_a_rounds_time_no_event_could_have_is_refused_in_words(
    minutes: object, hands: object, words: str
) -> None:
    with pytest.raises(PaceError, match=words.replace("(", r"\(")):
        check_round_time(minutes, hands)
    with pytest.raises(PaceError):
        RoundClock(minutes=minutes, hands=hands)  # type: ignore[arg-type]


@given(
    hands=st.integers(1, 20),
    minutes_a_hand=st.floats(0.5, 15.0),
    minutes=st.integers(1, 300),
    data=st.data(),
)
def test_a_steady_tables_finish_is_its_start_plus_its_hands_at_its_pace(
    hands: int, minutes_a_hand: float, minutes: int, data: st.DataObject
) -> None:
    """Whenever it is looked at (after its first hand, before its last ends), a table
    whose every hand takes the same time is projected to finish at its start plus all
    its hands at that pace, and flagged exactly when that is a minute past the round."""
    done = data.draw(st.integers(1, hands - 1)) if hands > 1 else 0
    if done == 0:
        return
    into = data.draw(st.floats(0.001, 0.999))
    now = T0 + (done + into) * minutes_a_hand * MIN
    clock = RoundClock(minutes=minutes, hands=hands, round=1, started=T0)
    play = steady("1", minutes_a_hand, until=now, goal=Goal(hands=hands))
    r = row(judge(clock, [play], now), "1")  # type: ignore[arg-type]
    assert r["hands_done"] == done
    assert r["over_minutes"] == pytest.approx(hands * minutes_a_hand - minutes, abs=1e-6)
    assert (r["state"] == "late") == (r["over_minutes"] >= 1.0)
    assert (r["sentence"] != "") == (r["state"] == "late")


def test_a_pace_under_a_minute_is_said_in_seconds() -> None:
    quick = steady("1", 0.5, until=T0 + 2 * MIN)
    r = row(judge(ROUND, [quick], T0 + 2 * MIN), "1")  # type: ignore[arg-type]
    assert r["pace_text"] == "30 seconds a hand"
    instant = steady("2", 1 / 60, until=T0 + 1 * MIN)
    assert row(judge(ROUND, [instant], T0 + 1 * MIN), "2")["pace_text"] == "1 second a hand"  # type: ignore[arg-type]
