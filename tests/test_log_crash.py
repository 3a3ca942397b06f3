"""The log survives a writer killed at any moment (SIGKILL, no clean-up): every event it
acknowledged is there, at most one more per game, and every game replays cleanly.

A child process (tests/log_writer.py) plays random games into a real SQLite log and
prints a line after each append returns; the test kills it at random moments, reopens
the log and holds it to every line printed. Each new child resumes the last game.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from table_controller.event_log import EventLog
from table_controller.rules.codec import decode_input
from table_controller.rules.game import Game
from table_controller.rules.presets import preset

WRITER = Path(__file__).with_name("log_writer.py")
KILLS = 30


def _run_and_kill(log: Path, seed: int, rng: random.Random) -> list[str]:
    """Start a writer and kill it with SIGKILL after a random number of its lines (so the
    test does not depend on the machine's speed) plus a random instant, or sometimes while
    it is still starting; return every whole line it printed."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1])}
    child = subprocess.Popen(
        [sys.executable, str(WRITER), str(log), str(seed)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
    )
    assert child.stdout is not None
    lines: list[str] = []
    if rng.random() < 0.1:
        time.sleep(rng.uniform(0.0, 0.2))  # maybe while it is still starting up
    else:
        for _ in range(rng.randint(1, 300)):
            line = child.stdout.readline()
            assert line.endswith("\n"), line + _drain(child)[1]  # it is still writing
            lines.append(line[:-1])
        assert lines[0] == "opened", lines[0]
        time.sleep(rng.uniform(0.0, 0.005))  # anywhere within an append
    child.send_signal(signal.SIGKILL)
    rest, err = _drain(child)
    assert child.returncode == -signal.SIGKILL, err  # it was still writing, not crashed
    # A line cut off by the kill was never acknowledged in full: drop it.
    return lines + rest.split("\n")[:-1]


def _drain(child: subprocess.Popen[str]) -> tuple[str, str]:
    """Wait for the child, then read the rest of its output through the same buffered
    readers ``readline()`` used: ``communicate()`` reads the raw pipes and would miss the
    lines already buffered in ``child.stdout``, so acknowledged events went uncounted."""
    child.wait()
    assert child.stdout is not None and child.stderr is not None
    # The child is gone, so each pipe ends: reading one and then the other cannot block.
    return child.stdout.read(), child.stderr.read()


@pytest.mark.slow(budget=40)  # 30 writer processes started and killed
def test_every_acknowledged_event_survives_sigkill(tmp_path: Path) -> None:
    log_path = tmp_path / "crash.sqlite"
    rng = random.Random(20240517)
    acked: dict[tuple[int, int], dict[str, object]] = {}
    last_ack: dict[int, int] = {}
    started: set[int] = set()
    length: dict[int, int] = {}  # each game's length in the log at the last check
    for kill in range(KILLS):
        touched: set[int] = set()
        for line in _run_and_kill(log_path, kill, rng):
            word, *rest = line.split(" ", 3)
            if word == "acked":
                game, seq = int(rest[0]), int(rest[1])
                acked[game, seq] = json.loads(rest[2])
                last_ack[game] = max(last_ack.get(game, 0), seq)
                touched.add(game)
            elif word == "game":
                started.add(int(rest[0]))
                touched.add(int(rest[0]))
        if log_path.exists():  # after every kill, not only the last: each is a crash
            _check(log_path, acked, last_ack, started, length, touched)
    _check(log_path, acked, last_ack, started, length, None)
    print(f"{len(acked)} events acknowledged in {len(started)} games")
    assert len(acked) > 200, "the writer hardly wrote: the test proved little"
    assert len(last_ack) >= 2, "no game was resumed or started after a kill"


def _check(
    path: Path,
    acked: dict[tuple[int, int], dict[str, object]],
    last_ack: dict[int, int],
    started: set[int],
    length: dict[int, int],
    only: set[int] | None,
) -> None:
    """Hold the log to the acknowledgements: the games in ``only`` (None: all).
    ``length`` is each game's length at the previous check, updated here."""
    with EventLog.open_existing(path) as log:
        assert log.integrity_problems() == []
        games = {g.game: g for g in log.games()}
        assert started <= set(games)
        for number, record in games.items():
            if only is not None and number not in only and number != max(games):
                continue
            events = log.events(number)
            seqs = [e.seq for e in events]
            assert seqs == list(range(1, len(seqs) + 1)), "gaps in the sequence"
            for e in events:
                if (number, e.seq) in acked:
                    assert e.event == decode_input(acked[number, e.seq])
            # every acknowledged event is there; at most one more than was acknowledged
            # or already there (the writer killed between an append and its line)
            assert len(seqs) >= last_ack.get(number, 0)
            assert len(seqs) <= max(last_ack.get(number, 0), length.get(number, 0)) + 1
            length[number] = len(seqs)
            # and the game replays cleanly under its rules
            Game.replay(preset(record.rules_name, record.options), [e.event for e in events])
