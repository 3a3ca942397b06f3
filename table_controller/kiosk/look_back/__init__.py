"""The kiosk coach's look back (issue 34): when a visitor's game ends, "your three
costliest decisions", from the game's review (``table_controller.review``).

The game is analysed in a process of its own (``analyst.py``), with a fixed seed, while
the page says "Looking over your game..."; then each visitor's costliest decisions from
what they could see (``work.py``: why that view), in plain words on the page
(``words.py``), shown from the game's end until the next deal (``panel.py``). A visitor
who walks away, or the next game's deal, drops it: a look back pending is killed, one
shown is cleared, and no later visitor sees it.
"""

from __future__ import annotations

from table_controller.kiosk.look_back.analyst import Analyst, Work
from table_controller.kiosk.look_back.panel import LookBack
from table_controller.kiosk.look_back.words import (
    FAILED,
    LOOKING,
    VIEW_SAID,
    failed,
    looking,
    review_shown,
)
from table_controller.kiosk.look_back.work import COACH_VIEW, SEED, Job, Looked, look_over

__all__ = [
    "COACH_VIEW",
    "FAILED",
    "LOOKING",
    "SEED",
    "VIEW_SAID",
    "Analyst",
    "Job",
    "LookBack",
    "Looked",
    "Work",
    "failed",
    "look_over",
    "looking",
    "review_shown",
]
