"""The kiosk end to end: the real kiosk table over the simulated world (a synthetic
camera read by the real vision path), a simulated visitor laying real (simulated-world)
cards at S, the bots playing N, E and W, and the page in Debian's chromium, headless,
driven by Playwright. No test asserts how long anything takes; the waits are guards
against a hang. Screenshots land in test-artifacts/."""

from __future__ import annotations

import dataclasses
import threading
from html import escape
from pathlib import Path
from typing import Any

import pytest
from favicon_check import the_icon_is_served
from playwright.sync_api import Browser, Page, expect
from waiting import InThread, until_or_stopped

from table_controller.bots.knowledge import seat_view
from table_controller.cards import Card
from table_controller.devices.seat_lights import SeatLight
from table_controller.event_log import EventLog
from table_controller.kiosk.kiosk import KioskTable, bot_names
from table_controller.kiosk.teach import coach, why_won
from table_controller.kiosk.visitor import SimulatedVisitor, simulated_kiosk
from table_controller.present import Coach, KioskAlert, KioskShown, TableSnapshot
from table_controller.rules.events import (
    CardPlayed,
    DealerChosen,
    HandDealt,
    InputEvent,
    OrderedUp,
    OutputEvent,
    Passed,
    RenegeProven,
)
from table_controller.rules.game import Game, Phase
from table_controller.rules.presets import preset
from table_controller.seats import Seat
from table_controller.table.config import ConfigError, parse_config
from table_controller.table.health import Device
from table_controller.table.log.export import score_sheet_html
from table_controller.table.options import TableOptions
from table_controller.table.page.door import KIOSK, pin_throttle
from table_controller.web.pin import hash_pin, verify_pin

ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"
GUARD = 90.0  # seconds: only against a hang
PIN = "4321"
PIN_HASH = hash_pin(PIN, iterations=1000)
N, E, S, W = Seat


def kiosk_config(folder: Path, **kiosk: Any) -> Any:
    data: dict[str, Any] = {
        "table": {"name": "Kiosk", "gpio": "mock", "log": "kiosk.sqlite"},
        "camera": {"source": "synthetic", "lost_after": 2.0, "drift_check": 0},
        "cube": {"port": "none"},
        "web": {"host": "127.0.0.1", "port": 0},
        "kiosk": {
            "visitors": ["S"],
            "bot_level": "strong",
            "think_time": 0.02,
            "bot_pace": 0.05,
            "pin_hash": PIN_HASH,
            "walk_away": 600.0,
            "attract_after": 600.0,
            **kiosk,
        },
    }
    return parse_config(data, folder, "<kiosk test>")


class Running(InThread):
    """A kiosk table run in its own event loop on a thread, so Playwright's sync API
    drives the page from the test's thread."""

    def __init__(self, table: KioskTable) -> None:
        super().__init__(table, "the kiosk", GUARD)
        self.until("the kiosk started", lambda: table.started and table.snapshot() is not None)


SCREEN = {"width": 800, "height": 480}  # the Raspberry Pi Touch Display
# What must be in sight on the kiosk's screen, without scrolling.
IN_SIGHT = """(selectors) => {
  const out = [];
  for (const sel of selectors) {
    for (const node of document.querySelectorAll(sel)) {
      if (!node.getClientRects().length) continue;
      const r = node.getBoundingClientRect();
      if (r.top < 0 || r.left < 0 || r.bottom > innerHeight + 0.5 || r.right > innerWidth + 0.5) {
        out.push(`${sel}: ${Math.round(r.left)},${Math.round(r.top)} to ` +
          `${Math.round(r.right)},${Math.round(r.bottom)}`);
      }
    }
  }
  return out;
}"""
KEY = ["#coach-title", "#coach-renege", "#coach-hand", ".seat", "#felt", "#score", "#actions-box"]


def open_page(browser: Browser, url: str) -> Page:
    context = browser.new_context(viewport=SCREEN, has_touch=True)
    tab = context.new_page()
    tab.goto(url)
    return tab


def _bot_card_in_trick(game: Game) -> bool:
    hand = game.hand
    return (
        game.phase is Phase.PLAYING
        and game.to_act is S
        and hand is not None
        and hand.trick is not None
        and bool(hand.trick.plays)
    )


