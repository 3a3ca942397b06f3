"""The configs the director pushed to its fleet's tables (director/fleet/config.py), and
each table's answer: applied, waiting (taken, applied when the game in play ends) or
refused, with the table's words.

Why a part of its own: a config order carries a number (``seq``) that must rise per
table for as long as the event lasts, also across a director's restart, so the number
is taken from here, in the same transaction that keeps the order; and the fleet view
shows, per table, the last config sent and what the table said of it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import TypedDict

from table_controller.director.json_value import JSONObject
from table_controller.director.store.core import StoreCore
from table_controller.director.store.db import StoreError

CONFIG_STATES = ("sent", "applied", "waiting", "refused")  # "sent": no answer yet


class ConfigState(TypedDict):
    """The last config sent to a table and its answer (``fleet_config_state``):
    ``applied`` is the highest number the table applied (None: none yet)."""

    table: str
    seq: int
    payload: JSONObject
    sent_at: float
    state: str
    problem: str | None
    answered_at: float | None
    applied: int | None


class FleetConfigs:
    """Every config order sent, per table, and the table's last answer to each."""

    def __init__(self, core: StoreCore) -> None:
        self._core = core

    def fleet_config_add(
        self, table: str, build: Callable[[int], Mapping[str, object]], *, who: str = "director"
    ) -> dict[str, object]:
        """Keep a new config order for ``table``: ``build(seq)`` makes the signed order
        with the next number (one more than the last kept, 1 for the first), kept with
        it in one transaction and audited. Returns the order."""
        now = self._core.clock()
        with self._core.tx() as conn:
            row = conn.execute("SELECT MAX(seq) FROM fleet_configs WHERE tbl = ?", (table,)).one()
            seq = int(row[0]) + 1 if row is not None and row[0] is not None else 1
            order = dict(build(seq))
            if order.get("seq") != seq or order.get("table") != table:
                raise StoreError("a config order must carry the table and number it was given")
            conn.execute(
                "INSERT INTO fleet_configs (tbl, seq, payload, sent_at, state)"
                " VALUES (?, ?, ?, ?, 'sent')",
                (table, seq, json.dumps(order, sort_keys=True), now),
            )
            conn.execute(
                "INSERT INTO audit (at, who, action, tbl, reason, detail)"
                " VALUES (?, ?, 'config_sent', ?, ?, ?)",
                (now, who, table, f"config {seq}", json.dumps({"seq": seq})),
            )
        return order

    def fleet_config_answer(
        self, table: str, seq: int, state: str, problem: str | None, at: float
    ) -> bool:
        """The table's answer to its config ``seq``; False when no such config was sent
        (an answer to another director's, or to a config since forgotten)."""
        if state not in CONFIG_STATES[1:]:
            raise StoreError(
                f"a table answers a config with {', '.join(CONFIG_STATES[1:])}, not {state!r}"
            )
        with self._core.tx() as conn:
            done = conn.execute(
                "UPDATE fleet_configs SET state = ?, problem = ?, answered_at = ?"
                " WHERE tbl = ? AND seq = ?",
                (state, problem, at, table, seq),
            )
            return done.rowcount > 0

    def fleet_config_state(self, table: str) -> ConfigState | None:
        """The last config sent to ``table`` and its answer, or None before any:
        ``{"table","seq","payload","sent_at","state","problem","answered_at",
        "applied"}``, ``applied`` being the highest number the table applied (None)."""
        rows = self._core.rows(
            "SELECT tbl, seq, payload, sent_at, state, problem, answered_at FROM fleet_configs"
            " WHERE tbl = ? ORDER BY seq DESC LIMIT 1",
            (table,),
        )
        if not rows:
            return None
        tbl, seq, payload, sent_at, state, problem, answered_at = rows[0]
        applied = self._core.rows(
            "SELECT MAX(seq) FROM fleet_configs WHERE tbl = ? AND state = 'applied'", (table,)
        )
        return ConfigState(
            table=tbl,
            seq=seq,
            payload=json.loads(payload),
            sent_at=sent_at,
            state=state,
            problem=problem,
            answered_at=answered_at,
            applied=applied[0][0] if applied else None,
        )


__all__ = ["CONFIG_STATES", "ConfigState", "FleetConfigs"]
