"""The kiosk's coach: what the page says to teach the game as it goes (pure).

From the game (every hand known: the kiosk read the visitors' cards and dealt the
bots'), the seats the visitors sit at and the output events of this hand, it says
whose turn it is and what they are to do, what a visitor may play now and why (the suit
led must be followed; the left bower belongs to trump), why the last trick was won,
and, when a visitor reneges, what went wrong in words, not only the penalty.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

from table_controller.cards import Card, Rank, Suit, effective_suit, legal_plays, trick_winner
from table_controller.present import Coach, renege_sentence
from table_controller.rules.events import (
    IrregularityFound,
    OutputEvent,
    Remedy,
    RenegeProven,
    RenegeSpotted,
    TrickWon,
    TrumpSet,
)
from table_controller.rules.game import Game
from table_controller.rules.hand import Phase
from table_controller.rules.presets import RenegePenalty
from table_controller.rules.scoring import RenegeCost, renege_cost
from table_controller.seats import Seat

HAND_SIZE = 5
TRUMP_ORDER = (
    "In trump the jack of trump is highest (the right bower), then the other jack of the "
    "same colour (the left bower), then ace, king, queen, 10, 9."
)


def suit_words(suit: Suit) -> str:
    return f"{suit.symbol} {suit.word}"


def cards_words(cards: Collection[Card]) -> str:
    return " ".join(c.pretty for c in sorted(cards, key=lambda c: (c.suit, -c.rank)))


def is_left_bower(card: Card, trump: Suit | None) -> bool:
    return trump is not None and card.rank is Rank.JACK and card.suit is trump.sister


def is_right_bower(card: Card, trump: Suit | None) -> bool:
    return trump is not None and card.rank is Rank.JACK and card.suit is trump


def left_bower_note(cards: Collection[Card], trump: Suit | None, led: Suit | None) -> str:
    """A word on the left bower where it changes what may be played."""
    for card in cards:
        if not is_left_bower(card, trump):
            continue
        assert trump is not None
        if led is trump:
            return (
                f"Your {card.pretty} is the left bower: it counts as a {trump.word[:-1]} "
                "(trump) this hand, so it follows trump."
            )
        if led is card.suit:
            return (
                f"Your {card.pretty} is the left bower: it belongs to trump "
                f"({trump.word}) this hand, not to {card.suit.word}, so it does not follow "
                f"{card.suit.word}."
            )
    return ""


def why_won(
    plays: Sequence[tuple[Seat, Card]], trump: Suit | None, names: Mapping[Seat, str]
) -> str:
    """Why the trick ``plays`` went to its winner, in words."""
    led = effective_suit(plays[0][1], trump)
    winner = trick_winner(list(plays), trump, led)
    card = next(c for s, c in plays if s == winner)
    who = names.get(winner, str(winner))
    if is_right_bower(card, trump):
        why = "the right bower, the highest card of all"
    elif is_left_bower(card, trump):
        why = "the left bower, the second-highest trump"
    elif trump is not None and effective_suit(card, trump) is trump:
        trumps = sum(1 for _, c in plays if effective_suit(c, trump) is trump)
        if led is trump:
            why = "the highest trump played (trump was led)"
        elif trumps > 1:
            why = "the highest of the trumps played: trump beats every other suit"
        else:
            why = "a trump: trump beats every card of another suit"
    else:
        why = f"the highest {led.word[:-1]}, the suit led (no trump was played)"
    return f"{who} won the trick with the {card.pretty}: {why}."


def renege_words(
    event: RenegeProven | RenegeSpotted,
    game: Game,
    names: Mapping[Seat, str],
    visitors: Collection[Seat],
    recent: Sequence[OutputEvent] = (),
) -> str:
    """A renege explained: the sentence every screen uses (present/words.py), then the rule,
    a word on the left bower where it is the catch, and what follows."""
    seat, suit = event.seat, event.suit
    trump = game.trump
    who = "You" if seat in visitors else names.get(seat, str(seat))
    text = renege_sentence(event, who) + (
        ". The rule: when you can follow the suit led, you must. Not following when you can "
        "is a renege."
    )
    if isinstance(event, RenegeSpotted):
        held, played = event.held, _played_in(game, seat, event.trick)
    else:
        held, played = event.proof, event.played
    if is_left_bower(held, trump):
        text += f" (The {held.pretty} is the left bower: it counts as trump this hand.)"
    elif played is not None and is_left_bower(played, trump):
        text += (
            f" (The {played.pretty} is the left bower: it is trump, not a {played.suit.word[:-1]}.)"
        )
    if isinstance(event, RenegeSpotted):
        text += f" Take the card back and play a {suit.word[:-1]} now."
    else:
        text += " " + penalty_words(renege_cost(game.rules, _played_alone(game, event, recent)))
    return text


def penalty_words(cost: RenegeCost) -> str:
    """The penalty in words, from the same answer the score was kept by."""
    alone = " in a hand played alone" if cost.loner and cost.points else ""
    if cost.penalty is RenegePenalty.AWARD_AND_END:
        return f"The penalty{alone}: the other side scores {cost.points} points and the hand ends."
    if cost.penalty is RenegePenalty.DEDUCT:
        return f"The penalty{alone}: {cost.points} points off the reneging side's score."
    return "It is reported to the players to settle."


def _played_alone(game: Game, event: RenegeProven, recent: Sequence[OutputEvent]) -> bool:
    """Whether the renege's hand is played alone, as the engine scored it: from the
    hand itself; when a new game of a match has already begun, from the hand's calls."""
    for hand in (game.hand, game.last_hand):
        if hand is not None and hand.number == event.hand:
            return hand.alone
    alone = False
    for out in recent:
        if isinstance(out, TrumpSet):
            alone = out.alone
        elif isinstance(out, IrregularityFound) and out.remedy is Remedy.LONER_CANCELLED:
            alone = False
        elif out is event:
            break
    return alone


