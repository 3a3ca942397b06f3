"""The table page's snapshot as a typed contract: every key the page's script reads.

Why a module of its own: the snapshot is built here in present/ (``view.table_view``),
added to by the kind of table that shows it (the kiosk's ``kiosk`` part, through the
policy's ``annotate``), published by the table's page, and read again by the director's
dashboard and hall, which cut it down for spectators. One definition of its shape lets
the type checker hold all of them to the same keys, where an untyped dict let each
one guess. The JSON is unchanged: these are the keys and values the page always read.

A seat's view is its entry of ``seats`` (``SeatShown``): its player, team, the card it
has in the trick, the tricks it won; a visitor's own cards at the kiosk are in the
kiosk's part (``KioskShown.hands``), never in the table's.
"""

# No ``from __future__ import annotations`` here: the annotations are evaluated, so
# each type knows at run time which keys it requires and which it may lack (the tests
# compare a snapshot's keys with them).
from typing import NotRequired, TypedDict

from table_controller.rules.codec import JSON


class PageCard(TypedDict):
    """A card as the page draws it."""

    code: str
    rank: str
    suit: str
    symbol: str
    red: bool
    text: str


class TeamCounts(TypedDict):
    """A number for each team (tricks, points, games won)."""

    NS: int
    EW: int


class RulesShown(TypedDict):
    """The rules the table plays, as the page's header names them."""

    name: str | None  # the preset's name; None for rules of no preset
    title: str
    variant: str
    points_to_win: int | None
    hands_per_game: int | None
    best_of: int
    progressive: bool


class SeatShown(TypedDict):
    """A seat's view on the page: its player, its team, its card in the trick."""

    seat: str  # "N", "E", "S", "W"
    words: str  # "North"
    name: str
    team: str  # "NS" or "EW"
    dealer: bool
    to_act: bool
    sitting_out: bool  # the partner of a player going alone
    card: PageCard | None  # its card in the trick in play
    tricks: int  # the tricks it won this hand
    bot: bool  # a bot plays it (the kiosk marks it)


class TrumpShown(TypedDict):
    suit: str  # a suit's letter, or "NT"
    symbol: str
    name: str
    red: bool


class BidShown(TypedDict):
    """Bid Euchre: the contract, or the high bid so far."""

    amount: int
    seat: str | None
    won: bool


class UpcardShown(TypedDict):
    card: PageCard
    status: str  # "up", "picked up" or "turned down"


class PlayShown(TypedDict):
    seat: str
    card: PageCard
    dead: bool  # a dead card (003) cannot take the trick


class TrickShown(TypedDict):
    """The trick in play."""

    number: int
    leader: str
    led: str | None  # the suit led
    plays: list[PlayShown]


class LastTrickShown(TypedDict):
    """The trick last gathered, with who took it."""

    number: int
    winner: str
    plays: list[PlayShown]


class ScoreShown(TypedDict):
    NS: int
    EW: int
    to_win: int | None
    hands_played: int
    hands_per_game: int | None
    games: TeamCounts | None  # games won, in a match of more than one game
    individual: dict[str, int] | None  # each seat's points, under progressive scoring


class ResultShown(TypedDict):
    """How the latest hand ended (scored or thrown in), until the next deal."""

    hand: int
    maker: str | None
    result: str
    tricks: TeamCounts | None
    points: TeamCounts | None
    text: str


class WinnerShown(TypedDict):
    team: str | None  # None: a tie, or no winner named
    text: str


class ReviewLink(TypedDict):
    """Where the table's page serves a game's hand review (announce.py ``review_link``):
    the review, its QR code for a phone, and the file to keep."""

    url: str
    qr: str
    file: str
    text: str


class GameOverShown(TypedDict):
    """The end of a game, announced big until the next deal (announce.py ``game_over``),
    with the link to its hand review (added by the table, which knows the game's number
    in its log)."""

    game: int
    team: str | None
    title: str
    text: str
    score: TeamCounts
    next: str
    review: NotRequired[ReviewLink]


class Picture(TypedDict):
    """An evidence picture of a card (the camera's crop, served by the table or the
    director)."""

    card: str  # the card's code; "" for a card not of the deck
    face: str
    url: str


class RenegeShown(TypedDict):
    status: str  # "proven" or "spotted"
    seat: str
    name: str
    trick: int
    suit: str
    played: PageCard | None
    proof: PageCard
    proof_trick: int
    text: str
    evidence: list[Picture]


class IrregularityShown(TypedDict):
    kind: str
    title: str
    seat: str | None
    name: str | None
    remedy: str
    remedy_words: str
    text: str
    evidence: list[Picture]


class NoticeShown(TypedDict):
    """A message for the players: a refusal, a director's ruling, information."""

    kind: str  # "refused" | "director" | "info"
    seat: str | None
    text: str
    fix: str
    at: float  # the table's clock (seconds)


