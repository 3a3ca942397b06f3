"""What the live table page shows, as one JSON-able snapshot of the table (pure).

The page is a picture of the game, not a second copy of it: everything it shows is read
here from the rules core's state, the output events of the hand in play (reneges and
irregularities are not kept in the state, so the table passes them in), the devices'
faults and the table's notices. The table publishes a new snapshot after every change;
the page redraws from the snapshot alone, so a page that connects late, or reconnects,
shows exactly what one that was there all along shows.

``actions`` are the choices the touchscreen offers the seat to act: only the bidding,
the remedies, naming trump, the dealer's discard and the exchange, never a card (cards
are read by the camera). At a live table the hands are unknown, so the rules core
lists no choices; the bidding's choices do not depend on the cards held, so they are
listed here from the rules, and the discard is one "Discarded" (the card goes down
unseen).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from table_controller.cards import SUITS, Card, Rank, Suit, trick_winner
from table_controller.present.announce import (
    TEAM_SHORT,
    TEAM_WORDS,
    game_over,
    in_words,
    tricks_text,
    waiting_for,
    who,
)
from table_controller.present.snapshot import (
    AcrossOnPage,
    Action,
    BidShown,
    FaultShown,
    GameOverShown,
    IrregularityShown,
    LastTrickShown,
    NoticeShown,
    PageCard,
    Picture,
    PlayShown,
    RenegeShown,
    ResultShown,
    RulesShown,
    ScoreShown,
    TableSnapshot,
    TrickShown,
    TrumpShown,
    UpcardShown,
    WinnerShown,
)
from table_controller.present.words import (
    IRREGULARITY_WORDS,
    REMEDY_WORDS,
    RESULT_WORDS,
    SEAT_NAMES,
    SUIT_NAMES,
    THROW_IN_WORDS,
    renege_sentence,
    suit_name,
)
from table_controller.rules.choices import bids as bid_euchre_bids
from table_controller.rules.codec import encode
from table_controller.rules.events import (
    BidMade,
    CardPlayed,
    CardsExchanged,
    DealerChosen,
    DealerDiscarded,
    GameEnded,
    HandScored,
    HandStarted,
    HandThrownIn,
    InputEvent,
    IrregularityFound,
    MatchWon,
    OrderedUp,
    OutputEvent,
    Passed,
    PenaltyAccepted,
    RenegeProven,
    RenegeSpotted,
    TrumpBid,
    TrumpCalled,
)
from table_controller.rules.game import Game
from table_controller.rules.hand import HandState, Phase, Trick
from table_controller.rules.presets import PRESETS, Variant
from table_controller.seats import SEATS, Seat, Team

NOTICE_KINDS = ("refused", "director", "info")

# The phases where the touchscreen offers choices (never a card).
_ACTION_PHASES = frozenset(
    {
        Phase.CHOOSING_DEALER,
        Phase.BIDDING,
        Phase.CHOOSING_REMEDY,
        Phase.NAMING_TRUMP,
        Phase.DISCARDING,
        Phase.EXCHANGING,
    }
)


class Fault(Protocol):
    """A device's fault as the page shows it (the table's ``health.Fault`` is one)."""

    def to_json(self) -> FaultShown: ...


class AcrossNote(Protocol):
    """A card lying across a zone's line, as the page shows it (the table's
    ``across_line.AcrossLine`` is one): the words are the table's, made with the
    players' names."""

    def page(self, names: Mapping[Seat, str]) -> AcrossOnPage: ...


@dataclass(frozen=True)
class Notice:
    """A message for the players on the page: a refused bid (which seat, what was wrong,
    what to do), a director's ruling, or plain information."""

    kind: str  # "refused" | "director" | "info"
    seat: Seat | None
    text: str
    fix: str
    at: float  # the table's clock (seconds)

    def __post_init__(self) -> None:
        if self.kind not in NOTICE_KINDS:
            raise ValueError(
                f"a notice's kind is {self.kind!r}; it must be one of " + ", ".join(NOTICE_KINDS)
            )

    def to_json(self) -> NoticeShown:
        return {
            "kind": self.kind,
            "seat": None if self.seat is None else self.seat.name,
            "text": self.text,
            "fix": self.fix,
            "at": round(self.at, 3),
        }


