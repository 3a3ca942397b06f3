"""Sealed bundles (fleet/sealing.py) and the join code: what the director seals to a
table's key opens with that key only, and a changed byte makes it fail in words."""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table_controller.fleet import sealing
from table_controller.fleet.sealing import SealError, join_check, public_of, seal


def keys(seed: int) -> tuple[bytes, bytes]:
    """A deterministic key pair (any 32 bytes is an X25519 private key)."""
    private = random.Random(seed).randbytes(32)
    return private, public_of(private)


def code_of(key: bytes, salt: bytes = b"s" * 16) -> str:
    return join_check(b"director", key, salt).code


@settings(max_examples=200, deadline=None)
@given(st.binary(min_size=0, max_size=64), st.binary(min_size=16, max_size=16))
def test_a_code_is_four_digits_one_to_nine_and_a_check_twenty(key: bytes, salt: bytes) -> None:
    shown = join_check(b"director", key, salt)
    assert len(shown.code) == 4 and all(c in "123456789" for c in shown.code)
    assert re.fullmatch(r"\d{4}( \d{4}){4}", shown.check)
    assert join_check(b"director", key, salt) == shown  # the same request shows the same


def test_the_code_and_check_bind_both_keys_and_the_salt() -> None:
    key, salt = random.Random(1).randbytes(32), random.Random(2).randbytes(16)
    shown = join_check(b"director", key, salt)
    for other in (
        join_check(b"another director", key, salt),
        join_check(b"director", key[::-1], salt),
        join_check(b"director", key, salt[::-1]),
    ):
        assert other.check != shown.check
    # Moving a byte from one part to the next is another request, not the same one.
    assert join_check(b"director" + key[:1], key[1:], salt) != shown


def test_codes_spread_over_every_digit() -> None:
    codes = {code_of(random.Random(i).randbytes(32)) for i in range(2000)}
    assert len(codes) > 1500
    assert {c[0] for c in codes} == set("123456789")


@settings(max_examples=50, deadline=None)
@given(st.binary(max_size=4096), st.integers(0, 2**32))
def test_a_sealed_bundle_opens_with_its_key(plaintext: bytes, seed: int) -> None:
    private, public = keys(seed)
    assert sealing.open(private, seal(public, plaintext)) == plaintext


def test_sealing_twice_gives_different_bytes() -> None:
    _, public = keys(1)
    assert seal(public, b"same") != seal(public, b"same")


def test_a_bundle_sealed_for_another_key_cannot_be_opened() -> None:
    _, public = keys(1)
    other, _ = keys(2)
    with pytest.raises(SealError, match="sealed for another table"):
        sealing.open(other, seal(public, b'{"password": "x"}'))


@pytest.mark.parametrize("where", [0, 1, 20, 33, 40, 45, 60, -1])
def test_any_changed_byte_is_refused(where: int) -> None:
    private, public = keys(3)
    sealed = bytearray(seal(public, b'{"password": "secret of table 7"}'))
    sealed[where] ^= 0x01
    with pytest.raises(SealError) as refused:
        sealing.open(private, bytes(sealed))
    assert "join again" in str(refused.value) or "same release" in str(refused.value)


def test_cut_short_or_empty_is_refused_in_words() -> None:
    private, public = keys(4)
    sealed = seal(public, b"hello")
    for bad in (b"", sealed[:40], sealed[:-1]):
        with pytest.raises(SealError):
            sealing.open(private, bad)


def test_a_key_of_the_wrong_size_is_refused_in_words() -> None:
    with pytest.raises(SealError, match="32 bytes"):
        seal(b"short", b"x")
    with pytest.raises(SealError, match="32 bytes"):
        sealing.open(b"short", seal(keys(5)[1], b"x"))