class AcrossOnPage(TypedDict):
    """A card across a line as the table's page draws it (table/across_line.py)."""

    card: PageCard
    seat: str | None  # "N", "E", "S", "W": whose light pulses
    into: str  # the zone to push it into ("play:S", "kitty", "tricks:E")
    text: str  # "Bo (East): push the 9♠ into your play zone"
    detail: str  # "It lies across the line between your play zone and the kitty: ..."


class FaultShown(TypedDict):
    """A device's fault (the table's ``health.Fault``): on the page, and in the
    table's status to the director (feed/messages.py)."""

    device: str
    what: str
    problem: str
    fix: str
    since: float  # the table's clock (seconds), when it was first raised


class Action(TypedDict):
    """A choice the touchscreen offers: the event as the codec writes it, which
    ``POST /api/input`` takes back."""

    label: str
    seat: str
    event: dict[str, JSON]


class CostlyShown(TypedDict):
    """One of a visitor's costliest decisions, in plain words (kiosk/look_back/): which
    hand, what they did, what was better, what it cost and which view says so. The
    cards are drawn as the page draws cards beside the words, which name them too."""

    where: str  # "Hand 2, trick 3"; "Hand 1, the bidding"; "Hand 4, your discard"
    did: str  # "You played the King of Hearts."
    better: str  # "It was better to play the Jack of Clubs."
    cost: str  # "That cost your side about 1.3 points."
    view: str  # "from what you could see" or "with every hand known"
    card: PageCard | None  # the card played or discarded
    best: PageCard | None  # the better card, where the better choice was a card


class SeatLookBack(TypedDict):
    """One visitor's costliest decisions (at most three, costliest first)."""

    title: str  # "Your three costliest decisions", "South's two decisions that cost points"
    costly: list[CostlyShown]
    none: str  # "You made no decision that cost points. Well played." when none did


class CoachReview(TypedDict):
    """The coach's look back at the visitor's game once it ended (kiosk/look_back/)."""

    state: str  # "looking" (worked out now), "ready" or "failed"
    text: str  # "Looking over your game...", how the verdicts were reached, or what failed
    seats: list[SeatLookBack]  # one per visitor, once ready


class Coach(TypedDict):
    """The kiosk's coach (kiosk/teach.py): whose turn, what a visitor may play, why;
    once a game ended, its look back at the visitor's costliest decisions."""

    title: str
    lines: list[str]
    playable: list[str]  # the card codes the visitor to play may play
    trick_won: str
    renege: str
    review: CoachReview | None  # from a game's end until the next deal or a new visitor


class BotShown(TypedDict):
    count: int  # the cards the bot holds


class KioskAlert(TypedDict):
    """Cards swept off the table: which, and what to do."""

    kind: str  # "swept"
    cards: str  # their codes, space-separated
    text: str
    fix: str


class KioskShown(TypedDict):
    """What the kiosk adds to the snapshot (kiosk/kiosk.py ``Kiosk.annotate``)."""

    mode: str  # "play", "attract" or "stopped"
    visitors: list[str]
    bots: dict[str, BotShown]
    coach: Coach
    hands: dict[str, list[PageCard]]  # each visitor's own cards
    collected: dict[str, list[PageCard]]  # each visitor's cards read for the deal
    alert: KioskAlert | None
    pin_wait: float


class TableSnapshot(TypedDict):
    """The snapshot of the table the page draws (``view.table_view``)."""

    version: int
    table: str
    rules: RulesShown
    game: int
    phase: str
    expecting: str
    hand: int | None
    dealer: str | None
    to_act: str | None
    seats: list[SeatShown]
    trump: TrumpShown | None
    maker: str | None
    alone: bool
    bid: BidShown | None
    upcard: UpcardShown | None
    trick: TrickShown | None
    last_trick: LastTrickShown | None
    tricks_won: TeamCounts
    tricks_text: str
    score: ScoreShown
    result: ResultShown | None
    winner: WinnerShown | None
    game_over: GameOverShown | None
    reneges: list[RenegeShown]
    irregularities: list[IrregularityShown]
    notices: list[NoticeShown]
    across: list[AcrossOnPage]
    faults: list[FaultShown]
    devices_ok: bool
    actions: list[Action]
    kiosk: NotRequired[KioskShown]  # a kiosk's table only


__all__ = [
    "AcrossOnPage",
    "Action",
    "BidShown",
    "BotShown",
    "Coach",
    "CoachReview",
    "CostlyShown",
    "FaultShown",
    "GameOverShown",
    "IrregularityShown",
    "KioskAlert",
    "KioskShown",
    "LastTrickShown",
    "PageCard",
    "Picture",
    "PlayShown",
    "RenegeShown",
    "ResultShown",
    "ReviewLink",
    "RulesShown",
    "ScoreShown",
    "SeatLookBack",
    "SeatShown",
    "TableSnapshot",
    "TeamCounts",
    "TrickShown",
    "TrumpShown",
    "UpcardShown",
    "WinnerShown",
]
