"""``table-controller director config example``: the director's settings file to start
from, every key explained in a director's words, which ``table-controller director
--config director.toml`` runs as it is (docs/director.md, "Settings").

The keys are cli.py's ``DEFAULTS``; a test holds the example to them, so a key
added there and not here (or here and not there) is caught, and the ``[limits]`` shown
to their defaults (limits.py). A key with no default (a
file of the director's that may not exist yet: a password, a key, a certificate) is
written commented out, with an example value: the file runs before they exist.
"""

from __future__ import annotations

import argparse
from typing import TextIO

EXAMPLE = """\
# The tournament director's settings: `table-controller director --config director.toml`
# runs the director's service and dashboard with them. docs/director.md ("Settings")
# explains every key. Every key may be left out for its default; a flag on the command
# line (shown after each key) wins over this file. Paths are relative to this file's folder.
# A line starting with # is not read: remove the # to use it.

[event]
name = "club-night"         # --event: the event's name, as the tables' [feed] event says
topic = "euchre"            # --topic: the first part of the tables' topics (leave it)
rules = "td-tournament"     # --rules: the event's rules (`table-controller rules list`)

[director]
database = "director.sqlite"  # --database: where the results are kept; a file made here,
                              # or a PostgreSQL server's "postgresql://USER@HOST/DATABASE"
# key = "director.key"      # --key: the signing key `table-controller director keys`
                            # makes; without it the dashboard shows, but sends no ruling
# public_port = 8091        # --public-port: the public view for the hall's screen on a
                            # port of its own (left out: on the dashboard's, at /public)
# tls_cert = "dashboard.pem"  # --tls-cert: serve the dashboard over HTTPS ("TLS" in
# tls_key = "dashboard.key"   # --tls-key: docs/director.md): its certificate and key
# table_keys = "broker/table-keys.json"  # --table-keys: the tables' signing keys to
                            # register (default: the one beside --key, if there is one)

[web]                       # the dashboard, in a browser: http://THIS-MACHINE:PORT/
host = "0.0.0.0"            # --web-host: "0.0.0.0" every machine on the network can open
                            # it; "127.0.0.1" only this one
port = 8090                 # --web-port: another number when 8090 is taken

[broker]                    # the MQTT broker the tables send their games through
host = "localhost"          # --broker: this machine, or the broker's name on the network
port = 1883                 # --broker-port: 1883, or 8883 with TLS
client_id = "director"      # --client-id: keep it the same from one start to the next
# username = "director"     # --broker-user: the director's user on the broker...
# password_file = "broker/secrets/director.password"  # --broker-password-file: ...and
                            # the file with its password alone (`feed broker-config` makes it)
# tls_ca = "tls/ca.crt"     # --tls-ca: the broker's certificate authority, for TLS

[limits]                    # what each table may send, and what the director keeps of it
                            # (docs/director.md, "Limits"); a limit left out is its default,
                            # shown here; --limit NAME=VALUE on the command line wins
# messages_per_second = 100 # a table's messages a second, sustained (1 to 10,000)...
# messages_at_once = 3000   # ...and at once: its backlog sent again after a reconnect
# mb_per_second = 2         # its MB a second, sustained (0.1 to 1,000)...
# mb_at_once = 40           # ...and at once (at least its largest message)
# status_kb = 64            # a status bigger than this is refused (one is about 1 KB)
# picture_kb = 1024         # an event's picture bigger than this is refused (one: 30 KB)
# camera_kb = 2048          # a camera view (the fleet view's) bigger than this is not kept
# history_statuses = 2000   # the statuses kept per table, its oldest dropped beyond them
# history_mb = 4            # (2,000 is an hour of heartbeats), and their MB at most
# pictures_kept = 20000     # the pictures kept per table: past them (or their MB) a new
# pictures_mb = 800         # one is refused, the older kept: they are the evidence
                            # A bigger picture_kb or camera_kb needs a broker that takes
                            # it: `feed broker-config ... --director-config director.toml`
"""


def example_settings() -> str:
    """The documented example: every key of ``DEFAULTS``, commented. It loads."""
    return EXAMPLE


def cmd_example(args: argparse.Namespace, out: TextIO) -> int:
    from table_controller.table.config.cli import write_example

    then = (
        "edit it (every key is explained in it), then start the director: "
        f"`table-controller director --config {args.out}`"
    )
    return write_example(example_settings(), args.out, out, then)


def add_command(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``config example`` to the ``director`` command group's subparsers."""
    config = subparsers.add_parser(
        "config",
        help="the director's settings file: print an example to start from",
        description="The director's settings (TOML); every key is in docs/director.md.",
    )
    sub = config.add_subparsers(dest="director_config_command", required=True, metavar="COMMAND")
    example = sub.add_parser(
        "example", help="print the director's settings, every key explained, to edit"
    )
    example.add_argument("--out", metavar="FILE", help="write it to FILE (never overwritten)")
    example.set_defaults(func=cmd_example)


__all__ = ["EXAMPLE", "add_command", "example_settings"]
