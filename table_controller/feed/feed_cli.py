"""``table-controller feed``: the broker's files for an event, and the director's keys."""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path
from typing import Any, TextIO

from table_controller.commands import help_of
from table_controller.feed.broker import Tls, table_ids, write_broker_config, write_private
from table_controller.feed.messages import Topics

DOCS = "docs/feed.md"


def _write_keys(folder: Path, out: TextIO) -> bool:
    private, public = folder / "director.key", folder / "director.pub"
    if private.exists():
        out.write(f"kept the director's key pair already in {folder}\n")
        return True
    from table_controller.feed.signing import new_keys  # cryptography: the [feed] extra

    key, pub = new_keys()
    folder.mkdir(parents=True, exist_ok=True)
    write_private(private, key)
    public.write_bytes(pub)
    out.write(
        f"wrote {private} (keep it on the director's machine only) and {public} "
        "(copy it to every table: [feed] director_key)\n"
    )
    return True


def cmd_keys(args: argparse.Namespace, out: TextIO) -> int:
    _write_keys(Path(args.out), out)
    return 0


def _max_packet(config: str | None) -> int | None:
    """The largest message the broker takes: what the director's ``[limits]`` in
    ``config`` let a table send (the defaults' without one); None, said, when the file
    cannot be used. The same file the director runs with, so the two cannot differ."""
    from table_controller.feed.limits import Limits, LimitsError
    from table_controller.safe_toml import loads_limited

    if config is None:
        return Limits().max_packet
    try:
        data = loads_limited(Path(config).read_text(encoding="utf-8"))
        given = data.get("limits", {})
        if not isinstance(given, dict):
            raise ValueError("[limits] is not a table of NAME = VALUE")
        return Limits.of(given).max_packet
    except OSError as exc:
        print(f"--director-config: {config} cannot be read ({exc.strerror}): check the path",
              file=sys.stderr)  # fmt: skip
    except (LimitsError, ValueError) as exc:
        print(f"--director-config: {config}: {exc}", file=sys.stderr)
    return None


def cmd_broker_config(args: argparse.Namespace, out: TextIO) -> int:
    try:
        tables = table_ids(args.tables)
    except ValueError as exc:
        print(f"--tables: {exc}", file=sys.stderr)
        return 2
    tls = None
    if args.tls:
        folder = Path(args.tls)
        args.tls_ca = args.tls_ca or str(folder / "ca.crt")
        args.tls_cert = args.tls_cert or str(folder / "broker.crt")
        args.tls_key = args.tls_key or str(folder / "broker.key")
        missing = [f for f in (args.tls_ca, args.tls_cert, args.tls_key) if not Path(f).is_file()]
        if missing:
            print(
                f"--tls: there is no {missing[0]}: make the certificates first with "
                f"`table-controller feed tls-certs --out {folder} --host NAME`",
                file=sys.stderr,
            )
            return 2
    if args.tls_cert or args.tls_key or args.tls_ca:
        if not (args.tls_cert and args.tls_key and args.tls_ca):
            print(
                "TLS needs all three files: --tls-ca, --tls-cert and --tls-key "
                f"(how to make them: {DOCS}, TLS)",
                file=sys.stderr,
            )
            return 2
        tls = Tls(
            Path(args.tls_ca).resolve(),
            Path(args.tls_cert).resolve(),
            Path(args.tls_key).resolve(),
            port=args.port or 8883,
        )
    max_packet = _max_packet(getattr(args, "director_config", None))
    if max_packet is None:
        return 2
    folder = Path(args.out)
    files = write_broker_config(
        folder,
        Topics.of(args.topic, args.event),
        tables,
        port=args.port or 1883,
        bind=args.bind,
        tls=tls,
        max_packet=max_packet,
    )
    _write_keys(folder, out)
    where = f"on {args.bind}" if args.bind else "on every network of this machine"
    port = tls.port if tls else (args.port or 1883)
    run_as = files.run_as
    why = f" ({run_as.why})" if run_as.why else ""
    out.write(
        f"wrote the broker's files for {len(tables)} tables in {files.folder}:\n"
        f"  mosquitto -c {shlex.quote(str(files.folder / 'mosquitto.conf'))}   "
        f"(port {port} {where}{', TLS' if tls else ''}; started as root, it runs as "
        f"{run_as.name}{why})\n"
        f"  secrets/TABLE.password: copy each to its table ([feed] username = TABLE, "
        "password_file), chmod 600; keep passwords.txt safe\n"
        f"  secrets/TABLE.signing.key: copy each to its table ([feed] signing_key), chmod "
        f"600; the director registers {files.folder / 'table-keys.json'} when it starts "
        "(beside its --key)\n"
    )
    return 0


