"""The kiosk coach's look back (issue 34): when a visitor's game ends, their three
costliest decisions, worked out in a process of its own, on the page in plain words;
dropped when the visitor walks away, never shown to the next visitor.

End to end on the simulated kiosk (the synthetic camera read by the real vision path, a
simulated visitor at S, rule-of-thumb bots) with the page in headless Chromium. The
games are short (``points_to_win`` 3) so a test plays one to its end. No test asserts
how long anything takes; the waits are guards against a hang. Screenshots land in
test-artifacts/."""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import random
import re
from pathlib import Path
from typing import Any

import pytest
from coach_gate import dies, held_look_over
from playwright.sync_api import Browser, Page, expect
from test_review_analysis import BAD_PLAY_LOG, MARCH_DEAL, play_hand
from waiting import InThread, apart

from table_controller.event_log import EventLog
from table_controller.kiosk.look_back import (
    FAILED,
    LOOKING,
    SEED,
    Analyst,
    Job,
    LookBack,
    Looked,
    look_over,
    review_shown,
)
from table_controller.kiosk.look_back.words import better, did
from table_controller.kiosk.visitor import simulated_kiosk
from table_controller.present import Coach, CoachReview, card_words
from table_controller.review import Choice, ReviewOptions, SeatSummary, View, analyse_game
from table_controller.rules.events import CardPlayed, DealerChosen, OrderedUp
from table_controller.rules.presets import preset
from table_controller.seats import Seat
from table_controller.table.config import parse_config
from table_controller.web.pin import hash_pin

ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"
GUARD = 120.0  # seconds: only against a hang
N, E, S, W = Seat
SCREEN = {"width": 800, "height": 480}  # the kiosk's screen
PHONE = {"width": 375, "height": 812}
CODE = re.compile(r"\b(?:[2-9TJQKA][CDHS]|Seat\.\w|PLAYER|EXACT)\b")  # a card or seat code


def short_game(folder: Path, **kiosk: Any) -> Any:
    """A kiosk whose game is played to 3 points, so a test sees its end."""
    return parse_config(
        {
            "table": {"name": "Kiosk", "gpio": "mock", "log": "kiosk.sqlite"},
            "camera": {"source": "synthetic", "lost_after": 2.0, "drift_check": 0},
            "cube": {"port": "none"},
            "web": {"host": "127.0.0.1", "port": 0},
            "rules": {"options": {"points_to_win": 3}},
            "kiosk": {
                "visitors": ["S"],
                "bot_level": "rule-of-thumb",
                "bot_pace": 0.0,
                "pin_hash": hash_pin("4321", iterations=1000),
                "walk_away": 600.0,
                "attract_after": 600.0,
                **kiosk,
            },
        },
        folder,
        "<kiosk coach test>",
    )


class Running(InThread):
    def __init__(self, table: Any) -> None:
        super().__init__(table, "the kiosk", GUARD)
        self.until("the page is served", lambda: table.url is not None)


def open_page(browser: Browser, url: str, size: dict[str, int] = SCREEN) -> Page:
    tab = browser.new_context(viewport=size, has_touch=True).new_page()  # type: ignore[arg-type]
    tab.goto(url)
    return tab


def review_of(table: Any) -> CoachReview | None:
    snap = table.snapshot()
    return None if snap is None or "kiosk" not in snap else snap["kiosk"]["coach"]["review"]


# --- end to end: a game to its end, its costliest decisions on the page ----------------------


