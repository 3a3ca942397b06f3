"""The running table end to end: frames in, rules, the log, the lights (mock pins), the
cube (its real firmware behind a pty), the page's snapshot; refusals, faults, resume.

Only the GPIO pins (gpiozero's mock pins) and the camera's sensor (the synthetic
renderer) are simulated; the log is a real SQLite file, the cube a real pty. Waits are
for behaviour (a fault shown, a hand scored), with a generous guard against hanging.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from waiting import until_async

from table_controller.cards import Card, Suit
from table_controller.cli import main
from table_controller.devices.cube_types import Alert, CubeState
from table_controller.devices.emulator import CubeEmulator
from table_controller.devices.seat_events import SeatButton
from table_controller.devices.seat_lights import SeatLight
from table_controller.event_log import EventLog, LogError
from table_controller.rules.events import (
    CardPlayed,
    HandDealt,
    HandResult,
    HandScored,
    InputEvent,
    OutputEvent,
    Passed,
    RenegeProven,
    TrumpCalled,
)
from table_controller.rules.game import Game
from table_controller.rules.hand import Phase
from table_controller.rules.presets import preset
from table_controller.seats import Seat
from table_controller.sim import World, WorldCamera
from table_controller.table.app import Table
from table_controller.table.config import TableConfig, demo_config, parse_config
from table_controller.table.cube_state import cube_state
from table_controller.table.devices import TableDevices
from table_controller.table.health import Device
from table_controller.table.options import TableOptions
from table_controller.table.simulated import FAST, simulated_table
from table_controller.table.sinks import table_lights
from table_controller.vision.camera import Frame, FrameSource
from table_controller.vision.synthetic import Camera, Effects

N, E, S, W = Seat
GUARD = 120.0  # seconds: only against a hang; no test asserts how long anything takes


async def until(what: str, check: Callable[[], bool], guard: float = GUARD) -> None:
    """Wait for ``check()``; fail naming ``what`` if it never comes."""
    await until_async(what, check, guard)


async def running(table: Table, body: Callable[[], Awaitable[None]]) -> None:
    """Run ``table`` while ``body`` runs, then stop it cleanly."""
    stop = asyncio.Event()
    task = asyncio.create_task(table.run(stop=stop))
    try:
        await until("the table started", lambda: table.started and table.sinks.snapshot is not None)
        await body()
    finally:
        stop.set()
        await asyncio.wait_for(task, GUARD)


def config_in(folder: Path, **sections: dict[str, Any]) -> TableConfig:
    data: dict[str, Any] = {
        "table": {"name": "Test table", "gpio": "mock", "log": "table.sqlite"},
        "camera": {"source": "synthetic", "lost_after": 0.5, "drift_check": 0},
        "cube": {"port": "emulator", "link_timeout": 0.5},
        "web": {"host": "127.0.0.1", "port": 0},
    }
    for name, values in sections.items():
        data[name] = {**data.get(name, {}), **values}
    return parse_config(data, folder, "<test>")


def logged(path: Path) -> tuple[list[InputEvent], list[bool]]:
    with EventLog.open_existing(path) as log:
        record = log.last_game()
        assert record is not None
        events = log.events(record.game)
    return [e.event for e in events], [e.has_evidence for e in events]


# --- a whole hand through frames -----------------------------------------------------


def test_a_whole_hand_end_to_end_through_frames(tmp_path: Path) -> None:
    config = demo_config(tmp_path)
    steps: list[tuple[InputEvent, list[OutputEvent]]] = []
    acks: list[tuple[int, int]] = []
    seen: dict[str, Any] = {}
    emulator = CubeEmulator()
    emulator.start()
    devices = TableDevices(config, clock=time.monotonic, emulator=emulator)

    def step(event: InputEvent, outputs: list[OutputEvent]) -> None:
        steps.append((event, outputs))
        if any(isinstance(o, HandScored) for o in outputs):
            # What the pins and the cube's firmware show, before the table closes them.
            assert devices.lights is not None and devices.cube is not None
            seen["lights"] = devices.lights.shown
            devices.cube.wait_shown(10)
            seen["cube"] = emulator.shown_state()
            seen["snapshot"] = table.sinks.snapshot

    table = simulated_table(
        config,
        seed=2,
        pace=FAST,
        devices=devices,
        on_step=step,
        on_ack=lambda g, s, e: acks.append((g, s)),
    )
    try:
        asyncio.run(asyncio.wait_for(table.run(hands=1), GUARD))
    finally:
        emulator.close()
    game = table.game
    # The log holds every event, acknowledged in order, and replays to the same state.
    events, evidence = logged(config.log)
    assert events == game.log == [e for e, _ in steps]
    assert acks == [(1, seq) for seq in range(1, len(events) + 1)]
    replayed = Game.replay(game.rules, events)
    assert replayed.state_key() == game.state_key()
    assert game.hands_counted == 1
    # Every card played was seen by the camera, and its picture kept as evidence.
    plays = [i for i, e in enumerate(events) if isinstance(e, CardPlayed)]
    assert len(plays) >= 15 and all(evidence[i] for i in plays)
    # The lights on the mock pins and the cube's firmware show the game's state.
    assert seen["lights"] == table_lights(game, table.shown.last)
    assert CubeState.from_wire(seen["cube"]) == cube_state(game, table.shown.last)
    snapshot = seen["snapshot"]
    assert (snapshot["score"]["NS"], snapshot["score"]["EW"]) == game.team_scores()
    assert snapshot["score"]["hands_played"] == 1
    assert snapshot["table"] == "Demo table" and snapshot["devices_ok"]


def test_an_injected_renege_on_the_running_table_is_proven_shown_and_penalised(
    tmp_path: Path,
) -> None:
    """The demo's --renege, on the real table: a simulated player keeps a card of the
    suit led and plays another, then later plays the kept card. The camera's frames are
    the only evidence; 003 IRREGULARITIES (renege): the other team is awarded the points
    and the hand ends. The page shows it with both cards' pictures, the offender's light
    and the cube's alert show it, and the log replays to the same penalty."""
    config = demo_config(tmp_path)
    seen: dict[str, Any] = {}
    emulator = CubeEmulator()
    emulator.start()
    devices = TableDevices(config, clock=time.monotonic, emulator=emulator)

    def step(event: InputEvent, outputs: list[OutputEvent]) -> None:
        if any(isinstance(o, RenegeProven) for o in outputs) and "lights" not in seen:
            assert devices.lights is not None and devices.cube is not None
            seen["proven"] = next(o for o in outputs if isinstance(o, RenegeProven))
            seen["scored"] = next((o for o in outputs if isinstance(o, HandScored)), None)
            seen["lights"] = devices.lights.shown
            devices.cube.wait_shown(10)
            seen["cube"] = CubeState.from_wire(emulator.shown_state())
            seen["snapshot"] = table.sinks.snapshot
            assert table.started
            table.stop()

    table = simulated_table(
        config, seed=3, renege=True, pace=FAST, devices=devices, on_step=step, serve_page=False
    )
    try:
        asyncio.run(asyncio.wait_for(table.run(hands=2), GUARD * 2))
    finally:
        emulator.close()
    [made] = table.players.reneges
    proven = seen["proven"]
    assert (proven.seat, proven.trick, proven.played, proven.proof) == (
        made.seat,
        made.trick,
        made.played,
        made.kept,
    )
    scored = seen["scored"]
    assert scored is not None and scored.result is HandResult.RENEGE
    assert scored.points[made.seat.team.other] > 0 and scored.points[made.seat.team] == 0
    assert seen["lights"][made.seat] is SeatLight.RENEGE
    assert seen["cube"].alert is Alert.RENEGE
    [shown] = [r for r in seen["snapshot"]["reneges"] if r["status"] == "proven"]
    assert shown["seat"] == made.seat.name and shown["played"]["code"] == made.played.code
    assert len(shown["evidence"]) == 2 and all(e.get("url") for e in shown["evidence"])
    events, evidence = logged(config.log)
    both = [i for i, e in enumerate(events) if isinstance(e, CardPlayed) and e.seat is made.seat]
    both = [i for i in both if events[i].card in (made.played, made.kept)]
    assert len(both) == 2 and all(evidence[i] for i in both)  # the camera's pictures kept
    replayed = Game.replay(preset("td-tournament"), events)
    assert replayed.state_key() == table.game.state_key()
    assert replayed.team_scores() == scored.scores