def _my_card_in_trick(game: Game) -> bool:
    hand = game.hand
    return (
        game.phase is Phase.PLAYING
        and hand is not None
        and hand.trick is not None
        and any(seat is S for seat, _ in hand.trick.plays)
    )


# --- end to end: a visitor, three bots, the page ----------------------------------------


def test_a_visitor_plays_real_cards_against_bots_and_is_taught(
    tmp_path: Path, browser: Browser
) -> None:
    config = kiosk_config(tmp_path)
    bot_lights: list[tuple[Seat, SeatLight]] = []

    def step(event: InputEvent, outputs: list[OutputEvent]) -> None:
        seat = table.game.to_act
        lights = table.devices.lights
        if seat is not None and seat is not S and lights is not None:
            bot_lights.append((seat, lights.shown[seat]))  # on the seat's (mock) pins

    table, world, people = simulated_kiosk(config, seed=4, renege=True, attract=False, on_step=step)
    visitor: SimulatedVisitor = people[S]
    seen: dict[str, Any] = {}
    # The visitor stops to think after two cards are read, until the page has shown them
    # forgotten ("Wrong card?" empties the list, and the visitor would lay them again at
    # once); when a bot has played to the trick and it is S's turn, once; and again after
    # the renege, before laying the next hand's cards.
    visitor.hold = lambda game: (
        ("again" not in seen and (len(table.kiosk.collected.get(S, ())) >= 2 or "wrong" in seen))
        or ("looked" not in seen and _bot_card_in_trick(game))
        or ("renege" in seen and "released" not in seen)
        or (bool(visitor.swept) and "sweep seen" not in seen)
    )
    running = Running(table)
    running.until("the page is served", lambda: table.url is not None)
    tab = open_page(browser, table.url or "")
    try:
        # The deal: the page tells the visitor to lay five cards, and lists those read.
        expect(tab.locator("#coach-title")).to_contain_text("Take five cards", timeout=GUARD * 1000)
        running.until("two cards read", lambda: len(table.kiosk.collected.get(S, ())) >= 2)
        expect(tab.locator("#coach-hand .card")).to_have_count(2, timeout=GUARD * 1000)
        # "Wrong card?": the cards read are forgotten; the visitor lays them again.
        seen["wrong"] = True
        tab.locator("#coach-again").click()
        expect(tab.locator("#coach-hand .card")).to_have_count(0, timeout=GUARD * 1000)
        seen["again"] = True
        running.until(
            "a bot's card in the trick, S to play", lambda: _bot_card_in_trick(table.game)
        )
        game = table.game
        hand = game.hand
        assert hand is not None and hand.trick is not None
        # Every hand is known: the visitor's from the camera, the bots' dealt by the kiosk.
        dealt = next(e for e in game.log if isinstance(e, HandDealt))
        assert set(dealt.hands) == {N, E, S, W}
        bot, card = hand.trick.plays[0]
        assert bot is not S
        slot = tab.locator(f"#play-{bot.name} .card")
        expect(slot).to_have_attribute("data-card", card.code, timeout=GUARD * 1000)
        expect(tab.locator(f"#seat-{bot.name} .bot-tag")).to_have_text("BOT")
        expect(tab.locator(f"#seat-{bot.name} .bot-hand")).to_contain_text("face down")
        # A bot is named once, marked by its badge: "Ada" and BOT, not "Ada (bot) BOT".
        for seat in (N, E, W):
            name = tab.locator(f"#seat-{seat.name} .name").inner_text()
            assert "bot" not in name.lower() and name, name
            assert tab.locator(f"#seat-{seat.name}").inner_text().count(name) == 1
        # The coach: whose turn, what can be played.
        title = tab.locator("#coach-title")
        expect(title).to_contain_text("South")
        playable = tab.locator("#coach-hand .card.playable")
        expect(playable.first).to_be_visible()
        legal = game.legal_plays(S)
        assert sorted(playable.evaluate_all("n => n.map(x => x.dataset.card)")) == sorted(
            c.code for c in legal
        )
        # The bots' seat lights light like anyone's: to bid, to play.
        assert {light for _, light in bot_lights} >= {SeatLight.YOUR_BID, SeatLight.YOUR_PLAY}
        assert tab.evaluate(IN_SIGHT, KEY) == []
        tab.screenshot(path=str(ARTIFACTS / "kiosk-play.png"))
        seen["looked"] = True

        def reneged() -> bool:
            if any(isinstance(o, RenegeProven) and o.seat is S for o in table.shown.recent):
                seen["renege"] = True
            return "renege" in seen

        running.until("the visitor reneges", reneged)
        renege_text = tab.locator("#coach-renege")
        expect(renege_text).to_contain_text("renege", timeout=GUARD * 1000)
        expect(renege_text).to_contain_text("when you can follow the suit led, you must")
        assert visitor.reneged is not None
        played, held = visitor.reneged
        expect(renege_text).to_contain_text(played.pretty)
        expect(renege_text).to_contain_text(held.pretty)
        # At 800x480 the explanation, the coach and the table are in sight: no scrolling.
        assert tab.evaluate(IN_SIGHT, KEY) == []
        assert tab.evaluate("document.documentElement.scrollHeight") <= SCREEN["height"]
        assert tab.evaluate("document.documentElement.scrollWidth") <= SCREEN["width"]
        tab.screenshot(path=str(ARTIFACTS / "kiosk-renege.png"))
        tab.screenshot(path=str(ARTIFACTS / "kiosk-800x480.png"))  # docs/images/ holds a copy

        # Something covers the camera: the page says what to do; then play goes on.
        world.covered = True
        alert = tab.locator("#kiosk-alert")
        expect(alert).to_contain_text("covering the camera", timeout=GUARD * 1000)
        tab.screenshot(path=str(ARTIFACTS / "kiosk-covered.png"))
        world.covered = False
        expect(alert).to_be_hidden(timeout=GUARD * 1000)
        deals = table.game.deals
        seen["released"] = True
        running.until("the next hand is dealt", lambda: table.game.deals > deals)
        assert table.health.fault(Device.VIEW) is None

        # The visitor sweeps every card off the table while their card is in the trick:
        # the page says nothing is lost and what to do; the game goes on.
        visitor.sweep_when = _my_card_in_trick
        running.until("the visitor sweeps the table", lambda: bool(visitor.swept))
        assert not world.table  # nothing left on the table
        expect(alert).to_be_visible(timeout=GUARD * 1000)
        expect(alert).to_contain_text("taken off the table")
        expect(alert).to_contain_text("Nothing is lost")
        expect(alert).to_contain_text("Put the cards back as they were")
        expect(alert).to_contain_text("or just play on")
        tab.screenshot(path=str(ARTIFACTS / "kiosk-swept.png"))
        deals, log = table.game.deals, table.game.log
        dealt_at = max(i for i, e in enumerate(log) if isinstance(e, HandDealt))
        seen["sweep seen"] = True  # the visitor lays their card back if its trick is on
        running.until("the next hand after the sweep", lambda: table.game.deals > deals)
        expect(alert).to_be_hidden(timeout=GUARD * 1000)  # the next card laid clears it
        # (``log`` is the swept hand's game's own list: complete even if a new game began)
        hand = log[dealt_at + 1 :]
        hand = hand[: next((i for i, e in enumerate(hand) if isinstance(e, HandDealt)), None)]
        played = [e.card for e in hand if isinstance(e, CardPlayed)]
        assert all(played.count(c) == 1 for c in visitor.swept)  # none played twice
    finally:
        tab.context.close()
        running.close()
    # Everything is in the log, and replays to the same game; the bots are named as bots.
    with EventLog.open_existing(config.log) as log:
        record = log.last_game()
        assert record is not None
        events = [e.event for e in log.events(record.game)]
        sheet = score_sheet_html(log, record.game)
    assert Game.replay(table.game.rules, events).state_key() == table.game.state_key()
    assert all(record.players[seat].endswith("(strong bot)") for seat in (N, E, W))
    assert record.players[S] == "South"
    assert all(escape(record.players[seat]) in sheet for seat in (N, E, W))


