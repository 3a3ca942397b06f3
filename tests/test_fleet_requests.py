"""The tables asking to join, at the director's (director/fleet/core.py ``JoinRequests``):
in memory, at most 50 waiting, a fair share per address, kept while polled and
forgotten 15 minutes after the last poll, two showing the same code both flagged."""

from __future__ import annotations

import random

import pytest

from table_controller.director.fleet.core import MAX_MACHINES, FleetError, JoinRequests
from table_controller.fleet.sealing import join_check

SALT = b"a fixed salt 16b"  # where two requests must show one code


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def key(i: int) -> bytes:
    return random.Random(i).randbytes(32)


def code_of(k: bytes, director_key: bytes = b"", salt: bytes = SALT) -> str:
    return join_check(director_key, k, salt).code


def same_code_keys(director_key: bytes = b"") -> tuple[bytes, bytes]:
    """Two keys whose codes are the same with the salt ``SALT`` (found by trying: 6561
    codes; a director drawing salts gives no way to do this ahead of asking)."""
    seen: dict[str, bytes] = {}
    for i in range(100_000):
        k = key(i)
        c = code_of(k, director_key)
        if c in seen:
            return seen[c], k
        seen[c] = k
    raise AssertionError("no two keys with one code")


def ask(reqs: JoinRequests, k: bytes, address: str = "10.0.0.5"):  # type: ignore[no-untyped-def]
    return reqs.ask(k, host="pi-table", address=address, version="0.1.0")


def test_a_request_waits_with_its_code_check_and_address() -> None:
    reqs = JoinRequests(clock=Clock(), salts=lambda: SALT)
    r = ask(reqs, key(1))
    assert len(r.request) >= 22 and r.code == code_of(key(1))
    assert r.check == join_check(b"", key(1), SALT).check
    [row] = reqs.waiting()
    assert row == {
        "request": r.request,
        "code": r.code,
        "check": r.check,
        "host": "pi-table",
        "address": "10.0.0.5",
        "version": "0.1.0",
        "asked_at": 1_000_000.0,
        "last_seen": 1_000_000.0,
        "same_code": False,
        "machines": 0,  # an older table names no machine
        "copied": None,
    }
    assert reqs.get(r.request) is r
    assert r.answer() == {"state": "waiting", "salt": "YSBmaXhlZCBzYWx0IDE2Yg=="}


def test_each_request_draws_its_own_salt() -> None:
    reqs = JoinRequests(clock=Clock())
    a, b = ask(reqs, key(1)), ask(reqs, key(2))
    assert len(a.salt) == 16 and a.salt != b.salt


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


def test_one_address_holds_a_fair_share_and_others_still_get_in() -> None:
    clock = Clock()
    reqs = JoinRequests(cap=10, share=4, clock=clock)
    for i in range(4):
        ask(reqs, key(i), address="10.0.0.66")
    with pytest.raises(FleetError) as refused:
        ask(reqs, key(4), address="10.0.0.66")
    assert refused.value.status == 429 and "as many as one address may have" in refused.value.what
    for i in range(4):
        clock.now += 1
        ask(reqs, key(10 + i), address="10.0.0.67")
    ask(reqs, key(20), address="10.0.0.68")
    ask(reqs, key(21), address="10.0.0.68")  # full now: 4 + 4 + 2
    real = ask(reqs, key(30), address="10.0.0.5")  # takes the stalest of a biggest share
    assert reqs.get(real.request) is real
    held = [row["address"] for row in reqs.waiting()]
    assert len(held) == 10 and held.count("10.0.0.66") == 3 and "10.0.0.5" in held


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


def test_a_request_is_forgotten_fifteen_minutes_after_its_last_poll() -> None:
    clock = Clock()
    reqs = JoinRequests(clock=clock)
    r = ask(reqs, key(1))
    for _ in range(6):  # an hour and a half, the table polling every 14 minutes
        clock.now += 14 * 60
        assert reqs.poll(r.request) is r
    [row] = reqs.waiting()
    assert row["asked_at"] == 1_000_000.0 and row["last_seen"] == clock.now
    clock.now += 14 * 60
    assert reqs.get(r.request) is r  # the director looking is not the table polling
    clock.now += 2 * 60
    assert reqs.get(r.request) is None and reqs.waiting() == []


def test_two_requests_with_one_code_are_both_flagged() -> None:
    reqs = JoinRequests(clock=Clock(), salts=lambda: SALT)
    a, b = same_code_keys()
    ra, rb = ask(reqs, a), ask(reqs, b, address="10.0.0.66")
    ask(reqs, key(123456), address="10.0.0.7")
    flags = {row["request"]: row["same_code"] for row in reqs.waiting()}
    assert flags[ra.request] and flags[rb.request]
    assert sum(flags.values()) == 2
    assert reqs.same_code(ra) and reqs.same_code(rb)


# --- two machines asking with one key: a copied SD card -------------------------------

PI_A = ("a1a1a1a1a1a1a1a1", "serial")
PI_B = ("b2b2b2b2b2b2b2b2", "serial")


def test_two_machines_asking_with_one_key_are_one_request_told_as_a_copied_card() -> None:
    clock = Clock()
    reqs = JoinRequests(clock=clock, salts=lambda: SALT, machine_window=120)
    k = key(7)
    r = reqs.ask(k, host="pi", address="10.0.0.5", version="0.1.0", machine=PI_A)
    assert reqs.asking(r) == []
    [row] = reqs.waiting()
    assert (row["machines"], row["copied"]) == (1, None)
    clock.now += 5
    # The copy asks with the very same key: the same request (one code on both).
    again = reqs.ask(k, host="pi", address="10.0.0.9", version="0.1.0", machine=PI_B)
    assert again is r
    # One machine after the other is not yet two at once (a card moved into another
    # Pi is that); the first polling again while the second asks is.
    assert reqs.asking(r) == []
    clock.now += 1
    reqs.poll(r.request, PI_A[0])
    assert [m["machine"] for m in reqs.asking(r)] == [PI_A[0], PI_B[0]]
    [row] = reqs.waiting()
    assert row["machines"] == 2
    assert row["copied"] is not None
    assert row["copied"].startswith("2 tables ask with this code: a copied card. On each copy,")
    assert "sudo rm -r /var/lib/table-controller/fleet" in row["copied"]
    # Both keep polling: still two.
    clock.now += 60
    assert reqs.poll(r.request, PI_A[0]) is r and reqs.poll(r.request, PI_B[0]) is r
    assert len(reqs.asking(r)) == 2
    # The copy is set right (it asks with a key of its own): only A polls this request.
    for _ in range(3):
        clock.now += 50
        reqs.poll(r.request, PI_A[0])
    assert reqs.asking(r) == []
    [row] = reqs.waiting()
    assert (row["machines"], row["copied"]) == (1, None)


def test_a_poll_cannot_add_a_machine_and_one_request_keeps_a_few() -> None:
    clock = Clock()
    reqs = JoinRequests(clock=clock, salts=lambda: SALT)
    r = reqs.ask(key(8), host="pi", address="10.0.0.5", version="0.1.0", machine=PI_A)
    reqs.poll(r.request, PI_B[0])  # a machine that never asked with the key
    assert list(r.machines) == [PI_A[0]]
    for i in range(MAX_MACHINES + 5):
        clock.now += 1
        reqs.ask(
            key(8), host="pi", address="10.0.0.5", version="0.1.0", machine=(f"{i:016x}", "boot")
        )
    assert len(r.machines) == MAX_MACHINES
