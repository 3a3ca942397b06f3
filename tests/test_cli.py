"""The ``table-controller`` command: replay, rules and demo, and its errors."""

from __future__ import annotations

import argparse
import io
import json
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from table_controller.cli import main, parser
from table_controller.rules.codec import OUTPUT_BY_NAME
from table_controller.rules.presets import PRESETS
from table_controller.table.config import parse_config

EXAMPLES = Path(__file__).parent / "transcripts"
RENEGE = EXAMPLES / "001_renege_ends_hand.jsonl"


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = main(list(argv), out=out)
    return code, out.getvalue()


def test_replay_prints_output_events_as_json_lines() -> None:
    code, text = run("replay", str(RENEGE))
    assert code == 0
    events = [json.loads(line) for line in text.splitlines()]
    assert all(e["event"] in OUTPUT_BY_NAME for e in events)
    proven = [e for e in events if e["event"] == "renege_proven"]
    assert proven == [
        {
            "event": "renege_proven",
            "hand": 1,
            "seat": "W",
            "trick": 1,
            "suit": "H",
            "played": "AS",
            "proof": "9H",
            "proof_trick": 2,
        }
    ]
    assert events[-1]["event"] == "hand_scored"


def test_replay_pretty_tells_the_game() -> None:
    code, text = run("replay", str(RENEGE), "--pretty")
    assert code == 0
    assert "RENEGE: West did not follow" in text and "Trick 1:" in text and "North-South 2" in text


def test_rules_flag_overrides_the_transcript(tmp_path: Path) -> None:
    # Under 000 a renege costs the offenders 2 and play goes on; under 001 it ends the hand.
    code, text = run("replay", str(RENEGE), "--rules", "bicycle-head-to-head")
    assert code == 0
    names = [json.loads(line)["event"] for line in text.splitlines()]
    assert "penalty_scored" in names and "hand_scored" not in names


def test_an_option_can_be_changed(tmp_path: Path) -> None:
    code, text = run("replay", str(RENEGE), "--option", "renege_points=3")
    assert code == 0
    assert '"points": [3, 0]' in text


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"event": "dealer_chosen", "seat": "N"}\n{not json\n', "line 2: not valid JSON"),
        ('{"event": "dealer_chosen", "seat": "Z"}\n', "line 1: dealer_chosen.seat"),
        ('{"rules": "whist"}\n', "line 1: unknown rule preset 'whist'"),
        ("[1, 2]\n", "line 1: each line must be one JSON object"),
    ],
)
def test_a_malformed_transcript_names_the_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, message: str
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(content)
    code, _ = run("replay", str(path))
    assert code == 2
    assert message in capsys.readouterr().err


