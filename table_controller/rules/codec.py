"""Events to and from JSON objects (pure): the transcript format of docs/transcript.md.

An event is an object whose ``"event"`` names its kind in snake_case
(``{"event": "card_played", "seat": "N", "card": "JH"}``); cards, seats and suits use the
project's codes, and a trump of ``"NT"`` is no trump. Decoding checks every field and
says which one is wrong and what it should be.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping
from enum import Enum
from typing import Any

from table_controller.cards import Card, Suit
from table_controller.clip import clip
from table_controller.errors import TableControllerError
from table_controller.rules.events import (
    INPUT_EVENTS,
    OUTPUT_EVENTS,
    InputEvent,
    OutputEvent,
    Printing,
)
from table_controller.seats import Seat, Team

JSON = Any
Encoder = Callable[[Any], JSON]
Decoder = Callable[[JSON], Any]


class CodecError(TableControllerError, ValueError):
    """A JSON object that is not a valid event."""


def event_name(cls: type[Any]) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", cls.__name__).lower()


INPUT_BY_NAME: dict[str, type[InputEvent]] = {event_name(c): c for c in INPUT_EVENTS}
OUTPUT_BY_NAME: dict[str, type[OutputEvent]] = {event_name(c): c for c in OUTPUT_EVENTS}


def _seat(v: JSON) -> Seat:
    if not isinstance(v, str):
        raise CodecError(f"{clip(v)} is not a seat: seats are N, E, S and W")
    return Seat.parse(v)


def _card(v: JSON) -> Card:
    return Card.parse(v)


def _trump(v: JSON) -> Suit | None:
    if v == "NT":
        return None
    if not isinstance(v, str):
        raise CodecError(f"{clip(v)} is not a trump: C, D, H, S, or NT for no trump")
    return Suit.parse(v)


def _bool(v: JSON) -> bool:
    if not isinstance(v, bool):
        raise CodecError(f"{clip(v)} is not true or false")
    return v


def _int(v: JSON) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise CodecError(f"{clip(v)} is not a whole number")
    return v


def _team(v: JSON) -> Team:
    if v not in ("NS", "EW"):
        raise CodecError(f"{clip(v)} is not a team: NS or EW")
    return Team[str(v)]


def _text(v: JSON) -> str:
    if not isinstance(v, str) or not v.strip():
        raise CodecError(f"{clip(v)} is not a text: write a few words")
    return v


def _printing(v: JSON) -> Printing:
    try:
        return Printing(v)
    except ValueError:
        families = ", ".join(p.value for p in Printing)
        raise CodecError(f"{clip(v)} is not a marker family: {families}") from None


def _cards(v: JSON) -> tuple[Card, ...]:
    if not isinstance(v, list):
        raise CodecError(f"{clip(v)} is not a list of cards")
    return tuple(_card(c) for c in v)


def _hands(v: JSON) -> dict[Seat, tuple[Card, ...]]:
    if not isinstance(v, dict):
        raise CodecError(f"{clip(v)} is not an object of hands by seat")
    return {_seat(k): _cards(c) for k, c in v.items()}


def _encode(value: Any) -> JSON:
    if isinstance(value, Card):
        return value.code
    if isinstance(value, Seat | Team | Suit):
        return value.name
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, bool | int | str) or value is None:
        return value
    if isinstance(value, Mapping):
        return {_encode(k): _encode(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [_encode(v) for v in value]
    raise TypeError(f"cannot encode {value!r}")  # pragma: no cover


_DECODERS: dict[str, Decoder] = {
    "Seat": _seat,
    "Seat | None": _seat,
    "Card": _card,
    "Card | None": _card,
    "bool": _bool,
    "int": _int,
    "int | None": _int,
    "str": _text,
    "Team": _team,
    "tuple[Card, ...]": _cards,
    "tuple[Card, ...] | None": _cards,
    "Printing | None": _printing,
    "Mapping[Seat, tuple[Card, ...]]": _hands,
}


_FIELDS: dict[type[Any], tuple[tuple[str, Decoder, bool], ...]] = {}


def _fields(cls: type[Any]) -> tuple[tuple[str, Decoder, bool], ...]:
    """(name, decoder, required) for each field of an input event class."""
    cached = _FIELDS.get(cls)
    if cached is not None:
        return cached
    specs = []
    for f in dataclasses.fields(cls):
        if f.name == "trump":
            decoder: Decoder = _trump
        else:
            decoder = _DECODERS[str(f.type)]
        required = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        specs.append((f.name, decoder, required))
    _FIELDS[cls] = tuple(specs)
    return _FIELDS[cls]


def decode_input(obj: JSON) -> InputEvent:
    """The input event a JSON object describes; ``CodecError`` says what is wrong."""
    if not isinstance(obj, dict):
        raise CodecError('an event is a JSON object such as {"event": "card_played", ...}')
    name = obj.get("event")
    cls = INPUT_BY_NAME.get(name) if isinstance(name, str) else None
    if cls is None:
        raise CodecError(
            f"unknown event {clip(name)}: input events are " + ", ".join(sorted(INPUT_BY_NAME))
        )
    specs = _fields(cls)
    allowed = {n for n, _, _ in specs} | {"event"}
    extra = sorted(set(obj) - allowed)
    if extra:
        raise CodecError(f"{name} has no field {clip(extra[0])}; its fields are " + _list(specs))
    kwargs: dict[str, Any] = {}
    for field_name, decoder, required in specs:
        if field_name not in obj or (obj[field_name] is None and field_name != "trump"):
            if required:
                raise CodecError(f"{name} needs the field {field_name!r}")
            continue
        try:
            kwargs[field_name] = decoder(obj[field_name])
        except ValueError as exc:
            raise CodecError(f"{name}.{field_name}: {exc}") from None
    return cls(**kwargs)


def _list(specs: tuple[tuple[str, Decoder, bool], ...]) -> str:
    return ", ".join(n for n, _, _ in specs) or "(none)"


def encode(event: InputEvent | OutputEvent) -> dict[str, JSON]:
    """The JSON object for an event (input or output)."""
    obj: dict[str, JSON] = {"event": event_name(type(event))}
    for f in dataclasses.fields(event):
        value = getattr(event, f.name)
        if f.name == "trump":
            obj[f.name] = "NT" if value is None else value.name
        elif value is None and f.default is None:
            continue  # an optional field left out
        elif isinstance(value, Mapping) and not value:
            continue
        else:
            obj[f.name] = _encode(value)
    return obj


def field_types(cls: type[Any]) -> dict[str, str]:
    """Field name to annotation text, for the JSON Schema and docs."""
    return {f.name: str(f.type) for f in dataclasses.fields(cls)}


__all__ = [
    "INPUT_BY_NAME",
    "OUTPUT_BY_NAME",
    "CodecError",
    "decode_input",
    "encode",
    "event_name",
    "field_types",
]
