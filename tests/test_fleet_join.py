"""Joining, end to end over real HTTP: a table's ``join`` asks a real dashboard
(DirectorPage, fleet mode, a real SQLite store), a logged-in director approves the
code through the API, and the table keeps its membership (files 0600). The refusals
are in words: a wrong code, no login, another site, too many waiting, a body too big,
garbage, a bundle sealed for another key; and the table keeps trying while the director
is gone, and saying so."""

from __future__ import annotations

import asyncio
import base64
import json
import random
import shutil
import stat
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from mosquitto import free_port
from test_director_service import WAIT, wait_until
from test_director_web import PASSWORD, Served, get_json, log_in, post

from table_controller.director.fleet.core import Fleet, JoinRequests
from table_controller.director.session import COOKIE
from table_controller.director.store import DirectorStore
from table_controller.director.web import DirectorPage
from table_controller.feed.signing import new_keys
from table_controller.fleet import discovery, sealing
from table_controller.fleet.discovery import DiscoveryError, Found, key_fingerprint
from table_controller.table.fleet import membership
from table_controller.table.fleet.join import JoinError, JoinStopped, join, table_key
from table_controller.table.fleet.membership import MembershipError


class Credentials:
    """A recording stand-in for the broker's table logins (director/broker/'s is H1's)."""

    def __init__(self) -> None:
        self.logins: dict[str, str] = {}
        self.removed: list[str] = []
        self._n = 0

    def add_table(self, table_id: str) -> str:
        self._n += 1
        self.logins[table_id] = f"password-{table_id}-{self._n}"
        return self.logins[table_id]

    def remove_table(self, table_id: str) -> None:
        self.logins.pop(table_id, None)
        self.removed.append(table_id)

    def tables(self) -> list[str]:
        return sorted(self.logins)


class ServedOn(Served):
    """The dashboard served as ``Served`` does, on ``host`` (every address: "0.0.0.0")."""

    def __init__(self, page: DirectorPage, host: str) -> None:
        self.page = page
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.url = self.call(page.start(host, 0))


class Director:
    """A dashboard in fleet mode on a free port (of loopback, or ``host``), ann logged in."""

    def __init__(
        self, folder: Path, requests: JoinRequests | None = None, host: str = "127.0.0.1"
    ) -> None:
        self.store = DirectorStore(folder / "director.sqlite")
        self.store.accounts.add_login("ann", PASSWORD)
        self.private, self.public = new_keys()
        self.credentials = Credentials()
        self.published: list[tuple[str, bytes | str, bool]] = []
        self.fleet = Fleet(
            store=self.store,
            credentials=self.credentials,
            event="Spring Open",
            topic="euchre",
            prefix="euchre/spring-open",
            broker_port=1883,
            public_pem=self.public,
            private_pem=self.private,
            rules="td-tournament",
            options={"stick_the_dealer": True},
            publish=lambda t, p, r: self.published.append((t, p, r)),
            requests=requests or JoinRequests(),
        )
        page = DirectorPage(self.store, fleet=self.fleet, title="Spring Open")
        self.served = ServedOn(page, host)
        self.url = self.served.url
        self.port = int(self.url.rstrip("/").rsplit(":", 1)[1])
        self.cookie = log_in(self.url)

    def found(self) -> Found:
        return discovery.parse_director(f"http://127.0.0.1:{self.port}")

    def waiting(self) -> list[dict[str, Any]]:
        return list(get_json(self.url + "api/fleet/requests", self.cookie)["requests"])

    def close(self) -> None:
        self.served.close()
        self.store.close()


@pytest.fixture
def director(tmp_path: Path):  # type: ignore[no-untyped-def]
    d = Director(tmp_path)
    yield d
    d.close()


