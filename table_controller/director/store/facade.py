"""The director's store: everything every table sent, in one SQLite file (WAL) or a
PostgreSQL database (``db.py``: the same SQL on both).

Why a facade: the store has one database and one lock, but several concerns, each a
part in a module of its own in this folder, with its own SQL and its own note on why it
exists:

- ``core.py``: the connection, the lock, transactions and batches (shared);
- ``events.py``: the events the tables sent and their evidence images;
- ``projections.py``: each game as the replay of its stored events;
- ``tables.py``: each table's status, its history, its going offline;
- ``alerts.py``: the alert queue; ``rulings.py``: rulings and their delivery;
- ``accounts.py``: directors' logins, sessions and the audit log;
- ``formats.py``: the event's format state;
- ``fleet.py``: the tables approved in fleet mode;
- ``fleet_pictures.py``: the camera pictures the fleet view asked the tables for;
- ``fleet_config.py``: the configs pushed to the fleet's tables, and their answers;
- ``table_keys.py``: each table's registered key, which its messages are signed with;
- ``table_order.py``: the newest place taken per table and kind of message, which a
  status, an answer or a fleet answer must come after (an old one sent again is not);
- ``usage.py``: each table's share of the store, in bytes (the fleet view).

What the parts keep of each table (its status history, its pictures) is bounded by the
``limits`` given (feed/limits.py, the director's settings), which the service
takes too, so what is taken and what is kept agree.

``DirectorStore`` builds them over one ``StoreCore`` and offers their methods under
the names callers have always used (``store.add_event``, ``store.login``, ...); code
that needs only one concern may take the part itself (``store.accounts``).

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
from table_controller.director.store.fleet_pictures import FleetPictures
from table_controller.director.store.formats import Formats
from table_controller.director.store.games import GameSetups
from table_controller.director.store.projections import Projection, Projections
from table_controller.director.store.rulings import Rulings
from table_controller.director.store.table_keys import TableKeys
from table_controller.director.store.table_order import TableOrder
from table_controller.director.store.tables import MAX_EVERY, TableStatus
from table_controller.director.store.usage import Usage
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
        self.alerting = Alerts(core)
        self.table_status = TableStatus(core, self.alerting, self.limits)
        self.setups = GameSetups(core)
        self.projections = Projections(core, rules_name, self.options, self.setups)
        self.feed = FeedEvents(
            core, self.table_status, self.alerting, self.projections, self.setups, self.limits
        )
        self.ruling_log = Rulings(core)
        self.accounts = Accounts(core)
        self.formats = Formats(core)
        self.fleet = FleetTables(core)
        self.pictures = FleetPictures(core, camera_bytes=self.limits.camera_bytes)
        self.fleet_configs = FleetConfigs(core)
        self.keys = TableKeys(core)
        self.order = TableOrder(core)
        self.usage = Usage(core)

        # The store's methods as callers know them: each part's own (no code here).
        self.batch = core.batch
        # the events
        self.add_event = self.feed.add_event
        self.add_events = self.feed.add_events
        self.add_evidence = self.feed.add_evidence
        self.replace_evidence = self.feed.replace_evidence
        self.events = self.feed.events
        self.event_counts = self.feed.event_counts
        self.count_events = self.feed.count_events
        self.games = self.feed.games
        self.evidence = self.feed.evidence
        self.received_marks = self.feed.received_marks
        self.ended_games = self.feed.ended_games
        self.game_arrivals = self.feed.game_arrivals
        self.game_sizes = self.feed.game_sizes
        self.stored_events = self.feed.stored_events
        # the games' replays
        self.projection = self.projections.projection
        self.rules_of = self.projections.rules_of
        self.game_setup = self.setups.setup
        # the tables' status
        self.add_status = self.table_status.add_status
        self.check_silent = self.table_status.check_silent
        self.tables = self.table_status.tables
        self.raw_tables = self.table_status.raw_tables
        self.status_history = self.table_status.status_history
        self.players = self.table_status.players
        self.table_position = self.table_status.table_position
        # alerts
        self.alerts = self.alerting.alerts
        self.set_alert = self.alerting.set_alert
        # rulings
        self.add_ruling = self.ruling_log.add_ruling
        self.add_ack = self.ruling_log.add_ack
        self.unanswered = self.ruling_log.unanswered
        self.ruling_sent = self.ruling_log.ruling_sent
        self.rulings = self.ruling_log.rulings
        # logins, sessions, the audit log
        self.add_login = self.accounts.add_login
        self.logins = self.accounts.logins
        self.login = self.accounts.login
        self.session = self.accounts.session
        self.logout = self.accounts.logout
        self.audit = self.accounts.audit
        # the event's format
        self.add_format_state = self.formats.add_format_state
        self.format_state = self.formats.format_state
        self.format_history = self.formats.format_history
        self.format_versions = self.formats.format_versions
        self.format_changes = self.formats.format_changes
        self.format_creations = self.formats.format_creations
        self.format_state_before = self.formats.format_state_before
        # fleet mode's approved tables
        self.fleet_approve = self.fleet.fleet_approve
        self.fleet_remove = self.fleet.fleet_remove
        self.fleet_tables = self.fleet.fleet_tables
        self.fleet_table = self.fleet.fleet_table
        # the fleet view's camera pictures
        self.fleet_asked = self.pictures.fleet_asked
        self.fleet_picture_add = self.pictures.fleet_picture_add
        self.fleet_picture = self.pictures.fleet_picture
        self.fleet_pictures = self.pictures.fleet_pictures
        self.last_events = self.pictures.last_events
        # the configs pushed to the fleet's tables
        self.fleet_config_add = self.fleet_configs.fleet_config_add
        self.fleet_config_answer = self.fleet_configs.fleet_config_answer
        self.fleet_config_state = self.fleet_configs.fleet_config_state
        # the tables' registered keys, and the alerts about what they send
        self.register_key = self.keys.register_key
        self.table_key = self.keys.table_key
        self.enforce_key = self.keys.enforce_key
        self.table_keys = self.keys.table_keys
        self.newest_place = self.order.newest_place
        self.keep_place = self.order.keep_place
        self.has_places = self.order.has_places
        self.alert_once = self.alerting.alert_once
        # each table's share of the store (the fleet view)
        self.table_usage = self.usage.table_usage

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
