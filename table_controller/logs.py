"""The log's set-up, done once by the command (``cli.main``), never by a module.

Modules only ask ``logging.getLogger(__name__)``; what is shown, and how, is decided
here from ``--verbose``/``--quiet``: the project's own messages from INFO up (DEBUG with
``-v``, only errors with ``-q``), other libraries' from WARNING up (everything with
``-vv``). On a terminal each line has a timestamp; under systemd (``JOURNAL_STREAM`` is
set) the journal adds its own, so each line starts instead with its syslog priority
(``<3>`` ... ``<7>``), which journald reads as the level: ``journalctl -p warning``
then filters them.
"""

from __future__ import annotations

import logging
import os
import sys
from typing import TextIO

PROJECT = "table_controller"
_PRIORITY = {  # syslog priorities (sd-daemon(3)) for logging's levels
    logging.CRITICAL: 2,
    logging.ERROR: 3,
    logging.WARNING: 4,
    logging.INFO: 6,
    logging.DEBUG: 7,
}
_HANDLER_NAME = "table-controller"


class _JournalFormatter(logging.Formatter):
    """``<priority>logger: message``: one line per record, for journald."""

    def format(self, record: logging.LogRecord) -> str:
        priority = _PRIORITY.get(record.levelno, 6 if record.levelno < logging.WARNING else 3)
        text = super().format(record)
        # A traceback's lines would each become an entry of their own at the default level.
        return "\n".join(f"<{priority}>{line}" for line in text.splitlines())


class _StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever ``sys.stderr`` is at the moment (as logging's last resort
    does), so a handler set up once never holds a stream that was since replaced."""

    def __init__(self) -> None:
        super().__init__()

    @property
    def stream(self) -> TextIO:
        return sys.stderr

    @stream.setter
    def stream(self, value: TextIO) -> None:
        pass


def under_systemd(environ: dict[str, str] | None = None) -> bool:
    """Whether this process's standard error goes to the journal."""
    env = os.environ if environ is None else environ
    return bool(env.get("JOURNAL_STREAM"))


def configure(
    verbosity: int = 0, *, stream: TextIO | None = None, journal: bool | None = None
) -> logging.Handler:
    """Set up the log for this process: ``verbosity`` is the count of ``-v`` minus the
    count of ``-q``. Calling it again replaces the handler it added before."""
    handler: logging.Handler = (
        logging.StreamHandler(stream) if stream is not None else _StderrHandler()
    )
    handler.set_name(_HANDLER_NAME)
    if under_systemd() if journal is None else journal:
        handler.setFormatter(_JournalFormatter("%(name)s: %(message)s"))
    else:
        handler.setFormatter(
            logging.Formatter(
                "%(asctime)s.%(msecs)03d %(levelname)-7s %(name)s: %(message)s",
                datefmt="%Y-%m-%d %H:%M:%S",
            )
        )
    root = logging.getLogger()
    for old in [h for h in root.handlers if h.get_name() == _HANDLER_NAME]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(logging.DEBUG if verbosity >= 2 else logging.WARNING)
    own = logging.DEBUG if verbosity >= 1 else logging.INFO if verbosity == 0 else logging.ERROR
    logging.getLogger(PROJECT).setLevel(own)
    return handler


__all__ = ["configure", "under_systemd"]
