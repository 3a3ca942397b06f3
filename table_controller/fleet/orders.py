"""Signed orders from the director to one table: its config, and commands.

A ruling changes a game (feed/signing.py); an order changes the table itself: the
config the director pushes (the table's name, the event's rules, the players seated
there) and the commands it asks for (show the camera, recalibrate, update). They come
the same way: signed by the director's Ed25519 key over the canonical JSON of every
field but ``"sig"``, naming the table and the moment they were made, so another table's
order, one signed by another key, or one replayed long after it was made is refused,
each in words a director can act on.

A config is retained on the broker (a table that starts reads the last one), so it
stays valid for the length of an event (``CONFIG_MAX_AGE``) and an older one is told
apart by its ``seq``, which rises per table. A command is asked for now: it is valid for
minutes (``COMMAND_MAX_AGE``), and taken once by its ``id`` (``seen``).
"""

from __future__ import annotations

import base64
import binascii
import json
import math
from collections.abc import Container, Mapping
from typing import Any, NotRequired, TypeAlias, TypedDict, TypeVar

from cryptography.exceptions import InvalidSignature

from table_controller.errors import TableControllerError
from table_controller.feed.signing import FUTURE, _private_key, canonical, load_public_key

VERSION = 1
CONFIG = "config"
COMMANDS = "commands"
_COMMON = frozenset({"v", "sig", "kind", "table", "id", "at"})
# Every kind of order a table knows, and the fields it may carry beyond the common ones.
# A kind added by a later part (a new command) is added here, with its fields.
FIELDS: dict[str, frozenset[str]] = {
    CONFIG: frozenset({"seq", "name", "event", "rules", "options", "players", "round"}),
    "camera-view": frozenset(),
    "recalibrate": frozenset(),
    # The signed release record: the version, its wheel's sha256, until when it may be
    # taken, and whether it is a rollback to an older version (table/fleet/update_agent.py).
    "update": frozenset({"version", "url", "sha256", "expires", "downgrade"}),
}
SEATS = ("N", "E", "S", "W")
CONFIG_MAX_AGE = 14 * 24 * 3600.0  # a retained config lasts the event (its seq orders it)
COMMAND_MAX_AGE = 600.0  # a command is for now: a camera view asked an hour ago is not
ID_MAX = 80


# A JSON value as an order carries it (the config's rules options): the same union as
# the director's own alias (director/json_value.py), named here because the protocol sits
# below the director and cannot import it.
JSONValue: TypeAlias = "str | int | float | bool | list[JSONValue] | dict[str, JSONValue] | None"


class OrderRejected(TableControllerError, ValueError):
    """An order the table must not follow; the message says why and what to do."""


class Order(TypedDict):
    """The fields every order carries (``_COMMON``); a camera command is no more than
    this. ``v`` and ``sig`` are added by ``sign_order``."""

    kind: str
    table: str
    id: str
    at: float
    v: NotRequired[int]
    sig: NotRequired[str]


class ConfigOrder(Order):
    """A config (``FIELDS["config"]``): the table's name, the event's rules and options,
    the players by seat letter, the round that seats them (None: none yet)."""

    seq: int
    name: str
    event: str
    rules: str
    options: dict[str, JSONValue]
    players: dict[str, str]
    round: int | None


class UpdateOrder(Order):
    """An update (``FIELDS["update"]``): the signed release record, read on the table by
    fleet/update_order.py's ``ReleaseRecord``."""

    version: str
    url: str
    sha256: str
    expires: float
    downgrade: bool


AnOrder = TypeVar("AnOrder", bound=Order)


def sign_order(payload: AnOrder, private_pem: bytes) -> AnOrder:
    """The order to publish: ``payload`` (with its ``kind``, ``table``, ``id``, ``at``),
    ``"v": 1`` and ``"sig"`` over the rest. ValueError when a common field is missing."""
    missing = [k for k in ("kind", "table", "id", "at") if k not in payload]
    if missing:
        raise ValueError(f"an order needs {', '.join(missing)}: the director's code is faulty")
    order = payload.copy()
    if "v" in order:  # an order signed before: signed again from its fields alone
        del order["v"]
    if "sig" in order:
        del order["sig"]
    order["v"] = VERSION
    order["at"] = float(order["at"])
    sig = _private_key(private_pem).sign(canonical(order))
    order["sig"] = base64.b64encode(sig).decode("ascii")
    return order


