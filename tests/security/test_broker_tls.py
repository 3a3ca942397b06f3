"""The feed over TLS, end to end, on a real mosquitto configured by `feed broker-config
--tls` with the certificates `feed tls-certs` made: a real table process publishes, the
director stores, a ruling comes back and is applied. A client holding another CA, or
reaching the broker under a name its certificate does not carry, is refused in one line
(a machine answering in the broker's place gets no password and no game)."""

from __future__ import annotations

from pathlib import Path

from security.feed_event import (
    TOPICS,
    TableProcess,
    broker_files,
    director,
    password,
    start_broker,
    table_config,
    wait_until,
)
from table_controller.cli import main
from table_controller.director.service import BrokerConfig, DirectorService
from table_controller.director.store import DirectorStore
from table_controller.event_log import EventLog
from table_controller.feed.publisher import FeedSettings, Publisher


def certs(folder: Path, *hosts: str) -> Path:
    assert main(["feed", "tls-certs", "--out", str(folder), "--host", *hosts]) == 0
    return folder


def test_the_feed_runs_over_tls_end_to_end(tmp_path: Path) -> None:
    ca = certs(tmp_path / "certs", "localhost") / "ca.crt"
    folder = broker_files(tmp_path / "broker", "--tls", str(tmp_path / "certs"))
    conf = (folder / "mosquitto.conf").read_text()
    assert "listener 8883\n" in conf and f"cafile {ca}" in conf and "listener 1883" not in conf
    broker = start_broker(folder)
    store = DirectorStore(tmp_path / "director.sqlite")
    svc = director(store, folder, broker.port, host="localhost", tls_ca=ca)
    config = table_config(tmp_path / "table", folder, broker.port, host="localhost", tls_ca=ca)
    table = TableProcess(config)
    try:
        table.start()
        wait_until(
            "the table's deal stored",
            lambda: "hand_dealt" in [e["input"]["event"] for e in store.events.events("table-1")],
        )
        wait_until(
            "the table plays hand 1", lambda: store.tables.table_position("table-1") == (1, 1)
        )
        sent = svc.send_ruling(
            director="ann", table="table-1", kind="adjust_score", reason="exposed card",
            team="EW", points=1,
        )  # fmt: skip
        rid = sent["ruling_id"]
        wait_until(
            "the ruling applied over TLS",
            lambda: (
                [r["state"] for r in store.rulings.rulings() if r["ruling_id"] == rid]
                == ["applied"]
            ),
        )
        assert svc.problem is None
    finally:
        table.kill()
        svc.stop()
        store.close()
        broker.kill()


def _table_feed(tmp_path: Path, folder: Path, port: int, ca: Path, host: str) -> Publisher:
    log = tmp_path / "t.sqlite"
    EventLog(log, table="Table 1").close()
    settings = FeedSettings(
        table="table-1",
        topics=TOPICS,
        broker=host,
        port=port,
        username="table-1",
        password=password(folder, "table-1"),
        tls_ca=ca,
        backoff=(0.05, 0.3),
    )
    return Publisher(settings, log)


def test_a_broker_signed_by_another_ca_or_for_another_name_is_refused(tmp_path: Path) -> None:
    certs(tmp_path / "certs", "localhost")
    other = certs(tmp_path / "other", "localhost") / "ca.crt"  # another event's CA
    folder = broker_files(tmp_path / "broker", "--tls", str(tmp_path / "certs"))
    broker = start_broker(folder)
    cases = {
        "another CA": (other, "localhost", "self-signed certificate in certificate chain"),
        "another name": (tmp_path / "certs" / "ca.crt", "127.0.0.1", "mismatch"),
    }
    try:
        for what, (ca, host, why) in cases.items():
            pub = _table_feed(tmp_path / what, folder, broker.port, ca, host)
            pub.start()
            try:
                wait_until(f"{what}: refused", lambda p=pub: "TLS certificate" in (p.problem or ""))
                problem = pub.problem or ""
                assert why in problem and "tls_ca" in problem and "\n" not in problem
                assert not pub.connected_event.is_set()
            finally:
                pub.stop()
        store = DirectorStore(tmp_path / "director.sqlite")
        svc = DirectorService(
            store,
            BrokerConfig(
                "localhost", broker.port, "director", password(folder, "director"), str(other)
            ),
            prefix=TOPICS.prefix,
        )
        svc.start()
        try:
            problem = svc.problem or ""
            assert "TLS certificate was refused" in problem and "\n" not in problem
            assert not svc.connected.is_set()
        finally:
            svc.stop()
            store.close()
    finally:
        broker.kill()
