"""The JSON Schema of a transcript line, made from the event classes themselves so that
the schema, the codec and the engine cannot drift apart. The shipped copy
(table_controller/schemas/transcript.schema.json) is checked against this by the tests;
``python -m table_controller.schema`` rewrites it."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from table_controller.rules.codec import event_name
from table_controller.rules.events import INPUT_EVENTS
from table_controller.rules.presets import PRESETS

SHIPPED = Path(__file__).parent / "schemas" / "transcript.schema.json"

_TYPES: dict[str, dict[str, Any]] = {
    "Seat": {"$ref": "#/$defs/seat"},
    "Card": {"$ref": "#/$defs/card"},
    "Card | None": {"anyOf": [{"$ref": "#/$defs/card"}, {"type": "null"}]},
    "bool": {"type": "boolean"},
    "int": {"type": "integer"},
    "str": {"type": "string", "minLength": 1},
    "Team": {"enum": ["NS", "EW"]},
    "tuple[Card, ...]": {"$ref": "#/$defs/cards"},
    "Mapping[Seat, tuple[Card, ...]]": {"$ref": "#/$defs/hands"},
}


def _event_schema(cls: type[Any]) -> dict[str, Any]:
    props: dict[str, Any] = {"event": {"const": event_name(cls)}}
    required = ["event"]
    for f in dataclasses.fields(cls):
        props[f.name] = {"$ref": "#/$defs/trump"} if f.name == "trump" else _TYPES[str(f.type)]
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            required.append(f.name)
    schema: dict[str, Any] = {
        "title": event_name(cls),
        "type": "object",
        "properties": props,
        "required": required,
        "additionalProperties": False,
    }
    doc = (cls.__doc__ or "").strip()
    if doc and not doc.startswith(cls.__name__ + "("):
        schema["description"] = " ".join(doc.split())
    return schema


def transcript_schema() -> dict[str, Any]:
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "table_controller/transcript.schema.json",
        "title": "A line of a Euchre table transcript (docs/transcript.md)",
        "oneOf": [
            {"$ref": "#/$defs/rules_line"},
            {"$ref": "#/$defs/check_line"},
            *({"$ref": f"#/$defs/{event_name(c)}"} for c in INPUT_EVENTS),
        ],
        "$defs": {
            "seat": {"enum": ["N", "E", "S", "W"]},
            "card": {"type": "string", "pattern": "^[9TJQKA][CDHS]$"},
            "cards": {"type": "array", "items": {"$ref": "#/$defs/card"}},
            "trump": {"enum": ["C", "D", "H", "S", "NT"]},
            "hands": {
                "type": "object",
                "propertyNames": {"$ref": "#/$defs/seat"},
                "additionalProperties": {"$ref": "#/$defs/cards"},
            },
            "rules_line": {
                "type": "object",
                "properties": {
                    "rules": {"enum": list(PRESETS)},
                    "options": {"type": "object"},
                },
                "required": ["rules"],
                "additionalProperties": False,
            },
            "check_line": {
                "description": "Test-suite checks; a replay skips them.",
                "type": "object",
                "properties": {"expect": {"type": "object"}, "expect_error": {"type": "string"}},
                "minProperties": 1,
                "maxProperties": 1,
                "additionalProperties": False,
            },
            **{event_name(c): _event_schema(c) for c in INPUT_EVENTS},
        },
    }


def render() -> str:
    return json.dumps(transcript_schema(), indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    SHIPPED.write_text(render())
    print(f"wrote {SHIPPED}")
