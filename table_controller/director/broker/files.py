"""The fleet broker's files, written before it starts: its conf, the plugin's
``dynamic-security.json`` with the director's two logins and their rights, and their
password files. The passwords are hashed in the plugin's own format (the folder's
docstring says which)."""

from __future__ import annotations

import base64
import glob
import hashlib
import json
import os
import pwd
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from table_controller.director.broker.messages import Acl, DynsecClient, DynsecConfig, PasswordHash
from table_controller.director.json_value import JSONObject, JSONValue
from table_controller.errors import TableControllerError
from table_controller.feed.broker import (
    DATA,
    DIRECTOR_USER,
    MAX_PACKET,
    Tls,
    new_password,
    write_private,
)

ADMIN_USER = "director-admin"
DIRECTOR_ROLE = "director"
ADMIN_ROLE = "director-admin"
DYNSEC_FILE = "dynamic-security.json"
CONTROL = "$CONTROL/dynamic-security/v1"
RESPONSE = f"{CONTROL}/response"
PLUGIN = "mosquitto_dynamic_security.so"
PLUGIN_GLOBS = (f"/usr/lib/*/{PLUGIN}", f"/usr/lib/{PLUGIN}", f"/usr/local/lib/{PLUGIN}")
_ITERATIONS = 101  # mosquitto_ctrl's own choice
RESERVED = (DIRECTOR_USER, ADMIN_USER)


class BrokerAdminError(TableControllerError, RuntimeError):
    """The fleet's broker cannot be set up or refused a change: what, and what to do."""


@dataclass(frozen=True)
class FleetBroker:
    """The fleet broker's files: its conf, port, and the director's two logins."""

    conf: Path
    port: int
    director_user: str
    director_password_file: Path
    admin_user: str
    admin_password_file: Path
    dynsec: Path
    tls_ca: Path | None = None  # the CA its TLS listener's certificate is checked against

    @property
    def folder(self) -> Path:
        return self.conf.parent

    def director_password(self) -> str:
        return self.director_password_file.read_text(encoding="utf-8").strip()

    def admin_password(self) -> str:
        return self.admin_password_file.read_text(encoding="utf-8").strip()


def dynsec_hash(password: str, *, salt: bytes | None = None) -> PasswordHash:
    """A client's ``password``, ``salt`` and ``iterations`` as the plugin keeps them."""
    salt = os.urandom(12) if salt is None else salt
    digest = hashlib.pbkdf2_hmac("sha512", password.encode(), salt, _ITERATIONS)
    return {
        "password": base64.b64encode(digest).decode(),
        "salt": base64.b64encode(salt).decode(),
        "iterations": _ITERATIONS,
    }


def find_plugin(patterns: Sequence[str] = PLUGIN_GLOBS) -> Path:
    """The dynamic security plugin's file, or an error in words naming its package."""
    for pattern in patterns:
        for found in sorted(glob.glob(pattern)):
            return Path(found)
    raise BrokerAdminError(
        f"mosquitto's dynamic security plugin ({PLUGIN}) is not on this machine: the "
        "fleet's broker needs it to add tables while the event runs. Install Debian's "
        "package `mosquitto` (version 2.0 or later): `sudo apt-get install mosquitto`"
    )


def _acl(acltype: str, topic: str) -> Acl:
    return {"acltype": acltype, "topic": topic, "allow": True}


def _reads(topic: str) -> list[Acl]:
    return [_acl("subscribePattern", topic), _acl("publishClientReceive", topic)]


def _writes(topic: str) -> list[Acl]:
    return [_acl("publishClientSend", topic)]


def director_acls(prefix: str) -> list[Acl]:
    """The director's service: everything under the event's prefix, both ways."""
    return _writes(f"{prefix}/#") + _reads(f"{prefix}/#") + [_acl("unsubscribePattern", "#")]


def admin_acls() -> list[Acl]:
    """The director's admin login: the plugin's requests out, its answers in."""
    return [
        *_writes("$CONTROL/dynamic-security/#"),
        *_reads(RESPONSE),
        _acl("unsubscribePattern", "#"),
    ]


def table_acls(prefix: str, table: str) -> list[Acl]:
    """One table's rights (SPEC.md): writes its own feed, reads what is sent to it."""
    base = f"{prefix}/tables/{table}"
    acls: list[Acl] = []
    for leaf in ("events", "status", "acks", "evidence/#", "fleet/#"):
        acls += _writes(f"{base}/{leaf}")
    for leaf in ("rulings", "received", "config", "commands"):
        acls += _reads(f"{base}/{leaf}")
    return [*acls, _acl("unsubscribePattern", "#")]


def table_role(table: str) -> str:
    return f"table-{table}"


def _client(username: str, password: str, role: str, text: str) -> DynsecClient:
    hashed = dynsec_hash(password)
    return {
        "username": username,
        "textname": text,
        "password": hashed["password"],
        "salt": hashed["salt"],
        "iterations": hashed["iterations"],
        "roles": [{"rolename": role}],
    }


