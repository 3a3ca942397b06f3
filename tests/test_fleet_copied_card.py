"""A copied SD card at the director (director/fleet/copied.py, machines.py): two
machines reporting as one approved table, each naming its machine in its heartbeat,
through a real mosquitto into the real director (service, store: SQLite and
PostgreSQL), and the Fleet page in headless Chromium showing the warning on the
table's card and on a request to join that two machines ask with. The warning is said
once in the director's journal (one alert), and clears once one machine has been
silent past the window, on a clock the test moves. A status signed by the table's key
but out of its order (the twin's, whose starts interleave) still shows the twin; an
older table naming no machine is taken as before.
The screenshot is test-artifacts/fleet-copied-card.png."""

from __future__ import annotations

import base64
import logging
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mosquitto import Mosquitto
from playwright.sync_api import Browser, Page, expect
from test_director_service import PREFIX, WAIT, client, publish, start_broker, wait_until
from test_director_web import ARTIFACTS, log_in_page
from test_fleet_view_web import GB, Event, FakeTable, post_join

from table_controller.director.fleet.copied import ALERT
from table_controller.director.fleet.machines import TWIN_WINDOW
from table_controller.director.service import BrokerConfig, DirectorService
from table_controller.director.store import DirectorStore
from table_controller.feed import messages
from table_controller.feed.messages import MachineClaim
from table_controller.feed.table_signing import load_private, new_table_key, sign_message
from table_controller.table.fleet.identity import fingerprint

PI_A: MachineClaim = {"id": fingerprint("serial", "10000000a1b2c3d4"), "source": "serial"}
PI_B: MachineClaim = {"id": fingerprint("serial", "10000000ffee0011"), "source": "serial"}


class ShiftedClock:
    """The director's clock: real time, moved ahead when the test says."""

    def __init__(self) -> None:
        self.ahead = 0.0

    def __call__(self) -> float:
        return time.time() + self.ahead


def short(claim: MachineClaim) -> str:
    return f"machine {claim['id'][:4]}-{claim['id'][4:8]}"


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1600, "height": 1000})
    p = context.new_page()
    yield p
    context.close()


@pytest.fixture
def event(tmp_path: Path) -> Iterator[tuple[Event, ShiftedClock]]:
    clock = ShiftedClock()
    e = Event(tmp_path, clock=clock)
    yield e, clock
    e.close()


def copied_alerts(store: DirectorStore) -> list[dict[str, Any]]:
    return [dict(a) for a in store.alerts.alerts() if a["kind"] == ALERT]


def ask(event: Event, key: bytes, claim: MachineClaim) -> dict[str, Any]:
    body = {
        "v": 2,
        "key": base64.b64encode(key).decode(),
        "host": "euchre-pi",
        "version": "0.1.0",
        "machine": claim,
    }
    return post_join(event.url, body)


def poll(event: Event, request: str, claim: MachineClaim) -> None:
    url = event.url + f"api/fleet/join/{request}?machine={claim['id']}"
    with urllib.request.urlopen(url, timeout=10) as r:
        assert r.status == 200


@pytest.mark.slow(budget=90)
def test_two_machines_as_one_table_are_warned_once_and_cleared_when_one_stops(
    page: Page, event: tuple[Event, ShiftedClock], caplog: pytest.LogCaptureFixture
) -> None:
    e, clock = event
    caplog.set_level(logging.WARNING, logger="table_controller.director.fleet.copied")
    e.store.fleet.fleet_approve("table-1", "Table 1", "pi", "127.0.0.1", "0.1.0", "k", clock())
    e.store.fleet.fleet_approve("table-2", "Table 2", "pi", "127.0.0.1", "0.1.0", "k", clock())
    healthy = {"faults": [], "disk_free": 20 * GB}
    a = FakeTable(
        e.broker, e.public, "table-1", "Table 1", machine=PI_A, client_id="pi-a", **healthy
    )
    e.tables.append(a)
    other: MachineClaim = {"id": fingerprint("network", "dc:a6:32:00:00:01"), "source": "network"}
    e.tables.append(
        FakeTable(
            e.broker, e.public, "table-2", "Table 2", machine=other, client_id="pi-c", **healthy
        )
    )
    page.goto(e.url)
    log_in_page(page)
    page.click("#fleet-link")
    card = page.locator('[data-fleet-table="table-1"]')
    machine_row = card.locator('dt:text-is("Machine") + dd')
    expect(machine_row).to_have_text(f"Machine {short(PI_A)[8:]} (by its serial number)")
    expect(card.locator(".copied-card")).to_have_count(0)

    # The copy of table 1's card starts on a second Pi: both send heartbeats as table-1.
    b = FakeTable(
        e.broker, e.public, "table-1", "Table 1", machine=PI_B, client_id="pi-b", **healthy
    )
    e.tables.append(b)
    a.beat()
    wait_until("the copied card is alerted", lambda: len(copied_alerts(e.store)) == 1)
    warning = (
        f"Table 1 is reported by two machines at once ({short(PI_A)} (by its serial number) "
        f"and {short(PI_B)} (by its serial number)): one of them is a copied card"
    )
    expect(card.locator(".copied-card")).to_contain_text(warning)
    expect(card.locator(".copied-card")).to_contain_text(
        "On every machine but the one that should be Table 1, stop its service"
    )
    expect(machine_row).to_have_text(
        f"Two at once: {short(PI_A)} (by its serial number) and {short(PI_B)} (by its serial "
        "number)"
    )
    expect(machine_row).to_have_class("bad")
    expect(card).to_have_class("fleet-card troubled")
    expect(page.locator('[data-fleet-table="table-2"] .copied-card')).to_have_count(0)

    # Two machines asking with one join code: the request says so.
    key = bytes(range(32))
    asked = ask(e, key, PI_A)
    clock.ahead += 1
    ask(e, key, PI_B)
    clock.ahead += 1
    poll(e, asked["request"], PI_A)
    copied_code = page.locator(f"#approve-{asked['request']} .copied-code")
    expect(copied_code).to_contain_text(
        "2 tables ask with this code: a copied card. On each copy, stop its service"
    )
    page.locator(f"#approve-{asked['request']} button.approve").click()
    expect(page.locator(f"#approve-{asked['request']} .request-problem")).to_contain_text(
        "2 tables ask with this code: a copied card"
    )
    assert "table-3" not in e.credentials.logins
    text = page.locator("#fleet").inner_text()
    for code in ("table-1", PI_A["id"], PI_B["id"], "copied_card", "serial:"):
        assert code not in text, code
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "fleet-copied-card.png"), full_page=True)

    # The dashboard's alerts have it once, in the same words.
    page.goto(e.url)
    alert = page.locator('#alerts li[data-kind="copied_card"]')
    expect(alert).to_have_count(1)
    expect(alert).to_contain_text("Two machines as one table")
    expect(alert).to_contain_text(warning)
    assert "Table 1: Table 1" not in alert.inner_text()
    page.screenshot(path=str(ARTIFACTS / "dashboard-copied-card.png"))
    page.goto(e.url + "fleet")

    # More heartbeats from both: still one alert, one line in the journal.
    for _ in range(3):
        a.beat()
        b.beat()
    wait_until(
        "the heartbeats are stored",
        lambda: e.service.batched >= 8 and len(copied_alerts(e.store)) == 1,
    )
    said = [r for r in caplog.records if "is reported by two machines" in r.getMessage()]
    assert len(said) == 1 and said[0].levelno == logging.WARNING
    [alert] = copied_alerts(e.store)
    assert alert["table"] == "table-1" and alert["text"].startswith(warning)

    # The copy is switched off; past the window the one machine left clears the warning.
    b.close()
    e.tables.remove(b)
    clock.ahead += TWIN_WINDOW + 1
    a.beat()
    expect(card.locator(".copied-card")).to_have_count(0)
    expect(machine_row).to_have_text(f"Machine {short(PI_A)[8:]} (by its serial number)")
    expect(machine_row).not_to_have_class("bad")


