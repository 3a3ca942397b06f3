"""The package keeps the shape it was given (issue 32), read from the source:

- no folder holds more than 25 modules side by side: past that, a newcomer cannot see
  the house, and the prefixes that stood in for folders (``store_``, ``fleet_``) come
  back;
- the director and the table say what crosses their modules: ``Any`` is named at most
  60 times in director/ and 40 in table/, where it was 308 and 126 (6 and 0 when this
  was written). A message, a row or
  a reply is a TypedDict or a dataclass; a JSON value read off the wire is a JSON value
  type that the code narrows.

The counts are the name ``Any`` as the code uses it (imports and annotations), read with
the tokenizer, so a word in a comment or a string is not counted, and an alias of it is
(``Anything = Any`` names it once more).
"""

from __future__ import annotations

import io
import tokenize
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "table_controller"
MOST_MODULES = 25
MOST_ANY = {"director": 60, "table": 40}


def _modules(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.glob("*.py") if p.name != "__init__.py")


def _folders() -> list[Path]:
    inner = (p.parent for p in PACKAGE.rglob("__init__.py") if "__pycache__" not in p.parts)
    return [PACKAGE, *sorted(inner)]


def _any_names(path: Path) -> int:
    tokens = tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline)
    return sum(1 for t in tokens if t.type == tokenize.NAME and t.string == "Any")


def test_no_folder_holds_more_than_25_modules_side_by_side() -> None:
    crowded = {
        str(folder.relative_to(PACKAGE.parent)): len(_modules(folder))
        for folder in _folders()
        if len(_modules(folder)) > MOST_MODULES
    }
    assert not crowded, (
        f"these folders hold more than {MOST_MODULES} modules side by side: {crowded}. "
        "Give the feature that grew a folder of its own, with a small face "
        "(docs/architecture.md, 'Where to add a feature')."
    )


@pytest.mark.parametrize("folder", sorted(MOST_ANY))
def test_any_is_rare_where_modules_meet(folder: str) -> None:
    counts = {
        str(path.relative_to(PACKAGE)): n
        for path in sorted((PACKAGE / folder).rglob("*.py"))
        if (n := _any_names(path))
    }
    total = sum(counts.values())
    most = sorted(counts.items(), key=lambda kv: -kv[1])[:5]
    assert total <= MOST_ANY[folder], (
        f"{folder}/ names Any {total} times (at most {MOST_ANY[folder]}); the most in "
        f"{most}. Say what crosses: a TypedDict or a dataclass for a message or a row, "
        "a JSON value type for what is read off the wire."
    )


def test_the_counter_counts_the_name_not_the_word(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text(
        'from typing import Any\n"""Any word."""\nx: Any = 1  # Any\nAnything = Any\n',
        encoding="utf-8",
    )
    assert _any_names(source) == 3


def test_the_folders_are_found() -> None:
    names = {str(f.relative_to(PACKAGE.parent)) for f in _folders()}
    assert {"table_controller", "table_controller/director/store", "table_controller/table"} <= (
        names
    )
