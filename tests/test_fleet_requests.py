"""The tables asking to join, at the director's (director/fleet.py ``JoinRequests``):
in memory, at most 50 waiting, limited per address, forgotten after 15 minutes, two
showing the same code both flagged."""

from __future__ import annotations

import random

import pytest

from table_controller.director.fleet import FleetError, JoinRequests
from table_controller.fleet.sealing import code_of


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def key(i: int) -> bytes:
    return random.Random(i).randbytes(32)


def same_code_keys() -> tuple[bytes, bytes]:
    """Two keys whose codes are the same (found by trying: 6561 codes)."""
    seen: dict[str, bytes] = {}
    for i in range(100_000):
        k = key(i)
        c = code_of(k)
        if c in seen:
            return seen[c], k
        seen[c] = k
    raise AssertionError("no two keys with one code")


def ask(reqs: JoinRequests, k: bytes, address: str = "10.0.0.5"):  # type: ignore[no-untyped-def]
    return reqs.ask(k, host="pi-table", address=address, version="0.1.0")


def test_a_request_waits_with_its_code_and_address() -> None:
    reqs = JoinRequests(clock=Clock())
    r = ask(reqs, key(1))
    assert len(r.request) >= 22 and r.code == code_of(key(1))
    [row] = reqs.waiting()
    assert row == {
        "request": r.request,
        "code": r.code,
        "host": "pi-table",
        "address": "10.0.0.5",
        "version": "0.1.0",
        "asked_at": 1_000_000.0,
        "same_code": False,
    }
    assert reqs.get(r.request) is r and r.answer() == {"state": "waiting"}


def test_the_same_key_asking_again_keeps_its_request() -> None:
    reqs = JoinRequests(clock=Clock())
    assert ask(reqs, key(1)).request == ask(reqs, key(1)).request
    assert len(reqs.waiting()) == 1


def test_at_most_fifty_wait_and_the_next_is_told_in_words() -> None:
    reqs = JoinRequests(clock=Clock())
    for i in range(50):
        ask(reqs, key(i), address=f"10.0.0.{i}")
    with pytest.raises(FleetError) as refused:
        ask(reqs, key(99), address="10.0.1.1")
    assert refused.value.status == 503
    assert "50 tables are already waiting" in refused.value.what


def test_one_address_asking_too_often_waits() -> None:
    clock = Clock()
    reqs = JoinRequests(per_address=3, window=60, clock=clock)
    for i in range(3):
        ask(reqs, key(i))
    with pytest.raises(FleetError) as refused:
        ask(reqs, key(3))
    assert refused.value.status == 429 and "wait a minute" in refused.value.fix
    ask(reqs, key(3), address="10.0.0.6")  # another address is not held back
    clock.now += 61
    ask(reqs, key(4))


def test_a_request_is_forgotten_after_fifteen_minutes() -> None:
    clock = Clock()
    reqs = JoinRequests(clock=clock)
    r = ask(reqs, key(1))
    clock.now += 14 * 60
    assert reqs.get(r.request) is r
    clock.now += 2 * 60
    assert reqs.get(r.request) is None and reqs.waiting() == []


def test_two_requests_with_one_code_are_both_flagged() -> None:
    reqs = JoinRequests(clock=Clock())
    a, b = same_code_keys()
    ra, rb = ask(reqs, a), ask(reqs, b, address="10.0.0.66")
    ask(reqs, key(123456), address="10.0.0.7")
    flags = {row["request"]: row["same_code"] for row in reqs.waiting()}
    assert flags[ra.request] and flags[rb.request]
    assert sum(flags.values()) == 2
    assert reqs.same_code(ra) and reqs.same_code(rb)
