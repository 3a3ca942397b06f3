"""``table-controller director``: the director's service and dashboard, its logins, its keys.

Settings come from a TOML file (``--config``, keys in docs/director.md) and flags, a flag
winning over the file (``--limit NAME=VALUE`` over one of its ``[limits]``). Every
problem is printed with what to do, and exits with status 2.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import getpass
import os
import signal
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TextIO, TypeAlias

from table_controller.commands import help_of
from table_controller.director import release
from table_controller.errors import TableControllerError
from table_controller.feed.limits import Limits, LimitsError, parse_limit_args, shown
from table_controller.safe_toml import TOMLLimitError
from table_controller.safe_toml import loads_limited as toml_limited

if TYPE_CHECKING:
    from table_controller.director.store import DirectorStore

PAPERS_CHOICES = ("a4", "letter")  # results/as_pdf.py's PAPERS, without importing it

# A setting as the TOML file can write it (tomllib's types), None where it is not given.
SettingValue: TypeAlias = (
    "str | int | float | bool | datetime.date | datetime.time "
    "| list[SettingValue] | dict[str, SettingValue] | None"
)
DEFAULTS: dict[str, dict[str, SettingValue]] = {
    "broker": {
        "host": "localhost",
        "port": 1883,
        "username": None,
        "password_file": None,
        "tls_ca": None,
        "client_id": "director",
    },
    "event": {"name": "", "topic": "euchre", "rules": "td-tournament"},
    "director": {
        "database": "director.sqlite",
        "key": None,
        "public_port": None,  # the public view on a port of its own (not the dashboard's)
        "tls_cert": None,  # the dashboard over HTTPS: its certificate (PEM)...
        "tls_key": None,  # ...and the certificate's private key (PEM)
        # each table's public signing key (`feed broker-config`'s table-keys.json); None:
        # the one beside the director's key, if there is one
        "table_keys": None,
    },
    "web": {"host": "0.0.0.0", "port": 8090},
    # what each table may send and what is kept of it (limits.py, docs/director.md "Limits")
    "limits": Limits().settings(),
}
# flag dest -> (section, key)
_FLAGS = {
    "broker": ("broker", "host"),
    "broker_port": ("broker", "port"),
    "broker_user": ("broker", "username"),
    "broker_password_file": ("broker", "password_file"),
    "tls_ca": ("broker", "tls_ca"),
    "client_id": ("broker", "client_id"),
    "event": ("event", "name"),
    "topic": ("event", "topic"),
    "rules": ("event", "rules"),
    "database": ("director", "database"),
    "key": ("director", "key"),
    "public_port": ("director", "public_port"),
    "tls_cert": ("director", "tls_cert"),
    "tls_key": ("director", "tls_key"),
    "table_keys": ("director", "table_keys"),
    "web_host": ("web", "host"),
    "web_port": ("web", "port"),
}


def _is_url(value: object) -> bool:
    """A ``postgresql://`` URL, as the store reads one (not a file's path). The store is
    loaded when it is asked, as every command that reads the settings then opens it."""
    from table_controller.director.store import is_url

    return is_url(str(value))


class SettingsError(TableControllerError, ValueError):
    """A setting that cannot be used: which, and what to write."""


@dataclass(frozen=True)
class Settings:
    values: dict[str, dict[str, SettingValue]]
    base: Path  # relative paths in the file are relative to it

    def get(self, section: str, key: str) -> SettingValue:
        return self.values[section][key]

    def text(self, section: str, key: str) -> str | None:
        """A setting written as text (a number as its digits); None where not given."""
        v = self.get(section, key)
        return None if v is None else str(v)

    def port(self, section: str, key: str) -> int:
        """A port, which ``load_settings`` checked is a whole number."""
        v = self.get(section, key)
        if isinstance(v, bool) or not isinstance(v, int):
            raise SettingsError(f"[{section}] {key} = {v!r}: write a port number, e.g. 1883")
        return v

    def path(self, section: str, key: str) -> Path | None:
        v = self.values[section][key]
        if v is None:
            return None
        p = Path(str(v)).expanduser()
        return p if p.is_absolute() else self.base / p

    def database(self) -> str:
        """The store: a ``postgresql://`` URL as written, else the SQLite file's path."""
        v = str(self.get("director", "database"))
        if _is_url(v):
            return v
        path = self.path("director", "database")
        assert path is not None
        return str(path)

    @property
    def prefix(self) -> str:
        return f"{self.get('event', 'topic')}/{self.get('event', 'name') or 'event'}"

    def limits(self) -> Limits:
        """The ``[limits]`` in force (checked by ``load_settings``)."""
        return Limits.of(self.values["limits"])


