"""The review's one error: a log that cannot be reviewed, said in words with what to do."""

from __future__ import annotations

from table_controller.errors import TableControllerError


class ReviewError(TableControllerError, ValueError):
    """A log that cannot be reviewed (not a game, unknown rules, an event that cannot be
    read): says what and what to do."""
