"""Attacks on the director's web service, each against the real thing: the dashboard
served by uvicorn on a loopback port over a real SQLite store (and, for a table's status,
a real mosquitto and the director's service), asserting each is refused.

What was possible before (issue 14): reading every table's live view, stored outputs
(a card still in a player's hand) and the audit log with no login; guessing passwords
as fast as scrypt allowed, with the hash stalling the dashboard's loop and unknown names
answering faster; old sessions outliving a password change; another site's page posting
changes; 500s from a query, a NaN in a status, nested or huge JSON.
"""

from __future__ import annotations

import asyncio
import hashlib
import http.client
import json
import re
import sqlite3
import ssl
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from email.message import Message
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_director_public import spotted, status
from test_director_service import WAIT, client, publish, topic, wait_until
from test_director_store import TABLE
from test_director_web import PASSWORD, Served, World, get_json, log_in

from table_controller.cards import Card
from table_controller.director import logins
from table_controller.director.hall import PublicView
from table_controller.director.logins import LoginThrottle
from table_controller.director.session import COOKIE
from table_controller.director.store import SESSION_SECONDS, DirectorStore
from table_controller.director.web import DirectorPage
from table_controller.feed.tls import make_certs
from table_controller.present import card_face


class Clock:
    """The throttle's and the store's time, moved by the test: no sleeping."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


class Director:
    """A served dashboard over a real SQLite store holding a game in which a renege was
    spotted (so a held card is in the store), with ann's login."""

    def __init__(self, folder: Path, **start: Any) -> None:
        self.clock = Clock()
        self.path = folder / "director.sqlite"
        self.store = DirectorStore(self.path, clock=self.clock)
        self.store.accounts.add_login("ann", PASSWORD)
        messages, i, self.held, rules = spotted()
        self.store.tables.add_status(status(TABLE, rules))
        for m in messages[: i + 1]:  # the renege spotted: the card still in S's hand
            self.store.events.add_event({**m, "at": time.time()})
        self.page = DirectorPage(self.store, None, throttle=LoginThrottle(clock=self.clock))
        self.served = Served(self.page, **start)
        self.url = self.served.url

    def close(self) -> None:
        self.served.close()
        self.store.close()


@pytest.fixture
def director(tmp_path: Path) -> Iterator[Director]:
    d = Director(tmp_path)
    yield d
    d.close()


def request(
    url: str,
    *,
    method: str = "GET",
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
    cookie: str | None = None,
    context: ssl.SSLContext | None = None,
) -> tuple[int, Message, bytes]:
    """Any request: (status, headers, body), 4xx and 5xx included."""
    h = dict(headers or {})
    if cookie:
        h["Cookie"] = f"{COOKIE}={cookie}"
    req = urllib.request.Request(url, body, method=method, headers=h)
    try:
        with urllib.request.urlopen(req, timeout=WAIT, context=context) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers, exc.read()


def post_json(url: str, body: Any, **kw: Any) -> tuple[int, Message, bytes]:
    headers = {"Content-Type": "application/json", **kw.pop("headers", {})}
    return request(url, method="POST", body=json.dumps(body).encode(), headers=headers, **kw)


DIRECTOR_READS = (
    "events",
    "api/overview",
    f"api/tables/{TABLE}",
    f"api/tables/{TABLE}/ruling",
    "api/audit",
    "api/event",
    "api/alerts/1/defaults",
    "api/alerts/1/detail",
    f"evidence/{TABLE}/1/1.png",
)


# --- reading needs a login; the public view never shows a held card ----------------------


