"""The pace of play: which tables will not finish the round in its time.

``model.py`` judges it, pure (the hand marks, the round's time and the time now are
given): the one place every screen that shows pace reads it from. ``source.py`` reads
what it is given: each table's hand times kept by the store (store/hand_times.py) and
the round's time, a setting of the event (tournament/admin.py).
"""

from __future__ import annotations

from table_controller.director.pace.model import (
    FLAG_SECONDS,
    MAX_HANDS,
    MAX_MINUTES,
    Goal,
    HandMark,
    PaceError,
    PaceView,
    RoundClock,
    TablePace,
    TablePlay,
    check_round_time,
    judge,
)
from table_controller.director.pace.source import PaceSource

__all__ = [
    "FLAG_SECONDS",
    "MAX_HANDS",
    "MAX_MINUTES",
    "Goal",
    "HandMark",
    "PaceError",
    "PaceSource",
    "PaceView",
    "RoundClock",
    "TablePace",
    "TablePlay",
    "check_round_time",
    "judge",
]