# --- refusals ----------------------------------------------------------------------------


class _Stopped(FrameSource):
    """A camera over an empty simulated table (the buttons tests need no cards)."""

    def __init__(self) -> None:
        super().__init__()
        self.world = World(effects=Effects())
        self.inner = WorldCamera(self.world)

    def _next(self) -> Frame | None:
        return self.inner.read()

    def calibration(self) -> Any:
        return self.inner.calibration()


def plain_table(folder: Path, **options: Any) -> Table:
    """A table with W the first dealer (from the config) and an empty table in view."""
    config = config_in(folder, table={"first_dealer": "W"})
    return Table(config, TableOptions(camera=_Stopped, serve_page=False, **options))


def test_a_refused_bid_shows_a_notice_and_the_seat_s_light(tmp_path: Path) -> None:
    table = plain_table(tmp_path)

    async def body() -> None:
        table.rulings.put_nowait(HandDealt(Card.parse("9H")))  # the director's ruling
        await until("the deal", lambda: table.game.phase is Phase.BIDDING)
        table.devices.press(S, SeatButton.CALL)  # N is to bid, not S
        await until("a notice", lambda: bool(table.shown.notices))
        notice = table.shown.notices[-1]
        assert (notice.kind, notice.seat) == ("refused", S)
        assert notice.text == "it is North's turn, not South's"
        assert "wait for your light" in notice.fix
        snapshot = table.sinks.snapshot
        assert snapshot is not None
        assert snapshot["notices"][-1]["seat"] == "S"
        assert snapshot["notices"][-1]["text"] == "it is North's turn, not South's"
        lights = table.devices.lights
        assert lights is not None
        await until("S's light", lambda: lights.shown[S] is SeatLight.REFUSED)
        assert lights.shown[N] is SeatLight.YOUR_BID  # the turn is still N's
        assert table.game.log[-1] == HandDealt(Card.parse("9H"))  # nothing reached the rules
        # The bidding goes on; S's own next bid clears its alert.
        for seat in (N, E):
            table.devices.press(seat, SeatButton.PASS)
        await until("E passed", lambda: table.game.log[-1] == Passed(E))
        assert lights.shown[S] is SeatLight.REFUSED
        table.devices.press(S, SeatButton.PASS)
        await until("S passed", lambda: table.game.log[-1] == Passed(S))
        await until("S's alert cleared", lambda: lights.shown[S] is SeatLight.OFF)

    asyncio.run(running(table, body))
    with EventLog.open_existing(tmp_path / "table.sqlite") as log:
        notes = [f for f in log.faults() if f[1] == "notice"]
    assert any("it is North's turn, not South's" in (f[2] or "") for f in notes)


