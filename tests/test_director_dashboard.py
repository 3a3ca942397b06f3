"""The director's dashboard made for a room, in a real browser at 1920x1080: four real
simulated tables' games (one with a renege) arrive through a real mosquitto; the
dashboard names each table, says its score by its players, its phase, whose turn and
trump in words; the renege alert is a sentence with card faces and opens the two
pictures side by side, each at least 300 px wide, with the rule quoted; a ruling is
only offered after login and once an alert is chosen, each choice saying what it does
and what the alert knows filled in (nothing chosen for the director), and the table
applies it. Screenshots: test-artifacts/dashboard*.png (the
ones in docs/images are these)."""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect
from test_director_service import client, publish, topic, wait_until
from test_director_store import TABLE, feed_messages, real_game
from test_director_web import ARTIFACTS, World, log_in_page

from table_controller.rules.events import RenegeClaimed
from table_controller.rules.hand import Phase
from table_controller.sim.loadgen import RulesTable

CODES = re.compile(r"\b[a-z]+_[a-z_]+\b|\b(?:[9TJQKA]|10)[CDHS]\b")  # hand_dealt, JH, 10C
ROOM = {"width": 1920, "height": 1080}
# id, name, players N E S W, the game's seed, how many of its messages have arrived
TABLES: list[tuple[str, str, list[str], int]] = [
    ("table-1", "Table 1", ["Eve", "Finn", "Gail", "Hugo"], 2),
    ("table-2", "Table 2", ["Ivy", "Kurt", "Lena", "Milo"], 3),
    (TABLE, "Table 3", ["Ann", "Bo", "Cy", "Di"], 1),
    ("table-4", "Table 4", ["Nora", "Otto", "Pia", "Quinn"], 4),
]


def status(table: str, name: str, players: list[str], **extra: Any) -> dict[str, Any]:
    return {
        "v": 1,
        "table": table,
        "name": name,
        "online": True,
        "at": time.time(),
        "every": 30,
        "game": 1,
        "hand": 1,
        "phase": "playing",
        "scores": [0, 0],
        "players": dict(zip("NESW", players, strict=True)),
        "faults": [],
        "backlog": 0,
        "rules": {"name": "td-tournament", "options": {}},
        **extra,
    }


def mid_play(
    folder: Path, table: str, seed: int, plays: int, *, claim: bool = False
) -> list[dict[str, Any]]:
    """A game of random legal plays (the load generator's table: no camera, so fast),
    as feed messages, up to ``plays`` cards into its second hand's play; with ``claim``,
    then the second player of that hand's first trick is claimed to have reneged."""
    log = folder / f"{table}.sqlite"
    rules_table = RulesTable(log, name=table, seed=seed)
    played = 0
    while played < plays:
        rules_table.step()
        game = rules_table.game
        assert game is not None
        hand = game.hand
        if hand is not None and hand.number == 2 and game.phase is Phase.PLAYING:
            played = sum(len(t.plays) for t in [*hand.tricks, hand.trick] if t is not None)
    if claim:
        assert rules_table.game is not None and rules_table.game_no is not None
        first = rules_table.game.hand.tricks[0] if rules_table.game.hand else None
        assert first is not None
        against = first.plays[1][0]  # the second to play, claimed by the next opponent
        event = RenegeClaimed(against.left, against, 1)
        rules_table.game.push(event)
        game_no = rules_table.game_no
        rules_table.log.append(game_no, rules_table.log.next_seq(game_no), event, source="button")
    rules_table.close()
    messages, _ = feed_messages(log, table)
    return messages


