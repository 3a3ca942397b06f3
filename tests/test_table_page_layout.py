"""The table page as people read it, in Debian's chromium (headless, Playwright) against
the real server: the felt fills the screen it is on, names wrap only between words (or
shrink to fit), the page speaks in words (no event names, no card codes) through a whole
simulated game, tricks are counted, the end of a game is announced big and held until
the next deal, and the camera's evidence opens large. Screenshots: test-artifacts/
(docs/images/ holds copies)."""

from __future__ import annotations

import io
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from playwright.sync_api import Browser, Page, expect
from test_web_page import Served

from table_controller import simulate, transcript
from table_controller.cards import Card
from table_controller.present import game_over, table_view
from table_controller.rules.events import GameEnded, HandDealt, OutputEvent
from table_controller.rules.game import Game, Phase
from table_controller.rules.presets import preset
from table_controller.seats import Seat
from table_controller.web.server import TablePage

# Screenshots go to test-artifacts/; docs/images/ holds copies (a test never writes docs).
IMAGES = Path(__file__).resolve().parents[1] / "test-artifacts"
TRANSCRIPTS = Path(__file__).parent / "transcripts"
LONG = {
    Seat.N: "Marie-Christine Vandenberghe",
    Seat.E: "Bartholomew Mancini",
    Seat.S: "Cy",
    Seat.W: "Anastasia Papadopoulou",
}
SCREENS = {"720p": (1280, 720), "1080p": (1920, 1080), "phone": (390, 844), "4K": (3840, 2160)}
EVENT_NAME = re.compile(r"\b[a-z]+_[a-z_]+\b")  # hand_dealt, choosing_dealer
CARD_CODE = re.compile(r"\b(?:[9TJQKA]|10)[CDHS]\b")  # JH, TC, 10S


def evidence_png() -> bytes:
    """A camera crop as the watcher keeps it (>= 300 px): what the lightbox shows."""
    picture = Image.new("RGB", (320, 240), (250, 250, 245))
    for x in range(40, 120):
        for y in range(30, 140):
            picture.putpixel((x, y), (200, 20, 20))
    out = io.BytesIO()
    picture.save(out, format="PNG")
    return out.getvalue()


@pytest.fixture(scope="module")
def served() -> Iterator[Served]:
    pictures = {(1, 9): evidence_png()}
    server = Served(TablePage(on_input=None, evidence=lambda g, s: pictures.get((g, s))))
    yield server
    server.close()


def open_at(browser: Browser, served: Served, size: tuple[int, int]) -> Page:
    context = browser.new_context(viewport={"width": size[0], "height": size[1]})
    tab = context.new_page()
    tab.goto(served.url)
    return tab


def show(tab: Page, served: Served, snap: dict[str, Any]) -> None:
    """Publish ``snap`` and wait until the page has drawn it."""
    served.page.publish(snap)
    expect(tab.locator("body")).to_have_attribute("data-version", str(snap["version"]))


def renege_hand(players: dict[Seat, str] = LONG, events: int = 14) -> dict[str, Any]:
    script = transcript.load(TRANSCRIPTS / "000_renege_deducted.jsonl")
    game = Game(script.rules())
    recent: list[OutputEvent] = []
    for event in script.events[:events]:
        recent += game.push(event)
    urls = {Card.parse("9C"): "/evidence/1/9.png"}
    return table_view(
        game, table="Maple", players=players, recent=recent, evidence_urls=urls, version=events
    )


# Every word of the players' names, the waiting sentence and the game-over title on one
# line (a name wraps only between words, or at its hyphen), inside its box.
SPLIT_WORDS = """() => {
  const bad = [];
  const boxes = document.querySelectorAll('.seat .name, #expecting, #game-over .over-title');
  for (const node of boxes) {
    if (!node.getClientRects().length) continue;
    const box = node.getBoundingClientRect();
    const walker = document.createTreeWalker(node, NodeFilter.SHOW_TEXT);
    for (let t = walker.nextNode(); t; t = walker.nextNode()) {
      const words = /[^\\s\\-]+/g;
      let m;
      while ((m = words.exec(t.data))) {
        const r = document.createRange();
        r.setStart(t, m.index);
        r.setEnd(t, m.index + m[0].length);
        const lines = new Set([...r.getClientRects()].filter(x => x.width > 0)
          .map(x => Math.round(x.top)));
        const where = node.id || node.className;
        if (lines.size > 1) bad.push(`"${m[0]}" split over ${lines.size} lines in ${where}`);
        const u = r.getBoundingClientRect();
        if (u.left < box.left - 1 || u.right > box.right + 1) {
          bad.push(`"${m[0]}" sticks out of ${where}`);
        }
      }
    }
  }
  return bad;
}"""


