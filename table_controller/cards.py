"""Cards, suits, the effective suit, trick winners and legal plays (pure).

A Euchre deck is the 24 cards nine to ace. A card's code is its rank (9 T J Q K A)
and its suit (C D H S), so "JH" is the jack of hearts: the contract shared with vision,
transcripts and the director's feed.

Once trump is set the jack of trump (right bower) is the highest card and the jack of the
same colour (left bower) the second highest, and the left bower *is* a trump for every
purpose, following suit included (001 section 12; 004 "Cards"). In a no-trump hand
(Bid Euchre, 002) there are no bowers and every suit runs ace high. Everywhere below a
trump of ``None`` means no trump.

Cards are small ints (suit * 6 + rank) so that sets, dict keys and the lookup tables on
the hot path cost what an int costs; there are exactly 24 instances.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from enum import IntEnum
from typing import Final

from table_controller.clip import clip
from table_controller.seats import Seat


class Suit(IntEnum):
    C = 0
    D = 1
    H = 2
    S = 3

    @property
    def sister(self) -> Suit:
        """The other suit of the same colour: the left bower's suit."""
        return _SISTER[self]

    @property
    def symbol(self) -> str:
        return "♣♦♥♠"[self]

    @property
    def word(self) -> str:
        return ("clubs", "diamonds", "hearts", "spades")[self]

    @classmethod
    def parse(cls, text: str) -> Suit:
        try:
            return cls[text.strip().upper()]
        except KeyError:
            raise ValueError(f"unknown suit {clip(text)}: suits are C, D, H and S") from None

    def __str__(self) -> str:
        return self.name


class Rank(IntEnum):
    NINE = 0
    TEN = 1
    JACK = 2
    QUEEN = 3
    KING = 4
    ACE = 5

    @property
    def letter(self) -> str:
        return RANK_LETTERS[self]


RANK_LETTERS: Final = "9TJQKA"
SUIT_LETTERS: Final = "CDHS"
_SISTER = (Suit.S, Suit.H, Suit.D, Suit.C)
SUITS: Final = (Suit.C, Suit.D, Suit.H, Suit.S)


class Card(int):
    """One of the 24 cards; compare, hash and index it as the int suit * 6 + rank."""

    __slots__ = ()

    def __new__(cls, value: int) -> Card:
        if 0 <= value < 24 and _DECK_BUILT:
            return DECK[value]
        if not 0 <= value < 24:
            raise ValueError(f"no card has the number {value}: cards are 0 to 23")
        return super().__new__(cls, value)

    @classmethod
    def of(cls, rank: Rank, suit: Suit) -> Card:
        return DECK[suit * 6 + rank]

    @classmethod
    def parse(cls, code: str) -> Card:
        """The card for a code such as "JH"; "10H" is accepted for "TH"."""
        if not isinstance(code, str):
            raise ValueError(f"a card code is a string such as 'JH', not {clip(code)}")
        text = code.strip().upper().replace("10", "T")
        card = _BY_CODE.get(text)
        if card is None:
            raise ValueError(
                f"unknown card {clip(code)}: a card is a rank (9 T J Q K A) and a suit "
                "(C D H S), such as 'JH' for the jack of hearts"
            )
        return card

    @property
    def rank(self) -> Rank:
        return _RANK_OF[self]

    @property
    def suit(self) -> Suit:
        return _SUIT_OF[self]

    @property
    def code(self) -> str:
        return _CODE_OF[self]

    @property
    def pretty(self) -> str:
        return _PRETTY_OF[self]

    def __repr__(self) -> str:
        return f"Card.parse({self.code!r})"

    def __str__(self) -> str:
        return self.code


