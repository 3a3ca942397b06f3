"""``table-controller director export``: the event's results written for people, from a
director's store holding real simulated tables' games (tests/export_event.py): the CSV
files read back with ``csv``, the PDFs rendered with pypdfium2 (pages, text, the
evidence pictures embedded), and every bad input refused in words with exit 2 and
nothing half-written."""

from __future__ import annotations

import csv
import io
import os
import re
import sqlite3
import string
import sys
import unicodedata
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
import pytest
from export_event import EVENT, START, TABLES, build_event, progressive_game, renege_game
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image
from playwright.sync_api import Browser, expect
from postgres import Postgres
from review_games import review_data

from table_controller.cli import main
from table_controller.director.store import DirectorStore
from table_controller.director.tournament import Bracket, ProgressiveEvent, RoundsEvent, collect
from table_controller.director.tournament.admin import TournamentAdmin, create, record, team_words
from table_controller.director.tournament.results import files as results_files
from table_controller.director.tournament.results.as_csv import (
    CSV_ENCODING,
    RESULTS_HEADS,
    csv_text,
    is_formula,
)
from table_controller.director.tournament.results.as_pdf import pdf
from table_controller.director.tournament.results.model import dates_text
from table_controller.director.tournament.results.standings import standings
from table_controller.present import renege_sentence
from table_controller.rules.codec import decode_input, encode
from table_controller.rules.events import HandDealt, RenegeProven
from table_controller.rules.game import Game
from table_controller.rules.hand import Phase
from table_controller.rules.presets import preset
from table_controller.templating import data_uri, red_suits
from table_controller.transcript import parse_lines

# Names a person may type: a comma and quotes, an accent, markup that must stay text.
PLAYERS = ["Ann", "Bob", "Zoë", "<i>Di</i>", 'Ed "Fast" O\'Neil, Jr.', "Flo", "Gus", "Hal"]


@pytest.fixture(scope="module")
def event_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("event") / "director.sqlite"
    build_event(path, players=PLAYERS).close()
    return path


