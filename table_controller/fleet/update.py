"""A table's releases: each installed in a folder of its own, the one that runs named by
a symlink, the one before kept for going back.

Layout under a root folder (``/opt/table-controller`` on a Pi)::

    releases/<version>/    one wheel, installed with ``pip install --no-deps --target``
    current -> releases/<version>    what the service runs (PYTHONPATH=<root>/current)
    previous -> releases/<version>   what ran before: the rollback
    releases/<version>/.wheel-sha256   the SHA-256 of the wheel the folder was installed
                           from: a folder is only used again for that very wheel
    update-pending.json    written just before the restart into a new release; cleared
                           once that release has connected and sent a heartbeat
    last-update.json       how the last update ended, in words (shown on the fleet view)
    orders-taken.json      the ids of the update orders this table has taken, until they
                           expire: kept on disk because the restart that ends every update
                           would empty a list kept in memory, and a replayed order with it

A new release is refused before anything changes when its wheel is not the one the
director signed for (sha256), is not a table-controller wheel, needs a package this
table does not have, or cannot even import and say its version (the smoke test). The
switch itself is one ``os.replace`` of a symlink, so a power cut leaves either the old
release or the new one, never half of each.

A release that does not come up is undone by the next start: ``boot`` (the unit's
``ExecStartPre``, run with ``python -I`` so the release under test is not the code that
judges it) finds the marker still there on a second start and switches back; ``guard``
has said in the journal how it ended (its exit status or signal), and ``boot`` says it
again with the version it went back to. A release
that neither crashes nor comes up (it hangs) is ended by ``guard`` (the unit's
``ExecStart``, also ``python -I``): it runs the table as its child and, while an update is
pending, gives it ``--within`` seconds to reach its first heartbeat; then it stops the
child, rolls back and exits with RESTART_STATUS, so systemd starts the previous release.
It tells systemd the table is up (``READY=1``) only then, so the unit's start timeout
(``TimeoutStartSec``) backs it up should the guard itself hang.

A release is never older than the one running unless the director signed an explicit
rollback (``check_not_older``); the folder of a refused release is removed.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import importlib.metadata
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import zipfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from packaging.metadata import Metadata
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import InvalidWheelFilename, canonicalize_name, parse_wheel_filename
from packaging.version import Version

from table_controller.errors import TableControllerError

PROJECT = "table-controller"
# systemd restarts the table on this exit status (RestartForceExitStatus= in the unit)
# and does not count it as a failure (SuccessExitStatus=): EX_TEMPFAIL, "try again".
RESTART_STATUS = 75
DEFAULT_ROOT = Path("/opt/table-controller")
PENDING = "update-pending.json"
LAST = "last-update.json"
TAKEN = "orders-taken.json"
WHEEL_SHA = ".wheel-sha256"  # in a release's folder: the wheel it was installed from
GUARD_WITHIN = 300.0  # a release pending that has not sent its first heartbeat by then goes back
STOP_SECONDS = 15.0  # a child told to stop (SIGTERM) is killed after this
SMOKE_SECONDS = 120.0
PIP_SECONDS = 600.0
# The smoke test: the new release imports, from its own folder, with its command line.
SMOKE = (
    "import sys, table_controller, table_controller.cli; "
    "sys.stdout.write(table_controller.__version__ + '\\n' + table_controller.__file__)"
)

# (argv, extra environment, timeout) -> the finished process; tests pass their own.
Runner = Callable[[Sequence[str], Mapping[str, str], float], "subprocess.CompletedProcess[str]"]
# A distribution's name -> its installed version, or None when it is not installed.
Installed = Callable[[str], "str | None"]


class UpdateRefused(TableControllerError, ValueError):
    """A release this table will not switch to; ``str()`` says why and what to do."""


def run_process(
    argv: Sequence[str], env: Mapping[str, str], timeout: float
) -> subprocess.CompletedProcess[str]:
    """Run ``argv`` with ``env`` added to this process's environment."""
    return subprocess.run(
        list(argv),
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def installed_version(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


@dataclass(frozen=True)
class Wheel:
    """A release's wheel, read: what it is and what it needs."""

    path: Path
    name: str
    version: str
    requires: tuple[Requirement, ...]
    requires_python: SpecifierSet | None


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def check_sha256(path: Path, expected: str) -> None:
    """The wheel is the one the director signed the order for."""
    got = sha256_of(path)
    if got != expected.strip().lower():
        raise UpdateRefused(
            f"the downloaded release {path.name} is not the one the director sent "
            f"(its SHA-256 is {got[:12]}..., the order says {expected[:12]}...): it was "
            "cut short or changed on the way; the table keeps its version. Run the "
            "update again from the director"
        )


def read_wheel(path: Path) -> Wheel:
    """The wheel's name, version and needs, from its file name and its METADATA."""
    try:
        name, version, _build, _tags = parse_wheel_filename(path.name)
    except InvalidWheelFilename as e:
        raise UpdateRefused(
            f"{path.name} is not a wheel's file name ({e}): build the release with "
            "`pip wheel --no-deps .` in the project's folder"
        ) from e
    if name != canonicalize_name(PROJECT):
        raise UpdateRefused(
            f"{path.name} is a release of {name}, not of {PROJECT}: give the director "
            "the table-controller wheel"
        )
    try:
        with zipfile.ZipFile(path) as z:
            files = [n for n in z.namelist() if n.endswith(".dist-info/METADATA")]
            if len(files) != 1:
                raise UpdateRefused(
                    f"{path.name} holds {len(files)} METADATA files, not one: it is "
                    "not a wheel pip made; build it again"
                )
            text = z.read(files[0]).decode("utf-8")
    except (zipfile.BadZipFile, OSError, UnicodeDecodeError) as e:
        raise UpdateRefused(f"{path.name} cannot be read as a wheel ({e}): build it again") from e
    try:
        meta = Metadata.from_email(text, validate=False)
    except Exception as e:  # packaging raises an ExceptionGroup of its findings
        raise UpdateRefused(f"{path.name}'s METADATA cannot be read ({e}): build it again") from e
    if meta.version != version:
        raise UpdateRefused(
            f"{path.name} says version {meta.version} inside and {version} in its name: "
            "build it again"
        )
    return Wheel(
        path=path,
        name=PROJECT,
        version=str(version),
        requires=tuple(meta.requires_dist or ()),
        requires_python=meta.requires_python,
    )


def extras_in_use(
    *,
    installed: Installed = installed_version,
    provides: Sequence[str] | None = None,
    requires: Sequence[str] | None = None,
) -> tuple[str, ...]:
    """The running release's extras whose packages are all installed here: what this
    table uses (a Pi: pi and feed), which a new release must find again. ``provides``
    and ``requires``: the running release's (default: read from its metadata)."""
    if provides is None or requires is None:
        try:
            meta = importlib.metadata.metadata(PROJECT)
        except importlib.metadata.PackageNotFoundError:
            return ("feed",)  # run from a checkout: a fleet's table has its feed
        provides = meta.get_all("Provides-Extra") or []
        requires = meta.get_all("Requires-Dist") or []
    reqs = [Requirement(r) for r in requires]
    used = []
    for extra in provides:
        own = [
            r for r in reqs
            if r.marker is not None and r.marker.evaluate({"extra": extra})
            and not r.marker.evaluate({"extra": ""})
            and canonicalize_name(r.name) != canonicalize_name(PROJECT)
        ]  # fmt: skip
        if all(_satisfied(r, installed) for r in own):
            used.append(str(canonicalize_name(extra)))
    return tuple(used)


def _satisfied(req: Requirement, installed: Installed) -> bool:
    have = installed(req.name)
    return have is not None and req.specifier.contains(have, prereleases=True)


def missing_requirements(
    wheel: Wheel,
    *,
    extras: Iterable[str] | None = None,
    installed: Installed = installed_version,
    python: str | None = None,
) -> list[str]:
    """Each package the release needs (its core and ``extras``, by default those this
    table uses: ``extras_in_use``) that this table lacks or has at another version, in
    words ("paho-mqtt>=3.0 (installed: 2.2.0)")."""
    if extras is None:
        extras = extras_in_use(installed=installed)
    wanted: set[str] = {canonicalize_name(e) for e in extras}
    needs: list[Requirement] = []
    # An extra that names the project's own other extras ("table-controller[feed]").
    changed = True
    while changed:
        changed = False
        for req in wheel.requires:
            if canonicalize_name(req.name) == canonicalize_name(PROJECT) and _applies(req, wanted):
                new = {canonicalize_name(e) for e in req.extras} - wanted
                if new:
                    wanted |= new
                    changed = True
    for req in wheel.requires:
        if canonicalize_name(req.name) != canonicalize_name(PROJECT) and _applies(req, wanted):
            needs.append(req)
    problems = []
    python = python or ".".join(map(str, sys.version_info[:3]))
    for req in needs:
        have = installed(req.name)
        if have is None:
            problems.append(f"{req} (not installed)")
        elif not req.specifier.contains(have, prereleases=True):
            problems.append(f"{req} (installed: {have})")
    if wheel.requires_python is not None and not wheel.requires_python.contains(python):
        problems.append(f"Python {wheel.requires_python} (this table has {python})")
    return problems


def _applies(req: Requirement, extras: set[str]) -> bool:
    if req.marker is None:
        return True
    return any(req.marker.evaluate({"extra": e}) for e in ("", *sorted(extras)))


def check_requirements(wheel: Wheel, **kw: Any) -> None:
    problems = missing_requirements(wheel, **kw)
    if problems:
        first = problems[0].split(" (")[0]
        raise UpdateRefused(
            f"version {wheel.version} needs " + "; ".join(problems) + ", which this table "
            "does not have: the table keeps its version. Install it on the table first "
            f"(`sudo -u euchre {DEFAULT_ROOT}/.venv/bin/pip install '{first}'`), "
            "then run the update again"
        )


@dataclass(frozen=True)
class Releases:
    """The release folders under ``root`` and the two symlinks naming them."""

    root: Path

    @property
    def folder(self) -> Path:
        return self.root / "releases"

    @property
    def current(self) -> Path:
        return self.root / "current"

    @property
    def previous(self) -> Path:
        return self.root / "previous"

    def version_of(self, link: Path) -> str | None:
        """The version a symlink names, or None (no link, or a dangling one)."""
        if not link.is_symlink() or not link.resolve().is_dir():
            return None
        return link.resolve().name

    def installed(self) -> list[str]:
        if not self.folder.is_dir():
            return []
        found = [p.name for p in self.folder.iterdir() if p.is_dir() and "." in p.name]
        return sorted((v for v in found if not v.endswith(".partial")), key=_sort_key)

    def install(self, wheel: Wheel, *, sha256: str, run: Runner = run_process) -> Path:
        """``wheel`` installed into ``releases/<version>``, bound to its ``sha256``: a
        folder left by another wheel of the same version (a build that was refused, or
        half done) is installed afresh, so the table never runs code other than the
        wheel it checked."""
        target = self.folder / wheel.version
        if (
            self.sha256_of_folder(wheel.version) == sha256.strip().lower()
            and (target / "table_controller").is_dir()
        ):
            return target
        if wheel.version == self.version_of(self.current):
            raise UpdateRefused(
                f"version {wheel.version} runs on this table from another wheel (its "
                "SHA-256 differs), and a running release is never replaced under it: give "
                "the new build a new version number, then run the update again"
            )
        partial = self.folder / f"{wheel.version}.partial"
        shutil.rmtree(partial, ignore_errors=True)
        self.folder.mkdir(parents=True, exist_ok=True)
        done = run(
            [
                sys.executable, "-m", "pip", "install", "--no-deps", "--no-index",
                "--disable-pip-version-check", "--no-warn-script-location", "--quiet",
                "--target", str(partial), str(wheel.path),
            ],
            {},
            PIP_SECONDS,
        )  # fmt: skip
        if done.returncode != 0:
            shutil.rmtree(partial, ignore_errors=True)
            raise UpdateRefused(
                f"installing version {wheel.version} failed ({_last_line(done)}): the table "
                "keeps its version; see `journalctl -u table-controller` on the table"
            )
        (partial / WHEEL_SHA).write_text(sha256.strip().lower() + "\n", encoding="ascii")
        shutil.rmtree(target, ignore_errors=True)
        partial.rename(target)
        return target

    def sha256_of_folder(self, version: str) -> str | None:
        """The SHA-256 of the wheel ``releases/<version>`` was installed from (None: not
        known, as for a folder first-boot.sh made from the project's copy)."""
        try:
            return (self.folder / version / WHEEL_SHA).read_text(encoding="ascii").strip()
        except OSError:
            return None

    def held(self) -> set[str]:
        """The versions ``current`` and ``previous`` name: never removed or replaced."""
        return {v for v in (self.version_of(self.current), self.version_of(self.previous)) if v}

    def remove(self, version: str) -> None:
        """A refused release's folder gone, so nothing of it is left to be used again
        (never the running one's or the one to go back to)."""
        if version not in self.held():
            shutil.rmtree(self.folder / version, ignore_errors=True)
            shutil.rmtree(self.folder / f"{version}.partial", ignore_errors=True)

    def smoke_test(self, version: str, *, run: Runner = run_process) -> None:
        """The release imports from its own folder and says the version it should."""
        folder = self.folder / version
        try:
            done = run(
                [sys.executable, "-P", "-c", SMOKE], {"PYTHONPATH": str(folder)}, SMOKE_SECONDS
            )
        except subprocess.TimeoutExpired as e:
            raise UpdateRefused(
                f"version {version} did not start within {SMOKE_SECONDS:.0f} s in its "
                "test: the table keeps its version; the release needs fixing"
            ) from e
        lines = done.stdout.strip().splitlines()
        if done.returncode != 0 or len(lines) != 2:
            raise UpdateRefused(
                f"version {version} failed its start test ({_last_line(done)}): the table "
                "keeps its version; the release needs fixing before it goes to the tables"
            )
        said, where = lines
        if said != version or not Path(where).resolve().is_relative_to(folder.resolve()):
            raise UpdateRefused(
                f"version {version}'s start test ran version {said} from {where}: the "
                "release's folder is not what it should be; the table keeps its version"
            )

    def switch(self, version: str) -> None:
        """``current`` names ``version`` and ``previous`` what ``current`` named."""
        target = self.folder / version
        if not target.is_dir():
            raise UpdateRefused(f"version {version} is not installed on this table")
        old = self.version_of(self.current)
        if old is not None and old != version:
            _link(self.previous, Path("releases") / old)
        _link(self.current, Path("releases") / version)

    def rollback(self) -> str:
        """Switch back to ``previous``; returns the version now current."""
        back = self.version_of(self.previous)
        if back is None:
            raise UpdateRefused(
                "there is no earlier release on this table to go back to "
                f"({self.previous} is missing)"
            )
        self.switch(back)
        return back

    def prune(self, keep: int = 3) -> None:
        """Remove old release folders, never the current or previous one."""
        held = self.held()
        old = [v for v in self.installed() if v not in held]
        for version in old[: max(0, len(old) - keep)]:
            shutil.rmtree(self.folder / version, ignore_errors=True)


def _sort_key(version: str) -> tuple[int, Version | str]:
    try:
        return (1, Version(version))
    except ValueError:
        return (0, version)


def _link(link: Path, target: Path) -> None:
    """``link`` -> ``target``, atomically: a new link under a temporary name, renamed."""
    tmp = link.with_name(f".{link.name}.{os.getpid()}.tmp")
    with contextlib.suppress(FileNotFoundError):
        tmp.unlink()
    tmp.symlink_to(target)
    os.replace(tmp, link)


def _last_line(done: subprocess.CompletedProcess[str]) -> str:
    text = (done.stderr or done.stdout or "").strip().splitlines()
    return text[-1][:200] if text else f"exit status {done.returncode}"


# --- the update across a restart -------------------------------------------------------


def read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def write_json(path: Path, data: Mapping[str, Any]) -> None:
    """``data`` in ``path`` atomically: written, flushed to disk, renamed over the old."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with tmp.open("w", encoding="utf-8") as f:
        f.write(json.dumps(dict(data), sort_keys=True))
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def prepare(
    releases: Releases,
    wheel_path: Path,
    *,
    sha256: str,
    extras: Iterable[str] | None = None,
    installed: Installed = installed_version,
    run: Runner = run_process,
) -> Wheel:
    """Every check before the switch, and the install: nothing the table runs changes."""
    check_sha256(wheel_path, sha256)
    wheel = read_wheel(wheel_path)
    check_requirements(wheel, extras=extras, installed=installed)
    releases.install(wheel, sha256=sha256, run=run)
    try:
        releases.smoke_test(wheel.version, run=run)
    except UpdateRefused:
        releases.remove(wheel.version)  # a refused release leaves nothing behind
        raise
    return wheel


def check_not_older(version: str, running: str, *, downgrade: bool) -> None:
    """A release older than the one running is refused unless the director signed an
    explicit rollback (``director release --allow-downgrade``): a genuine old order,
    replayed or sent by mistake, would otherwise bring back the old code's faults."""
    try:
        older = Version(version) < Version(running)
    except ValueError:
        raise UpdateRefused(
            f"version {version!r} or the running {running!r} is not a version number: "
            "the table keeps its version; build the release with a version number"
        ) from None
    if older and not downgrade:
        raise UpdateRefused(
            f"version {version} is older than version {running}, which this table runs, "
            "and the director did not sign a rollback: the table keeps its version. To go "
            "back on purpose, run `table-controller director release WHEEL "
            "--allow-downgrade` on the director"
        )


@dataclass(frozen=True)
class Taken:
    """One update order this table took: its id, and when its signed record expires
    (until then a copy of it must still be refused)."""

    id: str
    expires: float


class TakenOrders:
    """The ids of the update orders this table has taken, in ``<root>/orders-taken.json``:
    on disk, because the restart that ends every update empties the memory, and an
    order replayed after it would be taken again. Written atomically (a new file renamed
    over the old); a file that cannot be read refuses every order, in words, rather than
    forgetting what was taken."""

    def __init__(self, root: Path) -> None:
        self.path = root / TAKEN

    def load(self) -> list[Taken]:
        if not self.path.exists():
            return []
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            rows = data["taken"]
            return [Taken(str(r["id"]), float(r["expires"])) for r in rows]
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise UpdateRefused(
                f"{self.path} (the update orders this table has taken) cannot be read "
                f"({e}): the table takes no update until it is fixed, since a replayed "
                "order could not be told apart. Look at it; then remove it on the table "
                f"(`sudo rm {self.path}`) and send the update again"
            ) from e

    def ids(self) -> set[str]:
        return {t.id for t in self.load()}

    def add(self, order_id: str, expires: float, *, now: float) -> None:
        """Keep ``order_id`` until ``expires`` (those expired already are dropped: an
        expired order is refused for its age)."""
        kept = [t for t in self.load() if t.expires >= now and t.id != order_id]
        kept.append(Taken(order_id, expires))
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_json(self.path, {"taken": [asdict(t) for t in kept]})


def switch_for_restart(releases: Releases, version: str, *, order: str | None, now: float) -> None:
    """Mark the update pending, then switch: the caller exits with RESTART_STATUS."""
    write_json(
        releases.root / PENDING,
        {
            "version": version,
            "previous": releases.version_of(releases.current),
            # What ``previous`` named before the switch: put back by a rollback, so that
            # afterwards ``previous`` never names the release that failed.
            "before": releases.version_of(releases.previous),
            "order": order,
            "at": now,
            "starts": 0,
        },
    )
    releases.switch(version)


def boot(releases: Releases, *, now: float, why: str | None = None) -> str | None:
    """At each start, before the table runs: a pending update started once already and
    never confirmed is rolled back, and ``previous`` names again what it named before the
    update (never the release that failed: a person's ``rollback`` would start it again).
    Returns what was done, in words (None: nothing). ``why``: how the release failed,
    when known (the guard's words, given or kept in the marker by ``guard``)."""
    pending = read_json(releases.root / PENDING)
    if pending is None:
        return None
    version = str(pending.get("version"))
    if int(pending.get("starts") or 0) < 1:
        write_json(releases.root / PENDING, {**pending, "starts": 1})
        return f"starting version {version} for the first time"
    previous = pending.get("previous")
    back: str | None = None
    if isinstance(previous, str) and (releases.folder / previous).is_dir():
        releases.switch(previous)
        back = previous
    else:  # the first release ever: the virtual environment's own copy runs instead
        with contextlib.suppress(FileNotFoundError):
            releases.current.unlink()
    before = pending.get("before")
    if isinstance(before, str) and before != back and (releases.folder / before).is_dir():
        _link(releases.previous, Path("releases") / before)
    elif releases.version_of(releases.previous) == version:
        releases.previous.unlink()
    kept = pending.get("why")
    why = why or (kept if isinstance(kept, str) and kept else "no heartbeat after its restart")
    words = (
        f"version {version} did not come up ({why}), "
        f"so the table went back to {back or 'the version it was set up with'}"
    )
    write_json(
        releases.root / LAST,
        {"version": version, "state": "rolled-back", "problem": words, "at": now,
         "order": pending.get("order"), "running": back},
    )  # fmt: skip
    (releases.root / PENDING).unlink(missing_ok=True)
    return words


def confirm(releases: Releases, running: str, *, now: float) -> dict[str, Any] | None:
    """The running release has connected and sent a heartbeat: its update is done.
    Returns the pending update it confirmed (None: there was none for this version)."""
    pending = read_json(releases.root / PENDING)
    if pending is None or pending.get("version") != running:
        return None
    write_json(
        releases.root / LAST,
        {"version": running, "state": "running", "problem": None, "at": now,
         "order": pending.get("order"), "running": running},
    )  # fmt: skip
    (releases.root / PENDING).unlink(missing_ok=True)
    return pending


def status(releases: Releases) -> dict[str, Any]:
    """The releases on this table, for the heartbeat's ``fleet`` block."""
    pending = read_json(releases.root / PENDING)
    return {
        "current": releases.version_of(releases.current),
        "previous": releases.version_of(releases.previous),
        "installed": releases.installed(),
        "pending": pending.get("version") if pending else None,
        "last": read_json(releases.root / LAST),
    }


# --- the guard: a release that hangs at start ------------------------------------------


def sd_notify(state: str) -> None:
    """Tell systemd ``state`` (``READY=1``) on ``$NOTIFY_SOCKET``; nothing without one
    (run by hand, or by a test)."""
    address = os.environ.get("NOTIFY_SOCKET")
    if not address:
        return
    if address.startswith("@"):
        address = "\0" + address[1:]
    with contextlib.suppress(OSError), socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as s:
        s.connect(address)
        s.sendall(state.encode())


def _confirmed(releases: Releases, pending: Mapping[str, Any]) -> bool:
    """The pending update ``pending`` is over: the release cleared its marker (update.
    confirm, after its first heartbeat), or another update replaced it."""
    now = read_json(releases.root / PENDING)
    return now is None or now.get("version") != pending.get("version")


def guard(
    releases: Releases,
    argv: Sequence[str],
    *,
    within: float = GUARD_WITHIN,
    clock: Callable[[], float] = time.monotonic,
    notify: Callable[[str], None] = sd_notify,
    every: float = 0.2,
    stop_seconds: float = STOP_SECONDS,
) -> int:
    """Run the table (``argv``) as a child; returns the status to exit with.

    Why a parent in the set-up copy and not a timer in the release: a release that hangs
    runs none of its own code, and a release is the code under judgement. While an
    update is pending, the child has ``within`` seconds (by ``clock``) to send its first
    heartbeat (the release's ``confirm`` clears the marker); if not, it is stopped, the
    table goes back to the previous release (``boot``) and RESTART_STATUS asks systemd to
    start it. ``READY=1`` is told to systemd once the release is confirmed (at once when
    nothing is pending), so the unit's TimeoutStartSec catches a guard that hangs too.
    SIGTERM and SIGINT are passed to the child (systemctl stop)."""
    pending = read_json(releases.root / PENDING)
    env = {k: v for k, v in os.environ.items() if k != "NOTIFY_SOCKET"}
    child = subprocess.Popen(list(argv), env=env)
    old = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT)}
    passed: list[int] = []  # the signals passed on: the service was stopped

    def pass_on(number: int, _frame: object) -> None:
        passed.append(number)
        child.send_signal(number)

    for sig in old:
        signal.signal(sig, pass_on)
    try:
        deadline = None if pending is None else clock() + within
        if deadline is None:
            notify("READY=1")
        while True:
            try:
                code = child.wait(every)
            except subprocess.TimeoutExpired:
                pass
            else:
                if deadline is not None and pending is not None:
                    _ended_early(releases, pending, code, stopped=bool(passed))
                return code
            if deadline is None or pending is None:
                continue
            if _confirmed(releases, pending):
                deadline = None
                notify("READY=1")
            elif clock() > deadline:
                _stop(child, stop_seconds)
                why = f"it did not send its first heartbeat within {within:.0f} s of starting"
                words = boot(releases, now=time.time(), why=why)
                if words is not None and words.startswith("starting"):  # no ExecStartPre ran
                    words = boot(releases, now=time.time(), why=why)
                print(f"table-controller: {words}", file=sys.stderr, flush=True)
                return RESTART_STATUS
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)


