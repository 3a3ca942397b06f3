"""The event's results written for people: ``standings.csv``, ``results.csv``,
``score-sheets.pdf`` (one page per game, signed at the table) and ``booklet.pdf`` (a
cover, the standings, each round's results, then every score sheet).

The CSV files are UTF-8 with a byte-order mark, comma-separated, CRLF, every text cell
quoted when it must be (RFC 4180): Excel opens a CSV by double-click in the computer's
own code page unless a BOM says UTF-8 (then "Zoë" and "♥" survive), and LibreOffice
Calc reads the BOM and preselects UTF-8. A cell a person typed that starts with ``=``,
``+``, ``-``, ``@``, a tab or a carriage return is written with a leading ``'`` (OWASP's
advice on CSV injection): a player called ``=HYPERLINK(...)`` stays a name in Excel.

The PDFs are HTML from Jinja2 templates (``templates/``, autoescaped) printed by
WeasyPrint, which fetches nothing: the evidence pictures are inline ``data:`` URIs and
any other address is refused, so a name a table sent cannot make the export read a
file or the network.

Nothing is left half-written: every file is made in a temporary folder inside OUT,
and only when all four are complete are they renamed into place.
"""

from __future__ import annotations

import contextlib
import csv
import io
import os
import shutil
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from table_controller.director.results import GameResult, RecordedResult, Results
from table_controller.errors import TableControllerError
from table_controller.event_log import GameRecord
from table_controller.extras import missing_message
from table_controller.rules.presets import PRESETS
from table_controller.seats import Seat, Team
from table_controller.table.export import Note
from table_controller.templating import render
from table_controller.words import SEAT_NAMES, card_face, suit_text

PAPERS = {"a4": "A4", "letter": "letter"}  # --paper -> CSS @page size
FILES = ("standings.csv", "results.csv", "score-sheets.pdf", "booklet.pdf")
CSV_ENCODING = "utf-8-sig"  # UTF-8 with a BOM: see the module's docstring
RESULTS_HEADS = [
    "Event",
    "Round",
    "Table",
    "Game",
    "North",
    "East",
    "South",
    "West",
    "North-South score",
    "East-West score",
    "North points",  # a progressive game's own scores, each player's
    "East points",
    "South points",
    "West points",
    "Winner",
    "Hands",
    "Reneges",
    "Status",
    "Started",
]
_FORMULA = ("=", "+", "-", "@", "\t", "\r")


class ExportError(TableControllerError, RuntimeError):
    """The results cannot be written: why, and what to do."""


# --- CSV ----------------------------------------------------------------------------------


def safe_cell(value: str | int) -> str | int:
    """A cell as written: a number as it is; text that a spreadsheet would take for a
    formula, with a leading ``'``."""
    if isinstance(value, str) and value.startswith(_FORMULA):
        return "'" + value
    return value


def csv_text(heads: Sequence[str], rows: Sequence[Sequence[str | int]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, dialect="excel", quoting=csv.QUOTE_MINIMAL)
    writer.writerow(heads)
    for row in rows:
        writer.writerow([safe_cell(c) for c in row])
    return out.getvalue()


def results_rows(results: Results) -> list[list[str | int]]:
    """One row per game, and per result the director entered by hand: results.csv."""
    rows: list[list[str | int]] = []
    for heading, games in results.by_round():
        for g in games:
            ns, ew = g.scores
            winner = g.winner
            individual = g.individual or {}
            rows.append(
                [
                    results.event,
                    "" if g.round is None else g.round,
                    g.title,
                    g.game,
                    *(g.player(s) for s in Seat),
                    ns,
                    ew,
                    *(individual.get(s, "") for s in Seat),
                    "" if winner is None else g.team(winner),
                    g.hands,
                    g.reneges,
                    g.status,
                    _when(g.started),
                ]
            )
        for r in results.recorded_in(heading):
            points = r.individual or {}
            rows.append(
                [
                    results.event,
                    r.round,
                    r.title,
                    "",
                    *(r.players.get(s, "") for s in Seat),
                    *(r.scores or ("", "")),
                    *(points.get(s, "") for s in Seat),
                    r.winner,
                    "",
                    "",
                    "recorded by the director",
                    "",
                ]
            )
    return rows


def _when(at: float, *, words: bool = False) -> str:
    """A time as a spreadsheet sorts it (2026-09-21 14:13), or as a sheet says it."""
    if at <= 0:
        return ""
    t = time.localtime(at)
    if words:
        return f"{t.tm_mday} {time.strftime('%B %Y, %H:%M', t)}"
    return time.strftime("%Y-%m-%d %H:%M", t)


def rules_words(record: GameRecord) -> str:
    """The rules as a person reads them: the preset's title and its options in words
    ("Tournament director rules, progressive event; hands per game: 2")."""
    preset = PRESETS.get(record.rules_name)
    text = preset.title if preset is not None else record.rules_name
    options = [
        f"{k.replace('_', ' ')}: {'yes' if v is True else 'no' if v is False else v}"
        for k, v in sorted(record.options.items())
    ]
    return text + ("; " + ", ".join(options) if options else "")


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
    signatures: list[str]


def sheet_view(g: GameResult) -> SheetView:
    sheet = g.sheet
    where = f"Round {g.round}, " if g.round is not None else ""
    heading = f"{where}{g.title}"
    started = _when(g.started, words=True)
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
        signatures=[g.team(Team.NS), g.team(Team.EW), "Tournament director"],
    )


def _points(g: GameResult, seat: Seat) -> str:
    points = (g.individual or {}).get(seat)
    return "" if points is None else f"{points} point{'s' * (points != 1)}"