class Room:
    """The director's world with four tables fed: three playing, one with a renege."""

    def __init__(self, world: World, folder: Path) -> None:
        self.world = world
        self.feed = client(world.broker, "room-feed")
        self.images: dict[tuple[str, int, int], bytes] = {}
        self.messages: dict[str, list[dict[str, Any]]] = {}
        for n, (table, name, players, seed) in enumerate(TABLES):
            images: dict[tuple[int, int], bytes] = {}
            if table == TABLE:
                messages, images = real_game()
            else:
                messages = mid_play(folder, table, seed, 5 if n == 0 else 1 + n % 3, claim=n == 0)
            messages = [{**m, "table": table} for m in messages]
            self.messages[table] = messages
            publish(self.feed, topic("status", table), status(table, name, players), retain=True)
            for m in messages:
                if m["evidence"] and (m["game"], m["seq"]) in images:
                    png = images[(m["game"], m["seq"])]
                    publish(self.feed, topic(f"evidence/{m['game']}/{m['seq']}", table), png)
                    self.images[(table, m["game"], m["seq"])] = png
                publish(self.feed, topic("events", table), m)
        # The tables' heartbeats go on, as a table's do (a ruling not yet acknowledged is
        # sent again when one comes): table 4's stops when it goes offline.
        self.beating = {t: status(t, n, p) for t, n, p, _ in TABLES}
        self._stop = threading.Event()
        self._beat = threading.Thread(target=self._heartbeats, daemon=True)
        self._beat.start()
        store = world.store
        wait_until(
            "every event and picture stored",
            lambda: (
                store.events.count_events() == sum(len(m) for m in self.messages.values())
                and all(store.events.evidence(t, g, s) for t, g, s in self.images)
            ),
        )

    def _heartbeats(self) -> None:
        while not self._stop.wait(2.0):
            for table, beat in list(self.beating.items()):
                beat = {**beat, "at": time.time()}
                self.feed.publish(topic("status", table), json.dumps(beat), qos=1, retain=True)

    def offline(self, table: str) -> None:
        """The table goes: its heartbeat stops and its last will is published."""
        self.beating.pop(table, None)
        publish(self.feed, topic("status", table), {"v": 1, "table": table, "online": False})

    def close(self) -> None:
        self._stop.set()
        self._beat.join()
        self.feed.loop_stop()
        self.feed.disconnect()


@pytest.fixture
def room(tmp_path: Path) -> Iterator[Room]:
    world = World(tmp_path)
    r = Room(world, tmp_path)
    yield r
    r.close()
    world.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport=ROOM)
    p = context.new_page()
    errors: list[str] = []
    p.on("pageerror", lambda exc: errors.append(str(exc)))
    yield p
    context.close()
    assert not errors, f"the page's script failed: {errors}"


def visible_text(page: Page) -> str:
    return str(page.evaluate("document.body.innerText"))


def no_codes(text: str) -> None:
    found = CODES.findall(text)
    assert not found, f"codes shown to the director: {found}"


def box(page: Page, selector: str) -> dict[str, float]:
    found = page.locator(selector).bounding_box()
    assert found is not None, selector
    return found


