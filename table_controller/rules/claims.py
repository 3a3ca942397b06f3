"""Judging a laid-down hand (004 house rule): how many remaining tricks are certain.

"If any cards are deemed not to be certain winners, the uncertain tricks are awarded to
the opposing team." A card is a certain winner if it wins whatever the unseen cards are
and however they lie. The claimer leads trumps from the top first: each trump above every
outstanding trump wins, and each such lead draws at least one outstanding trump from an
opponent who holds any. Once as many top trumps have been led as there are outstanding
trumps, no opponent can ruff, so every remaining trump wins and so does every side card
that is higher than all outstanding cards of its suit. Until then only the top trumps are
certain. This never credits a trick that could be lost.
"""

from __future__ import annotations

from collections.abc import Collection

from table_controller.cards import Card, Suit, effective_suit, is_trump, power


def certain_tricks(
    claim: Collection[Card], outstanding: Collection[Card], trump: Suit | None
) -> int:
    out_trumps = [c for c in outstanding if is_trump(c, trump)]
    top_out = max((power(c, trump) for c in out_trumps), default=-1)
    my_trumps = [c for c in claim if is_trump(c, trump)]
    top = sum(1 for c in my_trumps if power(c, trump) > top_out)
    if top < len(out_trumps):
        return top
    certain = len(my_trumps)
    for card in claim:
        if is_trump(card, trump):
            continue
        suit = effective_suit(card, trump)
        if all(
            power(o, trump) < power(card, trump)
            for o in outstanding
            if effective_suit(o, trump) == suit
        ):
            certain += 1
    return certain
