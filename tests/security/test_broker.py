"""The event's broker as `feed broker-config` writes it, attacked on a real mosquitto by
a user at the venue who holds one table's password; and the secrets' files.

Before: a client could connect with another's id (``director``), knock the director off
and resume its persistent session (no ``use_username_as_clientid``); a table's password
sat in table.toml; nothing said a secrets file was readable by others."""

from __future__ import annotations

import json
import stat
import time
from pathlib import Path

import pytest

from security.feed_event import (
    TOPICS,
    broker_files,
    connect,
    password,
    start_broker,
    table_config,
    wait_until,
)
from table_controller.cli import main
from table_controller.director.service import BrokerConfig, DirectorService
from table_controller.director.store import DirectorStore


def event(table: str, seq: int) -> dict[str, object]:
    return {
        "v": 1, "table": table, "game": 1, "seq": seq, "at": time.time(), "source": "camera",
        "input": {"event": "passed", "seat": "N"}, "outputs": [], "hand": 1, "evidence": False,
    }  # fmt: skip


def test_no_one_takes_the_directors_client_id_or_its_session(tmp_path: Path) -> None:
    folder = broker_files(tmp_path / "broker")
    assert "use_username_as_clientid true" in (folder / "mosquitto.conf").read_text()
    broker = start_broker(folder)
    pw = {u: password(folder, u) for u in ("director", "table-1", "table-2")}
    director = connect(
        broker.port, "director", pw["director"], subscribe=TOPICS.all_tables,
        client_id="director", clean=False,
    )  # fmt: skip
    table2 = connect(broker.port, "table-2", pw["table-2"])
    try:
        # Knock the director off: connect as table-1 under the director's client id.
        thief = connect(
            broker.port, "table-1", pw["table-1"], subscribe=TOPICS.rulings("table-1"),
            client_id="director", clean=False,
        )  # fmt: skip
        table2.publish(TOPICS.events("table-2"), event("table-2", 1))
        wait_until("the director hears table-2", lambda: len(director.got) == 1)
        assert director.gone == []  # never knocked off
        # Its persistent session: kept for it while it is away, not for the thief.
        director.close()
        thief.close()
        table2.publish(TOPICS.events("table-2"), event("table-2", 2))
        thief = connect(
            broker.port, "table-1", pw["table-1"], subscribe=TOPICS.rulings("table-1"),
            client_id="director", clean=False,
        )  # fmt: skip
        back = connect(
            broker.port, "director", pw["director"], subscribe=TOPICS.all_tables,
            client_id="director", clean=False,
        )  # fmt: skip
        wait_until("the director gets what was kept for it", lambda: len(back.got) == 1)
        assert json.loads(back.got[0][1])["seq"] == 2
        assert thief.got == [] and thief.gone == []
        back.close()
        thief.close()
    finally:
        table2.close()
        broker.kill()