# --- attract mode, walk-away, the operator's PIN -------------------------------------------


def test_attract_mode_a_touch_walk_away_and_the_pin(tmp_path: Path, browser: Browser) -> None:
    config = kiosk_config(tmp_path, attract_after=0.3, walk_away=2.0, bot_pace=0.0)
    table, _, people = simulated_kiosk(config, seed=7, demo_step=0.05, check_every=0.2)
    table.door.guesses = pin_throttle(table.clock, free=3, lock=600.0)
    visitor = people[S]
    visitor.asleep = True  # nobody there yet
    running = Running(table)
    running.until("the page is served", lambda: table.url is not None)
    tab = open_page(browser, table.url or "")
    try:
        # Idle: the bots play a demo hand under "Touch to play".
        attract = tab.locator("#attract")
        expect(attract).to_be_visible(timeout=GUARD * 1000)
        expect(attract).to_contain_text("Touch to play")
        expect(tab.locator("#felt .slot .card").first).to_be_visible(timeout=GUARD * 1000)
        tab.screenshot(path=str(ARTIFACTS / "kiosk-attract.png"))
        assert table.game.deals == 0  # the demo is never logged
        # Until the deal, no timer may run out: on a loaded machine the visitor's first
        # card can be read later than 0.3 s after the touch, or the next one 2 s after
        # (the clock is the wall's), and the kiosk would rightly give up before the deal.
        quick = table.kiosk.settings
        table.kiosk.settings = dataclasses.replace(quick, attract_after=600.0, walk_away=600.0)
        # A touch starts a real game.
        attract.click()
        expect(attract).to_be_hidden(timeout=GUARD * 1000)
        expect(tab.locator("#coach-title")).to_contain_text("Take five cards")
        # The visitor sits down, lays their cards, then walks away after the deal.
        visitor.asleep = False
        running.until("the deal", lambda: table.game.deals > 0)
        visitor.asleep = True  # gone
        table.kiosk.settings = quick  # walks away after 2 s
        game_no = table.game_no
        running.until("the walk-away reset", lambda: table.game_no > game_no)
        expect(attract).to_be_visible(timeout=GUARD * 1000)
        assert table.kiosk.mode == "attract"
        with EventLog.open_existing(config.log) as log:
            walked = log.events(game_no)
            assert any(isinstance(e.event, HandDealt) for e in walked)  # kept, not lost
            assert any("nobody played" in (f[2] or "") for f in log.faults())
        # The operator: no way out without the PIN; wrong PINs are refused, then locked.
        tab.locator("#operator").click()
        pad = tab.locator("#pin-pad")
        expect(pad).to_be_visible()
        problem = tab.locator("#pin-problem")
        for _ in range(3):
            for digit in "1111":
                tab.locator(f'#pin-keys button[data-key="{digit}"]').click()
            tab.locator("#pin-reset").click()
            expect(problem).to_contain_text("wrong PIN")
        for digit in "1111":
            tab.locator(f'#pin-keys button[data-key="{digit}"]').click()
        tab.locator("#pin-reset").click()
        expect(problem).to_contain_text("too many wrong PINs")
        assert table.kiosk.mode == "attract"
        # The operator waits the lock out (here: the lock is lifted, not waited for).
        lifted = [("address", KIOSK), ("everywhere", "")]
        running.loop.call_soon_threadsafe(table.door.guesses.forgive, lifted)
        running.until("the lock is over", lambda: table.door.pin_wait() == 0.0)
        # The right PIN: exit the kiosk.
        for digit in PIN:
            tab.locator(f'#pin-keys button[data-key="{digit}"]').click()
        tab.locator("#pin-exit").click()
        expect(tab.locator("#kiosk-closed")).to_be_visible(timeout=GUARD * 1000)
        running.until("the kiosk stops", lambda: not running.thread.is_alive())
        assert table.kiosk.exited
    finally:
        tab.context.close()
        running.close()


