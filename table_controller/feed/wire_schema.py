"""The JSON Schemas of the feed's event and status messages, made from their types
(feed/messages.py ``EventMessage``, ``StatusMessage``, ``OfflineMessage``), so that the
schemas, the code that builds the messages and the type checker cannot drift apart.

Why shipped as files: the messages cross a process (a table's feed to the director's
service, through the broker), and a reader in another process or language (a bridge,
a scoreboard, a test harness) checks them against a file, as it does a transcript
against transcript.schema.json. The shipped copies (table_controller/schemas/) are
checked against these by the tests; ``python -m table_controller.feed.wire_schema``
rewrites them.

A message may carry keys a schema does not name: a reader ignores fields it does not
know (docs/feed.md), so a later release may add one within the same version ``v``.
"""

from __future__ import annotations

import json
import types
from pathlib import Path
from typing import (
    Literal,
    NotRequired,
    Union,
    get_args,
    get_origin,
    get_type_hints,
    is_typeddict,
)

from table_controller.feed.messages import EventMessage, OfflineMessage, StatusMessage

SCHEMAS = Path(__file__).resolve().parent.parent / "schemas"
EVENT_SCHEMA = SCHEMAS / "feed-event.schema.json"
STATUS_SCHEMA = SCHEMAS / "feed-status.schema.json"

Schema = dict[str, object]

# What a type alone cannot say: a table's id (feed/messages.py ``id_problem``), and the
# codec's events (an ``"event"`` name and the event's fields, docs/transcript.md).
_TABLE_ID: Schema = {"type": "string", "pattern": "^[a-z0-9]+(-[a-z0-9]+)*$", "maxLength": 80}
_ENCODED: Schema = {
    "type": "object",
    "properties": {"event": {"type": "string", "minLength": 1}},
    "required": ["event"],
}
_REFINED: dict[str, Schema] = {
    "table": _TABLE_ID,
    "input": _ENCODED,
    "outputs": {"type": "array", "items": _ENCODED},
    # [boot, link, n], n null for the last will (feed/table_order.py ``Place``)
    "order": {
        "type": "array",
        "items": {"anyOf": [{"type": "integer", "minimum": 0}, {"type": "null"}]},
        "minItems": 3,
        "maxItems": 3,
    },
}
_PLAIN: dict[object, Schema] = {
    str: {"type": "string"},
    int: {"type": "integer"},
    float: {"type": "number"},
    bool: {"type": "boolean"},
    type(None): {"type": "null"},
    object: {},
}


def _of(hint: object, defs: dict[str, Schema]) -> Schema:
    """The schema of a type hint; a TypedDict goes in ``defs`` once, by its name."""
    if hint in _PLAIN:
        return dict(_PLAIN[hint])
    origin, args = get_origin(hint), get_args(hint)
    if origin is Literal:
        return {"const": args[0]} if len(args) == 1 else {"enum": list(args)}
    if origin in (Union, types.UnionType):
        return {"anyOf": [_of(a, defs) for a in args]}
    if origin is list:
        return {"type": "array", "items": _of(args[0], defs)}
    if origin is dict:
        return {"type": "object", "additionalProperties": _of(args[1], defs)}
    if isinstance(hint, type) and is_typeddict(hint):
        name = hint.__name__
        if name not in defs:
            defs[name] = {}  # held while its own fields are made
            defs[name] = _object(hint, defs)
        return {"$ref": f"#/$defs/{name}"}
    raise TypeError(f"no JSON Schema for {hint!r}: name it in feed/wire_schema.py")


def _object(typed: type, defs: dict[str, Schema], *, refined: bool = False) -> Schema:
    """A TypedDict's schema: its keys, those not ``NotRequired`` required."""
    properties: dict[str, Schema] = {}
    required: list[str] = []
    for key, hint in get_type_hints(typed, include_extras=True).items():
        optional = get_origin(hint) is NotRequired
        if optional:
            hint = get_args(hint)[0]
        else:
            required.append(key)
        properties[key] = dict(_REFINED[key]) if refined and key in _REFINED else _of(hint, defs)
    schema: Schema = {"title": typed.__name__, "type": "object"}
    doc = " ".join((typed.__doc__ or "").split())
    if doc:
        schema["description"] = doc
    schema["properties"] = properties
    schema["required"] = required
    return schema


def _document(name: str, title: str, messages: list[type]) -> Schema:
    defs: dict[str, Schema] = {}
    shapes = [_object(m, defs, refined=True) for m in messages]
    body: Schema = shapes[0] if len(shapes) == 1 else {"oneOf": shapes}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"table_controller/{name}",
        "title": title,
        **body,
        "$defs": dict(sorted(defs.items())),
    }


def event_schema() -> Schema:
    """A table's ``events`` message (docs/feed.md, "events")."""
    return _document(
        EVENT_SCHEMA.name, "A logged input event a table sends (docs/feed.md)", [EventMessage]
    )


def status_schema() -> Schema:
    """A table's ``status`` message: the heartbeat, or the last will (docs/feed.md)."""
    return _document(
        STATUS_SCHEMA.name,
        "A table's status: its heartbeat, or its last will (docs/feed.md)",
        [StatusMessage, OfflineMessage],
    )


def render(schema: Schema) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


SHIPPED = {EVENT_SCHEMA: event_schema, STATUS_SCHEMA: status_schema}


if __name__ == "__main__":
    for path, made in SHIPPED.items():
        path.write_text(render(made()))
        print(f"wrote {path}")
