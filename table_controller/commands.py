"""The ``table-controller`` command groups: each one's module and its line in ``--help``.

``cli.parser`` imports only the module of the command being run (OpenCV, numpy,
Starlette and paho load in a fraction of a second each, which every command would
otherwise pay); the others appear in ``--help`` from this table alone. Each module's
``add_commands`` takes its help line from here, so the two cannot differ.
"""

from __future__ import annotations

# command -> (the module whose add_commands adds it, its help line)
GROUPS: dict[str, tuple[str, str]] = {
    "deck": (
        "table_controller.vision.cli.deck_cli",
        "make a marked deck: card images, a print-ready deck, or stickers",
    ),
    "calibrate": (
        "table_controller.vision.cli.calibrate_cli",
        "calibrate the camera against the mat (or print the mat)",
    ),
    "vision": ("table_controller.vision.cli.read_cli", "read cards from camera pictures"),
    "seats": (
        "table_controller.devices.seats_cli",
        "the seat lights and buttons: check the wiring, print the pin map",
    ),
    "cube": ("table_controller.devices.cube_cli", "the trump cube: emulate, flash, show, test"),
    "log": (
        "table_controller.table.log.cli",
        "a table's event log: list its games, export one, check it",
    ),
    "config": (
        "table_controller.table.config.cli",
        "the table's configuration file: check one, or start from the example",
    ),
    "run": (
        "table_controller.table.run_cli",
        "run the table: camera, seat lights and buttons, cube, the page",
    ),
    "join": (
        "table_controller.table.fleet.join_cli",
        "join the event of the director on this network (the table shows a code to approve)",
    ),
    "director": (
        "table_controller.director.cli",
        "the tournament director's service and dashboard",
    ),
    "feed": (
        "table_controller.feed.feed_cli",
        "the director's feed: the broker's configuration and the director's keys",
    ),
    "event": (
        "table_controller.director.demo",  # its face hands on demo/cli.py's add_commands
        "see an event working: a broker, the director's dashboard and simulated tables",
    ),
    "kiosk": (
        "table_controller.kiosk.kiosk_cli",
        "the kiosk: visitors play real cards, bots fill the empty seats",
    ),
}


def help_of(command: str) -> str:
    """The help line of ``command``, for its module's ``add_parser``."""
    return GROUPS[command][1]


__all__ = ["GROUPS", "help_of"]
