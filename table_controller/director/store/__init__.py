"""The director's store: everything every table sent and everything directors did, in
one SQLite file or one PostgreSQL database (``db.py``: the same SQL on both).

One module per concern, each with its own SQL, over one connection and one lock
(``core.py``); ``parts.py``'s ``DirectorStore`` builds them all and holds them, and
callers use the part of their concern (``store.events``, ``store.accounts``; its
docstring lists them). Other folders take the store, and the few names of its parts
they need, from here, never from a part's module.

The fleet's rows (``fleet*.py``) are kept here, not in ``fleet/``: see that folder's note.
"""

from __future__ import annotations

from table_controller.director.store.accounts import Accounts, AuditLine
from table_controller.director.store.alerts import AlertRow, Fault
from table_controller.director.store.db import StoreError, StoreUnavailable, is_url
from table_controller.director.store.events import EndedGame, EventMessage, GameEvent, StoredEvent
from table_controller.director.store.fleet import FleetTableRow
from table_controller.director.store.fleet_config import CONFIG_STATES, ConfigState
from table_controller.director.store.fleet_machines import MachineRow
from table_controller.director.store.fleet_pictures import PictureState
from table_controller.director.store.fleet_updates import FleetUpdates
from table_controller.director.store.formats import FormatChange, FormatVersion
from table_controller.director.store.hand_times import HandTime, MarkKind
from table_controller.director.store.parts import (
    ALERT_KINDS,
    ALERT_STATES,
    MAX_EVERY,
    SESSION_SECONDS,
    DirectorStore,
    Projection,
    finite,
)
from table_controller.director.store.rulings import RulingRow
from table_controller.director.store.table_keys import TableKeyRow
from table_controller.director.store.tables import (
    RawTable,
    StatusMessage,
    StatusRow,
    TableRow,
    table_row,
)
from table_controller.director.store.usage import TableUsage, usage_words

__all__ = [
    "ALERT_KINDS",
    "ALERT_STATES",
    "CONFIG_STATES",
    "MAX_EVERY",
    "SESSION_SECONDS",
    "Accounts",
    "AlertRow",
    "AuditLine",
    "ConfigState",
    "DirectorStore",
    "EndedGame",
    "EventMessage",
    "Fault",
    "FleetTableRow",
    "FleetUpdates",
    "FormatChange",
    "FormatVersion",
    "GameEvent",
    "HandTime",
    "MachineRow",
    "MarkKind",
    "PictureState",
    "Projection",
    "RawTable",
    "RulingRow",
    "StatusMessage",
    "StatusRow",
    "StoreError",
    "StoreUnavailable",
    "StoredEvent",
    "TableKeyRow",
    "TableRow",
    "TableUsage",
    "finite",
    "is_url",
    "table_row",
    "usage_words",
]
