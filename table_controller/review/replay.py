"""A game as steps, for the hand review: each hand's deal, upcard, bids, trump and maker,
every card as it was laid, each trick's winner, the score after the hand, and the
reneges, rulings and penalties where they happened, with their pictures.

Built from the game's own log wherever it is kept (the table's event log, the director's
store), by the one tolerant replay every reader uses (``rules.replay``), so the review
tells the game the table decided, never a second opinion.

Secrecy lives here, in one place: ``review_game`` keeps a hand only once it has ended
(scored or thrown in). The hand in play is left out whole (its bids too, since a bid
says something of a hand still held), so no output made from a ``Review`` can show a
card a player still holds, however it is drawn (the table's page, the dashboard, the
hall, a file). What a review of a game in progress holds is its finished hands.

Each decision is keyed ``(game, hand, decision)``: ``game`` the game of a match (1 but in
a best of three, whose games one log holds), ``hand`` the hand's number in that game
(1-based, as the rules number deals), ``decision`` its 0-based place among that hand's
decisions. What is a decision is the analysis's own ``is_decision`` (every pass, bid,
order-up, call, the dealer's discard when its card is known, and every card played), so
the page's keys and the analysis's agree by construction and a verdict is joined on them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum

from table_controller.cards import Card
from table_controller.event_log import GameRecord, LoggedEvent
from table_controller.present import (
    RESULT_WORDS,
    SEAT_NAMES,
    THROW_IN_WORDS,
    Evidence,
    Note,
    event_note,
    final_text,
    replay_game,
    suit_text,
)
from table_controller.review.analysis import is_decision
from table_controller.review.errors import ReviewError
from table_controller.rules.errors import RulesError
from table_controller.rules.events import (
    BidMade,
    BidWon,
    CardPlayed,
    CardsExchanged,
    CardTakenBack,
    DealerDiscarded,
    HandDealt,
    HandLaidDown,
    HandScored,
    HandStarted,
    HandThrownIn,
    InputEvent,
    OrderedUp,
    OutputEvent,
    Passed,
    TrickWon,
    TrumpBid,
    TrumpCalled,
    TrumpSet,
)
from table_controller.rules.game import Game
from table_controller.rules.hand import Phase
from table_controller.rules.option_words import rules_words
from table_controller.rules.presets import preset
from table_controller.rules.replay import OnError, replay
from table_controller.seats import Seat


class StepKind(Enum):
    """What a step of the review shows."""

    BID = "bid"  # a pass, a bid, an order-up, a call (a decision)
    TRUMP = "trump"  # trump set, and who made it
    DISCARD = "discard"  # the dealer's discard, a card exchanged
    PLAY = "play"  # a card laid (a decision)
    TAKEN_BACK = "taken_back"  # a card taken back into the hand
    LAID_DOWN = "laid_down"  # a player laid the rest of the hand face up
    TRICK = "trick"  # a trick won
    NOTE = "note"  # a renege, an irregularity, a penalty, a ruling, a claim
    SCORE = "score"  # the hand scored or thrown in


@dataclass(frozen=True)
class Picture:
    """An evidence picture: what it shows, and the camera's PNG (None: not kept)."""

    caption: str
    png: bytes | None


@dataclass(frozen=True)
class ReviewNote:
    """A renege, an irregularity, a penalty, a ruling or a claim, with its pictures."""

    kind: str  # "renege", "irregularity", "penalty", "ruling", "claim"
    text: str
    pictures: tuple[Picture, ...] = ()


@dataclass(frozen=True)
class Step:
    """One thing that happened in a hand, in order. ``decision`` is its place among the
    hand's decisions (None: not a decision); ``(game, hand, decision)`` is a verdict's
    key (``key``)."""

    hand: int
    decision: int | None
    kind: StepKind
    text: str  # in words: "North orders up the J♥ alone"
    seat: Seat | None = None
    card: Card | None = None
    trick: int | None = None  # the trick a card was laid in (1-based)
    winner: Seat | None = None  # a trick's winner
    note: ReviewNote | None = None
    game: int = 1  # the game of a match (best of three) the hand belongs to

    @property
    def key(self) -> tuple[int, int, int] | None:
        """``(game, hand, decision)``, the analysis's key; None: not a decision."""
        return None if self.decision is None else (self.game, self.hand, self.decision)