def test_the_trump_cube_names_the_suit_of_a_second_round_call(tmp_path: Path) -> None:
    """003 TRUMP CUBE: the dealer shows trump on the cube. In the second round a seat
    calls with its CALL button and the suit is the one the real firmware (behind a pty)
    reports face up; the suit turned down is refused with a notice, never dropped."""
    table = plain_table(tmp_path)

    async def body() -> None:
        table.rulings.put_nowait(HandDealt(Card.parse("9H")))  # W deals, N bids first
        await until("the deal", lambda: table.game.phase is Phase.BIDDING)
        for seat in (N, E, S, W):
            table.devices.press(seat, SeatButton.PASS)
            await until(f"{seat.name} passed", lambda seat=seat: table.game.log[-1] == Passed(seat))
        table.devices.turn_cube(Suit.H)  # the suit turned down
        await until("the cube read hearts", lambda: table.cube_suit is Suit.H)
        table.devices.press(N, SeatButton.CALL)
        await until("a notice", lambda: bool(table.shown.notices))
        assert table.shown.notices[-1].seat == N
        assert table.game.log[-1] == Passed(W)  # nothing reached the rules
        table.devices.turn_cube(Suit.S)
        await until("the cube read spades", lambda: table.cube_suit is Suit.S)
        table.devices.press(N, SeatButton.CALL)
        await until("N's call", lambda: table.game.log[-1] != Passed(W))

    asyncio.run(running(table, body))
    assert table.game.log[-1] == TrumpCalled(N, Suit.S)
    assert table.game.trump is Suit.S


