"""The broker's configuration for one event: mosquitto.conf, its users and their rights.

Every table gets a user of its own (named after its id) that may write only its own
topics and read only its own rulings and received mark; the director's user reads
everything and is the only one that may write rulings and received marks. Passwords
are hashed in mosquitto 2's own format (``$7$``: PBKDF2-SHA512, 101 iterations,
12-byte salt; what ``mosquitto_passwd`` writes), so the director's machine needs no
tool besides mosquitto itself.

Each connection's client id is its username (``use_username_as_clientid``): no one can
take the director's id (``director``) to knock it off, or resume its persistent session
and read what the broker kept for it. Passwords in clear go only into files readable by
their owner: ``passwords.txt`` and ``secrets/{user}.password``, the file a table's
``[feed] password_file`` names.

A password can be sniffed or copied, so each table also gets a signing key of its own
(feed/table_signing.py): ``secrets/{table}.signing.key``, which its ``[feed]
signing_key`` names, and its public half in ``table-keys.json``, which the director
registers when it starts (``director start`` reads it beside its ``--key``). A table's
key is kept when the files are written again, so a table need not be given it twice.

The broker takes no message bigger than ``max_packet`` (``max_packet_size``: a client
that sends one is disconnected): by default ``MAX_PACKET``, the largest a table sends
being a camera frame for the fleet view (at most 2 MB as JPEG, in base64). The
director's limits (feed/limits.py ``Limits.max_packet``) give another, passed in,
when they let a table send more (`feed broker-config --director-config`).
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import pwd
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from table_controller.feed.messages import Topics, name_problem, table_id

DIRECTOR_USER = "director"
MAX_PACKET = 4 * 1024 * 1024  # bytes: the broker's max_packet_size by default
TABLE_KEYS = "table-keys.json"  # each table's public signing key, for the director
_ITERATIONS = 101  # mosquitto_passwd's own choice


@dataclass(frozen=True)
class Tls:
    """The broker's certificate files (docs/feed.md, "TLS")."""

    cafile: Path
    certfile: Path
    keyfile: Path
    port: int = 8883


def password_hash(password: str, *, salt: bytes | None = None) -> str:
    """The password as mosquitto's password file keeps it."""
    salt = os.urandom(12) if salt is None else salt
    digest = hashlib.pbkdf2_hmac("sha512", password.encode(), salt, _ITERATIONS)
    return f"$7${_ITERATIONS}${base64.b64encode(salt).decode()}${base64.b64encode(digest).decode()}"


def new_password() -> str:
    return secrets.token_urlsafe(18)


def table_ids(tables: Sequence[str]) -> list[str]:
    """``["12"]`` -> table-1 ... table-12; else each name as its id; refuses repeats."""
    if len(tables) == 1 and tables[0].isdigit():
        count = int(tables[0])
        if not 1 <= count <= 1000:
            raise ValueError(f"{count} tables: give a number from 1 to 1000, or the names")
        return [f"table-{n}" for n in range(1, count + 1)]
    for t in tables:
        if (bad := name_problem(t)) is not None:
            raise ValueError(bad)
    ids = [table_id(t) for t in tables]
    repeated = sorted({i for i in ids if ids.count(i) > 1})
    if repeated:
        raise ValueError(
            f"two tables would have the same id ({', '.join(repeated)}): give them "
            "names that differ in letters or digits"
        )
    if DIRECTOR_USER in ids:
        raise ValueError('"director" is the director\'s user: name that table differently')
    return ids


def acl(topics: Topics, tables: Sequence[str]) -> str:
    """The access list: each table its own topics, the director all and the rulings."""
    lines = [
        "# Who may read and write what (written by `table-controller feed broker-config`).",
        f"user {DIRECTOR_USER}",
        f"topic read {topics.prefix}/tables/#",
        f"topic write {topics.prefix}/tables/+/rulings",
        f"topic write {topics.prefix}/tables/+/received",
        "",
    ]
    for t in tables:
        lines += [
            f"user {t}",
            f"topic write {topics.events(t)}",
            f"topic write {topics.table(t)}/evidence/#",
            f"topic write {topics.status(t)}",
            f"topic write {topics.acks(t)}",
            f"topic read {topics.rulings(t)}",
            f"topic read {topics.received(t)}",
            "",
        ]
    return "\n".join(lines)


def password_file(passwords: Mapping[str, str]) -> str:
    return "".join(f"{user}:{password_hash(pw)}\n" for user, pw in passwords.items())


