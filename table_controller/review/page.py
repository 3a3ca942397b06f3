"""The hand review drawn: one self-contained HTML document per game (its style, its
script, its pictures inline), which opens from a file with no network, and which the
table's page, the dashboard and the hall serve as it is.

Why one document rather than a page and an API: a player takes it home (the table's
QR code, a download), a director files it (``director export``), a club puts it on its
site, and each of them opens the same thing offline. Its script draws the table from
above for each step from the review's data (``review_view``), which holds the state
after every step (the cards each seat still holds, the trick on the table, the bidding,
the score), so the script keeps no rules of its own.

What a document can show is what the ``Review`` holds: ended hands only
(``replay.review_game``). The game's verdicts (``KeptReview``, kept.py) are joined on
each decision's key ``(game, hand, decision)``: beside a decision, both views' verdicts
in words; in its hand's list of steps, the costly ones marked; at the top, each player's
three costliest decisions, each a link to its step. A verdict of a hand the review does
not hold (a hand in play) has no step to join and is never drawn. While the analysis is
being worked out the page says so, and when it failed it says why, the replay shown
either way.

Served, the document carries its own Content-Security-Policy (``ReviewDocument.csp``):
nothing loaded from anywhere, its one style and one script allowed by their hashes,
pictures only from ``data:``.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Protocol, TypedDict

from markupsafe import Markup

from table_controller.cards import Card
from table_controller.present import SEAT_NAMES
from table_controller.review.kept import (
    WORKING,
    KeptDecision,
    KeptReview,
    costly_words,
    seat_heading,
)
from table_controller.review.replay import ReplayedHand, Review, ReviewNote, Step, StepKind
from table_controller.review.verdict import points_words
from table_controller.seats import Seat
from table_controller.templating import render

SEATS = (Seat.N, Seat.E, Seat.S, Seat.W)


class PageVerdict(Protocol):
    """A verdict on one decision from one view, as the page reads it (``KeptVerdict``
    is one): the points it cost against the best choice, the best choice and the view
    taken in words, and the deals sampled (1 when every hand was known)."""

    @property
    def cost(self) -> float: ...

    @property
    def best(self) -> str: ...

    @property
    def view(self) -> str: ...

    @property
    def deals(self) -> int: ...


Verdicts = KeptReview  # the game's verdicts, joined on (game, hand, decision)


class PictureShown(TypedDict):
    caption: str
    src: str | None  # a data: URI; None when the camera kept none


class NoteShown(TypedDict):
    kind: str
    text: str
    pictures: list[PictureShown]


class VerdictShown(TypedDict):
    """A decision's verdicts as the page shows them beside it."""

    mark: str  # in the list of steps: "cost 2 points", "best"
    costly: bool
    lines: list[str]  # each view's verdict in a sentence, all hands known first
    unanalysed: str  # why a view could not be worked out, in words ("" if both were)


class CostlyShown(TypedDict):
    text: str  # "Hand 3, trick 2: played the 9♣, cost 2 points ..."
    hand: int  # the hand's place in ``ReviewView.hands``
    step: int  # the frame's place in that hand


class SeatCostliest(TypedDict):
    seat: str
    heading: str  # "Ann (North)"
    costly: list[CostlyShown]
    none: str  # when nothing cost points, in words


class Frame(TypedDict):
    """What the table shows after one step (the first frame: the deal)."""

    text: str
    kind: str  # StepKind's value, or "deal"
    seat: str | None  # the seat that acted, "N"...
    key: list[int] | None  # [hand, decision]: a verdict's key
    held: dict[str, list[str]]  # each seat's cards still held, by code
    unseen: dict[str, int]  # cards the camera never saw, each seat
    out: list[str]  # seats sitting this hand out
    trick: list[list[str]]  # [seat, code] as laid
    winner: str | None  # the trick's winner, on a trick's step
    upcard: str | None
    upcard_down: bool  # turned down
    bids: list[str]
    trump: str
    tricks: dict[str, int]  # "NS", "EW"
    score: list[int]  # the game's score [NS, EW]
    note: NoteShown | None
    verdict: VerdictShown | None


class HandShown(TypedDict):
    number: int
    label: str  # "Hand 3", or "Game 2, hand 1" in a match
    title: str  # "Hand 3: East deals, upcard J♥"
    result: str
    frames: list[Frame]


class SeatName(TypedDict):
    seat: str
    words: str
    name: str
    team: str


