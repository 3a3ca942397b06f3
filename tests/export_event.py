"""A realistic event in a director's store, for the results' export tests and its
pictures: 8 players over 2 progressive rounds at two named tables, from real simulated
tables' feed messages (cameras, buttons, rules, logs); one of the games has a renege
proven by the rules, with the camera's evidence pictures stored as the feed sends them.
"""

from __future__ import annotations

import asyncio
import atexit
import shutil
import tempfile
import threading
from functools import cache
from pathlib import Path
from typing import Any

from test_director_store import feed_messages

from table_controller.director.store import DirectorStore
from table_controller.director.tournament import ProgressiveEvent, TournamentAdmin
from table_controller.feed.messages import status_message
from table_controller.table.config import parse_config
from table_controller.table.simulated import FAST, simulated_table

PLAYERS = ["Ann", "Bob", "Zoë", "Di", "Ed", "Flo", "Gus", "Hal"]
TABLES = {"table-1": "Maple", "table-2": "Table 2"}  # id -> name as the status sends it
EVENT = "Spring Open"
START = 1_790_000_000.0  # a fixed day, so the pages say the same date every run

Game = tuple[tuple[dict[str, Any], ...], dict[tuple[int, int], bytes]]


@cache
def progressive_game(seed: int, renege: bool) -> Game:
    """A real simulated table playing td-progressive, 2 hands a game, as the feed's event
    messages and evidence pictures; with ``renege`` its players renege."""
    folder = Path(tempfile.mkdtemp(prefix="export-game-"))
    atexit.register(shutil.rmtree, folder, True)
    data = {
        "table": {"name": "T", "gpio": "mock", "log": "t.sqlite"},
        "camera": {"source": "synthetic"},
        "cube": {"port": "emulator"},
        "web": {"host": "127.0.0.1", "port": 0},
        "rules": {"preset": "td-progressive", "options": {"hands_per_game": 2}},
    }
    table = simulated_table(
        parse_config(data, folder, "<test>"),
        seed=seed,
        renege=renege,
        pace=FAST,
        serve_page=False,
    )
    worker = threading.Thread(target=asyncio.run, args=(asyncio.wait_for(table.run(hands=2), 120),))
    worker.start()
    worker.join()
    messages, images = feed_messages(folder / "t.sqlite")
    ones = tuple(m for m in messages if m["game"] == 1)
    return ones, {k: v for k, v in images.items() if k[0] == 1}


def dealing_status(table: str, at: float, game: int, players: dict[str, str]) -> dict[str, Any]:
    """A table's status as a game's dealing starts: the players it seats, nothing else."""
    return status_message(
        table=table,
        at=at,
        every=5.0,
        game=game,
        hand=None,
        phase="dealing",
        scores=[0, 0],
        players=players,
        faults=[],
        backlog=0,
    )


def renege_game() -> Game:
    """A simulated game with a renege proven (seed 1's players renege in its first hand)."""
    game = progressive_game(1, True)
    assert any(o.get("event") == "renege_proven" for m in game[0] for o in m["outputs"])
    return game


def build_event(
    path: str | Path, *, players: list[str] = PLAYERS, event: bool = True, rounds: int = 2
) -> DirectorStore:
    """The store (a SQLite file or a PostgreSQL URL) of a progressive event whose first
    two rounds' games come from the feed: each round, table-1 ("Maple") and table-2
    ("Table 2") each play a real game; the renege game is table-1's round 1."""
    store = DirectorStore(path, rules_name="td-progressive")
    games = {"renege": renege_game(), "clean": progressive_game(2, False)}
    admin = TournamentAdmin(store)
    if event:
        admin.create("ann", "progressive", players, rounds=rounds, name=EVENT)
    plan = {1: {"table-1": "1", "table-2": "2"}, 2: {"table-1": "2", "table-2": "1"}}
    played = {
        (1, "table-1"): "renege",
        (1, "table-2"): "clean",
        (2, "table-1"): "clean",
        (2, "table-2"): "renege",
    }
    at = START
    for round_no in (1, 2):
        if event:
            admin.assign_round("ann", round_no, plan[round_no])
        for table, place in plan[round_no].items():
            messages, images = games[played[(round_no, table)]]
            seats = _seats(admin, players, round_no, int(place))
            store.tables.add_status(
                {
                    **dealing_status(table, at, round_no, seats),
                    "name": TABLES[table],
                    # the rules the table plays (the store replays its games with them)
                    "rules": {"name": "td-progressive", "options": {"hands_per_game": 2}},
                }
            )
            base = messages[0]["at"]
            # the game's own rules and players, as a table's log sends them with seq 1
            record = {
                "rules": "td-progressive",
                "options": {"hands_per_game": 2},
                "players": seats,
            }
            for m in messages:
                first = {"record": record} if m["seq"] == 1 else {}
                store.events.add_event(
                    {**m, **first, "table": table, "game": round_no, "at": at + m["at"] - base}
                )
                admin.on_stored("event", table)
            for (_, seq), png in images.items():
                store.events.add_evidence(table, round_no, seq, png)
            at += 3600
    return store


def _seats(admin: TournamentAdmin, players: list[str], round_no: int, place: int) -> dict[str, str]:
    ev = admin.state.event
    if not isinstance(ev, ProgressiveEvent):  # no event: the first four, then the others
        names = players[:4] if place == 1 else players[4:8]
        return dict(zip("NESW", names, strict=True))
    seats = ev.tables(round_no)[place - 1]
    return {s: admin.state.people.name(p) for s, p in seats.items()}
