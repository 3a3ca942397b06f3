"""Trust over the air, on a real mosquitto with the files `feed broker-config` writes,
the director's real service and store, and tables as real processes
(table_controller.sim.loadgen, a table without camera: the feed's whole path is real).

Before: anyone holding table-1's broker password (it crosses the hall's network) sent
400 invented events as Table 1; the director stored them as its games, the standings
changed, no alert was raised, and the real table's events of the same game and seq
numbers were dropped as copies, the director telling the table it had them. And one
table could fill the director's disk: the broker took messages of any size, the
director took any number of them, and kept every status whole."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from security.feed_event import (
    ROOT,
    TOPICS,
    broker_files,
    connect,
    director,
    password,
    start_broker,
    wait_until,
)
from table_controller.director.cli import register_table_keys
from table_controller.director.store import DirectorStore
from table_controller.event_log import EventLog
from table_controller.feed.broker import MAX_PACKET
from table_controller.feed.limits import Limits
from table_controller.feed.messages import secret_free
from table_controller.rules.codec import encode


def loadgen(
    log: Path, folder: Path, port: int, *, seed: int, events: int, key: bool
) -> subprocess.Popen[str]:
    """A table process sending as table-1 with table-1's password; signing with table-1's
    key only when ``key`` (the real table, which runs until the director confirms every
    event), else as one who sniffed the password (who runs until the broker took them)."""
    secret = log.with_suffix(".password")
    fd = os.open(secret, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(password(folder, "table-1"))
    key_file = folder / "secrets" / "table-1.signing.key"
    signing = ["--signing-key", str(key_file), "--until", "confirmed"] if key else []
    until = [] if key else ["--until", "sent"]
    return subprocess.Popen(
        [sys.executable, "-m", "table_controller.sim.loadgen", str(log),
         "--table", "table-1", "--port", str(port), "--event", "sec",
         "--username", "table-1", "--password-file", str(secret), "--seed", str(seed),
         "--events", str(events), "--every", "0", *signing, *until],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def logged(log: Path) -> dict[tuple[int, int], dict[str, object]]:
    """Every (game, seq) in a table's log, with its input event as the feed sends it."""
    out: dict[tuple[int, int], dict[str, object]] = {}
    events = EventLog(log, table="table-1")
    try:
        for g in events.games():
            for e in events.events(g.game):
                out[(e.game, e.seq)] = secret_free(encode(e.event))
    finally:
        events.close()
    return out


def test_a_sniffed_password_without_the_tables_key_rewrites_nothing(tmp_path: Path) -> None:
    folder = broker_files(tmp_path / "broker")
    broker = start_broker(folder)
    store = DirectorStore(tmp_path / "director.sqlite")
    assert register_table_keys(store, folder / "table-keys.json") == 2
    svc = director(store, folder, broker.port)
    tables: list[subprocess.Popen[str]] = []
    try:
        # One who sniffed table-1's password: 400 invented events, games 1 and 2.
        forger = loadgen(tmp_path / "forged.sqlite", folder, broker.port, seed=1, events=400,
                         key=False)  # fmt: skip
        tables.append(forger)
        assert forger.wait(60) == 0, forger.stderr.read() if forger.stderr else ""
        forged = logged(tmp_path / "forged.sqlite")
        assert len(forged) >= 400 and {g for g, _ in forged} >= {1, 2}
        wait_until("the director refused them", lambda: svc.refused >= 400)
        assert store.events.events("table-1") == [] and store.events.games("table-1") == []
        assert svc.marks("table-1") == {}  # nothing told to the table as held
        (alert,) = [a for a in store.alerts.alerts() if a["kind"] == "signature"]
        assert alert["table"] == "table-1" and "without the table's signature" in alert["text"]
        # The real table, signing, sends the same game and seq numbers with its own cards.
        real_log = tmp_path / "real.sqlite"
        real = loadgen(real_log, folder, broker.port, seed=2, events=120, key=True)
        tables.append(real)
        assert real.wait(60) == 0, real.stderr.read() if real.stderr else ""
        mine = logged(real_log)
        wait_until(
            "every one of the real table's events stored",
            lambda: len(store.events.events("table-1")) == len(mine),
        )
        held = {(e["game"], e["seq"]): e["input"] for e in store.events.events("table-1")}
        assert held == mine  # the real table's copies, none of the forger's
        assert any(forged[k] != mine[k] for k in mine)  # the same keys, other events
        # Still the one alert (the real table, stopped, is offline: an alert of its own).
        assert [a["kind"] for a in store.alerts.alerts() if a["kind"] != "table_offline"] == [
            "signature"
        ]
    finally:
        for proc in tables:
            proc.kill()
            proc.wait()
        svc.stop()
        store.close()
        broker.kill()


@pytest.mark.slow(budget=30)  # 20,000 messages, 400 MB through a real broker
def test_a_flood_of_big_status_messages_stays_within_the_stores_bound(tmp_path: Path) -> None:
    folder = broker_files(tmp_path / "broker")
    assert f"max_packet_size {MAX_PACKET}" in (folder / "mosquitto.conf").read_text()
    assert Limits().max_packet == MAX_PACKET  # the default limits' broker
    broker = start_broker(folder)
    database = tmp_path / "director.sqlite"
    store = DirectorStore(database)  # no key registered: a table of an older release
    svc = director(store, folder, broker.port)
    t1 = connect(broker.port, "table-1", password(folder, "table-1"))
    try:
        status = {"v": 1, "table": "table-1", "online": True, "every": 60.0, "game": 1,
                  "hand": 1, "faults": []}  # fmt: skip
        pad = "x" * 200_000
        sent = 20_000
        last = None
        for n in range(sent):
            body = {**status, "at": time.time(), "seq": n}
            if n % 10 == 0:
                body["pad"] = pad
            last = t1.client.publish(TOPICS.status("table-1"), json.dumps(body), qos=1)
        assert last is not None
        last.wait_for_publish(120)
        wait_until("the director took every message", lambda: svc.batched >= sent, timeout=180)
        history = store.tables.status_history("table-1")
        assert 0 < len(history) <= Limits().history_statuses
        assert not [h for h in history if "pad" in h["status"]]  # too big: refused
        floods = [a for a in store.alerts.alerts() if a["kind"] == "flood"]
        assert len(floods) == 1 and floods[0]["table"] == "table-1"
        size = sum(p.stat().st_size for p in tmp_path.glob("director.sqlite*"))
        assert size < 20_000_000, f"the store grew to {size} bytes"
        # A message over the broker's limit ends the sender's connection, unseen.
        t1.client.publish(TOPICS.status("table-1"), b"x" * (MAX_PACKET + 1), qos=1)
        wait_until("the broker dropped the sender", lambda: bool(t1.gone))
    finally:
        t1.close()
        svc.stop()
        store.close()
        broker.kill()
