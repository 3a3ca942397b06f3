"""Real games for the pace tests: random legal play under a rule text's preset (the load
generator's table, no camera, so fast), as the feed messages a table sends, with each
hand's events spread over the minutes the test asks for, so a table's pace is known."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from test_director_store import feed_messages

from table_controller.sim.loadgen import RulesTable

MIN = 60.0


def timed_game(
    folder: Path,
    table: str,
    *,
    hands: int,
    start: float,
    minutes_a_hand: float,
    seed: int = 1,
    rules: str = "nmu-tournament",
) -> list[dict[str, Any]]:
    """``table``'s game, played up to ``hands`` hands scored (and the next one dealt), as
    feed messages: hand k's events spread evenly from ``start + (k - 1) * pace`` to
    ``start + k * pace``, the events before the first hand a few seconds before it."""
    log = folder / f"{table}.sqlite"
    played = RulesTable(log, name=table, seed=seed, rules=rules)
    while True:
        played.step()
        game = played.game
        assert game is not None
        if game.hands_counted >= hands and game.hand is not None:
            break
    played.close()
    messages, _ = feed_messages(log, table)
    groups: list[list[dict[str, Any]]] = [[]]
    for m in messages:
        if any(o.get("event") == "hand_started" for o in m["outputs"]):
            groups.append([])
        groups[-1].append(m)
    before, *dealt = groups
    for i, m in enumerate(before):
        m["at"] = start - (len(before) - i) * 2.0
    pace = minutes_a_hand * MIN
    for k, group in enumerate(dealt):
        step = pace / max(len(group) - 1, 1)
        for j, m in enumerate(group):
            m["at"] = start + k * pace + j * step
    last = dealt[-1]  # the hand just dealt: only its first event, so it is under way
    del last[1:]
    return [m for group in groups for m in group]
