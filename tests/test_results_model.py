"""The results model (director/tournament/results/model.py): one computation that the
dashboard, the hall screen, results.csv, standings.csv and the booklet all render,
checked against what the tables' own logs say (their ``game_ended``)."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path
from typing import Any

import pytest
from export_event import PLAYERS, START, TABLES, build_event, dealing_status, progressive_game
from test_director_export import ended_individual, ended_scores, pages_text, read_csv

from table_controller.cli import main
from table_controller.director.store import DirectorStore
from table_controller.director.store.games import parse_record
from table_controller.director.tournament import TournamentAdmin, collect
from table_controller.director.tournament.results.view import ResultsSource, results_view
from table_controller.director.web import DirectorPage
from table_controller.seats import Seat


def export(database: Path, out: Path) -> None:
    code = main(
        ["director", "export", "--database", str(database), "--out", str(out)], out=io.StringIO()
    )
    assert code == 0


def played(round_no: str, title: str) -> tuple[dict[str, Any], ...]:
    """The messages of the game ``build_event`` had ``title`` play in ``round_no``."""
    renege, clean = progressive_game(1, True)[0], progressive_game(2, False)[0]
    plan = {("1", "Maple"): renege, ("1", "Table 2"): clean}
    plan |= {("2", "Maple"): clean, ("2", "Table 2"): renege}
    return plan[(round_no, title)]


@pytest.mark.slow(budget=180)  # two simulated tables play the event's games first
def test_a_game_is_finished_when_its_tables_log_says_so(tmp_path: Path) -> None:
    """The director's store was started with other rules than the tables played (the
    export's old default, games to 10): each game is still replayed under the rules its
    table's log sent with its first event, so it is finished, with its table's score."""
    database = tmp_path / "director.sqlite"
    build_event(database).close()
    store = DirectorStore(database, rules_name="td-tournament")
    try:
        results = collect(store, "Spring Open")
    finally:
        store.close()
    assert len(results.games) == 4 and not results.recorded
    for g in results.games:
        messages = played(str(g.round), g.title)
        assert g.finished and g.status == "finished" and g.problem is None
        assert g.scores == ended_scores(messages)
        assert g.individual == dict(zip(Seat, ended_individual(messages), strict=True))
        assert g.correction is None
        assert g.sheet.record.options == {"hands_per_game": 2}


def test_a_table_that_sends_no_record_is_scored_under_the_events_rules(tmp_path: Path) -> None:
    """A table of an older release sends no record and no rules: its game is replayed
    under the rules the event kept when it was created, not the store's default."""
    database = tmp_path / "director.sqlite"
    store = DirectorStore(database, rules_name="td-progressive", options={"hands_per_game": 2})
    admin = TournamentAdmin(store)
    admin.create("ann", "progressive", PLAYERS, rounds=1)
    assert admin.state.rules == {"name": "td-progressive", "options": {"hands_per_game": 2}}
    admin.assign_round("ann", 1, {"table-1": "1"})
    store.tables.add_status(
        dealing_status("table-1", START, 1, dict(zip("NESW", PLAYERS[:4], strict=True)))
    )
    messages = progressive_game(2, False)[0]
    for m in messages:
        store.events.add_event({**m, "table": "table-1", "game": 1})
    admin.on_stored("event", "table-1")
    store.close()
    store = DirectorStore(database)  # the export's store: the default rules
    try:
        (game,) = collect(store).games
    finally:
        store.close()
    assert game.finished and game.problem is None
    assert game.scores == ended_scores(messages)


@pytest.mark.parametrize("logged", [True, False], ids=["log names them", "log names none"])
def test_a_games_players_are_its_logs_and_its_statuses_are_read_only_without(
    tmp_path: Path, logged: bool
) -> None:
    """The players a table's log sent with a game's first event are its players; the
    table's status history (up to 2,000 statuses a table, read again for every
    dashboard snapshot after an event) is read only when the log named none, and then
    gives the players of the last status naming that game."""
    store = DirectorStore(tmp_path / "director.sqlite", rules_name="td-progressive")
    logged_seats = dict(zip("NESW", PLAYERS[:4], strict=True))
    status_seats = dict(zip("NESW", PLAYERS[4:8], strict=True))
    store.tables.add_status(dealing_status("table-1", START, 1, status_seats))
    messages = progressive_game(2, False)[0]
    record = {
        "rules": "td-progressive",
        "options": {"hands_per_game": 2},
        "players": logged_seats if logged else {},
    }
    for m in messages:
        first = {"record": record} if m["seq"] == 1 else {}
        store.events.add_event({**m, **first, "table": "table-1", "game": 1})
    read: list[str] = []
    history = store.tables.status_history

    def counted(table: str) -> list[dict[str, Any]]:
        read.append(table)
        return history(table)

    store.tables.status_history = counted  # type: ignore[method-assign]
    try:
        (game,) = collect(store).games
    finally:
        store.close()
    want = logged_seats if logged else status_seats
    assert {s.name: n for s, n in game.players.items()} == want
    assert read == ([] if logged else ["table-1"])


