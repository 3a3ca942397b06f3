"""`table-controller kiosk --simulated` says what it runs: with ``--no-visitor`` nobody
sits at the visitor's seat and the bots play the attract mode's demo in all four seats
(it used to say "a simulated visitor plays real cards at S" all the same)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from table_controller.kiosk.kiosk_cli import simulated_banner, simulated_config
from table_controller.kiosk.visitor import simulated_kiosk

ROOT = Path(__file__).resolve().parent.parent


def _start(args: list[str]) -> tuple[subprocess.Popen[str], str, str]:
    """The real command, until it prints its page's address: (process, what it said, url)."""
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen(
        [sys.executable, "-m", "table_controller", "kiosk", *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert proc.stdout is not None
    said = ""
    for line in proc.stdout:
        said += line
        found = re.search(r"The table page: (http://\S+)", line)
        if found:
            return proc, said, found.group(1)
    proc.wait()
    raise AssertionError(f"the kiosk stopped before it served its page:\n{said}")


def _stop(proc: subprocess.Popen[str]) -> str:
    proc.send_signal(signal.SIGINT)
    rest, _ = proc.communicate(timeout=120)
    assert proc.returncode == 0, rest
    return rest


@pytest.mark.slow(budget=60)
def test_no_visitor_says_the_bots_play_every_seat_and_they_do(
    tmp_path: Path, browser: Browser
) -> None:
    proc, said, url = _start(["--simulated", "--no-visitor", "--fast", "--log-dir", str(tmp_path)])
    try:
        text = " ".join(said.split())
        assert "simulated visitor" not in text
        assert "with no visitor: nobody sits at South" in text
        assert "bots in all four seats play demo hands" in text
        assert "The operator's PIN is 2468. Ctrl-C stops it." in text
        # What the page shows is what the words said: the demo, a bot in every seat.
        page = browser.new_page()
        page.goto(url)
        attract = page.locator("#attract")
        expect(attract).to_be_visible()
        expect(attract).to_contain_text("Touch to play")
        expect(page.locator("#felt .slot .card").first).to_be_visible()  # the demo plays
        for name in ("North", "East", "South", "West"):
            seat = page.locator(".seat", has_text=name)
            expect(seat.get_by_text("BOT", exact=True)).to_be_visible()
        page.close()
    finally:
        rest = _stop(proc)
    assert "The log:" in rest


def test_with_a_visitor_it_says_where_the_visitor_sits(tmp_path: Path) -> None:
    config = simulated_config(tmp_path)
    table, _, people = simulated_kiosk(config, visitors=True)
    try:
        text = " ".join(simulated_banner(config, visitor=True).split())
        assert sorted(s.name for s in people) == ["S"] and table.players is not None
        assert "a simulated visitor plays real cards at South, bots play North, East and West" in (
            text
        )
    finally:
        table.log.close()
    table, _, _ = simulated_kiosk(config, visitors=False)
    try:
        assert table.players is None  # --no-visitor: nobody plays the visitor's seat
    finally:
        table.log.close()
