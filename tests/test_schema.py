"""The JSON Schemas: the transcript's and the feed's event and status messages' (shipped, up
to date, true of every transcript we have and of a simulated game's messages)."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path

import jsonschema
import pytest

from table_controller import simulate
from table_controller.feed import messages, wire_schema
from table_controller.feed.table_order import Places, placed
from table_controller.feed.table_signing import load_private, new_table_key, sign_message
from table_controller.rules.codec import encode
from table_controller.rules.events import HandStarted
from table_controller.rules.presets import preset
from table_controller.schema import SHIPPED, render, transcript_schema
from table_controller.table.config import demo_config
from table_controller.table.fleet.status import fleet_status
from table_controller.table.health import Device
from table_controller.table.simulated import FAST, simulated_table

ROOT = Path(__file__).resolve().parents[1]
TRANSCRIPTS = sorted((ROOT / "tests" / "transcripts").glob("*.jsonl")) + sorted(
    (ROOT / "table_controller" / "examples").glob("*.jsonl")
)


def test_the_shipped_schema_is_current() -> None:
    assert SHIPPED.read_text() == render(), "run: .venv/bin/python -m table_controller.schema"


def test_the_schema_is_valid() -> None:
    jsonschema.Draft202012Validator.check_schema(transcript_schema())


@pytest.mark.parametrize("path", TRANSCRIPTS, ids=[p.name for p in TRANSCRIPTS])
def test_every_transcript_line_fits_the_schema(path: Path) -> None:
    validator = jsonschema.Draft202012Validator(transcript_schema())
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if line.strip() and not line.lstrip().startswith("#"):
            errors = list(validator.iter_errors(json.loads(line)))
            assert not errors, f"{path.name}:{number}: {errors[0].message}"


@pytest.mark.parametrize(
    "line",
    [
        {"event": "card_played", "seat": "N", "card": "1H"},
        {"event": "card_played", "seat": "N"},
        {"event": "trump_called", "seat": "N", "trump": "X"},
        {"event": "nonsense"},
    ],
)
def test_the_schema_refuses_bad_lines(line: dict[str, object]) -> None:
    validator = jsonschema.Draft202012Validator(transcript_schema())
    assert list(validator.iter_errors(line))


def test_every_event_is_documented() -> None:
    from table_controller.rules.codec import INPUT_BY_NAME, OUTPUT_BY_NAME

    doc = (ROOT / "docs" / "transcript.md").read_text()
    for name in [*INPUT_BY_NAME, *OUTPUT_BY_NAME]:
        assert f"`{name}`" in doc, f"docs/transcript.md does not describe {name}"


# --- the feed's event and status messages (feed/wire_schema.py) ----------------------------


@pytest.mark.parametrize("path", sorted(wire_schema.SHIPPED), ids=lambda p: p.name)
def test_the_shipped_feed_schemas_are_current(path: Path) -> None:
    made = wire_schema.SHIPPED[path]
    assert path.read_text() == wire_schema.render(made()), (
        "run: .venv/bin/python -m table_controller.feed.wire_schema"
    )


@pytest.mark.parametrize("path", sorted(wire_schema.SHIPPED), ids=lambda p: p.name)
def test_the_feed_schemas_are_valid(path: Path) -> None:
    jsonschema.Draft202012Validator.check_schema(json.loads(path.read_text()))


def _validator(path: Path) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(json.loads(path.read_text()))


def _events_of_a_game() -> list[messages.EventMessage]:
    """Every event of a simulated game as the table sends it: the first with the game's
    record, the dealt hands taken out."""
    rules = preset("td-tournament")
    players = {"N": "Ann", "E": "Bob", "S": "Cy", "W": "Di"}
    sent: list[messages.EventMessage] = []
    hand: int | None = None
    for seq, (event, outputs) in enumerate(simulate.play(rules, random.Random(3)), start=1):
        hand = next((o.hand for o in outputs if isinstance(o, HandStarted)), hand)
        sent.append(
            messages.event_message(
                table="club-night-3",
                game=1,
                seq=seq,
                at=1_717_000_000.25 + seq,
                source="camera",
                input_event=encode(event),
                outputs=[encode(o) for o in outputs],
                hand=hand,
                evidence=seq % 7 == 0,
                record={"rules": "td-tournament", "options": {}, "players": players}
                if seq == 1
                else None,
            )
        )
    return sent


def test_a_simulated_games_events_fit_the_event_schema() -> None:
    validator = _validator(wire_schema.EVENT_SCHEMA)
    sent = _events_of_a_game()
    assert len(sent) > 50 and "record" in sent[0]
    key = new_table_key()
    for message in sent:
        signed = sign_message("events", message, load_private(key.private_pem))
        for payload in (message, signed):
            errors = list(validator.iter_errors(json.loads(json.dumps(payload))))
            assert not errors, f"seq {message['seq']}: {errors[0].message}"


def test_a_simulated_tables_status_fits_the_status_schema(tmp_path: Path) -> None:
    config = demo_config(tmp_path)
    table = simulated_table(config, seed=1, pace=FAST, serve_page=False)
    table.health.raise_fault(Device.CAMERA, "the camera is not found", "plug it in", 2.5)
    status = table.core.status()
    fleet = fleet_status(version="0.1.0", faults=(), cube=False, disk_free=2**34, calibration=None)
    across: list[messages.AcrossStatus] = [
        {"card": "9S", "seat": "E", "into": "play:E", "zones": ["kitty", "play:E"]}
    ]
    beat = messages.status_message(
        table="club-night-3",
        at=1_717_000_000.0,
        every=10.0,
        game=status["game"],
        hand=status["hand"],
        phase=status["phase"],
        scores=status["scores"],
        players=status["players"],
        faults=status["faults"],
        backlog=3,
        name=status["name"],
        fleet=fleet,
        across=across,
    )
    assert beat["faults"] and beat["faults"][0]["device"] == "camera"
    offline = messages.offline_message(table="club-night-3", at=1_717_000_009.0)
    key = load_private(new_table_key().private_pem)
    places = Places(1_717_000_000)
    places.connected()
    signed_beat = sign_message("status", placed(beat, places.next()), key)
    signed_will = sign_message("status", placed(offline, places.last_word()), key)
    validator = _validator(wire_schema.STATUS_SCHEMA)
    for payload in (beat, offline, signed_beat, signed_will):
        errors = list(validator.iter_errors(json.loads(json.dumps(payload))))
        assert not errors, errors[0].message


def _event() -> dict[str, object]:
    return dict(_events_of_a_game()[1])


def _beat() -> dict[str, object]:
    return dict(
        messages.status_message(
            table="t-1",
            at=1.0,
            every=10.0,
            game=1,
            hand=2,
            phase="playing",
            scores=(0, 2),
            players={"N": "Ann"},
            faults=(),
            backlog=0,
        )
    )


@pytest.mark.parametrize(
    ("made", "change"),
    [
        (_event, {"v": 2}),
        (_event, {"seq": "4"}),
        (_event, {"input": {"seat": "N"}}),  # not an event: no "event"
        (_event, {"table": "Club Night 3"}),  # a name, not an id
        (_event, {"evidence": None}),
        (_event, {"game": None}),
        (_beat, {"online": "yes"}),
        (_beat, {"scores": [0, "2"]}),
        (_beat, {"faults": [{"device": "camera"}]}),
        (_beat, {"order": [1, 1]}),
        (_beat, {"players": {"N": 3}}),
    ],
)
def test_the_feed_schemas_refuse_malformed_messages(
    made: Callable[[], dict[str, object]], change: dict[str, object]
) -> None:
    path = wire_schema.EVENT_SCHEMA if made is _event else wire_schema.STATUS_SCHEMA
    validator = _validator(path)
    message = made()
    assert not list(validator.iter_errors(message))
    assert list(validator.iter_errors({**message, **change}))
    missing = dict(message)
    del missing["at"]
    assert list(validator.iter_errors(missing))
