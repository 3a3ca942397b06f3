"""The one door of every web listener (web/guard.py): the table's page and the director's
dashboard pass the same checks and carry the same headers, each in its own words."""

from __future__ import annotations

import pytest

from table_controller.director import door as director_door
from table_controller.director.door import DIRECTOR_DOOR
from table_controller.web import guard
from table_controller.web.guard import TABLE_DOOR, Door, HostNames, change_refusal

DOORS = pytest.mark.parametrize("door", [TABLE_DOOR, DIRECTOR_DOOR], ids=["table", "director"])
OWN = {"host": "127.0.0.1:8080", "content-type": "application/json", "content-length": "20"}


def status(headers: dict[str, str], door: Door, hosts: HostNames | None = None) -> int:
    why = change_refusal({**OWN, **headers}, "http", door, hosts)
    return 200 if why is None else why.status


@DOORS
def test_every_listener_refuses_the_same_changes(door: Door) -> None:
    assert status({}, door) == 200
    assert status({"origin": "http://127.0.0.1:8080"}, door) == 200  # a browser, its own page
    for kind in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data", ""):
        assert status({"content-type": kind}, door) == 415, kind
    for origin in ("http://evil.example", "null", "http://127.0.0.1:8081", "HTTP://127.0.0.1:8080"):
        assert status({"origin": origin}, door) == 403, origin
    for length in ("16385", "abc", "1" * 10):
        assert status({"content-length": length}, door) == 413, length
    # Where the listener names its hosts, a foreign name is refused (DNS rebinding).
    assert status({"host": "evil.example:8080"}, door, HostNames()) == 403
    assert status({}, door, HostNames()) == 200


def test_each_listener_says_it_in_its_own_words() -> None:
    table = change_refusal({**OWN, "content-type": "text/plain"}, "http", TABLE_DOOR, None)
    director = change_refusal({**OWN, "content-type": "text/plain"}, "http", DIRECTOR_DOOR, None)
    assert table is not None and director is not None
    assert table.problem == "the input was sent as text/plain, not application/json"
    assert director.problem == "a change must be sent as application/json, not text/plain"
    foreign = change_refusal({**OWN, "origin": "null"}, "http", DIRECTOR_DOOR, None)
    assert foreign is not None and "another site" in foreign.problem


def test_every_listener_carries_the_same_headers() -> None:
    table, director = dict(TABLE_DOOR.headers), dict(DIRECTOR_DOOR.headers)
    assert table.keys() == director.keys()
    assert {k: v for k, v in table.items() if k != b"content-security-policy"} == {
        k: v for k, v in director.items() if k != b"content-security-policy"
    }
    for csp in (table[b"content-security-policy"], director[b"content-security-policy"]):
        assert csp.endswith(guard.CSP_DIRECTIVES.encode())
        assert b"form-action 'none'" in csp and b"frame-ancestors 'none'" in csp
    assert table[b"content-security-policy"].startswith(b"default-src 'none';")


def test_one_refused_for_every_listener() -> None:
    assert not hasattr(director_door, "Refused")
    assert guard.Refused(403, "a problem", "a fix").problem == "a problem"