def test_a_touch_the_rules_refuse_is_answered_on_the_page(tmp_path: Path) -> None:
    table = plain_table(tmp_path)
    answers: list[Any] = []

    async def body() -> None:
        table.rulings.put_nowait(HandDealt(Card.parse("9H")))
        await until("the deal", lambda: table.game.phase is Phase.BIDDING)
        answers.append(await table.on_page({"event": "dealer_discarded", "seat": "W"}))
        answers.append(await table.on_page({"event": "passed", "seat": "N"}))

    asyncio.run(running(table, body))
    problem, fix = answers[0]
    assert "no discard is due" in problem and "now: North to pass or order up" in fix
    assert answers[1] is None


def test_an_event_the_log_cannot_take_is_undone(tmp_path: Path, monkeypatch: Any) -> None:
    table = plain_table(tmp_path)
    real_append = table.log.append

    def full(*args: Any, **kwargs: Any) -> None:
        raise LogError("the disk is full (failure injected by the test)")

    async def body() -> None:
        monkeypatch.setattr(table.log, "append", full)
        refusal = await table.apply(HandDealt(Card.parse("9H")), "director")
        assert refusal is not None and "could not record" in refusal[0]
        assert table.game.phase is Phase.DEALING  # the push was undone
        assert table.health.fault(Device.LOG) is not None
        monkeypatch.setattr(table.log, "append", real_append)
        assert await table.apply(HandDealt(Card.parse("9H")), "director") is None
        assert table.health.fault(Device.LOG) is None

    asyncio.run(running(table, body))
    assert logged(tmp_path / "table.sqlite")[0][-1] == HandDealt(Card.parse("9H"))


# --- faults ------------------------------------------------------------------------------


class GatedCamera(FrameSource):
    """A camera that stops giving pictures while ``gate`` is closed."""

    gate = threading.Event()

    def __init__(self, world: World) -> None:
        super().__init__()
        self.inner = WorldCamera(world)

    def _next(self) -> Frame | None:
        while not self.gate.wait(0.05):
            if self._closed:
                return None
        return self.inner.read()

    def calibration(self) -> Any:
        return self.inner.calibration()


@pytest.fixture
def gate() -> Iterator[threading.Event]:
    GatedCamera.gate = threading.Event()
    GatedCamera.gate.set()
    yield GatedCamera.gate
    GatedCamera.gate.set()


def faulty(table: Table, device: Device) -> bool:
    snapshot = table.sinks.snapshot or {}
    on_page = any(f["device"] == device.value for f in snapshot.get("faults", []))
    lights = table.devices.lights
    on_lights = lights is not None and SeatLight.DEVICE_FAULT in lights.shown
    return table.health.fault(device) is not None and on_page and on_lights


def well(table: Table, device: Device) -> bool:
    snapshot = table.sinks.snapshot or {}
    return table.health.fault(device) is None and not any(
        f["device"] == device.value for f in snapshot.get("faults", [])
    )


