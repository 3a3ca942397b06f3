"""A table's releases (fleet/update.py): real wheels installed with pip into a temporary
root, switched with the symlink, smoke-tested in a child process, rolled back."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest
from fleet_wheels import BROKEN_INIT, make_wheel

from table_controller.fleet import update
from table_controller.fleet.update import Releases, UpdateRefused


def installed_here(name: str) -> str | None:
    return update.installed_version(name)


def put(releases: Releases, wheel: Path) -> str:
    """Every check, the install, and the switch, as the table does it."""
    w = update.prepare(releases, wheel, sha256=update.sha256_of(wheel))
    update.switch_for_restart(releases, w.version, order="o-1", now=100.0)
    return w.version


def run_current(releases: Releases) -> str:
    """What a service started now runs: ``python -c`` with PYTHONPATH=<root>/current."""
    done = subprocess.run(
        [
            sys.executable,
            "-P",
            "-c",
            "import table_controller; print(table_controller.__version__)",
        ],
        env={**os.environ, "PYTHONPATH": str(releases.current)},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return done.stdout.strip()


@pytest.mark.slow(budget=60)
def test_two_releases_switch_then_roll_back(tmp_path: Path) -> None:
    releases = Releases(tmp_path / "root")
    one = make_wheel(tmp_path / "w", "0.1.1")
    two = make_wheel(tmp_path / "w", "0.2.0")
    assert put(releases, one) == "0.1.1"
    assert update.confirm(releases, "0.1.1", now=101.0) is not None
    assert run_current(releases) == "0.1.1"

    put(releases, two)
    assert run_current(releases) == "0.2.0"
    status = update.status(releases)
    assert status["current"] == "0.2.0" and status["previous"] == "0.1.1"
    assert status["pending"] == "0.2.0" and status["installed"] == ["0.1.1", "0.2.0"]
    assert os.readlink(releases.current) == "releases/0.2.0"  # relative: the root can move

    assert releases.rollback() == "0.1.1"
    assert run_current(releases) == "0.1.1"
    assert releases.version_of(releases.previous) == "0.2.0"


def test_the_real_package_is_untouched_by_the_test_wheels() -> None:
    import table_controller

    assert Path(table_controller.__file__).parent.parent == Path(__file__).parents[1]


def test_a_second_start_without_a_heartbeat_rolls_back(tmp_path: Path) -> None:
    releases = _pending_release(tmp_path)
    assert releases.version_of(releases.current) == "1.1"
    # It crashed (or never sent a heartbeat): systemd starts it again.
    words = update.boot(releases, now=7.0)
    assert words is not None and "1.1 did not come up" in words and "back to 1.0" in words
    assert releases.version_of(releases.current) == "1.0"
    assert update.status(releases)["last"]["state"] == "rolled-back"
    assert update.status(releases)["pending"] is None
    assert update.boot(releases, now=8.0) is None  # and it stays there


def test_after_a_rollback_previous_names_what_it_named_before_the_update(
    tmp_path: Path,
) -> None:
    """A person's `update rollback` after the table went back by itself must not start the
    release that failed: ``previous`` names again what it named before the update."""
    releases = Releases(tmp_path)
    for v in ("1.0", "1.1", "1.2"):
        (releases.folder / v / "table_controller").mkdir(parents=True)
    releases.switch("1.0")
    releases.switch("1.1")  # current 1.1, previous 1.0
    update.switch_for_restart(releases, "1.2", order="o-8", now=5.0)
    assert releases.version_of(releases.previous) == "1.1"
    update.boot(releases, now=6.0)
    assert "back to 1.1" in str(update.boot(releases, now=7.0))
    assert releases.version_of(releases.current) == "1.1"
    assert releases.version_of(releases.previous) == "1.0"
    assert releases.rollback() == "1.0"  # by hand: the one before, not 1.2


def test_after_the_first_update_rolls_back_there_is_no_previous(tmp_path: Path) -> None:
    releases = Releases(tmp_path)
    for v in ("1.0", "1.1"):
        (releases.folder / v / "table_controller").mkdir(parents=True)
    releases.switch("1.0")  # as first-boot.sh leaves it: no previous
    update.switch_for_restart(releases, "1.1", order="o-9", now=5.0)
    update.boot(releases, now=6.0)
    update.boot(releases, now=7.0)
    assert releases.version_of(releases.current) == "1.0"
    assert not releases.previous.is_symlink()
    with pytest.raises(UpdateRefused, match="no earlier release"):
        releases.rollback()


def _pending_release(root: Path) -> Releases:
    releases = Releases(root)
    for v in ("1.0", "1.1"):
        (releases.folder / v / "table_controller").mkdir(parents=True)
    releases.switch("1.0")
    update.switch_for_restart(releases, "1.1", order="o-10", now=5.0)
    assert update.boot(releases, now=6.0) == "starting version 1.1 for the first time"
    return releases


def test_a_release_that_crashes_at_its_start_is_named_and_its_next_start_goes_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The guard's child (a real process) ends with status 3 before its first heartbeat:
    the guard returns its status (systemd restarts the unit), says in the journal which
    version failed and how, and the next start's check goes back in the same words."""
    releases = _pending_release(tmp_path)
    code = update.guard(
        releases, [sys.executable, "-c", "raise SystemExit(3)"], within=600, notify=lambda _s: None
    )
    assert code == 3
    said = capsys.readouterr().err
    assert "version 1.1: it stopped with exit status 3 before it sent its first heartbeat" in said
    assert "its next start goes back to 1.0" in said
    assert releases.version_of(releases.current) == "1.1"  # the next start's check goes back
    words = update.boot(releases, now=7.0)
    assert words == (
        "version 1.1 did not come up (it stopped with exit status 3 before it sent its first "
        "heartbeat), so the table went back to 1.0"
    )
    assert releases.version_of(releases.current) == "1.0"
    assert update.status(releases)["last"]["problem"] == words


