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