def dynsec_config(prefix: str, director_password: str, admin_password: str) -> DynsecConfig:
    """The plugin's first file: the director's two clients and their roles; every
    other access refused (a table gets its rights from its own role)."""
    return {
        "clients": [
            _client(DIRECTOR_USER, director_password, DIRECTOR_ROLE, "The director's service"),
            _client(ADMIN_USER, admin_password, ADMIN_ROLE, "The director: adds tables"),
        ],
        "roles": [
            {"rolename": DIRECTOR_ROLE, "acls": director_acls(prefix)},
            {"rolename": ADMIN_ROLE, "acls": admin_acls()},
        ],
        "groups": [],
        "defaultACLAccess": {
            "publishClientSend": False,
            "publishClientReceive": False,
            "subscribe": False,
            "unsubscribe": True,
        },
    }


def fleet_conf(
    folder: Path,
    *,
    plugin: Path,
    port: int,
    host: str,
    user: str,
    tls: Tls | None = None,
    max_packet: int = MAX_PACKET,
) -> str:
    """mosquitto.conf of the fleet's broker; with ``tls``, its one listener takes TLS only
    (``director start``'s default: without it, passwords and cards cross the network in
    clear); ``max_packet``: the largest message it takes, which the director's limits
    give (feed/limits.py ``Limits.max_packet``)."""
    certs = (
        []
        if tls is None
        else [
            f"cafile {tls.cafile}",
            f"certfile {tls.certfile}",
            f"keyfile {tls.keyfile}",
            "tls_version tlsv1.2",
        ]
    )
    return "\n".join(
        [
            "# The fleet's broker (written by `table-controller director start`).",
            f"# Run it with: mosquitto -c {folder / 'mosquitto.conf'}",
            "# mosquitto runs as the user who runs the director (who owns these files).",
            f"user {user}",
            "per_listener_settings false",
            "allow_anonymous false",
            f"plugin {plugin}",
            f"plugin_opt_config_file {folder / DYNSEC_FILE}",
            "max_inflight_messages 100",
            "max_queued_messages 100000",
            # The largest message a client may send (the director's limits: a bigger one
            # ends the connection).
            f"max_packet_size {max_packet}",
            "persistence true",
            f"persistence_location {folder / DATA}/",
            f"listener {port} {host}".rstrip(),
            # Each client's id is its username: no one takes the director's id or session.
            "use_username_as_clientid true",
            *certs,
            "",
        ]
    )


def _director_prefix(config: JSONObject) -> str | None:
    """The event's prefix in a ``dynamic-security.json`` read back (None: not found)."""
    roles = config.get("roles", [])
    for role in roles if isinstance(roles, list) else []:
        if isinstance(role, dict) and role.get("rolename") == DIRECTOR_ROLE:
            acls = role.get("acls", [])
            for acl in acls if isinstance(acls, list) else []:
                topic = str(acl.get("topic", "")) if isinstance(acl, dict) else ""
                if topic.endswith("/#"):
                    return topic[:-2]
    return None


def write_fleet_broker(
    folder: Path,
    *,
    port: int,
    prefix: str,
    host: str = "0.0.0.0",
    plugin_patterns: Sequence[str] = PLUGIN_GLOBS,
    tls: Tls | None = None,
    max_packet: int = MAX_PACKET,
) -> FleetBroker:
    """``folder/mosquitto.conf`` (written each time: the port may change) and, the first
    time, ``folder/dynamic-security.json`` with the director's two clients, their
    passwords in ``folder/secrets/`` (0600). Later calls keep the json: the plugin owns
    it, with every table added since."""
    plugin = find_plugin(plugin_patterns)
    folder = folder.resolve()
    folder.mkdir(parents=True, exist_ok=True)
    secrets_dir = folder / "secrets"
    secrets_dir.mkdir(mode=0o700, exist_ok=True)
    secrets_dir.chmod(0o700)
    (folder / DATA).mkdir(mode=0o700, exist_ok=True)
    director_file = secrets_dir / f"{DIRECTOR_USER}.password"
    admin_file = secrets_dir / f"{ADMIN_USER}.password"
    dynsec = folder / DYNSEC_FILE
    if dynsec.exists():
        try:
            kept: JSONValue = json.loads(dynsec.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise BrokerAdminError(
                f"{dynsec} cannot be read ({exc}): it holds the tables' logins; restore it "
                "from a copy, or start the event in a new --folder"
            ) from None
        had = _director_prefix(kept) if isinstance(kept, dict) else None
        if had is not None and had != prefix:
            raise BrokerAdminError(
                f"{folder} is the broker of another event (its topics: {had}/...), not "
                f"{prefix}/...: give that event's name, or a new --folder for a new event"
            )
        for f in (director_file, admin_file):
            if not f.is_file():
                raise BrokerAdminError(
                    f"{f} is missing, and {dynsec} only keeps its hash: start the event in a "
                    "new --folder, or restore the file from a copy"
                )
    else:
        director_pw, admin_pw = new_password(), new_password()
        write_private(director_file, director_pw + "\n")
        write_private(admin_file, admin_pw + "\n")
        config = dynsec_config(prefix, director_pw, admin_pw)
        write_private(dynsec, json.dumps(config, indent=1) + "\n")
    user = pwd.getpwuid(os.geteuid()).pw_name
    conf = folder / "mosquitto.conf"
    conf.write_text(
        fleet_conf(
            folder, plugin=plugin, port=port, host=host, user=user, tls=tls, max_packet=max_packet
        )
    )
    return FleetBroker(
        conf=conf,
        port=port,
        director_user=DIRECTOR_USER,
        director_password_file=director_file,
        admin_user=ADMIN_USER,
        admin_password_file=admin_file,
        dynsec=dynsec,
        tls_ca=None if tls is None else tls.cafile,
    )