@pytest.mark.slow
def test_the_game_ends_with_the_visitors_costliest_decisions_the_blunder_first(
    tmp_path: Path, browser: Browser
) -> None:
    config = short_game(tmp_path)
    table, _, people = simulated_kiosk(config, seed=3, blunder=True, attract=False)
    visitor = people[S]
    first = table.game_no
    looked_at = False
    # Once the game is over the visitor stays to read, until the test has looked.
    visitor.hold = lambda game: table.game_no != first and not looked_at
    running = Running(table)
    tab = open_page(browser, table.url or "")
    try:
        running.until("the game ends", lambda: table.game_no != first)
        assert visitor.blundered is not None, "the visitor never had a trick to throw away"
        thrown, trump = visitor.blundered
        running.until("the look back is in", lambda: table.kiosk.look_back.looked is not None)
        box = tab.locator("#coach-review")
        expect(box).to_have_attribute("data-state", "ready", timeout=GUARD * 1000)
        expect(box.locator(".review-title")).to_have_text("Your three costliest decisions")
        # The blunder first: the trick thrown away with the winning trump in hand.
        worst = box.locator("ol.costly li").first
        expect(worst.locator(".did")).to_have_text(f"You played the {card_words(thrown)}.")
        expect(worst.locator(".where")).to_contain_text("trick")
        expect(worst.locator(".where .view")).to_have_text("from what you could see")
        expect(worst.locator(".cost")).to_contain_text("That cost your side")
        expect(worst.locator(".cost")).to_contain_text("point")
        expect(worst.locator(".better")).to_contain_text("It was better to play the ")
        assert worst.locator(".costly-cards .card").first.get_attribute("data-card") == thrown.code
        expect(box.locator("ol.costly li")).to_have_count(3)
        expect(box.locator(".review-note")).to_contain_text("from what you could see")
        words = box.inner_text()
        assert not CODE.search(words), words  # cards and seats in words, never codes
        assert "player's own view" not in words and "South" not in words
        # The page says what the review itself says of the game in the log.
        with EventLog.open_existing(config.log) as log:
            events = [e.event for e in log.events(first)]
        review = analyse_game(config.rules, events, random.Random(SEED), ReviewOptions())
        summary = review.summary(S, View.PLAYER)
        assert summary.costliest[0].decision.chosen == CardPlayed(S, thrown)
        assert summary.costliest[0].decision.exact is not None
        assert summary.costliest[0].decision.exact.best.event != CardPlayed(S, thrown)
        snap_review = review_of(table)
        assert snap_review is not None and snap_review["state"] == "ready"
        assert snap_review == review_shown(Looked(first, (summary,), review.deals), {})
        # In sight on the kiosk's screen, and on a phone.
        assert tab.evaluate("document.documentElement.scrollWidth") <= SCREEN["width"]
        bottom = box.locator("ol.costly li").last.evaluate("n => n.getBoundingClientRect().bottom")
        assert bottom <= SCREEN["height"]  # the three in sight on the kiosk's screen
        tab.screenshot(path=str(ARTIFACTS / "kiosk-coach-800x480.png"))
        tab.set_viewport_size(PHONE)  # type: ignore[arg-type]
        expect(worst.locator(".did")).to_be_visible()
        assert tab.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        tab.screenshot(path=str(ARTIFACTS / "kiosk-coach-375.png"), full_page=True)
        # The visitor lays the first card of the next deal: the look back is over.
        looked_at = True
        running.until("a card read for the next deal", lambda: bool(table.kiosk.collected[S]))
        expect(box).to_be_hidden(timeout=GUARD * 1000)
        assert review_of(table) is None
    finally:
        tab.context.close()
        running.close()
    assert trump not in (thrown, None)


