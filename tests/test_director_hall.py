"""The hall screen (``/public``): readable across a hall from a phone to 4K, the
standings, the tables in play and the recent results in words, pages turning on a clock
the test drives, the delay holding the picture back. Real dashboard over a real SQLite
store fed the feed's messages of seeded games; real headless Chromium."""

from __future__ import annotations

import json
import random
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hall_world import RULES, fill_hall
from hypothesis import given, settings
from hypothesis import strategies as st
from playwright.sync_api import Browser, Page, expect
from test_director_web import Served

from table_controller.director.hall.view import PublicView, delay_text
from table_controller.director.hall.words import news_text, table_title
from table_controller.director.store import DirectorStore
from table_controller.director.tournament import TournamentAdmin, hall_standings
from table_controller.director.tournament.results.model import Results
from table_controller.director.tournament.results.standings import Standings
from table_controller.director.web import DirectorPage
from table_controller.feed.messages import public_outputs
from table_controller.rules.codec import encode
from table_controller.rules.presets import preset
from table_controller.simulate import play

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "test-artifacts"
# A card as a code ("JH", "TC") or a seat pair ("NS"): never in the text a person reads.
CODES = re.compile(r"(?<![A-Za-z0-9])([9TJQKA][CDHS]|NS|EW)(?![A-Za-z0-9])")
PHONE, HD, UHD = (375, 667), (1920, 1080), (3840, 2160)
NAMES = ".tile .name, .team .score"
BODY = ".phase, .team .who, .trump, .play, .news, .standing, .result, #delay, #page-of"


# --- the words (pure) ---------------------------------------------------------------


def test_a_table_is_read_by_its_name_else_its_id() -> None:
    assert table_title({"table": "table-3", "name": "Maple"}) == "Maple"
    assert table_title({"table": "table-3", "name": None}) == "table-3"
    assert table_title({"table": "table-3", "name": "  "}) == "table-3"


def test_news_is_words_and_a_spotted_renege_names_no_card() -> None:
    names = {"N": "Ann", "E": "Bo", "S": "Cy", "W": "Di"}
    teams = {"NS": "Ann & Cy", "EW": "Bo & Di"}
    spotted = {"event": "renege_spotted", "seat": "S", "trick": 2, "suit": "C"}
    assert news_text(spotted, names, teams) == (
        "Possible renege by Cy in trick 2: the table checks it"
    )
    scored = {"event": "hand_scored", "hand": 3, "result": "euchred", "points": [0, 2]}
    assert news_text(scored, names, teams) == "Hand 3: Bo & Di +2 (euchred)"
    proven = {"event": "renege_proven", "seat": "E", "trick": 3, "played": "9C", "proof": "TH"}
    assert news_text(proven, names, teams) == (
        "Renege by Bo in trick 3: played 9♣ while holding 10♥"
    )
    ended = {"event": "game_ended", "game": 1, "winner": "EW", "scores": [7, 10]}
    assert news_text(ended, names, teams) == "Bo & Di won 10–7 against Ann & Cy"


@settings(max_examples=15)
@given(st.integers(0, 10_000), st.sampled_from([RULES, "bicycle-head-to-head", "bid-euchre"]))
def test_every_output_of_a_game_reads_without_codes(seed: int, rules: str) -> None:
    """Whatever a seeded game reports, the hall's sentence for it has no code in it."""
    names = {"N": "Ann", "E": "Bo", "S": "Cy", "W": "Di"}
    teams = {"NS": "Ann & Cy", "EW": "Bo & Di"}
    for _, outputs in play(preset(rules), random.Random(seed)):
        for out in public_outputs([encode(o) for o in outputs]):
            text = news_text(out, names, teams)
            assert text and "_" not in text and not CODES.search(text), (out, text)


