"""Exports of a logged game (table_controller/table/log/export.py) and the ``log`` commands:
the transcript replays to the same outputs as the log, the score sheet shows every hand,
the renege evidence and the final score, and every failure has its exit code."""

from __future__ import annotations

import base64
import io
import random
import re
import sqlite3
from importlib import resources
from pathlib import Path

import pytest
from PIL import Image

from table_controller.cli import main
from table_controller.event_log import EventLog
from table_controller.rules.events import CardPlayed, HandStarted, InputEvent, OutputEvent
from table_controller.rules.game import Game
from table_controller.rules.presets import preset
from table_controller.seats import Seat
from table_controller.simulate import play
from table_controller.table.log.export import replay_sheet, score_sheet_html, transcript_text
from table_controller.transcript import load, parse_lines, replay

HERE = Path(__file__).parent
RENEGE = HERE / "transcripts" / "001_renege_ends_hand.jsonl"
PLAYERS = {Seat.N: "<script>alert(1)</script>", Seat.E: "Bob & Co", Seat.S: "Cy", Seat.W: "Di"}


def png(seed: int) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (6, 4), (seed % 256, seed // 256, 99)).save(out, format="PNG")
    return out.getvalue()


def data_uri(image: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(image).decode("ascii")


def write_game(
    path: Path,
    rules_name: str,
    events: list[InputEvent],
    *,
    options: dict[str, object] | None = None,
    evidence: bool = True,
    table: str = "Club <Table> 1",
) -> int:
    """A log holding ``events`` as one game; each card played with its camera image."""
    with EventLog(path, table=table) as log:
        game = log.start_game(rules_name, options or {}, PLAYERS, started=1700000000.0)
        for seq, event in enumerate(events, start=1):
            image = png(seq) if evidence and isinstance(event, CardPlayed) else None
            log.append(game, seq, event, source="camera", evidence=image)
    return game


def outputs(
    rules_name: str, options: dict[str, object], events: list[InputEvent]
) -> list[OutputEvent]:
    return Game(preset(rules_name, options)).push_all(events)


def example_game() -> tuple[str, list[InputEvent]]:
    text = resources.files("table_controller").joinpath("examples", "td-tournament-game.jsonl")
    transcript = parse_lines(text.read_text().splitlines())
    return transcript.rules_name or "td-tournament", transcript.events


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return main(list(argv), out=out), out.getvalue()


# --- the transcript ------------------------------------------------------------------------


@pytest.mark.parametrize("which", ["renege", "live example", "simulated, hands known"])
def test_the_transcript_replays_to_the_same_outputs_as_the_log(tmp_path: Path, which: str) -> None:
    options: dict[str, object] = {}
    if which == "renege":
        name, events = "nmu-tournament", load(RENEGE).events
        options = {"hands_per_game": 2}
    elif which == "live example":
        name, events = example_game()
    else:
        name = "bicycle-head-to-head"
        events = [e for e, _ in play(preset(name), random.Random(7))]
    path = tmp_path / "t.sqlite"
    game = write_game(path, name, events, options=options)
    with EventLog.open_existing(path) as log:
        text = transcript_text(log, game)
        logged = [e.event for e in log.events(game)]
    transcript = parse_lines(text.splitlines(), "export")
    assert transcript.rules_name == name and transcript.options == options
    assert transcript.events == logged == events
    replayed = [o for _, outs in replay(transcript) for o in outs]
    assert replayed == outputs(name, options, logged)
    assert text.startswith('# table "Club <Table> 1", game 1, started ')


def test_a_live_tables_deal_is_exported_without_hands(tmp_path: Path) -> None:
    name, events = example_game()
    path = tmp_path / "live.sqlite"
    write_game(path, name, events)
    with EventLog.open_existing(path) as log:
        text = transcript_text(log, 1)
    deals = [line for line in text.splitlines() if '"hand_dealt"' in line]
    assert deals and all('"hands"' not in line for line in deals)


# --- the score sheet --------------------------------------------------------------------------


def test_the_sheet_shows_every_hand_and_the_final_score(tmp_path: Path) -> None:
    name, events = example_game()
    path = tmp_path / "sheet.sqlite"
    write_game(path, name, events)
    hands = [o for o in outputs(name, {}, events) if isinstance(o, HandStarted)]
    game = Game.replay(preset(name), events)
    with EventLog.open_existing(path) as log:
        html = score_sheet_html(log, 1)
        sheet = replay_sheet(log, 1)
    assert [h.number for h in sheet.hands] == [h.hand for h in hands]
    body = html.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    numbers = re.findall(r"<tr><td>(\d+)</td>", body)
    assert numbers == [str(h.hand) for h in hands]
    ns, ew = game.team_scores()
    assert f"Final score: North-South {ns}, East-West {ew}" in html
    assert "@media print" in html and html.startswith("<!DOCTYPE html>")
    assert "td-tournament (Tournament director rules, games to 10)" in html


def test_the_sheet_shows_the_renege_with_the_camera_images_of_both_cards(tmp_path: Path) -> None:
    events = load(RENEGE).events
    path = tmp_path / "renege.sqlite"
    write_game(path, "nmu-tournament", events)
    played = next(
        seq for seq, e in enumerate(events, 1) if isinstance(e, CardPlayed) and e.card.code == "AS"
    )
    proof = next(
        seq for seq, e in enumerate(events, 1) if isinstance(e, CardPlayed) and e.card.code == "9H"
    )
    with EventLog.open_existing(path) as log:
        html = score_sheet_html(log, 1)
    assert "Renege: West did not follow" in html
    assert data_uri(png(played)) in html and data_uri(png(proof)) in html
    assert html.count("data:image/png") == 2  # only the cards involved
    assert "Game in progress: North-South 2, East-West 0." in html


def test_the_sheet_says_when_a_renege_has_no_image(tmp_path: Path) -> None:
    path = tmp_path / "noimg.sqlite"
    write_game(path, "nmu-tournament", load(RENEGE).events, evidence=False)
    with EventLog.open_existing(path) as log:
        html = score_sheet_html(log, 1)
    assert "Renege: West did not follow" in html and "no image recorded" in html
    assert "data:image/png" not in html


def test_the_sheet_escapes_every_name(tmp_path: Path) -> None:
    path = tmp_path / "names.sqlite"
    write_game(path, "nmu-tournament", load(RENEGE).events)
    with EventLog.open_existing(path) as log:
        html = score_sheet_html(log, 1)
    assert "<script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "Club &lt;Table&gt; 1" in html and "Bob &amp; Co" in html


def test_a_bad_row_is_noted_and_the_rest_exported(tmp_path: Path) -> None:
    path = tmp_path / "bad.sqlite"
    write_game(path, "nmu-tournament", load(RENEGE).events)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("DROP TRIGGER events_no_update")
    conn.execute("UPDATE events SET event = 'garbage' WHERE seq = 3")
    conn.close()
    with EventLog.open_existing(path) as log:
        text = transcript_text(log, 1)
        html = score_sheet_html(log, 1)
    assert "# event 3 is missing: " in text
    assert "game 1, event 3 cannot be read" in html
    assert "was not replayed" in html  # the events after it no longer fit the rules


# --- the log commands ----------------------------------------------------------------------------


@pytest.fixture
def two_games(tmp_path: Path) -> Path:
    path = tmp_path / "club.sqlite"
    name, events = example_game()
    write_game(path, name, events)
    with EventLog(path, table="Club <Table> 1") as log:
        game = log.start_game("nmu-tournament", {}, {Seat.N: "Ann"}, started=1700000500.0)
        for seq, event in enumerate(load(RENEGE).events, start=1):
            log.append(game, seq, event, source="camera")
    return path


def test_log_games_lists_each_game(two_games: Path) -> None:
    code, text = run("log", "games", str(two_games))
    assert code == 0
    lines = text.splitlines()
    assert "table 'Club <Table> 1', 2 games" in lines[0]
    assert lines[1].startswith("game 1  td-tournament  N <script>alert(1)</script>, E Bob & Co")
    assert "events 345" in lines[1] and "over, score NS" in lines[1]
    assert lines[2].startswith("game 2  nmu-tournament  N Ann")
    assert "hands 1  in play, score NS 2 EW 0, next: the deal by E (hand_dealt)" in lines[2]


def test_log_export_writes_the_last_game_by_default(two_games: Path, tmp_path: Path) -> None:
    out = tmp_path / "last.jsonl"
    code, text = run("log", "export", str(two_games), "--transcript", str(out))
    assert code == 0 and "game 2: transcript written to" in text
    assert load(out).events == load(RENEGE).events
    sheet = tmp_path / "first.html"
    code, _ = run("log", "export", str(two_games), "--game", "1", "--sheet", str(sheet))
    assert code == 0 and "Final score" in sheet.read_text()
    code, text = run("log", "export", str(two_games), "--game", "2", "--transcript", "-")
    assert code == 0 and '{"rules": "nmu-tournament"}' in text


def test_log_export_errors(
    two_games: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _ = run("log", "export", str(two_games), "--game", "9", "--sheet", "x.html")
    assert code == 2 and "has no game 9 (games 1 to 2)" in capsys.readouterr().err
    code, _ = run("log", "export", str(two_games), "--sheet", str(tmp_path / "no" / "x.html"))
    assert code == 1 and "cannot write" in capsys.readouterr().err
    empty = tmp_path / "empty.sqlite"
    EventLog(empty, table="T").close()
    code, _ = run("log", "export", str(empty), "--sheet", "-")
    assert code == 2 and "has no games yet" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # one of --transcript and --sheet is required
        run("log", "export", str(two_games))


def test_log_check_replays_every_game(two_games: Path) -> None:
    code, text = run("log", "check", str(two_games))
    assert code == 0, text
    assert "game 1 (td-tournament): 345 events, replays cleanly: over" in text
    assert "game 2 (nmu-tournament)" in text and text.endswith("ok\n")


def test_log_check_reports_a_bad_row(two_games: Path, capsys: pytest.CaptureFixture[str]) -> None:
    conn = sqlite3.connect(two_games, isolation_level=None)
    conn.execute("DROP TRIGGER events_no_update")
    conn.execute(
        'UPDATE events SET event = \'{"event": "card_played"}\' WHERE game = 2 AND seq = 6'
    )
    conn.close()
    code, text = run("log", "check", str(two_games))
    assert code == 1
    assert "game 2, event 6 cannot be read (card_played needs the field 'seat')" in text
    assert "problems found" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["games", "check", "export"])
def test_a_refused_file_exits_2(
    tmp_path: Path, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    foreign = tmp_path / "foreign.sqlite"
    conn = sqlite3.connect(foreign)
    conn.execute("CREATE TABLE t (x)")
    conn.close()
    extra = ["--sheet", "-"] if command == "export" else []
    code, _ = run("log", command, str(foreign), *extra)
    assert code == 2
    assert "not a table-controller log" in capsys.readouterr().err
    code, _ = run("log", command, str(tmp_path / "missing.sqlite"), *extra)
    assert code == 2 and "no such log file" in capsys.readouterr().err


def test_the_sheet_shows_the_directors_rulings(tmp_path: Path) -> None:
    transcript = load(Path(__file__).parent / "transcripts" / "003_director_rulings.jsonl")
    game, accepted = Game(preset("td-tournament")), []
    for event in transcript.events:  # without the one the transcript expects refused
        try:
            game.push(event)
        except ValueError:
            continue
        accepted.append(event)
    path = tmp_path / "rulings.sqlite"
    write_game(path, "td-tournament", accepted)
    with EventLog(path, table="Club <Table> 1") as log:
        html = score_sheet_html(log, 1)
    # markupsafe (the template's autoescape) writes ' as &#39;, html.escape as &#x27;
    assert any(f"Director{q}s ruling" in html for q in ("'", "&#x27;", "&#39;"))
    assert "false renege claim by N-S" in html and "voided" in html