# --- the pieces -------------------------------------------------------------------------


def test_the_pin_is_stored_hashed_and_checked() -> None:
    stored = hash_pin("2468", iterations=1000)
    assert "2468" not in stored
    assert verify_pin("2468", stored) and not verify_pin("2469", stored)
    assert not verify_pin("2468", "plain")
    with pytest.raises(ValueError):
        hash_pin("12a4")
    now = [0.0]
    guesses = pin_throttle(lambda: now[0], free=2, lock=10.0)
    keys = [("address", KIOSK)]
    guesses.failed(keys)
    assert guesses.wait(keys)[0] == 0
    now[0] = 1.0
    guesses.failed(keys)
    assert guesses.wait(keys)[0] == 10.0
    now[0] = 12.0
    guesses.failed(keys)
    assert guesses.wait(keys)[0] == 20.0  # doubled
    guesses.forgive(keys)
    assert guesses.wait(keys)[0] == 0


def test_the_kiosk_config_is_checked(tmp_path: Path) -> None:
    config = kiosk_config(tmp_path, visitors=["N", "S"], bot_level="rule-of-thumb")
    assert config.kiosk.visitors == (N, S)
    # The bots' seats are named as bots (for the log and its score sheet).
    named = dataclasses.replace(config, players={**config.players, E: "Robo"})
    assert bot_names(named, (E, W)) == {
        N: "North",
        E: "Robo (rule-of-thumb bot)",
        S: "South",
        W: "Bix (rule-of-thumb bot)",
    }
    with pytest.raises(ConfigError) as caught:
        kiosk_config(tmp_path, visitors=["S", "S"], bot_level="genius", pin_hash="1234")
    keys = {p.key for p in caught.value.problems}
    assert keys == {"kiosk.visitors", "kiosk.bot_level", "kiosk.pin_hash"}