def test_every_director_read_needs_a_login(director: Director) -> None:
    for path in DIRECTOR_READS:
        code, _, body = request(director.url + path)
        assert code == 401, path
        assert director.held.encode() not in body and TABLE.encode() not in body
    # The page itself is only the login form and the frame: no data in it.
    code, _, page = request(director.url)
    assert code == 200 and b'id="login-form"' in page and TABLE.encode() not in page
    code, _, me = request(director.url + "api/me")
    assert json.loads(me)["director"] is None
    # Logged in, the same reads answer.
    cookie = log_in(director.url)
    assert get_json(director.url + f"api/tables/{TABLE}", cookie)["table"] == TABLE
    shown = json.dumps(get_json(director.url + f"api/tables/{TABLE}", cookie), ensure_ascii=False)
    assert card_face(director.held) in shown  # the director sees the held card, in words
    with urllib.request.urlopen(
        urllib.request.Request(director.url + "events", headers={"Cookie": f"{COOKIE}={cookie}"}),
        timeout=WAIT,
    ) as r:
        assert r.status == 200 and r.headers["Content-Type"].startswith("text/event-stream")


def test_public_view_shows_no_held_card_and_refuses_a_bad_delay(director: Director) -> None:
    code, _, body = request(director.url + "api/public")
    assert code == 200 and director.held.encode() not in body
    assert json.loads(body)["tables"][0]["table"] == TABLE
    for bad in ("inf", "-inf", "nan", "-1", "1e309", "1e12", "abc", ""):
        code, _, body = request(director.url + "api/public?delay=" + urllib.parse.quote(bad))
        if bad == "":
            assert code == 200
            continue
        assert code == 400 and "number of seconds" in json.loads(body)["problem"], bad
    # A delay asked for holds the table back (its events are all recent).
    code, _, body = request(director.url + "api/public?delay=3600")
    assert code == 200 and json.loads(body)["tables"] == []


SYMBOLS = {"\u2663": "C", "\u2666": "D", "\u2665": "H", "\u2660": "S"}
CARD_NAMED = re.compile(r"(?<![A-Za-z0-9])(10|[9TJQKA])([CDHS\u2663\u2666\u2665\u2660])(?![a-z])")


def cards_named(text: str) -> set[str]:
    """Every card a text names, by code ("9C", "10H") or drawn ("9\u2663")."""
    return {
        Card.parse(rank + SYMBOLS.get(suit, suit)).code for rank, suit in CARD_NAMED.findall(text)
    }


def test_no_public_field_names_a_card_before_the_table_saw_it(tmp_path: Path) -> None:
    """After each event of a game with a renege spotted, everything the public view emits
    (every field, the news, the problem) names only cards cut, turned up or played."""
    messages, i, _, rules = spotted()
    store = DirectorStore(tmp_path / "p.sqlite")
    store.tables.add_status(status(TABLE, rules))
    seen: set[str] = set()
    for n, m in enumerate(messages):
        store.events.add_event(m)
        inp = m["input"]
        if inp["event"] in ("card_played", "card_cut"):
            seen.add(Card.parse(inp["card"]).code)
        if inp["event"] == "hand_dealt" and inp.get("upcard"):
            seen.add(Card.parse(inp["upcard"]).code)
        snap = PublicView(store, clock=lambda at=m["at"]: at).snapshot()
        shown = cards_named(json.dumps(snap, ensure_ascii=False))
        assert shown <= seen, (n, shown - seen)
        if n == i:  # the renege spotted is news; the card S still holds is not
            news = snap["tables"][0]["news"]
            assert any(o["event"] == "renege_spotted" and "held" not in o for o in news)
    assert shown  # the check sees cards: the last trick's, at the end
    store.close()


def test_public_port_serves_the_public_view_and_nothing_else(tmp_path: Path) -> None:
    from mosquitto import free_port

    port = free_port()
    d = Director(tmp_path, public_port=port)
    try:
        public = f"http://127.0.0.1:{port}/"
        assert d.page.public_url == public + "public"
        assert request(public + "public")[0] == 200
        assert request(public + "api/public")[0] == 200
        assert request(public + "static/public.js")[0] == 200
        cookie = log_in(d.url)
        for path in ("", "api/login", "api/me", *DIRECTOR_READS):  # not on the public port
            assert request(public + path, cookie=cookie)[0] == 404, path
        for path in ("public", "api/public"):  # nor the public view on the director's
            assert request(d.url + path)[0] == 404, path
        assert get_json(d.url + "api/me", cookie)["public_port"] == port
    finally:
        d.close()


