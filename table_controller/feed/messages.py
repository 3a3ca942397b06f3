"""The feed's topics and payloads (pure: no network, no clock, no files).

Every message a table sends is built here, so the topics and the payloads documented
in docs/feed.md have one definition. A payload never carries a card a player still
holds: the dealt hands, the dealer's buried discard and the cards passed in an exchange
are taken out before anything leaves the table (``secret_free``).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

VERSION = 1

# Fields of encoded input events that name cards a player holds (never sent).
_SECRET_FIELDS: dict[str, tuple[str, ...]] = {
    "hand_dealt": ("hands",),
    "dealer_discarded": ("card",),
    "cards_exchanged": ("discard", "received"),
}
# Output fields that name a held card: kept for the director (who rules on them) but
# taken out of anything shown to the public (``public_outputs``).
_HELD_OUTPUT_FIELDS: dict[str, tuple[str, ...]] = {"renege_spotted": ("held",)}


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

    def status(self, table: str) -> str:
        return f"{self.table(table)}/status"

    def rulings(self, table: str) -> str:
        return f"{self.table(table)}/rulings"

    def acks(self, table: str) -> str:
        return f"{self.table(table)}/acks"

    @property
    def all_tables(self) -> str:
        """What the director subscribes to: every table's every topic."""
        return f"{self.prefix}/tables/+/#"


def secret_free(encoded: Mapping[str, Any]) -> dict[str, Any]:
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
    input_event: Mapping[str, Any],
    outputs: Sequence[Mapping[str, Any]],
    hand: int | None,
    evidence: bool,
) -> dict[str, Any]:
    """One logged input event, as sent on ``events``; (table, game, seq) is its key."""
    return {
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
    faults: Sequence[Mapping[str, Any]],
    backlog: int,
) -> dict[str, Any]:
    """The table's heartbeat (retained on ``status``)."""
    return {
        "v": VERSION,
        "table": table,
        "online": True,
        "at": at,
        "every": every,
        "game": game,
        "hand": hand,
        "phase": phase,
        "scores": list(scores),
        "players": dict(players),
        "faults": [dict(f) for f in faults],
        "backlog": backlog,
    }


def offline_message(*, table: str, at: float) -> dict[str, Any]:
    """The status left behind when the table goes (its last will, or a clean stop)."""
    return {"v": VERSION, "table": table, "online": False, "at": at}


def ack_message(
    *, table: str, ruling_id: str, ok: bool, problem: str | None, at: float
) -> dict[str, Any]:
    """The table's answer to a ruling: applied (ok) or not, and why not."""
    return {
        "v": VERSION,
        "table": table,
        "ruling_id": ruling_id,
        "ok": ok,
        "problem": problem,
        "at": at,
    }


__all__ = [
    "VERSION",
    "Topics",
    "ack_message",
    "event_message",
    "offline_message",
    "public_outputs",
    "secret_free",
    "status_message",
    "table_id",
]
