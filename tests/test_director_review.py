"""The hand review on the director's side (issue 34): the dashboard reviews every game (a
director's login; a game in progress shows its ended hands, never the hand in play), and
the hall's recent results replay a game only once it is over and past the public delay,
for anyone. Real stores filled with the feed's messages of simulated games, the real
dashboard served on a loopback port, the pages in headless Chromium."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from hall_world import fill_hall
from playwright.sync_api import Browser, expect
from review_games import review_data
from test_director_web import ARTIFACTS, PASSWORD, Served, log_in, log_in_page

from table_controller.director.session import COOKIE
from table_controller.director.store import DirectorStore
from table_controller.director.web import DirectorPage
from table_controller.event_log import GameRecord, LoggedEvent
from table_controller.review import review_game, review_view
from table_controller.rules.codec import decode_input
from table_controller.rules.events import HandStarted
from table_controller.rules.game import Game
from table_controller.rules.presets import preset


def get(url: str, cookie: str | None = None) -> tuple[int, str, dict[str, str]]:
    headers = {"Cookie": f"{COOKIE}={cookie}"} if cookie else {}
    req = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.read().decode(), dict(r.headers)
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode(), dict(exc.headers)


def _cut_before_hand_in_play(store: DirectorStore, table: str, game: int) -> list[LoggedEvent]:
    """The game's stored events up to the deal of the hand now in play."""
    events = [
        LoggedEvent(game, e["seq"], decode_input(e["input"]), e["source"], e["at"], False)
        for e in store.events.events(table, game)
    ]
    g = Game(preset("td-tournament"))
    in_play_from = len(events)
    for n, e in enumerate(events):
        if any(isinstance(o, HandStarted) for o in g.push(e.event)):
            in_play_from = n
    assert g.hand is not None, "the game is not in the middle of a hand"
    return events[:in_play_from]


@pytest.fixture
def store(tmp_path: Path) -> DirectorStore:
    s = DirectorStore(tmp_path / "director.sqlite")
    s.accounts.add_login("ann", PASSWORD)
    return s


def test_the_dashboard_reviews_every_game_and_a_game_in_progress_shows_no_hand_in_play(
    store: DirectorStore, browser: Browser
) -> None:
    # Table 1 finished a game and is into its second; table 2 is into its first.
    fill_hall(store, 2, ended={1})
    served = Served(DirectorPage(store, None, title="Spring Open"))
    try:
        url = served.url
        status, body, _ = get(f"{url}review/table-1/1")
        assert status == 401  # a director's login first
        cookie = log_in(url)
        status, body, headers = get(f"{url}review/table-1/1", cookie)
        assert status == 200 and "script-src 'sha256-" in headers["content-security-policy"]
        finished = review_data(body)
        assert "The game is over" in str(finished["status"])
        # In progress: exactly what the game shows cut before the hand in play.
        for table, game in (("table-1", 2), ("table-2", 1)):
            status, body, _ = get(f"{url}review/{table}/{game}", cookie)
            shown = review_data(body)
            assert status == 200 and "being played" in str(shown["status"])
            cut = _cut_before_hand_in_play(store, table, game)
            record = GameRecord(game, "td-tournament", {}, store.tables.players(table), 0.0)
            expected = review_view(review_game(record, cut))
            assert shown["hands"] == expected["hands"]
        status, body, _ = get(f"{url}review/table-1/9", cookie)
        assert status == 404 and "Table 1 has sent no game 9" in body
        status, body, _ = get(f"{url}review/no-such-table/1", cookie)
        assert status == 404 and "No table" in body and "has reported" in body

        # The Games list links each game's review; it opens and steps.
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        page = context.new_page()
        page.goto(url)
        log_in_page(page)
        links = page.locator("#standings a.review-link")
        expect(links.first).to_be_visible()
        assert links.count() == 3
        with context.expect_page() as opened:
            page.locator('#standings tr[data-table="table-1"][data-game="1"] a.review-link').click()
        review = opened.value
        expect(review.locator("body")).to_have_attribute("data-step", "0")
        review.keyboard.press("ArrowRight")
        expect(review.locator("body")).to_have_attribute("data-step", "1")
        # A table's detail links the review of the game it shows (the one being played).
        page.locator('.table-card[data-table="table-1"]').click()
        expect(page.locator("#detail-review")).to_have_attribute("href", "/review/table-1/2")
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "dashboard-review-links.png"))
        context.close()
    finally:
        served.close()
        store.close()


def test_the_hall_replays_finished_games_past_the_delay_and_nothing_else(
    store: DirectorStore, browser: Browser
) -> None:
    """Table 1 finished a game long ago and is into its second; table 2 finished its one
    game long ago; table 3 is into its first; table 4 finished a moment ago, inside the
    director's ten minutes of delay. Only tables 1 and 2's finished games are offered,
    to anyone, and no other game of any table opens."""
    now = time.time()
    fill_hall(store, 4, ended={1, 2, 4}, only={2, 4}, start=now - 10_000, late={4: (5, now)})
    served = Served(DirectorPage(store, None, title="Spring Open", public_delay=600))
    try:
        url = served.url
        status, body, _ = get(f"{url}api/public")
        assert status == 200
        results = json.loads(body)["results"]
        offered = {(r["table"], r["game"]): r.get("review") for r in results}
        assert offered == {
            ("table-1", 1): "/public/review/table-1/1",
            ("table-2", 1): "/public/review/table-2/1",
        }
        for table, game in (("table-1", 1), ("table-2", 1)):
            status, body, headers = get(f"{url}public/review/{table}/{game}")  # no login
            assert status == 200 and "The game is over" in str(review_data(body)["status"])
            assert "default-src 'none'" in headers["content-security-policy"]
        for table, game in (("table-1", 2), ("table-3", 1), ("table-4", 1), ("nobody", 1)):
            status, body, _ = get(f"{url}public/review/{table}/{game}")
            assert status == 404, (table, game)
            assert "A game is shown here once it is over" in body
            assert "data-card" not in body and "review-data" not in body

        context = browser.new_context(viewport={"width": 1920, "height": 1080})
        page = context.new_page()
        page.goto(f"{url}public")
        link = page.locator("#results a.r-review")
        expect(link).to_have_count(2)
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "hall-review-links.png"))
        link.first.click()
        expect(page.locator("body")).to_have_attribute("data-step", "0")
        expect(page.locator(".links a")).to_have_text("Back to the hall")
        context.close()
    finally:
        served.close()
        store.close()


def test_the_export_writes_every_game_and_a_game_in_progress_has_no_hand_in_play(
    store: DirectorStore,
) -> None:
    """`director export`'s files: one review a game, named as the score sheets name
    them; a game still being played when exported has its ended hands only."""
    from table_controller.director.tournament import collect, review_files
    from table_controller.director.tournament.results.as_pdf import review_names

    fill_hall(store, 2, ended={1})
    results = collect(store)
    files = review_files(store, results)
    names = review_names(results)
    assert (
        sorted(files)
        == sorted(names.values())
        == [
            "review-table-1-game-1.html",
            "review-table-1-game-2.html",
            "review-table-2-game-1.html",
        ]
    )
    for (table, game), name in names.items():
        shown = review_data(files[name].decode())
        if (table, game) == ("table-1", 1):
            assert "The game is over" in str(shown["status"])
            continue
        cut = _cut_before_hand_in_play(store, table, game)
        record = GameRecord(game, "td-tournament", {}, store.tables.players(table), 0.0)
        assert shown["hands"] == review_view(review_game(record, cut))["hands"]
    store.close()
