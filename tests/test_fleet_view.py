"""The fleet view (issue 20): each table's machine in its heartbeat, the director's
page data in words, the pictures kept per table, and a real table answering the
director's signed camera commands through a real mosquitto (a camera view; a
recalibration that saves the calibration file and clears the table's fault; a command
signed by another key refused)."""

from __future__ import annotations

import asyncio
import base64
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from mosquitto import Mosquitto
from test_director_service import PREFIX, WAIT, client, start_broker, wait_until

from table_controller.director.fleet.camera import CameraCommands, camera_reply
from table_controller.director.fleet.view import FleetView, config_words, lag_words
from table_controller.director.service import BrokerConfig, DirectorService
from table_controller.director.store import DirectorStore, StoreError
from table_controller.feed import messages
from table_controller.feed.signing import new_keys
from table_controller.pictures import JPEG_MAGIC
from table_controller.sim import World, WorldCamera
from table_controller.table.app import Table
from table_controller.table.config import parse_config
from table_controller.table.fleet.identity import MachinePaths, machine_claim
from table_controller.table.fleet.status import device_words, fleet_status, package_version
from table_controller.table.health import Device, Fault
from table_controller.table.options import TableOptions
from table_controller.vision.layout import Calibration
from table_controller.vision.synthetic import Effects

NOW = 1_800_000_000.0
JPEG = JPEG_MAGIC + b"\xe0 a small picture"


def fleet_part(**over: Any) -> dict[str, Any]:
    part = fleet_status(
        version="0.1.0",
        faults=[],
        cube=True,
        disk_free=12 * 1024**3,
        calibration=NOW - 600,
        config_seq=3,
    )
    return {**part, **over}


def status(table: str, name: str, *, at: float = NOW, **extra: Any) -> dict[str, Any]:
    return {
        **messages.status_message(
            table=table,
            at=at,
            every=5,
            game=1,
            hand=2,
            phase="playing",
            scores=[3, 4],
            players={},
            faults=[],
            backlog=0,
            name=name,
            fleet=fleet_part(),
        ),
        **extra,
    }


# --- the heartbeat's part ----------------------------------------------------------


def test_each_device_is_told_in_the_faults_own_words() -> None:
    faults = [
        Fault(Device.CALIBRATION, "no calibration: the corner marker NE is not seen", "fix", 1.0),
        Fault(Device.CUBE, "the trump cube is not connected (unplugged)", "fix", 2.0),
    ]
    words = device_words(faults)
    assert words["camera"] == "no calibration: the corner marker NE is not seen"
    assert words["cube"] == "the trump cube is not connected (unplugged)"
    assert words["lights"] == "ok" and words["disk"] == "ok"
    assert device_words([], cube=False)["cube"] == "not fitted"
    part = fleet_status(
        version=package_version(), faults=faults, cube=True, disk_free=5 * 1024**2,
        calibration=None,
    )  # fmt: skip
    assert part["version"] == package_version() != ""
    assert part["disk_free_mb"] == 5 and part["calibration"] == {"at": None}
    assert part["config_seq"] is None  # until the table runs in fleet mode
    assert package_version("no-such-package-here") == "unknown"


def test_the_heartbeat_carries_the_fleet_part_only_when_given() -> None:
    plain = messages.status_message(
        table="t", at=1.0, every=5, game=None, hand=None, phase=None, scores=[0, 0],
        players={}, faults=[], backlog=0,
    )  # fmt: skip
    assert "fleet" not in plain
    assert status("table-1", "Table 1")["fleet"]["version"] == "0.1.0"


# --- the page's data ----------------------------------------------------------------


@pytest.fixture
def store(store_target: str) -> Iterator[DirectorStore]:
    """The director's store, on SQLite and on PostgreSQL."""
    s = DirectorStore(store_target, clock=lambda: NOW)
    yield s
    s.close()


def test_the_fleet_view_says_every_tables_machine_in_words(store: DirectorStore) -> None:
    store.tables.add_status(status("table-2", "Maple"), received=NOW)
    broken = status("table-10", "Table 10", backlog=7, unconfirmed=7)
    broken["fleet"] = fleet_part(
        devices={"camera": "the camera cannot be opened: no such device", "lights": "ok",
                 "cube": "not fitted", "disk": "ok", "log": "ok"},
        disk_free_mb=300, config_seq=None, calibration={"at": None},
    )  # fmt: skip
    store.tables.add_status(broken, received=NOW - 4)
    view = FleetView(store, clock=lambda: NOW + 60)
    tables = view.tables()
    assert [t["title"] for t in tables] == ["Maple", "Table 10"]
    maple, ten = tables
    assert maple["version_text"] == "Release 0.1.0" and maple["online_text"] == "Online"
    assert {d["label"]: d["text"] for d in maple["devices"]} == {
        "Camera": "Working",
        "Seat lights": "Working",
        "Trump cube": "Working",
    }
    assert maple["disk_text"] == "12.0 GB free"
    assert maple["clock_text"] == "The same as the director's" and maple["clock_ok"]
    assert maple["config_text"] == "Config 3 applied"
    assert maple["calibration_text"].startswith("Last calibrated ")
    assert maple["calibration_text"].endswith("(11 min ago)")
    assert maple["lag_text"] == "Every event sent, no event yet" and maple["lag_ok"]
    cam = next(d for d in ten["devices"] if d["device"] == "camera")
    assert cam == {
        "device": "camera",
        "label": "Camera",
        "text": "The camera cannot be opened: no such device",
        "ok": False,
    }
    assert next(d for d in ten["devices"] if d["device"] == "cube")["text"] == "Not fitted"
    assert ten["clock_text"] == "4.0 s ahead of the director's" and not ten["clock_ok"]
    assert ten["lag_text"] == "7 events not yet sent, no event yet" and not ten["lag_ok"]
    assert ten["disk_text"] == "300 MB free" and ten["calibration_text"] == "Not calibrated yet"
    text = json.dumps(tables)
    assert "table-2" not in text.replace('"table": "table-2"', "")  # the id only as a key


