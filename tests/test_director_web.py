"""The director's dashboard in a real browser (Debian's chromium, headless, Playwright)
against the real service: a real simulated table's game arrives through a real mosquitto,
the dashboard shows the table and the renege alert with its evidence, follows the table
live, and a logged-in director makes a ruling with a reason, which the table verifies and
acknowledges. A screenshot is kept in test-artifacts/director.png."""

from __future__ import annotations

import asyncio
import json
import signal
import ssl
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from favicon_check import the_icon_is_served
from mosquitto import free_port
from playwright.sync_api import Browser, Page, expect
from postgres import Postgres
from test_director_service import PREFIX, WAIT, client, publish, start_broker, topic, wait_until
from test_director_store import TABLE, real_game

from table_controller.director.service import BrokerConfig, DirectorService
from table_controller.director.session import COOKIE
from table_controller.director.store import DirectorStore
from table_controller.director.web import DirectorPage
from table_controller.feed.signing import RulingRejected, new_keys, verify

ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"
PASSWORD = "correct horse battery"


class Served:
    """The dashboard served in its own event loop on a thread, as the director runs it."""

    def __init__(self, page: DirectorPage, **start: Any) -> None:
        self.page = page
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.url: str = self.call(page.start("127.0.0.1", 0, **start))

    def call(self, coro: Coroutine[Any, Any, Any]) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout=60)

    def close(self) -> None:
        self.call(self.page.stop())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)
        self.loop.close()


