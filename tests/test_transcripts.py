"""Every hand-written transcript in tests/transcripts, run as data.

Each file plays a rule sentence from one of the texts in shared/seeds (its header comment
quotes it). After an input event, ``{"expect": {...}}`` requires an output event with at
least those fields, ``{"expect_none": {...}}`` requires that none has them, and
``{"expect_error": "..."}`` requires the event to be refused with a message containing
that text, leaving the game unchanged.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from table_controller.rules import Game, RulesError
from table_controller.rules.codec import encode
from table_controller.transcript import load

HERE = Path(__file__).parent / "transcripts"
FILES = sorted(HERE.glob("*.jsonl"))


def matches(expected: dict[str, Any], actual: dict[str, Any]) -> bool:
    return all(k in actual and actual[k] == v for k, v in expected.items())


def test_there_are_transcripts() -> None:
    assert len(FILES) >= 2


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_transcript(path: Path) -> None:
    transcript = load(path)
    game = Game(transcript.rules())
    checks = 0
    for step in transcript.steps:
        where = f"{path.name}:{step.line}"
        if step.expect_error is not None:
            before = game.state_key()
            with pytest.raises(RulesError) as info:
                game.push(step.event)
            assert step.expect_error.lower() in str(info.value).lower(), where
            assert game.state_key() == before, f"{where}: a refused event changed the game"
            checks += 1
            continue
        out = [encode(o) for o in game.push(step.event)]
        for expected in step.expect:
            assert any(matches(expected, o) for o in out), f"{where}: {expected} not in {out}"
            checks += 1
        for unwanted in step.expect_none:
            assert not any(matches(unwanted, o) for o in out), f"{where}: {unwanted} in {out}"
            checks += 1
    assert checks, f"{path.name} checks nothing"
