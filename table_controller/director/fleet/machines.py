"""Two machines acting as one table: a copied SD card, told from the machine each
table claims it runs on (table/fleet/identity.py) in its request to join and its
heartbeat (pure: the times are given).

Why: a club that copies one first-booted card onto others gets machines with the same
join key: one code, one approval taken by all, one table's login shared, each
connection closing the others' (docs/fleet.md, "do not copy a card"). Nothing else they
send tells them apart.

Two machines count as one table's copies only while both are heard within ``window``
of now, and each was heard after the other was first heard in its current stretch
(they report at the same time). A table moved to another machine (its card put into a
new Pi) or restarted on a machine told by its start's id is heard from one machine
after the other: no warning.
"""

from __future__ import annotations

from collections.abc import Sequence

from table_controller.director.store import MachineRow

TWIN_WINDOW = 300.0  # seconds: two machines heard as one table within it are copies
JOIN_WINDOW = 120.0  # seconds: a machine asking with a join key still asks (its polls)
ON_EACH_COPY = (
    "stop its service (sudo systemctl stop table-controller), delete its fleet folder "
    "(sudo rm -r /var/lib/table-controller/fleet) and start it again (sudo systemctl "
    "start table-controller): it then asks with a code of its own"
)
SOURCE_WORDS = {
    "serial": "by its serial number",
    "network": "by its network card",
    "boot": "by this start only",
}


def machine_words(row: MachineRow) -> str:
    """One machine as a person reads it: "machine 3f9a-c012 (by its serial number)"."""
    short = row["machine"][:8]
    told = SOURCE_WORDS.get(row["source"], "")
    name = f"machine {short[:4]}-{short[4:]}" if len(short) == 8 else f"machine {short}"
    return f"{name} ({told})" if told else name


def at_once(rows: Sequence[MachineRow], now: float, window: float) -> list[MachineRow]:
    """The machines heard as one table at the same time within ``window`` of ``now``
    (two or more: a copied card), the most recently heard first; [] when there are
    none such."""
    recent = [r for r in rows if now - r["last_seen"] <= window]
    both = [
        r
        for r in recent
        if any(
            o is not r
            and o["machine"] != r["machine"]
            and o["first_seen"] <= r["last_seen"]
            and r["first_seen"] <= o["last_seen"]
            for o in recent
        )
    ]
    return sorted(both, key=lambda r: (-r["last_seen"], r["machine"]))


def list_words(items: Sequence[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def copied_table_words(title: str, machines: Sequence[MachineRow]) -> str:
    """The warning for one approved table reported by several machines."""
    count = "two" if len(machines) == 2 else str(len(machines))
    return (
        f"{title} is reported by {count} machines at once "
        f"({list_words([machine_words(m) for m in machines])}): one of them is a copied "
        f"card, and each closes the other's connection. On every machine but the one "
        f"that should be {title}, {ON_EACH_COPY}, and approve it under a name of its own"
    )


def copied_code_words(count: int) -> str:
    """The warning on a request to join that several machines ask with."""
    return f"{count} tables ask with this code: a copied card. On each copy, {ON_EACH_COPY}"


__all__ = [
    "JOIN_WINDOW",
    "ON_EACH_COPY",
    "TWIN_WINDOW",
    "at_once",
    "copied_code_words",
    "copied_table_words",
    "list_words",
    "machine_words",
]