# --- logins ----------------------------------------------------------------------------------


def login_status(director: Director, name: str, password: str) -> int:
    return post_json(director.url + "api/login", {"name": name, "password": password})[0]


def test_failed_logins_back_off_and_are_audited(director: Director) -> None:
    for _ in range(5):
        assert login_status(director, "ann", "guess") == 401
    # The next try waits, even with the right password; the wait doubles.
    code, _, body = post_json(director.url + "api/login", {"name": "ann", "password": PASSWORD})
    assert code == 429 and "for this name" in json.loads(body)["problem"]
    assert "wait 1 s" in json.loads(body)["fix"]
    director.clock.now += 1.0
    assert login_status(director, "ann", "guess again") == 401
    assert login_status(director, "ann", PASSWORD) == 429
    director.clock.now += 1.9
    assert login_status(director, "ann", PASSWORD) == 429  # 2 s after the 6th
    director.clock.now += 0.2
    assert login_status(director, "ann", PASSWORD) == 200  # and the count starts again
    failed = [a for a in director.store.accounts.audit() if a["action"] == "login_failed"]
    assert len(failed) == 6
    assert json.loads(failed[0]["detail"]) == {"address": "127.0.0.1", "known": True}
    # Per address: many names from one address slow down too.
    for n in range(20):
        assert login_status(director, f"nobody{n}", "guess") == 401
    code, _, body = post_json(director.url + "api/login", {"name": "bob", "password": PASSWORD})
    assert code == 429 and "from this address" in json.loads(body)["problem"]
    # ann got in from here before: her own brake is the only one she meets here.
    assert login_status(director, "ann", PASSWORD) == 200
    assert json.loads(director.store.accounts.audit()[-1]["detail"])["known"] is False


def login_from(director: Director, source: str, name: str, password: str) -> tuple[int, Any]:
    """A login over HTTP from the loopback address ``source`` (127.0.0.2, ...): another
    machine, as the dashboard sees it. (status, the answer)."""
    url = urllib.parse.urlsplit(director.url)
    conn = http.client.HTTPConnection(
        url.hostname, url.port, timeout=WAIT, source_address=(source, 0)
    )
    try:
        body = json.dumps({"name": name, "password": password})
        conn.request("POST", "/api/login", body, {"Content-Type": "application/json"})
        answer = conn.getresponse()
        return answer.status, json.loads(answer.read())
    finally:
        conn.close()


def test_a_visitor_guessing_cannot_lock_the_director_out(director: Director) -> None:
    """Finding 6: 37 wrong passwords for a director from a visitor's address once kept
    the director out of their own laptop (429 for up to 15 minutes, counted per name from
    any address). Now the visitor waits; the director, from another address, does not."""
    open_session = log_in(director.url)  # the director's laptop, logged in before
    failures, held = 0, []
    while failures < 37:
        code, answer = login_from(director, "127.0.0.2", "ann", f"guess {failures}")
        if code == 429:  # the visitor is told to wait, in words, and waits
            held.append(answer["problem"])
            seconds = int(re.search(r"wait (\d+) s", answer["fix"])[1])  # type: ignore[index]
            director.clock.now += seconds
        else:
            assert code == 401
            failures += 1
    assert held and all(
        p.startswith("too many failed logins for this name from this address") for p in held
    )
    assert login_from(director, "127.0.0.2", "ann", PASSWORD)[0] == 429  # still held
    # The director: a new login from their laptop, and the open session, both go on.
    assert login_from(director, "127.0.0.3", "ann", PASSWORD)[0] == 200
    assert login_status(director, "ann", PASSWORD) == 200
    assert get_json(director.url + "api/overview", open_session)["tables"][0]["table"] == TABLE


