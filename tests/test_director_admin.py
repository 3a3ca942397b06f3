"""The event's format run from the director's store: real simulated progressive games'
results arrive as feed messages and land in the round and table each feed table was
assigned; absentees and substitutes; a director's correction kept in the append-only
history; a bracket advancing from game results; a restarted director loses nothing."""

from __future__ import annotations

import asyncio
import atexit
import shutil
import sqlite3
import tempfile
import threading
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from test_director_store import feed_messages

from table_controller.director.events_admin import AdminError, EventsAdmin, summary
from table_controller.director.formats import ProgressiveEvent
from table_controller.director.store import DirectorStore
from table_controller.table.config import parse_config
from table_controller.table.simulated import FAST, simulated_table

PLAYERS = ["Ann", "Bob", "Cy", "Di", "Ed", "Flo", "Gus", "Hal"]


@cache
def progressive_game(seed: int) -> tuple[dict[str, Any], ...]:
    """A real simulated table playing td-progressive (2 hands a game to keep it short),
    as the feed's event messages."""
    folder = Path(tempfile.mkdtemp(prefix="admin-game-"))
    atexit.register(shutil.rmtree, folder, True)  # cached for the session, then removed
    data = {
        "table": {"name": "T", "gpio": "mock", "log": "t.sqlite"},
        "camera": {"source": "synthetic"},
        "cube": {"port": "emulator"},
        "web": {"host": "127.0.0.1", "port": 0},
        "rules": {"preset": "td-progressive", "options": {"hands_per_game": 2}},
    }
    table = simulated_table(parse_config(data, folder, "<test>"), seed=seed, pace=FAST,
                            serve_page=False)
    worker = threading.Thread(target=asyncio.run, args=(asyncio.wait_for(table.run(hands=2), 120),))
    worker.start()
    worker.join()
    messages, _ = feed_messages(folder / "t.sqlite")
    return tuple(m for m in messages if m["game"] == 1)


def as_table(
    messages: tuple[dict[str, Any], ...], table: str, game: int = 1
) -> list[dict[str, Any]]:
    """A game's messages as table ``table``'s game number ``game``."""
    return [{**m, "table": table, "game": game} for m in messages]


def individual(messages: tuple[dict[str, Any], ...]) -> list[int]:
    ended = [o for m in messages for o in m["outputs"] if o.get("event") == "game_ended"]
    assert len(ended) == 1, "the simulated game did not end"
    return list(ended[0]["individual"])


@pytest.fixture
def store(tmp_path: Path) -> DirectorStore:
    s = DirectorStore(tmp_path / "director.sqlite", rules_name="td-progressive")
    return s


def test_progressive_two_rounds_from_real_games(store: DirectorStore) -> None:
    games = {1: progressive_game(1), 2: progressive_game(2)}
    admin = EventsAdmin(store)
    admin.create("ann", "progressive", PLAYERS, rounds=2)
    event = admin.state.event
    assert isinstance(event, ProgressiveEvent)
    plan = {1: {"hall-a": "1", "hall-b": "2"}, 2: {"hall-a": "2", "hall-b": "1"}}
    # Which real game each feed table plays in each round (the same two games, swapped).
    played = {(1, "hall-a"): 1, (1, "hall-b"): 2, (2, "hall-a"): 2, (2, "hall-b"): 1}
    expected = dict.fromkeys(event.players, 0)
    for round_no in (1, 2):
        admin.assign_round("ann", round_no, plan[round_no])
        for table, place in plan[round_no].items():
            messages = games[played[(round_no, table)]]
            seats = event.tables(round_no)[int(place) - 1]
            for seat, score in zip("NESW", individual(messages), strict=True):
                expected[seats[seat]] += score
            # The game's feed, in order, one message at a time (delivered twice).
            for m in as_table(messages, table, round_no) * 2:
                store.add_event(m)
                admin.on_stored("event", table)
        if round_no == 1:
            assert summary(admin.state)["round"] == 2
    standings = admin.summary()["standings"]
    assert {s["player"]: s["total"] for s in standings} == expected
    assert [s["total"] for s in standings] == sorted(expected.values(), reverse=True)
    assert all(s["rounds_played"] == 2 for s in standings)
    assert admin.summary()["round"] is None and admin.state.unplaced == []
    # A restarted director reads the same event back from the store.
    again = EventsAdmin(store)
    assert again.summary()["standings"] == standings
    # A game from a table no round assigns is kept for the director, not lost.
    for m in as_table(games[1], "hall-c"):
        store.add_event(m)
    again.catch_up()
    assert [u["table"] for u in again.state.unplaced] == ["hall-c"]


