"""The event's results as CSV: ``results.csv`` (one row per game, and per result the
director entered by hand) and ``standings.csv``.

UTF-8 with a byte-order mark, comma-separated, CRLF, a text cell quoted when it must be
(RFC 4180): Excel opens a CSV by double-click in the computer's own code page unless a
BOM says UTF-8 (then "Zoë" and "♥" survive), and LibreOffice Calc reads the BOM and
preselects UTF-8. A text cell that starts with ``=``, ``+``, ``-``, ``@``, a tab, a
carriage return or a NUL is written with a leading ``'`` (OWASP's advice on CSV
injection, and ASVS 1.2.10): a player called ``=HYPERLINK(...)`` stays a name in a
spreadsheet. OWASP's list is a floor: spreadsheets also skip leading blanks (a space, a
no-break space, a line feed) before a formula, and some read the full-width signs
(``＝ ＋ － ＠``, typed by an East Asian keyboard) as the ASCII ones, so a sign after any
leading whitespace or invisible character, and any sign NFKC folds to one of those four
(or the minus sign ``−``), gets the quote too. Numbers the program writes are ints,
never text, so a score of -5 stays the number -5.
"""

from __future__ import annotations

import csv
import io
import unicodedata
from collections.abc import Sequence

from table_controller.director.tournament.results.model import Results, when_text
from table_controller.seats import Seat

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
    "Correction",  # the table's own result, who corrected it, when and why
    "Rulings",
]
_ALWAYS = ("\t", "\r", "\0")  # OWASP's (and ASVS's) first characters, whatever follows
_SIGNS = frozenset("=+-@\u2212")  # after NFKC: ＝ ＋ － ＠ and the small forms fold to these
_SKIPPED = frozenset({"Cc", "Cf", "Zs", "Zl", "Zp"})  # blanks, controls, invisible marks


def is_formula(text: str) -> bool:
    """Whether a spreadsheet might read ``text`` as a formula: a sign first, or after
    leading whitespace and invisible characters (which spreadsheets skip), counting the
    full-width signs as signs; or a tab, CR or NUL first (OWASP's list)."""
    if text.startswith(_ALWAYS):
        return True
    for char in text:
        if char.isspace() or unicodedata.category(char) in _SKIPPED:
            continue
        return unicodedata.normalize("NFKC", char)[:1] in _SIGNS
    return False


def safe_cell(value: str | int) -> str | int:
    """A cell as written: a number as it is; text that a spreadsheet might take for a
    formula (``is_formula``), with a leading ``'``."""
    if isinstance(value, str) and is_formula(value):
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
            ns, ew = g.counted_scores
            winner = g.winner
            individual = g.counted_individual or {}
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
                    when_text(g.started),
                    "" if g.correction is None else g.correction.words,
                    "; ".join(g.rulings),
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
                    r.how,
                    "",
                    "",
                    "",
                ]
            )
    return rows


def results_csv(results: Results) -> bytes:
    return csv_text(RESULTS_HEADS, results_rows(results)).encode(CSV_ENCODING)


def standings_csv(results: Results) -> bytes:
    """The standings as the booklet prints them. A shared place ("=3" on the papers) is
    written as its number with "tied" beside it: a spreadsheet reads "=3" as a formula."""
    heads, rows = results.standings.heads, results.standings.rows
    if heads[:1] != ["Place"]:
        return csv_text(heads, rows).encode(CSV_ENCODING)
    out: list[list[str | int]] = []
    for row in rows:
        place = str(row[0])
        number: str | int = int(place.lstrip("=")) if place.lstrip("=").isdigit() else place
        out.append([number, "tied" if place.startswith("=") else "", *row[1:]])
    return csv_text(["Place", "Tied", *heads[1:]], out).encode(CSV_ENCODING)


__all__ = [
    "CSV_ENCODING",
    "RESULTS_HEADS",
    "csv_text",
    "is_formula",
    "results_csv",
    "results_rows",
    "safe_cell",
    "standings_csv",
]
