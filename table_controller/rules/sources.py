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


# Each text's rule on a renege (or, where a text has none, on following suit), quoted
# word for word (white space made single spaces): what the director's dashboard shows
# beside a renege's evidence. A test holds each quote to its text in the seeds.
RENEGE_RULES: dict[str, str] = {
    "000_58270bed3c0b6e2c.txt": (
        "1. Renegging occurs when a player does not follow suit when they are required to. "
        "If caught before the trick has finished, the player may pick up his card without "
        "penalty. If renegging is caught after the next trick/hand has begun, the offending "
        "player’s team will have two points removed from their score (4 if occuring during "
        "a loner hand)."
    ),
    "001_1d5d506622556f2d.txt": (
        '22. A "Revoke" (or "Renege") occurs when a player fails to follow suit when '
        "possible. The penalty for a revoke is 2 points to the team it occurred against and "
        "the hand is immediately ended (4 pts will be awarded if on a loner). All revokes "
        "must be supported by evidence of cards played, hence, the crisscross of previous "
        "tricks in the hand."
    ),
    "002_41c1b486dab537a5.txt": (
        "The player to the declarer's left plays next, and so on, until each player has "
        "played a card. It must be of the same suit if she has it. If she is void, she may "
        "discard any card she chooses, or play a trump."
    ),
    "003_d15e51d2b79022f6.txt": (
        "RENEGE: - There are no exceptions to the ruling for a Renege: The hand is over, the "
        "offending team loses their bid and the non-offending team scores two points. In the "
        "case of a renege during a Loner attempt, the non-offending team scores 4 points. "
        "If a renege is alleged but ultimately not proven, the team falsely accused by their "
        "opponent's scores 2 points."
    ),
    "004_7ee761ad56a0ce8a.txt": (
        "Proceeding clockwise around the table, each of the other three players also plays "
        "a card onto the trick. These players must follow suit (play a card whose suit "
        "matches the card led) if able; if a player cannot follow suit, they may play any "
        "other card from their hand."
    ),
}


def renege_rule(source: str) -> str | None:
    """The text ``source``'s rule on a renege, quoted (None for a text not known)."""
    return RENEGE_RULES.get(source)


def text_title(source: str) -> str:
    """The title of the rule text in the file ``source``."""
    return TEXT_TITLES.get(source, source)


__all__ = ["RENEGE_RULES", "TEXT_TITLES", "renege_rule", "text_title"]
