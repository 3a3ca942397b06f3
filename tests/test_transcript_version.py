"""Transcript versions: old files read and replay as they always did, a newer version is
refused with a message saying what to do, and a field newer than the file's version is
refused at its line (docs/transcript.md, Versions)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from table_controller.cli import main
from table_controller.rules.codec import encode
from table_controller.rules.events import (
    AllNinesShown,
    ForeignCardSeen,
    HandDealt,
    Printing,
    RenegeClaimed,
)
from table_controller.rules.presets import preset
from table_controller.schema import transcript_schema
from table_controller.seats import Seat
from table_controller.transcript import (
    DEFAULT_PRESET,
    VERSION,
    Transcript,
    TranscriptError,
    dump,
    load,
    parse_lines,
    replay,
)

HERE = Path(__file__).parent / "transcripts"
OLD = sorted(p for p in HERE.glob("*.jsonl") if '"version"' not in p.read_text())


def outputs(transcript: Transcript) -> list[list[dict[str, object]]]:
    """Every output event of a replay, step by step. The events the rules refuse (each
    followed by an ``expect_error`` in the test files) are left out, as the tests do."""
    kept = [s for s in transcript.steps if s.expect_error is None]
    played = Transcript(transcript.source, transcript.rules_name, transcript.options, kept)
    return [[encode(o) for o in out] for _, out in replay(played)]


def with_version(text: str, version: int) -> list[str]:
    """``text`` with ``"version"`` added to its header (a header line added if none)."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        obj = json.loads(stripped)
        if "rules" in obj and "event" not in obj:
            lines[i] = json.dumps({"version": version, **obj})
        else:
            lines.insert(i, json.dumps({"version": version}))
        return lines
    raise AssertionError("an empty transcript")


def test_the_old_files_are_most_of_them() -> None:
    assert len(OLD) >= 80


@pytest.mark.parametrize("path", OLD, ids=[p.stem for p in OLD])
def test_a_file_without_a_version_is_version_1_and_replays_the_same_with_it(path: Path) -> None:
    old = load(path)
    assert old.version == 1
    explicit = parse_lines(with_version(path.read_text(), 1), path.name)
    assert explicit.version == 1
    assert explicit.events == old.events
    assert outputs(explicit) == outputs(old)
    newest = parse_lines(with_version(path.read_text(), VERSION), path.name)
    assert outputs(newest) == outputs(old)


def test_the_explicit_version_1_file_replays_as_its_twin() -> None:
    one = load(HERE / "003_false_renege_claim_version_1.jsonl")
    twin = load(HERE / "003_false_renege_claim.jsonl")
    assert one.version == 1 and twin.version == 1
    assert outputs(one) == outputs(twin)


def test_a_newer_version_is_refused_with_what_to_do() -> None:
    with pytest.raises(TranscriptError) as info:
        parse_lines([f'{{"version": {VERSION + 1}, "rules": "td-tournament"}}'], "new.jsonl")
    assert info.value.line == 1
    newer = f"version {VERSION + 1}, newer than this table controller reads"
    assert f"{newer} (versions 1 to {VERSION})" in str(info.value)
    assert "update table-controller" in str(info.value)


@pytest.mark.parametrize("value", ['"2"', "0", "-1", "true", "2.0", "null"])
def test_a_version_that_is_not_one_is_refused(value: str) -> None:
    with pytest.raises(TranscriptError, match="is not a transcript version"):
        parse_lines([f'{{"version": {value}}}'])


@pytest.mark.parametrize(
    ("line", "field", "since"),
    [
        ('{"event": "renege_claimed", "by": "N", "against": "E", "trick": 1}', "trick", 2),
        ('{"event": "all_nines_shown", "seat": "N", "cards": ["9C"]}', "cards", 2),
        ('{"event": "foreign_card_seen", "seat": "W", "family": "qr"}', "family", 3),
    ],
)
def test_a_field_newer_than_the_file_is_refused_at_its_line(
    line: str, field: str, since: int
) -> None:
    for header in ([], ['{"rules": "family-bid-euchre"}'], [f'{{"version": {since - 1}}}']):
        with pytest.raises(TranscriptError) as info:
            parse_lines([*header, "# a comment", line], "old.jsonl")
        assert info.value.line == len(header) + 2
        file_version = 1 if not header or "rules" in header[0] else since - 1
        assert (
            f".{field} is new in transcript version {since}, and this file is version "
            f"{file_version}" in str(info.value)
        )
        assert f'put "version": {since} in its first line' in str(info.value)
    assert parse_lines([f'{{"version": {since}}}', line]).version == since


