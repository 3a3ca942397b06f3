"""What the director's dashboard draws, made from the store in words: each table's line
of the overview, each alert's sentence, a table's detail and history, and a renege
alert's evidence.

Why a part of its own: the overview is rebuilt up to 20 times a second while tables
play, so the words that need a stored event (an alert's sentence) are made once per
alert and kept; the live ones (score, whose turn, trump) come from the store's kept
replays, which cost nothing to read.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from table_controller.director.dashboard.deck_alerts import DECK_HEADS, deck_evidence
from table_controller.director.dashboard.history import (
    Evidence,
    RuleQuote,
    claimed_trick,
    history_entry,
    played_pictures,
    renege_evidence,
)
from table_controller.director.store import (
    AlertRow,
    DirectorStore,
    Projection,
    RawTable,
    StatusMessage,
    StoredEvent,
    TableRow,
    finite,
    table_row,
)
from table_controller.director.words import (
    ALERT_CATEGORY,
    ALERT_HEADINGS,
    TableWords,
    alert_sentence,
    seat_label,
    table_title,
    table_words,
    title_order,
)
from table_controller.present import renege_sentence
from table_controller.rules.errors import RulesError
from table_controller.rules.events import RenegeProven
from table_controller.rules.game import Game
from table_controller.rules.presets import PRESETS
from table_controller.rules.sources import renege_rule, text_title

EVENT_ALERTS = ("renege_proven", "renege_claimed", "irregularity_found")


_EVIDENCE_URL = re.compile(r"^/evidence/([^/]+)/(\d+)/(\d+)\.png$")


class TableCard(TableRow, TableWords):
    """A table's line of the overview (its card): its row, its events and open alerts
    counted, and its words."""

    events: int
    alerts: int


class AlertCard(AlertRow):
    """An alert as the dashboard shows it: its row, the table's title, its category
    (the DOM's kind), heading and sentence, and whether it has pictures."""

    title: str
    category: str
    heading: str
    sentence: str
    pictured: bool


# What a table's line is made of (``DashboardView._line``): its stored row, its events
# and open alerts counted, and its game's replay (which, how far, its problem).
LineKey = tuple[RawTable, int, int, tuple[int, int, str | None] | None]


class TableLine(NamedTuple):
    """A table's line of the overview, and the same as JSON text."""

    table: str
    row: TableCard
    text: str


def json_text(value: object) -> str:
    """``value`` as compact JSON (a NaN stored before it was refused: drawn as empty)."""
    try:
        return json.dumps(value, separators=(",", ":"), allow_nan=False)
    except ValueError:
        return json.dumps(finite(value), separators=(",", ":"))


class DashboardView:
    """The dashboard's words over ``store``."""

    def __init__(self, store: DirectorStore) -> None:
        self.store = store
        self._sentences: dict[tuple[int, str, tuple[tuple[str, str], ...]], str] = {}
        self._lock = threading.Lock()
        # each table's status read, and its line with what it was made of (``lines``)
        self._parsed: dict[str, tuple[str | None, StatusMessage]] = {}
        self._lines: dict[str, tuple[LineKey, TableLine, Projection | None]] = {}
        # the tables' names in the overview's order, and as a set (None: to be sorted)
        self._order: tuple[list[str], set[str]] | None = None

    # --- the overview -------------------------------------------------------------

    def projection_of(self, table: str, game: object) -> Projection | None:
        """The replay of the table's game ``game`` (not a number: its latest game), None
        before its first event or when its rules cannot be used."""
        if not isinstance(game, int) or isinstance(game, bool):
            games = self.store.events.games(table)
            if not games:
                return None
            game = games[-1]
        try:
            return self.store.projections.projection(table, game)
        except RulesError:
            return None

    def game_of(self, t: TableRow) -> Game | None:
        """The table's game in play, replayed (None before its first event)."""
        proj = self.projection_of(str(t["table"]), t.get("game"))
        return proj.game if proj is not None and proj.applied else None

    def lines(
        self,
        raws: list[RawTable],
        events: Mapping[str, int],
        alerts: Mapping[str, int],
        *,
        partial: bool = False,
    ) -> list[TableLine]:
        """Each table's line of the overview, as ``tables`` makes it, with its JSON
        text, in the overview's order. A line is made again only when what it is made
        of changed: the table's stored status, its events and open alerts, and its
        game's replay (``game_of``). Why: at 256 tables, making and encoding every line for every
        snapshot cost more than the cards that changed one; the store's lock must be
        held, so the replays do not move while they are read.

        ``partial``: ``raws`` are only the tables a change named (a status, an event:
        the only writes that move one table's row or replay); every other table keeps
        its line unless its count of events or open alerts moved. Why: reading and
        checking all 256 rows for every snapshot, up to 20 a second, cost more than
        the one card that changed."""
        given = {raw.name for raw in raws}
        if partial:
            raws = list(raws)
            for name, (key, _line, _proj) in self._lines.items():
                if name not in given and (
                    key[1] != events.get(name, 0) or key[2] != alerts.get(name, 0)
                ):
                    raws.append(key[0])
        for raw in raws:
            self._line(raw, events, alerts)
        if not partial:
            for gone in self._lines.keys() - given:
                del self._lines[gone]
                self._parsed.pop(gone, None)
            self._order = None
        if self._order is None or not given <= self._order[1]:
            names = sorted(self._lines, key=lambda n: title_order(self._lines[n][1].row["title"]))
            self._order = (names, set(names))
        return [self._lines[name][1] for name in self._order[0]]

    def _line(self, raw: RawTable, events: Mapping[str, int], alerts: Mapping[str, int]) -> None:
        """Make ``raw``'s table's line again, if what it is made of changed."""
        name = raw.name
        parsed = self._parsed.get(name)
        if parsed is None or parsed[0] != raw.status:
            parsed = (raw.status, json.loads(raw.status) if raw.status else {})
            self._parsed[name] = parsed
        proj = self.projection_of(name, parsed[1].get("game"))
        moved = None if proj is None else (id(proj), proj.applied, proj.problem)
        key = (raw, events.get(name, 0), alerts.get(name, 0), moved)
        kept = self._lines.get(name)
        if kept is not None and kept[0] == key:
            return
        t = table_row(raw, parsed[1])
        game = proj.game if proj is not None and proj.applied else None
        row: TableCard = {**t, "events": key[1], "alerts": key[2], **table_words(t, game)}
        if kept is not None and kept[1].row["title"] != row["title"]:
            self._order = None  # a table renamed: the order is made again
        self._lines[name] = (key, TableLine(name, row, json_text(row)), proj)

    def alerts(self, alerts: Sequence[AlertRow], tables: Sequence[TableRow]) -> list[AlertCard]:
        """Each alert with ``category`` (the DOM's kind), ``heading`` and ``sentence``."""
        by_name = {t["table"]: t for t in tables}
        out: list[AlertCard] = []
        for a in alerts:
            t = by_name.get(a["table"])
            title = table_title(a["table"], t["name"] if t is not None else None)
            category = ALERT_CATEGORY.get(a["kind"], a["kind"])
            players = (t["players"] if t is not None else None) or {}
            out.append(
                {
                    **a,
                    "title": title,
                    "category": category,
                    "heading": ALERT_HEADINGS.get(category, "Alert"),
                    "sentence": self.sentence(a, title, players),
                    "pictured": a["kind"] == "irregularity_found"
                    and str(a.get("text") or "").startswith(DECK_HEADS),
                }
            )
        return out

    def sentence(self, a: AlertRow, title: str, players: Mapping[str, str]) -> str:
        key = (a["id"], title, tuple(sorted(players.items())))
        with self._lock:
            known = self._sentences.get(key)
        if known is not None:
            return known
        event = None
        game = a["game"]
        if a["kind"] in EVENT_ALERTS and isinstance(game, int):
            event = next(
                (e for e in self.store.events.events(a["table"], game) if e["seq"] == a["seq"]),
                None,
            )
        text = alert_sentence(a, title, players, event)
        with self._lock:
            if len(self._sentences) > 10_000:
                self._sentences.clear()
            self._sentences[key] = text
        return text

    # --- an alert's panel, a table's detail ---------------------------------------

    def alert_detail(self, alert: AlertRow) -> dict[str, object]:
        """An alert's panel: its sentence, and for a renege or a deck alert (a card the
        game did not take) its evidence and rule."""
        table = str(alert["table"])
        status = next((t for t in self.store.tables.tables() if t["table"] == table), None)
        title = table_title(table, status["name"] if status is not None else None)
        players = (status["players"] if status is not None else None) or {}
        (shown,) = self.alerts([alert], [status] if status is not None else [])
        evidence: Evidence | None = None
        if alert["kind"] == "renege_proven" and isinstance(alert.get("game"), int):
            events = self.store.events.events(table, alert["game"])
            evidence = renege_evidence(
                alert, events, players, title, self.store.projections.rules_of(table)[0]
            )
        elif alert["kind"] == "irregularity_found" and isinstance(alert.get("game"), int):
            events = self.store.events.events(table, alert["game"])
            evidence = deck_evidence(
                alert, events, players, title, self.store.projections.rules_of(table)[0]
            )
        elif alert["kind"] == "renege_claimed":
            evidence = _rule_only(self.store.projections.rules_of(table)[0])
            if evidence is not None and isinstance(alert.get("game"), int):
                events = self.store.events.events(table, alert["game"])
                evidence["trick"] = claimed_trick(alert, events, players)
        if evidence is not None:
            self._received_only(evidence)
        return {**shown, "evidence": evidence}

    def _received_only(self, evidence: Evidence) -> None:
        """A picture the table has not sent yet (it travels apart from its event) has no
        address: its place says "waiting", and the page asks again when it comes."""
        pictures = [evidence.get("offence"), evidence.get("proof"), *(evidence.get("trick") or [])]
        for p in pictures:
            url = p.get("url") if isinstance(p, dict) else None
            m = _EVIDENCE_URL.match(url) if isinstance(url, str) else None
            if (
                p is not None
                and m
                and self.store.events.evidence(m[1], int(m[2]), int(m[3])) is None
            ):
                p["url"] = None
                p["waiting"] = True

    def table_detail(
        self, table: str, game: int, events: list[StoredEvent], history: int
    ) -> dict[str, object]:
        """A table's detail in words: ``words`` (as on the overview, and the dealer),
        ``seats``, ``reneges`` (sentences and pictures) and ``history`` (newest last)."""
        # a table not heard from: a row of nothing (read as no status at all)
        status = next(
            (t for t in self.store.tables.tables() if t["table"] == table),
            table_row(RawTable(table, False, None, None, None), {}),
        )
        players: dict[str, str] = status.get("players") or {}
        try:
            proj = self.store.projections.projection(table, game) if events else None
        except RulesError:
            proj = None
        g = proj.game if proj is not None and proj.applied else None
        words: dict[str, object] = dict(table_words({**status, "game": game}, g))
        if g is not None and g.dealer is not None:
            words["dealer_text"] = seat_label(players, g.dealer)
        played = played_pictures(events, table, game)
        reneges = []
        for out in [] if proj is None else proj.recent:
            if isinstance(out, RenegeProven):
                reneges.append(_renege(out, players, played))
        return {
            "title": words["title"],
            "words": words,
            "seats": [{"seat": s, "text": seat_label(players, s)} for s in ("N", "E", "S", "W")],
            "reneges": reneges,
            "history": [history_entry(e, players, table) for e in events[-history:]],
        }


def _renege(
    out: RenegeProven,
    players: Mapping[str, str],
    played: Mapping[tuple[int | None, str, str], tuple[str | None, StoredEvent]],
) -> dict[str, object]:
    """A renege proven in a table's detail: its sentence and its two pictures."""
    who = players.get(out.seat.name) or seat_label(players, out.seat)
    seat = out.seat.name
    offence = played.get((out.hand, seat, out.played.code), (None, None))[0]
    proof = played.get((out.hand, seat, out.proof.code), (None, None))[0]
    pictures = [(offence, f"Trick {out.trick}: {who} played the {out.played.pretty}")]
    if out.proof_trick != out.trick:
        pictures.append(
            (proof, f"Proof: trick {out.proof_trick}, {who} played the {out.proof.pretty}")
        )
    return {
        "text": renege_sentence(out, seat_label(players, out.seat)),
        "hand": out.hand,
        "pictures": [{"url": url, "caption": cap} for url, cap in pictures if url],
    }


def _rule_only(rules_name: str) -> Evidence | None:
    """A claim's panel before its pictures: the rule the event's preset follows."""
    preset = PRESETS.get(rules_name)
    if preset is None:
        return None
    rule: RuleQuote = {
        "text": renege_rule(preset.source),
        "source": text_title(preset.source),
        "preset": preset.title,
    }
    return {"offence": None, "proof": None, "rule": rule}


__all__ = ["AlertCard", "DashboardView", "TableCard", "TableLine", "json_text"]
