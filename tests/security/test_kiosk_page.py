"""Attacks on the kiosk's page (issue 14), against a real kiosk table (bots at N, E, W)
with its page served by uvicorn on a loopback port: the director's events need the
operator's PIN, and nothing a foreign web page can send gets in."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from security.test_table_page import PIN, PIN_HASH, Running, quiet_never, refused_and_logged
from table_controller.kiosk.kiosk import KioskTable
from table_controller.rules.events import ScoreAdjusted
from table_controller.seats import Team
from table_controller.sim import World, WorldCamera
from table_controller.table.config import parse_config
from table_controller.table.options import TableOptions
from table_controller.vision.synthetic import Effects

__all__ = ["quiet_never"]  # the fixture, shared


def kiosk(folder: Path) -> Running:
    data: dict[str, Any] = {
        "table": {"name": "Kiosk", "gpio": "mock", "log": "kiosk.sqlite"},
        "camera": {"source": "synthetic", "lost_after": 60.0, "drift_check": 0},
        "cube": {"port": "none"},
        "web": {"port": 0},
        "kiosk": {"visitors": ["S"], "bot_level": "rule-of-thumb", "pin_hash": PIN_HASH},
    }
    config = parse_config(data, folder, "<kiosk security test>")
    world = World(effects=Effects())
    options = TableOptions(camera=lambda: WorldCamera(world, fps=5.0, realtime=True))
    table = KioskTable(config, options, seed=1, attract=False)
    return Running(table)


@pytest.fixture
def running(tmp_path: Path, quiet_never: None) -> Iterator[Running]:
    server = kiosk(tmp_path)
    yield server
    server.close()


SCORE = json.dumps({"event": "score_adjusted", "team": "EW", "points": 3, "reason": "x"})


def test_the_kiosk_takes_no_score_adjusted_without_its_pin(
    running: Running, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    answer = running.send("/api/input", SCORE)
    refused_and_logged(running, caplog, answer, 403, "score_adjusted is the director's")
    answer = running.send("/api/input", SCORE, kind="text/plain")
    refused_and_logged(running, caplog, answer, 415, "not application/json")
    # Nor the operator's panel from a foreign page: no guessing the PIN, no exit.
    exit_kiosk = json.dumps({"event": "kiosk_pin", "pin": PIN, "do": "exit"})
    answer = running.send("/api/input", exit_kiosk, kind="text/plain")
    refused_and_logged(running, caplog, answer, 415, "not application/json")
    answer = running.send("/api/input", exit_kiosk, origin="http://evil.example")
    refused_and_logged(running, caplog, answer, 403, "another site's page")
    assert running.table.game.team_scores() == (0, 0) and not running.table.kiosk.exited


def test_the_kiosk_s_own_touches_and_its_operator_still_work(running: Running) -> None:
    assert running.send("/api/input", json.dumps({"event": "kiosk_touch"}))[0] == 200
    # The kiosk's PIN makes the page's operator too (no [web] operator_pin_hash here).
    code, _, headers = running.send("/api/operator/login", json.dumps({"pin": PIN}))
    assert code == 200
    cookie = headers["set-cookie"].split(";")[0].split("=", 1)[1]
    code, reply, _ = running.send("/api/input", SCORE, cookie=cookie)
    assert (code, reply) == (200, {"ok": True})
    assert running.table.game.log[-1] == ScoreAdjusted(Team.EW, 3, "x")
    assert running.table.game.team_scores() == (0, 3)
