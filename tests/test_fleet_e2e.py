"""Issue 20's "Done when", end to end, on a network of its own: the director
(`table-controller director start`) and five tables (`table-controller run` of a
table.toml with `[fleet]` and nothing else: no address, no password) each in a network
namespace of its own on one bridge, as Pis on a venue's LAN.

Every table finds the director by mDNS and asks to join, showing its code on its page;
the director, in Chromium, reads each table's code off that table's page (as at the
table) and approves the request showing it on the Fleet page, naming it. The tables
receive their broker logins and their config, the director seats round 1 of a
progressive event, each table plays a hand with the players it was sent, and the
standings hold them. Then one table is removed on the Fleet page: its broker login is
refused from then on.

The LAN is captured all along (tests/lan_capture.py, on the bridge, as a stranger with a
sniffer on the venue's Wi-Fi): the director's password, its session, every table's broker
password, the players' names and the cards played are nowhere in it in clear, while a
marker sent over plain HTTP is (the capture sees what is in clear).
"""

from __future__ import annotations

import json
import re
import ssl
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import lan_capture
import netns
import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion
from playwright.sync_api import Browser, expect
from test_director_web import get_json, post
from test_director_web import log_in as director_login
from waiting import wait_until

ROOT = Path(__file__).resolve().parent.parent
TABLES = 5
DIRECTOR = 1  # host 1 is the director's; hosts 2..6 the tables
WEB_PORT, BROKER_PORT, PAGE_PORT, HTTP_PORT = 8090, 8883, 8080, 8081
EVENT = "Spring Open"
GUARD = 240.0  # seconds: only a hang takes this long
PLAYERS = [f"Player {n}" for n in range(1, 4 * TABLES + 1)]


@dataclass
class Fleet:
    net: netns.Hosts
    folder: Path
    url: str  # the dashboard, as the test's namespace reaches it
    password: str  # the director's login, printed once by the first run
    capture: Path  # every frame on the bridge

    @property
    def ca(self) -> Path:
        return self.folder / "event" / "tls" / "ca.crt"

    @property
    def tls(self) -> ssl.SSLContext:
        """TLS trusting the event's own authority only, as a joined table does."""
        return ssl.create_default_context(cafile=str(self.ca))

    def table_host(self, k: int) -> int:
        return DIRECTOR + k  # table k (1..5)

    def page(self, k: int) -> str:
        return f"https://{self.net.address(self.table_host(k))}:{PAGE_PORT}/"  # open: HTTPS

    def said(self, name: str) -> str:
        return (self.folder / f"{name}.out").read_text(encoding="utf-8", errors="replace")


def _env() -> dict[str, str]:
    import os

    return {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}


def table_toml(folder: Path) -> Path:
    """What a Pi's first boot writes: only what is local to the table."""
    folder.mkdir()
    path = folder / "table.toml"
    path.write_text(
        '[table]\ngpio = "mock"\n\n'
        '[camera]\nsource = "synthetic"\nlost_after = 10.0\ndrift_check = 0\n\n'
        '[cube]\nport = "none"\n\n'
        f'[web]\nhost = "0.0.0.0"\nport = {PAGE_PORT}\n\n'
        "[feed]\nheartbeat = 2.0\n\n"
        '[fleet]\nfolder = "fleet"\n',
        encoding="utf-8",
    )
    return path


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fleet]:
    folder = tmp_path_factory.mktemp("fleet")
    with netns.hosts(1 + TABLES) as net:
        capture = folder / "lan.frames"
        sniffer = lan_capture.start(["ip", "netns", "exec", net.hub], capture)
        out = (folder / "director.out").open("w")
        net.popen(
            DIRECTOR,
            [sys.executable, "-m", "table_controller", "director", "start",
             "--folder", str(folder / "event"), "--event", EVENT,
             "--web-port", str(WEB_PORT), "--broker-port", str(BROKER_PORT),
             "--http-port", str(HTTP_PORT)],
            stdout=out, stderr=out, env=_env(), cwd=folder,
        )  # fmt: skip
        said = lambda: (folder / "director.out").read_text()  # noqa: E731
        wait_until("the director's dashboard", lambda: "The dashboard:" in said(), GUARD)
        found = re.search(r"as director, password (\S+)", said())
        assert found, said()
        for k in range(1, TABLES + 1):
            config = table_toml(folder / f"table-{k}")
            log = (folder / f"table-{k}.out").open("w")
            net.popen(
                DIRECTOR + k,
                [sys.executable, "-m", "table_controller", "run", "--config", str(config),
                 "--fast", "--seed", str(k)],
                stdout=log, stderr=log, env=_env(), cwd=config.parent,
            )  # fmt: skip
        url = f"https://{net.address(DIRECTOR)}:{WEB_PORT}/"
        try:
            yield Fleet(net, folder, url, found.group(1), capture)
        finally:
            lan_capture.stop(sniffer)


