"""The event demo: a whole event on this machine, for a director to watch and try.

``TournamentDemo`` starts what an event runs on, as it runs at a venue: a real mosquitto
(its files written by ``feed.broker``: a user and a password per table and for the
director, an access list), the director's service and dashboard on SQLite with its
signing key, a director's login, and N simulated tables (``demo.table``: the real
table with a simulated camera, lights and trump cube, each in a process of its own
logging in to the broker with its own user and checking rulings with the director's
public key). The director's event is one of the rule texts' formats
(``tournament.formats``): a progressive event (the default), 12-hand team rounds or a
knock-out bracket. ``demo.seater`` seats each round's (or match's) players at the tables
as the results make them known, and each table's game is that place's result, so the
standings are the event's.

Each run keeps everything in a dated folder of its own (the broker's files, the
director's database and keys, each table's configuration, log and output), so a
second run never touches a first one's event.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import json
import os
import pwd
import random
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Collection, Coroutine, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, TypeVar

from table_controller.director.demo.table import TablePlan
from table_controller.errors import TableControllerError

if TYPE_CHECKING:  # loaded in start(), once the director's packages are known to be there
    from table_controller.director.demo.seater import FormatRules, Kind, Seater, Seats
    from table_controller.director.service import DirectorService
    from table_controller.director.store import DirectorStore
    from table_controller.director.tournament import TournamentAdmin
    from table_controller.director.web import DirectorPage
    from table_controller.feed.broker import BrokerFiles

EVENT = "event-demo"  # the event's name in the topics: euchre/event-demo/tables/...
TITLE = "Event demo"  # its name where people read it: the dashboard, the exported results
TOPIC = "euchre"
FORMATS = ("progressive", "rounds", "bracket")  # tournament.formats' kinds, as --format
DEFAULT_PORT = 8090
MAX_TABLES = 12
ROUNDS = 3
LOGIN = "director"
WHO = "event demo"  # who made the event's changes, in its history
SUBSTITUTE = "Sam Sub"  # who plays round 1 for a late player (``substitute=True``)
TABLE_SEED_STEP = 1009  # between one table's seed and the next's
CHILD = "table_controller.director.demo.table"  # the module each table's process runs
STOP_WAIT = 20.0  # seconds a table has to stop before it is killed
T = TypeVar("T")  # what a coroutine run on the dashboard's loop returns (``_Loop.call``)

# The players' first names: table k's four come from here, shuffled by the seed.
NAMES = (
    "Ada", "Ben", "Cora", "Dev", "Elsa", "Finn", "Gwen", "Hugo", "Iris", "Jack", "Kira",
    "Liam", "Maya", "Noah", "Opal", "Pete", "Quinn", "Rosa", "Sam", "Tess", "Umar", "Vera",
    "Walt", "Xena", "Yuri", "Zoe", "Abe", "Bea", "Cal", "Dot", "Eli", "Fay", "Gus", "Hana",
    "Ivan", "June", "Karl", "Lena", "Milo", "Nina", "Otto", "Pia", "Ray", "Sara", "Theo",
    "Uma", "Vic", "Wren",
)  # fmt: skip


class TournamentDemoError(TableControllerError, RuntimeError):
    """The demo cannot start or run as asked: what went wrong, and what to do."""


@dataclass(frozen=True)
class Pace:
    """``demo``: frames in real time, as a person watches; ``fast``: as fast as they
    render, with a short event (the tests)."""

    fast: bool


DEMO = Pace(fast=False)
FAST = Pace(fast=True)


@dataclass
class DemoTable:
    """One simulated table: its number, id and name, its seed, whether its players
    renege, its page's port, and its process once started."""

    number: int
    seed: int
    renege: bool
    page_port: int
    process: subprocess.Popen[bytes] | None = field(default=None, repr=False)
    games: int = 0  # the games it was given to play

    @property
    def id(self) -> str:
        return f"table-{self.number}"

    @property
    def name(self) -> str:
        return f"Table {self.number}"

    @property
    def page_url(self) -> str:
        return f"http://127.0.0.1:{self.page_port}/"


