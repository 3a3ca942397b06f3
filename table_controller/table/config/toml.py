"""The configuration as TOML text: the documented example, and a configuration written
back to a file (``to_toml``) that reads to the same configuration."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import TYPE_CHECKING

from table_controller.devices.pins import DEFAULT_PIN_MAP

if TYPE_CHECKING:
    from table_controller.table.config.model import TableConfig


def example_config() -> str:
    """The documented example (examples/table.toml): every key, commented. It parses."""
    return EXAMPLE


EXAMPLE = """\
# The configuration of one Euchre table: `table-controller run --config table.toml`.
# Check it with `table-controller config check table.toml`; docs/config.md explains
# every key. Paths are relative to this file's folder. Leave a key out for its default.

[table]
name = "Table 1"            # on the page and in the event log; at most 40 characters
log = "table-1.sqlite"      # the event log (default: the name as a file name + .sqlite)
gpio = "auto"               # "auto": the Raspberry Pi's pins; "mock": simulated pins
disk_min_free_mb = 200      # less free space than this where the log is: a fault
# first_dealer = "N"        # the seat dealing first; left out, the rules choose it

[rules]
preset = "td-tournament"    # `table-controller rules list` lists the presets

[rules.options]             # change any option: `table-controller rules show PRESET`
# points_to_win = 11
# hands_per_game = "none"   # "none" empties an option that may be empty

[players]                   # the names shown on the page; at most 24 characters
N = "North"
E = "East"
S = "South"
W = "West"

[camera]
source = "picamera2"        # or "usb:0", "video:FILE", "folder:DIR", "synthetic"
calibration = "calibration/table.json"   # written by `table-controller calibrate`
lost_after = 3.0            # seconds without a frame: "camera lost" on the page
drift_check = 10.0          # seconds between checks that camera and mat stay put; 0: never

[cube]
port = "auto"               # "auto", a path such as "/dev/serial/by-id/usb-MicroPython_...",
                            # "emulator" (the firmware run here), or "none" (no cube)
link_timeout = 2.0          # seconds without a word from the cube: the link is lost
min_rto = 0.025             # seconds before a message is sent again, at least...
max_rto = 0.25              # ...and at most
hello_interval = 0.05       # seconds between hellos while the cube does not answer
handshake_timeout = 3.0     # seconds before the port is closed and opened again
reconnect_interval = 0.25   # seconds between attempts to open a missing port
baudrate = 115200           # the Pico's USB serial ignores it; a UART would not

[web]                       # the live table page (and the kiosk's touchscreen)
host = "127.0.0.1"          # this machine only; "0.0.0.0": every machine on the network
port = 8080                 # open to the network, the page is HTTPS on this port
operator_pin_hash = ""      # the table operator's PIN: `table-controller kiosk pin` makes it
tls_cert = ""               # the page's certificate (PEM); "": the table makes its own
tls_key = ""                # its key (PEM, no password; chmod 600)
insecure = false            # true: plain HTTP on the network (the PIN and cards in clear)

[feed]                      # the director's feed: the table's events sent to an MQTT broker
enabled = false
broker = "localhost"
port = 1883
topic = "euchre"
event = ""                  # the event's name, e.g. "club-night-may"
username = ""               # this table's user on the broker (its id: table-3)
password_file = ""          # the file with its password (secrets/table-3.password; chmod 600)
tls_ca = ""                 # the CA certificate of the broker's, for TLS (docs/feed.md)
director_key = ""           # director.pub: only rulings signed with its key are taken
signing_key = ""            # this table's own key (secrets/table-3.signing.key; chmod 600)
heartbeat = 10.0            # seconds between the table's status messages
public_delay = 0.0          # seconds the public view of this table is held back

[kiosk]                     # `table-controller kiosk`: visitors play, bots fill the seats
visitors = ["S"]            # the seats visitors sit at (one to three); bots play the others
bot_level = "strong"        # "strong" (samples and solves) or "rule-of-thumb"
think_time = 0.05           # seconds a strong bot may think per card
bid_by_search = true        # a strong bot bids by search (false: by the rule of thumb)
bot_pace = 1.5              # seconds a bot waits before acting, so visitors can follow
pin_hash = ""               # the operator's PIN: `table-controller kiosk pin` prints this
walk_away = 180.0           # seconds with no visitor action: the game ends (it stays logged)
attract_after = 60.0        # seconds idle before the bots play a demo hand