def code_on_the_table(fleet: Fleet, browser: Browser, k: int) -> str:
    """The code table k shows on its page (in Chromium, as a person at the table reads
    it), once it has found the director and asked."""
    page = browser.new_page(viewport={"width": 1280, "height": 720}, ignore_https_errors=True)
    try:
        wait_until(f"table {k}'s page", lambda: _answers(fleet.page(k)), GUARD)
        page.goto(fleet.page(k))
        code = page.locator("#code")
        expect(code).to_have_text(re.compile(r"^\s*(\d\s*){4}$"), timeout=GUARD * 1000)
        if k == 1:
            page.screenshot(path=str(ROOT / "test-artifacts" / "fleet-join-page.png"))
        return re.sub(r"\D", "", code.inner_text())
    finally:
        page.close()


def _answers(url: str) -> bool:
    from table_controller.feed.tls import client_context  # the table's page is HTTPS

    try:
        with urllib.request.urlopen(url, timeout=5, context=client_context()):  # not about TLS
            return True
    except OSError:
        return False


def broker_refuses(fleet: Fleet, user: str, password: str) -> str | None:
    """Connects as ``user`` from the test's namespace: the broker's refusal, or None."""
    result: list[Any] = []
    c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=user, protocol=mqtt.MQTTv311)
    c.username_pw_set(user, password)
    c.tls_set(ca_certs=str(fleet.ca))
    c.on_connect = lambda _c, _u, _f, rc, _p=None: result.append(rc)
    c.connect(fleet.net.address(DIRECTOR), BROKER_PORT, 10)
    c.loop_start()
    try:
        wait_until("the broker's answer", lambda: bool(result), 30)
    finally:
        c.disconnect()
        c.loop_stop()
    rc = result[0]
    return None if not rc.is_failure else str(rc)


