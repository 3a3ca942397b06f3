"""Directors' passwords and the brake on guessing them.

Passwords are hashed with Argon2id (argon2-cffi, a maintained library rather than our
own crypto), at OWASP's minimum cost (19 MiB, 2 passes): a few tens of milliseconds,
run off the dashboard's event loop by the caller. Logins made before (scrypt, a salt
and 32 raw bytes) still verify and are rehashed to Argon2id at their next good login.
An unknown name is checked against a dummy hash, so it costs what a known one costs
and its answer's time does not tell which names exist.

``LoginThrottle`` slows guessing: after a few failures a name from one address (or an
address for any name) must wait before its next try, the wait doubling with each further
failure up to a ceiling; a name from many addresses, and all logins at once, are slowed
a little, never locked for long, so a stranger cannot keep a director out. A try counts
as a failure from the moment it starts (until it succeeds), so parallel guesses cannot
all slip in before the first one is judged.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import secrets
import time
from collections.abc import Callable

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from table_controller.throttle import Key, Rule, Throttle, address_key

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


class LoginThrottle:
    """Failed logins, and how long the next try must wait (seconds), so guessing is slow
    and a stranger cannot lock a director out (issue: 37 wrong passwords from a visitor's
    address once kept the director out of their own laptop for 15 minutes).

    The brakes (``table_controller.throttle``): the pair (name, address) after
    ``free_per_pair`` failures and the address after ``free_per_address`` (many names
    from one place), each doubling up to ``ceiling``; a name from every address after
    ``free_per_name`` within ``forget_name`` s, and every login at once after
    ``free_everywhere`` within ``forget_everywhere`` s, each doubling only up to a short
    ceiling: a swarm of addresses is slowed, no one is locked out for long. A name and
    address that logged in before pass the name's and the global brakes. Sessions are
    never touched: a director already logged in goes on. ``clock`` is injectable so
    tests drive it; at most ``most`` keys are held."""

    def __init__(
        self,
        *,
        free_per_pair: int = 5,
        free_per_address: int = 20,
        free_per_name: int = 30,
        free_everywhere: int = 300,
        base: float = 1.0,
        ceiling: float = 900.0,
        name_ceiling: float = 60.0,
        everywhere_ceiling: float = 5.0,
        forget_name: float = 600.0,
        forget_everywhere: float = 60.0,
        most: int = 10_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        long_forget = 2 * ceiling + 3600.0  # an hour's quiet after the longest wait
        self.throttle = Throttle(
            {
                "pair": Rule(free_per_pair, base, ceiling, long_forget),
                "address": Rule(free_per_address, base, ceiling, long_forget),
                "name": Rule(free_per_name, base, name_ceiling, forget_name),
                "everywhere": Rule(free_everywhere, base, everywhere_ceiling, forget_everywhere),
            },
            most=most,
            clock=clock,
        )

    @staticmethod
    def _keys(name: str, address: str) -> dict[str, Key]:
        where = address_key(address)
        return {
            "pair": ("pair", f"{where} {name}"),
            "address": ("address", where),
            "name": ("name", name),
            "everywhere": ("everywhere", ""),
        }

    def wait(self, name: str, address: str) -> tuple[float, str]:
        """(seconds still to wait, which brake: "pair", "address", "name" or
        "everywhere"); (0, "") when a try may go ahead."""
        keys = self._keys(name, address)
        if self.throttle.trusted(keys["pair"]):
            return self.throttle.wait([keys["pair"]])
        return self.throttle.wait(keys.values())

    def begin(self, name: str, address: str) -> None:
        """A try starts: counted as failed until ``succeeded`` says otherwise."""
        self.throttle.failed(self._keys(name, address).values())

    def succeeded(self, name: str, address: str) -> None:
        """The right password: this name from this address starts again and is trusted
        from now on; the name's and the global counts stay (a swarm goes on being slow)."""
        keys = self._keys(name, address)
        self.throttle.forgive([keys["pair"], keys["address"]])
        self.throttle.undo([keys["name"], keys["everywhere"]])  # this try was no failure
        self.throttle.trust(keys["pair"])

    def __len__(self) -> int:
        return len(self.throttle)


__all__ = ["HASHER", "LoginThrottle", "hash_password", "verify"]
