"""JSON from files and requests, with limits on nesting and number size.

Python's ``json`` parser recurses once per nesting level (a line of 100,000 ``[`` raises
``RecursionError``) and turns a 5,000-digit number into ``int`` (``ValueError`` past
``sys.get_int_max_str_digits``, and quadratic time below it). Neither is a
``JSONDecodeError``, so a caller that handles bad JSON still shows a traceback.
``loads_limited`` checks the nesting before parsing and the digits before converting,
refuses ``NaN``/``Infinity`` (not JSON, and they break arithmetic downstream), and raises
one error type whose message is one line.
"""

from __future__ import annotations

import json
import re
from typing import Any

from table_controller.errors import TableControllerError

MAX_DEPTH = 32  # no file or message of the project nests deeper than about 6
MAX_INT_DIGITS = 20  # a 64-bit integer has at most 20 digits
MAX_NUMBER_CHARS = 64  # characters of any number literal (floats too)

# A JSON string (skipped whole, so brackets inside it do not count) or one bracket.
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)


class JSONLimitError(TableControllerError, ValueError):
    """JSON that is not valid or passes a limit; the message is one line."""


def loads_limited(
    data: bytes | str, *, max_depth: int = MAX_DEPTH, max_int_digits: int = MAX_INT_DIGITS
) -> Any:
    """``json.loads(data)``, refusing nesting deeper than ``max_depth``, integers longer
    than ``max_int_digits`` digits and non-finite numbers."""
    if isinstance(data, bytes | bytearray):
        try:
            text = bytes(data).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise JSONLimitError(f"not UTF-8 text (a bad byte at byte {exc.start})") from None
    else:
        text = data
    _check_depth(text, max_depth)

    def parse_int(digits: str) -> int:
        if len(digits.lstrip("-")) > max_int_digits:
            raise JSONLimitError(
                f"a number has {len(digits.lstrip('-')):,} digits; at most "
                f"{max_int_digits} are allowed"
            )
        return int(digits)

    def parse_float(digits: str) -> float:
        if len(digits) > MAX_NUMBER_CHARS:
            raise JSONLimitError(
                f"a number is {len(digits):,} characters long; at most {MAX_NUMBER_CHARS} "
                "are allowed"
            )
        value = float(digits)
        if value in (float("inf"), float("-inf")):
            raise JSONLimitError(f"the number {digits[:40]} is too large")
        return value

    def parse_constant(name: str) -> Any:
        raise JSONLimitError(f"{name} is not a JSON number; write a number or null")

    try:
        return json.loads(
            text, parse_int=parse_int, parse_float=parse_float, parse_constant=parse_constant
        )
    except JSONLimitError:
        raise
    except json.JSONDecodeError as exc:
        where = (
            f"column {exc.colno}" if exc.lineno == 1 else f"line {exc.lineno}, column {exc.colno}"
        )
        raise JSONLimitError(f"not valid JSON ({exc.msg} at {where})") from None
    except RecursionError:  # the depth check above should make this unreachable
        raise JSONLimitError("nested too deeply") from None
    except ValueError as exc:  # belt and braces: one error kind, never a traceback
        raise JSONLimitError(f"not JSON that can be read ({type(exc).__name__})") from None


def _check_depth(text: str, max_depth: int) -> None:
    depth = 0
    for match in _TOKENS.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > max_depth:
                raise JSONLimitError(
                    f"nested more than {max_depth} levels deep (at character "
                    f"{match.start():,}); no valid input nests that deep"
                )
        elif token in "]}":
            depth -= 1


__all__ = ["MAX_DEPTH", "MAX_INT_DIGITS", "JSONLimitError", "loads_limited"]
