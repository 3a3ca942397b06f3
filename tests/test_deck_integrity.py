"""The deck's integrity, every hand (issue 31): two decks mixed, a card not of this deck
(an ArUco number no card has, and a card printed with QR codes), a card seen twice, a
hand ended short and a wrong kitty, each from the camera's real path (the synthetic
table rendered, read by the watcher) to an alert with its picture on the table's page
and on the director's dashboard, both in Debian's chromium.

The rule each quotes: 001 s2 "Only 24 cards, each suit's nine (9) through ace, are in
play."; 003 "If an incorrect number of cards are found at any time during play, the hand
is void and the deal is passed to the next player"; 003 "The kitty is then set aside and
no one is allowed to look it." None of them is the table's to rule: the card is not
taken into the game and the director is told ("DO NOT make your own Rulings! Please
call the Tournament Director (TD)", 003)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest
from playwright.sync_api import Browser, Page, expect
from test_director_service import client, publish, topic, wait_until
from test_director_store import feed_messages
from test_director_web import ARTIFACTS, World, log_in_page
from test_table_app import _Stopped, config_in, running, until

from table_controller.cards import Card
from table_controller.devices.seat_events import SeatButton
from table_controller.rules.events import (
    CardPlayed,
    ForeignCardSeen,
    HandDealt,
    KittyCardSeen,
    Printing,
    SecondCopySeen,
)
from table_controller.rules.hand import Phase
from table_controller.seats import Seat
from table_controller.table.app import Table
from table_controller.table.noticed import CameraSaw
from table_controller.table.options import TableOptions
from table_controller.vision.calibration import calibrate
from table_controller.vision.evidence import Seen
from table_controller.vision.foreign import ForeignCardLaid, ForeignSeen, ForeignTracker
from table_controller.vision.markers import family
from table_controller.vision.other_family import OTHER_EVERY
from table_controller.vision.synthetic import Camera, CardPlacement, Scene, place, render
from table_controller.vision.tracker import CardLaid, CardSeenTwice
from table_controller.vision.watcher import CardWatcher

N, E, S, W = Seat
NINE_S, TEN_S, KS, QH, NINE_H = (Card.parse(c) for c in ("9S", "TS", "KS", "QH", "9H"))
CAMERA = Camera()
FOREIGN_MARKER = 31  # an ArUco 4x4 marker numbered past the deck's 24: another deck's card


def watched(*scenes: Scene, frames: int = 2) -> list[Seen]:
    """What the watcher reports over ``scenes``, each shown for ``frames`` frames."""
    calibration = calibrate(render(Scene(camera=CAMERA, seed=1)).image)
    watcher = CardWatcher(calibration)
    seen: list[Seen] = []
    frame = 0
    for scene in scenes:
        image = render(scene).image
        for _ in range(frames):
            seen += watcher.process(image, frame, frame / 30)
            frame += 1
    return seen


def only(seen: list[Seen], kind: type) -> Seen:
    (found,) = [s for s in seen if isinstance(s.event, kind)]
    return found


@pytest.fixture(scope="module")
def camera_seen() -> dict[str, Seen]:
    """The camera's reports, with their pictures, for each case: the 9♠ laid in North's
    square and in East's, two 9♥ at once, a card of another deck in West's (an ArUco
    number no card has; a card printed with QR codes, found in the frames the other
    family is looked for in), a card laid in the kitty."""
    rng = np.random.default_rng(5)
    out: dict[str, Seen] = {}
    for name, card, zone in (
        ("N", NINE_S, "play:N"),
        ("E", NINE_S, "play:E"),
        ("kitty", NINE_S, "kitty"),
        ("S", TEN_S, "play:S"),
        ("W", KS, "play:W"),
    ):
        out[name] = only(watched(Scene(cards=(place(card, zone, rng),), camera=CAMERA)), CardLaid)
    two = (place(NINE_H, "play:N", rng), place(NINE_H, "play:S", rng))
    out["twice"] = only(watched(Scene(cards=two, camera=CAMERA)), CardSeenTwice)
    foreign = Scene(cards=(_marked(place(QH, "play:W", rng), FOREIGN_MARKER),), camera=CAMERA)
    out["foreign"] = only(watched(foreign), ForeignCardLaid)
    qr = Scene(cards=(replace(place(QH, "play:W", rng), family="qr-zxing"),), camera=CAMERA)
    out["qr"] = only(watched(qr, frames=OTHER_EVERY + 1), ForeignCardLaid)
    return out


def _marked(p: CardPlacement, marker: int) -> CardPlacement:
    return replace(p, marker=marker)


# --- the camera -------------------------------------------------------------------------


def test_the_camera_reports_a_card_of_another_deck_and_two_copies_with_pictures(
    camera_seen: dict[str, Seen],
) -> None:
    foreign = camera_seen["foreign"]
    assert isinstance(foreign.event, ForeignCardLaid)
    assert (foreign.event.marker, foreign.event.zone) == (FOREIGN_MARKER, "play:W")
    qr = camera_seen["qr"]
    assert isinstance(qr.event, ForeignCardLaid)
    assert (qr.event.family, qr.event.zone) == (Printing.QR, "play:W")
    twice = camera_seen["twice"]
    assert isinstance(twice.event, CardSeenTwice) and twice.event.card == NINE_H
    for seen in (foreign, qr, twice):
        assert seen.evidence is not None and seen.evidence[:2] == b"\xff\xd8"  # a JPEG
    both = cv2.imdecode(np.frombuffer(twice.evidence or b"", np.uint8), cv2.IMREAD_GRAYSCALE)
    # Both copies in the one picture, side by side.
    assert [s.card for s in family("aruco").read(both)].count(NINE_H) >= 2


def test_a_foreign_marker_is_reported_once_it_lies_still_and_once_only() -> None:
    tracker = ForeignTracker()
    at = ForeignSeen(31, 10.0, 20.0, "play:N")
    assert tracker.update(0, 0.0, [at]) == []  # one glimpse proves nothing
    (laid,) = tracker.update(1, 0.03, [at, ForeignSeen(31, 12.0, 21.0, "play:N")])
    assert (laid.marker, laid.zone) == (31, "play:N")
    assert tracker.update(2, 0.06, [at]) == []  # lying there: not again
    moving = ForeignTracker()
    assert moving.update(0, 0.0, [at]) == []
    assert moving.update(1, 0.03, [ForeignSeen(31, 50.0, 20.0, "play:N")]) == []  # carried


# --- the running table, its page, the director's dashboard --------------------------------

TABLE_ID = "table-7"
PLAYERS = {"N": "Ann", "E": "Bo", "S": "Cy", "W": "Di"}


class Played:
    """A real table (its log in SQLite, its page served) run on a thread of its own: the
    director deals the 9♥ (W dealing), North orders up, West discards face down, then the
    camera's reports of ``camera_seen`` arrive in turn."""

    def __init__(self, folder: Path, seen: dict[str, Seen]) -> None:
        import threading

        self.config = config_in(folder, table={"first_dealer": "W", "name": TABLE_ID})
        self.table = Table(self.config, TableOptions(camera=_Stopped, serve_page=True))
        self.ready, self.done = threading.Event(), threading.Event()
        self.seen = seen
        self.failed: BaseException | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        assert self.ready.wait(240), "the table never got through its hand"
        if self.failed is not None:
            raise self.failed

    def _run(self) -> None:
        try:
            asyncio.run(running(self.table, self._body))
        except BaseException as exc:
            self.failed = exc
            self.ready.set()

    async def _body(self) -> None:
        table = self.table
        table.rulings.put_nowait(HandDealt(NINE_H))
        await until("the deal", lambda: table.game.phase is Phase.BIDDING)
        table.devices.press(N, SeatButton.CALL)
        await until("ordered up", lambda: table.game.phase is Phase.DISCARDING)
        table.devices.press(W, SeatButton.PASS)
        await until("the play", lambda: table.game.phase is Phase.PLAYING)
        for name in ("N", "E", "twice", "foreign", "qr", "kitty"):
            count = len(table.game.log)
            s = self.seen[name]
            table.submit(CameraSaw(s))
            await until(f"the camera's {name}", lambda count=count: len(table.game.log) > count)
        self.ready.set()
        await asyncio.get_running_loop().run_in_executor(None, self.done.wait, 600)

    def close(self) -> None:
        self.done.set()
        self.thread.join(240)


