"""Attacks on a table's page (issue 14), each against a real table: the real ``Table``
with its page served by uvicorn on a loopback port, reached over HTTP. Nothing changes a
score but the cards, the seat inputs and a signed ruling (or the table's own operator
after the PIN); every refusal is answered with a one-line problem, logged, and noted in
the table's log with the sender's address. No test asserts how long anything takes."""

from __future__ import annotations

import http.client
import json
import logging
import random
import urllib.parse
from collections.abc import Iterator
from email.message import Message
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from waiting import InThread

from table_controller import simulate
from table_controller.cards import Card
from table_controller.event_log import EventLog
from table_controller.rules.codec import INPUT_BY_NAME
from table_controller.rules.events import HandDealt, Passed, RenegeClaimed, ScoreAdjusted
from table_controller.rules.game import Game, Phase
from table_controller.rules.presets import preset
from table_controller.seats import Seat, Team
from table_controller.sim import World, WorldCamera
from table_controller.table.app import Table
from table_controller.table.config import TableConfig, parse_config
from table_controller.table.inputs import InputRefused, from_page
from table_controller.table.noticed import Ruled
from table_controller.table.options import TableOptions
from table_controller.table.page import door as page_door
from table_controller.vision.synthetic import Effects
from table_controller.web.guard import COOKIE, OperatorSessions
from table_controller.web.pin import hash_pin
from table_controller.web.roles import CAMERA, DIRECTOR, SEAT

GUARD = 60.0  # seconds: only against a hang
PIN = "2580"
PIN_HASH = hash_pin(PIN, iterations=1000)
UPCARD = Card.parse("9H")
JSON_TYPE = "application/json"


def table_config(folder: Path, **web: Any) -> TableConfig:
    """A table with W the first dealer; [web] host left to its default."""
    data: dict[str, Any] = {
        "table": {"name": "Table 7", "gpio": "mock", "log": "table.sqlite", "first_dealer": "W"},
        "camera": {"source": "synthetic", "lost_after": 60.0, "drift_check": 0},
        "cube": {"port": "none"},
        "web": {"port": 0, **web},
    }
    return parse_config(data, folder, "<security test>")


class Running(InThread):
    """A real table run in its own event loop on a thread; the test speaks HTTP to it."""

    def __init__(self, table: Table) -> None:
        super().__init__(table, "the table", GUARD)
        self.until("the page is served", lambda: table.url is not None)
        url = urllib.parse.urlsplit(table.url)
        self.host, self.port = url.hostname or "", url.port or 0
        self.origin = f"http://{self.host}:{self.port}"

    def deal(self) -> None:
        """The deal, as the camera would see its upcard: N is to bid."""
        self.table.submit_threadsafe(Ruled(HandDealt(UPCARD)))
        self.until("the deal", lambda: self.table.game.phase is Phase.BIDDING)

    def send(
        self,
        path: str,
        body: bytes | str = b"",
        *,
        method: str = "POST",
        kind: str | None = JSON_TYPE,
        origin: str | None = "own",
        cookie: str | None = None,
        host: str | None = None,
        source: str | None = None,
    ) -> tuple[int, Any, Message]:
        """One request; ``origin="own"`` is the page's own, as its browser sends it;
        ``source``: from that loopback address (127.0.0.2: another machine)."""
        headers: dict[str, str] = {}
        if kind is not None:
            headers["Content-Type"] = kind
        if origin is not None:
            headers["Origin"] = self.origin if origin == "own" else origin
        if cookie is not None:
            headers["Cookie"] = f"{COOKIE}={cookie}"
        if host is not None:
            headers["Host"] = host
        bind = (source, 0) if source is not None else None
        conn = http.client.HTTPConnection(self.host, self.port, timeout=GUARD, source_address=bind)
        try:
            data = body.encode() if isinstance(body, str) else body
            conn.request(method, path, body=data if method == "POST" else None, headers=headers)
            answer = conn.getresponse()
            raw = answer.read()
            try:
                reply = json.loads(raw)
            except ValueError:
                reply = raw
            return answer.status, reply, answer.headers
        finally:
            conn.close()


