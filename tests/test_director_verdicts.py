"""Each stored game's verdicts at the director (issue 34): worked out off the loop and
kept in the store, SQLite and PostgreSQL alike, so a restart reads them back and works
nothing out again; the dashboard and the hall draw them (the dashboard saying meanwhile
that they are being worked out); ``director export``'s files carry them; and a game in
progress never has a verdict of its hand in play."""

from __future__ import annotations

import functools
import time
from pathlib import Path

from hall_world import fill_hall
from playwright.sync_api import Browser, expect
from review_games import review_data
from test_director_review import get
from test_director_web import PASSWORD, Served, log_in
from verdict_gate import counted_judge, never

from table_controller.director.dashboard import StoredVerdicts
from table_controller.director.store import DirectorStore
from table_controller.director.web import DirectorPage


def _ended(store: DirectorStore, table: str, game: int) -> int:
    marks = store.hand_times.marks(table, game)
    return sum(1 for m in marks if m["kind"] in ("scored", "thrown_in"))


def test_the_store_keeps_a_games_verdicts_through_a_restart(store_target: str) -> None:
    store = DirectorStore(store_target)
    fill_hall(store, 1, ended={1})  # game 1 over, game 2 in the middle of a hand
    verdicts = StoredVerdicts(store)
    finished = verdicts.now("table-1", 1)
    assert finished is not None and finished.state == "ready"
    hands = _ended(store, "table-1", 1)
    assert len(finished.hands) == hands and finished.decisions
    playing = verdicts.now("table-1", 2)
    assert playing is not None and playing.state == "ready"
    in_play = _ended(store, "table-1", 2) + 1
    assert [h for _, h in playing.hands] == list(range(1, in_play))
    assert all(d.hand < in_play for d in playing.decisions)  # never the hand in play
    store.close()

    again = DirectorStore(store_target)  # the director restarted
    try:
        kept = StoredVerdicts(again, never)
        assert kept.now("table-1", 1) == finished  # read back, not worked out again
        assert kept.now("table-1", 2) == playing
    finally:
        again.close()


def test_the_dashboard_and_the_hall_draw_the_verdicts_once_worked_out(
    tmp_path: Path, browser: Browser
) -> None:
    store = DirectorStore(tmp_path / "director.sqlite")
    store.accounts.add_login("ann", PASSWORD)
    fill_hall(store, 1, ended={1}, only={1}, start=time.time() - 10_000)
    gate = tmp_path / "gate"
    gate.mkdir()
    page = DirectorPage(
        store, None, title="Spring Open", judge=functools.partial(counted_judge, str(gate))
    )
    served = Served(page)
    try:
        url = served.url
        cookie = log_in(url)
        status, body, _ = get(f"{url}review/table-1/1", cookie)
        shown = review_data(body)
        assert status == 200 and shown["verdicts_state"] == "working"
        assert shown["verdicts_status"] == "The verdicts are being worked out..."
        assert shown["hands"]  # the replay, meanwhile
        (gate / "go").write_text("", encoding="utf-8")
        deadline = time.monotonic() + 120
        while store.verdicts.kept("table-1", 1) is None:  # the condition, not a time
            assert time.monotonic() < deadline, "the verdicts never came"
            time.sleep(0.05)
        for address in (f"{url}review/table-1/1", f"{url}public/review/table-1/1"):
            status, body, _ = get(address, cookie if "public" not in address else None)
            shown = review_data(body)
            assert status == 200 and shown["verdicts_state"] == "ready", address
            assert shown["verdicts"] and shown["costliest"]
            frames = [f for h in shown["hands"] for f in h["frames"]]  # type: ignore[union-attr]
            assert any(f["verdict"] and f["verdict"]["costly"] for f in frames)
        assert (gate / "jobs").read_text(encoding="utf-8").count("\n") == 1  # once
        # In the hall, for anyone, in a browser: a player's costliest opens its step.
        tab = browser.new_page(viewport={"width": 1400, "height": 1000})
        tab.goto(f"{url}public/review/table-1/1")
        summary = tab.locator("#verdicts")
        expect(summary).to_be_visible()
        link = summary.locator(".costly-link").first
        expect(link).to_contain_text("cost ")
        link.click()
        expect(tab.locator("#verdict")).to_contain_text("This decision cost")
        expect(tab.locator("#verdict")).to_contain_text("With all hands known")
        expect(tab.locator("#steps [aria-current=step] .mark.costly")).to_be_visible()
        tab.close()
    finally:
        served.close()
        store.close()


def test_the_exports_files_carry_the_verdicts_and_none_of_a_hand_in_play(
    tmp_path: Path,
) -> None:
    from table_controller.director.tournament import collect, review_files
    from table_controller.director.tournament.results.as_pdf import review_names

    store = DirectorStore(tmp_path / "director.sqlite")
    fill_hall(store, 1, ended={1})
    results = collect(store)
    files = review_files(store, results, StoredVerdicts(store))
    names = review_names(results)
    finished = review_data(files[names[("table-1", 1)]].decode())
    assert finished["verdicts_state"] == "ready" and finished["costliest"]
    assert "With all hands known" in files[names[("table-1", 1)]].decode()
    playing = review_data(files[names[("table-1", 2)]].decode())
    in_play = _ended(store, "table-1", 2) + 1
    keys = [f["key"] for h in playing["hands"] for f in h["frames"] if f["verdict"]]  # type: ignore[union-attr]
    assert keys and all(k[1] < in_play for k in keys)
    # Kept as they were worked out: the next export reads them back.
    assert store.verdicts.kept("table-1", 1) is not None
    again = review_files(store, results, StoredVerdicts(store, never))
    assert again == files
    store.close()


def test_a_tables_events_have_its_latest_games_verdicts_worked_out_unasked(
    tmp_path: Path,
) -> None:
    """No one opens the review: the table's events arriving (as the service tells the
    dashboard) are enough for its latest game's ended hands to be worked out and kept."""
    store = DirectorStore(tmp_path / "director.sqlite")
    fill_hall(store, 1, ended={1})
    gate = tmp_path / "gate"
    gate.mkdir()
    (gate / "go").write_text("", encoding="utf-8")
    page = DirectorPage(store, None, judge=functools.partial(counted_judge, str(gate)))
    served = Served(page)
    try:
        page.changed("event", "table-1")
        deadline = time.monotonic() + 120
        while store.verdicts.kept("table-1", 2) is None:
            assert time.monotonic() < deadline, "the verdicts never came"
            time.sleep(0.05)
        kept = StoredVerdicts(store).kept("table-1", 2)
        assert kept is not None and kept.state == "ready"
        assert len(kept.hands) == _ended(store, "table-1", 2)
        assert store.verdicts.kept("table-1", 1) is None  # only the latest game, unasked
    finally:
        served.close()
        store.close()