def test_an_impossible_transcript_names_the_line_and_keeps_what_came_before(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "impossible.jsonl"
    lines = RENEGE.read_text().splitlines()
    lines.insert(11, '{"event": "card_played", "seat": "E", "card": "AH"}')  # AH again
    path.write_text("\n".join(lines) + "\n")
    code, text = run("replay", str(path))
    err = capsys.readouterr().err
    assert code == 1
    assert "line 12" in err and "AH was already played by E in trick 1" in err
    assert '"trump_set"' in text  # the events before it were replayed and printed


def test_missing_and_binary_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run("replay", str(tmp_path / "nope.jsonl"))[0] == 2
    assert "no such file" in capsys.readouterr().err
    binary = tmp_path / "frame.png"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe")
    assert run("replay", str(binary))[0] == 2
    assert "not a text file" in capsys.readouterr().err


def test_rules_list_and_show() -> None:
    code, text = run("rules", "list")
    assert code == 0
    for name in ("bicycle-head-to-head", "nmu-tournament", "td-tournament", "td-progressive"):
        assert name in text
    assert ".txt" not in text  # the rule texts by their titles, not files a user lacks
    code, text = run("rules", "show", "nmu-tournament")
    assert code == 0
    assert "rule text: Northern Michigan University tournament rules" in text
    assert "hands_per_game = 12" in text and "shared/seeds" not in text
    code, text = run("rules", "show", "bid-euchre", "--json")
    assert json.loads(text)["options"]["points_to_win"] == 32


def test_rules_show_unknown(capsys: pytest.CaptureFixture[str]) -> None:
    assert run("rules", "show", "whist")[0] == 2
    assert "presets: bicycle-head-to-head" in capsys.readouterr().err


def test_demo_replays_the_bundled_game() -> None:
    code, text = run("demo", "--recorded")
    assert code == 0
    assert "RENEGE: " in text and "Game 1 over" in text


def test_the_installed_command_runs() -> None:
    exe = shutil.which("table-controller", path=str(Path(sys.executable).parent))
    assert exe, "the console script is installed with the package"
    done = subprocess.run(
        [exe, "replay", str(RENEGE)], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert '"renege_proven"' in done.stdout


def test_a_misspelt_option_suggests_the_one_meant(capsys: pytest.CaptureFixture[str]) -> None:
    example = str(Path(__file__).parents[1] / "table_controller/examples/td-tournament-game.jsonl")
    assert run("replay", example, "--option", "point_to_win=5")[0] == 2
    assert "unknown rule option 'point_to_win' (did you mean 'points_to_win'?)" in (
        capsys.readouterr().err
    )


def test_a_command_loads_only_its_own_group() -> None:
    """`rules list` and `--help` load no camera, web, broker or database library: each
    command group is imported only when it runs (table_controller/commands.py)."""
    heavy = ("cv2", "numpy", "starlette", "uvicorn", "paho", "psycopg", "PIL", "reportlab")
    probe = (
        "import contextlib, io, sys\n"
        "from table_controller.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        "    main(sys.argv[1:], out=io.StringIO())\n"
        f"print(sorted(m for m in {heavy!r} if m in sys.modules))\n"
    )
    for argv in (
        ["rules", "list"],
        ["rules", "show", "td-tournament"],
        ["calibrate", "--help"],  # OpenCV loads when a calibration runs
        ["calibrate", "mat", "--help"],
    ):
        done = subprocess.run(
            [sys.executable, "-c", probe, *argv], capture_output=True, text=True, check=True
        )
        assert done.stdout.strip() == "[]", (argv, done.stdout)


def test_calibrate_s_options_are_the_calibration_s() -> None:
    """calibrate_cli names the families and limits itself (its --help loads no OpenCV):
    they must be calibration.py's and markers.py's."""
    from table_controller.vision import calibration
    from table_controller.vision.cli import calibrate_cli
    from table_controller.vision.markers import FAMILIES

    assert sorted(calibrate_cli.FAMILY_NAMES) == sorted(FAMILIES)
    assert calibrate_cli.MAX_ERROR_MM == calibration.MAX_ERROR_MM
    assert calibrate_cli.DRIFT_PX == calibration.DRIFT_PX


def test_every_group_is_listed_and_loads_its_own_command() -> None:
    from table_controller.commands import GROUPS

    full = parser()  # every group loaded
    choices = next(a for a in full._actions if isinstance(a, argparse._SubParsersAction)).choices
    for name in GROUPS:
        assert name in choices
        lazy = parser([name, "--help"])
        sub = next(a for a in lazy._actions if isinstance(a, argparse._SubParsersAction))
        assert sub.choices[name].description == choices[name].description, name


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_rules_show_prints_options_a_config_takes(name: str, tmp_path: Path) -> None:
    """Issue 15: `rules show` printed `dealer_min_bid = null`, which TOML cannot read. Each
    options line, pasted under [rules.options], is a valid config with the same rules."""
    code, text = run("rules", "show", name)
    assert code == 0
    lines = text.split("options (as a table's config takes them, under [rules.options]):\n")[1]
    assert "null" not in lines
    doc = f'[table]\nname = "T1"\n\n[rules]\npreset = "{name}"\n\n[rules.options]\n' + "".join(
        line.strip() + "\n" for line in lines.splitlines() if line.strip()
    )
    config = parse_config(tomllib.loads(doc), tmp_path)
    assert config.rules == PRESETS[name].rules
