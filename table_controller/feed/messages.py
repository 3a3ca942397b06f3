"""The feed's topics and payloads (pure: no network, no clock, no files).

Every message a table sends is built here, so the topics and the payloads documented
in docs/feed.md have one definition. A payload never carries a card a player still
holds: the dealt hands, the dealer's buried discard and the cards passed in an exchange
are taken out before anything leaves the table (``secret_free``).

The two messages a table publishes most, the event (``EventMessage``) and the status
(``StatusMessage``, and ``OfflineMessage`` its last will), are typed here where they are
built; their JSON Schemas (table_controller/schemas/feed-event.schema.json and
feed-status.schema.json, made from these types by feed/wire_schema.py) say the same to
a reader in another process or language.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, NotRequired, TypedDict, get_args

from table_controller.present import FaultShown

VERSION: Literal[1] = 1

# Fields of encoded input events that name cards a player holds (never sent).
_SECRET_FIELDS: dict[str, tuple[str, ...]] = {
    "hand_dealt": ("hands",),
    "dealer_discarded": ("card",),
    "cards_exchanged": ("discard", "received"),
}
# Output fields that name a held card: kept for the director (who rules on them) but
# taken out of anything shown to the public (``public_outputs``).
_HELD_OUTPUT_FIELDS: dict[str, tuple[str, ...]] = {"renege_spotted": ("held",)}


class GameRecord(TypedDict):
    """What the table's log says a game is played under and by, sent with the game's
    first event: its preset, options and players (seat letter -> name). The same shape
    as the log's own (feed/outbox.py ``GameSent``)."""

    rules: str
    options: dict[str, object]
    players: dict[str, str]


class EventMessage(TypedDict):
    """One logged input event as a table sends it on ``events`` (docs/feed.md, "events"):
    (table, game, seq) is its key. ``input`` is the codec's encoding of the event, the
    cards a player holds taken out; ``outputs`` what the rules made of it."""

    v: Literal[1]
    table: str
    game: int
    seq: int
    at: float  # when it was logged (Unix seconds)
    source: str
    input: dict[str, object]
    outputs: list[dict[str, object]]
    hand: int | None
    evidence: bool  # a picture was sent on evidence/{game}/{seq}
    record: NotRequired[GameRecord]  # the game's first event only
    sig: NotRequired[str]  # a table with a signing key (feed/table_signing.py)


class AcrossStatus(TypedDict):
    """A card across a line as the table's status tells the director (signed with the
    rest of the status; table/across_line.py makes it, director/words.py reads it)."""

    card: str  # its code ("9S")
    seat: str | None
    into: str
    zones: list[str]  # the zones it touches, the one holding most of it first


class MachineClaim(TypedDict):
    """Which machine a table runs on, as it claims in its request to join and in its
    heartbeat (table/fleet/identity.py makes it): ``id`` a short fingerprint (16 hex
    digits, a hash: never the serial number or network address itself), ``source``
    what it was made from: "serial" (the Raspberry Pi's serial number), "network" (the
    network card's address) or "boot" (neither could be read: this start's own id,
    new at every start). A claim inside a message the table already signs, not a
    secret nor a proof: the director tells two machines asking or reporting as one
    table (a copied SD card) by it."""

    id: str
    source: MachineSource


MachineSource = Literal["serial", "network", "boot"]
MACHINE_SOURCES: tuple[MachineSource, ...] = get_args(MachineSource)
MACHINE_ID_DIGITS = 16  # the fingerprint's hex digits (table/fleet/identity.py makes it)


def is_machine_id(value: object) -> bool:
    """Whether ``value`` has a machine fingerprint's shape (``MachineClaim.id``): what a
    table makes, and all the director checks of the claim."""
    return (
        isinstance(value, str)
        and len(value) == MACHINE_ID_DIGITS
        and all(c in "0123456789abcdef" for c in value)
    )


class CalibrationStatus(TypedDict):
    at: float | None  # when the camera was last calibrated (wall clock)