def verify_order(
    payload: Any,
    public_pem: bytes,
    *,
    table: str,
    kind: str,
    now: float,
    max_age: float | None = None,
    future: float = FUTURE,
    last_seq: int | None = None,
    seen: Container[str] | None = None,
) -> dict[str, Any]:
    """The order, if the director's key signed it for this table recently enough.

    ``kind`` is what the table expects: ``"config"`` (the config topic), ``"commands"``
    (any command kind: the commands topic), or one kind of order. ``payload`` may be the
    message's bytes or text (it must then be a JSON object). ``last_seq``: the seq of the
    config the table holds, refusing an older one (the same one is let through: a
    retained config comes again at every connection). ``seen``: the ids of commands
    already taken. ``max_age``: by default ``CONFIG_MAX_AGE`` for a config and
    ``COMMAND_MAX_AGE`` for a command. Raises OrderRejected in words.
    """
    order = _object(payload)
    if order.get("v") != VERSION:
        raise OrderRejected(
            f"the director's order is version {order.get('v')!r} and this table reads "
            f"version {VERSION}: update the table's or the director's software so they match"
        )
    got = order.get("kind")
    if not isinstance(got, str) or got not in FIELDS:
        raise OrderRejected(
            f"the director's order is of a kind this table does not know ({got!r}): "
            "update the table's software to the director's version"
        )
    _expect(got, kind)
    unknown = sorted(set(order) - _COMMON - FIELDS[got])
    if unknown:
        raise OrderRejected(
            f"the director's {_shown(got)} has fields this table does not know "
            f"({', '.join(unknown)}): update the table's software to the director's version"
        )
    _check_signature(order, public_pem, got)
    # Signed by the director: now check it is meant for this table, now.
    for key in ("table", "id"):
        value = order.get(key)
        if not isinstance(value, str) or not value.strip() or len(value) > ID_MAX:
            raise OrderRejected(
                f"the director's {_shown(got)} has no {key!r} this table can read: "
                "update the director's software"
            )
    if order["table"] != table:
        raise OrderRejected(
            f"the director's {_shown(got)} is for table {order['table']!r}, not this table "
            f"{table!r}: this table holds another table's membership; remove it on the "
            "dashboard's fleet page and join again"
        )
    at = order.get("at")
    if isinstance(at, bool) or not isinstance(at, int | float) or not math.isfinite(at):
        raise OrderRejected(
            f"the director's {_shown(got)} has no time 'at': update the director's software"
        )
    limit = max_age if max_age is not None else CONFIG_MAX_AGE if got == CONFIG else COMMAND_MAX_AGE
    age = now - float(at)
    if age > limit:
        raise OrderRejected(
            f"the director's {_shown(got)} was made {_duration(age)} ago, more than the "
            f"{_duration(limit)} it stays valid (an old order sent again is refused): "
            "send it again from the dashboard, and check this table's clock"
        )
    if age < -future:
        raise OrderRejected(
            f"the director's {_shown(got)} is dated {_duration(-age)} in the future: this "
            "table's clock or the director's is wrong; set both right (NTP), then send it again"
        )
    if got == CONFIG:
        _check_config(order, last_seq)
    elif seen is not None and order["id"] in seen:
        raise OrderRejected(
            f"the director's {_shown(got)} {order['id']!r} was taken already: "
            "it is done once (ask again from the dashboard for a new one)"
        )
    return dict(order)


