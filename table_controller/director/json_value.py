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

__all__ = ["JSONObject", "JSONValue"]