def start(config: TableConfig) -> Running:
    world = World(effects=Effects())
    table = Table(config, TableOptions(camera=lambda: WorldCamera(world, fps=5.0, realtime=True)))
    return Running(table)


@pytest.fixture
def quiet_never(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every refused request gets its own line in the table's log (not one per 10 s)."""
    monkeypatch.setattr(page_door, "REFUSALS_QUIET", 0.0)


@pytest.fixture
def running(tmp_path: Path, quiet_never: None) -> Iterator[Running]:
    server = start(table_config(tmp_path, operator_pin_hash=PIN_HASH))
    server.deal()
    yield server
    server.close()


def noted(running: Running) -> list[str]:
    """The refusals the table's log holds."""
    with EventLog.open_existing(running.table.config.log) as log:
        return [f[2] or "" for f in log.faults() if f[1] == "notice"]


def refused_and_logged(
    running: Running,
    caplog: pytest.LogCaptureFixture,
    answer: tuple[int, Any, Message],
    status: int,
    words: str,
) -> None:
    """The answer is ``status`` with a one-line problem holding ``words``; python's log
    and the table's log both have it, with the address it came from."""
    code, reply, _ = answer
    assert code == status, reply
    assert reply["ok"] is False and words in reply["problem"], reply
    assert "\n" not in reply["problem"] and reply["fix"]
    assert any(
        "refused POST" in r.getMessage() and "127.0.0.1" in r.getMessage() and words in r.message
        for r in caplog.records
    ), [r.getMessage() for r in caplog.records]
    line = f"the page refused a request from 127.0.0.1: {reply['problem']}"
    running.until("the refusal in the table's log", lambda: line in noted(running))


def untouched(running: Running) -> None:
    game = running.table.game
    assert game.log[-1] == HandDealt(UPCARD) and game.team_scores() == (0, 0)


SCORE = {"event": "score_adjusted", "team": "NS", "points": 5, "reason": "I say so"}
VOID = {"event": "hand_voided", "reason": "I say so"}
CARD = {"event": "card_played", "seat": "N", "card": "JH"}


# --- the director's events and cards, without a login ----------------------------------------


def test_the_director_s_events_and_cards_are_refused_from_the_page(
    running: Running, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    for event in (SCORE, VOID):
        answer = running.send("/api/input", json.dumps(event))
        refused_and_logged(running, caplog, answer, 403, f"{event['event']} is the director's")
        assert "operator's PIN" in answer[1]["fix"] and "signed ruling" in answer[1]["fix"]
    answer = running.send("/api/input", json.dumps(CARD))
    refused_and_logged(running, caplog, answer, 403, "cards are read by the camera")
    # Without an Origin (a program, not a browser) it is the same.
    answer = running.send("/api/input", json.dumps(SCORE), origin=None)
    refused_and_logged(running, caplog, answer, 403, "score_adjusted is the director's")
    untouched(running)
    snapshot = running.table.snapshot()
    assert snapshot is not None
    assert any("refused a request from 127.0.0.1" in n["text"] for n in snapshot["notices"])


def test_a_renege_claim_is_a_seat_s_own(running: Running, caplog: pytest.LogCaptureFixture) -> None:
    """003 RENEGE: "If a renege is alleged but ultimately not proven, the team falsely
    accused by their opponent's scores 2 points" -- a claim is a player's, so the page
    takes it, but only as the claiming seat's own: from no seat, or another's, it is
    refused (a claim that is judged false scores points)."""
    caplog.set_level(logging.WARNING)
    claim = {"event": "renege_claimed", "by": "N", "against": "E"}
    for seat in (None, "S"):
        body = claim if seat is None else {**claim, "seat": seat}
        code, reply, _ = running.send("/api/input", json.dumps(body))
        assert code == 409 and "must come from North's seat" in reply["problem"]
    untouched(running)
    assert any(
        line.startswith("refused (page from 127.0.0.1, seat S): a renege claim by North must come")
        for line in noted(running)
    ), noted(running)


def test_a_claim_from_the_claiming_seat_goes_to_the_rules() -> None:
    """The same claim from N's own seat is taken and judged by the rules from the cards."""
    rules = preset("td-tournament")
    game = Game(rules)
    for event, _ in simulate.play(rules, random.Random(4)):
        game.push(event)
        if game.phase is Phase.PLAYING and game.hand is not None and game.hand.tricks:
            break
    claim = {"event": "renege_claimed", "by": "N", "against": "E", "seat": "N"}
    assert from_page(game, claim) == RenegeClaimed(Seat.N, Seat.E)
    with pytest.raises(InputRefused, match="the director's"):
        from_page(game, SCORE)
    with pytest.raises(InputRefused, match="camera"):
        from_page(game, CARD, operator=True)  # not even the operator lays a card
    assert from_page(game, SCORE, operator=True) == ScoreAdjusted(Team.NS, 5, "I say so")


def test_every_input_event_has_one_way_in() -> None:
    assert set(INPUT_BY_NAME) == SEAT | CAMERA | DIRECTOR
    assert not (SEAT & CAMERA or SEAT & DIRECTOR or CAMERA & DIRECTOR)


# --- what a foreign web page can send --------------------------------------------------------


def test_simple_requests_and_foreign_origins_are_refused(
    running: Running, caplog: pytest.LogCaptureFixture
) -> None:
    """What any page a visitor's browser opens can send without asking: text/plain or a
    form (415), a JSON body from another origin (403), or the table reached under a
    foreign name (DNS rebinding, 403). Not even a seat's pass gets in that way."""
    caplog.set_level(logging.WARNING)
    pass_n = json.dumps({"event": "passed", "seat": "N"})
    for kind in (
        "text/plain",
        "text/plain;charset=UTF-8",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        None,
    ):
        for body in (json.dumps(SCORE), pass_n):
            answer = running.send("/api/input", body, kind=kind)
            refused_and_logged(running, caplog, answer, 415, "not application/json")
    for origin in ("http://evil.example", "null", f"http://127.0.0.1:{running.port + 1}"):
        answer = running.send("/api/input", pass_n, origin=origin)
        refused_and_logged(running, caplog, answer, 403, "another site's page")
    evil = f"evil.example:{running.port}"
    answer = running.send("/api/input", pass_n, origin=f"http://{evil}", host=evil)
    refused_and_logged(running, caplog, answer, 403, "not by this table's address")
    answer = running.send("/api/operator/login", json.dumps({"pin": PIN}), kind="text/plain")
    refused_and_logged(running, caplog, answer, 415, "not application/json")
    untouched(running)


def test_deep_json_and_huge_numbers_are_a_400_not_a_500(
    running: Running, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    deep = '{"event": "passed", "seat": "N", "x": ' + "[" * 5000 + "]" * 5000 + "}"
    answer = running.send("/api/input", deep)
    refused_and_logged(running, caplog, answer, 400, "nested more than 32 levels deep")
    huge = '{"event": "score_adjusted", "team": "NS", "points": ' + "9" * 5000 + ', "reason": "x"}'
    answer = running.send("/api/input", huge)
    refused_and_logged(running, caplog, answer, 400, "5,000 digits")
    assert "9999" not in answer[1]["problem"]
    answer = running.send("/api/input", b"x" * 20_000)
    refused_and_logged(running, caplog, answer, 413, "too large")
    untouched(running)


# --- the legitimate flows ---------------------------------------------------------------


def test_a_seat_s_pass_from_the_page_is_taken(running: Running) -> None:
    code, reply, _ = running.send("/api/input", json.dumps({"event": "passed", "seat": "N"}))
    assert (code, reply) == (200, {"ok": True})
    assert running.table.game.log[-1] == Passed(Seat.N)
    # A program (no Origin, JSON) is a seat too: the same as its button.
    body = json.dumps({"event": "passed", "seat": "E"})
    assert running.send("/api/input", body, origin=None)[0] == 200
    assert running.table.game.log[-1] == Passed(Seat.E)


def test_the_operator_after_the_pin(running: Running, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    now = [1_000_000.0]
    running.table.page.sessions = OperatorSessions(seconds=900, clock=lambda: now[0])
    code, reply, _ = running.send("/api/operator", method="GET", kind=None)
    assert (code, reply) == (200, {"pin": True, "operator": False})
    # A wrong PIN: refused, recorded, counted.
    code, reply, _ = running.send("/api/operator/login", json.dumps({"pin": "1111"}))
    assert code == 403 and reply["problem"] == "wrong PIN"
    assert any("a wrong operator PIN from 127.0.0.1" in line for line in noted(running))
    # The right PIN: a signed session cookie no script and no other site can use.
    code, reply, headers = running.send("/api/operator/login", json.dumps({"pin": PIN}))
    assert code == 200 and reply["operator"] is True
    cookie_line = headers["set-cookie"]
    assert "HttpOnly" in cookie_line and "SameSite=strict" in cookie_line.replace(
        "Strict", "strict"
    )
    assert "Max-Age=900" in cookie_line
    cookie = cookie_line.split(";")[0].split("=", 1)[1]
    # A forged or altered cookie is nobody's.
    for forged in ("operator", cookie[:-2] + "xx"):
        answer = running.send("/api/input", json.dumps(SCORE), cookie=forged)
        refused_and_logged(running, caplog, answer, 403, "is the director's")
    # With the cookie, from the page's own origin: the score is adjusted, logged as the
    # operator's.
    code, reply, _ = running.send("/api/input", json.dumps(SCORE), cookie=cookie)
    assert (code, reply) == (200, {"ok": True})
    assert running.table.game.log[-1] == ScoreAdjusted(Team.NS, 5, "I say so")
    with EventLog.open_existing(running.table.config.log) as log:
        record = log.last_game()
        assert record is not None
        assert log.events(record.game)[-1].source == "operator"
    # Cards stay the camera's, even for the operator.
    answer = running.send("/api/input", json.dumps(CARD), cookie=cookie)
    refused_and_logged(running, caplog, answer, 403, "cards are read by the camera")
    # The same cookie from another site's page (its browser would not send it; a
    # program might): refused.
    answer = running.send(
        "/api/input", json.dumps(VOID), cookie=cookie, origin="http://evil.example"
    )
    refused_and_logged(running, caplog, answer, 403, "another site's page")
    # The session expires.
    now[0] += 901
    answer = running.send("/api/input", json.dumps(VOID), cookie=cookie)
    refused_and_logged(running, caplog, answer, 403, "hand_voided is the director's")
    # Log in again, then out: the cookie stops counting, even a copy of it.
    code, _, headers = running.send("/api/operator/login", json.dumps({"pin": PIN}))
    cookie = headers["set-cookie"].split(";")[0].split("=", 1)[1]
    assert running.send("/api/operator", method="GET", kind=None, cookie=cookie)[1]["operator"]
    assert running.send("/api/operator/logout", b"{}", cookie=cookie)[0] == 200
    answer = running.send("/api/input", json.dumps(VOID), cookie=cookie)
    refused_and_logged(running, caplog, answer, 403, "hand_voided is the director's")
    assert running.table.game.team_scores() == (5, 0)


def test_wrong_pins_lock_the_operator_out(running: Running) -> None:
    for _ in range(3):
        code, reply, _ = running.send("/api/operator/login", json.dumps({"pin": "0000"}))
        assert code == 403 and reply["problem"] == "wrong PIN"
    code, reply, _ = running.send("/api/operator/login", json.dumps({"pin": PIN}))
    assert code == 403 and reply["problem"] == "too many wrong PINs" and "wait" in reply["fix"]


def test_a_visitor_guessing_pins_cannot_lock_the_operator_out(running: Running) -> None:
    """Finding 6 on the table's page: wrong PINs were counted for the whole table, so a
    visitor's phone could keep the operator out. Now the visitor's address waits; the
    operator, from another address, logs in at once."""
    login = "/api/operator/login"
    for _ in range(3):
        code, reply, _ = running.send(login, json.dumps({"pin": "0000"}), source="127.0.0.2")
        assert code == 403 and reply["problem"] == "wrong PIN"
    code, reply, _ = running.send(login, json.dumps({"pin": PIN}), source="127.0.0.2")
    assert code == 403 and reply["problem"] == "too many wrong PINs" and "wait 30 s" in reply["fix"]
    code, reply, _ = running.send(login, json.dumps({"pin": PIN}))
    assert code == 200 and reply["operator"] is True


def test_without_an_operator_pin_the_page_says_what_to_do(
    tmp_path: Path, quiet_never: None, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    server = start(table_config(tmp_path))
    try:
        server.deal()
        assert server.send("/api/operator", method="GET", kind=None)[1]["pin"] is False
        answer = server.send("/api/input", json.dumps(SCORE))
        refused_and_logged(server, caplog, answer, 403, "score_adjusted is the director's")
        assert "set [web] operator_pin_hash" in answer[1]["fix"]
        answer = server.send("/api/operator/login", json.dumps({"pin": PIN}))
        refused_and_logged(server, caplog, answer, 403, "no operator PIN")
        untouched(server)
    finally:
        server.close()


def test_refusals_from_one_address_are_one_line_per_while(tmp_path: Path) -> None:
    """A flood of refused requests does not fill the disk: one line per address per
    10 s, the rest counted in the next."""
    from table_controller.web.guard import Sender

    now = [0.0]
    config = table_config(tmp_path)
    options = TableOptions(clock=lambda: now[0], serve_page=False, camera=lambda: None)  # type: ignore[arg-type,return-value]
    table = Table(config, options)
    try:
        for _ in range(50):
            table.door.refused(Sender("10.0.0.9"), "flood")
        table.door.refused(Sender("10.0.0.8"), "other")
        now[0] = 11.0
        table.door.refused(Sender("10.0.0.9"), "flood")
        lines = [f[2] for f in table.log.faults() if f[1] == "notice"]
    finally:
        table.log.close()
    assert lines == [
        "the page refused a request from 10.0.0.9: flood",
        "the page refused a request from 10.0.0.8: other",
        "the page refused a request from 10.0.0.9: flood (and 49 more before)",
    ]


# --- where it listens, what it says about itself ---------------------------------------


def test_the_page_listens_where_the_config_says(running: Running) -> None:
    """No [web] host in the config: this machine only, never silently every network."""
    assert running.table.config.web.host == "127.0.0.1"
    assert running.table.page.bound == ("127.0.0.1", running.port)


def test_every_answer_carries_the_security_headers(running: Running) -> None:
    for path, method in (
        ("/", "GET"),
        ("/static/page.js", "GET"),
        ("/health", "GET"),
        ("/nowhere", "GET"),
        ("/evidence/1/1.png", "GET"),
        ("/api/input", "POST"),
    ):
        _, _, headers = running.send(path, b"{}", method=method, kind=JSON_TYPE)
        csp = headers["content-security-policy"]
        assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp, path
        assert headers["x-frame-options"] == "DENY"
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["referrer-policy"] == "no-referrer"


# --- never a 5xx ------------------------------------------------------------------------

PATHS = st.sampled_from(
    [
        "/",
        "/api/input",
        "/api/operator",
        "/api/operator/login",
        "/api/operator/logout",
        "/health",
        "/static/page.js",
        "/static/../server.py",
        "/evidence/1/1.png",
        "/evidence/99999999999999999999999/1.png",
        "/evidence/-1/1.png",
        "/evidence/abc/1.png",
        "/api/input?x=%00",
    ]
)
KINDS = st.one_of(
    st.sampled_from([JSON_TYPE, "application/json; charset=utf-8", "text/plain", "", "a/b;;"]),
    st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=40),
)
BODIES = st.one_of(
    st.binary(max_size=200),
    st.recursive(
        st.none()
        | st.booleans()
        | st.integers()
        | st.floats(allow_nan=False)
        | st.text(max_size=20),
        lambda inner: (
            st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
        ),
        max_leaves=12,
    ).map(lambda doc: json.dumps(doc).encode()),
    st.fixed_dictionaries(
        {"event": st.sampled_from([*sorted(INPUT_BY_NAME), "kiosk_pin", "x"])},
        optional={
            "seat": st.sampled_from(["N", "E", "S", "W", "X", ""]) | st.integers(),
            "points": st.integers(),
            "team": st.sampled_from(["NS", "EW", "N"]),
            "reason": st.text(max_size=10),
            "card": st.sampled_from(["JH", "9C", "ZZ"]),
            "pin": st.text(max_size=14),
        },
    ).map(lambda doc: json.dumps(doc).encode()),
)


def test_no_request_gets_a_5xx(tmp_path: Path) -> None:
    server = start(table_config(tmp_path, operator_pin_hash=PIN_HASH))
    server.deal()
    seen: list[int] = []

    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
    @given(
        path=PATHS,
        method=st.sampled_from(["GET", "POST", "PUT", "DELETE"]),
        kind=KINDS,
        body=BODIES,
        origin=st.sampled_from(["own", None, "http://evil.example"]),
    )
    def request(path: str, method: str, kind: str, body: bytes, origin: str | None) -> None:
        code, reply, _ = server.send(path, body, method=method, kind=kind, origin=origin)
        seen.append(code)
        assert code < 500, (path, method, kind, body, reply)

    try:
        request()
        assert server.thread.is_alive() and server.error is None
    finally:
        server.close()
    assert len(seen) >= 100


# --- the page in a browser --------------------------------------------------------------


def test_the_operator_panel_in_chromium_under_the_csp(running: Running, browser: Any) -> None:
    """The real page in Debian's chromium: it runs under its Content-Security-Policy with
    no violation, a seat's touch works, and the operator logs in with the PIN and adjusts
    the score. Screenshots land in test-artifacts/."""
    from playwright.sync_api import expect

    artifacts = Path(__file__).resolve().parents[2] / "test-artifacts"
    artifacts.mkdir(exist_ok=True)
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    tab = context.new_page()
    problems: list[str] = []
    tab.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    try:
        tab.goto(running.table.url or "")
        expect(tab.locator("#conn")).to_have_text("live")
        with tab.expect_response("**/api/input") as answer:
            tab.locator("#actions button", has_text="Pass").click()
        assert answer.value.status == 200
        running.until("N passed", lambda: running.table.game.log[-1] == Passed(Seat.N))
        tab.locator("#op-open").click()
        tab.locator("#op-pin").fill("9999")
        tab.locator("#op-login-go").click()
        expect(tab.locator("#op-problem")).to_contain_text("wrong PIN")
        tab.locator("#op-pin").fill(PIN)
        tab.locator("#op-login-go").click()
        expect(tab.locator("#op-tools")).to_be_visible()
        tab.locator("#op-team").select_option("EW")
        tab.locator("#op-points").fill("2")
        tab.locator("#op-reason").fill("a misread card, put right")
        tab.screenshot(path=str(artifacts / "table-operator.png"))
        tab.locator("#op-adjust").click()
        expect(tab.locator("#op-problem")).to_contain_text("done: a misread card, put right")
        tab.locator("#op-close").click()
        expect(tab.locator("#score-EW")).to_have_text("2")
        tab.screenshot(path=str(artifacts / "table-page-secured.png"))
        assert running.table.game.log[-1] == ScoreAdjusted(Team.EW, 2, "a misread card, put right")
    finally:
        context.close()
    assert not [p for p in problems if "Content Security Policy" in p], problems
