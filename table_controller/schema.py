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
from table_controller.rules.events import INPUT_EVENTS, Printing
from table_controller.rules.presets import PRESETS
from table_controller.transcript import SINCE, VERSION

SHIPPED = Path(__file__).parent / "schemas" / "transcript.schema.json"

_TYPES: dict[str, dict[str, Any]] = {
    "Seat": {"$ref": "#/$defs/seat"},
    "Seat | None": {"anyOf": [{"$ref": "#/$defs/seat"}, {"type": "null"}]},
    "Card": {"$ref": "#/$defs/card"},
    "Card | None": {"anyOf": [{"$ref": "#/$defs/card"}, {"type": "null"}]},
    "bool": {"type": "boolean"},
    "int": {"type": "integer"},
    "int | None": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
    "str": {"type": "string", "minLength": 1},
    "Team": {"enum": ["NS", "EW"]},
    "tuple[Card, ...]": {"$ref": "#/$defs/cards"},
    "tuple[Card, ...] | None": {"anyOf": [{"$ref": "#/$defs/cards"}, {"type": "null"}]},
    "Printing | None": {"anyOf": [{"enum": [p.value for p in Printing]}, {"type": "null"}]},
    "Mapping[Seat, tuple[Card, ...]]": {"$ref": "#/$defs/hands"},
}


def _event_schema(cls: type[Any]) -> dict[str, Any]:
    name = event_name(cls)
    props: dict[str, Any] = {"event": {"const": name}}
    required = ["event"]
    for f in dataclasses.fields(cls):
        if f.name == "trump":
            props[f.name] = {"$ref": "#/$defs/trump"}
        elif f.name == "trick":
            props[f.name] = {"anyOf": [{"$ref": "#/$defs/trick"}, {"type": "null"}]}
        else:
            props[f.name] = dict(_TYPES[str(f.type)])
        since = SINCE.get((name, f.name))
        if since is not None:
            props[f.name]["description"] = (
                f"New in transcript version {since}: the file's first line says"
                f' "version": {since} or more.'
            )
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            required.append(f.name)
    schema: dict[str, Any] = {
        "title": name,
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
        "description": (
            f"Transcript format versions 1 to {VERSION}. The header line says which one a "
            "file is written in (none: version 1); a field new in a later version "
            "says so in its description."
        ),
        "oneOf": [
            {"$ref": "#/$defs/header_line"},
            {"$ref": "#/$defs/check_line"},
            *({"$ref": f"#/$defs/{event_name(c)}"} for c in INPUT_EVENTS),
        ],
        "$defs": {
            "seat": {"enum": ["N", "E", "S", "W"]},
            "card": {"type": "string", "pattern": "^[9TJQKA][CDHS]$"},
            "cards": {"type": "array", "items": {"$ref": "#/$defs/card"}},
            "trump": {"enum": ["C", "D", "H", "S", "NT"]},
            "trick": {"type": "integer", "minimum": 1},
            "hands": {
                "type": "object",
                "propertyNames": {"$ref": "#/$defs/seat"},
                "additionalProperties": {"$ref": "#/$defs/cards"},
            },
            "header_line": {
                "description": "The first line: the format version and the rules.",
                "type": "object",
                "properties": {
                    "version": {"type": "integer", "minimum": 1, "maximum": VERSION},
                    "rules": {"enum": list(PRESETS)},
                    "options": {"type": "object"},
                },
                "anyOf": [{"required": ["rules"]}, {"required": ["version"]}],
                "dependentRequired": {"options": ["rules"]},
                "additionalProperties": False,
            },
            "check_line": {
                "description": "Test-suite checks; a replay skips them.",
                "type": "object",
                "properties": {
                    "expect": {"type": "object"},
                    "expect_none": {"type": "object"},
                    "expect_error": {"type": "string"},
                },
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