@pytest.mark.slow(budget=420)  # five simulated tables share two cores with the director
def test_five_tables_join_play_and_one_is_removed(fleet: Fleet, browser: Browser) -> None:
    # HTTPS with the event's own CA, which Chromium does not know (its certificate is
    # checked by every urllib call below, against the CA).
    page = browser.new_page(viewport={"width": 1920, "height": 1080}, ignore_https_errors=True)
    page.goto(fleet.url)
    page.fill("#login-name", "director")
    page.fill("#login-password", fleet.password)
    page.click("#login-button")
    expect(page.locator("#login-button")).to_be_hidden(timeout=30_000)
    page.goto(fleet.url + "fleet")

    # Every table asks; the director approves each by the code that table shows.
    expect(page.locator("form.join-request")).to_have_count(TABLES, timeout=GUARD * 1000)
    page.screenshot(path=str(ROOT / "test-artifacts" / "fleet-joining.png"))
    for k in range(1, TABLES + 1):
        code = code_on_the_table(fleet, browser, k)
        form = page.locator("form.join-request", has=page.locator(".code", has_text=code))
        expect(form).to_have_count(1)
        form.locator("input[name=name]").fill(f"Table {k}")
        form.locator("button.approve").click()
        expect(page.locator(f'[data-fleet-table="table-{k}"]')).to_be_visible(timeout=30_000)
    expect(page.locator("form.join-request")).to_have_count(0)

    # Each table has its membership (0600) and is online with its first config.
    tls = fleet.tls
    cookie = director_login(fleet.url, "director", fleet.password, tls)
    for k in range(1, TABLES + 1):
        member = fleet.folder / f"table-{k}" / "fleet"
        joined = member / "membership.json"
        wait_until(f"table {k} told it is approved", joined.exists, GUARD)  # it polls
        for name in ("membership.json", "broker.password", "director.pub"):
            assert (member / name).stat().st_mode & 0o777 == 0o600, name
        assert json.loads((member / "membership.json").read_text())["name"] == f"Table {k}"

    def configs_applied() -> bool:
        tables = get_json(fleet.url + "api/fleet", cookie, tls)["tables"]
        return len(tables) == TABLES and all(
            t["online"] and t["config_text"].startswith("Config 1 applied") for t in tables
        )

    wait_until("every table online with its config applied", configs_applied, GUARD)

    # The director seats round 1; each table plays a hand with the players it was sent.
    status, answer = post(
        fleet.url + "api/event/create",
        {"format": "progressive", "rounds": 1, "entrants": "\n".join(PLAYERS)},
        cookie,
        tls,
    )
    assert status == 200, answer
    places = {f"table-{k}": str(k) for k in range(1, TABLES + 1)}
    status, answer = post(
        fleet.url + "api/event/assign", {"round": 1, "places": places}, cookie, tls
    )
    assert status == 200, answer

    def a_hand_each() -> bool:
        view = get_json(fleet.url + "api/overview", cookie, tls)
        played = {
            t["table"]
            for t in view["tables"]
            if sum(t.get("scores") or [0]) > 0 and set(t["players"].values()) <= set(PLAYERS)
        }
        return played >= set(places)

    wait_until("a hand scored at every table", a_hand_each, GUARD)
    view = get_json(fleet.url + "api/overview", cookie, tls)
    assert {r["name"] for r in view["event"]["standings"]} == set(PLAYERS)
    seen = json.dumps(view["tables"])
    for name in PLAYERS:
        assert name in seen, f"{name} not at any table the director sees"

    # Table 5 removed on the Fleet page: its login is refused from then on.
    password = (fleet.folder / "table-5" / "fleet" / "broker.password").read_text().strip()
    assert broker_refuses(fleet, "table-5", password) is None  # (the table reconnects)
    page.on("dialog", lambda d: d.accept())
    page.locator('[data-fleet-table="table-5"] .remove-table').click()
    expect(page.locator('[data-fleet-table="table-5"]')).to_have_count(0, timeout=30_000)
    refusal = broker_refuses(fleet, "table-5", password)
    assert refusal is not None and "authori" in refusal.lower(), refusal
    assert broker_refuses(fleet, "table-4", "not-its-password") is not None
    page.screenshot(path=str(ROOT / "test-artifacts" / "fleet-after.png"))

    # The sniffer: nothing of the event in clear; a marker sent in clear is seen.
    marker = b"marker-in-clear-7f3a"
    plain = f"http://{fleet.net.address(DIRECTOR)}:{HTTP_PORT}/{marker.decode()}"
    opener = urllib.request.build_opener(NoRedirect())
    with pytest.raises(urllib.error.HTTPError) as moved:
        opener.open(plain, timeout=30)
    assert moved.value.code == 301
    assert moved.value.headers["Location"] == fleet.url + marker.decode()
    secrets = {
        "the director's password": fleet.password.encode(),
        "the director's session": cookie.encode(),
        **{
            f"table {k}'s broker password": (
                fleet.folder / f"table-{k}" / "fleet" / "broker.password"
            )
            .read_text()
            .strip()
            .encode()
            for k in range(1, TABLES + 1)
        },
        **{f"the player {name}": name.encode() for name in PLAYERS},
        "a card played": b"card_played",
        "the marker": marker,
    }
    wait_until(
        "the capture holds the marker",
        lambda: marker in lan_capture.found(fleet.capture, [marker]),
        GUARD,
    )
    seen = lan_capture.found(fleet.capture, secrets.values())
    assert [what for what, s in secrets.items() if s in seen] == ["the marker"]


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kw: Any) -> None:
        return None