@pytest.mark.slow
def test_a_visitor_who_walks_away_never_sees_the_look_back_nor_does_the_next(
    tmp_path: Path, browser: Browser
) -> None:
    config = short_game(tmp_path)
    table, _, people = simulated_kiosk(config, seed=3, demo_step=0.05, check_every=0.2)
    gate = tmp_path / "gate"
    gate.mkdir()
    table.kiosk.look_back.analyst.work = functools.partial(held_look_over, str(gate))
    visitor = people[S]
    first = table.game_no
    visitor.hold = lambda game: table.game_no != first  # stays at the game's end, then...
    running = Running(table)
    tab = open_page(browser, table.url or "")
    shown_after: list[CoachReview] = []
    try:
        running.until("the game ends", lambda: table.game_no > first)
        visitor.asleep = True  # ...walks away before the look back is done
        visitor.hold = None
        running.until("the look back started", lambda: (gate / "started").exists())
        box = tab.locator("#coach-review")
        expect(box).to_have_attribute("data-state", "looking", timeout=GUARD * 1000)
        expect(box).to_have_text(LOOKING)
        tab.screenshot(path=str(ARTIFACTS / "kiosk-coach-looking.png"))
        # Nobody plays: the demo comes back while the look back is pending (its timer
        # never waits on it), and the look back is dropped, its process ended.
        table.kiosk.settings = dataclasses.replace(table.kiosk.settings, attract_after=0.3)
        running.until("the demo is back", lambda: table.kiosk.mode == "attract")
        pid = int((gate / "started").read_text(encoding="utf-8"))
        running.until("the look back's process has ended", lambda: _ended(pid))
        assert not table.kiosk.look_back.analyst.busy and table.kiosk.look_back.game is None
        (gate / "go").write_text("", encoding="utf-8")  # too late: nobody is there to answer
        expect(tab.locator("#attract")).to_be_visible(timeout=GUARD * 1000)
        assert review_of(table) is None
        # The next visitor touches the screen, lays their cards, is dealt a hand: nothing
        # of the last game's look back is ever shown to them.
        table.kiosk.settings = dataclasses.replace(table.kiosk.settings, attract_after=600.0)
        visitor.asleep = False
        second = table.game_no

        def dealt_to_the_next() -> bool:
            seen = review_of(table)
            if seen is not None:
                shown_after.append(seen)
            return table.game_no >= second and table.game.deals > 0

        running.until("the next visitor is dealt a hand", dealt_to_the_next)
        expect(tab.locator("#attract")).to_be_hidden(timeout=GUARD * 1000)
        expect(box).to_be_hidden()
        assert not (gate / "answered").exists()
    finally:
        tab.context.close()
        running.close()
    assert shown_after == []


@pytest.mark.slow
def test_a_look_back_that_fails_says_so_to_the_visitor_and_why_in_the_records(
    tmp_path: Path,
) -> None:
    config = short_game(tmp_path)
    table, _, people = simulated_kiosk(config, seed=3, attract=False, serve_page=False)
    table.kiosk.look_back.analyst.work = dies
    first = table.game_no
    people[S].hold = lambda game: table.game_no != first
    running = InThread(table, "the kiosk", GUARD)
    try:
        running.until("the look back is in", lambda: table.kiosk.look_back.looked is not None)
        running.until("the page is told", lambda: (review_of(table) or {}).get("state") == "failed")
        assert review_of(table) == {"state": "failed", "text": FAILED, "seats": []}
    finally:
        running.close()
    with EventLog.open_existing(config.log) as log:
        records = [f[2] or "" for f in log.faults()]
    said = f"kiosk: the look back at game {first} failed: its process ended without an answer"
    assert said in records


