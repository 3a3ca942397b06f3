"""Several events in one director's store (director/tournament/catalog.py): a club's director
runs next month's event with the same store, and each event's papers, dashboard and hall
screen hold that event's games only. Built through the real store and TournamentAdmin, as
test_results_model.py builds one event; each on SQLite and on PostgreSQL."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from export_event import PLAYERS, START, TABLES, dealing_status, progressive_game
from test_director_export import pages_text, read_csv

from table_controller.cli import main
from table_controller.director.store import DirectorStore
from table_controller.director.tournament import collect
from table_controller.director.tournament.admin import AdminError, TournamentAdmin, create
from table_controller.director.web import DirectorPage

DAY = 86400.0
FIRST, SECOND = "Club night", "Club night, December"


class Clock:
    """The director's clock, moved on by the test (the store's ``received`` and the
    events' creation are read from it)."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def play(store: DirectorStore, admin: TournamentAdmin | None, game: int, at: float) -> None:
    """Both tables play ``game`` (a real simulated table's messages), at ``at``."""
    messages = progressive_game(2, False)[0]
    base = messages[0]["at"]
    for table, name in TABLES.items():
        store.tables.add_status(
            {
                **dealing_status(table, at, game, dict(zip("NESW", PLAYERS[:4], strict=True))),
                "name": name,
            }
        )
        record = {
            "rules": "td-progressive",
            "options": {"hands_per_game": 2},
            "players": dict(zip("NESW", PLAYERS[:4], strict=True)),
        }
        for m in messages:
            first = {"record": record} if m["seq"] == 1 else {}
            store.events.add_event(
                {**m, **first, "table": table, "game": game, "at": at + m["at"] - base}
            )
            if admin is not None:
                admin.on_stored("event", table)


def two_events(target: str) -> tuple[DirectorStore, TournamentAdmin, Clock]:
    """A store holding "Club night" (each table's game 1) and, a month later, "Club
    night, December" (each table's game 2), both through the dashboard's TournamentAdmin."""
    clock = Clock(START)
    store = DirectorStore(target, rules_name="td-progressive", clock=clock)
    admin = TournamentAdmin(store, default_name=FIRST)
    admin.create("ann", "progressive", PLAYERS, rounds=1)  # named as the service's event
    admin.assign_round("ann", 1, {"table-1": "1", "table-2": "2"})
    play(store, admin, 1, START)
    clock.now += 30 * DAY
    with pytest.raises(AdminError, match='already holds an event named "Club night"'):
        admin.create("ann", "progressive", PLAYERS, rounds=1)  # the same default name
    admin.create("ann", "progressive", PLAYERS, rounds=1, name=SECOND)
    admin.assign_round("ann", 1, {"table-1": "1", "table-2": "2"})
    play(store, admin, 2, START + 30 * DAY)
    return store, admin, clock


