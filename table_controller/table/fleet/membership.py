"""What a table keeps once the director approved it: its name and id, its broker login,
the event, and the director's public key (to check signed rulings and orders).

Three files in the table's fleet folder, each readable by its owner only (0600) and
written atomically (a new file renamed over the old, so a power cut leaves the old one
or the new one, never half of either): ``membership.json``, ``director.pub`` and
``broker.password``; a fourth when the director gave the table a signing key,
``table.signing.key`` (it signs its events and status with it: feed/table_signing.py);
and ``director-ca.crt``, the event's certificate authority, when the director serves
TLS (its default): the table checks the broker and the dashboard against it alone.
A file that is there but cannot be read is an error in words: joining again would
replace credentials the director still counts as this table's.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path

from table_controller.errors import TableControllerError

MEMBERSHIP = "membership.json"
DIRECTOR_KEY = "director.pub"
PASSWORD = "broker.password"
SIGNING_KEY = "table.signing.key"
CA = "director-ca.crt"
_TEXT = ("table", "name", "username", "topic", "event", "rules", "director_host")
_NUMBERS = ("broker_port", "director_port")


class MembershipError(TableControllerError, OSError):
    """The table's membership cannot be read or kept: which file, what to do."""


@dataclass(frozen=True)
class Membership:
    """The director's bundle (fleet/sealing.py) and where the director was reached."""

    table: str
    name: str
    username: str
    password: str
    broker_port: int
    topic: str
    event: str
    rules: str
    director_key: str  # the director's public key, PEM text
    director_host: str
    director_port: int
    options: dict[str, object] = field(default_factory=dict)  # the event's rules' options
    signing_key: str = ""  # the table's own private key, PEM text ("": none was given)
    ca: str = ""  # the event's CA certificate, PEM text ("": the director serves in clear)

    @property
    def tls(self) -> bool:
        return bool(self.ca)

    @classmethod
    def of_bundle(cls, bundle: Mapping[str, object], *, host: str, port: int) -> Membership:
        """The membership a director's opened bundle gives; MembershipError if a field
        is missing or of the wrong kind."""
        try:
            return _checked({**bundle, "director_host": host, "director_port": port})
        except MembershipError as exc:
            raise MembershipError(
                f"the director's bundle is not complete ({exc}): check that the table and "
                "the director run the same release"
            ) from None


def _checked(data: Mapping[str, object]) -> Membership:
    text: dict[str, str] = {}
    for key in (*_TEXT, "password", "director_key"):
        value = data.get(key)
        if not isinstance(value, str) or not value:
            raise MembershipError(f"{key} is missing")
        text[key] = value
    ports: dict[str, int] = {}
    for key in _NUMBERS:
        number = data.get(key)
        if type(number) is not int or not 0 < number < 65536:
            raise MembershipError(f"{key} is not a port number")
        ports[key] = number
    options = data.get("options", {})
    if not isinstance(options, dict):
        raise MembershipError("options is not a table of options")
    signing_key = data.get("signing_key", "")
    if not isinstance(signing_key, str):
        raise MembershipError("signing_key is not a key")
    ca = data.get("ca", "")
    if not isinstance(ca, str) or (ca and "BEGIN CERTIFICATE" not in ca):
        raise MembershipError("ca is not a certificate")
    return Membership(
        table=text["table"],
        name=text["name"],
        username=text["username"],
        password=text["password"],
        broker_port=ports["broker_port"],
        topic=text["topic"],
        event=text["event"],
        rules=text["rules"],
        director_key=text["director_key"],
        director_host=text["director_host"],
        director_port=ports["director_port"],
        options=options,
        signing_key=signing_key,
        ca=ca,
    )


def load(folder: Path) -> Membership | None:
    """The table's membership, or None if it has not joined (no membership.json)."""
    path = folder / MEMBERSHIP
    if not path.exists():
        return None
    fix = (
        f"restore it from a backup, or, to join again as a new table, ask the director to "
        f"remove this table and delete {folder}"
    )
    try:
        loaded = json.loads(path.read_text(encoding="utf-8"))
        # Not an object: said by _checked below.
        data: dict[str, object] = loaded if isinstance(loaded, dict) else {"not": "a membership"}
        data["password"] = (folder / PASSWORD).read_text(encoding="utf-8").strip()
        data["director_key"] = (folder / DIRECTOR_KEY).read_text(encoding="utf-8")
        if (folder / SIGNING_KEY).exists():
            data["signing_key"] = (folder / SIGNING_KEY).read_text(encoding="utf-8")
        if (folder / CA).exists():
            data["ca"] = (folder / CA).read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise MembershipError(
            f"the table's membership in {folder} is incomplete ({Path(str(exc.filename)).name}"
            f" is missing): {fix}"
        ) from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise MembershipError(f"{path} cannot be read ({exc}): {fix}") from None
    try:
        return _checked(data)
    except MembershipError as exc:
        raise MembershipError(f"{path} is damaged ({exc}): {fix}") from None


def save(folder: Path, m: Membership) -> None:
    """Keep ``m`` in ``folder`` (made 0700 if new): the password and the key first, the
    membership last, so a membership.json always has its two partners."""
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        data = asdict(m)
        password = data.pop("password")
        key = data.pop("director_key")
        signing = data.pop("signing_key")
        ca = data.pop("ca")
        write_private(folder / PASSWORD, password.encode() + b"\n")
        if ca:
            write_private(folder / CA, ca.encode())
        write_private(folder / DIRECTOR_KEY, key.encode())
        if signing:
            write_private(folder / SIGNING_KEY, signing.encode())
        write_private(
            folder / MEMBERSHIP, json.dumps(data, indent=2, sort_keys=True).encode() + b"\n"
        )
    except OSError as exc:
        raise MembershipError(
            f"the table's membership cannot be written in {folder} ({exc}): check the disk "
            "(free space, permissions)"
        ) from None


def write_private(path: Path, data: bytes) -> None:
    """``data`` in ``path``, readable by its owner only, atomically (fsync'd, renamed)."""
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".new")
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    with contextlib.suppress(OSError):  # the rename itself, kept through a power cut
        dir_fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


__all__ = ["CA", "Membership", "MembershipError", "load", "save", "write_private"]
