"""The table's configuration file (TOML): what this table is and what it is wired to.

A director or a club edits it by hand, so it is read strictly and every mistake is
reported at once, each naming the key, what is wrong and what to write instead: one
``table-controller config check`` lists them all. Relative paths are relative to the
file's folder, so a table's folder can be copied whole. The keys are in docs/config.md;
``toml.example_config()`` (examples/table.toml) is the documented example.
"""

from __future__ import annotations

import dataclasses
import difflib
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from table_controller.clip import clip, clip_text
from table_controller.devices.cube_types import CubeConfig
from table_controller.devices.pin_config import parse_pin_map
from table_controller.devices.pins import DEFAULT_PIN_MAP, PinMap, PinMapError, PinProblem
from table_controller.feed.messages import name_problem
from table_controller.rules.errors import RulesError
from table_controller.rules.presets import PRESETS, Rules
from table_controller.safe_toml import TOMLLimitError, loads_limited
from table_controller.seats import SEATS, Seat
from table_controller.table.config.reader import (
    ConfigError,
    ConfigProblem,
    Reader,
    TomlTable,
    describe,
)
from table_controller.transcript import DEFAULT_PRESET

DOCS = "docs/config.md"
NAME_MAX = 40
PLAYER_MAX = 24
GPIO_CHOICES = ("auto", "mock")
CUBE_PORTS = ("auto", "emulator", "none")
CALIBRATE = (
    "run `table-controller calibrate` with the mat's four corner markers in view (it writes "
    "calibration/table.json in the folder it is run in), then set "
    'calibration = "calibration/table.json" under [camera]'
)
DEFAULT_CALIBRATION = Path("calibration/table.json")
_PATH_KINDS = ("video", "folder", "image", "synthetic")  # camera kinds whose target is a file


@dataclass(frozen=True)
class CameraConfig:
    source: str = "picamera2"  # an open_camera spec
    calibration: Path | None = None
    lost_after: float = 3.0  # seconds without a frame: a fault
    drift_check: float = 10.0  # seconds between fiducial checks; 0 = off


@dataclass(frozen=True)
class WebConfig:
    """The table's page (docs/table-page.md): where it listens (this machine only unless
    the config opens it to the network), the operator's PIN (hashed), which lets the
    table's own operator enter the director's events on the page, and its HTTPS: a page
    open to the network is HTTPS (the table's own certificate unless ``tls_cert`` and
    ``tls_key`` name one), because the PIN, the operator's session and every card the
    page shows would otherwise cross the venue's Wi-Fi in clear; ``insecure`` serves it
    as plain HTTP all the same, and the start says what that exposes."""

    host: str = "127.0.0.1"
    port: int = 8080
    operator_pin_hash: str = ""  # `table-controller kiosk pin`; empty: no operator on the page
    tls_cert: Path | None = None  # the page's certificate (PEM); None: the table's own
    tls_key: Path | None = None  # its private key (PEM, no password)
    insecure: bool = False  # plain HTTP on the network (said at every start)


@dataclass(frozen=True)
class FeedConfig:
    """The director's feed: the table's events published to an MQTT broker."""

    enabled: bool = False
    broker: str = "localhost"
    port: int = 1883
    topic: str = "euchre"
    event: str = ""
    username: str = ""  # the table's broker user (docs/feed.md, "Security")
    password_file: Path | None = None  # its password, in a file readable by its owner only
    tls_ca: Path | None = None  # the CA certificate that signed the broker's: TLS when set
    # Not a key of the file: False for a fleet's table, whose tls_ca is the event's own
    # authority (it signs only the director's certificates), so the broker is checked
    # against it at whatever address the table reached the director (table/fleet/settings.py).
    tls_check_name: bool = True
    director_key: Path | None = None  # the director's public key: rulings are checked with it
    # the table's own private key: all it sends is signed with it (docs/feed.md)
    signing_key: Path | None = None
    heartbeat: float = 10.0  # seconds between the table's status messages
    public_delay: float = 0.0  # seconds the public view of this table is held back