class World:
    """A broker, the director's service and dashboard, and one table's side of the feed
    that verifies the rulings it receives and acknowledges them."""

    def __init__(self, folder: Path, database: str | None = None) -> None:
        self.broker = start_broker(folder / "broker")
        self.private, self.public = new_keys()
        self.store = DirectorStore(database or folder / "director.sqlite")
        self.store.accounts.add_login("ann", PASSWORD)
        self.service = DirectorService(
            self.store,
            BrokerConfig(port=self.broker.port, client_id="director-web"),
            prefix=PREFIX,
            private_key=self.private,
        )
        self.service.start()
        assert self.service.connected.wait(WAIT)
        self.served = Served(DirectorPage(self.store, self.service, title="Spring Open"))
        self.rulings: list[dict[str, Any]] = []
        subscribed = threading.Event()
        self.table = client(self.broker, "table-web")
        self.table.on_message = self._on_ruling
        self.table.on_subscribe = lambda *args: subscribed.set()
        self.table.subscribe(topic("rulings"), qos=1)
        assert subscribed.wait(WAIT)

    def _on_ruling(self, c: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        payload = json.loads(msg.payload)
        try:
            ruling = verify(payload, self.public, table=TABLE, now=time.time())
            ack = {
                "v": 1,
                "table": TABLE,
                "ruling_id": ruling.ruling_id,
                "ok": True,
                "problem": None,
                "at": time.time(),
            }
            self.rulings.append(payload)
        except RulingRejected as exc:
            ack = {
                "v": 1,
                "table": TABLE,
                "ruling_id": payload.get("ruling_id"),
                "ok": False,
                "problem": str(exc),
                "at": time.time(),
            }
        c.publish(topic("acks"), json.dumps(ack), qos=1)

    def close(self) -> None:
        self.served.close()
        self.table.loop_stop()
        self.table.disconnect()
        self.service.stop()
        self.store.close()
        self.broker.stop()


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    w = World(tmp_path)
    yield w
    w.close()


@pytest.fixture
def page(browser: Browser, world: World) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    p = context.new_page()
    yield p
    context.close()


def log_in_page(page: Page) -> None:
    """Log in as ann on the dashboard's own form."""
    page.fill("#login-name", "ann")
    page.fill("#login-password", PASSWORD)
    page.click("#login-button")


def post(
    url: str,
    body: dict[str, Any],
    cookie: str | None = None,
    context: ssl.SSLContext | None = None,
) -> tuple[int, dict[str, Any]]:
    """POST JSON as the page does (logged in with ``cookie``): (status, the answer);
    ``context``: the TLS an https ``url`` is checked with."""
    headers = {"Content-Type": "application/json"}
    if cookie:
        headers["Cookie"] = f"{COOKIE}={cookie}"
    req = urllib.request.Request(url, json.dumps(body).encode(), method="POST", headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=10, context=context) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def log_in(
    url: str,
    name: str = "ann",
    password: str = PASSWORD,
    context: ssl.SSLContext | None = None,
) -> str:
    """Log in over HTTP as a script would: the session cookie's value."""
    req = urllib.request.Request(
        url + "api/login",
        json.dumps({"name": name, "password": password}).encode(),
        method="POST",
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=10, context=context) as r:
        cookie = r.headers["Set-Cookie"]
    return str(cookie.split(";")[0].split("=", 1)[1])


def get_json(url: str, cookie: str, context: ssl.SSLContext | None = None) -> Any:
    """GET ``url`` as a logged-in director."""
    req = urllib.request.Request(url, headers={"Cookie": f"{COOKIE}={cookie}"})
    with urllib.request.urlopen(req, timeout=10, context=context) as r:
        return json.loads(r.read())


def test_changes_need_a_login(world: World) -> None:
    url = world.served.url
    status, body = post(
        url + "api/rulings", {"table": TABLE, "kind": "void_hand", "reason": "misdeal"}
    )
    assert status == 401 and "not logged in" in body["problem"] and body["fix"]
    status, body = post(url + "api/alerts/1", {"state": "closed"})
    assert status == 401
    status, body = post(url + "api/login", {"name": "ann", "password": "wrong"})
    assert status == 401 and "add-login" in body["fix"]
    assert world.store.rulings.rulings() == []


def test_the_dashboard_shows_the_tables_and_a_director_makes_a_ruling(
    page: Page, world: World
) -> None:
    messages, images = real_game()
    feed = client(world.broker, "table-feed")
    status = {
        "v": 1,
        "table": TABLE,
        "online": True,
        "at": time.time(),
        "every": 5,
        "game": 1,
        "hand": 1,
        "phase": "playing",
        "scores": [0, 2],
        "players": {"N": "Ann", "E": "Bo", "S": "Cy", "W": "Di"},
        "faults": [],
        "backlog": 0,
    }
    publish(feed, topic("status"), status, retain=True)
    publish(feed, topic("status", "club-night-4"), {**status, "table": "club-night-4"})
    page.goto(world.served.url)
    # Nothing but the login form before logging in.
    expect(page.locator("#login-form")).to_be_visible()
    expect(page.locator("#dashboard")).to_be_hidden()
    log_in_page(page)
    expect(page.locator("#who-name")).to_have_text("ann")
    card = page.locator(f'.table-card[data-table="{TABLE}"]')
    expect(card).to_contain_text("Online")
    expect(page.locator(".table-card")).to_have_count(2)
    # The game arrives while the dashboard is open: the alert comes up live.
    for m in messages:
        publish(feed, topic("events"), m)
    for (game, seq), png in images.items():
        publish(feed, topic(f"evidence/{game}/{seq}"), png)
    alert = page.locator('#alerts li[data-kind="renege_proven"]')
    expect(alert).to_contain_text("did not follow")
    expect(card).to_contain_text("1 open alert")
    wait_until(
        "the evidence stored",
        lambda: all(world.store.events.evidence(TABLE, g, s) for g, s in images),
    )
    # The table's live view and history, with the renege's evidence pictures.
    card.click()
    expect(page.locator("#detail-name")).to_have_text(TABLE)  # no name in its status
    expect(page.locator("#history li")).to_have_count(len(messages))
    expect(page.locator("#detail-reneges .renege")).to_contain_text("did not follow")
    images_shown = page.locator("#detail-reneges img")
    expect(images_shown.first).to_be_visible()
    wait_until(
        "the pictures loaded",
        lambda: images_shown.first.evaluate("img => img.complete && img.naturalWidth > 0"),
    )
    # The ruling, from the alert: the kind first; with no reason: refused; with a
    # reason: signed, sent, applied.
    alert.locator("button.open-alert").click()
    expect(page.locator("#alert-detail")).to_be_visible()
    page.check('#ruling-kind input[value="dismiss_renege"]')
    # What the alert knows is filled in: the team the penalty went to, its points back.
    expect(page.locator("#ruling-team")).to_have_value("EW")
    expect(page.locator("#ruling-points")).to_have_value("-2")
    page.fill("#ruling-reason", "")
    page.click("#ruling-send")
    expect(page.locator("#ruling-result")).to_contain_text("needs a reason")
    page.fill("#ruling-reason", "the proof card was misread; the player followed suit")
    page.click("#ruling-send")
    expect(page.locator("#ruling-result")).to_contain_text("applied")
    wait_until("the table's ack", lambda: world.store.rulings.rulings()[0]["ack_ok"] is True)
    (sent,) = world.rulings
    assert sent["kind"] == "dismiss_renege" and sent["director"] == "ann"
    assert sent["event"]["event"] == "score_adjusted" and sent["event"]["points"] == -2
    # The alert the ruling answered is closed; the ruling shows as applied.
    page.click("#alert-detail-close")
    expect(page.locator('#alerts li[data-kind="renege_proven"]')).to_have_count(0)
    card.click()
    expect(page.locator("#detail-rulings")).to_contain_text("applied by the table")
    expect(page.locator("#detail-rulings")).to_contain_text("Dismissed the renege: East–West")
    expect(page.locator('#detail-rulings .ruling[data-state="applied"]')).to_have_count(1)
    # The table drops off: its card turns offline, an alert comes up.
    publish(
        feed,
        topic("status"),
        {"v": 1, "table": TABLE, "online": False, "at": time.time()},
        retain=True,
    )
    expect(card).to_contain_text("OFFLINE")
    expect(page.locator('#alerts li[data-kind="offline"]')).to_have_count(1)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "director.png"), full_page=True)
    # Acknowledged from the dashboard, in the audit under the director's name.
    page.locator('#alerts li[data-kind="offline"] button.ack').click()
    expect(page.locator('#alerts li[data-kind="offline"]')).to_contain_text("acknowledged by ann")
    actions = [(a["who"], a["action"]) for a in world.store.accounts.audit()]
    assert ("ann", "ruling_sent") in actions and ("ann", "alert_acknowledged") in actions
    assert (f"table {TABLE}", "ruling_applied") in actions
    feed.loop_stop()
    feed.disconnect()


