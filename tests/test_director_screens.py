"""Every director page on a phone (375 px), a laptop (1280) and the hall's big screen
(1920): no sideways scroll, nothing past the screen's right edge (a wide table scrolls in
its own box), and no code in the words a person reads ("None", "table-1" where the table
has a name, "NS", ``snake_case``). Real dashboards over real stores in headless Chromium:
an event with two named tables, a renege and its alert; and ``director start`` with the
rule options a director gives it. The screenshots are kept in a temporary folder."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from export_event import build_event
from mosquitto import free_port
from playwright.sync_api import Browser, Page, expect
from test_director_start import Director
from test_director_web import PASSWORD, Served

from table_controller.director.store import DirectorStore
from table_controller.director.web import DirectorPage
from table_controller.rules.option_words import OPTIONS, option_words, rules_words
from table_controller.rules.presets import PRESETS, Rules

WIDTHS = (375, 1280, 1920)
OPTIONS_GIVEN = {"points_to_win": None, "hands_per_game": 2}
# What a person must never read: a value's code, a program's name for a thing, a table's
# id where it has a name, a card's or a side's code (JH, NS).
CODES = re.compile(
    r"\b(None|null|undefined|NaN|True|False)\b"
    r"|\b[a-z]+(?:_[a-z]+)+\b"
    r"|\btable-\d+\b"
    r"|(?<![A-Za-z0-9])([9TJQKA][CDHS]|NS|EW)(?![A-Za-z0-9])"
)

# What sticks out past the screen's right edge: the page, or any element shown that is
# not inside a box scrolling on its own (a wide table may scroll there).
OVERFLOW = """() => {
  const w = window.innerWidth;
  const right = (e) => e.getBoundingClientRect().right;
  const scrolls = (e) => {
    for (let p = e.parentElement; p; p = p.parentElement) {
      const x = getComputedStyle(p).overflowX;
      if ((x === "auto" || x === "scroll") && right(p) <= w + 0.5) return true;
    }
    return false;
  };
  const past = [...document.querySelectorAll("body *")]
    .filter((e) => e.getClientRects().length && right(e) > w + 0.5 && !scrolls(e))
    .map((e) => `${e.tagName.toLowerCase()}#${e.id}.${e.className} ${Math.round(right(e))}`);
  return {scroll: document.documentElement.scrollWidth - w, past: past.slice(0, 10)};
}"""


def fits(page: Page) -> None:
    out: dict[str, Any] = page.evaluate(OVERFLOW)
    assert out["scroll"] <= 0 and not out["past"], out


def reads(page: Page) -> str:
    text = str(page.evaluate("document.body.innerText"))
    codes = [m.group(0) for m in CODES.finditer(text)]
    assert not codes, (codes, text)
    return text


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("screens")
    print(f"the screenshots: {folder}")
    return folder


@pytest.fixture(scope="module")
def event(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """A progressive event's dashboard: "Maple" and "Table 2", a renege proven at Maple,
    two rounds of results, the rules with options a director changed."""
    path = tmp_path_factory.mktemp("event") / "director.sqlite"
    build_event(path, rounds=3).close()  # round 3 to come: its seating is shown
    store = DirectorStore(path, rules_name="td-progressive", options=OPTIONS_GIVEN)
    store.accounts.add_login("ann", PASSWORD)
    served = Served(DirectorPage(store, None, title="Spring Open"))
    yield served
    served.close()
    store.close()


def logged_in(
    browser: Browser, url: str, width: int, name: str = "ann", password: str = PASSWORD
) -> Page:
    # An event's dashboard is HTTPS with the event's own CA, which Chromium does not know
    # (what it presents is checked in tests/security/test_fleet_tls.py).
    page = browser.new_context(
        viewport={"width": width, "height": 900}, ignore_https_errors=url.startswith("https:")
    ).new_page()
    page.goto(url)
    page.fill("#login-name", name)
    page.fill("#login-password", password)
    page.click("#login-button")
    expect(page.locator("#who")).to_be_visible()
    return page


# --- the words of the rules' options (pure) --------------------------------------------


def test_every_option_has_words_and_none_reads_as_a_code() -> None:
    fields = set(Rules().options())
    assert fields == set(OPTIONS), fields ^ set(OPTIONS)
    values: dict[str, set[Any]] = {k: {None, True, False} for k in fields}
    for p in PRESETS.values():
        for k, v in p.rules.options().items():
            values[k].add(v)
    for k, said in values.items():
        for v in said:
            text = option_words(k, v)
            assert not CODES.search(text), (k, v, text)


def test_an_option_says_what_it_means() -> None:
    # 001 s17 (as nmu-tournament plays it): 12 hands, no target score.
    assert option_words("points_to_win", None) == (
        "points to win: no target (the game ends after its hands)"
    )
    assert option_words("points_to_win", 11) == "points to win: 11"
    assert option_words("stick_the_dealer", True) == "stick the dealer: yes"
    assert option_words("best_of", 3) == "a match: best of 3"
    assert option_words("false_claim_points", None) == "a false renege claim: costs nothing"
    assert option_words("renege_points", 1) == "a renege costs: 1 point"
    assert rules_words("td-tournament", {}) == "Tournament director rules, games to 10"
    assert rules_words("td-progressive", {"hands_per_game": 8, "points_to_win": None}) == (
        "Tournament director rules, progressive event; points to win: no target (the game "
        "ends after its hands); hands a game: 8"
    )


# --- the pages in Chromium ---------------------------------------------------------------


@pytest.mark.slow(budget=90)
@pytest.mark.parametrize("width", WIDTHS)
def test_the_dashboard_fits_and_speaks_words(
    browser: Browser, event: Served, shots: Path, width: int
) -> None:
    page = logged_in(browser, event.url, width)
    expect(page.locator(".table-card")).to_have_count(2)
    expect(page.locator(".table-card .title")).to_have_text(["Maple", "Table 2"])
    expect(page.locator("#alerts li").first).to_be_visible()
    expect(page.locator("#event-seating div").first).to_be_visible()
    expect(page.locator("#assign-rows label")).to_have_count(2)
    fits(page)
    text = reads(page)
    # The forms in the director's words, each field with its example.
    assert "Maple plays at place" in text and "North–South's points" in text
    assert "North, East, South, West" in text
    for box in page.locator("#event-body input:not([type=checkbox])").all():
        if box.is_visible():
            assert box.get_attribute("placeholder"), box.evaluate("e => e.outerHTML")
    # The seating by place and table name, the seats in words.
    expect(page.locator("#event-seating")).to_contain_text("Place 1 (")
    expect(page.locator("#event-seating")).to_contain_text("North ")
    page.screenshot(path=str(shots / f"dashboard-{width}.png"), full_page=True)

    # A table's detail, and the renege's evidence in its panel.
    page.locator(".table-card", has_text="Maple").click()
    expect(page.locator("#detail-name")).to_have_text("Maple")
    expect(page.locator("#history li").first).to_be_visible()
    fits(page)
    reads(page)
    page.screenshot(path=str(shots / f"table-{width}.png"), full_page=True)
    page.locator("#alerts li .open-alert").first.click()
    expect(page.locator("#alert-detail")).to_be_visible()
    expect(page.locator("#alert-detail-sentence")).to_contain_text("Maple")
    fits(page)
    reads(page)
    page.screenshot(path=str(shots / f"alert-{width}.png"))
    page.context.close()


@pytest.mark.slow(budget=60)
@pytest.mark.parametrize("width", WIDTHS)
def test_the_fleet_page_and_the_hall_fit_and_speak_words(
    browser: Browser, event: Served, shots: Path, width: int
) -> None:
    page = logged_in(browser, event.url, width)
    page.goto(event.url + "fleet")
    expect(page.locator(".fleet-card")).to_have_count(2)
    expect(page.locator("#fleet-rules")).to_contain_text(
        "points to win: no target (the game ends after its hands); hands a game: 2"
    )
    fits(page)
    reads(page)
    page.screenshot(path=str(shots / f"fleet-{width}.png"), full_page=True)
    page.goto(event.url + "public")
    expect(page.locator("body[data-ready]")).to_have_count(1)
    expect(page.locator(".tile").first).to_be_visible()
    fits(page)
    reads(page)
    page.screenshot(path=str(shots / f"public-{width}.png"), full_page=True)
    page.context.close()


@pytest.mark.slow(budget=90)
def test_director_start_says_its_options_in_words_and_its_fleet_page_fits(
    browser: Browser, tmp_path: Path, shots: Path
) -> None:
    director = Director(
        tmp_path / "spring",
        *("--event", "Spring Open", "--web-port", str(free_port())),
        *("--broker-port", str(free_port()), "--http-port", "0"),
        *("--option", "points_to_win=none", "--option", "hands_per_game=8"),
    )
    try:
        password = director.wait_for(r"as director, password (\S+)")[1]
        rules = director.wait_for(r"The rules: (.*)")[1]
        url = director.wait_for(r"The dashboard: (\S+)")[1]
        director.wait_for("Press Ctrl-C to stop")
        assert rules.startswith(
            "Tournament director rules; points to win: no target (the game "
            "ends after its hands); hands a game: 8 ("
        ), rules
        for width in WIDTHS:
            page = logged_in(browser, url, width, "director", password)
            fits(page)
            reads(page)
            page.goto(url + "fleet")
            expect(page.locator("#fleet-rules")).to_contain_text("hands a game: 8")
            expect(page.locator("#no-requests")).to_be_visible()
            fits(page)
            reads(page)
            page.screenshot(path=str(shots / f"fleet-start-{width}.png"), full_page=True)
            page.context.close()
    finally:
        assert director.interrupt() == 0, "".join(director.said)
