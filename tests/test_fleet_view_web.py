"""The fleet page in a real browser (Debian's chromium, headless, Playwright) against
the real director (service, store, dashboard in fleet mode) and a real mosquitto:
tables ask to join over HTTP and are approved on the page, their heartbeats carry their
machine's state, a device's fault is shown in words, "Show the camera" and
"Recalibrate" reach a table as signed orders and its picture comes back through the
broker to the page, and a table is removed. Tables here are MQTT clients that answer
as a table does (the real table's side is tests/test_fleet_view.py); their pictures are
a simulated table's camera frame, calibrated with the vision's own code.
The screenshot is test-artifacts/fleet.png (1920x1080; docs/images/fleet.png is a copy)."""

from __future__ import annotations

import base64
import json
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from mosquitto import Mosquitto
from playwright.sync_api import Browser, Page, expect
from test_director_service import PREFIX, WAIT, client, publish, start_broker, wait_until
from test_director_web import ARTIFACTS, PASSWORD, Served, log_in, log_in_page, post
from test_fleet_join import Credentials

from table_controller.director.fleet import Fleet
from table_controller.director.fleet import config as fleet_config
from table_controller.director.service import BrokerConfig, DirectorService
from table_controller.director.session import COOKIE
from table_controller.director.store import DirectorStore
from table_controller.director.web import DirectorPage
from table_controller.feed import messages
from table_controller.feed.limits import limits_words
from table_controller.feed.messages import MachineClaim
from table_controller.feed.signing import new_keys
from table_controller.fleet import orders
from table_controller.pictures import encode_jpeg
from table_controller.sim import World, WorldCamera
from table_controller.table.fleet.status import fleet_status
from table_controller.table.health import Device, Fault
from table_controller.vision.calibration import calibrate, overlay
from table_controller.vision.synthetic import Effects

GB = 1024**3


def camera_frame(seed: int) -> Any:
    """A simulated table's camera frame: the mat, its corner markers, a few cards."""
    world = World(seed=seed, effects=Effects())
    return WorldCamera(world, seed=seed).read().image


