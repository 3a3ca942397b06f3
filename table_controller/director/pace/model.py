"""The pace of play: each table's hands against the round's time, and which tables will
not finish. Pure: the hand marks, the round's clock and the time now are given; nothing
is read, nothing waits. The dashboard and every other screen that shows pace read it
from here (``judge``), so they never disagree.

How a table is judged (docs/director.md, "Pace of play"):

- **The round's game** is the table's latest game with a hand begun. If it began more
  than two minutes before the round's clock started, it is the round before's: the
  table has not started this round's (and may still be finishing that one).
- **Hands done** are the hands scored in it (a hand thrown in, all passed or misdealt,
  does not count, as the rules count it: 001 s9, "a misdeal is re-dealt"), and **hands
  left** are the round's hands less those. A game to a target score has no fixed hands:
  its hands left are estimated from the leading side's points a hand so far (one point
  a hand before its first hand is scored), e.g. 6 points after 5 hands is 1.2 a hand,
  so a game to 10 needs about 4 more.
- **The table's pace** is the minutes from its first hand's start to its last hand's end,
  over the hands done: the time between hands (shuffling, dealing) and the hands thrown
  in are part of it, as they are part of the round. Before a table's first hand is
  scored its pace is the room's (the middle pace of the tables that have one), or, with
  none yet, the round's own: its minutes over its hands.
- **What it needs**: its hands left at its pace, less the part of one hand already
  played since its last hand ended. **Its projected finish** is now plus that; a table
  whose projected finish is a minute or more past the round's end is **flagged**, with
  the minutes it needs beyond what the round has left.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, NotRequired, TypedDict

from table_controller.errors import TableControllerError

MarkKind = Literal["started", "scored", "thrown_in", "game_ended", "match_won"]
# A hand's end orders before the game's end it caused, in one event.
_ORDER: Mapping[str, int] = {
    "started": 0,
    "scored": 1,
    "thrown_in": 1,
    "game_ended": 2,
    "match_won": 3,
}
FLAG_SECONDS = 60.0  # a projected finish this far past the round's end is flagged
# A game whose first hand began this long before the round's clock started is the round
# before's (a table still finishing it); one begun within it is this round's (a table
# that dealt a moment before the director's call).
EARLY_SECONDS = 120.0
MAX_MINUTES = 24 * 60  # the longest round a director can set
MAX_HANDS = 100  # the most hands a round can have (the rules' own bound on hands a game)
TableState = Literal["not_started", "playing", "finished", "late"]
RoundState = Literal["not_set", "not_started", "running", "over"]


class PaceError(TableControllerError, ValueError):
    """A round's time that cannot be used: what is wrong and what to give instead."""


@dataclass(frozen=True, slots=True)
class HandMark:
    """One mark of a table's game: a hand started, scored or thrown in, the game or its
    match ended; ``at`` the table's time of the event (seconds), ``seq`` its place."""

    seq: int
    kind: MarkKind
    at: float
    hand: int | None = None
    scores: tuple[int, int] | None = None  # after a hand scored: NS, EW


@dataclass(frozen=True, slots=True)
class Goal:
    """What ends a table's game, from its rules: a number of hands, or a target score
    (``best_of`` games of it)."""

    hands: int | None = None
    points: int | None = None
    best_of: int = 1


@dataclass(frozen=True, slots=True)
class TablePlay:
    """One table as the pace reads it: its name as people read it, its round's game's
    marks (``HandMark``, any order), and what ends its game."""

    table: str
    title: str
    marks: tuple[HandMark, ...]
    goal: Goal


@dataclass(frozen=True, slots=True)
class RoundClock:
    """The round's time, a setting of the event: ``minutes`` a round, ``hands`` a round
    where the director fixes them (None: each table's rules say), the round's number
    and when its clock started (None: not yet)."""

    minutes: int
    hands: int | None = None
    round: int | None = None
    started: float | None = None

    def __post_init__(self) -> None:
        check_round_time(self.minutes, self.hands)

    @property
    def ends(self) -> float | None:
        return None if self.started is None else self.started + self.minutes * 60.0