@pytest.fixture(scope="module")
def played(
    tmp_path_factory: pytest.TempPathFactory, camera_seen: dict[str, Seen]
) -> Iterator[Played]:
    p = Played(tmp_path_factory.mktemp("deck-table"), camera_seen)
    yield p
    p.close()


def test_the_table_takes_none_of_them_and_logs_each_with_its_picture(played: Played) -> None:
    game = played.table.game
    taken = [e for e in game.log if isinstance(e, CardPlayed)]
    assert taken == [CardPlayed(N, NINE_S)]  # the copy, the pair, the stranger: none played
    deck = [e for e in game.log if isinstance(e, SecondCopySeen | ForeignCardSeen | KittyCardSeen)]
    pair = deck[1]
    assert isinstance(pair, SecondCopySeen) and pair.seat in (N, S)  # either copy's square
    qr = played.seen["qr"].event
    assert isinstance(qr, ForeignCardLaid)
    assert deck == [
        SecondCopySeen(NINE_S, E),
        SecondCopySeen(NINE_H, pair.seat, at_once=True),
        ForeignCardSeen(W, FOREIGN_MARKER),
        ForeignCardSeen(W, qr.marker, Printing.QR),
        KittyCardSeen(NINE_S),
    ]
    sinks = played.table.sinks
    wait_until(  # the page's snapshot follows the log
        "the snapshot", lambda: len((sinks.snapshot or {}).get("irregularities", [])) >= 6
    )
    snapshot = sinks.snapshot
    assert snapshot is not None
    kinds = [i["kind"] for i in snapshot["irregularities"]]
    assert kinds == [
        "second_copy",
        "second_copy",
        "foreign_card",
        "foreign_card",
        "wrong_kitty",
        "short_hand",
    ]
    for i in snapshot["irregularities"]:
        assert i["evidence"] and all(p["url"].startswith("/evidence/") for p in i["evidence"])
    # The copy's picture is its own: the 9♠ the game took keeps its own picture.
    first, copy = snapshot["irregularities"][0]["evidence"]
    assert first["url"] != copy["url"]