def mosquitto_conf(
    folder: Path,
    *,
    port: int = 1883,
    bind: str = "",
    tls: Tls | None = None,
    persistence: bool = True,
    user: str | None = None,
    max_packet: int = MAX_PACKET,
) -> str:
    """mosquitto.conf using the password and acl files in ``folder``; ``user``: the user
    mosquitto started as root runs as (``broker_user``), None: no ``user`` line;
    ``max_packet``: the largest message in bytes (the director's limits')."""
    lines = [
        "# The director's broker (written by `table-controller feed broker-config`).",
        "# Run it with: mosquitto -c " + str(folder / "mosquitto.conf"),
    ]
    if user is not None:
        lines += [
            "# Started as root, mosquitto runs as this user, who can read its files and",
            "# write its data/ folder; started as any other user, this line does nothing.",
            f"user {user}",
        ]
    lines += [
        "per_listener_settings false",
        "allow_anonymous false",
        f"password_file {folder / 'passwords'}",
        f"acl_file {folder / 'acl'}",
        "max_inflight_messages 100",
        "max_queued_messages 100000",
        "# The largest message (bytes) a client may send; a bigger one ends its connection.",
        f"max_packet_size {max_packet}",
    ]
    if persistence:
        lines += ["persistence true", f"persistence_location {folder / DATA}/"]
    else:
        lines += ["persistence false"]
    where = f" {bind}" if bind else ""
    lines += [
        "# The address the broker listens on (`--bind`); without one, every network of "
        "this machine.",
        f"listener {port if tls is None else tls.port}{where}",
        # A listener's own setting: under its line. Each client's id is its username, so
        # no one takes another's id (the director's) or its session.
        "use_username_as_clientid true",
    ]
    if tls is not None:
        lines += [
            f"cafile {tls.cafile}",
            f"certfile {tls.certfile}",
            f"keyfile {tls.keyfile}",
            "tls_version tlsv1.2",
        ]
    return "\n".join(lines) + "\n"


DATA = "data"  # the broker's own folder (its persistence file), in the event's folder
BROKER_USER = "mosquitto"  # the user mosquitto's packages run it as


@dataclass(frozen=True)
class RunAs:
    """The user mosquitto runs as when started as root (its ``user`` line), whether the
    files it reads must be handed to that user, and why when it is not the usual one."""

    name: str
    uid: int | None = None  # hand the broker's files to this uid (None: they are its own)
    gid: int | None = None
    why: str = ""


def _reachable(folder: Path, uid: int, gid: int, stat: Callable[[Path], os.stat_result]) -> bool:
    """Whether ``uid`` can walk into ``folder`` (each folder down to it searchable)."""
    for p in [*reversed(folder.parents), folder]:
        st = stat(p)
        if st.st_uid == uid:
            ok = st.st_mode & 0o100
        elif st.st_gid == gid:
            ok = st.st_mode & 0o010
        else:
            ok = st.st_mode & 0o001
        if not ok:
            return False
    return True


def broker_user(
    folder: Path,
    *,
    euid: int | None = None,
    users: Callable[[str], Any] = pwd.getpwnam,
    user_of: Callable[[int], Any] = pwd.getpwuid,
    stat: Callable[[Path], os.stat_result] = os.stat,
) -> RunAs:
    """Who the broker runs as, so that ``mosquitto -c FOLDER/mosquitto.conf`` works
    whoever starts it. mosquitto started as root drops to its ``user`` (by default
    ``mosquitto``), and only then opens the password file and its data: a user who
    cannot read them stops it at once.

    Written by a user other than root: that user, who owns the files (root starting it
    drops to them; they starting it, the line does nothing). Written by root: the
    ``mosquitto`` user, the files it reads handed to it, when it exists and can reach
    ``folder``; else root itself, and ``why``."""
    uid = os.geteuid() if euid is None else euid
    if uid != 0:
        return RunAs(user_of(uid).pw_name)
    try:
        broker = users(BROKER_USER)
    except KeyError:
        return RunAs("root", why=f"there is no user {BROKER_USER} on this machine")
    if not _reachable(folder, broker.pw_uid, broker.pw_gid, stat):
        return RunAs(
            "root",
            why=f"the user {BROKER_USER} cannot reach {folder} (a folder above it is closed "
            "to other users): to run the broker as that user, write its files elsewhere, "
            "e.g. --out /etc/mosquitto/euchre",
        )
    return RunAs(BROKER_USER, broker.pw_uid, broker.pw_gid)


@dataclass(frozen=True)
class BrokerFiles:
    folder: Path
    passwords: dict[str, str]  # user -> password in clear (for the tables' configs)
    run_as: RunAs = RunAs("root")
    signing_keys: dict[str, bytes] = field(default_factory=dict)  # table -> public PEM


