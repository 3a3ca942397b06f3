"""Bad files given to the command line: each gives a one-line error and a non-zero exit,
never a traceback, never a huge value echoed whole, and never gigabytes of memory.

The attacks run the real ``table-controller`` in a process; the property tests feed
generated files to each file parser (transcripts, table configurations, calibrations,
rule options, pictures) and accept only success or that parser's own error.
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from table_controller import cli
from table_controller.rules.errors import RulesError
from table_controller.rules.presets import PRESETS, RANGES, Rules, preset
from table_controller.table.config import ConfigError, load_config
from table_controller.transcript import TranscriptError, parse_lines
from table_controller.vision.layout import Calibration, CalibrationError
from table_controller.vision.picture import MAX_PIXELS, PictureError, read_picture

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "table_controller" / "examples" / "td-tournament-game.jsonl"
# No more memory than a table's Raspberry Pi would give a command: a picture that makes
# OpenCV allocate gigabytes fails the run instead of the machine.
MEMORY_LIMIT = 1536 * 1024 * 1024


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    def limit() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "table_controller.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        preexec_fn=limit,
        timeout=120,
        check=False,
    )


def one_line_error(result: subprocess.CompletedProcess[str], *needles: str) -> str:
    """The run failed with exit 1 or 2 and one short line on stderr naming ``needles``."""
    err = result.stderr
    assert "Traceback" not in err, err[-2000:]
    assert result.returncode in (1, 2), (result.returncode, err[-2000:])
    lines = err.strip().splitlines()
    assert len(lines) == 1, err[:2000]
    assert len(lines[0]) < 400, lines[0][:500]
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def png(path: Path, width: int, height: int) -> Path:
    """A 1-bit grey PNG of zeros: a few hundred kilobytes however many pixels it declares."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    row = b"\0" * (1 + (width + 7) // 8)
    packer = zlib.compressobj(9)
    data = b"".join(packer.compress(row) for _ in range(height)) + packer.flush()
    header = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    path.write_bytes(
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", data) + chunk(b"IEND", b"")
    )
    return path


# --- the attacks, on the real command ------------------------------------------------


def test_replay_refuses_deep_nesting(tmp_path: Path) -> None:
    bad = tmp_path / "deep.jsonl"
    bad.write_text("[" * 100_000 + "]" * 100_000 + "\n")
    one_line_error(run("replay", str(bad)), "line 1", "nested more than 32 levels")


def test_replay_refuses_a_5000_digit_number(tmp_path: Path) -> None:
    bad = tmp_path / "big.jsonl"
    bad.write_text('{"event": "deal", "dealer": ' + "9" * 5000 + "}\n")
    one_line_error(run("replay", str(bad)), "line 1", "5,000 digits")


def test_replay_does_not_echo_a_huge_field(tmp_path: Path) -> None:
    bad = tmp_path / "wide.jsonl"
    bad.write_text('{"event": "card_played", "seat": "N", "card": "' + "x" * 5_000_000 + '"}\n')
    one_line_error(run("replay", str(bad)), "unknown card", "(5,000,000 characters)")


@pytest.mark.parametrize(
    ("option", "needle"),
    [
        ("points_to_win=-5", "from 1 to 1000"),
        ("points_to_win=0", "from 1 to 1000"),
        ("points_made=-100", "from 1 to 100"),
        ("points_to_win=" + "9" * 5000, "(5,000 characters)"),
        ("renege_penalty=" + "x" * 100_000, "(100,000 characters)"),
    ],
)
def test_replay_refuses_rule_options_out_of_range(option: str, needle: str) -> None:
    one_line_error(run("replay", str(EXAMPLE), "--option", option), needle)


@pytest.mark.parametrize(
    "toml",
    [
        "a = " + "[" * 100_000 + "]" * 100_000,
        "[table]\nname = " + "{b=" * 5000 + "1" + "}" * 5000,
        "[web]\nport = " + "9" * 5000,
    ],
)
def test_config_check_refuses_deep_toml_and_huge_numbers(tmp_path: Path, toml: str) -> None:
    bad = tmp_path / "table.toml"
    bad.write_text(toml + "\n")
    result = run("config", "check", str(bad))
    assert "Traceback" not in result.stderr and result.returncode == 2, result.stderr[-2000:]
    problem, summary = result.stderr.strip().splitlines()  # the problem, then the count
    assert problem.startswith(f"{bad}: TOML: ") and len(problem) < 400
    assert summary.startswith("1 problem")


