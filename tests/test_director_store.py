"""The director's store: a real simulated table's game, stored from its feed messages
(the contract's format, docs/feed.md), each event once however often and in whatever
order the broker delivers it; the projection is the replay; alerts, logins, the audit.

Every test here runs on both databases the store can use (``store_target``: a SQLite
file, and a database on a real PostgreSQL server the tests start): this module is the
backends' contract."""

from __future__ import annotations

import asyncio
import atexit
import json
import shutil
import sqlite3
import tempfile
import threading
from functools import cache
from pathlib import Path
from typing import Any

import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from postgres import Postgres

from table_controller.director.store import DirectorStore, StoreError, StoreUnavailable
from table_controller.event_log import EventLog
from table_controller.rules.codec import encode
from table_controller.rules.events import HandDealt
from table_controller.rules.game import Game
from table_controller.rules.presets import preset
from table_controller.table.config import demo_config
from table_controller.table.simulated import FAST, simulated_table

TABLE = "club-night-3"


def feed_messages(
    log_path: Path, table: str = TABLE
) -> tuple[list[dict[str, Any]], dict[tuple[int, int], bytes]]:
    """The ``events`` messages a table publishes for its log (docs/feed.md), and its
    evidence images: built here from the log so these tests need no publisher."""
    log = EventLog.open_existing(log_path)
    messages: list[dict[str, Any]] = []
    images: dict[tuple[int, int], bytes] = {}
    for record in log.games():
        game = Game(preset(record.rules_name, record.options))
        for ev in log.events(record.game):
            outputs = game.push(ev.event)
            event = HandDealt(ev.event.upcard) if isinstance(ev.event, HandDealt) else ev.event
            messages.append(
                {
                    "v": 1,
                    "table": table,
                    "game": record.game,
                    "seq": ev.seq,
                    "at": ev.recorded,
                    "source": ev.source,
                    "input": encode(event),
                    "outputs": [encode(o) for o in outputs],
                    "hand": game.hand.number if game.hand is not None else None,
                    "evidence": ev.has_evidence,
                }
            )
            if ev.has_evidence:
                png = log.evidence(record.game, ev.seq)
                assert png is not None
                images[(record.game, ev.seq)] = png
    log.close()
    return messages, images


@cache
def real_game(
    renege: bool = True, seed: int = 1, hands: int = 1
) -> tuple[list[dict[str, Any]], dict[tuple[int, int], bytes]]:
    """A real simulated table's game (cameras, buttons, rules, log), as feed messages."""
    folder = Path(tempfile.mkdtemp(prefix="director-game-"))
    atexit.register(shutil.rmtree, folder, True)  # cached for the session, then removed
    config = demo_config(folder)
    table = simulated_table(config, seed=seed, renege=renege, pace=FAST, serve_page=False)
    # On its own thread: the caller may be inside an event loop (Playwright's).
    worker = threading.Thread(
        target=asyncio.run, args=(asyncio.wait_for(table.run(hands=hands), 120),)
    )
    worker.start()
    worker.join()
    return feed_messages(config.log)


def replayed(messages: list[dict[str, Any]]) -> Game:
    from table_controller.rules.codec import decode_input

    return Game.replay(preset("td-tournament"), [decode_input(m["input"]) for m in messages])


@pytest.fixture
def store(store_target: str) -> DirectorStore:
    return DirectorStore(store_target)


