"""The hand times the pace of play is judged from, kept by the director's store
(store/hand_times.py): each hand's start and end at each table, written with its event,
once however often the broker delivers it, kept through a restart of the director, and
made from the events already held when a store from before this release is opened.
On both databases the store can use (``store_target``)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from pace_games import MIN, timed_game

from table_controller.director.store import DirectorStore, StoreError

T0 = 1_800_000_000.0


def test_hand_times_are_kept_through_a_restart(store_target: str, tmp_path: Path) -> None:
    messages = timed_game(tmp_path, "table-7", hands=3, start=T0, minutes_a_hand=7.0)
    store = DirectorStore(store_target)
    try:
        for m in [*messages, *messages[:5]]:  # some delivered twice
            store.events.add_event(m)
        kept = store.hand_times.latest_games()
    finally:
        store.close()
    marks = kept["table-7"]
    kinds = [m["kind"] for m in marks]
    # three hands scored, each begun; a fourth dealt, under way
    assert kinds.count("scored") == 3 and kinds.count("started") - kinds.count("thrown_in") == 4
    scored = [m for m in marks if m["kind"] == "scored"]
    assert [m["at"] for m in scored][-1] == pytest.approx(T0 + 21 * MIN)
    assert all(m["ns"] is not None and m["ew"] is not None for m in scored)
    assert next(m["hand"] for m in marks if m["kind"] == "started") == 1

    again = DirectorStore(store_target)  # the director restarted
    try:
        assert again.hand_times.latest_games() == kept
        assert again.hand_times.latest_games(["table-1"]) == {}
        assert again.hand_times.marks("table-7", marks[0]["game"]) == marks
    finally:
        again.close()


def test_a_store_from_before_hand_times_gets_them_from_its_events(tmp_path: Path) -> None:
    path = tmp_path / "director.sqlite"
    messages = timed_game(tmp_path, "table-2", hands=2, start=T0, minutes_a_hand=5.0)
    store = DirectorStore(path)
    for m in messages:
        store.events.add_event(m)
    kept = store.hand_times.latest_games()
    store.close()
    with sqlite3.connect(path) as conn:  # as a store of the release before holds it
        conn.execute("DROP TABLE hand_times")
    upgraded = DirectorStore(path)
    try:
        assert upgraded.hand_times.latest_games() == kept
    finally:
        upgraded.close()


def test_an_event_with_outputs_that_are_not_outputs_stores_without_marks(
    store_target: str, tmp_path: Path
) -> None:
    first = timed_game(tmp_path, "table-3", hands=1, start=T0, minutes_a_hand=5.0)[0]
    store = DirectorStore(store_target)
    try:
        odd = {**first, "outputs": ["hand_started", 7, {"event": "hand_started", "hand": "x"}]}
        assert store.events.add_event(odd)[0] is True
        [mark] = store.hand_times.latest_games()["table-3"]
        assert (mark["kind"], mark["hand"]) == ("started", None)
        with pytest.raises(StoreError):
            store.events.add_event({**first, "seq": 0})
    finally:
        store.close()
