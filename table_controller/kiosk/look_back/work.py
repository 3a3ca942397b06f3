"""The look back's work: a finished game analysed, and each visitor's costliest decisions
picked out. It runs in a process of its own (analyst.py), so it is pure and its input
and answer are frozen dataclasses that cross the pipe as they are.

The coach judges from the player's own view (``COACH_VIEW``): each decision is weighed
on what the visitor could see when they made it (their own cards, the upcard, the cards
played), the bots' hidden cards sampled as the strong bot samples them. With every hand
known, a decision that was right on what the visitor knew is blamed when the hidden
cards happened to lie badly, and a lucky guess is praised: the visitor could not have
done better, and would learn the wrong lesson. A coach judges the decision, not the
luck. Where a decision has no player's-view verdict, the exact one stands in, and the
page says which view each line takes.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from table_controller.review import (
    DEFAULT_DEALS,
    ReviewError,
    ReviewOptions,
    SeatSummary,
    View,
    analyse_game,
)
from table_controller.rules.events import InputEvent
from table_controller.rules.presets import Rules
from table_controller.seats import Seat

COACH_VIEW = View.PLAYER
SEED = 34  # the look back's samples: the same game always gets the same verdicts


@dataclass(frozen=True)
class Job:
    """A game to look back at: its rules, its log (the input events the table applied),
    the visitors' seats, and the game's number at the table (what the answer is for)."""

    game: int
    rules: Rules
    events: tuple[InputEvent, ...]
    seats: tuple[Seat, ...]
    seed: int = SEED
    deals: int = DEFAULT_DEALS


@dataclass(frozen=True)
class Looked:
    """The look back's answer: each visitor's costliest decisions from ``COACH_VIEW``
    (one summary a seat, in ``Job.seats``' order), or, when the game could not be looked
    over, why not in words (``problem``)."""

    game: int
    summaries: tuple[SeatSummary, ...]
    deals: int
    problem: str = ""


def look_over(job: Job) -> Looked:
    """Analyse ``job``'s game with a fixed seed and pick each visitor's costliest
    decisions from the player's own view."""
    try:
        review = analyse_game(
            job.rules, job.events, random.Random(job.seed), ReviewOptions(deals=job.deals)
        )
    except ReviewError as exc:
        return Looked(job.game, (), job.deals, str(exc))
    return Looked(job.game, tuple(review.summary(s, COACH_VIEW) for s in job.seats), job.deals)


__all__ = ["COACH_VIEW", "SEED", "Job", "Looked", "look_over"]