@dataclass(frozen=True)
class ReplayedHand:
    """One ended hand: how it was dealt, what each seat held (where known), and its steps."""

    number: int  # the hand's number in the game, 1-based
    dealer: Seat
    upcard: Card | None
    held: Mapping[Seat, tuple[Card, ...]]  # each seat's cards as dealt, where known
    dealt: bool  # the deal's hands were recorded (a kiosk, a simulated table)
    size: int  # cards in a hand
    steps: tuple[Step, ...]
    trump: str  # in words, "" when no trump was made
    maker: Seat | None
    alone: bool
    result: str  # "made", "euchred", "thrown in: everyone passed"...
    tricks: tuple[int, int] | None  # won by North-South, East-West
    points: tuple[int, int] | None
    scores: tuple[int, int] | None  # the game's score after the hand
    game: int = 1  # the game of a match (best of three) the hand belongs to

    @property
    def decisions(self) -> tuple[Step, ...]:
        return tuple(s for s in self.steps if s.decision is not None)


@dataclass(frozen=True)
class Review:
    """A game as steps, its ended hands only (``review_game``)."""

    table: str  # the table's name as people read it
    game: int  # the game's number in the table's log
    players: Mapping[Seat, str]
    rules: str  # in words: "Tournament director rules, games to 10"
    started: float
    finished: bool  # the game is over: every hand in it has ended
    hands: tuple[ReplayedHand, ...]
    in_play: int | None  # the number of the hand being played, left out; None: none
    notes: tuple[ReviewNote, ...] = ()  # before the first hand
    endings: tuple[str, ...] = ()  # games ended, a match won
    problems: tuple[str, ...] = ()
    final: str = ""

    def steps(self) -> list[Step]:
        return [s for h in self.hands for s in h.steps]

    def hand(self, number: int) -> ReplayedHand | None:
        return next((h for h in self.hands if h.number == number), None)


@dataclass
class _Hand:
    """A hand as it is being replayed (the builder's own, never shown until ended)."""

    number: int
    dealer: Seat
    upcard: Card | None
    game: int = 1
    dealt: dict[Seat, tuple[Card, ...]] = field(default_factory=dict)
    played: dict[Seat, list[Card]] = field(default_factory=dict)
    steps: list[Step] = field(default_factory=list)
    decisions: int = 0
    trick: int = 1
    laid: dict[Card, int] = field(default_factory=dict)  # card -> seq that played it
    trump: str = ""
    maker: Seat | None = None
    alone: bool = False
    result: str = ""
    tricks: tuple[int, int] | None = None
    points: tuple[int, int] | None = None
    scores: tuple[int, int] | None = None

    def add(self, kind: StepKind, text: str, *, decision: bool = False, **more: object) -> None:
        index = None
        if decision:
            index, self.decisions = self.decisions, self.decisions + 1
        step = Step(self.number, index, kind, text, game=self.game, **more)  # type: ignore[arg-type]
        self.steps.append(step)

    def ended(self, size: int) -> ReplayedHand:
        held = {s: self.dealt[s] for s in Seat if s in self.dealt}
        for seat in Seat:
            if seat not in held and self.played.get(seat):
                held[seat] = tuple(self.played[seat])
        return ReplayedHand(
            self.number,
            self.dealer,
            self.upcard,
            held,
            bool(self.dealt),
            size,
            tuple(self.steps),
            self.trump,
            self.maker,
            self.alone,
            self.result,
            self.tricks,
            self.points,
            self.scores,
            self.game,
        )


