"""The Pi in a box: a release whose start fails goes back to the one before, on the booted
machine, through the fleet unit's own rollback (hardware/table-controller-fleet.service:
its ``update boot`` before each start and its ``update guard`` around the table).

The box's table is a fleet's, as first-boot.sh leaves it, running release 0.1.0 (this
checkout, as the card's copy). A new release is made as the director makes one: this
checkout built as a wheel (``pip wheel``, docs/fleet.md) with a higher version, and a fault
written into its code, a real one the release's own start test cannot see (that test only
imports the package and its command line): the fleet's run module imports a name that
does not exist (a crash at its start), or waits for something that never comes (a hang).
In the box it is put in place as the table's update agent puts it
(table_controller/table/fleet/update_agent.py): as the service's user, every check of
``update.prepare`` (checksum, the packages it needs, its start test), the install with
``Releases.install`` into ``/opt/table-controller/releases/VERSION``, ``prune``, then
``switch_for_restart``; then the restart the agent asks of systemd by its exit status 75,
here ``systemctl restart`` (the table's own exit cannot be caused from outside). Then
systemd is watched as it starts the new release, sees it fail and starts the one before.
"""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from box_machine import FIGURES, ROOT, Box
from box_table import as_first_boot_left
from packaging.version import Version

import table_controller

pytestmark = [pytest.mark.slow(budget=1800), pytest.mark.timeout(5400)]

OPT = "/opt/table-controller"
UNIT = "table-controller"
RUNNING = table_controller.__version__  # what first-boot.sh installed from this checkout
UNIT_FILE = ROOT / "hardware" / "table-controller-fleet.service"
DROP_INS = f"/etc/systemd/system/{UNIT}.service.d"

# The faults, each written into the release's table_controller/table/fleet/run.py (the
# module a fleet's table imports first at its start, and its start test does not): the
# line it follows, and what is added after it.
RUN_MODULE = "table_controller/table/fleet/run.py"
CRASH = (
    "from table_controller.table.fleet.settings import (\n",
    "    FleetSettings,  # the release's fault: settings.py has no such name\n",
)
HANG = (
    "from typing import TYPE_CHECKING, TextIO\n",
    "threading.Event().wait()  # the release's fault: it waits for what never comes\n",
)


def next_version(step: int) -> str:
    """A version above the running one (its micro number ``step`` higher)."""
    major, minor, micro = [*Version(RUNNING).release, 0, 0][:3]
    return f"{major}.{minor}.{micro + step}"


def broken_release(work: Path, version: str, fault: tuple[str, str]) -> Path:
    """This checkout as the wheel of ``version``, built as docs/fleet.md builds a release
    (``pip wheel --no-deps --no-build-isolation``), with ``fault`` in its fleet run module."""
    src = work / f"src-{version}"
    shutil.rmtree(src, ignore_errors=True)
    src.mkdir(parents=True)
    for name in ("pyproject.toml", "setup.py", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, src / name)
    skip = shutil.ignore_patterns("__pycache__", "*.so", "*.egg-info")
    shutil.copytree(ROOT / "table_controller", src / "table_controller", ignore=skip)
    shutil.copytree(ROOT / "firmware", src / "firmware", ignore=skip)
    init = src / "table_controller" / "__init__.py"
    text = init.read_text()
    assert f'__version__ = "{RUNNING}"' in text
    init.write_text(text.replace(f'__version__ = "{RUNNING}"', f'__version__ = "{version}"'))
    module = src / RUN_MODULE
    after, added = fault
    text = module.read_text()
    assert after in text, f"{RUN_MODULE} has changed ({after!r} is gone): update this test"
    module.write_text(text.replace(after, after + added, 1))
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(work / "dist"), str(src)],
        capture_output=True, text=True, timeout=600, cwd=work,
    )  # fmt: skip
    assert done.returncode == 0, f"building the release's wheel failed: {done.stderr}"
    [wheel] = (work / "dist").glob(f"table_controller-{version}-*.whl")
    return wheel


# As the agent does it (update_agent.UpdateAgent._work), as the service's user, with the
# set-up copy's Python (-I: the code that judges, never a release): every check and the
# install, then the switch. Its last line: the version switched to.
AS_THE_AGENT = """
import sys, time
from pathlib import Path
from table_controller.fleet import update
releases = update.Releases(Path(sys.argv[1]))
wheel = Path(sys.argv[2])
w = update.prepare(releases, wheel, sha256=sys.argv[3])
wheel.unlink()
releases.prune()
update.switch_for_restart(releases, w.version, order="box-release", now=time.time())
print(w.version)
"""