def test_the_coach_explains_following_the_left_bower_and_tricks() -> None:
    game = Game(preset("td-tournament"))
    c = Card.parse
    hands = {
        N: (c("9H"), c("TH"), c("QC"), c("KC"), c("AC")),
        E: (c("9C"), c("TC"), c("JC"), c("9S"), c("TS")),
        S: (c("JD"), c("AD"), c("QS"), c("KS"), c("AS")),
        W: (c("QD"), c("KD"), c("9D"), c("TD"), c("QH")),
    }
    for event in (DealerChosen(W), HandDealt(upcard=c("JH"), hands=hands), OrderedUp(N)):
        game.push(event)
    game.push(next(e for e in game.legal_events()))  # W discards
    game.push(CardPlayed(N, c("9H")))  # hearts (trump) led
    game.push(CardPlayed(E, c("9C")))
    names = {N: "Ada", E: "Bix", S: "You", W: "Dot"}
    said = coach(game, {S}, names, [])
    assert said["playable"] == ["JD"]  # the left bower is a heart this hand
    assert any("left bower" in line for line in said["lines"])
    assert "follow" in said["title"]
    assert "right bower" in why_won([(N, c("9H")), (E, c("JH"))], c("JH").suit, names)
    assert "highest trump" in why_won([(N, c("9H")), (E, c("TH"))], c("JH").suit, names)
    # A bot's view holds no other hand.
    view = seat_view(game, E)
    hand = view.game.hand
    assert hand is not None and hand.known[S] is None and hand.known[E] is not None


