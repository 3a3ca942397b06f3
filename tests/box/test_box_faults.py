"""The box's faults that stop the table itself: its processes killed (systemd restarts
it), and the machine's power cut mid-game (nothing acknowledged is lost)."""

from __future__ import annotations

import json
import shlex
import time

import pytest
from box_machine import FIGURES, Box
from box_table import LOG, club_table, run_club_table, service_use, serving

# Minutes with cached builds; a first run builds the kernel and the image too.
pytestmark = [pytest.mark.slow(budget=1800), pytest.mark.timeout(5400)]


def test_the_table_killed_is_restarted_by_systemd(box: Box) -> None:
    """The table's processes killed at once (SIGKILL, as the kernel's OOM killer or a
    crash would): systemd starts it again by itself, and its page answers again."""
    before = box.unit_facts("table-controller")
    started = time.monotonic()
    assert box.ssh("sudo systemctl kill --signal=KILL table-controller").returncode == 0

    def restarted() -> bool:
        facts = box.unit_facts("table-controller")
        return (
            int(facts["NRestarts"]) > int(before["NRestarts"])
            and facts["ActiveState"] == "active"
            and facts["MainPID"] not in ("0", before["MainPID"])
        )

    box.wait_for("the table started again by systemd", restarted, within=300)
    box.wait_for("the table's page after the restart", lambda: serving(box), within=300)
    FIGURES.append(
        f"the table killed (SIGKILL) to its page again: {time.monotonic() - started:.0f} s"
    )


def test_a_power_cut_mid_game_loses_nothing_acknowledged(fast_table: Box) -> None:
    """The simulated table plays a game by itself; each event it has put on disk it
    acknowledges (TABLE_CONTROLLER_ACK=1: 'ack GAME SEQ EVENT' in its journal), read here
    as it comes. The machine's power is cut (QEMU killed) mid-game; after the boot the
    table resumes from its log, which holds every acknowledged event as acknowledged."""
    box = fast_table  # at its fast pace: under emulation the demo's takes minutes a card
    box.sudo_write(
        "/etc/systemd/system/table-controller.service.d/box-ack.conf",
        "[Service]\nEnvironment=TABLE_CONTROLLER_ACK=1\n",
    )
    assert box.ssh("sudo systemctl daemon-reload").returncode == 0
    run_club_table(box, club_table(simulated=True))

    acked: list[tuple[int, int, object]] = []
    follow = box.follow("journalctl -u table-controller -f -n 0 -o cat")
    try:
        limit = time.monotonic() + 900
        assert follow.stdout is not None
        for line in follow.stdout:
            if line.startswith("ack "):
                _, game_text, seq_text, event = line.rstrip("\n").split(" ", 3)
                acked.append((int(game_text), int(seq_text), json.loads(event)))
            if len(acked) >= 4:
                break
            assert time.monotonic() < limit, f"only {len(acked)} events acknowledged in 900 s"
        FIGURES.append(f"the simulated table's service (playing): {service_use(box)}")
        box.kill_power()
    finally:
        follow.kill()
        follow.wait()
    cut = time.monotonic()

    box.start()
    box.wait_for("the table started after the power cut", lambda: serving(box), within=600)
    FIGURES.append(
        f"power cut mid-game to the table's page again: {time.monotonic() - cut:.0f} s "
        f"({len(acked)} events acknowledged before the cut)"
    )
    resumed = box.ssh("journalctl -b -u table-controller -o cat | grep '^state ' | head -1")
    _, game_text, next_text, _digest = resumed.stdout.split()
    at = (int(game_text), int(next_text))
    for g, seq, _event in acked:
        assert (g, seq) < at, f"ack {g} {seq} is past where the table resumed ({at})"
    script = (
        "import json, sqlite3, sys\n"
        f"db = sqlite3.connect('file:{LOG}?mode=ro', uri=True)\n"
        "rows = db.execute('SELECT game, seq, event FROM events').fetchall()\n"
        "print(json.dumps([[g, s, json.loads(e)] for g, s, e in rows]))\n"
    )
    logged = box.ssh(f"sudo python3 -c {shlex.quote(script)}")
    assert logged.returncode == 0, logged.stderr
    kept = {(g, s): e for g, s, e in json.loads(logged.stdout)}
    lost = [(g, s) for g, s, e in acked if kept.get((g, s)) != e]
    assert lost == [], f"acknowledged but not in the log as acknowledged after the cut: {lost}"
