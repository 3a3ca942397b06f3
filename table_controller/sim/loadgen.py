"""A table without camera, seats or cube, for the feed's recovery tests and its bench.

What is simulated: the players. Each event is a legal choice of the rules core
(``simulate.py``: random legal play, shuffled deals, the first dealer cut), logged into a
real ``EventLog`` (committed and fsync'd, as the table logs) and announced to a real
``Publisher``, which sends it from the log over MQTT: the feed's whole path is real.
What is not here: the camera reading a card and the page (bench/table.py measures those).

As a process (the test kills it with SIGKILL and starts it again on the same log):

    python -m table_controller.sim.loadgen LOG --table ID --port PORT [--every SECONDS]
        [--username USER --password-file FILE] [--signing-key FILE] [--events N]
        [--until sent|confirmed]

prints ``logged GAME SEQ`` after each event is durably in the log, and plays on (the
log's last game resumed, as the table resumes it) until killed or ``--events`` are logged.
With ``--until`` it then goes on sending until the broker has taken (``sent``) or the
director has confirmed (``confirmed``) every logged event, as a table is left on until
its feed has drained: a loaded machine may need longer than the few seconds a stopping
feed gives itself.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

from table_controller.event_log import EventLog
from table_controller.feed import messages
from table_controller.feed.outbox import Outbox
from table_controller.feed.publisher import FeedSettings, Publisher
from table_controller.rules.events import InputEvent
from table_controller.rules.game import Game, Phase
from table_controller.rules.presets import preset
from table_controller.seats import Seat
from table_controller.simulate import choose_dealer, deal, random_choice

RULES = "td-tournament"


class RulesTable:
    """Plays random legal games into a real event log, resuming its last game."""

    def __init__(self, log_path: str | Path, *, name: str, seed: int, rules: str = RULES):
        self.log = EventLog(log_path, table=name)
        self.name = name
        self.rules = rules
        self.rng = random.Random(seed)
        self.choose = random_choice(self.rng)
        self.players = {s: f"{name} {s.name}" for s in Seat}
        self.game_no: int | None = None
        self.game: Game | None = None
        last = self.log.last_game()
        if last is not None:
            game = Game.replay(
                preset(last.rules_name, last.options), [e.event for e in self.log.events(last.game)]
            )
            if game.phase is not Phase.OVER:
                self.game_no, self.game = last.game, game

    def step(self, at: float | None = None) -> list[tuple[int, int]]:
        """Log the next event (or the cards that choose the first dealer); their keys."""
        if self.game is None or self.game_no is None or self.game.phase is Phase.OVER:
            self.game_no = self.log.start_game(self.rules, {}, self.players)
            self.game = Game(preset(self.rules))
        game, game_no = self.game, self.game_no
        batch: list[InputEvent]
        if game.phase is Phase.CHOOSING_DEALER:
            batch = choose_dealer(self.rng, game)
        elif game.phase is Phase.DEALING:
            batch = [deal(self.rng, game.rules)]
        else:
            batch = [self.choose(game, game.legal_events())]
        keys = []
        for event in batch:
            game.push(event)
            seq = self.log.next_seq(game_no)
            self.log.append(game_no, seq, event, source="camera", recorded=at)
            keys.append((game_no, seq))
        return keys

    def status(self) -> dict[str, object]:
        """The heartbeat's picture of this table (Publisher.set_status)."""
        game = self.game
        hand = game.hand or game.last_hand if game is not None else None
        return {
            "name": self.name,
            "game": self.game_no,
            "hand": hand.number if hand is not None else None,
            "phase": game.phase.name.lower() if game is not None else None,
            "scores": tuple(game.scores) if game is not None else (0, 0),
            "players": {s.name: n for s, n in self.players.items()},
            "faults": [],
        }

    def close(self) -> None:
        self.log.close()


def drain(log: str | Path, *, confirmed: bool, poll: float = 0.05) -> None:
    """Return once the broker has acknowledged (``confirmed``: the director has
    confirmed) every event in ``log``, as the publisher records them there; the caller's
    own guard bounds the wait."""
    outbox = Outbox(log)
    try:
        while outbox.backlog(outbox.safe() if confirmed else None) > 0:
            time.sleep(poll)
    finally:
        outbox.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m table_controller.sim.loadgen")
    ap.add_argument("log")
    ap.add_argument("--table", default="loadgen")
    ap.add_argument("--broker", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=1883)
    ap.add_argument("--event", default="event")
    ap.add_argument("--topic", default="euchre")
    ap.add_argument("--username", default="")
    ap.add_argument("--password-file", type=Path, help="the broker password, alone in a file")
    ap.add_argument("--signing-key", type=Path, help="the table's signing key (PEM): it signs")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--every", type=float, default=0.01, help="seconds between events")
    ap.add_argument("--events", type=int, default=0, help="stop after this many (0: never)")
    ap.add_argument(
        "--until",
        choices=("sent", "confirmed"),
        help="after --events, send until the broker took (the director holds) every one",
    )
    args = ap.parse_args(argv)
    table = RulesTable(args.log, name=args.table, seed=args.seed)
    settings = FeedSettings(
        table=args.table,
        topics=messages.Topics.of(args.topic, args.event),
        broker=args.broker,
        port=args.port,
        username=args.username,
        password=args.password_file.read_text().strip() if args.password_file else "",
        signing_key=args.signing_key.read_bytes() if args.signing_key else None,
        heartbeat=1.0,
        resend_after=2.0,
    )
    pub = Publisher(settings, args.log)
    pub.start()
    logged = 0
    try:
        while not args.events or logged < args.events:
            for game, seq in table.step():
                print("logged", game, seq, flush=True)
                logged += 1
            pub.notify()
            pub.set_status(table.status())
            time.sleep(args.every)
        if args.until:
            drain(args.log, confirmed=args.until == "confirmed")
    finally:
        pub.stop()
        table.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
