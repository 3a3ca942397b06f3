"""What the director checks of each message a table sends before it stores it: that it is
signed by the key registered for the table (feed/table_signing.py; a picture,
feed/picture_signing.py), and that a status, an answer to a ruling or a fleet answer
comes after the newest of its kind taken from that table (feed/table_order.py).

Why a part of its own: the checks are the same for every kind of message, and every
refusal is said the same way: not stored, and one alert about the table while it is
open (a stream of bad messages is one alert, not one a message). The service
(director/service.py) asks, then stores, then has the place kept (``taken``) in the
same transaction.

A table with no key registered (a table of an older release, or one set up without
keys) is taken as before, and so is an unsigned message from a fleet's table whose key
is not enforced yet (store/table_keys.py): neither has a place worth keeping. A signed
status or answer without its place (a table of the release before places) is taken
until a place of that table is kept, as a key is enforced from the table's first
signed message: a table is held to places from its first placed message.

What comes again is not always an attack. The broker sends the director again what it
had not acknowledged when their connection dropped (MQTT's ``dup`` flag), and each
table's retained status whenever the director subscribes (``retain``): such a copy,
not after the newest place, is dropped without a word. One that comes fresh is someone
sending a captured message again: refused, with the alert. (A broker restarted from an
old save may send its old copies fresh: the alert says to close it then.)
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass

from table_controller.director.json_value import JSONValue
from table_controller.director.store import DirectorStore
from table_controller.feed.picture_signing import check_picture
from table_controller.feed.table_order import Place, is_ordered, key_words, place_of
from table_controller.feed.table_signing import SIG, Verdict, check_message, words

log = logging.getLogger(__name__)

FIX = '(docs/feed.md, "Signed messages")'


@dataclass(frozen=True)
class Decision:
    """What to do with one message. ``take``: store it; ``alerted``: an alert was raised
    (the dashboard is told); ``place``: its place, kept once it is stored."""

    take: bool
    alerted: bool = False
    place: Place | None = None
    # Its signature held (or the table signs nothing): whatever it claims is the
    # table's own claim, though it may be refused as out of its order.
    authentic: bool = True


@dataclass(frozen=True)
class PictureDecision:
    """A picture's decision, and its own bytes (the signature taken off) to store."""

    decision: Decision
    picture: bytes


TAKE = Decision(take=True)


class TableTrust:
    """The checks on what the tables send, and their alerts, over the director's store."""

    def __init__(self, store: DirectorStore) -> None:
        self._store = store

    def message(
        self,
        table: str,
        kind: str,
        body: Mapping[str, JSONValue],
        now: float,
        *,
        copy: bool = False,
    ) -> Decision:
        """Whether ``body`` (a JSON message of ``kind`` from ``table``) may be stored.
        ``copy``: it came as the broker's copy (``dup`` or ``retain``), not fresh."""
        registered = self._store.keys.table_key(table)
        key = None if registered is None else registered.key
        if registered is not None and not registered.enforced and SIG not in body:
            key = None  # a fleet's table not yet seen signing: it may be of an older release
        verdict = check_message(kind, body, key, table=table)
        if not verdict.ok:
            where = ""
            if kind == "events":
                where = f" (game {body.get('game')!s:.12}, event {body.get('seq')!s:.12})"
            return self._unsigned(table, kind, verdict, where, now)
        self._enforce(table, verdict)
        if key is None or not is_ordered(kind):
            return TAKE
        return self._in_order(table, kind, place_of(body), now, copy)

    def picture(
        self, table: str, kind: str, game: int, seq: int, wire: bytes, now: float
    ) -> PictureDecision:
        """Whether a picture of ``kind`` (``evidence`` or ``evidence/clear``) that came as
        ``wire`` for (``game``, ``seq``) may be stored, and its bytes to store."""
        registered = self._store.keys.table_key(table)
        key = None if registered is None else registered.key
        checked = check_picture(kind, table, game, seq, wire, key)
        verdict = checked.verdict
        if registered is not None and not registered.enforced and not verdict.signed:
            return PictureDecision(TAKE, checked.picture)  # not yet seen signing
        if not verdict.ok:
            where = "" if verdict.signed else f" (game {game}, event {seq})"
            return PictureDecision(self._unsigned(table, kind, verdict, where, now), b"")
        self._enforce(table, verdict)
        return PictureDecision(TAKE, checked.picture)

    def taken(self, table: str, kind: str, decision: Decision) -> None:
        """The message was stored: its place is the newest of its kind now."""
        if decision.place is not None:
            self._store.order.keep_place(table, kind, decision.place.key)

    # --- what is refused ------------------------------------------------------------------

    def _enforce(self, table: str, verdict: Verdict) -> None:
        registered = self._store.keys.table_key(table)
        if registered is not None and not registered.enforced and verdict.signed:
            self._store.keys.enforce_key(table)  # it signs: from now on it must

    def _in_order(
        self, table: str, kind: str, place: Place | None, now: float, copy: bool
    ) -> Decision:
        if place is None:
            if not self._store.order.has_places(table):
                return TAKE  # a table of the release before places, not yet updated
            text = (
                f"{table}: {words(kind)} came without its place in the table's order, "
                "though the table has sent its places before: an old message of an older "
                "release sent again, or the table was put back to an older release. It "
                "was not stored (nor is any like it while this alert is open). Give the "
                "table a new password if it runs this release, else update it "
                f"{FIX}"
            )
            return self._alert(table, "replay", kind, text, now)
        newest = self._store.order.newest_place(table, kind)
        if newest is None or place.key > newest:
            return Decision(take=True, place=place)
        if copy:
            log.debug("%s: the broker's copy of %s already taken; dropped", table, words(kind))
            return Decision(take=False)
        text = (
            f"{table}: {words(kind)} came that is not after the newest the director took "
            f"from it ({place.words()}; the newest taken: {key_words(newest)}): an old one "
            "sent again. It was not stored (nor is any like it while this alert is open). "
            "Someone who captured this table's messages and has its broker password may "
            "be sending them again: give the table a new password and check who is on "
            "the network (with TLS its messages cannot be captured). If the broker was "
            "just restarted from an old save, these are its old copies: close this alert. "
            "If the table was set up afresh and its clock is behind, set its clock right "
            f"and restart the table {FIX}"
        )
        return self._alert(table, "replay", kind, text, now)

    def _unsigned(
        self, table: str, kind: str, verdict: Verdict, where: str, now: float
    ) -> Decision:
        text = (
            f"{table}: {verdict.problem}{where}, and it was not stored (nor is any like it "
            "while this alert is open). Someone who has this table's broker password may be "
            "sending as it: give the table a new password and check who is on the "
            f"network. If the table was set up again, register its new key {FIX}"
        )
        return self._alert(table, "signature", kind, text, now, authentic=False)

    def _alert(
        self, table: str, alert: str, kind: str, text: str, now: float, *, authentic: bool = True
    ) -> Decision:
        """Refused: one ``alert`` about the table while one is open."""
        if self._store.alerts.alert_once(table, alert, kind, text, now) is not None:
            log.warning("%s", text)  # once an alert: not once a message
            return Decision(take=False, alerted=True, authentic=authentic)
        log.debug("%s", text)
        return Decision(take=False, authentic=authentic)


__all__ = ["Decision", "PictureDecision", "TableTrust"]