@dataclass(frozen=True)
class _Moment:
    """What the coach looks at: the game now and who is who."""

    game: Game
    visitors: Collection[Seat]
    names: Mapping[Seat, str]
    collected: Mapping[Seat, Sequence[Card]]

    @property
    def to_act(self) -> Seat | None:
        return self.game.to_act

    @property
    def name(self) -> str:
        seat = self.to_act
        return self.names.get(seat, str(seat)) if seat is not None else ""

    @property
    def visitor_turn(self) -> bool:
        return self.to_act is not None and self.to_act in self.visitors

    def who(self, seat: Seat) -> str:
        return self.names.get(seat, str(seat))


# What the coach says in a phase: (title, lines, the card codes the visitor may play).
Advice = tuple[str, list[str], list[str]]


def coach(
    game: Game,
    visitors: Collection[Seat],
    names: Mapping[Seat, str],
    recent: Sequence[OutputEvent],
    *,
    collected: Mapping[Seat, Sequence[Card]] | None = None,
) -> Coach:
    """The coach's words now: ``{"title", "lines", "playable", "trick_won", "renege",
    "review"}`` (``playable``: the card codes the visitor to play may play; ``review``
    None: the kiosk adds its look back at a game that ended)."""
    now = _Moment(game, visitors, names, collected or {})
    advise = _BY_PHASE.get(game.phase)
    title, lines, playable = advise(now) if advise is not None else ("", [], [])
    if game.hand is None and game.phase not in (Phase.DEALING, Phase.OVER):
        title, lines, playable = "Welcome", [], []
    trick_won = ""
    renege = ""
    for out in reversed(recent):
        if not trick_won and isinstance(out, TrickWon):
            trick_won = why_won(out.plays, game.trump or _last_trump(game), names)
        if not renege and isinstance(out, RenegeProven | RenegeSpotted):
            renege = renege_words(out, game, names, visitors, recent)
    return {
        "title": title,
        "lines": lines,
        "playable": playable,
        "trick_won": trick_won,
        "renege": renege,
        "review": None,  # the kiosk's look back at a game that ended (kiosk/look_back/)
    }


def _dealing(now: _Moment) -> Advice:
    lines = []
    for seat in sorted(now.visitors):
        have = list(now.collected.get(seat, ()))
        who = now.who(seat)
        if len(have) >= HAND_SIZE:
            lines.append(f"{who}: all five cards read. Pick them up and hold them.")
        else:
            seen = f" Read so far: {cards_words(have)} ({len(have)} of 5)." if have else ""
            lines.append(
                f"{who}: take five cards from the deck and lay them face up in your play "
                f"zone (the box in front of you), together or one by one.{seen}"
            )
    lines.append(
        "The camera reads them, then you pick them up. The bots get their cards from "
        "the rest of the deck: theirs are only on the screen."
    )
    return "Take five cards", lines, []


