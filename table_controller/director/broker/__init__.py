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

The folder: ``files.py`` writes the broker's files before it starts, ``admin.py`` changes
the running broker, ``messages.py`` types what the plugin reads and answers.
"""

from __future__ import annotations

from table_controller.director.broker.admin import DynsecAdmin, TableCredentials, table_problem
from table_controller.director.broker.files import (
    ADMIN_USER,
    CONTROL,
    DYNSEC_FILE,
    RESPONSE,
    BrokerAdminError,
    FleetBroker,
    admin_acls,
    director_acls,
    dynsec_config,
    dynsec_hash,
    find_plugin,
    fleet_conf,
    table_acls,
    table_role,
    write_fleet_broker,
)
from table_controller.director.broker.messages import (
    Acl,
    DynsecClient,
    DynsecCommand,
    DynsecConfig,
    DynsecReply,
    DynsecRole,
    PasswordHash,
    dynsec_reply,
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
    "fleet_conf",
    "table_acls",
    "table_problem",
    "table_role",
    "write_fleet_broker",
]