@pytest.mark.slow(budget=180)
def test_every_screen_and_paper_gives_the_same_result(tmp_path: Path) -> None:
    """The dashboard's JSON, the hall's standings and results, results.csv, standings.csv
    and the booklet say the same points for every game and every player as the tables'
    own game_ended; a director's correction shows on its game, and counts."""
    database = tmp_path / "director.sqlite"
    store = build_event(database)
    admin = TournamentAdmin(store)
    fixed = {"event": "game_ended", "scores": [9, 9], "individual": [9, 9, 9, 9]}
    admin.record("ann", 2, "1", fixed, "the score card says 9 each")
    page = DirectorPage(store, admin=admin, title="Spring Open", public_delay=0.0)
    dash = page.overview()["results"]
    hall = page.public.snapshot()
    store.close()
    export(database, tmp_path / "out")
    rows = read_csv(tmp_path / "out" / "results.csv")
    standings = read_csv(tmp_path / "out" / "standings.csv")
    booklet = " ".join(pages_text(tmp_path / "out" / "booklet.pdf"))

    # every game, from the tables' own logs (and the one correction)
    assert len(rows) == len(dash["games"]) == 4
    for row, shown in zip(rows, dash["games"], strict=True):
        assert (row["Round"], row["Table"], row["Game"]) == (
            str(shown["round"]),
            shown["title"],
            str(shown["game"]),
        )
        points = [int(row[f"{w} points"]) for w in ("North", "East", "South", "West")]
        own = ended_individual(played(row["Round"], row["Table"]))
        corrected = (row["Round"], row["Table"]) == ("2", TABLES["table-2"])
        assert points == ([9, 9, 9, 9] if corrected else own)
        assert (int(row["North-South score"]), int(row["East-West score"])) == (
            shown["ns_points"],
            shown["ew_points"],
        )
        assert row["Status"] == shown["status"]
        assert ("corrected by the director" in row["Status"]) is corrected
        assert bool(row["Correction"]) is corrected and row["Correction"] == shown["correction"]
        if corrected:
            assert "the score card says 9 each" in row["Correction"]
            assert "ann corrected it" in row["Correction"]

    # the standings: the same places and points everywhere
    heads, places = dash["standings"]["heads"], dash["standings"]["rows"]
    assert heads == ["Place", "Player", "Points", "Rounds won", "Rounds played"]
    for csv_row, shown_row, hall_row in zip(
        standings, places, hall["standings"]["rows"], strict=True
    ):
        place = f"={csv_row['Place']}" if csv_row["Tied"] else int(csv_row["Place"])
        assert place == shown_row[0] == hall_row["place"]
        assert csv_row["Player"] == shown_row[1] == hall_row["name"]
        assert int(csv_row["Points"]) == shown_row[2]
        assert hall_row["value"].startswith(f"{shown_row[2]} point")
        line = f"{shown_row[0]} {shown_row[1]} {shown_row[2]}"
        assert line in booklet
    # each player's points are the sum of their games as they count (the correction's)
    total: dict[str, int] = {}
    for row in rows:
        for w in ("North", "East", "South", "West"):
            total[row[w]] = total.get(row[w], 0) + int(row[f"{w} points"])
    assert {r["Player"]: int(r["Points"]) for r in standings} == total
    # the hall's recent results: the same points, each game by its own players
    for r in hall["results"]:
        row = next(x for x in rows if x["Table"] == r["title"] and x["Game"] == str(r["game"]))
        assert f"{row['North']} & {row['South']}" in r["text"]
        assert f"{row['East']} & {row['West']}" in r["text"]
        scores = sorted((int(row["North-South score"]), int(row["East-West score"])))
        assert r["score"] == f"{scores[1]}–{scores[0]}"
    assert "Provisional results" in booklet


@pytest.mark.slow(budget=120)
def test_results_are_confirmed_final_and_a_later_change_makes_them_provisional(
    tmp_path: Path,
) -> None:
    database = tmp_path / "director.sqlite"
    store = build_event(database, rounds=2)
    admin = TournamentAdmin(store)
    source = ResultsSource(store, "Spring Open")
    view = results_view(source.results() or pytest.fail("no results"))
    assert view["over"] and view["state"] == "provisional"
    assert "Final standings" not in view["standings"]["heading"]
    done = source.confirm_final(admin, "ann", None)
    assert "final" in done
    results = source.results()
    assert results is not None and results.final is not None and results.final.who == "ann"
    assert results_view(results)["standings"]["heading"] == "Final standings"
    assert store.accounts.audit()[-1]["action"] == "format_results_final"
    with pytest.raises(Exception, match="already confirmed final"):
        source.confirm_final(admin, "ann", None)
    store.close()
    export(database, tmp_path / "final")
    assert "Final results, confirmed by ann" in pages_text(tmp_path / "final" / "booklet.pdf")[0]
    # A correction after that: the papers are provisional again, until confirmed anew.
    store = DirectorStore(database)
    admin = TournamentAdmin(store)
    fixed = {"event": "game_ended", "scores": [9, 9], "individual": [9, 9, 9, 9]}
    admin.record("ann", 1, "1", fixed, "the score card says 9 each")
    again = ResultsSource(store, "Spring Open").results()
    assert again is not None and again.final is None
    store.close()
    export(database, tmp_path / "after")
    assert "Provisional results" in pages_text(tmp_path / "after" / "booklet.pdf")[0]