def test_absentee_with_substitute(store: DirectorStore) -> None:
    admin = EventsAdmin(store)
    admin.create("ann", "progressive", PLAYERS, rounds=2)
    admin.set_absent("ann", "cy", True, "stuck in traffic")
    seat = summary(admin.state)["seating"]
    assert seat["problem"].startswith("Cy is marked absent")
    admin.substitute("ann", 1, "cy", "Zed", "substitute", "Zed plays for Cy")
    seat = summary(admin.state)["seating"]
    names = [n for t in seat["tables"] for n in t["seats"].values()]
    assert "Zed" in names and "Cy" not in names and "problem" not in seat
    event = admin.state.event
    assert isinstance(event, ProgressiveEvent)
    table = next(i for i, t in enumerate(event.tables(1), start=1) if "cy" in t.values())
    seat_of_cy = next(s for s, p in event.tables(1)[table - 1].items() if p == "cy")
    scores = dict(zip("NESW", [4, 3, 4, 3], strict=True))
    admin.record("ann", 1, str(table), {"event": "game_ended", "scores": [8, 6],
                                         "individual": [scores[s] for s in "NESW"]},
                 "score card")
    totals = {s["player"]: s["total"] for s in admin.summary()["standings"]}
    assert totals["zed"] == scores[seat_of_cy] and totals["cy"] == 0
    # A substitute for someone already covered that round is refused, in words.
    with pytest.raises(AdminError, match="already has a substitute"):
        admin.substitute("ann", 1, "cy", "Yves", "absent", "twice")


def test_correction_is_audited_and_history_append_only(store: DirectorStore) -> None:
    admin = EventsAdmin(store)
    admin.create("ann", "progressive", PLAYERS, rounds=1)
    res = {"event": "game_ended", "scores": [8, 2], "individual": [5, 1, 3, 1]}
    admin.record("ann", 1, "1", res, "score card")
    with pytest.raises(AdminError, match="needs a reason"):
        admin.record("bob", 1, "1", res, " ")
    fixed = {**res, "individual": [4, 1, 4, 1]}
    admin.record("bob", 1, "1", fixed, "loner scored 4 for the partner, not 3")
    history = store.format_history()
    assert [(h["who"], h["action"]) for h in history] == [
        ("ann", "created"), ("ann", "result"), ("bob", "result")]
    assert history[-1]["reason"] == "loner scored 4 for the partner, not 3"
    assert any(a["action"] == "format_result" and a["who"] == "bob" for a in store.audit())
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        store._conn.execute("UPDATE format_state SET who = 'eve'")
    assert EventsAdmin(store).state.event.results[1][1]["N"] == 4  # type: ignore[union-attr]


def test_bracket_advances_from_game_results(store: DirectorStore) -> None:
    admin = EventsAdmin(store)
    lines = ["Reds: Ann, Bob", "Blues: Cy, Di", "Greens: Ed, Flo", "Golds"]
    admin.create("ann", "bracket", lines, rounds=1, best_of=3)
    first = summary(admin.state)["bracket"][0]["matches"]
    assert [(m["top"], m["bottom"]) for m in first] == [("reds", "golds"), ("blues", "greens")]
    admin.assign_round("ann", 1, {"t1": "R1-M1", "t2": "R1-M2"})
    admin.assign_round("ann", 2, {"t1": "R2-M1"})
    seq = {"t1": 0, "t2": 0}

    def game_ends(table: str, winner: str) -> None:
        seq[table] += 1
        msg = {"v": 1, "table": table, "game": seq[table], "seq": 1, "at": 1.0,
               "source": "test", "input": {"event": "dealer_chosen", "seat": "N"},
               "outputs": [{"event": "game_ended", "game": seq[table], "winner": winner,
                            "scores": [10, 4] if winner == "NS" else [4, 10]}],
               "hand": None, "evidence": False}
        store.add_event(msg)
        admin.on_stored("event", table)

    game_ends("t1", "NS")
    game_ends("t1", "EW")
    game_ends("t1", "NS")  # reds 2-1
    game_ends("t2", "EW")
    game_ends("t2", "EW")  # greens 2-0
    final = admin.state.event.match("R2-M1")  # type: ignore[union-attr]
    assert (final.top, final.bottom) == ("reds", "greens")
    game_ends("t1", "EW")
    game_ends("t1", "EW")
    assert summary(admin.state)["champion"] == "greens"
    assert summary(admin.state)["standings"][0]["name"] == "Greens (Ed & Flo)"


def test_rounds_event_seating_follows_results(store: DirectorStore) -> None:
    admin = EventsAdmin(store)
    admin.create("ann", "rounds", ["A", "B", "C", "D"], rounds=2)
    assert summary(admin.state)["next"]["problem"].startswith("Round 2 is seated from")
    admin.record("ann", 1, "1", {"scores": [10, 6], "winner": "NS"}, "card")
    admin.record("ann", 1, "2", {"scores": [7, 9], "winner": "EW"}, "card")
    seat = summary(admin.state)["seating"]
    assert seat["round"] == 2
    assert [t["seats"] for t in seat["tables"]] == [{"NS": "a", "EW": "c"},
                                                   {"NS": "d", "EW": "b"}]


def test_bad_requests_say_what_to_do(store: DirectorStore) -> None:
    admin = EventsAdmin(store)
    with pytest.raises(AdminError, match="create it first"):
        admin.set_absent("ann", "x", True, None)
    with pytest.raises(AdminError, match="one of"):
        admin.create("ann", "swiss", PLAYERS, rounds=2)
    with pytest.raises(AdminError, match="at least 4 players"):
        admin.create("ann", "progressive", PLAYERS[:3], rounds=2)
    assert store.format_history() == []
