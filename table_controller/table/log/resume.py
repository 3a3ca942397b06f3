"""Resuming a game from the log: the last game's events replayed into a ``Game``.

The log is the truth: the table's state is a fold over its events, so replaying them
gives the game back exactly, mid-hand or mid-trick. An event the rules no longer take
(the log was edited, the rules changed) is skipped (rules/replay.py, ``OnError.SKIP``),
the same way at every start, and said: a table never refuses to start over one bad line.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from table_controller.errors import TableControllerError
from table_controller.event_log import EventLog, GameRecord
from table_controller.rules.errors import RulesError
from table_controller.rules.events import InputEvent, OutputEvent
from table_controller.rules.game import Game
from table_controller.rules.presets import preset
from table_controller.rules.replay import OnError, replay


@dataclass(frozen=True)
class Step:
    """One logged event as replayed, with what followed from it."""

    seq: int
    event: InputEvent
    outputs: list[OutputEvent]
    has_evidence: bool


@dataclass
class Resumed:
    """The last game of a log, replayed; ``skipped`` says which events were left out."""

    record: GameRecord
    game: Game
    steps: list[Step] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    @property
    def problem(self) -> str | None:
        if not self.skipped:
            return None
        more = "..." if len(self.skipped) > 5 else ""
        return (
            f"game {self.record.game}'s log has events the rules do not take: "
            + ", ".join(self.skipped[:5])
            + more
        )


class UnusableRules(TableControllerError, ValueError):
    """The last game's rules cannot be built (an unknown preset or option)."""


def resume_last_game(log: EventLog) -> Resumed | None:
    """The log's last game replayed; None for a log with no game. Raises
    ``UnusableRules`` when its rules cannot be built."""
    record = log.last_game()
    if record is None:
        return None
    try:
        rules = preset(record.rules_name, record.options)
    except RulesError as exc:
        raise UnusableRules(
            f"game {record.game} in the log has rules this table cannot use ({exc})"
        ) from exc
    events, unreadable = log.readable_events(record.game)
    replayed = replay(rules, [e.event for e in events], on_error=OnError.SKIP)
    resumed = Resumed(record, replayed.game)
    resumed.skipped += [f"event {p.seq}" for p in unreadable]
    resumed.skipped += [f"event {events[p.index].seq} ({p.message})" for p in replayed.problems]
    for step in replayed.steps:
        logged = events[step.index]
        resumed.steps.append(Step(logged.seq, step.event, step.outputs, logged.has_evidence))
    return resumed


__all__ = ["Resumed", "Step", "UnusableRules", "resume_last_game"]
