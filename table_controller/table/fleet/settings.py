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
from typing import NotRequired, TypedDict, cast

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


def build(local: TableConfig, member: MembershipLike, order: AppliedConfig | None) -> TableConfig:
    """The configuration to run: the file's own keys, the membership's broker and the
    order's name, rules and players (the membership's name and rules before any order).
    FleetError in words when the rules cannot be played here."""
    fleet = local.fleet
    if fleet is None:
        raise FleetError("this table's file has no [fleet]: it runs on its own")
    name, rules_name = member.name, member.rules
    options = dict(member.options)
    named: Mapping[str, str] = {}
    if order is not None:
        name = order.get("name") or member.name
        rules_name = order.get("rules") or member.rules
        options = dict(order.get("options", member.options))
        named = order.get("players") or {}
    try:
        rules = preset(rules_name, options)
    except RulesError as exc:
        raise FleetError(
            f"the event's rules cannot be played at this table ({exc}): update the table's "
            "software to the director's version, or ask the director to check the rules"
        ) from None
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
        # The broker is where the table reached the director (the address it was given,
        # or the one announced), which the director's certificate need not name: a NAT's,
        # a router's name for the laptop, a lease renewed since the director started.
        # The event's authority alone says it is the director's (tls.client_context).
        tls_check_name=not member.ca,
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


class AppliedConfig(TypedDict):
    """What the table reads of a config order it runs with (fleet/orders.py checked the
    order when it came), kept whole in config.json: the order's other fields (the
    signature, the event, when it was made) stay in it, unread."""

    seq: int  # rises per table: an older config is refused
    name: NotRequired[str | None]  # the table's name (none: the membership's)
    rules: NotRequired[str | None]  # the rules preset (none: the membership's)
    options: NotRequired[dict[str, object]]  # the rules' options
    players: NotRequired[dict[str, str] | None]  # seat letter: the player's name
    round: NotRequired[int | None]  # set: the event's rounds seat this table


def applied_config(order: Mapping[str, object]) -> AppliedConfig:
    """``order`` as the config the table runs with, once each field it reads is of the
    kind it reads (a verified order's always are; a kept copy may be damaged);
    FleetError in words when one is not."""
    seq = order.get("seq")
    if isinstance(seq, bool) or not isinstance(seq, int):
        raise FleetError(f"the config's number (seq) {seq!r} is not a whole number")
    for key in ("name", "rules"):
        if not isinstance(order.get(key), str | None):
            raise FleetError(f"the config's {key} is not text")
    if not isinstance(order.get("options", {}), dict):
        raise FleetError("the config's rules options are not a table of options")
    players = order.get("players")
    if not isinstance(players, dict | None) or not all(
        isinstance(v, str) for v in (players or {}).values()
    ):
        raise FleetError("the config's players are not named by seat")
    rnd = order.get("round")
    if rnd is not None and (isinstance(rnd, bool) or not isinstance(rnd, int)):
        raise FleetError(f"the config's round {rnd!r} is not a round number")
    # Every field AppliedConfig names was checked just above (the rest is kept, unread).
    return cast(AppliedConfig, dict(order))


def load_applied(folder: Path) -> AppliedConfig | None:
    """The last config order applied (as the director signed it), None before any."""
    path = folder / CONFIG_FILE
    try:
        order = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return None  # a damaged copy: the director's retained config comes again
    if not isinstance(order, dict):
        return None
    try:
        return applied_config(order)
    except FleetError:
        return None  # damaged too: the director's retained config comes again


def save_applied(folder: Path, order: AppliedConfig) -> None:
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
    "AppliedConfig",
    "FleetError",
    "MembershipLike",
    "applied_config",
    "build",
    "load_applied",
    "load_membership",
    "save_applied",
]
