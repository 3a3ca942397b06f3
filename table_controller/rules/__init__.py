"""The rules core: a pure, event-sourced Euchre engine.

Input events (what the table saw or heard) go in, output events (what follows from the
rules) come out, and the state is a fold over the input events. Nothing here does IO,
reads a clock or draws a random number.
"""

from table_controller.rules.errors import RulesError
from table_controller.rules.events import *  # noqa: F403
from table_controller.rules.game import Game
from table_controller.rules.hand import Phase
from table_controller.rules.presets import PRESETS, Rules, preset

__all__ = ["PRESETS", "Game", "Phase", "Rules", "RulesError", "preset"]
