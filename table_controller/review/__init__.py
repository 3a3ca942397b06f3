"""The review of a game: the verdict on every decision (issue 34).

For each hand that ended, every bid, discard and card played, with what it cost against
the best choice both with all hands known (the solver, exact) and from the player's own
view (the hidden cards sampled as the strong bot samples them), and each seat's
costliest decisions in words. The review page, the dashboard, the export and the kiosk's
coach read it; outsiders import from here.

- ``verdict.py``: the types (``GameReview``, ``HandReview``, ``Decision`` and its key
  ``(hand, index)``, ``Verdict``, ``SeatSummary``) and their words;
- ``analysis.py``: ``analyse_game``, the walk through a game's log;
- ``minimax.py``: what each choice was worth, solved or sampled.
"""

from __future__ import annotations

from table_controller.review.analysis import (
    DEFAULT_DEALS,
    ReviewError,
    ReviewOptions,
    analyse_game,
    complete_deal,
    is_decision,
)
from table_controller.review.minimax import solver_factory
from table_controller.review.verdict import (
    VIEW_WORDS,
    Choice,
    Costly,
    Decision,
    GameReview,
    HandReview,
    Kind,
    SeatSummary,
    Verdict,
    View,
    summarise,
)

__all__ = [
    "DEFAULT_DEALS",
    "VIEW_WORDS",
    "Choice",
    "Costly",
    "Decision",
    "GameReview",
    "HandReview",
    "Kind",
    "ReviewError",
    "ReviewOptions",
    "SeatSummary",
    "Verdict",
    "View",
    "analyse_game",
    "complete_deal",
    "is_decision",
    "solver_factory",
    "summarise",
]
