"""The director's store: everything every table sent, in one SQLite file (WAL) or a
PostgreSQL database (``db.py``: the same SQL on both).

The store has one database and one lock, but several concerns, each a part in a module
of its own in this folder, with its own SQL and its own note on why it exists. Callers
use the part their concern is (``store.events.add_event``, ``store.accounts.login``,
``store.alerts.set_alert``), so a reader sees which concern a line touches:

- ``store.core``, ``store.batch`` (``core.py``): the connection, the lock,
  transactions and batches (shared);
- ``store.events`` (``events.py``): the events the tables sent and their evidence images;
- ``store.projections`` (``projections.py``), ``store.setups`` (``games.py``): each game
  as the replay of its stored events;
- ``store.hand_times`` (``hand_times.py``): when each hand began and ended at each
  table, written with its event (the pace of play);
- ``store.tables`` (``tables.py``): each table's status, its history, its going offline;
- ``store.alerts`` (``alerts.py``): the alert queue;
- ``store.rulings`` (``rulings.py``): rulings and their delivery;
- ``store.accounts`` (``accounts.py``): directors' logins, sessions and the audit log;
- ``store.formats`` (``formats.py``): the event's format state;
- ``store.fleet`` (``fleet.py``): the tables approved in fleet mode;
- ``store.machines`` (``fleet_machines.py``): the machines each table was heard from
  (two at once: a copied SD card);
- ``store.pictures`` (``fleet_pictures.py``): the camera pictures the fleet view asked
  the tables for;
- ``store.fleet_configs`` (``fleet_config.py``): the configs pushed to the fleet's
  tables, and their answers;
- ``store.keys`` (``table_keys.py``): each table's registered key, which its messages
  are signed with;
- ``store.order`` (``table_order.py``): the newest place taken per table and kind of
  message, which a status, an answer or a fleet answer must come after (an old one sent
  again is not);
- ``store.usage`` (``usage.py``): each table's share of the store, in bytes (the fleet
  view);
- ``store.verdicts`` (``verdicts.py``): each game's verdicts on its decisions, as kept
  (the hand review's).

What the parts keep of each table (its status history, its pictures) is bounded by the
``limits`` given (feed/limits.py, the director's settings), which the service
takes too, so what is taken and what is kept agree.

``DirectorStore`` only builds them over one ``StoreCore`` and holds them: it offers no
methods of its own but ``batch`` (one transaction over every part) and ``close``. Code
that needs only one concern takes that part alone.

The subscriber stores what arrives in batches (``batch``: one transaction, one fsync,
for up to hundreds of messages) and acknowledges each message to the broker only after
its batch committed, so the broker only forgets a message the store already holds.
Alerts are raised as the messages are stored, with a unique key each, so a redelivered
message never raises an alert twice. Rulings and every director action go to an
append-only audit log (triggers refuse UPDATE and DELETE). A table's game is never
stored as a state: it is the replay of its stored input events under its rules
(``projection``).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path

from table_controller.director.json_value import JSONValue
from table_controller.director.store.accounts import SESSION_SECONDS, Accounts
from table_controller.director.store.alerts import ALERT_KINDS, ALERT_STATES, Alerts
from table_controller.director.store.core import Clock, StoreCore, finite
from table_controller.director.store.db import StoreError, StoreUnavailable
from table_controller.director.store.events import FeedEvents
from table_controller.director.store.fleet import FleetTables
from table_controller.director.store.fleet_config import FleetConfigs
from table_controller.director.store.fleet_machines import FleetMachines
from table_controller.director.store.fleet_pictures import FleetPictures
from table_controller.director.store.formats import Formats
from table_controller.director.store.games import GameSetups
from table_controller.director.store.hand_times import HandTimes
from table_controller.director.store.projections import Projection, Projections
from table_controller.director.store.rulings import Rulings
from table_controller.director.store.table_keys import TableKeys
from table_controller.director.store.table_order import TableOrder
from table_controller.director.store.tables import MAX_EVERY, TableStatus
from table_controller.director.store.usage import Usage
from table_controller.director.store.verdicts import GameVerdicts
from table_controller.feed.limits import Limits
from table_controller.rules.errors import RulesError
from table_controller.rules.presets import preset


class DirectorStore:
    """One event's store: its parts over one database and lock. Safe to share between
    threads: the director's writer thread writes, the web server reads."""

    def __init__(
        self,
        path: str | Path,
        *,
        rules_name: str = "td-tournament",
        options: Mapping[str, JSONValue] | None = None,
        clock: Clock = time.time,
        limits: Limits | None = None,
    ) -> None:
        # What it keeps of each table (and the service takes from it): feed/limits.py.
        self.limits = limits if limits is not None else Limits()
        self.rules_name = rules_name
        self.options = dict(options or {})
        try:
            preset(rules_name, self.options)
        except RulesError as exc:
            raise StoreError(f"the event's rules cannot be used: {exc}") from None
        self.core = core = StoreCore(path, clock=clock)
        self.db = core.db
        self.name = core.db.name  # a path, or a URL without its password
        self.alerts = Alerts(core)
        self.tables = TableStatus(core, self.alerts, self.limits)
        self.setups = GameSetups(core)
        self.projections = Projections(core, rules_name, self.options, self.setups)
        self.hand_times = HandTimes(core)
        self.events = FeedEvents(
            core,
            self.tables,
            self.alerts,
            self.projections,
            self.setups,
            self.limits,
            self.hand_times,
        )
        self.rulings = Rulings(core)
        self.accounts = Accounts(core)
        self.formats = Formats(core)
        self.fleet = FleetTables(core)
        self.machines = FleetMachines(core)
        self.pictures = FleetPictures(core, camera_bytes=self.limits.camera_bytes)
        self.fleet_configs = FleetConfigs(core)
        self.keys = TableKeys(core)
        self.order = TableOrder(core)
        self.usage = Usage(core)
        self.verdicts = GameVerdicts(core)

        # A transaction over every part at once: the subscriber's batches.
        self.batch = core.batch

    def close(self) -> None:
        self.core.close()


__all__ = [
    "ALERT_KINDS",
    "ALERT_STATES",
    "MAX_EVERY",
    "SESSION_SECONDS",
    "DirectorStore",
    "Projection",
    "StoreError",
    "StoreUnavailable",
    "finite",
]