def test_a_swarm_of_addresses_is_slowed_never_locked(director: Director) -> None:
    """Guesses at one name from many addresses meet the name's slow-down, and all guesses
    together the dashboard's: short waits that forget; a director who got in from an
    address before passes both."""
    director.page.throttle = LoginThrottle(free_per_name=4, free_everywhere=8, clock=director.clock)
    assert login_from(director, "127.0.0.2", "ann", PASSWORD)[0] == 200  # her laptop
    for n in range(4):
        assert login_from(director, f"127.0.1.{n}", "ann", "guess")[0] == 401
    code, answer = login_from(director, "127.0.1.99", "ann", "guess")
    assert code == 429 and "for this name from many addresses" in answer["problem"]
    assert "wait 1 s" in answer["fix"]
    for n in range(4):
        assert login_from(director, f"127.0.2.{n}", f"name{n}", "guess")[0] == 401
    code, answer = login_from(director, "127.0.3.1", "bob", "guess")
    assert code == 429 and "on this dashboard just now" in answer["problem"]
    assert login_from(director, "127.0.0.2", "ann", PASSWORD)[0] == 200  # trusted: in
    director.clock.now += 61.0  # a minute's quiet: the global count forgets
    assert login_from(director, "127.0.3.1", "bob", "guess")[0] == 401


def test_the_throttle_stays_small_however_addresses_and_names_rotate() -> None:
    """An attacker rotating addresses and names fills no memory: at most ``most`` keys,
    the least recently touched dropped; the one being hammered is kept, so still held."""
    clock = Clock()
    throttle = LoginThrottle(most=500, free_everywhere=10**9, clock=clock)
    for _ in range(6):
        throttle.begin("ann", "10.0.0.1")
    for n in range(5_000):
        throttle.begin(f"name{n}", f"10.{n // 65536}.{n // 256 % 256}.{n % 256}")
        throttle.begin("ann", "10.0.0.1")
        clock.now += 0.001
    assert len(throttle) <= 500
    assert throttle.wait("ann", "10.0.0.1")[1] == "pair"
    # IPv6: one machine's /64 counts as one address.
    for n in range(25):
        throttle.begin(f"x{n}", f"2001:db8::{n:x}")
    assert throttle.wait("y", "2001:db8::ffff")[1] == "address"


def test_parallel_wrong_logins_hash_off_the_loop(director: Director, monkeypatch: Any) -> None:
    """8 wrong logins at once: every hash runs in a worker thread, and while they are all
    still hashing the dashboard answers (the hashes wait for that answer)."""
    cookie = log_in(director.url)
    answered = threading.Event()
    threads: list[threading.Thread] = []
    real = logins._check_argon2

    def slow(password: str, stored: bytes) -> bool:
        threads.append(threading.current_thread())
        answered.wait(WAIT)  # a hash on the loop would hold the overview back until here
        return real(password, stored)

    monkeypatch.setattr(logins, "_check_argon2", slow)
    codes: list[int] = []
    names = ["ann", "bob", "cy", "di", "ed", "flo", "gus", "hal"]
    guesses = [
        threading.Thread(target=lambda n=n: codes.append(login_status(director, n, "guess")))
        for n in names
    ]
    for t in guesses:
        t.start()
    wait_until("the hashes started", lambda: len(threads) >= 1)
    assert get_json(director.url + "api/overview", cookie)["tables"][0]["table"] == TABLE
    answered.set()
    for t in guesses:
        t.join(WAIT)
    assert sorted(codes) == [401] * 8
    assert len(threads) == 8 and director.served.thread not in threads


def test_unknown_names_cost_a_hash_too(director: Director, monkeypatch: Any) -> None:
    calls: list[bytes] = []
    real = logins._check_argon2
    monkeypatch.setattr(logins, "_check_argon2", lambda p, s: calls.append(s) or real(p, s))
    assert director.store.accounts.login("nobody", "guess") is None
    assert director.store.accounts.login("ann", "guess") is None
    assert len(calls) == 2 and all(c.startswith(b"$argon2id$") for c in calls)


def test_a_password_change_ends_every_session(director: Director) -> None:
    first, second = log_in(director.url), log_in(director.url)
    assert get_json(director.url + "api/overview", first)["tables"]
    director.store.accounts.add_login("ann", "a new password 2")
    for cookie in (first, second):
        assert request(director.url + "api/overview", cookie=cookie)[0] == 401
    assert login_status(director, "ann", PASSWORD) == 401
    assert log_in(director.url, password="a new password 2")