def test_faults_are_shown_logged_and_clear_themselves(
    tmp_path: Path, gate: threading.Event
) -> None:
    config = config_in(tmp_path, camera={"drift_check": 0.2}, table={"disk_min_free_mb": 100})
    world = World(effects=Effects())
    free = [10**12]
    options = TableOptions(
        camera=lambda: GatedCamera(world),
        serve_page=False,
        disk_free=lambda _path: free[0],
        check_every=0.05,
    )
    table = Table(config, options)

    async def body() -> None:
        await until(
            "the cube connected",
            lambda: table.devices.cube is not None and table.devices.cube.is_connected,
        )
        await until("all well", lambda: table.health.ok)
        # The camera stops giving pictures, then comes back.
        gate.clear()
        await until("the camera fault", lambda: faulty(table, Device.CAMERA))
        gate.set()
        await until("the camera back", lambda: well(table, Device.CAMERA))
        # The cube is unplugged, then plugged back in.
        emulator = table.devices.emulator
        assert emulator is not None
        emulator.unplug()
        await until("the cube fault", lambda: faulty(table, Device.CUBE))
        emulator.plug_in()
        await until("the cube back", lambda: well(table, Device.CUBE))
        # The disk fills up, then has room again.
        free[0] = 5 * 1024 * 1024
        await until("the disk fault", lambda: faulty(table, Device.DISK))
        fault = table.health.fault(Device.DISK)
        assert fault is not None and "5 MB free, under 100 MB" in fault.problem
        free[0] = 10**12
        await until("the disk well", lambda: well(table, Device.DISK))
        # Someone knocks the camera: the mat's corner markers move in the picture.
        world.camera = replace(world.camera, position=(25.0, 60.0, 1000.0))
        await until("the calibration fault", lambda: faulty(table, Device.CALIBRATION))
        fault = table.health.fault(Device.CALIBRATION)
        assert fault is not None and "moved since the calibration" in fault.problem
        world.camera = Camera()
        await until("the calibration well", lambda: well(table, Device.CALIBRATION))
        await until(
            "the lights calm",
            lambda: (
                table.devices.lights is not None
                and SeatLight.DEVICE_FAULT not in table.devices.lights.shown
            ),
        )

    asyncio.run(running(table, body))
    with EventLog.open_existing(config.log) as log:
        faults = log.faults()
    for device in ("camera", "cube", "disk", "calibration"):
        rows = [f for f in faults if f[1] == device]
        assert rows and rows[0][2] is not None, f"{device} raised in the log"
        assert rows[-1][2] is None, f"{device} cleared in the log"


# --- resume --------------------------------------------------------------------------------


def test_the_table_resumes_mid_hand_where_it_was(tmp_path: Path) -> None:
    config = demo_config(tmp_path)
    first = simulated_table(config, seed=5, pace=FAST, serve_page=False)

    def stop_mid_trick(event: InputEvent, outputs: list[OutputEvent]) -> None:
        trick = first.game.current_trick
        if first.game.phase is Phase.PLAYING and trick is not None and len(trick.plays) == 2:
            assert first._stop is not None
            first._stop.set()

    first.on_step = stop_mid_trick
    asyncio.run(asyncio.wait_for(first.run(), GUARD))
    assert first.game.phase is Phase.PLAYING
    before = first.game.state_key()
    lights_before = first.sinks.shown_lights
    cube_before = first.sinks.shown_cube

    second = simulated_table(config, seed=5, pace=FAST, serve_page=False)
    assert second.game.state_key() == before  # replayed from the log, mid-trick
    assert second.game.log == first.game.log
    seen: dict[str, Any] = {}

    async def body() -> None:
        # The lights and the cube are driven again, as they were.
        lights = second.devices.lights
        cube = second.devices.cube
        assert lights is not None and cube is not None
        seen["lights"] = lights.shown
        cube.wait_shown(10)
        seen["cube"] = cube.shown
        # And the game goes on from there to the hand's end.
        await until("the hand scored", lambda: second.hands_played >= 1)

    asyncio.run(asyncio.wait_for(running(second, body), GUARD * 2))
    assert seen["lights"] == lights_before
    assert seen["cube"] == cube_before
    events, _ = logged(config.log)
    assert events[: len(first.game.log)] == first.game.log
    assert Game.replay(preset("td-tournament"), events).state_key() == second.game.state_key()


