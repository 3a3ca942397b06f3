"""The fleet view's data: every table of the event, its machine in words (release,
camera, lights, cube, disk, clock, feed), the config it applied, its last calibration
and the pictures the director asked it for.

Why a page of its own and not the dashboard's cards: the dashboard follows the games;
the fleet view is what the director checks before the event starts and when a table
misbehaves (is every table on the same release, is a camera knocked, is a clock off).
Every sentence is made here, once, and the page only places them: nothing a person
reads is a code (``table-7`` where the table has a name, ``camera-view``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import NotRequired, TypedDict

from table_controller.director.fleet.machines import (
    TWIN_WINDOW,
    at_once,
    copied_table_words,
    list_words,
    machine_words,
)
from table_controller.director.json_value import JSONValue
from table_controller.director.store import (
    ConfigState,
    DirectorStore,
    FleetTableRow,
    MachineRow,
    PictureState,
    RawTable,
    TableRow,
    TableUsage,
    table_row,
    usage_words,
)
from table_controller.director.words import (
    CLOCK_LIMIT,
    clock_compared,
    table_title,
    title_order,
)

# The devices as the page names them, in the order it shows them.
DEVICE_NAMES = {"camera": "Camera", "lights": "Seat lights", "cube": "Trump cube"}
LAG_LIMIT = 30.0  # seconds since the last event, with events waiting: the feed is stuck
CONFIG_WORDS = {
    "applied": "applied",
    "waiting": "taken, applied when the game in progress ends",
    "refused": "refused",
    "sent": "sent, no answer yet",
}
Clock = Callable[[], float]


class Shown(TypedDict):
    """A table as ``FleetView.tables`` finds it: its id and name, and with fleet mode
    its approved row (store/fleet.py)."""

    id: str
    name: str | None
    approved: NotRequired[FleetTableRow]


class PictureWords(TypedDict):
    """One picture's state for the page (``picture_words``)."""

    text: str
    picture: bool
    waiting: bool
    ok: bool | None
    at: float | None


class DeviceWords(TypedDict):
    """One device of a table, in words (``DEVICE_NAMES``); ``ok`` None: not known."""

    device: str
    label: str
    text: str
    ok: bool | None


class StoreWords(TypedDict):
    """A table's share of the director's store (``store_words``)."""

    store_text: str
    store_bytes: int


class TableWords(TypedDict):
    """One table's card on the fleet page (``FleetView.table``): each sentence made
    here, and whether each part is a problem (``*_ok``)."""

    table: str
    title: str
    online: bool
    online_text: str
    version_text: str
    devices: list[DeviceWords]
    disk_text: str
    clock_text: str
    clock_ok: bool
    lag_text: str
    lag_ok: bool
    config_text: str
    calibration_text: str
    faults: list[str]
    machine_text: str  # the machine it reports from, in words
    copied_text: str | None  # two machines at once as this table: a copied card
    camera_view: PictureWords
    recalibration: PictureWords


class TableCard(TableWords, StoreWords):
    """A table as ``GET /api/fleet`` gives it: its words and its share of the store."""


def clock_time(at: float) -> str:
    """A moment as the director's clock on the wall says it: "14:02"."""
    return time.strftime("%H:%M", time.localtime(at))


def ago(seconds: float) -> str:
    """How long since, as a person says it: "5 s ago", "3 min ago", "2 h ago"."""
    s = max(0.0, seconds)
    if s < 90:
        return f"{s:.0f} s ago"
    if s < 90 * 60:
        return f"{s / 60:.0f} min ago"
    return f"{s / 3600:.0f} h ago"


def number(value: JSONValue) -> float | None:
    """A stored number (a time, an offset), None when it is not one."""
    return float(value) if type(value) is int or type(value) is float else None


def when(at: JSONValue, now: float) -> str:
    """The moment and how long ago: "14:02 (3 min ago)"; "" when ``at`` is not a time."""
    t = number(at)
    return "" if t is None else f"{clock_time(t)} ({ago(now - t)})"


def sentence(text: str) -> str:
    """Words shown on their own, as a sentence begins: "No picture from the camera"."""
    return text[:1].upper() + text[1:]


def disk_words(mb: JSONValue) -> str:
    if type(mb) is not int:
        return "not known"
    return f"{mb / 1024:.1f} GB free" if mb >= 1024 else f"{mb} MB free"