def test_the_feed_lag_and_the_config_state_in_words() -> None:
    assert lag_words({"backlog": 0, "unconfirmed": 2}, NOW - 5, NOW) == (
        "2 events not yet stored by the director, last event 5 s ago",
        False,
    )
    assert lag_words({"backlog": 1}, NOW - 300, NOW) == (
        "1 event not yet sent, last event 5 min ago",
        True,
    )
    assert config_words({"seq": 4, "state": "waiting"}, 3) == (
        "Config 4 taken, applied when the game in progress ends"
    )
    assert config_words({"seq": 4, "state": "refused", "problem": "no such rules"}, 3) == (
        "Config 4 refused: no such rules"
    )
    assert config_words(None, None) == "No config from the director yet"


def test_the_latest_picture_of_each_kind_is_kept(store: DirectorStore) -> None:
    store.pictures.fleet_asked("table-1", "camera-view", NOW, who="ann", order="o1")
    view = FleetView(store, clock=lambda: NOW + 1)
    store.tables.add_status(status("table-1", "Table 1"), received=NOW)
    shown = view.tables()[0]["camera_view"]
    assert shown["waiting"] and "Asked for the camera view at" in shown["text"]
    body = {"kind": "camera-view", "jpeg": base64.b64encode(JPEG).decode(), "at": NOW + 1}
    camera_reply(store, "table-1", body, NOW + 1)
    camera_reply(store, "table-1", {**body, "jpeg": base64.b64encode(JPEG + b"old").decode()}, NOW)
    assert store.pictures.fleet_picture("table-1", "camera-view") == JPEG
    shown = view.tables()[0]["camera_view"]
    assert not shown["waiting"] and shown["picture"] and shown["text"].startswith("Camera view")
    with pytest.raises(StoreError, match="not a JPEG"):
        camera_reply(store, "table-1", {**body, "at": NOW + 2, "jpeg": "aGVsbG8="}, NOW)
    failed = {"kind": "recalibrate", "ok": False, "problem": "the corner marker NE is not seen"}
    camera_reply(store, "table-1", {**failed, "at": NOW + 3}, NOW + 3)
    rec = view.tables()[0]["recalibration"]
    assert rec["ok"] is False and rec["text"].endswith(": the corner marker NE is not seen")
    assert any(a["action"] == "camera_view_asked" for a in store.accounts.audit())


# --- a real table answers the director's commands -----------------------------------


