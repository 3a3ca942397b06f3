"""The events a director's store holds, and which games belong to each.

Why a module of its own: one store (a SQLite file, a PostgreSQL database) may serve a
club's events month after month. The dashboard creates each one (a ``created`` version
in the append-only ``format_state`` history, tournament/admin.py), and the papers, the
dashboard and the hall screen must each draw one event only, never a mix; ``director
export`` must say which events there are when it is not told which to print. The
results model (results.py) and the event's own results from the feed (tournament/admin.py)
both ask here, so they cannot disagree on which games an event holds.

The rule (docs/director.md, "Several events in one store"): an event runs from its
creation until the next event is created. A game belongs to the event that was running
when the game's first event reached the director (the director's own clock, the events'
``received``: one clock for every table, unlike the tables' own). The store's first
event also holds the games that arrived before it was created, as it always has. An
event created again before it had any game or result (its roster fixed) is no event of
its own: it is replaced, and its name is free again.
"""

from __future__ import annotations

import math
import shlex
import time
from dataclasses import dataclass

from table_controller.director.store import DirectorStore
from table_controller.errors import TableControllerError

# What a director does to an event before it is played: an event replaced after only
# these (and with no game) was never played, so it is no event of its own.
SETUP_ACTIONS = frozenset(
    {"created", "absent", "present", "substitute", "assigned", "public_delay"}
)
NAME_LIMIT = 80  # characters: a name is a heading on every page


class TournamentChoiceError(TableControllerError, ValueError):
    """Which of the store's events is meant cannot be told: none was named and there
    are several, or the name given is none of theirs. Says which there are and how to
    name one."""


@dataclass(frozen=True)
class StoredTournament:
    """One event in the store: its name, when it was created, its versions in the
    ``format_state`` history, and the span its games arrived in."""

    name: str
    created: float  # when it was created (the director's clock)
    first: int  # the version that created it
    last: int  # its last version (the one before the next event's creation)
    since: float  # its games' first events arrived at or after this...
    until: float  # ...and before this (inf: the latest event)
    games: int  # how many games belong to it
    played: bool  # it has a game or a result (a replaced event without one is dropped)

    def holds(self, arrived: float) -> bool:
        """Does a game whose first event arrived at ``arrived`` belong to this event?"""
        return self.since <= arrived < self.until

    @property
    def option(self) -> str:
        """The export's option that picks this event, as a shell takes it."""
        safe = not any(c in self.name for c in '"$`\\!')
        return f'--event "{self.name}"' if safe else f"--event {shlex.quote(self.name)}"

    @property
    def words(self) -> str:
        """The event as a director recognises it: its name, when created, its games."""
        games = f"{self.games} game" + ("" if self.games == 1 else "s")
        return f'"{self.name}" (created {day_time(self.created)}; {games})'


def day_words(at: float) -> str:
    t = time.localtime(at)
    return f"{t.tm_mday} {time.strftime('%B %Y', t)}"


def day_time(at: float) -> str:
    return f"{day_words(at)}, {time.strftime('%H:%M', time.localtime(at))}"


def date_name(at: float) -> str:
    """The name of an event created without one (before events had names, or with no
    name given and none in the director's settings): its creation's date."""
    return f"Event of {day_words(at)}"


def name_key(name: str) -> str:
    """Names compared as a person reads them: "Club Night " is "club night"."""
    return " ".join(name.split()).casefold()


def check_name(name: str) -> str:
    """A name given for a new event, tidied, or why it cannot be one."""
    text = " ".join(name.split())
    if not text:
        raise TournamentChoiceError("an event needs a name: write one, e.g. 'Club night, December'")
    if len(text) > NAME_LIMIT:
        raise TournamentChoiceError(
            f"an event's name is at most {NAME_LIMIT} characters, not {len(text)}: "
            "write a shorter one"
        )
    if any(ord(c) < 32 or ord(c) == 127 for c in text):
        raise TournamentChoiceError("an event's name holds a control character: write it again")
    return text


def stored_events(
    store: DirectorStore, arrivals: dict[tuple[str, int], float] | None = None
) -> list[StoredTournament]:
    """The store's events, oldest first (none: no event was ever created). ``arrivals``:
    each game's first event's arrival (``store.events.game_arrivals()``), when already read."""
    rows = store.formats.format_creations()
    *created, (last_version, _, _) = rows
    if not created:
        return []
    arrived = store.events.game_arrivals() if arrivals is None else arrivals
    actions = {int(h["version"]): str(h["action"]) for h in store.formats.format_history()}
    raw: list[tuple[str, float, int, int, bool]] = []
    for i, (version, at, state) in enumerate(created):
        end = created[i + 1][0] - 1 if i + 1 < len(created) else last_version
        when = state.get("created")
        when = float(when) if isinstance(when, int | float) and when > 0 else at
        name = state.get("name")
        name = name.strip() if isinstance(name, str) and name.strip() else date_name(when)
        played = any(a not in SETUP_ACTIONS for v, a in actions.items() if version <= v <= end)
        raw.append((name, when, version, end, played))
    # Each event's span: from its creation to the next one's (the first from the start).
    starts = [-math.inf] + [r[1] for r in raw[1:]]
    ends = [r[1] for r in raw[1:]] + [math.inf]
    spans = zip(starts, ends, strict=True)
    counts = [sum(1 for a in arrived.values() if s <= a < e) for s, e in spans]
    kept = [i for i in range(len(raw)) if i == len(raw) - 1 or raw[i][4] or counts[i] > 0]
    out: list[StoredTournament] = []
    seen: set[str] = set()
    for n, i in enumerate(kept):
        name, when, version, end, played = raw[i]
        since = -math.inf if n == 0 else when
        until = math.inf if n == len(kept) - 1 else raw[kept[n + 1]][1]
        unique, k = name, 1
        while name_key(unique) in seen:  # two old events of one day: told apart
            k += 1
            unique = f"{name} ({k})"
        seen.add(name_key(unique))
        games = sum(1 for a in arrived.values() if since <= a < until)
        out.append(
            StoredTournament(unique, when, version, end, since, until, games, played or games > 0)
        )
    return out


def choose(events: list[StoredTournament], name: str | None, where: str) -> StoredTournament | None:
    """The event ``name`` names among ``events`` (``where``: the store, in messages);
    with no name, the only one. None: the store holds no event (only games), whatever
    the name. Refused
    in words that name every event and the option that picks one."""
    if name is not None and not name.strip():
        name = None
    if not events:  # only games: nothing to choose (a name given is their title)
        return None
    if name is None:
        if len(events) == 1:
            return events[0]
        raise TournamentChoiceError(
            f"{where} holds {len(events)} events: "
            + "; ".join(e.words for e in events)
            + f". Say which to export, e.g. {events[-1].option}"
        )
    found = [e for e in events if e.name == name] or [
        e for e in events if name_key(e.name) == name_key(name)
    ]
    if not found:
        there = "; ".join(e.words for e in events)
        raise TournamentChoiceError(
            f"{where} holds no event named {name!r}: "
            + ("its event is " if len(events) == 1 else "its events are ")
            + there
            + f". Give one of these names, e.g. {events[-1].option}"
        )
    return found[0]


__all__ = [
    "StoredTournament",
    "TournamentChoiceError",
    "check_name",
    "choose",
    "date_name",
    "day_words",
    "name_key",
    "stored_events",
]