def test_swept_cards_lose_nothing_and_wrong_cards_are_explained(tmp_path: Path) -> None:
    from table_controller.table.inputs import InputRefused
    from table_controller.vision.tracker import CardLaid, CardRemoved

    config = kiosk_config(tmp_path)
    table = KioskTable(config, TableOptions(serve_page=False), seed=3, attract=False)
    game = table.game
    assert game.phase is Phase.DEALING
    # A card the camera lost under a cover (a card of the last hand left in the zone) and
    # sees again where it lay is not a card of the deal.
    table.kiosk.cover.dark_since = 0.0
    assert table.kiosk.from_camera(CardRemoved(Card.parse("AH"), "play:S", 0, 0.0)) is None
    table.kiosk.cover.dark_since = None
    assert table.kiosk.from_camera(CardLaid(Card.parse("AH"), "play:S", 1, 0.0, 0.0, 0.0)) is None
    assert table.kiosk.collected[S] == []
    mine = [Card.parse(code) for code in ("9S", "TS", "JS", "QS", "KS")]
    dealt = None
    for i, card in enumerate(mine):
        dealt = table.kiosk.from_camera(CardLaid(card, "play:S", i, 0.0, 0.0, 0.0))
        assert (dealt is None) == (i < 4)
    with pytest.raises(InputRefused, match="sixth"):
        table.kiosk.from_camera(CardLaid(Card.parse("AS"), "play:S", 9, 0.0, 0.0, 0.0))
    # "Wrong card? Start again": the cards read are forgotten, and read again.
    assert table.kiosk.start_over() is None and table.kiosk.collected[S] == []
    for i, card in enumerate(mine):
        dealt = table.kiosk.from_camera(CardLaid(card, "play:S", 10 + i, 0.0, 0.0, 0.0))
    assert isinstance(dealt, HandDealt) and dealt.hands[S] == tuple(mine)
    game.push(dealt)
    # Everyone plays (the page's choices for bids, any legal card) until S has played to
    # a trick that is not yet complete.
    while True:
        hand = game.hand
        assert hand is not None
        if game.phase is Phase.PLAYING and hand.trick is not None:
            played = [c for s, c in hand.trick.plays if s is S]
            if played and len(hand.trick.plays) < 4:
                break
        game.push(game.legal_events()[0])
    card = played[0]
    # The card swept off: nothing is lost, and the page says so.
    assert table.kiosk.from_camera(CardRemoved(card, "play:S", 20, 0.0)) is None
    assert table.kiosk.alert is not None and "Nothing is lost" in table.kiosk.alert["fix"]
    # The page's snapshot has the keys its type names (present's TableSnapshot), and the
    # kiosk's part those of KioskShown: its alert, its coach.
    table.controls.drive()
    snap = table.snapshot()
    assert snap is not None and set(snap) == TableSnapshot.__required_keys__ | {"kiosk"}
    kiosk = snap["kiosk"]
    assert set(kiosk) == KioskShown.__required_keys__
    assert set(kiosk["coach"]) == Coach.__required_keys__
    assert kiosk["alert"] is not None and set(kiosk["alert"]) == KioskAlert.__required_keys__
    # Laid back: not played again.
    assert table.kiosk.from_camera(CardLaid(card, "play:S", 21, 0.0, 0.0, 0.0)) is None
    # A card laid in a bot's zone, or one that is not the visitor's: refused, with why.
    with pytest.raises(InputRefused, match="bot"):
        table.kiosk.from_camera(CardLaid(Card.parse("AH"), "play:N", 22, 0.0, 0.0, 0.0))
    hand = game.hand
    assert hand is not None
    other = next(c for c in hand.known[N] or ())
    with pytest.raises(InputRefused, match="not one of your cards"):
        table.kiosk.from_camera(CardLaid(other, "play:S", 23, 0.0, 0.0, 0.0))
    table.log.close()


def test_two_visitors_each_lay_their_own_five(tmp_path: Path) -> None:
    config = kiosk_config(tmp_path, visitors=["N", "S"], bot_level="rule-of-thumb", bot_pace=0.0)
    table, _, people = simulated_kiosk(config, seed=11, attract=False, serve_page=False)
    taken: dict[Seat, set[Card]] = {}

    def step(event: InputEvent, outputs: list[OutputEvent]) -> None:
        if isinstance(event, HandDealt) and not taken:
            world = people[S].world  # held, or still lying in the play zone to be read
            taken.update({s: {*world.held[s], *world.in_zone(f"play:{s}")} for s in people})

    table.on_step = step
    running = Running(table)  # (Playwright's loop may hold this thread: a thread of its own)
    try:
        running.until("a hand played", lambda: table.hands_played >= 1)
    finally:
        running.close()
    dealt = next(e for e in table.game.log if isinstance(e, HandDealt))
    # The visitors' hands are the cards they took and laid; the bots' come from the rest.
    assert {seat: set(dealt.hands[seat]) for seat in (N, S)} == taken
    assert all(len(dealt.hands[seat]) == 5 for seat in (E, W))
    assert table.hands_played == 1


