"""The fleet's broker against a real mosquitto with its dynamic security plugin: tables
added while it runs, each reading and writing only its own topics, removed (its
connection dropped, its password refused), kept across a restart of the broker."""

from __future__ import annotations

import base64
import json
import os
import queue
import shutil
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from mosquitto import MOSQUITTO, free_port
from paho.mqtt.enums import CallbackAPIVersion
from waiting import wait_until

from table_controller.director.broker import (
    BrokerAdminError,
    DynsecAdmin,
    FleetBroker,
    TableCredentials,
    dynsec_hash,
    find_plugin,
    write_fleet_broker,
)
from table_controller.feed.broker_process import BrokerProcess, BrokerStartError

PREFIX = "euchre/may"


def tables_topic(table: str, leaf: str) -> str:
    return f"{PREFIX}/tables/{table}/{leaf}"


@dataclass
class Peer:
    """A paho client, as a table or the director logs in: what it got, and its fate."""

    client: mqtt.Client
    got: queue.Queue[tuple[str, bytes]] = field(default_factory=queue.Queue)
    connacks: list[Any] = field(default_factory=list)
    disconnects: list[Any] = field(default_factory=list)
    subacks: queue.Queue[list[Any]] = field(default_factory=queue.Queue)

    def subscribe(self, topic: str) -> bool:
        """Whether the broker granted the subscription (its SUBACK)."""
        self.client.subscribe(topic, qos=1)
        codes = self.subacks.get(timeout=30)
        return not any(c.is_failure for c in codes)

    def publish(self, topic: str, payload: str) -> None:
        self.client.publish(topic, payload, qos=1).wait_for_publish(30)

    def next(self) -> tuple[str, bytes]:
        return self.got.get(timeout=30)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def log_in(port: int, user: str, password: str, tls_ca: Path | None = None) -> Peer:
    c = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv311)
    c.username_pw_set(user, password)
    if tls_ca is not None:
        c.tls_set(ca_certs=str(tls_ca))
    c.reconnect_delay_set(60, 60)  # a refused login stays refused for the test to see
    peer = Peer(c)
    c.on_connect = lambda _c, _u, _f, rc, _p: peer.connacks.append(rc)
    c.on_disconnect = lambda _c, _u, _f, rc, _p: peer.disconnects.append(rc)
    c.on_subscribe = lambda _c, _u, _m, rcs, _p: peer.subacks.put(list(rcs))
    c.on_message = lambda _c, _u, m: peer.got.put((m.topic, m.payload))
    c.connect("127.0.0.1", port)
    c.loop_start()
    wait_until(f"{user}'s CONNACK", lambda: bool(peer.connacks))
    return peer


@dataclass
class Fleet:
    files: FleetBroker
    broker: BrokerProcess
    admin: DynsecAdmin

    def director(self) -> Peer:
        return log_in(self.files.port, "director", self.files.director_password())


@pytest.fixture
def fleet(tmp_path: Path) -> Iterator[Fleet]:
    files = write_fleet_broker(tmp_path / "broker", port=free_port(), prefix=PREFIX)
    broker = BrokerProcess(files.conf, files.port, MOSQUITTO).start()
    try:
        yield Fleet(files, broker, DynsecAdmin.of(files, prefix=PREFIX))
    finally:
        broker.stop()


def test_a_table_reads_and_writes_its_own_topics_only_and_the_director_all(
    fleet: Fleet,
) -> None:
    admin: TableCredentials = fleet.admin
    one, two = admin.add_table("table-1"), admin.add_table("table-2")
    assert admin.tables() == ["table-1", "table-2"]
    director = fleet.director()
    assert director.subscribe(f"{PREFIX}/#")
    t1 = log_in(fleet.files.port, "table-1", one)
    assert not t1.connacks[0].is_failure
    try:
        # Its own feed reaches the director...
        for leaf in ("events", "status", "acks", "evidence/3/7", "fleet/config", "fleet/camera"):
            t1.publish(tables_topic("table-1", leaf), leaf)
            assert director.next() == (tables_topic("table-1", leaf), leaf.encode())
        # ...another table's never does: the marker sent after it arrives first.
        for leaf in ("events", "status", "rulings", "config"):
            t1.publish(tables_topic("table-2", leaf), "forged")
        t1.publish(tables_topic("table-1", "rulings"), "forged")  # the director's to write
        t1.publish(f"{PREFIX}/other", "forged")
        t1.publish(tables_topic("table-1", "events"), "marker")
        assert director.next() == (tables_topic("table-1", "events"), b"marker")
        # It reads what is sent to it, and nothing of the other table's or the event's.
        for leaf in ("rulings", "received", "config", "commands"):
            assert t1.subscribe(tables_topic("table-1", leaf)), leaf
        for topic in (
            tables_topic("table-2", "config"),
            tables_topic("table-2", "events"),
            f"{PREFIX}/tables/+/config",
            f"{PREFIX}/#",
            "#",
        ):
            assert not t1.subscribe(topic), topic
        for leaf in ("rulings", "received", "config", "commands"):
            director.publish(tables_topic("table-2", leaf), "for two")
            director.publish(tables_topic("table-1", leaf), "for one")
            assert t1.next() == (tables_topic("table-1", leaf), b"for one")
        assert t1.got.empty()
        # The table cannot add itself a friend.
        assert not t1.subscribe("$CONTROL/dynamic-security/v1/response")
        forged = {"command": "createClient", "username": "mallory", "password": "x"}
        t1.publish("$CONTROL/dynamic-security/v1", json.dumps({"commands": [forged]}))
        assert admin.tables() == ["table-1", "table-2"]
        t2 = log_in(fleet.files.port, "table-2", two)
        assert not t2.connacks[0].is_failure
        t2.close()
    finally:
        t1.close()
        director.close()