class Table:
    """A table's ``join`` on a thread, what it said, the code it showed."""

    def __init__(self, folder: Path, found: Found | None, **kw: Any) -> None:
        self.folder = folder
        self.words: list[str] = []
        self.codes: list[str] = []
        self.checks: list[str] = []
        self.stop = threading.Event()
        self.result: Any = None
        self.error: BaseException | None = None
        fast = self.stop  # polls quickly: the test waits on conditions, not on time

        def run() -> None:
            try:
                self.result = join(
                    folder,
                    director=found,
                    on_code=lambda shown, f: (
                        self.codes.append(shown.code),
                        self.checks.append(shown.check),
                    ),
                    on_words=self.words.append,
                    stop=self.stop,
                    sleep=lambda s: fast.wait(0.02),
                    **kw,
                )
            except BaseException as exc:
                self.error = exc

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()

    def done(self) -> Any:
        self.thread.join(WAIT)
        assert not self.thread.is_alive()
        return self.result


def join_body(key: bytes) -> dict[str, Any]:
    return {"v": 2, "key": base64.b64encode(key).decode(), "host": "pi", "version": "0.1.0"}


def code_for(director: Director, key: bytes, salt: str) -> str:
    """The code a table with ``key`` works out of the salt the director answered."""
    der = discovery.key_der(discovery.key_text(director.public))
    return sealing.join_check(der, key, base64.b64decode(salt)).code


def test_a_table_joins_once_the_director_approves_its_code(
    director: Director, tmp_path: Path
) -> None:
    found = director.found()
    assert found.event == "Spring Open" and found.broker_port == 1883
    assert found.key_fingerprint == key_fingerprint(director.public)
    table = Table(tmp_path / "fleet", found)
    wait_until("the table asks", lambda: len(director.waiting()) == 1)
    [asked] = director.waiting()
    wait_until("the code shown", lambda: table.codes != [])
    assert asked["code"] == table.codes[0] and asked["same_code"] is False
    assert asked["check"] == table.checks[0]  # the table's page and the Fleet page agree
    assert asked["address"] == "127.0.0.1" and asked["version"] == "0.1.0"
    assert any("waiting for the director to approve code" in w for w in table.words)

    status, body = post(
        director.url + "api/fleet/approve",
        {"request": asked["request"], "code": asked["code"], "name": "Table 7"},
        director.cookie,
    )
    assert (status, body) == (200, {"table": "table-7", "name": "Table 7"})
    m = table.done()
    assert table.error is None
    assert m.table == "table-7" and m.name == "Table 7" and m.username == "table-7"
    assert m.password == director.credentials.logins["table-7"]
    assert m.director_key == director.public.decode()
    assert (m.event, m.topic, m.broker_port, m.rules) == (
        "Spring Open",
        "euchre",
        1883,
        "td-tournament",
    )
    assert m.options == {"stick_the_dealer": True}
    assert (m.director_host, m.director_port) == ("127.0.0.1", director.port)
    assert membership.load(tmp_path / "fleet") == m
    for p in (tmp_path / "fleet").iterdir():
        assert stat.S_IMODE(p.stat().st_mode) == 0o600, p
    assert director.waiting() == []
    [row] = director.store.fleet.fleet_tables()
    assert row["name"] == "Table 7" and row["address"] == "127.0.0.1"
    audit = [(a["who"], a["action"], a["table"]) for a in director.store.accounts.audit()]
    assert ("ann", "table_approved", "table-7") in audit

    # A second table cannot take the name; the first one removed: login gone, config cleared.
    other = Table(tmp_path / "other", found)
    wait_until("the other asks", lambda: len(director.waiting()) == 1)
    [asked] = director.waiting()
    status, body = post(
        director.url + "api/fleet/approve",
        {"request": asked["request"], "code": asked["code"], "name": "table 7"},
        director.cookie,
    )
    assert status == 409 and "is taken" in body["problem"] and body["fix"]
    status, body = post(director.url + "api/fleet/remove", {"table": "table-7"}, director.cookie)
    assert (status, body) == (200, {"removed": "table-7"})
    assert director.credentials.removed == ["table-7"]
    assert director.published == [("euchre/spring-open/tables/table-7/config", b"", True)]
    assert director.store.fleet.fleet_tables() == []
    assert ("ann", "table_removed", "table-7") in [
        (a["who"], a["action"], a["table"]) for a in director.store.accounts.audit()
    ]
    status, body = post(director.url + "api/fleet/remove", {"table": "table-7"}, director.cookie)
    assert status == 404 and "no approved table" in body["problem"]
    status, body = post(
        director.url + "api/fleet/refuse",
        {"request": asked["request"], "reason": "not one of ours"},
        director.cookie,
    )
    assert status == 200
    other.done()
    assert isinstance(other.error, JoinError) and "not one of ours" in str(other.error)


