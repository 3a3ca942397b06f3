"""Issue 29's "Done when", end to end: a whole event through the real event demo (a real
mosquitto, the director, simulated tables in processes of their own), its store on
SQLite and on PostgreSQL. The director corrects one result and confirms the results
final; the command the demo prints then writes the papers. For every game and every
player, the dashboard's JSON, /api/public, results.csv, standings.csv and the booklet's
text agree with each other and with a recomputation from the tables' own logs.

Each run draws its event (tables, rounds, hands, who reneges, which result is corrected)
from its seed, so the two runs are two different events."""

from __future__ import annotations

import csv
import io
import random
import shlex
from pathlib import Path
from typing import Any

import pypdfium2 as pdfium
import pytest
from test_event_demo_e2e import call, log_in, renege_alerts
from waiting import wait_until

from table_controller.cli import main
from table_controller.director.event_cli import stopped_words
from table_controller.director.event_demo import FAST, SUBSTITUTE, EventDemo
from table_controller.event_log import EventLog
from table_controller.rules.events import GameEnded
from table_controller.rules.game import Game
from table_controller.rules.presets import preset
from table_controller.rules.replay import OnError, replay
from table_controller.seats import Seat

GUARD = 600.0  # seconds: only a hang takes this long (a loaded 2-core machine)
SEATS = ("North", "East", "South", "West")


def recomputed(folder: Path) -> dict[tuple[str, int], dict[str, Any]]:
    """Each game as its table's own log replays: (table's name, game) -> its players and
    each seat's points, from the rules the log names (never the director's store)."""
    out: dict[tuple[str, int], dict[str, Any]] = {}
    for log_path in sorted(folder.glob("tables/*/*.sqlite")):
        log = EventLog.open_existing(log_path)
        try:
            name = log.table
            for record in log.games():
                game = Game(preset(record.rules_name, record.options))
                # an event the rules refuse was skipped at the table too
                done = replay(game, [ev.event for ev in log.events(record.game)], OnError.SKIP)
                ended = next((o for o in done.outputs if isinstance(o, GameEnded)), None)
                assert ended is not None, f"{name} game {record.game} did not end"
                out[(name, record.game)] = {
                    "players": [record.players[s] for s in Seat],
                    "points": list(ended.individual or ()),
                    "scores": list(ended.scores),
                }
        finally:
            log.close()
    return out


def read_csv(path: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(path.read_bytes().decode("utf-8-sig"), newline="")))


def pdf_text(path: Path) -> str:
    pdf = pdfium.PdfDocument(path)
    try:
        return " ".join(
            " ".join(pdf[i].get_textpage().get_text_range().split()) for i in range(len(pdf))
        )
    finally:
        pdf.close()