def raw(target: str, sql: str) -> list[Any]:
    """``sql`` run straight on the store's database, not through the store: what a
    person with the database's own tools could do."""
    if target.startswith("postgresql://"):
        with psycopg.connect(target, autocommit=True) as pg:
            cur = pg.execute(sql)
            return cur.fetchall() if cur.description else []
    conn = sqlite3.connect(target)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def test_a_real_game_is_stored_and_projects_to_its_replay(store: DirectorStore) -> None:
    messages, _ = real_game()
    assert any(o["event"] == "renege_proven" for m in messages for o in m["outputs"])
    assert all("hands" not in m["input"] or not m["input"]["hands"] for m in messages)
    for m in messages:
        new, _ = store.events.add_event(m)
        assert new
    stored = store.events.events(TABLE, 1)
    assert [s["seq"] for s in stored] == [m["seq"] for m in messages]
    assert [s["input"] for s in stored] == [m["input"] for m in messages]
    proj = store.projections.projection(TABLE, 1)
    assert proj.applied == len(messages) and proj.missing is None and proj.problem is None
    assert proj.game.state_key() == replayed(messages).state_key()
    # One renege alert, with the words, for the event that proved it.
    alerts = [a for a in store.alerts.alerts() if a["kind"] == "renege_proven"]
    assert len(alerts) == 1 and "did not follow" in alerts[0]["text"]
    proven = next(m for m in messages if any(o["event"] == "renege_proven" for o in m["outputs"]))
    assert (alerts[0]["table"], alerts[0]["game"], alerts[0]["seq"]) == (TABLE, 1, proven["seq"])


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_order_of_redelivered_messages_is_stored_once(
    postgres: Postgres, backend: str, data: st.DataObject
) -> None:
    messages, _ = real_game()
    extra = data.draw(st.lists(st.sampled_from(range(len(messages))), max_size=40))
    order = data.draw(st.permutations([*range(len(messages)), *extra]))
    with tempfile.TemporaryDirectory() as folder:
        target = postgres.new_database() if backend == "postgresql" else Path(folder) / "d.db"
        store = DirectorStore(target)
        fresh = 0
        mid = len(order) // 2
        for i in order[:mid]:
            fresh += store.events.add_event(messages[i])[0]
        store.projections.projection(TABLE, 1)  # read while messages are still missing
        for i in order[mid:]:
            fresh += store.events.add_event(messages[i])[0]
        assert fresh == len(messages) == store.events.count_events()
        assert [s["input"] for s in store.events.events(TABLE, 1)] == [m["input"] for m in messages]
        assert len([a for a in store.alerts.alerts() if a["kind"] == "renege_proven"]) == 1
        proj = store.projections.projection(TABLE, 1)
        assert proj.applied == len(messages)
        assert proj.game.state_key() == replayed(messages).state_key()
        store.close()


def test_the_projection_waits_at_a_gap_and_goes_on_when_it_fills(store: DirectorStore) -> None:
    messages, _ = real_game()
    for m in messages[:3] + messages[4:]:
        store.events.add_event(m)
    proj = store.projections.projection(TABLE, 1)
    assert (proj.applied, proj.missing) == (3, 4)
    store.events.add_event(messages[3])
    proj = store.projections.projection(TABLE, 1)
    assert (proj.applied, proj.missing) == (len(messages), None)


def test_a_message_that_cannot_be_read_is_refused_with_words(store: DirectorStore) -> None:
    with pytest.raises(StoreError, match="cannot be read"):
        store.events.add_event(
            {"table": TABLE, "game": 1, "seq": 1, "input": {"event": "nonsense"}}
        )
    with pytest.raises(StoreError, match="start at 1"):
        store.events.add_event(
            {"table": TABLE, "game": 1, "seq": 0, "input": {"event": "passed", "seat": "N"}}
        )
    assert store.events.count_events() == 0


def _fails_half_way(*args: Any) -> None:
    raise StoreError("the disk failed half way through the status")


