"""The fleet's broker: mosquitto with its dynamic security plugin, tables added live.

The static mode (``feed broker-config``, ``feed/broker.py``) writes every table's user
before the event; a fleet's tables join while it runs, so their users are made on a
running broker: the dynamic security plugin keeps clients, roles and their rights in
``dynamic-security.json`` and takes changes as requests on
``$CONTROL/dynamic-security/v1`` (``DynsecAdmin``). The plugin writes the file back on
every change, so the tables added survive a restart of the broker.

Two users are the director's: ``director`` (the service: reads and writes the event's
topics) and ``director-admin`` (only adds and removes tables). They differ because each
connection's client id is its username (``use_username_as_clientid``, as in the static
mode: no one takes another's id or session), so the admin connecting as ``director``
would knock the service off.

Passwords are hashed in the plugin's own format: ``password`` = base64 of
PBKDF2-HMAC-SHA512(password, salt, iterations) (64 bytes), ``salt`` = base64 of 12
random bytes, ``iterations`` = 101 (what ``mosquitto_ctrl dynsec init`` writes).
"""

from __future__ import annotations

import base64
import glob
import hashlib
import json
import os
import pwd
import secrets
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol, TypedDict

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
from table_controller.feed.messages import id_problem

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


# --- the plugin's file and requests, as it reads and writes them -----------------------


class PasswordHash(TypedDict):
    """A client's password as the plugin keeps it (see the module's docstring)."""

    password: str
    salt: str
    iterations: int


class Acl(TypedDict):
    """One right of a role: a kind of access (``acltype``) on a topic pattern."""

    acltype: str
    topic: str
    allow: bool


class RoleRef(TypedDict):
    """A role given to a client, by name."""

    rolename: str


class DynsecClient(PasswordHash):
    """A login in ``dynamic-security.json``."""

    username: str
    textname: str
    roles: list[RoleRef]


class DynsecRole(TypedDict):
    """A role in ``dynamic-security.json``: its name and rights."""

    rolename: str
    acls: list[Acl]


class DefaultAccess(TypedDict):
    """What a client may do that no role of its says (the plugin's defaults)."""

    publishClientSend: bool
    publishClientReceive: bool
    subscribe: bool
    unsubscribe: bool


class DynsecConfig(TypedDict):
    """The plugin's file as the director first writes it (the plugin adds to it later)."""

    clients: list[DynsecClient]
    roles: list[DynsecRole]
    groups: list[JSONObject]
    defaultACLAccess: DefaultAccess


# The requests the director sends on ``$CONTROL/dynamic-security/v1``, one per command.


class CreateRole(TypedDict):
    command: Literal["createRole"]
    rolename: str
    acls: list[Acl]


class CreateClient(TypedDict):
    command: Literal["createClient"]
    username: str
    password: str
    textname: str
    roles: list[RoleRef]


class SetClientPassword(TypedDict):
    command: Literal["setClientPassword"]
    username: str
    password: str


class ClientRole(TypedDict):
    """Gives a client a role, or takes it away."""

    command: Literal["addClientRole", "removeClientRole"]
    username: str
    rolename: str


class EnableClient(TypedDict):
    command: Literal["enableClient"]
    username: str


class DeleteClient(TypedDict):
    command: Literal["deleteClient"]
    username: str


class DeleteRole(TypedDict):
    command: Literal["deleteRole"]
    rolename: str


class ListClients(TypedDict):
    command: Literal["listClients"]
    verbose: bool
    count: int
    offset: int


DynsecCommand = (
    CreateRole
    | CreateClient
    | SetClientPassword
    | ClientRole
    | EnableClient
    | DeleteClient
    | DeleteRole
    | ListClients
)


class DynsecReply(TypedDict, total=False):
    """The plugin's answer to one command: ``error`` says why it was refused (absent when
    it was done); ``data`` is what a listing command asked for."""

    command: str
    error: str
    correlationData: str
    data: JSONObject


def dynsec_reply(answer: JSONObject) -> DynsecReply:
    """The fields of an answer decoded from the wire that the director reads, checked."""
    reply: DynsecReply = {}
    if isinstance(command := answer.get("command"), str):
        reply["command"] = command
    if isinstance(error := answer.get("error"), str):
        reply["error"] = error
    if isinstance(cd := answer.get("correlationData"), str):
        reply["correlationData"] = cd
    if isinstance(data := answer.get("data"), dict):
        reply["data"] = data
    return reply


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


# --- adding and removing tables on the running broker ----------------------------------