def cmd_tls_certs(args: argparse.Namespace, out: TextIO) -> int:
    folder = Path(args.out)
    if (folder / "ca.crt").exists():
        print(
            f"{folder / 'ca.crt'} exists and is kept (the tables trust it): use another "
            "--out, or delete the folder to start a new CA",
            file=sys.stderr,
        )
        return 2
    try:
        from table_controller.feed.tls import DAYS, make_certs  # cryptography, as above

        files = make_certs(folder, args.host, days=DAYS if args.days is None else args.days)
    except (ValueError, OSError) as exc:
        print(f"tls-certs: {exc}", file=sys.stderr)
        return 2
    out.write(
        f"wrote {files.ca_cert} (copy it to every table: [feed] tls_ca; and the director: "
        f"--tls-ca), {files.cert} and {files.key} (the broker's), {files.ca_key} (keep it "
        f"off the network); for the names {', '.join(args.host)}. Next: "
        f"`table-controller feed broker-config ... --tls {folder}`\n"
    )
    return 0


def add_commands(subparsers: Any) -> None:
    """Add the ``feed`` command group to a ``table-controller`` parser's subparsers."""
    feed = subparsers.add_parser(
        "feed",
        help=help_of("feed"),
        description=f"The director's feed over MQTT; see {DOCS}.",
    )
    sub = feed.add_subparsers(dest="feed_command", required=True, metavar="COMMAND")
    broker = sub.add_parser(
        "broker-config",
        help="write mosquitto.conf, the passwords, the access list and the director's keys",
    )
    broker.add_argument("--event", required=True, help='the event\'s name, e.g. "club-night-may"')
    broker.add_argument(
        "--tables",
        required=True,
        nargs="+",
        metavar="N|NAME",
        help="how many tables (table-1 ... table-N), or each table's name",
    )
    broker.add_argument("--out", required=True, metavar="DIR", help="the folder to write")
    broker.add_argument("--topic", default="euchre", help="the topic prefix ([feed] topic)")
    broker.add_argument("--port", type=int, default=0, help="1883, or 8883 with TLS")
    broker.add_argument(
        "--bind",
        default="",
        metavar="ADDRESS",
        help="listen on this address only (the director's address on the venue's network); "
        "default: every network of this machine",
    )
    broker.add_argument(
        "--tls", metavar="DIR", help="listen with TLS only, with the files `feed tls-certs` made"
    )
    broker.add_argument("--tls-ca", help="the CA certificate (TLS)")
    broker.add_argument("--tls-cert", help="the broker's certificate (TLS)")
    broker.add_argument("--tls-key", help="the broker's private key (TLS)")
    broker.add_argument(
        "--director-config",
        metavar="DIRECTOR.toml",
        help="the director's settings: the broker takes messages as big as their [limits] "
        "let a table send (default: the default limits')",
    )
    broker.set_defaults(func=cmd_broker_config)
    certs = sub.add_parser(
        "tls-certs", help="make a CA and the broker's TLS certificate (docs/feed.md, TLS)"
    )
    certs.add_argument("--out", required=True, metavar="DIR", help="the folder to write")
    certs.add_argument(
        "--host",
        required=True,
        nargs="+",
        metavar="NAME",
        help="the broker's names or IP addresses, as the tables' [feed] broker says",
    )
    certs.add_argument(
        "--days", type=int, default=None, help="how long they are valid (default 400)"
    )
    certs.set_defaults(func=cmd_tls_certs)
    keys = sub.add_parser("keys", help="make the director's key pair for signing rulings")
    keys.add_argument("--out", required=True, metavar="DIR", help="the folder to write")
    keys.set_defaults(func=cmd_keys)


__all__ = ["add_commands"]