def switch_to(box: Box, wheel: Path) -> str:
    """``wheel`` fetched into the table's downloads folder (owned by its user, as the
    agent's download leaves it), checked, installed and switched to as the agent does."""
    inside = f"{OPT}/downloads/{wheel.name}"
    sent = subprocess.run(
        ["bash", str(ROOT / "hardware/box/box.sh"), "ssh", str(box.folder),
         f"sudo -u euchre mkdir -p {OPT}/downloads && sudo -u euchre tee {inside} >/dev/null"],
        input=wheel.read_bytes(), capture_output=True, timeout=300,
    )  # fmt: skip
    assert sent.returncode == 0, f"copying the wheel into the box failed: {sent.stderr!r}"
    from table_controller.fleet.update import sha256_of

    done = box.ssh(
        f"cd {OPT} && sudo -u euchre .venv/bin/python -I -c {shlex.quote(AS_THE_AGENT)}"
        f" {OPT} {inside} {sha256_of(wheel)}",
        timeout=900,
    )
    assert done.returncode == 0, f"the release was refused:\n{done.stdout}\n{done.stderr}"
    return done.stdout.strip().splitlines()[-1]


def cursor(box: Box) -> str:
    """Where the unit's journal ends now: what is said after it is this test's."""
    text = box.ssh(f"journalctl -u {UNIT} -n 1 --show-cursor -o cat --no-pager").stdout
    lines = [line for line in text.splitlines() if line.startswith("-- cursor: ")]
    assert lines, f"no journal cursor: {text!r}"
    return lines[-1].removeprefix("-- cursor: ")


def journal(box: Box, after: str) -> str:
    """What ``journalctl -u table-controller`` shows a person since ``after``."""
    return box.ssh(
        f"journalctl -u {UNIT} --after-cursor={shlex.quote(after)} -o cat --no-pager",
        timeout=120,
    ).stdout


def current(box: Box) -> str:
    return box.ssh(f"readlink {OPT}/current").stdout.strip()


def releases_status(box: Box) -> dict[str, object]:
    """The table's releases as a person reads them (`update status`, docs/fleet.md)."""
    done = box.ssh(
        f"cd {OPT} && sudo -u euchre .venv/bin/python -I -m table_controller.fleet.update"
        f" status --root {OPT}"
    )
    assert done.returncode == 0, done.stderr
    found: dict[str, object] = json.loads(done.stdout)
    return found


def table_runs(box: Box) -> str:
    """The release the table's process runs: the folder its PYTHONPATH names, resolved
    (the guard's child, the table itself; empty while there is none)."""
    script = (
        "main=$(systemctl show -p MainPID --value table-controller);"
        ' child=$(pgrep -P $main | head -1); [ -n "$child" ] || exit 0;'
        " path=$(sudo cat /proc/$child/environ | tr '\\0' '\\n' | sed -n 's/^PYTHONPATH=//p');"
        ' readlink -f "$path"'
    )
    return box.ssh(script).stdout.strip()


def page_answers(box: Box) -> bool:
    """The table's page (a joining table's: its join page) answers in the box."""
    done = box.ssh("curl -sk -o /dev/null -w '%{http_code}' --max-time 20 https://127.0.0.1:8080/")
    return done.stdout.strip() == "200"


def back_on(box: Box, version: str, since: str) -> bool:
    """The table went back: its check said so, and it serves its page from ``version``."""
    return (
        "did not come up" in journal(box, since)
        and box.ssh(f"systemctl is-active {UNIT}").stdout.strip() == "active"
        and table_runs(box) == f"{OPT}/releases/{version}"
        and page_answers(box)
    )


def table_up(box: Box) -> None:
    """The box's table a fleet's, as first-boot.sh left it (the box's other tests run a
    club's table on it), serving its page on the release first-boot.sh installed."""
    as_first_boot_left(box)
    box.wait_for("the table's page", lambda: page_answers(box), within=600)
    assert current(box) == f"releases/{RUNNING}"


