"""An update order as both sides of the fleet read it: the director signs a release
record and sends it (director/fleet/update.py), the table checks it before it fetches
anything (table/fleet/update_agent.py); both read a table's heartbeat to know it is
between games, and compare versions the same way.

Why here and not with the table's update agent: the director rolls a release out with
these very checks (one table at a time, each between games, done when it runs the
version), and the director takes nothing from the table's side of the fleet.

A table says how an update goes on ``fleet(table, "update")`` (``UpdateProgress``),
which the director keeps as the table's latest word.

The record is what the director signed for one update (``ReleaseRecord``: version,
sha256, expiry, and whether it is a rollback to an older version the director asked
for): an expired record, one valid for longer than ``RECORD_MAX_LIFE`` or one whose
SHA-256 is not 64 hex digits is refused in words, with ``update.UpdateRefused``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypedDict

from packaging.version import InvalidVersion, Version

from table_controller.fleet.update import UpdateRefused

RECORD_MAX_LIFE = 3600.0  # a release record valid for longer than this is refused
_SHA256 = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class ReleaseRecord:
    """What the director signed for one update: which release (its version and the
    sha256 of its wheel, the only thing that makes the plain-HTTP download trusted),
    until when the order may be taken, and whether it is a rollback to an older
    version the director asked for in so many words."""

    id: str
    version: str
    url: str
    sha256: str
    expires: float
    downgrade: bool

    @classmethod
    def of(cls, order: Mapping[str, Any], *, now: float) -> ReleaseRecord:
        """The record of a verified ``update`` order; UpdateRefused in words when a field
        is missing or it has expired."""
        version, url, sha = order.get("version"), order.get("url"), order.get("sha256")
        expires, at, downgrade = order.get("expires"), order.get("at"), order.get("downgrade")
        if not (isinstance(version, str) and isinstance(url, str) and isinstance(sha, str)):
            raise UpdateRefused(
                "the director's update order names no version, address or SHA-256 this "
                "table can read: update the director's software"
            )
        if not _SHA256.fullmatch(sha):
            raise UpdateRefused(
                f"the director's update order's SHA-256 {sha[:80]!r} is not 64 hex digits: "
                "update the director's software"
            )
        if (
            isinstance(expires, bool) or not isinstance(expires, int | float)
            or not math.isfinite(expires) or not isinstance(at, int | float)
            or not isinstance(downgrade, bool)
        ):  # fmt: skip
            raise UpdateRefused(
                "the director's update order has no expiry or no word on going back to an "
                "older version (a director older than this table signed it): update the "
                "director's software, then run the update again"
            )
        if expires - float(at) > RECORD_MAX_LIFE:
            raise UpdateRefused(
                f"the director's update order stays valid for {(expires - at) / 60:.0f} "
                f"minutes, more than the {RECORD_MAX_LIFE / 60:.0f} this table accepts: "
                "update the director's software"
            )
        if now > expires:
            raise UpdateRefused(
                f"the director's update order to version {version} expired "
                f"{now - expires:.0f} s ago (an old order sent again is refused): run the "
                "update again from the director, and check this table's clock"
            )
        return cls(str(order["id"]), version, url, sha, float(expires), downgrade)


class UpdateProgress(TypedDict):
    """A table's word on one update, on ``fleet(table, "update")``."""

    table: str
    # The order's id and version as they came: a refused order's may be any JSON value,
    # a confirmed release's are read back from the table's own files.
    id: object
    version: object
    running: str  # the version the table runs
    state: str  # waiting, downloading, installing, restarting, running, rolled-back, refused
    problem: str | None  # in words, when refused or rolled back
    at: float  # the table's wall clock


def between_games(status: Mapping[str, Any]) -> bool:
    """No game in progress at a table whose heartbeat (or TableCore.status) is
    ``status``: the last game is over, or the next has not had its first deal."""
    phase = status.get("phase")
    if phase in (None, "over"):
        return True
    return phase == "choosing_dealer" and status.get("hand") is None


def same_version(a: object, b: object) -> bool:
    try:
        return Version(str(a)) == Version(str(b))
    except InvalidVersion:
        return a == b


__all__ = ["RECORD_MAX_LIFE", "ReleaseRecord", "UpdateProgress", "between_games", "same_version"]
