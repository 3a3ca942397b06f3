"""The round's time, a setting of the event (checked, kept, said in words when wrong),
and the pace of play on the dashboard in real headless Chromium, on a driven clock: a
director sets the round's time and starts its clock in the event section; twenty-one
minutes in, the table playing seven minutes a hand is flagged in words with the time
it needs, 39 minutes before the round ends, and the table playing four minutes a hand
is not; the round's time lengthened mid-round takes the flag away. Screenshots:
test-artifacts/pace-*.png (docs/images/dashboard-pace.png is the wide one).

001 s5: "Each match consists of 12 hands." (the nmu-tournament preset's hands a game)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pace_games import MIN, timed_game
from playwright.sync_api import Browser, Page, expect
from test_director_screens import CODES, OVERFLOW
from test_director_web import ARTIFACTS, PASSWORD, Served, log_in, log_in_page, post

from table_controller.director.store import DirectorStore
from table_controller.director.tournament import (
    AdminError,
    TournamentAdmin,
    TournamentState,
    apply_form,
)
from table_controller.director.web import DirectorPage

T0 = 1_800_000_000.0
TEAMS = ["Reds: Ann Lee, Bob Stone", "Blues: Cy Ray, Di Moss", "Greens: Ed Fox, Flo Kay"]
TEAMS += ["Golds: Gus Hart, Hal Wren"]


class Clock:
    """The director's clock, driven by the test."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def status(table: str, name: str, at: float) -> dict[str, Any]:
    return {
        "v": 1,
        "table": table,
        "name": name,
        "online": True,
        "at": at,
        "every": 30,
        "faults": [],
        "backlog": 0,
        "rules": {"name": "nmu-tournament", "options": {}},
    }


def test_the_rounds_time_is_checked_said_in_words_and_kept(tmp_path: Path) -> None:
    clock = Clock(T0)
    store = DirectorStore(tmp_path / "director.sqlite", rules_name="nmu-tournament", clock=clock)
    try:
        admin = TournamentAdmin(store)
        with pytest.raises(AdminError, match="no event has been created yet: create it first"):
            admin.set_round_time("ann", 60, 12)
        admin.create("ann", "rounds", TEAMS, rounds=3)

        def form(action: str, body: dict[str, Any]) -> str | None:
            return asyncio.run(apply_form(admin, "ann", action, body))

        with pytest.raises(AdminError, match="the round's time is not set: give the minutes"):
            form("round_start", {})
        for body, words in [
            ({"minutes": "sixty"}, "the minutes a round: 'sixty' is not a whole number"),
            ({}, "the minutes a round is missing: write a whole number"),
            ({"minutes": 0}, "a whole number of minutes from 1 to 1440, not 0: e.g. 60"),
            ({"minutes": 60, "hands": 0}, "a whole number from 1 to 100, not 0: e.g. 12"),
            ({"minutes": 60, "hands": "a dozen"}, "the hands a round: 'a dozen' is not"),
        ]:
            with pytest.raises(AdminError, match=re.escape(words)):
                form("round_time", body)
        assert admin.round_clock() is None  # nothing refused was kept

        assert form("round_time", {"minutes": 60, "hands": ""}) == (
            "a round is 60 minutes, each table's rules"
        )
        with pytest.raises(AdminError, match=re.escape("began 0 to 60 minutes ago")):
            form("round_start", {"minutes_ago": 61})
        assert form("round_start", {"minutes_ago": 5}) == "round 1's clock started 5 minutes ago"
        started = admin.round_clock()
        assert started is not None and started.started == T0 - 5 * MIN and started.round == 1
        # changed mid-round: the clock keeps running, to the new time
        form("round_time", {"minutes": 75, "hands": 12})
        again = TournamentAdmin(store)  # the director restarted
        kept = again.round_clock()
        assert kept is not None
        assert (kept.minutes, kept.hands, kept.round, kept.started) == (75, 12, 1, T0 - 5 * MIN)
        actions = [h["action"] for h in store.formats.format_history(last=10)]
        assert actions[-3:] == ["round_time", "round_started", "round_time"]
    finally:
        store.close()


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Served, DirectorStore, Clock]]:
    clock = Clock(T0 - 5 * MIN)
    store = DirectorStore(tmp_path / "director.sqlite", rules_name="nmu-tournament", clock=clock)
    store.accounts.add_login("ann", PASSWORD)
    page = DirectorPage(store, None, title="Club night", pace_every=0.2)
    page.admin.create("ann", "rounds", TEAMS, rounds=3)
    for table, name in [("table-7", "Table 7"), ("table-3", "Table 3")]:
        store.tables.add_status(status(table, name, clock.now))  # type: ignore[arg-type]
    s = Served(page)
    yield s, store, clock
    s.close()
    store.close()