def test_a_signed_twin_out_of_order_still_shows_and_an_old_table_is_taken(
    tmp_path: Path, store_target: str
) -> None:
    """The real copies sign with the one key they share, and each start numbers its
    statuses: the director takes one machine's and refuses the other's as older, and
    the refused one, signed all the same, still shows the copy."""
    broker: Mosquitto = start_broker(tmp_path / "broker")
    store = DirectorStore(store_target)
    clock = ShiftedClock()
    service = DirectorService(
        store, BrokerConfig(port=broker.port, client_id="director-twin"), prefix=PREFIX, clock=clock
    )
    service.start()
    try:
        assert service.connected.wait(WAIT)
        keys = new_table_key()
        store.keys.register_key("table-1", keys.public_pem.decode(), source="test", enforced=True)
        private = load_private(keys.private_pem)
        topics = messages.Topics(PREFIX)
        pi = client(broker, "pi")

        def beat(table: str, boot: int, n: int, claim: MachineClaim | None) -> None:
            fleet: dict[str, Any] = {
                "version": "0.1.0",
                "devices": {},
                "disk_free_mb": 100,
                "calibration": {"at": None},
                "config_seq": None,
            }
            if claim is not None:
                fleet["machine"] = claim
            status = {
                **messages.status_message(
                    table=table, at=clock(), every=5, game=1, hand=None, phase=None,
                    scores=[0, 0], players={}, faults=[], backlog=0, name="Table 1",
                ),
                "fleet": fleet,
                "order": [boot, 1, n],
            }  # fmt: skip
            body = sign_message("status", status, private) if table == "table-1" else status
            publish(pi, topics.status(table), body)

        beat("table-1", 2000, 1, PI_B)  # the copy started later: its places are newer
        wait_until("the copy's status is taken", lambda: store.tables.tables() != [])
        beat("table-1", 1000, 7, PI_A)  # the first Pi's: signed, older, refused
        beat("table-1", 2000, 2, PI_B)
        wait_until("the copy is alerted", lambda: len(copied_alerts(store)) == 1)
        machines = {m["machine"] for m in store.machines.machines("table-1")}
        assert machines == {PI_A["id"], PI_B["id"]}
        assert any(a["kind"] == "replay" for a in store.alerts.alerts())

        # An older table's heartbeat names no machine: taken as before, nothing kept.
        beat("table-9", 0, 1, None)
        wait_until(
            "the old table's status is taken",
            lambda: any(t["table"] == "table-9" for t in store.tables.tables()),
        )
        assert store.machines.machines("table-9") == []
        # A status whose signature fails names a machine nobody vouched for: not kept.
        forged = {**messages.status_message(
            table="table-1", at=clock(), every=5, game=1, hand=None, phase=None,
            scores=[0, 0], players={}, faults=[], backlog=0,
        ), "fleet": {"machine": {"id": "c" * 16, "source": "serial"}}, "order": [3000, 1, 1],
            "sig": "AAAA"}  # fmt: skip
        publish(pi, topics.status("table-1"), forged)
        wait_until(
            "the forged status is refused",
            lambda: any(a["kind"] == "signature" for a in store.alerts.alerts()),
        )
        assert "c" * 16 not in {m["machine"] for m in store.machines.machines("table-1")}
        pi.loop_stop()
        pi.disconnect()
    finally:
        service.stop()
        store.close()
        broker.stop()