class TableCredentials(Protocol):
    """Who may log in to the broker as a table: the director's side of joining."""

    def add_table(self, table_id: str) -> str:
        """Makes the table's login (or gives an existing one a new password): its password."""
        ...

    def remove_table(self, table_id: str) -> None:
        """Its connection is dropped and its password refused from then on."""
        ...

    def tables(self) -> list[str]:
        """The tables that may log in, by id."""
        ...


def table_problem(table: str) -> str | None:
    """Why ``table`` cannot be a table's login on the broker (None: it can)."""
    if table in RESERVED:
        return f"{table!r} is one of the director's own logins: name the table differently"
    return id_problem(table)


# What the plugin answers, in words a director reads.
_REFUSED_LOGIN = {
    4: "its password is wrong",
    5: "it is not allowed to log in",
    134: "its password is wrong",
    135: "it is not allowed to log in",
}


class DynsecAdmin:
    """``TableCredentials`` on a running fleet broker: each call is one request on
    ``$CONTROL/dynamic-security/v1`` over a connection of its own, answered within
    ``timeout`` seconds (the answers matched by their ``correlationData``). Calls from
    several threads take turns: the admin's client id is its username, so two
    connections at once would knock each other off."""

    def __init__(
        self,
        host: str,
        port: int,
        username: str,
        password: str,
        *,
        prefix: str,
        timeout: float = 10.0,
        tls_ca: Path | None = None,
    ) -> None:
        self.tls_ca = tls_ca
        self.host = host
        self.port = port
        self.username = username
        self._password = password
        self.prefix = prefix
        self.timeout = timeout
        self._lock = threading.Lock()

    @classmethod
    def of(cls, broker: FleetBroker, *, prefix: str, host: str = "127.0.0.1") -> DynsecAdmin:
        """The admin of a broker ``write_fleet_broker`` wrote (on this machine)."""
        return cls(
            host,
            broker.port,
            broker.admin_user,
            broker.admin_password(),
            prefix=prefix,
            tls_ca=broker.tls_ca,
        )

    # --- TableCredentials --------------------------------------------------------------

    def add_table(self, table_id: str) -> str:
        self._check(table_id)
        password = new_password()
        role = table_role(table_id)
        what = f"add the table {table_id}"
        created = self._request(
            [
                {
                    "command": "createRole",
                    "rolename": role,
                    "acls": table_acls(self.prefix, table_id),
                },
                {
                    "command": "createClient",
                    "username": table_id,
                    "password": password,
                    "textname": f"Table {table_id}",
                    "roles": [{"rolename": role}],
                },
            ],
            what,
        )
        _raise_unless(created[0], what, ok=("Role already exists",))
        if created[1].get("error") == "Client already exists":
            again = self._request(
                [
                    {"command": "setClientPassword", "username": table_id, "password": password},
                    # its role given again (the plugin refuses to add a role it has)
                    {"command": "removeClientRole", "username": table_id, "rolename": role},
                    {"command": "addClientRole", "username": table_id, "rolename": role},
                    {"command": "enableClient", "username": table_id},
                ],
                what,
            )
            for i, answer in enumerate(again):
                if i != 1:
                    _raise_unless(answer, what)
        else:
            _raise_unless(created[1], what)
        return password

    def remove_table(self, table_id: str) -> None:
        self._check(table_id)
        what = f"remove the table {table_id}"
        answers = self._request(
            [
                {"command": "deleteClient", "username": table_id},
                {"command": "deleteRole", "rolename": table_role(table_id)},
            ],
            what,
        )
        _raise_unless(answers[0], what, ok=("Client not found",))
        _raise_unless(answers[1], what, ok=("Role not found",))

    def tables(self) -> list[str]:
        what = "list the tables"
        (answer,) = self._request(
            [{"command": "listClients", "verbose": False, "count": -1, "offset": 0}], what
        )
        _raise_unless(answer, what)
        clients = answer.get("data", {}).get("clients", [])
        listed = clients if isinstance(clients, list) else []
        names = [
            c if isinstance(c, str) else str(c.get("username"))
            for c in listed
            if isinstance(c, str | dict)  # a name, or a client's object (verbose)
        ]
        return sorted(n for n in names if n not in RESERVED)

    # --- the requests ----------------------------------------------------------------

    def _check(self, table_id: str) -> None:
        if (problem := table_problem(table_id)) is not None:
            raise BrokerAdminError(problem)

    def _request(self, commands: Sequence[DynsecCommand], what: str) -> list[DynsecReply]:
        """The plugin's answer to each of ``commands``, in their order."""
        import paho.mqtt.client as mqtt
        from paho.mqtt.enums import CallbackAPIVersion
        from paho.mqtt.properties import Properties
        from paho.mqtt.reasoncodes import ReasonCode

        tag = secrets.token_hex(8)
        order = [f"{tag}-{i}" for i in range(len(commands))]
        tagged: list[dict[str, object]] = [
            {**c, "correlationData": cd} for c, cd in zip(commands, order, strict=True)
        ]
        body = json.dumps({"commands": tagged})
        got: dict[str, DynsecReply] = {}
        problems: list[str] = []
        done = threading.Event()
        where = f"the fleet's broker at {self.host}:{self.port}"

        def on_connect(
            c: mqtt.Client,
            _u: object,
            _f: mqtt.ConnectFlags,
            rc: ReasonCode,
            _p: Properties | None,
        ) -> None:
            if rc.is_failure:
                why = _REFUSED_LOGIN.get(rc.value, str(rc))
                problems.append(
                    f"{where} refused the director's login {self.username} ({why}): check "
                    f"that secrets/{self.username}.password is the one the broker's "
                    "dynamic-security.json was written with"
                )
                done.set()
                return
            c.subscribe(RESPONSE, qos=1)

        def on_subscribe(
            c: mqtt.Client, _u: object, _m: int, rcs: list[ReasonCode], _p: Properties | None
        ) -> None:
            if any(rc.is_failure for rc in rcs):
                problems.append(
                    f"{where} does not let {self.username} read its answers: its "
                    "dynamic-security.json lacks the director's admin role; start the "
                    "event in a new --folder"
                )
                done.set()
                return
            c.publish(CONTROL, body, qos=1)

        def on_message(_c: mqtt.Client, _u: object, msg: mqtt.MQTTMessage) -> None:
            try:
                decoded: JSONValue = json.loads(msg.payload)
            except ValueError:
                return
            if not isinstance(decoded, dict):
                return
            answers = decoded.get("responses", [])
            for answer in answers if isinstance(answers, list) else []:
                if isinstance(answer, dict):
                    reply = dynsec_reply(answer)
                    if (cd := reply.get("correlationData")) is not None and cd in order:
                        got[cd] = reply
            if len(got) == len(order):
                done.set()

        def on_disconnect(
            _c: mqtt.Client,
            _u: object,
            _f: mqtt.DisconnectFlags,
            rc: ReasonCode,
            _p: Properties | None,
        ) -> None:
            if not done.is_set():
                problems.append(f"{where} closed the director's connection ({rc})")
                done.set()

        with self._lock:
            client = mqtt.Client(
                CallbackAPIVersion.VERSION2,
                client_id=self.username,
                clean_session=True,
                protocol=mqtt.MQTTv311,
            )
            client.username_pw_set(self.username, self._password)
            client.on_connect = on_connect
            client.on_subscribe = on_subscribe
            client.on_message = on_message
            client.on_disconnect = on_disconnect
            if self.tls_ca is not None:
                client.tls_set(ca_certs=str(self.tls_ca))
            try:
                client.connect(self.host, self.port, keepalive=30)
            except OSError as exc:
                raise BrokerAdminError(
                    f"cannot {what}: {where} cannot be reached ({exc.strerror or exc}); "
                    "check that the director's broker runs"
                ) from None
            client.loop_start()
            try:
                answered = done.wait(self.timeout)
            finally:
                client.disconnect()
                client.loop_stop()
        if problems:
            raise BrokerAdminError(f"cannot {what}: {problems[0]}")
        if not answered:
            raise BrokerAdminError(
                f"cannot {what}: {where} did not answer within {self.timeout:g} s; check "
                "that it runs with its dynamic security plugin (its mosquitto.log)"
            )
        return [got[cd] for cd in order]


def _raise_unless(answer: DynsecReply, what: str, ok: Sequence[str] = ()) -> None:
    error = answer.get("error")
    if error and error not in ok:
        raise BrokerAdminError(
            f"cannot {what}: the broker said {error!r} to {answer.get('command')}"
        )


__all__ = [
    "ADMIN_USER",
    "CONTROL",
    "DYNSEC_FILE",
    "RESPONSE",
    "Acl",
    "BrokerAdminError",
    "DynsecAdmin",
    "DynsecClient",
    "DynsecCommand",
    "DynsecConfig",
    "DynsecReply",
    "DynsecRole",
    "FleetBroker",
    "PasswordHash",
    "TableCredentials",
    "admin_acls",
    "director_acls",
    "dynsec_config",
    "dynsec_hash",
    "dynsec_reply",
    "find_plugin",
    "table_acls",
    "table_problem",
    "table_role",
    "write_fleet_broker",
]
