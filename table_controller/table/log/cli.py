"""``table-controller log``: read a table's event log (docs/event-log.md).

    log games  LOG                                      a line per game
    log export LOG [--game N] (--transcript FILE | --sheet FILE)   default: the last game
    log check  LOG                                      integrity check and a replay of each game

The log is opened read-only: nothing here changes it, even while the table runs. Exit
codes: 2 for a file that is refused (missing, not a log, damaged, newer) or a game that
is not in it, 1 for an output that cannot be written or a check that found problems.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TextIO

from table_controller.commands import help_of
from table_controller.event_log import EventLog, GameRecord, LogError
from table_controller.present import Sheet, started_text
from table_controller.rules.hand import Phase
from table_controller.seats import Seat
from table_controller.table.log.export import replay_sheet, score_sheet_html, transcript_text


def _error(message: str) -> None:
    print(f"error: {message}", file=sys.stderr)


def _open(path: str) -> EventLog | None:
    try:
        return EventLog.open_existing(path)
    except LogError as exc:
        _error(str(exc))
        return None


def _players(record: GameRecord) -> str:
    return ", ".join(f"{s} {record.players[s]}" for s in Seat if s in record.players) or "-"


def _state(sheet: Sheet) -> str:
    game = sheet.game
    if game is None:
        return "not replayed"
    ns, ew = game.team_scores()
    score = f"score NS {ns} EW {ew}"
    if game.phase is not Phase.OVER:
        return f"in play, {score}, next: {game.expecting()}"
    won = f", {game.match_winner.name} won" if game.match_winner is not None else ""
    return f"over, {score}{won}"


def cmd_games(args: argparse.Namespace, out: TextIO) -> int:
    log = _open(args.log)
    if log is None:
        return 2
    with log:
        records = log.games()
        out.write(f"{log.path}: table {log.table!r}, {len(records)} games\n")
        for record in records:
            sheet = replay_sheet(log, record.game)
            out.write(
                f"game {record.game}  {record.rules_name}  {_players(record)}  "
                f"started {started_text(record.started)}  events {log.next_seq(record.game) - 1}  "
                f"hands {len(sheet.hands)}  {_state(sheet)}\n"
            )
    return 0


def cmd_export(args: argparse.Namespace, out: TextIO) -> int:
    log = _open(args.log)
    if log is None:
        return 2
    with log:
        try:
            if args.game is None:
                last = log.last_game()
                if last is None:
                    _error(f"{log.path} has no games yet: nothing to export")
                    return 2
                game = last.game
            else:
                game = log.game(args.game).game
            if args.transcript is not None:
                target, text = args.transcript, transcript_text(log, game)
            else:
                target, text = args.sheet, score_sheet_html(log, game)
        except LogError as exc:
            _error(str(exc))
            return 2
    if target == "-":
        out.write(text)
        return 0
    try:
        Path(target).write_text(text, encoding="utf-8")
    except OSError as exc:
        _error(
            f"cannot write {target} ({exc.strerror or exc}): choose a file in a folder "
            "that exists and can be written"
        )
        return 1
    kind = "transcript" if args.transcript is not None else "score sheet"
    out.write(f"game {game}: {kind} written to {target}\n")
    return 0


def cmd_check(args: argparse.Namespace, out: TextIO) -> int:
    log = _open(args.log)
    if log is None:
        return 2
    problems = 0
    with log:
        try:
            damage = log.integrity_problems()
            records = log.games()
        except LogError as exc:
            _error(str(exc))
            return 2
        if damage:
            problems += len(damage)
            for line in damage:
                out.write(f"damaged: {line}\n")
        kinds = [device for _, device, _, _ in log.faults()]
        notices = kinds.count("notice")  # refused presses, director calls (table/app.py)
        out.write(
            f"{log.path}: table {log.table!r}, {len(records)} games, "
            f"{len(kinds) - notices} device fault records, {notices} notices\n"
        )
        for record in records:
            sheet = replay_sheet(log, record.game)
            status = "replays cleanly" if not sheet.problems else "PROBLEMS"
            out.write(
                f"game {record.game} ({record.rules_name}): {sheet.events} events, "
                f"{status}: {_state(sheet)}\n"
            )
            for problem in sheet.problems:
                out.write(f"  {problem}\n")
            problems += len(sheet.problems)
    if problems:
        _error(
            f"{problems} problems found: the rest of the log is readable and can be "
            "exported (log export); restore the file from a backup to recover the rest"
        )
        return 1
    out.write("ok\n")
    return 0


def add_commands(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``log`` command group to a ``table-controller`` parser's subparsers."""
    group = subparsers.add_parser(
        "log",
        help=help_of("log"),
        description="Read a table's event log (it is never changed by these commands).",
    )
    sub = group.add_subparsers(dest="log_command", required=True, metavar="COMMAND")
    games = sub.add_parser("games", help="a line per game: rules, players, hands, score")
    games.add_argument("log", help="the log file ([table] log in the table's config)")
    games.set_defaults(func=cmd_games)

    export = sub.add_parser("export", help="a game as a transcript or a printable score sheet")
    export.add_argument("log", help="the log file")
    export.add_argument("--game", type=int, help="the game's number (default: the last)")
    what = export.add_mutually_exclusive_group(required=True)
    what.add_argument(
        "--transcript", metavar="FILE", help="write a transcript (JSON Lines; - for stdout)"
    )
    what.add_argument("--sheet", metavar="FILE", help="write a score sheet (HTML; - for stdout)")
    export.set_defaults(func=cmd_export)

    check = sub.add_parser("check", help="check the file and replay every game")
    check.add_argument("log", help="the log file")
    check.set_defaults(func=cmd_check)
