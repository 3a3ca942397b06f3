"""A fleet's table's configuration: its own file (pins, camera, calibration, cube, page),
its membership of the event (the broker, its user and password, the director's key,
the event's rules) and the last config the director pushed (its name, rules, players),
put together into the ``TableConfig`` the table runs with (table/fleet/run.py).

The last config applied is kept in ``{folder}/config.json`` (written whole or not at
all, readable by the table's user only), so a table restarted while the broker is away
plays on with the players it last had.
"""

from __future__ import annotations

import dataclasses
import json
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from table_controller.errors import TableControllerError
from table_controller.rules.errors import RulesError
from table_controller.rules.presets import preset
from table_controller.seats import Seat
from table_controller.table.config import DEFAULT_PLAYERS, FeedConfig, TableConfig
from table_controller.table.fleet.membership import CA as CA_FILE
from table_controller.table.fleet.membership import DIRECTOR_KEY as DIRECTOR_KEY_FILE
from table_controller.table.fleet.membership import PASSWORD as PASSWORD_FILE
from table_controller.table.fleet.membership import SIGNING_KEY as SIGNING_KEY_FILE
from table_controller.table.fleet.membership import Membership

CONFIG_FILE = "config.json"


class FleetError(TableControllerError, RuntimeError):
    """The fleet's table cannot run as it is: what is wrong and what to do."""


# What this table holds of the event it joined (``join`` wrote it).
MembershipLike = Membership


def load_membership(folder: Path) -> MembershipLike | None:
    """The membership ``join`` left in ``folder`` (table/fleet/membership.py), None when the
    table has not joined yet; FleetError in words when it is there but cannot be read."""
    from table_controller.table.fleet.membership import MembershipError, load

    try:
        return load(folder)
    except MembershipError as exc:
        raise FleetError(str(exc)) from None


def build(
    local: TableConfig, member: MembershipLike, order: Mapping[str, Any] | None
) -> TableConfig:
    """The configuration to run: the file's own keys, the membership's broker and the
    order's name, rules and players (the membership's name and rules before any order).
    FleetError in words when the rules cannot be played here."""
    fleet = local.fleet
    if fleet is None:
        raise FleetError("this table's file has no [fleet]: it runs on its own")
    source: Mapping[str, Any] = order if order is not None else {}
    name = str(source.get("name") or member.name)
    rules_name = str(source.get("rules") or member.rules)
    options = dict(source.get("options", member.options))
    try:
        rules = preset(rules_name, options)
    except RulesError as exc:
        raise FleetError(
            f"the event's rules cannot be played at this table ({exc}): update the table's "
            "software to the director's version, or ask the director to check the rules"
        ) from None
    named = source.get("players") or {}
    players = {seat: str(named.get(seat.name) or DEFAULT_PLAYERS[seat]) for seat in Seat}
    folder = fleet.folder
    feed = FeedConfig(
        enabled=True,
        broker=member.director_host,
        port=member.broker_port,
        topic=member.topic,
        event=member.event,
        username=member.username,
        password_file=folder / PASSWORD_FILE,
        # The event's CA from the signed bundle: the broker is checked against it alone.
        tls_ca=folder / CA_FILE if member.ca else local.feed.tls_ca,
        director_key=folder / DIRECTOR_KEY_FILE,
        # Given by a director that signs (a table approved by an older one has none).
        signing_key=folder / SIGNING_KEY_FILE if member.signing_key else None,
        heartbeat=local.feed.heartbeat,
        public_delay=local.feed.public_delay,
    )
    return dataclasses.replace(
        local,
        name=name,
        rules_name=rules_name,
        options=options,
        rules=rules,
        players=players,
        feed=feed,
        log=local.log if fleet.own_log else folder / f"{member.table}.sqlite",
    )


def load_applied(folder: Path) -> dict[str, Any] | None:
    """The last config order applied (as the director signed it), None before any."""
    path = folder / CONFIG_FILE
    try:
        order = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return None  # a damaged copy: the director's retained config comes again
    return dict(order) if isinstance(order, dict) else None


def save_applied(folder: Path, order: Mapping[str, Any]) -> None:
    """Keep ``order`` as the config applied: a temporary file (0600) written, synced and
    renamed over the old one, so a power cut leaves the old or the new, never half."""
    folder.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=".config-", suffix=".json", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(dict(order), out, sort_keys=True)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temp, 0o600)
        os.replace(temp, folder / CONFIG_FILE)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    dir_fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


__all__ = [
    "CONFIG_FILE",
    "FleetError",
    "MembershipLike",
    "build",
    "load_applied",
    "load_membership",
    "save_applied",
]