def test_the_halls_standings_are_the_papers_said_in_words() -> None:
    """The hall draws the results model's standings (the booklet's), a line each: the
    same place (a tie as "=1"), the name, and what the place rests on in words."""
    before = Standings(
        ["Place", "Team", "Games won", "Points", "Games played"],
        [["=1", "Ann & Cy", 1, 12, 1], ["=1", "Ed & Flo", 1, 12, 1], [3, "Bo & Di", 0, 9, 1]],
    )
    progressive = Standings(
        ["Place", "Player", "Points", "Rounds won", "Rounds played"],
        [[1, "Ann", 17, 2, 2], [2, "Bo", 1, 1, 1]],
    )

    def lines(table: Standings) -> list[tuple[object, ...]]:
        results = Results("Spring Open", "", "", [], table)
        return [(r["place"], r["name"], r["detail"], r["value"]) for r in hall_standings(results)]

    assert lines(before) == [
        ("=1", "Ann & Cy", "1 game won", "12 points"),
        ("=1", "Ed & Flo", "1 game won", "12 points"),
        (3, "Bo & Di", "0 games won", "9 points"),
    ]
    assert lines(progressive) == [
        (1, "Ann", "2 of 2 rounds won", "17 points"),
        (2, "Bo", "1 of 1 round won", "1 point"),
    ]
    assert delay_text(0) == "Live" and delay_text(90) == "Shown 1 min 30 s behind play"


def test_the_snapshot_carries_words_names_standings_and_results(tmp_path: Path) -> None:
    store = DirectorStore(tmp_path / "d.sqlite")
    fill_hall(store, 3, ended={2})
    snap = PublicView(store).snapshot()
    assert next(iter(snap)) == "standings"
    assert [t["title"] for t in snap["tables"]] == ["Table 1", "Table 2", "Table 3"]
    # Before an event is created: the two teams of the one game ended (the results
    # model's standings, as the papers print them; a game in play counts once it ends).
    assert len(snap["standings"]["rows"]) == 2
    assert snap["standings"]["rows"][0]["detail"] == "1 game won"
    [result] = snap["results"]
    assert result["title"] == "Table 2" and " won " in result["text"]
    for t in snap["tables"]:
        words = [t["phase_text"], t["hand_text"], *(n["text"] for n in t["news"])]
        words += [team["names"] for team in t["teams"]]
        assert not [w for w in words if "_" in w or CODES.search(w)], words
    # Without a name in the status, the id.
    store2 = DirectorStore(tmp_path / "e.sqlite")
    fill_hall(store2, 1, names=False)
    assert PublicView(store2).snapshot()["tables"][0]["title"] == "table-1"


def test_a_brackets_matches_are_named_by_their_teams_before_any_result(tmp_path: Path) -> None:
    """The hall shows a bracket's round being played as its matches, each by its two
    teams' names ("to be decided" only where a team is not known yet)."""
    store = DirectorStore(tmp_path / "d.sqlite")
    admin = TournamentAdmin(store)
    teams = ["Reds: Ann, Bob", "Blues: Cy, Di", "Greens: Ed, Flo", "Golds: Gus, Hal"]
    admin.create("ann", "bracket", teams, rounds=1)
    snap = PublicView(store, admin).snapshot()
    names = [row["name"] for row in snap["standings"]["rows"]]
    assert names == [
        "Reds (Ann & Bob) v Golds (Gus & Hal)",
        "Blues (Cy & Di) v Greens (Ed & Flo)",
    ], names


# --- in Chromium ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def hall(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """20 tables in play, 5 of them into their second game."""
    store = DirectorStore(tmp_path_factory.mktemp("hall") / "director.sqlite")
    fill_hall(store, 20, ended={2, 5, 7, 9, 11})
    served = Served(DirectorPage(store, None, title="Spring Open"))
    yield served
    served.close()
    store.close()


def open_hall(browser: Browser, url: str, size: tuple[int, int]) -> Page:
    """The page with its timers stopped: pages turn (and polls repeat) only when the test
    advances its clock, however long the machine takes."""
    context = browser.new_context(viewport={"width": size[0], "height": size[1]})
    page = context.new_page()
    page.clock.install(time=1_700_000_000_000)
    page.clock.pause_at(1_700_000_001_000)
    page.goto(url)
    expect(page.locator("body[data-ready]")).to_have_count(1)
    return page


def font_px(page: Page, selector: str) -> list[float]:
    return page.eval_on_selector_all(
        selector,
        "els => els.filter(e => e.offsetParent && e.textContent.trim())"
        ".map(e => parseFloat(getComputedStyle(e).fontSize))",
    )


