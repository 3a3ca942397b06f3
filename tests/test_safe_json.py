"""The limited JSON and TOML readers and the clipped values in error messages."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from table_controller.clip import clip, clip_text
from table_controller.safe_json import JSONLimitError, loads_limited
from table_controller.safe_toml import TOMLLimitError
from table_controller.safe_toml import loads_limited as toml_limited


def test_valid_json_reads_as_json_does() -> None:
    text = '{"event": "deal", "n": [1, 2.5, -3, null, true, "a\\"]["], "o": {}}'
    assert loads_limited(text) == json.loads(text)
    assert loads_limited(text.encode()) == json.loads(text)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[" * 100_000 + "]" * 100_000, "nested more than 32 levels deep"),
        ('{"a":' * 40 + "1" + "}" * 40, "nested more than 32 levels deep"),
        ("9" * 5000, "a number has 5,000 digits; at most 20 are allowed"),
        ("-" + "9" * 21, "a number has 21 digits"),
        ("NaN", "NaN is not a JSON number"),
        ("[Infinity]", "Infinity is not a JSON number"),
        ("1e999", "the number 1e999 is too large"),
        ("{", "not valid JSON (Expecting property name enclosed in double quotes at column 2)"),
        (b"\xff", "not UTF-8 text"),
    ],
)
def test_limits_give_one_line(text: str | bytes, message: str) -> None:
    with pytest.raises(JSONLimitError) as info:
        loads_limited(text)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_brackets_inside_strings_do_not_count() -> None:
    text = json.dumps(["[" * 1000, "{" * 1000])
    assert loads_limited(text) == ["[" * 1000, "{" * 1000]
    assert loads_limited("[" * 32 + "]" * 32) is not None
    assert loads_limited("9" * 20, max_int_digits=20) == int("9" * 20)


@given(st.text(max_size=200))
def test_any_text_reads_or_gives_the_one_error(text: str) -> None:
    try:
        loads_limited(text)
    except JSONLimitError as exc:
        assert "\n" not in str(exc)


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**20) + 1, 10**20 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
    max_leaves=20,
)


@given(JSON_VALUES)
def test_json_values_read_as_json_does(value: object) -> None:
    text = json.dumps(value)
    assert loads_limited(text) == json.loads(text)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a = " + "[" * 100_000 + "]" * 100_000, "nested more than 16 levels deep"),
        ("a = " + "{b=" * 5000 + "1" + "}" * 5000, "nested more than 16 levels deep"),
        ("a" + ".a" * 3000 + " = 1", "nested more than 16 levels deep"),
        ("a = " + "9" * 5000, "thousands of digits"),
        ("a = " + "9" * 30, "a number has 30 digits; at most 20 are allowed"),
    ],
)
def test_toml_limits(text: str, message: str) -> None:
    with pytest.raises(TOMLLimitError, match=message):
        toml_limited(text)


def test_toml_nan_is_read_for_the_range_checks() -> None:
    assert math.isnan(toml_limited("a = nan")["a"])
    assert toml_limited("[s.N]\nled = [1, 2, 3]") == {"s": {"N": {"led": [1, 2, 3]}}}


def test_clip_says_how_long_the_value_was() -> None:
    assert clip("JH") == "'JH'"
    long = clip("x" * 1_000_000)
    assert long.startswith("'xxx") and long.endswith("… (1,000,000 characters)")
    assert len(long) < 120
    assert clip_text("y" * 100, 10) == "yyyyyyyyyy… (100 characters)"
    deep: list[object] = []
    for _ in range(100_000):
        deep = [deep]
    assert clip(deep) == "(a value nested too deeply to show)"


def test_escaped_quotes_and_custom_limits() -> None:
    # Brackets inside strings (escaped quotes too) are text, not nesting.
    assert loads_limited('["' + "[" * 100 + '\\"' + '{" ]') == ["[" * 100 + '"{']
    with pytest.raises(JSONLimitError):
        loads_limited("[" * 5 + "]" * 5, max_depth=4)
    with pytest.raises(JSONLimitError, match="at most 3") as caught:
        loads_limited('{"points": -1234}', max_int_digits=3)
    assert "1234" not in str(caught.value)  # the input is never echoed
    assert loads_limited("-123", max_int_digits=3) == -123
    for bad in ("1" * 100 + ".5", "-Infinity", b"", b'{"a": 1', "[1,]"):
        with pytest.raises(JSONLimitError):
            loads_limited(bad)
    assert issubclass(JSONLimitError, ValueError)


@given(st.binary(max_size=300))
def test_any_bytes_give_a_value_or_a_one_line_error(data: bytes) -> None:
    try:
        loads_limited(data)
    except JSONLimitError as exc:
        assert "\n" not in str(exc) and len(str(exc)) < 200