class FleetStatus(TypedDict):
    """The heartbeat's ``fleet`` part: the table's machine as the fleet view shows it
    (table/fleet/status.py makes it)."""

    version: str
    devices: dict[str, str]  # each device: "ok", "not fitted", or its fault in words
    disk_free_mb: int | None
    calibration: CalibrationStatus
    config_seq: int | None
    machine: NotRequired[MachineClaim]  # left out by a table of an older release


class StatusMessage(TypedDict):
    """The table's heartbeat, retained on ``status`` (docs/feed.md, "status")."""

    v: Literal[1]
    table: str
    name: str | None
    online: Literal[True]
    at: float
    every: float
    game: int | None
    hand: int | None
    phase: str | None
    scores: list[int]
    players: dict[str, str]
    faults: list[FaultShown]
    backlog: int
    unconfirmed: int
    fleet: NotRequired[FleetStatus]
    across: NotRequired[list[AcrossStatus]]
    order: NotRequired[list[int | None]]  # its place (feed/table_order.py), when signed
    sig: NotRequired[str]


class OfflineMessage(TypedDict):
    """The status a table leaves behind when it goes: its last will, or a clean stop."""

    v: Literal[1]
    table: str
    online: Literal[False]
    at: float
    order: NotRequired[list[int | None]]
    sig: NotRequired[str]


class ReceivedMessage(TypedDict):
    """The director's mark of what it holds from a table (``received_message``)."""

    v: Literal[1]
    table: str
    game: int
    seq: int
    games: dict[str, int]  # per game (its number as text), the highest seq held whole
    at: float
    every: float
    since: NotRequired[float]
    behind: NotRequired[float]


class AckMessage(TypedDict):
    """The table's answer to a ruling (``ack_message``)."""

    v: Literal[1]
    table: str
    ruling_id: str
    ok: bool | None
    state: str  # one of ACK_STATES
    problem: str | None
    at: float
    order: NotRequired[list[int | None]]  # its place, when signed
    sig: NotRequired[str]


# What a table's name may not hold: MQTT's wildcards and level separator, and control
# characters (NUL among them); a name is shown on the dashboard as it is written.
NAME_ALLOWED = "letters, digits, spaces and punctuation, but not # + / or control characters"
_ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a table (None: it can): one line, with what is allowed."""
    bad = sorted({c for c in name if c in "#+/" or unicodedata.category(c) in ("Cc", "Cs")})
    if not bad:
        return None
    shown = " ".join(repr(c)[1:-1] for c in bad)
    return f"the table's name {name!r} holds {shown}: a table's name may hold {NAME_ALLOWED}"


def id_problem(table: str) -> str | None:
    """Why ``table`` is not a table's id on the feed (None: it is one)."""
    if len(table) <= 80 and _ID.fullmatch(table):
        return None
    return (
        f"{table[:80]!r} is not a table's id: an id holds only lowercase letters, digits "
        "and single '-' between them (e.g. table-3), as the dashboard lists them"
    )


def table_id(name: str) -> str:
    """The table's name as a topic-safe slug: "Club Night #3" -> "club-night-3"."""
    text = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return slug or "table"


@dataclass(frozen=True)
class Topics:
    """The topics of one event (``prefix`` = ``{topic}/{event or 'event'}``)."""

    prefix: str

    @classmethod
    def of(cls, topic: str, event: str) -> Topics:
        return cls(f"{topic.strip('/')}/{event or 'event'}")

    def table(self, table: str) -> str:
        return f"{self.prefix}/tables/{table}"

    def events(self, table: str) -> str:
        return f"{self.table(table)}/events"

    def evidence(self, table: str, game: int, seq: int) -> str:
        return f"{self.table(table)}/evidence/{game}/{seq}"

    def clear_evidence(self, table: str, game: int, seq: int) -> str:
        """The clearer picture of an event's card, sent after the event: under the
        table's own ``evidence/#``, which only that table may write."""
        return f"{self.evidence(table, game, seq)}/clear"

    def status(self, table: str) -> str:
        return f"{self.table(table)}/status"

    def rulings(self, table: str) -> str:
        return f"{self.table(table)}/rulings"

    def acks(self, table: str) -> str:
        return f"{self.table(table)}/acks"

    def received(self, table: str) -> str:
        """The director's mark of what it holds from this table (retained)."""
        return f"{self.table(table)}/received"

    def config(self, table: str) -> str:
        """The director's signed config for this table (retained; fleet/orders.py)."""
        return f"{self.table(table)}/config"

    def commands(self, table: str) -> str:
        """The director's signed commands to this table (not retained)."""
        return f"{self.table(table)}/commands"

    def fleet(self, table: str, kind: str) -> str:
        """The table's answers about itself (``config`` acks, ``camera``, ``update``)."""
        return f"{self.table(table)}/fleet/{kind}"

    @property
    def all_tables(self) -> str:
        """What the director subscribes to: every table's every topic."""
        return f"{self.prefix}/tables/+/#"