def review_game(
    record: GameRecord,
    events: Sequence[LoggedEvent],
    problems: Sequence[str] = (),
    image: Evidence = lambda seq: None,
    *,
    table: str = "",
) -> Review:
    """The game's ended hands as steps, from its logged ``events`` (as the table's log or
    the director's store hold them) under the rules ``record`` names. ``problems``: the
    events that could not be read; ``image``: an event's evidence picture by its seq.
    A hand still in play is left out whole: this is the one place that decides what a
    review may show. ``ReviewError`` for a log that is no game (unknown rules, no event
    the rules take)."""
    try:
        rules = preset(record.rules_name, record.options)
    except RulesError as exc:
        raise ReviewError(
            f"game {record.game} cannot be reviewed: its rules cannot be used ({exc}); "
            "check the table's rules, then open the review again"
        ) from None
    replayed = replay(rules, [e.event for e in events], on_error=OnError.SKIP)
    if events and not replayed.steps:
        raise ReviewError(
            f"game {record.game} cannot be reviewed: none of its {len(events)} events is a "
            "move of a game under its rules (the first: "
            f"{replayed.problems[0].text if replayed.problems else 'unreadable'}); "
            "export its log and show it to the director"
        )
    sheet = replay_game(record, events, problems, image)  # the notes before the first hand
    hands: list[ReplayedHand] = []
    hand: _Hand | None = None
    named = bool(record.players)
    dealt_at: dict[int, int] = {}  # a hand's number -> the seq of the event that dealt it
    shadow = Game(rules)  # the game before each event: what counts as a decision
    for step in replayed.steps:
        logged = events[step.index]
        decision = is_decision(shadow, step.event) is not None
        match_game = shadow.game
        shadow.push(step.event)  # the replay applied it: so does its shadow
        hand = _input(hand, step.event, logged.seq, rules.hand_size, decision)
        for out in step.outputs:
            if isinstance(out, HandStarted):
                dealt_at[out.hand] = logged.seq
                hand = _Hand(out.hand, out.dealer, out.upcard, match_game)
                if isinstance(step.event, HandDealt):
                    hand.dealt = {s: tuple(c) for s, c in step.event.hands.items()}
                continue
            if hand is None:
                continue
            _output(hand, out, record, image, logged, named)
            if isinstance(out, HandScored | HandThrownIn):
                hands.append(hand.ended(rules.hand_size))
        if hand is not None and _grew(hand, hands):  # a ruling, the game's end, after it
            hands[-1] = hand.ended(rules.hand_size)
    state = replayed.game
    in_play = state.hand.number if state.hand is not None else None
    if in_play is not None and hands and hands[-1].number == in_play:
        in_play = None  # pragma: no cover - an ended hand is never the hand in play
    return Review(
        table=table,
        game=record.game,
        players=dict(record.players),
        rules=rules_words(record.rules_name, record.options),
        started=record.started,
        finished=state.phase is Phase.OVER,
        hands=tuple(hands),
        in_play=in_play,
        notes=tuple(_note(n) for n in sheet.notes),
        endings=tuple(sheet.endings),
        problems=_problems(sheet.problems, dealt_at.get(in_play) if in_play else None, in_play),
        final=final_text(sheet),
    )


_EVENT = re.compile(r"\bevent (\d+)\b")


def _problems(
    problems: Sequence[str], from_seq: int | None, in_play: int | None
) -> tuple[str, ...]:
    """The replay's problems, but none about an event of the hand in play (from the seq
    that dealt it): a refused or unreadable event's words may name a card still held."""
    if from_seq is None:
        return tuple(problems)
    kept, held = [], 0
    for text in problems:
        m = _EVENT.search(text)
        if m is not None and int(m.group(1)) >= from_seq:
            held += 1
        else:
            kept.append(text)
    if held:
        kept.append(
            f"{held} event{'s' * (held != 1)} of hand {in_play}, being played, could not be "
            "replayed: said once the hand has ended"
        )
    return tuple(kept)


def _grew(hand: _Hand, hands: list[ReplayedHand]) -> bool:
    """Whether the ended hand ``hands[-1]`` is ``hand`` and has had steps since."""
    return (
        bool(hands) and hands[-1].number == hand.number and len(hand.steps) != len(hands[-1].steps)
    )


