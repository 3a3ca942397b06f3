"""Issue 29's "Done when", end to end: random events through the real event demo (a real
mosquitto, the director, simulated tables in processes of their own), the store on
SQLite or on PostgreSQL, in each of the rule texts' formats: progressive (003), 12-hand
team rounds (001) and a knock-out bracket of best-of matches (000). The tables are
seated round after round as the results come in. A late player's substitute plays the
first round, a renege is upheld from its alert, the director corrects one result (and,
in the team rounds, enters the playoffs and the final as the rules have them) and
confirms the results final; the command the demo prints then writes the papers. For
every game and every player or team, the dashboard's JSON, /api/public, results.csv,
standings.csv and the booklet's text agree with each other and with a recomputation
from the tables' own logs.

Hypothesis draws each event (the store, tables, rounds, a match's length, who reneges,
which result is corrected, the seed), derandomized so that a run is the same on every
machine. Each example is a whole event played by processes, so each format runs one
drawn event and one given one: the largest (8 tables) or the PostgreSQL store."""

from __future__ import annotations

import csv
import io
import shlex
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pypdfium2 as pdfium
import pytest
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st
from postgres import Postgres
from test_event_demo_e2e import call, log_in, renege_alerts
from waiting import wait_until

from table_controller.cli import main
from table_controller.director.demo.cli import stopped_words
from table_controller.director.demo.seater import TEAM_NAMES
from table_controller.director.demo.tournament import FAST, SUBSTITUTE, TournamentDemo
from table_controller.director.tournament import Bracket, RoundsEvent, slug
from table_controller.event_log import EventLog
from table_controller.rules.events import GameEnded
from table_controller.rules.game import Game
from table_controller.rules.presets import preset
from table_controller.rules.replay import OnError, replay
from table_controller.seats import Seat

