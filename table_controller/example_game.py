"""``demo --recorded``: the bundled example game (examples/td-tournament-game.jsonl), told
hand by hand. Its own module, below both ``cli`` and ``table.run_cli``, so the ``demo``
command (run_cli) reaches it without importing the command line's top (cli imports
run_cli: the other way round would be an import cycle)."""

from __future__ import annotations

import argparse
from importlib import resources
from typing import TextIO

from table_controller.present import narrate
from table_controller.rules.presets import PRESETS
from table_controller.transcript import DEFAULT_PRESET, parse_lines, replay

EXAMPLE = "td-tournament-game.jsonl"


def cmd_recorded_demo(args: argparse.Namespace, out: TextIO) -> int:
    """``demo --recorded``: the bundled example game, told hand by hand."""
    text = resources.files("table_controller").joinpath("examples", EXAMPLE).read_text()
    transcript = parse_lines(text.splitlines(), EXAMPLE)
    name = transcript.rules_name or DEFAULT_PRESET
    out.write(
        "A recorded game from a live table: the camera saw the upcard and each card as it\n"
        "was played, never the hands. Reneges are proven from the cards on the table.\n\n"
        f"Rules: {name} ({PRESETS[name].title})\n"
    )
    for line in narrate((s.event, o) for s, o in replay(transcript)):
        out.write(line + "\n")
    return 0


__all__ = ["EXAMPLE", "cmd_recorded_demo"]
