"""The rule texts the presets follow, by the titles a person knows them by.

A preset's ``source`` is the text's file in the project's seeds (what the tests quote);
a user of the package does not have those files, so what the commands print is the
text's title.
"""

from __future__ import annotations

TEXT_TITLES: dict[str, str] = {
    "000_58270bed3c0b6e2c.txt": "Bicycle official Euchre rules (campus head-to-head championship)",
    "001_1d5d506622556f2d.txt": "Northern Michigan University tournament rules",
    "002_41c1b486dab537a5.txt": "Bid Euchre (common rules)",
    "003_d15e51d2b79022f6.txt": "Tournament director rules",
    "004_7ee761ad56a0ce8a.txt": "Family Bid Euchre (southeast Michigan)",
}


def text_title(source: str) -> str:
    """The title of the rule text in the file ``source``."""
    return TEXT_TITLES.get(source, source)


__all__ = ["TEXT_TITLES", "text_title"]
