"""The director's live view of a table marks a card lying across a zone's line, from the
table's status (its ``across``, table/across_line.py), which is signed by the table with
the rest of the status and checked like it (director/table_trust.py, docs/security.md):
a status whose ``across`` was changed on the way is not stored, and says so. In Debian's
chromium (headless, Playwright): the table's card shows the mark in words, and loses it
with the next status that has none. A screenshot lands in
test-artifacts/dashboard-across.png."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, expect
from test_director_web import ARTIFACTS, PASSWORD, Served, log_in_page
from test_table_trust import TOPICS, T, close, setup

from table_controller.cards import Card
from table_controller.director.dashboard import DashboardView
from table_controller.director.web import DirectorPage
from table_controller.feed import messages
from table_controller.seats import Seat
from table_controller.table.across_line import AcrossLine

PLAYERS = {"N": "Ann", "E": "Bo", "S": "Cy", "W": "Di"}
ACROSS = AcrossLine(Card.parse("9S"), ("kitty", "play:E"), Seat.E, "play:E").status()
SAID = "9♠ between the kitty and East's play zone; Bo (East) to push it in"


def status(at: float, across: list[Any]) -> dict[str, Any]:
    return messages.status_message(
        table=T, at=at, every=5.0, game=1, hand=1, phase="playing", scores=(0, 0),
        players=PLAYERS, faults=[], backlog=0, name="Table 7", across=across,
    )  # fmt: skip


def across_texts(view: DashboardView) -> list[str]:
    (line,) = view.lines(view.store.tables.raw_tables(), {}, {})
    return list(line.row["across_texts"])


def test_the_status_carries_the_card_across_a_line_signed(tmp_path: Path) -> None:
    store, svc, table = setup(tmp_path)
    view = DashboardView(store)
    try:
        assert "across" not in status(1.0, [])  # none: left out, as a table of before
        svc.handle(TOPICS.status(T), table.signed("status", status(1.0, [ACROSS])))
        assert store.tables.tables()[0]["across"] == [ACROSS]
        assert across_texts(view) == [SAID]
        # Changed on the way (another card named): the signature no longer holds.
        signed = json.loads(table.signed("status", status(2.0, [ACROSS])))
        signed["across"] = [{**ACROSS, "card": "JH"}]
        svc.handle(TOPICS.status(T), json.dumps(signed).encode())
        said = close(store, "signature")
        assert said.startswith("table-1: a status came"), said
        assert "it was not stored" in said
        assert svc.refused == 1
        assert across_texts(view) == [SAID]  # what the table signed, still
        # Pushed in: the next status has none, and the mark goes.
        svc.handle(TOPICS.status(T), table.signed("status", status(3.0, [])))
        assert store.tables.tables()[0]["across"] == []
        assert across_texts(view) == []
    finally:
        store.close()


def test_what_cannot_be_read_is_passed_over_and_an_offline_table_shows_none(
    tmp_path: Path,
) -> None:
    store, svc, table = setup(tmp_path)
    view = DashboardView(store)
    try:
        odd = {**status(1.0, []), "across": [ACROSS, {"card": "ZZ"}, "9S", {"zones": 7}]}
        svc.handle(TOPICS.status(T), table.signed("status", odd))
        assert across_texts(view) == [SAID]
        svc.handle(
            TOPICS.status(T),
            table.signed("status", messages.offline_message(table=T, at=2.0), last_word=True),
        )
        assert across_texts(view) == []  # offline: what it last saw is not shown as now
    finally:
        store.close()


def test_the_dashboard_marks_the_table_until_the_card_is_pushed_in(
    tmp_path: Path, browser: Browser
) -> None:
    store, svc, table = setup(tmp_path)
    store.accounts.add_login("ann", PASSWORD)
    served = Served(DirectorPage(store, svc, title="Spring Open"))
    try:
        svc.handle(TOPICS.status(T), table.signed("status", status(time.time(), [ACROSS])))
        page = browser.new_page(viewport={"width": 1920, "height": 1080})
        page.goto(served.url)
        log_in_page(page)
        card = page.locator(f'.table-card[data-table="{T}"]')
        expect(card).to_have_class("table-card across")
        expect(card.locator(".across-line")).to_have_text("Card across a line: " + SAID)
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "dashboard-across.png"))
        svc.handle(TOPICS.status(T), table.signed("status", status(time.time(), [])))
        expect(card.locator(".across-line")).to_have_count(0)
        expect(card).to_have_class("table-card")
        page.close()
    finally:
        served.close()
        store.close()