def test_a_table_cannot_write_as_another_nor_read_its_rulings(tmp_path: Path) -> None:
    folder = broker_files(tmp_path / "broker")
    broker = start_broker(folder)
    store = DirectorStore(tmp_path / "director.sqlite")
    svc = DirectorService(
        store,
        BrokerConfig("127.0.0.1", broker.port, "director", password(folder, "director")),
        prefix=TOPICS.prefix,
        private_key=(folder / "director.key").read_bytes(),
        resend_after=0.0,
    )
    svc.start()
    wait_until("the director subscribed", svc.connected.is_set)
    # table-1 listens to everything (the broker gives it only what it may read).
    t1 = connect(broker.port, "table-1", password(folder, "table-1"), subscribe="euchre/#")
    try:
        status = {"v": 1, "online": True, "at": time.time(), "every": 60.0, "game": 1, "hand": 1}
        t1.publish(TOPICS.status("table-2"), {**status, "table": "table-2"})  # another's
        t1.publish(TOPICS.events("table-2"), event("table-2", 1))
        t1.publish(
            TOPICS.acks("table-2"), {"v": 1, "table": "table-2", "ruling_id": "x", "ok": True}
        )
        t1.publish(TOPICS.rulings("table-2"), {"v": 1, "ruling_id": "forged"})
        t1.publish(TOPICS.events("table-1"), event("table-2", 1))  # its own topic, lying
        t1.publish(TOPICS.status("table-1"), {**status, "table": "table-1"})  # its own: last
        wait_until("table-1's status", lambda: store.tables.table_position("table-1") == (1, 1))
        assert [t["table"] for t in store.tables.tables()] == ["table-1"]
        assert store.events.events("table-1") == [] and store.accounts.audit() == []
        # The director's ruling for table-2 reaches neither table-1 nor its spy.
        svc.handle(TOPICS.status("table-2"), json.dumps({**status, "table": "table-2"}).encode())
        svc.send_ruling(director="ann", table="table-2", kind="void_hand", reason="misdeal")
        t2 = connect(
            broker.port, "table-2", password(folder, "table-2"), subscribe=TOPICS.rulings("table-2")
        )
        t2.publish(TOPICS.status("table-2"), {**status, "table": "table-2"})  # it is back
        wait_until("table-2 gets its ruling (sent again)", lambda: bool(t2.got))
        # A picture and its clearer one replace only the table's own: table-1 writing a
        # clearer picture on table-2's topic is dropped by the broker.
        t2.publish(TOPICS.events("table-2"), event("table-2", 1))
        t2.publish(TOPICS.evidence("table-2", 1, 1), b"table-2's first")
        wait_until("table-2's picture", lambda: store.events.evidence("table-2", 1, 1) is not None)
        t1.publish(TOPICS.clear_evidence("table-2", 1, 1), b"forged by table-1")
        t2.publish(TOPICS.clear_evidence("table-2", 1, 1), b"table-2's clearer")  # last
        wait_until(
            "table-2's clearer picture",
            lambda: store.events.evidence("table-2", 1, 1) == b"table-2's clearer",
        )
        t1.publish(TOPICS.events("table-1"), event("table-1", 1))
        wait_until(
            "the director stores table-1's own", lambda: len(store.events.events("table-1")) == 1
        )
        wait_until("table-1's received mark", lambda: bool(t1.got))  # what it may read
        assert [t for t, _ in t1.got if "/table-2/" in t] == []
        assert store.events.evidence("table-2", 1, 1) == b"table-2's clearer"
        t2.close()
    finally:
        t1.close()
        svc.stop()
        store.close()
        broker.kill()


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_every_secret_is_written_for_its_owner_only(tmp_path: Path) -> None:
    folder = broker_files(tmp_path / "broker")
    secrets = [folder / "passwords", folder / "passwords.txt", folder / "director.key"]
    secrets += sorted((folder / "secrets").iterdir())
    assert {p.name for p in secrets} >= {
        "director.password",
        "table-1.password",
        "table-2.password",
    }
    assert {p.name: _mode(p) for p in secrets} == {p.name: 0o600 for p in secrets}
    assert _mode(folder / "secrets") == 0o700
    certs = tmp_path / "certs"
    assert main(["feed", "tls-certs", "--out", str(certs), "--host", "127.0.0.1"]) == 0
    assert (_mode(certs / "ca.key"), _mode(certs / "broker.key")) == (0o600, 0o600)
    store = DirectorStore(tmp_path / "director.sqlite")  # the directors' logins are in it
    store.close()
    assert _mode(tmp_path / "director.sqlite") == 0o600


def test_config_check_refuses_a_readable_secrets_file_and_a_password_in_the_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = broker_files(tmp_path / "broker")
    config = table_config(tmp_path / "table", folder, 1883)
    assert main(["config", "check", str(config)]) == 0
    secret = config.parent / "feed.password"
    secret.chmod(0o644)
    capsys.readouterr()
    assert main(["config", "check", str(config)]) == 2
    err = capsys.readouterr().err
    assert f"feed.password_file: {secret} can be read by other users" in err
    assert f"chmod 600 {secret}" in err
    secret.chmod(0o600)
    text = config.read_text().replace('password_file = "feed.password"', 'password = "hunter2"')
    config.write_text(text)
    assert main(["config", "check", str(config)]) == 2
    err = capsys.readouterr().err
    assert "feed.password: a password written in the configuration" in err
    assert "password_file" in err and "hunter2" not in err
