"""The event's broker files against a real mosquitto: passwords in mosquitto's own hash
format, each table writing only its own topics, only the director writing rulings."""

from __future__ import annotations

import io
import os
import pwd
import shlex
import shutil
import socket
import subprocess
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from mosquitto import Mosquitto, free_port
from paho.mqtt.enums import CallbackAPIVersion
from waiting import wait_until

from table_controller.cli import main
from table_controller.feed.broker import RunAs, broker_user, table_ids, write_broker_config
from table_controller.feed.messages import Topics

TOPICS = Topics.of("euchre", "may")


def connect(
    port: int, user: str, password: str, *topics: str
) -> tuple[mqtt.Client, list[str], list[object]]:
    got: list[str] = []
    codes: list[object] = []
    ready = threading.Event()
    c = mqtt.Client(CallbackAPIVersion.VERSION2)
    c.username_pw_set(user, password)

    def on_connect(client: mqtt.Client, u: object, f: object, rc: object, p: object) -> None:
        codes.append(rc)
        if topics and not getattr(rc, "is_failure", False):
            client.subscribe([(t, 1) for t in topics])
        else:
            ready.set()

    c.on_connect = on_connect
    c.on_subscribe = lambda *a: ready.set()
    c.on_message = lambda cl, u, m: got.append(m.topic)
    c.connect("127.0.0.1", port)
    c.loop_start()
    assert ready.wait(60)
    return c, got, codes


def test_tables_write_only_their_own_topics_and_only_the_director_rules(tmp_path: Path) -> None:
    tables = table_ids(["2"])
    files = write_broker_config(tmp_path / "ev", TOPICS, tables, persistence=False)
    pw = files.passwords
    conf = (tmp_path / "ev" / "mosquitto.conf").read_text()
    head, _, rest = conf.partition("\nlistener ")  # its listener's own lines kept under ours
    with Mosquitto(tmp_path / "broker", head + "\n", listener=rest.split("\n", 1)[1]) as broker:
        director, seen, _ = connect(broker.port, "director", pw["director"], TOPICS.all_tables)
        # Each table also reads a topic of its own that the director writes last: a barrier.
        mine = {t: (TOPICS.rulings(t), TOPICS.received(t)) for t in ("table-1", "table-2")}
        t2, t2_got, _ = connect(
            broker.port, "table-2", pw["table-2"], TOPICS.rulings("table-1"), *mine["table-2"]
        )
        t1, t1_got, _ = connect(broker.port, "table-1", pw["table-1"], *mine["table-1"])
        for topic in (
            TOPICS.events("table-2"),  # another table's
            TOPICS.rulings("table-1"),  # a ruling from a table
            TOPICS.events("table-1"),  # its own: allowed
        ):
            t1.publish(topic, b"{}", qos=1).wait_for_publish(60)
        for topic in (TOPICS.rulings("table-1"), TOPICS.received("table-1")):
            director.publish(topic, b"{}", qos=1).wait_for_publish(60)
        director.publish(TOPICS.received("table-2"), b"{}", qos=1).wait_for_publish(60)
        # The broker routes each message as it takes it and delivers to each client in
        # order: once the director's last ones are in, anything wrongly let through is too.
        wait_until("the director's last", lambda: TOPICS.received("table-2") in seen)
        wait_until("table-1's mark", lambda: TOPICS.received("table-1") in t1_got)
        wait_until("table-2's mark", lambda: TOPICS.received("table-2") in t2_got)
        assert TOPICS.events("table-2") not in seen
        assert TOPICS.events("table-1") in seen
        assert seen.count(TOPICS.rulings("table-1")) == 1  # the director's only
        # table-1 its own rulings, from the director only; table-2 none of table-1's.
        assert t1_got == [TOPICS.rulings("table-1"), TOPICS.received("table-1")]
        assert t2_got == [TOPICS.received("table-2")]
        for c in (director, t1, t2):
            c.disconnect()
            c.loop_stop()
        _, _, codes = connect(broker.port, "table-1", "wrong password")
        assert getattr(codes[0], "is_failure", False)


def test_broker_config_command_writes_everything(tmp_path: Path) -> None:
    out = tmp_path / "ev"
    args = ["feed", "broker-config", "--event", "may", "--tables", "3", "--out", str(out)]
    assert main(args) == 0
    names = {p.name for p in out.iterdir()}
    assert {
        "mosquitto.conf",
        "passwords",
        "acl",
        "passwords.txt",
        "director.key",
        "director.pub",
    } <= names
    assert (out / "passwords").stat().st_mode & 0o077 == 0
    assert "user table-3" in (out / "acl").read_text()


# --- the printed command, run as a person would run it -----------------------------------

ROOT_ONLY = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to start as root"
)


def printed_command(folder: Path, *more: str) -> tuple[list[str], str, int]:
    """``feed broker-config`` for ``folder``: the mosquitto command it prints, all it
    said, and the port."""
    port = free_port()
    out = io.StringIO()
    argv = ["feed", "broker-config", "--event", "may", "--tables", "2", "--out", str(folder)]
    argv += ["--port", str(port), "--bind", "127.0.0.1", *more]
    assert main(argv, out=out) == 0
    said = out.getvalue()
    line = next(x for x in said.splitlines() if x.strip().startswith("mosquitto -c "))
    return shlex.split(line.split("   (")[0]), said, port


