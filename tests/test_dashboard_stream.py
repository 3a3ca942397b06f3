"""The dashboard's stream sends each snapshot as what changed since the one before
(director/dashboard/stream.py): the changes, applied in order as the page applies them,
always add up to the whole snapshot; a page that fell behind is sent the whole; and over
the real service, with tables playing, the page's picture is the director's overview."""

from __future__ import annotations

import asyncio
import json
import threading
import urllib.request
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from test_director_dashboard import status
from test_director_service import WAIT, client, publish, topic, wait_until
from test_director_store import real_game
from test_director_web import World, get_json, log_in

from table_controller.director.dashboard import TableLine, json_text
from table_controller.director.dashboard.stream import OverviewStream, apply_change
from table_controller.director.session import COOKIE
from table_controller.web.stream import Broadcast

NAMES = ["table-1", "table-2", "table-3", "table-10"]

rows = st.dictionaries(
    st.sampled_from(NAMES), st.fixed_dictionaries({"events": st.integers(0, 3)}), max_size=4
)
parts = st.fixed_dictionaries(
    {"alerts": st.lists(st.integers(0, 2), max_size=2), "results": st.sampled_from([{}, {"x": 1}])}
)


def lines_of(tables: dict[str, dict[str, Any]], reverse: bool) -> list[TableLine]:
    ordered = sorted(tables, reverse=reverse)
    return [
        TableLine(t, {"table": t, **tables[t]}, json_text({"table": t, **tables[t]}))
        for t in ordered
    ]


def shown_whole(snap: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in snap.items() if k not in ("full", "changed")}


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(rows, parts, st.booleans(), st.booleans()), min_size=1, max_size=12))
def test_the_changes_applied_in_order_are_the_whole_snapshot(
    steps: list[tuple[dict[str, dict[str, Any]], dict[str, Any], bool, bool]],
) -> None:
    stream = OverviewStream()
    shown: dict[str, Any] | None = None
    for tables, other, reverse, named in steps:
        texts = {k: json_text(v) for k, v in other.items()}
        changed = sorted(tables)[:1] if named else []
        sent = stream.next(lines_of(tables, reverse), texts, changed)
        if sent is None:  # nothing changed: the page's picture is still the whole
            assert not changed and shown is not None
            assert shown_whole(shown) == shown_whole(json.loads(stream.whole()))
            continue
        whole, change = json.loads(sent[0]()), json.loads(sent[1])
        assert whole["full"] and "full" not in change
        if shown is not None:  # a change carries only the lines that changed
            before = {t["table"]: t for t in shown["tables"]}
            assert set(change.get("tables", {})) == {
                t for t in tables if before.get(t) != {"table": t, **tables[t]}
            }
        shown = apply_change(shown if shown is not None else whole, change if shown else whole)
        assert shown is not None
        assert shown_whole(shown) == shown_whole(whole)
        assert shown["changed"] == change["changed"] == changed


def test_a_change_from_a_snapshot_the_page_does_not_have_is_refused() -> None:
    stream = OverviewStream()
    first = stream.next(lines_of({"table-1": {"events": 1}}, False), {}, [])
    assert first
    shown = json.loads(first[0]())  # the whole as the page had it then
    second = stream.next(lines_of({"table-1": {"events": 2}}, False), {}, [])
    third = stream.next(lines_of({"table-1": {"events": 3}}, False), {}, [])
    assert second and third
    assert apply_change(shown, json.loads(third[1])) is None  # the second was missed
    assert apply_change(None, json.loads(second[1])) is None
    assert apply_change(shown, json.loads(third[0]()))["tables"][0]["events"] == 3  # type: ignore[index]


def test_the_store_down_keeps_the_tables_and_says_so() -> None:
    stream = OverviewStream()
    first = stream.next(lines_of({"table-1": {"events": 1}}, False), {"store_problem": "null"}, [])
    assert first
    before = first[0]()
    down = stream.problem("the database is not answering", ["table-1"])
    assert down
    change = json.loads(down[1])
    assert change["store_problem"] == "the database is not answering" and "tables" not in change
    shown = apply_change(json.loads(before), change)
    assert shown is not None and shown["tables"] == [{"table": "table-1", "events": 1}]
    assert json.loads(down[0]())["tables"] == shown["tables"]