def _ended_early(
    releases: Releases, pending: Mapping[str, Any], code: int, *, stopped: bool
) -> None:
    """The release pending ended before its first heartbeat (it crashed at its start, as a
    release whose code cannot run does). Why is said now, in the journal, and kept in the
    marker, so that the next start's ``boot``, which goes back, says it too."""
    now = read_json(releases.root / PENDING)
    if now is None or now.get("version") != pending.get("version"):
        return  # confirmed after all, or another update since
    if stopped:
        why = "the service was stopped before it sent its first heartbeat"
    elif code < 0:
        why = f"it was killed ({_signal_name(-code)}) before it sent its first heartbeat"
    else:
        why = f"it stopped with exit status {code} before it sent its first heartbeat"
    write_json(releases.root / PENDING, {**now, "why": why})
    back = now.get("previous") or "the version it was set up with"
    print(
        f"table-controller: version {now.get('version')}: {why}; its next start goes back "
        f"to {back}",
        file=sys.stderr,
        flush=True,
    )


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _stop(child: subprocess.Popen[bytes], seconds: float) -> None:
    """The child asked to stop (SIGTERM), killed if it does not within ``seconds``."""
    child.terminate()
    try:
        child.wait(seconds)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()


def main(argv: Sequence[str] | None = None) -> int:
    """``python -I -m table_controller.fleet.update boot --root DIR`` (the unit's
    ExecStartPre), ``guard --root DIR [--within S] -- COMMAND...`` (its ExecStart) and
    ``rollback`` / ``status`` for a person at the table."""
    p = argparse.ArgumentParser(
        prog="python -m table_controller.fleet.update",
        usage="%(prog)s {boot,guard,rollback,status} [--root DIR] [--within S] [-- COMMAND...]",
    )
    p.add_argument("action", choices=("boot", "guard", "rollback", "status"))
    p.add_argument("--root", type=Path, default=DEFAULT_ROOT)
    p.add_argument(
        "--within", type=float, default=GUARD_WITHIN, metavar="SECONDS",
        help="guard: how long a new release has to send its first heartbeat",
    )  # fmt: skip
    given = list(sys.argv[1:] if argv is None else argv)
    # guard's command follows "--", split off first: argparse would read its options.
    cut = given.index("--") if "--" in given else len(given)
    args = p.parse_args(given[:cut])
    command = given[cut + 1 :]
    releases = Releases(args.root)
    if args.action == "guard":
        if not command:
            p.error("guard needs the table's command after --")
        return guard(releases, command, within=args.within)
    try:
        if args.action == "boot":
            print(boot(releases, now=time.time()) or "no update pending")
        elif args.action == "rollback":
            print(f"the table now runs version {releases.rollback()}; restart it: "
                  "sudo systemctl restart table-controller")  # fmt: skip
        else:
            print(json.dumps(status(releases), indent=2, sort_keys=True))
    except UpdateRefused as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


__all__ = [
    "RESTART_STATUS",
    "Releases",
    "Taken",
    "TakenOrders",
    "UpdateRefused",
    "Wheel",
    "boot",
    "check_not_older",
    "check_requirements",
    "check_sha256",
    "confirm",
    "guard",
    "missing_requirements",
    "prepare",
    "read_wheel",
    "status",
    "switch_for_restart",
]
