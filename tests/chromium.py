"""How the page tests start Debian's headless Chromium: its path and its flags. A module
of its own, not conftest.py: two folders' conftest.py files share one module name, and an
import of a name from "conftest" finds whichever was loaded last (tests/box/ has one)."""

from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