def table_view(
    game: Game,
    *,
    table: str,
    players: Mapping[Seat, str],
    faults: Sequence[Fault] = (),
    recent: Sequence[OutputEvent] = (),
    notices: Sequence[Notice] = (),
    evidence_urls: Mapping[Card, str] = {},  # read only, never changed
    pictured: Sequence[tuple[OutputEvent, str]] = (),
    version: int = 0,
    rules_name: str | None = None,
    ended: GameOverShown | None = None,
    across: Sequence[AcrossNote] = (),
) -> TableSnapshot:
    """The snapshot of the table for the page.

    ``recent`` is the output events of the hand in play (more is fine: only those since
    the last ``HandStarted`` count), ``evidence_urls`` the image of each card the camera
    kept as evidence, ``rules_name`` the preset's name (found by comparing the rules with
    the presets when not given), ``ended`` the announcement of the table's previous game
    (``game_over``), held until this game's first deal; ``across`` the cards lying
    across a zone's line, each with what its player is to do.
    """
    hand = game.hand
    names = {seat: _name(players, seat) for seat in SEATS}
    to_act = game.to_act
    this_hand = _since_deal(recent)
    trick = hand.trick if hand is not None else None
    shown = hand if hand is not None else game.last_hand
    last = shown.tricks[-1] if shown is not None and shown.tricks else None
    won_by_seat = _tricks_by_seat(hand) if hand is not None else dict.fromkeys(SEATS, 0)
    in_play = {seat: card for seat, card in trick.plays} if trick is not None else {}
    sitting_out = hand.sitting_out if hand is not None else None
    return {
        "version": version,
        "table": table,
        "rules": _rules(game, rules_name),
        "game": game.game,
        "phase": game.phase.value,
        "expecting": waiting_for(game, names),
        "hand": hand.number if hand is not None else None,
        "dealer": _seat(game.dealer),
        "to_act": _seat(to_act),
        "seats": [
            {
                "seat": seat.name,
                "words": SEAT_NAMES[seat],
                "name": names[seat],
                "team": seat.team.name,
                "dealer": seat == game.dealer,
                "to_act": seat == to_act,
                "sitting_out": seat == sitting_out,
                "card": page_card(in_play[seat]) if seat in in_play else None,
                "tricks": won_by_seat[seat],
                "bot": False,
            }
            for seat in SEATS
        ],
        "trump": _trump(hand),
        "maker": _seat(hand.maker) if hand is not None else None,
        "alone": bool(hand is not None and hand.alone),
        "bid": _bid(game, hand),
        "upcard": _upcard(game, hand),
        "trick": _trick(trick) if trick is not None and trick.plays else None,
        "last_trick": _last_trick(shown, last) if shown is not None and last else None,
        "tricks_won": {
            "NS": hand.won[Team.NS] if hand is not None else 0,
            "EW": hand.won[Team.EW] if hand is not None else 0,
        },
        "tricks_text": tricks_text(
            None if hand is None else {"NS": hand.won[Team.NS], "EW": hand.won[Team.EW]}
        ),
        "score": _score(game),
        "result": _result(this_hand, names),
        "winner": _winner(game, recent),
        "game_over": game_over(game, recent, players, ended),
        "reneges": _reneges(this_hand, names, evidence_urls, hand),
        "irregularities": [
            _irregularity(ev, names, pictured, evidence_urls)
            for ev in this_hand
            if isinstance(ev, IrregularityFound)
        ],
        "notices": [_notice(n) for n in notices],
        "across": [a.page(names) for a in across],
        "faults": [f.to_json() for f in faults],
        "devices_ok": not faults,
        "actions": actions(game, names),
    }


# --- the touchscreen's choices -----------------------------------------------------------


def actions(game: Game, names: Mapping[Seat, str] | None = None) -> list[Action]:
    """The inputs the touchscreen offers now: {"label", "seat", "event"} each, the event
    as the codec writes it (what ``POST /api/input`` takes back)."""
    if game.phase not in _ACTION_PHASES:
        return []
    names = names or {}
    return [
        {"label": _label(game, ev, names), "seat": _actor(game, ev).name, "event": encode(ev)}
        for ev in choices(game)
    ]


