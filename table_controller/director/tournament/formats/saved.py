"""Reading a saved event's JSON: each field narrowed to the kind the format needs.

Why a module of its own: every format's ``from_json`` reads a document the store gives
back decoded (a ``JSONValue``), never trusted. A field of the wrong kind raises
``TypeError`` here (a missing one ``KeyError``, a number that is not one ``ValueError``),
which each ``from_json`` turns into a :class:`FormatError` saying the saved event is
malformed, as it did before the fields were typed.
"""

from __future__ import annotations

from table_controller.director.json_value import JSONObject, JSONValue


def number(value: JSONValue) -> int:
    """A whole number as ``int()`` reads it: a number (a float is truncated) or its text."""
    if isinstance(value, int | float | str):
        return int(value)
    raise TypeError(f"a whole number was expected, not {value!r}")


def text(value: JSONValue) -> str:
    """A field that must be text (an entrant's id)."""
    if isinstance(value, str):
        return value
    raise TypeError(f"text was expected, not {value!r}")


def items(value: JSONValue) -> list[JSONValue]:
    """A field that must be a list."""
    if isinstance(value, list):
        return value
    raise TypeError(f"a list was expected, not {value!r}")


def texts(value: JSONValue) -> list[str]:
    """A list of text (the entrants, the players, the teams)."""
    return [text(v) for v in items(value)]


def fields(value: JSONValue) -> JSONObject:
    """A field that must be an object."""
    if isinstance(value, dict):
        return value
    raise TypeError(f"an object was expected, not {value!r}")


def pair(value: JSONValue) -> tuple[int, int]:
    """Two whole numbers saved as a list (a match's or a playoff's points)."""
    a, b = items(value)
    return number(a), number(b)


__all__ = ["fields", "items", "number", "pair", "text", "texts"]
