"""The look back's process: one finished game analysed at a time by the review's runner
(``review.Analyst``: a process of its own, so the kiosk's event loop, its lights, its
page and the bots' thread never wait on it), with the coach's work and its answer for a
game that could not be looked over."""

from __future__ import annotations

from table_controller.kiosk.look_back.work import Job, Looked, look_over
from table_controller.review import Analyst as Runner
from table_controller.review import Work as AnyWork

Work = AnyWork[Job, Looked]


def _failed(job: Job, why: str) -> Looked:
    return Looked(job.game, (), job.deals, why)


def _fits(job: Job, answer: object) -> bool:
    return isinstance(answer, Looked) and answer.game == job.game


class Analyst(Runner[Job, Looked]):
    """Looks back at one game at a time (``start``; a look back pending is dropped),
    answering on the event loop; ``work`` is what the process runs (``look_over``; a
    test gives its own)."""

    def __init__(self, work: Work = look_over) -> None:
        super().__init__(work, _failed, _fits, name="kiosk-look-back")

    @property
    def game(self) -> int | None:
        """The game being looked back at, if any."""
        job = self.job
        return None if job is None else job.game


__all__ = ["Analyst", "Work"]