def test_removing_a_table_drops_its_connection_and_refuses_its_password(fleet: Fleet) -> None:
    password = fleet.admin.add_table("table-7")
    live = log_in(fleet.files.port, "table-7", password)
    assert not live.connacks[0].is_failure
    fleet.admin.remove_table("table-7")
    wait_until("the removed table is dropped", lambda: bool(live.disconnects))
    live.close()
    again = log_in(fleet.files.port, "table-7", password)
    again.close()
    assert again.connacks[0].is_failure
    assert again.connacks[0].getName() == "Not authorized"
    assert fleet.admin.tables() == []
    fleet.admin.remove_table("table-7")  # twice: nothing left to remove, no error


def test_adding_a_table_again_gives_it_a_new_password(fleet: Fleet) -> None:
    old = fleet.admin.add_table("table-3")
    new = fleet.admin.add_table("table-3")
    assert new != old
    refused = log_in(fleet.files.port, "table-3", old)
    refused.close()
    assert refused.connacks[0].is_failure
    taken = log_in(fleet.files.port, "table-3", new)
    assert taken.subscribe(tables_topic("table-3", "config"))
    taken.close()
    assert fleet.admin.tables() == ["table-3"]


def test_a_restarted_broker_keeps_its_tables(fleet: Fleet) -> None:
    password = fleet.admin.add_table("table-4")
    fleet.admin.add_table("table-5")
    fleet.admin.remove_table("table-5")
    fleet.broker.stop()
    again = write_fleet_broker(fleet.files.folder, port=fleet.files.port, prefix=PREFIX)
    assert again.director_password() == fleet.files.director_password()
    fleet.broker.start()
    assert fleet.admin.tables() == ["table-4"]
    table = log_in(fleet.files.port, "table-4", password)
    assert table.subscribe(tables_topic("table-4", "commands"))
    table.close()
    kept = json.loads(fleet.files.dynsec.read_text())
    assert {c["username"] for c in kept["clients"]} == {"director", "director-admin", "table-4"}


@pytest.mark.parametrize(
    "table", ["table/1", "table+1", "#", "table-#", "director", "director-admin", "", "Table 1"]
)
def test_a_table_id_that_is_not_one_is_refused_in_words(table: str) -> None:
    admin = DynsecAdmin("127.0.0.1", free_port(), "director-admin", "x", prefix=PREFIX)
    for call in (admin.add_table, admin.remove_table):
        with pytest.raises(BrokerAdminError) as err:
            call(table)
        words = str(err.value)
        assert "director" in words or "lowercase letters, digits" in words


def test_an_admin_with_a_wrong_password_or_no_broker_is_told_in_words(fleet: Fleet) -> None:
    wrong = DynsecAdmin("127.0.0.1", fleet.files.port, "director-admin", "nope", prefix=PREFIX)
    with pytest.raises(BrokerAdminError, match="refused the director's login director-admin"):
        wrong.add_table("table-1")
    fleet.broker.stop()
    with pytest.raises(BrokerAdminError, match="cannot be reached.*check that the director's"):
        fleet.admin.tables()


def test_the_files_are_private_and_a_second_call_keeps_them(tmp_path: Path) -> None:
    folder = tmp_path / "broker"
    first = write_fleet_broker(folder, port=1883, prefix=PREFIX)
    for f in (first.dynsec, first.director_password_file, first.admin_password_file):
        assert f.stat().st_mode & 0o777 == 0o600, f
    assert (folder / "secrets").stat().st_mode & 0o777 == 0o700
    conf = first.conf.read_text()
    assert "allow_anonymous false" in conf and "use_username_as_clientid true" in conf
    assert f"plugin_opt_config_file {first.dynsec}" in conf
    kept = first.dynsec.read_bytes()
    second = write_fleet_broker(folder, port=1884, prefix=PREFIX)
    assert second.dynsec.read_bytes() == kept
    assert second.director_password() == first.director_password()
    assert "listener 1884 0.0.0.0" in second.conf.read_text()
    with pytest.raises(BrokerAdminError, match="another event.*euchre/may.*new --folder"):
        write_fleet_broker(folder, port=1883, prefix="euchre/june")