def test_a_batch_is_one_transaction_and_a_bad_message_is_taken_back_alone(
    store: DirectorStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``batch``: many messages, one commit. A message refused before it is written, or
    one that fails half written (a status whose alerts cannot be closed: its table row
    and history are written first), is taken back alone; the others are stored, and the
    counts, games and projection follow the commit, not what was rolled back."""
    messages, _ = real_game()
    bad = dict(messages[3], input={"event": "nonsense"})
    results = store.events.add_events([*messages[:3], bad, *messages[3:6]])
    assert isinstance(results[3], StoreError) and "nonsense" in str(results[3])
    assert [r for i, r in enumerate(results) if i != 3] == [(True, [])] * 6
    store.projections.projection(TABLE, 1)  # kept from here on, advanced as events commit
    with store.batch():
        with monkeypatch.context() as patched, pytest.raises(StoreError):
            patched.setattr(store.alerts, "close_alerts", _fails_half_way)
            store.tables.add_status({"table": "t2", "online": True, "at": 1.0, "every": 5})
        for m in messages[6:]:
            store.events.add_event(m)
        assert (
            store.projections.projection(TABLE, 1).applied == 6
        )  # not over rows not yet committed
    assert store.events.count_events() == len(messages)
    assert store.events.event_counts() == {TABLE: len(messages)}
    assert [t["table"] for t in store.tables.tables()] == [TABLE]  # t2's half-write taken back
    assert store.tables.status_history("t2") == []
    assert store.projections.projection(TABLE, 1).applied == len(messages)
    assert store.projections.projection(TABLE, 1).game.state_key() == replayed(messages).state_key()
    # An exception out of the block takes everything in it back.
    with pytest.raises(RuntimeError), store.batch():
        store.events.add_event({**messages[0], "game": 2})
        raise RuntimeError("the disk failed")
    assert store.events.games(TABLE) == [1] and store.events.event_counts() == {
        TABLE: len(messages)
    }
    assert store.events.events(TABLE, 2) == []


def test_evidence_is_kept(store: DirectorStore) -> None:
    _, images = real_game()
    (game, seq), png = next(iter(images.items()))
    store.events.add_evidence(TABLE, game, seq, png)
    store.events.add_evidence(TABLE, game, seq, png)
    assert store.events.evidence(TABLE, game, seq) == png
    assert store.events.evidence(TABLE, game, seq + 1000) is None


def test_a_clearer_picture_replaces_the_first_and_a_repeated_event_is_still_dropped(
    store: DirectorStore,
) -> None:
    """A table's clearer picture of a card (docs/feed.md, "evidence") replaces the one
    its event came with, for that (table, game, seq) only; the event sent again is a
    duplicate as before, and its first picture sent again does not undo the clearer."""
    messages, images = real_game()
    message = next(m for m in messages if m["evidence"])
    game, seq = message["game"], message["seq"]
    first = images[(game, seq)]
    clear = first + b"clearer"  # the store keeps whatever bytes the table sent
    # Before its event: refused, nothing stored (the event, when it comes, carries it).
    assert not store.events.replace_evidence(TABLE, game, seq, clear)
    assert store.events.evidence(TABLE, game, seq) is None
    store.events.add_evidence(TABLE, game, seq, first)
    assert store.events.add_event(message)[0]
    assert store.events.replace_evidence(TABLE, game, seq, clear)
    assert store.events.evidence(TABLE, game, seq) == clear
    # Sent again from the director's mark: the event dropped, the picture kept.
    store.events.add_evidence(TABLE, game, seq, first)
    assert store.events.add_event(message) == (False, [])
    assert store.events.evidence(TABLE, game, seq) == clear
    assert store.events.event_counts() == {TABLE: 1}
    # Another table's (game, seq) is its own: it does not reach this one's picture.
    assert not store.events.replace_evidence("club-night-4", game, seq, b"another's")
    assert store.events.evidence(TABLE, game, seq) == clear
    assert store.events.evidence("club-night-4", game, seq) is None


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(deliveries=st.lists(st.sampled_from(["event", "first", "clear"]), min_size=1, max_size=8))
def test_any_order_of_an_event_its_picture_and_its_clearer_one(
    tmp_path_factory: pytest.TempPathFactory, deliveries: list[str]
) -> None:
    """Whatever the broker delivers, in whatever order and however often: the event is
    stored once, and the picture is the clearer one once it came after the event, else
    the first one sent, else none."""
    messages, images = real_game()
    message = next(m for m in messages if m["evidence"])
    game, seq = message["game"], message["seq"]
    first, clear = images[(game, seq)], images[(game, seq)] + b"clearer"
    store = DirectorStore(tmp_path_factory.mktemp("store") / "d.db")
    held, expected = False, None
    for kind in deliveries:
        if kind == "event":
            assert store.events.add_event(message)[0] is not held
            held = True
        elif kind == "first":
            store.events.add_evidence(TABLE, game, seq, first)
            expected = expected or first
        elif store.events.replace_evidence(TABLE, game, seq, clear):
            assert held
            expected = clear
        else:
            assert not held
    assert store.events.evidence(TABLE, game, seq) == expected
    assert store.events.count_events() == (1 if held else 0)
    store.close()


def status(online: bool = True, at: float = 100.0, **more: Any) -> dict[str, Any]:
    return {
        "v": 1,
        "table": TABLE,
        "online": online,
        "at": at,
        "every": 5,
        "game": 1,
        "hand": 2,
        "phase": "playing",
        "scores": [3, 4],
        "players": {"N": "Ann", "E": "Bo", "S": "Cy", "W": "Di"},
        "faults": [],
        "backlog": 0,
        **more,
    }


def test_status_offline_faults_and_silence(store_target: str) -> None:
    now = [1000.0]
    store = DirectorStore(store_target, clock=lambda: now[0])
    store.tables.add_status(status())
    (row,) = store.tables.tables()
    assert row["online"] and row["scores"] == [3, 4] and row["players"]["N"] == "Ann"
    # A camera fault raises an alert once; it closes when the fault clears.
    cam = {
        "device": "camera",
        "what": "the camera",
        "problem": "no frames for 3 s",
        "fix": "check its cable",
        "since": 12.0,
    }
    assert len(store.tables.add_status(status(faults=[cam]))) == 1
    assert store.tables.add_status(status(faults=[cam])) == []
    assert [a["kind"] for a in store.alerts.alerts()] == ["camera_fault"]
    store.tables.add_status(status())
    assert store.alerts.alerts() == []
    # The last will: offline, one alert; back online closes it.
    assert len(store.tables.add_status({"v": 1, "table": TABLE, "online": False, "at": 1001})) == 1
    assert not store.tables.tables()[0]["online"]
    assert store.tables.tables()[0]["scores"] == [3, 4]  # the last picture is kept
    assert [a["kind"] for a in store.alerts.alerts()] == ["table_offline"]
    store.tables.add_status(status())
    assert store.alerts.alerts() == []
    # Silence: nothing for more than three heartbeats is an alert, once.
    now[0] += 14
    assert store.tables.check_silent() == []
    now[0] += 2
    assert len(store.tables.check_silent()) == 1 and store.tables.check_silent() == []
    assert "no heartbeat for 16 s" in store.alerts.alerts()[0]["text"]
    assert len(store.tables.status_history(TABLE)) == 6


def test_alerts_are_acknowledged_and_closed_in_the_audit(store: DirectorStore) -> None:
    store.tables.add_status({"v": 1, "table": TABLE, "online": False, "at": 1})
    (alert,) = store.alerts.alerts()
    store.alerts.set_alert(alert["id"], "acknowledged", "ann")
    assert (
        store.alerts.alerts()[0]["state"] == "acknowledged"
        and store.alerts.alerts()[0]["who"] == "ann"
    )
    store.alerts.set_alert(alert["id"], "closed", "ann", "power cable back in")
    assert store.alerts.alerts() == []
    assert [(a["who"], a["action"]) for a in store.accounts.audit()] == [
        ("ann", "alert_acknowledged"),
        ("ann", "alert_closed"),
    ]
    with pytest.raises(StoreError, match="no alert"):
        store.alerts.set_alert(999, "closed", "ann")


def test_logins_sessions_and_the_append_only_audit(store_target: str) -> None:
    store = DirectorStore(store_target)
    with pytest.raises(StoreError, match="too short"):
        store.accounts.add_login("ann", "short")
    store.accounts.add_login("ann", "correct horse")
    assert store.accounts.login("ann", "wrong password") is None
    assert store.accounts.login("bob", "correct horse") is None
    token = store.accounts.login("ann", "correct horse")
    assert token is not None and store.accounts.session(token) == "ann"
    assert store.accounts.session("forged") is None
    store.accounts.logout(token)
    assert store.accounts.session(token) is None
    refused = (sqlite3.DatabaseError, psycopg.Error)
    with pytest.raises(refused, match="audit log is append-only"):
        raw(store_target, "DELETE FROM audit")
    with pytest.raises(refused, match="audit log is append-only"):
        raw(store_target, "UPDATE audit SET who = 'mallory'")
    if store_target.startswith("postgresql://"):
        with pytest.raises(refused, match="audit log is append-only"):
            raw(store_target, "TRUNCATE audit")
    assert [a["action"] for a in store.accounts.audit()] == [
        "login_set",
        "login_failed",
        "login_failed",
    ]
    # The hash is Argon2id (its salt inside): never the password.
    ((_salt, digest),) = raw(store_target, "SELECT salt, hash FROM directors")
    assert bytes(digest).startswith(b"$argon2id$") and b"correct horse" not in bytes(digest)
    # Reopened, everything is there.
    store.close()
    again = DirectorStore(store_target)
    assert again.accounts.logins() == ["ann"]
    assert again.accounts.session(token) is None


def test_another_programs_database_is_refused(store_target: str) -> None:
    raw(store_target, "CREATE TABLE x (y INTEGER)")
    with pytest.raises(StoreError, match="not a director's store"):
        DirectorStore(store_target)
    assert raw(store_target, "SELECT count(*) FROM x") == [(0,)]  # and left as it was


def test_ruling_and_ack_are_audited(store: DirectorStore) -> None:
    payload = {
        "v": 1,
        "ruling_id": "r1",
        "table": TABLE,
        "kind": "adjust_score",
        "event": {"event": "score_adjusted", "team": "NS", "points": 1, "reason": "x"},
        "reason": "miscounted",
        "director": "ann",
        "at": 5.0,
        "sig": "AA==",
    }
    store.rulings.add_ruling(payload)
    assert [r["state"] for r in store.rulings.rulings(TABLE)] == ["pending"]
    assert [u[0] for u in store.rulings.unanswered(TABLE)] == ["r1"]
    store.rulings.ruling_sent("r1", TABLE)  # sent again: the table was away
    ack = {"v": 1, "table": TABLE, "ruling_id": "r1", "problem": None, "at": 6.0}
    assert store.rulings.add_ack({**ack, "ok": None, "state": "delivered"})
    (r,) = store.rulings.rulings(TABLE)
    assert (r["state"], r["sends"]) == ("delivered", 2)
    # Another table cannot answer it (its own signature says it is the other table).
    assert not store.rulings.add_ack({**ack, "table": "table-9", "ok": False, "state": "refused"})
    assert store.rulings.add_ack({**ack, "ok": True, "state": "applied"})
    assert not store.rulings.add_ack({**ack, "ok": True, "state": "applied"})  # a copy's answer
    (r,) = store.rulings.rulings(TABLE)
    assert r["ack_ok"] is True and r["state"] == "applied" and r["payload"] == payload
    assert store.rulings.unanswered(TABLE) == []
    assert [a["action"] for a in store.accounts.audit()] == ["ruling_sent", "ruling_applied"]
    assert json.loads(store.accounts.audit()[0]["detail"])["sig"] == "AA=="


def test_postgresql_crashing_mid_event_keeps_every_commit_and_refuses_the_rest(
    tmp_path: Path,
) -> None:
    """A PostgreSQL server of its own, crashed (immediate shutdown) with half a game
    stored: while it is down every write and read says the database is unavailable (so
    the director acknowledges nothing and the broker keeps it), a batch is taken back
    whole; restarted on the same port, the store connects again by itself, has every
    event it committed, and takes the rest."""
    messages, _ = real_game()
    half = len(messages) // 2
    server = Postgres().start()
    try:
        store = DirectorStore(server.new_database())
        assert store.events.add_events(messages[:half]) == [(True, [])] * half
        with pytest.raises(StoreUnavailable, match="cannot be reached"), store.batch():
            store.events.add_event(messages[half])
            server.crash()  # in the middle of a batch
            store.events.add_event(messages[half + 1])
        with pytest.raises(StoreUnavailable, match="check that PostgreSQL runs"):
            store.events.add_events(messages[half:])
        with pytest.raises(StoreUnavailable):
            store.events.count_events()
        server.start()
        assert store.events.count_events() == half
        results = store.events.add_events(messages[half - 2 :])  # two of them again
        assert [r[0] for r in results if isinstance(r, tuple)] == [False, False] + [True] * (
            len(messages) - half
        )
        assert [e["seq"] for e in store.events.events(TABLE, 1)] == [m["seq"] for m in messages]
        assert (
            store.projections.projection(TABLE, 1).game.state_key()
            == replayed(messages).state_key()
        )
        store.close()
    finally:
        server.close()


def test_a_postgresql_url_that_leads_nowhere_says_what_to_check() -> None:
    with pytest.raises(StoreError, match="cannot connect") as err:
        DirectorStore("postgresql://ann:secret@127.0.0.1:9/spring_open")
    assert "PostgreSQL runs there" in str(err.value)
    assert "secret" not in str(err.value)  # the password is never shown
    with pytest.raises(StoreError, match="cannot be read"):
        DirectorStore("postgresql://ann@127.0.0.1:5432/x?sslmode=sometimes&&=")


def test_a_tables_clock_offset_raises_its_alert_and_closes_it(store_target: str) -> None:
    """The offset is the heartbeat's ``at`` less the director's clock at receipt; three
    heartbeats over the limit raise one alert, the first one within it closes it."""
    now = [1000.0]
    store = DirectorStore(store_target, clock=lambda: now[0])

    def beat(ahead: float) -> list[int]:
        now[0] += 5  # every heartbeat a full interval after the last
        return store.tables.add_status(status(at=now[0] + ahead))

    assert beat(0.2) == []
    assert store.tables.tables()[0]["clock_offset"] == pytest.approx(0.2)
    assert beat(47) == [] and beat(47) == []  # the smallest of the last few: still 0.2
    assert store.tables.tables()[0]["clock_offset"] == pytest.approx(0.2)
    assert beat(47) == [] and beat(47) == []
    assert len(beat(47)) == 1  # 5 kept: the 0.2 is gone, every one is over the limit
    assert store.tables.tables()[0]["clock_offset"] == pytest.approx(47)
    (alert,) = store.alerts.alerts()
    assert alert["kind"] == "clock" and alert["table"] == TABLE
    assert alert["text"] == (
        f"{TABLE}'s clock is 47 s ahead of the director's: evidence times and latency "
        "figures are off. On the table: `sudo timedatectl set-ntp true`, or check its "
        "network time"
    )
    assert beat(48) == []  # one alert while it is open
    # NTP put it right: the clock went back, so this `at` is older than the last one,
    # but it comes a heartbeat later: counted, and the alert closes by itself.
    assert beat(-0.3) == []
    assert store.alerts.alerts() == []
    assert store.tables.tables()[0]["clock_offset"] == pytest.approx(-0.3)
    (closed,) = store.alerts.alerts(states=("closed",))
    assert closed["kind"] == "clock" and closed["who"] == "table"


def test_a_late_or_retained_heartbeat_raises_no_clock_alert(store_target: str) -> None:
    now = [1000.0]
    store = DirectorStore(store_target, clock=lambda: now[0])
    for _ in range(3):
        now[0] += 5
        store.tables.add_status(status(at=now[0] + 0.1))
    last = now[0] + 0.1
    # A heartbeat held 30 s somewhere: one late sample does not move the offset.
    now[0] += 5
    assert store.tables.add_status(status(at=now[0] - 30)) == []
    # The broker's retained copy after a restart (old, because it waited): not counted.
    now[0] += 600
    assert store.tables.add_status(status(at=last), retained=True) == []
    # The same heartbeat again, not flagged as retained: its `at` is not newer.
    assert store.tables.add_status(status(at=last)) == []
    assert store.alerts.alerts() == []
    assert store.tables.tables()[0]["clock_offset"] == pytest.approx(0.1)
    # What the broker held while the director was away comes all at once: the last
    # (the freshest) stands for them all, and one sample never raises an alert.
    now[0] += 600
    for late in (50, 40, 30, 20, 10, 3):
        assert store.tables.add_status(status(at=now[0] - late)) == []
    now[0] += 5
    assert store.tables.add_status(status(at=now[0] + 0.1)) == []  # a live one: within again
    assert store.alerts.alerts() == []
    assert store.tables.tables()[0]["clock_offset"] == pytest.approx(0.1)


def test_the_clock_offset_is_taken_at_receipt_not_when_stored(store_target: str) -> None:
    now = [1000.0]
    store = DirectorStore(store_target, clock=lambda: now[0])
    # Received at 990, stored at 1000 (a busy writer): the table's clock is right.
    store.tables.add_status(status(at=990.5), received=990.0)
    assert store.tables.tables()[0]["clock_offset"] == pytest.approx(0.5)
    # The history keeps the table's message as it was sent.
    assert "clock_offset" not in store.tables.status_history(TABLE)[-1]["status"]