def test_a_release_killed_at_its_start_is_named_by_its_signal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    releases = _pending_release(tmp_path)
    kill = "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"
    code = update.guard(releases, [sys.executable, "-c", kill], notify=lambda _s: None)
    assert code == -9
    assert "it was killed (SIGKILL) before it sent its first heartbeat" in capsys.readouterr().err
    assert "it was killed (SIGKILL)" in str(update.boot(releases, now=7.0))


def test_a_release_that_confirms_then_ends_is_not_blamed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Its first heartbeat sent (the marker cleared), the release ends later: nothing is
    said of its start, and the next start keeps it."""
    releases = _pending_release(tmp_path)
    confirm = (
        "import sys; from pathlib import Path; from table_controller.fleet import update; "
        f"update.confirm(update.Releases(Path({str(tmp_path)!r})), '1.1', now=8.0); "
        "raise SystemExit(1)"
    )
    code = update.guard(releases, [sys.executable, "-c", confirm], notify=lambda _s: None)
    assert code == 1
    assert "before it sent its first heartbeat" not in capsys.readouterr().err
    assert update.boot(releases, now=9.0) is None
    assert releases.version_of(releases.current) == "1.1"


def test_a_heartbeat_confirms_and_a_later_start_keeps_the_release(tmp_path: Path) -> None:
    releases = _pending_release(tmp_path)
    assert update.confirm(releases, "1.0", now=7.0) is None  # not the version pending
    assert update.confirm(releases, "1.1", now=7.0) is not None
    assert update.boot(releases, now=8.0) is None
    assert releases.version_of(releases.current) == "1.1"
    assert update.status(releases)["last"]["state"] == "running"


def test_the_first_release_that_fails_falls_back_to_the_set_up_copy(tmp_path: Path) -> None:
    releases = Releases(tmp_path)
    (releases.folder / "1.0" / "table_controller").mkdir(parents=True)
    update.switch_for_restart(releases, "1.0", order=None, now=1.0)
    update.boot(releases, now=2.0)
    words = update.boot(releases, now=3.0)
    assert words is not None and "the version it was set up with" in words
    assert not releases.current.is_symlink()  # PYTHONPATH then names nothing: the venv's copy


def test_a_wheel_that_is_not_the_one_signed_is_refused(tmp_path: Path) -> None:
    releases = Releases(tmp_path / "root")
    wheel = make_wheel(tmp_path / "w", "0.2.0")
    with pytest.raises(UpdateRefused, match="not the one the director sent"):
        update.prepare(releases, wheel, sha256="0" * 64)
    assert releases.installed() == []


def test_a_download_cut_short_is_refused_by_its_sha256(tmp_path: Path) -> None:
    wheel = make_wheel(tmp_path / "w", "0.2.0")
    expected = update.sha256_of(wheel)
    wheel.write_bytes(wheel.read_bytes()[:100])
    with pytest.raises(UpdateRefused, match="cut short"):
        update.check_sha256(wheel, expected)


def test_a_missing_dependency_is_named_with_what_to_do(tmp_path: Path) -> None:
    wheel = make_wheel(
        tmp_path,
        "0.3.0",
        requires=[
            "numpy>=1.0",
            "no-such-package-xyz>=1.0",
            "paho-mqtt>=99; extra == 'feed'",
            "reportlab>=99; extra == 'print'",  # an extra this table does not use
            "table-controller[feed]; extra == 'pi'",
        ],
    )
    w = update.read_wheel(wheel)
    problems = update.missing_requirements(w, extras=("pi",), installed=installed_here)
    assert problems[0] == "no-such-package-xyz>=1.0 (not installed)"
    assert problems[1].startswith('paho-mqtt>=99; extra == "feed" (installed: 2.')
    assert len(problems) == 2
    with pytest.raises(UpdateRefused) as e:
        update.check_requirements(w, extras=("feed",), installed=installed_here)
    text = str(e.value)
    assert "no-such-package-xyz" in text and "keeps its version" in text
    assert "pip install 'no-such-package-xyz>=1.0'" in text


def test_a_release_for_a_newer_python_is_refused(tmp_path: Path) -> None:
    w = update.read_wheel(make_wheel(tmp_path, "0.3.0", requires_python=">=3.99"))
    assert update.missing_requirements(w, python="3.11.7") == [
        "Python >=3.99 (this table has 3.11.7)"
    ]


def test_a_wheel_of_another_project_or_name_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "requests-2.0-py3-none-any.whl"
    other.write_bytes(b"x")
    with pytest.raises(UpdateRefused, match="not of table-controller"):
        update.read_wheel(other)
    bad = tmp_path / "table_controller.whl"
    bad.write_bytes(b"x")
    with pytest.raises(UpdateRefused, match="not a wheel's file name"):
        update.read_wheel(bad)
    not_zip = tmp_path / "table_controller-1.0-py3-none-any.whl"
    not_zip.write_bytes(b"not a zip")
    with pytest.raises(UpdateRefused, match="cannot be read as a wheel"):
        update.read_wheel(not_zip)


@pytest.mark.slow(budget=60)
def test_a_wheel_that_fails_its_smoke_test_is_never_switched_to(tmp_path: Path) -> None:
    releases = Releases(tmp_path / "root")
    put(releases, make_wheel(tmp_path / "w", "0.1.1"))
    broken = make_wheel(tmp_path / "w", "0.2.0", init=BROKEN_INIT)
    with pytest.raises(UpdateRefused, match="failed its start test") as e:
        update.prepare(releases, broken, sha256=update.sha256_of(broken))
    assert "broken on purpose" in str(e.value)
    assert releases.version_of(releases.current) == "0.1.1"


class Runs:
    """An injectable runner: records each command, answers as told."""

    def __init__(self, *answers: subprocess.CompletedProcess[str]) -> None:
        self.answers = list(answers)
        self.seen: list[tuple[list[str], dict[str, str]]] = []

    def __call__(
        self, argv: Sequence[str], env: Mapping[str, str], timeout: float
    ) -> subprocess.CompletedProcess[str]:
        self.seen.append((list(argv), dict(env)))
        return self.answers.pop(0)


def done(code: int, out: str = "", err: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.CompletedProcess([], code, out, err)


def test_the_smoke_test_runs_from_the_release_folder_and_checks_its_answer(
    tmp_path: Path,
) -> None:
    releases = Releases(tmp_path)
    folder = releases.folder / "2.0" / "table_controller"
    folder.mkdir(parents=True)
    here = str(folder / "__init__.py")
    runs = Runs(done(0, f"2.0\n{here}"), done(0, "1.0\n/elsewhere/__init__.py"))
    releases.smoke_test("2.0", run=runs)
    assert runs.seen[0][1] == {"PYTHONPATH": str(releases.folder / "2.0")}
    with pytest.raises(UpdateRefused, match="ran version 1.0 from /elsewhere"):
        releases.smoke_test("2.0", run=runs)


def test_a_failed_pip_install_leaves_nothing_behind(tmp_path: Path) -> None:
    releases = Releases(tmp_path / "root")
    w = update.read_wheel(make_wheel(tmp_path, "2.0"))
    with pytest.raises(UpdateRefused, match="disk full"):
        releases.install(w, sha256="0" * 64, run=Runs(done(1, err="OSError: disk full")))
    assert releases.installed() == []
    assert not (releases.folder / "2.0.partial").exists()


def test_prune_keeps_current_previous_and_the_newest(tmp_path: Path) -> None:
    releases = Releases(tmp_path)
    for v in ("0.9", "1.0", "1.1", "1.2", "1.10", "2.0"):
        (releases.folder / v).mkdir(parents=True)
    releases.switch("0.9")
    releases.switch("2.0")
    releases.prune(keep=2)
    assert releases.installed() == ["0.9", "1.2", "1.10", "2.0"]


def test_the_command_line_boot_and_status(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert update.main(["boot", "--root", str(tmp_path)]) == 0
    assert "no update pending" in capsys.readouterr().out
    assert update.main(["rollback", "--root", str(tmp_path)]) == 2
    assert "no earlier release" in capsys.readouterr().err


UNIT = Path(__file__).parents[1] / "hardware" / "table-controller-fleet.service"


def unit_lines(root: Path) -> dict[str, list[str]]:
    """The fleet unit's settings, with its folder and its Python made this test's."""
    text = UNIT.read_text().replace("/opt/table-controller/.venv/bin/python", sys.executable)
    text = text.replace("/opt/table-controller", str(root))
    out: dict[str, list[str]] = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and not line.startswith("#"):
            out.setdefault(key, []).append(value)
    return out


def test_the_fleet_unit_runs_the_current_release_and_restarts_on_75(tmp_path: Path) -> None:
    unit = unit_lines(tmp_path)
    assert f"PYTHONPATH={tmp_path}/current" in unit["Environment"]
    assert unit["RestartForceExitStatus"] == [str(update.RESTART_STATUS)]
    assert unit["SuccessExitStatus"] == [str(update.RESTART_STATUS)]
    [start] = unit["ExecStart"]
    guard = start.split()
    assert guard[1:5] == ["-I", "-m", "table_controller.fleet.update", "guard"]
    assert unit["Type"] == ["notify"]  # ready once the guard says so
    argv = guard[guard.index("--") + 1 :]
    assert argv[1:4] == ["-P", "-m", "table_controller"]
    repo = str(Path(__file__).parents[1])
    done = subprocess.run(
        [*argv[:-2], "--help"],
        env={**os.environ, "PYTHONPATH": repo},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0 and "--config" in done.stdout, done.stderr


def test_the_fleet_units_check_before_start_rolls_back(tmp_path: Path) -> None:
    releases = Releases(tmp_path)
    for v in ("1.0", "1.1"):
        (releases.folder / v / "table_controller").mkdir(parents=True)
    releases.switch("1.0")
    update.switch_for_restart(releases, "1.1", order="o-1", now=1.0)
    [pre] = unit_lines(tmp_path)["ExecStartPre"]
    argv = pre.lstrip("-").split()
    assert argv[1:3] == ["-I", "-m"]  # isolated: never the release it judges
    # -I ignores PYTHONPATH; this test's checkout is not the installed copy, so it is named.
    argv.remove("-I")
    repo = str(Path(__file__).parents[1])
    said = []
    for _start in range(2):
        done = subprocess.run(
            argv, env={**os.environ, "PYTHONPATH": repo}, capture_output=True, text=True,
            timeout=120, check=True,
        )  # fmt: skip
        said.append(done.stdout.strip())
    assert said[0] == "starting version 1.1 for the first time"
    assert "went back to 1.0" in said[1]
    assert releases.version_of(releases.current) == "1.0"


@pytest.mark.slow(budget=180)
def test_the_real_package_as_two_releases(tmp_path: Path) -> None:
    """This checkout built twice as wheels (its version patched in a copy), each checked
    against this environment's packages, installed, smoke-tested and switched to."""
    repo = Path(__file__).parents[1]
    wheels = []
    for version in ("0.1.1", "0.1.2"):
        src = tmp_path / f"src-{version}"
        src.mkdir()
        for name in ("pyproject.toml", "README.md", "LICENSE"):
            shutil.copy(repo / name, src / name)
        shutil.copytree(
            repo / "table_controller", src / "table_controller",
            ignore=shutil.ignore_patterns("__pycache__"),
        )  # fmt: skip
        init = src / "table_controller" / "__init__.py"
        init.write_text(
            init.read_text().replace('__version__ = "', f'__version__ = "{version}"  # ')
        )
        subprocess.run(
            [sys.executable, "-m", "pip", "wheel", str(src), "--no-deps", "--no-build-isolation",
             "-q", "-w", str(tmp_path / "wheels")],
            check=True, capture_output=True, text=True, timeout=600, cwd=tmp_path,
        )  # fmt: skip
        [built] = (tmp_path / "wheels").glob(f"table_controller-{version}-*.whl")
        wheels.append(built)
    releases = Releases(tmp_path / "root")
    for wheel in wheels:
        w = update.prepare(releases, wheel, sha256=update.sha256_of(wheel), extras=("pi",))
        update.switch_for_restart(releases, w.version, order=None, now=1.0)
        assert run_current(releases) == w.version
    assert releases.rollback() == "0.1.1"
    assert run_current(releases) == "0.1.1"


def test_the_extras_a_table_uses_are_those_it_has_every_package_of() -> None:
    provides = ["feed", "pi", "print"]
    requires = [
        "numpy>=1.0",
        "paho-mqtt>=2.0; extra == 'feed'",
        "table-controller[feed]; extra == 'pi'",
        "mpremote>=1.22; extra == 'pi'",
        "reportlab>=4.0; extra == 'print'",
    ]
    have = {"numpy": "2.0", "paho-mqtt": "2.2.0", "mpremote": "1.29.0"}
    used = update.extras_in_use(installed=have.get, provides=provides, requires=requires)
    assert used == ("feed", "pi")
    have["mpremote"] = "1.0"  # too old: this table is no Pi's
    assert update.extras_in_use(installed=have.get, provides=provides, requires=requires) == (
        "feed",
    )
    # This environment, from the installed metadata: every extra it has all of.
    import importlib.metadata

    provided = importlib.metadata.metadata("table-controller").get_all("Provides-Extra") or []
    assert set(update.extras_in_use()) <= set(provided)