def wait_connected(overview: str, cookie: str) -> None:
    """Until the director's overview says it is connected to the broker (its first
    connection makes its persistent session: what is published before is not kept)."""

    def connected() -> bool:
        return bool(get_json(overview, cookie)["broker"]["connected"])

    wait_until("the director connected to the broker", connected)


def add_login(folder: Path, database: str) -> subprocess.CompletedProcess[str]:
    """``director add-login ann`` with the password in a file, as an operator runs it."""
    (folder / "pw").write_text(PASSWORD + "\n")
    return subprocess.run(
        [sys.executable, "-m", "table_controller.cli", "director", "add-login", "ann",
         "--password-file", str(folder / "pw"), "--database", database],
        capture_output=True,
        text=True,
    )  # fmt: skip


def test_the_director_command_runs_the_service_and_the_dashboard(tmp_path: Path) -> None:
    exe = [sys.executable, "-m", "table_controller.cli"]
    db = tmp_path / "director.sqlite"
    run = subprocess.run(
        [*exe, "director", "keys", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "director.pub" in run.stdout
    assert (tmp_path / "director.key").stat().st_mode & 0o077 == 0
    again = subprocess.run(
        [*exe, "director", "keys", "--out", str(tmp_path)], capture_output=True, text=True
    )
    assert again.returncode == 2 and "--force" in again.stderr
    assert add_login(tmp_path, str(db)).returncode == 0
    broker = start_broker(tmp_path / "broker")
    web_port = free_port()
    conf = tmp_path / "director.toml"
    conf.write_text(
        f'[broker]\nport = {broker.port}\n[event]\nname = "spring-open"\n'
        f'[director]\ndatabase = "director.sqlite"\nkey = "director.key"\n'
        f'[web]\nhost = "127.0.0.1"\nport = {web_port}\n'
    )
    proc = subprocess.Popen(
        [*exe, "director", "--config", str(conf)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("The dashboard: http://127.0.0.1:")
        overview = f"http://127.0.0.1:{web_port}/api/overview"
        cookie = log_in(f"http://127.0.0.1:{web_port}/")
        wait_connected(overview, cookie)
        feed = client(broker, "table-cli")
        messages, _ = real_game()
        for m in messages:
            publish(feed, "euchre/spring-open/tables/club-night-3/events", m)
        url = f"http://127.0.0.1:{web_port}/api/overview"

        def stored() -> bool:
            tables = get_json(url, cookie)["tables"]
            return bool(tables) and tables[0]["events"] == len(messages)

        wait_until("the game on the dashboard", stored)
        feed.loop_stop()
        feed.disconnect()
    finally:
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=60)  # only against a hang
        broker.stop()
    assert code == 0
    bad = subprocess.run(
        [*exe, "director", "--config", str(tmp_path / "missing.toml")],
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 2 and "check the path" in bad.stderr


def test_the_director_command_on_a_postgresql_database(tmp_path: Path, postgres: Any) -> None:
    """``--database postgresql://...``: the login made by ``add-login`` is in the server's
    database, the director runs on it and shows what arrives; a server that is not there
    is an error that says what to check, and never shows the URL's password."""
    exe = [sys.executable, "-m", "table_controller.cli"]
    url = postgres.new_database()
    made = add_login(tmp_path, url)
    assert made.returncode == 0, made.stderr
    assert "postgresql://director@127.0.0.1" in made.stdout
    store = DirectorStore(url)
    assert store.accounts.login("ann", PASSWORD) is not None
    broker = start_broker(tmp_path / "broker")
    web_port = free_port()
    proc = subprocess.Popen(
        [
            *exe,
            "director",
            "--database",
            url,
            "--broker-port",
            str(broker.port),
            "--event",
            "spring-open",
            "--web-host",
            "127.0.0.1",
            "--web-port",
            str(web_port),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().startswith("The dashboard: http://127.0.0.1:")
        overview = f"http://127.0.0.1:{web_port}/api/overview"
        cookie = log_in(f"http://127.0.0.1:{web_port}/")
        wait_connected(overview, cookie)
        feed = client(broker, "table-pg-cli")
        messages, _ = real_game()
        for m in messages:
            publish(feed, "euchre/spring-open/tables/club-night-3/events", m)
        wait_until("the game in the database", lambda: store.events.count_events() == len(messages))
        assert get_json(overview, cookie)["tables"][0]["events"] == len(messages)
        feed.loop_stop()
        feed.disconnect()
    finally:
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=60)  # only against a hang
        broker.stop()
        store.close()
    assert code == 0
    down = add_login(tmp_path, f"postgresql://ann:s3cret@127.0.0.1:{free_port()}/spring")
    assert down.returncode == 2
    assert "cannot connect" in down.stderr and "PostgreSQL runs there" in down.stderr
    assert "s3cret" not in down.stderr


def test_the_dashboard_says_when_the_postgresql_store_is_down_and_recovers(
    browser: Browser, tmp_path: Path
) -> None:
    """The director's PostgreSQL server crashes while the dashboard is open: the page
    says the store cannot be read (and keeps what it showed), the API answers 503 with
    the store's words; the server back, the messages the broker kept are stored and the
    page is live again, with the whole game."""
    server = Postgres().start()
    world = World(tmp_path, server.new_database())
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    try:
        messages, _ = real_game()
        half = len(messages) // 2
        for m in messages[:half]:
            publish(world.table, topic("events"), m)
        wait_until("half stored", lambda: world.store.events.count_events() == half)
        cookie = log_in(world.served.url)
        page.goto(world.served.url)
        log_in_page(page)
        card = page.locator(f'#tables [data-table="{TABLE}"]')
        expect(card).to_contain_text(TABLE)
        server.crash()
        for m in messages[half:]:
            publish(world.table, topic("events"), m)
        problem = page.locator("#store-problem")
        expect(problem).to_be_visible(timeout=WAIT * 1000)
        expect(problem).to_contain_text("cannot be read")
        expect(card).to_contain_text(TABLE)  # what it showed is kept
        with pytest.raises(urllib.error.HTTPError) as down:
            get_json(world.served.url + "api/overview", cookie)
        assert down.value.code == 503
        assert "PostgreSQL" in json.loads(down.value.read())["problem"]
        server.start()
        expect(problem).to_be_hidden(timeout=WAIT * 1000)
        wait_until("all stored", lambda: world.store.events.count_events() == len(messages))
        overview = get_json(world.served.url + "api/overview", cookie)
        assert overview["tables"][0]["events"] == len(messages)
    finally:
        context.close()
        world.close()
        server.close()


def test_the_dashboard_and_the_public_view_have_their_icon(browser: Browser, world: World) -> None:
    the_icon_is_served(browser, world.served.url)
    the_icon_is_served(browser, world.served.url + "public")


def test_streamed_results_are_computed_at_most_once_a_second(tmp_path: Path) -> None:
    """The stream's snapshots carry the tables' cards as they come, and the results
    (standings, scores: the dearest part at many tables) computed again at most every
    ``results_every`` seconds, on the page's clock: a snapshot within the second reuses
    the last results, and one after it computes them afresh with what was stored since."""
    store = DirectorStore(tmp_path / "director.sqlite")
    try:
        page = DirectorPage(store, None, title="Spring Open", results_every=1.0)
        now = [1000.0]
        page._monotonic = lambda: now[0]
        messages, _ = real_game(renege=False)
        half = len(messages) // 2
        for m in messages[:half]:
            store.events.add_event(m)
        _, first = page._snapshot(None)  # the first time: computed now
        for m in messages[half:]:
            store.events.add_event(m)
        now[0] += 0.5
        reused = page._stream_results()
        assert reused is not None and reused[1] == first["results"]
        [line], parts = page._snapshot(reused)  # the cards are the ones stored now
        assert line.row["events"] == len(messages)
        assert parts["results"] == first["results"]
        now[0] += 0.5
        assert page._stream_results() is None  # a second on: computed again
        _, fresh = page._snapshot(None)
        assert json.loads(fresh["results"]) == dict(page.results.view())
        assert fresh["results"] != first["results"]
    finally:
        store.close()