def test_expired_sessions_are_deleted_and_tokens_not_stored(director: Director) -> None:
    old = log_in(director.url)
    director.clock.now += SESSION_SECONDS + 1
    assert request(director.url + "api/overview", cookie=old)[0] == 401
    new = log_in(director.url)
    rows = sqlite3.connect(director.path).execute("SELECT token FROM sessions").fetchall()
    assert rows == [(hashlib.sha256(new.encode()).hexdigest(),)]  # the old one is gone


def test_an_old_scrypt_hash_still_logs_in_and_becomes_argon2(director: Director) -> None:
    salt = b"0123456789abcdef"
    old = hashlib.scrypt(b"an older password", salt=salt, n=2**14, r=8, p=1, dklen=32)
    with sqlite3.connect(director.path) as db:
        db.execute("INSERT INTO directors VALUES ('bo', ?, ?, 0)", (salt, old))
    assert login_status(director, "bo", "wrong password") == 401
    assert log_in(director.url, "bo", "an older password")
    (row,) = sqlite3.connect(director.path).execute("SELECT hash FROM directors WHERE name='bo'")
    assert bytes(row[0]).startswith(b"$argon2id$")
    assert log_in(director.url, "bo", "an older password")


def test_session_cookie_is_httponly_and_strict(director: Director) -> None:
    code, headers, _ = post_json(director.url + "api/login", {"name": "ann", "password": PASSWORD})
    cookie = headers["set-cookie"].lower()
    assert code == 200 and "httponly" in cookie and "samesite=strict" in cookie
    assert "secure" not in cookie  # plain HTTP on loopback: see the TLS test


# --- changes from other sites, headers ---------------------------------------------------------


def test_changes_from_another_site_or_not_json_are_refused(director: Director) -> None:
    cookie = log_in(director.url)
    url = director.url + "api/event/public_delay"
    body = {"seconds": 30}
    for origin in ("http://evil.example", "null", director.url.replace("127.0.0.1", "localhost")):
        code, _, answer = post_json(url, body, cookie=cookie, headers={"Origin": origin})
        assert code == 403 and "another site" in json.loads(answer)["problem"], origin
    for kind in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data"):
        code, _, _ = request(url, method="POST", body=json.dumps(body).encode(),
                             headers={"Content-Type": kind}, cookie=cookie)  # fmt: skip
        assert code == 415, kind
    code, _, _ = post_json(
        director.url + "api/login", {"name": "ann", "password": PASSWORD},
        headers={"Origin": "http://evil.example"},
    )  # fmt: skip
    assert code == 403
    assert director.page.admin.state.public_delay == 0
    own = director.url.rstrip("/")
    code, _, _ = post_json(url, body, cookie=cookie, headers={"Origin": own})
    assert code == 200 and director.page.admin.state.public_delay == 30


def test_every_answer_has_the_security_headers(director: Director) -> None:
    paths = ("", "public", "api/public", "api/me", "api/overview", "static/dashboard.js", "nowhere")
    for path in paths:
        _, headers, _ = request(director.url + path)
        h = headers
        csp = h["content-security-policy"]
        assert "default-src 'self'" in csp and "frame-ancestors 'none'" in csp, path
        assert "'unsafe-inline'" not in csp
        assert h["x-frame-options"] == "DENY" and h["x-content-type-options"] == "nosniff"
        assert h["referrer-policy"] == "no-referrer"
    _, headers, _ = post_json(director.url + "api/login", {}, headers={"Origin": "http://x"})
    assert headers["X-Frame-Options"] == "DENY"  # on a refusal too


