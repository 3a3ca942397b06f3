"""The director's alert queue: what needs a director's eyes (a renege claimed or
proven, an irregularity, a table offline, a camera or cube fault), raised as the
messages that cause it are stored, and opened, acknowledged and closed by directors.

Why a part of its own: alerts are raised from several kinds of message (events,
statuses, a table gone silent) inside those messages' own transactions, and each has a
unique key, so a message the broker delivers twice never raises its alert twice.
Every change of an alert's state is in the audit log with who and why.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from typing import TypedDict

from table_controller.director.json_value import JSONObject, JSONValue
from table_controller.director.store.core import StoreCore
from table_controller.director.store.db import Database, StoreError
from table_controller.director.words import (
    CLOCK_LIMIT,
    clock_compared,
    irregularity_sentence,
    renege_event,
    seat_label,
)
from table_controller.present import renege_sentence

FAULT_KINDS = {"camera": "camera_fault", "calibration": "camera_fault", "cube": "cube_fault"}
ALERT_KINDS = (
    "renege_proven",
    "renege_claimed",
    "irregularity_found",
    "table_offline",
    "camera_fault",
    "cube_fault",
    "clock",
    "game_reused",
    "signature",
    "replay",
    "flood",
    "copied_card",
)
ALERT_STATES = ("open", "acknowledged", "closed")


class Fault(TypedDict, total=False):
    """One of a status's faults (docs/feed.md, "status"): a device's problem and its fix."""

    device: str
    what: str
    problem: str
    fix: str
    since: float


class AlertRow(TypedDict):
    """An alert as the dashboard, the rulings and the exports read it (``alerts()``)."""

    id: int
    kind: str
    table: str
    game: int | None
    seq: int | None
    at: float
    text: str
    state: str
    who: str | None


class Alerts:
    """The alert queue. The methods that take ``conn`` write inside the caller's
    transaction (``StoreCore.tx``): the alert goes in with the message that raised it."""

    def __init__(self, core: StoreCore) -> None:
        self._core = core

    # --- reading and directors' changes ---------------------------------------------

    def alerts(self, *, states: tuple[str, ...] = ("open", "acknowledged")) -> list[AlertRow]:
        marks = ",".join("?" * len(states))
        rows = self._core.rows(
            "SELECT id, kind, tbl, game, seq, at, text, state, who FROM alerts"
            f" WHERE state IN ({marks}) ORDER BY id",
            tuple(states),
        )
        return [
            AlertRow(
                id=id_,
                kind=kind,
                table=tbl,
                game=game,
                seq=seq,
                at=at,
                text=text,
                state=state,
                who=who,
            )
            for id_, kind, tbl, game, seq, at, text, state, who in rows
        ]

    def set_alert(self, alert_id: int, state: str, who: str, reason: str | None = None) -> None:
        if state not in ALERT_STATES:
            raise StoreError(f"an alert is {', '.join(ALERT_STATES)}, not {state!r}")
        with self._core.tx() as conn:
            if conn.execute("SELECT 1 FROM alerts WHERE id = ?", (alert_id,)).one() is None:
                raise StoreError(f"there is no alert {alert_id}: reload the dashboard")
            self.set_state(conn, alert_id, state, who, self._core.clock(), reason)

    # --- raised and closed as messages are stored -------------------------------------

    def raise_for_event(
        self,
        conn: Database,
        table: str,
        game: int,
        seq: int,
        inp: JSONObject,
        outputs: Sequence[JSONValue],
        at: float,
    ) -> list[int]:
        """The alerts one stored event raises (``event_alerts``), each once."""
        raised: list[int] = []
        for kind, text in event_alerts(inp, outputs):
            alert = self.raise_alert(
                conn,
                f"{kind}:{table}:{game}:{seq}:{len(raised)}",
                kind,
                table,
                text,
                at,
                game=game,
                seq=seq,
            )
            if alert is not None:
                raised.append(alert)
        return raised

    def faults(
        self, conn: Database, table: str, faults: Iterable[Fault] | None, at: float, now: float
    ) -> list[int]:
        """A status's faults (camera, cube): each raised once, and every open fault
        alert of the table the status no longer names closed."""
        raised: list[int] = []
        keys = set()
        for f in [f for f in faults or [] if isinstance(f, dict)]:
            kind = FAULT_KINDS.get(str(f.get("device")))
            if kind is None:
                continue
            key = f"{kind}:{table}:{f.get('device')}:{f.get('since')}"
            keys.add(key)
            words = f"{f.get('what', f.get('device'))}: {f.get('problem')} ({f.get('fix')})"
            alert = self.raise_alert(conn, key, kind, table, words, at)
            if alert is not None:
                raised.append(alert)
        for aid, key in conn.execute(
            "SELECT id, key FROM alerts WHERE tbl = ? AND kind IN ('camera_fault',"
            " 'cube_fault') AND state != 'closed'",
            (table,),
        ).rows:
            if key not in keys:
                self.set_state(conn, aid, "closed", "table", now)
        return raised

    def offline(self, conn: Database, table: str, why: str, at: float) -> int | None:
        """The table is offline: one alert, unless one is open already."""
        open_ = conn.execute(
            "SELECT 1 FROM alerts WHERE tbl = ? AND kind = 'table_offline' AND state != 'closed'",
            (table,),
        ).one()
        if open_:
            return None
        text = f"{table} is offline: {why}. Check its power and network."
        return self.raise_alert(
            conn, f"table_offline:{table}:{at}", "table_offline", table, text, at
        )

    def clock(
        self, conn: Database, table: str, offset: float, at: float, now: float, *, sure: bool
    ) -> int | None:
        """The table's clock offset (seconds, + ahead): beyond ``CLOCK_LIMIT`` one alert
        (unless one is open already); within it, the open one is closed, by itself, as
        a fault the table no longer reports is. The text begins with the table's id,
        which the dashboard replaces with its name. ``sure``: enough samples to raise
        one (a single late heartbeat is not a wrong clock); closing needs only one."""
        if abs(offset) <= CLOCK_LIMIT:
            self.close_alerts(
                conn, table, "clock", f"the table's clock is within {CLOCK_LIMIT:g} s", now
            )
            return None
        open_ = conn.execute(
            "SELECT 1 FROM alerts WHERE tbl = ? AND kind = 'clock' AND state != 'closed'",
            (table,),
        ).one()
        if open_ or not sure:
            return None
        text = (
            f"{table}'s clock is {clock_compared(offset)}: evidence times and"
            " latency figures are off. On the table: `sudo timedatectl set-ntp true`, or"
            " check its network time"
        )
        return self.raise_alert(conn, f"clock:{table}:{at}", "clock", table, text, at)

    def alert_once(self, table: str, kind: str, key: str, text: str, at: float) -> int | None:
        """An alert about ``table`` in its own transaction, unless one of ``kind`` for it
        is open: a stream of bad messages raises one alert, not one per message."""
        with self._core.tx() as conn:
            open_ = conn.execute(
                "SELECT 1 FROM alerts WHERE tbl = ? AND kind = ? AND state != 'closed'",
                (table, kind),
            ).one()
            if open_:
                return None
            return self.raise_alert(conn, f"{kind}:{table}:{key}:{at}", kind, table, text, at)

    def raise_alert(
        self,
        conn: Database,
        key: str,
        kind: str,
        table: str,
        text: str,
        at: float,
        *,
        game: int | None = None,
        seq: int | None = None,
    ) -> int | None:
        """A new open alert, or None if one with ``key`` was raised before."""
        cur = conn.execute(
            "INSERT INTO alerts (key, kind, tbl, game, seq, at, text, state)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, 'open') ON CONFLICT DO NOTHING RETURNING id",
            (key, kind, table, game, seq, at, text),
        )
        row = cur.one()
        return None if row is None else int(row[0])

    def close_alerts(self, conn: Database, table: str, kind: str, why: str, now: float) -> None:
        for (aid,) in conn.execute(
            "SELECT id FROM alerts WHERE tbl = ? AND kind = ? AND state != 'closed'",
            (table, kind),
        ).rows:
            self.set_state(conn, aid, "closed", "table", now, why)

    def set_state(
        self,
        conn: Database,
        aid: int,
        state: str,
        who: str,
        now: float,
        reason: str | None = None,
    ) -> None:
        """An alert's new state, and the change in the audit log."""
        conn.execute(
            "UPDATE alerts SET state = ?, who = ?, changed = ? WHERE id = ?", (state, who, now, aid)
        )
        row = conn.execute("SELECT tbl, kind FROM alerts WHERE id = ?", (aid,)).one()
        if row is None:
            return
        detail = json.dumps({"alert": aid, "kind": row[1]})
        conn.execute(
            "INSERT INTO audit (at, who, action, tbl, reason, detail) VALUES (?, ?, ?, ?, ?, ?)",
            (now, who, f"alert_{state}", row[0], reason, detail),
        )


