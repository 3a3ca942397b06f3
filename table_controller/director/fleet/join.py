"""Approving a table that asked to join, and removing one.

Approving checks the code the director typed against the one the request's key gives
(the code the table shows), refuses while another waiting request shows the same code or
while two machines ask with the request's key (a copied SD card,
director/fleet/machines.py), and checks the name the director gives (a name a table may
have, not one an approved table has). Only then are the table's broker credentials made
(``TableCredentials.add_table``) with its signing key (feed/table_signing.py: made here,
its private half sent in the bundle only, its public half registered, enforced from the
table's first signed message), the table recorded (and audited), and its bundle sealed
to its key: the table's poll fetches it.

Removing deletes the table's broker login (its connection is dropped, its password
refused), marks it removed (audited), and clears the config retained for it on the
broker, so nothing waits there for a table that is gone.
"""

from __future__ import annotations

import base64
import json
import logging

from table_controller.director.fleet.core import Fleet, FleetError
from table_controller.director.fleet.machines import ON_EACH_COPY, TWIN_WINDOW
from table_controller.director.store import StoreError
from table_controller.errors import TableControllerError
from table_controller.feed.messages import Topics, name_problem, table_id
from table_controller.feed.table_signing import new_table_key
from table_controller.fleet.sealing import Bundle, seal, sign_bundle

MAX_NAME = 60

log = logging.getLogger(__name__)


def approve(
    fleet: Fleet, request: str, code: str, name: str, *, who: str, now: float
) -> dict[str, str]:
    """Approve ``request`` named ``name`` when ``code`` is the one the table shows:
    ``{"table": id, "name": name}``; FleetError (404, 409, 400, 503) in words."""
    with fleet.changing:
        return _approve(fleet, request, code, name, who=who, now=now)


def _approve(
    fleet: Fleet, request: str, code: str, name: str, *, who: str, now: float
) -> dict[str, str]:
    r = fleet.requests.get(request)
    if r is None:
        raise FleetError(
            404,
            "that table's request to join is no longer waiting (it expired after 15 minutes, "
            "or the director restarted)",
            "the table asks again by itself; reload the page",
        )
    if r.state != "waiting":
        raise FleetError(409, f"that request was already {r.state}", "reload the page")
    code = code.strip()
    if code != r.code:
        raise FleetError(
            409,
            f"the code {code[:8]!r} does not match the code this table shows",
            "read the code on the table's screen (or its cube) again and type it",
        )
    if fleet.requests.same_code(r):
        raise FleetError(
            409,
            f"two tables asking to join show the same code {r.code}",
            "refuse the one you do not recognise (check its address), or wait for one "
            "of them to ask again with a new code",
        )
    asking = fleet.requests.asking(r)
    if asking:
        raise FleetError(
            409,
            f"{len(asking)} tables ask with this code: a copied card",
            f"on each copy, {ON_EACH_COPY}; approve this code once only one table asks with it",
        )
    name = " ".join(name.split())
    if not name or len(name) > MAX_NAME:
        raise FleetError(400, f"a table's name is 1 to {MAX_NAME} characters", "e.g. Table 7")
    problem = name_problem(name)
    if problem is not None:
        raise FleetError(400, problem, "choose another name")
    tid = table_id(name)
    for t in fleet.store.fleet.fleet_tables():
        if t["id"] == tid:
            raise FleetError(
                409,
                f"the name {name!r} is taken (table {t['name']!r} has it)",
                "choose another name, e.g. the next table number",
            )
    try:
        password = fleet.credentials.add_table(tid)
    except TableControllerError as exc:
        raise FleetError(
            503, f"the broker did not make the table's login ({exc})", "try again"
        ) from None
    signing = new_table_key()
    bundle: Bundle = {
        "table": tid,
        "name": name,
        "username": tid,
        "password": password,
        "broker_port": fleet.broker_port,
        "topic": fleet.topic,
        "event": fleet.event,
        "rules": fleet.rules,
        "options": fleet.options,
        "director_key": fleet.public_pem.decode(),
        # The table's own signing key, sealed to it with the rest: the director keeps
        # only its public half (registered below), not this one.
        "signing_key": signing.private_pem.decode("ascii"),
        # The event's CA: the table checks the broker and the dashboard against it
        # alone ("" when the director runs --insecure: then it connects in clear).
        "ca": fleet.ca_pem,
    }
    signed = sign_bundle(bundle, fleet.private_pem, r.key)
    sealed = seal(r.key, json.dumps(signed, sort_keys=True).encode())
    try:
        fleet.store.fleet.fleet_approve(
            tid,
            name,
            r.host,
            r.address,
            r.version,
            base64.b64encode(r.key).decode(),
            now,
            who=who,
        )
        if r.machines:  # the machine that asked last: the table's first
            m = max(r.machines.values(), key=lambda m: m["last_seen"])
            fleet.store.machines.heard(
                tid, m["machine"], m["source"], m["last_seen"], gap=TWIN_WINDOW
            )
        fleet.store.keys.register_key(
            tid,
            signing.public_pem.decode("ascii"),
            source="fleet approval",
            enforced=False,  # a table of an older release ignores it: from its first signed
            who=who,
        )
    except StoreError as exc:
        raise FleetError(503, str(exc), "nothing was approved; try again") from None
    fleet.requests.approve(r, base64.b64encode(sealed).decode())
    if fleet.on_approved is not None:
        try:  # approved all the same: the config goes when the event changes next
            fleet.on_approved(tid, name)
        except Exception:
            log.exception("the first config of %s could not be pushed", tid)
    return {"table": tid, "name": name}


def refuse(fleet: Fleet, request: str, reason: str) -> None:
    """The request refused: the table is told ``reason`` and stops asking."""
    r = fleet.requests.get(request)
    if r is None or r.state != "waiting":
        raise FleetError(404, "that request is no longer waiting", "reload the page")
    fleet.requests.refuse(r, reason.strip()[:300] or "the director refused this table")


def remove(fleet: Fleet, table: str, *, who: str, now: float) -> dict[str, str]:
    """Table ``table`` removed: its broker login deleted, marked removed (audited), its
    retained config cleared. ``{"removed": id}``; FleetError (404, 503) in words."""
    with fleet.changing:
        return _remove(fleet, table, who=who, now=now)


def _remove(fleet: Fleet, table: str, *, who: str, now: float) -> dict[str, str]:
    known = fleet.store.fleet.fleet_table(table)
    if known is None or known["removed_at"] is not None:
        raise FleetError(404, f"there is no approved table {table[:80]!r}", "reload the fleet page")
    try:
        fleet.credentials.remove_table(table)
    except TableControllerError as exc:
        raise FleetError(
            503,
            f"the broker did not delete {known['name']}'s login ({exc})",
            "nothing was removed; try again",
        ) from None
    fleet.store.fleet.fleet_remove(table, now, who=who)
    if fleet.publish is not None:
        try:  # an empty retained payload deletes the retained message
            fleet.publish(Topics(fleet.prefix).config(table), b"", True)
        except Exception:  # the table is removed all the same: its login is gone
            log.exception("the retained config of %s could not be cleared", table)
    return {"removed": table}


__all__ = ["MAX_NAME", "approve", "refuse", "remove"]