def lag_words(t: TableRow, last_event: float | None, now: float) -> tuple[str, bool]:
    """The feed's lag in words, and whether it is a problem: events the broker or the
    director do not yet hold, and how long since the last event arrived."""
    backlog = t.get("backlog") if type(t.get("backlog")) is int else 0
    unconfirmed = t.get("unconfirmed") if type(t.get("unconfirmed")) is int else backlog
    parts = []
    if backlog:
        parts.append("1 event not yet sent" if backlog == 1 else f"{backlog} events not yet sent")
    elif unconfirmed:
        parts.append(
            "1 event not yet stored by the director"
            if unconfirmed == 1
            else f"{unconfirmed} events not yet stored by the director"
        )
    else:
        parts.append("every event sent")
    since = None if last_event is None else now - last_event
    if since is not None:
        parts.append(f"last event {ago(since)}")
    else:
        parts.append("no event yet")
    stuck = bool(backlog or unconfirmed) and (since is None or since > LAG_LIMIT)
    return ", ".join(parts), stuck


def config_words(state: ConfigState | None, seq: JSONValue) -> str:
    """The config's state, "Config 3 applied", from the director's record of the
    table's answer (the store's ``fleet_config_state``) or, without one, from the table's own
    heartbeat."""
    if state:
        n = state.get("seq")
        said = CONFIG_WORDS.get(str(state.get("state")), str(state.get("state") or "sent"))
        text = f"Config {n} {said}" if n is not None else f"Config {said}"
        problem = state.get("problem")
        text = f"{text}: {problem}" if problem else text
        applied = state.get("applied")
        if state.get("state") != "applied" and type(applied) is int:
            text += f" (config {applied} applied)"
        return text
    if type(seq) is int:
        return f"Config {seq} applied"
    return "No config from the director yet"


def picture_words(kind: str, p: PictureState | None, now: float) -> PictureWords:
    """One picture's state for the page: what to say, and whether there is one."""
    if not p:
        return {"text": "", "picture": False, "waiting": False, "ok": None, "at": None}
    asked, at = number(p.get("asked_at")), number(p.get("at"))
    waiting = asked is not None and (at is None or asked > at)
    text = ""
    if at is not None and kind == "recalibrate":
        why = p.get("problem") or "no reason given"
        text = (
            f"Recalibrated at {when(at, now)}"
            if p.get("ok")
            else f"Recalibration failed at {when(at, now)}: {why}"
        )
    elif at is not None:
        text = f"Camera view taken at {when(at, now)}"
        if p.get("ok") is False and p.get("problem"):
            text = f"No camera view at {when(at, now)}: {p['problem']}"
    if asked is not None and waiting:
        said = "Asked to recalibrate" if kind == "recalibrate" else "Asked for the camera view"
        text = f"{said} at {clock_time(asked)}: waiting for the table" + (
            f". {text}" if text else ""
        )
    return {
        "text": text,
        "picture": bool(p.get("picture")),
        "waiting": waiting,
        "ok": p.get("ok"),
        "at": at,
    }


def store_words(usage: TableUsage | None) -> StoreWords:
    """The table's share of the director's store, for its card: a table sending too much
    shows here (the store keeps each table's status history and pictures bounded)."""
    return {
        "store_text": usage_words(usage),
        "store_bytes": 0 if usage is None else usage.total,
    }


def machine_text(
    machines: Sequence[MachineRow], heard: bool, both: Sequence[MachineRow] = ()
) -> str:
    """The machine a table reports from, in words (``both``: the machines reporting
    as it at once); an older table names none."""
    if len(both) > 1:
        count = "Two" if len(both) == 2 else str(len(both))
        return f"{count} at once: " + list_words([machine_words(m) for m in both])
    if machines:
        return sentence(machine_words(machines[0]))
    return "Not known (a table of an older release)" if heard else "Not known yet"


def approved_tables(store: DirectorStore) -> list[FleetTableRow]:
    """The tables the director approved and did not remove (store/fleet.py)."""
    return [t.copy() for t in store.fleet.fleet_tables()]


def not_heard(table: str) -> TableRow:
    """A table approved and not yet heard from, as a row with no status (the store's
    ``table_row`` of nothing): offline, nothing known of it."""
    return table_row(RawTable(table, False, None, None, None), {})


