"""The camera's clearer pictures, written over the first ones in the table's log.

A card laid is logged at once with the picture of the frame that reported it, often with
the hand still over it: the game never waits for a picture. The camera then sends a
clearer one (vision/evidence.py ``Clearer``) from the first frame in which the card lay
still and clear of the hand. It comes through the table's one queue of inputs, after
its event, so by then the event was logged (or refused). This part remembers which
(game, seq) each recent card's event was logged as, and writes the clearer picture for
it (``EventLog.replace_evidence``); the feed sends it on to the director. A picture for
an event the table refused, or did not log with a picture, is dropped: there is
nothing it could replace.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from dataclasses import dataclass

from table_controller.event_log import EventLog, LogError
from table_controller.vision.tracker import TrackerEvent
from table_controller.vision.watcher import Clearer

log = logging.getLogger(__name__)

KEPT = 64  # the cards' events remembered: a clearer picture comes within seconds


@dataclass(frozen=True)
class Replaced:
    """A clearer picture written to the log: the event's (game, seq) it stands for."""

    game: int
    seq: int


class ClearPictures:
    """Which (game, seq) the camera's recent events with a picture were logged as."""

    def __init__(self, event_log: EventLog, kept: int = KEPT) -> None:
        self.log = event_log
        self.kept = kept
        self._logged: OrderedDict[TrackerEvent, tuple[int, int]] = OrderedDict()

    def logged(self, event: TrackerEvent, game: int, seq: int) -> None:
        """The camera's ``event`` was logged as (game, seq) with its first picture."""
        self._logged[event] = (game, seq)
        while len(self._logged) > self.kept:
            self._logged.popitem(last=False)

    def take(self, clearer: Clearer) -> Replaced | None:
        """Where ``clearer`` goes: its event's (game, seq), forgotten from now (one
        picture a card at most); None when its event was not logged with a picture (the
        rules refused it) or too long ago. In the loop's thread."""
        where = self._logged.pop(clearer.event, None)
        return None if where is None else Replaced(*where)

    def write(self, where: Replaced, clearer: Clearer, recorded: float | None = None) -> bool:
        """Write ``clearer`` over the first picture of ``where`` (in the log's own
        thread: it waits for the disk). False when the log refuses it (said in the
        table's log; the first picture stays)."""
        try:
            self.log.replace_evidence(where.game, where.seq, clearer.evidence, recorded=recorded)
        except LogError as exc:
            log.warning("the clearer picture of %s was not kept: %s", clearer.event.card, exc)
            return False
        return True


__all__ = ["KEPT", "ClearPictures", "Replaced"]
