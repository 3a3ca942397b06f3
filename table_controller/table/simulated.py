"""The simulated table: the real ``Table`` with a simulated world in front of its camera.

Four ``SimulatedPlayers`` lay cards in a ``World``; a ``WorldCamera`` renders every
frame; the table reads the frames exactly as it reads a real camera's. The players
press their seat buttons on gpiozero's mock pins and turn the trump cube, whose real
firmware runs behind a pty. Nothing in the table's own path knows it is simulated.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass
from typing import Unpack

from table_controller.errors import TableControllerError
from table_controller.sim import SimulatedPlayers, World, WorldCamera
from table_controller.table.app import Table
from table_controller.table.config import TableConfig
from table_controller.table.noticed import SimTold
from table_controller.table.options import TableOptionFields, TableOptions
from table_controller.vision.synthetic import Effects


@dataclass(frozen=True)
class Pace:
    """How the simulated table runs: ``realtime`` frames at 30 fps (the demo) or as fast
    as they render (tests, the crash test, the bench), and how the players pace themselves
    in frames."""

    realtime: bool
    frames_per_action: int
    settle_frames: int
    redo_frames: int
    clean: bool  # clean frames (no blur, glare, noise): quicker to render and read
    new_game_after: float  # seconds between a game's end and the next


DEMO = Pace(
    realtime=True,
    frames_per_action=15,
    settle_frames=45,
    redo_frames=90,
    clean=False,
    new_game_after=8.0,
)
FAST = Pace(
    realtime=False,
    frames_per_action=4,
    settle_frames=36,
    redo_frames=90,
    clean=True,
    new_game_after=0.0,
)


GAME_SEED_STEP = 1_000_003  # between one game's players' seed and the next's


class SimulationError(TableControllerError, ValueError):
    """A configuration the simulated table cannot run with, and what to change."""


def simulated_table(
    config: TableConfig,
    *,
    seed: int = 0,
    renege: bool = False,
    pace: Pace = FAST,
    **table_options: Unpack[TableOptionFields],
) -> Table:
    """The table of ``config`` with simulated players at it, run as ``table_options``
    say (``TableOptions``' fields; ``new_game_after`` the pace's unless given). The config
    must have the mock pins (the players press them); a cube, if any, must be the
    emulator."""
    if config.gpio != "mock":
        where = config.source or "the config"
        raise SimulationError(
            f"the simulated players press the seat buttons on mock pins, but {where} "
            f'has gpio = {config.gpio!r}: set [table] gpio = "mock" for a simulated table'
        )
    if config.cube is not None and config.cube.port != "emulator":
        raise SimulationError(
            "the simulated players turn the emulated trump cube: set [cube] port = "
            '"emulator" (or "none") for a simulated table'
        )
    world = World(seed=seed, effects=Effects() if pace.clean else None)
    table_options.setdefault("new_game_after", pace.new_game_after)
    camera = functools.partial(WorldCamera, world, seed=seed, realtime=pace.realtime)
    table = Table(config, TableOptions(camera=camera, **table_options), world=world)

    games = itertools.count()

    def players() -> SimulatedPlayers:
        devices = table.devices
        # Each game its own players' seed (the first one ``seed`` itself), so a demo's
        # games differ from each other and the same ``seed`` plays the same games again.
        return SimulatedPlayers(
            world,
            table.game.rules,
            press=devices.press,
            turn_cube=devices.turn_cube if config.cube is not None else None,
            tell=lambda event: table.submit(SimTold(event)),  # no sensor for it
            seed=seed + GAME_SEED_STEP * next(games),
            renege=renege,
            frames_per_action=pace.frames_per_action,
            settle_frames=pace.settle_frames,
            redo_frames=pace.redo_frames,
        )

    table.players = players()
    table.new_players = players
    return table


__all__ = ["DEMO", "FAST", "Pace", "SimulationError", "simulated_table"]
