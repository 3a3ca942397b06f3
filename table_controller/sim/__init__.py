"""The simulated world: what stands in front of a table when no one sits at it.

A simulated table is the real table (``table/simulated.py`` puts it together) with this
world in front of its camera, so the table's own path never knows it is simulated:

- ``World`` (world.py): the table top, which cards lie where and what each player
  holds, and ``WorldCamera``, which renders it frame by frame as a camera source;
- ``SimulatedPlayers`` (players.py, with strategy.py): four players who lay cards in
  the world, press their seat buttons and turn the emulated trump cube;
- loadgen.py: a table without a camera that logs random legal play and feeds it to a
  director, run as ``python -m table_controller.sim.loadgen`` (not loaded here, so the
  command runs it once).

The world sits below the table: it uses the camera's frames and the synthetic renderer
(``vision/``), the devices' buttons and cube, and the rules, never the table itself.
Other folders take only the names below.
"""

from __future__ import annotations

from table_controller.sim.players import Renege, SimulatedPlayers, cube_face, cube_turner
from table_controller.sim.world import HAND_FRAMES, World, WorldCamera, WorldError

__all__ = [
    "HAND_FRAMES",
    "Renege",
    "SimulatedPlayers",
    "World",
    "WorldCamera",
    "WorldError",
    "cube_face",
    "cube_turner",
]
