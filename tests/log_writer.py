"""The child process of tests/test_log_crash.py: plays random games into an event log,
as a table would, until it is killed.

    python tests/log_writer.py LOG SEED
    python tests/log_writer.py LOG SEED --file-size-limit BYTES

It resumes the log's last game where it stopped (replaying it, as the table does on
start) unless that game is over or was cut off while choosing the dealer, then starts new
games under random presets. After each append returns it prints
``acked GAME SEQ EVENT-JSON`` (flushed): the test holds the log to every line it saw.

With ``--file-size-limit`` the operating system refuses to let any file grow past BYTES
(RLIMIT_FSIZE), as a full disk would: the writer prints ``refused MESSAGE`` for the
first append the log refuses, and exits.
"""

from __future__ import annotations

import json
import random
import resource
import signal
import sys

from table_controller.event_log import EventLog, LogError
from table_controller.rules.codec import encode
from table_controller.rules.events import InputEvent
from table_controller.rules.game import Game
from table_controller.rules.hand import Phase
from table_controller.rules.presets import PRESETS, preset
from table_controller.seats import Seat
from table_controller.simulate import choose_dealer, deal, random_choice

TABLE = "crash test table"


def main(path: str, seed: int, size_limit: int | None = None) -> None:
    rng = random.Random(seed)
    choose = random_choice(rng)
    log = EventLog(path, table=TABLE)
    print("opened", flush=True)
    if size_limit is not None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a failed write(), not a signal
        resource.setrlimit(resource.RLIMIT_FSIZE, (size_limit, size_limit))
    last = log.last_game()
    game_no: int | None = None
    game: Game | None = None
    if last is not None:
        game = Game.replay(
            preset(last.rules_name, last.options), [e.event for e in log.events(last.game)]
        )
        if game.phase in (Phase.OVER, Phase.CHOOSING_DEALER):
            game = None  # a dealer half-chosen is not resumed: the cards were gathered
        else:
            game_no = last.game
    while True:
        if game is None or game_no is None or game.phase is Phase.OVER:
            name = rng.choice(sorted(PRESETS))
            players = {s: f"player {s.name}" for s in Seat}
            game_no = log.start_game(name, {}, players)
            game = Game(preset(name))
            print("game", game_no, name, flush=True)
        batch: list[InputEvent]
        if game.phase is Phase.CHOOSING_DEALER:
            batch = choose_dealer(rng, game)
        elif game.phase is Phase.DEALING:
            batch = [deal(rng, game.rules)]
        else:
            batch = [choose(game, game.legal_events())]
        for event in batch:
            game.push(event)
            seq = log.next_seq(game_no)
            png = bytes([seq % 256]) * 8 if rng.random() < 0.2 else None
            try:
                log.append(game_no, seq, event, source="sim", evidence=png)
            except LogError as exc:
                if size_limit is None:
                    raise
                print("refused", exc, flush=True)
                return
            print("acked", game_no, seq, json.dumps(encode(event)), flush=True)


if __name__ == "__main__":
    limit = int(sys.argv[4]) if sys.argv[3:4] == ["--file-size-limit"] else None
    main(sys.argv[1], int(sys.argv[2]), limit)
