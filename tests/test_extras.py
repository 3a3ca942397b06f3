"""A command that needs a package of an extra this install left out (`make demo` installs
only the core) says which extra, and the command that installs it, instead of a
traceback. A missing package is simulated: ``None`` in ``sys.modules`` makes its import
fail as if it were not installed."""

from __future__ import annotations

import io
import re
import sys
import tomllib
from pathlib import Path

import pytest

from table_controller.cli import main
from table_controller.extras import (
    FOR_COMMAND,
    MODULES,
    MissingExtra,
    missing_message,
    require,
)

ROOT = Path(__file__).resolve().parents[1]


def left_out(monkeypatch: pytest.MonkeyPatch, package: str, *importers: str) -> None:
    """``package`` as if not installed, and ``importers`` (our modules that import it at
    their top) not loaded yet, so the command imports them afresh."""
    monkeypatch.setitem(sys.modules, package, None)
    for loaded in [m for m in sys.modules if m.startswith(package + ".")]:
        # An earlier test's import of a submodule would be found without its package.
        monkeypatch.setitem(sys.modules, loaded, None)
    for name in importers:
        monkeypatch.delitem(sys.modules, name, raising=False)
        parent, _, child = name.rpartition(".")
        if parent in sys.modules:  # `from parent import child` looks here first
            monkeypatch.delattr(sys.modules[parent], child, raising=False)


def run(*argv: str) -> int:
    return main(list(argv), out=io.StringIO())


def test_the_message_names_the_extra_and_the_commands_that_install_it() -> None:
    words = missing_message("reportlab.pdfgen.canvas")
    assert words is not None
    assert "printing PDFs" in words
    assert "`make setup-print`" in words
    assert "pip install 'table-controller[print]'" in words


def test_a_tables_and_the_directors_commands_name_the_extra_they_install() -> None:
    """The feed's packages are in [pi] and [director] too: a person running the table or
    the director is told the one extra that brings all they need."""
    assert "make setup-feed" in (missing_message("paho.mqtt.client") or "")
    assert "make setup-pi" in (missing_message("paho.mqtt.client", "run") or "")
    assert "make setup-director" in (missing_message("cryptography", "director") or "")
    assert "make setup-print" in (missing_message("reportlab", "director") or "")


def test_a_module_of_no_extra_is_not_explained_away() -> None:
    assert missing_message("numpy") is None
    assert missing_message(None) is None


def test_every_module_named_is_in_the_extra_pyproject_puts_it_in() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras: dict[str, list[str]] = project["optional-dependencies"]
    distribution = {
        "paho": "paho-mqtt",
        "cryptography": "cryptography",
        "mpremote": "mpremote",
        "pyzbar": "pyzbar",
        "reportlab": "reportlab",
        "psycopg": "psycopg",
        "argon2": "argon2-cffi",
        "weasyprint": "weasyprint",
    }
    assert set(distribution) == set(MODULES)
    for module, (extra, _) in MODULES.items():
        names = [re.split(r"[\[<>=;\s]", r, maxsplit=1)[0] for r in extras[extra]]
        assert distribution[module] in names, (module, extra)
        assert not any(distribution[module] in r for r in project["dependencies"]), module
    for extra in set(FOR_COMMAND.values()):
        assert extra in extras
    assert "table-controller[pi,print,director]" in extras["test"]


def test_require_raises_the_message(monkeypatch: pytest.MonkeyPatch) -> None:
    require("json")  # installed: nothing happens
    monkeypatch.setitem(sys.modules, "mpremote", None)
    with pytest.raises(MissingExtra, match=r"make setup-pi"):
        require("mpremote")


def test_printing_without_the_print_extra(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    left_out(monkeypatch, "reportlab", "table_controller.vision.printing")
    assert run("deck", "print", "--out", str(tmp_path / "deck.pdf")) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: this needs the optional packages for printing PDFs")
    assert "make setup-print" in err and "Traceback" not in err
    assert not (tmp_path / "deck.pdf").exists()


def test_the_deck_s_pictures_need_no_print_extra(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    left_out(monkeypatch, "reportlab", "table_controller.vision.printing")
    assert run("deck", "render", "--out", str(tmp_path / "cards"), "--dpi", "50") == 0
    assert len(list((tmp_path / "cards").glob("*.png"))) == 24


def test_flashing_the_cube_without_mpremote(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "mpremote", None)
    assert run("cube", "flash", "--port", "loop://") == 2
    assert "make setup-pi" in capsys.readouterr().err


def test_the_director_without_its_extra(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    left_out(
        monkeypatch,
        "argon2",
        "table_controller.director.logins",
        "table_controller.director.store",
        "table_controller.director.store.parts",
        "table_controller.director.store.accounts",
    )
    database = str(tmp_path / "event.sqlite")
    secret = tmp_path / "password"
    secret.write_text("a long enough password\n")
    argv = ["director", "add-login", "ann", "--database", database]
    assert run(*argv, "--password-file", str(secret)) == 2
    err = capsys.readouterr().err
    assert "the directors' logins" in err and "make setup-director" in err


def feed_left_out(monkeypatch: pytest.MonkeyPatch) -> None:
    """cryptography (the [feed] extra) as if not installed, and the feed's modules that
    import it not loaded yet."""
    left_out(
        monkeypatch,
        "cryptography",
        "table_controller.feed.feed_cli",
        "table_controller.feed.signing",
        "table_controller.feed.tls",
    )


def test_the_feed_s_keys_without_the_feed_extra(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    feed_left_out(monkeypatch)
    assert run("feed", "keys", "--out", str(tmp_path / "keys")) == 2
    assert "make setup-director" in capsys.readouterr().err


def test_the_feed_s_help_without_the_feed_extra(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`feed --help` says what the commands do on a core install; only running one that
    signs or makes keys asks for the extra."""
    feed_left_out(monkeypatch)
    for argv in (["feed", "--help"], ["feed", "tls-certs", "--help"]):
        with pytest.raises(SystemExit) as done:
            run(*argv)
        assert done.value.code == 0
    assert "broker-config" in capsys.readouterr().out


def test_another_missing_module_is_not_hidden(monkeypatch: pytest.MonkeyPatch) -> None:
    """A core package missing is a broken install: its error stays as it is."""
    left_out(monkeypatch, "numpy", "table_controller.vision.printing")
    with pytest.raises(ModuleNotFoundError):
        run("deck", "print", "--out", "deck.pdf")


@pytest.mark.parametrize(
    "argv",
    [("calibrate", "mat", "--out", "mat.pdf"), ("deck", "stickers", "--out", "stickers.pdf")],
    ids=["calibrate mat", "deck stickers"],
)
def test_every_printed_pdf_without_the_print_extra_names_make_setup_print(
    argv: tuple[str, ...],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """README, docs/deck.md and docs/calibration.md say `make setup-print` before these;
    one who skipped it is told the same."""
    left_out(monkeypatch, "reportlab", "table_controller.vision.printing")
    monkeypatch.chdir(tmp_path)
    assert run(*argv) == 2
    err = capsys.readouterr().err
    assert "make setup-print" in err and "Traceback" not in err
    assert not (tmp_path / argv[-1]).exists()