def test_a_null_new_field_is_no_field() -> None:
    line = '{"event": "renege_claimed", "by": "N", "against": "E", "trick": null}'
    assert parse_lines([line]).events == [RenegeClaimed(Seat.N, Seat.E)]


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (['{"version": 2}', '{"rules": "td-tournament"}'], "the header (version and rules) is one"),
        (['{"event": "misdeal_declared"}', '{"version": 2}'], "the header (version and rules) is"),
        (['{"version": 2, "options": {"points_to_win": 5}}'], "options need the rules"),
        (['{"version": 2, "rules": "td-tournament", "x": 1}'], "has no field 'x'"),
    ],
)
def test_header_mistakes(lines: list[str], message: str) -> None:
    with pytest.raises(TranscriptError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_lines(lines)


def test_a_version_alone_leaves_the_rules_to_the_default() -> None:
    t = parse_lines(['{"version": 2}', '{"event": "dealer_chosen", "seat": "N"}'])
    assert t.rules_name is None and t.version == 2
    assert t.rules() == preset(DEFAULT_PRESET, {})


def test_dump_writes_the_oldest_version_that_says_the_events() -> None:
    old = [HandDealt(), RenegeClaimed(Seat.N, Seat.E)]
    assert dump(old, "family-bid-euchre").splitlines()[0] == '{"rules": "family-bid-euchre"}'
    assert not dump(old).startswith('{"version"')
    new = [*old, AllNinesShown(Seat.S, ())]
    text = dump(new, "family-bid-euchre")
    assert text.splitlines()[0] == '{"version": 2, "rules": "family-bid-euchre"}'
    back = parse_lines(text.splitlines())
    assert back.version == 2 and back.events == new
    assert dump([RenegeClaimed(Seat.N, Seat.E, 2)]).splitlines()[0] == '{"version": 2}'


def test_a_card_of_another_marker_family_needs_version_3_and_a_known_family() -> None:
    """The family a foreign card is printed in (issue 31) is new in version 3; a foreign
    card without it still writes and reads as version 1."""
    assert not dump([ForeignCardSeen(Seat.W, 31)]).startswith('{"version"')
    qr = ForeignCardSeen(Seat.W, None, Printing.QR)
    text = dump([qr])
    assert text.splitlines()[0] == '{"version": 3}'
    assert parse_lines(text.splitlines()).events == [qr]
    with pytest.raises(TranscriptError, match="'barcode' is not a marker family: aruco, qr"):
        parse_lines(['{"version": 3}', '{"event": "foreign_card_seen", "family": "barcode"}'])
    validator = jsonschema.Draft202012Validator(transcript_schema())
    line = {"event": "foreign_card_seen", "seat": "W", "family": "qr"}
    assert not list(validator.iter_errors(line))
    assert list(validator.iter_errors({**line, "family": "barcode"}))


def test_replay_refuses_a_newer_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "future.jsonl"
    path.write_text('{"version": 99}\n{"event": "dealer_chosen", "seat": "N"}\n')
    assert main(["replay", str(path)]) == 2
    err = capsys.readouterr().err
    assert "line 1: this transcript is version 99" in err and "update table-controller" in err


def test_the_schema_knows_the_versions() -> None:
    validator = jsonschema.Draft202012Validator(transcript_schema())
    assert not list(validator.iter_errors({"version": VERSION, "rules": "td-tournament"}))
    assert not list(validator.iter_errors({"version": 1}))
    assert list(validator.iter_errors({"version": VERSION + 1}))
    assert list(validator.iter_errors({"options": {}}))
    claim = {"event": "renege_claimed", "by": "N", "against": "E", "trick": 0}
    assert list(validator.iter_errors(claim))
    assert not list(validator.iter_errors({**claim, "trick": 5}))
