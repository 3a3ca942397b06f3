"""A table asks the director to join, and waits for the director's approval.

The table's X25519 key pair is kept in its fleet folder (``join.key``, 0600), so a
table that restarts while waiting shows the same code (``sealing.code_of``) and the
director's request for it stays the same one. The table asks (``POST /api/fleet/join``),
shows its code (``on_code``), then asks for the answer with a growing pause: approved,
it opens the sealed bundle with its private key, checks that it comes from the director
it found (the key fingerprint the announcement showed), and keeps it
(``membership.save``); refused, it says why. While the director cannot be reached it
keeps trying, and says so (``on_words``), until ``stop`` is set.
"""

from __future__ import annotations

import base64
import binascii
import json
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from table_controller import __version__
from table_controller.errors import TableControllerError
from table_controller.fleet import discovery, membership, sealing
from table_controller.fleet.discovery import DiscoveryError, Found
from table_controller.fleet.membership import Membership, MembershipError

KEY_FILE = "join.key"
FIRST_PAUSE = 1.0
MAX_PAUSE = 10.0
GROWTH = 1.5
HTTP_TIMEOUT = 10.0
FIND_TIMEOUT = 5.0
REMIND = 60.0  # seconds between "still waiting" words
Sleep = Callable[[float], None]
Finder = Callable[[float], list[Found]]


class JoinError(TableControllerError):
    """The table could not join: what happened, what to do."""


class JoinStopped(JoinError):
    """Joining was stopped (the service shutting down) before the director approved."""


def table_key(folder: Path) -> bytes:
    """The table's private key for joining, made and kept in ``folder`` the first time."""
    path = folder / KEY_FILE
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raw = b""
    except OSError as exc:
        raise JoinError(f"{path} cannot be read ({exc}): check the disk") from None
    if raw:
        if len(raw) != sealing.KEY_BYTES:
            raise JoinError(
                f"{path} is damaged (not a key): delete it and join again (the table shows "
                "a new code)"
            )
        return raw
    raw = sealing.new_private()
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        membership.write_private(path, raw)
    except OSError as exc:
        raise JoinError(
            f"the table's key cannot be kept in {folder} ({exc}): check the disk"
        ) from None
    return raw


def join(
    folder: Path,
    *,
    director: Found | None = None,
    on_code: Callable[[str, Found], None],
    on_words: Callable[[str], None],
    stop: threading.Event | None = None,
    clock: Callable[[], float] = time.monotonic,
    sleep: Sleep | None = None,
    find: Finder = discovery.find_directors,
) -> Membership:
    """Join the director (found on the network when ``director`` is None) and return
    the table's membership, kept in ``folder``. A membership already there is returned
    as it is; one that cannot be read is an error (MembershipError), never replaced."""
    have = membership.load(folder)
    if have is not None:
        return have
    stop = stop or threading.Event()
    wait: Sleep = sleep if sleep is not None else _waiting_on(stop)
    private = table_key(folder)
    public = sealing.public_of(private)
    code = sealing.code_of(public)
    found = director or _discover(find, on_words, stop, wait)
    on_words(f"asking {found.words()} to join")
    asker = _Asker(found, public, on_words, stop, wait)
    request = asker.ask()
    on_code(code, found)
    on_words(f"waiting for the director to approve code {code}")
    pause = FIRST_PAUSE
    since = said = clock()
    while True:
        if clock() - said >= REMIND:
            said = clock()
            minutes = round((said - since) / 60)
            on_words(f"still waiting for the director to approve code {code} ({minutes} min)")
        _pause(wait, stop, pause)
        pause = min(MAX_PAUSE, pause * GROWTH)
        status, body = asker.get(f"/api/fleet/join/{request}")
        if status == 404:
            on_words("the director forgot this table's request (it restarted?): asking again")
            request = asker.ask()
            continue
        if status != 200:
            continue  # said by the asker; tried again
        state = body.get("state")
        if state == "refused":
            raise JoinError(
                f"the director refused this table: {body.get('reason') or 'no reason given'}"
            )
        if state == "approved":
            m = _opened(private, body.get("sealed"), found)
            membership.save(folder, m)
            on_words(f"joined {m.event} as {m.name}")
            return m


