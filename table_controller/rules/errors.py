"""Typed errors for events the rules cannot accept.

Every error says what was wrong and what the engine expected instead, so the table can
tell the players what to do. All subclass ``ValueError`` (as python-chess does) and the
engine's state is unchanged after any of them.
"""

from __future__ import annotations

from table_controller.errors import TableControllerError


class RulesError(TableControllerError, ValueError):
    """An event the rules cannot accept; ``expected`` says what would be accepted."""

    def __init__(self, message: str, expected: str = "") -> None:
        self.message = message
        self.expected = expected
        super().__init__(f"{message}; expected {expected}" if expected else message)


class WrongPhase(RulesError):
    """The event does not belong at this point of the game (a card before the deal...)."""


class NotYourTurn(RulesError):
    """An event from a seat that may not act now, with no irregularity rule to apply."""


class IllegalAction(RulesError):
    """An action the rules forbid outright (naming the turned-down suit, a bid too low)."""


class ImpossibleCard(RulesError):
    """A card that cannot be where it was seen: already played, or in another hand."""


class GameOver(RulesError):
    """The game (or match) has ended; nothing more can be played in it."""
