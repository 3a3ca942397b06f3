"""The dashboard's stream: each snapshot sent as what changed since the one before.

Why: at 256 tables the whole overview is some 400 KB of JSON, and a card laid changes
one table's line. Encoded whole for every snapshot (up to 20 a second), it cost the
director's event loop more than everything else a snapshot does, and a director on the
venue's Wi-Fi would have received megabytes a second. So the snapshot is kept part by
part as JSON text (each table's line, the alerts, the results, the event, the broker),
and a page receives the whole snapshot once (``"full": true``), then only the parts
that changed (``"base"``: the version they apply to; ``"tables"``: the changed lines
by table; ``"order"``: the tables' order, when it changed). A page that missed one is
sent the whole snapshot again (web/stream.py's mailbox), never a change it cannot
apply.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple, Protocol

from table_controller.director.dashboard.view import json_text
from table_controller.director.json_value import JSONObject, JSONValue


class Line(Protocol):
    """What the stream reads of a table's line (``view.TableLine``): its table and its
    JSON text."""

    @property
    def table(self) -> str: ...

    @property
    def text(self) -> str: ...


class _SentLine(NamedTuple):
    """A line as last sent: its table and its JSON text."""

    table: str
    text: str


class OverviewStream:
    """The last snapshot sent, part by part; ``next`` makes the one after it."""

    def __init__(self) -> None:
        self.version = 0
        self._lines: dict[str, str] = {}  # table -> its line's JSON text
        self._order: list[str] = []
        self._parts: dict[str, str] = {}

    def next(
        self, lines: Sequence[Line], parts: Mapping[str, str], changed: Sequence[str]
    ) -> tuple[Callable[[], str], str] | None:
        """The next snapshot as a change from the last (JSON text), and what makes it
        whole (made once, only when a page needs it: a page that connects or fell
        behind); None when nothing changed and no table is named as changed."""
        order = [line.table for line in lines]
        fresh = [line for line in lines if self._lines.get(line.table) != line.text]
        moved = {k: v for k, v in parts.items() if self._parts.get(k) != v}
        if not fresh and not moved and order == self._order and not changed:
            return None
        base, self.version = self.version, self.version + 1
        named = json_text(list(changed))
        items = [f'"version":{self.version}', f'"base":{base}']
        if fresh:
            items.append(
                '"tables":{' + ",".join(f"{json_text(x.table)}:{x.text}" for x in fresh) + "}"
            )
        if order != self._order:
            items.append(f'"order":{json_text(order)}')
        items += [f"{json.dumps(k)}:{v}" for k, v in moved.items()]
        items.append(f'"changed":{named}')
        self._lines = {line.table: line.text for line in lines}
        self._order = order
        self._parts = {**self._parts, **parts}
        version = self.version
        made: list[str] = []

        def whole() -> str:
            if self.version != version:  # a later one was published: that one is whole
                return self.whole()
            if not made:
                made.append(self.whole(named))
            return made[0]

        return whole, "{" + ",".join(items) + "}"

    def problem(self, text: str, changed: Sequence[str]) -> tuple[Callable[[], str], str] | None:
        """The next snapshot when the store cannot be read: what was last known, and
        the problem said (``text``)."""
        lines = [_SentLine(t, self._lines[t]) for t in self._order]
        return self.next(lines, {**self._parts, "store_problem": json_text(text)}, changed)

    def whole(self, named: str = "[]") -> str:
        """The last snapshot whole (for a page that connects now, or fell behind)."""
        items = [f'"version":{self.version}', '"full":true']
        items.append('"tables":[' + ",".join(self._lines[t] for t in self._order) + "]")
        items += [f"{json.dumps(k)}:{v}" for k, v in self._parts.items()]
        items.append(f'"changed":{named}')
        return "{" + ",".join(items) + "}"


def _lines(tables: JSONValue) -> list[JSONObject]:
    """A snapshot's ``tables``: its lines, each a table's object."""
    return [t for t in tables if isinstance(t, dict)] if isinstance(tables, list) else []


def apply_change(shown: JSONObject | None, message: JSONObject) -> JSONObject | None:
    """What a page does with a message of the stream (static/dashboard.js ``merged``):
    the snapshot it shows next, or None when the message is a change from a snapshot
    it does not have (the page then connects again for the whole). For the bench's
    reader and the tests, which check the changes add up to the whole."""
    if message.get("full"):
        return message
    if shown is None or message.get("base") != shown["version"]:
        return None
    lines: dict[str, JSONValue] = {str(t["table"]): t for t in _lines(shown["tables"])}
    changed = message.get("tables") or {}
    lines.update(changed if isinstance(changed, dict) else {})
    given = (
        message["order"] if "order" in message else [t["table"] for t in _lines(shown["tables"])]
    )
    order = [str(t) for t in given] if isinstance(given, list) else []
    out: JSONObject = {**shown, **message, "tables": [lines[t] for t in order if t in lines]}
    out.pop("base", None)
    out.pop("order", None)
    return out


__all__ = ["OverviewStream", "apply_change"]
