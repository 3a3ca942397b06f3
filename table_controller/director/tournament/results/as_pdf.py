"""The event's results as PDF: ``score-sheets.pdf`` (one page per game, signed at the
table) and ``booklet.pdf`` (a cover, the standings, each round's results, then every
score sheet), on A4 or US Letter.

HTML from Jinja2 templates (``templates/``: autoescaped, so every name a table sent is
text) printed by WeasyPrint, which fetches nothing: the evidence pictures are inline
``data:`` URIs and any other address is refused, so a name cannot make the export read a
file or the network. Everything a person reads is in words (``present/words.py``): seats, suits,
card faces, the rules' title, never a code.
"""

from __future__ import annotations

from dataclasses import dataclass

from table_controller.director.tournament.results.model import (
    ExportError,
    GameResult,
    RecordedResult,
    Results,
    rules_text,
    when_text,
)
from table_controller.event_log import GameRecord
from table_controller.extras import missing_message
from table_controller.present import SEAT_NAMES, Note, card_face, suit_text
from table_controller.review import review_file_name
from table_controller.seats import Seat, Team
from table_controller.templating import render

PAPERS = {"a4": "A4", "letter": "letter"}  # --paper -> CSS @page size


def rules_words(record: GameRecord) -> str:
    """The rules as a person reads them: the preset's title and its options in words
    ("Tournament director rules, progressive event; hands a game: 2 hands")."""
    return rules_text(record.rules_name, record.options)


# --- the score sheets ------------------------------------------------------------------------


@dataclass
class SheetView:
    """A game's score sheet in words, as the template draws it."""

    heading: str
    subheading: str
    seats: list[tuple[str, str, str]]  # seat, player, the player's points (progressive)
    first_dealer: str
    notes: list[Note]
    heads: list[str]
    classes: list[str]  # each column's CSS class: "num" (right-aligned), "keep" (no wrap)
    rows: list[tuple[list[str], list[Note]]]
    endings: list[str]
    final: str
    problems: list[str]
    after: list[str]  # below the final line: rulings, the director's correction, a check
    signatures: list[str]
    review: str = ""  # the file of its hand review, written beside the papers


def review_names(results: Results) -> dict[tuple[str, int], str]:
    """Each game's hand review's file name (``director export`` writes them beside the
    papers): by the table's name, by its id where two tables share a name."""
    titles: dict[str, set[str]] = {}
    for g in results.games:
        titles.setdefault(review_file_name(g.title, 0), set()).add(g.table)
    return {
        (g.table, g.game): review_file_name(
            g.title if len(titles[review_file_name(g.title, 0)]) == 1 else g.table, g.game
        )
        for g in results.games
    }


def sheet_view(g: GameResult, review: str = "") -> SheetView:
    sheet = g.sheet
    where = f"Round {g.round}, " if g.round is not None else ""
    heading = f"{where}{g.title}"
    started = when_text(g.started, words=True)
    subheading = (
        f"Game {g.game}"
        + (f", started {started}" if started else "")
        + f". Rules: {rules_words(sheet.record)}."
    )
    several = any(h.game != 1 for h in sheet.hands)
    heads = ["Game"] if several else []
    heads += ["Hand", "Dealer", "Upcard", "Trump", "Maker", "Alone", "Tricks\nNS–EW", "Result"]
    heads += ["Points\nNS–EW", "Score\nNS–EW"]
    classes = ["num"] if several else []
    classes += ["num", "", "keep", "keep", "", "", "num keep", "", "num keep", "num keep"]
    rows: list[tuple[list[str], list[Note]]] = []
    for h in sheet.hands:
        cells = [str(h.game)] if several else []
        cells += [
            str(h.number),
            _name(g, h.dealer),
            card_face(h.upcard) if h.upcard is not None else "",
            suit_text(h.trump) if h.trump_set else "",
            _name(g, h.maker) if h.maker is not None else "",
            "alone" if h.alone else "",
            "" if h.tricks is None else f"{h.tricks[0]}–{h.tricks[1]}",
            h.result,
            "" if h.points is None else f"{h.points[0]:+d} / {h.points[1]:+d}",
            "" if h.scores is None else f"{h.scores[0]}–{h.scores[1]}",
        ]
        rows.append((cells, h.notes))
    return SheetView(
        heading=heading,
        subheading=subheading,
        seats=[(SEAT_NAMES[s], g.player(s) or "not recorded", _points(g, s)) for s in Seat],
        first_dealer=sheet.first_dealer,
        notes=sheet.notes,
        heads=heads,
        classes=classes,
        rows=rows,
        endings=sheet.endings,
        final=_final(g),
        problems=sheet.problems,
        after=_after(g),
        signatures=[g.team(Team.NS), g.team(Team.EW), "Tournament director"],
        review=(
            f"Replay it hand by hand: open {review}, which `director export` writes beside "
            "these papers (it opens in any browser, offline)."
            if review
            else ""
        ),
    )


def _points(g: GameResult, seat: Seat) -> str:
    points = (g.counted_individual or {}).get(seat)
    return "" if points is None else f"{points} point{'s' * (points != 1)}"


def _name(g: GameResult, seat: Seat) -> str:
    return g.players.get(seat) or SEAT_NAMES[seat]


def _final(g: GameResult) -> str:
    """The final line, the teams named by their players."""
    if g.sheet.game is None and not g.finished:
        return "The game could not be replayed."
    ns, ew = g.scores
    score = f"{g.team(Team.NS)} {ns}, {g.team(Team.EW)} {ew}"
    if not g.finished:
        return f"Game in progress: {score}."
    winner = g.winner
    return f"Final score: {score}." + ("" if winner is None else f" Winner: {g.team(winner)}.")