class Director:
    """The director's service on a real broker, with its key, and its camera commands
    (the service stores the tables' answers: fleet/replies.py); a listener counts them."""

    def __init__(self, folder: Path, broker: Mosquitto) -> None:
        self.private, self.public = new_keys()
        (folder / "director.pub").write_bytes(self.public)
        self.store = DirectorStore(folder / "director.sqlite")
        self.service = DirectorService(
            self.store,
            BrokerConfig(port=broker.port, client_id="director-fleet"),
            prefix=PREFIX,
            private_key=self.private,
        )
        self.service.start()
        assert self.service.connected.wait(WAIT)
        self.commands = CameraCommands(self.store, self.private, PREFIX, self.service.publish)
        self.answers: list[dict[str, Any]] = []
        subscribed = threading.Event()
        self.listener = client(broker, "fleet-answers")
        self.listener.on_message = self._answer
        self.listener.on_subscribe = lambda *a: subscribed.set()
        self.listener.subscribe(f"{PREFIX}/tables/+/fleet/camera", qos=1)
        assert subscribed.wait(WAIT)

    def _answer(self, c: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        self.answers.append(json.loads(msg.payload))

    def close(self) -> None:
        self.listener.loop_stop()
        self.listener.disconnect()
        self.service.stop()
        self.store.close()


@pytest.mark.slow(budget=60)
def test_a_real_table_shows_its_camera_and_recalibrates_on_the_directors_word(
    tmp_path: Path,
) -> None:
    broker = start_broker(tmp_path / "broker")
    director = Director(tmp_path, broker)
    try:
        _run_table(tmp_path, broker, director)
    finally:
        director.close()
        broker.stop()


def _run_table(tmp_path: Path, broker: Mosquitto, director: Director) -> None:
    topic, event = PREFIX.split("/")
    config = parse_config(
        {
            "table": {"name": "Table 7", "gpio": "mock", "log": "table.sqlite"},
            "camera": {
                "source": "synthetic",
                "calibration": "calibration.json",  # none yet: the table says so
                "lost_after": 2.0,
                "drift_check": 0,
            },
            "cube": {"port": "none"},
            "web": {"host": "127.0.0.1", "port": 0},
            "feed": {
                "enabled": True,
                "broker": "127.0.0.1",
                "port": broker.port,
                "topic": topic,
                "event": event,
                "director_key": str(tmp_path / "director.pub"),
                "heartbeat": 1.0,
            },
        },
        tmp_path,
        "<test>",
    )
    world = World(seed=3, effects=Effects())
    camera = TableOptions(camera=lambda: WorldCamera(world, seed=3, realtime=True))
    table = Table(config, camera, world=world)
    store, commands = director.store, director.commands

    def fleet_of() -> dict[str, Any]:
        rows = [t for t in store.tables.tables() if t["table"] == "table-7"]
        return (rows[0].get("fleet") or {}) if rows else {}

    async def body() -> None:
        stop = asyncio.Event()
        task = asyncio.create_task(table.run(stop=stop))
        try:
            await asyncio.to_thread(
                wait_until,
                "the table's heartbeat tells its camera is not calibrated",
                lambda: (
                    fleet_of().get("devices", {}).get("camera", "ok").startswith("no calibration")
                ),
            )
            assert fleet_of()["version"] == package_version()
            assert fleet_of()["calibration"] == {"at": None}
            assert fleet_of()["devices"]["cube"] == "not fitted"
            assert isinstance(fleet_of()["disk_free_mb"], int)
            # Which machine it runs on (this one's: read from its own /proc and /sys),
            # kept by the director as the machine table-7 reports from.
            here = machine_claim(MachinePaths())
            assert here is not None and fleet_of()["machine"] == here
            [kept] = store.machines.machines("table-7")
            assert (kept["machine"], kept["source"]) == (here["id"], here["source"])

            # Another key's order is refused: no answer, no picture.
            forged = CameraCommands(store, new_keys()[0], PREFIX, director.service.publish)
            forged.ask("table-7", "camera-view", who="mallory")
            commands.ask("table-7", "camera-view", who="ann")
            await asyncio.to_thread(
                wait_until,
                "the camera view stored",
                lambda: (
                    store.pictures.fleet_picture("table-7", "camera-view") is not None
                    and len(director.answers) >= 1
                ),
            )
            picture = store.pictures.fleet_picture("table-7", "camera-view")
            assert picture is not None and picture.startswith(JPEG_MAGIC)
            assert director.answers[0]["ok"] is True

            commands.ask("table-7", "recalibrate", who="ann")
            await asyncio.to_thread(
                wait_until,
                "the recalibration stored",
                lambda: (
                    store.pictures.fleet_picture("table-7", "recalibrate") is not None
                    and len(director.answers) >= 2
                ),
            )
            assert len(director.answers) == 2  # the forged order had no answer
            answer = director.answers[1]
            assert answer["kind"] == "recalibrate" and answer["ok"] is True, answer
            assert Calibration.load(tmp_path / "calibration.json").image_size == (1280, 720)
            rec = store.pictures.fleet_picture("table-7", "recalibrate")
            assert rec is not None and rec.startswith(JPEG_MAGIC)
            await asyncio.to_thread(
                wait_until,
                "the heartbeat says the camera works and when it was calibrated",
                lambda: (
                    fleet_of().get("devices", {}).get("camera") == "ok"
                    and fleet_of().get("calibration", {}).get("at") is not None
                ),
            )
            assert table.health.fault(Device.CALIBRATION) is None

            # A lens covered: the recalibration fails in words, the file is kept.
            saved = (tmp_path / "calibration.json").read_bytes()
            world.covered = True
            seen = table.camera.frames
            await asyncio.to_thread(
                wait_until, "a covered frame", lambda: table.camera.frames > seen + 1
            )
            commands.ask("table-7", "recalibrate", who="ann")
            await asyncio.to_thread(
                wait_until, "the failed recalibration", lambda: len(director.answers) >= 3
            )
            failed = director.answers[2]
            assert failed["ok"] is False and "corner markers" in failed["problem"], failed
            assert failed["jpeg"]  # what the camera saw
            assert (tmp_path / "calibration.json").read_bytes() == saved
            await asyncio.to_thread(
                wait_until,
                "the failure stored",
                lambda: store.pictures.fleet_pictures()["table-7"]["recalibrate"]["ok"] is False,
            )
        finally:
            stop.set()
            await asyncio.wait_for(task, WAIT)

    asyncio.run(body())