class FakeTable:
    """One table's side of the feed as an MQTT client: a heartbeat with its machine's
    state, and answers to the director's signed orders (checked with its key)."""

    def __init__(
        self,
        broker: Mosquitto,
        director_pub: bytes,
        table: str,
        name: str,
        *,
        faults: list[Fault],
        disk_free: int,
        clock_ahead: float = 0.0,
        machine: MachineClaim | None = None,
        client_id: str | None = None,
    ) -> None:
        self.table, self.name, self.faults = table, name, faults
        self.machine = machine  # the machine it says it runs on (table/fleet/identity.py)
        self.director_pub = director_pub
        self.disk_free, self.clock_ahead = disk_free, clock_ahead
        self.topics = messages.Topics(PREFIX)
        self.calibrated: float | None = time.time() - 3 * 3600
        self.config_seq: int | None = None
        self.orders: list[dict[str, Any]] = []
        self.refused: list[str] = []
        subscribed = threading.Event()
        self.mqtt = client(broker, client_id or f"table-{table}")
        self.mqtt.on_message = self._order
        self.mqtt.on_subscribe = lambda *a: subscribed.set()
        self.mqtt.subscribe([(self.topics.commands(table), 1), (self.topics.config(table), 1)])
        assert subscribed.wait(WAIT)
        self.beat()

    def beat(self) -> None:
        fleet = fleet_status(
            version="0.1.0",
            faults=self.faults,
            cube=True,
            disk_free=self.disk_free,
            calibration=self.calibrated,
            config_seq=self.config_seq,
            machine=self.machine,
        )
        status = messages.status_message(
            table=self.table,
            at=time.time() + self.clock_ahead,
            every=60,
            game=1,
            hand=None,
            phase="dealing",
            scores=[0, 0],
            players={},
            faults=[f.to_json() for f in self.faults],
            backlog=0,
            name=self.name,
            fleet=fleet,
        )
        publish(self.mqtt, self.topics.status(self.table), status, retain=True)

    def _order(self, c: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        kind = "config" if msg.topic.endswith("/config") else "commands"
        try:
            order = orders.verify_order(
                msg.payload, self.director_pub, table=self.table, kind=kind, now=time.time()
            )
        except orders.OrderRejected as exc:
            self.refused.append(str(exc))
            return
        self.orders.append(order)
        threading.Thread(target=self._answer, args=(order,), daemon=True).start()

    def _answer(self, order: dict[str, Any]) -> None:
        if order["kind"] == "config":
            self.config_seq = order["seq"]
            answer = {"table": self.table, "seq": order["seq"], "state": "applied",
                      "problem": None, "at": time.time()}  # fmt: skip
            publish(self.mqtt, self.topics.fleet(self.table, "config"), answer)
            self.beat()
            return
        image = camera_frame(7)
        reply: dict[str, Any] = {"table": self.table, "id": order["id"], "kind": order["kind"],
                                 "ok": True, "problem": None, "at": time.time()}  # fmt: skip
        if order["kind"] == "recalibrate":
            image = overlay(calibrate(image), image)
            self.calibrated = time.time()
        reply["jpeg"] = base64.b64encode(encode_jpeg(image)).decode()
        publish(self.mqtt, self.topics.fleet(self.table, "camera"), reply)
        self.beat()

    def close(self) -> None:
        self.mqtt.loop_stop()
        self.mqtt.disconnect()


def post_join(url: str, body: dict[str, Any]) -> dict[str, Any]:
    """A table's request to join, posted as ``table-controller join`` posts it; the
    director's answer."""
    req = urllib.request.Request(
        url + "api/fleet/join",
        json.dumps(body).encode(),
        method="POST",
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=10) as r:
        return dict(json.loads(r.read()))


class Event:
    """The director in fleet mode over a real broker, its dashboard served."""

    def __init__(self, folder: Path, clock: Callable[[], float] = time.time) -> None:
        self.broker = start_broker(folder / "broker")
        self.private, self.public = new_keys()
        self.store = DirectorStore(folder / "director.sqlite")
        self.store.accounts.add_login("ann", PASSWORD)
        self.service = DirectorService(
            self.store,
            BrokerConfig(port=self.broker.port, client_id="director-fleet-web"),
            prefix=PREFIX,
            private_key=self.private,
            clock=clock,
        )
        self.service.start()
        assert self.service.connected.wait(WAIT)
        self.credentials = Credentials()
        self.fleet = Fleet(
            store=self.store,
            credentials=self.credentials,
            event="Spring Open",
            topic="euchre",
            prefix=PREFIX,
            broker_port=self.broker.port,
            public_pem=self.public,
            private_pem=self.private,
            rules="td-tournament",
            options={},
            publish=self.service.publish,
        )
        page = DirectorPage(self.store, self.service, fleet=self.fleet, title="Spring Open")
        page.fleet_view.view.clock = clock  # the fleet page's "now" is the service's
        self.fleet.requests.clock = clock
        self.served = Served(page)
        self.url = self.served.url
        self.tables: list[FakeTable] = []

    def ask_to_join(self, host: str, seed: int) -> dict[str, Any]:
        """A table asks to join, as ``table-controller join`` does (over HTTP)."""
        key = bytes((seed + i) % 256 for i in range(32))
        body = {"v": 2, "key": base64.b64encode(key).decode(), "host": host, "version": "0.1.0"}
        asked = post_join(self.url, body)
        [shown] = [r for r in self.fleet.requests.waiting() if r["request"] == asked["request"]]
        return {**asked, "code": shown["code"], "check": shown["check"]}

    def close(self) -> None:
        for t in self.tables:
            t.close()
        self.served.close()
        self.service.stop()
        self.store.close()
        self.broker.stop()


@pytest.fixture
def event(tmp_path: Path) -> Iterator[Event]:
    e = Event(tmp_path)
    yield e
    e.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1920, "height": 1080})
    p = context.new_page()
    yield p
    context.close()


