"""What the coach's panel shows of the visitor's last game: nothing, "Looking over your
game...", or the costliest decisions, and when that ends.

The look back belongs to the game that ended and to whoever played it: it is begun at
the game's end, shown from then until the next deal begins (the table starts a new game
in its log a moment after the end, but for the visitor the next game begins with the
first card they lay), and dropped, pending or shown, when the visitor walks away, the
operator resets the game or the kiosk goes back to its demo.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from table_controller.kiosk.look_back.analyst import Analyst
from table_controller.kiosk.look_back.words import looking, review_shown
from table_controller.kiosk.look_back.work import Job, Looked
from table_controller.present import CoachReview
from table_controller.seats import Seat


class LookBack:
    """The look back at one game at a time. ``ready(looked)`` is told on the event loop
    when the answer is in (the kiosk then shows it, and records a failure)."""

    def __init__(self, ready: Callable[[Looked], None], analyst: Analyst | None = None) -> None:
        self.analyst = analyst if analyst is not None else Analyst()
        self._ready = ready
        self.game: int | None = None  # the game looked back at, shown until dropped
        self.looked: Looked | None = None

    def begin(self, job: Job) -> None:
        """Look back at ``job``'s game: "Looking over your game..." until the answer."""
        self.game, self.looked = job.game, None
        self.analyst.start(job, self._answered)

    def _answered(self, looked: Looked) -> None:
        if looked.game != self.game:  # an answer for a game dropped since: never shown
            return
        self.looked = looked
        self._ready(looked)

    def drop(self) -> None:
        """Nothing of the last game is shown any more, and a pending look back is ended."""
        self.analyst.drop()
        self.game, self.looked = None, None

    @property
    def pending(self) -> bool:
        return self.game is not None and self.looked is None

    def review(self, names: Mapping[Seat, str]) -> CoachReview | None:
        """What the coach's panel shows of the last game, or None."""
        if self.game is None:
            return None
        if self.looked is None:
            return looking()
        return review_shown(self.looked, names)

    async def close(self) -> None:
        self.game, self.looked = None, None
        await self.analyst.close()


__all__ = ["LookBack"]