def test_the_dashboard_over_tls(tmp_path: Path) -> None:
    certs = make_certs(tmp_path / "tls", ["127.0.0.1"])  # what `feed tls-certs` makes
    d = Director(tmp_path, tls_cert=str(certs.cert), tls_key=str(certs.key))
    try:
        assert d.url.startswith("https://127.0.0.1:")
        trust = ssl.create_default_context(cafile=str(certs.ca_cert))
        code, headers, _ = post_json(
            d.url + "api/login", {"name": "ann", "password": PASSWORD}, context=trust
        )
        assert code == 200 and "secure" in headers["set-cookie"].lower()
        cookie = headers["set-cookie"].split(";")[0].split("=", 1)[1]
        code, _, body = request(d.url + "api/overview", cookie=cookie, context=trust)
        assert code == 200 and json.loads(body)["tables"][0]["table"] == TABLE
        # Plain HTTP on the same port is not served.
        with pytest.raises((urllib.error.URLError, http.client.HTTPException, ConnectionError)):
            urllib.request.urlopen(d.url.replace("https", "http") + "api/public", timeout=WAIT)
    finally:
        d.close()


# --- no 500s -----------------------------------------------------------------------------------


def test_bad_queries_and_bodies_are_4xx(director: Director) -> None:
    cookie = log_in(director.url)
    for query in ("game=abc", "game=-1", "game=99999999999999999999", "game=1e3", "game=%00"):
        code, _, body = request(director.url + f"api/tables/{TABLE}?{query}", cookie=cookie)
        assert code == 400 and "game number" in json.loads(body)["problem"], query
    for path in (
        f"evidence/{TABLE}/{'9' * 5000}/1.png",
        "api/alerts/99999999999999999999/defaults",
    ):
        assert request(director.url + path, cookie=cookie)[0] == 404
    url = director.url + "api/event/public_delay"
    deep = b'{"a":' * 2000 + b"1" + b"}" * 2000  # 12 KB, 2,000 deep
    for body, want in (
        (b"[" * 10000 + b"]" * 10000, 413),
        (deep, 400),
        (b'{"seconds": ' + b"7" * 5000 + b"}", 400),
        (b'{"seconds": NaN}', 400),
        (b'{"seconds": 1e999}', 400),
        (b'{"x": ' + b"[" * 40 + b"]" * 40 + b"}", 400),
        (b"x" * 100_000, 413),
        (b"\xff\xfe", 400),
    ):
        code, _, answer = request(url, method="POST", body=body, cookie=cookie,
                                  headers={"Content-Type": "application/json"})  # fmt: skip
        assert code == want and json.loads(answer)["fix"], (body[:20], code)


@pytest.mark.parametrize("every", ["NaN", "Infinity", "-5", '"soon"', "1e400"])
def test_a_status_with_a_bad_every_does_not_break_the_view(tmp_path: Path, every: str) -> None:
    """The status arrives over a real mosquitto, through the director's service."""
    world = World(tmp_path)
    try:
        cookie = log_in(world.served.url)
        feed = client(world.broker, "table-nan")
        payload = json.dumps(status(TABLE, {"name": "td-tournament", "options": {}}))
        payload = payload.replace('"every": 5', f'"every": {every}').replace(
            '"at": 1.0', '"at": NaN'
        )
        publish(feed, topic("status"), payload.encode())
        publish(
            feed, topic("status"), json.dumps(status(TABLE, {"name": "td-tournament"})).encode()
        )
        wait_until(
            "both statuses stored", lambda: len(world.store.tables.status_history(TABLE)) == 2
        )
        view = get_json(world.served.url + f"api/tables/{TABLE}", cookie)
        assert view["table"] == TABLE and len(view["status"]) == 2
        assert get_json(world.served.url + "api/overview", cookie)["tables"][0]["online"]
        world.store.tables.check_silent(time.time() + 10_000)  # every refused: no crash here either
        feed.loop_stop()
        feed.disconnect()
    finally:
        world.close()


