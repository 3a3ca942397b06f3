"""Each stored game's verdicts at the director: worked out off the event loop as the
tables' hands end, kept in the store (``store.verdicts``), drawn by the dashboard, the
hall and ``director export``.

The director hears of a hand's end as its table's events arrive (``table_moved``, on the
service's event loop): the table's latest game is read from the store in a worker thread
and, when it has ended hands not yet kept, its events up to its last ended hand are
handed to the review's runner (``review.Backlog``, a process of its own) with the hands
already kept, so only the new ones are worked out. A game none of whose verdicts is kept
(stored before this director kept verdicts, one of a table that reported while the
director was stopped) is worked out the first time its review is opened, the page saying
meanwhile "The verdicts are being worked out...". ``director export`` has no event loop
and no visitor waiting: it works out what is missing there and then (``now``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import cast

from table_controller.director.dashboard.review import stored_game
from table_controller.director.store import DirectorStore, StoreError
from table_controller.review import (
    Backlog,
    GameJob,
    GameJudged,
    KeptReview,
    ReviewError,
    ended_only,
    game_analyst,
    judge,
    merge,
)

log = logging.getLogger(__name__)

Judge = Callable[[GameJob], GameJudged]
Key = tuple[str, int]  # (table, game)


class StoredVerdicts:
    """The verdicts of every stored game. ``table_moved`` on the event loop, ``for_page``
    from a page's worker thread, ``now`` from a command with no loop."""

    def __init__(self, store: DirectorStore, work: Judge | None = None) -> None:
        self.store = store
        self._work = work or judge
        analyst = game_analyst() if work is None else game_analyst(work)
        self.backlog: Backlog[GameJob, GameJudged] = Backlog(analyst, self._judged, _key)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._checking: set[str] = set()
        # Games asked to be worked out since the director started: a failure kept from
        # before (a process that died) is tried once more, and then left said.
        self._tried: set[Key] = set()

    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop

    def kept(self, table: str, game: int) -> KeptReview | None:
        """What is kept of the game (None: nothing, or a form no longer readable)."""
        text = self.store.verdicts.kept(table, game)
        if text is None:
            return None
        try:
            return KeptReview.from_json(text)
        except ReviewError as exc:
            log.warning("%s's game %d: %s", table, game, exc)
            return None

    def table_moved(self, table: str) -> None:
        """``table`` sent events (on the loop): its latest game's new hands, if any ended,
        are worked out. One look at a time per table."""
        if table in self._checking:
            return
        self._checking.add(table)
        self._loop = asyncio.get_running_loop()
        task = self._loop.run_in_executor(None, self._job_of_latest, table)
        task.add_done_callback(lambda f: self._checked(table, f))

    def _checked(self, table: str, found: asyncio.Future[GameJob | None]) -> None:
        self._checking.discard(table)
        if found.cancelled():
            return
        error = found.exception()
        if error is not None:
            log.warning("the verdicts of %s's game could not be looked at: %s", table, error)
            return
        job = found.result()
        if job is not None:
            self._tried.add(_key(job))
            self.backlog.add(job)

    def _job_of_latest(self, table: str) -> GameJob | None:
        games = self.store.events.games(table)
        return self._job(table, games[-1]) if games else None

    def _job(self, table: str, game: int, again: bool = False) -> GameJob | None:
        """The job that works out the game's ended hands not kept yet; None: none.
        ``again``: a failure kept is worked out again."""
        ended = _ended_hands(self.store, table, game)
        if not ended:
            return None
        kept = self.kept(table, game)
        done = frozenset(kept.hands) if kept is not None and kept.state == "ready" else frozenset()
        failed = kept is not None and kept.state == "failed"
        if (failed and not again) or (not failed and len(done) >= ended):
            return None
        try:
            read = stored_game(self.store, table, game)
        except ReviewError:
            return None  # its review says why, in words
        if read is None:
            return None
        rules, events = read
        return GameJob((table, game), rules, ended_only(rules, events), done)

    def for_page(self, table: str, game: int, hands: int) -> KeptReview | None:
        """The verdicts to draw on the game's review, which shows ``hands`` ended hands
        (from a page's worker thread); asked for when missing, "working" meanwhile."""
        if hands == 0:
            return None
        kept = self.kept(table, game)
        if self.backlog.pending((table, game)):
            return KeptReview.working(kept)
        retry = kept is not None and kept.state == "failed" and (table, game) not in self._tried
        if kept is not None and not retry and (kept.state == "failed" or len(kept.hands) >= hands):
            return kept
        loop = self._loop
        if loop is None or loop.is_closed():
            return kept
        job = self._job(table, game, again=retry)
        if job is None:
            return kept
        self._tried.add((table, game))
        loop.call_soon_threadsafe(self.backlog.add, job)
        return KeptReview.working(kept)

    def now(self, table: str, game: int) -> KeptReview | None:
        """The game's verdicts, worked out here and kept if missing (``director
        export``: no loop, nobody waiting on a page)."""
        job = self._job(table, game)
        if job is not None:
            self._judged(job, self._work(job))
        return self.kept(table, game)

    def _judged(self, job: GameJob, answer: GameJudged) -> None:
        table, game = _key(job)
        kept = merge(self.kept(table, game), answer.kept)
        if kept.state == "failed":
            log.error("the verdicts of %s's game %d failed: %s", table, game, kept.problem)
        try:
            self.store.verdicts.keep(table, game, kept.to_json())
        except StoreError as exc:  # the store down: worked out again when next opened
            log.error("the verdicts of %s's game %d could not be kept: %s", table, game, exc)

    async def close(self) -> None:
        await self.backlog.close()


def _key(job: GameJob) -> Key:
    return cast(Key, job.key)


def _ended_hands(store: DirectorStore, table: str, game: int) -> int:
    """How many hands of the game ended (scored or thrown in), from its hand marks."""
    return sum(
        1 for m in store.hand_times.marks(table, game) if m["kind"] in ("scored", "thrown_in")
    )


__all__ = ["StoredVerdicts"]
