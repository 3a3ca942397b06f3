"""``table-controller cube ...``: emulate (a real subprocess on a real pty), flash, show,
test, and the errors a person sees."""

from __future__ import annotations

import io
import queue
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from cube_helpers import CONFIG, WAIT, next_event

from table_controller.cards import Suit
from table_controller.cli import main
from table_controller.devices import cube_cli
from table_controller.devices.cube import TrumpCube
from table_controller.devices.cube_backend import SerialBackend
from table_controller.devices.cube_types import ButtonPressed, CubeState
from table_controller.devices.emulator import CubeEmulator
from table_controller.seats import Seat


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = main(list(argv), out=out)
    return code, out.getvalue()


def test_show_on_the_emulator_writes_a_picture(tmp_path: Path) -> None:
    png = tmp_path / "cube.png"
    code, text = run(
        "cube", "show", "--port", "emulator", "--trump", "H", "--maker", "N",
        "--score", "3-5", "--png", str(png),
    )  # fmt: skip
    assert code == 0
    assert "shows: trump H, maker N, score 3-5" in text
    assert ".RRRRRR." in text  # the heart, drawn as letters
    assert png.read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--trump", "X"], "use C, D, H, S, NT"),
        (["--maker", "Q"], "use N, E, S or W"),
        (["--score", "three"], "write it NS-EW"),
        (["--alone"], "needs the maker's seat"),
    ],
)
def test_show_explains_bad_arguments(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _ = run("cube", "show", "--port", "emulator", *args)
    assert code == 2
    assert message in capsys.readouterr().err


def test_test_cycles_every_display() -> None:
    code, text = run("cube", "test", "--port", "emulator", "--step", "0")
    assert code == 0
    assert text.count("acknowledged in") == len(cube_cli._test_states())
    assert "round trip" in text and "0 retransmitted" in text


def test_flash_copies_frame_py_with_the_firmware() -> None:
    code, text = run("cube", "flash", "--port", "/dev/ttyACM7", "--dry-run")
    assert code == 0
    words = text.split()
    assert words[1:5] == ["-m", "mpremote", "connect", "/dev/ttyACM7"]
    copied = [Path(w).name for w in words[6 : words.index(":")]]
    assert copied == ["frame.py", "board_rp2040.py", "display.py", "cube.py", "main.py"]
    assert words[-2:] == ["+", "reset"]


def test_flash_says_what_to_plug_in(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, _ = run("cube", "flash", "--port", str(tmp_path / "ttyACM9"))
    assert code == 1
    assert "plug the cube in with a data cable" in capsys.readouterr().err
    monkeypatch.setattr("serial.tools.list_ports.comports", lambda: [])
    code, _ = run("cube", "flash")
    assert code == 1
    err = capsys.readouterr().err
    assert "no trump cube plugged in" in err and "2e8a:0005" in err


def test_flash_first_asks_the_running_firmware_to_stop() -> None:
    with CubeEmulator() as emulator:
        assert cube_cli._stop_firmware(emulator.device, io.StringIO())
        assert emulator.stopped  # at the REPL now, where mpremote can reach it


def test_emulate_behind_a_pty_in_another_process(tmp_path: Path) -> None:
    link = tmp_path / "cube-tty"
    command = [sys.executable, "-m", "table_controller.cli", "cube", "emulate", "--link", str(link)]
    proc = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
    )
    assert proc.stdin is not None and proc.stdout is not None
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(x) for x in proc.stdout], daemon=True).start()

    def line_with(text: str) -> str:
        while True:
            line = lines.get(timeout=WAIT)
            if text in line:
                return line

    try:
        assert str(link) in line_with("trump cube emulator on")
        with TrumpCube(SerialBackend(str(link)), CONFIG) as cube:
            cube.wait_connected(WAIT)
            cube.show(CubeState(trump=Suit.D, maker=Seat.S, score_ns=7, score_ew=2))
            cube.wait_shown(WAIT)
            assert "trump D, maker S, score 7-2" in line_with("shown:")
            proc.stdin.write("press\n")
            proc.stdin.flush()
            assert not next_event(cube, ButtonPressed).held
        proc.stdin.write("quit\n")
        proc.stdin.flush()
        assert proc.wait(timeout=WAIT) == 0
        assert not link.exists()  # cleaned up
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
