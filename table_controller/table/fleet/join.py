"""A table asks the director to join, and waits for the director's approval.

The table's X25519 key pair is kept in its fleet folder (``join.key``, 0600), so a
table that restarts while waiting asks with the same key, the director's request for it
stays the same one, and it shows the same code. The table takes only a director that
gave its public key (an announcement or hello without one is refused, in words: anyone
on the network can announce a "director"), and, given ``fingerprint``
(``join --fingerprint``), only the director whose key has that fingerprint.

The table asks (``POST /api/fleet/join``); the director answers with the request's
salt, and the table works out its code and check itself (``sealing.join_check``, of
the director's key, its own key and the salt) and shows them (``on_code``), with the
director's key fingerprint. Then it asks for the answer with a growing pause (each ask
keeps the request alive at the director's): approved, it opens the sealed bundle with
its private key, checks that the bundle carries the very key the director announced,
and keeps it (``membership.save``); refused, it says why. While the director cannot be
reached it keeps trying, and says so (``on_words``), until ``stop`` is set.
"""

from __future__ import annotations

import base64
import binascii
import json
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping
from pathlib import Path

from table_controller import __version__
from table_controller.errors import TableControllerError
from table_controller.feed.messages import MachineClaim
from table_controller.fleet import discovery, sealing
from table_controller.fleet.discovery import DiscoveryError, Found
from table_controller.fleet.sealing import JoinCheck
from table_controller.table.fleet import membership
from table_controller.table.fleet.membership import Membership, MembershipError

KEY_FILE = "join.key"
FIRST_PAUSE = 1.0
MAX_PAUSE = 10.0
GROWTH = 1.5
HTTP_TIMEOUT = 10.0
FIND_TIMEOUT = 5.0
REMIND = 60.0  # seconds between "still waiting" words
Sleep = Callable[[float], None]
Finder = Callable[[float], list[Found]]
OnCode = Callable[[JoinCheck, Found], None]


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
    fingerprint: str | None = None,
    on_code: OnCode,
    on_words: Callable[[str], None],
    stop: threading.Event | None = None,
    clock: Callable[[], float] = time.monotonic,
    sleep: Sleep | None = None,
    find: Finder = discovery.find_directors,
    machine: MachineClaim | None = None,
) -> Membership:
    """Join the director (found on the network when ``director`` is None) and return
    the table's membership, kept in ``folder``. ``fingerprint``: the director's key
    fingerprint as the director's screen shows it; a director with another key is
    refused. ``machine``: which machine this is (table/fleet/identity.py), told with
    the request and each poll, so the director sees two machines asking with one key
    (a copied SD card). A membership already there is returned as it is; one that cannot be read
    is an error (MembershipError), never replaced."""
    have = membership.load(folder)
    if have is not None:
        return have
    pinned = None if fingerprint is None else discovery.normal_fingerprint(fingerprint)
    stop = stop or threading.Event()
    wait: Sleep = sleep if sleep is not None else _waiting_on(stop)
    private = table_key(folder)
    public = sealing.public_of(private)
    if director is not None:
        _refused(director, pinned)
    found = director or _discover(find, on_words, stop, wait, pinned)
    director_key = discovery.key_der(found.key)
    on_words(f"asking {found.words()} to join")
    asker = _Asker(found, public, on_words, stop, wait, machine)
    request, salt = asker.ask()
    shown = sealing.join_check(director_key, public, salt)
    code = shown.code
    on_code(shown, found)
    on_words(
        f"waiting for the director to approve code {code} (check {shown.check}; the "
        f"director's key {found.key_fingerprint})"
    )
    pause = FIRST_PAUSE
    since = said = clock()
    while True:
        if clock() - said >= REMIND:
            said = clock()
            minutes = round((said - since) / 60)
            on_words(f"still waiting for the director to approve code {code} ({minutes} min)")
        _pause(wait, stop, pause)
        pause = min(MAX_PAUSE, pause * GROWTH)
        status, body = asker.get(f"/api/fleet/join/{request}{asker.polled_as()}")
        if status == 404:
            on_words("the director forgot this table's request (it restarted?): asking again")
            request, salt = asker.ask()
            shown = sealing.join_check(director_key, public, salt)
            if shown.code != code:
                code = shown.code
                on_code(shown, found)
                on_words(f"the code is now {code} (check {shown.check})")
            continue
        if status != 200:
            continue  # said by the asker; tried again
        state = body.get("state")
        if state == "refused":
            raise JoinError(
                f"the director refused this table: {body.get('reason') or 'no reason given'}"
            )
        if state == "approved":
            m = _opened(private, body.get("sealed"), found, public)
            membership.save(folder, m)
            on_words(f"joined {m.event} as {m.name}")
            return m


def _refused(found: Found, pinned: str | None) -> None:
    """JoinError in words when ``found`` gave no usable key, or (``pinned``) another key
    than the one the person gave."""
    if found.key_problem:
        raise JoinError(
            f"the director at {found.host}:{found.port} is refused: {found.key_problem}"
        )
    if pinned is not None and found.key_fingerprint != pinned:
        raise JoinError(
            f"the director at {found.host}:{found.port} has key {found.key_fingerprint}, not "
            f"{pinned} as pinned (--fingerprint, or [fleet] fingerprint): it is refused. "
            "Another machine may be posing as the director: check the fingerprint on the "
            "director's screen and the address"
        )