def test_approving_is_refused_in_words(director: Director, tmp_path: Path) -> None:
    key = sealing.public_of(random.Random(1).randbytes(32))
    status, asked = post(director.url + "api/fleet/join", join_body(key))
    assert status == 202 and len(asked["request"]) >= 22
    asked["code"] = code_for(director, key, asked["salt"])
    assert director.waiting()[0]["code"] == asked["code"]
    wrong = "1111" if asked["code"] != "1111" else "2222"
    approve = director.url + "api/fleet/approve"
    form = {"request": asked["request"], "code": wrong, "name": "Table 1"}

    status, body = post(approve, form, director.cookie)
    assert status == 409 and "does not match the code this table shows" in body["problem"]
    assert "read the code" in body["fix"]
    status, body = post(approve, {**form, "code": asked["code"]})  # no login
    assert status == 401 and "not logged in" in body["problem"]
    req = urllib.request.Request(
        approve,
        json.dumps({**form, "code": asked["code"]}).encode(),
        method="POST",
        headers={
            "Content-Type": "application/json",
            "Cookie": f"{COOKIE}={director.cookie}",
            "Origin": "http://evil.example",
        },
    )
    with pytest.raises(urllib.error.HTTPError) as cross:
        urllib.request.urlopen(req, timeout=10)
    assert cross.value.code == 403 and "another site" in json.loads(cross.value.read())["problem"]
    status, body = post(
        approve, {**form, "code": asked["code"], "name": "Table #1"}, director.cookie
    )
    assert status == 400 and "may hold" in body["problem"]
    status, body = post(approve, {**form, "code": asked["code"], "name": "  "}, director.cookie)
    assert status == 400 and "1 to 60 characters" in body["problem"]
    status, body = post(approve, {**form, "request": "nope"}, director.cookie)
    assert status == 404 and "no longer waiting" in body["problem"]
    assert director.credentials.logins == {}  # nothing was given
    assert director.waiting()[0]["request"] == asked["request"]  # still waiting
    status, _ = get_status(director.url + "api/fleet/requests")
    assert status == 401


