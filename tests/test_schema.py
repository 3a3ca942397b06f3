"""The transcript JSON Schema: shipped, up to date, and true of every transcript we have."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from table_controller.schema import SHIPPED, render, transcript_schema

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