def test_seat_pins_refuse_deep_toml(tmp_path: Path) -> None:
    bad = tmp_path / "pins.toml"
    bad.write_text("a = " + "[" * 100_000 + "]" * 100_000 + "\n")
    one_line_error(run("seats", "pins", "--pins", str(bad)), "nested more than")


def test_a_calibration_file_nested_deep_is_refused(tmp_path: Path) -> None:
    picture = png(tmp_path / "small.png", 64, 48)
    bad = tmp_path / "table.json"
    bad.write_text("[" * 100_000 + "]" * 100_000)
    one_line_error(
        run("vision", "read", str(picture), "--calibration", str(bad)), "nested more than"
    )


def test_vision_read_refuses_a_picture_over_2_to_the_30_pixels(tmp_path: Path) -> None:
    bomb = png(tmp_path / "bomb.png", 32769, 32769)
    assert bomb.stat().st_size < 200_000
    one_line_error(run("vision", "read", str(bomb)), "1,073,807,361 pixels", "50,000,000")


def test_vision_read_refuses_a_picture_that_would_take_gigabytes(tmp_path: Path) -> None:
    """Under OpenCV's own limit of 2^30 pixels: decoded, it would take 2.7 GB."""
    big = png(tmp_path / "big.png", 30000, 30000)
    one_line_error(run("vision", "read", str(big)), "900,000,000 pixels", "50,000,000")


def test_over_the_table_limit_is_refused_before_decoding(tmp_path: Path) -> None:
    picture = png(tmp_path / "wide.png", 8000, 8000)
    one_line_error(run("vision", "read", str(picture)), "8000x8000 (64,000,000 pixels)")


def test_calibrate_refuses_a_bomb_as_a_picture_a_folder_or_a_video(tmp_path: Path) -> None:
    (tmp_path / "pictures").mkdir()
    bomb = png(tmp_path / "pictures" / "frame-1.png", 32769, 32769)
    out = str(tmp_path / "cal.json")
    one_line_error(run("calibrate", "--image", str(bomb), "--out", out), "pixels")
    for camera in (f"folder:{tmp_path / 'pictures'}", f"video:{bomb}"):
        one_line_error(run("calibrate", "--camera", camera, "--out", out), "pixels")


# --- properties: every parser succeeds or gives its own error -------------------------

TEXT_PIECES = st.sampled_from(
    ["[", "]", "{", "}", '"', ":", ",", "9" * 30, "1e999", "NaN", "-", "\\", "null", "x" * 200]
)
JUNK = st.lists(TEXT_PIECES | st.text(max_size=20), max_size=40).map("".join)
EVENTS = st.fixed_dictionaries(
    {"event": st.sampled_from(["deal", "card_played", "bid", "score_adjusted", "nope"])},
    optional={
        "seat": st.sampled_from(["N", "E", "Q", 7, None, "x" * 500]),
        "card": st.sampled_from(["JH", "1X", 3, [], "y" * 500]),
        "dealer": st.integers() | st.text(max_size=5),
        "points": st.integers(-(10**30), 10**30),
    },
)
LINES = st.lists(st.one_of(JUNK, EVENTS.map(json.dumps)), min_size=1, max_size=6)


@settings(max_examples=150, deadline=None)
@given(LINES)
def test_transcript_lines_play_or_name_their_line(lines: list[str]) -> None:
    try:
        transcript = parse_lines(lines, "fuzz.jsonl")
    except TranscriptError as exc:
        assert "\n" not in str(exc) and len(str(exc)) < 600
        return
    try:
        transcript.rules()
    except TranscriptError as exc:
        assert len(str(exc)) < 600