ROUTES = (
    "", "public", "api/public", "api/me", "api/login", "api/logout", "events", "api/overview",
    "api/tables/{s}", "api/tables/{s}/ruling", "api/alerts/{s}", "api/alerts/{s}/defaults",
    "api/alerts/{s}/detail",
    "api/rulings", "api/audit", "api/results/final",
    "api/event", "api/event/{s}", "evidence/{s}/{s}/{s}.png", "static/{s}", "{s}",
)  # fmt: skip
ROUND_FORMS = ("round_time", "round_start")  # the round's time and clock (the pace of play)
segment = st.one_of(
    st.sampled_from(
        [TABLE, "1", "0", "-1", "abc", "9" * 30, "create", "public_delay", "..", *ROUND_FORMS]
    ),
    st.text(min_size=1, max_size=12),
)
json_value = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
FIELDS = (
    "name",
    "password",
    "state",
    "reason",
    "table",
    "kind",
    "team",
    "points",
    "alert",
    "seconds",
    "format",
    "entrants",
    "round",
    "place",
    "result",
    "teams",
    "games",
    "minutes",
    "hands",
    "minutes_ago",
)
body = st.one_of(
    st.binary(max_size=64),
    json_value.map(lambda v: json.dumps(v, allow_nan=True).encode()),
    st.dictionaries(st.sampled_from(FIELDS), json_value, max_size=5).map(
        lambda d: json.dumps(d).encode()
    ),
)


@pytest.fixture(scope="module")
def fuzzed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Director, str]]:
    d = Director(tmp_path_factory.mktemp("fuzz"))
    d.page.throttle = LoginThrottle(
        free_per_pair=10**9, free_per_address=10**9, free_per_name=10**9, free_everywhere=10**9
    )
    yield d, log_in(d.url)
    d.close()


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    route=st.sampled_from(ROUTES),
    parts=st.lists(segment, min_size=3, max_size=3),
    query=st.dictionaries(
        st.sampled_from(["game", "delay", "x"]), st.text(max_size=12), max_size=2
    ),
    method=st.sampled_from(["GET", "POST", "POST", "PUT", "HEAD"]),
    content=body,
    kind=st.sampled_from(["application/json", "text/plain", "", "application/json; charset=x"]),
    logged_in=st.booleans(),
)
def test_no_request_gets_a_500(
    fuzzed: tuple[Director, str],
    route: str,
    parts: list[str],
    query: dict[str, str],
    method: str,
    content: bytes,
    kind: str,
    logged_in: bool,
) -> None:
    d, cookie = fuzzed
    path = route.format(s="{}").format(*[urllib.parse.quote(p, safe="") for p in parts])
    url = d.url + path + ("?" + urllib.parse.urlencode(query) if query else "")
    headers = {"Content-Type": kind} if kind else {}
    if path == "events" and method in ("GET", "HEAD"):  # a stream (test_every_director_read)
        return
    logged_in = logged_in and route != "api/logout"  # the session stays for the next ones
    code, _, _ = request(
        url,
        method=method,
        body=content if method in ("POST", "PUT") else None,
        headers=headers,
        cookie=cookie if logged_in else None,
    )
    assert code < 500, (method, url, content[:80], code)


def test_tls_and_public_port_settings_are_checked(tmp_path: Path) -> None:
    import argparse

    from table_controller.director.cli import SettingsError, load_settings
    from table_controller.director.listeners import DashboardError

    conf = tmp_path / "director.toml"
    for text, words in (
        ('[director]\ntls_cert = "a.pem"\n', "go together"),
        ("[director]\npublic_port = 8090\n", "the dashboard's port too"),
        ('[director]\npublic_port = "x"\n', "write a port number"),
    ):
        conf.write_text(text)
        with pytest.raises(SettingsError, match=words):
            load_settings(argparse.Namespace(config=str(conf)))
    conf.write_text('[director]\npublic_port = 8091\ntls_cert = "a.pem"\ntls_key = "a.key"\n')
    s = load_settings(argparse.Namespace(config=str(conf)))
    assert s.get("director", "public_port") == 8091 and s.path("director", "tls_cert") == (
        tmp_path / "a.pem"
    )
    store = DirectorStore(tmp_path / "d.sqlite")
    page = DirectorPage(store)
    with pytest.raises(DashboardError, match="cannot be used"):
        asyncio.run(page.start(tls_cert=str(tmp_path / "a.pem"), tls_key=str(tmp_path / "a.key")))
    store.close()