def choices(game: Game) -> list[InputEvent]:
    """The non-card input events the rules allow now, hands known or not."""
    if game.phase not in _ACTION_PHASES:
        return []
    known = [e for e in game.legal_events() if not isinstance(e, CardPlayed)]
    if known:
        return known
    hand, rules, seat = game.hand, game.rules, game.to_act
    if hand is None or seat is None:
        return []
    if game.phase is Phase.DISCARDING:
        return [DealerDiscarded(None)]
    if game.phase is Phase.EXCHANGING:
        both_unknown = hand.known[seat] is None and hand.known[seat.partner] is None
        return [CardsExchanged(None, None)] if both_unknown else []
    if game.phase is Phase.NAMING_TRUMP:
        named: list[Suit | None] = [*SUITS, None] if rules.no_trump else list(SUITS)
        return [TrumpCalled(seat, t) for t in named]
    if game.phase is not Phase.BIDDING:
        return []
    if rules.variant is Variant.BID_EUCHRE:
        return bid_euchre_bids(game, seat)
    if hand.round == 1:
        return [Passed(seat), OrderedUp(seat, False), OrderedUp(seat, True)]
    assert hand.upcard is not None
    events: list[InputEvent] = []
    if not (seat == hand.dealer and rules.stick_the_dealer):
        events.append(Passed(seat))
    for suit in SUITS:
        if suit != hand.upcard.suit:
            events += [TrumpCalled(seat, suit, False), TrumpCalled(seat, suit, True)]
    return events


def _actor(game: Game, ev: InputEvent) -> Seat:
    """The seat whose button (or touch) this is."""
    seat = getattr(ev, "seat", None)
    if isinstance(seat, Seat):
        return seat
    hand = game.hand
    assert hand is not None  # the discard and the exchange happen in a hand
    if isinstance(ev, CardsExchanged):
        assert hand.maker is not None
        return hand.maker
    return hand.dealer


def _label(game: Game, ev: InputEvent, names: Mapping[Seat, str]) -> str:
    """The button's words."""
    remedy = game.phase is Phase.CHOOSING_REMEDY
    if isinstance(ev, Passed):
        return "Pass"
    if isinstance(ev, PenaltyAccepted):
        return "Take the penalty"
    if isinstance(ev, OrderedUp):
        dealer = game.hand is not None and ev.seat == game.hand.dealer
        words = ("Pick it up" if dealer else "Order up") + (" alone" if ev.alone else "")
        return "Void the bid: order up alone" if remedy else words
    if isinstance(ev, TrumpCalled):
        words = f"Call {suit_name(ev.trump)}" + (" alone" if ev.alone else "")
        return f"Void the bid: {words[0].lower()}{words[1:]}" if remedy else words
    if isinstance(ev, BidMade):
        return f"Bid {ev.amount}"
    if isinstance(ev, TrumpBid):
        return f"Bid {ev.amount} {suit_name(ev.trump)}"
    if isinstance(ev, DealerDiscarded):
        return "Discarded" if ev.card is None else f"Discard {ev.card.pretty}"
    if isinstance(ev, CardsExchanged):
        if ev.discard is None or ev.received is None:
            return "Cards exchanged"
        return f"Give {ev.discard.pretty}, take {ev.received.pretty}"
    if isinstance(ev, DealerChosen):
        return f"{names.get(ev.seat) or SEAT_NAMES[ev.seat]} deals"
    return type(ev).__name__  # pragma: no cover - every choice kind is named above


# --- pieces of the snapshot ----------------------------------------------------------------


def _notice(notice: Notice) -> NoticeShown:
    """A notice for the page: a refusal's words from the rules core in words."""
    shown = notice.to_json()
    if notice.kind == "refused":
        shown["text"], shown["fix"] = in_words(notice.text), in_words(notice.fix)
    return shown


def _name(players: Mapping[Seat, str], seat: Seat) -> str:
    name = players.get(seat)
    return name.strip() if name and name.strip() else SEAT_NAMES[seat]


def _seat(seat: Seat | None) -> str | None:
    return None if seat is None else seat.name


def page_card(card: Card) -> PageCard:
    """A card for the page: drawn as text (rank and suit symbol), red or black."""
    rank = "10" if card.rank is Rank.TEN else card.rank.letter
    return {
        "code": card.code,
        "rank": rank,
        "suit": card.suit.name,
        "symbol": card.suit.symbol,
        "red": card.suit in (Suit.D, Suit.H),
        "text": card.pretty,
    }


def _rules(game: Game, rules_name: str | None) -> RulesShown:
    rules = game.rules
    name = rules_name
    if name is None:
        name = next((p.name for p in PRESETS.values() if p.rules == rules), None)
    preset = PRESETS.get(name) if name is not None else None
    return {
        "name": name,
        "title": preset.title if preset is not None else (name or "custom rules"),
        "variant": rules.variant.value,
        "points_to_win": rules.points_to_win,
        "hands_per_game": rules.hands_per_game,
        "best_of": rules.best_of,
        "progressive": rules.progressive,
    }