def test_the_password_hash_is_the_plugins_own(tmp_path: Path) -> None:
    """What `mosquitto_ctrl dynsec init` writes, from its own salt."""
    ctrl = shutil.which("mosquitto_ctrl")
    if ctrl is None:
        pytest.skip("mosquitto_ctrl is not installed (Debian's mosquitto-clients)")
    made = tmp_path / "init.json"
    subprocess.run([ctrl, "dynsec", "init", str(made), "admin", "s3cret"], check=True)
    client = json.loads(made.read_text())["clients"][0]
    ours = dynsec_hash("s3cret", salt=base64.b64decode(client["salt"]))
    assert ours == {k: client[k] for k in ("password", "salt", "iterations")}


def test_a_missing_plugin_is_said_with_its_package(tmp_path: Path) -> None:
    with pytest.raises(BrokerAdminError, match="Debian's package `mosquitto`"):
        find_plugin([str(tmp_path / "*" / "mosquitto_dynamic_security.so")])
    with pytest.raises(BrokerAdminError, match="dynamic security plugin"):
        write_fleet_broker(
            tmp_path / "b", port=1883, prefix=PREFIX, plugin_patterns=[str(tmp_path / "x.so")]
        )
    # A conf naming a plugin that is gone (mosquitto upgraded away under it).
    files = write_fleet_broker(tmp_path / "broker", port=free_port(), prefix=PREFIX)
    text = files.conf.read_text().replace(str(find_plugin()), str(tmp_path / "gone.so"))
    files.conf.write_text(text)
    with pytest.raises(BrokerStartError, match="cannot load its dynamic security plugin"):
        BrokerProcess(files.conf, files.port, MOSQUITTO).start()


def test_a_taken_port_is_said_in_words(fleet: Fleet, tmp_path: Path) -> None:
    other = write_fleet_broker(tmp_path / "other", port=fleet.files.port, prefix=PREFIX)
    with pytest.raises(BrokerStartError, match=f"port {fleet.files.port} is taken"):
        BrokerProcess(other.conf, other.port, MOSQUITTO).start()
    assert fleet.broker.running


def test_a_broker_that_stops_as_it_starts_says_why(tmp_path: Path) -> None:
    files = write_fleet_broker(tmp_path / "broker", port=free_port(), prefix=PREFIX)
    files.conf.write_text(files.conf.read_text() + "no_such_option 1\n")
    with pytest.raises(BrokerStartError, match="mosquitto stopped as it started") as err:
        BrokerProcess(files.conf, files.port, MOSQUITTO).start()
    assert "no_such_option" in str(err.value)
    gone = BrokerProcess(files.conf, files.port, str(tmp_path / "no-mosquitto"))
    with pytest.raises(BrokerStartError, match="apt-get install mosquitto"):
        gone.start()


def test_requests_from_several_threads_take_turns(fleet: Fleet) -> None:
    """The admin's client id is its username: two at once would knock each other off."""
    passwords: dict[str, str] = {}

    def add(n: int) -> None:
        passwords[f"table-{n}"] = fleet.admin.add_table(f"table-{n}")

    threads = [threading.Thread(target=add, args=(n,)) for n in range(1, 7)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert fleet.admin.tables() == sorted(passwords)
    assert os.path.getsize(fleet.files.dynsec) > 0


def test_the_directors_service_publishes_a_tables_retained_config(
    fleet: Fleet, tmp_path: Path
) -> None:
    from table_controller.director.service import BrokerConfig, DirectorService
    from table_controller.director.store import DirectorStore

    password = fleet.admin.add_table("table-2")
    store = DirectorStore(tmp_path / "director.sqlite")
    files = fleet.files
    login = BrokerConfig(
        host="127.0.0.1",
        port=files.port,
        username="director",
        password=files.director_password(),
        client_id="director",
    )
    service = DirectorService(store, login, prefix=PREFIX)
    service.start()
    try:
        wait_until("the director is connected", service.connected.is_set)
        service.publish(tables_topic("table-2", "config"), '{"seq": 1}', True)
        table = log_in(files.port, "table-2", password)
        assert table.subscribe(tables_topic("table-2", "config"))
        assert table.next() == (tables_topic("table-2", "config"), b'{"seq": 1}')
        table.close()
    finally:
        service.stop()
        store.close()
