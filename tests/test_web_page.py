"""The live table page in a real browser: Debian's chromium, headless, driven by
Playwright, against the real server (uvicorn on a loopback port) following a real
simulated game. A screenshot is kept in test-artifacts/table-page.png."""

from __future__ import annotations

import asyncio
import json
import random
import threading
import urllib.error
import urllib.request
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any

import pytest
from favicon_check import the_icon_is_served
from playwright.sync_api import Browser, Page, expect
from waiting import wait_until

from table_controller import simulate
from table_controller.cards import Card
from table_controller.present import Notice, table_view
from table_controller.rules.events import (
    DealerChosen,
    HandDealt,
    OutputEvent,
    Passed,
    TrickWon,
)
from table_controller.rules.game import Game, Phase
from table_controller.rules.presets import preset
from table_controller.seats import Seat
from table_controller.table.health import Device, Health
from table_controller.web.server import PageError, Refusal, Sender, TablePage

ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"
PLAYERS = {Seat.N: "Ann", Seat.E: "Bo", Seat.S: "Cy", Seat.W: "Di"}
# A tiny valid PNG (1x1, red): what the camera's evidence would be.
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010802000000907753de"
    "0000000c4944415478da63f8cfc0000003010100c9fe92ef0000000049454e44ae426082"
)


class Served:
    """A TablePage served by uvicorn in its own event loop, on a thread, so the test
    (and Playwright's sync API) can drive it from the main thread."""

    def __init__(self, page: TablePage) -> None:
        self.page = page
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.url = self.call(page.start("127.0.0.1", 0))

    def call(self, coro: Coroutine[Any, Any, Any]) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout=60)

    def close(self) -> None:
        self.call(self.page.stop())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)
        self.loop.close()


class Inputs:
    """The table's side of the touchscreen: records each payload; refuses on demand."""

    def __init__(self) -> None:
        self.received: list[dict[str, Any]] = []
        self.refusal: Refusal | None = None

    async def __call__(self, payload: dict[str, Any], sender: Sender) -> Refusal | None:
        self.received.append(payload)
        return self.refusal


@pytest.fixture
def inputs() -> Inputs:
    return Inputs()


@pytest.fixture
def served(inputs: Inputs) -> Iterator[Served]:
    evidence = {(1, 9): PNG}
    page = TablePage(
        on_input=inputs, evidence=lambda g, s: evidence.get((g, s)), title="Club night, table 3"
    )
    server = Served(page)
    yield server
    server.close()


@pytest.fixture
def page(browser: Browser, served: Served) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    tab = context.new_page()
    tab.goto(served.url)
    yield tab
    context.close()


def snapshot(game: Game, recent: list[OutputEvent], **kw: Any) -> dict[str, Any]:
    return table_view(
        game,
        table="Club night, table 3",
        players=PLAYERS,
        recent=recent,
        version=len(game.log),
        **kw,
    )


def live_bidding() -> Game:
    game = Game(preset("td-tournament", {"first_dealer": "chosen"}))
    game.push(DealerChosen(Seat.N))
    game.push(HandDealt(Card.parse("9H")))
    return game


# --- the page follows a game -----------------------------------------------------------------


def picture_loaded(page: Page) -> None:
    """Until the renege's picture has loaded. Not ``wait_for_function``: once the first
    check fails it polls with an eval in the page, which the page's Content Security
    Policy refuses (so it failed whenever the picture was slow, as on a loaded machine)."""
    img = page.locator("#reneges img").first  # as querySelector: the first
    wait_until("the renege's picture loaded", lambda: bool(img.evaluate("i => i.naturalWidth > 0")))


def qr_loaded(page: Page) -> None:
    """Until the game-over box's QR code has loaded (as ``picture_loaded``, not
    ``wait_for_function``, which the page's Content Security Policy refuses)."""
    qr = page.locator("#game-over .over-qr")
    wait_until("the review's QR code loaded", lambda: bool(qr.evaluate("i => i.naturalWidth > 0")))