@pytest.mark.slow  # a browser, a login, two games played
def test_the_dashboard_flags_the_slow_table_before_the_round_ends(
    browser: Browser, served: tuple[Served, DirectorStore, Clock], tmp_path: Path
) -> None:
    s, store, clock = served
    code, answer = post(s.url + "api/event/round_time", {"minutes": 0}, log_in(s.url))
    assert code == 400 and "not 0: e.g. 60" in answer["problem"]

    context = browser.new_context(viewport={"width": 1920, "height": 1080})
    page: Page = context.new_page()
    try:
        page.goto(s.url)
        log_in_page(page)
        expect(page.locator("#pace-round")).to_contain_text("No round's time is set")
        page.fill("#round-minutes", "60")
        page.fill("#round-hands", "12")
        page.click("#round-time-button")
        expect(page.locator("#event-done")).to_have_text("a round is 60 minutes, 12 hands")
        expect(page.locator("#pace-round")).to_contain_text("its clock has not started")
        clock.now = T0
        page.click("#round-start-button")
        expect(page.locator("#event-done")).to_have_text("round 1's clock started")
        expect(page.locator("#pace-round")).to_contain_text("Round 1: no minutes gone of 60")

        # Twenty-one minutes in: table 7 has played 3 hands at 7 minutes, table 3 five at 4.
        clock.now = T0 + 21 * MIN
        slow = timed_game(tmp_path, "table-7", hands=3, start=T0, minutes_a_hand=7.0, seed=7)
        fast = timed_game(tmp_path, "table-3", hands=5, start=T0, minutes_a_hand=4.0, seed=3)
        for m in [*slow, *fast]:
            store.events.add_event(m)  # type: ignore[arg-type]
        s.page.changed("event", "table-7")

        flagged = page.locator("#pace-flagged li")
        expect(flagged).to_have_count(1)
        expect(flagged).to_contain_text(
            "Table 7 needs about 24 minutes more than the round has left (9 hands to play at "
            "7.0 minutes a hand: about 63 minutes; the round has 39 minutes left)"
        )
        expect(page.locator("#pace-round")).to_contain_text(
            "21 minutes gone of 60, 39 minutes left"
        )
        late = page.locator('#pace-tables tr[data-table="table-7"]')
        expect(late).to_have_class("late")
        expect(late.locator("td")).to_have_text(
            ["Table 7", "3", "9", "7.0 minutes a hand", re.compile(r"24 minutes after the round")]
        )
        on_time = page.locator('#pace-tables tr[data-table="table-3"]')
        expect(on_time).to_have_class("playing")
        expect(on_time.locator("td").nth(4)).to_contain_text("within the round")
        card = page.locator('.table-card[data-table="table-7"]')
        expect(card).to_have_class(re.compile(r"\blate\b"))
        expect(card.locator(".pace")).to_contain_text("24 minutes after the round ends")
        expect(page.locator('.table-card[data-table="table-3"] .pace')).to_contain_text(
            "within the round"
        )
        text = str(page.evaluate("document.body.innerText"))
        assert not CODES.findall(text), CODES.findall(text)
        page.locator("#tables-section").scroll_into_view_if_needed()
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "pace-1920.png"))

        # The round lengthened to 90 minutes mid-round: table 7 finishes inside it.
        page.fill("#round-minutes", "90")
        page.click("#round-time-button")
        expect(page.locator("#pace-flagged li")).to_have_count(0)
        expect(late).to_have_class("playing")
        expect(page.locator("#pace-round")).to_contain_text("69 minutes left")

        page.set_viewport_size({"width": 375, "height": 800})
        out: dict[str, Any] = page.evaluate(OVERFLOW)
        assert out["scroll"] <= 0 and not out["past"], out
        page.locator("#pace-section").scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / "pace-375.png"))
    finally:
        context.close()


def test_a_pace_that_cannot_be_judged_is_said_and_the_overview_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = DirectorStore(tmp_path / "director.sqlite", rules_name="nmu-tournament")
    try:
        store.tables.add_status(status("table-7", "Table 7", T0))  # type: ignore[arg-type]
        page = DirectorPage(store, None, title="Club night")

        def broken(titles: object) -> None:
            raise ValueError("a mark no table could send")

        monkeypatch.setattr(page.pace, "view", broken)
        overview = page.overview()
        assert overview["pace"].get("problem") == (
            "The pace of play could not be judged (a mark no table could send); the rest "
            "of the dashboard is up to date"
        )
        assert [t["title"] for t in overview["tables"]] == ["Table 7"]
        _, parts = page._snapshot(None)
        assert "could not be judged" in parts["pace"]
    finally:
        store.close()


def test_a_saved_rounds_time_that_no_longer_reads_is_dropped_not_the_event() -> None:
    state = TournamentState.from_json({"round_clock": {"minutes": 0, "hands": 12}})
    assert state.round_clock is None and state.event is None
    kept = TournamentState.from_json(
        {"round_clock": {"minutes": 60, "hands": None, "round": 2, "started": T0}}
    )
    assert kept.round_clock is not None and kept.round_clock.ends == T0 + 60 * MIN
