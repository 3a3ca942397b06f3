"""Work for the kiosk's look-back process that a test holds or breaks: module-level, so
the process (started the spawn way) finds it by its name. The test's thread and the
process share only a folder: the process writes ``started`` (its pid) and waits for
``go``."""

from __future__ import annotations

import os
import time
from pathlib import Path

from table_controller.kiosk.look_back import Job, Looked, look_over


def held_look_over(gate: str, job: Job) -> Looked:
    """``look_over``, once the test has written ``go`` in ``gate``."""
    folder = Path(gate)
    (folder / "started").write_text(str(os.getpid()), encoding="utf-8")
    while not (folder / "go").exists():  # the test's condition, in the process
        time.sleep(0.05)
    looked = look_over(job)
    (folder / "answered").write_text("", encoding="utf-8")
    return looked


def dies(job: Job) -> Looked:
    """A process that ends without an answer (a crash, the machine out of memory)."""
    os._exit(3)
