"""A game's verdicts worked out to be kept: the job the table and the director hand the
runner (``runner.py``) when a hand or a game ends, and the work its process does.

The job carries the game's events up to the end of its last ended hand, never beyond
(``ended_only``): a hand in play is not even handed to the analysis, so no verdict of it
can be worked out, kept or shown, whatever reads the answer. It carries too the hands
already kept, which are not worked out again: at each hand's end only that hand is
analysed, and the answer is joined to what was kept (``kept.merge``), so a game of ten
hands is analysed a hand at a time while it is played, and is ready when it ends.

The samples are seeded with a fixed number (``SEED``): the same game always gets the
same verdicts, wherever and however often it is worked out.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

from table_controller.review.analysis import DEFAULT_DEALS, ReviewOptions, analyse_game
from table_controller.review.errors import ReviewError
from table_controller.review.kept import KeptReview, kept_review
from table_controller.review.runner import Analyst
from table_controller.rules.events import HandScored, HandThrownIn, InputEvent
from table_controller.rules.presets import Rules
from table_controller.rules.replay import OnError, replay

SEED = 34  # the samples' seed: the same game, the same verdicts (as the kiosk's coach)


@dataclass(frozen=True)
class GameJob:
    """A game to work the verdicts of: whose it is (``key``: the table's game number,
    or (table, game) at the director), its rules, its events up to its last ended hand,
    and the (game, hand) already kept."""

    key: Hashable
    rules: Rules
    events: tuple[InputEvent, ...]
    done: frozenset[tuple[int, int]] = frozenset()
    seed: int = SEED
    deals: int = DEFAULT_DEALS


@dataclass(frozen=True)
class GameJudged:
    """The answer: the verdicts of the hands worked out (``state`` "ready"), or why
    they could not be (``state`` "failed")."""

    key: Hashable
    kept: KeptReview


def ended_only(rules: Rules, events: Sequence[InputEvent]) -> tuple[InputEvent, ...]:
    """``events`` up to the end of the last hand that ended (scored or thrown in): the
    hand in play, if any, left out whole."""
    replayed = replay(rules, list(events), on_error=OnError.SKIP)
    end = 0
    for step in replayed.steps:
        if any(isinstance(o, HandScored | HandThrownIn) for o in step.outputs):
            end = step.index + 1
    return tuple(events[:end])


def judge(job: GameJob) -> GameJudged:
    """Work out ``job``'s verdicts (in the runner's process)."""
    try:
        review = analyse_game(
            job.rules,
            job.events,
            random.Random(job.seed),
            ReviewOptions(deals=job.deals, done=job.done),
        )
    except ReviewError as exc:
        return GameJudged(job.key, KeptReview.failed(str(exc)))
    return GameJudged(job.key, kept_review(review))


def _failed(job: GameJob, why: str) -> GameJudged:
    return GameJudged(job.key, KeptReview.failed(why))


def _fits(job: GameJob, answer: object) -> bool:
    return isinstance(answer, GameJudged) and answer.key == job.key


def game_analyst(work: Callable[[GameJob], GameJudged] = judge) -> Analyst[GameJob, GameJudged]:
    """The runner for games' verdicts (``work``: ``judge``; a test gives its own)."""
    return Analyst(work, _failed, _fits, name="verdicts")


__all__ = ["SEED", "GameJob", "GameJudged", "ended_only", "game_analyst", "judge"]