def check_round_time(minutes: object, hands: object) -> None:
    """Refuse a round's time no event could have, in words."""
    if type(minutes) is not int or not 1 <= minutes <= MAX_MINUTES:
        raise PaceError(
            f"a round's time is a whole number of minutes from 1 to {MAX_MINUTES}, "
            f"not {minutes!r}: e.g. 60"
        )
    if hands is not None and (type(hands) is not int or not 1 <= hands <= MAX_HANDS):
        raise PaceError(
            f"a round's hands are a whole number from 1 to {MAX_HANDS}, not {hands!r}: "
            "e.g. 12, or leave it empty to follow each table's rules"
        )


class TablePace(TypedDict):
    """One table's pace, as every screen shows it: the numbers, and in words."""

    table: str
    title: str
    state: TableState
    hands_done: int
    hands_left: int | None  # None: the game is over
    estimated: bool  # hands left estimated from the score (a game to a target)
    minutes_a_hand: float | None  # its own pace; None before its first hand is scored
    pace_used: float  # the pace it is judged at (its own, the room's, the round's)
    needs_minutes: float | None  # to finish, from now
    finish: float | None  # projected (or when it finished)
    over_minutes: float | None  # past the round's end (negative: inside it)
    pace_text: str
    finish_text: str
    sentence: str  # flagged: what the director reads


class PaceView(TypedDict):
    """The pace of every table in view (``judge``): the round's line, each table's pace,
    the flagged tables' sentences (latest finish first), and how hands are counted."""

    state: RoundState
    round_text: str
    minutes_left: float | None
    ends: float | None
    tables: list[TablePace]
    flagged: list[str]
    how: str
    problem: NotRequired[str]  # what kept the pace from being judged (the dashboard's)


@dataclass
class _Counted:
    """A table's game read from its marks."""

    done: int = 0
    first_start: float | None = None
    last_end: float | None = None
    last_mark: float | None = None  # the latest start or end of a hand
    ended_at: float | None = None  # the game (or its match) over
    before: bool = False  # still playing the round before's game
    leader: int = 0  # the leading side's points in the game in play
    in_game: int = 0  # hands scored in the game in play (a best-of match's last)


def _count(play: TablePlay, since: float | None) -> _Counted:
    marks = sorted(play.marks, key=lambda m: (m.seq, _ORDER.get(m.kind, 9)))
    over = "game_ended" if play.goal.best_of <= 1 else "match_won"
    began = next((m.at for m in marks if m.kind == "started"), None)
    c = _Counted()
    if since is not None and began is not None and began < since - EARLY_SECONDS:
        # the round before's game: this round's has not begun
        c.before = not any(m.kind == over for m in marks)
        return c
    for m in marks:
        if m.kind == "started":
            if c.first_start is None:
                c.first_start = m.at
            c.last_mark = m.at
        elif m.kind in ("scored", "thrown_in"):
            c.last_mark = m.at
            if m.kind == "scored":
                c.done += 1
                c.in_game += 1
                c.last_end = m.at
                if m.scores is not None:
                    c.leader = max(m.scores)
        elif m.kind == "game_ended":
            if play.goal.best_of <= 1:
                c.ended_at = m.at
            else:  # a best-of match goes on with a new game
                c.leader, c.in_game = 0, 0
        elif m.kind == "match_won":
            c.ended_at = m.at
    return c


def _own_pace(c: _Counted) -> float | None:
    """Minutes a hand, from the table's own hands (None before one is scored)."""
    if c.done == 0 or c.first_start is None or c.last_end is None:
        return None
    return max(c.last_end - c.first_start, 0.0) / 60.0 / c.done