def _name(g: GameResult, seat: Seat) -> str:
    return g.players.get(seat) or SEAT_NAMES[seat]


def _final(g: GameResult) -> str:
    """The final line, the teams named by their players."""
    state = g.sheet.game
    if state is None:
        return "The game could not be replayed."
    ns, ew = g.scores
    score = f"{g.team(Team.NS)} {ns}, {g.team(Team.EW)} {ew}"
    if not g.finished:
        return f"Game in progress: {score}."
    winner = g.winner
    return f"Final score: {score}." + ("" if winner is None else f" Winner: {g.team(winner)}.")


# --- the PDFs ----------------------------------------------------------------------------------


def round_rows(games: list[GameResult], recorded: list[RecordedResult]) -> list[list[str | int]]:
    """A round's results table in the booklet: its games, then what was entered by hand."""
    rows: list[list[str | int]] = []
    for g in games:
        ns, ew = g.scores
        winner = g.winner
        rows.append(
            [
                g.title,
                g.game,
                _pair(g, Team.NS),
                _pair(g, Team.EW),
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
        rows.append([r.title, "by hand", ns_words, ew_words, a, b, r.winner, "", ""])
    return rows


def _pair(g: GameResult, team: Team) -> str:
    names = [g.players[s] for s in team.seats if g.players.get(s)]
    return " & ".join(names) or ("North-South" if team is Team.NS else "East-West")


ROUND_HEADS = [
    "Table",
    "Game",
    "North-South",
    "East-West",
    "NS",
    "EW",
    "Winner",
    "Hands",
    "Reneges",
]


def score_sheets_html(results: Results, paper: str) -> str:
    return render(
        "score_sheets.html",
        title=f"{results.event}: score sheets",
        event=results.event,
        paper=PAPERS[paper],
        sheets=[sheet_view(g) for _, games in results.by_round() for g in games],
    )


def booklet_html(results: Results, paper: str) -> str:
    tables = len({g.table for g in results.games})
    games = len(results.games)
    counts = f"{tables} table{'s' * (tables != 1)}, {games} game{'s' * (games != 1)}"
    if results.rounds:
        counts = f"{results.rounds} rounds, " + counts
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
        standings=results.standings,
        standings_numeric=numeric,
        rounds=[
            (heading, round_rows(games, results.recorded_in(heading)))
            for heading, games in results.by_round()
        ],
        round_heads=ROUND_HEADS,
        round_numeric=(1, 4, 5, 7, 8),
        sheets=[sheet_view(g) for _, games in results.by_round() for g in games],
    )


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


# --- writing, all or nothing -------------------------------------------------------------------


def check_folder(out: Path) -> None:
    """OUT is a folder that can be written in (made when missing), or ExportError."""
    if out.exists() and not out.is_dir():
        raise ExportError(
            f"{out} is a file, not a folder: give --out a folder for the four files "
            "(it is made if it does not exist)"
        )
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ExportError(
            f"the folder {out} cannot be made ({exc.strerror}): give --out a folder you "
            "can write in"
        ) from None
    if not os.access(out, os.W_OK | os.X_OK):
        raise ExportError(
            f"{out} cannot be written in (permission denied): give --out a folder you can "
            "write in, or ask its owner to let you"
        )


def write_all(out: Path, files: dict[str, bytes]) -> list[Path]:
    """Write ``files`` into ``out``, all or nothing: each is made in full (and synced) in
    a temporary folder there; then the old files are set aside and the new ones renamed
    into place. Should anything fail, the old files are put back and nothing new is
    left, so OUT never holds a mix of two exports or a file cut short."""
    check_folder(out)
    for name in files:
        if (out / name).is_dir():
            raise ExportError(
                f"{out / name} is a folder: move it away, or give --out another folder"
            )
    try:
        temp = Path(tempfile.mkdtemp(prefix=".export-", dir=out))
    except OSError as exc:
        raise ExportError(
            f"{out} cannot be written in ({exc.strerror}): give --out a folder you can write in"
        ) from None
    set_aside: list[str] = []
    placed: list[str] = []
    try:
        for name, data in files.items():
            with open(temp / name, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
        for name in files:
            if (out / name).exists():
                os.replace(out / name, temp / f"old-{name}")
                set_aside.append(name)
            os.replace(temp / name, out / name)
            placed.append(name)
        return [out / name for name in files]
    except OSError as exc:
        for name in placed:
            with contextlib.suppress(OSError):
                (out / name).unlink()
        for name in set_aside:
            with contextlib.suppress(OSError):
                os.replace(temp / f"old-{name}", out / name)
        raise ExportError(
            f"the results could not be written in {out} ({exc.strerror or exc}): check the "
            "disk (free space, permissions), then run the command again; the files there "
            "before are as they were"
        ) from None
    finally:
        with contextlib.suppress(OSError):
            shutil.rmtree(temp)


def export_files(results: Results, paper: str = "a4") -> dict[str, bytes]:
    """The four files' contents (all made before any is written)."""
    standings = results.standings
    return {
        "standings.csv": csv_text(standings.heads, standings.rows).encode(CSV_ENCODING),
        "results.csv": csv_text(RESULTS_HEADS, results_rows(results)).encode(CSV_ENCODING),
        "score-sheets.pdf": pdf(score_sheets_html(results, paper)),
        "booklet.pdf": pdf(booklet_html(results, paper)),
    }


__all__ = [
    "CSV_ENCODING",
    "FILES",
    "PAPERS",
    "RESULTS_HEADS",
    "ExportError",
    "booklet_html",
    "check_folder",
    "csv_text",
    "export_files",
    "pdf",
    "results_rows",
    "safe_cell",
    "score_sheets_html",
    "sheet_view",
    "write_all",
]
