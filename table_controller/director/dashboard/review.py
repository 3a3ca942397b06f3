"""A game's hand review from the director's store: the same review the table serves from
its own log (``review.review_game``), read from what the table sent (its events, their
evidence pictures, the game's rules and players), for the dashboard, the hall and the
exported files.

Where each fact comes from, as the results model reads them: the game's rules and players
from its table's log (``store.setups``), else the table's status and the event's rules;
the events as stored, each decoded (one that cannot be read is named as a problem, and
the rest replayed).
"""

from __future__ import annotations

from table_controller.director.store import DirectorStore
from table_controller.director.words import table_title
from table_controller.event_log import GameRecord, LoggedEvent
from table_controller.review import Review, ReviewError, review_game
from table_controller.rules.codec import CodecError, decode_input
from table_controller.rules.errors import RulesError
from table_controller.rules.events import InputEvent
from table_controller.rules.presets import Rules, preset
from table_controller.seats import Seat


def table_name(store: DirectorStore, table: str) -> str | None:
    """The table's name as people read it, or None when no table of that id reported."""
    row = next((t for t in store.tables.tables() if t["table"] == table), None)
    return None if row is None else table_title(table, row["name"])


def stored_review(store: DirectorStore, table: str, game: int, title: str) -> Review | None:
    """The game's review from the store (None: the table sent no event of that game).
    ``ReviewError`` (in words) when its events are no game under its rules."""
    read = _stored(store, table, game)
    if read is None:
        return None
    record, events, problems = read
    return review_game(
        record,
        events,
        problems,
        lambda seq: store.events.evidence(table, game, seq),
        table=title,
    )


def stored_game(
    store: DirectorStore, table: str, game: int
) -> tuple[Rules, tuple[InputEvent, ...]] | None:
    """The game's rules and its events as stored (those that can be read), for its
    verdicts; None: no such game. ``ReviewError`` when its rules cannot be used."""
    read = _stored(store, table, game)
    if read is None:
        return None
    record, events, _ = read
    try:
        rules = preset(record.rules_name, record.options)
    except RulesError as exc:
        raise ReviewError(f"its rules cannot be used ({exc})") from None
    return rules, tuple(e.event for e in events)


def _stored(
    store: DirectorStore, table: str, game: int
) -> tuple[GameRecord, list[LoggedEvent], list[str]] | None:
    if game not in store.events.games(table):
        return None
    setup = store.setups.setup(table, game)
    players: dict[Seat, str]
    if setup is not None:
        rules, options, players = setup.rules, dict(setup.options), dict(setup.players)
    else:
        rules, options = store.projections.rules_of(table, game)
        players = store.tables.players(table)
    stored = store.events.events(table, game)
    events: list[LoggedEvent] = []
    problems: list[str] = []
    for e in stored:
        try:
            event = decode_input(e["input"])
        except (CodecError, ValueError, TypeError) as exc:
            problems.append(f"event {e['seq']} cannot be read ({exc})")
            continue
        events.append(LoggedEvent(game, e["seq"], event, e["source"], e["at"], e["evidence"]))
    started = float(stored[0]["at"]) if stored else 0.0
    return GameRecord(game, rules, dict(options), players, started), events, problems


__all__ = ["stored_game", "stored_review", "table_name"]
