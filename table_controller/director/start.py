"""``table-controller director start --folder DIR``: an event's whole director side in
one folder, with one command.

The first run makes the folder: the director's signing keys, a dashboard login
``director`` with a random password (printed once, kept nowhere in clear), the store
(``director.sqlite``), the fleet's broker (``broker/``: mosquitto with its dynamic
security plugin, so tables are added while the event runs) and ``fleet.json`` (the
event's name, rules and ports, so a later run needs only ``--folder``). Every run then
starts the broker, the director's service and the dashboard, and, where they are
installed, joining tables from the dashboard and the announcement on the network;
Ctrl-C stops them all, the broker last.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import errno
import json
import os
import re
import secrets
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from table_controller.director.json_value import JSONObject
from table_controller.errors import TableControllerError
from table_controller.feed.limits import (
    Limits,
    LimitsError,
    limits_words,
    parse_limit_args,
    shown,
)

if TYPE_CHECKING:  # loaded when the event starts, once its packages are known to be there
    from starlette.routing import Route

    from table_controller.director.broker import FleetBroker, TableCredentials
    from table_controller.director.fleet import EventTls, Fleet
    from table_controller.director.service import DirectorService
    from table_controller.director.store import DirectorStore
    from table_controller.director.web import DirectorPage

STATE = "fleet.json"
TOPIC = "euchre"
LOGIN = "director"
DEFAULT_RULES = "td-tournament"
DEFAULT_WEB_PORT = 8090
DEFAULT_BROKER_PORT = 8883  # MQTT over TLS (1883 is MQTT in clear)
DEFAULT_HTTP_PORT = 8080  # plain HTTP: it only sends a browser to the HTTPS dashboard
BROKER = "broker"

# A limit as ``--limit`` gives it: a number, or None (back to its default).
LimitValue = float | None


class FleetStartError(TableControllerError, RuntimeError):
    """The event cannot start as asked: what went wrong, and what to do."""


@dataclass
class FleetFolder:
    """What ``fleet.json`` keeps: the event as its first run made it."""

    folder: Path
    event: str
    rules: str
    web_port: int
    broker_port: int
    topic: str = TOPIC
    web_host: str = "0.0.0.0"
    options: JSONObject = field(default_factory=dict)  # the preset's, changed
    # TLS for the broker and the dashboard (False only from a first run's --insecure).
    tls: bool = True
    http_port: int = DEFAULT_HTTP_PORT
    limits: JSONObject = field(default_factory=dict)  # the director's limits, changed

    def limits_in_force(self) -> Limits:
        """The limits kept (``--limit``), the rest their defaults (limits.py)."""
        try:
            if not isinstance(self.limits, dict):
                raise LimitsError("limits", self.limits, "write them as a table of NAME: VALUE")
            return Limits.of(self.limits)
        except LimitsError as exc:
            raise FleetStartError(
                f"{self.folder / STATE} keeps the limit {exc.name} = {shown(exc.value)}: "
                f"{exc.problem}; give it again with --limit {exc.name}=VALUE (or "
                f"--limit {exc.name}=default)"
            ) from None

    @property
    def prefix(self) -> str:
        from table_controller.feed.messages import Topics

        return Topics.of(self.topic, self.event).prefix

    @property
    def database(self) -> Path:
        return self.folder / "director.sqlite"

    @property
    def private_key(self) -> Path:
        return self.folder / "director.key"

    @property
    def public_key(self) -> Path:
        return self.folder / "director.pub"

    def save(self) -> None:
        kept = {k: v for k, v in asdict(self).items() if k != "folder"}
        (self.folder / STATE).write_text(json.dumps(kept, indent=1) + "\n")

    @classmethod
    def load(cls, folder: Path) -> FleetFolder:
        path = folder / STATE
        try:
            kept = json.loads(path.read_text(encoding="utf-8"))
            return cls(folder=folder, **kept)
        except (OSError, ValueError, TypeError) as exc:
            raise FleetStartError(
                f"{path} cannot be read ({exc}): it says which event this folder holds; "
                "restore it from a copy, or start the event in a new --folder"
            ) from None


def _check_port(port: int, flag: str) -> int:
    if not (0 if flag in ("--web-port", "--http-port") else 1) <= port < 65536:
        raise FleetStartError(f"{flag} {port}: give a port number, e.g. {flag} 8090")
    return port


def _check_event(event: str) -> str:
    from table_controller.feed.messages import NAME_ALLOWED, name_problem

    event = event.strip()
    if not event or name_problem(event) is not None:
        raise FleetStartError(
            f"--event {event!r}: the event's name may hold {NAME_ALLOWED} (it is part of "
            "the tables' topics)"
        )
    return event


def _check_rules(rules: str, options: JSONObject | None = None) -> str:
    from table_controller.rules.errors import RulesError
    from table_controller.rules.presets import preset

    try:
        preset(rules, options or {})
    except RulesError as exc:
        given = " ".join(f"--option {k}={v}" for k, v in (options or {}).items())
        raise FleetStartError(f"--rules {rules} {given}".strip() + f": {exc}") from None
    return rules


def parse_options(given: Sequence[str]) -> JSONObject | None:
    """``--option points_to_win=11`` (repeated) as the preset's options: numbers as
    numbers, true/false as yes/no, none as empty (as table.toml's "none"), the rest as
    text; None when none was given."""
    if not given:
        return None
    options: JSONObject = {}
    for text in given:
        name, sep, value = text.partition("=")
        name = name.strip().replace("-", "_")
        if not sep or not name or not value.strip():
            raise FleetStartError(
                f"--option {text!r}: give NAME=VALUE, e.g. --option points_to_win=11 "
                "(`table-controller rules show PRESET` lists them)"
            )
        value = value.strip()
        low = value.lower()
        options[name] = (
            int(value)
            if re.fullmatch(r"-?\d+", value)
            else {"true": True, "false": False, "none": None}.get(low, value)
        )
    return options


def parse_limits(given: Sequence[str]) -> dict[str, LimitValue]:
    """``--limit picture_kb=2048`` (repeated) as the limits to change (None: back to its
    default), each checked alone; FleetStartError in words."""
    try:
        return parse_limit_args(given)
    except LimitsError as exc:
        raise FleetStartError(f"--limit {exc.given}: {exc.problem}") from None


def changed_limits(kept: JSONObject, given: Mapping[str, LimitValue]) -> JSONObject:
    """The limits kept with those given over them, each one alone (a limit raised for
    one table's alert leaves the others as they were; ``NAME=default`` takes one back),
    checked together; only those that differ from their defaults are kept."""
    merged: JSONObject = {**kept, **given}
    merged = {k: v for k, v in merged.items() if v is not None}
    try:
        return Limits.of(merged).changed()
    except LimitsError as exc:
        if exc.name in given:
            flag = f"--limit {exc.name}={shown(exc.value)}"
        elif exc.name in kept:
            flag = f"the limit {exc.name} = {shown(exc.value)} (kept from an earlier --limit)"
        else:
            flag = f"the limit {exc.name} = {shown(exc.value)} (its default)"
        raise FleetStartError(f"{flag}: {exc.problem}") from None


def open_folder(
    folder: Path,
    *,
    event: str | None,
    rules: str | None,
    web_port: int | None,
    broker_port: int | None,
    options: JSONObject | None = None,
    insecure: bool = False,
    http_port: int | None = None,
    limits: Mapping[str, LimitValue] | None = None,
) -> tuple[FleetFolder, bool]:
    """The folder's event (made the first time): ``(it, whether this run made it)``.
    A later run keeps the event's name and, unless given again, its rules and ports
    (the tables that joined know the broker's port) and rule options (given again, they
    replace the ones kept: the tables take them from their next game). ``limits``
    (``--limit``) change the kept ones one by one (``changed_limits``)."""
    folder = folder.expanduser().resolve()
    if (folder / STATE).is_file():
        kept = FleetFolder.load(folder)
        if limits:  # over the kept ones, so a bad one kept is put right by giving it again
            had = kept.limits if isinstance(kept.limits, dict) else {}
            now = changed_limits(had, limits)
            if now != kept.limits:
                kept.limits = now
                kept.save()
        kept.limits_in_force()  # what a hand changed in fleet.json, said before it runs
        if event is not None and _check_event(event) != kept.event:
            raise FleetStartError(
                f"{folder} holds the event {kept.event!r}: leave --event out to run it, or "
                f"give a new --folder for the event {event!r}"
            )
        if insecure and kept.tls:
            raise FleetStartError(
                f"the event in {folder} runs with TLS, and its tables check the director "
                "against its certificate: --insecure cannot be given now. Leave it out, or "
                "start a new --folder"
            )
        changed = False
        given = (
            ("rules", rules),
            ("web_port", web_port),
            ("broker_port", broker_port),
            ("options", options),
            ("http_port", http_port),
        )
        for name, value in given:
            if value is not None and value != getattr(kept, name):
                setattr(kept, name, value)
                changed = True
        if changed:
            _check_rules(kept.rules, kept.options)
            kept.save()
        return kept, False
    if folder.exists() and any(folder.iterdir()):
        raise FleetStartError(
            f"{folder} holds other files and no event ({STATE} is missing): give a new "
            "or empty folder with --folder"
        )
    made = FleetFolder(
        folder=folder,
        event=_check_event(event if event is not None else folder.name),
        rules=_check_rules(rules or DEFAULT_RULES, options),
        options=dict(options or {}),
        limits=changed_limits({}, limits or {}),
        web_port=_check_port(DEFAULT_WEB_PORT if web_port is None else web_port, "--web-port"),
        broker_port=_check_port(
            (DEFAULT_BROKER_PORT if not insecure else 1883) if broker_port is None else broker_port,
            "--broker-port",
        ),
        tls=not insecure,
        http_port=_check_port(DEFAULT_HTTP_PORT if http_port is None else http_port, "--http-port"),
    )
    return made, True


def first_run(made: FleetFolder) -> str:
    """The folder's keys, store and login; the login's password (shown once)."""
    from table_controller.director.store import DirectorStore
    from table_controller.feed.broker import write_private
    from table_controller.feed.signing import new_keys

    try:
        made.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        raise FleetStartError(
            f"cannot make {made.folder} ({exc.strerror}): give a folder you can write with --folder"
        ) from None
    private, public = new_keys()
    write_private(made.private_key, private)
    made.public_key.write_bytes(public)
    password = secrets.token_urlsafe(12)
    store = DirectorStore(made.database, rules_name=made.rules)
    try:
        store.accounts.add_login(LOGIN, password)
    finally:
        store.close()
    return password


@dataclass
class FleetParts:
    """Joining from the dashboard (``fleet``, for ``DirectorPage``), the announcement on
    the network (``announce(web_port)``) and the routes the releases are served on."""

    fleet: Fleet
    announce: Callable[[int], AbstractContextManager[object]]
    fingerprint: str
    routes: list[Route] = field(default_factory=list)


def _fleet_parts(
    ev: FleetFolder,
    *,
    store: DirectorStore,
    service: DirectorService,
    credentials: TableCredentials,
    broker_port: int,
    stop: threading.Event,
    ca_pem: str = "",
) -> FleetParts:
    """The fleet's parts, wired: ``Fleet`` (approving tables on the dashboard), the
    announcement (tables finding the director) and the updates' runner and routes."""
    from table_controller.director.fleet import Fleet, serve_updates
    from table_controller.fleet import discovery

    public_pem = ev.public_key.read_bytes()
    private_pem = ev.private_key.read_bytes()
    fleet = Fleet(
        store=store,
        credentials=credentials,
        event=ev.event,
        topic=ev.topic,
        prefix=ev.prefix,
        broker_port=broker_port,
        public_pem=public_pem,
        private_pem=private_pem,
        rules=ev.rules,
        options=dict(ev.options),
        publish=service.publish,
        ca_pem=ca_pem,
    )
    fingerprint = discovery.key_fingerprint(public_pem)

    def announce(web_port: int) -> AbstractContextManager[object]:
        return discovery.announce(
            event=ev.event,
            web_port=web_port,
            broker_port=broker_port,
            key=discovery.key_text(public_pem),
            tls=bool(ca_pem),
        )

    routes = serve_updates(
        ev.folder,
        store,
        prefix=ev.prefix,
        private_pem=private_pem,
        publish=service.publish,
        stop=stop,
    )
    return FleetParts(fleet=fleet, announce=announce, fingerprint=fingerprint, routes=routes)


def attach_config(page: DirectorPage, fleet: Fleet) -> None:
    """Configs from the centre: each table's first on approval, then the event's
    seating whenever it changes (``fleet.config``)."""
    from table_controller.director.fleet import attach

    store = fleet.store

    def name_of(table_id: str) -> str | None:
        t = store.fleet.fleet_table(table_id)
        return None if t is None or t["removed_at"] is not None else str(t["name"])

    pusher = attach(page.admin, fleet, name_of)
    fleet.on_approved = lambda table_id, name: pusher.welcome(page.admin, table_id, name)


@contextlib.contextmanager
def _running_broker(ev: FleetFolder, mosquitto: str, tls: EventTls | None) -> Iterator[FleetBroker]:
    """The fleet's broker, from its files (written each run: the port and the
    certificate may change); with ``tls``, its listener takes TLS only."""
    from table_controller.director.broker import write_fleet_broker
    from table_controller.feed.broker import Tls
    from table_controller.feed.broker_process import BrokerProcess

    files = write_fleet_broker(
        ev.folder / BROKER,
        port=ev.broker_port,
        prefix=ev.prefix,
        tls=None if tls is None else Tls(tls.ca, tls.cert, tls.key, ev.broker_port),
        max_packet=ev.limits_in_force().max_packet,
    )
    broker = BrokerProcess(files.conf, files.port, mosquitto).start()
    try:
        yield files
    finally:
        broker.stop()


def _say(out: TextIO, ev: FleetFolder, password: str | None) -> None:
    from table_controller.rules.option_words import rules_words

    lines = [f"The event {ev.event!r} keeps everything in {ev.folder}:"]
    if password is not None:
        lines += [
            f"  Log in to the dashboard as {LOGIN}, password {password}",
            "  (shown only now, kept nowhere in clear: write it down; to change it, "
            f"`table-controller director add-login {LOGIN} --database {ev.database}`)",
        ]
    lines += [
        f"  the results and the log of the event: {ev.database}",
        f"  the director's signing key: {ev.private_key} (keep it secret), its public "
        f"key {ev.public_key}",
        f"  the broker's files and log: {ev.folder / BROKER} (mosquitto.conf, mosquitto.log)",
        f"The broker listens for the tables on port {ev.broker_port}"
        + (" (TLS)." if ev.tls else " (in clear: --insecure)."),
        f"The rules: {rules_words(ev.rules, ev.options)} (every table is sent them; "
        "`--rules` and `--option` change them).",
        f"{limits_words(ev.limits_in_force())} `--limit NAME=VALUE` changes one.",
    ]
    out.write("\n".join(lines) + "\n")
    out.flush()


def cmd_start(args: argparse.Namespace, out: TextIO) -> int:
    try:
        from table_controller.director.demo import require_extras

        require_extras()
        ev, made = open_folder(
            Path(args.folder),
            event=args.event,
            rules=args.rules,
            web_port=None if args.web_port is None else _check_port(args.web_port, "--web-port"),
            broker_port=None
            if args.broker_port is None
            else _check_port(args.broker_port, "--broker-port"),
            options=parse_options(args.option),
            insecure=args.insecure,
            http_port=None
            if args.http_port is None
            else _check_port(args.http_port, "--http-port"),
            limits=parse_limits(getattr(args, "limit", None) or []),
        )
        from table_controller.director.broker import find_plugin
        from table_controller.director.demo import find_mosquitto

        mosquitto = find_mosquitto(os.environ)  # both said before anything is made
        if mosquitto is None:
            raise FleetStartError(
                "mosquitto (the MQTT broker the tables send their games through) is not "
                "installed: install Debian's package `mosquitto` (`sudo apt-get install "
                "mosquitto`), then run the command again"
            )
        find_plugin()
        password = first_run(ev) if made else None
        if made:
            ev.save()
        _say(out, ev, password)
        return _run(ev, mosquitto, out)
    except TableControllerError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


INSECURE = (
    "WARNING: --insecure: the broker and the dashboard run WITHOUT TLS. Anyone on this "
    "network can read every table's broker password, the director's password as it logs "
    "in, its session, and every card as it is played; the tables that join are given no "
    "certificate to check the director by. Use it only on a network of your own."
)


def _tls(ev: FleetFolder) -> EventTls | None:
    """The event's certificates for this run (None with --insecure)."""
    from table_controller.director.fleet import prepare
    from table_controller.fleet.discovery import local_addresses

    return prepare(ev.folder, local_addresses()) if ev.tls else None


def _run(ev: FleetFolder, mosquitto: str, out: TextIO) -> int:
    from table_controller.director.broker import DynsecAdmin
    from table_controller.director.listeners import DashboardError
    from table_controller.director.service import BrokerConfig, DirectorService, take_turns
    from table_controller.director.store import DirectorStore
    from table_controller.director.web import DirectorPage

    take_turns()
    tls = _tls(ev)
    with _running_broker(ev, mosquitto, tls) as files:
        store = DirectorStore(
            ev.database, rules_name=ev.rules, options=ev.options, limits=ev.limits_in_force()
        )
        try:
            service = DirectorService(
                store,
                BrokerConfig(
                    host="127.0.0.1",
                    port=files.port,
                    username=files.director_user,
                    password=files.director_password(),
                    client_id=files.director_user,
                    tls_ca=None if tls is None else str(tls.ca),
                ),
                prefix=ev.prefix,
                private_key=ev.private_key.read_bytes(),
            )
            stop_updates = threading.Event()
            parts = _fleet_parts(
                ev,
                store=store,
                service=service,
                credentials=DynsecAdmin.of(files, prefix=ev.prefix),
                broker_port=files.port,
                stop=stop_updates,
                ca_pem="" if tls is None else tls.ca_pem,
            )
            page = DirectorPage(
                store, service, title=ev.event, fleet=parts.fleet, extra_routes=parts.routes
            )
            attach_config(page, parts.fleet)
            try:
                asyncio.run(_serve(ev, page, service, parts, out, tls))
            except DashboardError as exc:
                if exc.errno == errno.EADDRINUSE:
                    raise FleetStartError(
                        f"the dashboard's port {ev.web_port} is taken (another program, or "
                        "this event already running, uses it): stop that one, or give "
                        f"another with --web-port, e.g. --web-port {ev.web_port + 1}"
                    ) from None
                raise FleetStartError(str(exc.strerror or exc)) from None
            finally:
                stop_updates.set()
        finally:
            store.close()
    out.write("Stopped: the dashboard, the director's service and the broker.\n")
    return 0


async def _serve(
    ev: FleetFolder,
    page: DirectorPage,
    service: DirectorService,
    parts: FleetParts,
    out: TextIO,
    tls: EventTls | None,
) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    url = await page.start(
        ev.web_host,
        ev.web_port,
        tls_cert=None if tls is None else str(tls.cert),
        tls_key=None if tls is None else str(tls.key),
    )
    announcement: AbstractContextManager[object] | None = None
    try:
        service.start()
        # Off the dashboard's loop: zeroconf's calls wait on a loop of their own.
        web_port = int(url.rstrip("/").rsplit(":", 1)[1])
        said = f"The dashboard: {url}\nThe public view: {page.public_url}\n"
        said += await _secure_words(ev, page, tls, web_port) if tls else INSECURE + "\n"
        wanted = parts.announce(web_port)
        try:
            await asyncio.to_thread(wanted.__enter__)
            announcement = wanted
            said += (
                f"Tables on this network find the event as {ev.event!r}; each shows the "
                f"director's key {parts.fingerprint} while it joins: compare it aloud "
                "before approving a table.\n"
            )
        except (TableControllerError, OSError) as exc:  # tables can be given the address
            said += f"note: {exc}\n"
        said += f"Approve joining tables on the Fleet page: {url.rstrip('/')}/fleet\n"
        said += _where_tables_reach(ev.web_host, web_port)
        out.write(said + "Press Ctrl-C to stop.\n")
        out.flush()
        await stop.wait()
    finally:
        if announcement is not None:
            await asyncio.to_thread(announcement.__exit__, None, None, None)
        service.stop()
        await page.stop()


async def _secure_words(ev: FleetFolder, page: DirectorPage, tls: EventTls, web_port: int) -> str:
    """What the director is told of HTTPS; the plain HTTP port's redirect started."""
    said = (
        "The dashboard is HTTPS with this event's own certificate, which browsers do not "
        "know: the first visit shows a warning. Check that the certificate the browser "
        f"shows has the SHA-256 fingerprint\n  {tls.fingerprint}\nbefore going on, or "
        f"add {tls.ca} to the browser's trusted authorities (docs/fleet.md, TLS).\n"
    )
    try:
        port = await page.serve_redirect(ev.web_host, ev.http_port, web_port)
        said += f"Plain http:// on port {port} only sends a browser to the HTTPS dashboard.\n"
    except OSError as exc:  # the redirect is a help, not a need
        said += f"note: plain http:// is not answered ({exc}); type https://\n"
    return said


def _where_tables_reach(host: str, web_port: int) -> str:
    """This machine's addresses on the network: what a table is given with `join
    --director` where multicast does not reach it."""
    from table_controller.fleet.discovery import local_addresses

    if host not in ("0.0.0.0", "::"):
        return ""
    found = [f"{a}:{web_port}" for a in local_addresses()]
    if not found:
        return "note: this machine has no network address yet: tables cannot reach it.\n"
    return (
        "Where multicast does not reach a table, give it this machine's address: "
        f"`table-controller join --director {found[0]}`"
        + (f" (or {', '.join(found[1:])})" if found[1:] else "")
        + ".\n"
    )


def add_start(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``director start``, added to the ``director`` command's subcommands."""
    p = sub.add_parser(
        "start",
        help="run an event from one folder: the broker, the service and the dashboard",
        description="The first run makes DIR (the director's keys, a dashboard login whose "
        "password is printed once, the store, the broker's files); every run starts the "
        "broker, the director's service and the dashboard, until Ctrl-C.",
    )
    p.add_argument("--folder", required=True, metavar="DIR", help="the event's folder")
    p.add_argument("--event", help="the event's name (first run; default: the folder's name)")
    p.add_argument(
        "--web-port", type=int, help=f"the dashboard's port (default {DEFAULT_WEB_PORT})"
    )
    p.add_argument(
        "--broker-port", type=int, help=f"the broker's port (default {DEFAULT_BROKER_PORT})"
    )
    p.add_argument(
        "--http-port",
        type=int,
        help=f"the plain HTTP port that sends browsers to HTTPS (default {DEFAULT_HTTP_PORT})",
    )
    p.add_argument(
        "--insecure",
        action="store_true",
        help="first run only: the broker and the dashboard WITHOUT TLS, so anyone on the "
        "network reads the passwords, the director's session and every card",
    )
    p.add_argument("--rules", help=f"the event's rule preset (default {DEFAULT_RULES})")
    p.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a rule option of the preset, changed (repeat it), e.g. --option points_to_win=11",
    )
    p.add_argument(
        "--limit",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a limit on what each table may send and have kept, changed and kept in the "
        "folder (repeat it; NAME=default takes one back), e.g. --limit picture_kb=2048; "
        'docs/director.md, "Limits"',
    )
    p.set_defaults(func=cmd_start)


__all__ = [
    "FleetFolder",
    "FleetParts",
    "FleetStartError",
    "add_start",
    "changed_limits",
    "cmd_start",
    "parse_limits",
]
