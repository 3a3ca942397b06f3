"""Reading a configuration file's values while collecting every problem, each naming
its key, what is wrong and what to write: one ``config check`` lists them all."""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

from table_controller.clip import clip, clip_text
from table_controller.errors import TableControllerError
from table_controller.seats import Seat

# A TOML table as read from the file: its values are not checked yet, so each is an
# ``object`` the ``Reader`` checks before it is used.
TomlTable = Mapping[str, object]


class ConfigProblem(NamedTuple):
    """One mistake: the key (``cube.port``, ``players.N``, ``seats.N.led``), what is wrong,
    and what to do."""

    key: str
    problem: str
    fix: str

    def line(self, source: str) -> str:
        # The key may come from the file and the problem may quote a value: a line stays
        # readable whatever the file holds.
        return f"{source}: {clip_text(self.key)}: {clip_text(self.problem, 400)} -- {self.fix}"


class ConfigError(TableControllerError, ValueError):
    """A configuration the table cannot start with; ``problems`` lists every one found."""

    def __init__(self, problems: Sequence[ConfigProblem], source: str) -> None:
        self.problems = list(problems)
        self.source = source
        super().__init__("\n".join(p.line(source) for p in self.problems))


def _nearest(word: str, choices: Sequence[str], what: str) -> str:
    near = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    hint = f"did you mean {near[0]!r}? " if near else ""
    return hint + f"the {what}s are: " + ", ".join(choices)


def _label(key: str) -> str:
    """How a problem names its key: "gpio", "seat N's name"."""
    section, _, name = key.rpartition(".")
    return f"seat {name}'s name" if section == "players" else name


def describe(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'the text "{clip_text(value)}"'
    if isinstance(value, int | float):
        return f"the number {clip_text(str(value))}"
    if isinstance(value, Mapping):
        return "a table"
    if isinstance(value, list):
        return "a list"
    if value is None:
        return "empty"
    return f"a {type(value).__name__}"


class Reader:
    """Reads values out of the TOML, collecting problems instead of stopping at one."""

    def __init__(self, base: Path, tables: Mapping[str, Sequence[str]]) -> None:
        self.base = base
        self.tables = tables  # each table's keys: what may be written where
        self.problems: list[ConfigProblem] = []

    def add(self, key: str, problem: str, fix: str) -> None:
        self.problems.append(ConfigProblem(key, problem, fix))

    def unknown_top(self, key: str) -> None:
        owners = [t for t, keys in self.tables.items() if key in keys]
        if owners:
            self.add(key, f"{key} is outside its table", f"put it under [{owners[0]}]")
        else:
            self.add(key, f"unknown table [{key}]", _nearest(key, list(self.tables), "table"))

    def table(self, data: TomlTable, key: str, *, known: Sequence[str] | None = ()) -> TomlTable:
        """The sub-table ``key`` (empty when absent), its unknown keys reported."""
        name = key.rsplit(".", 1)[-1]
        value = data.get(name, {})
        if not isinstance(value, Mapping):
            if "." in key:  # top-level ones are reported by parse_config
                self.add(key, f"{key} is {describe(value)}", f"write it as a table: [{key}]")
            return {}
        keys = self.tables.get(key, ()) if known == () else known
        if keys is not None:
            for k in value:
                if k not in keys:
                    self.add(
                        f"{key}.{k}", f"unknown key {clip(k)} in [{key}]", _nearest(k, keys, "key")
                    )
        return value

    def _get(self, t: TomlTable, key: str) -> object:
        return t.get(key.rsplit(".", 1)[-1])

    def _wrong(self, key: str, value: object, want: str, example: str) -> None:
        name = key.rsplit(".", 1)[-1]
        self.add(
            key, f"{_label(key)} is {describe(value)}", f"write {want}, e.g. {name} = {example}"
        )

    def text(
        self,
        t: TomlTable,
        key: str,
        default: str | None,
        *,
        limit: int = 200,
        empty: bool = False,
    ) -> str | None:
        value = self._get(t, key)
        if value is None:
            if default is None:
                section = key.rsplit(".", 1)[0]
                self.add(key, "missing", f'add it under [{section}], e.g. name = "Table 1"')
            return default
        if not isinstance(value, str):
            self._wrong(key, value, "text in quotes", f'"{clip_text(str(value))}"')
            return None
        value = value.strip()
        if not value and not empty:
            self.add(
                key,
                f"{_label(key)} is empty",
                "write some text in the quotes, or leave the key out",
            )
            return None
        if len(value) > limit:
            self.add(key, f"{_label(key)} is {len(value)} characters long", f"keep it to {limit}")
            return None
        if any(ord(c) < 32 or c == "\x7f" for c in value):
            self.add(
                key, f"{_label(key)} has a control character", "write it on one line, plain text"
            )
            return None
        return value

    def number(self, t: TomlTable, key: str, default: float, *, low: float, high: float) -> float:
        value = self._get(t, key)
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, int | float):
            self._wrong(key, value, "a number without quotes", str(default))
            return default
        if not low <= value <= high:
            self.add(
                key,
                f"{_label(key)} is {clip_text(str(value))}",
                f"use a number from {low:g} to {high:g}",
            )
            return default
        return float(value)

    def whole(
        self, t: TomlTable, key: str, default: int, *, low: int, high: int | None = None
    ) -> int:
        value = self._get(t, key)
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, int):
            self._wrong(key, value, "a whole number without quotes", str(default))
            return default
        if value < low or (high is not None and value > high):
            upper = f" to {high}" if high is not None else " or more"
            self.add(
                key,
                f"{_label(key)} is {clip_text(str(value))}",
                f"use a whole number from {low}{upper}",
            )
            return default
        return value

    def boolean(self, t: TomlTable, key: str, default: bool) -> bool:
        value = self._get(t, key)
        if value is None:
            return default
        if not isinstance(value, bool):
            self._wrong(key, value, "true or false, without quotes", "true")
            return default
        return value

    def choice(self, t: TomlTable, key: str, default: str, choices: Sequence[str]) -> str:
        value = self.text(t, key, default)
        if value is None:
            return default
        if value.lower() not in choices:
            options = " or ".join(f'"{c}"' for c in choices)
            self.add(key, f"{_label(key)} is {clip(value)}", f"write {options}")
            return default
        return value.lower()

    def seat(self, t: TomlTable, key: str) -> Seat | None:
        value = self.text(t, key, "")
        if not value:
            return None
        try:
            return Seat.parse(value)
        except ValueError:
            self.add(key, f"{_label(key)} is {clip(value)}", 'write a seat: "N", "E", "S" or "W"')
            return None

    def path(self, t: TomlTable, key: str, default: str | None) -> Path | None:
        value = self.text(t, key, default or "")
        if not value:
            return None
        p = Path(value).expanduser()
        return p if p.is_absolute() else self.base / p
