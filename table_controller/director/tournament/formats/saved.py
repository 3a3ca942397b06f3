"""Reading a saved event's JSON: each field narrowed to the kind the reader needs.

Why a module of its own: every format's ``from_json``, the event's state
(``tournament.admin``) and the results' history of it read a document the store gives
back decoded (a ``JSONValue``), never trusted. A field of the wrong kind raises
``TypeError`` here (a missing one ``KeyError``, a number that is not one ``ValueError``),
which each ``from_json`` turns into a :class:`FormatError` saying the saved event is
malformed, as it did before the fields were typed.
"""

from __future__ import annotations

from table_controller.director.json_value import JSONObject, JSONValue


def as_int(value: JSONValue) -> int:
    """A whole number as ``int()`` reads it: a number (a float is truncated) or its text."""
    if isinstance(value, int | float | str):
        return int(value)
    raise TypeError(f"a whole number was expected, not {value!r}")


def as_float(value: JSONValue) -> float:
    """A number as ``float()`` reads it: a number or its text (a delay in seconds)."""
    if isinstance(value, int | float | str):
        return float(value)
    raise TypeError(f"a number was expected, not {value!r}")


def as_text(value: JSONValue) -> str:
    """A field that must be text (an entrant's id)."""
    if isinstance(value, str):
        return value
    raise TypeError(f"text was expected, not {value!r}")


def as_list(value: JSONValue) -> list[JSONValue]:
    """A field that must be a list."""
    if isinstance(value, list):
        return value
    raise TypeError(f"a list was expected, not {value!r}")


def as_texts(value: JSONValue) -> list[str]:
    """A list of text (the entrants, the players, the teams)."""
    return [as_text(v) for v in as_list(value)]


def as_object(value: JSONValue) -> JSONObject:
    """A field that must be an object."""
    if isinstance(value, dict):
        return value
    raise TypeError(f"an object was expected, not {value!r}")


def as_pair(value: JSONValue) -> tuple[int, int]:
    """Two whole numbers saved as a list (a match's or a playoff's points)."""
    a, b = as_list(value)
    return as_int(a), as_int(b)


__all__ = ["as_float", "as_int", "as_list", "as_object", "as_pair", "as_text", "as_texts"]