def test_a_page_that_fell_behind_is_sent_the_whole_snapshot() -> None:
    async def run() -> list[str]:
        pages = Broadcast(heartbeat=60, retry_ms=1000)
        pages.publish("whole-1")
        response = pages.response()
        body = response.body_iterator
        got = [await anext(body), await anext(body)]  # the retry line, then the whole
        pages.publish("whole-2", "change-2")  # the page has the first: the change
        got.append(await anext(body))
        pages.publish("whole-3", "change-3")
        pages.publish("whole-4", "change-4")  # the third not yet sent: the whole
        got.append(await anext(body))
        await body.aclose()  # type: ignore[attr-defined]
        return got

    got = asyncio.run(run())
    assert got[1:] == ["data: whole-1\n\n", "data: change-2\n\n", "data: whole-4\n\n"]


def test_the_streamed_changes_add_up_to_the_overview_with_tables_playing(
    tmp_path: Path,
) -> None:
    """Three tables play a game each, interleaved, through the real broker and service;
    a logged-in director's stream, read as the page reads it, shows what the overview
    shows: every table's line, the alerts and the results."""
    world = World(tmp_path)
    feed = client(world.broker, "stream-feed")
    got: list[dict[str, Any]] = []
    try:
        cookie = log_in(world.served.url)
        req = urllib.request.Request(
            world.served.url + "events", headers={"Cookie": f"{COOKIE}={cookie}"}
        )
        stream = urllib.request.urlopen(req, timeout=WAIT)

        def read() -> None:
            for raw in stream:
                if raw.startswith(b"data: "):
                    got.append(json.loads(raw[6:]))

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        messages, _ = real_game()
        tables = ["table-1", "table-2", "table-3"]
        for n, t in enumerate(tables):
            publish(
                feed, topic("status", t), status(t, f"Table {n + 1}", ["Ann", "Bo", "Cy", "Di"])
            )
        for m in messages:
            for t in tables:
                publish(feed, topic("events", t), {**m, "table": t})
        total = len(messages) * len(tables)
        wait_until("every event stored", lambda: world.store.events.count_events() == total)

        def shown() -> dict[str, Any] | None:
            snap: dict[str, Any] | None = None
            for message in list(got):
                snap = apply_change(snap, message)
                assert snap is not None, "a change the page could not apply"
            return snap

        def same() -> bool:
            snap = shown()
            overview = get_json(world.served.url + "api/overview", cookie)
            if snap is None:
                return False
            keys = ("tables", "alerts", "results", "event", "title", "store_problem")
            return all(snap[k] == overview[k] for k in keys)

        wait_until("the stream shows the overview", same)
        assert [t["events"] for t in shown()["tables"]] == [len(messages)] * 3  # type: ignore[index]
        # One table renamed: the change carries its line alone.
        publish(
            feed,
            topic("status", "table-2"),
            status("table-2", "Table Two", ["Ann", "Bo", "Cy", "Di"]),
        )
        renamed = ["Table 1", "Table 3", "Table Two"]

        def titles() -> list[str]:
            snap = shown()
            return [] if snap is None else [t["title"] for t in snap["tables"]]

        # Both, not the first alone: before the rename reaches the service, the stream
        # and the overview agree on the old names already.
        wait_until("the stream shows the rename", lambda: titles() == renamed and same())
        assert titles() == renamed
        # The snapshot is sent whole first, then as changes. A page that fell behind
        # (its previous message not yet taken: the machine's load decides) is sent the
        # whole snapshot again, which is right too; a change is checked where there is one.
        assert got[0]["full"] and any(not m.get("full") for m in got[1:])
        renamed = next(m for m in got if "Table Two" in json.dumps(m.get("tables")))
        if not renamed.get("full"):
            assert set(renamed["tables"]) == {"table-2"} and "order" in renamed
    finally:
        feed.loop_stop()
        feed.disconnect()
        world.close()


