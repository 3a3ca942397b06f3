"""One event's feed for the security tests, as a venue runs it: the broker's files written
by ``table-controller feed broker-config`` (users, ACLs, client ids bound to users, TLS
when asked) on a real mosquitto, the director's real service and SQLite store, and real
table processes (tests/ruled_table.py) configured from a ``table.toml`` with their
password in a secrets file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import waiting
from mosquitto import Mosquitto
from paho.mqtt.enums import CallbackAPIVersion

from table_controller.cli import main
from table_controller.director.service import BrokerConfig, DirectorService
from table_controller.director.store import DirectorStore
from table_controller.feed.messages import Topics

ROOT = Path(__file__).resolve().parents[2]
TOPICS = Topics.of("euchre", "sec")
WAIT = 60.0  # a guard against a hang only: every wait is for a condition


def wait_until(what: str, cond: Callable[[], bool], timeout: float = WAIT) -> None:
    waiting.wait_until(what, cond, timeout)


def broker_files(folder: Path, *extra: str) -> Path:
    """`feed broker-config` for table-1 and table-2 (and ``extra`` options) in ``folder``."""
    args = ["feed", "broker-config", "--event", "sec", "--tables", "2", "--out", str(folder)]
    assert main([*args, *extra]) == 0
    return folder


def start_broker(folder: Path, port: int = 0) -> Mosquitto:
    """mosquitto with the written mosquitto.conf, its listener moved to loopback."""
    conf = (folder / "mosquitto.conf").read_text()
    head, _, rest = conf.partition("\nlistener ")
    under = rest.split("\n", 1)[1] if "\n" in rest else ""
    return Mosquitto(folder, head + "\n", port=port, listener=under).start()


def password(folder: Path, user: str) -> str:
    return (folder / "secrets" / f"{user}.password").read_text().strip()


@dataclass
class Client:
    """A plain MQTT client logged in as one of the event's users."""

    client: mqtt.Client
    got: list[tuple[str, bytes]] = field(default_factory=list)
    codes: list[Any] = field(default_factory=list)
    gone: list[Any] = field(default_factory=list)
    ready: threading.Event = field(default_factory=threading.Event)

    def publish(self, topic: str, payload: Any) -> None:
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.client.publish(topic, data, qos=1).wait_for_publish(WAIT)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def connect(
    port: int,
    user: str,
    secret: str,
    *,
    subscribe: str | None = None,
    client_id: str = "",
    clean: bool = True,
    tls_ca: Path | None = None,
) -> Client:
    c = mqtt.Client(
        CallbackAPIVersion.VERSION2,
        client_id=client_id,
        clean_session=clean,
        protocol=mqtt.MQTTv311,
    )
    c.username_pw_set(user, secret)
    if tls_ca is not None:
        c.tls_set(ca_certs=str(tls_ca))
    me = Client(c)

    def on_connect(client: mqtt.Client, u: object, f: object, rc: Any, p: object) -> None:
        me.codes.append(rc)
        if subscribe is not None and not rc.is_failure:
            client.subscribe(subscribe, qos=1)
        else:
            me.ready.set()

    c.on_connect = on_connect
    c.on_subscribe = lambda *a: me.ready.set()
    c.on_message = lambda cl, u, m: me.got.append((m.topic, bytes(m.payload)))
    c.on_disconnect = lambda cl, u, f, rc, p: me.gone.append(rc)
    c.connect("127.0.0.1", port)
    c.loop_start()
    assert me.ready.wait(WAIT)
    return me


def director(
    store: DirectorStore,
    folder: Path,
    port: int,
    *,
    host: str = "127.0.0.1",
    tls_ca: Path | None = None,
    resend_after: float = 0.2,
) -> DirectorService:
    svc = DirectorService(
        store,
        BrokerConfig(
            host=host,
            port=port,
            username="director",
            password=password(folder, "director"),
            tls_ca=None if tls_ca is None else str(tls_ca),
        ),
        prefix=TOPICS.prefix,
        private_key=(folder / "director.key").read_bytes(),
        mark_every=0.1,
        mark_refresh=0.5,
        resend_after=resend_after,
    )
    svc.start()
    wait_until("the director subscribed", svc.connected.is_set)
    return svc


def table_config(
    folder: Path,
    broker_folder: Path,
    port: int,
    *,
    name: str = "Table 1",
    user: str = "table-1",
    host: str = "127.0.0.1",
    tls_ca: Path | None = None,
) -> Path:
    """A table's table.toml, its password in a secrets file of its own (mode 600)."""
    folder.mkdir(parents=True, exist_ok=True)
    secret = folder / "feed.password"
    fd = os.open(secret, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(password(broker_folder, user) + "\n")
    tls = f'tls_ca = "{tls_ca}"\n' if tls_ca is not None else ""
    path = folder / "table.toml"
    path.write_text(
        f'[table]\nname = "{name}"\ngpio = "mock"\nlog = "table.sqlite"\nfirst_dealer = "W"\n'
        '[camera]\nsource = "synthetic"\ndrift_check = 0\n[cube]\nport = "none"\n'
        '[web]\nhost = "127.0.0.1"\nport = 0\n'
        f'[feed]\nenabled = true\nbroker = "{host}"\nport = {port}\ntopic = "euchre"\n'
        f'event = "sec"\nusername = "{user}"\npassword_file = "feed.password"\n'
        f'director_key = "{broker_folder / "director.pub"}"\nheartbeat = 0.5\n{tls}'
    )
    return path


class TableProcess:
    """tests/ruled_table.py in a process of its own."""

    def __init__(self, config: Path) -> None:
        self.config = config
        self.errors = config.with_name("table.err")
        self.proc: subprocess.Popen[str] | None = None

    def start(self) -> TableProcess:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        self.proc = subprocess.Popen(
            [sys.executable, str(ROOT / "tests" / "ruled_table.py"), str(self.config)],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=self.errors.open("a"),
            text=True,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if line.strip() != "started":
            self.proc.kill()
            raise AssertionError(f"the table did not start: {line}{self.errors.read_text()}")
        return self

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(WAIT)
        self.proc = None

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(WAIT)
        self.proc = None
