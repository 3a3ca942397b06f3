"""How much one table may send and have kept: the director's rate per table
(feed/guard.py), and the status history and pictures bounded per table by the
limits the store is given (feed/limits.py; a director's settings:
test_director_limits.py)."""

from __future__ import annotations

import json
from pathlib import Path

from table_controller.director.broker import fleet_conf
from table_controller.director.fleet.view import FleetView
from table_controller.director.store import DirectorStore
from table_controller.director.store.usage import size_words, usage_words
from table_controller.feed.broker import MAX_PACKET
from table_controller.feed.guard import QUIET, FeedLimits, RateGuard
from table_controller.feed.limits import Limits


def test_a_tables_rate_drops_what_comes_beyond_it_and_says_so_once_a_flood() -> None:
    guard = RateGuard(FeedLimits(rate=10, burst=20, byte_rate=1000, byte_burst=5000))
    took = [guard.admit("t", 10, 0.0).ok for _ in range(25)]
    assert took.count(True) == 20
    dropped = [guard.admit("t", 10, 0.0) for _ in range(3)]
    assert [d.first for d in dropped] == [False, False, False]  # the flood's first was before
    assert guard.dropped() == {"t": 8}
    assert guard.admit("t", 10, 1.0).ok  # a second later: ten more
    assert guard.admit("other", 10, 0.0).ok  # each table its own
    assert not guard.admit("t", 6000, 2.0).ok  # bytes too
    assert guard.admit("t", 10, 2.0 + QUIET).ok
    again = RateGuard(FeedLimits(rate=1, burst=1))
    assert again.admit("t", 1, 0.0).ok
    assert again.admit("t", 1, 0.0).first


def test_the_status_history_is_bounded_by_rows_and_bytes(store_target: str) -> None:
    store = DirectorStore(store_target, limits=Limits(history_statuses=300, history_mb=1))
    try:
        for n in range(1000):
            store.tables.add_status({"table": "t", "online": True, "at": 1000.0 + n, "n": n})
        history = store.tables.status_history("t")
        assert 0 < len(history) <= 300
        assert history[-1]["status"]["n"] == 999  # the newest kept, the oldest dropped
        for n in range(60):
            store.tables.add_status(
                {"table": "t", "online": True, "at": 5000.0 + n, "pad": "x" * 20_000}
            )
        history = store.tables.status_history("t")
        assert sum(len(json.dumps(h["status"])) for h in history) <= 1024 * 1024 + 2000
        store.tables.add_status({"table": "u", "online": True, "at": 1.0})
        assert len(store.tables.status_history("u")) == 1  # each table its own
    finally:
        store.close()


def test_a_tables_pictures_stop_at_its_bound(store_target: str) -> None:
    limits = Limits(pictures_kept=100, pictures_mb=10)
    store = DirectorStore(store_target, limits=limits)
    try:
        assert all(store.events.add_evidence("t", 1, seq, b"p" * 100) for seq in range(1, 101))
        assert not store.events.add_evidence("t", 1, 101, b"p")  # the 101st: refused
        assert store.events.evidence("t", 1, 1) == b"p" * 100  # the first kept: they are evidence
        assert store.events.add_evidence("u", 1, 1, b"q" * (9 * 1024 * 1024))
        assert not store.events.add_evidence("u", 1, 2, b"q" * (2 * 1024 * 1024))  # bytes too
    finally:
        store.close()


def test_each_tables_share_of_the_store_is_on_the_fleet_view(store_target: str) -> None:
    now = [1000.0]
    store = DirectorStore(store_target, clock=lambda: now[0])
    try:
        store.tables.add_status({"table": "t", "online": True, "at": 1000.0, "name": "Maple"})
        store.events.add_evidence("t", 1, 1, b"p" * 300_000)
        (row,) = FleetView(store, clock=lambda: now[0]).tables()
        assert row["store_text"].startswith("293 KB (pictures 293 KB, status history")
        assert row["store_bytes"] > 300_000
        store.events.add_evidence("t", 1, 2, b"p" * 2_000_000)
        assert store.usage.table_usage()["t"].pictures == 300_000  # kept a while, not summed again
        now[0] += 60
        assert store.usage.table_usage()["t"].pictures == 2_300_000
        assert usage_words(None) == "Nothing stored yet"
        assert size_words(5 * 1024**3) == "5.0 GB"
    finally:
        store.close()


def test_the_fleets_broker_takes_no_message_over_the_limit_either(tmp_path: Path) -> None:
    conf = fleet_conf(tmp_path, plugin=Path("/p.so"), port=1883, host="", user="me")
    assert f"max_packet_size {MAX_PACKET}" in conf.splitlines()
    bigger = Limits(camera_kb=8192).max_packet
    conf = fleet_conf(
        tmp_path, plugin=Path("/p.so"), port=1883, host="", user="me", max_packet=bigger
    )
    assert f"max_packet_size {bigger}" in conf.splitlines() and bigger == 12 * 1024 * 1024
