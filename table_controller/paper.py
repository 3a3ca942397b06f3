"""The paper every printable uses unless ``--paper`` says otherwise: one default for the
deck, the stickers' instructions, the mat and the lens board.

It is the machine's own, as other programs print on it: ``TABLE_CONTROLLER_PAPER``, then
``/etc/papersize`` (Debian's libpaper setting, what ``paperconfig`` writes), then the
locale's country (``LC_PAPER``, ``LC_ALL``, ``LANG``: North and Central America and the
Philippines use letter, the rest of the world A4), else letter (Euchre's home).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

PAPERS = ("letter", "a4")
ENV = "TABLE_CONTROLLER_PAPER"
PAPERSIZE = Path("/etc/papersize")
# Countries whose paper is US letter (CLDR's paper-size data, the ones that print).
LETTER_COUNTRIES = frozenset(
    ["US", "CA", "MX", "PH", "CL", "CO", "VE", "CR", "GT", "PA", "SV", "DO", "PR", "NI", "BZ", "HN"]
)
FALLBACK = "letter"


def paper_of_locale(locale: str) -> str | None:
    """``letter`` or ``a4`` for a locale such as ``en_US.UTF-8``; None when it names no
    country (``C``, ``POSIX``, ``C.UTF-8``)."""
    head = locale.split(".")[0].split("@")[0]
    _, sep, country = head.partition("_")
    if not sep or not country:
        return None
    return "letter" if country.upper() in LETTER_COUNTRIES else "a4"


def default_paper(environ: Mapping[str, str] | None = None, papersize: Path = PAPERSIZE) -> str:
    """The machine's paper: ``letter`` or ``a4`` (see the module's docstring)."""
    env = os.environ if environ is None else environ
    chosen = env.get(ENV, "").strip().lower()
    if chosen in PAPERS:
        return chosen
    try:
        lines = papersize.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        lines = []
    for line in lines:
        word = line.split("#")[0].strip().lower()
        if word in PAPERS:
            return word
        if word:
            break  # another size (legal, a5...): the locale decides between ours
    for name in ("LC_ALL", "LC_PAPER", "LANG"):
        found = paper_of_locale(env.get(name, ""))
        if found is not None:
            return found
    return FALLBACK


def paper_help() -> str:
    """The ``--paper`` option's help, naming the default on this machine."""
    return f"paper size: letter or a4 (default: this machine's, {default_paper()})"


__all__ = ["PAPERS", "default_paper", "paper_help", "paper_of_locale"]