def overflow(page: Page) -> dict[str, Any]:
    """What sticks out: the page wider than the screen, any element past its right edge,
    any tile whose content does not fit it, any standing cut off."""
    return page.evaluate(
        """() => {
        const w = document.documentElement.clientWidth;
        const past = [...document.querySelectorAll('body *')]
          .filter(e => e.offsetParent && e.getBoundingClientRect().right > w + 0.5)
          .map(e => e.id || e.className);
        const tiles = [...document.querySelectorAll('.tile')]
          .filter(t => t.scrollHeight > t.clientHeight + 1 || t.scrollWidth > t.clientWidth + 1)
          .map(t => t.dataset.table);
        const list = document.getElementById('standings');
        const cut = [...list.children]
          .filter(li => li.offsetTop + li.offsetHeight > list.clientHeight + 1)
          .map(li => li.textContent);
        return {scroll: document.documentElement.scrollWidth - w, past, tiles, cut,
                tall: document.documentElement.scrollHeight - window.innerHeight};
        }"""
    )


def visible_text(page: Page) -> str:
    return page.evaluate("document.body.innerText")


@pytest.mark.slow(budget=40)
@pytest.mark.parametrize(("size", "name", "body"), [(PHONE, 20, 16), (HD, 40, 24), (UHD, 80, 48)])
def test_the_hall_reads_at_every_size(
    browser: Browser, hall: Served, size: tuple[int, int], name: float, body: float
) -> None:
    page = open_hall(browser, hall.url + "public", size)
    expect(page.locator(".tile").first).to_be_visible()
    names, bodies = font_px(page, NAMES), font_px(page, BODY)
    assert names and min(names) >= name, names
    assert bodies and min(bodies) >= body, bodies
    out = overflow(page)
    assert out["scroll"] <= 0 and not out["past"] and not out["tiles"] and not out["cut"], out
    if size != PHONE:  # a TV shows it all on one screen; a phone scrolls down
        assert out["tall"] <= 0, out
    # The standings, the tables by name, the results, the page count.
    expect(page.locator("#standings li").first).to_be_visible()
    expect(page.locator("#standings-heading")).to_have_text("Standings")
    expect(page.locator(".tile .name").first).to_have_text("Table 1")
    expect(page.locator("#results li").first).to_contain_text(" won ")
    per = 4 if size == PHONE else 8
    expect(page.locator(".tile")).to_have_count(per)
    expect(page.locator("#page-of")).to_have_text(f"Page 1 of {-(-20 // per)}")
    text = visible_text(page)
    assert "_" not in text and not CODES.findall(text), CODES.findall(text)
    page.context.close()


def tiles(page: Page) -> list[str]:
    return page.locator(".tile .name").all_inner_texts()


