"""JSON from strangers, read with limits: how deep it nests and how long its numbers are.

Python's ``json`` recurses once per level of nesting, so a body of ten thousand ``[``
raises ``RecursionError``; and since Python 3.11 an integer of more than 4,300 digits
raises a bare ``ValueError``. Neither is the ``JSONDecodeError`` a caller expects, so a
web handler answered them with a 500 and a traceback. ``loads_limited`` checks the
nesting before ``json`` sees the text and the digits as each number is read, and answers
every problem, malformed or over a limit, with one ``JSONLimitError``: a ``ValueError``
whose message is one line and never echoes the input.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

MAX_DEPTH = 32  # arrays and objects inside each other
MAX_INT_DIGITS = 30  # digits of an integer (a score, a count: 30 is far more than any needs)
MAX_NUMBER_CHARS = 64  # characters of any number literal (floats too)

_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")


class JSONLimitError(ValueError):
    """The text is not JSON, or is JSON over a limit: the message says which, in one line."""


def loads_limited(
    data: bytes | str,
    *,
    max_depth: int = MAX_DEPTH,
    max_int_digits: int = MAX_INT_DIGITS,
) -> Any:
    """``json.loads`` for untrusted input: raises ``JSONLimitError`` (never
    ``RecursionError`` or a bare ``ValueError``) for text that is not UTF-8 JSON, nests
    deeper than ``max_depth``, has an integer of more than ``max_int_digits`` digits, a
    number literal of more than 64 characters, or NaN/Infinity."""
    if isinstance(data, bytes | bytearray):
        try:
            text = bytes(data).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise JSONLimitError(f"not UTF-8 text (a bad byte at {exc.start})") from None
    else:
        text = data
    _check_depth(text, max_depth)

    def parse_int(literal: str) -> int:
        if len(literal.lstrip("-")) > max_int_digits:
            raise JSONLimitError(
                f"a number has {len(literal.lstrip('-'))} digits; at most {max_int_digits} "
                "are taken"
            )
        return int(literal)

    def parse_float(literal: str) -> float:
        if len(literal) > MAX_NUMBER_CHARS:
            raise JSONLimitError(
                f"a number is {len(literal)} characters long; at most {MAX_NUMBER_CHARS} are taken"
            )
        value = float(literal)
        if not math.isfinite(value):
            raise JSONLimitError("a number is too large to hold")
        return value

    def parse_constant(name: str) -> Any:
        raise JSONLimitError(f"{name} is not a JSON number")

    try:
        return json.loads(
            text, parse_int=parse_int, parse_float=parse_float, parse_constant=parse_constant
        )
    except JSONLimitError:
        raise
    except json.JSONDecodeError as exc:
        raise JSONLimitError(
            f"not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
        ) from None
    except (ValueError, RecursionError) as exc:  # belt and braces: never a traceback
        raise JSONLimitError(f"not JSON that can be read ({type(exc).__name__})") from None


def _check_depth(text: str, max_depth: int) -> None:
    """Brackets outside strings counted, without recursion."""
    depth = 0
    for match in _BRACKET.finditer(_STRING.sub('""', text)):
        if match.group() in "[{":
            depth += 1
            if depth > max_depth:
                raise JSONLimitError(f"the JSON nests deeper than {max_depth} levels")
        else:
            depth -= 1


__all__ = ["MAX_DEPTH", "MAX_INT_DIGITS", "JSONLimitError", "loads_limited"]