class ReviewView(TypedDict):
    """The review's data, as its script reads it (``review_view``)."""

    title: str
    subtitle: str
    seats: list[SeatName]
    hands: list[HandShown]
    notes: list[NoteShown]
    endings: list[str]
    problems: list[str]
    final: str
    status: str  # the game over, or in progress and how much is shown
    verdicts: bool  # verdicts are drawn
    verdicts_status: str  # "being worked out", a failure, or how they were reached
    verdicts_state: str  # "ready", "working", "failed", "" (none offered)
    costliest: list[SeatCostliest]  # each player's costliest decisions


@dataclass(frozen=True)
class ReviewDocument:
    """The review as one HTML document, and the policy to serve it under."""

    html: str
    csp: str


def review_view(review: Review, verdicts: Verdicts | None = None) -> ReviewView:
    """The review's data for its script: each hand's frames, step by step."""
    given = verdicts.by_key() if verdicts is not None and verdicts.decisions else {}
    names = {s: review.players.get(s) or "" for s in SEATS}
    score = [0, 0]
    hands: list[HandShown] = []
    match = any(h.game > 1 for h in review.hands)
    for hand in review.hands:
        frames = _frames(hand, score, given)
        if hand.scores is not None:
            score = list(hand.scores)
        up = f", upcard {hand.upcard.pretty}" if hand.upcard is not None else ""
        hands.append(
            {
                "number": hand.number,
                "label": _hand_words(hand, match),
                "title": f"{_hand_words(hand, match)}: {_who(names, hand.dealer)} deals{up}",
                "result": hand.result,
                "frames": frames,
            }
        )
    table = review.table or "Euchre table"
    started = time.strftime("%Y-%m-%d %H:%M", time.localtime(review.started))
    return {
        "title": f"{table}: game {review.game}",
        "subtitle": f"Started {started}. {review.rules}.",
        "seats": [
            {"seat": s.name, "words": SEAT_NAMES[s], "name": names[s], "team": s.team.name}
            for s in SEATS
        ],
        "hands": hands,
        "notes": [_note(n) for n in review.notes],
        "endings": list(review.endings),
        "problems": list(review.problems),
        "final": review.final,
        "status": _status(review),
        "verdicts": any(f["verdict"] for h in hands for f in h["frames"]),
        "verdicts_status": _verdicts_status(verdicts),
        "verdicts_state": "" if verdicts is None else verdicts.state,
        "costliest": _costliest(review, verdicts, hands, names, match),
    }


def _hand_words(hand: ReplayedHand, match: bool) -> str:
    return f"Game {hand.game}, hand {hand.number}" if match else f"Hand {hand.number}"


def _verdicts_status(verdicts: Verdicts | None) -> str:
    if verdicts is None:
        return ""
    if verdicts.state == "failed":
        return (
            f"The verdicts on each decision could not be worked out ({verdicts.problem}). "
            "The hands can still be replayed."
        )
    if verdicts.state == "working":
        return WORKING
    return (
        "Beside each decision, what it cost in points against the best choice: with all "
        "hands known (exact, once the hand is over), and from the player's own view (the "
        f"hidden cards sampled over {verdicts.deals} deals, as the strong bot does)."
    )


def _costliest(
    review: Review,
    verdicts: Verdicts | None,
    hands: list[HandShown],
    names: Mapping[Seat, str],
    match: bool,
) -> list[SeatCostliest]:
    """Each player's costliest decisions, each with the place of its step (a decision
    whose step the review does not hold is not named)."""
    if verdicts is None or verdicts.state == "failed" or not verdicts.decisions:
        return []
    where: dict[tuple[int, int, int], tuple[int, int]] = {}
    for i, hand in enumerate(review.hands):
        for j, step in enumerate(hand.steps, 1):  # frame 0 is the deal
            if step.key is not None:
                where[step.key] = (i, j)
    by_key = verdicts.by_key()
    out: list[SeatCostliest] = []
    for seat in SEATS:
        costly: list[CostlyShown] = []
        for key in verdicts.costliest.get(seat, ()):
            if key in where and key in by_key:
                i, j = where[key]
                costly.append({"text": costly_words(by_key[key], match), "hand": i, "step": j})
        heading = seat_heading(seat, names[seat])
        none = "" if costly else "No decision cost points."
        out.append({"seat": seat.name, "heading": heading, "costly": costly, "none": none})
    return out