def event_demo_folder(environ: Mapping[str, str]) -> Path:
    """Where the event demo keeps its runs by default (beside the table demo's logs)."""
    state = environ.get("XDG_STATE_HOME") or str(Path(environ.get("HOME", "~")) / ".local/state")
    return Path(state).expanduser() / "table-controller" / "event-demo"


def find_mosquitto(environ: Mapping[str, str]) -> str | None:
    """mosquitto on ``PATH``, or in the ``sbin`` folder beside a ``bin`` folder on it
    (Debian installs it in /usr/sbin, which a user's PATH often leaves out)."""
    path = environ.get("PATH", "")
    found = shutil.which("mosquitto", path=path)
    if found:
        return found
    for entry in path.split(os.pathsep):
        p = Path(entry)
        if p.name == "bin":
            candidate = p.parent / "sbin" / "mosquitto"
            if candidate.is_file() and os.access(candidate, os.X_OK):
                return str(candidate)
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def player_names(seed: int, tables: int) -> list[str]:
    """Four first names a table, from ``NAMES``, in the seed's order."""
    names = list(NAMES)
    random.Random(seed).shuffle(names)
    return names[: 4 * tables]


def run_folder(base: Path, stamp: str) -> Path:
    """A new folder for this run in ``base``, named after ``stamp`` (its start): an
    earlier run's folder is never reused, whatever its name."""
    try:
        base.mkdir(parents=True, exist_ok=True)
        for n in range(1, 100):
            folder = base / (stamp if n == 1 else f"{stamp}-{n}")
            try:
                folder.mkdir(mode=0o700)
            except FileExistsError:
                continue
            return folder
    except OSError as exc:
        raise TournamentDemoError(
            f"cannot keep the event in {exc.filename or base} ({exc.strerror}): give a "
            "folder you can write with --folder DIR"
        ) from None
    raise TournamentDemoError(f"{base} has too many runs named {stamp}: give another --folder")


def check_request(tables: int, port: int, renege: Collection[int]) -> None:
    """The demo's numbers, refused in words before anything starts."""
    if not 1 <= tables <= MAX_TABLES:
        raise TournamentDemoError(
            f"--tables {tables}: give a number of tables from 1 to {MAX_TABLES} "
            "(each is a simulated table with its own camera: 2 to 4 suit a laptop)"
        )
    if not 0 <= port < 65536:
        raise TournamentDemoError(f"--port {port}: give a port number, e.g. --port {DEFAULT_PORT}")
    wrong = sorted(k for k in renege if not 1 <= k <= tables)
    if wrong:
        raise TournamentDemoError(
            f"--renege {' '.join(map(str, wrong))}: there is no such table; the tables are "
            f"numbered 1 to {tables}"
        )


def require_extras() -> None:
    """The director's packages (MQTT, signing, logins), said in words when missing."""
    from table_controller.extras import require

    for module in ("paho", "cryptography", "argon2"):
        require(module, "director")


