"""The optional parts of the install, and what to tell a person whose install lacks one.

``make demo`` installs only the core (the simulated table and its page); a Raspberry Pi
table, the director's laptop and a developer add extras (pyproject.toml's
``[project.optional-dependencies]``, README's "Installing"). A command that needs a
package of a missing extra does not end in a traceback: ``cli.main`` turns the
``ModuleNotFoundError`` into ``missing_message``'s words, which name the command that
installs it; code that runs a package as a program (``python -m mpremote``) asks
``require`` first.
"""

from __future__ import annotations

import importlib.util

from table_controller.errors import TableControllerError

# Each optional package's top-level module -> the smallest extra that installs it (as in
# pyproject.toml; pi and director include feed, test includes them all), and what it does.
MODULES: dict[str, tuple[str, str]] = {
    "paho": ("feed", "the director's feed (MQTT)"),
    "cryptography": ("feed", "signed rulings and the feed's keys"),
    "mpremote": ("pi", "copying the firmware onto the trump cube"),
    "pyzbar": ("pi", "reading qr-zbar markers"),
    "reportlab": ("print", "printing PDFs (decks, stickers, the calibration mat)"),
    "psycopg": ("director", "the director's store on PostgreSQL"),
    "argon2": ("director", "the directors' logins"),
    "weasyprint": ("director", "the director's PDF results (score sheets, the booklet)"),
}

# The extra a command's users install (a Pi table, the director), when it holds the one a
# missing module is in: they are told the one command that brings everything they need.
FOR_COMMAND: dict[str, str] = {
    "run": "pi",
    "kiosk": "pi",
    "cube": "pi",
    "director": "director",
    "feed": "director",
    "event": "director",
}
INCLUDES: dict[str, tuple[str, ...]] = {"pi": ("feed",), "director": ("feed",)}


class MissingExtra(TableControllerError, RuntimeError):
    """A package of an extra this install left out; ``str()`` says what to install."""


def install_hint(extra: str) -> str:
    """The commands that install ``extra``: from the project's folder, or from the package index."""
    return (
        f"install them with `make setup-{extra}` in the project's folder "
        f"(or `pip install 'table-controller[{extra}]'`), then run the command again"
    )


def missing_message(module: str | None, command: str | None = None) -> str | None:
    """What to tell a person for a missing ``module`` (a ``ModuleNotFoundError``'s
    ``name``) while running ``command`` (its group, as ``run``), or None when it belongs
    to no extra (then the install itself is broken)."""
    top = (module or "").partition(".")[0]
    known = MODULES.get(top)
    if known is None:
        return None
    extra, purpose = known
    wider = FOR_COMMAND.get(command or "")
    if wider is not None and extra in INCLUDES.get(wider, ()):
        extra = wider
    return (
        f"this needs the optional packages for {purpose}, which this install left out "
        f"(the [{extra}] extra): {install_hint(extra)}."
    )


def require(module: str, command: str | None = None) -> None:
    """Raise ``MissingExtra`` (with the words to show) when ``module`` is not installed;
    for packages run as a program rather than imported."""
    if importlib.util.find_spec(module) is None:
        words = missing_message(module, command)
        raise MissingExtra(words or f"the package {module} is missing: run `make setup` again")


__all__ = ["FOR_COMMAND", "MODULES", "MissingExtra", "install_hint", "missing_message", "require"]