def _ended(pid: int) -> bool:
    """The process ``pid`` is gone, or a zombie (ended, its exit not yet taken)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8")
    except FileNotFoundError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] in ("Z", "X")


# --- the pieces ----------------------------------------------------------------------------


def test_the_costliest_decisions_in_plain_words_with_the_view_they_take() -> None:
    rules = preset("bicycle-head-to-head")
    looked = look_over(Job(1, rules, tuple(BAD_PLAY_LOG), (N,), deals=16))
    assert looked.problem == "" and looked.summaries[0].view is View.PLAYER
    shown = review_shown(looked, {N: "North"})
    assert shown["state"] == "ready" and "tried 16 ways" in shown["text"]
    (seat,) = shown["seats"]
    assert seat["title"] == "Your three costliest decisions" and seat["none"] == ""
    worst = seat["costly"][0]
    # test_review_analysis: North threw the K♥ under holding the left bower (trick 2)
    assert worst["where"] == "Hand 1, trick 2"
    assert worst["did"] == "You played the King of Hearts."
    assert worst["card"] is not None and worst["card"]["code"] == "KH"
    assert worst["view"] == "from what you could see"
    assert re.fullmatch(r"That cost your side \d+(\.\d)? points? on average\.", worst["cost"])
    assert worst["better"].startswith("It was better to play the ")
    # Two visitors: each named, in the page's names.
    two = look_over(Job(1, rules, tuple(BAD_PLAY_LOG), (N, S), deals=4))
    titles = [s["title"] for s in review_shown(two, {N: "Ana", S: "Bo"})["seats"]]
    assert titles[0].startswith("Ana's ") and titles[1].startswith("Bo's ")


def test_no_costly_decision_is_said_and_a_failure_is_said_in_words() -> None:
    quiet = SeatSummary(S, (), 0.0, 7, View.PLAYER)
    shown = review_shown(Looked(2, (quiet,), 24), {})
    assert shown["seats"][0]["none"] == "You made no decision that cost points. Well played."
    assert shown["seats"][0]["costly"] == []
    nonsense: Any = ({"event": "nonsense"},)
    broken = look_over(Job(2, preset("td-tournament"), nonsense, (S,)))
    assert "cannot be read" in broken.problem
    assert review_shown(broken, {}) == {"state": "failed", "text": FAILED, "seats": []}


def test_a_bid_is_said_as_a_person_says_it() -> None:
    rules = preset("bicycle-head-to-head")
    log = play_hand(rules, [DealerChosen(W), MARCH_DEAL, OrderedUp(N, alone=True)])
    looked = look_over(Job(1, rules, tuple(log), (N,), deals=4))
    call = next(
        c for c in review_shown(looked, {})["seats"][0]["costly"] if "bidding" in c["where"]
    )
    assert call["did"] == "You ordered up the Nine of Spades and went alone."
    assert call["better"].startswith("It was better to ")
    up = "Ordered up the Nine of Spades"
    assert better(f"{up}, alone", Choice(OrderedUp(N), up, 2.0)) == (
        "It was better to play it with your partner, not alone."
    )
    assert better(up, Choice(OrderedUp(N, True), f"{up}, alone", 4.0)) == (
        "It was better to go alone."
    )
    assert call["card"] is None
    assert did("Called Spades") == "called Spades as trump"
    assert did("Named no trump") == "named no trump"
    assert better("Passed", Choice(OrderedUp(N), "Ordered up the Ten of Clubs", 1.0)) == (
        "It was better to order up the Ten of Clubs."
    )


def test_the_snapshot_types_hold_the_coachs_look_back() -> None:
    assert "review" in Coach.__required_keys__
    assert CoachReview.__required_keys__ == {"state", "text", "seats"}


def test_a_look_back_process_that_dies_is_answered_for_and_a_dropped_one_never_answers(
    tmp_path: Path,
) -> None:
    rules = preset("bicycle-head-to-head")
    job = Job(5, rules, tuple(BAD_PLAY_LOG), (N,), deals=4)

    async def run() -> tuple[list[Looked], list[Looked]]:
        said: list[Looked] = []
        dying = LookBack(said.append, Analyst(dies))
        dying.begin(job)
        assert dying.review({}) == {"state": "looking", "text": LOOKING, "seats": []}
        while not said:  # the answer comes on this loop
            await asyncio.sleep(0.02)
        await dying.close()
        # Dropped while it works: killed, and its answer is never taken.
        gate = tmp_path / "gate"
        gate.mkdir()
        later: list[Looked] = []
        held = LookBack(later.append, Analyst(functools.partial(held_look_over, str(gate))))
        held.begin(job)
        while not (gate / "started").exists():
            await asyncio.sleep(0.02)
        held.drop()
        (gate / "go").write_text("", encoding="utf-8")
        pid = int((gate / "started").read_text(encoding="utf-8"))
        while not _ended(pid):
            await asyncio.sleep(0.02)
        await held.close()
        assert held.review({}) is None
        return said, later

    said, later = apart(run, GUARD)
    assert said[0].game == 5 and "ended without an answer" in said[0].problem
    assert later == []
    assert not (tmp_path / "gate" / "answered").exists()