def _over(now: _Moment) -> Advice:
    return "Game over", ["A new game starts in a moment."], []


def _bidding(now: _Moment) -> Advice:
    hand = now.game.hand
    if hand is None or hand.upcard is None:
        return "", [], []
    up, name = hand.upcard, now.name
    if not now.visitor_turn:
        return (
            f"{name} is deciding",
            [
                f"The upcard is the {up.pretty}. Each player in turn may make "
                f"{up.suit.word} trump (round 1) or pass."
                if hand.round == 1
                else f"The {up.pretty} was turned down: now any other suit may be named trump."
            ],
            [],
        )
    if hand.round == 1:
        dealer = now.who(hand.dealer)
        return (
            f"{name}: order it up, or pass?",
            [
                f"The upcard is the {up.pretty}. Order it up if you think your side can take "
                f"3 of the 5 tricks with {suit_words(up.suit)} as trump: {dealer} (the "
                "dealer) then takes the upcard. Otherwise pass. Touch your choice.",
                TRUMP_ORDER,
            ],
            [],
        )
    return (
        f"{name}: name trump, or pass?",
        [
            f"Nobody took the {up.pretty}. Name any suit but {up.suit.word} as trump if "
            "you think your side can take 3 tricks, or pass. Touch your choice."
        ],
        [],
    )


def _discarding(now: _Moment) -> Advice:
    hand = now.game.hand
    if hand is None:
        return "", [], []
    dealing = hand.dealer
    if dealing in now.visitors and hand.upcard is not None:
        return (
            f"{now.who(dealing)}: take the upcard, then discard",
            [
                f"As the dealer you take the {hand.upcard.pretty}: get it from the rest of "
                "the deck. Now you hold six cards: lay the one you throw away face up in "
                "your play zone (or touch it below), then put it aside."
            ],
            [],
        )
    return f"{now.who(dealing)} (the dealer) is discarding", [], []


def _playing(now: _Moment) -> Advice:
    hand = now.game.hand
    if hand is None or hand.trick is None:
        return "", [], []
    to_act, name = now.to_act, now.name
    if not now.visitor_turn or to_act is None:
        return (f"{name} is playing" if to_act is not None else ""), [], []
    trump, led = hand.trump, hand.trick.led
    held = hand.known[to_act] or set()
    legal = legal_plays(held, led, trump)
    playable = [c.code for c in sorted(legal)]
    if led is None:
        title = f"{name}: your lead"
        lines = [
            "Lay any card in your play zone. "
            + (f"Trump is {suit_words(trump)}." if trump is not None else "")
        ]
    elif len(legal) < len(held):
        title = f"{name}: follow {suit_words(led)}"
        lines = [
            f"{suit_words(led).capitalize()} were led: you must follow suit when you "
            f"can. You can play: {cards_words(legal)}."
        ]
    else:
        title = f"{name}: play any card"
        lines = [
            f"You have no {led.word}, so you may play any card"
            + (
                f": a trump ({suit_words(trump)}) wins the trick unless a higher trump is played."
                if trump is not None and led is not trump
                else "."
            )
        ]
    note = left_bower_note(held, trump, led)
    if note:
        lines.append(note)
    return title, lines, playable


_BY_PHASE: dict[Phase, Callable[[_Moment], Advice]] = {
    Phase.DEALING: _dealing,
    Phase.OVER: _over,
    Phase.BIDDING: _bidding,
    Phase.DISCARDING: _discarding,
    Phase.PLAYING: _playing,
}


def _last_trump(game: Game) -> Suit | None:
    last = game.last_hand
    return last.trump if last is not None else None


def _played_in(game: Game, seat: Seat, number: int) -> Card | None:
    hand = game.hand
    if hand is None:
        return None
    tricks = [*hand.tricks, *([hand.trick] if hand.trick is not None else [])]
    for trick in tricks:
        if trick.number == number:
            for s, c in trick.plays:
                if s == seat:
                    return c
    return None


__all__ = ["coach", "left_bower_note", "penalty_words", "renege_words", "why_won"]
