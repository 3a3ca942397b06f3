"""Signed rulings: the director's key signs, a table verifies; anything else is refused."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from table_controller.feed.signing import (
    MAX_AGE,
    Ruling,
    RulingRejected,
    new_keys,
    sign,
    verify,
)

KEYS = new_keys()
OTHER = new_keys()
NOW = 1_700_000_000.0
VOID = {"event": "hand_voided", "reason": "cards exposed"}


def ruling(**kw: object) -> Ruling:
    base: dict[str, object] = dict(
        ruling_id="r1",
        table="t-1",
        kind="void_hand",
        event=VOID,
        reason="exposed",
        director="td",
        at=NOW,
    )
    base.update(kw)
    return Ruling(**base)  # type: ignore[arg-type]


def test_a_signed_ruling_verifies_to_itself() -> None:
    r = ruling()
    assert verify(sign(r, KEYS[0]), KEYS[1], table="t-1", now=NOW + 5) == r


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda p: p.update(reason="other"), "signature"),
        (lambda p: p.update(sig="AAAA"), "signature"),
        (lambda p: p.pop("sig"), "not signed"),
        (lambda p: p.update(v=2), "version"),
        (lambda p: p.update(extra=1), "fields"),
    ],
)
def test_a_tampered_ruling_is_refused(change: object, words: str) -> None:
    p = sign(ruling(), KEYS[0])
    change(p)  # type: ignore[operator]
    with pytest.raises(RulingRejected, match=words):
        verify(p, KEYS[1], table="t-1", now=NOW)


def test_another_key_another_table_too_old_are_refused() -> None:
    with pytest.raises(RulingRejected, match="signature"):
        verify(sign(ruling(), OTHER[0]), KEYS[1], table="t-1", now=NOW)
    with pytest.raises(RulingRejected, match="not this table"):
        verify(sign(ruling(), KEYS[0]), KEYS[1], table="t-2", now=NOW)
    with pytest.raises(RulingRejected, match="ago"):
        verify(sign(ruling(), KEYS[0]), KEYS[1], table="t-1", now=NOW + MAX_AGE + 1)
    with pytest.raises(RulingRejected, match="future"):
        verify(sign(ruling(), KEYS[0]), KEYS[1], table="t-1", now=NOW - 901)


def test_a_kind_must_carry_its_event() -> None:
    with pytest.raises(RulingRejected, match="score_adjusted"):
        sign(ruling(kind="adjust_score"), KEYS[0])
    assert sign(ruling(kind="confirm_renege", event=None), KEYS[0])["event"] is None


@given(st.text(min_size=1), st.text(min_size=1), st.floats(-1e6, 1e6))
def test_any_text_round_trips(reason: str, director: str, offset: float) -> None:
    if not reason.strip() or not director.strip():
        return
    r = ruling(reason=reason, director=director, at=NOW + offset)
    assert verify(sign(r, KEYS[0]), KEYS[1], table="t-1", now=NOW, max_age=2e6, future=2e6) == r