def _discover(
    find: Finder, on_words: Callable[[str], None], stop: threading.Event, wait: Sleep
) -> Found:
    """The one director on the network, looked for until found; two or more: an error
    naming them (the table cannot choose)."""
    pause = FIRST_PAUSE
    while True:
        if stop.is_set():
            raise JoinStopped("joining stopped before a director was found")
        try:
            found = find(FIND_TIMEOUT)
        except DiscoveryError as exc:
            on_words(f"{exc}; still trying")
            found = []
        if len(found) == 1:
            return found[0]
        if len(found) > 1:
            names = "; ".join(f.words() for f in found)
            raise JoinError(
                f"{len(found)} directors are announced on this network ({names}): give the "
                "one to join with --director HOST:PORT"
            )
        on_words(
            "no director found on this network yet: still looking (check that the "
            "director's service runs on this network, or give its address with "
            "--director HOST:PORT)"
        )
        _pause(wait, stop, pause)
        pause = min(MAX_PAUSE, pause * GROWTH)


def _waiting_on(stop: threading.Event) -> Sleep:
    """A pause that ends early when ``stop`` is set."""

    def wait(seconds: float) -> None:
        stop.wait(seconds)

    return wait


def _pause(wait: Sleep, stop: threading.Event, seconds: float) -> None:
    wait(seconds)
    if stop.is_set():
        raise JoinStopped("joining stopped before the director approved this table")


class _Asker:
    """The table's HTTP to the director: answers it can use, else words and a retry."""

    def __init__(
        self,
        found: Found,
        public: bytes,
        on_words: Callable[[str], None],
        stop: threading.Event,
        wait: Sleep,
    ) -> None:
        self.found = found
        self.public = public
        self.on_words = on_words
        self.stop = stop
        self.wait = wait

    def ask(self) -> str:
        """A request to join: its id (tried until the director takes it)."""
        body = {
            "v": 1,
            "key": base64.b64encode(self.public).decode(),
            "host": socket.gethostname(),
            "version": __version__,
        }
        pause = FIRST_PAUSE
        while True:
            status, answer = self.send("/api/fleet/join", body)
            if status == 202 and isinstance(answer.get("request"), str):
                return str(answer["request"])
            if status in (400, 413):  # it will never take this request as it is
                raise JoinError(
                    f"the director refused the request to join: {answer.get('problem')}; "
                    "update this table to the director's release"
                )
            _pause(self.wait, self.stop, pause)
            pause = min(MAX_PAUSE, pause * GROWTH)

    def get(self, path: str) -> tuple[int, dict[str, Any]]:
        return self.send(path, None)

    def send(self, path: str, body: dict[str, Any] | None) -> tuple[int, dict[str, Any]]:
        """(status, JSON answer); status 0 when the director cannot be reached. Every
        answer but a success is said through ``on_words``."""
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(
            self.found.url + path,
            data=data,
            method="GET" if body is None else "POST",
            headers={"Content-Type": "application/json"} if body is not None else {},
        )
        try:
            with urllib.request.urlopen(req, timeout=HTTP_TIMEOUT) as r:
                return r.status, _json(r.read(65_536))
        except urllib.error.HTTPError as exc:
            answer = _json(exc.read(65_536))
            if exc.code != 404:
                problem = answer.get("problem") or exc.reason
                self.on_words(f"the director answered: {problem}; trying again")
            return exc.code, answer
        except (OSError, ValueError) as exc:
            reason = getattr(exc, "reason", exc)
            self.on_words(
                f"the director at {self.found.host}:{self.found.port} cannot be reached "
                f"({reason}): still trying (check that its service runs and this table is "
                "on its network)"
            )
            return 0, {}


def _json(data: bytes) -> dict[str, Any]:
    try:
        obj = json.loads(data)
    except ValueError:
        return {}
    return obj if isinstance(obj, dict) else {}


def _opened(private: bytes, sealed: Any, found: Found) -> Membership:
    """The membership in the director's sealed bundle, checked against the director
    found; JoinError in words."""
    try:
        raw = base64.b64decode(sealed, validate=True) if isinstance(sealed, str) else b""
        bundle = json.loads(sealing.open(private, raw))
        if not isinstance(bundle, dict):
            raise ValueError("not an object")
        m = Membership.of_bundle(bundle, host=found.host, port=found.port)
    except (binascii.Error, ValueError, sealing.SealError, MembershipError) as exc:
        raise JoinError(f"the director's answer cannot be used ({exc})") from None
    fingerprint = discovery.key_fingerprint(m.director_key.encode())
    if found.key_fingerprint and fingerprint != found.key_fingerprint:
        raise JoinError(
            f"the bundle is signed by key {fingerprint}, not by the key {found.key_fingerprint}"
            " the director announced: another machine answered; check the network and join "
            "again"
        )
    return m


__all__ = ["KEY_FILE", "JoinError", "JoinStopped", "join", "table_key"]
