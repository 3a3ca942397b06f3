"""``table-controller run``, ``demo`` and ``replay --video``: the running table.

``run --config TABLE.toml`` is what the table's service runs: it stops cleanly on
SIGINT and SIGTERM (nothing is held back: every acknowledged event is already on disk).
``demo`` runs the simulated table on this machine: simulated players, the synthetic
camera, mock seat pins, the cube's firmware behind a pty, the page on localhost. A
config whose camera is ``synthetic`` runs that simulated table under ``run`` too (the
crash test does). ``replay --video DIR`` plays a recorded session through the same path.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from table_controller.commands import help_of
from table_controller.table.serving import Narrator
from table_controller.table.serving import error as _error
from table_controller.table.serving import serve as _serve

if TYPE_CHECKING:
    from table_controller.cards import Suit
    from table_controller.rules.events import InputEvent
    from table_controller.table.app import Table
    from table_controller.table.config import FleetConfig, TableConfig
    from table_controller.table.options import TableOptionFields

# asyncio, random, tempfile and the rules' codec are imported where they are used: every
# command's parser is built from this module's (demo, replay), and `log games` and the
# rest start without them.

ACK_ENV = "TABLE_CONTROLLER_ACK"


def _acker(out: TextIO) -> Callable[[int, int, InputEvent], None]:
    def ack(game: int, seq: int, event: InputEvent) -> None:
        from table_controller.rules.codec import encode

        out.write(f"ack {game} {seq} {json.dumps(encode(event))}\n")
        out.flush()

    return ack


# --- run -------------------------------------------------------------------------------


def cmd_run(args: argparse.Namespace, out: TextIO) -> int:
    from table_controller.event_log import LogError
    from table_controller.table.config import ConfigError, load_config
    from table_controller.table.simulated import DEMO, FAST, SimulationError, simulated_table
    from table_controller.web.server import PageError

    try:
        config = load_config(args.config)
    except ConfigError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    ack = args.ack_stdout or os.environ.get(ACK_ENV, "") not in ("", "0")
    options: TableOptionFields = {"on_ack": _acker(out) if ack else None}
    if args.narrate:
        options["on_step"] = Narrator(out).step
    if config.fleet is not None:
        return _run_fleet(config, config.fleet, args, out, options)
    try:
        if config.camera.source.split(",")[0] == "synthetic":
            pace = FAST if args.fast else DEMO
            table: Table = simulated_table(
                config, seed=args.seed, renege=args.renege, pace=pace, **options
            )
        else:
            from table_controller.table.app import Table
            from table_controller.table.options import TableOptions

            table = Table(config, TableOptions(**options))
    except (LogError, SimulationError) as exc:
        return _error(str(exc))
    if ack:  # where the table resumed: a replay of its log must say the same
        out.write(f"state {table.game_no} {table.seq} {table.game.state_digest()}\n")
        out.flush()
    try:
        import asyncio

        asyncio.run(_serve(table, out, hands=args.hands, quiet=ack))
    except PageError as exc:
        return _error(str(exc))
    return 0


def _run_fleet(
    config: TableConfig,
    fleet: FleetConfig,
    args: argparse.Namespace,
    out: TextIO,
    options: TableOptionFields,
) -> int:
    """``run`` of a table with ``[fleet]``: its name, rules, players and broker from the
    event's director (table/fleet/run.py), joining first when it has not joined yet."""
    import asyncio
    import threading

    from table_controller.event_log import LogError
    from table_controller.table.fleet.run import (
        FleetRun,
        StoppedJoining,
        ensure_membership,
        serve_fleet,
    )
    from table_controller.table.fleet.settings import FleetError
    from table_controller.table.fleet.update_link import FleetRunUpdates
    from table_controller.table.simulated import DEMO, FAST, SimulationError, simulated_table
    from table_controller.web.server import PageError

    synthetic = config.camera.source.split(",")[0] == "synthetic"

    def make_table(table_config: TableConfig, new_game_after: float | None) -> Table:
        more = options.copy()
        if new_game_after is not None:
            more["new_game_after"] = new_game_after
        if synthetic:
            pace = FAST if args.fast else DEMO
            table = simulated_table(
                table_config, seed=args.seed, renege=args.renege, pace=pace, **more
            )
            if new_game_after is None:  # no round seats anyone here yet: no one plays
                table.players = table.new_players = None
            return table
        from table_controller.table.app import Table
        from table_controller.table.options import TableOptions

        return Table(table_config, TableOptions(**more))

    try:
        member = ensure_membership(config, fleet.folder, say=_say_to(out))
        runner: FleetRun | None = None
        updates = FleetRunUpdates(member, current=lambda: None if runner is None else runner.table)
        runner = FleetRun(config, member, make_table=make_table, on_command=updates.on_command)
        stop_updates = threading.Event()
        updates.start(stop_updates)
        try:
            asyncio.run(serve_fleet(runner, out, hands=args.hands))
        finally:
            stop_updates.set()
    except StoppedJoining as exc:  # stopped as asked: said, and not a failure of the unit
        out.write(f"{exc}\n")
        return 0
    except (FleetError, LogError, SimulationError, PageError) as exc:
        return _error(str(exc))
    return 0