@pytest.fixture(scope="module")
def exported(event_store: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("results") / "spring"
    code, text = run("--database", str(event_store), "--out", str(out), "--event", EVENT)
    assert code == 0
    lines = text.splitlines()
    assert lines[:4] == [str(out / n) for n in results_files.FILES]
    reviews = lines[4:]  # then each game's hand review (issue 34)
    assert reviews and all(Path(r).parent == out for r in reviews)
    assert all(Path(r).name.startswith("review-") and r.endswith(".html") for r in reviews)
    return out


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return main(["director", "export", *argv], out=out), out.getvalue()


def read_csv(path: Path) -> list[dict[str, str]]:
    raw = path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")  # the BOM: Excel reads the file as UTF-8
    return list(csv.DictReader(io.StringIO(raw.decode(CSV_ENCODING), newline="")))


def pages_text(path: Path) -> list[str]:
    """Each page's text, its line breaks made spaces (a sentence may wrap)."""
    pdf = pdfium.PdfDocument(path)
    try:
        return [" ".join(pdf[i].get_textpage().get_text_range().split()) for i in range(len(pdf))]
    finally:
        pdf.close()


def ended_scores(messages: tuple[dict[str, Any], ...]) -> tuple[int, int]:
    ended = [o for m in messages for o in m["outputs"] if o.get("event") == "game_ended"]
    assert len(ended) == 1
    ns, ew = ended[0]["scores"]
    return int(ns), int(ew)


def ended_individual(messages: tuple[dict[str, Any], ...]) -> list[int]:
    ended = [o for m in messages for o in m["outputs"] if o.get("event") == "game_ended"]
    return [int(x) for x in ended[0]["individual"]]


def the_renege() -> RenegeProven:
    rules = preset("td-progressive", {"hands_per_game": 2})
    game = Game(rules)
    outs = [o for m in renege_game()[0] for o in game.push(decode_input(m["input"]))]
    return next(o for o in outs if isinstance(o, RenegeProven))


# --- the CSV files -------------------------------------------------------------------------


@pytest.mark.slow(budget=120)  # the fixture plays two real simulated tables' games
def test_results_csv_has_a_row_per_game_with_names_scores_and_reneges(exported: Path) -> None:
    rows = read_csv(exported / "results.csv")
    assert list(rows[0]) == RESULTS_HEADS
    got = [(r["Round"], r["Table"], r["Game"]) for r in rows]
    assert got == [
        ("1", "Maple", "1"),
        ("1", "Table 2", "1"),
        ("2", "Maple", "2"),
        ("2", "Table 2", "2"),
    ]
    renege, clean = renege_game()[0], progressive_game(2, False)[0]
    played = {("1", "Maple"): renege, ("1", "Table 2"): clean}
    played |= {("2", "Maple"): clean, ("2", "Table 2"): renege}
    for r in rows:
        messages = played[(r["Round"], r["Table"])]
        assert (int(r["North-South score"]), int(r["East-West score"])) == ended_scores(messages)
        assert r["Reneges"] == ("1" if messages is renege else "0")
        assert r["Hands"] == "2" and r["Status"] == "finished" and r["Event"] == EVENT
        points = [int(r[f"{seat} points"]) for seat in ("North", "East", "South", "West")]
        assert points == ended_individual(messages)
        assert r["Winner"].startswith(("North-South (", "East-West ("))
    people = {r[s] for r in rows for s in ("North", "East", "South", "West")}
    assert people == set(PLAYERS)  # each name exactly as typed: accents, quotes, a comma


@pytest.mark.slow(budget=120)
def test_standings_csv_has_every_player_best_first(exported: Path, event_store: Path) -> None:
    rows = read_csv(exported / "standings.csv")
    assert list(rows[0]) == ["Place", "Tied", "Player", "Points", "Rounds won", "Rounds played"]
    assert {r["Player"] for r in rows} == set(PLAYERS)
    points = [int(r["Points"]) for r in rows]
    assert points == sorted(points, reverse=True) and rows[0]["Place"] == "1"
    assert all(r["Rounds played"] == "2" for r in rows)
    store = DirectorStore(event_store, rules_name="td-progressive")
    try:
        expected = {s["name"]: s["total"] for s in TournamentAdmin(store).summary()["standings"]}
    finally:
        store.close()
    assert {r["Player"]: int(r["Points"]) for r in rows} == expected


_ODD = string.ascii_letters + "éèüßøñ漢♥ ,;\"'\n\r\t=+-@|\\"


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet=_ODD, min_size=1, max_size=12), min_size=1, max_size=6))
def test_odd_names_round_trip_through_the_csv(names: list[str]) -> None:
    """Commas, quotes, accents, newlines: each name reads back as written; one a
    spreadsheet would run as a formula (=, +, -, @, a tab, a CR first) gets a leading '."""
    data = csv_text(["Name", "Points"], [[n, i] for i, n in enumerate(names)]).encode(CSV_ENCODING)
    back = list(csv.reader(io.StringIO(data.decode(CSV_ENCODING), newline="")))
    assert back[0] == ["Name", "Points"]
    for i, (row, name) in enumerate(zip(back[1:], names, strict=True)):
        assert row == [("'" + name) if is_formula(name) else name, str(i)]


_BLANKS = " \u00a0\u3000\t\r\n\u2028\u200b\ufeff\u2009"  # spaces, breaks, invisible
_SIGNS = "=+-@＝＋－＠﹦﹢﹣−"  # ASCII, full-width, small forms, the minus sign
_NAME_START = string.ascii_letters + string.digits + "éÉüßøñ漢Ζ"


def _read_back(cells: list[str | int]) -> list[str]:
    data = csv_text(["Cell"] * len(cells), [cells]).encode(CSV_ENCODING)
    return list(csv.reader(io.StringIO(data.decode(CSV_ENCODING), newline="")))[1]