def test_the_bots_choose_the_remedy_for_a_visitor_s_bid_out_of_turn(tmp_path: Path) -> None:
    import random

    from table_controller.vision.tracker import CardLaid

    config = kiosk_config(tmp_path)
    table = KioskTable(config, TableOptions(serve_page=False), seed=5, attract=False)
    game = table.game
    dealt = None
    for i, code in enumerate(("9S", "TS", "JS", "QS", "KS")):
        dealt = table.kiosk.from_camera(CardLaid(Card.parse(code), "play:S", i, 0.0, 0.0, 0.0))
    assert dealt is not None
    game.push(dealt)
    if game.to_act is S:  # S must not be first to bid: let it pass, then round the table
        game.push(Passed(S))
    game.push(OrderedUp(S))  # out of turn: these rules penalise it, the bots' side chooses
    assert game.phase is Phase.CHOOSING_REMEDY
    seat = table.kiosk.bots.to_act()
    assert seat in (E, W)
    event = table.kiosk.bots.choose(list(game.log), seat, random.Random(1))
    game.push(event)
    assert game.phase is not Phase.CHOOSING_REMEDY
    table.log.close()


def test_the_kiosk_command_makes_a_pin_and_wants_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import io

    from table_controller.cli import main
    from table_controller.table.config import load_config, to_toml

    monkeypatch.setattr("sys.stdin", io.StringIO("97531\n"))
    out = io.StringIO()
    assert main(["kiosk", "pin", "--pin-stdin"], out=out) == 0
    line = out.getvalue().strip()
    assert line.startswith('pin_hash = "pbkdf2-sha256$') and "97531" not in line
    assert verify_pin("97531", line.split('"')[1])
    # A kiosk without a PIN does not start, and says what to do.
    config = kiosk_config(tmp_path, pin_hash="")
    path = tmp_path / "kiosk.toml"
    text = to_toml(config).replace('source = "synthetic"', 'source = "usb:0"')
    path.write_text(text, encoding="utf-8")
    assert load_config(path).kiosk.visitors == (S,)
    assert main(["kiosk", "--config", str(path)], out=io.StringIO()) == 2
    assert "kiosk pin" in capsys.readouterr().err


# --- the seat light asks a visitor for their five cards ------------------------------------


def test_the_seat_light_asks_the_visitor_to_lay_their_cards(tmp_path: Path) -> None:
    import time

    from table_controller.devices.gpio import GpioBackend, make_pin_factory
    from table_controller.table.devices import TableDevices

    config = kiosk_config(tmp_path, bot_level="rule-of-thumb", bot_pace=0.0)
    factory = make_pin_factory(GpioBackend.SIMULATED)
    devices = TableDevices(config, clock=time.monotonic, pin_factory=factory)
    table, _, people = simulated_kiosk(
        config, seed=2, attract=False, serve_page=False, devices=devices
    )
    go = threading.Event()
    people[S].hold = lambda game: not go.is_set()  # the visitor has not come to the table
    running = Running(table)
    try:
        running.until("the lights are on", lambda: table.devices.lights is not None)
        lights = table.devices.lights
        assert lights is not None
        running.until("S is asked for cards", lambda: lights.shown[S] is SeatLight.LAY_CARDS)
        assert all(lights.shown[seat] is not SeatLight.LAY_CARDS for seat in (N, E, W))
        # On the pins: S's light blinks white, each of its three legs on and off.
        legs = [factory.pin(number) for number in config.pins.seat(S).led]
        marks = [len(pin.states) for pin in legs]

        def blinked() -> bool:
            return all(
                {round(float(s.state), 3) for s in pin.states[mark - 1 :]} >= {0.0, 1.0}
                for pin, mark in zip(legs, marks, strict=True)
            )

        running.until("S's light blinks white", blinked)
        go.set()  # the visitor lays their five; the kiosk deals; the light has done its job
        running.until("the deal", lambda: table.game.deals > 0)
        running.until("S is no longer asked", lambda: lights.shown[S] is not SeatLight.LAY_CARDS)
        assert table.sinks.shown_lights is not None
        assert SeatLight.LAY_CARDS not in table.sinks.shown_lights
    finally:
        running.close()
        factory.close()


