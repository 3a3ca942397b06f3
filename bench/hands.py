"""Random full hands per second: the rules core against OpenSpiel's euchre.

Run it as ``.venv/bin/python bench/hands.py`` (or ``make bench``); it prints the machine,
the versions and, for stick the dealer on and off:

* OpenSpiel: a new state per hand, its chance nodes (dealer, 20 cards, upcard) drawn
  with ``chance_outcomes()``, then random legal actions (bidding, discard, go alone,
  play) until the state is terminal;
* ours, one ``Game`` per hand (the fair comparison: OpenSpiel also starts a fresh state
  and chooses the dealer for every hand): ``DealerChosen``, a deal by ``random.shuffle``
  arriving as ``HandDealt`` with all four hands known, then a random event from
  ``game.legal_events()`` (bids, the discard, legal cards) at every step until the hand
  is scored or thrown in, as OpenSpiel's side picks from ``state.legal_actions()``;
* ours, one long game (rules with no points target, so it never ends) for the same
  number of hands: no per-hand ``Game`` set-up, but a growing event log;
* the ratio ours (one Game per hand) / OpenSpiel;
* events applied per second when a pre-generated event log of one long game is replayed
  through ``Game.replay``.

Every figure is the best and the median of ``--runs`` runs (default 5) of ``--hands``
hands (fixed seeds).
Within a run the engines take turns, 250 hands at a time, so that a change in the load of
a shared machine hits them alike; the ratio is taken run by run (median of the 3). Time
is the process's CPU time (``time.process_time``; OpenSpiel runs in this process too).
Random choices are uniform over each engine's legal options, so the games differ
slightly: our bidding offers "alone" with the call (order up alone or not), OpenSpiel
asks after the call.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sysinfo import cpu_model, version

from table_controller.cards import DECK
from table_controller.rules import Game, Phase, Rules
from table_controller.rules.events import (
    DealerChosen,
    HandDealt,
    InputEvent,
)
from table_controller.seats import Seat

SEATS = tuple(Seat)
# CPU time of this process (OpenSpiel runs in it too, single-threaded): on a shared
# machine, time spent waiting for the CPU does not count against either engine.
clock = time.process_time


# --- the runners: each plays k more random hands per call, returns the steps applied ---

Runner = Callable[[int], int]
CHUNK = 250  # hands per turn: the engines take turns in chunks within a run


def openspiel_runner(pyspiel: Any, stick: bool, seed: int) -> Runner:
    """OpenSpiel: a new state per hand, chance and random legal actions to the end."""
    game = pyspiel.load_game("euchre", {"stick_the_dealer": stick})
    choice = random.Random(seed).choice

    def run(k: int) -> int:
        steps = 0
        for _ in range(k):
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    state.apply_action(choice(state.chance_outcomes())[0])
                else:
                    state.apply_action(choice(state.legal_actions()))
                steps += 1
        return steps

    return run


def deal(rng: random.Random) -> HandDealt:
    deck = list(DECK)
    rng.shuffle(deck)
    return HandDealt(
        deck[20], {seat: tuple(deck[i * 5 : i * 5 + 5]) for i, seat in enumerate(SEATS)}
    )


def play_one_hand(game: Game, rng: random.Random) -> int:
    """Bid and play the dealt hand at random to its end; return the events pushed."""
    choice = rng.choice
    push = game.push
    steps = 0
    legal = game.legal_events
    while game.hand is not None:
        push(choice(legal()))
        steps += 1
    return steps


def per_hand_runner(stick: bool, seed: int) -> Runner:
    """Ours, one fresh ``Game`` per hand: the dealer chosen, a shuffled deal, random play."""
    rules = Rules(stick_the_dealer=stick)
    rng = random.Random(seed)

    def run(k: int) -> int:
        steps = 0
        for _ in range(k):
            game = Game(rules)
            game.push(DealerChosen(rng.choice(SEATS)))
            game.push(deal(rng))
            steps += 2 + play_one_hand(game, rng)
        return steps

    return run


def long_rules(stick: bool) -> Rules:
    return Rules(stick_the_dealer=stick, points_to_win=None, hands_per_game=10**9)


def long_game_runner(stick: bool, seed: int) -> tuple[Runner, Game]:
    """Ours, every hand in one long game (which never ends); the game, for its log."""
    rng = random.Random(seed)
    game = Game(long_rules(stick))
    game.push(DealerChosen(rng.choice(SEATS)))

    def run(k: int) -> int:
        steps = 0
        for _ in range(k):
            game.push(deal(rng))
            steps += 1 + play_one_hand(game, rng)
        return steps

    return run, game


def replay(stick: bool, log: list[InputEvent]) -> float:
    t0 = clock()
    game = Game.replay(long_rules(stick), log)
    dt = clock() - t0
    assert game.phase is Phase.DEALING
    return dt


def timed_run(runners: dict[str, Runner], n: int) -> tuple[dict[str, float], dict[str, int]]:
    """Play ``n`` hands through every runner, the runners taking turns ``CHUNK`` hands at
    a time (in alternating order), so that a change in the machine's load hits all alike.
    Returns the seconds and the steps of each."""
    seconds = dict.fromkeys(runners, 0.0)
    steps = dict.fromkeys(runners, 0)
    names = list(runners)
    done = 0
    while done < n:
        k = min(CHUNK, n - done)
        for name in names:
            t0 = clock()
            steps[name] += runners[name](k)
            seconds[name] += clock() - t0
        names.reverse()
        done += k
    return seconds, steps


# --- reporting ----------------------------------------------------------------------


def row(name: str, n: int, times: list[float], steps: int) -> str:
    best, median = min(times), statistics.median(times)
    return f"  {name:<36} {n / best:>13,.0f} {n / median:>15,.0f} {steps / n:>11.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=5000, help="hands per run (default 5000)")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--runs", type=int, default=5, help="runs (default 5)")
    args = parser.parse_args()
    n, seed, runs = args.hands, args.seed, args.runs

    print(f"Python {platform.python_version()} ({platform.python_implementation()})")
    print(f"CPU: {cpu_model()} ({platform.machine()}, {os.cpu_count()} logical CPUs)")
    print(
        f"table-controller {version('table-controller')}, open_spiel {version('open_spiel')}, "
        f"numpy {version('numpy')}"
    )
    print(
        f"{n} hands per run, {runs} runs (seeds {seed}..{seed + runs - 1}); within a run the "
        f"engines take turns, {CHUNK} hands at a time; single process, CPU time"
    )
    try:
        import pyspiel
    except ImportError:
        pyspiel = None
        print("OpenSpiel is not installed (pip install open_spiel): its figures are skipped")

    names = (
        "OpenSpiel (chance + random actions)",
        "ours, one Game per hand",
        "ours, one long game",
    )
    for stick in (True, False):
        times: dict[str, list[float]] = {name: [] for name in names}
        steps: dict[str, int] = {}
        log: list[InputEvent] = []
        for i in range(runs):
            runners: dict[str, Runner] = {}
            if pyspiel is not None:
                runners[names[0]] = openspiel_runner(pyspiel, stick, seed + i)
            runners[names[1]] = per_hand_runner(stick, seed + i)
            runners[names[2]], game = long_game_runner(stick, seed + i)
            seconds, steps = timed_run(runners, n)
            for name, dt in seconds.items():
                times[name].append(dt)
            log = log or game.log
        replays = [replay(stick, log) for _ in range(runs)]
        print(f"\nstick_the_dealer={stick}")
        print(f"  {'engine':<36} {'best hands/s':>13} {'median hands/s':>15} {'steps/hand':>11}")
        for name in names:
            if times[name]:
                print(row(name, n, times[name], steps[name]))
        osp, ours = times[names[0]], times[names[1]]
        if osp:
            ratios = [o / u for o, u in zip(osp, ours, strict=True)]
            print(
                f"  ratio ours (one Game per hand) / OpenSpiel: {statistics.median(ratios):.2f} "
                f"median of the {runs} runs ({min(ratios):.2f} to {max(ratios):.2f})"
            )
        best, median = min(replays), statistics.median(replays)
        print(
            f"  Game.replay of a {len(log):,}-event log ({n} hands): "
            f"{len(log) / best:,.0f} events/s best, {len(log) / median:,.0f} median"
        )


if __name__ == "__main__":
    main()