def _discover(
    find: Finder,
    on_words: Callable[[str], None],
    stop: threading.Event,
    wait: Sleep,
    pinned: str | None = None,
) -> Found:
    """The one director on the network with a usable key (and, ``pinned``, that key),
    looked for until found; every other one is said and left out; two or more: an error
    naming them (the table cannot choose)."""
    pause = FIRST_PAUSE
    while True:
        if stop.is_set():
            raise JoinStopped("joining stopped before a director was found")
        try:
            announced = find(FIND_TIMEOUT)
        except DiscoveryError as exc:
            on_words(f"{exc}; still trying")
            announced = []
        found, refused = [], []
        for one in announced:
            try:
                _refused(one, pinned)
            except JoinError as exc:
                refused.append(f"{exc} (announced as {one.event!r})")
                continue
            found.append(one)
        if len(found) == 1:
            return found[0]
        if len(found) > 1:
            names = "; ".join(f.words() for f in found)
            raise JoinError(
                f"{len(found)} directors are announced on this network ({names}): give the "
                "one to join with --director HOST:PORT"
            )
        if refused:  # said at every look: the page shows it while the table waits
            on_words(
                "; ".join(refused) + ". Still looking for the event's director: tell the "
                "director, and check the director's screen for its key"
            )
        else:
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
        machine: MachineClaim | None = None,
    ) -> None:
        self.found = found
        self.public = public
        self.on_words = on_words
        self.stop = stop
        self.wait = wait
        self.machine = machine

    def polled_as(self) -> str:
        """The poll's query naming this machine ("" when not known): each poll says
        the machine still asks, so the director sees when only one is left."""
        if self.machine is None:
            return ""
        return "?" + urllib.parse.urlencode({"machine": self.machine["id"]})

    def ask(self) -> tuple[str, bytes]:
        """A request to join: its id and salt (tried until the director takes it)."""
        body = {
            "v": 2,
            "key": base64.b64encode(self.public).decode(),
            "host": socket.gethostname(),
            "version": __version__,
        }
        if self.machine is not None:
            body["machine"] = self.machine
        pause = FIRST_PAUSE
        while True:
            status, answer = self.send("/api/fleet/join", body)
            salt = _salt(answer.get("salt"))
            if status == 202 and isinstance(answer.get("request"), str) and salt:
                return str(answer["request"]), salt
            if status in (400, 413):  # it will never take this request as it is
                raise JoinError(
                    f"the director refused the request to join: {answer.get('problem')}; "
                    "update this table to the director's release"
                )
            _pause(self.wait, self.stop, pause)
            pause = min(MAX_PAUSE, pause * GROWTH)

    def get(self, path: str) -> tuple[int, dict[str, object]]:
        return self.send(path, None)

    def send(self, path: str, body: Mapping[str, object] | None) -> tuple[int, dict[str, object]]:
        """(status, JSON answer, each value checked where it is read); status 0 when the
        director cannot be reached. Every answer but a success is said through
        ``on_words``."""
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(
            self.found.url + path,
            data=data,
            method="GET" if body is None else "POST",
            headers={"Content-Type": "application/json"} if body is not None else {},
        )
        try:
            context = discovery.first_contact() if self.found.tls else None
            with urllib.request.urlopen(req, timeout=HTTP_TIMEOUT, context=context) as r:
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


def _json(data: bytes) -> dict[str, object]:
    try:
        obj = json.loads(data)
    except ValueError:
        return {}
    return obj if isinstance(obj, dict) else {}


def _salt(value: object) -> bytes:
    """The request's salt of the director's answer; b"" when there is none."""
    try:
        salt = base64.b64decode(value, validate=True) if isinstance(value, str) else b""
    except (binascii.Error, ValueError):
        return b""
    return salt if 8 <= len(salt) <= 64 else b""


def _opened(private: bytes, sealed: object, found: Found, public: bytes) -> Membership:
    """The membership in the director's sealed bundle, signed by the key it carries,
    checked against the director found; JoinError in words."""
    try:
        raw = base64.b64decode(sealed, validate=True) if isinstance(sealed, str) else b""
        bundle = json.loads(sealing.open(private, raw))
        if not isinstance(bundle, dict):
            raise ValueError("not an object")
        sealing.check_bundle(bundle, public)
        m = Membership.of_bundle(bundle, host=found.host, port=found.port)
    except (binascii.Error, ValueError, sealing.SealError, MembershipError) as exc:
        raise JoinError(f"the director's answer cannot be used ({exc})") from None
    try:
        same = discovery.key_text(m.director_key.encode()) == found.key
    except DiscoveryError:
        same = False
    if not same:
        raise JoinError(
            f"the director's answer carries another key than the key {found.key_fingerprint} "
            "it announced: another machine answered, and nothing was kept; check the "
            "network and join again"
        )
    return m


__all__ = ["KEY_FILE", "JoinError", "JoinStopped", "OnCode", "join", "table_key"]