# --- a restart: killed mid-hand, started again on the same log ----------------------------


def test_a_kiosk_killed_mid_hand_carries_the_same_hand_on(tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import sys

    from table_controller.kiosk.kiosk_cli import simulated_config

    exe = Path(sys.executable).parent / "table-controller"
    folder = tmp_path / "kiosk"
    command = [str(exe), "kiosk", "--simulated", "--fast", "--seed", "3", "--log-dir"]
    proc = subprocess.Popen([*command, str(folder)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    path = folder / "kiosk.sqlite"

    def logged() -> tuple[int, list[InputEvent]]:
        with EventLog.open_existing(path) as log:
            record = log.last_game()
            if record is None:  # (not yet begun)
                return 0, []
            return record.game, [e.event for e in log.events(record.game)]

    def mid_hand() -> bool:
        if not path.exists():
            return False
        _, events = logged()
        dealt = [i for i, e in enumerate(events) if isinstance(e, HandDealt)]
        return bool(dealt) and sum(isinstance(e, CardPlayed) for e in events[dealt[-1] :]) >= 2

    def exited() -> BaseException | None:
        if proc.poll() is None:
            return None
        return RuntimeError(proc.stderr.read() if proc.stderr else f"exit {proc.returncode}")

    try:  # until cards are played in a hand: then the power goes
        until_or_stopped("two cards played in a hand", mid_hand, exited, GUARD, "the kiosk")
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=30)
    game_no, before = logged()
    was = Game.replay(kiosk_config(tmp_path).rules, before)
    assert was.phase is Phase.PLAYING and was.hand is not None, "killed between hands"
    number, deal = was.hand.number, next(e for e in reversed(before) if isinstance(e, HandDealt))
    # Started again on the same log: the same game, the same hand, the bots' hands too.
    config = simulated_config(folder, fast=True)
    table, _, _ = simulated_kiosk(config, seed=3, attract=False, serve_page=False)
    assert table.game_no == game_no and table.game.log == before
    hand = table.game.hand
    assert hand is not None and hand.number == number
    assert all(hand.known[seat] is not None for seat in (N, E, W))
    assert any("restarted" in n.text for n in table.shown.notices)
    running = Running(table)
    try:
        running.until("the hand is played out", lambda: table.hands_played >= 1)
    finally:
        running.close()
    game_after, after = logged()
    assert game_after == game_no and after[: len(before)] == before  # carried on, not redone
    assert sum(e == deal for e in after) == 1  # the hand was not dealt again
    replayed = Game.replay(table.game.rules, after)
    assert replayed.state_key() == table.game.state_key()
    assert replayed.hands_counted >= number


def test_a_hand_that_cannot_go_on_starts_a_new_game_and_keeps_the_old(tmp_path: Path) -> None:
    config = kiosk_config(tmp_path)
    c = Card.parse
    mine = tuple(c(code) for code in ("9S", "TS", "JS", "QS", "KS"))
    with EventLog(config.log, table="Kiosk") as log:  # a club table's log: one hand known
        game_no = log.start_game(config.rules_name, config.options, config.players)
        log.append(game_no, 1, DealerChosen(W), source="director")
        log.append(game_no, 2, HandDealt(upcard=c("9H"), hands={S: mine}), source="camera")
    table = KioskTable(config, TableOptions(serve_page=False), seed=1, attract=False)
    try:
        assert table.game_no > game_no and table.game.deals == 0  # a fresh deal
        assert any("could not go on" in n.text for n in table.shown.notices)
        with EventLog.open_existing(config.log) as log:
            assert len(log.events(game_no)) == 2  # the old game's events are kept
            assert any("cannot go on" in (f[2] or "") for f in log.faults())
    finally:
        table.log.close()


def test_the_kiosk_has_its_icon(tmp_path: Path, browser: Browser) -> None:
    config = kiosk_config(tmp_path)
    table, _, _ = simulated_kiosk(config, seed=3)
    running = Running(table)
    try:
        running.until("the page is served", lambda: table.url is not None)
        the_icon_is_served(browser, table.url or "")
    finally:
        running.close()