def _status(review: Review) -> str:
    ended = len(review.hands)
    hands = f"{ended} hand{'s' * (ended != 1)}"
    if review.finished:
        return f"The game is over: {hands} to replay."
    if review.in_play is not None:
        return (
            f"The game is in progress: its {hands} played so far are shown; hand "
            f"{review.in_play}, being played, is shown once it ends."
        )
    return f"The game is in progress: its {hands} played so far are shown."


def _who(names: Mapping[Seat, str], seat: Seat) -> str:
    return f"{names[seat]} ({SEAT_NAMES[seat]})" if names.get(seat) else SEAT_NAMES[seat]


def _frames(
    hand: ReplayedHand, before: list[int], verdicts: Mapping[tuple[int, int, int], KeptDecision]
) -> list[Frame]:
    """The table after each step of ``hand``: the deal first."""
    dealt = hand.dealt
    upcard = hand.upcard
    discard = next((s for s in hand.steps if s.kind is StepKind.DISCARD), None)
    taken_up = discard is not None and upcard is not None and not dealt
    held: dict[Seat, list[Card]] = {}
    unseen: dict[Seat, int] = {}
    for seat in SEATS:
        cards = list(hand.held.get(seat, ()))
        if taken_up and seat is hand.dealer and upcard in cards:
            cards.remove(upcard)  # in the dealer's hand only once taken up
        held[seat] = cards
        unseen[seat] = 0 if dealt else max(0, hand.size - len(cards))
    out: list[str] = []
    trick: list[list[str]] = []
    tricks = {"NS": 0, "EW": 0}
    bids: list[str] = []
    passes = 0
    trump = ""
    score = list(before)
    shown_up: str | None = upcard.code if upcard is not None else None
    down = False
    clear = False
    frames: list[Frame] = []

    def frame(step: Step | None) -> Frame:
        k = None if step is None else step.key
        key = None if k is None else list(k)
        verdict = None if k is None else verdicts.get(k)
        return {
            "text": step.text if step is not None else _deal_text(hand),
            "kind": step.kind.value if step is not None else "deal",
            "seat": step.seat.name if step is not None and step.seat is not None else None,
            "key": key,
            "held": {s.name: [c.code for c in _sorted(held[s])] for s in SEATS},
            "unseen": {s.name: unseen[s] for s in SEATS},
            "out": list(out),
            "trick": [list(p) for p in trick],
            "winner": step.winner.name if step is not None and step.winner is not None else None,
            "upcard": shown_up,
            "upcard_down": down,
            "bids": list(bids),
            "trump": trump,
            "tricks": dict(tricks),
            "score": list(score),
            "note": _note(step.note) if step is not None and step.note is not None else None,
            "verdict": _verdict(verdict) if verdict is not None else None,
        }

    frames.append(frame(None))
    for step in hand.steps:
        kind = step.kind
        if kind is StepKind.PLAY and clear:
            trick, clear = [], False
        if kind is StepKind.BID:
            bids.append(step.text)
            if step.text.endswith(" passes"):
                passes += 1
                if passes == 4 and shown_up is not None:
                    down = True  # round one over: the upcard turned down
        elif kind is StepKind.TRUMP:
            trump = step.text
            if hand.alone and hand.maker is not None:
                out.append(hand.maker.partner.name)
        elif kind is StepKind.DISCARD and step.seat is not None:
            seat = step.seat
            if upcard is not None and shown_up is not None and not down:
                if upcard not in held[seat]:
                    held[seat].append(upcard)
                shown_up = None
            if step.card is not None and step.card in held[seat]:
                held[seat].remove(step.card)
            elif not dealt and unseen[seat] > 0:
                unseen[seat] -= 1  # a card the camera never saw, put away
        elif kind is StepKind.PLAY and step.seat is not None and step.card is not None:
            if shown_up is not None and not down:
                down = True  # play began: the upcard is no longer on the table
            if step.card in held[step.seat]:
                held[step.seat].remove(step.card)
            elif unseen[step.seat] > 0:
                unseen[step.seat] -= 1
            trick.append([step.seat.name, step.card.code])
        elif kind is StepKind.TAKEN_BACK and step.seat is not None and step.card is not None:
            laid = [step.seat.name, step.card.code]
            if laid in trick:
                trick.remove(laid)
                held[step.seat].append(step.card)
        elif kind is StepKind.TRICK and step.winner is not None:
            tricks[step.winner.team.name] += 1
            clear = True
        elif kind is StepKind.SCORE and hand.scores is not None:
            score = list(hand.scores)
        if shown_up is not None and down and kind is StepKind.PLAY:
            shown_up = None
        frames.append(frame(step))
    return frames