def _object(payload: Any) -> dict[str, Any]:
    if isinstance(payload, bytes | bytearray | str):
        try:
            payload = json.loads(payload)
        except (ValueError, UnicodeDecodeError) as e:
            raise OrderRejected(
                "the director's order is not JSON: it was not sent by the director's "
                "dashboard (or arrived damaged); send it again from the dashboard"
            ) from e
    if not isinstance(payload, Mapping):
        raise OrderRejected(
            "the director's order is not a JSON object: it was not sent by the director's "
            "dashboard; send it again from there"
        )
    return dict(payload)


def _expect(got: str, kind: str) -> None:
    if not (got != CONFIG if kind == COMMANDS else got == kind):
        raise OrderRejected(
            f"the director's order is a {_shown(got)} and came where a "
            f"{'command' if kind == COMMANDS else _shown(kind)} was expected: "
            "update the director's software"
        )


def _check_signature(order: Mapping[str, Any], public_pem: bytes, kind: str) -> None:
    sig_text = order.get("sig")
    if not isinstance(sig_text, str):
        raise OrderRejected(
            f"the director's {_shown(kind)} is not signed: only orders sent from the "
            "event's dashboard count"
        )
    try:
        sig = base64.b64decode(sig_text, validate=True)
    except (binascii.Error, ValueError) as e:
        raise OrderRejected(
            f"the {_shown(kind)}'s signature is not valid base64: it was not sent from "
            "the event's dashboard"
        ) from e
    try:
        key = load_public_key(public_pem)
    except ValueError as e:
        raise OrderRejected(str(e)) from e
    try:
        key.verify(sig, canonical(order))
    except InvalidSignature as e:
        raise OrderRejected(
            f"the {_shown(kind)}'s signature does not match the director's key: it was "
            "not sent from this event's dashboard, or this table joined another event "
            "(remove it on the dashboard's fleet page and join again)"
        ) from e


def _check_config(order: Mapping[str, Any], last_seq: int | None) -> None:
    seq = order.get("seq")
    if isinstance(seq, bool) or not isinstance(seq, int) or not 0 <= seq < 2**53:
        raise OrderRejected(
            f"the config's number (seq) {seq!r} is not a whole number: "
            "update the director's software"
        )
    if last_seq is not None and seq < last_seq:
        raise OrderRejected(
            f"the config is number {seq}, older than number {last_seq} this table holds "
            "(an old config sent again): the table keeps the newer one"
        )
    for key in ("name", "event", "rules"):
        value = order.get(key)
        if not isinstance(value, str) or not value.strip():
            raise OrderRejected(
                f"the config has no {key} this table can read: update the director's software"
            )
    if not isinstance(order.get("options"), Mapping):
        raise OrderRejected(
            "the config's rules options are not a JSON object: update the director's software"
        )
    players = order.get("players")
    if not isinstance(players, Mapping) or not set(players) <= set(SEATS):
        raise OrderRejected(
            "the config's players are not named by seat (N, E, S, W): "
            "update the director's software"
        )
    if not all(isinstance(v, str) and v.strip() for v in players.values()):
        raise OrderRejected(
            "the config names a player with an empty or unreadable name: "
            "seat the players again on the dashboard"
        )
    rnd = order.get("round")
    if rnd is not None and (isinstance(rnd, bool) or not isinstance(rnd, int) or rnd < 0):
        raise OrderRejected(
            f"the config's round {rnd!r} is not a round number: update the director's software"
        )


def _shown(kind: str) -> str:
    return "config" if kind == CONFIG else f"{kind!r} command"


def _duration(seconds: float) -> str:
    s = abs(seconds)
    if s < 120:
        return f"{s:.0f} s"
    if s < 7200:
        return f"{s / 60:.0f} minutes"
    if s < 2 * 86400:
        return f"{s / 3600:.0f} hours"
    return f"{s / 86400:.0f} days"


__all__ = [
    "COMMANDS",
    "COMMAND_MAX_AGE",
    "CONFIG",
    "CONFIG_MAX_AGE",
    "FIELDS",
    "ConfigOrder",
    "JSONValue",
    "Order",
    "OrderRejected",
    "UpdateOrder",
    "sign_order",
    "verify_order",
]
