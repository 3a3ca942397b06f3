"""Directors' passwords and the brake on guessing them.

Passwords are hashed with Argon2id (argon2-cffi, a maintained library rather than our
own crypto), at OWASP's minimum cost (19 MiB, 2 passes): a few tens of milliseconds,
run off the dashboard's event loop by the caller. Logins made before (scrypt, a salt
and 32 raw bytes) still verify and are rehashed to Argon2id at their next good login.
An unknown name is checked against a dummy hash, so it costs what a known one costs
and its answer's time does not tell which names exist.

``LoginThrottle`` slows guessing: after a few failures a name (or an address) must wait
before its next try, the wait doubling with each further failure up to a ceiling. A try
counts as a failure from the moment it starts (until it succeeds), so parallel guesses
cannot all slip in before the first one is judged.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

# OWASP's Argon2id minimum: m=19 MiB, t=2, p=1 (two guesses at once cost 38 MiB).
HASHER = PasswordHasher(time_cost=2, memory_cost=19 * 1024, parallelism=1)
_SCRYPT = {"n": 2**14, "r": 8, "p": 1, "dklen": 32}  # the hashes of earlier releases
ARGON2 = b"$argon2"


def hash_password(password: str) -> bytes:
    """A new Argon2id hash (its own salt and parameters inside), as stored."""
    return HASHER.hash(password).encode()


@functools.cache
def _dummy() -> bytes:
    return hash_password(secrets.token_urlsafe(16))


def verify(password: str, salt: bytes | None, stored: bytes | None) -> tuple[bool, bool]:
    """(the password matches, the stored hash should be replaced by a new Argon2id one).
    ``stored`` None (no such director): checked against a dummy hash all the same."""
    if stored is None or (not stored.startswith(ARGON2) and not salt):
        _check_argon2(password, _dummy())
        return False, False
    if stored.startswith(ARGON2):
        ok = _check_argon2(password, stored)
        return ok, ok and HASHER.check_needs_rehash(stored.decode())
    assert salt is not None
    ok = hmac.compare_digest(hashlib.scrypt(password.encode(), salt=salt, **_SCRYPT), stored)
    return ok, ok


def _check_argon2(password: str, stored: bytes) -> bool:
    try:
        return HASHER.verify(stored.decode(), password)
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


@dataclass
class _Tries:
    failures: int = 0
    last: float = 0.0


class LoginThrottle:
    """Failed logins per name and per address, and how long each must wait (seconds).

    ``free`` failures are allowed back to back; then each one doubles the wait, from
    ``base`` up to ``ceiling``. ``clock`` is injectable so tests drive it."""

    def __init__(
        self,
        *,
        free_per_name: int = 5,
        free_per_address: int = 20,
        base: float = 1.0,
        ceiling: float = 900.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._free = {"name": free_per_name, "address": free_per_address}
        self._base = base
        self._ceiling = ceiling
        self._clock = clock
        self._tries: dict[tuple[str, str], _Tries] = {}

    def wait(self, name: str, address: str) -> tuple[float, str]:
        """(seconds still to wait, "name" or "address"); (0, "") when a try may go ahead."""
        now = self._clock()
        worst = (0.0, "")
        for key in (("name", name), ("address", address)):
            tries = self._tries.get(key)
            if tries is None:
                continue
            extra = tries.failures - self._free[key[0]]
            if extra < 0:
                continue
            left = tries.last + min(self._base * 2.0**extra, self._ceiling) - now
            if left > worst[0]:
                worst = (left, key[0])
        return worst

    def begin(self, name: str, address: str) -> None:
        """A try starts: counted as failed until ``succeeded`` says otherwise."""
        now = self._clock()
        if len(self._tries) > 10_000:  # forget what is long past, keep memory bounded
            self._tries = {k: t for k, t in self._tries.items() if now - t.last < 2 * self._ceiling}
        for key in (("name", name), ("address", address)):
            tries = self._tries.setdefault(key, _Tries())
            tries.failures += 1
            tries.last = now

    def succeeded(self, name: str, address: str) -> None:
        self._tries.pop(("name", name), None)
        self._tries.pop(("address", address), None)


__all__ = ["HASHER", "LoginThrottle", "hash_password", "verify"]
