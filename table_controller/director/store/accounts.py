"""The directors' logins and sessions, and the audit log they answer to.

Why a part of its own: this is the store's security boundary. Passwords are kept as
Argon2id hashes (``logins``), sessions as their token's SHA-256 (a copy of the database
gives no session to use), every failed login is audited with where it came from, and a
new password ends every session opened with the old one. The audit log (append-only:
the database refuses UPDATE and DELETE) is read here; each part writes its own lines
in the transaction of the change they record.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from typing import TypedDict

from table_controller.director import logins
from table_controller.director.store.core import StoreCore
from table_controller.director.store.db import StoreError

SESSION_SECONDS = 12 * 3600


def _token_key(token: str) -> str:
    """A session as stored: the token's SHA-256, so reading the database (a backup, a
    copy) gives no session to use."""
    return hashlib.sha256(token.encode()).hexdigest()


class AuditLine(TypedDict):
    """A line of the audit log: who did what, to which table, why (``audit()``)."""

    id: int
    at: float
    who: str
    action: str
    table: str | None
    ruling_id: str | None
    reason: str | None
    detail: str


class Accounts:
    """Directors' logins, their sessions, and the audit log."""

    def __init__(self, core: StoreCore) -> None:
        self._core = core

    def add_login(self, name: str, password: str) -> None:
        """A director's login (a new one, or a new password for an existing one: every
        session opened with the old password ends)."""
        if not name.strip():
            raise StoreError("a login needs a name: the director's own, e.g. 'ann'")
        if len(password) < 8:
            raise StoreError("the password is too short: use at least 8 characters")
        digest = logins.hash_password(password)
        now = self._core.clock()
        with self._core.tx() as conn:
            conn.execute(
                "INSERT INTO directors VALUES (?, ?, ?, ?) ON CONFLICT (name) DO UPDATE"
                " SET salt = excluded.salt, hash = excluded.hash",
                (name, b"", digest, now),
            )
            conn.execute("DELETE FROM sessions WHERE name = ?", (name,))
            conn.execute(
                "INSERT INTO audit (at, who, action, detail) VALUES (?, ?, 'login_set', '{}')",
                (now, name),
            )

    def logins(self) -> list[str]:
        return [r[0] for r in self._core.rows("SELECT name FROM directors ORDER BY name")]

    def login(self, name: str, password: str, *, address: str = "") -> str | None:
        """A new session's token for the right password, else None (and the failure in
        the audit log, with the address it came from). Slow on purpose (the hash):
        call it off the event loop. An unknown name costs what a known one does."""
        rows = self._core.rows("SELECT salt, hash FROM directors WHERE name = ?", (name,))
        salt, stored = (bytes(rows[0][0]), bytes(rows[0][1])) if rows else (None, None)
        ok, rehash = logins.verify(password, salt, stored)
        now = self._core.clock()
        if not ok:
            detail = json.dumps({"address": address, "known": bool(rows)})
            with self._core.tx() as conn:
                conn.execute(
                    "INSERT INTO audit (at, who, action, detail) VALUES (?, ?, 'login_failed', ?)",
                    (now, name[:80], detail),
                )
            return None
        new_hash = logins.hash_password(password) if rehash else None
        token = secrets.token_urlsafe(32)
        with self._core.tx() as conn:
            conn.execute("DELETE FROM sessions WHERE expires < ?", (now,))
            if new_hash is not None:  # an older hash (scrypt): Argon2id from now on
                conn.execute(
                    "UPDATE directors SET salt = ?, hash = ? WHERE name = ?",
                    (b"", new_hash, name),
                )
            conn.execute(
                "INSERT INTO sessions VALUES (?, ?, ?)",
                (_token_key(token), name, now + SESSION_SECONDS),
            )
        return token

    def session(self, token: str | None) -> str | None:
        """The director logged in with ``token``, or None (unknown or expired)."""
        if not token:
            return None
        rows = self._core.rows(
            "SELECT name, expires FROM sessions WHERE token = ?", (_token_key(token),)
        )
        if not rows or rows[0][1] < self._core.clock():
            return None
        return str(rows[0][0])

    def logout(self, token: str) -> None:
        with self._core.tx() as conn:
            conn.execute("DELETE FROM sessions WHERE token = ?", (_token_key(token),))

    def audit(self) -> list[AuditLine]:
        """Every line of the audit log, oldest first."""
        return [
            AuditLine(
                id=id_,
                at=at,
                who=who,
                action=action,
                table=tbl,
                ruling_id=ruling_id,
                reason=reason,
                detail=detail,
            )
            for id_, at, who, action, tbl, ruling_id, reason, detail in self._core.rows(
                "SELECT id, at, who, action, tbl, ruling_id, reason, detail FROM audit ORDER BY id"
            )
        ]


__all__ = ["SESSION_SECONDS", "Accounts", "AuditLine"]