def _input(
    hand: _Hand | None, event: InputEvent, seq: int, size: int, decision: bool
) -> _Hand | None:
    """An input event's step in the hand (before its outputs); ``decision``: the event
    is a decision (``is_decision``), and takes the hand's next decision index."""
    if hand is None:
        return None
    name = SEAT_NAMES
    if isinstance(event, Passed):
        hand.add(StepKind.BID, f"{name[event.seat]} passes", decision=decision, seat=event.seat)
    elif isinstance(event, OrderedUp):
        up = f" the {hand.upcard.pretty}" if hand.upcard is not None else ""
        alone = " alone" if event.alone else ""
        text = f"{name[event.seat]} orders up{up}{alone}"
        hand.add(StepKind.BID, text, decision=decision, seat=event.seat)
    elif isinstance(event, TrumpCalled):
        alone = " alone" if event.alone else ""
        text = f"{name[event.seat]} calls {suit_text(event.trump)}{alone}"
        hand.add(StepKind.BID, text, decision=decision, seat=event.seat)
    elif isinstance(event, BidMade):
        text = f"{name[event.seat]} bids {event.amount}"
        hand.add(StepKind.BID, text, decision=decision, seat=event.seat)
    elif isinstance(event, TrumpBid):
        text = f"{name[event.seat]} bids {event.amount} in {suit_text(event.trump)}"
        hand.add(StepKind.BID, text, decision=decision, seat=event.seat)
    elif isinstance(event, DealerDiscarded):
        what = f"the {event.card.pretty}" if event.card is not None else "a card, face down"
        text = f"{name[hand.dealer]} takes up the upcard and discards {what}"
        hand.add(StepKind.DISCARD, text, decision=decision, seat=hand.dealer, card=event.card)
    elif isinstance(event, CardsExchanged):
        hand.add(StepKind.DISCARD, "Partners exchange a card")
    elif isinstance(event, CardPlayed):
        hand.laid[event.card] = seq
        hand.played.setdefault(event.seat, []).append(event.card)
        text = f"{name[event.seat]} plays the {event.card.pretty}"
        hand.add(
            StepKind.PLAY,
            text,
            decision=decision,
            seat=event.seat,
            card=event.card,
            trick=hand.trick,
        )
    elif isinstance(event, CardTakenBack):
        played = hand.played.get(event.seat, [])
        if event.card in played:
            played.remove(event.card)
        text = f"{name[event.seat]} takes the {event.card.pretty} back"
        hand.add(StepKind.TAKEN_BACK, text, seat=event.seat, card=event.card, trick=hand.trick)
    elif isinstance(event, HandLaidDown):
        cards = " ".join(c.pretty for c in event.cards)
        text = f"{name[event.seat]} lays the rest of the hand down: {cards}"
        for card in event.cards:
            if card not in hand.played.get(event.seat, []):
                hand.played.setdefault(event.seat, []).append(card)
        hand.add(StepKind.LAID_DOWN, text, seat=event.seat)
    return hand


def _output(
    hand: _Hand,
    out: OutputEvent,
    record: GameRecord,
    image: Evidence,
    logged: LoggedEvent,
    named: bool,
) -> None:
    if isinstance(out, TrumpSet):
        hand.trump, hand.maker, hand.alone = suit_text(out.trump), out.maker, out.alone
        alone = f", alone ({SEAT_NAMES[out.maker.partner]} sits out)" if out.alone else ""
        bid = f" with a bid of {out.bid}" if out.bid is not None else ""
        text = f"Trump is {suit_text(out.trump)}, made by {SEAT_NAMES[out.maker]}{bid}{alone}"
        hand.add(StepKind.TRUMP, text, seat=out.maker)
    elif isinstance(out, BidWon):
        text = f"{SEAT_NAMES[out.seat]} wins the bidding with {out.amount}"
        hand.add(StepKind.TRUMP, text, seat=out.seat)
    elif isinstance(out, TrickWon):
        text = f"{SEAT_NAMES[out.winner]} wins trick {out.trick}"
        hand.add(StepKind.TRICK, text, seat=out.winner, trick=out.trick, winner=out.winner)
        hand.trick = out.trick + 1
    elif isinstance(out, HandScored):
        hand.result, hand.tricks = RESULT_WORDS[out.result], out.tricks
        hand.points, hand.scores = out.points, out.scores
        ns, ew = out.tricks
        text = (
            f"Hand {hand.number}: {hand.result} (tricks North–South {ns}, East–West {ew}); "
            f"score North–South {out.scores[0]}, East–West {out.scores[1]}"
        )
        hand.add(StepKind.SCORE, text)
    elif isinstance(out, HandThrownIn):
        hand.result = "thrown in: " + THROW_IN_WORDS[out.reason]
        text = f"Hand {hand.number} thrown in: {THROW_IN_WORDS[out.reason]}"
        hand.add(StepKind.SCORE, text)
    else:
        note = event_note(
            record, out, image, logged.seq, logged.has_evidence, laid=hand.laid, named=named
        )
        if note is not None:
            shown = _note(note)
            hand.add(StepKind.NOTE, shown.text, note=shown, seat=getattr(out, "seat", None))


def _note(note: Note) -> ReviewNote:
    return ReviewNote(note.kind, note.text, tuple(Picture(c, png) for c, png in note.images))


__all__ = [
    "Picture",
    "ReplayedHand",
    "Review",
    "ReviewError",
    "ReviewNote",
    "Step",
    "StepKind",
    "review_game",
]
