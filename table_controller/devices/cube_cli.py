"""``table-controller cube ...``: emulate the trump cube, flash it, show a state, test it.

Every failure prints what went wrong and what to do, and exits non-zero (1: the cube or
its port; 2: the command line).
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TextIO

from table_controller.cards import Suit
from table_controller.commands import help_of
from table_controller.extras import require
from table_controller.seats import Seat

if TYPE_CHECKING:
    from table_controller.devices import frame
    from table_controller.devices.cube import TrumpCube
    from table_controller.devices.cube_types import CubeInfo, CubeState
    from table_controller.devices.emulator import CubeEmulator, EmulatedBoard

ALERTS = ("none", "renege", "director", "misdeal", "irregularity")
SHOW_TIMEOUT = 5.0
CONNECT_TIMEOUT = 8.0
NOT_FOUND_PATIENCE = 2.0  # a port still missing after this is not coming
EMULATOR_HELP = """\
type a command and Enter:
  press | release | click      the button (click: press, then release)
  face N                       lay the cube down with face N up (0 matrix, 2 C, 3 D, 4 H, 5 S)
  lift                         pick it up (no face up)
  show                         the matrix as letters
  png FILE                     the matrix as a picture
  unplug | plug                pull the USB cable, plug it back (a new pty, a fresh cube)
  cut | restore                the line goes dead, and comes back
  quit"""


def _err(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 1


def _describe(state: frame.State) -> str:
    from table_controller.devices.cube_types import CubeState

    s = CubeState.from_wire(state)
    trump = "no trump" if s.no_trump else (s.trump.name if s.trump is not None else "-")
    maker = s.maker.name if s.maker is not None else "-"
    alone = " alone" if s.alone else ""
    alert = f" ALERT {s.alert.name.lower()}" if s.alert.value else ""
    return f"trump {trump}, maker {maker}{alone}, score {s.score_ns}-{s.score_ew}{alert}"


# --- emulate ---------------------------------------------------------------------------


def cmd_emulate(args: argparse.Namespace, out: TextIO) -> int:
    from table_controller.devices.emulator import CubeEmulator, LineFaults
    from table_controller.devices.firmware import FirmwareNotFound, firmware_dir

    try:
        firmware_dir()
    except FirmwareNotFound as exc:
        return _err(str(exc))
    faults = [LineFaults(drop=args.drop, corrupt=args.corrupt, seed=s) for s in (1, 2)]
    if args.port and args.link:
        print("error: --port and --link do not go together: give one", file=sys.stderr)
        return 2
    emulator = CubeEmulator(
        link=args.link,
        port=args.port,
        to_cube=faults[0],
        to_host=faults[1],
        accelerometer=not args.no_accelerometer,
    )
    try:
        device = emulator.start()
    except OSError as exc:
        if args.port:
            return _err(f"{exc}: check the path, and that this user may open it")
        return _err(f"cannot create the pty or the link {args.link}: {exc}")
    pty = emulator.pty
    print(f"trump cube emulator on {device}" + (f" (-> {pty})" if device != pty else ""), file=out)
    if not args.port:
        print(f"connect with: table-controller cube test --port {device}", file=out)
    out.flush()
    stop = threading.Event()

    def interrupt(signum: int, _frame: object) -> NoReturn:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupt)  # clean up the link on `kill` too
    watcher = threading.Thread(
        target=_watch, args=(emulator, args.png, out, stop), name="cube-watch", daemon=True
    )
    watcher.start()
    try:
        if not args.no_input:
            print(EMULATOR_HELP, file=out)
            out.flush()
            _commands(emulator, out)
        stop.wait(args.seconds if args.seconds else None)
    except KeyboardInterrupt:
        pass
    finally:
        stop.set()
        emulator.close()
    return 0


def _watch(emulator: CubeEmulator, png: str | None, out: TextIO, stop: threading.Event) -> None:
    """Print each state the firmware applies; keep the PNG up to date."""
    seen = 0
    frames = -1
    while not stop.wait(0.1):
        applied = emulator.applied
        for entry in applied[seen:]:
            print(f"shown: {_describe(entry.state)}", file=out)
            out.flush()
        seen = len(applied)
        if png and emulator.board.frames_shown != frames:
            frames = emulator.board.frames_shown
            try:
                tmp = Path(png).with_suffix(".tmp.png")
                emulator.board.save_png(tmp)
                tmp.replace(png)
            except OSError as exc:
                print(f"error: cannot write {png}: {exc}", file=sys.stderr)
                png = None


def _commands(emulator: CubeEmulator, out: TextIO) -> None:
    board = emulator.board
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        cmd, rest = words[0], words[1:]
        try:
            if cmd == "quit":
                raise KeyboardInterrupt
            elif cmd == "press":
                board.press()
            elif cmd == "release":
                board.release()
            elif cmd == "click":
                board.press()
                time.sleep(0.15)
                board.release()
            elif cmd == "face" and len(rest) == 1:
                board.turn_face_up(int(rest[0]))
            elif cmd == "lift":
                board.pick_up()
            elif cmd == "show":
                print(board.text(), file=out)
            elif cmd == "png" and len(rest) == 1:
                board.save_png(rest[0])
                print(f"wrote {rest[0]}", file=out)
            elif cmd == "unplug":
                emulator.unplug()
                print("unplugged", file=out)
            elif cmd == "plug":
                print(f"plugged in on {emulator.plug_in()}", file=out)
            elif cmd == "cut":
                emulator.cut()
            elif cmd == "restore":
                emulator.restore()
            else:
                print(f"unknown command {line.strip()!r}\n{EMULATOR_HELP}", file=out)
        except (ValueError, OSError) as exc:
            print(f"error: {exc}", file=out)
        out.flush()


# --- flash -----------------------------------------------------------------------------


def cmd_flash(args: argparse.Namespace, out: TextIO) -> int:
    from table_controller.devices.cube_backend import find_cube_port, list_ports
    from table_controller.devices.cube_types import CubeError
    from table_controller.devices.firmware import files_to_flash

    try:
        files = files_to_flash()
        port = args.port or find_cube_port()
    except CubeError as exc:
        return _err(str(exc))
    if not args.dry_run and "://" not in port and not os.path.exists(port):
        ports = list_ports()
        return _err(
            f"there is no port {port}: plug the cube in with a data cable and give its port "
            "(ls /dev/serial/by-id/), or leave out --port to find it. "
            + ("Ports present: " + ", ".join(ports) if ports else "No serial ports are present.")
        )
    command = [sys.executable, "-m", "mpremote", "connect", port, "cp"]
    command += [str(f) for f in files] + [":", "+", "reset"]
    if args.dry_run:
        print(" ".join(command), file=out)
        return 0
    require("mpremote", "cube")  # a table's extra; the demo's install leaves it out
    if _stop_firmware(port, out):
        time.sleep(0.3)  # MicroPython prints its REPL banner
    print(f"copying {', '.join(f.name for f in files)} to the cube on {port} ...", file=out)
    out.flush()
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode == 0:
        print("done: the cube restarts with the new firmware", file=out)
        return 0
    said = (result.stderr.strip() or result.stdout.strip()).splitlines()
    last = said[-1] if said else f"exit status {result.returncode}"
    if "no device found" in last or ("failed to access" in last and "No such file" in last):
        ports = list_ports()
        return _err(
            f"mpremote found no board on {port} ({last}). Plug the cube in with a data "
            "cable; if it has never had MicroPython, hold BOOTSEL while plugging it in and "
            "copy the RP2040 MicroPython .uf2 onto the RPI-RP2 drive first (hardware/cube.md)."
            + (" Ports present: " + ", ".join(ports) if ports else " No serial ports are present.")
        )
    if "failed to access" in last or "in use" in last:
        return _err(
            f"{port} is busy ({last}): stop the program using it (the table, a serial "
            "terminal, `cube emulate`) and flash again"
        )
    if "raw repl" in last:
        return _err(
            f"the board on {port} did not give mpremote its REPL ({last}). Unplug the cube, "
            "hold its button while plugging it back in (the firmware then does not start: a "
            "dim yellow frame), and flash again"
        )
    return _err(f"mpremote failed on {port}: {last}")


def _stop_firmware(port: str, out: TextIO) -> bool:
    """Ask a running firmware for the REPL (it ignores Ctrl-C while it runs). False if
    nothing answered: no firmware, or an old one; mpremote will try anyway."""
    from table_controller.devices.cube import TrumpCube
    from table_controller.devices.cube_backend import SerialBackend
    from table_controller.devices.cube_types import CubeConfig, CubeError

    config = CubeConfig(port=port, handshake_timeout=1.5)
    cube = TrumpCube(SerialBackend(port), config)
    cube.start()
    try:
        cube.wait_connected(2.0)
        cube.stop_firmware(2.0)
        print("the running firmware stopped", file=out)
        return True
    except CubeError:
        return False
    finally:
        cube.close()


# --- show and test ---------------------------------------------------------------------


def _state_from_args(args: argparse.Namespace) -> CubeState:
    from table_controller.devices.cube_types import Alert, CubeState

    trump = args.trump.upper()
    if trump not in ("NONE", "NT") and trump not in Suit.__members__:
        raise ValueError(f"--trump {args.trump}: use C, D, H, S, NT (no trump) or none")
    maker = None
    if args.maker is not None:
        if args.maker.upper() not in Seat.__members__:
            raise ValueError(f"--maker {args.maker}: use N, E, S or W")
        maker = Seat[args.maker.upper()]
    score = re.fullmatch(r"(-?\d+)-(-?\d+)", args.score.strip())
    if score is None:
        raise ValueError(f"--score {args.score}: write it NS-EW, e.g. 3-7 (or -2-4)")
    score_ns, score_ew = int(score.group(1)), int(score.group(2))
    return CubeState(
        trump=Suit[trump] if trump in Suit.__members__ else None,
        no_trump=trump == "NT",
        maker=maker,
        alone=args.alone,
        score_ns=score_ns,
        score_ew=score_ew,
        alert=Alert[args.alert.upper()],
        brightness=args.brightness,
    )


def _open_cube(port: str) -> TrumpCube:
    from table_controller.devices.cube import TrumpCube
    from table_controller.devices.cube_types import CubeConfig

    cube = TrumpCube.from_config(CubeConfig(port=port))
    cube.start()
    return cube


def _connect(cube: TrumpCube) -> CubeInfo:
    """Wait for the handshake; give up early on a port that is not there at all."""
    from table_controller.devices.cube_types import CubeNotFound, CubeTimeout

    deadline = time.monotonic() + CONNECT_TIMEOUT
    missing_since = time.monotonic()
    while True:
        try:
            return cube.wait_connected(0.25)
        except (CubeNotFound, CubeTimeout) as exc:
            now = time.monotonic()
            if not isinstance(exc, CubeNotFound):
                missing_since = now
            if now > deadline or now - missing_since > NOT_FOUND_PATIENCE:
                raise


def _emulated_board(cube: TrumpCube) -> EmulatedBoard | None:
    from table_controller.devices.cube_backend import EmulatorBackend

    backend = cube.backend
    return backend.emulator.board if isinstance(backend, EmulatorBackend) else None


def cmd_show(args: argparse.Namespace, out: TextIO) -> int:
    from table_controller.devices.cube_types import CubeError

    try:
        state = _state_from_args(args)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    cube = _open_cube(args.port)
    try:
        info = _connect(cube)
        cube.show(state)
        cube.wait_shown(SHOW_TIMEOUT)
        print(f"{info.firmware} on {info.port} shows: {_describe(state.to_wire())}", file=out)
        board = _emulated_board(cube)
        if board is not None:
            board.wait_for(lambda b: b.frames_shown > 0, 1.0)
            time.sleep(0.1)  # let it draw the state just acknowledged
            print(board.text(), file=out)
            if args.png:
                board.save_png(args.png)
                print(f"wrote {args.png}", file=out)
    except CubeError as exc:
        return _err(str(exc))
    finally:
        cube.close()
    return 0


def _test_states() -> list[tuple[str, CubeState]]:
    from table_controller.devices.cube_types import Alert, CubeState

    steps: list[tuple[str, CubeState]] = []
    for suit in Suit:
        for seat in Seat:
            steps.append((f"trump {suit.name}, maker {seat.name}", CubeState(suit, seat)))
    steps.append(("no trump, maker N", CubeState(no_trump=True, maker=Seat.N)))
    steps.append(("H, W alone (E sits out)", CubeState(Suit.H, Seat.W, alone=True)))
    for ns, ew in ((0, 0), (9, 7), (10, 3), (-2, 11)):
        steps.append((f"score {ns}-{ew}", CubeState(score_ns=ns, score_ew=ew)))
    for alert in list(Alert)[1:]:
        steps.append((f"alert {alert.name.lower()}", CubeState(alert=alert)))
    steps.append(("full brightness (power-capped)", CubeState(Suit.S, Seat.E, brightness=255)))
    return steps


def cmd_test(args: argparse.Namespace, out: TextIO) -> int:
    from table_controller.devices.cube_types import CubeError, CubeState

    cube = _open_cube(args.port)
    try:
        info = _connect(cube)
        accel = "with" if info.has_accelerometer else "without"
        print(
            f"{info.firmware} on {info.port}, {info.width}x{info.height}, {accel} an "
            "accelerometer. Press the button and turn the cube over as it runs.",
            file=out,
        )
        for label, state in _test_states():
            started = time.monotonic()
            cube.show(state)
            cube.wait_shown(SHOW_TIMEOUT)
            took = (time.monotonic() - started) * 1000
            print(f"  {label:<34} acknowledged in {took:6.1f} ms", file=out)
            out.flush()
            deadline = started + args.step
            while (left := deadline - time.monotonic()) > 0:
                event = cube.poll(left)
                if event is not None:
                    print(f"  event: {event}", file=out)
        stats = cube.stats
        rtt = (cube.round_trip or 0.0) * 1000
        print(
            f"round trip {rtt:.2f} ms (smoothed), retransmit timeout "
            f"{cube.retransmit_timeout * 1000:.0f} ms; {stats.commands_acked} states acknowledged, "
            f"{stats.retransmits} retransmitted, {stats.bad_frames} bad frames",
            file=out,
        )
        cube.show(CubeState())
        cube.wait_shown(SHOW_TIMEOUT)
    except CubeError as exc:
        return _err(str(exc))
    finally:
        cube.close()
    return 0


# --- the parser ------------------------------------------------------------------------


def add_commands(sub: Any) -> None:
    cube = sub.add_parser("cube", help=help_of("cube"))
    csub = cube.add_subparsers(dest="cube_command", required=True)

    em = csub.add_parser("emulate", help="run the cube's firmware here, behind a pty")
    em.add_argument("--link", help="also make this path point at the pty (survives replugs)")
    em.add_argument(
        "--port",
        help="run on this serial device instead of a pty of its own (such as the pty QEMU "
        "gives a virtual machine's serial port)",
    )
    em.add_argument("--png", help="keep this PNG showing the matrix")
    em.add_argument("--drop", type=float, default=0.0, help="drop this share of bytes (0..1)")
    em.add_argument("--corrupt", type=float, default=0.0, help="corrupt this share of bytes")
    em.add_argument("--no-accelerometer", action="store_true", help="a cube without one")
    em.add_argument("--no-input", action="store_true", help="do not read commands from stdin")
    em.add_argument("--seconds", type=float, help="stop after this long (default: Ctrl-C)")
    em.set_defaults(func=cmd_emulate)

    fl = csub.add_parser("flash", help="copy the firmware onto the cube (mpremote)")
    fl.add_argument("--port", help="the cube's port (default: find the Pico on USB)")
    fl.add_argument("--dry-run", action="store_true", help="print the mpremote command only")
    fl.set_defaults(func=cmd_flash)

    port_help = "the cube's port: a path, auto (find it) or emulator"
    sh = csub.add_parser("show", help="show one state on the cube")
    sh.add_argument("--port", default="auto", help=port_help)
    sh.add_argument("--trump", default="none", help="C, D, H, S, NT or none")
    sh.add_argument("--maker", help="N, E, S or W")
    sh.add_argument("--alone", action="store_true", help="the maker goes alone")
    sh.add_argument("--score", default="0-0", help="NS-EW, e.g. 3-7")
    sh.add_argument("--alert", default="none", choices=ALERTS)
    sh.add_argument("--brightness", type=int, default=32, help="0..255")
    sh.add_argument("--png", help="with --port emulator: write the matrix as a PNG")
    sh.set_defaults(func=cmd_show)

    te = csub.add_parser("test", help="cycle every display and report the link's figures")
    te.add_argument("--port", default="auto", help=port_help)
    te.add_argument("--step", type=float, default=1.0, help="seconds per display")
    te.set_defaults(func=cmd_test)
