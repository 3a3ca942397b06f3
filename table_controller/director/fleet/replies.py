"""What the fleet's tables say about themselves, on ``tables/{id}/fleet/{kind}``: each
kind has its handler in ``HANDLERS`` (the service's ``_take`` calls ``handle`` inside
its transaction, so an answer is stored before the broker forgets it).

- ``config``: a table's answer to a config order (director/fleet/config.py):
  ``{"table","seq","state":"applied"|"waiting"|"refused","problem","at"}``.
- ``update``: a table's progress on an update order (director/fleet/update.py):
  ``{"table","id","version","running","state","problem","at"}``.
- ``camera``: a table's camera view or recalibration (director/fleet/camera.py):
  ``{"table","id","kind":"camera-view"|"recalibrate","ok","problem","jpeg","at"}``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping

from table_controller.director.fleet.camera import camera_reply
from table_controller.director.fleet.update import update_progress
from table_controller.director.json_value import JSONValue
from table_controller.director.store import CONFIG_STATES, DirectorStore, StoreError

log = logging.getLogger(__name__)

Handler = Callable[[DirectorStore, str, Mapping[str, JSONValue], float], None]
PROBLEM_MAX = 1000  # characters of a table's words kept


def config_answer(
    store: DirectorStore, table: str, body: Mapping[str, JSONValue], now: float
) -> None:
    """A table's answer to config ``seq``: stored on that config's row."""
    seq, state, problem = body.get("seq"), body.get("state"), body.get("problem")
    if isinstance(seq, bool) or not isinstance(seq, int):
        if state == "refused":  # a config it could not even read: said in the log
            log.warning("%s refused a config it could not read: %s", table, problem)
            return
        raise StoreError(f"{table}'s answer to a config names no config number: {seq!r}")
    if state not in CONFIG_STATES[1:]:
        raise StoreError(f"{table}'s answer to config {seq} is {state!r}")
    words = problem[:PROBLEM_MAX] if isinstance(problem, str) else None
    if not store.fleet_configs.fleet_config_answer(table, seq, str(state), words, now):
        log.info("%s answered config %s, which this director did not send", table, seq)


HANDLERS: dict[str, Handler] = {
    "config": config_answer,
    "camera": camera_reply,
    "update": update_progress,
}


def handle(
    store: DirectorStore, table: str, kind: str, body: Mapping[str, JSONValue], now: float
) -> None:
    """One message from ``table`` on ``fleet/{kind}``; an unknown kind is logged and
    left (a table newer than the director)."""
    handler = HANDLERS.get(kind)
    if handler is None:
        log.warning("%s said something of kind %r this director does not know", table, kind)
        return
    handler(store, table, body, now)


__all__ = ["HANDLERS", "Handler", "config_answer", "handle"]
