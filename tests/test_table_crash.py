"""kill -9 the running table at random moments; nothing it acknowledged is ever lost.

The simulated table runs as its own process (`table-controller run --config demo.toml
--ack-stdout --fast`): it prints "state GAME NEXT_SEQ DIGEST" where it resumed, then
"ack GAME SEQ EVENT" once an event is on disk. The test kills it with SIGKILL at random
moments (at start, mid-frame, mid-write), starts it again, and checks after every kill
that each acknowledged event is in the log, in its place, that the log replays, that
the restarted table's state is exactly that replay (the state's digest), and that the
table carries the game on from there.
"""

from __future__ import annotations

import json
import queue
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from table_controller.event_log import EventLog
from table_controller.rules.codec import decode_input
from table_controller.rules.game import Game, Phase
from table_controller.rules.presets import preset
from table_controller.table.config import demo_config, to_toml

KILLS = 20
GUARD = 120.0  # seconds a run may take to acknowledge anything: only against a hang
EXE = Path(sys.executable).parent / "table-controller"


class Run:
    """One table process and the acks it printed."""

    def __init__(self, config: Path) -> None:
        self.proc = subprocess.Popen(
            [str(EXE), "run", "--config", str(config), "--ack-stdout", "--fast"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.acks: queue.Queue[tuple[int, int, dict[str, object]]] = queue.Queue()
        self.state: tuple[int, int, str] | None = None  # where it resumed
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if line.startswith("ack "):
                _, game, seq, event = line.rstrip("\n").split(" ", 3)
                self.acks.put((int(game), int(seq), json.loads(event)))
            elif line.startswith("state "):
                _, game, seq, digest = line.split()
                self.state = (int(game), int(seq), digest)

    def wait_acks(self, count: int) -> list[tuple[int, int, dict[str, object]]]:
        got = []
        deadline = time.monotonic() + GUARD
        while len(got) < count:
            try:
                got.append(self.acks.get(timeout=0.1))
            except queue.Empty:
                assert self.proc.poll() is None, self._died()
                assert time.monotonic() < deadline, "the table acknowledged nothing"
        return got

    def kill(self) -> list[tuple[int, int, dict[str, object]]]:
        """SIGKILL (unless it died already: its own error is the one to show); the acks
        printed before it."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=30)
        self._reader.join(timeout=10)
        rest = []
        while not self.acks.empty():
            rest.append(self.acks.get_nowait())
        return rest

    def _died(self) -> str:
        err = self.proc.stderr.read() if self.proc.stderr else ""
        return f"the table exited ({self.proc.returncode}): {err}"


@pytest.mark.slow(budget=60)  # 20 table processes started and killed
def test_nothing_acknowledged_is_lost_across_kill_9(tmp_path: Path) -> None:
    config = demo_config(tmp_path)
    path = tmp_path / "demo.toml"
    path.write_text(to_toml(config))
    rng = random.Random(1234)
    acked: dict[tuple[int, int], dict[str, object]] = {}
    progress: list[int] = []
    before: dict[int, int] = {}  # game -> events logged before this run
    rules = config.rules
    expected = (1, 1, Game(rules).state_digest())  # where the next run must resume
    resumed = 0
    for kill in range(KILLS):
        run = Run(path)
        taken: list[tuple[int, int, dict[str, object]]] = []
        try:
            # A random moment: while starting (opening the log, replaying it,
            # calibrating), or after a few acks and a pause (mid-frame, mid-write).
            if kill % 4 == 0:
                time.sleep(rng.uniform(0.0, 3.0))
            else:
                taken = run.wait_acks(rng.randint(1, 6))
                time.sleep(rng.uniform(0.0, 0.4))
        finally:
            taken += run.kill()
        if run.state is not None:  # printed unless killed while starting
            assert run.state == expected, f"run {kill} resumed at {run.state}, not {expected}"
            resumed += 1
        if taken:  # the restarted table went on right after the last logged event
            game, seq, _ = taken[0]
            assert seq == before.get(game, 0) + 1, (game, seq, before)
        for game, seq, event in taken:
            assert (game, seq) not in acked, f"game {game} event {seq} acknowledged twice"
            acked[(game, seq)] = event
        # Every acknowledged event is in the log, in its place; the log replays.
        if not config.log.exists():
            assert not acked, "acknowledged, and no log"
            continue
        with EventLog.open_existing(config.log) as log:
            games = {g.game: g for g in log.games()}
            logged = {(g, e.seq): e.event for g in games for e in log.events(g)}
            for key, event in acked.items():
                assert key in logged, f"acknowledged game {key[0]} event {key[1]} was lost"
                assert logged[key] == decode_input(event)
            last = max(games)
            events = [e.event for e in log.events(last)]
            record = games[last]
        # At most the one event written but not yet acknowledged when the kill came.
        unacked = [k for k in logged if k not in acked]
        assert len(unacked) <= 1 + kill, unacked
        rules = preset(record.rules_name, record.options)
        replayed = Game.replay(rules, events)
        if replayed.phase is Phase.OVER:  # the next run starts the next game
            expected = (last + 1, 1, Game(rules).state_digest())
        else:
            expected = (last, len(events) + 1, replayed.state_digest())
        progress.append(len(logged))
        before = {}
        for g, _seq in logged:
            before[g] = before.get(g, 0) + 1
    # The table carried the game on across the restarts.
    assert progress[-1] > progress[0]
    assert progress == sorted(progress)
    assert len(acked) >= KILLS
    assert resumed >= KILLS // 2


def test_sigterm_stops_the_table_cleanly(tmp_path: Path) -> None:
    config = demo_config(tmp_path)
    path = tmp_path / "demo.toml"
    path.write_text(to_toml(config))
    run = Run(path)
    taken = run.wait_acks(3)
    run.proc.send_signal(signal.SIGTERM)
    assert run.proc.wait(timeout=30) == 0, run._died()
    run._reader.join(timeout=10)
    while not run.acks.empty():
        taken.append(run.acks.get_nowait())
    with EventLog.open_existing(config.log) as log:
        events = [(1, e.seq, e.event) for e in log.events(1)]
    assert [(g, s, decode_input(e)) for g, s, e in taken] == events