GUARD = 600.0  # seconds: only a hang takes this long (a loaded 2-core machine)
SEATS = ("North", "East", "South", "West")
EVENTS = settings(
    max_examples=1,  # each example is a whole event, played by real processes
    derandomize=True,
    database=None,
    deadline=None,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@dataclass(frozen=True)
class Plan:
    """One event to run: where the director keeps it, its size, who reneges, which
    result the director corrects (a draw from 0 to 1, scaled to the event's places)."""

    store: str  # "sqlite" or "postgresql"
    tables: int
    rounds: int
    best_of: int
    renege: int
    correct: float
    seed: int


def plans(*, tables: int, rounds: int, best_of: tuple[int, ...] = (3,)) -> st.SearchStrategy[Plan]:
    @st.composite
    def draw(d: st.DrawFn) -> Plan:
        n = d(st.integers(2, tables))
        return Plan(
            store=d(st.sampled_from(["sqlite", "postgresql"])),
            tables=n,
            rounds=d(st.integers(1, rounds)),
            best_of=d(st.sampled_from(best_of)),
            renege=d(st.integers(1, 2)),  # tables 1 and 2 play from the start in every format
            correct=d(st.floats(0, 1, exclude_max=True)),
            seed=d(st.integers(0, 10_000)),
        )

    return draw()


def recomputed(folder: Path) -> dict[tuple[str, int], dict[str, Any]]:
    """Each game as its table's own log replays: (table's name, game) -> its players,
    each seat's points and each side's score, from the rules the log names (never the
    director's store)."""
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


def store_of(plan: Plan, tmp: Path, postgres: Postgres) -> str:
    return postgres.new_database() if plan.store == "postgresql" else str(tmp / "director.sqlite")


def uphold_renege(demo: TournamentDemo, cookie: str, number: int) -> bool:
    """The director upholds the table's first renege from its alert; did the table apply
    it (or refuse it, as a table does a ruling for a game already over)?"""
    table_id = f"table-{number}"
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

    def state() -> str:
        _, table, _ = call(demo, f"api/tables/{table_id}", cookie=cookie)
        return str(next(r["state"] for r in table["rulings"] if r["ruling_id"] == ruling_id))

    wait_until("the table answered the ruling", lambda: state() in ("applied", "refused"), GUARD)
    return state() == "applied"


def post(demo: TournamentDemo, cookie: str, path: str, body: dict[str, Any]) -> Any:
    status, answer, _ = call(demo, path, body, cookie)
    assert status == 200, answer
    return answer


def event_of(demo: TournamentDemo) -> Any:
    assert demo.admin is not None
    return demo.admin.state.event


def correct_one(demo: TournamentDemo, cookie: str, plan: Plan) -> tuple[int, str, str]:
    """The director corrects one result, with its reason: (round, feed table, place)."""
    ev = event_of(demo)
    assert demo.admin is not None
    assign = demo.admin.state.assign
    if isinstance(ev, Bracket):  # the final's games, given to the team that lost it
        final = ev.rounds[-1][0]
        loser = final.bottom if final.winner == final.top else final.top
        assert loser is not None
        post(
            demo,
            cookie,
            "api/event/correct_match",
            {
                "match": final.id,
                "games": [loser] * ev.wins_needed,
                "reason": "the score card says the other team won",
            },
        )
        table = next(t for t, p in assign[final.round].items() if p == final.id)
        return final.round, table, final.id
    # a round's result; in the team rounds the last round's (a later round is seated
    # from an earlier one's, so only the last can change)
    round_no = plan.rounds if isinstance(ev, RoundsEvent) else 1 + int(plan.correct * plan.rounds)
    table = sorted(assign[round_no])[int(plan.correct * len(assign[round_no]))]
    place = assign[round_no][table]
    if isinstance(ev, RoundsEvent):
        a, b = ev.results[round_no][int(place)].points
        result = {"scores": [a + 1, b] if a > b else [a, b + 1]}  # the winner keeps winning
    else:
        result = {"scores": [7, 7], "individual": [7, 7, 7, 7]}
    post(
        demo,
        cookie,
        "api/event/result",
        {"round": round_no, "place": place, "result": result, "reason": "the score card says so"},
    )
    return round_no, table, place


def play_final(demo: TournamentDemo, cookie: str) -> None:
    """The team rounds' playoffs (001 s19/s20) and final (s18), from the score cards."""
    for _ in range(20):
        ev = event_of(demo)
        assert isinstance(ev, RoundsEvent)
        step = ev.next_step()
        if step.kind == "final":
            a, b = step.teams
            body = {"teams": [a, b], "points": [30, 18], "reason": "the final's score card"}
            post(demo, cookie, "api/event/final", body)
            return
        for i, (a, b) in enumerate(step.matches):
            points = [1, 0] if step.kind == "sudden_death" else [5 + i, 3]
            post(
                demo,
                cookie,
                "api/event/playoff",
                {"teams": [a, b], "points": points, "reason": "the playoff's score card"},
            )
    raise AssertionError("the playoffs never named the finalists")


def run_event(kind: str, plan: Plan, tmp: Path, postgres: Postgres) -> None:
    draw_tables = plan.tables
    demo = TournamentDemo(
        draw_tables,
        port=0,
        folder=tmp / "event",
        seed=plan.seed,
        renege={plan.renege},
        pace=FAST,
        rounds=plan.rounds,
        hands=2,
        points=2,
        best_of=plan.best_of,
        kind=kind,  # type: ignore[arg-type]
        database=store_of(plan, tmp, postgres),
        substitute=True,  # the last player is late: "Sam Sub" plays round 1 for them
    )
    with demo:
        cookie = log_in(demo)
        applied = uphold_renege(demo, cookie, plan.renege)

        def rounds_in() -> bool:
            ev = event_of(demo)
            if isinstance(ev, RoundsEvent):
                return ev.complete()
            _, view, _ = call(demo, "api/overview", cookie=cookie)
            return bool(view["results"]["over"])

        wait_until("every round's result in", rounds_in, timeout=GUARD)
        fixed = correct_one(demo, cookie, plan)
        if kind == "rounds":
            play_final(demo, cookie)
        post(demo, cookie, "api/results/final", {})
        _, view, _ = call(demo, "api/overview", cookie=cookie)
        _, public, _ = call(demo, "api/public")
        folder = demo.folder
        assert folder is not None
        ev = event_of(demo)
        assert demo.admin is not None
        assign = demo.admin.state.assign
    check_papers(kind, demo, plan, tmp, folder, view, public, applied, fixed, ev, assign)


def check_papers(
    kind: str,
    demo: TournamentDemo,
    plan: Plan,
    tmp: Path,
    folder: Path,
    view: dict[str, Any],
    public: dict[str, Any],
    applied: bool,
    fixed: tuple[int, str, str],
    ev: Any,
    assign: dict[int, dict[str, str]],
) -> None:
    shown, standings_shown = view["results"]["games"], view["results"]["standings"]
    assert view["results"]["state"] == "final"

    # The command the demo printed when it stopped, run as printed, in a folder of ours.
    line = next(x for x in stopped_words(demo).splitlines() if "director export" in x)
    argv = shlex.split(line.strip().removeprefix("(results: ").removesuffix(")"))
    assert argv[:3] == ["table-controller", "director", "export"]
    here = tmp / "papers"
    here.mkdir()
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(here)
        assert main(argv[1:], out=io.StringIO()) == 0
    papers = here / "results"
    rows, standings = read_csv(papers / "results.csv"), read_csv(papers / "standings.csv")
    booklet = pdf_text(papers / "booklet.pdf")
    assert "Final results, confirmed by director" in booklet

    # Every game: the tables' logs, the dashboard and results.csv say the same.
    logs = recomputed(folder)
    assert len(rows) == len(shown) == len(logs)
    if kind != "bracket":
        assert len(logs) == plan.tables * plan.rounds
    fixed_round, fixed_table, _ = fixed
    fixed_title = f"Table {fixed_table.removeprefix('table-')}"
    corrected_rows = 0
    for row, game in zip(rows, shown, strict=True):
        own = logs[(row["Table"], int(row["Game"]))]
        assert [row[s] for s in SEATS] == own["players"]
        corrected = (int(row["Round"]), row["Table"]) == (fixed_round, fixed_title)
        assert bool(row["Correction"]) is corrected, row
        corrected_rows += corrected
        scores = [int(row["North-South score"]), int(row["East-West score"])]
        if kind == "progressive":
            points = [int(row[f"{s} points"]) for s in SEATS]
            assert points == ([7, 7, 7, 7] if corrected else own["points"])
        if not corrected:
            assert scores == own["scores"]
        elif kind == "rounds":
            assert scores != own["scores"] and max(scores) == max(own["scores"]) + 1
        assert row["Status"].startswith("finished")
        assert (game["title"], game["game"], game["status"]) == (
            row["Table"],
            int(row["Game"]),
            row["Status"],
        )
        assert (game["ns_points"], game["ew_points"]) == tuple(scores)
    assert corrected_rows >= 1
    # The ruling: on its game's row, the same words on the dashboard (none if refused).
    ruled = [r for r in rows if "both pictures show it" in r["Rulings"]]
    assert len(ruled) == (1 if applied else 0)
    assert [g["rulings"] for g in shown if g["rulings"]] == [
        r["Rulings"].split("; ") for r in rows if r["Rulings"]
    ]
    # The late player's substitute played the first round.
    assert any(SUBSTITUTE in r.values() for r in rows if r["Round"] == "1")

    # Every player or team: standings.csv, the dashboard, the hall and the booklet agree.
    hall = public["standings"]["rows"]
    assert len(standings) == len(standings_shown["rows"]) == len(hall)
    for paper, dash, screen in zip(standings, standings_shown["rows"], hall, strict=True):
        place = f"={paper['Place']}" if paper["Tied"] else int(paper["Place"])
        assert place == dash[0] == screen["place"]
        who = paper.get("Player") or paper["Team"]
        assert who == dash[1] == screen["name"]
        assert f"{dash[0]} {dash[1]}" in booklet
    if kind == "progressive":
        check_progressive(rows, standings)
    elif kind == "rounds":
        check_rounds(demo, rows, standings, ev)
        # the final's score stands with the standings: 30 to 18, as entered
        assert " 30, " in booklet.split("The final: ")[1].split(" Results ")[0]
    else:
        check_bracket(demo, rows, standings, ev, assign)


def check_progressive(rows: list[dict[str, str]], standings: list[dict[str, str]]) -> None:
    """Each player's points are the sum of their games' as they count."""
    totals: Counter[str] = Counter()
    for row in rows:
        for s in SEATS:
            totals[row[s]] += int(row[f"{s} points"])
    listed = {r["Player"]: int(r["Points"]) for r in standings}
    assert {p: v for p, v in listed.items() if p in totals} == totals
    # a player who never sat down (late for the only round) is listed with nothing
    for r in standings:
        if r["Player"] not in totals:
            assert (int(r["Points"]), r["Rounds played"]) == (0, "0"), r


def team_of_player(demo: TournamentDemo) -> dict[str, str]:
    """Each player's team as the demo's list draws them (the substitute: the late one's)."""
    out = {n: TEAM_NAMES[i // 2] for i, n in enumerate(demo.names)}
    out[SUBSTITUTE] = out[demo.names[-1]]
    return out


def check_rounds(
    demo: TournamentDemo, rows: list[dict[str, str]], standings: list[dict[str, str]], ev: Any
) -> None:
    """Each team's points are the sum of its rounds' as they count; the final's winner
    is first, named champion."""
    team = team_of_player(demo)
    totals: Counter[str] = Counter()
    for row in rows:
        totals[team[row["North"]]] += int(row["North-South score"])
        totals[team[row["East"]]] += int(row["East-West score"])
        assert team[row["North"]] == team[row["South"]] and team[row["East"]] == team[row["West"]]
    assert {r["Team"].split(" (")[0]: int(r["Points"]) for r in standings} == totals
    assert isinstance(ev, RoundsEvent) and ev.final is not None
    first = standings[0]
    assert first["Final"] == "champion" and int(first["Place"]) == 1
    assert slug(first["Team"].split(" (")[0]) == ev.final.winner


def check_bracket(
    demo: TournamentDemo,
    rows: list[dict[str, str]],
    standings: list[dict[str, str]],
    ev: Any,
    assign: dict[int, dict[str, str]],
) -> None:
    """Each match's games, as the tables played them, are the bracket's; the champion
    is the one the director's correction of the final names."""
    assert isinstance(ev, Bracket)
    team = team_of_player(demo)
    played: dict[tuple[int, str], list[str]] = {}
    for row in rows:
        ns, ew = int(row["North-South score"]), int(row["East-West score"])
        winner = team[row["North"]] if ns > ew else team[row["East"]]
        played.setdefault((int(row["Round"]), row["Table"]), []).append(slug(winner))
    final = ev.rounds[-1][0]
    for (round_no, title), winners in played.items():
        table = f"table-{title.removeprefix('Table ')}"
        match = ev.match(assign[round_no][table])
        if match is not final:
            assert match.games == winners, (match.id, title)
    assert final.winner is not None
    first = standings[0]
    assert int(first["Place"]) == 1 and first["How"] == "champion"
    assert slug(first["Team"].split(" (")[0]) == final.winner


@pytest.mark.slow(budget=400)  # whole events, each played by real processes
@EVENTS
@example(plan=Plan("postgresql", tables=8, rounds=1, best_of=3, renege=2, correct=0.9, seed=8))
@given(plan=plans(tables=4, rounds=2))
def test_progressive_events_agree_with_the_tables_logs(
    plan: Plan, tmp_path_factory: pytest.TempPathFactory, postgres: Postgres
) -> None:
    run_event("progressive", plan, tmp_path_factory.mktemp("progressive"), postgres)


@pytest.mark.slow(budget=400)
@EVENTS
@example(plan=Plan("postgresql", tables=2, rounds=2, best_of=3, renege=1, correct=0.6, seed=12))
@given(plan=plans(tables=3, rounds=2))
def test_team_round_events_agree_with_the_tables_logs(
    plan: Plan, tmp_path_factory: pytest.TempPathFactory, postgres: Postgres
) -> None:
    run_event("rounds", plan, tmp_path_factory.mktemp("rounds"), postgres)


@pytest.mark.slow(budget=400)
@EVENTS
@example(plan=Plan("postgresql", tables=2, rounds=1, best_of=3, renege=2, correct=0.3, seed=3))
@given(plan=plans(tables=3, rounds=1, best_of=(1, 3)))
def test_bracket_events_agree_with_the_tables_logs(
    plan: Plan, tmp_path_factory: pytest.TempPathFactory, postgres: Postgres
) -> None:
    run_event("bracket", plan, tmp_path_factory.mktemp("bracket"), postgres)
