"""Each game's verdicts at the table: worked out as its hands end, kept with its log.

When a hand ends (scored or thrown in), the game's events up to that end are handed to
the review's runner (``review.Backlog`` over ``review.game_analyst``: a process of its
own, off the event loop) with the hands already kept, so only the new hand is worked
out; its answer is joined to what was kept and written beside the log, one file a game
(``<log>.verdicts/game-N.json``, written whole then renamed, so a file is never half
written; private as the log is, the folder 0700 and each file 0600). When the last
hand of a game ends its verdicts are ready a hand's analysis later (under a second),
long before a person has walked to the QR code.

A restart does not redo what was kept (a failure kept is tried once more after a
restart: the process may have died of a passing cause, out of memory). A game whose
ended hands are not all kept (one played before this table kept verdicts, one whose
analysis was cut by a stop) is worked out quietly the first time its review is opened,
the page saying meanwhile "The verdicts are being worked out...". A failure is kept
too, in words, and said on the page; the replay is shown in every case.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable
from pathlib import Path

from table_controller.review import (
    Backlog,
    GameJob,
    GameJudged,
    KeptReview,
    ReviewError,
    ended_only,
    game_analyst,
    merge,
)
from table_controller.rules.events import InputEvent
from table_controller.rules.presets import Rules

log = logging.getLogger(__name__)

Judge = Callable[[GameJob], GameJudged]


class TableVerdicts:
    """The verdicts of the games in one table's log (``folder``: where they are kept).
    ``hand_ended`` and ``for_page`` are the table's two ways in: the first on the event
    loop, the second from the thread that makes the page."""

    def __init__(self, folder: Path, work: Judge | None = None) -> None:
        self.folder = folder
        analyst = game_analyst() if work is None else game_analyst(work)
        self.backlog: Backlog[GameJob, GameJudged] = Backlog(analyst, self._judged, _key)
        self._loop: asyncio.AbstractEventLoop | None = None
        # Games this table asked to be worked out since it started: a failure kept from
        # before (a process that died) is tried once more, and then left said.
        self._tried: set[int] = set()

    def path(self, game: int) -> Path:
        return self.folder / f"game-{game}.json"

    def kept(self, game: int) -> KeptReview | None:
        """What is kept of ``game``, or None (nothing yet, or a file no longer readable:
        it is worked out again)."""
        try:
            return KeptReview.from_json(self.path(game).read_bytes())
        except FileNotFoundError:
            return None
        except (OSError, ReviewError) as exc:
            log.warning("the verdicts kept for game %d are worked out again: %s", game, exc)
            return None

    def hand_ended(self, game: int, rules: Rules, events: tuple[InputEvent, ...]) -> None:
        """A hand of ``game`` ended (on the event loop): its verdicts are worked out."""
        self._loop = asyncio.get_running_loop()
        self._queue(game, rules, events)

    def _queue(self, game: int, rules: Rules, events: tuple[InputEvent, ...]) -> None:
        self._tried.add(game)
        kept = self.kept(game)
        done = frozenset(kept.hands) if kept is not None and kept.state == "ready" else frozenset()
        job = GameJob(game, rules, ended_only(rules, events), done)
        self.backlog.add(job)

    def for_page(
        self, game: int, hands: int, read: Callable[[], tuple[Rules, tuple[InputEvent, ...]]]
    ) -> KeptReview | None:
        """The verdicts to draw on ``game``'s review, which shows ``hands`` ended hands
        (called from the page's worker thread). Being worked out: "working". Nothing
        kept of hands the review shows: asked for on the event loop (``read`` gives the
        game's rules and events), and "working" meanwhile."""
        if hands == 0:
            return None
        kept = self.kept(game)
        if self.backlog.pending(game):
            return KeptReview.working(kept)
        retry = kept is not None and kept.state == "failed" and game not in self._tried
        if kept is not None and not retry and (kept.state == "failed" or len(kept.hands) >= hands):
            return kept
        loop = self._loop
        if loop is None or loop.is_closed():
            return kept
        rules, events = read()
        loop.call_soon_threadsafe(self._queue, game, rules, events)
        return KeptReview.working(kept)

    def _judged(self, job: GameJob, answer: GameJudged) -> None:
        game = job.key
        assert isinstance(game, int)
        kept = merge(self.kept(game), answer.kept)
        if answer.kept.state == "failed":
            log.error("the verdicts of game %d could not be worked out: %s", game, kept.problem)
        try:
            _write_private(self.folder, self.path(game), kept.to_json().encode("utf-8"))
        except OSError as exc:  # a full disk: the page works them out again when opened
            log.error("the verdicts of game %d could not be kept: %s", game, exc)

    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        """The loop the table runs on (jobs asked for from the page's thread go there)."""
        self._loop = loop

    async def close(self) -> None:
        await self.backlog.close()


def _write_private(folder: Path, path: Path, data: bytes) -> None:
    """``data`` written whole to ``path`` (a ``.part`` renamed over it), private as the
    log is (docs/security.md): the folder 0700, the file 0600, made so by ``os.open``."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    part = path.with_suffix(".part")
    fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(data)
    os.replace(part, path)


def _key(job: GameJob) -> object:
    return job.key


def verdicts_folder(log_path: Path) -> Path:
    """Where a log's verdicts are kept: beside it, ``table.sqlite.verdicts/``."""
    return log_path.with_name(log_path.name + ".verdicts")


__all__ = ["TableVerdicts", "verdicts_folder"]