def test_the_page_follows_a_simulated_game(page: Page, served: Served) -> None:
    rules = preset("td-tournament")
    game = Game(rules)
    recent: list[OutputEvent] = []
    health = Health()
    hands_checked = 0
    last_trick_checked = False
    expect(page.locator("#conn")).to_have_text("live")
    expect(page.locator("#health")).to_contain_text("waiting for the table")
    for event, out in simulate.play(rules, random.Random(2)):
        game.push(event)
        recent += out  # the view keeps only the latest hand's
        hand = game.hand
        if hand is None or hand.number > 2:
            if hands_checked >= 2:
                break
            if game.phase is Phase.DEALING and any(type(o).__name__ == "HandScored" for o in out):
                served.page.publish(snapshot(game, recent))
                ns, ew = game.team_scores()
                expect(page.locator("#score-NS")).to_have_text(str(ns))
                expect(page.locator("#score-EW")).to_have_text(str(ew))
                expect(page.locator("#result")).to_contain_text(f"Hand {hands_checked + 1}")
                hands_checked += 1
            continue
        if game.phase is Phase.BIDDING and hand.round == 1 and game.to_act == hand.dealer.left:
            served.page.publish(snapshot(game, recent))
            to_act = game.to_act
            assert to_act is not None
            expect(page.locator(f"#seat-{to_act.name}.to-act")).to_have_count(1)
            expect(page.locator(".seat.to-act")).to_have_count(1)
            expect(page.locator(f"#seat-{hand.dealer.name} .chip")).to_have_text("D")
            expect(page.locator("#upcard .card")).to_have_attribute("data-card", hand.upcard.code)  # type: ignore[union-attr]
        if game.phase is Phase.PLAYING and hand.trick is not None and len(hand.trick.plays) == 2:
            served.page.publish(snapshot(game, recent))
            assert hand.trump is not None
            expect(page.locator("#trump .symbol")).to_have_text(hand.trump.symbol)
            for seat, card in hand.trick.plays:
                expect(page.locator(f"#play-{seat.name} .card")).to_have_attribute(
                    "data-card", card.code
                )
            nxt = hand.next_to_play()
            assert nxt is not None
            expect(page.locator(f"#seat-{nxt.name}")).to_contain_text(PLAYERS[nxt])
            expect(page.locator(f"#seat-{nxt.name}.to-act")).to_have_count(1)
            expect(page.locator(".seat.to-act")).to_have_count(1)
            if hand.tricks:
                last = next(o for o in reversed(recent) if isinstance(o, TrickWon))
                expect(page.locator("#last-trick .card")).to_have_count(len(last.plays))
                expect(page.locator("#last-trick .winner")).to_contain_text(PLAYERS[last.winner])
                last_trick_checked = True
    assert hands_checked == 2 and last_trick_checked
    for name in PLAYERS.values():
        expect(page.locator("#table")).to_contain_text(name)

    # A fault shows in the health strip, and clears.
    health.raise_fault(Device.CAMERA, "no frames for 3 s", "check the camera's cable", 1.0)
    served.page.publish(snapshot(game, recent, faults=health.faults))
    fault = page.locator("#health .fault[data-device=camera]")
    expect(fault).to_contain_text("the camera")
    expect(fault).to_contain_text("no frames for 3 s")
    expect(fault).to_contain_text("check the camera's cable")
    health.clear(Device.CAMERA)
    served.page.publish(snapshot(game, recent, faults=health.faults))
    expect(page.locator("#health")).to_have_text("✓ All devices OK")


def test_a_tap_sends_the_action_and_a_refusal_shows_the_banner(
    page: Page, served: Served, inputs: Inputs
) -> None:
    game = live_bidding()
    served.page.publish(snapshot(game, []))
    buttons = page.locator("#actions button")
    expect(buttons).to_have_text(["Pass", "Order up", "Order up alone"])
    expect(page.locator("#actions-for")).to_have_text("For Bo (East)")
    box = buttons.nth(1).bounding_box()
    assert box is not None and box["height"] >= 48 and box["width"] >= 48  # a finger's size
    with page.expect_response("**/api/input") as answer:
        buttons.nth(1).click()
    assert answer.value.status == 200
    expect(page.locator("#refusal")).to_be_hidden()
    assert inputs.received == [{"event": "ordered_up", "seat": "E", "alone": False}]

    inputs.refusal = ("Bo cannot order up now: it is Cy's turn", "wait for your seat's light")
    with page.expect_response("**/api/input") as answer:
        buttons.nth(0).click()
    assert answer.value.status == 409
    banner = page.locator("#refusal")
    expect(banner).to_be_visible()
    expect(banner).to_contain_text("Bo cannot order up now")
    expect(banner).to_contain_text("wait for your seat's light")
    assert inputs.received[-1] == {"event": "passed", "seat": "E"}

    # The table's own notice (a refused press at a seat) shows as a banner too.
    notice = Notice("refused", Seat.S, "S pressed out of turn", "wait for your light", 2.0)
    served.page.publish(snapshot(game, [], notices=[notice]))
    expect(page.locator("#notices .banner.refused")).to_contain_text(
        "Cy (South): South pressed out of turn"
    )