def test_a_change_after_a_quiet_spell_is_sent_at_once_and_at_most_one_a_spell(
    tmp_path: Path,
) -> None:
    """The overview is made at most every ``coalesce`` seconds, on the page's clock; the
    first change after a quiet spell does not wait a whole spell from its arrival."""
    from table_controller.director.store import DirectorStore
    from table_controller.director.web import DirectorPage

    class Loop:  # records what the page asks of its event loop
        def __init__(self) -> None:
            self.later: list[float] = []

        def call_later(self, delay: float, callback: Any) -> None:
            if callback.__name__ == "_flush":  # (not the results' own timer)
                self.later.append(round(delay, 6))

    store = DirectorStore(tmp_path / "director.sqlite")
    try:
        page = DirectorPage(store, None, coalesce=0.05)
        now = [100.0]
        page._monotonic = lambda: now[0]
        loop = Loop()
        page._loop = loop  # type: ignore[assignment]
        page._schedule("table-1")  # the first change: at once
        page._schedule("table-2")  # one already due: nothing more asked
        assert loop.later == [0.0]
        page._flush()
        now[0] += 0.01
        page._schedule("table-1")  # 10 ms after a snapshot: the rest of the spell
        assert loop.later == [0.0, 0.04]
        now[0] += 0.04
        page._flush()
        now[0] += 1.0
        page._schedule("table-3")  # a quiet second later: at once again
        assert loop.later == [0.0, 0.04, 0.0]
    finally:
        store.close()


def test_a_snapshot_reads_the_tables_a_change_named_and_all_of_them_every_few_seconds(
    tmp_path: Path,
) -> None:
    """At 256 tables a snapshot (up to 20 a second) reads again only the tables the
    service named (a status, an event: the writes that move one table's line); a change
    that names none (an alert set on the page, the heartbeat check) reads them all, and
    so does the first snapshot after ``WHOLE_EVERY`` seconds, for writes no one told
    this process of. Whatever was read, the streamed picture is the overview's."""
    from table_controller.director.store import DirectorStore
    from table_controller.director.web import WHOLE_EVERY, DirectorPage

    class Loop:  # the results computed at once; nothing else scheduled
        def call_later(self, delay: float, callback: Any) -> None:
            pass

        def call_soon_threadsafe(self, callback: Any, *args: Any) -> None:
            pass

        def run_in_executor(self, executor: None, work: Any) -> None:
            work()

    def shown(page: DirectorPage) -> dict[str, dict[str, Any]]:
        return {t["table"]: t for t in json.loads(page._stream.whole())["tables"]}

    def hand_of(page: DirectorPage, table: str) -> object:
        return shown(page)[table]["hand"]

    store = DirectorStore(tmp_path / "director.sqlite")
    try:
        page = DirectorPage(store, None, coalesce=0.05)
        now = [100.0]
        page._monotonic = lambda: now[0]
        page._loop = Loop()  # type: ignore[assignment]
        for n in (1, 2, 3):
            store.tables.add_status(status(f"table-{n}", f"Table {n}", ["A", "B", "C", "D"]))
        page._schedule("")
        page._flush()
        assert set(shown(page)) == {"table-1", "table-2", "table-3"}
        # table-1's status told; table-2's written by another process, untold
        store.tables.add_status(status("table-1", "Table 1", ["A", "B", "C", "D"], hand=2))
        store.tables.add_status(status("table-2", "Table 2", ["A", "B", "C", "D"], hand=3))
        now[0] += 0.1
        page._schedule("table-1")
        page._flush()
        assert (hand_of(page, "table-1"), hand_of(page, "table-2")) == (2, 1)
        now[0] += WHOLE_EVERY
        page._schedule("table-1")
        page._flush()
        assert hand_of(page, "table-2") == 3
        assert shown(page) == {t["table"]: t for t in page.overview()["tables"]}
        # An alert on table-3 raised where no table is named: every line read, its
        # count of open alerts moved, and the alert shown in words.
        store.tables.add_status(status("table-1", "Table 1", ["A", "B", "C", "D"], hand=4))
        store.alerts.alert_once("table-3", "camera", "lens", "the camera sees nothing", now[0])
        now[0] += 0.1
        page._schedule("")
        page._flush()
        lines = shown(page)
        assert (lines["table-3"]["alerts"], lines["table-1"]["hand"]) == (1, 4)
        alerts = json.loads(page._stream.whole())["alerts"]
        assert [a["table"] for a in alerts] == ["table-3"] and alerts[0]["sentence"]
        assert lines == {t["table"]: t for t in page.overview()["tables"]}
    finally:
        store.close()
