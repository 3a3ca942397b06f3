"""The event demo's seating as results come in (director/demo/seater.py), without the
tables' processes: a real store and the event as the director keeps it; results
entered as a table's game would bring them (TournamentAdmin.record), and the games the
seater sends each table read back."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from waiting import wait_until

from table_controller.director.demo.seater import (
    Seater,
    Seats,
    event_lines,
    format_rules,
)
from table_controller.director.demo.table import next_game
from table_controller.director.store import DirectorStore
from table_controller.director.tournament import Bracket, RoundsEvent, TournamentAdmin

NAMES = [f"P{i}" for i in range(1, 13)]  # three tables' players
TABLES = [("table-1", 1), ("table-2", 2), ("table-3", 3)]


class Sent:
    """What the seater sent each table, in order (the tables' standard input)."""

    def __init__(self) -> None:
        self.games: dict[str, list[Seats]] = {}
        self.lock = threading.Lock()

    def __call__(self, table: str, seats: Seats) -> None:
        with self.lock:
            self.games.setdefault(table, []).append(seats)

    def count(self, table: str) -> int:
        with self.lock:
            return len(self.games.get(table, []))


def admin_for(tmp_path: Path, kind: str, rounds: int = 2, best_of: int = 3) -> TournamentAdmin:
    rules = format_rules(kind, rounds=rounds, hands=2, points=3)  # type: ignore[arg-type]
    store = DirectorStore(
        str(tmp_path / "director.sqlite"), rules_name=rules.preset, options=rules.options
    )
    admin = TournamentAdmin(store)
    admin.create(
        "td", kind, event_lines(kind, NAMES), rounds=rounds, best_of=best_of, reason="test"
    )
    return admin


def test_a_progressive_event_is_seated_whole_at_the_start(tmp_path: Path) -> None:
    admin = admin_for(tmp_path, "progressive", rounds=3)
    sent = Sent()
    seater = Seater(admin, TABLES, sent, "td")
    first = seater.first()
    assert {t: len(g) for t, g in first.items()} == {"table-1": 3, "table-2": 3, "table-3": 3}
    assert set(admin.state.assign) == {1, 2, 3}
    # each round seats the twelve players once
    for r in range(3):
        seated = [name for t in first.values() for name in t[r].values()]
        assert sorted(seated) == sorted(NAMES)
    seater.start()  # nothing to watch: all seated
    seater.stop()
    assert sent.games == {}


def test_team_rounds_are_seated_from_the_last_rounds_results(tmp_path: Path) -> None:
    """001 s6: the winners stay, the losers move on; round 2 only once round 1 is in."""
    admin = admin_for(tmp_path, "rounds")
    sent = Sent()
    seater = Seater(admin, TABLES, sent, "td")
    first = seater.first()
    # team "Aces: P1, P2" North-South against "Bowers: P3, P4" at table 1
    assert first["table-1"] == [{"N": "P1", "E": "P3", "S": "P2", "W": "P4"}]
    seater.start()
    try:
        admin.record("td", 1, "1", {"scores": [5, 7]}, "test")
        admin.record("td", 1, "2", {"scores": [9, 3]}, "test")
        assert sent.games == {}  # table 3 is still playing: round 2 cannot be seated
        admin.record("td", 1, "3", {"scores": [4, 8]}, "test")
        wait_until("round 2 sent", lambda: all(sent.count(t) == 1 for t, _ in TABLES), 30)
        ev = admin.state.event
        assert isinstance(ev, RoundsEvent)
        assert admin.state.assign[2] == {"table-1": "1", "table-2": "2", "table-3": "3"}
        # table 1's winners (Bowers) stay; table 3's losers (Euchres) arrive
        assert sent.games["table-1"][0] == {"N": "P3", "E": "P9", "S": "P4", "W": "P10"}
        assert ev.tables(2)[0] == ("bowers", "euchres")
    finally:
        seater.stop()


def test_a_bracket_plays_each_match_game_by_game_then_the_next(tmp_path: Path) -> None:
    """000: best two of three; a table takes the next match once both teams are known."""
    admin = admin_for(tmp_path, "bracket", best_of=3)
    sent = Sent()
    seater = Seater(admin, TABLES, sent, "td")
    first = seater.first()
    ev = admin.state.event
    assert isinstance(ev, Bracket)
    # six teams in a bracket of eight: the top two seeds have a bye, two matches play
    assert sorted(first) == ["table-1", "table-2"]
    assert admin.state.assign[1] == {"table-1": "R1-M2", "table-2": "R1-M4"}
    seater.start()
    try:
        # table 1's first game goes to the top team: a second game is sent
        admin.record("td", 1, "R1-M2", {"scores": [10, 4], "winner": "NS"}, "test")
        wait_until("game 2 of R1-M2", lambda: sent.count("table-1") == 1, 30)
        assert sent.count("table-2") == 0  # its game is not over
        admin.record("td", 1, "R1-M2", {"scores": [10, 6], "winner": "NS"}, "test")
        # R1-M2 is won; R2-M1 (seed 1 v R1-M2's winner) is playable: a free table takes it
        wait_until("the next match", lambda: 2 in admin.state.assign, 30)
        assigned = admin.state.assign[2]
        assert list(assigned.values()) == ["R2-M1"]
        table = next(iter(assigned))
        assert table in ("table-1", "table-3")
    finally:
        seater.stop()


@pytest.mark.parametrize(
    ("line", "path"),
    [
        (b'{"play": "/x/game-2.toml"}', "/x/game-2.toml"),
        (b"garbage", None),
        (b'{"play": 3}', None),
        (b'["play"]', None),
        (b'{"play": ""}', None),
        (b"\xff\xfe", None),
    ],
)
def test_a_table_takes_only_a_well_formed_next_game(line: bytes, path: str | None) -> None:
    assert next_game(line) == path