def test_a_release_that_crashes_at_its_start_goes_back_to_the_one_before(
    box: Box, tmp_path: Path
) -> None:
    """The new release's fleet module imports a name that does not exist: its start
    test passes (the package and its command line import), then at the table's start it
    crashes (ImportError). systemd sees the unit fail and starts it again; the unit's
    `update boot` finds the update still pending on this second start and goes back. The
    table then serves its page from the release before, `current` names it, `previous` does
    not name the failed one, and the journal says in words which release failed, how, and
    what runs now. With the unit's check before start removed (a drop-in with an empty
    ``ExecStartPre=``), this fails: checked by hand, the broken release was started 19
    times in 7 minutes, ``current`` still named it and the wait for the page ran out."""
    table_up(box)
    wheel = broken_release(tmp_path, next_version(1), CRASH)
    before = box.unit_facts(UNIT)
    since = cursor(box)
    started = time.monotonic()
    version = switch_to(box, wheel)
    FIGURES.append(
        "a release fetched into the box, checked, installed and given its start test as the "
        f"update agent does (pip install --target, TCG): {time.monotonic() - started:.0f} s"
    )
    assert version == next_version(1)
    assert current(box) == f"releases/{version}"
    switched = time.monotonic()
    assert box.ssh(f"sudo systemctl restart --no-block {UNIT}").returncode == 0

    box.wait_for("the table back on its release before", lambda: back_on(box, RUNNING, since), 900)
    seconds = time.monotonic() - switched
    said = journal(box, since)
    assert f"starting version {version} for the first time" in said, said
    assert "ImportError: cannot import name 'FleetSettings'" in said, said
    assert "status=1/FAILURE" in said, said  # systemd saw the unit fail
    crashed = "it stopped with exit status 1 before it sent its first heartbeat"
    assert f"version {version}: {crashed}; its next start goes back to {RUNNING}" in said, said
    assert (
        f"version {version} did not come up ({crashed}), so the table went back to {RUNNING}"
        in said
    ), said
    assert said.index("starting version") < said.index("did not come up")
    facts = box.unit_facts(UNIT)
    assert int(facts["NRestarts"]) >= int(before["NRestarts"]) + 1, facts["NRestarts"]
    assert current(box) == f"releases/{RUNNING}"
    status = releases_status(box)
    assert status["current"] == RUNNING and status["pending"] is None, status
    assert status["previous"] != version, status  # a person's rollback never starts it
    last = status["last"]
    assert isinstance(last, dict) and last["state"] == "rolled-back", status
    # It stays there: a later restart keeps the release before.
    assert box.ssh(f"sudo systemctl restart {UNIT}", timeout=300).returncode == 0
    box.wait_for("the table's page after a restart", lambda: page_answers(box), within=600)
    assert table_runs(box) == f"{OPT}/releases/{RUNNING}"
    FIGURES.append(
        f"a release that crashes at its start: the switch to the table's page on the release "
        f"before: {seconds:.0f} s"
    )


GUARD_WITHIN = 90  # the guard's limit in the test's drop-in: a hang is waited out, not timed


def shorter_guard(box: Box, seconds: int) -> None:
    """The guard's --within (300 s in the unit) made ``seconds``, as a person does it with
    `systemctl edit table-controller`: a drop-in with an empty ExecStart= and the unit's
    own line with the new value, then daemon-reload (it applies from the next start)."""
    [line] = [s for s in UNIT_FILE.read_text().splitlines() if s.startswith("ExecStart=")]
    assert " --within 300 " in line, f"the unit's guard has changed: update this test ({line})"
    line = line.replace(" --within 300 ", f" --within {seconds} ")
    box.sudo_write(f"{DROP_INS}/box-within.conf", f"[Service]\nExecStart=\n{line}\n")
    assert box.ssh("sudo systemctl daemon-reload").returncode == 0


def test_a_release_that_hangs_before_its_first_heartbeat_is_sent_back_by_the_guard(
    box: Box, tmp_path: Path
) -> None:
    """The new release's fleet module waits at its start for what never comes: it neither
    crashes nor reaches the director. The unit's guard gives it --within seconds (300 in
    the unit; 90 here, by a drop-in as `systemctl edit` writes one: a real hang is waited
    out, and 300 s would only make the test longer), then stops it, goes back to the
    release before and exits 75, on which systemd starts the table again: its page answers
    from the release before, and the journal says which release hung and what runs now."""
    table_up(box)
    shorter_guard(box, GUARD_WITHIN)
    try:
        wheel = broken_release(tmp_path, next_version(2), HANG)
        since = cursor(box)
        version = switch_to(box, wheel)
        switched = time.monotonic()
        assert box.ssh(f"sudo systemctl restart --no-block {UNIT}").returncode == 0
        box.wait_for(
            "the table back on its release before", lambda: back_on(box, RUNNING, since), 900
        )
        seconds = time.monotonic() - switched
        said = journal(box, since)
        assert f"starting version {version} for the first time" in said, said
        hung = f"it did not send its first heartbeat within {GUARD_WITHIN} s of starting"
        assert (
            f"version {version} did not come up ({hung}), so the table went back to {RUNNING}"
            in said
        ), said
        assert "Scheduled restart job" in said, said  # systemd restarted it on the guard's 75
        status = releases_status(box)
        assert status["current"] == RUNNING and status["pending"] is None, status
        assert status["previous"] != version, status
        FIGURES.append(
            f"a release that hangs at its start (the guard's --within {GUARD_WITHIN} s): the "
            f"switch to the table's page on the release before: {seconds:.0f} s"
        )
    finally:
        box.ssh(f"sudo rm -f {DROP_INS}/box-within.conf && sudo systemctl daemon-reload")