def _say_to(out: TextIO) -> Callable[[str], None]:
    def say(words: str) -> None:
        out.write(words + "\n")
        out.flush()

    return say


# --- demo ------------------------------------------------------------------------------


DEMO_LOGS_KEPT = 10  # demo runs whose logs the default folder keeps


def prune_demo_logs(folder: Path, *, keep: int) -> None:
    """Remove all but the newest ``keep`` demo logs the demo named itself in ``folder``
    (never a log given with --log-dir: that folder is the user's)."""
    logs = sorted(folder.glob("demo-*.sqlite"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in logs[keep:]:
        for path in (old, *old.parent.glob(old.name + "-*")):  # SQLite's -wal and -shm
            path.unlink(missing_ok=True)


def demo_folder(environ: Mapping[str, str]) -> Path:
    """Where the demo keeps its log: one folder (XDG's state home), not a new temporary
    folder for every run, so the log is still there to export and nothing piles up."""
    state = environ.get("XDG_STATE_HOME") or str(Path(environ.get("HOME", "~")) / ".local/state")
    return Path(state).expanduser() / "table-controller" / "demo"


def cmd_demo(args: argparse.Namespace, out: TextIO) -> int:
    if args.recorded:
        from table_controller.example_game import cmd_recorded_demo

        return cmd_recorded_demo(args, out)
    import random

    from table_controller.event_log import LogError
    from table_controller.table.config import demo_config
    from table_controller.table.recording import Recorder, RecordingError
    from table_controller.table.simulated import DEMO, FAST, simulated_table
    from table_controller.web.server import PageError

    seed = args.seed if args.seed is not None else random.randrange(100_000)
    try:
        if args.log_dir:
            folder, log = Path(args.log_dir), "demo.sqlite"
            folder.mkdir(parents=True, exist_ok=True)
        else:
            folder = demo_folder(os.environ)
            folder.mkdir(parents=True, exist_ok=True)
            log = f"demo-{time.strftime('%Y%m%d-%H%M%S')}-{seed}.sqlite"
            prune_demo_logs(folder, keep=DEMO_LOGS_KEPT - 1)
    except OSError as exc:
        return _error(
            f"cannot keep the demo's log in {exc.filename} ({exc.strerror}): "
            "give a folder you can write with --log-dir DIR"
        )
    config = demo_config(folder, port=args.port, log=log)
    recorder = None
    try:
        if args.record:
            recorder = Recorder(Path(args.record))
        table = simulated_table(
            config,
            seed=seed,
            renege=args.renege,
            pace=FAST if args.fast else DEMO,
            on_step=Narrator(out).step,
            on_frame=recorder.frame if recorder else None,
            on_noticed=recorder.noticed if recorder else None,
        )
    except (LogError, RecordingError) as exc:
        return _error(str(exc))
    out.write(
        "The simulated table: four players lay their cards, the synthetic camera reads them,\n"
        "the seat lights run on mock pins and the trump cube's firmware behind a pty.\n"
        + ("A renege will be played, and proven from the cards.\n" if args.renege else "")
        + f"Seed {seed} (`--seed {seed}` plays the same games again). Ctrl-C stops it.\n\n"
    )
    try:
        import asyncio

        asyncio.run(_serve(table, out, hands=args.hands, quiet=False))
    except PageError as exc:
        return _error(str(exc))
    finally:
        if recorder is not None:
            recorder.close()
    out.write(
        f"\nThe log: {config.log}\n"
        f"  the last game's score sheet: table-controller log export {config.log} "
        "--sheet sheet.html\n"
        f"  its transcript: table-controller log export {config.log} --transcript game.jsonl\n"
    )
    if recorder is not None:
        out.write(
            f"The recording: {args.record} (`table-controller replay --video {args.record}`)\n"
        )
    return 0


# --- replay --video --------------------------------------------------------------------


def cmd_replay_video(args: argparse.Namespace, out: TextIO) -> int:
    """A recorded session through the table's path: frames read, inputs given at their
    frames, the rules, a log of its own; the page too with ``--port``."""
    from table_controller.event_log import LogError
    from table_controller.table.app import Table
    from table_controller.table.config import ConfigError, load_config, parse_config
    from table_controller.table.devices import TableDevices
    from table_controller.table.options import TableOptions
    from table_controller.table.recording import INPUTS, RecordedInputs, RecordingError, read_inputs
    from table_controller.vision.camera import CameraError, open_camera

    video = Path(args.video)
    if not video.exists():
        return _error(f"{video} does not exist: give a folder of frames or a video file")
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="table-replay-"))
    log = Path(args.log) if args.log else folder / "replay.sqlite"
    try:
        if args.config:
            base = load_config(args.config)
            table_doc: dict[str, object] = {"table": {"name": base.name, "log": str(log)}}
            config = parse_config(
                {
                    **table_doc,
                    "rules": {"preset": base.rules_name, "options": dict(base.options)},
                    "players": {s.name: n for s, n in base.players.items()},
                    "camera": {
                        "source": "synthetic",
                        **(
                            {"calibration": str(base.camera.calibration)}
                            if base.camera.calibration
                            else {}
                        ),
                    },
                    "cube": {"port": "none"},
                    "web": {"host": "127.0.0.1", "port": args.port or 0},
                },
                Path.cwd(),
                str(args.config),
            )
        else:
            camera: dict[str, object] = {"source": "synthetic"}
            if args.calibration:
                camera["calibration"] = str(Path(args.calibration).resolve())
            config = parse_config(
                {
                    "table": {"name": "Replay", "log": str(log)},
                    "rules": {"preset": args.rules or "td-tournament"},
                    "camera": camera,
                    "cube": {"port": "none"},
                    "web": {"host": "127.0.0.1", "port": args.port or 0},
                },
                Path.cwd(),
                "<replay>",
            )
        inputs = read_inputs(video / INPUTS) if video.is_dir() else {}
    except ConfigError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    except RecordingError as exc:
        return _error(str(exc))
    spec = f"folder:{video}" if video.is_dir() else f"video:{video}"
    narrator = Narrator(out)
    try:
        options = TableOptions(
            camera=lambda: open_camera(spec),
            devices=TableDevices(config, clock=_monotonic(), lights=False, buttons=False),
            on_step=narrator.step,
            serve_page=args.port is not None,
            end_with_camera=True,
        )
        table = Table(config, options)
    except LogError as exc:
        return _error(str(exc))

    def set_cube(suit: Suit | None) -> None:
        table.cube_suit = suit

    table.players = RecordedInputs(inputs, submit=table.submit, set_cube=set_cube)
    try:
        import asyncio

        asyncio.run(_serve(table, out, hands=None, quiet=args.port is None))
    except (CameraError, RecordingError) as exc:
        return _error(str(exc))
    out.write(f"\n{table.camera.frames} frames replayed; the log: {log}\n")
    return 0