OPTION_VALUES = st.one_of(
    st.integers(-(10**25), 10**25),
    st.text(max_size=30),
    st.sampled_from(["none", "true", "[[[[", "9" * 5000, "1e999", "NaN", "x" * 300]),
)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(sorted(Rules().options())), OPTION_VALUES, st.sampled_from(list(PRESETS)))
def test_rule_options_from_the_command_line(name: str, value: object, rules: str) -> None:
    try:
        options = cli._options([f"{name}={value}"])
        preset(rules, options)
    except RulesError as exc:
        assert "\n" not in str(exc) and len(str(exc)) < 600


@given(st.sampled_from(sorted(RANGES)), st.integers(-(10**6), 10**6))
def test_every_whole_number_option_has_its_range(name: str, value: int) -> None:
    low, high = RANGES[name]
    try:
        Rules().with_options({name: value})
    except RulesError as exc:
        in_range = low <= value <= high
        assert not in_range or name in ("best_of", "min_bid", "dealer_min_bid"), exc
        if not in_range:
            assert f"from {low} to {high}" in str(exc)
    else:
        assert low <= value <= high


def test_the_ranges_cover_every_whole_number_option() -> None:
    whole = {k for k, v in Rules().options().items() if type(v) is int or v is None}
    assert whole == set(RANGES)


TOML_VALUES = st.sampled_from(
    [
        "1",
        "-5",
        "9" * 30,
        "9" * 5000,
        "nan",
        "inf",
        "-inf",
        '"x"',
        '"' + "y" * 2000 + '"',
        "[" * 50 + "]" * 50,
        "{a = {b = {c = 1}}}",
        "true",
        "[1, 2, 3]",
        "'none'",
        '"\\u0000"',
    ]
)
TOML_KEYS = st.sampled_from(
    [
        "table.name",
        "table.gpio",
        "table.disk_min_free_mb",
        "rules.preset",
        "rules.options.points_to_win",
        "rules.options.points_made",
        "rules.options.best_of",
        "camera.lost_after",
        "camera.calibration",
        "cube.port",
        "cube.min_rto",
        "web.port",
        "feed.topic",
        "kiosk.visitors",
        "seats.N.led",
        "z" * 300,
    ]
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(TOML_KEYS, TOML_VALUES, max_size=6), JUNK)
def test_table_configurations_load_or_list_their_problems(
    entries: dict[str, str], junk: str
) -> None:
    text = "\n".join(f"{key} = {value}" for key, value in entries.items())
    for body in (text, text + "\n" + junk):
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "table.toml"
            path.write_text(body)
            try:
                load_config(path)
            except ConfigError as exc:
                for line in str(exc).splitlines():
                    assert len(line) < 900, line[:1000]


CALIBRATION = {
    "format": "table-controller-calibration/1",
    "image_size": [640, 480],
    "homography": [[1, 0, 0], [0, 1, 0], [0, 0, 1]],
    "zones": [],
}


@settings(max_examples=100, deadline=None)
@given(
    st.sampled_from(sorted(CALIBRATION)),
    st.one_of(
        st.integers(-(10**25), 10**25),
        st.text(max_size=10),
        st.just("9" * 5000),
        st.lists(st.integers(-5, 5) | st.floats(), max_size=4),
        st.none(),
    ),
    JUNK,
)
def test_calibration_files_load_or_say_what_is_wrong(key: str, value: object, junk: str) -> None:
    doc = {**CALIBRATION, key: value}
    for text in (json.dumps(doc), junk):
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "table.json"
            path.write_text(text)
            try:
                Calibration.load(path)
            except CalibrationError as exc:
                assert "\n" not in str(exc) and len(str(exc)) < 600


@settings(max_examples=40, deadline=None)
@given(
    st.integers(1, 70_000),
    st.integers(1, 70_000),
    st.binary(max_size=64),
    st.sampled_from([0, 8, 20, 40]),
)
def test_pictures_read_or_are_refused(width: int, height: int, body: bytes, cut: int) -> None:
    header = b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR"
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    data = header + ihdr + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr)) + body
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "frame.png"
        path.write_bytes(data[: len(data) - cut])
        try:
            image = read_picture(path)
        except PictureError as exc:
            assert "\n" not in str(exc)
        else:
            assert image.shape[0] * image.shape[1] <= MAX_PIXELS