class FleetView:
    """Builds the fleet page's data from ``store``; ``clock`` is the director's.
    ``fleet_mode``: the tables shown are the approved ones (a table approved and not yet
    heard from is shown too); else every table that reported (a director run with
    hand-written table configs)."""

    def __init__(
        self,
        store: DirectorStore,
        *,
        fleet_mode: bool = False,
        clock: Clock = time.time,
        twin_window: float = TWIN_WINDOW,
    ) -> None:
        self.store = store
        self.fleet_mode = fleet_mode
        self.clock = clock
        self.twin_window = twin_window  # two machines heard within it: a copied card

    def tables(self) -> list[TableCard]:
        store, now = self.store, self.clock()
        statuses = {t["table"]: t for t in store.tables.tables()}
        rows: list[Shown]
        if self.fleet_mode:
            rows = [
                {"id": a["id"], "name": a.get("name"), "approved": a}
                for a in approved_tables(store)
            ]
        else:  # no fleet: the tables the store knows
            rows = [{"id": tid, "name": t.get("name")} for tid, t in statuses.items()]
        pictures = store.pictures.fleet_pictures()
        last = store.pictures.last_events()
        usage = store.usage.table_usage()
        machines = store.machines.every_table()
        out: list[TableCard] = []
        for row in rows:
            tid = str(row["id"])
            t = statuses.get(tid) or not_heard(tid)
            state = store.fleet_configs.fleet_config_state(tid)
            shown = self.table(
                row, t, pictures.get(tid, {}), last.get(tid), state, now, machines.get(tid, [])
            )
            out.append({**shown, **store_words(usage.get(tid))})
        return sorted(out, key=lambda r: title_order(r["title"]))

    def table(
        self,
        row: Shown,
        t: TableRow,
        pictures: Mapping[str, PictureState],
        last_event: float | None,
        config_state: ConfigState | None,
        now: float,
        machines: Sequence[MachineRow] = (),
    ) -> TableWords:
        tid = str(row["id"])
        fleet: Mapping[str, JSONValue] = t.get("fleet") or {}
        approved = row.get("approved")
        heard = t.get("status_at") is not None
        reported = fleet.get("devices")
        devices = reported if isinstance(reported, dict) else {}
        device_rows: list[DeviceWords] = []
        for key, label in DEVICE_NAMES.items():
            said = devices.get(key)
            if not fleet:
                text, ok = "not known yet", None
            elif said is None:
                text, ok = "not reported", None
            else:
                ok = said in ("ok", "not fitted")
                text = "Working" if said == "ok" else sentence(str(said))
            device_rows.append({"device": key, "label": label, "text": text, "ok": ok})
        offset = number(t.get("clock_offset"))
        clock_ok = offset is None or abs(offset) <= CLOCK_LIMIT
        lag, stuck = lag_words(t, last_event, now) if heard else ("no heartbeat yet", False)
        version = fleet.get("version") or (approved.get("version") if approved else None)
        calibrated = fleet.get("calibration")
        calibration = calibrated.get("at") if isinstance(calibrated, dict) else None
        name = row.get("name") or t.get("name")
        both = at_once(machines, now, self.twin_window)
        fix = [
            f"To put {f['what']} right: {f['fix']}"
            for f in t.get("faults") or []
            if isinstance(f, dict) and f.get("what") and f.get("fix")
        ]
        return {
            "table": tid,
            "title": table_title(tid, name),
            "online": bool(t.get("online")),
            "online_text": (
                "Online" if t.get("online") else "OFFLINE" if heard else "Not heard from yet"
            ),
            "version_text": f"Release {version}" if version else "Release not known yet",
            "devices": device_rows,
            "disk_text": disk_words(fleet.get("disk_free_mb")),
            "clock_text": (
                sentence(clock_compared(offset)) if offset is not None else "Not compared yet"
            ),
            "clock_ok": clock_ok,
            "lag_text": sentence(lag),
            "lag_ok": not stuck,
            "config_text": config_words(config_state, fleet.get("config_seq")),
            "calibration_text": (
                f"Last calibrated {when(calibration, now)}"
                if type(calibration) in (int, float)
                else "Not calibrated yet"
                if fleet
                else "Calibration not known yet"
            ),
            "faults": fix,
            "machine_text": machine_text(machines, heard, both),
            "copied_text": copied_table_words(table_title(tid, name), both) if both else None,
            "camera_view": picture_words("camera-view", pictures.get("camera-view"), now),
            "recalibration": picture_words("recalibrate", pictures.get("recalibrate"), now),
        }


__all__ = [
    "DEVICE_NAMES",
    "DeviceWords",
    "FleetView",
    "PictureWords",
    "Shown",
    "StoreWords",
    "TableCard",
    "TableWords",
    "ago",
    "approved_tables",
    "clock_time",
    "config_words",
    "disk_words",
    "lag_words",
    "machine_text",
    "not_heard",
    "number",
    "picture_words",
    "sentence",
    "store_words",
    "when",
]
