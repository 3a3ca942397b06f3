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


# Each text's words on the deck's integrity (rules/deck.py), quoted word for word as
# above: for a second copy of a card or a card not of the deck, the deck of 24 and what
# a text says of a misdeal or a wrong number of cards; for a hand ended short, the deal
# of five (six) each and the same; for a wrong kitty, the kitty and a card exposed. The
# director's dashboard shows them beside the alert's picture; the director rules.
_DECK_24 = {
    "000_58270bed3c0b6e2c.txt": "2. Game is played with 24 cards – 9 through Ace.",
    "001_1d5d506622556f2d.txt": (
        "2. Only 24 cards, each suit's nine (9) through ace, are in play. 21. If a misdeal "
        "occurs, all cards will be returned to the dealer, who will shuffle and deal again. "
        "No penalties or loss of deal will occur. This will not count as a hand in the match."
    ),
    "002_41c1b486dab537a5.txt": (
        "A standard Bid Euchre deck consists of the ace through 9 of each suit."
    ),
    "003_d15e51d2b79022f6.txt": (
        "If an incorrect number of cards are found at any time during play, the hand is void "
        "and the deal is passed to the next player"
    ),
    "004_7ee761ad56a0ce8a.txt": (
        "The game is played with a deck of 24 conventional American playing cards, "
        "consisting of A, K, Q, J, 10, 9 in each of the four suits."
    ),
}
_SHORT = {
    "000_58270bed3c0b6e2c.txt": (
        "Each player recieves 5 cards dealt 3-at-a-time to each player, followed by 2-at-a-time."
    ),
    "001_1d5d506622556f2d.txt": (
        "21. If a misdeal occurs, all cards will be returned to the dealer, who will shuffle "
        "and deal again. No penalties or loss of deal will occur. This will not count as a "
        "hand in the match."
    ),
    "002_41c1b486dab537a5.txt": (
        "All the cards are dealt. Each player receives the same number of cards."
    ),
    "003_d15e51d2b79022f6.txt": _DECK_24["003_d15e51d2b79022f6.txt"],
    "004_7ee761ad56a0ce8a.txt": "Deal six cards to each player",
}
_KITTY = {
    "000_58270bed3c0b6e2c.txt": (
        "The remaining 4 cards are placed down in front of the dealer, who then turns up the "
        "top card."
    ),
    "001_1d5d506622556f2d.txt": "Important: A card laid or exposed is a card played.",
    "002_41c1b486dab537a5.txt": _DECK_24["002_41c1b486dab537a5.txt"],
    "003_d15e51d2b79022f6.txt": (
        'Should the dealer decide to pass, they may say "pass" or simply turn the card face '
        "down on top of the kitty. The kitty is then set aside and no one is allowed to look "
        "it. When playing a card, If the card has been extended far enough that other "
        "players see what that card is, then the card is considered as having been played."
    ),
    "004_7ee761ad56a0ce8a.txt": _DECK_24["004_7ee761ad56a0ce8a.txt"],
}
DECK_RULES: dict[str, dict[str, str]] = {
    source: {
        "second_copy": _DECK_24[source],
        "foreign_card": _DECK_24[source],
        "short_hand": _SHORT[source],
        "wrong_kitty": _KITTY[source],
    }
    for source in TEXT_TITLES
}


def deck_rule(source: str, kind: str) -> str | None:
    """The text ``source``'s words on a deck irregularity of ``kind`` ("second_copy",
    "foreign_card", "short_hand", "wrong_kitty"), quoted; None where it has none."""
    return DECK_RULES.get(source, {}).get(kind)


def renege_rule(source: str) -> str | None:
    """The text ``source``'s rule on a renege, quoted (None for a text not known)."""
    return RENEGE_RULES.get(source)


def text_title(source: str) -> str:
    """The title of the rule text in the file ``source``."""
    return TEXT_TITLES.get(source, source)


__all__ = ["DECK_RULES", "RENEGE_RULES", "TEXT_TITLES", "deck_rule", "renege_rule", "text_title"]
