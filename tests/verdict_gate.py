"""Work for the verdicts' process (review.judge) that a test holds, counts or breaks:
module-level, so the process (started the spawn way) finds it by its name. The test and
the process share only a folder: the process writes a line to ``jobs`` for each job
(the hands it was given as done, and how many events), and, held, waits for ``go``."""

from __future__ import annotations

import dataclasses
import os
import time
from pathlib import Path

from table_controller.review import GameJob, GameJudged, judge


def counted_judge(gate: str, job: GameJob) -> GameJudged:
    """``judge`` with few deals, each job noted in ``gate``/jobs, once ``go`` is there."""
    folder = Path(gate)
    with (folder / "jobs").open("a", encoding="utf-8") as out:
        out.write(f"{len(job.done)} {len(job.events)}\n")
    while not (folder / "go").exists():  # the test's condition, in the process
        time.sleep(0.05)
    return judge(dataclasses.replace(job, deals=4))


def dies(job: GameJob) -> GameJudged:
    """A process that ends without an answer (a crash, the machine out of memory)."""
    os._exit(3)


def never(job: GameJob) -> GameJudged:
    """Work a test says must not be done (what is kept is read back, not worked out)."""
    raise AssertionError(f"game {job.key} was worked out again")
