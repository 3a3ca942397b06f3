"""Transcripts: a game as a JSON Lines file of input events (docs/transcript.md).

A line is one JSON object. The first, the header, may say which version of the format
the file is written in and choose the rules
(``{"version": 2, "rules": "td-tournament", "options": {"points_to_win": 11}}``); every
other line is an input event. A file without a version is version 1, the format before
versions were written; a reader refuses a version newer than it knows, and a field newer
than the file's version, so a file says at its top what a reader needs. Blank lines and
lines starting with ``#`` are ignored. Lines of the form ``{"expect": {...}}``,
``{"expect_none": {...}}`` (no output event with those fields follows) or
``{"expect_error": "..."}`` are checks used by the test suite; a replay skips them.

Every problem is reported with its line number and what to do about it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from table_controller.clip import clip
from table_controller.errors import TableControllerError
from table_controller.rules.codec import CodecError, decode_input, encode
from table_controller.rules.errors import RulesError
from table_controller.rules.events import InputEvent, OutputEvent
from table_controller.rules.game import Game
from table_controller.rules.presets import PRESETS, Rules, preset
from table_controller.safe_json import JSONLimitError, loads_limited

DEFAULT_PRESET = "td-tournament"

VERSION = 3
"""The newest transcript format this code reads and writes (docs/transcript.md)."""

SINCE: dict[tuple[str, str], int] = {
    ("renege_claimed", "trick"): 2,
    ("all_nines_shown", "cards"): 2,
    ("foreign_card_seen", "family"): 3,
}
"""Input fields added after version 1: (event, field) to the version that added it."""


class TranscriptError(TableControllerError, ValueError):
    """A transcript that cannot be read or played; names the line."""

    def __init__(self, source: str, line: int, message: str) -> None:
        self.source = source
        self.line = line
        self.message = message
        super().__init__(f"{source}, line {line}: {message}")


@dataclass
class Step:
    """One input event of a transcript, with the checks that follow it."""

    line: int
    event: InputEvent
    expect: list[dict[str, Any]] = field(default_factory=list)
    expect_none: list[dict[str, Any]] = field(default_factory=list)
    expect_error: str | None = None


@dataclass
class Transcript:
    source: str
    rules_name: str | None
    options: dict[str, Any]
    steps: list[Step]
    version: int = 1

    def rules(self, override: str | None = None) -> Rules:
        name = override or self.rules_name or DEFAULT_PRESET
        try:
            return preset(name, self.options)
        except RulesError as exc:
            raise TranscriptError(self.source, 1, str(exc)) from None

    @property
    def events(self) -> list[InputEvent]:
        return [s.event for s in self.steps]


def parse_lines(lines: Iterable[str], source: str = "<transcript>") -> Transcript:
    rules_name: str | None = None
    options: dict[str, Any] = {}
    steps: list[Step] = []
    version = 1
    header = False
    for number, raw in enumerate(lines, start=1):
        text = raw.strip()
        if not text or text.startswith("#"):
            continue
        try:
            obj = loads_limited(text)
        except JSONLimitError as exc:
            raise TranscriptError(source, number, str(exc)) from None
        if not isinstance(obj, dict):
            raise TranscriptError(source, number, "each line must be one JSON object")
        if ("rules" in obj or "version" in obj) and "event" not in obj:
            if steps or header:
                raise TranscriptError(
                    source, number, "the header (version and rules) is one line, the first"
                )
            header = True
            version = _version(source, number, obj.get("version", 1))
            if "rules" in obj:
                rules_name, options = _rules_line(source, number, obj)
            elif set(obj) != {"version"}:
                raise TranscriptError(
                    source, number, 'options need the rules they change: add "rules"'
                )
            continue
        if "expect" in obj or "expect_none" in obj or "expect_error" in obj:
            if not steps:
                raise TranscriptError(source, number, "an expectation needs an event before it")
            for key in ("expect", "expect_none"):
                if key not in obj:
                    continue
                if not isinstance(obj[key], dict):
                    raise TranscriptError(source, number, f"{key} takes an output event object")
                getattr(steps[-1], key).append(obj[key])
            if "expect_error" in obj:
                steps[-1].expect_error = str(obj["expect_error"])
            continue
        try:
            event = decode_input(obj)
        except (CodecError, ValueError) as exc:
            raise TranscriptError(source, number, str(exc)) from None
        newer = needed_version(obj)
        if newer > version:
            name = obj["event"]
            added = next(f for (e, f), v in SINCE.items() if e == name and v == newer)
            raise TranscriptError(
                source,
                number,
                f"{name}.{added} is new in transcript version {newer}, and this file is "
                f'version {version}: put "version": {newer} in its first line',
            )
        steps.append(Step(number, event))
    return Transcript(source, rules_name, options, steps, version)


def needed_version(obj: dict[str, Any]) -> int:
    """The oldest transcript version that can say the event ``obj`` (encoded)."""
    name = obj.get("event")
    best = 1
    for (event, field_name), since in SINCE.items():
        if event == name and obj.get(field_name) is not None:
            best = max(best, since)
    return best


def _version(source: str, number: int, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise TranscriptError(
            source, number, f"version {clip(value)} is not a transcript version (1, 2, ...)"
        )
    if value > VERSION:
        raise TranscriptError(
            source,
            number,
            f"this transcript is version {value}, newer than this table controller reads "
            f"(versions 1 to {VERSION}): update table-controller to replay it",
        )
    return value


def _rules_line(source: str, number: int, obj: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    name = obj["rules"]
    if not isinstance(name, str) or name not in PRESETS:
        raise TranscriptError(
            source, number, f"unknown rule preset {clip(name)}; presets: " + ", ".join(PRESETS)
        )
    options = obj.get("options", {})
    if not isinstance(options, dict):
        raise TranscriptError(source, number, "options must be a JSON object")
    extra = set(obj) - {"rules", "options", "version"}
    if extra:
        raise TranscriptError(
            source, number, f"the rules line has no field {clip(sorted(extra)[0])}"
        )
    return name, options


def load(path: str | Path) -> Transcript:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise TranscriptError(str(p), 0, "no such file") from None
    except UnicodeDecodeError:
        raise TranscriptError(str(p), 0, "not a text file (UTF-8 JSON Lines expected)") from None
    except OSError as exc:
        raise TranscriptError(str(p), 0, f"cannot be read: {exc.strerror}") from None
    return parse_lines(text.splitlines(), str(p))


def replay(
    transcript: Transcript, rules: Rules | None = None
) -> Iterator[tuple[Step, list[OutputEvent]]]:
    """Play a transcript; yield each step with its output events. An impossible event
    raises ``TranscriptError`` naming its line (checks in the transcript are ignored)."""
    game = Game(rules if rules is not None else transcript.rules())
    for step in transcript.steps:
        try:
            out = game.push(step.event)
        except RulesError as exc:
            raise TranscriptError(transcript.source, step.line, str(exc)) from None
        yield step, out


def header(objs: Iterable[dict[str, Any]], rules: dict[str, Any] | None = None) -> str | None:
    """The header line for encoded events ``objs``: the rules line (``rules``, such as
    ``{"rules": "td-tournament"}``), with the oldest version that can say the events when
    that is newer than 1, so that older readers still read what they can. None when
    there is nothing to say."""
    version = max((needed_version(o) for o in objs), default=1)
    line = {"version": version} if version > 1 else {}
    line.update(rules or {})
    return json.dumps(line) if line else None


def dump(events: Iterable[InputEvent], rules_name: str | None = None) -> str:
    """A transcript's text for ``events``."""
    objs = [encode(e) for e in events]
    first = header(objs, {"rules": rules_name} if rules_name else None)
    lines = ([first] if first else []) + [json.dumps(o) for o in objs]
    return "\n".join(lines) + "\n"
