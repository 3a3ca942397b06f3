"""A hall of tables for the hall screen's tests and its screenshots: each table named,
four players named, games played by the seeded simulator (every hand known, so the
tables' outputs are real ones), some ended and the next one under way, stored in a real
director's store as the feed's messages."""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from table_controller.director.store import DirectorStore
from table_controller.feed.messages import event_message
from table_controller.rules.codec import encode
from table_controller.rules.game import Game, Phase
from table_controller.rules.presets import preset
from table_controller.simulate import play

RULES = "td-tournament"  # games to 10, as a club's tournament plays them
FIRST_NAMES = (
    "Ann", "Bob", "Cyrus", "Dina", "Eloise", "Frank", "Gwen", "Hal", "Ines", "Jamal",
    "Kate", "Liam", "Maria", "Nils", "Olive", "Pete", "Quinn", "Rosa", "Sam", "Tove",
    "Uma", "Vic", "Wanda", "Xavier", "Yuki", "Zoe", "Aurelio", "Bernadette", "Colm",
    "Delphine", "Esteban", "Fatima", "Giorgos", "Hildegard", "Ivo", "Josephine",
    "Kwame", "Leopold", "Margarethe", "Nkechi", "Oskar", "Priya", "Radoslaw", "Siobhan",
    "Teodor", "Ulrike", "Valentina", "Wilhelmina",
)  # fmt: skip
SEATS = ("N", "E", "S", "W")


@dataclass
class HallTable:
    table: str
    name: str
    players: dict[str, str]
    games: int = 0  # games stored (the last under way unless it ended)
    ended: int = 0
    last_at: float = 0.0  # when the table recorded its last event
    seqs: list[int] = field(default_factory=list)


def fill_hall(
    store: DirectorStore,
    tables: int,
    *,
    seed: int = 19,
    start: float = 1_000.0,
    step: float = 1.0,
    ended: frozenset[int] | set[int] = frozenset(),
    only: frozenset[int] | set[int] = frozenset(),
    names: bool = True,
    late: Mapping[int, tuple[int, float]] | None = None,
) -> list[HallTable]:
    """``tables`` tables (1-based ``k`` is "Table k", id ``table-k``); the tables in
    ``ended`` finished a game (and are part way into the next unless in ``only``), the
    others part way into their first. The table records one event each ``step`` seconds
    from ``start``; ``late`` = {k: (n, at)}: table k recorded its last n events at ``at``."""
    rng = random.Random(seed)
    people = list(FIRST_NAMES)
    rng.shuffle(people)
    rules = preset(RULES)
    out = []
    for k in range(1, tables + 1):
        who = {seat: people[(4 * (k - 1) + i) % len(people)] for i, seat in enumerate(SEATS)}
        t = HallTable(f"table-{k}", f"Table {k}", who)
        at = start
        messages: list[dict[str, Any]] = []
        plan = ([True] if k in only else [True, False]) if k in ended else [False]
        for n, finish in enumerate(plan, start=1):
            steps = list(play(rules, random.Random(seed * 1000 + k * 10 + n)))
            if not finish:  # stop in the middle of a hand, some cards on the table
                steps = steps[: rng.randint(len(steps) // 4, 3 * len(steps) // 4)]
            game = Game(rules)
            for seq, (event, _) in enumerate(steps, start=1):
                outputs = [encode(o) for o in game.push(event)]
                messages.append(
                    event_message(
                        table=t.table,
                        game=n,
                        seq=seq,
                        at=at,
                        source="camera",
                        input_event=encode(event),
                        outputs=outputs,
                        hand=game.hand.number if game.hand is not None else None,
                        evidence=False,
                    )
                )
                at += step
            t.games = n
            t.ended += game.phase is Phase.OVER
            t.seqs.append(len(steps))
        if late and k in late:
            n_late, late_at = late[k]
            for m in messages[-n_late:]:
                m["at"] = late_at
        assert not [r for r in store.events.add_events(messages) if isinstance(r, Exception)]
        t.last_at = messages[-1]["at"]
        store.tables.add_status(status(t, names=names))
        out.append(t)
    return out


def status(t: HallTable, *, names: bool = True) -> dict[str, object]:
    """The table's heartbeat as the feed sends it; with its name when ``names``."""
    msg: dict[str, object] = {
        "v": 1,
        "table": t.table,
        "online": True,
        "at": t.last_at,
        "every": 5,
        "game": t.games,
        "hand": 1,
        "phase": "playing",
        "scores": [0, 0],
        "players": dict(t.players),
        "faults": [],
        "backlog": 0,
        "rules": {"name": RULES, "options": {}},
    }
    if names:
        msg["name"] = t.name
    return msg