def _trump(hand: HandState | None) -> TrumpShown | None:
    if hand is None or not hand.trump_set:
        return None
    suit = hand.trump
    if suit is None:
        return {"suit": "NT", "symbol": "NT", "name": "No trump", "red": False}
    return {
        "suit": suit.name,
        "symbol": suit.symbol,
        "name": SUIT_NAMES[suit],
        "red": suit in (Suit.D, Suit.H),
    }


def _bid(game: Game, hand: HandState | None) -> BidShown | None:
    """Bid Euchre: the contract, or the high bid so far."""
    if hand is None or game.rules.variant is not Variant.BID_EUCHRE:
        return None
    amount = hand.bid if hand.bid is not None else hand.high_bid
    seat = hand.maker if hand.bid is not None else hand.high_bidder
    if amount is None:
        return None
    return {"amount": amount, "seat": _seat(seat), "won": hand.bid is not None}


def _upcard(game: Game, hand: HandState | None) -> UpcardShown | None:
    if hand is None or hand.upcard is None:
        return None
    if hand.trump_set and game.rules.variant is Variant.EUCHRE and hand.round == 1:
        status = "picked up"
    elif hand.round == 2:
        status = "turned down"
    else:
        status = "up"
    return {"card": page_card(hand.upcard), "status": status}


def _plays(trick: Trick) -> list[PlayShown]:
    return [
        {"seat": seat.name, "card": page_card(card), "dead": card in trick.dead}
        for seat, card in trick.plays
    ]


def _trick(trick: Trick) -> TrickShown:
    return {
        "number": trick.number,
        "leader": trick.leader.name,
        "led": None if trick.led is None else trick.led.name,
        "plays": _plays(trick),
    }


def _winner_of(hand: HandState, trick: Trick) -> Seat:
    """As the rules core judges it: a dead card (003) cannot take the trick."""
    live = [p for p in trick.plays if p[1] not in trick.dead]
    return trick_winner(live, hand.trump, trick.led) if live else trick.leader


def _last_trick(hand: HandState, trick: Trick) -> LastTrickShown:
    return {
        "number": trick.number,
        "winner": _winner_of(hand, trick).name,
        "plays": _plays(trick),
    }


def _tricks_by_seat(hand: HandState) -> dict[Seat, int]:
    won = dict.fromkeys(SEATS, 0)
    for trick in hand.tricks:
        if trick.plays:
            won[_winner_of(hand, trick)] += 1
    return won


def _score(game: Game) -> ScoreShown:
    rules = game.rules
    score: ScoreShown = {
        "NS": game.scores[Team.NS],
        "EW": game.scores[Team.EW],
        "to_win": rules.points_to_win,
        "hands_played": game.hands_counted,
        "hands_per_game": game.hands_target,
        "games": {"NS": game.games_won[Team.NS], "EW": game.games_won[Team.EW]}
        if rules.best_of > 1
        else None,
        "individual": {seat.name: game.individual[seat] for seat in SEATS}
        if rules.progressive
        else None,
    }
    return score


def _since_deal(recent: Sequence[OutputEvent]) -> Sequence[OutputEvent]:
    """The output events of the latest hand: from its HandStarted on."""
    for i in range(len(recent) - 1, -1, -1):
        if isinstance(recent[i], HandStarted):
            return recent[i:]
    return recent


def _result(events: Sequence[OutputEvent], names: Mapping[Seat, str]) -> ResultShown | None:
    """How the latest hand ended (scored or thrown in), until the next deal."""
    for ev in reversed(events):
        if isinstance(ev, HandScored):
            return {
                "hand": ev.hand,
                "maker": _seat(ev.maker),
                "result": ev.result.value,
                "tricks": {"NS": ev.tricks[0], "EW": ev.tricks[1]},
                "points": {"NS": ev.points[0], "EW": ev.points[1]},
                "text": _result_words(ev, names),
            }
        if isinstance(ev, HandThrownIn):
            reason = THROW_IN_WORDS[ev.reason]
            return {
                "hand": ev.hand,
                "maker": None,
                "result": "thrown_in",
                "tricks": None,
                "points": None,
                "text": f"Hand {ev.hand} thrown in ({reason}): {names[ev.next_dealer]} deals",
            }
    return None


def _result_words(ev: HandScored, names: Mapping[Seat, str]) -> str:
    teams = zip((Team.NS, Team.EW), ev.points, strict=True)
    scored = [f"{TEAM_SHORT[t]} +{p}" for t, p in teams if p]
    maker = f" ({names[ev.maker]} made trump)" if ev.maker is not None else ""
    points = ", ".join(scored) if scored else "no points"
    return f"Hand {ev.hand}: {RESULT_WORDS[ev.result]}{maker}; {points}"