def director_connects(folder: Path, command: list[str], port: int) -> None:
    """Run ``command``; the director's user connects with its password from secrets/."""
    log = folder.parent / f"{folder.name}-mosquitto.log"
    with log.open("wb") as out:
        broker = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
    try:

        def listening() -> bool:
            assert broker.poll() is None, f"mosquitto stopped:\n{log.read_text()}"
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            except OSError:
                return False
            return True

        wait_until("the broker listens", listening)
        password = (folder / "secrets" / "director.password").read_text().strip()
        client, _, codes = connect(port, "director", password)
        client.disconnect()
        client.loop_stop()
        assert not getattr(codes[0], "is_failure", True), codes
    finally:
        broker.terminate()
        broker.wait(10)
    # It kept its data where it may write: data/ (persistence on).
    assert (folder / "data" / "mosquitto.db").exists(), log.read_text()


@ROOT_ONLY
def test_as_root_the_printed_command_runs_the_broker_as_mosquitto() -> None:
    if not user_exists("mosquitto"):
        pytest.skip("no mosquitto user here (the package makes it)")
    # A folder the mosquitto user can reach (pytest's own are closed to other users).
    top = Path(tempfile.mkdtemp(prefix="broker-", dir="/tmp"))
    try:
        top.chmod(0o755)
        folder = top / "broker"
        command, said, port = printed_command(folder)
        assert "started as root, it runs as mosquitto)" in said
        assert "user mosquitto" in (folder / "mosquitto.conf").read_text().splitlines()
        mosquitto = pwd.getpwnam("mosquitto").pw_uid
        for name in ("passwords", "acl", "data"):
            assert (folder / name).stat().st_uid == mosquitto, name
        for name in ("passwords.txt", "director.key", "secrets"):
            assert (folder / name).stat().st_uid == 0, f"{name} stays root's"
        director_connects(folder, command, port)
    finally:
        shutil.rmtree(top)


@ROOT_ONLY
def test_as_root_in_a_folder_mosquitto_cannot_reach_it_stays_root(tmp_path: Path) -> None:
    tmp_path.chmod(0o700)  # as under /root
    folder = tmp_path / "broker"
    command, said, port = printed_command(folder)
    assert "it runs as root (the user mosquitto cannot reach" in said or (
        "it runs as root (there is no user mosquitto" in said
    )
    director_connects(folder, command, port)


@ROOT_ONLY
def test_written_by_a_user_it_runs_as_that_user_started_by_root_or_by_them() -> None:
    if not user_exists("nobody"):
        pytest.skip("no user nobody here")
    nobody = pwd.getpwnam("nobody")
    top = Path(tempfile.mkdtemp(prefix="broker-", dir="/tmp"))
    try:
        top.chmod(0o755)
        folder = top / "broker"
        folder.mkdir()
        # The files as `feed broker-config` run by that user writes them: theirs, with
        # their own name on the user line.
        run_as = broker_user(folder, euid=nobody.pw_uid)
        assert run_as == RunAs("nobody")
        port = free_port()
        write_broker_config(folder, TOPICS, ["table-1"], port=port, bind="127.0.0.1", run_as=run_as)
        for path in [folder, *folder.rglob("*")]:
            os.chown(path, nobody.pw_uid, nobody.pw_gid)
        assert "user nobody" in (folder / "mosquitto.conf").read_text().splitlines()
        command = ["mosquitto", "-c", str(folder / "mosquitto.conf")]
        director_connects(folder, ["runuser", "-u", "nobody", "--", *command], port)
        director_connects(folder, command, port)  # root: drops to nobody, who owns them
    finally:
        shutil.rmtree(top)


def test_who_the_broker_runs_as() -> None:
    class User:
        def __init__(self, name: str, uid: int) -> None:
            self.pw_name, self.pw_uid, self.pw_gid = name, uid, uid

    def users(name: str) -> User:
        if name != "mosquitto":
            raise KeyError(name)
        return User("mosquitto", 103)

    def stat(mode: int) -> Callable[[Path], os.stat_result]:
        return lambda _p: os.stat_result((0o40000 | mode, 0, 0, 2, 0, 0, 0, 0, 0, 0))

    folder = Path("/srv/euchre/broker")
    ann = broker_user(folder, euid=1000, user_of=lambda uid: User("ann", uid))
    assert ann == RunAs("ann")
    assert broker_user(folder, euid=0, users=users, stat=stat(0o755)) == RunAs(
        "mosquitto", 103, 103
    )
    closed = broker_user(folder, euid=0, users=users, stat=stat(0o700))
    assert closed.name == "root" and "cannot reach /srv/euchre/broker" in closed.why
    none = broker_user(folder, euid=0, users=lambda n: users("x"), stat=stat(0o755))
    assert none.name == "root" and "no user mosquitto" in none.why


def user_exists(name: str) -> bool:
    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True