def test_names_wrap_between_words_and_the_felt_fills_every_screen(
    browser: Browser, served: Served
) -> None:
    snap = renege_hand()
    for screen, size in SCREENS.items():
        tab = open_at(browser, served, size)
        show(tab, served, snap)
        for seat, name in LONG.items():
            expect(tab.locator(f"#seat-{seat.name} .name")).to_have_text(name)
        name_style = tab.locator("#seat-N .name").evaluate(
            "n => [getComputedStyle(n).overflowWrap, getComputedStyle(n).wordBreak]"
        )
        assert name_style == ["normal", "normal"]
        assert tab.evaluate(SPLIT_WORDS) == [], screen
        felt = tab.locator("#felt").bounding_box()
        assert felt is not None
        # The felt is the screen's: 80% of its width at least (the panels sit in its
        # corners), and the page does not scroll (a phone's panels go under it).
        assert felt["width"] >= 0.8 * size[0], (screen, felt)
        if size[0] > size[1]:
            height = tab.evaluate("document.documentElement.scrollHeight")
            assert height <= size[1], (screen, height)
            assert felt["height"] >= 0.75 * size[1], (screen, felt)
        if screen == "1080p":
            tab.screenshot(path=str(IMAGES / "table-page-1080p.png"))
        tab.context.close()


def test_the_evidence_opens_large_but_not_blurred(browser: Browser, served: Served) -> None:
    tab = open_at(browser, served, SCREENS["1080p"])
    show(tab, served, renege_hand())
    thumb = tab.locator("#reneges img").first
    expect(thumb).to_have_attribute("alt", "the camera's picture of the 9♣")
    thumb.click()
    picture = tab.locator("#lightbox img")
    expect(picture).to_be_visible()
    # 320 px wide: shown at twice its size (640 px), no more, as the screen has room.
    expect(picture).to_have_js_property("naturalWidth", 320)
    expect(picture).to_have_css("width", "640px")
    expect(tab.locator("#lightbox .caption")).to_contain_text("The 9♣: Cy (South) did not follow")
    tab.locator("#lightbox").click()
    expect(picture).to_be_hidden()
    # On a phone the picture fits the screen (narrower than 2x).
    tab.set_viewport_size({"width": 390, "height": 844})
    thumb.click()
    width = picture.evaluate("i => i.getBoundingClientRect().width")
    assert 300 <= width <= 390
    tab.context.close()


def visible_words(tab: Page) -> str:
    text: str = tab.evaluate("document.body.innerText")
    return text


@pytest.mark.slow(budget=60)
def test_a_whole_game_is_told_in_words_and_its_end_is_held_until_the_next_deal(
    browser: Browser, served: Served
) -> None:
    rules = preset("td-tournament")
    tab = open_at(browser, served, SCREENS["1080p"])
    game = Game(rules)
    recent: list[OutputEvent] = []
    version = 0
    tricks_seen = 0
    ended: dict[str, Any] | None = None
    for event, out in simulate.play(rules, random.Random(7)):
        game.push(event)
        recent += out
        version += 1
        snap = table_view(game, table="Maple", players=LONG, recent=recent, version=version)
        show(tab, served, snap)
        words = visible_words(tab)
        assert not EVENT_NAME.search(words), (event, EVENT_NAME.findall(words))
        assert not CARD_CODE.search(words), (event, CARD_CODE.findall(words))
        hand = game.hand
        if hand is not None and hand.tricks and game.phase is Phase.PLAYING:
            ns, ew = snap["tricks_won"]["NS"], snap["tricks_won"]["EW"]
            expect(tab.locator("#tricks-won")).to_have_text(f"Tricks: N–S {ns} · E–W {ew}")
            tricks_seen += 1
        if any(isinstance(o, GameEnded) for o in out):
            ended = snap["game_over"]
    assert game.phase is Phase.OVER and ended is not None and tricks_seen > 10
    assert tab.evaluate(SPLIT_WORDS) == []
    banner = tab.locator("#game-over")
    expect(banner).to_be_visible()
    winner = ended["team"]
    a, b = (LONG[Seat.N], LONG[Seat.S]) if winner == "NS" else (LONG[Seat.E], LONG[Seat.W])
    expect(banner.locator(".over-title")).to_have_text(f"{a} and {b} win")
    ns, ew = game.scores[0], game.scores[1]
    expect(banner.locator(".over-score")).to_have_text(f"N–S {ns} – {ew} E–W")
    box = banner.bounding_box()
    assert box is not None and box["width"] >= 500 and box["height"] >= 400  # big
    tab.screenshot(path=str(IMAGES / "table-page-game-over.png"))

    # The table starts the next game at once; the ending stays up until its first deal.
    held = game_over(game, recent, LONG)
    assert held == ended
    nxt = Game(rules)
    for event, _ in simulate.play(rules, random.Random(8)):
        nxt.push(event)
        version += 1
        show(tab, served, table_view(nxt, table="Maple", players=LONG, ended=held, version=version))
        if isinstance(event, HandDealt):
            expect(banner).to_be_hidden()
            break
        expect(banner).to_be_visible()
        expect(banner.locator(".over-title")).to_have_text(f"{a} and {b} win")
    assert nxt.phase is Phase.BIDDING
    tab.context.close()