def _winner(game: Game, recent: Sequence[OutputEvent]) -> WinnerShown | None:
    if game.phase is not Phase.OVER:
        return None
    for ev in reversed(recent):
        if isinstance(ev, MatchWon):
            return {"team": ev.winner.name, "text": f"{TEAM_WORDS[ev.winner]} won the match"}
        if isinstance(ev, GameEnded):
            team = ev.winner
            text = f"{TEAM_WORDS[team]} won" if team is not None else "A tie"
            return {"team": None if team is None else team.name, "text": text}
    won = game.match_winner
    text = f"{TEAM_WORDS[won]} won" if won is not None else "The game is over"
    return {"team": None if won is None else won.name, "text": text}


def _reneges(
    events: Sequence[OutputEvent],
    names: Mapping[Seat, str],
    evidence_urls: Mapping[Card, str],
    hand: HandState | None,
) -> list[RenegeShown]:
    out: list[RenegeShown] = []
    for ev in events:
        if isinstance(ev, RenegeProven):
            cards = (ev.played, ev.proof)
            text = renege_sentence(ev, who(names, ev.seat))
            out.append(
                {
                    "status": "proven",
                    "seat": ev.seat.name,
                    "name": names[ev.seat],
                    "trick": ev.trick,
                    "suit": ev.suit.name,
                    "played": page_card(ev.played),
                    "proof": page_card(ev.proof),
                    "proof_trick": ev.proof_trick,
                    "text": text,
                    "evidence": _evidence(cards, evidence_urls),
                }
            )
        elif isinstance(ev, RenegeSpotted):
            played = _played_in(hand, ev.seat, ev.trick)
            text = renege_sentence(ev, who(names, ev.seat))
            out.append(
                {
                    "status": "spotted",
                    "seat": ev.seat.name,
                    "name": names[ev.seat],
                    "trick": ev.trick,
                    "suit": ev.suit.name,
                    "played": None if played is None else page_card(played),
                    "proof": page_card(ev.held),
                    "proof_trick": ev.trick,
                    "text": text,
                    "evidence": _evidence(
                        (ev.held,) if played is None else (played, ev.held), evidence_urls
                    ),
                }
            )
    return out


def _irregularity(
    ev: IrregularityFound,
    names: Mapping[Seat, str],
    pictured: Sequence[tuple[OutputEvent, str]],
    urls: Mapping[Card, str],
) -> IrregularityShown:
    return {
        "kind": ev.kind.value,
        "title": IRREGULARITY_WORDS[ev.kind],
        "seat": _seat(ev.seat),
        "name": names[ev.seat] if ev.seat is not None else None,
        "remedy": ev.remedy.value,
        "remedy_words": REMEDY_WORDS[ev.remedy],
        "text": in_words(ev.detail),
        "evidence": irregularity_pictures(ev, pictured, urls),
    }


def _played_in(hand: HandState | None, seat: Seat, number: int) -> Card | None:
    if hand is None:
        return None
    tricks = [*hand.tricks, *([hand.trick] if hand.trick is not None else [])]
    for trick in tricks:
        if trick.number == number:
            for who, card in trick.plays:
                if who == seat:
                    return card
    return None


def irregularity_pictures(
    ev: IrregularityFound,
    pictured: Sequence[tuple[OutputEvent, str]],
    urls: Mapping[Card, str],
) -> list[Picture]:
    """An irregularity's pictures: the picture of the event that raised it, where it
    has one of its own (a card the game did not take: its copy, a card not of the deck),
    then the picture of its card as the game took it, where there is one."""
    own = next((url for out, url in pictured if out is ev), None)
    card = ev.card
    out: list[Picture] = []
    if own is not None:
        face = card.pretty if card is not None else "card not of this deck"
        out.append({"card": card.code if card is not None else "", "face": face, "url": own})
    if card is not None and card in urls:
        out.append({"card": card.code, "face": card.pretty, "url": urls[card]})
    return out


def _evidence(cards: Sequence[Card], urls: Mapping[Card, str]) -> list[Picture]:
    return [{"card": c.code, "face": c.pretty, "url": urls[c]} for c in cards if c in urls]


__all__ = [
    "NOTICE_KINDS",
    "AcrossNote",
    "Notice",
    "PageCard",
    "actions",
    "choices",
    "page_card",
    "table_view",
]
