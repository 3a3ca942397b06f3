"""The rulings directors sent to tables, and each one's delivery (docs/feed.md,
"Rulings that always arrive"): stored and audited before it is published, sent again
until its table answers, and the answer (delivered, applied, refused) recorded once.

Why a part of its own: a ruling changes a game's score, so it must reach its table
whatever the network does, and every step of it must be in the append-only audit log
with who decided it and why. Nothing here reads the events or the alerts.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, TypedDict

from table_controller.director.json_value import JSONObject, JSONValue
from table_controller.director.store.core import StoreCore


class RulingRow(TypedDict):
    """A ruling with its delivery (``rulings()``): the signed payload as sent, the
    table's answer (``ack_ok`` None: none yet), its sends, and its ``state``: pending,
    delivered, applied or refused. ``game`` and ``hand`` are the payload's."""

    ruling_id: str
    table: str
    kind: str
    director: str
    reason: str
    at: float
    ack_ok: bool | None
    ack_problem: str | None
    ack_at: float | None
    payload: JSONObject
    sent_at: float | None
    sends: int | None
    delivered_at: float | None
    game: JSONValue
    hand: JSONValue
    state: str


class Rulings:
    """Every ruling sent, its sends and its table's answer."""

    def __init__(self, core: StoreCore) -> None:
        self._core = core

    def add_ruling(self, payload: Mapping[str, Any]) -> None:
        """A signed ruling about to be sent: stored and audited in one transaction."""
        now = self._core.clock()
        with self._core.tx() as conn:
            conn.execute(
                "INSERT INTO rulings (ruling_id, tbl, kind, payload, director, reason, at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    payload["ruling_id"],
                    payload["table"],
                    payload["kind"],
                    json.dumps(dict(payload), sort_keys=True),
                    payload["director"],
                    payload["reason"],
                    float(payload["at"]),
                ),
            )
            conn.execute(
                "INSERT INTO audit (at, who, action, tbl, ruling_id, reason, detail)"
                " VALUES (?, ?, 'ruling_sent', ?, ?, ?, ?)",
                (
                    now,
                    payload["director"],
                    payload["table"],
                    payload["ruling_id"],
                    payload["reason"],
                    json.dumps(dict(payload), sort_keys=True),
                ),
            )
            conn.execute(
                "INSERT INTO ruling_sends (ruling_id, tbl, sent_at, sends) VALUES (?, ?, ?, 1)",
                (payload["ruling_id"], payload["table"], now),
            )

    def add_ack(self, msg: Mapping[str, Any]) -> bool:
        """The table's answer to a ruling: that it has it (``state`` delivered), or that
        it applied or refused it, recorded on it and in the audit log once (a ruling sent
        again is answered again). False for an ack of a ruling this store never sent,
        sent to another table, or already answered (one never sent is recorded in the
        audit all the same)."""
        rid = str(msg.get("ruling_id"))
        table = str(msg.get("table"))  # a table answers its own rulings only
        now = self._core.clock()
        if msg.get("state") == "delivered":
            with self._core.tx() as conn:
                cur = conn.execute(
                    "UPDATE ruling_sends SET delivered_at = coalesce(delivered_at, ?)"
                    " WHERE ruling_id = ? AND tbl = ?",
                    (now, rid, table),
                )
                return cur.rowcount > 0
        ok = bool(msg.get("ok"))
        with self._core.tx() as conn:
            cur = conn.execute(
                "UPDATE rulings SET ack_ok = ?, ack_problem = ?, ack_at = ?"
                " WHERE ruling_id = ? AND tbl = ? AND ack_ok IS NULL",
                (int(ok), msg.get("problem"), float(msg.get("at") or now), rid, table),
            )
            if (
                not cur.rowcount
                and conn.execute("SELECT 1 FROM rulings WHERE ruling_id = ?", (rid,)).rows
            ):
                return False  # answered before: already recorded
            conn.execute(
                "INSERT INTO audit (at, who, action, tbl, ruling_id, reason, detail)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    now,
                    f"table {msg.get('table')}",
                    "ruling_applied" if ok else "ruling_refused",
                    msg.get("table"),
                    rid,
                    msg.get("problem"),
                    json.dumps(dict(msg), sort_keys=True),
                ),
            )
            return cur.rowcount > 0

    def unanswered(self, table: str | None = None) -> list[tuple[str, str, str, float]]:
        """(ruling_id, table, signed payload as JSON, last sent) of each ruling its table
        has not answered yet, oldest first: the director sends them again."""
        sql = (
            "SELECT r.ruling_id, r.tbl, r.payload, coalesce(s.sent_at, r.at) FROM rulings r"
            " LEFT JOIN ruling_sends s ON s.ruling_id = r.ruling_id WHERE r.ack_ok IS NULL"
        )
        params: tuple[str, ...] = ()
        if table is not None:
            sql += " AND r.tbl = ?"
            params = (table,)
        return [
            (str(a), str(b), str(c), float(d))
            for a, b, c, d in self._core.rows(sql + " ORDER BY r.at", params)
        ]

    def ruling_sent(self, ruling_id: str, table: str) -> None:
        """A ruling published again."""
        now = self._core.clock()
        with self._core.tx() as conn:
            cur = conn.execute(
                "UPDATE ruling_sends SET sent_at = ?, sends = sends + 1 WHERE ruling_id = ?",
                (now, ruling_id),
            )
            if not cur.rowcount:  # a ruling stored before deliveries were kept
                conn.execute(
                    "INSERT INTO ruling_sends (ruling_id, tbl, sent_at, sends) VALUES (?, ?, ?, 1)",
                    (ruling_id, table, now),
                )

    def rulings(self, table: str | None = None) -> list[RulingRow]:
        """Every ruling with its delivery: ``state`` is pending (stored, sent, the table
        has not said it has it), delivered, applied or refused (``ack_problem`` says why)."""
        sql = (
            "SELECT r.ruling_id, r.tbl, r.kind, r.director, r.reason, r.at, r.ack_ok,"
            " r.ack_problem, r.ack_at, r.payload, s.sent_at, s.sends, s.delivered_at"
            " FROM rulings r LEFT JOIN ruling_sends s ON s.ruling_id = r.ruling_id"
        )
        params: tuple[str, ...] = ()
        if table is not None:
            sql += " WHERE r.tbl = ?"
            params = (table,)
        out: list[RulingRow] = []
        for (
            rid,
            tbl,
            kind,
            director,
            reason,
            at,
            ack_ok,
            ack_problem,
            ack_at,
            payload,
            sent_at,
            sends,
            delivered_at,
        ) in self._core.rows(sql + " ORDER BY r.at", params):
            body = json.loads(payload)
            ok = None if ack_ok is None else bool(ack_ok)
            state = (
                "applied" if ok else
                "refused" if ok is False else
                "delivered" if delivered_at is not None else "pending"
            )  # fmt: skip
            out.append(
                RulingRow(
                    ruling_id=rid,
                    table=tbl,
                    kind=kind,
                    director=director,
                    reason=reason,
                    at=at,
                    ack_ok=ok,
                    ack_problem=ack_problem,
                    ack_at=ack_at,
                    payload=body,
                    sent_at=sent_at,
                    sends=sends,
                    delivered_at=delivered_at,
                    game=body.get("game"),
                    hand=body.get("hand"),
                    state=state,
                )
            )
        return out


__all__ = ["RulingRow", "Rulings"]