def test_each_alert_with_its_picture_on_the_table_s_page(played: Played, browser: Browser) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    try:
        page.goto(played.table.url)
        items = page.locator("#irregularities li")
        expect(items).to_have_count(6)
        expect(items.nth(0)).to_contain_text("A second copy of a card: East")
        expect(items.nth(0)).to_contain_text("a second 9♠ was laid in East's square")
        expect(items.nth(1)).to_contain_text("9♥ is on the table twice at once")
        expect(items.nth(2)).to_contain_text("A card not of this deck: West")
        expect(items.nth(3)).to_contain_text("A card not of this deck: West")
        expect(items.nth(3)).to_contain_text(
            "a card printed with QR codes (another deck's) was laid in West's square"
        )
        expect(items.nth(4)).to_contain_text("the kitty, but it was played by North in trick 1")
        expect(items.nth(5)).to_contain_text("A hand ended short")
        for n in range(6):
            img = items.nth(n).locator("img").first
            wait_until(
                "the picture", lambda img=img: img.evaluate("i => i.complete && i.naturalWidth > 0")
            )
        text = page.evaluate("document.body.innerText")
        assert "second_copy" not in text and "9S" not in text and "play:" not in text
        assert "qr-zxing" not in text and "Printing" not in text and "foreign" not in text
        corner = page.locator("#problems")
        expect(corner.locator("h2")).to_have_text("Reneges and irregularities (6, newest first)")
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "table-page-deck.png"), full_page=True)
        readable(page)
        items.nth(3).scroll_into_view_if_needed()  # the card printed with QR codes
        corner.screenshot(path=str(ARTIFACTS / "table-page-deck-qr.png"))
        page.set_viewport_size({"width": 390, "height": 844})  # a phone: under the felt
        readable(page)
        page.set_viewport_size({"width": 390, "height": 2400})  # the whole list, for a look
        corner.screenshot(path=str(ARTIFACTS / "table-page-deck-phone.png"))
    finally:
        context.close()