def secret_free(encoded: Mapping[str, object]) -> dict[str, object]:
    """An encoded input event without the cards a player holds."""
    hidden = _SECRET_FIELDS.get(str(encoded.get("event")), ())
    return {k: v for k, v in encoded.items() if k not in hidden}


def public_outputs(outputs: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Encoded outputs fit for a public screen: no held card named (a renege spotted
    says a player holds a card; the public learns it when the renege is proven)."""
    shown = []
    for out in outputs:
        hidden = _HELD_OUTPUT_FIELDS.get(str(out.get("event")), ())
        shown.append({k: v for k, v in out.items() if k not in hidden})
    return shown


def event_message(
    *,
    table: str,
    game: int,
    seq: int,
    at: float,
    source: str,
    input_event: Mapping[str, object],
    outputs: Sequence[Mapping[str, object]],
    hand: int | None,
    evidence: bool,
    record: GameRecord | None = None,
) -> EventMessage:
    """One logged input event, as sent on ``events``; (table, game, seq) is its key.
    ``record``: the game's rules, options and players as the table's log holds them
    (``outbox.GameSent``), sent with each game's first event; left out when None."""
    out: EventMessage = {
        "v": VERSION,
        "table": table,
        "game": game,
        "seq": seq,
        "at": at,
        "source": source,
        "input": secret_free(input_event),
        "outputs": [dict(o) for o in outputs],
        "hand": hand,
        "evidence": evidence,
    }
    if record is not None:
        out["record"] = record.copy()
    return out


def status_message(
    *,
    table: str,
    at: float,
    every: float,
    game: int | None,
    hand: int | None,
    phase: str | None,
    scores: Sequence[int],
    players: Mapping[str, str],
    faults: Sequence[FaultShown],
    backlog: int,
    unconfirmed: int | None = None,
    name: str | None = None,
    fleet: FleetStatus | None = None,
    across: Sequence[AcrossStatus] = (),
) -> StatusMessage:
    """The table's heartbeat (retained on ``status``). ``backlog``: events the broker
    has not acknowledged; ``unconfirmed``: events the director has not yet confirmed;
    ``name``: the table's name as its config writes it ("Table 1", "Maple"), what a
    person reads where ``table`` (the id, ``table-1``) is the key. ``fleet``: what the
    director's fleet view shows of the table's own machine (``table/fleet/status.py``:
    version, each device in words, disk free, last calibration, config applied); left
    out when None, so a table that does not send it reads as before. ``across``: the
    cards the camera sees lying across a zone's line (``AcrossStatus``: card, seat,
    into, zones; table/across_line.py makes them), for the director's view of the table;
    left out when there are none."""
    out: StatusMessage = {
        "v": VERSION,
        "table": table,
        "name": name,
        "online": True,
        "at": at,
        "every": every,
        "game": game,
        "hand": hand,
        "phase": phase,
        "scores": list(scores),
        "players": dict(players),
        "faults": [f.copy() for f in faults],
        "backlog": backlog,
        "unconfirmed": backlog if unconfirmed is None else unconfirmed,
    }
    if fleet is not None:
        out["fleet"] = fleet.copy()
    if across:
        out["across"] = [a.copy() for a in across]
    return out


def received_message(
    *,
    table: str,
    games: Mapping[int, int],
    at: float,
    every: float,
    since: float | None = None,
    behind: float = 0.0,
) -> ReceivedMessage:
    """The director's mark (retained on ``received``): ``games`` is, per game, the highest
    seq stored with every seq before it stored too; ``game``/``seq`` the last position
    the director holds with nothing missing before it, as far as it can tell (a game is
    taken as complete once the next game's first event is stored: the table checks
    that against its own log with ``games``). Republished every ``every`` seconds.
    ``since``: when (the director's clock) the broker last had no session for the
    director, so dropped whatever was sent to it before then; a table that heard an
    earlier ``since`` sends again from the mark at once (docs/feed.md, "Delivery").
    ``behind``: how long the oldest message the director has and has not stored yet
    has waited (its store is slow): the table waits that much longer to resend."""
    game, seq = director_position(games)
    out: ReceivedMessage = {
        "v": VERSION,
        "table": table,
        "game": game,
        "seq": seq,
        "games": {str(g): int(s) for g, s in sorted(games.items())},
        "at": at,
        "every": every,
    }
    if since is not None:
        out["since"] = since
    if behind > 0:
        out["behind"] = behind
    return out


def director_position(games: Mapping[int, int]) -> tuple[int, int]:
    """The director's own reading of its mark (see ``received_message``)."""
    position = (0, 0)
    for g in sorted(games):
        if games[g] < 1:
            break
        position = (g, games[g])
        if g + 1 not in games:
            break
    return position


def parse_received(payload: Mapping[str, Any], *, table: str) -> tuple[dict[int, int], float]:
    """A ``received`` mark as (games, every); ValueError in words when it is not one."""
    if payload.get("v") != VERSION:
        raise ValueError(f"a received mark of version {payload.get('v')!r}, not {VERSION}")
    if payload.get("table") != table:
        raise ValueError(f"a received mark for table {payload.get('table')!r}, not {table!r}")
    raw = payload.get("games")
    if not isinstance(raw, dict):
        raise ValueError("a received mark without its games")
    games = {int(g): int(s) for g, s in raw.items()}
    every = float(payload.get("every") or 0.0)
    return games, every


def received_since(payload: Mapping[str, Any]) -> float | None:
    """A mark's ``since`` (see ``received_message``), None when it has none (a director
    that does not know it, or an earlier version)."""
    return _number(payload.get("since"))


def received_behind(payload: Mapping[str, Any]) -> float:
    """A mark's ``behind`` in seconds (see ``received_message``), 0 when it has none."""
    behind = _number(payload.get("behind"))
    return 0.0 if behind is None or behind < 0 else behind


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def offline_message(*, table: str, at: float) -> OfflineMessage:
    """The status left behind when the table goes (its last will, or a clean stop)."""
    return {"v": VERSION, "table": table, "online": False, "at": at}


ACK_STATES = ("delivered", "applied", "refused")


def ack_message(
    *, table: str, ruling_id: str, ok: bool | None, problem: str | None, at: float
) -> AckMessage:
    """The table's answer to a ruling: ``ok`` None when it has it and checked its
    signature (``state`` delivered), then True (applied) or False (refused, ``problem``)."""
    return {
        "v": VERSION,
        "table": table,
        "ruling_id": ruling_id,
        "ok": ok,
        "state": ACK_STATES[0 if ok is None else 1 if ok else 2],
        "problem": problem,
        "at": at,
    }


__all__ = [
    "ACK_STATES",
    "MACHINE_ID_DIGITS",
    "MACHINE_SOURCES",
    "NAME_ALLOWED",
    "VERSION",
    "AckMessage",
    "AcrossStatus",
    "CalibrationStatus",
    "EventMessage",
    "FleetStatus",
    "GameRecord",
    "MachineClaim",
    "MachineSource",
    "OfflineMessage",
    "ReceivedMessage",
    "StatusMessage",
    "Topics",
    "ack_message",
    "director_position",
    "event_message",
    "id_problem",
    "is_machine_id",
    "name_problem",
    "offline_message",
    "parse_received",
    "public_outputs",
    "received_behind",
    "received_message",
    "received_since",
    "secret_free",
    "status_message",
    "table_id",
]