HEALTH: dict[str, dict[str, Any]] = {
    "Table 1": {"faults": [], "disk_free": 21 * GB},
    "Table 2": {
        "faults": [
            Fault(
                Device.CAMERA,
                "no picture from the camera for over 3 s",
                "check the camera's cable and power",
                1.0,
            )
        ],
        "disk_free": 18 * GB,
    },
    "Table 3": {"faults": [], "disk_free": 350 * 1024**2, "clock_ahead": 12.0},
    "Table 4": {
        "faults": [
            Fault(
                Device.SEATS,
                "The seat lights and buttons cannot be used",
                "check the ribbon cable to the seat board",
                1.0,
            )
        ],
        "disk_free": 25 * GB,
    },
}


@pytest.mark.slow(budget=90)
def test_the_fleet_page_approves_tables_shows_their_health_and_their_camera(
    page: Page, event: Event
) -> None:
    asked = [event.ask_to_join(f"euchre-pi-{n}", n) for n in range(1, 6)]
    page.goto(event.url)
    log_in_page(page)
    page.click("#fleet-link")
    expect(page).to_have_url(event.url + "fleet")
    # Each table asking shows its code; its name is prefilled with the next free number.
    for n, a in enumerate(asked[:4], start=1):
        form = page.locator(f"#approve-{a['request']}")
        expect(form.locator(".code")).to_have_text(a["code"])
        expect(form.locator("input[name=name]")).to_have_value(f"Table {n}")
        # What to compare aloud with the table, and where and when it first asked.
        expect(form.locator(".check")).to_have_text(f"check {a['check']}")
        expect(form.locator(".from")).to_contain_text("at 127.0.0.1, first seen")
    expect(page.locator("#director-key")).to_have_text(event.fleet.key_fingerprint)
    for a in asked[:4]:
        page.locator(f"#approve-{a['request']} button.approve").click()
        expect(page.locator(f"#approve-{a['request']}")).to_have_count(0)
    expect(page.locator("[data-fleet-table]")).to_have_count(4)
    assert sorted(event.credentials.logins) == ["table-1", "table-2", "table-3", "table-4"]
    # The last one asking is named "Table 5": the names before it are taken.
    expect(page.locator(f"#approve-{asked[4]['request']} input[name=name]")).to_have_value(
        "Table 5"
    )

    # The approved tables come online with their machine's state, and take their config.
    for name, health in HEALTH.items():
        tid = messages.table_id(name)
        event.tables.append(FakeTable(event.broker, event.public, tid, name, **health))
        fleet_config.push(event.fleet, tid, name=name, players={}, round=None)
    card = {n: page.locator(f'[data-fleet-table="{messages.table_id(n)}"]') for n in HEALTH}
    for name, c in card.items():
        expect(c.locator(".title")).to_have_text(name)
        expect(c.locator(".version")).to_have_text("Release 0.1.0")
        expect(c.locator(".online")).to_have_text("Online")
        expect(c).to_contain_text("Config 1 applied")

    def shown(name: str, row: str) -> Any:
        return card[name].locator(f'dt:text-is("{row}") + dd')

    expect(shown("Table 2", "Camera")).to_have_text("No picture from the camera for over 3 s")
    expect(shown("Table 2", "Camera")).to_have_class("bad")
    expect(card["Table 2"].locator("li")).to_have_text(
        "To put the camera right: check the camera's cable and power"
    )
    expect(shown("Table 4", "Seat lights")).to_have_text(
        "The seat lights and buttons cannot be used"
    )
    expect(shown("Table 1", "Camera")).to_have_text("Working")
    # Under the tables, the limits each is held to, in words (the store's, here the defaults).
    expect(page.locator("#fleet-limits")).to_have_text(limits_words(event.store.limits))
    expect(shown("Table 1", "Trump cube")).to_have_text("Working")
    expect(shown("Table 1", "Disk")).to_have_text("21.0 GB free")
    expect(shown("Table 3", "Disk")).to_have_text("350 MB free")
    expect(shown("Table 3", "Clock")).to_have_text("12 s ahead of the director's")
    expect(shown("Table 3", "Clock")).to_have_class("bad")

    # "Show the camera": a signed order to that table only; its picture comes back.
    card["Table 1"].locator("button.show-camera").click()
    picture = card["Table 1"].locator("figure.camera-view img")
    expect(picture).to_be_visible()
    wait_until(
        "the picture is drawn",
        lambda: bool(picture.evaluate("i => i.complete && i.naturalWidth > 0")),
    )
    expect(card["Table 1"].locator("figure.camera-view figcaption")).to_contain_text(
        "Camera view taken at"
    )
    # "Recalibrate": the picture shows the mat's zones the new calibration found.
    card["Table 3"].locator("button.recalibrate").click()
    recal = card["Table 3"].locator("figure.recalibration img")
    expect(recal).to_be_visible()
    expect(card["Table 3"].locator("figure.recalibration figcaption")).to_contain_text(
        "Recalibrated at"
    )
    expect(card["Table 3"]).to_contain_text("Last calibrated")
    kinds = {t.table: [o["kind"] for o in t.orders] for t in event.tables}
    assert kinds["table-1"] == ["config", "camera-view"]
    assert kinds["table-3"] == ["config", "recalibrate"]
    assert kinds["table-2"] == ["config"] and not any(t.refused for t in event.tables)

    # Nothing on the page is a code: no table's id, no order's kind.
    text = page.locator("#fleet").inner_text()
    for code in ("table-1", "table-2", "camera-view", "recalibrate", "dealing", "None"):
        assert code not in text, code
    wait_until(
        "the recalibration's picture is drawn",
        lambda: bool(recal.evaluate("i => i.complete && i.naturalWidth > 0")),
    )
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "fleet.png"))

    # Removing a table: asked first, then its login is gone and its card too.
    page.once("dialog", lambda d: d.accept())
    card["Table 4"].locator("button.remove-table").click()
    expect(page.locator("[data-fleet-table]")).to_have_count(3)
    assert event.credentials.removed == ["table-4"]