@pytest.mark.slow(budget=60)
def test_the_dashboard_for_a_room_and_a_renege_ruled_from_its_alert(room: Room, page: Page) -> None:
    page.goto(room.world.served.url)
    # Before login: no data, and no ruling form anywhere.
    expect(page.locator("#login-form")).to_be_visible()
    expect(page.locator("#ruling-form")).to_have_count(0)
    log_in_page(page)
    expect(page.locator("#tables [data-table]")).to_have_count(4)
    # Each table by its name, its score by its players, the rest in words.
    for table, name, players, _ in TABLES:
        card = page.locator(f'#tables [data-table="{table}"]')
        expect(card.locator(".title")).to_have_text(name)
        expect(card).to_contain_text(f"{players[0]} & {players[2]}")
        expect(card).to_contain_text(f"{players[1]} & {players[3]}")
    playing = page.locator('#tables [data-table="table-2"]')
    expect(playing).to_contain_text("Playing")
    expect(playing.locator(".turn")).to_contain_text(re.compile(r"(Ivy|Kurt|Lena|Milo) \("))
    expect(playing.locator(".trump")).to_contain_text(
        re.compile("[♣♦♥♠] (Clubs|Diamonds|Hearts|Spades)")
    )
    # The renege: one sentence, with the table's name, the player's, and card faces.
    alert = page.locator('#alerts [data-kind="renege_proven"]')
    expect(alert).to_have_count(1)
    expect(alert).to_contain_text(
        "Table 3: Cy (South) did not follow ♣ clubs in trick 1, playing the J♥ while "
        "holding the 10♣ (the 10♣ was played in trick 2)"
    )
    # A renege claimed: the claim in words, the trick it names card by card.
    claim = page.locator('#alerts [data-kind="renege_claimed"]')
    who = r"(Eve|Finn|Gail|Hugo) \((North|East|South|West)\)"
    expect(claim).to_contain_text(re.compile(f"Table 1: {who} claims {who} reneged in trick 1"))
    claim.locator(".open-alert").click()
    trick = page.locator("#alert-detail .evidence-trick figure")
    expect(trick.first).to_contain_text("Trick 1: ")
    assert trick.count() in (3, 4)  # 3 when a loner's partner sits out
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "dashboard-claim.png"))
    expect(page.locator("#alert-detail .rule-text")).to_contain_text("RENEGE")
    no_codes(visible_text(page))
    page.click("#alert-detail-close")
    # A table goes away: its card and an alert say so.
    room.offline("table-4")
    expect(page.locator('#tables [data-table="table-4"]')).to_contain_text("OFFLINE")
    expect(page.locator('#alerts [data-kind="offline"]')).to_contain_text("Table 4 is offline")
    # Every section that has nothing to show is not shown: no event yet, only its call.
    expect(page.locator("#event-create-heading")).to_have_text("Create the event")
    expect(page.locator("#event-body")).to_be_hidden()
    expect(page.locator("#ruling-form")).to_have_count(0)
    no_codes(visible_text(page))
    sizes = page.evaluate(
        """() => Object.fromEntries(Object.entries({body: "body", title: ".table-card .title",
            names: ".team .names", points: ".team .points"}).map(([k, s]) =>
            [k, parseFloat(getComputedStyle(document.querySelector(s)).fontSize)]))"""
    )
    assert sizes["body"] >= 18 and sizes["names"] >= 22 and sizes["points"] >= 30, sizes
    assert sizes["title"] >= 26, sizes
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "dashboard.png"))
    page.set_viewport_size({"width": 1366, "height": 768})  # a laptop
    expect(page.locator("#tables [data-table]").first).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "dashboard-laptop.png"))
    page.set_viewport_size(ROOM)

    # The alert's evidence: side by side, each at least 300 px wide, the rule quoted.
    alert.locator(".open-alert").click()
    panel = page.locator("#alert-detail")
    expect(panel).to_be_visible()
    offence, proof = "#alert-detail img.evidence-offence", "#alert-detail img.evidence-proof"
    for img in (offence, proof):
        wait_until(
            "the picture loaded",
            lambda img=img: page.locator(img).evaluate("i => i.complete && i.naturalWidth > 0"),
        )
        assert page.locator(img).evaluate("i => i.naturalWidth") >= 300  # the crop itself
    left, right = box(page, offence), box(page, proof)
    assert left["width"] >= 300 and right["width"] >= 300
    assert left["x"] + left["width"] <= right["x"] and abs(left["y"] - right["y"]) < 2
    expect(panel.locator("figcaption").first).to_have_text("Trick 1: Cy played the J♥")
    expect(panel.locator("figcaption").nth(1)).to_have_text("Proof: trick 2, Cy played the 10♣")
    expect(panel.locator(".rule-text")).to_contain_text(
        "RENEGE: - There are no exceptions to the ruling for a Renege"
    )
    no_codes(visible_text(page))
    page.screenshot(path=str(ARTIFACTS / "dashboard-alert.png"))

    # The ruling, offered from the alert: nothing is chosen for the director, but each
    # choice says what it does, and what the alert knows is filled in when it is chosen.
    form = page.locator("#ruling-form")
    expect(form).to_have_count(1)
    expect(page.locator("#ruling-kind .choice")).to_have_text(
        [
            "Uphold: East–West (Bo & Di) keep the 2 points the renege gave them",
            "Dismiss: East–West (Bo & Di) lose the 2 points the renege gave them (−2)",
            re.compile("^Adjust the score"),
            re.compile(r"^Void the hand in play \(game 1, hand \d\)"),
        ]
    )
    expect(page.locator("#ruling-kind input:checked")).to_have_count(0)
    expect(page.locator("#ruling-where")).to_contain_text("The renege: game 1, hand 1.")
    for field in ("#ruling-team", "#ruling-points", "#ruling-reason", "#ruling-send"):
        expect(page.locator(field)).to_be_hidden()
    page.check('#ruling-kind input[value="dismiss_renege"]')
    expect(page.locator("#ruling-team")).to_have_value("EW")
    expect(page.locator("#ruling-team option:checked")).to_have_text("East–West (Bo & Di)")
    expect(page.locator("#ruling-points")).to_have_value("-2")
    expect(page.locator("#ruling-reason")).to_have_value("")  # the why is the director's
    assert not re.search(r"\b(NS|EW)\b", form.inner_text()), form.inner_text()
    no_codes(visible_text(page))
    page.fill("#ruling-reason", "the 10♣ was misread: it was the 10♠")
    form.screenshot(path=str(ARTIFACTS / "dashboard-ruling.png"))
    page.click("#ruling-send")
    expect(page.locator("#ruling-result")).to_contain_text("applied")
    (sent,) = room.world.rulings
    assert sent["table"] == TABLE and sent["kind"] == "dismiss_renege"
    assert sent["event"]["team"] == "EW" and sent["event"]["points"] == -2
    page.click("#alert-detail-close")
    expect(page.locator('#alerts [data-kind="renege_proven"]')).to_have_count(0)