@pytest.mark.slow(budget=600)  # a whole event plays, then the papers are printed
def test_every_screen_and_paper_agrees_with_the_tables_logs(
    store_target: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seed = 2029 if store_target.startswith("postgresql:") else 29  # two different events
    draw = random.Random(seed)
    tables, rounds, hands = draw.randint(2, 3), draw.randint(1, 2), 2
    renege = {draw.randint(1, tables)}
    demo = EventDemo(
        tables,
        port=0,
        folder=tmp_path / "event",
        seed=seed,
        renege=renege,
        pace=FAST,
        rounds=rounds,
        hands=hands,
        database=store_target,
        substitute=True,  # the last player is late: "Sam Sub" plays round 1 for them
    )
    with demo:
        cookie = log_in(demo)
        # The director upholds the first renege at once, from its alert.
        (reneger,) = renege
        table_id = f"table-{reneger}"
        wait_until("a renege alert", lambda: table_id in renege_alerts(demo, cookie), timeout=GUARD)
        status, answer, _ = call(
            demo,
            "api/rulings",
            {
                "table": table_id,
                "kind": "confirm_renege",
                "reason": "both pictures show it",
                "alert": renege_alerts(demo, cookie)[table_id]["id"],
            },
            cookie,
        )
        assert status == 200, answer
        ruling_id = answer["ruling"]["ruling_id"]

        def ruling_state() -> str:
            _, table, _ = call(demo, f"api/tables/{table_id}", cookie=cookie)
            return next(r["state"] for r in table["rulings"] if r["ruling_id"] == ruling_id)

        wait_until(
            "the table answered the ruling",
            lambda: ruling_state() in ("applied", "refused"),
            timeout=GUARD,
        )
        applied = ruling_state() == "applied"

        def over() -> bool:
            _, view, _ = call(demo, "api/overview", cookie=cookie)
            return bool(view["results"]["over"])

        wait_until("every round's result in", over, timeout=GUARD)
        # A director's correction of one result, with its reason.
        fixed_round, fixed_place = draw.randint(1, rounds), draw.randint(1, tables)
        status, answer, _ = call(
            demo,
            "api/event/result",
            {
                "round": fixed_round,
                "place": str(fixed_place),
                "result": {"scores": [7, 7], "individual": [7, 7, 7, 7]},
                "reason": "the score card says 7 each",
            },
            cookie,
        )
        assert status == 200, answer
        status, answer, _ = call(demo, "api/results/final", {}, cookie)
        assert status == 200, answer
        _, view, _ = call(demo, "api/overview", cookie=cookie)
        _, public, _ = call(demo, "api/public")
        demo_folder = demo.folder
        assert demo_folder is not None
    shown, standings_shown = view["results"]["games"], view["results"]["standings"]
    assert view["results"]["state"] == "final"

    # The command the demo printed when it stopped, run as printed, in a folder of ours.
    line = next(x for x in stopped_words(demo).splitlines() if "director export" in x)
    argv = shlex.split(line.strip().removeprefix("(results: ").removesuffix(")"))
    assert argv[:3] == ["table-controller", "director", "export"]
    monkeypatch.chdir(tmp_path)
    assert main(argv[1:], out=io.StringIO()) == 0
    papers = tmp_path / "results"
    rows, standings = read_csv(papers / "results.csv"), read_csv(papers / "standings.csv")
    booklet = pdf_text(papers / "booklet.pdf")
    assert "Final results, confirmed by director" in booklet

    # Every game: the tables' logs, the dashboard and results.csv say the same.
    logs = recomputed(demo_folder)
    assert len(rows) == len(shown) == len(logs) == tables * rounds
    corrected_rows = 0
    for row, game in zip(rows, shown, strict=True):
        key = (row["Table"], int(row["Game"]))
        own = logs[key]
        assert [row[s] for s in SEATS] == own["players"]
        points = [int(row[f"{s} points"]) for s in SEATS]
        corrected = (int(row["Round"]), row["Table"]) == (fixed_round, f"Table {fixed_place}")
        assert points == ([7, 7, 7, 7] if corrected else own["points"])
        assert bool(row["Correction"]) is corrected
        corrected_rows += corrected
        if not corrected:
            assert [int(row["North-South score"]), int(row["East-West score"])] == own["scores"]
        assert row["Status"].startswith("finished")
        assert (game["title"], game["game"], game["status"]) == (
            row["Table"],
            int(row["Game"]),
            row["Status"],
        )
        assert (game["ns_points"], game["ew_points"]) == (
            int(row["North-South score"]),
            int(row["East-West score"]),
        )
    assert corrected_rows == 1
    # The ruling: on its game's row, the same words on the dashboard (none if refused).
    ruled = [r for r in rows if "both pictures show it" in r["Rulings"]]
    assert len(ruled) == (1 if applied else 0)
    assert [g["rulings"] for g in shown if g["rulings"]] == [
        r["Rulings"].split("; ") for r in rows if r["Rulings"]
    ]

    # Every player: standings.csv, the dashboard, the hall and the booklet agree, and
    # each player's points are the sum of their games as they count.
    totals: dict[str, int] = {}
    for row in rows:
        for s in SEATS:
            totals[row[s]] = totals.get(row[s], 0) + int(row[f"{s} points"])
    assert {r["Player"]: int(r["Points"]) for r in standings} == totals
    assert SUBSTITUTE in totals and any(SUBSTITUTE in r.values() for r in rows if r["Round"] == "1")
    hall = public["standings"]["rows"]
    assert len(standings) == len(standings_shown["rows"]) == len(hall)
    for paper, dash, screen in zip(standings, standings_shown["rows"], hall, strict=True):
        place = f"={paper['Place']}" if paper["Tied"] else int(paper["Place"])
        assert place == dash[0] == screen["place"]
        assert paper["Player"] == dash[1] == screen["name"]
        assert int(paper["Points"]) == dash[2]
        assert screen["value"].startswith(f"{dash[2]} point")
        assert f"{dash[0]} {dash[1]} {dash[2]}" in booklet