def test_reneges_show_with_evidence_that_enlarges(page: Page, served: Served) -> None:
    from table_controller import transcript

    script = transcript.load(Path(__file__).parent / "transcripts" / "000_renege_deducted.jsonl")
    game = Game(script.rules())
    recent: list[OutputEvent] = []
    for event in script.events[:15]:
        recent += game.push(event)
    urls = {Card.parse("9C"): "/evidence/1/9.png"}
    served.page.publish(snapshot(game, recent, evidence_urls=urls))
    renege = page.locator("#reneges li")
    expect(renege).to_contain_text("Renege proven: Cy")
    expect(renege).to_contain_text("did not follow ♣ clubs in trick 1")
    thumb = renege.locator("img")
    expect(thumb).to_have_attribute("src", "/evidence/1/9.png")
    picture_loaded(page)
    thumb.click()
    expect(page.locator("#lightbox")).to_be_visible()
    page.locator("#lightbox").click()
    expect(page.locator("#lightbox")).to_be_hidden()


def test_the_page_reconnects_and_shows_the_latest_snapshot(page: Page, served: Served) -> None:
    game = live_bidding()
    served.page.publish(snapshot(game, []))
    expect(page.locator("#seat-E.to-act")).to_have_count(1)
    port = int(served.url.rsplit(":", 1)[1].strip("/"))
    served.call(served.page.stop())  # the table restarts: the stream drops
    expect(page.locator("#conn")).to_have_text("reconnecting…")
    game.push(Passed(Seat.E))
    served.page.publish(snapshot(game, []))  # what happened meanwhile
    served.call(served.page.start("127.0.0.1", port))
    expect(page.locator("#conn")).to_have_text("live", timeout=10_000)
    expect(page.locator("#seat-S.to-act")).to_have_count(1)
    assert served.page.pages == 1


SMALL_TEXT = """(least) => {
  const small = [];
  for (const el of document.querySelectorAll('body *')) {
    const own = [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
    if (!own || !el.getClientRects().length) continue;
    const style = getComputedStyle(el);
    if (style.visibility === 'hidden' || style.display === 'none') continue;
    const px = parseFloat(style.fontSize);
    if (px < least) small.push(`${el.id || el.className || el.tagName}: ${px}px`);
  }
  return small;
}"""


def test_screenshot_of_a_table_in_play(browser: Browser, served: Served) -> None:
    """The artefact: a hand in play with trump, a trick, a renege and a fault."""
    from table_controller import transcript

    script = transcript.load(Path(__file__).parent / "transcripts" / "000_renege_deducted.jsonl")
    game = Game(script.rules())
    recent: list[OutputEvent] = []
    for event in script.events[:14]:
        recent += game.push(event)
    health = Health()
    health.raise_fault(Device.CUBE, "unplugged", "plug the trump cube's cable back in", 3.0)
    urls = {Card.parse("9C"): "/evidence/1/9.png", Card.parse("9S"): "/evidence/1/9.png"}
    served.page.publish(snapshot(game, recent, evidence_urls=urls, faults=health.faults))
    ARTIFACTS.mkdir(exist_ok=True)
    for name, size in (("table-page.png", (1280, 800)), ("table-page-portrait.png", (800, 1280))):
        context = browser.new_context(viewport={"width": size[0], "height": size[1]})
        tab = context.new_page()
        tab.goto(served.url)
        expect(tab.locator("#reneges li")).to_have_count(1)
        expect(tab.locator("#play-S .card")).to_have_count(1)
        picture_loaded(tab)
        # Read from across a room: no visible text smaller than 15 px.
        small = tab.evaluate(SMALL_TEXT, 15)
        assert small == [], f"text too small to read from across a room at {size}: {small}"
        tab.screenshot(path=str(ARTIFACTS / name), full_page=True)
        context.close()
        assert (ARTIFACTS / name).stat().st_size > 10_000