@settings(max_examples=300, deadline=None)
@given(
    st.text(alphabet=_BLANKS, max_size=4),
    st.sampled_from(_SIGNS),
    st.text(max_size=20),
)
def test_a_sign_after_any_blanks_or_full_width_gets_the_quote(
    blanks: str, sign: str, rest: str
) -> None:
    """Finding 7: " =1", a no-break space, a tab or CR before a sign, and the full-width
    ＝ ＋ － ＠ passed the guard; a spreadsheet reads each as a formula."""
    cell = blanks + sign + rest
    assert _read_back([cell]) == ["'" + cell]


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(_NAME_START),
    st.text(alphabet=_NAME_START + " '.&=-+@", max_size=20),
    st.integers(min_value=-(10**6), max_value=10**6),
)
def test_names_and_the_programs_numbers_stay_as_they_are(
    first: str, rest: str, number: int
) -> None:
    """A name that starts with a letter or digit is written as typed, whatever follows;
    a number (a negative score too) the program writes is a number, never quoted."""
    name = first + rest
    assert _read_back([name, number]) == [name, str(number)]


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=12))
def test_no_cell_read_back_can_start_a_formula(text: str) -> None:
    """Any text: read back as written or with one leading quote, and never with a sign
    first once the blanks a spreadsheet skips are skipped."""
    (cell,) = _read_back([text])
    assert cell in (text, "'" + text)
    blank = {"Cc", "Cf", "Zs", "Zl", "Zp"}  # blanks, controls and invisible marks
    skipped = cell.lstrip(
        "".join(c for c in cell if c.isspace() or unicodedata.category(c) in blank)
    )
    if skipped and unicodedata.normalize("NFKC", skipped[0])[:1] in set("=+-@−"):
        assert cell.startswith("'")
    if text.startswith(("\t", "\r", "\0")):
        assert cell.startswith("'")


def test_suits_are_red_and_names_stay_text_in_the_pages() -> None:
    assert str(red_suits("<b>J♥</b> & 10♣")) == (
        '&lt;b&gt;J<span class="red">♥</span>&lt;/b&gt; &amp; 10♣'
    )


# --- the PDFs -----------------------------------------------------------------------------


@pytest.mark.slow(budget=120)
def test_score_sheets_one_page_a_game_with_players_the_renege_and_signatures(
    exported: Path,
) -> None:
    pages = pages_text(exported / "score-sheets.pdf")
    assert len(pages) == 4
    sentence = renege_sentence(the_renege(), None)
    for page, (round_no, table) in zip(
        pages, [(1, "Maple"), (1, "Table 2"), (2, "Maple"), (2, "Table 2")], strict=True
    ):
        assert EVENT.upper() in page or EVENT in page
        assert f"Round {round_no}, {table}" in page
        assert "Signature: North-South (" in page and "Signature: East-West (" in page
        assert "Signature: Tournament director" in page
        assert "Final score:" in page
    # The renege, in words with card faces, naming the player at the seat.
    reneged = [p for p in pages if "Renege:" in p]
    assert len(reneged) == 2
    seat_word = sentence.split(" ", 1)[0]  # "South"
    for page in reneged:
        named = page.split("Renege: ", 1)[1]
        assert f"({seat_word}) did not follow" in named
        assert sentence.split(" did not follow ", 1)[1] in named
    for name in PLAYERS:  # markup stays text: "<i>Di</i>" is printed as typed
        assert any(name in p for p in pages), name
    everything = " ".join(pages)
    assert not re.search(r"\b(?:[9TJQKA]|10)[CDHS]\b", everything)  # no card codes ("JH")
    assert not re.search(r"\b[a-z]+_[a-z_]+\b", everything)  # nor codes ("hand_scored")
    assert "♥" in everything and "♣" in everything  # card faces and suits, as printed


@pytest.mark.slow(budget=120)
def test_the_evidence_pictures_are_embedded_as_stored(exported: Path) -> None:
    """The renege's pages hold the camera's pictures themselves: the same pixels the
    table sent, not a link or a placeholder."""
    images = renege_game()[1]
    stored = [np.asarray(Image.open(io.BytesIO(png)).convert("RGB")) for png in images.values()]
    pdf = pdfium.PdfDocument(exported / "score-sheets.pdf")
    try:
        found = []
        for i in range(len(pdf)):
            for obj in pdf[i].get_objects(filter=(pdfium_c.FPDF_PAGEOBJ_IMAGE,)):
                assert isinstance(obj, pdfium.PdfImage)
                found.append(np.asarray(obj.get_bitmap().to_pil().convert("RGB")))
    finally:
        pdf.close()
    assert len(found) == 4  # two pictures (the card played, the proof) on two sheets
    for picture in found:
        assert any(picture.shape == s.shape and np.array_equal(picture, s) for s in stored)