@pytest.mark.slow(budget=40)
def test_a_tables_detail_and_history_are_in_words_with_pictures_in_the_page(
    room: Room, page: Page
) -> None:
    page.goto(room.world.served.url)
    log_in_page(page)
    page.locator(f'#tables [data-table="{TABLE}"]').click()
    expect(page.locator("#detail-name")).to_have_text("Table 3")
    expect(page.locator("#history li")).to_have_count(len(room.messages[TABLE]))
    history = page.locator("#history")
    expect(history).to_contain_text("Ann (North) is dealt the J♠ face up")
    expect(history).to_contain_text("Ann (North) deals first (first jack)")
    expect(history).to_contain_text("Cy (South) plays the J♥")
    no_codes(visible_text(page))
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "dashboard-table.png"), full_page=True)
    # No ruling form until the director asks for one at this table.
    expect(page.locator("#ruling-form")).to_have_count(0)
    page.click("#detail-rule")
    expect(page.locator("#detail-ruling #ruling-form")).to_have_count(1)
    expect(page.locator("#ruling-kind .choice").nth(1)).to_have_text(
        "Dismiss the renege: give back its penalty (choose the team and the points)"
    )
    expect(page.locator("#ruling-kind input:checked")).to_have_count(0)
    expect(page.locator("#ruling-team option")).to_have_text(
        ["Choose the team…", "North–South (Ann & Cy)", "East–West (Bo & Di)"]
    )
    # A picture opens in the page, large.
    history.locator("button.picture").first.click()
    expect(page.locator("#lightbox")).to_be_visible()
    wait_until(
        "the picture loaded",
        lambda: page.locator("#lightbox-image").evaluate("i => i.complete && i.naturalWidth > 0"),
    )
    assert box(page, "#lightbox-image")["width"] >= 600
    page.keyboard.press("Escape")
    expect(page.locator("#lightbox")).to_be_hidden()


def test_every_table_carries_its_title_in_the_overview(room: Room) -> None:
    """``title`` is the status's name; the words are made on the server."""
    snap = room.world.served.page.overview()
    by_id = {t["table"]: t for t in snap["tables"]}
    assert {t: by_id[t]["title"] for t, *_ in TABLES} == {t: n for t, n, *_ in TABLES}
    for t in snap["tables"]:
        assert t["phase_text"] and not CODES.search(t["phase_text"])
    (renege,) = [a for a in snap["alerts"] if a["kind"] == "renege_proven"]
    assert renege["category"] == "renege_proven" and renege["sentence"].startswith("Table 3: ")


@pytest.mark.slow(budget=60)
def test_a_picture_that_arrives_after_the_alert_is_opened_is_shown(
    tmp_path: Path, page: Page
) -> None:
    """A renege's alert can come before its pictures (they travel on topics of their
    own): the panel opened early says the picture has not been received, and shows it
    when it comes, leaving the ruling form as the director left it."""
    world = World(tmp_path)
    feed = client(world.broker, "late-feed")
    try:
        messages, images = real_game()
        messages = [{**m, "table": TABLE} for m in messages]
        publish(feed, topic("status", TABLE), status(TABLE, "Table 3", ["Ann", "Bo", "Cy", "Di"]))
        for m in messages:
            publish(feed, topic("events", TABLE), m)
        wait_until("the events stored", lambda: world.store.events.count_events() == len(messages))
        page.goto(world.served.url)
        log_in_page(page)
        alert = page.locator('#alerts [data-kind="renege_proven"]')
        expect(alert).to_have_count(1)
        alert.locator(".open-alert").click()
        expect(page.locator("#alert-detail .evidence-offence-missing")).to_contain_text(
            "has not been received yet"
        )
        page.locator("#ruling-form").evaluate("f => f.dataset.mark = 'the one opened'")
        for (game, seq), png in images.items():
            publish(feed, topic(f"evidence/{game}/{seq}", TABLE), png)
        offence = page.locator("#alert-detail img.evidence-offence")
        expect(offence).to_be_visible(timeout=60_000)  # a hang guard: it comes at once
        expect(page.locator("#alert-detail .evidence-offence-missing")).to_have_count(0)
        expect(page.locator("#ruling-form")).to_have_attribute("data-mark", "the one opened")
    finally:
        feed.loop_stop()
        feed.disconnect()
        world.close()