@dataclass(frozen=True)
class FleetConfig:
    """``[fleet]``: the table belongs to an event's fleet (docs/fleet.md). It joins the
    event's director once (its membership is kept in ``folder``), then takes its name,
    rules, players and broker from the director (table/fleet/run.py); the file keeps
    only what is this table's own: pins, camera, calibration, cube, page."""

    folder: Path
    own_log: bool = False  # [table] log written: else the log is named after the table's id
    # The director's key fingerprint, as its screen shows it: the table joins only that
    # director (a machine posing as it on the venue's network is refused). None: any
    # director that announces a key, for a person to compare on the join page.
    fingerprint: str | None = None


# What the director gives a fleet's table, so its file must not say it too.
FLEET_GIVES_TABLE = ("name",)
FLEET_GIVES_FEED = (
    "enabled",
    "broker",
    "port",
    "topic",
    "event",
    "username",
    "password",
    "password_file",
    "director_key",
    "signing_key",
)
FLEET_ALONE = "or remove [fleet] to run this table on its own"  # each fleet problem's other way
FLEET_NAME = "Fleet table"  # until the director's name for it is known (never run with it)

BOT_LEVELS = ("strong", "rule-of-thumb")


@dataclass(frozen=True)
class KioskConfig:
    """The kiosk (docs/kiosk.md): the seats visitors sit at (bots play the others), the
    bots' level and pace, the operator's PIN (hashed) and the idle times."""

    visitors: tuple[Seat, ...] = (Seat.S,)
    bot_level: str = "strong"  # "strong" | "rule-of-thumb"
    think_time: float = 0.05  # seconds a strong bot may think per card (and per bid)
    bid_by_search: bool = True  # a strong bot bids by search; false: by the rule of thumb
    bot_pace: float = 1.5  # seconds a bot waits before it acts, so visitors can follow
    pin_hash: str = ""  # `table-controller kiosk pin`; empty: the kiosk will not start
    walk_away: float = 180.0  # seconds with no visitor action: the game ends
    attract_after: float = 60.0  # seconds idle before the bots play a demo hand


@dataclass(frozen=True)
class TableConfig:
    name: str
    rules_name: str
    options: Mapping[str, object]  # as written (keys with underscores), for the log
    rules: Rules
    players: Mapping[Seat, str]
    camera: CameraConfig
    gpio: str  # "auto" | "mock"
    pins: PinMap
    cube: CubeConfig | None  # None: the table has no cube
    log: Path
    web: WebConfig
    feed: FeedConfig
    disk_min_free_mb: int = 200
    first_dealer: Seat | None = None
    kiosk: KioskConfig = KioskConfig()
    fleet: FleetConfig | None = None  # [fleet]: name, rules, players, feed from the director
    source: Path | None = field(default=None, compare=False)  # the file it was read from


DEFAULT_PLAYERS = {Seat.N: "North", Seat.E: "East", Seat.S: "South", Seat.W: "West"}
_TABLES: dict[str, tuple[str, ...]] = {
    "table": ("name", "log", "gpio", "disk_min_free_mb", "first_dealer"),
    "rules": ("preset", "options"),
    "players": ("N", "E", "S", "W"),
    "camera": ("source", "calibration", "lost_after", "drift_check"),
    "seats": ("N", "E", "S", "W", "director", "led_wiring"),
    "cube": tuple(f.name for f in dataclasses.fields(CubeConfig)),
    "web": ("host", "port", "operator_pin_hash", "tls_cert", "tls_key", "insecure"),
    "feed": (
        "enabled",
        "broker",
        "port",
        "topic",
        "event",
        "username",
        "password",
        "password_file",
        "tls_ca",
        "director_key",
        "signing_key",
        "heartbeat",
        "public_delay",
    ),
    "kiosk": (
        "visitors",
        "bot_level",
        "think_time",
        "bid_by_search",
        "bot_pace",
        "pin_hash",
        "walk_away",
        "attract_after",
    ),
    "fleet": ("folder", "fingerprint"),
}
_CUBE_TIMES: tuple[str, ...] = (
    "link_timeout",
    "min_rto",
    "max_rto",
    "hello_interval",
    "handshake_timeout",
    "reconnect_interval",
)