@pytest.mark.parametrize(("size", "per"), [(HD, 8), (PHONE, 4)])
def test_twenty_tables_turn_pages_on_a_steady_clock(
    browser: Browser, hall: Served, size: tuple[int, int], per: int
) -> None:
    page = open_hall(browser, hall.url + "public?rotate=10", size)
    pages = -(-20 // per)
    seen: list[str] = []
    for n in range(1, pages + 1):
        expect(page.locator("#page-of")).to_have_text(f"Page {n} of {pages}")
        first = (n - 1) * per + 1
        expect(page.locator(".tile .name").first).to_have_text(f"Table {first}")
        seen += tiles(page)
        page.clock.run_for(9_000)  # not yet: the page holds for the whole interval
        expect(page.locator("#page-of")).to_have_text(f"Page {n} of {pages}")
        page.clock.run_for(1_000)
    expect(page.locator("#page-of")).to_have_text(f"Page 1 of {pages}")  # round again
    assert seen == [f"Table {k}" for k in range(1, 21)]
    page.context.close()


def test_no_tables_and_no_event_say_so(browser: Browser, tmp_path: Path) -> None:
    store = DirectorStore(tmp_path / "empty.sqlite")
    served = Served(DirectorPage(store, None, title="Spring Open"))
    try:
        page = open_hall(browser, served.url + "public", HD)
        expect(page.locator("#waiting")).to_be_visible()
        expect(page.locator("#waiting")).to_contain_text("Waiting for the tables")
        expect(page.locator("#hall")).to_be_hidden()
        expect(page.locator("h2:visible")).to_have_count(0)  # no empty headings
        page.context.close()
    finally:
        served.close()
        store.close()


def test_the_delay_holds_the_picture_and_the_results_back(browser: Browser, tmp_path: Path) -> None:
    """Table 1's game ended a moment ago (its last 5 events), table 2's long ago: with the
    director's 10 minutes, the hall shows table 1 still playing and only table 2's result;
    a query's shorter delay does not shorten it."""
    now = time.time()
    store = DirectorStore(tmp_path / "late.sqlite")
    fill_hall(store, 2, ended={1, 2}, only={1, 2}, start=now - 10_000, late={1: (5, now)})
    live = PublicView(store).snapshot()
    assert [r["title"] for r in live["results"]] == ["Table 1", "Table 2"]
    served = Served(DirectorPage(store, None, title="Spring Open", public_delay=600))
    try:
        for query in ("", "?delay=0", "?delay=5"):
            page = open_hall(browser, served.url + "public" + query, HD)
            expect(page.locator("#delay")).to_have_text("Shown 10 min behind play")
            expect(page.locator("#results li")).to_have_count(1)
            expect(page.locator("#results li")).to_contain_text("Table 2")
            one = page.locator('.tile[data-table="table-1"]')
            expect(one.locator(".phase")).not_to_contain_text("won")
            expect(page.locator('.tile[data-table="table-2"] .phase')).to_contain_text("won")
            page.context.close()
        page = open_hall(browser, served.url + "public?delay=3600", HD)  # longer: taken
        expect(page.locator("#delay")).to_have_text("Shown 1 h behind play")
        expect(page.locator("#results li")).to_have_count(1)
        page.context.close()
    finally:
        served.close()
        store.close()


@pytest.mark.slow(budget=40)
def test_screenshots_of_an_event_at_1080p_and_4k(browser: Browser, tmp_path: Path) -> None:
    """12 tables mid-game, 5 of them into their second game: docs/images/hall-1080p.png
    and hall-4k.png are these (copied from test-artifacts when the page changes)."""
    store = DirectorStore(tmp_path / "event.sqlite")
    fill_hall(store, 12, ended={2, 5, 7, 9, 11})
    served = Served(DirectorPage(store, None, title="Spring Open"))
    ARTIFACTS.mkdir(exist_ok=True)
    try:
        for size, file in ((HD, "hall-1080p.png"), (UHD, "hall-4k.png")):
            page = open_hall(browser, served.url + "public", size)
            expect(page.locator(".tile")).to_have_count(8)
            expect(page.locator("#results li").first).to_be_visible()
            out = overflow(page)
            assert out["scroll"] <= 0 and out["tall"] <= 0 and not out["tiles"], out
            page.screenshot(path=str(ARTIFACTS / file))
            page.context.close()
        snap = json.dumps(PublicView(store).snapshot(), ensure_ascii=False)
        assert "Table 12" in snap
    finally:
        served.close()
        store.close()


def test_an_event_shows_its_standings_and_the_rounds_seating_as_a_page(
    browser: Browser, tmp_path: Path
) -> None:
    store = DirectorStore(tmp_path / "event.sqlite")
    fill_hall(store, 2)
    page_app = DirectorPage(store, None, title="Spring Open")
    people = ["Ann", "Bob", "Cyrus", "Dina", "Eloise", "Frank", "Gwen", "Hal", "Ines"]
    page_app.admin.create("ann", "progressive", people, rounds=2)
    page_app.admin.assign_round("ann", 1, {"table-2": "1"})
    served = Served(page_app)
    try:
        page = open_hall(browser, served.url + "public?rotate=10", HD)
        expect(page.locator("#standings-heading")).to_have_text("Standings")
        expect(page.locator("#round")).to_have_text("Round 1 of 2")
        expect(page.locator("#standings li")).to_have_count(9)
        expect(page.locator("#standings li").first).to_contain_text("0 points")
        expect(page.locator("#page-of")).to_have_text("Page 1 of 2")
        expect(page.locator(".tile")).to_have_count(2)
        page.clock.run_for(10_000)
        expect(page.locator("#page-of")).to_have_text("Page 2 of 2")
        expect(page.locator("#seating-heading")).to_have_text("Round 1: where to sit")
        seats = page.locator("#seating-tables li")
        expect(seats).to_have_count(2)
        expect(seats.first).to_contain_text("Table 2")  # the table that plays it, by name
        expect(seats.first).to_contain_text("North ")
        expect(page.locator("#byes")).to_contain_text("Sitting out: ")
        expect(page.locator(".tile")).to_have_count(0)
        text = visible_text(page)
        assert "_" not in text and not CODES.findall(text), CODES.findall(text)
        page.context.close()
    finally:
        served.close()
        store.close()