@pytest.mark.slow(budget=120)
def test_the_booklet_cover_standings_rounds_then_every_sheet(exported: Path) -> None:
    pages = pages_text(exported / "booklet.pdf")
    assert len(pages) == 1 + 1 + 1 + 4
    cover, standings, rounds = pages[:3]
    assert EVENT in cover and dates_text([START]) in cover and "Progressive euchre" in cover
    assert "2 rounds, 2 tables, 4 games" in cover
    assert standings.startswith("Standings") and all(n in standings for n in PLAYERS)
    assert "Round 1" in rounds and "Round 2" in rounds
    assert all(t in rounds for t in TABLES.values())
    assert all("Signature: Tournament director" in p for p in pages[3:])
    pdf = pdfium.PdfDocument(exported / "booklet.pdf")
    try:
        assert [round(x) for x in pdf[0].get_size()] == [595, 842]  # A4, in points
    finally:
        pdf.close()


@pytest.mark.slow(budget=120)
def test_letter_paper(event_store: Path, tmp_path: Path) -> None:
    code, _ = run("--database", str(event_store), "--out", str(tmp_path), "--paper", "letter")
    assert code == 0
    pdf = pdfium.PdfDocument(tmp_path / "score-sheets.pdf")
    try:
        assert [round(x) for x in pdf[0].get_size()] == [612, 792]  # US Letter
        assert len(pdf) == 4
    finally:
        pdf.close()
    assert EVENT in pages_text(tmp_path / "booklet.pdf")[0]  # its own name, with no --event


# --- bad input --------------------------------------------------------------------------------