# --- the command -----------------------------------------------------------------------


def test_run_with_a_bad_config_says_what_is_wrong(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "table.toml"
    bad.write_text('[table]\nname = "T"\ngpio = "sometimes"\n[rules]\npreset = "whist"\n')
    assert main(["run", "--config", str(bad)]) == 2
    err = capsys.readouterr().err
    assert str(bad) in err and "rules.preset" in err and "table.gpio" in err


def test_run_with_a_missing_config(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--config", str(tmp_path / "none.toml")]) == 2
    assert "none.toml" in capsys.readouterr().err


# --- a recorded session, replayed through the same path -------------------------------


def test_a_recorded_session_replays_to_the_same_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    recording = tmp_path / "session"
    live = tmp_path / "live"
    argv = ["demo", "--fast", "--hands", "1", "--seed", "4", "--log-dir", str(live)]
    assert main([*argv, "--record", str(recording)]) == 0
    told = capsys.readouterr().out
    assert "Trick 5:" in told and (recording / "inputs.jsonl").read_text()
    replay_log = tmp_path / "replay.sqlite"
    assert main(["replay", "--video", str(recording), "--log", str(replay_log)]) == 0
    retold = capsys.readouterr().out
    tricks = [line for line in told.splitlines() if line.strip().startswith("Trick ")]
    assert tricks and tricks == [s for s in retold.splitlines() if s.strip().startswith("Trick ")]
    live_events, _ = logged(live / "demo.sqlite")
    replayed_events, evidence = logged(replay_log)
    assert replayed_events[: len(live_events)] == live_events
    assert any(evidence)


def test_replay_video_of_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "--video", str(tmp_path / "missing")]) == 2
    assert "does not exist" in capsys.readouterr().err
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["replay", "--video", str(empty)]) == 2
    assert "no pictures in" in capsys.readouterr().err


# --- the demo's own folder and seeds -----------------------------------------------------


def test_the_demo_keeps_its_logs_in_one_folder_and_prunes_the_oldest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from table_controller.table.run_cli import DEMO_LOGS_KEPT, demo_folder

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    folder = demo_folder(dict(os.environ))
    assert folder == tmp_path / "state" / "table-controller" / "demo"
    folder.mkdir(parents=True)
    for i in range(DEMO_LOGS_KEPT + 2):  # older runs' logs, oldest first
        old = folder / f"demo-2026010{i % 10}-00000{i}-{i}.sqlite"
        old.write_bytes(b"")
        (folder / (old.name + "-wal")).write_bytes(b"")
        os.utime(old, (1_000_000 + i, 1_000_000 + i))
    assert main(["demo", "--fast", "--hands", "1", "--seed", "7"]) == 0
    told = capsys.readouterr().out
    assert "Seed 7 (`--seed 7` plays the same games again)" in told
    logs = sorted(folder.glob("demo-*.sqlite"))
    assert len(logs) == DEMO_LOGS_KEPT
    assert not (folder / "demo-20260100-000000-0.sqlite").exists()
    assert not (folder / "demo-20260100-000000-0.sqlite-wal").exists()
    newest = max(logs, key=lambda p: p.stat().st_mtime)
    assert newest.name.endswith("-7.sqlite") and f"log export {newest} --sheet" in told


def test_each_game_of_a_demo_has_players_of_its_own_seed(tmp_path: Path) -> None:
    from table_controller.table.config import demo_config
    from table_controller.table.simulated import simulated_table

    table = simulated_table(demo_config(tmp_path), seed=3)
    assert table.new_players is not None
    draws = [table.new_players().rng.random() for _ in range(3)]
    assert len(set(draws)) == 3
    again = simulated_table(demo_config(tmp_path / "again"), seed=3)
    assert again.new_players is not None
    assert [again.new_players().rng.random() for _ in range(3)] == draws
