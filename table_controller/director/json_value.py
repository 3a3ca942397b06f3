"""What a JSON value decoded from the wire (a table's status, an event's input and
outputs, a form) can be, named once for the director's typed contracts.

Why an alias rather than no type at all: a value read from a message is not trusted, so the
code that reads one narrows it (``isinstance``) before it uses it, and the type checker
holds it to that.
"""

from __future__ import annotations

from typing import TypeAlias

JSONValue: TypeAlias = "str | int | float | bool | list[JSONValue] | dict[str, JSONValue] | None"
JSONObject: TypeAlias = "dict[str, JSONValue]"


def as_json(value: object) -> JSONValue:
    """A typed shape of the package's own (a TypedDict such as the table's snapshot, its
    lists, its numbers and words) as the JSON value it is, for code that reads JSON
    values and narrows them. Anything JSON cannot hold becomes None."""
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, dict):
        return {str(k): as_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [as_json(v) for v in value]
    return None


__all__ = ["JSONObject", "JSONValue", "as_json"]