class _Loop:
    """An asyncio loop on a thread of its own: the dashboard's, as the director runs it."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True, name="dashboard")
        self.thread.start()

    def call(self, coro: Coroutine[object, None, T], timeout: float = 60.0) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout=timeout)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)
        if not self.thread.is_alive():
            self.loop.close()


class TournamentDemo:
    """A whole event on this machine (see the module's docstring). ``start()`` returns
    once the dashboard answers and every table has said it is online; ``stop()`` ends
    the tables, the director and the broker (and is safe to call twice). Call
    ``start()`` from a thread that lives as long as the demo (the main thread): the
    broker and the tables end with it if the process dies."""

    def __init__(
        self,
        tables: int = 4,
        *,
        port: int = DEFAULT_PORT,
        folder: Path | None = None,
        seed: int = 0,
        renege: Collection[int] = (),
        pace: Pace = DEMO,
        rounds: int = ROUNDS,
        hands: int | None = None,
        environ: Mapping[str, str] | None = None,
        python: str = sys.executable,
        start_timeout: float = 180.0,
        database: str | None = None,
        substitute: bool = False,
        kind: Kind = "progressive",
        points: int | None = None,
        best_of: int = 3,
    ) -> None:
        check_request(tables, port, renege)
        if kind not in FORMATS:
            raise TournamentDemoError(f"--format {kind}: give one of {', '.join(FORMATS)}")
        if points is not None and not 1 <= points <= 100:
            raise TournamentDemoError(f"--points {points}: give a number of points from 1 to 100")
        if best_of < 1 or best_of % 2 == 0:
            raise TournamentDemoError(f"--best-of {best_of}: a match is best of 1, 3, 5... games")
        if not 1 <= rounds <= 20:
            raise TournamentDemoError(f"--rounds {rounds}: give a number of rounds from 1 to 20")
        if hands is not None and not 1 <= hands <= 100:
            raise TournamentDemoError(f"--hands {hands}: give a number of hands from 1 to 100")
        self.environ = dict(os.environ if environ is None else environ)
        self.base = folder if folder is not None else event_demo_folder(self.environ)
        self.port = port
        self.seed = seed
        self.pace = pace
        self.rounds = rounds
        self.hands = hands  # hands a round (None: the format's own, 8 or 12)
        self.kind: Kind = kind
        self.points = points  # a bracket's games are to this many points (None: 10)
        self.best_of = best_of  # a bracket's matches
        self._database = database  # the director's store (None: director.sqlite in the run)
        self.substitute = substitute  # the last player is late: a substitute plays round 1
        self.python = python
        self.start_timeout = start_timeout
        self.tables = [
            DemoTable(k, seed + TABLE_SEED_STEP * k, k in renege, 0) for k in range(1, tables + 1)
        ]
        self.names = player_names(seed, tables)
        self.folder: Path | None = None  # this run's own folder, once started
        self.dashboard_url: str | None = None
        self.public_url: str | None = None
        self.login: tuple[str, str] | None = None
        self.broker_port: int | None = None
        self.store: DirectorStore | None = None
        self.admin: TournamentAdmin | None = None  # the event: its rounds and standings
        self.seater: Seater | None = None  # who plays where, as results come in
        self.service: DirectorService | None = None
        self.page: DirectorPage | None = None
        self._broker_files: BrokerFiles | None = None
        self._private_key = b""
        self._broker: subprocess.Popen[bytes] | None = None
        self._loop: _Loop | None = None
        self._served = False
        self._outputs: list[IO[bytes]] = []

    # --- starting ----------------------------------------------------------------------

    def __enter__(self) -> TournamentDemo:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        require_extras()
        mosquitto = find_mosquitto(self.environ)
        if mosquitto is None:
            raise TournamentDemoError(
                "mosquitto (the MQTT broker the tables send their games through) is not "
                "installed: run `make setup-director` in the project's folder (or "
                "`sudo apt-get install mosquitto`), then run the command again"
            )
        self.folder = run_folder(self.base, time.strftime("%Y-%m-%d_%H%M%S"))
        try:
            self._start_director_store()
            self._start_broker(mosquitto)
            self._start_dashboard()
            self._start_tables()
            self._wait_for_tables()
            assert self.seater is not None
            self.seater.start()
        except BaseException:
            self.stop()
            raise

    def _start_director_store(self) -> None:
        from table_controller.director.demo.seater import Seater, event_lines
        from table_controller.director.store import DirectorStore
        from table_controller.director.tournament import TournamentAdmin, slug
        from table_controller.feed.broker import write_private
        from table_controller.feed.signing import new_keys

        assert self.folder is not None
        keys = self.folder / "director"
        keys.mkdir(mode=0o700)
        private, public = new_keys()
        write_private(keys / "director.key", private)
        (keys / "director.pub").write_bytes(public)
        rules = self.rules
        database = self.database
        self.store = DirectorStore(database, rules_name=rules.preset, options=rules.options)
        password = secrets.token_urlsafe(12)
        self.store.accounts.add_login(LOGIN, password)
        self.login = (LOGIN, password)
        self.admin = TournamentAdmin(self.store, default_name=TITLE)
        self.admin.create(
            WHO,
            self.kind,
            event_lines(self.kind, self.names),
            rounds=self.rounds,
            best_of=self.best_of,
            reason="the demo",
        )
        if self.substitute:
            late = slug(self.names[-1])
            self.admin.set_absent(WHO, late, True, "late: a substitute plays round 1")
            self.admin.substitute(WHO, 1, late, SUBSTITUTE, "substitute", "plays round 1")
            self.admin.set_absent(WHO, late, False, "here from round 2")
        self.seater = Seater(self.admin, [(t.id, t.number) for t in self.tables], self._push, WHO)
        self._private_key = private

    @property
    def rules(self) -> FormatRules:
        """The rules the event's games are played under (its format's rule text)."""
        from table_controller.director.demo.seater import format_rules

        return format_rules(self.kind, rounds=self.rounds, hands=self.hands, points=self.points)

    @property
    def database(self) -> str:
        """The director's store: a PostgreSQL URL given, else the run's director.sqlite."""
        if self._database is not None:
            return self._database
        assert self.folder is not None, "the run's folder is made by start()"
        return str(self.folder / "director.sqlite")

    def seating(self, round_no: int) -> list[Seats]:
        """Each table's players in a round, where they are known yet (a progressive
        round; a team event's first round; a bracket's first matches), else none."""
        from table_controller.director.demo.seater import progressive_seats, team_seats
        from table_controller.director.tournament import Bracket, FormatError, ProgressiveEvent

        assert self.admin is not None, "seated once start() has created the event"
        state = self.admin.state
        event = state.event
        if isinstance(event, ProgressiveEvent):
            return progressive_seats(state, round_no)
        try:
            if isinstance(event, Bracket):
                return [
                    team_seats(state, m.round, m.top, m.bottom)
                    for m in event.rounds[round_no - 1]
                    if m.top is not None and m.bottom is not None and not m.bye
                ]
            assert event is not None
            return [team_seats(state, round_no, a, b) for a, b in event.tables(round_no)]
        except (FormatError, IndexError):
            return []

    def _start_broker(self, mosquitto: str) -> None:
        from table_controller.feed.broker import RunAs, write_broker_config
        from table_controller.feed.broker_process import parent_death_signal
        from table_controller.feed.messages import Topics

        assert self.folder is not None
        port = free_port()
        me = pwd.getpwuid(os.geteuid()).pw_name
        files = write_broker_config(
            self.folder / "broker",
            Topics.of(TOPIC, EVENT),
            [t.id for t in self.tables],
            port=port,
            bind="127.0.0.1",
            persistence=False,
            run_as=RunAs(me),  # the files stay ours: mosquitto runs as us, even as root
        )
        self._broker_files = files
        log = (files.folder / "mosquitto.log").open("ab")
        self._outputs.append(log)
        self._broker = subprocess.Popen(
            [mosquitto, "-c", str(files.folder / "mosquitto.conf")],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # Ctrl-C reaches us, and we stop it last
            preexec_fn=parent_death_signal(),  # started before any thread of ours
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self._broker.poll() is not None:
                said = (files.folder / "mosquitto.log").read_text(errors="replace")[-600:]
                raise TournamentDemoError(
                    f"mosquitto stopped as it started:\n{said}\nits files are in "
                    f"{files.folder}; check that mosquitto runs (`mosquitto -h`)"
                )
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    self.broker_port = port
                    return
            except OSError:
                time.sleep(0.05)
        raise TournamentDemoError(f"mosquitto did not listen on port {port} within 30 s")

    def _start_dashboard(self) -> None:
        from table_controller.director.listeners import DashboardError
        from table_controller.director.service import BrokerConfig, DirectorService
        from table_controller.director.web import DirectorPage
        from table_controller.feed.broker import DIRECTOR_USER

        assert self.broker_port is not None and self._broker_files is not None
        assert self.store is not None
        # Each table's key, made with its broker password (feed/broker.py): registered
        # before the director hears anything, so nothing unsigned is taken as a table's.
        for table_id, public in self._broker_files.signing_keys.items():
            self.store.keys.register_key(table_id, public.decode("ascii"), source="event demo")
        self.service = DirectorService(
            self.store,
            BrokerConfig(
                host="127.0.0.1",
                port=self.broker_port,
                username=DIRECTOR_USER,
                password=self._broker_files.passwords[DIRECTOR_USER],
                client_id=DIRECTOR_USER,
            ),
            prefix=f"{TOPIC}/{EVENT}",
            private_key=self._private_key,
        )
        self.page = DirectorPage(self.store, self.service, title=TITLE, admin=self.admin)
        self._loop = _Loop()
        try:
            self.dashboard_url = self._loop.call(self.page.start("127.0.0.1", self.port))
        except DashboardError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise TournamentDemoError(
                    f"port {self.port} is taken (another program, or an event demo already "
                    f"running, uses it): give another with --port, e.g. --port {self.port + 1}"
                ) from None
            raise TournamentDemoError(str(exc.strerror or exc)) from None
        self._served = True
        self.public_url = self.page.public_url
        self.service.start()
        with urllib.request.urlopen(self.dashboard_url, timeout=30) as answer:
            answer.read()  # the dashboard answers

    def _table_config(self, table: DemoTable, players: Seats) -> Path:
        """The table's configuration for its next game: these players."""
        from table_controller.table.config import parse_config, to_toml

        assert self.folder is not None and self.broker_port is not None
        assert self._broker_files is not None
        secrets_dir = self._broker_files.folder / "secrets"
        here = self.folder / "tables" / table.id
        rules = self.rules
        data: dict[str, object] = {  # the TOML's tables, as ``parse_config`` reads them
            "table": {"name": table.name, "gpio": "mock", "log": f"{table.id}.sqlite"},
            "rules": {"preset": rules.preset, "options": dict(rules.options)},
            "players": players,
            "camera": {"source": "synthetic"},
            "cube": {"port": "emulator"},
            "web": {"host": "127.0.0.1", "port": table.page_port},
            "feed": {
                "enabled": True,
                "broker": "127.0.0.1",
                "port": self.broker_port,
                "topic": TOPIC,
                "event": EVENT,
                "username": table.id,
                "password_file": str(secrets_dir / f"{table.id}.password"),
                "director_key": str(self.folder / "director" / "director.pub"),
                "signing_key": str(secrets_dir / f"{table.id}.signing.key"),
                "heartbeat": 5.0,
            },
        }
        table.games += 1
        path = here / f"game-{table.games}.toml"
        path.write_text(to_toml(parse_config(data, here, str(path))), encoding="utf-8")
        return path

    def _push(self, table_id: str, players: Seats) -> None:
        """Tell a running table its next game's players (the seater, as results come)."""
        table = next(t for t in self.tables if t.id == table_id)
        path = self._table_config(table, players)
        process = table.process
        if process is None or process.stdin is None or process.poll() is not None:
            return  # it stopped: the demo says so; its log keeps what it played
        with contextlib.suppress(OSError):
            process.stdin.write(json.dumps({"play": str(path)}).encode() + b"\n")
            process.stdin.flush()

    def _start_tables(self) -> None:
        assert self.folder is not None and self.seater is not None
        env = dict(self.environ)
        env.setdefault("PYTHONUNBUFFERED", "1")
        for table in self.tables:
            (self.folder / "tables" / table.id).mkdir(parents=True)
            table.page_port = free_port()
        first = self.seater.first()
        for table in self.tables:
            here = self.folder / "tables" / table.id
            plan: TablePlan = {
                "rounds": [str(self._table_config(table, p)) for p in first.get(table.id, [])],
                "seed": table.seed,
                "renege": table.renege,
                "fast": self.pace.fast,
                "watch_stdin": True,
            }
            (here / "plan.json").write_text(json.dumps(plan, indent=2), encoding="utf-8")
            out = (here / "output.txt").open("ab")
            self._outputs.append(out)
            table.process = subprocess.Popen(
                [self.python, "-m", CHILD, str(here / "plan.json")],
                stdin=subprocess.PIPE,  # closed by us, or by our end: the table stops
                stdout=out,
                stderr=subprocess.STDOUT,
                cwd=here,
                env=env,
                start_new_session=True,  # Ctrl-C reaches us; we stop the tables first
            )

    def _wait_for_tables(self) -> None:
        assert self.store is not None and self.service is not None
        want = {t.id for t in self.tables if t.games}  # a table with no match yet waits
        deadline = time.monotonic() + self.start_timeout
        while True:
            online = {t["table"] for t in self.store.tables.tables() if t["online"]}
            if want <= online:
                return
            for t in self.tables:
                assert t.process is not None
                if t.process.poll() is not None:
                    raise TournamentDemoError(
                        f"{t.name} stopped as it started; what it said:\n{self.said(t)}"
                    )
            if time.monotonic() > deadline:
                missing = ", ".join(sorted(want - online))
                problem = self.service.problem or "no answer from them"
                raise TournamentDemoError(
                    f"{missing} did not reach the director within {self.start_timeout:g} s "
                    f"({problem}); their output is in {self.folder}/tables/"
                )
            time.sleep(0.1)

    def said(self, table: DemoTable, chars: int = 2000) -> str:
        """The end of what ``table``'s process printed (its output file)."""
        assert self.folder is not None
        path = self.folder / "tables" / table.id / "output.txt"
        try:
            return path.read_text(errors="replace")[-chars:]
        except OSError:
            return ""

    # --- stopping ----------------------------------------------------------------------

    def stop(self) -> None:
        """The tables first (each sends what it holds and says it is offline), then the
        director (its store closed), then the broker."""
        if self.seater is not None:
            self.seater.stop()
        for t in self.tables:
            if t.process is not None and t.process.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    t.process.send_signal(signal.SIGTERM)
        for t in self.tables:
            if t.process is None:
                continue
            try:
                t.process.wait(STOP_WAIT)
            except subprocess.TimeoutExpired:
                t.process.kill()
                t.process.wait(10)
            if t.process.stdin is not None:
                with contextlib.suppress(OSError):
                    t.process.stdin.close()
            t.process = None
        if self.service is not None:
            self.service.stop()
            self.service = None
        if self._loop is not None:
            if self._served and self.page is not None:
                with contextlib.suppress(Exception):
                    self._loop.call(self.page.stop())
                self._served = False
            self._loop.close()
            self._loop = None
        if self.store is not None:
            self.store.close()
            self.store = None
        if self._broker is not None:
            if self._broker.poll() is None:
                self._broker.terminate()
                try:
                    self._broker.wait(10)
                except subprocess.TimeoutExpired:
                    self._broker.kill()
                    self._broker.wait(10)
            self._broker = None
        for out in self._outputs:
            out.close()
        self._outputs = []


__all__ = [
    "DEFAULT_PORT",
    "DEMO",
    "FAST",
    "FORMATS",
    "MAX_TABLES",
    "NAMES",
    "DemoTable",
    "Pace",
    "TournamentDemo",
    "TournamentDemoError",
    "event_demo_folder",
    "find_mosquitto",
    "player_names",
    "run_folder",
]