def test_confirming_is_refused_while_rounds_are_missing(tmp_path: Path) -> None:
    store = build_event(tmp_path / "director.sqlite", rounds=3)
    try:
        source = ResultsSource(store, "Spring Open")
        with pytest.raises(Exception, match="not every round's result is in"):
            source.confirm_final(TournamentAdmin(store), "ann", None)
    finally:
        store.close()


@pytest.mark.slow(budget=120)
def test_the_dashboard_confirms_final_over_its_api(tmp_path: Path) -> None:
    """POST /api/results/final: only with a director's login; signed with the key."""
    from test_director_web import PASSWORD, Served, log_in, post

    from table_controller.feed.signing import new_keys

    store = build_event(tmp_path / "director.sqlite")
    private, _ = new_keys()
    store.accounts.add_login("ann", PASSWORD)

    class Service:  # what the page asks of the director's service here: its key
        private_key = private
        connected = asyncio.Event()
        problem = None
        prefix = "euchre/x"

        def publish(self, *args: Any, **kwargs: Any) -> None:
            raise AssertionError("nothing is published")

        def listen(self, *args: Any) -> None:
            pass

    served = Served(DirectorPage(store, Service(), title="Spring Open"))  # type: ignore[arg-type]
    try:
        status, body = post(served.url + "api/results/final", {})
        assert status == 401, body
        status, body = post(served.url + "api/results/final", {}, log_in(served.url))
        assert status == 200 and body["ok"], body
        final = TournamentAdmin(store).state.final
        assert final is not None and final["who"] == "ann" and final["signature"]
    finally:
        served.close()
        store.close()


def test_a_bad_record_is_dropped() -> None:
    """A game's record from the feed is checked before it is kept: an unknown preset, a
    bad option or a shape that is not the record's is dropped (the game is then replayed
    under the event's rules); a NUL or an endless name never reaches the store."""
    good = {"rules": "td-progressive", "options": {"hands_per_game": 2}, "players": {"N": "Ann"}}
    setup = parse_record(good)
    assert setup is not None and setup.players == {Seat.N: "Ann"}
    assert parse_record({**good, "rules": "no-such-rules"}) is None
    assert parse_record({**good, "options": {"hands_per_game": -3}}) is None
    assert parse_record({**good, "options": ["x"]}) is None
    assert parse_record("td-progressive") is None and parse_record(None) is None
    odd = parse_record({**good, "players": {"N": "A\x00n", "E": "x" * 500, "Q": "Bo"}})
    assert odd is not None and odd.players == {Seat.E: "x" * 80}


def test_the_screens_kept_replays_read_only_later_events_and_agree_with_a_fresh_read(
    tmp_path: Path,
) -> None:
    """The screens' results keep each game's events as read and read only the later ones
    while the game grows in order (results.py ``_read``). Whatever order the events come
    in (in order, a seq missing, then the missing one), the results with the kept reads
    are the results read afresh."""
    from test_director_store import real_game

    from table_controller.director.tournament.results.model import PlayedCache

    store = DirectorStore(tmp_path / "director.sqlite")
    reads: list[int] = []
    real_events = store.events.events

    def counted(table: str, game: int | None = None, after: int = 0) -> list[dict[str, Any]]:
        got = real_events(table, game, after)
        reads.append(len(got))
        return got

    store.events.events = counted  # type: ignore[method-assign]
    try:
        messages, _ = real_game(renege=True, hands=2)
        gap = len(messages) // 2
        steps = [messages[:10], messages[10:gap], messages[gap + 1 :], [messages[gap]]]
        cache: PlayedCache = {}
        for step in steps:
            for m in step:
                store.events.add_event(m)
            reads.clear()
            kept = collect(store, latest=True, empty_ok=True, cache=cache)
            read_now = sum(reads)
            fresh = collect(store, latest=True, empty_ok=True)
            assert results_view(kept) == results_view(fresh)
            [k], [f] = kept.games, fresh.games
            assert k.sheet.hands == f.sheet.hands and k.sheet.problems == f.sheet.problems
            assert k.sheet.events == f.sheet.events
            if step is steps[1]:  # in order after the first read: only the later ones
                assert read_now == len(step)
            if step is steps[3]:  # the missing one came: read again whole
                assert read_now == len(messages)
        assert kept.games[0].hands == 2
    finally:
        store.close()
