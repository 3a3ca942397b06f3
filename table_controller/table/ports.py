"""The running table as the parts beside it see it: narrow ports in place of the whole
``Table`` (app.py), so each part says what it uses and none imports the table back.

- ``TableControl``: the table's control, what its feed, its fleet commands and its policy
  all use: its config, clock and faults, the game, its one queue of inputs, a notice.
- ``FeedTable``: what the feed (feed_link.py) adds: the heartbeat's state
  (``TableStatus``), the log's rulings.
- ``FeedPort``: the feed as the fleet's camera commands see it (table/fleet/commands.py).
- ``CameraPort``: the camera as they see it.

The policy's own port (what the kiosk may do with its table) is ``PolicyTable`` in
policy.py. app.py's ``TableControls`` is the one implementation of these, on the table.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Protocol, TypedDict, TypeVar

from table_controller.feed.messages import AcrossStatus
from table_controller.present import FaultShown
from table_controller.rules.game import Game
from table_controller.seats import Seat
from table_controller.table.config import TableConfig
from table_controller.table.health import Health
from table_controller.table.noticed import Input, Refusal

if TYPE_CHECKING:
    from table_controller.feed.signing import Ruling
    from table_controller.vision.camera import Frame
    from table_controller.vision.layout import Calibration

T = TypeVar("T")


class TableStatus(TypedDict):
    """The table in a few fields (core.py ``status``): the heartbeat the feed sends the
    director (feed/messages.py ``status_message``), and the fleet's update agent's."""

    name: str
    game: int
    hand: int | None  # the hand in play, or the last one
    phase: str
    scores: list[int]
    players: dict[str, str]  # seat name: player
    faults: list[FaultShown]  # health.py ``Fault.to_json``
    across: list[AcrossStatus]  # cards lying across a zone's line


class TableControl(Protocol):
    """The table's control: what any part beside the running table may read and do."""

    @property
    def config(self) -> TableConfig: ...

    @property
    def health(self) -> Health: ...

    def clock(self) -> float:
        """The table's clock (monotonic; a test's virtual one)."""
        ...

    @property
    def game(self) -> Game: ...

    @property
    def game_no(self) -> int: ...

    @property
    def page_names(self) -> Mapping[Seat, str]:
        """The players as the page names them (the kiosk's bots without "(strong bot)")."""
        ...

    def submit(self, noticed: Input) -> None:
        """Queue ``noticed`` (from the event loop's thread)."""
        ...

    async def ask(self, noticed: Input) -> Refusal | None:
        """Queue ``noticed`` and wait for the table's answer (None: taken)."""
        ...

    def notice(self, kind: str, seat: Seat | None, text: str, fix: str) -> None:
        """A notice on the page, shown at the next ``changed``."""
        ...

    def changed(self) -> None:
        """Something shown changed: a new version on every sink."""
        ...


class FeedTable(TableControl, Protocol):
    """The table as its feed to the director sees it (feed_link.py)."""

    @property
    def disk_free_bytes(self) -> int | None: ...

    def status(self) -> TableStatus:
        """The table in a few fields, for the heartbeat."""
        ...

    def ruling_applied(self, ruling_id: str) -> bool:
        """Whether the log holds the ruling ``ruling_id`` already (it was sent again)."""
        ...

    def ruling_refusal(self, ruling: Ruling) -> Refusal | None:
        """A ruling for another game or hand than the table's: why it is refused."""
        ...


class FeedPort(Protocol):
    """The feed as the fleet's camera commands see it."""

    calibrated_at: float | None  # a calibration made while the table runs (wall clock)

    def status(self, *, new_events: bool = False) -> None:
        """Send the heartbeat again."""
        ...


class CameraPort(Protocol):
    """The camera as the fleet's camera commands see it (camera_watch.py)."""

    @property
    def lost_after(self) -> float: ...

    @property
    def last_frame(self) -> Frame | None: ...

    @property
    def last_read_at(self) -> float | None: ...

    def in_camera_thread(self, call: Callable[[Frame], T], frame: Frame, /) -> asyncio.Future[T]:
        """Run ``call(frame)`` in the camera's thread, between two frames."""
        ...

    def use_calibration(self, calibration: Calibration) -> None:
        """Read cards with ``calibration`` from the next frame."""
        ...


__all__ = ["CameraPort", "FeedPort", "FeedTable", "TableControl", "TableStatus"]