# The seat lights and buttons: GPIO (BCM) numbers, not header pin numbers (docs/seats.md).
# `table-controller seats pins` shows them with their header pins.
""" + DEFAULT_PIN_MAP.toml()


# The fleet's example (``config example --fleet``): the director gives a fleet's table
# its name, rules, players and broker (table/config/model.py ``_fleet`` refuses them in the
# file), so the example keeps only what is the table's own, as hardware/first-boot.sh does.
FLEET_HEADER = """\
# The configuration of one table of an event's fleet (docs/fleet.md):
# `table-controller join --config table.toml` asks the event's director to let the table
# in; once approved, the director gives it its name, rules, players and broker, and
# `table-controller run --config table.toml` plays. This file keeps only what is the
# table's own: pins, camera, calibration, cube and page. Check it with
# `table-controller config check table.toml`; docs/config.md explains every key.
# Paths are relative to this file's folder. Leave a key out for its default.

[fleet]                     # this table joins an event's director (docs/fleet.md)
folder = "fleet"            # what the director gives it, and its event log
# fingerprint = "0412 7731 5820 0093 6614"  # join only the director with this key
"""
_FLEET_DROPS = {"rules", "rules.options", "players"}  # whole sections the director gives
_FLEET_FEED_KEEPS = ("heartbeat", "public_delay", "tls_ca")


def fleet_example_config() -> str:
    """The example for a table of an event's fleet, which ``join`` and ``run`` accept
    as it is: ``example_config()`` less what the director gives, with ``[fleet]``."""
    out: list[str] = []
    section = ""
    body = EXAMPLE.split("\n\n", 1)[1]  # the example's header says another story
    for line in body.splitlines():
        if line.startswith("["):
            section = line.split("]", 1)[0].strip("[")
            if section == "feed":
                line = "[feed]                      # the broker comes from the director"
        key = line.split("=", 1)[0].strip() if "=" in line and line[0].isalpha() else None
        if section in _FLEET_DROPS:
            continue
        if section == "table" and key in ("name", "log"):
            continue
        if section == "feed" and key is not None and key not in _FLEET_FEED_KEEPS:
            continue
        out.append(line)
    return FLEET_HEADER + "\n" + "\n".join(out) + "\n"


def to_toml(config: TableConfig) -> str:
    """The configuration as a file ``load_config`` reads back to the same configuration
    (paths written absolute), e.g. to start ``run --config`` on a demo table."""
    out: list[str] = []

    def section(name: str, values: Mapping[str, object]) -> None:
        out.append(f"[{name}]")
        out.extend(f"{k} = {_toml_value(v)}" for k, v in values.items() if v is not None)
        out.append("")

    fleet = config.fleet
    section(
        "table",
        {
            "name": None if fleet else config.name,
            "log": None if fleet and not fleet.own_log else str(config.log),
            "gpio": config.gpio,
            "disk_min_free_mb": config.disk_min_free_mb,
            "first_dealer": config.first_dealer.name if config.first_dealer else None,
        },
    )
    if fleet is None:  # a fleet's table is given them by the director
        section("rules", {"preset": config.rules_name})
        options = {k: "none" if v is None else v for k, v in config.options.items()}
        section("rules.options", options)
        section("players", {s.name: n for s, n in config.players.items()})
    c = config.camera
    cal = str(c.calibration) if c.calibration else None
    section(
        "camera",
        {
            "source": c.source,
            "calibration": cal,
            "lost_after": c.lost_after,
            "drift_check": c.drift_check,
        },
    )
    cube = dataclasses.asdict(config.cube) if config.cube else {"port": "none"}
    section("cube", cube)
    section("web", dataclasses.asdict(config.web))
    feed = dataclasses.asdict(config.feed)
    del feed["tls_check_name"]  # not a key of the file: the fleet's settings set it
    if fleet is not None:
        feed = {k: v for k, v in feed.items() if k in ("heartbeat", "public_delay", "tls_ca")}
        section("fleet", {"folder": str(fleet.folder), "fingerprint": fleet.fingerprint})
    section("feed", feed)
    k = config.kiosk
    kiosk = {**dataclasses.asdict(k), "visitors": [s.name for s in k.visitors]}
    section("kiosk", kiosk)
    out.append(config.pins.toml())
    return "\n".join(out)


def _toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    text = str(value).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{text}"'
