"""Bots that play a seat from what the seat can see (issue 7).

``Bot.choose(view, rng)`` returns the seat's next input event; ``view`` is a
``SeatView`` (knowledge.py), which carries no other hand. Two levels: ``RuleOfThumbBot``
(rule_of_thumb.py) and ``StrongBot`` (strong.py: samples the unseen cards and solves
each sample double-dummy). ``match.py`` plays deals between two bot kinds both ways round;
``openspiel_bot.py`` (needs ``pyspiel``) lets OpenSpiel's ISMCTS bot play a seat, for the
strength benchmark.
"""

from __future__ import annotations

import random
from typing import Protocol

from table_controller.bots.knowledge import SeatView, ViewKeeper, seat_view, seat_view_from
from table_controller.rules.events import InputEvent


class Bot(Protocol):
    name: str

    def choose(self, view: SeatView, rng: random.Random) -> InputEvent: ...


__all__ = ["Bot", "SeatView", "ViewKeeper", "seat_view", "seat_view_from"]
