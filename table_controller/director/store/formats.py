"""The event's format state (tournament/admin.py): the roster, rounds, brackets and results
as the directors last saved them, every version kept.

Why a part of its own: the format is the directors' own record, not anything a table
sent. It is append-only (the database refuses UPDATE and DELETE of its history), so
a correction is a new version that says who made it and why, and the audit log holds
the same change.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TypedDict

from table_controller.director.json_value import JSONObject, JSONValue
from table_controller.director.store.core import StoreCore

_LAST = 2**62  # no version is numbered above it (an open end of a range)


class FormatChange(TypedDict):
    """A version of the event's format state with who made it, when and why
    (``format_changes``); ``state`` is the whole event as saved."""

    at: float
    who: str
    action: str
    reason: str | None
    state: JSONObject


class FormatVersion(TypedDict):
    """A line of the event's format history (``format_history``): who, when, what, why."""

    version: int
    at: float
    who: str
    action: str
    reason: str | None


class Formats:
    """The history of the event's format state; the last version is the current one."""

    def __init__(self, core: StoreCore) -> None:
        self._core = core

    def add_format_state(
        self, who: str, action: str, reason: str | None, state: Mapping[str, JSONValue]
    ) -> int:
        """A new version of the event's format state (append-only), audited with it."""
        now = self._core.clock()
        text = json.dumps(dict(state), sort_keys=True)
        with self._core.tx() as conn:
            row = conn.execute(
                "INSERT INTO format_state (at, who, action, reason, state) VALUES (?, ?, ?, ?, ?)"
                " RETURNING id",
                (now, who, action, reason, text),
            ).one()
            version = int(row[0]) if row else 0
            conn.execute(
                "INSERT INTO audit (at, who, action, reason, detail) VALUES (?, ?, ?, ?, ?)",
                (now, who, f"format_{action}", reason, json.dumps({"version": version})),
            )
            return version

    def format_state(self) -> JSONObject | None:
        """The event's format state as last saved, or None before one is created."""
        rows = self._core.rows("SELECT state FROM format_state ORDER BY id DESC LIMIT 1")
        return dict(json.loads(rows[0][0])) if rows else None

    def format_versions(
        self, first: int = 0, last: int | None = None
    ) -> list[tuple[str, JSONObject]]:
        """Every version of the event (those numbered ``first`` to ``last``: one event
        of several in the store), oldest first: (its action, the whole state). The
        results' export reads which round a game's result went to from the version
        that took it."""
        return [
            (str(action), dict(json.loads(state)))
            for action, state in self._core.rows(
                "SELECT action, state FROM format_state WHERE id >= ? AND id <= ? ORDER BY id",
                (first, _LAST if last is None else last),
            )
        ]

    def format_changes(self, first: int = 0, last: int | None = None) -> list[FormatChange]:
        """Every version of the event (numbered ``first`` to ``last``) with who made it,
        when and why, oldest first: the results read a director's correction of a game
        from them."""
        return [
            FormatChange(at=at, who=who, action=action, reason=reason, state=json.loads(state))
            for at, who, action, reason, state in self._core.rows(
                "SELECT at, who, action, reason, state FROM format_state"
                " WHERE id >= ? AND id <= ? ORDER BY id",
                (first, _LAST if last is None else last),
            )
        ]

    def format_creations(self) -> list[tuple[int, float, JSONObject]]:
        """Each version that created an event (its number, when, the whole state),
        oldest first, and the last version's number as ``(last, 0, {})`` after them:
        where each of the store's events begins and ends (``tournament.catalog``)."""
        rows = self._core.rows(
            "SELECT id, at, state FROM format_state WHERE action = 'created' ORDER BY id"
        )
        out = [(int(i), float(at), dict(json.loads(state))) for i, at, state in rows]
        last = self._core.rows("SELECT max(id) FROM format_state")
        out.append((int(last[0][0] or 0), 0.0, {}))
        return out

    def format_state_before(self, version: int) -> JSONObject | None:
        """The last version numbered below ``version``: an event's state as it stood
        when the next one was created."""
        rows = self._core.rows(
            "SELECT state FROM format_state WHERE id < ? ORDER BY id DESC LIMIT 1", (version,)
        )
        return dict(json.loads(rows[0][0])) if rows else None

    def format_history(self, last: int | None = None) -> list[FormatVersion]:
        """Every change to the event's format: who, when, what, why (oldest first); the
        ``last`` ones only when given (the dashboard's summary, read at every snapshot)."""
        query = "SELECT id, at, who, action, reason FROM format_state ORDER BY id DESC"
        if last is None:
            rows = self._core.rows(query)
        else:
            rows = self._core.rows(query + " LIMIT ?", (last,))
        return [
            FormatVersion(version=version, at=at, who=who, action=action, reason=reason)
            for version, at, who, action, reason in reversed(rows)
        ]


__all__ = ["FormatChange", "FormatVersion", "Formats"]
