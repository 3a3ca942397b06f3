"""The hand review: every game a table played, replayed step by step in the browser.

``replay.py`` makes the model (``review_game``: a game's ended hands as steps, each
decision keyed ``(hand, decision)``, the one place that keeps a hand in play out);
``page.py`` draws it as one self-contained HTML document (``review_page``), which the
table's page, the dashboard, the hall and ``director export`` all serve or write, with
a verdict beside each decision when one is given (``Verdict``).

Outsiders import from here, never from the modules themselves.
"""

from __future__ import annotations

from table_controller.review.page import (
    Verdict,
    Verdicts,
    review_file_name,
    review_page,
    review_qr_svg,
    review_view,
)
from table_controller.review.replay import (
    HandReview,
    Picture,
    Review,
    ReviewError,
    ReviewNote,
    Step,
    StepKind,
    review_game,
)

__all__ = [
    "HandReview",
    "Picture",
    "Review",
    "ReviewError",
    "ReviewNote",
    "Step",
    "StepKind",
    "Verdict",
    "Verdicts",
    "review_file_name",
    "review_game",
    "review_page",
    "review_qr_svg",
    "review_view",
]
