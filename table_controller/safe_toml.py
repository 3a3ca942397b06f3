"""TOML files read with limits, so a bad file gives a one-line error, not a traceback.

``tomllib`` recurses once per nested array or inline table (``a = [[[[...`` raises
``RecursionError``) and converts integers with ``int`` (``ValueError`` past 4,300
digits). Neither is a ``TOMLDecodeError``. ``loads_limited`` turns both into
``TOMLLimitError`` and also refuses nesting (dotted keys included) and integers no
configuration needs, so nothing downstream meets them.
"""

from __future__ import annotations

import tomllib
from typing import Any

from table_controller.errors import TableControllerError

MAX_DEPTH = 16  # a configuration nests about 3 levels ([seats.N] led = [...])
MAX_INT_DIGITS = 20


class TOMLLimitError(TableControllerError, ValueError):
    """TOML that passes a limit; the message is one line."""


def loads_limited(
    text: str, *, max_depth: int = MAX_DEPTH, max_int_digits: int = MAX_INT_DIGITS
) -> dict[str, Any]:
    """``tomllib.loads(text)``; a ``TOMLDecodeError`` for bad syntax as before, a
    ``TOMLLimitError`` for nesting deeper than ``max_depth`` or a longer integer."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        raise
    except RecursionError:
        raise TOMLLimitError(
            f"nested more than {max_depth} levels deep; no valid file nests that deep"
        ) from None
    except ValueError:  # int(): past Python's limit on digits
        raise TOMLLimitError(
            f"a number has thousands of digits; at most {max_int_digits} are allowed"
        ) from None
    _check(data, max_depth, max_int_digits)
    return data


def _check(data: dict[str, Any], max_depth: int, max_int_digits: int) -> None:
    """Walk the parsed values without recursion: depth and integer size."""
    too_big = 10**max_int_digits
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict | list):
            if depth > max_depth:
                raise TOMLLimitError(
                    f"nested more than {max_depth} levels deep; no valid file nests that deep"
                )
            items = value.values() if isinstance(value, dict) else value
            stack.extend((v, depth + 1) for v in items)
        elif isinstance(value, int) and not isinstance(value, bool) and abs(value) >= too_big:
            raise TOMLLimitError(
                f"a number has {len(str(abs(value))):,} digits; at most {max_int_digits} "
                "are allowed"
            )