def event_alerts(inp: JSONObject, outputs: Sequence[JSONValue]) -> Iterator[tuple[str, str]]:
    """The alerts one event raises: a renege claimed (an input), a renege proven or an
    irregularity found (outputs), in words for the director (seats by their names, cards
    by their faces; the dashboard adds the table's and the players' names)."""
    if inp.get("event") == "renege_claimed":
        trick = inp.get("trick")
        where = f" in trick {trick}" if isinstance(trick, int) else ""
        yield (
            "renege_claimed",
            f"{seat_label({}, inp.get('by'))} claims {seat_label({}, inp.get('against'))} "
            f"reneged{where}",
        )
    for o in outputs:
        if not isinstance(o, dict):
            continue
        if o.get("event") == "renege_proven":
            ev = renege_event(o)
            text = (
                f"renege proven in hand {ev.hand}: {renege_sentence(ev)}"
                if ev is not None
                else "renege proven (the table's message cannot be read: open the table)"
            )
            yield "renege_proven", text
        elif o.get("event") == "irregularity_found":
            yield "irregularity_found", irregularity_sentence(o, {})


__all__ = [
    "ALERT_KINDS",
    "ALERT_STATES",
    "FAULT_KINDS",
    "AlertRow",
    "Alerts",
    "Fault",
    "event_alerts",
]
