"""The cost of the pace of play on the director: reading every table's hand times
(store/hand_times.py) and judging them against the round's time (director/pace/), as
the dashboard's overview does at most every 5 seconds and when the round's time changes.

Run it as ``.venv/bin/python bench/pace.py [--tables 256] [--games 4]``. What is
measured: ``time.process_time`` (this process's CPU time) over repeated calls of
``PaceSource.view`` on a SQLite store holding, for each table, ``games`` games of 12
hands already played and a 13th game under way (each hand's start and end marked, as a
table's events mark them), divided by the calls; and of ``judge`` alone on the marks
read once (the pure part). The store's file is on the disk of the folder given
(``--folder``, a temporary folder by default). Nothing else is simulated: the marks are
written as the store writes them, without the events they come from.
"""

from __future__ import annotations

import argparse
import platform
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sysinfo import cpu_model, version

from table_controller.director.pace import (
    Goal,
    HandMark,
    PaceSource,
    RoundClock,
    TablePlay,
    judge,
)
from table_controller.director.store import DirectorStore, HandTime

T0 = 1_800_000_000.0


def fill(store: DirectorStore, tables: int, games: int) -> None:
    """Each table's ``games`` finished games of 12 hands and one with 5 hands played."""
    with store.core.tx() as conn:
        for t in range(1, tables + 1):
            table = f"table-{t}"
            for game in range(1, games + 2):
                start = T0 + (game - games - 1) * 3600.0
                hands = 12 if game <= games else 5
                for hand in range(1, hands + 1):
                    at = start + hand * 300.0
                    seq = hand * 30
                    store.hand_times.write(
                        conn, table, game, seq, at, [{"event": "hand_started", "hand": hand}]
                    )
                    outputs = [{"event": "hand_scored", "hand": hand, "scores": [hand, 0]}]
                    if hand == 12:
                        outputs.append({"event": "game_ended", "scores": [12, 0]})
                    store.hand_times.write(conn, table, game, seq + 29, at + 290.0, outputs)


def per_call(fn: Callable[[], object], repeat: int) -> float:
    fn()
    began = time.process_time()
    for _ in range(repeat):
        fn()
    return (time.process_time() - began) / repeat


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=256)
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--folder", type=Path, default=None)
    args = parser.parse_args()
    folder = args.folder or Path(tempfile.mkdtemp(prefix="bench-pace-"))
    store = DirectorStore(folder / "director.sqlite", rules_name="nmu-tournament")
    fill(store, args.tables, args.games)
    clock = RoundClock(minutes=60, hands=12, round=1, started=T0 - 5 * 300.0)
    titles = {f"table-{t}": f"Table {t}" for t in range(1, args.tables + 1)}
    source = PaceSource(
        store, round_clock=lambda: clock, round_tables=lambda: None, clock=lambda: T0 + 1800.0
    )
    view = source.view(titles)
    marks = store.hand_times.latest_games()
    plays = [
        TablePlay(t, titles[t], tuple(source_marks(rows)), Goal(hands=12))
        for t, rows in marks.items()
    ]
    whole = per_call(lambda: source.view(titles), args.repeat)
    pure = per_call(lambda: judge(clock, plays, T0 + 1800.0), args.repeat)
    rows = sum(len(r) for r in marks.values())
    print(f"pace of play: Python {platform.python_version()}, SQLite {sqlite3.sqlite_version}")
    print(f"  {cpu_model()}, table-controller {version('table-controller')}")
    print(f"{args.tables} tables, {args.games} games of 12 hands each before the round's")
    print(f"  marks in the store: {args.tables * (args.games * 24 + 10 + args.games)}")
    print(f"  marks read (each table's latest game): {rows}")
    print(f"  PaceSource.view (read + judge): {whole * 1000:.1f} ms CPU a call")
    print(f"  judge alone (pure): {pure * 1000:.1f} ms CPU a call")
    print(f"  tables flagged: {len(view['flagged'])} of {len(view['tables'])}")
    store.close()


def source_marks(rows: list[HandTime]) -> list[HandMark]:
    return [
        HandMark(
            r["seq"],
            r["kind"],
            r["at"],
            r["hand"],
            None if r["ns"] is None else (r["ns"], r["ew"]),
        )
        for r in rows
    ]


if __name__ == "__main__":
    main()