def test_the_fleet_routes_need_a_login_and_this_site(event: Event) -> None:
    url = event.url
    event.store.fleet.fleet_approve(
        "table-1", "Table 1", "pi", "127.0.0.1", "0.1.0", "k", time.time()
    )
    status, body = post(url + "api/fleet/table-1/camera-view", {})
    assert status == 401 and "not logged in" in body["problem"]
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(url + "api/fleet", timeout=10)
    assert refused.value.code == 401
    with urllib.request.urlopen(url + "fleet", timeout=10) as r:  # the login, not the page
        assert r.url == url
    cookie = log_in(url)
    status, body = post(url + "api/fleet/table-9/recalibrate", {}, cookie)
    assert status == 404 and "no table 'table-9'" in body["problem"]
    req = urllib.request.Request(
        url + "api/fleet/table-1/camera-view",
        b"{}",
        method="POST",
        headers={
            "Content-Type": "application/json",
            "Origin": "http://elsewhere.example",
            "Cookie": f"{COOKIE}={cookie}",
        },
    )
    with pytest.raises(urllib.error.HTTPError) as cross:
        urllib.request.urlopen(req, timeout=10)
    assert cross.value.code == 403
    status, body = post(url + "api/fleet/table-1/camera-view", {}, cookie)
    assert status == 200 and body["ok"]
    assert event.store.pictures.fleet_pictures()["table-1"]["camera-view"]["asked_at"] is not None
    assert [a["action"] for a in event.store.accounts.audit()].count("camera_view_asked") == 1
    with pytest.raises(urllib.error.HTTPError) as none_yet:
        urllib.request.urlopen(
            urllib.request.Request(
                url + "fleet/camera/table-1.jpg", headers={"Cookie": f"{COOKIE}={cookie}"}
            ),
            timeout=10,
        )
    assert none_yet.value.code == 404