def readable(page: Page) -> None:
    """The alerts' corner as a person reads it: every alert's words inside the corner,
    none wider than it (words wrap), at a size read across a table (15 px or more), and
    the newest alert, shown first, whole in view without scrolling."""
    sizes = page.evaluate(
        """() => {
          const box = document.querySelector('#problems').getBoundingClientRect();
          return [...document.querySelectorAll('#problems li')].map(li => {
            const r = li.getBoundingClientRect();
            return {left: r.left - box.left, right: box.right - r.right,
                    wide: li.scrollWidth - li.clientWidth, top: r.top - box.top,
                    bottom: box.bottom - r.bottom,
                    font: parseFloat(getComputedStyle(li.querySelector('.text')).fontSize)};
          });
        }"""
    )
    for li in sizes:
        assert li["left"] >= 0 and li["right"] >= 0 and li["wide"] <= 0, li
        assert li["font"] >= 15, li
    newest = sizes[-1]
    assert newest["top"] >= 0 and newest["bottom"] >= 0, newest
    assert newest["top"] < min(li["top"] for li in sizes[:-1])  # first on screen


def test_each_alert_with_its_picture_and_the_rule_on_the_dashboard(
    played: Played, browser: Browser, tmp_path: Path
) -> None:
    from test_director_dashboard import status

    world = World(tmp_path)
    feed = client(world.broker, "deck-feed")
    try:
        messages, images = feed_messages(played.config.log, TABLE_ID)
        players = [PLAYERS[s] for s in "NESW"]
        publish(feed, topic("status", TABLE_ID), status(TABLE_ID, "Table 7", players), retain=True)
        for m in messages:
            if m["evidence"]:
                png = images[(m["game"], m["seq"])]
                publish(feed, topic(f"evidence/{m['game']}/{m['seq']}", TABLE_ID), png)
            publish(feed, topic("events", TABLE_ID), m)
        wait_until("the alerts", lambda: len(world.store.alerts.alerts()) >= 6)
        context = browser.new_context(viewport={"width": 1920, "height": 1080})
        page = context.new_page()
        page.goto(world.served.url)
        log_in_page(page)
        alerts = page.locator('#alerts [data-kind="irregularity"]')
        expect(alerts).to_have_count(6)
        rule = "If an incorrect number of cards are found at any time during play"
        cases = [
            (0, "The second 9♠, laid in Bo (East)'s square", True, rule),
            (2, "The card not of this deck, laid in Di (West)'s square", False, rule),
            (
                3,
                "The card printed with QR codes (another deck's), laid in Di (West)'s square",
                False,
                rule,
            ),
            (4, "The 9♠ turned up in the kitty", True, "The kitty is then set aside"),
            (5, "The card turned up in the kitty", False, rule),
        ]
        for n, caption, proof, quoted in cases:
            alerts.nth(n).locator(".open-alert").click()
            panel = page.locator("#alert-detail")
            expect(panel).to_be_visible()
            offence = panel.locator("img.evidence-offence")
            wait_until(
                "its picture", lambda o=offence: o.evaluate("i => i.complete && i.naturalWidth > 0")
            )
            expect(panel.locator("figcaption").first).to_contain_text(caption)
            if proof:
                taken = panel.locator("img.evidence-proof")
                wait_until(
                    "the card taken",
                    lambda t=taken: t.evaluate("i => i.complete && i.naturalWidth > 0"),
                )
                expect(panel.locator("figcaption").nth(1)).to_contain_text("played by Ann (North)")
            expect(panel.locator(".rule-text")).to_contain_text(quoted)
            if n == 0:
                page.screenshot(path=str(ARTIFACTS / "dashboard-deck-alert.png"))
            page.click("#alert-detail-close")
        context.close()
    finally:
        feed.loop_stop()
        feed.disconnect()
        world.close()
