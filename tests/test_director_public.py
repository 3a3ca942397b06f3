"""The public view (delayed, no held card) and the dashboard's event section, in a real
headless Chromium against the real dashboard over a real store, fed the feed's messages
of a game whose hands are known (a rules transcript, so a renege is spotted while the
player still holds the card)."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect
from test_director_store import TABLE
from test_director_web import PASSWORD, Served, log_in_page

from table_controller import transcript
from table_controller.director.hall import PublicView
from table_controller.director.store import DirectorStore
from table_controller.director.web import DirectorPage
from table_controller.feed.messages import event_message
from table_controller.rules.codec import encode
from table_controller.rules.game import Game

TRANSCRIPT = Path(__file__).parent / "transcripts" / "000_renege_taken_back.jsonl"


def spotted() -> tuple[list[dict[str, Any]], int, str, dict[str, Any]]:
    """A game whose hands are known (a transcript of the rules texts), as the feed's
    messages: its renege_spotted's index, the held card, and the table's rules."""
    script = transcript.load(TRANSCRIPT)
    game = Game(script.rules())
    messages: list[dict[str, Any]] = []
    for step in script.steps:
        if step.expect_error is not None:
            continue
        outputs = [encode(o) for o in game.push(step.event)]
        seq = len(messages) + 1
        messages.append(
            event_message(
                table=TABLE,
                game=1,
                seq=seq,
                at=1000.0 + seq,
                source="camera",
                input_event=encode(step.event),
                outputs=outputs,
                hand=game.hand.number if game.hand is not None else None,
                evidence=False,
            )
        )
    rules = {"name": script.rules_name, "options": script.options}
    for i, m in enumerate(messages):
        for o in m["outputs"]:
            if o.get("event") == "renege_spotted":
                return messages, i, str(o["held"]), rules
    raise AssertionError("the transcript has no renege_spotted")


def status(table: str, rules: dict[str, Any]) -> dict[str, Any]:
    return {
        "rules": rules,
        "v": 1,
        "table": table,
        "online": True,
        "at": 1.0,
        "every": 5,
        "game": 1,
        "hand": 1,
        "phase": "playing",
        "scores": [0, 0],
        "players": {"N": "Ann", "E": "Bo", "S": "Cy", "W": "Di"},
        "faults": [],
        "backlog": 0,
    }


def test_public_view_is_delayed_and_hides_held_cards(tmp_path: Path) -> None:
    messages, i, held, rules = spotted()
    store = DirectorStore(tmp_path / "d.sqlite")
    store.tables.add_status(status(TABLE, rules))
    for m in messages:
        store.events.add_event(m)
    # The held card is in the store (the director rules on it), never in the public view
    # as of the renege being spotted (it is still in the player's hand then).
    assert held in json.dumps(store.events.events(TABLE))
    at = messages[i]["at"]
    view = PublicView(store, clock=lambda: at + 30.0, delay=30.0)
    snap = view.snapshot()
    assert held not in json.dumps(snap)
    assert any(n["event"] == "renege_spotted" for n in snap["tables"][0]["news"])
    # Delayed: the picture is the game as of the events recorded `delay` seconds ago.
    live = PublicView(store, clock=lambda: messages[-1]["at"]).snapshot()
    assert live["tables"][0]["score"] != snap["tables"][0]["score"] or (
        live["tables"][0]["hand"],
        live["tables"][0]["trick"],
    ) != (snap["tables"][0]["hand"], snap["tables"][0]["trick"])
    # A query may lengthen the delay, never shorten it.
    assert view.delay(5.0) == 30.0 and view.delay(60.0) == 60.0
    early = PublicView(store, clock=lambda: messages[0]["at"] - 1).snapshot()
    assert early["tables"] == []


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    store = DirectorStore(tmp_path / "director.sqlite")
    store.accounts.add_login("ann", PASSWORD)
    s = Served(DirectorPage(store, None, title="Spring Open"))
    yield s
    s.close()
    store.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    yield context.new_page()
    context.close()


def test_public_page_shows_scores_live_and_no_held_card(page: Page, served: Served) -> None:
    messages, i, held, rules = spotted()
    store = served.page.store
    store.tables.add_status(status(TABLE, rules))
    for m in messages[: i + 1]:
        store.events.add_event(m)
    page.goto(served.url + "public")
    box = page.locator(".tile")
    expect(box.locator(".name")).to_have_text(TABLE)  # no name in its status: the id
    expect(box.locator(".team .score")).to_have_text(["0", "0"])
    expect(box.locator(".team .who")).to_have_text(["Ann & Cy", "Bo & Di"])
    with urllib.request.urlopen(served.url + "api/public", timeout=10) as r:
        assert held not in r.read().decode()
    code = held  # the page draws cards as text: check both the code and the JSON never had it
    assert code not in page.content()
    for m in messages[i + 1 :]:
        store.events.add_event(m)
    final = PublicView(store).snapshot()["tables"][0]["score"]
    expect(box.locator(".team .score")).to_have_text([str(final["NS"]), str(final["EW"])])
    assert (final["NS"], final["EW"]) != (0, 0)
    page.screenshot(path=str(Path(__file__).resolve().parents[1] / "test-artifacts" / "public.png"))


def test_director_creates_an_event_marks_an_absentee_sees_seating(
    page: Page, served: Served
) -> None:
    page.goto(served.url)
    expect(page.locator("#event-create")).to_be_hidden()
    log_in_page(page)
    expect(page.locator("#event-create")).to_be_visible()
    page.select_option("#event-format", "progressive")
    page.fill("#event-rounds", "2")
    page.fill("#event-entrants", "\n".join(["Ann", "Bob", "Cy", "Di", "Ed", "Flo", "Gus", "Hal"]))
    page.click("#event-create-button")
    expect(page.locator("#event-kind")).to_have_text("(progressive)")
    expect(page.locator("#event-seating div")).to_have_count(2)
    expect(page.locator("#event-standings tbody tr")).to_have_count(8)
    page.select_option("#absent-player", "cy")
    page.fill("#absent-reason", "stuck in traffic")
    page.click("#absent-button")
    expect(page.locator("#event-seating .problem")).to_contain_text("Cy is marked absent")
    page.fill("#sub-round", "1")
    page.select_option("#sub-absent", "cy")
    page.fill("#sub-name", "Zed")
    page.click("#sub-button")
    expect(page.locator("#event-seating")).to_contain_text("Zed")
    expect(page.locator("#event-seating .problem")).to_have_count(0)
    expect(page.locator("#event-history li")).to_have_count(3)
    expect(page.locator("#event-history")).to_contain_text("stuck in traffic")
    # A result by hand without a reason is refused in words.
    page.fill("#result-place", "1")
    page.fill("#result-ns", "8")
    page.fill("#result-ew", "6")
    page.fill("#result-seats", "4 3 4 3")
    page.click("#result-button")
    expect(page.locator("#event-problem")).to_contain_text("needs a reason")
    page.fill("#result-reason", "score card")
    page.click("#result-button")
    expect(page.locator("#event-standings tbody tr").first).to_contain_text("4")
    # The public page shows the standings too.
    page.goto(served.url + "public")
    expect(page.locator("#standings li")).to_have_count(8)  # Zed plays for Cy's points
    expect(page.locator("#standings")).to_contain_text("Cy")
    page.goto(served.url)
    expect(page.locator("#event-name")).to_have_text("Spring Open")  # the service's name
    # Next month's event in the same store: the same name is refused, in words.
    page.click("#event-new")
    expect(page.locator("#event-create")).to_be_visible()
    page.fill("#event-entrants", "\n".join(["Ann", "Bob", "Cy", "Di", "Ed", "Flo", "Gus", "Hal"]))
    page.click("#event-create-button")
    expect(page.locator("#event-problem")).to_contain_text('an event named "Spring Open"')
    page.fill("#event-name-input", "Spring Open, December")
    page.click("#event-create-button")
    expect(page.locator("#event-name")).to_have_text("Spring Open, December")
    expect(page.locator("#event-create")).to_be_hidden()
    expect(page.locator("#event-standings tbody tr")).to_have_count(8)
    page.click("#event-new")
    page.fill("#event-name-input", "Spring Open")
    page.fill("#event-entrants", "\n".join(["Ann", "Bob", "Cy", "Di", "Ed", "Flo", "Gus", "Ivy"]))
    page.click("#event-create-button")
    expect(page.locator("#event-problem")).to_contain_text("another name")
    page.fill("#event-name-input", "Spring Open, December")  # unplayed: created again
    page.click("#event-create-button")
    expect(page.locator("#event-standings")).to_contain_text("Ivy")
    page.goto(served.url + "public")  # the hall: the new event's standings, no result yet
    expect(page.locator("#standings")).not_to_contain_text("Zed")
