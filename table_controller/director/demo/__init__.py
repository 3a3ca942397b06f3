"""The event demo: a whole tournament on this machine (a broker, the director's service
and dashboard, and simulated tables, each in a process of its own), for a director to
watch and try: ``table-controller event demo``.

Why a folder of its own, beside the features and not inside the tournament's: it
composes the whole director (the broker, ``service.py``, ``web.py``) as ``director
start`` does, so it stands above the features, like the command line. Its face loads
nothing of the director: the command's parser and each simulated table's process start
without the store, and the parts load once the demo starts.
"""

from __future__ import annotations

from table_controller.director.demo.cli import add_commands
from table_controller.director.demo.tournament import find_mosquitto, require_extras

__all__ = ["add_commands", "find_mosquitto", "require_extras"]