def _after(g: GameResult) -> list[str]:
    """What follows the final line: the director's correction, its rulings, and a replay
    that disagrees with the table (said, never hidden)."""
    lines = [f"Ruling: {r}." for r in g.rulings]
    if g.correction is not None:
        c = g.correction
        lines.append(
            f"Corrected by {c.who} on {when_text(c.at, words=True)}: the table recorded "
            f"{c.before}; the result that counts is {c.after}."
            + (f" Reason: {c.why}." if c.why else "")
        )
    if g.problem:
        lines.append(f"Check this game: {g.problem}.")
    return lines


# --- the booklet and the printing -------------------------------------------------------------


def round_rows(games: list[GameResult], recorded: list[RecordedResult]) -> list[list[str | int]]:
    """A round's results table in the booklet: its games, then what was entered by hand."""
    rows: list[list[str | int]] = []
    for g in games:
        ns, ew = g.counted_scores
        winner = g.winner
        rows.append(
            [
                g.title,
                f"{g.game}, corrected" if g.correction else g.game,
                _pair(g, Team.NS, points=True),
                _pair(g, Team.EW, points=True),
                ns,
                ew,
                "" if winner is None else _pair(g, winner),
                g.hands,
                g.reneges,
            ]
        )
    for r in recorded:
        a, b = r.scores if r.scores is not None else ("", "")
        if r.individual:  # progressive: each player's points, in the names
            points = r.individual
            ns_words = (
                f"{r.players[Seat.N]} {points[Seat.N]} & {r.players[Seat.S]} {points[Seat.S]}"
            )
            ew_words = (
                f"{r.players[Seat.E]} {points[Seat.E]} & {r.players[Seat.W]} {points[Seat.W]}"
            )
        else:
            ns_words, ew_words = r.ns, r.ew
        how = "by hand" if r.how.startswith("recorded") else "corrected"
        rows.append([r.title, how, ns_words, ew_words, a, b, r.winner, "", ""])
    return rows


def _pair(g: GameResult, team: Team, *, points: bool = False) -> str:
    """A side by its players ("Ann & Hal"); with ``points``, a progressive game's own
    points after each name ("Ann 1 & Hal 1")."""
    own = (g.counted_individual or {}) if points else {}
    names = [
        g.players[s] + (f" {own[s]}" if s in own else "") for s in team.seats if g.players.get(s)
    ]
    return " & ".join(names) or ("North-South" if team is Team.NS else "East-West")


ROUND_HEADS = [
    "Table",
    "Game",
    "North-South",
    "East-West",
    "N–S",
    "E–W",
    "Winner",
    "Hands",
    "Reneges",
]


def score_sheets_html(results: Results, paper: str) -> str:
    return render(
        "score_sheets.html",
        title=f"{results.event}: score sheets",
        event=results.event,
        mark="Final results" if results.final is not None else "Provisional results",
        paper=PAPERS[paper],
        sheets=_sheets(results),
    )


def booklet_html(results: Results, paper: str) -> str:
    tables = len({g.table for g in results.games})
    games = len(results.games)
    counts = f"{tables} table{'s' * (tables != 1)}, {games} game{'s' * (games != 1)}"
    if results.recorded:
        n = len(results.recorded)
        counts += f", {n} result{'s' * (n != 1)} entered by hand"
    if results.rounds:
        counts = f"{results.rounds} round{'s' * (results.rounds != 1)}, " + counts
    if results.final is not None:
        status = (
            f"Final results, confirmed by {results.final.who} on "
            f"{when_text(results.final.at, words=True)}"
        )
    elif results.over:
        status = (
            "Provisional results: every round is in; the director has not yet confirmed them final"
        )
    else:
        status = "Provisional results: the event is still being played"
    heads = results.standings.heads
    numeric = tuple(i for i, h in enumerate(heads) if h not in ("Player", "Team", "How", "Final"))
    return render(
        "booklet.html",
        title=f"{results.event}: results",
        event=results.event,
        paper=PAPERS[paper],
        dates=results.dates,
        format=results.format,
        counts=counts,
        status=status,
        mark="Final results" if results.final is not None else "Provisional results",
        rules=results.rules,
        final=results.final is not None,
        standings=results.standings,
        standings_numeric=numeric,
        rounds=[
            (heading, round_rows(games, results.recorded_in(heading)))
            for heading, games in results.by_round()
        ],
        round_heads=ROUND_HEADS,
        round_numeric=(1, 4, 5, 7, 8),
        sheets=_sheets(results),
    )


def _sheets(results: Results) -> list[SheetView]:
    names = review_names(results)
    return [
        sheet_view(g, names.get((g.table, g.game), ""))
        for _, games in results.by_round()
        for g in games
    ]


def pdf(html: str) -> bytes:
    """The page printed by WeasyPrint, fetching nothing but inline ``data:`` pictures."""
    try:
        import weasyprint
    except ModuleNotFoundError as exc:
        raise ExportError(
            missing_message(exc.name, "director") or f"the package {exc.name} is missing"
        ) from None
    except OSError as exc:  # the system's Pango is missing
        raise ExportError(
            f"the PDFs need the system's Pango library ({exc}): install it with "
            "`sudo apt-get install libpango-1.0-0 libpangoft2-1.0-0 fonts-dejavu-core` "
            "(or `make setup-director`), then run the command again"
        ) from None
    fetcher = weasyprint.URLFetcher(allowed_protocols={"data"}, allow_redirects=False)
    data = weasyprint.HTML(string=html, url_fetcher=fetcher).write_pdf()
    assert isinstance(data, bytes)
    return bytes(data)


__all__ = [
    "PAPERS",
    "ROUND_HEADS",
    "SheetView",
    "booklet_html",
    "pdf",
    "review_names",
    "round_rows",
    "rules_words",
    "score_sheets_html",
    "sheet_view",
]
