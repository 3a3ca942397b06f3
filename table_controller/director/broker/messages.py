"""What the dynamic security plugin reads and answers, as typed shapes: its file
(``dynamic-security.json``), each command the director sends on
``$CONTROL/dynamic-security/v1`` and the plugin's reply. The keys are the plugin's own,
so each shape is the JSON it reads or writes, in its order."""

from __future__ import annotations

from typing import Literal, TypedDict

from table_controller.director.json_value import JSONObject

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
