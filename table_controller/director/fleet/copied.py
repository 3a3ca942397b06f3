"""The machine each table's heartbeat names, kept as it arrives, and a copied card said
once: the service hands each status it takes as the table's here.

Why apart from the pure words (``machines.py``): this reads and writes the store and
raises the alert, which is the director's journal line too. A status the broker kept
(retained) or sent again (dup) says nothing of which machine reports now, and is not
counted; nor is one whose signature failed (the service does not hand it here).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from table_controller.director.fleet.machines import TWIN_WINDOW, at_once, copied_table_words
from table_controller.director.json_value import JSONValue
from table_controller.director.store import DirectorStore
from table_controller.director.words import table_title
from table_controller.feed.messages import MACHINE_SOURCES, is_machine_id

log = logging.getLogger(__name__)

ALERT = "copied_card"


def claimed_machine(status: Mapping[str, JSONValue]) -> tuple[str, str] | None:
    """The machine a status names (its ``fleet.machine``), None when it names none (a
    table of an older release) or one of another shape."""
    fleet = status.get("fleet")
    machine = fleet.get("machine") if isinstance(fleet, dict) else None
    if not isinstance(machine, dict):
        return None
    mid, source = machine.get("id"), machine.get("source")
    if is_machine_id(mid) and isinstance(source, str) and source in MACHINE_SOURCES:
        return str(mid), source
    return None


class CopiedCards:
    """Tells, from each table's statuses, when two machines report as one table."""

    def __init__(self, store: DirectorStore, *, window: float = TWIN_WINDOW) -> None:
        self.store = store
        self.window = window

    def heard(self, table: str, status: Mapping[str, JSONValue], now: float) -> bool:
        """``status`` was taken from ``table`` at ``now``: its machine kept; True when
        this raised the alert (two machines at once, said once while it is open)."""
        machine = claimed_machine(status)
        if machine is None:
            return False
        self.store.machines.heard(table, *machine, now, gap=self.window)
        both = at_once(self.store.machines.machines(table), now, self.window)
        if not both:
            return False
        name = status.get("name")
        title = table_title(table, name if isinstance(name, str) else None)
        text = copied_table_words(title, both)
        if self.store.alerts.alert_once(table, ALERT, ALERT, text, now) is None:
            return False
        log.warning("%s", text)  # the journal's line: once, not once a heartbeat
        return True


__all__ = ["ALERT", "CopiedCards", "claimed_machine"]