def write_broker_config(
    folder: Path,
    topics: Topics,
    tables: Sequence[str],
    *,
    port: int = 1883,
    bind: str = "",
    tls: Tls | None = None,
    persistence: bool = True,
    passwords: Mapping[str, str] | None = None,
    run_as: RunAs | None = None,
    signing: bool = True,
    max_packet: int = MAX_PACKET,
) -> BrokerFiles:
    """mosquitto.conf, passwords (hashed), acl, the broker's data/ folder, and
    passwords.txt (clear, keep it safe). ``run_as``: who the broker runs as (default:
    ``broker_user``); what it reads is handed to that user, the secrets stay the
    writer's. ``signing``: each table's signing key too (``write_table_keys``).
    ``max_packet``: the largest message the broker takes (the director's limits')."""
    folder = folder.resolve()
    folder.mkdir(parents=True, exist_ok=True)
    who = run_as if run_as is not None else broker_user(folder)
    users = [DIRECTOR_USER, *tables]
    given = dict(passwords or {})
    clear = {u: given.get(u) or new_password() for u in users}
    conf = mosquitto_conf(
        folder,
        port=port,
        bind=bind,
        tls=tls,
        persistence=persistence,
        user=who.name,
        max_packet=max_packet,
    )
    (folder / "mosquitto.conf").write_text(conf)
    write_private(folder / "passwords", password_file(clear))
    (folder / "acl").write_text(acl(topics, tables))
    data = folder / DATA
    data.mkdir(mode=0o700, exist_ok=True)
    if who.uid is not None and who.gid is not None:
        # mosquitto reads its .conf as root, the rest after dropping to its user (which
        # later versions want to own them); the secrets in clear stay the writer's.
        for path in (folder / "passwords", folder / "acl", data):
            os.chown(path, who.uid, who.gid)
    write_private(
        folder / "passwords.txt",
        "# user password -- each table's is also in secrets/{user}.password\n"
        + "".join(f"{u} {p}\n" for u, p in clear.items()),
    )
    secrets_dir = folder / "secrets"
    secrets_dir.mkdir(mode=0o700, exist_ok=True)
    secrets_dir.chmod(0o700)
    for user, pw in clear.items():
        write_private(secrets_dir / f"{user}.password", pw + "\n")
    keys = write_table_keys(folder, tables) if signing else {}
    return BrokerFiles(folder, clear, who, keys)


def write_table_keys(folder: Path, tables: Sequence[str]) -> dict[str, bytes]:
    """Each table's signing key in ``secrets/{table}.signing.key`` (0600; one already
    there is kept) and every public half in ``table-keys.json``: table -> public PEM."""
    from table_controller.feed.table_signing import (  # cryptography: the [feed] extra
        load_private,
        new_table_key,
        public_pem,
    )

    public: dict[str, bytes] = {}
    for t in tables:
        path = folder / "secrets" / f"{t}.signing.key"
        if path.is_file():
            key = load_private(path.read_bytes(), where=str(path))
            public[t] = public_pem(key.public_key())
            continue
        pair = new_table_key()
        write_private(path, pair.private_pem)
        public[t] = pair.public_pem
    text = json.dumps({t: pem.decode("ascii") for t, pem in public.items()}, indent=2)
    (folder / TABLE_KEYS).write_text(text + "\n")
    return public


def read_table_keys(path: Path) -> dict[str, str]:
    """``table-keys.json`` as table -> public PEM; ValueError in words when it is not one."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ValueError(
            f"{path} cannot be read ({exc}): write it again with `table-controller feed "
            "broker-config`"
        ) from None
    if not isinstance(data, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in data.items()
    ):
        raise ValueError(
            f"{path} is not a list of tables' keys: write it again with `table-controller "
            "feed broker-config`"
        )
    return data


def write_private(path: Path, data: str | bytes) -> None:
    """Written readable by its owner only, from the first byte (mosquitto warns about a
    readable password file; a key or a password must never be readable by others)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data.encode() if isinstance(data, str) else data)
    path.chmod(0o600)


__all__ = [
    "BROKER_USER",
    "DATA",
    "DIRECTOR_USER",
    "MAX_PACKET",
    "TABLE_KEYS",
    "BrokerFiles",
    "RunAs",
    "Tls",
    "acl",
    "broker_user",
    "mosquitto_conf",
    "new_password",
    "password_file",
    "password_hash",
    "read_table_keys",
    "table_ids",
    "write_broker_config",
    "write_private",
    "write_table_keys",
]
