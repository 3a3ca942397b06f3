"""Replaying logged events into a game, tolerating the ones the rules refuse (pure).

A log can hold an event the rules no longer take: a row edited by hand, rules changed
since, a bug. Whoever replays a log (the table resuming, an export, the feed, the
director's projection and public view) must neither crash on it nor invent a second
opinion, so they all replay here, with one policy for a refused event:

* ``OnError.SKIP``: leave it out, record why, and go on with the next event. The table
  does this at every start, so every other reader that skips the same events arrives
  at the same game as the table.
* ``OnError.STOP``: record why and apply nothing after it: what follows may depend on
  it, and a director rules on it before the game goes on.

Nothing is raised for a bad event: an event that does not decode, one the rules refuse,
and an internal error while applying one are all reported in ``Replayed.problems``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from table_controller.clip import clip
from table_controller.rules.codec import CodecError, decode_input
from table_controller.rules.errors import RulesError
from table_controller.rules.events import InputEvent, OutputEvent
from table_controller.rules.game import Game
from table_controller.rules.presets import Rules


class OnError(Enum):
    """What a replay does with an event it cannot apply (after recording it)."""

    SKIP = "skip"  # leave it out and go on with the next event
    STOP = "stop"  # apply nothing after it


@dataclass(frozen=True, slots=True)
class Step:
    """One event applied, with the output events that followed from it."""

    index: int  # its position in the events given, from 0
    event: InputEvent
    outputs: list[OutputEvent]


@dataclass(frozen=True, slots=True)
class Problem:
    """One event not applied, and why."""

    index: int  # its position in the events given, from 0
    event: InputEvent | None  # None: it did not decode
    message: str  # what was wrong, for people
    expected: str = ""  # what the rules would have taken, where they say

    @property
    def text(self) -> str:
        """The message with what was expected (as ``str`` of the ``RulesError``)."""
        return f"{self.message}; expected {self.expected}" if self.expected else self.message


@dataclass
class Replayed:
    """What a replay made of the events: the game, each event applied and each not."""

    game: Game
    on_error: OnError
    steps: list[Step] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    stopped_at: int | None = None  # STOP: the index of the event the replay stopped at

    @property
    def applied(self) -> list[int]:
        """The indices of the events applied, in order."""
        return [s.index for s in self.steps]

    @property
    def outputs(self) -> list[OutputEvent]:
        """Every output event of the events applied, in order."""
        return [o for s in self.steps for o in s.outputs]


def replay(
    rules: Rules | Game,
    events: Iterable[InputEvent | Mapping[str, Any]],
    on_error: OnError = OnError.SKIP,
) -> Replayed:
    """``events`` applied in order to a new game under ``rules``, or to the ``Game``
    given (which goes on from where it is, and is changed). An event may be given as the
    JSON object the codec writes; it is decoded here, so one that does not decode is a
    problem like an event the rules refuse. Never raises for an event."""
    game = rules if isinstance(rules, Game) else Game(rules)
    result = Replayed(game, on_error)
    for index, item in enumerate(events):
        event = item if isinstance(item, InputEvent) else None
        try:
            if event is None:
                event = decode_input(item)
            outputs = game.push(event)
        except (RulesError, CodecError) as exc:
            result.problems.append(_problem(index, event, exc))
        except Exception as exc:  # a bug (the game is unchanged: push checks first)
            result.problems.append(
                Problem(
                    index,
                    event,
                    f"internal error while applying {clip(item)} ({clip(exc)}); the event "
                    "was not applied, please report this",
                )
            )
        else:
            result.steps.append(Step(index, event, outputs))
            continue
        if on_error is OnError.STOP:
            result.stopped_at = index
            break
    return result


def _problem(index: int, event: InputEvent | None, exc: ValueError) -> Problem:
    if isinstance(exc, RulesError):
        return Problem(index, event, exc.message, exc.expected)
    return Problem(index, event, str(exc))


def unbroken(seqs: Sequence[int], first: int) -> int:
    """How many of ``seqs`` run on from ``first`` with no gap (``first``, ``first + 1``
    ...): a reader that must not replay past a missing event replays only those."""
    n = 0
    for seq in seqs:
        if seq != first + n:
            break
        n += 1
    return n


__all__ = ["OnError", "Problem", "Replayed", "Step", "replay", "unbroken"]