def _deal_text(hand: ReplayedHand) -> str:
    up = f"; the upcard is the {hand.upcard.pretty}" if hand.upcard is not None else ""
    seen = "" if hand.dealt else " (the camera sees a card only once it is played)"
    return f"{SEAT_NAMES[hand.dealer]} deals{up}{seen}"


def _sorted(cards: list[Card]) -> list[Card]:
    """A hand as laid out to read: by suit (♠ ♥ ♣ ♦, colours alternating), high first."""
    order = {"S": 0, "H": 1, "C": 2, "D": 3}
    return sorted(cards, key=lambda c: (order[c.suit.name], -int(c.rank)))


def _note(note: ReviewNote) -> NoteShown:
    return {
        "kind": note.kind,
        "text": note.text,
        "pictures": [
            {"caption": p.caption, "src": _data_uri(p.png) if p.png is not None else None}
            for p in note.pictures
        ],
    }


def _data_uri(png: bytes) -> str:
    kind = "image/png" if png.startswith(b"\x89PNG") else "image/jpeg"
    return f"data:{kind};base64," + base64.b64encode(png).decode("ascii")


def _verdict(d: KeptDecision) -> VerdictShown:
    lines = [v.words for v in (d.exact, d.player) if v is not None]
    costly = d.costly
    return {
        "mark": f"cost {points_words(d.cost)}" if costly else "best",
        "costly": costly,
        "lines": lines,
        "unanalysed": f"{d.unanalysed[0].upper()}{d.unanalysed[1:]}." if d.unanalysed else "",
    }


# --- the document ----------------------------------------------------------------------


@cache
def _asset(name: str) -> str:
    return (resources.files("table_controller") / "templates" / name).read_text(encoding="utf-8")


def _json_in_html(data: object) -> str:
    """JSON safe inside a ``<script type="application/json">``: no ``</script>``, no
    comment opener, nothing a parser of HTML could take for the end of the block."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _hash(text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"


def review_page(
    review: Review,
    verdicts: Verdicts | None = None,
    *,
    links: Mapping[str, str] | None = None,
) -> ReviewDocument:
    """The review as one self-contained HTML document. ``links``: where to go from it
    when served (words -> address, as "Back to the table"), none in a file."""
    view = review_view(review, verdicts)
    style, script = _asset("review.css"), _asset("review.js")
    html = render(
        "review.html",
        title=view["title"],
        view=view,
        data=Markup(_json_in_html(view)),  # escaped for the block by _json_in_html
        style=Markup(style),  # the package's own file
        script=Markup(script),
        links=sorted((links or {}).items()),
    )
    csp = (
        f"default-src 'none'; script-src {_hash(script)}; style-src {_hash(style)}; "
        "img-src data:; object-src 'none'; base-uri 'none'; form-action 'none'; "
        "frame-ancestors 'none'"
    )
    return ReviewDocument(html, csp)


_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def review_file_name(table: str, game: int) -> str:
    """A review's file name, safe on every file system: ``review-maple-game-3.html``."""
    name = _UNSAFE.sub("-", table.strip().lower()).strip("-.")[:60] or "table"
    return f"review-{name}-game-{game}.html"


def review_qr_svg(url: str) -> str:
    """A QR code of ``url`` as an SVG picture, for a phone to open the review (zxing-cpp,
    which already reads the deck's QR markers, writes it: no package more)."""
    import zxingcpp

    code = zxingcpp.create_barcode(url, zxingcpp.BarcodeFormat.QRCode, ec_level="M")
    svg: str = code.to_svg(add_quiet_zones=True)
    # A viewBox, so the picture scales to the size the page gives it, edges kept sharp.
    return re.sub(
        r'<svg width="(\d+)" height="(\d+)"',
        r'<svg viewBox="0 0 \1 \2" width="\1" height="\2" shape-rendering="crispEdges"',
        svg,
        count=1,
    )


__all__ = [
    "Frame",
    "PageVerdict",
    "ReviewDocument",
    "ReviewView",
    "Verdicts",
    "review_file_name",
    "review_page",
    "review_qr_svg",
    "review_view",
]