def _hands_left(c: _Counted, goal: Goal, hands: int | None) -> tuple[int, bool]:
    """The hands still to play (at least one: the game is not over), and whether they
    are estimated from the score."""
    fixed = hands if hands is not None else goal.hands
    if fixed is not None:
        return max(fixed - c.done, 1), False
    target = goal.points or 10
    rate = c.leader / c.in_game if c.in_game and c.leader > 0 else 1.0
    return max(math.ceil((target - c.leader) / rate), 1), True


def _minutes(m: float) -> str:
    n = max(1, round(m))
    return "1 minute" if n == 1 else f"{n} minutes"


def _per_hand(m: float) -> str:
    """A pace in words: "7.0 minutes a hand"; under a minute, in seconds."""
    if m < 1.0:
        seconds = max(1, round(m * 60))
        return "1 second a hand" if seconds == 1 else f"{seconds} seconds a hand"
    return f"{m:.1f} minutes a hand"


def _hands(n: int) -> str:
    return "1 hand" if n == 1 else f"{n} hands"


def _clock_time(at: float, offset: float) -> str:
    """A time of day as the director's screen shows it (``offset``: seconds east of UTC)."""
    local = (at + offset) % 86400
    return f"{int(local // 3600):02d}:{int(local % 3600 // 60):02d}"


def judge(
    clock: RoundClock | None,
    tables: Sequence[TablePlay],
    now: float,
    *,
    utc_offset: float = 0.0,
) -> PaceView:
    """The pace of each of ``tables`` against the round's ``clock`` at ``now`` (seconds,
    the director's clock); ``utc_offset`` places the finish times in the day."""
    started = None if clock is None else clock.started
    counted = {p.table: _count(p, started) for p in tables}
    own = {t: _own_pace(c) for t, c in counted.items()}
    known = [p for p in own.values() if p is not None]
    room = statistics.median(known) if known else None
    ends = None if clock is None else clock.ends
    rows = []
    for p in tables:
        fallback, source = (room, "the room's") if room is not None else _allowance(clock, p)
        rows.append(
            _table(
                p, counted[p.table], own[p.table], fallback, source, clock, ends, now, utc_offset
            )
        )
    late = sorted(
        (r for r in rows if r["state"] == "late"),
        key=lambda r: -(r["over_minutes"] or 0.0),
    )
    return PaceView(
        state=_round_state(clock, now),
        round_text=_round_text(clock, now, utc_offset),
        minutes_left=None if ends is None else (ends - now) / 60.0,
        ends=ends,
        tables=rows,
        flagged=[r["sentence"] for r in late],
        how=_how(clock, tables),
    )


def _allowance(clock: RoundClock | None, play: TablePlay) -> tuple[float, str]:
    """The round's own pace for ``play``: its minutes over the table's hands (a game to
    a target: one hand a point), before any table in the room has scored a hand."""
    if clock is None:
        return 0.0, ""
    hands = clock.hands or play.goal.hands or play.goal.points or 10
    return clock.minutes / hands, "the round's"