def load_settings(args: argparse.Namespace) -> Settings:
    values = {s: dict(d) for s, d in DEFAULTS.items()}
    base = Path.cwd()
    if getattr(args, "config", None):
        path = Path(args.config)
        try:
            data = toml_limited(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise SettingsError(
                f"{path}: cannot be read ({exc.strerror}); check the path"
            ) from None
        except (tomllib.TOMLDecodeError, TOMLLimitError) as exc:
            raise SettingsError(f"{path}: not valid TOML ({exc}); fix that line") from None
        base = path.resolve().parent
        for section, table in data.items():
            if section not in values or not isinstance(table, dict):
                raise SettingsError(
                    f"{path}: unknown section [{section}]; the sections are "
                    + ", ".join(f"[{s}]" for s in values)
                )
            for key, v in table.items():
                if key not in values[section]:
                    raise SettingsError(
                        f"{path}: [{section}] has no key {key!r}; its keys are "
                        + ", ".join(values[section])
                    )
                values[section][key] = v
    for dest, (section, key) in _FLAGS.items():
        v = getattr(args, dest, None)
        if v is not None:
            values[section][key] = v
            files = (
                "password_file",
                "tls_ca",
                "database",
                "key",
                "tls_cert",
                "tls_key",
                "table_keys",
            )
            if key in files and not _is_url(v):
                values[section][key] = str(Path(v).resolve())
    for section, key in (("broker", "port"), ("web", "port"), ("director", "public_port")):
        port = values[section][key]
        if port is None and key == "public_port":
            continue
        if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port < 65536:
            raise SettingsError(f"[{section}] {key} = {port!r}: write a port number, e.g. 1883")
    public = values["director"]["public_port"]
    if public is not None and public != 0 and public == values["web"]["port"]:
        raise SettingsError(
            f"[director] public_port = {public} is the dashboard's port too: give the "
            "public view another port, or leave public_port out to serve both on one"
        )
    if (values["director"]["tls_cert"] is None) != (values["director"]["tls_key"] is None):
        raise SettingsError(
            "[director] tls_cert and tls_key go together: give both (--tls-cert, --tls-key)"
        )
    _check_limits(values, getattr(args, "config", None), getattr(args, "limit", None) or [])
    return Settings(values, base)


def _check_limits(
    values: dict[str, dict[str, SettingValue]], config: str | None, flags: list[str]
) -> None:
    """The ``[limits]`` with every ``--limit`` over them, refused in words: which one,
    where it was written, what range is fine (so a director starts with limits that
    make sense, or not at all)."""
    try:
        given = parse_limit_args(flags)
    except LimitsError as exc:
        raise SettingsError(f"--limit {exc.given}: {exc.problem}") from None
    for name, value in given.items():
        values["limits"][name] = Limits().settings()[name] if value is None else value
    try:
        Limits.of(values["limits"])
    except LimitsError as exc:
        if exc.name in given:
            where = f"--limit {exc.name}={shown(exc.value)}"
        elif getattr(Limits(), exc.name, None) == exc.value:  # not written: its default
            where = f"the limit {exc.name} = {shown(exc.value)} (its default)"
        else:
            where = f"{config + ': ' if config else ''}[limits] {exc.name} = {shown(exc.value)}"
        raise SettingsError(f"{where}: {exc.problem}") from None


def _note_broker(limits: Limits, config: str | None) -> None:
    """The broker is not the director's to write here (`feed broker-config` wrote it): a
    director whose limits let a table send more than the broker's default takes says
    so, since the broker would cut off a table sending that much."""
    from table_controller.feed.broker import MAX_PACKET

    if limits.max_packet <= MAX_PACKET:
        return
    mb = limits.max_packet // (1024 * 1024)
    print(
        f"note: these limits let a table send messages the broker must take, up to {mb} MB "
        "(its max_packet_size), or it disconnects a table sending that much: write the "
        "broker's files again with `table-controller feed broker-config ... "
        f"--director-config {config or 'DIRECTOR.toml'}`, the limits in that file's [limits] "
        "(it does not read a --limit flag)",
        file=sys.stderr,
    )


def _read_secret(path: Path, what: str) -> str:
    try:
        text = path.read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise SettingsError(
            f"{path}: the {what} cannot be read ({exc.strerror}); check the path"
        ) from None
    if not text:
        raise SettingsError(f"{path} is empty: write the {what} in it")
    return text


def register_table_keys(store: DirectorStore, path: Path) -> int:
    """Register every key of ``path`` (``table-keys.json``) in ``store``: how many were
    new or changed. ValueError or StoreError in words."""
    from table_controller.feed.broker import read_table_keys

    changed = 0
    for table, pem in sorted(read_table_keys(path).items()):
        if store.keys.register_key(table, pem, source=f"{path.name}"):
            changed += 1
    return changed


def cmd_run(args: argparse.Namespace, out: TextIO) -> int:
    from table_controller.director.listeners import DashboardError
    from table_controller.director.service import BrokerConfig, DirectorService, take_turns
    from table_controller.director.store import DirectorStore, StoreError
    from table_controller.director.web import DirectorPage

    try:
        s = load_settings(args)
        pw_file = s.path("broker", "password_file")
        password = _read_secret(pw_file, "broker password") if pw_file else None
        key_file = s.path("director", "key")
        key = key_file.read_bytes() if key_file else None
        limits = s.limits()
        store = DirectorStore(s.database(), rules_name=str(s.get("event", "rules")), limits=limits)
    except (SettingsError, StoreError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(
            f"error: the signing key cannot be read ({exc}); make one with `table-controller "
            "director keys`, or check --key",
            file=sys.stderr,
        )
        return 2
    _note_broker(limits, getattr(args, "config", None))
    tls = s.path("broker", "tls_ca")
    broker = BrokerConfig(
        host=str(s.get("broker", "host")),
        port=s.port("broker", "port"),
        username=s.text("broker", "username"),
        password=password,
        tls_ca=None if tls is None else str(tls),
        client_id=str(s.get("broker", "client_id")),
    )
    from table_controller.feed.broker import TABLE_KEYS

    table_keys = s.path("director", "table_keys")
    if table_keys is None and key_file is not None and (key_file.parent / TABLE_KEYS).is_file():
        table_keys = key_file.parent / TABLE_KEYS
    if table_keys is not None:
        try:
            registered = register_table_keys(store, table_keys)
        except (ValueError, StoreError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            store.close()
            return 2
        print(
            f"note: {registered} table keys registered from {table_keys}: those tables' "
            "messages are stored only when signed with them",
            file=sys.stderr,
        )
    take_turns()
    service = DirectorService(store, broker, prefix=s.prefix, private_key=key)
    if key is None:
        print(
            "note: no signing key (--key): the dashboard can be read, rulings cannot be sent",
            file=sys.stderr,
        )
    if not store.accounts.logins():
        print(
            "note: no director's login yet: make one with `table-controller director "
            f"add-login NAME --database {store.name}`",
            file=sys.stderr,
        )
    if s.get("director", "tls_cert") is None and s.get("web", "host") not in ("127.0.0.1", "::1"):
        print(
            "note: the dashboard is served without TLS: logins cross the network in the "
            'clear; give --tls-cert and --tls-key (docs/director.md, "TLS")',
            file=sys.stderr,
        )
    title = str(s.get("event", "name")) or "Tournament director"
    page = DirectorPage(store, service, title=title)

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError):
                loop.add_signal_handler(sig, stop.set)
        cert, key_path = s.path("director", "tls_cert"), s.path("director", "tls_key")
        url = await page.start(
            str(s.get("web", "host")),
            s.port("web", "port"),
            public_port=None
            if s.get("director", "public_port") is None
            else s.port("director", "public_port"),
            tls_cert=None if cert is None else str(cert),
            tls_key=None if key_path is None else str(key_path),
        )
        service.start()
        out.write(
            f"The dashboard: {url}\nThe public view: {page.public_url}\n"
            f"Listening to {broker.host}:{broker.port} under {s.prefix}/tables/...\n"
        )
        out.flush()
        try:
            await stop.wait()
        finally:
            service.stop()
            await page.stop()

    try:
        asyncio.run(main())
    except DashboardError as exc:
        print(f"error: {exc.strerror or exc}", file=sys.stderr)
        return 2
    finally:
        store.close()
    return 0


def cmd_add_login(args: argparse.Namespace, out: TextIO) -> int:
    from table_controller.director.store import DirectorStore, StoreError

    try:
        s = load_settings(args)
        if args.password_file:
            password = _read_secret(Path(args.password_file), "password")
        else:
            password = getpass.getpass(f"New password for {args.name}: ")
            if getpass.getpass("The same again: ") != password:
                print("error: the two passwords differ; run it again", file=sys.stderr)
                return 2
        store = DirectorStore(s.database())
        try:
            store.accounts.add_login(args.name, password)
        finally:
            store.close()
    except (SettingsError, StoreError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    out.write(f"{args.name} can log in to the dashboard ({store.name}).\n")
    return 0


def cmd_keys(args: argparse.Namespace, out: TextIO) -> int:
    from table_controller.feed.signing import new_keys

    folder = Path(args.out)
    private, public = folder / "director.key", folder / "director.pub"
    if private.exists() and not args.force:
        print(
            f"error: {private} exists: the tables know its public key; keep it, or give "
            "--force to make a new pair (then give every table the new director.pub)",
            file=sys.stderr,
        )
        return 2
    folder.mkdir(parents=True, exist_ok=True)
    priv, pub = new_keys()
    fd = os.open(private, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(priv)
    public.write_bytes(pub)
    out.write(
        f"{private}: the director's signing key (keep it secret; --key)\n"
        f"{public}: its public key: give it to every table ([feed] director_key)\n"
    )
    return 0


def cmd_export(args: argparse.Namespace, out: TextIO) -> int:
    """``director export``: one event's standings and results (CSV), score sheets and
    booklet (PDF) and each game's hand review (HTML), into ``--out`` (docs/director.md,
    "Exporting results"). ``--event`` picks the event by its name; the store's only event
    needs none; a store of several refuses without one, naming each (tournament/catalog.py)."""
    from table_controller.director.dashboard import StoredVerdicts
    from table_controller.director.store import DirectorStore, StoreError
    from table_controller.director.tournament import (
        ExportError,
        NoGames,
        TournamentChoiceError,
        check_folder,
        collect,
        export_files,
        review_files,
        write_all,
    )
    from table_controller.extras import require

    try:
        s = load_settings(args)
        require("weasyprint", "director")  # before anything is read or written
        folder = Path(args.out)
        check_folder(folder, make=False)  # said before the work, made only to write in
        database = s.database()
        if not _is_url(database) and not Path(database).is_file():
            raise SettingsError(
                f"{database}: no such file: give the director's store with --database "
                "(the file `table-controller director` writes, director.sqlite by default)"
            )
        store = DirectorStore(database, rules_name=str(s.get("event", "rules")))
        try:
            untitled = str(s.get("event", "name")) or "Euchre tournament"
            results = collect(store, args.pick, untitled=untitled)
            files = export_files(results, args.paper)
            # each game's hand review, with its verdicts (worked out now where missing)
            files.update(review_files(store, results, StoredVerdicts(store)))
        finally:
            store.close()
        written = write_all(folder, files)
    except (SettingsError, StoreError, NoGames, ExportError, TournamentChoiceError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for path in written:
        out.write(f"{path}\n")
    return 0


def _settings_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", metavar="DIRECTOR.toml", help="the director's settings file")
    p.add_argument(
        "--database",
        metavar="FILE|URL",
        help="the director's store: a SQLite file (default director.sqlite), or a "
        "PostgreSQL database's postgresql://USER@HOST/DATABASE",
    )


def add_commands(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``director`` command group to a ``table-controller`` parser's subparsers."""
    d = subparsers.add_parser(
        "director",
        help=help_of("director"),
        description="Subscribe to every table's feed, store it, raise alerts, serve the "
        "dashboard and send rulings. With no COMMAND, runs the service.",
    )
    _settings_flags(d)
    d.add_argument("--broker", metavar="HOST", help="the MQTT broker (default localhost)")
    d.add_argument("--broker-port", type=int, metavar="PORT", help="default 1883")
    d.add_argument("--broker-user", metavar="NAME", help="the director's broker username")
    d.add_argument("--broker-password-file", metavar="FILE", help="its password, in a file")
    d.add_argument("--tls-ca", metavar="FILE", help="connect with TLS, checking this CA")
    d.add_argument("--client-id", help="the director's MQTT client id (default director)")
    d.add_argument("--event", help="the event's name (its topics: TOPIC/EVENT/tables/...)")
    d.add_argument("--topic", help="the topic's first part (default euchre)")
    d.add_argument("--rules", help="the event's rule preset (default td-tournament)")
    d.add_argument("--key", metavar="FILE", help="the director's signing key (director.key)")
    d.add_argument(
        "--table-keys",
        metavar="FILE",
        help="the tables' signing keys to register (table-keys.json; default: beside --key)",
    )
    d.add_argument("--web-host", help="the dashboard's address (default 0.0.0.0)")
    d.add_argument("--web-port", type=int, help="the dashboard's port (default 8090)")
    d.add_argument(
        "--public-port",
        type=int,
        help="serve the public view (/public) on this port, and not on the dashboard's",
    )
    d.add_argument("--tls-cert", metavar="PEM", help="serve the dashboard over HTTPS: its cert")
    d.add_argument("--tls-key", metavar="PEM", help="the certificate's private key")
    d.add_argument(
        "--limit",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="one of the [limits] on what each table may send and have kept (repeat it), "
        'e.g. --limit picture_kb=2048; docs/director.md, "Limits"',
    )
    d.set_defaults(func=cmd_run)
    sub = d.add_subparsers(dest="director_command", metavar="COMMAND")
    from table_controller.director.start import add_start

    add_start(sub)
    from table_controller.director.settings_example import add_command as add_config

    add_config(sub)
    login = sub.add_parser("add-login", help="add a director's login (or change its password)")
    login.add_argument("name")
    login.add_argument("--password-file", metavar="FILE", help="read the password from FILE")
    _settings_flags(login)
    login.set_defaults(func=cmd_add_login)
    keys = sub.add_parser("keys", help="make the director's signing key pair")
    keys.add_argument("--out", default=".", metavar="DIR", help="where to write them")
    keys.add_argument("--force", action="store_true", help="replace an existing pair")
    keys.set_defaults(func=cmd_keys)
    release.add_command(sub)
    export = sub.add_parser(
        "export",
        help="write the results: standings and results (CSV), score sheets and a booklet "
        "(PDF), and each game's hand review (HTML)",
        description="Write standings.csv, results.csv, score-sheets.pdf and booklet.pdf "
        "into DIR from the director's store, and each game's hand review as a "
        "self-contained HTML file (review-TABLE-game-N.html) that opens offline.",
    )
    export.add_argument("--out", required=True, metavar="DIR", help="the folder to write in")
    export.add_argument(
        "--event",
        dest="pick",
        metavar="NAME",
        help="which of the store's events to export, by its name (needed when the store "
        "holds more than one; without it, a store of several lists them)",
    )
    export.add_argument(
        "--paper",
        choices=sorted(PAPERS_CHOICES),
        default="a4",
        help="the PDFs' paper: a4 (default) or letter",
    )
    _settings_flags(export)
    export.set_defaults(func=cmd_export)


__all__ = ["Settings", "SettingsError", "add_commands", "load_settings"]
