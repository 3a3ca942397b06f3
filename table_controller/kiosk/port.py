"""The kiosk as its parts see it: its bots (bots.py), its demo hand (attract.py) and its
restart (restart.py) are given the ``Kiosk`` (kiosk.py) as a ``KioskPart``, so none of
them imports the kiosk back."""

from __future__ import annotations

import random
from typing import Protocol

from table_controller.seats import Seat
from table_controller.table.config import KioskConfig
from table_controller.table.policy import PolicyTable


class KioskPart(Protocol):
    """What the kiosk's parts read of it and ask of it."""

    settings: KioskConfig
    visitors: frozenset[Seat]
    bot_seats: tuple[Seat, ...]
    mode: str  # "play", "attract" or "stopped"
    rng: random.Random  # the kiosk's randomness: its deals, its bots' and demo's seeds

    @property
    def table(self) -> PolicyTable:
        """The table the kiosk runs, through its policy's port."""
        ...

    def blind(self) -> bool:
        """The camera cannot see the table (covered, lost)."""
        ...

    def say(self, text: str, fix: str) -> None:
        """A notice on the page."""
        ...

    def record(self, line: str) -> None:
        """A line in the log's records."""
        ...

    def new_game(self) -> None:
        """A new game in the log."""
        ...


__all__ = ["KioskPart"]
