"""The hand review: every game a table played, replayed step by step, and the verdict on
each decision (issue 34).

- ``replay.py``: the model (``review_game``: a game's ended hands as steps, each decision
  keyed ``(hand, index)``, the one place that keeps a hand in play out);
- ``page.py``: it drawn as one self-contained HTML document (``review_page``), which the
  table's page, the dashboard, the hall and ``director export`` all serve or write, with
  a verdict beside each decision when one is given (``PageVerdict``);
- ``verdict.py``: the analysis's types (``GameReview``, ``HandReview``,
  ``Decision`` and its key ``(hand, index)``, ``Verdict``, ``SeatSummary``) and their words;
- ``kept.py``: the verdicts as kept and drawn (``KeptReview``: each decision's two
  verdicts in words, each seat's costliest, where the analysis stands), its one
  written form (JSON, versioned), and ``merge`` of hands analysed at different times;
- ``analysis.py``: ``analyse_game``, the walk through a game's log: for each hand that
  ended, every bid, discard and card played, with what it cost against the best choice
  both with all hands known (the solver, exact) and from the player's own view (the hidden
  cards sampled as the strong bot samples them), and each seat's costliest decisions;
- ``minimax.py``: what each choice was worth, solved or sampled;
- ``runner.py``: an analysis worked out in a process of its own, off the event loop
  (``Analyst``, one job at a time; ``Backlog``, jobs in turn), for the kiosk's coach,
  the table and the director;
- ``judging.py``: a game's verdicts as a job for the runner (``GameJob``: its events up
  to its last ended hand, never the hand in play) and its work (``judge``);
- ``errors.py``: ``ReviewError``, a log that cannot be reviewed.

The review page, the dashboard, the hall, the export and the kiosk's coach read it;
outsiders import from here, never from the modules themselves.
"""

from __future__ import annotations

from table_controller.review.analysis import (
    DEFAULT_DEALS,
    ReviewOptions,
    analyse_game,
    complete_deal,
    is_decision,
)
from table_controller.review.errors import ReviewError
from table_controller.review.judging import (
    SEED,
    GameJob,
    GameJudged,
    ended_only,
    game_analyst,
    judge,
)
from table_controller.review.kept import (
    WORKING,
    KeptDecision,
    KeptReview,
    KeptVerdict,
    kept_review,
    merge,
)
from table_controller.review.minimax import solver_factory
from table_controller.review.page import (
    PageVerdict,
    Verdicts,
    review_file_name,
    review_page,
    review_qr_svg,
    review_view,
)
from table_controller.review.replay import (
    Picture,
    ReplayedHand,
    Review,
    ReviewNote,
    Step,
    StepKind,
    review_game,
)
from table_controller.review.runner import Analyst, Backlog, Failed, Work
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
    "SEED",
    "VIEW_WORDS",
    "WORKING",
    "Analyst",
    "Backlog",
    "Choice",
    "Costly",
    "Decision",
    "Failed",
    "GameJob",
    "GameJudged",
    "GameReview",
    "HandReview",
    "KeptDecision",
    "KeptReview",
    "KeptVerdict",
    "Kind",
    "PageVerdict",
    "Picture",
    "ReplayedHand",
    "Review",
    "ReviewError",
    "ReviewNote",
    "ReviewOptions",
    "SeatSummary",
    "Step",
    "StepKind",
    "Verdict",
    "Verdicts",
    "View",
    "Work",
    "analyse_game",
    "complete_deal",
    "ended_only",
    "game_analyst",
    "is_decision",
    "judge",
    "kept_review",
    "merge",
    "review_file_name",
    "review_game",
    "review_page",
    "review_qr_svg",
    "review_view",
    "solver_factory",
    "summarise",
]