def get_status(url: str) -> tuple[int, dict[str, Any]]:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def raw_post(url: str, data: bytes) -> tuple[int, dict[str, Any]]:
    req = urllib.request.Request(
        url, data, method="POST", headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_asking_to_join_is_limited_and_checked(tmp_path: Path) -> None:
    d = Director(tmp_path, JoinRequests(per_address=1000, share=1000))
    try:
        url = d.url + "api/fleet/join"
        for i in range(50):
            status, _ = post(url, join_body(sealing.public_of(random.Random(i).randbytes(32))))
            assert status == 202
        status, body = post(url, join_body(sealing.public_of(random.Random(99).randbytes(32))))
        assert status == 503 and "50 tables are already waiting" in body["problem"]
        assert body["fix"]
        big = {**join_body(b"k" * 32), "host": "x" * 5000}
        assert raw_post(url, json.dumps(big).encode())[0] == 413
        status, body = raw_post(url, b"{not json")
        assert status == 400 and "not JSON" in body["problem"]
        status, body = raw_post(url, b"[1]")
        assert status == 400 and "not a JSON object" in body["problem"]
        status, body = post(url, {**join_body(b"k" * 32), "key": "bm90IGEga2V5"})
        assert status == 400 and "no table key" in body["problem"]
        status, body = post(url, {**join_body(b"k" * 32), "v": 1})
        assert status == 400 and "another release" in body["problem"]
        status, body = get_status(d.url + "api/fleet/join/" + "x" * 30)
        assert status == 404 and "ask to join again" in body["fix"]
        assert len(d.waiting()) == 50
    finally:
        d.close()


def test_one_address_asking_too_often_is_told_to_wait(tmp_path: Path) -> None:
    d = Director(tmp_path, JoinRequests(per_address=2))
    try:
        url = d.url + "api/fleet/join"
        for i in range(2):
            assert post(url, join_body(bytes([i]) * 32))[0] == 202
        status, body = post(url, join_body(b"\x09" * 32))
        assert status == 429 and "asked to join 2 times" in body["problem"]
    finally:
        d.close()


def test_a_bundle_sealed_for_another_key_cannot_be_opened(
    director: Director, tmp_path: Path
) -> None:
    private = table_key(tmp_path / "fleet")
    assert table_key(tmp_path / "fleet") == private  # kept: a restart shows the same code
    public = sealing.public_of(private)
    _, asked = post(director.url + "api/fleet/join", join_body(public))
    _, again = post(director.url + "api/fleet/join", join_body(public))
    assert again == asked  # the same request, not a second one: the same code
    asked["code"] = code_for(director, public, asked["salt"])
    status, _ = post(
        director.url + "api/fleet/approve",
        {"request": asked["request"], "code": asked["code"], "name": "Table 3"},
        director.cookie,
    )
    assert status == 200
    status, answer = get_status(director.url + f"api/fleet/join/{asked['request']}")
    assert status == 200 and answer["state"] == "approved"
    sealed = base64.b64decode(answer["sealed"])
    bundle = json.loads(sealing.open(private, sealed))
    assert bundle["password"] == director.credentials.logins["table-3"]
    with pytest.raises(sealing.SealError, match="sealed for another table"):
        sealing.open(random.Random(5).randbytes(32), sealed)


def test_the_table_keeps_trying_while_the_director_is_gone(tmp_path: Path) -> None:
    gone = Found("Spring Open", "127.0.0.1", free_port(), 1883, a_key(), "0.1.0")
    table = Table(tmp_path / "fleet", gone)
    wait_until("the table says so", lambda: sum("cannot be reached" in w for w in table.words) >= 3)
    assert table.thread.is_alive()
    assert "still trying" in table.words[-1]
    table.stop.set()
    table.done()
    assert isinstance(table.error, JoinStopped)
    assert membership.load(tmp_path / "fleet") is None


def test_two_directors_found_is_an_error_naming_them(tmp_path: Path) -> None:
    two = [
        Found("Spring Open", "10.0.0.2", 8090, 1883, a_key(), "0.1.0"),
        Found("Club Night", "10.0.0.3", 8090, 1883, a_key(), "0.1.0"),
    ]
    table = Table(tmp_path / "fleet", None, find=lambda timeout: two)
    table.done()
    words = str(table.error)
    assert "Spring Open at 10.0.0.2:8090" in words and "Club Night" in words
    assert "--director" in words


def test_no_director_found_keeps_looking_and_says_so(tmp_path: Path) -> None:
    table = Table(tmp_path / "fleet", None, find=lambda timeout: [])
    wait_until("said", lambda: any("no director found" in w for w in table.words))
    table.stop.set()
    table.done()
    assert isinstance(table.error, JoinStopped)


def test_a_damaged_membership_is_never_replaced_by_joining(
    director: Director, tmp_path: Path
) -> None:
    folder = tmp_path / "fleet"
    folder.mkdir()
    (folder / "membership.json").write_text("{damaged")
    table = Table(folder, director.found())
    table.done()
    assert isinstance(table.error, MembershipError)
    assert director.waiting() == []  # it never asked
    assert (folder / "membership.json").read_text() == "{damaged"


def test_a_fixed_address_is_asked_who_it_is(director: Director) -> None:
    found = discovery.parse_director(f"http://127.0.0.1:{director.port}")
    assert found.url == f"http://127.0.0.1:{director.port}"
    for bad, words in [
        ("", "no director's address"),
        ("10.0.0.2:http", "not a port number"),
        ("a b", "not an address"),
    ]:
        with pytest.raises(DiscoveryError, match=words):
            discovery.parse_director(bad)
    assert discovery.split_address("director.local") == ("director.local", 8090)
    assert discovery.split_address("[::1]:9000") == ("::1", 9000)
    with pytest.raises(DiscoveryError, match="cannot be reached"):
        discovery.parse_director(f"http://127.0.0.1:{free_port()}")


def test_a_dashboard_not_in_fleet_mode_says_so(tmp_path: Path) -> None:
    store = DirectorStore(tmp_path / "d.sqlite")
    served = Served(DirectorPage(store))
    try:
        port = int(served.url.rstrip("/").rsplit(":", 1)[1])
        with pytest.raises(DiscoveryError, match="answered 404"):
            discovery.parse_director(f"http://127.0.0.1:{port}")
    finally:
        served.close()
        store.close()


def test_a_table_waiting_long_says_it_still_waits(director: Director, tmp_path: Path) -> None:
    ticks = iter(range(0, 10**9, 61))  # a minute and a second between looks at the clock
    table = Table(tmp_path / "fleet", director.found(), clock=lambda: float(next(ticks)))
    wait_until("reminded", lambda: any("still waiting for the director" in w for w in table.words))
    table.stop.set()
    table.done()
    assert isinstance(table.error, JoinStopped)
    assert table_key(tmp_path / "fleet")  # the key kept: the next try shows the same code


def a_key() -> str:
    """A director's public key as announced."""
    return discovery.key_text(new_keys()[1])


def test_two_tables_showing_one_code_are_flagged_and_not_approved(tmp_path: Path) -> None:
    from test_fleet_requests import SALT

    director = Director(tmp_path, JoinRequests(salts=lambda: SALT))
    try:
        _two_tables_showing_one_code(director)
    finally:
        director.close()


def _two_tables_showing_one_code(director: Director) -> None:
    from test_fleet_requests import same_code_keys

    a, b = same_code_keys(discovery.key_der(discovery.key_text(director.public)))
    asked = [post(director.url + "api/fleet/join", join_body(k))[1] for k in (a, b)]
    for k, one in zip((a, b), asked, strict=True):
        one["code"] = code_for(director, k, one["salt"])
    assert asked[0]["code"] == asked[1]["code"]
    assert [r["same_code"] for r in director.waiting()] == [True, True]
    status, body = post(
        director.url + "api/fleet/approve",
        {"request": asked[0]["request"], "code": asked[0]["code"], "name": "Table 1"},
        director.cookie,
    )
    assert status == 409 and "show the same code" in body["problem"]
    assert "refuse the one you do not recognise" in body["fix"]
    assert director.credentials.logins == {}
    status, _ = post(
        director.url + "api/fleet/refuse", {"request": asked[1]["request"]}, director.cookie
    )
    assert status == 200
    status, body = post(
        director.url + "api/fleet/approve",
        {"request": asked[0]["request"], "code": asked[0]["code"], "name": "Table 1"},
        director.cookie,
    )
    assert (status, body) == (200, {"table": "table-1", "name": "Table 1"})
    status, answer = get_status(director.url + f"api/fleet/join/{asked[1]['request']}")
    assert answer == {"state": "refused", "reason": "the director refused this table"}


# --- a copied card: two machines asking with one key ---------------------------------


class ShiftedClock:
    """The director's clock: real time, moved ahead when the test says."""

    def __init__(self) -> None:
        self.ahead = 0.0

    def __call__(self) -> float:
        return time.time() + self.ahead


def test_a_copied_card_asks_from_two_machines_and_is_not_approved_until_one_is_left(
    tmp_path: Path,
) -> None:
    from test_fleet_identity import CPUINFO, SERIAL, machine

    from table_controller.director.fleet.machines import JOIN_WINDOW
    from table_controller.table.fleet.identity import machine_claim

    clock = ShiftedClock()
    (tmp_path / "director").mkdir()
    director = Director(tmp_path / "director", JoinRequests(clock=clock))
    try:
        found = director.found()
        # The first Pi made its join key; its card was copied into a second Pi.
        table_key(tmp_path / "pi-a" / "fleet")
        shutil.copytree(tmp_path / "pi-a" / "fleet", tmp_path / "pi-b" / "fleet")
        pi_a = machine_claim(machine(tmp_path / "pi-a" / "hw", cpuinfo=CPUINFO))
        other = CPUINFO.replace(SERIAL, "10000000ffee0011")
        pi_b = machine_claim(machine(tmp_path / "pi-b" / "hw", cpuinfo=other))
        assert pi_a is not None and pi_b is not None and pi_a != pi_b
        a = Table(tmp_path / "pi-a" / "fleet", found, machine=pi_a)
        wait_until("the first Pi asks", lambda: len(director.waiting()) == 1)
        b = Table(tmp_path / "pi-b" / "fleet", found, machine=pi_b)
        # One request (one key: one code on both), asked by two machines.
        wait_until("both Pis ask", lambda: director.waiting()[0]["machines"] == 2)
        [asked] = director.waiting()
        wait_until("both show the code", lambda: a.codes != [] and b.codes != [])
        assert a.codes == b.codes == [asked["code"]]
        assert asked["copied"].startswith(
            "2 tables ask with this code: a copied card. On each copy, stop its service"
        )
        form = {"request": asked["request"], "code": asked["code"], "name": "Table 1"}
        status, body = post(director.url + "api/fleet/approve", form, director.cookie)
        assert status == 409
        assert body["problem"] == "2 tables ask with this code: a copied card"
        assert "sudo rm -r /var/lib/table-controller/fleet" in body["fix"]
        assert "approve this code once only one table asks" in body["fix"]
        assert director.credentials.logins == {}  # nothing was given

        # The copy is stopped (to be set right); once its polls are past the window,
        # one machine asks and the code is approved as before.
        b.stop.set()
        b.done()
        assert isinstance(b.error, JoinStopped)
        clock.ahead += JOIN_WINDOW + 1
        moved = clock()
        request = director.fleet.requests.get(asked["request"])
        assert request is not None
        wait_until(
            "the first Pi polls again",
            lambda: request.machines[pi_a["id"]]["last_seen"] >= moved,
        )
        assert director.waiting()[0]["copied"] is None
        status, body = post(director.url + "api/fleet/approve", form, director.cookie)
        assert (status, body) == (200, {"table": "table-1", "name": "Table 1"})
        m = a.done()
        assert a.error is None and m.table == "table-1"
        # The machine that asked is kept as the table's, in the store.
        [kept] = director.store.machines.machines("table-1")
        assert (kept["machine"], kept["source"]) == (pi_a["id"], "serial")
    finally:
        director.close()


def test_a_request_naming_no_machine_is_taken_and_a_bad_one_is_refused(
    director: Director,
) -> None:
    key = sealing.public_of(random.Random(5).randbytes(32))
    status, asked = post(director.url + "api/fleet/join", join_body(key))  # an older table
    assert status == 202
    [row] = director.waiting()
    assert (row["machines"], row["copied"]) == (0, None)
    status, _ = get_status(director.url + f"api/fleet/join/{asked['request']}?machine=zz")
    assert status == 200  # a poll naming a machine oddly still counts as a poll
    for bad in ({"id": "A1" * 8, "source": "serial"}, {"id": "a1" * 8, "source": "cpu"}, "x"):
        status, body = post(director.url + "api/fleet/join", {**join_body(key), "machine": bad})
        assert status == 400
        assert body["problem"] == (
            "the request names its machine in a form this director does not read"
        )
