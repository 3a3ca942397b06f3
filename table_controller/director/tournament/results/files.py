"""The event's results written into a folder, all or nothing: ``standings.csv``,
``results.csv`` (``tournament.results.as_csv``), ``score-sheets.pdf`` and ``booklet.pdf``
(``tournament.results.as_pdf``), and each game's hand review as a self-contained HTML
file (``review_files``), which the score sheets name.

Every file is made in full (and synced) in a temporary folder inside OUT before any is
put in place; then the old files are set aside and the new ones renamed in. Should any
step fail, the old files are put back and nothing new is left: OUT never holds a mix of
two exports, or a file cut short that looks complete.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from pathlib import Path

from table_controller.director.dashboard import StoredVerdicts, stored_review
from table_controller.director.store import DirectorStore
from table_controller.director.tournament.results.as_csv import results_csv, standings_csv
from table_controller.director.tournament.results.as_pdf import (
    booklet_html,
    pdf,
    review_names,
    score_sheets_html,
)
from table_controller.director.tournament.results.model import ExportError, Results

FILES = ("standings.csv", "results.csv", "score-sheets.pdf", "booklet.pdf")


def check_folder(out: Path, *, make: bool = True) -> None:
    """OUT is a folder that can be written in (made when missing), or ExportError.
    ``make=False``: only checked, so a refused export leaves no new folder behind (a
    missing OUT is then checked by its nearest folder that exists)."""
    if out.exists() and not out.is_dir():
        raise ExportError(
            f"{out} is a file, not a folder: give --out a folder for the four files "
            "(it is made if it does not exist)"
        )
    if not make:
        there = next((p for p in (out, *out.absolute().parents) if p.exists()), None)
        if there is not None and not there.is_dir():
            raise ExportError(
                f"{out} cannot be made: {there} is a file; give --out a folder you can write in"
            )
        if there is not None:
            _probe(there)
        return
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


def _probe(folder: Path) -> None:
    """Can a file be made in ``folder``? Tried for real (and taken back at once): a
    permission, a read-only disk or a full one says so here, before the work."""
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".export-probe-", dir=folder))
    except OSError as exc:
        raise ExportError(
            f"{folder} cannot be written in ({exc.strerror}): give --out a folder you can "
            "write in, or ask its owner to let you"
        ) from None


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
    return {
        "standings.csv": standings_csv(results),
        "results.csv": results_csv(results),
        "score-sheets.pdf": pdf(score_sheets_html(results, paper)),
        "booklet.pdf": pdf(booklet_html(results, paper)),
    }


def review_files(
    store: DirectorStore, results: Results, verdicts: StoredVerdicts | None = None
) -> dict[str, bytes]:
    """Each game's hand review, one self-contained HTML file a game (its style, script
    and pictures inside it: it opens offline, from a USB stick or a club's site), named
    as the score sheets name it, with its verdicts when ``verdicts`` is given (those
    kept, the missing ones worked out now and kept). A game still being played has its
    ended hands only; a game whose events are no game is left out and said in
    ``ExportError``'s words."""
    from table_controller.review import ReviewError, review_page

    files: dict[str, bytes] = {}
    for (table, game), name in review_names(results).items():
        title = next(g.title for g in results.games if (g.table, g.game) == (table, game))
        try:
            review = stored_review(store, table, game, title)
        except ReviewError as exc:
            raise ExportError(f"{title}'s game {game}: {exc}") from None
        if review is not None:
            judged = None if verdicts is None else verdicts.now(table, game)
            files[name] = review_page(review, judged).html.encode("utf-8")
    return files


__all__ = [
    "FILES",
    "ExportError",
    "check_folder",
    "export_files",
    "review_files",
    "write_all",
]
