"""The camera's command lines: ``deck``, ``calibrate`` and ``vision`` (with its live view).

Each command group's module is loaded by name from ``commands.GROUPS``, and only when its
command is asked for (``--help`` of another command loads none of them, nor OpenCV), so
this face loads nothing itself: ``deck_cli``, ``calibrate_cli`` and ``read_cli`` each give
the command line their ``add_commands``, and ``live_view`` serves ``vision live --view``.
The reader they drive is the rest of ``vision/``.
"""

from __future__ import annotations

__all__: list[str] = []