def _monotonic() -> Callable[[], float]:
    import time

    return time.monotonic


# --- the commands ----------------------------------------------------------------------


def add_commands(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    run = subparsers.add_parser(
        "run",
        help=help_of("run"),
        description="Run the table of a configuration (see docs/table.md).",
    )
    run.add_argument("--config", required=True, metavar="FILE", help="the table's TOML file")
    run.add_argument(
        "--ack-stdout",
        action="store_true",
        help=(
            "print 'state GAME NEXT_SEQ DIGEST' where the table resumed, then "
            f"'ack GAME SEQ EVENT' once each event is on disk (or set {ACK_ENV}=1)"
        ),
    )
    run.add_argument("--narrate", action="store_true", help="print the game as it is played")
    run.add_argument("--hands", type=int, metavar="N", help="stop after N hands")
    sim = run.add_argument_group("a simulated table (camera source 'synthetic')")
    sim.add_argument("--seed", type=int, default=0, help="the simulated players' seed")
    sim.add_argument("--renege", action="store_true", help="a player reneges once")
    sim.add_argument("--fast", action="store_true", help="frames as fast as they render")
    run.set_defaults(func=cmd_run)


def add_demo(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    demo = subparsers.add_parser(
        "demo",
        help="the simulated table: players, camera, lights, cube and the page on this machine",
    )
    demo.add_argument("--renege", action="store_true", help="a player reneges, and is caught")
    demo.add_argument("--hands", type=int, metavar="N", help="stop after N hands")
    demo.add_argument("--port", type=int, default=0, help="the page's port (0: a free one)")
    demo.add_argument(
        "--seed", type=int, help="the players' and the deal's seed (default: a new one each time)"
    )
    demo.add_argument("--fast", action="store_true", help="as fast as frames render")
    demo.add_argument(
        "--log-dir",
        metavar="DIR",
        help="keep the log here as demo.sqlite (default: a new log in "
        "~/.local/state/table-controller/demo, which keeps the last 10)",
    )
    demo.add_argument("--record", metavar="DIR", help="record the session (replay --video DIR)")
    demo.add_argument(
        "--recorded", action="store_true", help="print the bundled example game instead"
    )
    demo.set_defaults(func=cmd_demo)


def add_replay_video(replay: argparse.ArgumentParser) -> None:
    """``--video`` and its options on the ``replay`` command."""
    replay.add_argument(
        "--video", metavar="DIR", help="a recorded session (a folder of frames, or a video)"
    )
    replay.add_argument("--config", metavar="FILE", help="the table's config (rules, calibration)")
    replay.add_argument("--calibration", metavar="FILE", help="the camera's calibration")
    replay.add_argument("--log", metavar="FILE", help="the replay's log (default: a temp file)")
    replay.add_argument("--port", type=int, help="serve the page while replaying")


__all__ = ["Narrator", "add_commands", "add_demo", "add_replay_video", "cmd_replay_video"]
