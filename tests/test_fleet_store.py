"""The fleet's approved tables in the director's store (store/fleet.py), on SQLite and
PostgreSQL alike: approved, listed, removed (kept, marked), approved again, audited."""

from __future__ import annotations

import json

from table_controller.director.store import DirectorStore


def test_approved_removed_and_audited(store_target: str) -> None:
    store = DirectorStore(store_target)
    try:
        assert store.fleet.fleet_tables() == [] and store.fleet.fleet_table("table-7") is None
        store.fleet.fleet_approve(
            "table-7", "Table 7", "pi-7", "10.0.0.7", "0.1.0", "a2V5", 100.0, who="ann"
        )
        store.fleet.fleet_approve("table-8", "Table 8", "pi-8", "10.0.0.8", "0.1.0", "a2V6", 101.0)
        assert [t["id"] for t in store.fleet.fleet_tables()] == ["table-7", "table-8"]
        assert store.fleet.fleet_table("table-7") == {
            "id": "table-7",
            "name": "Table 7",
            "host": "pi-7",
            "address": "10.0.0.7",
            "version": "0.1.0",
            "key": "a2V5",
            "approved_at": 100.0,
            "removed_at": None,
        }
        assert store.fleet.fleet_remove("table-7", 200.0, who="ann")
        assert not store.fleet.fleet_remove("table-7", 201.0)  # once
        assert not store.fleet.fleet_remove("table-9", 201.0)
        assert [t["id"] for t in store.fleet.fleet_tables()] == ["table-8"]
        removed = store.fleet.fleet_tables(include_removed=True)
        assert [(t["id"], t["removed_at"]) for t in removed] == [
            ("table-7", 200.0),
            ("table-8", None),
        ]
        store.fleet.fleet_approve(
            "table-7", "Table 7", "pi-7b", "10.0.0.17", "0.1.1", "bmV3", 300.0
        )
        again = store.fleet.fleet_table("table-7")
        assert again is not None and again["removed_at"] is None and again["host"] == "pi-7b"
        audit = [(a["who"], a["action"], a["table"]) for a in store.accounts.audit()]
        assert audit == [
            ("ann", "table_approved", "table-7"),
            ("director", "table_approved", "table-8"),
            ("ann", "table_removed", "table-7"),
            ("director", "table_approved", "table-7"),
        ]
        assert json.loads(store.accounts.audit()[0]["detail"])["address"] == "10.0.0.7"
    finally:
        store.close()


def test_the_machines_a_table_reports_from_outlive_a_restart_and_are_bounded(
    store_target: str,
) -> None:
    from table_controller.director.fleet.machines import at_once
    from table_controller.director.store.fleet_machines import MAX_PER_TABLE

    store = DirectorStore(store_target)
    try:
        store.machines.heard("table-1", "a" * 16, "serial", 100.0, gap=300)
        store.machines.heard("table-1", "b" * 16, "serial", 110.0, gap=300)
        store.machines.heard("table-1", "a" * 16, "serial", 120.0, gap=300)
        store.machines.heard("table-1", "a" * 16, "serial", 115.0, gap=300)  # late: kept at 120
        assert store.machines.machines("table-2") == []
    finally:
        store.close()
    store = DirectorStore(store_target)  # the director restarted: still known
    try:
        rows = store.machines.machines("table-1")
        assert rows == [
            {"machine": "a" * 16, "source": "serial", "first_seen": 100.0, "last_seen": 120.0},
            {"machine": "b" * 16, "source": "serial", "first_seen": 110.0, "last_seen": 110.0},
        ]
        assert len(at_once(rows, 130.0, 300)) == 2  # both within the window, interleaved
        assert at_once(rows, 500.0, 300) == []  # past it
        # Heard again after a silence longer than the window: a new stretch, so a table
        # moved back to this machine is not taken for two machines at once.
        store.machines.heard("table-1", "b" * 16, "serial", 1000.0, gap=300)
        [b, a] = store.machines.machines("table-1")
        assert (b["first_seen"], b["last_seen"]) == (1000.0, 1000.0)
        assert at_once([b, a], 1000.0, 1000) == []  # a's stretch ended before b's began
        for i in range(MAX_PER_TABLE + 4):  # a table told by its start's id, restarted
            store.machines.heard("table-1", f"{i:016x}", "boot", 2000.0 + i, gap=300)
        kept = store.machines.machines("table-1")
        assert len(kept) == MAX_PER_TABLE and kept[0]["machine"] == f"{MAX_PER_TABLE + 3:016x}"
        assert set(store.machines.every_table()) == {"table-1"}
    finally:
        store.close()
