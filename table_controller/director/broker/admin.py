"""Adding and removing tables on the running broker: ``DynsecAdmin`` sends the plugin
its commands as the ``director-admin`` login and reads its replies, so a table that
joins can log in at once and one that is removed is knocked off."""

from __future__ import annotations

import json
import secrets
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from table_controller.director.broker.files import (
    CONTROL,
    RESERVED,
    RESPONSE,
    BrokerAdminError,
    FleetBroker,
    table_acls,
    table_role,
)
from table_controller.director.broker.messages import DynsecCommand, DynsecReply, dynsec_reply
from table_controller.director.json_value import JSONValue
from table_controller.feed.broker import (
    new_password,
)
from table_controller.feed.messages import id_problem

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
