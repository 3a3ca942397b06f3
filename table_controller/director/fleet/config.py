"""Config from the centre: the director pushes each fleet table its name, the event's
rules and options, and the players the event seats there, as a signed order retained on
the table's ``config`` topic (fleet/orders.py); the table applies it between games and
answers on ``fleet/config`` (director/fleet/replies.py stores the answer).

Each order's number (``seq``) rises per table and is kept in the store, in the same
transaction as the order, so it keeps rising across the director's restarts. A config
is pushed right after a table is approved (no players yet: ``push``), and whenever the
event's current round seats a fleet table with other players (``RoundPush``, a listener
of ``TournamentAdmin``: the event's format knows nothing of the broker).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Mapping
from typing import Protocol

from table_controller.director.json_value import JSONValue
from table_controller.director.store import DirectorStore
from table_controller.director.tournament import (
    FormatError,
    ProgressiveEvent,
    RoundsEvent,
    TournamentAdmin,
    TournamentState,
    current_round,
)
from table_controller.errors import TableControllerError
from table_controller.feed.messages import Topics
from table_controller.fleet.orders import ConfigOrder, sign_order

log = logging.getLogger(__name__)

Publish = Callable[[str, bytes | str, bool], None]  # (topic, payload, retain)
SEATS = ("N", "E", "S", "W")


class FleetConfigError(TableControllerError, RuntimeError):
    """A config that cannot be pushed now, and what to do."""


class FleetLike(Protocol):
    """What a push needs of the director's fleet (director/fleet/core.py's ``Fleet``)."""

    @property
    def store(self) -> DirectorStore: ...
    @property
    def event(self) -> str: ...
    @property
    def prefix(self) -> str: ...
    @property
    def rules(self) -> str: ...
    @property
    def options(self) -> Mapping[str, JSONValue]: ...
    @property
    def private_pem(self) -> bytes: ...
    @property
    def publish(self) -> Publish | None: ...


def push(
    fleet: FleetLike,
    table_id: str,
    *,
    name: str,
    players: Mapping[str, str],
    round: int | None,
    clock: Callable[[], float] = time.time,
) -> dict[str, object]:
    """Sign, keep and publish (retained) the next config of ``table_id``; returns the
    order as the store kept it. ``players``: seat letter -> name ({} before any is
    seated)."""
    publish = fleet.publish
    if publish is None:
        raise FleetConfigError(
            "the director is not connected to its broker, so no config can reach the "
            "tables: restart `table-controller director start`"
        )
    at = clock()

    def build(seq: int) -> ConfigOrder:
        config: ConfigOrder = {
            "kind": "config",
            "table": table_id,
            "id": f"{table_id}-config-{seq}",
            "at": at,
            "seq": seq,
            "name": name,
            "event": fleet.event,
            "rules": fleet.rules,
            "options": dict(fleet.options),
            "players": {s: str(players[s]) for s in SEATS if s in players},
            "round": round,
        }
        return sign_order(config, fleet.private_pem)

    order = fleet.store.fleet_configs.fleet_config_add(table_id, build)
    publish(Topics(fleet.prefix).config(table_id), json.dumps(order), True)
    return order


def seated(state: TournamentState) -> dict[str, tuple[dict[str, str], int]]:
    """The current round's seating by feed table: table id -> (seat letter -> the name
    of who sits there, the round). Tables the round does not assign are left out; so
    is a bracket (its matches have no rounds the event calls current)."""
    rnd = current_round(state)
    ev = state.event
    if rnd is None or ev is None:
        return {}
    places = state.assign.get(rnd, {})
    people = state.people
    by_place: dict[str, dict[str, str]] = {}
    try:
        if isinstance(ev, ProgressiveEvent):
            for i, seats in enumerate(ev.seating(rnd)):
                by_place[str(i + 1)] = {s: people.name(p) for s, p in seats.items()}
        elif isinstance(ev, RoundsEvent):
            for i, (ns, ew) in enumerate(ev.tables(rnd)):
                seats = {}
                for team_id, pair in ((ns, ("N", "S")), (ew, ("E", "W"))):
                    team = state.roster.teams.get(team_id)
                    if team is None:
                        continue
                    for seat, player in zip(pair, team.players, strict=True):
                        seats[seat] = people.name(state.roster.sitting(rnd, player))
                by_place[str(i + 1)] = seats
    except FormatError as exc:  # not seated yet (an absentee in a seat): nothing to push
        log.info("round %s is not seated yet (%s): no config pushed", rnd, exc)
        return {}
    return {t: (by_place[p], rnd) for t, p in places.items() if p in by_place}


class RoundPush:
    """An ``TournamentAdmin`` listener: after every change to the event, each fleet table
    the current round seats gets a config with its players, unless the last config it
    was sent already says the same. ``name_of(table_id)``: the table's name, None for a
    table that is not (or no longer) in the fleet."""

    def __init__(
        self,
        fleet: FleetLike,
        name_of: Callable[[str], str | None],
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.fleet = fleet
        self.name_of = name_of
        self.clock = clock

    def __call__(self, action: str, state: TournamentState) -> None:
        for table_id, (players, rnd) in sorted(seated(state).items()):
            name = self.name_of(table_id)
            if name is None:
                continue
            last = self.fleet.store.fleet_configs.fleet_config_state(table_id)
            if last is not None and _same(last["payload"], self.fleet, name, players, rnd):
                continue
            try:
                push(self.fleet, table_id, name=name, players=players, round=rnd, clock=self.clock)
            except FleetConfigError as exc:
                log.warning("round %s's seating not pushed to %s: %s", rnd, table_id, exc)
                return

    def welcome(self, admin: TournamentAdmin, table_id: str, name: str) -> None:
        """A table just approved: its first config, with the players the current round
        seats at it if it seats any (a table approved mid-event), else none yet."""
        with admin.lock:
            players, rnd = seated(admin.state).get(table_id, ({}, None))
        push(self.fleet, table_id, name=name, players=players, round=rnd, clock=self.clock)


def attach(
    admin: TournamentAdmin,
    fleet: FleetLike,
    name_of: Callable[[str], str | None],
    *,
    clock: Callable[[], float] = time.time,
) -> RoundPush:
    """Push the event's seating to the fleet from now on, and now (what changed while
    the director was down, or before the fleet was on)."""
    pusher = RoundPush(fleet, name_of, clock=clock)
    admin.listeners.append(pusher)
    with admin.lock:
        pusher("start", admin.state)
    return pusher


def _same(
    payload: Mapping[str, JSONValue],
    fleet: FleetLike,
    name: str,
    players: Mapping[str, str],
    rnd: int,
) -> bool:
    return (
        payload.get("players") == dict(players)
        and payload.get("round") == rnd
        and payload.get("name") == name
        and payload.get("rules") == fleet.rules
        and payload.get("options") == dict(fleet.options)
    )


__all__ = ["FleetConfigError", "FleetLike", "Publish", "RoundPush", "attach", "push", "seated"]
