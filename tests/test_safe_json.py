"""loads_limited: JSON from strangers, read with limits, every problem one ValueError
with a one-line message that never echoes the input."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from table_controller.safe_json import JSONLimitError, loads_limited


def test_plain_json_reads_as_json() -> None:
    text = '{"event": "passed", "seat": "N", "n": -12, "x": 1.5, "l": [true, null, "]]"]}'
    assert loads_limited(text) == json.loads(text)
    assert loads_limited(text.encode()) == json.loads(text)


def test_deep_nesting_is_a_one_line_error_not_a_recursion_error() -> None:
    for deep in ("[" * 100_000 + "]" * 100_000, '{"a":' * 50_000 + "1" + "}" * 50_000):
        with pytest.raises(JSONLimitError, match="nests deeper than 32 levels"):
            loads_limited(deep)
    assert loads_limited("[" * 32 + "]" * 32) == json.loads("[" * 32 + "]" * 32)
    with pytest.raises(JSONLimitError):
        loads_limited("[" * 5 + "]" * 5, max_depth=4)
    # Brackets inside strings (escaped quotes too) are text, not nesting.
    assert loads_limited('["' + "[" * 100 + '\\"' + '{" ]') == ["[" * 100 + '"{']


def test_huge_numbers_are_refused() -> None:
    with pytest.raises(JSONLimitError, match="5000 digits; at most 30") as caught:
        loads_limited('{"points": ' + "9" * 5000 + "}")
    assert "9999" not in str(caught.value)  # the input is never echoed
    with pytest.raises(JSONLimitError, match="at most 3"):
        loads_limited("-1234", max_int_digits=3)
    assert loads_limited("-123", max_int_digits=3) == -123
    for bad in ("1e999", "1" * 100 + ".5", "NaN", "-Infinity"):
        with pytest.raises(JSONLimitError):
            loads_limited(bad)


def test_malformed_text_is_one_error_kind() -> None:
    for bad in (b"\xff\xfe", b"{not json", b"", b'{"a": 1', "[1,]"):
        with pytest.raises(JSONLimitError) as caught:
            loads_limited(bad)
        assert "\n" not in str(caught.value)
    assert issubclass(JSONLimitError, ValueError)


@given(st.binary(max_size=300) | st.text(max_size=300))
def test_any_input_gives_a_value_or_a_one_line_error(data: bytes | str) -> None:
    try:
        loads_limited(data)
    except JSONLimitError as exc:
        assert "\n" not in str(exc) and len(str(exc)) < 200
