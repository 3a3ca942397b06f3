"""The director's side of an update (director/fleet/update.py): the rollout stepped with
a clock of its own, one table at a time; the wheel served over real HTTP and fetched by
the table's own download; the runner with a real store and signed orders."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fleet_wheels import Served, make_wheel

from table_controller.director.fleet import replies as fleet_replies
from table_controller.director.fleet import update as fleet_update
from table_controller.director.fleet.update import Release, Rollout, UpdateRunner
from table_controller.director.store import DirectorStore
from table_controller.feed.signing import new_keys
from table_controller.fleet import update
from table_controller.fleet.orders import verify_order
from table_controller.table.fleet.update_agent import download

RELEASE = Release("table_controller-2.0-py3-none-any.whl", "2.0", "ab" * 32)
TABLES = [("table-1", "Table 1"), ("table-2", "Table 2"), ("table-3", "Table 3")]


class Fleet:
    """Three tables' heartbeats and words, as the director's store would hold them."""

    def __init__(self) -> None:
        self.now = 0.0
        self.beats: dict[str, dict[str, Any]] = {
            t: {"online": True, "phase": "over", "hand": 8, "fleet": {"version": "1.0"}}
            for t, _ in TABLES
        }
        self.said: dict[str, dict[str, Any]] = {}
        self.orders: list[dict[str, Any]] = []
        self.rollout = Rollout(
            RELEASE, TABLES, send=lambda t, o: self.orders.append(o),
            heartbeat=self.beats.get, progress=self.said.get, clock=lambda: self.now,
            limit=600.0, resend=120.0, new_id=lambda: f"u-{len(self.orders) + 1}",
        )  # fmt: skip

    def say(self, table: str, state: str, problem: str | None = None) -> None:
        oid = [o for o in self.orders if o["table"] == table][-1]["id"]
        self.said[table] = {"id": oid, "state": state, "problem": problem, "received": self.now}

    def comes_back(self, table: str) -> None:
        self.beats[table]["fleet"] = {"version": "2.0"}

    def states(self) -> list[str]:
        return [s.state for s in self.rollout.steps]


def test_one_table_at_a_time_each_between_games() -> None:
    f = Fleet()
    f.beats["table-2"].update(phase="playing", hand=3)
    f.rollout.step()
    assert [o["table"] for o in f.orders] == ["table-1"]
    order = f.orders[0]
    assert order["kind"] == "update" and order["version"] == "2.0"
    assert order["url"] == "/fleet/release/table_controller-2.0-py3-none-any.whl"
    assert order["sha256"] == "ab" * 32
    f.rollout.step()
    assert len(f.orders) == 1  # the next waits for this one

    f.comes_back("table-1")
    f.rollout.step()  # table 1 done; table 2 is playing: waits
    assert f.states() == ["done", "queued", "queued"]
    assert "Table 2 is playing" in f.rollout.steps[1].words
    f.now = 5000.0  # a long game is no failure
    f.rollout.step()
    assert len(f.orders) == 1 and f.rollout.state == "running"

    f.beats["table-2"].update(phase="over")
    f.rollout.step()
    assert [o["table"] for o in f.orders] == ["table-1", "table-2"]
    f.say("table-2", "running")  # its word comes before its heartbeat: enough
    f.comes_back("table-3")  # already runs it (updated by hand): skipped, no order
    f.rollout.step()
    f.rollout.step()
    assert f.rollout.state == "done" and f.states() == ["done"] * 3
    assert len(f.orders) == 2
    assert f.rollout.words == "Every table runs version 2.0."


def test_a_table_that_never_comes_back_stops_the_rollout_and_the_rest_are_untouched() -> None:
    f = Fleet()
    f.rollout.step()
    f.comes_back("table-1")
    f.rollout.step()
    assert f.orders[-1]["table"] == "table-2"
    f.say("table-2", "restarting")
    f.beats["table-2"]["online"] = False
    f.now = 599.0
    f.rollout.step()
    assert f.rollout.state == "running"
    assert f.rollout.steps[1].words == "Table 2: restarting into version 2.0."
    f.now = 601.0
    f.rollout.step()
    assert f.rollout.state == "stopped" and f.states() == ["done", "failed", "queued"]
    words = f.rollout.words
    assert "stopped at Table 2" in words and "within 10 minutes" in words
    assert "Table 3 was not updated and keeps its version." in words
    assert "director release" in words
    f.rollout.step()
    assert [o["table"] for o in f.orders] == ["table-1", "table-2"]  # none to table 3


def test_a_table_that_refuses_stops_the_rollout_with_its_words() -> None:
    f = Fleet()
    f.rollout.step()
    f.say("table-1", "refused", "version 2.0 needs camera-magic>=2 (not installed)")
    f.rollout.step()
    assert f.rollout.state == "stopped"
    assert "Table 1 refused version 2.0: version 2.0 needs camera-magic" in f.rollout.words
    assert "Table 2 and Table 3 were not updated" in f.rollout.words


def test_a_table_that_rolled_back_stops_the_rollout() -> None:
    f = Fleet()
    f.rollout.step()
    f.say("table-1", "rolled-back", "version 2.0 did not come up")
    f.rollout.step()
    assert "Table 1 tried and went back from version 2.0" in f.rollout.words


def test_an_order_not_answered_is_sent_again_and_an_old_word_is_not_taken() -> None:
    f = Fleet()
    f.said["table-1"] = {"id": "from-last-week", "state": "refused", "received": 0.0}
    f.rollout.step()
    f.now = 119.0
    f.rollout.step()
    assert len(f.orders) == 1 and f.rollout.state == "running"
    f.now = 121.0
    f.rollout.step()
    assert [o["id"] for o in f.orders] == ["u-1", "u-2"]
    f.said["table-1"] = {"id": "u-1", "state": "installing", "received": 121.0}
    f.now = 400.0
    f.rollout.step()
    assert len(f.orders) == 2  # it answered: no more
    assert f.rollout.steps[0].words == "Table 1: installing and testing version 2.0."


def test_an_offline_table_is_waited_for_before_its_order() -> None:
    f = Fleet()
    f.beats["table-1"]["online"] = False
    f.rollout.step()
    assert f.orders == [] and "Table 1 is offline" in f.rollout.steps[0].words


# --- the wheel served by the director ----------------------------------------------------


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Served, Path]]:
    folder = tmp_path / "director"
    s = Served(folder)
    yield s, folder
    s.close()


def test_the_wheel_is_served_by_name_only(served: tuple[Served, Path], tmp_path: Path) -> None:
    s, folder = served
    wheel = make_wheel(tmp_path / "built", "2.0")
    release = fleet_update.add_release(folder, wheel, now=10.0)
    assert release.sha256 == update.sha256_of(wheel) and release.version == "2.0"
    (folder / "director.sqlite").write_text("secret")
    got = download(f"http://127.0.0.1:{s.port}{release.url}", tmp_path / "got")
    assert update.sha256_of(got) == release.sha256
    for path in (
        "/fleet/release/..%2Fdirector.sqlite",
        "/fleet/release/%2E%2E%2Fdirector.sqlite",
        "/fleet/release/../director.sqlite",
        "/fleet/release/table_controller-9.9-py3-none-any.whl",
        "/fleet/release/rollout.json",
    ):
        status, body = s.get(path)
        assert status == 404 and b"secret" not in body, path


def test_only_a_table_controller_wheel_is_released(tmp_path: Path) -> None:
    other = tmp_path / "requests-2.0-py3-none-any.whl"
    other.write_bytes(b"x")
    with pytest.raises(update.UpdateRefused, match="not of table-controller"):
        fleet_update.add_release(tmp_path / "d", other, now=1.0)
    with pytest.raises(update.UpdateRefused, match="not a file"):
        fleet_update.add_release(tmp_path / "d", tmp_path / "nothing.whl", now=1.0)


# --- the runner in the director's process ------------------------------------------------


def test_the_runner_takes_up_a_release_and_sends_signed_orders(
    tmp_path: Path, store_target: str
) -> None:
    private, public = new_keys()
    store = DirectorStore(store_target)
    now = [1000.0]
    for table in ("table-1", "table-2"):  # approved: the fleet's tables are the rollout's
        store.fleet.fleet_approve(
            table, table.replace("table-", "Table "), "pi", "10.0.0.1", "0.1", "a2V5", 1
        )
        store.tables.add_status(
            {"table": table, "online": True, "at": now[0], "every": 5, "phase": "over",
             "hand": 8, "name": table.replace("table-", "Table ")}, received=now[0],
        )  # fmt: skip
    sent: list[tuple[str, str, bool]] = []
    runner = UpdateRunner(
        tmp_path, store, prefix="euchre/cup", private_pem=private,
        publish=lambda t, p, r: sent.append((t, str(p), r)), clock=lambda: now[0],
    )  # fmt: skip
    runner.step()
    assert sent == [] and "No update" in fleet_update.status_words(tmp_path)
    fleet_update.add_release(tmp_path, make_wheel(tmp_path / "built", "2.0"), now=now[0])
    assert "waiting for the director" in fleet_update.status_words(tmp_path)
    runner.step()
    [(topic, payload, retain)] = sent
    assert topic == "euchre/cup/tables/table-1/commands" and retain is False
    order = verify_order(payload, public, table="table-1", kind="commands", now=now[0])
    assert order["version"] == "2.0" and order["url"].endswith("2.0-py3-none-any.whl")

    # The table's progress arrives through fleet/replies.py's "update" entry.
    fleet_replies.handle(store, "table-1", "update", {"id": order["id"], "state": "installing",
                        "at": now[0]}, now[0])  # fmt: skip
    fleet_replies.handle(store, "table-1", "update", {"state": "nonsense"}, now[0])
    runner.step()
    assert "Table 1: installing" in fleet_update.status_words(tmp_path)
    fleet_replies.handle(store, "table-1", "update", {"id": order["id"], "state": "running",
                        "at": now[0] + 1}, now[0])  # fmt: skip
    runner.step()
    runner.step()
    assert [t for t, _, _ in sent] == [
        "euchre/cup/tables/table-1/commands",
        "euchre/cup/tables/table-2/commands",
    ]
    assert "Table 1 runs version 2.0." in fleet_update.status_words(tmp_path)
    store.close()


def test_the_latest_word_of_each_table_is_kept(store_target: str) -> None:
    from table_controller.director.store import FleetUpdates

    store = DirectorStore(store_target)
    updates = FleetUpdates(store.core)
    assert updates.add("table-1", {"id": "u-1", "state": "installing", "at": 5.0}, 6.0)
    assert not updates.add("table-1", {"id": "u-1", "state": "downloading", "at": 4.0}, 7.0)
    assert not updates.add("table-1", {"state": "exploded"}, 7.0)
    assert updates.add("table-2", {"state": "refused", "problem": "x" * 10_000}, 8.0) is False
    assert FleetUpdates(store.core).latest("table-1") == {
        "id": "u-1", "state": "installing", "version": None, "running": None,
        "problem": None, "at": 5.0, "received": 6.0,
    }  # fmt: skip
    assert list(updates.all()) == ["table-1"]
    store.close()


def test_the_release_command(tmp_path: Path) -> None:
    from table_controller.cli import main

    wheel = make_wheel(tmp_path / "built", "2.0")
    out = io.StringIO()
    folder = tmp_path / "event"
    assert main(["director", "release", str(wheel), "--folder", str(folder)], out) == 0
    assert "Version 2.0 is in" in out.getvalue()
    assert (folder / "releases" / wheel.name).read_bytes() == wheel.read_bytes()
    out = io.StringIO()
    assert main(["director", "release", "--status", "--folder", str(folder)], out) == 0
    assert "waiting for the director to take it up" in out.getvalue()
    bad = tmp_path / "notes.txt"
    bad.write_text("x")
    assert main(["director", "release", str(bad), "--folder", str(folder)], io.StringIO()) == 2


def test_serve_updates_runs_the_runner_until_stopped(tmp_path: Path) -> None:
    import threading

    import waiting

    private, _ = new_keys()
    store = DirectorStore(str(tmp_path / "director.sqlite"))
    store.fleet.fleet_approve("table-1", "Table 1", "pi", "10.0.0.1", "0.1.0", "a2V5", 1.0)
    store.tables.add_status({"table": "table-1", "online": True, "at": 1.0, "phase": "over"})
    sent: list[str] = []
    stop = threading.Event()
    found = fleet_update.serve_updates(
        tmp_path, store, prefix="euchre/cup", private_pem=private,
        publish=lambda t, p, r: sent.append(t), stop=stop,
    )  # fmt: skip
    assert [r.path for r in found] == ["/fleet/release/{file}"]  # type: ignore[attr-defined]
    fleet_update.add_release(tmp_path, make_wheel(tmp_path / "built", "2.0"), now=5.0)
    waiting.wait_until("the order sent", lambda: sent == ["euchre/cup/tables/table-1/commands"])
    stop.set()
    store.close()