def load_config(path: str | Path) -> TableConfig:
    """Read and check a configuration file; ``ConfigError`` lists every problem."""
    p = Path(path)
    source = str(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(
            [
                ConfigProblem(
                    "file",
                    f"there is no file {p}",
                    "give the path of the table's TOML file; `table-controller config "
                    "example > table.toml` writes a documented one to start from",
                )
            ],
            source,
        ) from None
    except IsADirectoryError:
        raise ConfigError(
            [ConfigProblem("file", f"{p} is a folder", "give the TOML file in it")], source
        ) from None
    except OSError as exc:
        raise ConfigError(
            [ConfigProblem("file", f"cannot read {p} ({exc.strerror})", "check its permissions")],
            source,
        ) from None
    except UnicodeDecodeError:
        raise ConfigError(
            [
                ConfigProblem(
                    "file",
                    "the file is not UTF-8 text",
                    "save it as UTF-8 (plain text) in the editor",
                )
            ],
            source,
        ) from None
    try:
        data = loads_limited(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError([_syntax_problem(exc, text)], source) from None
    except TOMLLimitError as exc:
        fix = f"this is not a table configuration: give the table's TOML file ({DOCS})"
        raise ConfigError([ConfigProblem("TOML", str(exc), fix)], source) from None
    config = parse_config(data, p.absolute().parent, source)
    return dataclasses.replace(config, source=p)


def _syntax_problem(exc: tomllib.TOMLDecodeError, text: str) -> ConfigProblem:
    message = str(exc)
    where = re.search(r"\(at line (\d+), column (\d+)\)$", message)
    what = message[: where.start()].strip() if where else message
    what = what[:1].lower() + what[1:]
    # "cannot declare ('rules', 'options') twice" -> "cannot declare [rules.options] twice"
    what = re.sub(
        r"\(((?:'[^']*',? ?)+)\)",
        lambda m: "[" + ".".join(re.findall(r"'([^']*)'", m.group(1))) + "]",
        what,
    )
    fix = f"correct the TOML there; {DOCS} shows every key"
    if where is None:
        return ConfigProblem("TOML", f"the file is not valid TOML: {what}", fix)
    line, column = int(where.group(1)), int(where.group(2))
    lines = text.splitlines()
    shown = clip_text(lines[line - 1].strip()) if 0 < line <= len(lines) else ""
    if what.startswith("invalid value"):
        fix = 'text needs quotes (name = "Table 1"), true/false and numbers do not'
    elif what.startswith("cannot declare") or what.startswith("cannot overwrite"):
        fix = "each table and key may appear once: merge the two or delete one"
    problem = f"not valid TOML: {what}" + (f" in `{shown}`" if shown else "")
    return ConfigProblem(f"line {line}, column {column}", problem, fix)


def parse_config(data: TomlTable, base: Path, source: str = "<config>") -> TableConfig:
    """Check the parsed TOML ``data``; relative paths are resolved against ``base``."""
    r = Reader(base, _TABLES)
    for key, value in data.items():
        if key not in _TABLES:
            r.unknown_top(key)
        elif not isinstance(value, Mapping):
            r.add(
                key, f"{key} is {describe(value)}", f"write it as a table: [{key}] on its own line"
            )
    table = r.table(data, "table")
    fleet = _fleet(r, data)
    name = FLEET_NAME if fleet is not None else r.text(table, "table.name", None, limit=NAME_MAX)
    if name is not None and (bad := name_problem(name)) is not None:
        r.add("table.name", bad, 'write a plain name, e.g. "Club Night 3"')
    gpio = r.choice(table, "table.gpio", "auto", GPIO_CHOICES)
    disk = r.whole(table, "table.disk_min_free_mb", 200, low=0)
    first = r.seat(table, "table.first_dealer")
    default_log = f"{_slug(name or '')}.sqlite"
    if fleet is not None:  # named after the table's id once it has joined (table/fleet/run.py)
        default_log = str(fleet.folder / "table.sqlite")
    log = r.path(table, "table.log", default_log)
    rules_name, options, rules = _rules(r, r.table(data, "rules"))
    players = _players(r, r.table(data, "players"))
    camera = _camera(r, r.table(data, "camera"))
    pins = _pins(r, data.get("seats"))
    cube = _cube(r, r.table(data, "cube"))
    web = _web(r, r.table(data, "web"))
    feed = _feed(r, r.table(data, "feed"))
    kiosk = _kiosk(r, r.table(data, "kiosk"))
    if r.problems:
        raise ConfigError(r.problems, source)
    assert name is not None and log is not None and rules is not None and pins is not None
    return TableConfig(
        name=name,
        rules_name=rules_name,
        options=options,
        rules=rules,
        players=players,
        camera=camera,
        gpio=gpio,
        pins=pins,
        cube=cube,
        log=log,
        web=web,
        feed=feed,
        disk_min_free_mb=disk,
        first_dealer=first,
        kiosk=kiosk,
        fleet=fleet,
    )


def _fleet(r: Reader, data: TomlTable) -> FleetConfig | None:
    """``[fleet]``, and a problem for each key the director gives such a table."""
    if "fleet" not in data:
        return None
    t = r.table(data, "fleet")
    folder = r.path(t, "fleet.folder", "fleet")
    fix_end = FLEET_ALONE
    table = data.get("table")
    for key in FLEET_GIVES_TABLE:
        if isinstance(table, Mapping) and key in table:
            r.add(
                f"table.{key}",
                f"a fleet's table is given its {key} by the event's director",
                f"remove {key} from [table], {fix_end}",
            )
    for section in ("rules", "players"):
        if section in data:
            r.add(
                section,
                f"a fleet's table is given its {section} by the event's director",
                f"remove [{section}], {fix_end}",
            )
    feed = data.get("feed")
    given = [k for k in FLEET_GIVES_FEED if isinstance(feed, Mapping) and k in feed]
    if given:
        r.add(
            "feed." + given[0],
            f"a fleet's table is given its broker, user, password and the director's key "
            f"when it joins ([feed] {', '.join(given)})",
            f"keep only heartbeat, public_delay or tls_ca under [feed], {fix_end}",
        )
    fingerprint = r.text(t, "fleet.fingerprint", "") or None
    if fingerprint is not None:
        from table_controller.fleet.discovery import DiscoveryError, normal_fingerprint

        try:
            fingerprint = normal_fingerprint(fingerprint)
        except DiscoveryError as exc:
            r.add("fleet.fingerprint", str(exc), "copy it from the director's screen")
            fingerprint = None
    if folder is None:
        return None
    return FleetConfig(
        folder=folder,
        own_log=isinstance(table, Mapping) and "log" in table,
        fingerprint=fingerprint,
    )


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "table"


def _rules(r: Reader, t: TomlTable) -> tuple[str, dict[str, object], Rules | None]:
    name = r.text(t, "rules.preset", DEFAULT_PRESET) or DEFAULT_PRESET
    base = PRESETS[name].rules if name in PRESETS else None
    if base is None and "preset" in t and isinstance(t["preset"], str):
        near = difflib.get_close_matches(name, PRESETS, n=1)
        hint = f"did you mean {near[0]!r}? " if near else ""
        r.add(
            "rules.preset",
            f"unknown rule preset {clip(name)}",
            hint + "presets: " + ", ".join(PRESETS),
        )
    raw = r.table(t, "rules.options", known=None)
    known = [f.name for f in dataclasses.fields(Rules)]
    options: dict[str, object] = {}
    for key, value in raw.items():
        option = key.replace("-", "_")
        where = f"rules.options.{key}"
        if option not in known:
            shown = name if name in PRESETS else DEFAULT_PRESET
            near = difflib.get_close_matches(option, known, n=1)
            r.add(
                where,
                f"unknown rule option {clip(key)}",
                (f"did you mean {near[0]!r}? " if near else "")
                + f"`table-controller rules show {shown}` lists every option and its value",
            )
            continue
        if isinstance(value, str) and value.strip().lower() == "none":
            value = None  # TOML has no null: "none" empties an option that may be empty
        try:
            (base or Rules()).with_options({option: value})
        except RulesError as exc:
            if exc.message.startswith(f"option {option} "):
                r.add(where, f"{key} cannot be {describe(value)}", f"allowed: {exc.expected}")
                continue  # a check of the whole set is made below
        options[option] = value
    if base is None or len(options) < len(raw):
        return name, options, None
    try:
        return name, options, base.with_options(options)
    except RulesError as exc:
        named = [k for k in options if re.search(rf"\b{k}\b", exc.message)]
        key = f"rules.options.{named[0]}" if named else "rules.options"
        r.add(key, f"with preset {clip(name)}: {exc.message}", f"expected {exc.expected}")
        return name, options, None


def _players(r: Reader, t: TomlTable) -> dict[Seat, str]:
    players = dict(DEFAULT_PLAYERS)
    for seat in SEATS:
        name = r.text(t, f"players.{seat.name}", DEFAULT_PLAYERS[seat], limit=PLAYER_MAX)
        if name is not None:
            players[seat] = name
    return players


def _camera(r: Reader, t: TomlTable) -> CameraConfig:
    from table_controller.vision.camera import CameraError, parse_spec  # OpenCV: when read

    d = CameraConfig()
    source = r.text(t, "camera.source", d.source) or d.source
    try:
        spec = parse_spec(_resolve_spec(source, r.base))
        source = str(spec)
    except CameraError as exc:
        problem, choose, kinds = str(exc).partition(": choose ")
        fix = f"choose {kinds}" if choose else f"write KIND[:TARGET][,KEY=VALUE...] ({DOCS})"
        r.add("camera.source", problem, fix)
        spec = None
    calibration = r.path(t, "camera.calibration", None)
    if calibration is None and spec is not None and spec.kind != "synthetic":
        # The calibrate command's default place, next to this file.
        calibration = r.base / DEFAULT_CALIBRATION
    return CameraConfig(
        source=source,
        calibration=calibration,
        lost_after=r.number(t, "camera.lost_after", d.lost_after, low=0.1, high=600.0),
        drift_check=r.number(t, "camera.drift_check", d.drift_check, low=0.0, high=86400.0),
    )


def _resolve_spec(text: str, base: Path) -> str:
    """The spec with a file or folder target made absolute against the config's folder."""
    from table_controller.vision.camera import SOURCES

    head, comma, rest = text.strip().partition(",")
    kind, colon, target = head.partition(":")
    if colon and kind in SOURCES:
        if kind in _PATH_KINDS and target and not Path(target).is_absolute():
            return f"{kind}:{base / target}{comma}{rest}"
        return text.strip()
    if colon or head in SOURCES or head.isdigit() or head.startswith("/dev/") or not head:
        return text.strip()  # a kind, a camera number, or a mistake parse_spec reports
    return f"{base / head if not Path(head).is_absolute() else head}{comma}{rest}"


def _pins(r: Reader, data: object) -> PinMap | None:
    if data is None:
        return DEFAULT_PIN_MAP
    try:
        return parse_pin_map(data)
    except PinMapError as exc:
        for p in exc.problems:
            problem, fix = _split(p.message)
            r.add(_pin_key(p), problem, fix or "see docs/seats.md")
        return None


def _pin_key(p: PinProblem) -> str:
    """The config key of a pin problem: seats.director, seats.N.led, seats.N.pass..."""
    function = p.function
    if function.endswith("LED"):
        function = "led"
    elif function.endswith(" button"):
        function = function.removesuffix(" button")
    elif function in ("seat", "seat pin map"):
        function = ""
    parts = ["seats"] + ([p.seat.name] if p.seat is not None else []) + [function]
    return ".".join(x for x in parts if x)


def _split(message: str) -> tuple[str, str]:
    """A pin message "X is Y: do Z." split at its first colon outside brackets/quotes."""
    depth, quote = 0, ""
    for i, ch in enumerate(message):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"`" and not message[i - 1 : i].isalnum():  # not the ' of "N's"
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == ":" and depth == 0 and message[i + 1 : i + 2] == " ":
            return message[:i], message[i + 2 :].rstrip(".")
    return message.rstrip("."), ""


def _cube(r: Reader, t: TomlTable) -> CubeConfig | None:
    d = CubeConfig()
    port = r.text(t, "cube.port", d.port) or d.port
    if port.lower() in CUBE_PORTS:
        port = port.lower()
    elif not (port.startswith("/") or "://" in port or re.fullmatch(r"COM\d+", port)):
        r.add(
            "cube.port",
            f"{clip(port)} is not a port",
            'write "auto" (find the cube on USB), a device path such as '
            '"/dev/serial/by-id/usb-MicroPython_...", "emulator", or "none" (no cube)',
        )
    times: dict[str, float] = {}
    for name in _CUBE_TIMES:
        high = 3600.0 if name != "min_rto" and name != "max_rto" else 60.0
        times[name] = r.number(t, f"cube.{name}", getattr(d, name), low=0.001, high=high)
    baudrate = r.whole(t, "cube.baudrate", d.baudrate, low=300, high=4_000_000)
    try:
        cube = CubeConfig(port=port, baudrate=baudrate, **times)
    except ValueError as exc:
        message = str(exc)
        named = [n for n in _CUBE_TIMES if message.startswith(n)]
        problem, _, fix = message.partition(": ")
        if message.startswith("min_rto must be"):
            problem = f"min_rto is {times['min_rto']:g} and max_rto {times['max_rto']:g}"
            fix = f"{message} (the defaults are {d.min_rto:g} and {d.max_rto:g})"
        r.add(f"cube.{named[0] if named else 'min_rto'}", problem, fix or f"see {DOCS}")
        return None
    return None if port == "none" else cube


def _web(r: Reader, t: TomlTable) -> WebConfig:
    from table_controller.web.pin import pin_hash_problem

    d = WebConfig()
    pin_hash = r.text(t, "web.operator_pin_hash", d.operator_pin_hash, empty=True) or ""
    if pin_hash and (problem := pin_hash_problem(pin_hash)) is not None:
        r.add(
            "web.operator_pin_hash",
            problem,
            "make one with `table-controller kiosk pin` and paste its hash as "
            '[web] operator_pin_hash = "pbkdf2-sha256$..."',
        )
    cert = r.path(t, "web.tls_cert", None) if t.get("tls_cert") != "" else None
    key = r.path(t, "web.tls_key", None) if t.get("tls_key") != "" else None
    insecure = r.boolean(t, "web.insecure", d.insecure)
    if (cert is None) != (key is None):
        given, missing = ("tls_cert", "tls_key") if key is None else ("tls_key", "tls_cert")
        r.add(
            f"web.{missing}",
            f"[web] {given} is given without {missing}",
            "give both, the certificate and its key (PEM files), or neither: the table "
            "then makes its own certificate",
        )
    if insecure and cert is not None:
        r.add(
            "web.insecure",
            "insecure = true serves the page without TLS, yet tls_cert names a certificate",
            "remove insecure = true to serve HTTPS with that certificate, or remove "
            "tls_cert and tls_key",
        )
    return WebConfig(
        host=r.text(t, "web.host", d.host) or d.host,
        port=r.whole(t, "web.port", d.port, low=0, high=65535),
        operator_pin_hash=pin_hash,
        tls_cert=cert,
        tls_key=key,
        insecure=insecure,
    )


def _feed(r: Reader, t: TomlTable) -> FeedConfig:
    d = FeedConfig()
    feed = FeedConfig(
        enabled=r.boolean(t, "feed.enabled", d.enabled),
        broker=r.text(t, "feed.broker", d.broker) or d.broker,
        port=r.whole(t, "feed.port", d.port, low=1, high=65535),
        topic=r.text(t, "feed.topic", d.topic) or d.topic,
        event=r.text(t, "feed.event", d.event, empty=True, limit=80) or "",
        username=r.text(t, "feed.username", d.username, empty=True) or "",
        password_file=_optional_path(r, t, "password_file"),
        tls_ca=_optional_path(r, t, "tls_ca"),
        director_key=_optional_path(r, t, "director_key"),
        signing_key=_optional_path(r, t, "signing_key"),
        heartbeat=r.number(t, "feed.heartbeat", d.heartbeat, low=0.5, high=3600.0),
        public_delay=r.number(t, "feed.public_delay", d.public_delay, low=0.0, high=86400.0),
    )
    if t.get("password"):
        # Refused, not warned about: table.toml is shared and copied about (0644 by
        # default); the password lets anyone send events as this table.
        r.add(
            "feed.password",
            "a password written in the configuration can be read by anyone who can read the file",
            'put it in a file of its own and name it: password_file = "feed.password" '
            "(chmod 600; `feed broker-config` writes one per table)",
        )
    if any(c in feed.event for c in "+#/\0"):
        r.add(
            "feed.event",
            f"the event name {clip(feed.event)} has a character a topic cannot hold (+ # /)",
            'write a plain name such as "club-night-may"',
        )
    if any(c in feed.topic for c in "+#\0") or feed.topic.startswith("$"):
        r.add(
            "feed.topic",
            f"the topic {clip(feed.topic)} has an MQTT wildcard (+ or #) or starts with $",
            'write a plain topic such as "euchre" or "club/euchre"',
        )
    return feed


def _optional_path(r: Reader, t: TomlTable, key: str) -> Path | None:
    return r.path(t, f"feed.{key}", None) if t.get(key) != "" else None


def secret_file_problem(path: Path, key: str) -> ConfigProblem | None:
    """A secrets file missing, or readable by others than its owner: what chmod to run."""
    try:
        mode = path.stat().st_mode
    except OSError as exc:
        return ConfigProblem(key, f"{path} cannot be read ({exc.strerror})", f"copy it to {path}")
    if mode & 0o077:
        return ConfigProblem(
            key,
            f"{path} can be read by other users of this machine (mode {mode & 0o777:o})",
            f"chmod 600 {path}",
        )
    return None


def _kiosk(r: Reader, t: TomlTable) -> KioskConfig:
    from table_controller.web.pin import HASH_FIX, pin_hash_problem

    d = KioskConfig()
    visitors = d.visitors
    if "visitors" in t:
        raw = t["visitors"]
        seats: list[Seat] = []
        fix = 'write one to three seats, e.g. visitors = ["S"] or ["N", "S"]'
        if not isinstance(raw, list) or not 1 <= len(raw) <= 3:
            r.add("kiosk.visitors", f"visitors is {describe(raw)}", fix)
        else:
            for item in raw:
                try:
                    seat = Seat.parse(item) if isinstance(item, str) else None
                except ValueError:
                    seat = None
                if seat is None or seat in seats:
                    r.add("kiosk.visitors", f"{describe(item)} is not a seat, or twice", fix)
                    break
                seats.append(seat)
            else:
                visitors = tuple(seats)
    pin_hash = r.text(t, "kiosk.pin_hash", d.pin_hash, empty=True) or ""
    if pin_hash and (problem := pin_hash_problem(pin_hash)) is not None:
        r.add("kiosk.pin_hash", problem, HASH_FIX)
    walk_away = r.number(t, "kiosk.walk_away", d.walk_away, low=0.1, high=86400.0)
    return KioskConfig(
        visitors=visitors,
        bot_level=r.choice(t, "kiosk.bot_level", d.bot_level, BOT_LEVELS),
        think_time=r.number(t, "kiosk.think_time", d.think_time, low=0.0, high=10.0),
        bid_by_search=r.boolean(t, "kiosk.bid_by_search", d.bid_by_search),
        bot_pace=r.number(t, "kiosk.bot_pace", d.bot_pace, low=0.0, high=30.0),
        pin_hash=pin_hash,
        walk_away=walk_away,
        attract_after=r.number(t, "kiosk.attract_after", d.attract_after, low=0.1, high=86400.0),
    )


def check_files(config: TableConfig) -> list[ConfigProblem]:
    """What the files the configuration names say: the calibration is there and loads,
    a recorded camera source exists, the log's folder exists. ``config check`` runs it;
    at the table these are faults, not refusals."""
    from table_controller.vision.layout import Calibration, CalibrationError

    problems: list[ConfigProblem] = []
    cal = config.camera.calibration
    if cal is not None:
        if not cal.exists():
            problems.append(
                ConfigProblem(
                    "camera.calibration", f"there is no calibration file {cal}", CALIBRATE
                )
            )
        else:
            try:
                Calibration.load(cal)
            except CalibrationError as exc:
                why = str(exc).removeprefix(f"{cal}: ").split(": run `table-controller calibrate`")
                problem = f"the calibration file {cal} cannot be used: {why[0]}"
                problems.append(ConfigProblem("camera.calibration", problem, CALIBRATE))
    from table_controller.vision.camera import parse_spec

    spec = parse_spec(config.camera.source)
    if spec.kind in _PATH_KINDS and spec.target and not Path(spec.target).exists():
        problems.append(
            ConfigProblem(
                "camera.source",
                f"there is no {'folder' if spec.kind == 'folder' else 'file'} {spec.target}",
                "check the path (relative paths are relative to the configuration file)",
            )
        )
    secret = config.feed.password_file
    if secret is not None and (bad := secret_file_problem(secret, "feed.password_file")):
        problems.append(bad)
    signing = config.feed.signing_key
    if signing is not None and (bad := secret_file_problem(signing, "feed.signing_key")):
        problems.append(bad)
    log = config.log
    if config.fleet is not None and not config.fleet.own_log:
        return problems  # the log goes in the fleet's folder, which joining makes
    if log.is_dir():
        problems.append(
            ConfigProblem(
                "table.log", f"{log} is a folder", 'name a file in it, e.g. "table.sqlite"'
            )
        )
    elif not log.parent.is_dir():
        problems.append(
            ConfigProblem(
                "table.log",
                f"the folder {log.parent} does not exist",
                "create it (or plug in the drive it is on), or change table.log",
            )
        )
    return problems


def demo_config(folder: Path, *, port: int = 0, log: str = "demo.sqlite") -> TableConfig:
    """The simulated table: synthetic camera, mock pins, the cube's firmware emulated,
    its log ``log`` in ``folder``, the page on this machine only."""
    data: dict[str, object] = {
        "table": {"name": "Demo table", "gpio": "mock", "log": log},
        "camera": {"source": "synthetic"},
        "cube": {"port": "emulator"},
        "web": {"host": "127.0.0.1", "port": port},
    }
    return parse_config(data, Path(folder), "<demo>")


__all__ = [
    "CameraConfig",
    "ConfigError",
    "ConfigProblem",
    "FeedConfig",
    "FleetConfig",
    "KioskConfig",
    "TableConfig",
    "WebConfig",
    "check_files",
    "demo_config",
    "load_config",
    "parse_config",
]
