"""The tables' camera pictures the director asked for (the fleet view's "Show the
camera" and "Recalibrate"): the latest of each kind per table, with when it was asked,
when it came, and for a recalibration whether it worked and why not.

Why a part of its own: a picture is neither an event of the game nor the table's
status; it is the answer to one director's question, and only the latest matters (a
table's camera view from an hour ago is replaced by the next). It is kept in the store,
not in memory, so a dashboard opened later, or a director restarted, still shows the
last calibration's picture. Also here: when each table's last event arrived, which the
fleet view shows as the feed's lag.
"""

from __future__ import annotations

import json
import math
from typing import TypedDict

from table_controller.director.store.core import StoreCore

KINDS = ("camera-view", "recalibrate")


class PictureState(TypedDict):
    """A table's latest picture of one kind, without its bytes (``fleet_pictures``):
    when asked for, when taken, the table's verdict and words, whether there is one."""

    asked_at: float | None
    at: float | None
    ok: bool | None
    problem: str | None
    picture: bool


class FleetPictures:
    """The latest picture of each kind per table (``fleet_pictures``); ``camera_bytes``
    the largest kept (the director's limit camera_kb: a camera's whole frame as JPEG is
    a few hundred KB)."""

    def __init__(self, core: StoreCore, *, camera_bytes: int) -> None:
        self._core = core
        self._most = camera_bytes

    def fleet_asked(self, table: str, kind: str, at: float, *, who: str, order: str) -> None:
        """Director ``who`` asked ``table`` for a ``kind`` picture at ``at`` (the signed
        order ``order``): shown as waiting until the table answers (the last answer
        stays until then), and in the audit log."""
        _check_kind(kind)
        with self._core.tx() as conn:
            conn.execute(
                "INSERT INTO fleet_pictures (tbl, kind, asked_at) VALUES (?, ?, ?)"
                " ON CONFLICT (tbl, kind) DO UPDATE SET asked_at = excluded.asked_at",
                (table, kind, at),
            )
            conn.execute(
                "INSERT INTO audit (at, who, action, tbl, detail) VALUES (?, ?, ?, ?, ?)",
                (at, who, f"{kind.replace('-', '_')}_asked", table, json.dumps({"id": order})),
            )

    def fleet_picture_add(
        self,
        table: str,
        kind: str,
        *,
        at: float,
        ok: bool | None,
        problem: str | None,
        jpeg: bytes | None,
    ) -> bool:
        """The table's answer; False (nothing kept) when an answer as new or newer is
        already kept (a redelivered message, or one overtaken)."""
        _check_kind(kind)
        if not math.isfinite(at):
            raise ValueError("a picture's time is not a number")
        if jpeg is not None and len(jpeg) > self._most:
            raise ValueError(
                f"a picture of {len(jpeg) // 1024} KB is over the {self._most // 1024} KB a "
                "camera view may have (the director's limit camera_kb)"
            )
        with self._core.tx() as conn:
            row = conn.execute(
                "SELECT at FROM fleet_pictures WHERE tbl = ? AND kind = ?", (table, kind)
            ).one()
            if row is not None and row[0] is not None and float(row[0]) >= at:
                return False
            conn.execute(
                "INSERT INTO fleet_pictures (tbl, kind, at, ok, problem, jpeg)"
                " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (tbl, kind) DO UPDATE SET"
                " at = excluded.at, ok = excluded.ok, problem = excluded.problem,"
                " jpeg = excluded.jpeg",
                (table, kind, at, None if ok is None else int(ok), problem, jpeg),
            )
        return True

    def fleet_picture(self, table: str, kind: str) -> bytes | None:
        """The latest picture's bytes (JPEG), or None."""
        rows = self._core.rows(
            "SELECT jpeg FROM fleet_pictures WHERE tbl = ? AND kind = ?", (table, kind)
        )
        return bytes(rows[0][0]) if rows and rows[0][0] is not None else None

    def fleet_pictures(self) -> dict[str, dict[str, PictureState]]:
        """Per table, per kind: ``asked_at``, ``at``, ``ok``, ``problem``, ``picture``
        (whether there is one), without the bytes."""
        out: dict[str, dict[str, PictureState]] = {}
        for tbl, kind, asked_at, at, ok, problem, has in self._core.rows(
            "SELECT tbl, kind, asked_at, at, ok, problem, jpeg IS NOT NULL FROM fleet_pictures"
        ):
            out.setdefault(tbl, {})[kind] = {
                "asked_at": asked_at,
                "at": at,
                "ok": None if ok is None else bool(ok),
                "problem": problem,
                "picture": bool(has),
            }
        return out

    def last_events(self) -> dict[str, float]:
        """When (the director's clock) each table's latest stored event arrived."""
        return {
            str(tbl): float(at)
            for tbl, at in self._core.rows("SELECT tbl, max(received) FROM events GROUP BY tbl")
            if at is not None
        }


def _check_kind(kind: str) -> None:
    if kind not in KINDS:
        raise ValueError(f"{kind!r} is not a picture the fleet view asks for: {', '.join(KINDS)}")


__all__ = ["KINDS", "FleetPictures", "PictureState"]