_DECK_BUILT = False
DECK: Final[tuple[Card, ...]] = tuple(Card(i) for i in range(24))
_DECK_BUILT = True
_RANK_OF: Final = tuple(Rank(i % 6) for i in range(24))
_SUIT_OF: Final = tuple(Suit(i // 6) for i in range(24))
_CODE_OF: Final = tuple(RANK_LETTERS[i % 6] + SUIT_LETTERS[i // 6] for i in range(24))
_PRETTY_OF: Final = tuple(
    ("10" if i % 6 == 1 else RANK_LETTERS[i % 6]) + "♣♦♥♠"[i // 6] for i in range(24)
)
_BY_CODE: Final = {c.code: c for c in DECK}


def cards(codes: str) -> tuple[Card, ...]:
    """Cards from space-separated codes: ``cards("JH JD AH")``."""
    return tuple(Card.parse(c) for c in codes.split())


# --- tables indexed by trump (0-3 a suit, 4 no trump) and card ---------------------

NO_TRUMP_INDEX: Final = 4


def _trump_index(trump: Suit | None) -> int:
    return NO_TRUMP_INDEX if trump is None else int(trump)


def _build_effective() -> tuple[tuple[Suit, ...], ...]:
    rows = []
    for t in range(5):
        row = []
        for c in DECK:
            if t < 4 and c.rank == Rank.JACK and c.suit == _SISTER[t]:
                row.append(Suit(t))
            else:
                row.append(c.suit)
        rows.append(tuple(row))
    return tuple(rows)


def _build_power() -> tuple[tuple[int, ...], ...]:
    """Strength within the card's effective suit; trumps are all above 100."""
    rows = []
    for t in range(5):
        row = []
        for c in DECK:
            if t == 4:
                row.append(int(c.rank))
            elif c.rank == Rank.JACK and c.suit == t:
                row.append(120)  # right bower
            elif c.rank == Rank.JACK and c.suit == _SISTER[t]:
                row.append(110)  # left bower
            elif c.suit == t:
                row.append(100 + int(c.rank))
            else:
                row.append(int(c.rank))
        rows.append(tuple(row))
    return tuple(rows)


_EFFECTIVE: Final = _build_effective()


def effective_table(trump: Suit | None) -> tuple[Suit, ...]:
    """The effective suit of every card (indexed by card) for ``trump``."""
    return _EFFECTIVE[4 if trump is None else trump]


_POWER: Final = _build_power()


def effective_suit(card: Card, trump: Suit | None) -> Suit:
    """The suit a card belongs to for following suit: the left bower counts as trump."""
    return _EFFECTIVE[NO_TRUMP_INDEX if trump is None else trump][card]


def is_trump(card: Card, trump: Suit | None) -> bool:
    return trump is not None and _EFFECTIVE[trump][card] == trump


def power(card: Card, trump: Suit | None) -> int:
    """The card's strength within its effective suit (trumps above 100, bowers on top)."""
    return _POWER[4 if trump is None else trump][card]


def beats(challenger: Card, best: Card, trump: Suit | None, led: Suit) -> bool:
    """Whether ``challenger`` takes the trick from ``best`` with ``led`` the suit led."""
    t = _trump_index(trump)
    eff, pw = _EFFECTIVE[t], _POWER[t]
    ce, be = eff[challenger], eff[best]
    if ce == be:
        return pw[challenger] > pw[best]
    return ce == trump or (be != trump and ce == led and be != led)


def trick_winner(
    plays: Sequence[tuple[Seat, Card]], trump: Suit | None, led: Suit | None = None
) -> Seat:
    """The seat whose card takes the trick. The first play is the lead unless ``led``
    says otherwise (a dead card led (003) sets the suit but cannot win)."""
    if not plays:
        raise ValueError("a trick with no cards has no winner")
    t = 4 if trump is None else trump
    eff, pw = _EFFECTIVE[t], _POWER[t]
    if led is None:
        led = eff[plays[0][1]]
    best_seat, best_key = plays[0][0], -1
    for seat, card in plays:
        e = eff[card]
        key = pw[card] + 1000 if e == trump else (pw[card] + 1 if e == led else 0)
        if key > best_key:
            best_seat, best_key = seat, key
    return best_seat


def _build_suit_sets() -> tuple[tuple[frozenset[Card], ...], ...]:
    return tuple(
        tuple(frozenset(c for c in DECK if _EFFECTIVE[t][c] == suit) for suit in range(4))
        for t in range(5)
    )


# SUIT_SETS[trump index][suit]: the cards whose effective suit that is.
_SUIT_SETS: Final = _build_suit_sets()


def suit_sets(trump: Suit | None) -> tuple[frozenset[Card], ...]:
    """For each suit (indexed by suit), the cards that follow it when ``trump`` is trump."""
    return _SUIT_SETS[4 if trump is None else trump]


def legal_plays(hand: Iterable[Card], led: Suit | None, trump: Suit | None) -> list[Card]:
    """The cards of ``hand`` that may be played, in code order: any when leading (``led``
    None), otherwise those of the effective suit led if the hand has any."""
    held = hand if isinstance(hand, set | frozenset) else set(hand)
    if led is None:
        return sorted(held)
    following = held & _SUIT_SETS[4 if trump is None else trump][led]
    return sorted(following or held)


def can_follow(hand: Iterable[Card], led: Suit, trump: Suit | None) -> bool:
    held = hand if isinstance(hand, set | frozenset) else set(hand)
    return not held.isdisjoint(_SUIT_SETS[4 if trump is None else trump][led])


def sort_hand(hand: Iterable[Card], trump: Suit | None = None) -> list[Card]:
    """A hand in the order a player holds it: by effective suit, strongest first."""
    t = _trump_index(trump)
    return sorted(hand, key=lambda c: (_EFFECTIVE[t][c], -_POWER[t][c]))


def cut_rank(card: Card) -> int:
    """Rank for cutting for the deal (000 section 2.1): ace high, suits equal."""
    return int(card.rank)