def refused(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code, text = run(*argv)
    err = capsys.readouterr().err
    assert code == 2 and text == "", err
    assert err.startswith("error: ") and "Traceback" not in err
    return err


def test_a_database_that_is_not_the_directors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    foreign = tmp_path / "other.sqlite"
    conn = sqlite3.connect(foreign)
    conn.execute("CREATE TABLE t (x)")
    conn.close()
    out = tmp_path / "out"
    err = refused(capsys, "--database", str(foreign), "--out", str(out))
    assert "is not a director's store" in err
    assert not out.exists()
    err = refused(capsys, "--database", str(tmp_path / "missing.sqlite"), "--out", str(out))
    assert "missing.sqlite: no such file" in err and "--database" in err
    assert not (tmp_path / "missing.sqlite").exists()  # not made by looking for it


def test_an_event_with_no_games_yet_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A store with no game: said so, and no file at all (empty CSVs would look like an
    export of an event where nothing happened)."""
    database = tmp_path / "director.sqlite"
    DirectorStore(database).close()
    out = tmp_path / "out"
    err = refused(capsys, "--database", str(database), "--out", str(out))
    assert "holds no game yet" in err and "once the first game has been played" in err
    assert not out.exists()  # not even the folder


def test_an_event_with_results_entered_by_hand_only(tmp_path: Path) -> None:
    """Tables with no camera: no game in the store, the results typed from the score
    cards. They are the event's results all the same."""
    database = tmp_path / "director.sqlite"
    store = DirectorStore(database, rules_name="td-progressive")
    try:
        admin = TournamentAdmin(store)
        admin.create("ann", "progressive", PLAYERS, rounds=1)
        for place in ("1", "2"):
            ended = {"event": "game_ended", "scores": [6, 4], "individual": [6, 4, 6, 4]}
            admin.record("ann", 1, place, ended, "score card")
    finally:
        store.close()
    code, _ = run("--database", str(database), "--out", str(tmp_path / "out"))
    assert code == 0
    rows = read_csv(tmp_path / "out" / "results.csv")
    assert [r["Status"] for r in rows] == ["recorded by the director"] * 2
    standings = read_csv(tmp_path / "out" / "standings.csv")
    assert sorted(int(r["Points"]) for r in standings) == [4, 4, 4, 4, 6, 6, 6, 6]
    (sheets,) = pages_text(tmp_path / "out" / "score-sheets.pdf")  # no game: one page, saying so
    assert "No table sent a game: every result was entered by hand" in sheets


def test_an_out_that_is_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    database = tmp_path / "director.sqlite"
    DirectorStore(database).close()
    out = tmp_path / "results.pdf"
    out.write_text("mine")
    err = refused(capsys, "--database", str(database), "--out", str(out))
    assert "is a file, not a folder" in err and out.read_text() == "mine"


def test_an_out_with_no_write_permission(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    database = tmp_path / "director.sqlite"
    DirectorStore(database).close()
    if os.geteuid() != 0:
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o555)
    elif Path("/sys/kernel").is_dir():  # root may write anywhere but in sysfs
        locked = Path("/sys/kernel")
    else:
        pytest.skip("root, and no sysfs to be refused by")
    err = refused(capsys, "--database", str(database), "--out", str(locked / "results"))
    assert "cannot be made" in err or "cannot be written in" in err
    assert "give --out a folder you can write in" in err


@pytest.mark.slow(budget=120)
def test_a_failure_while_writing_leaves_the_last_export_as_it_was(
    event_store: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    for name in results_files.FILES:
        (out / name).write_text(f"the last export's {name}")
    real_replace = os.replace

    def failing(src: Any, dst: Any) -> None:
        if Path(src).name == "booklet.pdf" and Path(src).parent.name.startswith(".export-"):
            raise OSError(28, "No space left on device")
        real_replace(src, dst)

    monkeypatch.setattr(results_files.os, "replace", failing)
    err = refused(capsys, "--database", str(event_store), "--out", str(out))
    assert "No space left on device" in err and "as they were" in err
    assert sorted(p.name for p in out.iterdir()) == sorted(results_files.FILES)
    for name in results_files.FILES:
        assert (out / name).read_text() == f"the last export's {name}"


def test_without_the_director_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    database = tmp_path / "director.sqlite"
    DirectorStore(database).close()
    monkeypatch.setitem(sys.modules, "weasyprint", None)
    out = tmp_path / "out"
    err = refused(capsys, "--database", str(database), "--out", str(out))
    assert "the director's PDF results" in err and "make setup-director" in err
    assert not out.exists()


@pytest.mark.slow(budget=120)
def test_games_without_an_event_are_exported_with_team_standings(tmp_path: Path) -> None:
    """Before an event is created on the dashboard, the games are still results: listed
    with no round, and the standings are the teams that sat together, by games won."""
    database = tmp_path / "director.sqlite"
    build_event(database, players=PLAYERS, event=False).close()
    code, _ = run("--database", str(database), "--out", str(tmp_path / "out"))
    assert code == 0
    rows = read_csv(tmp_path / "out" / "results.csv")
    assert len(rows) == 4 and all(r["Round"] == "" for r in rows)
    standings = read_csv(tmp_path / "out" / "standings.csv")
    assert list(standings[0]) == ["Place", "Tied", "Team", "Games won", "Points", "Games played"]
    assert sum(int(r["Games won"]) for r in standings) == 4  # one winner a game
    booklet = pages_text(tmp_path / "out" / "booklet.pdf")
    assert "No event has been created on the dashboard" in booklet[1]
    assert booklet[2].startswith("Results Games")


@pytest.mark.slow(budget=120)
def test_results_entered_by_hand_are_listed_with_the_games(tmp_path: Path) -> None:
    """A round whose tables had no camera: the director typed its results from the
    score cards; they are rows of results.csv and of the round's table in the booklet."""
    database = tmp_path / "director.sqlite"
    store = build_event(database, players=PLAYERS, rounds=3)
    try:
        admin = TournamentAdmin(store)
        for place, points in (("1", [5, 3, 5, 3]), ("2", [2, 7, 2, 7])):
            ended = {"event": "game_ended", "scores": [points[0], points[1]], "individual": points}
            admin.record("ann", 3, place, ended, "score card")
        # Round 1's first table came from the feed; the director corrects its score card.
        fixed = {"event": "game_ended", "scores": [9, 9], "individual": [9, 9, 9, 9]}
        admin.record("ann", 1, "1", fixed, "the score card says 9 each")
        event = admin.state.event
        assert isinstance(event, ProgressiveEvent)
        seating = [{s: admin.state.people.name(p) for s, p in t.items()} for t in event.tables(3)]
    finally:
        store.close()
    code, _ = run("--database", str(database), "--out", str(tmp_path / "out"))
    assert code == 0
    rows = read_csv(tmp_path / "out" / "results.csv")
    assert [r["Round"] for r in rows] == ["1", "1", "2", "2", "3", "3"]
    # The director's correction is the game's, never a second result: the row shows the
    # points that count, and says what the table recorded, who changed it and why.
    corrected = rows[0]
    assert corrected["Table"] == "Maple" and corrected["Game"] == "1"
    assert corrected["Status"] == "finished, corrected by the director"
    assert [corrected[f"{w} points"] for w in ("North", "East", "South", "West")] == ["9"] * 4
    assert "the table recorded" in corrected["Correction"]
    assert "ann corrected it" in corrected["Correction"]
    assert "the score card says 9 each" in corrected["Correction"]
    assert rows[1]["Status"] == "finished" and rows[1]["Correction"] == ""
    by_hand = rows[4:]
    assert all(r["Status"] == "recorded by the director" and r["Game"] == "" for r in by_hand)
    assert [r["Table"] for r in by_hand] == ["Table 1", "Table 2"]  # no feed table assigned
    for r, seats, points in zip(by_hand, seating, ([5, 3, 5, 3], [2, 7, 2, 7]), strict=True):
        assert [r[w] for w in ("North", "East", "South", "West")] == [seats[s] for s in "NESW"]
        assert [int(r[f"{w} points"]) for w in ("North", "East", "South", "West")] == points
    booklet = pages_text(tmp_path / "out" / "booklet.pdf")
    assert "3 rounds, 2 tables, 4 games, 2 results entered by hand" in booklet[0]
    assert "Round 3" in booklet[2] and booklet[2].count("by hand") == 2
    assert booklet[2].count("corrected") == 1


@pytest.mark.slow(budget=120)
def test_the_same_results_from_postgresql(
    exported: Path, postgres: Postgres, tmp_path: Path
) -> None:
    """The same event kept on PostgreSQL exports the same CSV files, byte for byte."""
    url = postgres.new_database()
    build_event(url, players=PLAYERS).close()
    code, _ = run("--database", url, "--out", str(tmp_path), "--event", EVENT)
    assert code == 0
    for name in ("standings.csv", "results.csv"):
        assert (tmp_path / name).read_bytes() == (exported / name).read_bytes(), name
    assert len(pages_text(tmp_path / "booklet.pdf")) == 7


# --- the standings of each format (pure) ------------------------------------------------------


def test_standings_of_a_team_rounds_event_and_of_a_bracket() -> None:
    teams = ["Reds: Ann, Bob", "Blues: Cy, Di", "Greens: Ed, Flo", "Golds: Gus, Hal"]
    state = create("rounds", teams, rounds=1)
    ev = state.event
    assert isinstance(ev, RoundsEvent)
    record(state, 1, "1", {"scores": [10, 6], "winner": "NS"})
    record(state, 1, "2", {"scores": [4, 10], "winner": "EW"})
    table = standings(state, [])
    assert table.heads == ["Place", "Team", "Points", "Wins", "Rounds played", "Average", "Final"]
    winners = {team_words(state, ev.tables(1)[0][0]), team_words(state, ev.tables(1)[1][1])}
    assert {row[1] for row in table.rows[:2]} == winners  # names with their players
    assert [row[2] for row in table.rows] == [10, 10, 6, 4]
    bracket = create("bracket", teams, rounds=1, best_of=1)
    b = bracket.event
    assert isinstance(b, Bracket)
    for m in b.rounds[0]:
        assert m.top is not None
        b.record_game(m.id, m.top)
    final = b.rounds[1][0]
    assert final.bottom is not None
    b.record_game(final.id, final.bottom)
    rows = standings(bracket, []).rows
    assert [r[0] for r in rows] == [1, 2, "=3", "=3"]  # a shared place is said as a tie
    assert rows[0][1] == team_words(bracket, final.bottom) and rows[0][2] == "champion"
    assert rows[1][1] == team_words(bracket, str(final.top))


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_a_whole_game_to_ten_fits_one_page(tmp_path: Path, paper: str) -> None:
    """The bundled game to 10 (td-tournament, every hand of it) as a table sends it:
    its score sheet is one page on either paper, signature lines included."""
    text = resources.files("table_controller").joinpath("examples", "td-tournament-game.jsonl")
    script = parse_lines(text.read_text().splitlines())
    game = Game(preset("td-tournament"))
    database = tmp_path / "director.sqlite"
    store = DirectorStore(database)
    try:
        store.tables.add_status(
            {"table": "club-3", "online": True, "at": START, "name": "Club table 3",
             "players": {"N": "Ann", "E": "Bob", "S": "Cy", "W": "Di"}}
        )  # fmt: skip
        for seq, event in enumerate(script.events, start=1):
            outputs = [encode(o) for o in game.push(event)]
            sent = HandDealt(event.upcard) if isinstance(event, HandDealt) else event
            store.events.add_event(
                {"table": "club-3", "game": 1, "seq": seq, "at": START + seq, "source": "camera",
                 "input": encode(sent), "outputs": outputs, "evidence": False}
            )  # fmt: skip
    finally:
        store.close()
    assert game.phase is Phase.OVER
    code, _ = run("--database", str(database), "--out", str(tmp_path / "out"), "--paper", paper)
    assert code == 0
    pages = pages_text(tmp_path / "out" / "score-sheets.pdf")
    assert len(pages) == 1
    assert "Club table 3" in pages[0] and "Signature: Tournament director" in pages[0]
    assert "Final score: North-South (Ann & Cy)" in pages[0]


def test_the_pdf_fetches_nothing_but_the_pictures_inside_it(tmp_path: Path) -> None:
    """A page that names a file (as a name a table sent could try to) prints without it:
    only ``data:`` pictures are taken, the same picture as a file is refused."""
    picture = io.BytesIO()
    Image.new("RGB", (40, 30), (200, 30, 30)).save(picture, format="PNG")
    (tmp_path / "secret.png").write_bytes(picture.getvalue())

    def images(html: str) -> int:
        printed = pdfium.PdfDocument(pdf(html))
        try:
            return len(list(printed[0].get_objects(filter=(pdfium_c.FPDF_PAGEOBJ_IMAGE,))))
        finally:
            printed.close()

    inside = f'<p>x</p><img src="{data_uri(picture.getvalue())}">'
    assert images(inside) == 1
    assert images(f'<p>x</p><img src="{(tmp_path / "secret.png").as_uri()}">') == 0
    assert images('<p>x</p><img src="http://127.0.0.1:9/x.png">') == 0


# --- each game's hand review (issue 34) --------------------------------------------------


def test_each_game_s_hand_review_is_a_file_that_opens_offline(
    exported: Path, event_store: Path, browser: Browser
) -> None:
    """`director export` writes one self-contained HTML file a game, which the score
    sheets name; each opens from a file: URL with nothing fetched from anywhere, and
    steps with the keyboard; the renege is shown where it happened, with its picture."""
    store = DirectorStore(event_store)
    try:
        games = collect(store, EVENT).games
    finally:
        store.close()
    files = sorted(exported.glob("review-*.html"))
    assert len(files) == len(games)
    sheets = " ".join(pages_text(exported / "score-sheets.pdf"))
    for f in files:
        assert f"open {f.name}" in " ".join(sheets.split()), f.name
    reneges = 0
    for f in files:
        page = browser.new_page()
        asked: list[str] = []
        page.on("request", lambda r, asked=asked: asked.append(r.url))
        page.goto(f.as_uri())
        expect(page.locator("body")).to_have_attribute("data-step", "0")
        page.keyboard.press("ArrowRight")
        expect(page.locator("body")).to_have_attribute("data-step", "1")
        assert asked == [f.as_uri()], asked  # offline: nothing but the file itself
        data = review_data(f.read_text(encoding="utf-8"))
        hands = data["hands"]
        assert isinstance(hands, list)
        notes = [fr["note"] for h in hands for fr in h["frames"] if fr["note"]]
        if any(n["kind"] == "renege" for n in notes):
            reneges += 1
            assert any(p["src"] for n in notes for p in n["pictures"])
        page.close()
    assert reneges >= 1