def _table(
    play: TablePlay,
    c: _Counted,
    own: float | None,
    fallback: float,
    source: str,
    clock: RoundClock | None,
    ends: float | None,
    now: float,
    utc_offset: float,
) -> TablePace:
    pace = own if own is not None else fallback
    if own is not None:
        pace_text = _per_hand(own)
    elif source:
        pace_text = f"no hand scored yet: judged at {source} {_per_hand(pace)}"
    else:
        pace_text = "no hand scored yet"
    row = TablePace(
        table=play.table,
        title=play.title,
        state="playing" if c.first_start is not None else "not_started",
        hands_done=c.done,
        hands_left=None,
        estimated=False,
        minutes_a_hand=own,
        pace_used=pace,
        needs_minutes=None,
        finish=None,
        over_minutes=None,
        pace_text=pace_text,
        finish_text="",
        sentence="",
    )
    if c.ended_at is not None:
        row["state"] = "finished"
        row["needs_minutes"] = 0.0
        row["finish"] = c.ended_at
        row["finish_text"] = f"finished at {_clock_time(c.ended_at, utc_offset)}"
        if ends is not None:
            row["over_minutes"] = (c.ended_at - ends) / 60.0
        return row
    left, estimated = _hands_left(c, play.goal, None if clock is None else clock.hands)
    row["hands_left"], row["estimated"] = left, estimated
    about = "about " if estimated else ""
    if clock is None or clock.started is None or ends is None:
        row["finish_text"] = "projected once the round's clock starts"
        return row
    # The part of a hand played since the last hand began or ended counts, up to a hand.
    into = 0.0 if c.last_mark is None else max(now - c.last_mark, 0.0) / 60.0
    needs = max(left * pace - min(into, pace), 0.0)
    finish = now + needs * 60.0
    over = (finish - ends) / 60.0
    late = over * 60.0 >= FLAG_SECONDS
    row["needs_minutes"], row["finish"], row["over_minutes"] = needs, finish, over
    row["finish_text"] = (
        f"{about}{_hands(left)} left: finishes about {_clock_time(finish, utc_offset)}, "
        + (f"{_minutes(over)} after the round ends" if late else "within the round")
    )
    if late:
        row["state"] = "late"
        left_words = (
            f"the round has {_minutes((ends - now) / 60.0)} left"
            if ends > now
            else "the round's time is up"
        )
        waiting = ""
        if c.before:
            waiting = " is still playing the round before's game,"
        elif c.first_start is None:
            waiting = " has not begun its first hand and"
        row["sentence"] = (
            f"{play.title}{waiting} needs about {_minutes(over)} more than the round has left "
            f"({about}{_hands(left)} to play at {_per_hand(pace)}: about "
            f"{_minutes(needs)}; {left_words})"
        )
    return row


def _round_state(clock: RoundClock | None, now: float) -> RoundState:
    if clock is None:
        return "not_set"
    if clock.started is None or clock.ends is None:
        return "not_started"
    return "running" if now < clock.ends else "over"


def _round_text(clock: RoundClock | None, now: float, utc_offset: float) -> str:
    if clock is None:
        return (
            "No round's time is set: set the minutes a round in the event section to see "
            "which tables will not finish in time"
        )
    name = f"Round {clock.round}" if clock.round else "The round"
    if clock.started is None or clock.ends is None:
        return (
            f"{name}: {_minutes(clock.minutes)}; its clock has not started (start it in "
            "the event section when the round begins)"
        )
    gone = (now - clock.started) / 60.0
    if now >= clock.ends:
        return (
            f"{name}: its {_minutes(clock.minutes)} ended at {_clock_time(clock.ends, utc_offset)}"
        )
    return (
        f"{name}: {_minutes(gone) if gone >= 0.5 else 'no minutes'} gone of "
        f"{clock.minutes}, {_minutes((clock.ends - now) / 60.0)} left; it ends at "
        f"{_clock_time(clock.ends, utc_offset)}"
    )


def _how(clock: RoundClock | None, tables: Sequence[TablePlay]) -> str:
    if clock is not None and clock.hands is not None:
        return f"Each table plays {_hands(clock.hands)} in the round."
    if any(p.goal.hands is None for p in tables):
        return (
            "A game to a target score has no fixed hands: its hands left are estimated "
            "from the leading side's points a hand (one point a hand before the first "
            "hand is scored)."
        )
    return "Each table plays the hands its rules fix for a game."


__all__ = [
    "FLAG_SECONDS",
    "MAX_HANDS",
    "MAX_MINUTES",
    "Goal",
    "HandMark",
    "PaceError",
    "PaceView",
    "RoundClock",
    "RoundState",
    "TablePace",
    "TablePlay",
    "TableState",
    "check_round_time",
    "judge",
]