def export(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return main(["director", "export", *argv], out=out), out.getvalue()


def test_each_event_has_its_own_games_papers_and_screens(
    store_target: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store, admin, _ = two_events(store_target)
    page = DirectorPage(store, admin=admin, title=FIRST, public_delay=0.0)
    dash = page.overview()["results"]
    hall = page.public.snapshot()
    store.close()

    # The dashboard and the hall: the current (latest) event only.
    assert [(g["title"], g["game"]) for g in dash["games"]] == [("Maple", 2), ("Table 2", 2)]
    assert all(g["round"] == 1 for g in dash["games"])
    assert {(r["title"], r["game"]) for r in hall["results"]} == {("Maple", 2), ("Table 2", 2)}

    # No name, two events: refused, naming each (when created, how many games) and the option.
    code, text = export("--database", store_target, "--out", str(tmp_path / "any"))
    err = capsys.readouterr().err
    assert code != 0 and text == "" and "Traceback" not in err
    assert "holds 2 events" in err
    assert f'"{FIRST}" (created ' in err and f'"{SECOND}" (created ' in err
    assert err.count("2 games") == 2
    assert f'--event "{SECOND}"' in err
    assert not (tmp_path / "any").exists()

    # Each name: only that event's games, its standings, its name on the pages.
    for name, game in ((FIRST, "1"), (SECOND, "2")):
        out = tmp_path / name.replace(",", "").replace(" ", "-")
        code, _ = export("--database", store_target, "--out", str(out), "--event", name)
        assert code == 0, capsys.readouterr().err
        rows = read_csv(out / "results.csv")
        assert [(r["Round"], r["Table"], r["Game"]) for r in rows] == [
            ("1", "Maple", game),
            ("1", "Table 2", game),
        ]
        assert {r["Event"] for r in rows} == {name}
        assert all(r["Status"] == "finished" for r in rows)
        standings = read_csv(out / "standings.csv")
        assert {r["Player"] for r in standings} == set(PLAYERS)
        assert all(r["Rounds played"] == "1" for r in standings)
        booklet = " ".join(pages_text(out / "booklet.pdf"))
        assert name in booklet and "not placed" not in booklet.lower()
        assert "1 round, 2 tables, 2 games" in booklet
        if name == FIRST:
            assert SECOND not in booklet
        assert len(pages_text(out / "score-sheets.pdf")) == 2


def test_an_unknown_event_is_refused_naming_those_there_are(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    database = tmp_path / "director.sqlite"
    two_events(str(database))[0].close()
    code, _ = export("--database", str(database), "--out", str(tmp_path / "o"), "--event", "Cup")
    err = capsys.readouterr().err
    assert code == 2 and "no event named 'Cup'" in err
    assert f'"{FIRST}"' in err and f'"{SECOND}"' in err and "--event" in err
    # a name as a person types it again: the case and the spaces do not matter
    typed = ("--event", "club  NIGHT")
    code, _ = export("--database", str(database), "--out", str(tmp_path / "o"), *typed)
    assert code == 0, capsys.readouterr().err
    assert {r["Game"] for r in read_csv(tmp_path / "o" / "results.csv")} == {"1"}


def test_an_event_created_before_names_exports_named_by_its_date(
    store_target: str, tmp_path: Path
) -> None:
    """A store written by a release before events had names: its one event has no name
    in its state, and exports with no option, named by the day it was created."""
    clock = Clock(START)
    store = DirectorStore(store_target, rules_name="td-progressive", clock=clock)
    old: dict[str, Any] = create("progressive", PLAYERS, rounds=1).to_json()
    del old["name"], old["created"]
    old["rules"] = {"name": "td-progressive", "options": {"hands_per_game": 2}}
    store.formats.add_format_state("ann", "created", "new progressive event", old)
    play(store, None, 1, START)
    store.close()
    out = tmp_path / "out"
    code, _ = export("--database", store_target, "--out", str(out))
    assert code == 0
    rows = read_csv(out / "results.csv")
    assert len(rows) == 2
    day = pages_text(out / "booklet.pdf")[0]
    (name,) = {r["Event"] for r in rows}
    assert name.startswith("Event of ") and name in day
    # ...and a new event after it: told apart from it by name, and the old one by its date
    store = DirectorStore(store_target, rules_name="td-progressive", clock=clock)
    clock.now += 7 * DAY
    TournamentAdmin(store).create("ann", "progressive", PLAYERS, rounds=1, name="Cup")
    play(store, None, 2, START + 7 * DAY)
    assert [g.game for g in collect(store, name).games] == [1, 1]
    assert [g.game for g in collect(store, "Cup").games] == [2, 2]
    store.close()


def test_an_event_created_again_before_play_replaces_it(tmp_path: Path) -> None:
    """Its roster fixed: the same name again, one event (the empty one is no event)."""
    store = DirectorStore(tmp_path / "director.sqlite", rules_name="td-progressive")
    try:
        admin = TournamentAdmin(store)
        admin.create("ann", "progressive", PLAYERS[:4], rounds=1, name=FIRST)
        admin.create("ann", "progressive", PLAYERS, rounds=1, name=FIRST)
        assert admin.summary()["name"] == FIRST
        play(store, admin, 1, START)
        results = collect(store)  # one event: no name needed
        assert results.event == FIRST and len(results.games) == 2
        with pytest.raises(AdminError, match="at most 80 characters"):
            admin.create("ann", "progressive", PLAYERS, rounds=1, name="x" * 81)
    finally:
        store.close()


def test_a_table_whose_log_began_again_at_game_1_is_said_loudly(
    store_target: str, caplog: pytest.LogCaptureFixture
) -> None:
    """The store keeps one game of each number a table (its events' key): a table that
    sends a different game 1 (a new log, for a new event) cannot be stored. An alert in
    words says so, once, and a log line; a redelivery of the same event says nothing."""
    clock = Clock(START)
    store = DirectorStore(store_target, rules_name="td-progressive", clock=clock)
    try:
        play(store, None, 1, START)
        play(store, None, 1, START)  # the broker delivering it all again: nothing
        assert not [a for a in store.alerts.alerts() if a["kind"] == "game_reused"]
        clock.now += 30 * DAY
        play(store, None, 1, START + 30 * DAY)  # a new log's game 1, a month later
        reused = [a for a in store.alerts.alerts() if a["kind"] == "game_reused"]
        assert sorted(a["table"] for a in reused) == sorted(TABLES)
        text = reused[0]["text"]
        assert "not the game 1 this store holds" in text and "not stored" in text
        assert "--database" in text
        assert any("not the game 1" in r.getMessage() for r in caplog.records)
    finally:
        store.close()