# --- the routes, without a browser --------------------------------------------------------------


def post(url: str, body: bytes) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(
        url + "api/input", data=body, headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def get(url: str) -> tuple[int, bytes, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return answer.status, answer.read(), answer.headers.get("Content-Type", "")
    except urllib.error.HTTPError as err:
        return err.code, err.read(), err.headers.get("Content-Type", "")


def test_input_is_validated(served: Served, inputs: Inputs) -> None:
    status, reply = post(served.url, b"{not json")
    assert status == 400 and reply["ok"] is False
    assert "not JSON" in reply["problem"] and "passed" in reply["fix"]
    status, reply = post(served.url, b'["passed"]')
    assert status == 400 and 'needs an "event"' in reply["problem"]
    status, reply = post(served.url, b"x" * 20_000)
    assert status == 413
    assert inputs.received == []
    status, reply = post(served.url, b'{"event": "passed", "seat": "N"}')
    assert (status, reply) == (200, {"ok": True})
    inputs.refusal = ("not your turn", "wait")
    status, reply = post(served.url, b'{"event": "passed", "seat": "N"}')
    assert (status, reply) == (409, {"ok": False, "problem": "not your turn", "fix": "wait"})


def test_a_picture_is_asked_for_again_so_a_clearer_one_is_seen(served: Served) -> None:
    """The camera's clearer picture replaces the first under the same address: a
    browser keeps a picture only to ask again (no-cache), and gets a 304 while its ETag
    is the same."""
    url = served.url + "evidence/1/9.png"
    with urllib.request.urlopen(url, timeout=10) as answer:
        etag = answer.headers["ETag"]
        assert answer.headers["Cache-Control"] == "no-cache" and etag
    again = urllib.request.Request(url, headers={"If-None-Match": etag})
    with pytest.raises(urllib.error.HTTPError) as unchanged:
        urllib.request.urlopen(again, timeout=10)
    assert unchanged.value.code == 304
    other = urllib.request.Request(url, headers={"If-None-Match": '"another picture"'})
    with urllib.request.urlopen(other, timeout=10) as answer:
        assert answer.status == 200 and answer.read() == PNG


def test_evidence_health_and_the_page(served: Served) -> None:
    status, body, kind = get(served.url + "evidence/1/9.png")
    assert (status, body, kind) == (200, PNG, "image/png")
    status, body, _ = get(served.url + "evidence/1/10.png")
    assert status == 404 and b"no evidence image for event 10 of game 1" in body
    status, body, _ = get(served.url + "health")
    assert status == 200 and json.loads(body)["ok"] is True
    served.page.publish(
        {"version": 3, "faults": [{"device": "disk", "problem": "full", "fix": "free space"}]}
    )
    health = json.loads(get(served.url + "health")[1])
    assert health["ok"] is False and health["version"] == 3
    status, body, kind = get(served.url)
    assert status == 200 and kind.startswith("text/html")
    assert b"<title>Club night, table 3</title>" in body
    status, body, kind = get(served.url + "static/page.js")
    assert status == 200 and b"EventSource" in body


def test_the_stream_sends_the_latest_snapshot_and_skips_repeats(served: Served) -> None:
    served.page.publish({"version": 1})
    served.page.publish({"version": 2})
    with urllib.request.urlopen(served.url + "events", timeout=10) as stream:
        assert stream.headers["Content-Type"].startswith("text/event-stream")
        assert stream.readline() == b"retry: 1000\n"
        assert stream.readline() == b"\n"
        assert stream.readline() == b'data: {"version":2}\n'
        assert stream.readline() == b"\n"
        served.page.publish({"version": 2})  # the same again: nothing is sent
        served.page.publish({"version": 3})
        assert stream.readline() == b'data: {"version":3}\n'


def test_a_quiet_stream_gets_heartbeats() -> None:
    server = Served(TablePage(heartbeat=0.2))
    try:
        with urllib.request.urlopen(server.url + "events", timeout=10) as stream:
            assert stream.readline() == b"retry: 1000\n"
            assert stream.readline() == b"\n"
            assert stream.readline() == b": heartbeat\n"  # no snapshot yet: only heartbeats
    finally:
        server.close()


def test_a_page_without_input_says_so() -> None:
    server = Served(TablePage())
    try:
        status, reply = post(server.url, b'{"event": "passed", "seat": "N"}')
        assert status == 503 and "takes no input" in reply["problem"]
        assert get(server.url + "evidence/1/1.png")[0] == 404
    finally:
        server.close()


def test_a_taken_port_is_a_clear_error(served: Served) -> None:
    port = int(served.url.rsplit(":", 1)[1].strip("/"))
    with pytest.raises(PageError, match=rf"cannot listen on 127.0.0.1:{port}.*\[web\]"):
        served.call(TablePage().start("127.0.0.1", port))


def test_the_page_has_its_icon(browser: Browser, served: Served) -> None:
    the_icon_is_served(browser, served.url)


# --- the hand review, when a game ends (issue 34) -----------------------------------------


def test_a_game_s_end_links_its_review_and_a_qr_code_and_a_game_in_play_shows_no_hand_in_play(
    browser: Browser, tmp_path: Path
) -> None:
    """The page's game-over box links the game's review and shows its address as a QR
    code for a phone; the review is served under its own policy, opens its script and
    steps; a game still being played shows its ended hands only."""
    import functools
    import io

    import zxingcpp
    from PIL import Image
    from review_games import ended_before, in_play, review_data, simulated, write

    from table_controller.event_log import EventLog
    from table_controller.present import review_link
    from table_controller.review import review_qr_svg
    from table_controller.table.log.export import game_review, page_review

    log = EventLog(tmp_path / "table.sqlite", table="Club night, table 3")
    steps = simulated(seed=7)
    events = [e for e, _ in steps]
    over = write(log, events)
    playing = write(log, events[: in_play(steps, 3, 3)])
    cut = write(log, events[: ended_before(steps, 3)])
    title = "Club night, table 3"
    page = TablePage(
        title=title,
        review=functools.partial(page_review, log, table=title),
        qr=review_qr_svg,
    )
    served = Served(page)
    try:
        game = Game(preset("td-tournament"))
        recent: list[OutputEvent] = []
        for event, _ in steps:
            recent += game.push(event)
        snap = snapshot(game, recent)
        assert snap["game_over"] is not None
        snap["game_over"]["review"] = review_link(over)  # as the table's sinks add it
        page.publish(snap)  # type: ignore[arg-type]
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        tab = context.new_page()
        problems: list[str] = []
        tab.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
        tab.goto(served.url)
        link = tab.locator("#game-over .over-review-link")
        expect(link).to_have_text("Replay this game hand by hand")
        expect(link).to_have_attribute("href", f"/review/{over}")
        qr = tab.locator("#game-over .over-qr")
        expect(qr).to_be_visible()
        qr_loaded(tab)
        ARTIFACTS.mkdir(exist_ok=True)
        tab.screenshot(path=str(ARTIFACTS / "table-page-review-link.png"))
        shot = Image.open(io.BytesIO(qr.screenshot()))
        read = [b.text for b in zxingcpp.read_barcodes(shot)]
        assert read == [f"{served.url}review/{over}"]  # the address as this browser has it
        link.click()
        expect(tab.locator("body")).to_have_attribute("data-step", "0")
        expect(tab.locator("#title")).to_have_text(f"{title}: game {over}")
        tab.keyboard.press("End")
        expect(tab.locator("#step-text")).to_contain_text("score")
        assert problems == []  # its inline style and script ran under its own policy
        context.close()

        status, body, kind = get(f"{served.url}review/{over}")
        assert status == 200 and kind.startswith("text/html")
        with urllib.request.urlopen(f"{served.url}review/{over}", timeout=10) as answer:
            csp = answer.headers["Content-Security-Policy"]
            assert "script-src 'sha256-" in csp and "default-src 'none'" in csp
            assert answer.headers["X-Frame-Options"] == "DENY"
        with urllib.request.urlopen(f"{served.url}review/{over}/file", timeout=10) as answer:
            assert answer.headers["Content-Disposition"] == (
                f'attachment; filename="review-club-night-table-3-game-{over}.html"'
            )
            assert answer.read() == body

        # A game in progress: its ended hands, nothing of the hand in play.
        status, body, _ = get(f"{served.url}review/{playing}")
        shown = review_data(body.decode())
        assert status == 200 and [h["number"] for h in shown["hands"]] == [1, 2]  # type: ignore[union-attr]
        assert "hand 3, being played" in str(shown["status"])
        assert game_review(log, playing).hands == game_review(log, cut).hands

        status, body, kind = get(f"{served.url}review/99")
        assert status == 404 and kind.startswith("text/html")
        assert b"There is no game 99 at this table" in body
    finally:
        served.close()


def test_the_review_s_qr_code_holds_this_table_s_address_never_a_foreign_host() -> None:
    """The QR code is of the address the browser used when that is one of the table's
    (any IP address, its name): a name pointed at the table from elsewhere (DNS
    rebinding) gets the table's own address instead."""
    asked: list[str] = []

    def qr(address: str) -> str:
        asked.append(address)
        return "<svg xmlns='http://www.w3.org/2000/svg'/>"

    served = Served(TablePage(title="T", qr=qr))
    try:
        port = served.url.rsplit(":", 1)[1].rstrip("/")
        for host in (f"127.0.0.1:{port}", "evil.example"):
            req = urllib.request.Request(f"{served.url}review/4/qr.svg", headers={"Host": host})
            with urllib.request.urlopen(req, timeout=10) as answer:
                assert answer.headers["Content-Type"].startswith("image/svg+xml")
        assert asked == [f"http://127.0.0.1:{port}/review/4", f"{served.url}review/4"]
        status, body, _ = get(f"{served.url}review/4")  # no log to read: said in words
        assert status == 404 and b"This table keeps no games to replay" in body
    finally:
        served.close()


@pytest.mark.parametrize("width,height", [(375, 812), (800, 480), (1920, 1080)])
def test_the_game_over_box_and_its_review_link_fit_a_phone_a_kiosk_and_a_wall(
    browser: Browser, width: int, height: int
) -> None:
    """The game-over box with its review link and QR code: on a phone (375 px wide), the
    kiosk's screen (800x480) and a wall screen (1920 px), the box lies inside the screen,
    and the link, the QR code, the winners and the score inside the box, none clipped."""
    from table_controller.present import review_link
    from table_controller.review import review_qr_svg

    page = TablePage(title="Club night, table 3", review=lambda g: None, qr=review_qr_svg)
    served = Served(page)
    try:
        game = Game(preset("td-tournament"))
        recent: list[OutputEvent] = []
        for event, _ in simulate.play(preset("td-tournament"), random.Random(7)):
            recent += game.push(event)
        snap = snapshot(game, recent)
        snap["game_over"]["review"] = review_link(3)
        page.publish(snap)  # type: ignore[arg-type]
        context = browser.new_context(viewport={"width": width, "height": height})
        tab = context.new_page()
        tab.goto(served.url)
        box = tab.locator("#game-over")
        expect(box.locator(".over-review-link")).to_be_visible()
        qr_loaded(tab)
        ARTIFACTS.mkdir(exist_ok=True)
        tab.screenshot(path=str(ARTIFACTS / f"table-page-game-over-{width}.png"))
        outer = box.bounding_box()
        assert outer is not None
        assert outer["x"] >= 0 and outer["x"] + outer["width"] <= width + 0.5
        for part in (".over-title", ".over-score", ".over-review-link", ".over-qr"):
            inner = box.locator(part).bounding_box()
            assert inner is not None, part
            assert inner["x"] >= outer["x"] - 0.5, part
            assert inner["x"] + inner["width"] <= outer["x"] + outer["width"] + 0.5, part
            assert inner["y"] >= outer["y"] - 0.5, part
            assert inner["y"] + inner["height"] <= outer["y"] + outer["height"] + 0.5, part
        clipped = tab.evaluate(
            """() => [...document.querySelectorAll('#game-over, #game-over *')]
                .filter((e) => e.scrollWidth > e.clientWidth + 1 && e.clientWidth > 0)
                .map((e) => e.className || e.id)"""
        )
        assert clipped == [], clipped
        context.close()
    finally:
        served.close()
