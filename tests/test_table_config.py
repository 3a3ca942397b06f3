"""The table's configuration file: good files read with their defaults, and every kind
of mistake reported with its key and what to do, all at once."""

from __future__ import annotations

import argparse
import io
import tomllib
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from machines import table_pi

from table_controller.cli import main
from table_controller.devices.cube_types import CubeConfig
from table_controller.devices.pins import DEFAULT_PIN_MAP, LedWiring
from table_controller.rules.presets import PRESETS, RenegePenalty
from table_controller.seats import Seat
from table_controller.table.config import (
    CameraConfig,
    ConfigError,
    FeedConfig,
    WebConfig,
    check_files,
    demo_config,
    example_config,
    load_config,
    parse_config,
    to_toml,
)
from table_controller.table.config.cli import cmd_check
from table_controller.table.machine import Machine
from table_controller.vision.layout import Calibration

REPO = Path(__file__).resolve().parent.parent
MINIMAL = '[table]\nname = "Club Night 3"\n'


def write(folder: Path, text: str, name: str = "table.toml") -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def problems(folder: Path, text: str) -> dict[str, tuple[str, str]]:
    """The problems of a file, by key."""
    path = write(folder, text)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert caught.value.source == str(path)
    return {p.key: (p.problem, p.fix) for p in caught.value.problems}


def calibrate(folder: Path) -> Path:
    path = folder / "calibration" / "table.json"
    Calibration((1280, 720), np.diag([0.5, 0.5, 1.0])).save(path)
    return path


def check(path: Path, machine: Machine) -> tuple[int, str]:
    """``config check PATH`` on ``machine`` (tests/machines.py)."""
    out = io.StringIO()
    code = cmd_check(argparse.Namespace(file=str(path)), out, machine)
    return code, out.getvalue()


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = main(list(argv), out=out)
    return code, out.getvalue()


# --- good files --------------------------------------------------------------------


def test_the_example_file_is_the_example_and_every_key_is_set(tmp_path: Path) -> None:
    assert (REPO / "examples" / "table.toml").read_text(encoding="utf-8") == example_config()
    config = load_config(write(tmp_path, example_config()))
    assert config.name == "Table 1"
    assert config.rules == PRESETS["td-tournament"].rules
    assert config.log == tmp_path / "table-1.sqlite"
    assert config.camera.calibration == tmp_path / "calibration" / "table.json"
    assert config.cube == CubeConfig()
    assert config.pins == DEFAULT_PIN_MAP
    assert config.source == tmp_path / "table.toml"
    # every key of every table is written in the example (uncommented)
    data = tomllib.loads(example_config())
    assert set(data) == {
        "table",
        "rules",
        "players",
        "camera",
        "cube",
        "web",
        "feed",
        "kiosk",
        "seats",
    }
    assert set(data["cube"]) == {
        "port",
        "link_timeout",
        "min_rto",
        "max_rto",
        "hello_interval",
        "handshake_timeout",
        "reconnect_interval",
        "baudrate",
    }


def test_a_file_with_only_the_name_takes_every_default(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, MINIMAL))
    assert config.name == "Club Night 3"
    assert config.rules_name == "td-tournament"
    assert config.options == {}
    assert config.players == {Seat.N: "North", Seat.E: "East", Seat.S: "South", Seat.W: "West"}
    assert config.camera == CameraConfig(calibration=tmp_path / "calibration" / "table.json")
    assert config.gpio == "auto"
    assert config.pins == DEFAULT_PIN_MAP
    assert config.cube == CubeConfig(port="auto")
    assert config.log == tmp_path / "club-night-3.sqlite"
    assert config.web == WebConfig("127.0.0.1", 8080)  # this machine only, unless asked
    assert config.feed == FeedConfig()
    assert config.disk_min_free_mb == 200
    assert config.first_dealer is None


def test_paths_are_relative_to_the_file_and_options_are_applied(tmp_path: Path) -> None:
    (tmp_path / "rec").mkdir()
    text = (
        '[table]\nname = "T"\nlog = "logs/t.sqlite"\nfirst_dealer = "w"\ngpio = "MOCK"\n'
        '[rules]\npreset = "bicycle-head-to-head"\n'
        '[rules.options]\npoints-to-win = 11\nrenege_penalty = "reported"\n'
        'hands_per_game = "none"\n'
        '[players]\nN = "  Ann  "\nS = "Bo"\n'
        '[camera]\nsource = "folder:rec,loop=true"\ncalibration = "cal.json"\n'
        '[cube]\nport = "none"\n'
        '[seats]\nled_wiring = "common-anode"\ndirector = 7\n'
        + "".join(
            f"[seats.{s}]\nled = {list(p.led)}\npass = {p.pass_button}\n"
            f"call = {p.call_button}\nalone = {p.alone_button}\n"
            for s, p in zip("NESW", DEFAULT_PIN_MAP.seats, strict=True)
        )
    )
    config = load_config(write(tmp_path, text))
    assert config.log == tmp_path / "logs" / "t.sqlite"
    assert config.first_dealer is Seat.W
    assert config.gpio == "mock"
    assert config.options == {
        "points_to_win": 11,
        "renege_penalty": "reported",
        "hands_per_game": None,
    }
    assert config.rules.points_to_win == 11
    assert config.rules.renege_penalty is RenegePenalty.REPORTED
    assert config.rules.best_of == 3  # the preset's own
    assert config.players[Seat.N] == "Ann" and config.players[Seat.E] == "East"
    assert config.camera.source == f"folder:{tmp_path / 'rec'},loop=true"
    assert config.camera.calibration == tmp_path / "cal.json"
    assert config.cube is None
    assert config.pins.led_wiring is LedWiring.COMMON_ANODE and config.pins.director == 7


def test_the_demo_table_is_valid_and_simulated(tmp_path: Path) -> None:
    config = demo_config(tmp_path, port=0)
    assert config.camera.source == "synthetic" and config.camera.calibration is None
    assert config.gpio == "mock"
    assert config.cube is not None and config.cube.port == "emulator"
    assert config.log == tmp_path / "demo.sqlite"
    assert config.web == WebConfig("127.0.0.1", 0)
    assert check_files(config) == []
    assert demo_config(tmp_path, port=8123).web.port == 8123


def test_a_config_written_as_toml_reads_back_the_same(tmp_path: Path) -> None:
    demo = demo_config(tmp_path)
    assert load_config(write(tmp_path, to_toml(demo))) == demo
    example = load_config(write(tmp_path, example_config(), "ex.toml"))
    again = load_config(write(tmp_path, to_toml(example), "again.toml"))
    assert again.source != example.source
    assert again == load_config(write(tmp_path, to_toml(again), "third.toml"))
    assert (again.name, again.rules, again.log, again.cube) == (
        example.name,
        example.rules,
        example.log,
        example.cube,
    )


names = st.text(
    st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp"), blacklist_characters="\x7f"),
    min_size=1,
    max_size=24,
).filter(lambda s: s.strip() == s and s)


table_names = st.text(
    st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp"), blacklist_characters="\x7f#+/"),
    min_size=1,
    max_size=24,
).filter(lambda s: s.strip() == s and s)


@settings(max_examples=40, deadline=None)
@given(table=table_names, player=names, topic=st.sampled_from(["euchre", "club/euchre"]))
def test_any_valid_names_survive_the_round_trip(
    tmp_path_factory: pytest.TempPathFactory, table: str, player: str, topic: str
) -> None:
    folder = tmp_path_factory.mktemp("rt")
    base = demo_config(folder)
    data = tomllib.loads(to_toml(base))
    data["table"]["name"] = table
    data["players"]["E"] = player
    data["feed"]["topic"] = topic
    config = parse_config(data, folder)
    assert (config.name, config.players[Seat.E], config.feed.topic) == (table, player, topic)
    assert parse_config(tomllib.loads(to_toml(config)), folder) == config


# --- mistakes ----------------------------------------------------------------------


def test_a_toml_syntax_error_names_line_and_column(tmp_path: Path) -> None:
    found = problems(tmp_path, "[table]\nname = Club 3\n")
    (key, (problem, fix)), *_ = found.items()
    assert key == "line 2, column 8"
    assert "name = Club 3" in problem
    assert "quotes" in fix
    found = problems(tmp_path, '[table]\nname = "a"\n[table]\nname = "b"\n')
    (key, (problem, fix)), *_ = found.items()
    assert key == "line 3, column 7"
    assert problem == "not valid TOML: cannot declare [table] twice in `[table]`"
    assert "once" in fix


def test_a_missing_or_unreadable_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path / "nope.toml")
    assert caught.value.problems[0].key == "file"
    assert "config example" in caught.value.problems[0].fix
    (tmp_path / "t.toml").write_bytes(b'[table]\nname = "\xff"\n')
    with pytest.raises(ConfigError, match="UTF-8"):
        load_config(tmp_path / "t.toml")
    with pytest.raises(ConfigError, match="is a folder"):
        load_config(tmp_path)


def test_unknown_keys_and_tables_suggest_the_nearest(tmp_path: Path) -> None:
    found = problems(tmp_path, MINIMAL + 'nmae = "x"\n[camra]\nsource = "usb:0"\n[web]\nprot = 1\n')
    assert found["table.nmae"] == (
        "unknown key 'nmae' in [table]",
        "did you mean 'name'? the keys are: name, log, gpio, disk_min_free_mb, first_dealer",
    )
    assert found["camra"][0] == "unknown table [camra]"
    assert found["camra"][1].startswith("did you mean 'camera'?")
    assert found["web.prot"][1].startswith("did you mean 'port'?")
    # a key written above every table belongs to one
    found = problems(tmp_path, 'name = "x"\n')
    assert found["name"] == ("name is outside its table", "put it under [table]")
    assert found["table.name"][0] == "missing"


def test_wrong_types_say_what_to_write(tmp_path: Path) -> None:
    found = problems(
        tmp_path,
        '[table]\nname = 3\ndisk_min_free_mb = "lots"\ngpio = "pi"\nfirst_dealer = "Q"\n'
        '[camera]\nlost_after = "3s"\ndrift_check = -1\n[web]\nport = 70000\n'
        '[feed]\nenabled = "yes"\ntopic = "euchre/#"\n[players]\nN = ["a"]\n',
    )
    assert found["table.name"] == ("name is the number 3", 'write text in quotes, e.g. name = "3"')
    assert found["table.disk_min_free_mb"] == (
        'disk_min_free_mb is the text "lots"',
        "write a whole number without quotes, e.g. disk_min_free_mb = 200",
    )
    assert found["table.gpio"] == ("gpio is 'pi'", 'write "auto" or "mock"')
    assert "N" in found["table.first_dealer"][1]
    assert found["camera.lost_after"][1].startswith("write a number without quotes")
    assert found["camera.drift_check"] == ("drift_check is -1", "use a number from 0 to 86400")
    assert found["web.port"] == ("port is 70000", "use a whole number from 0 to 65535")
    assert found["feed.enabled"][1].startswith("write true or false")
    assert "wildcard" in found["feed.topic"][0]
    assert found["players.N"][0] == "seat N's name is a list"


def test_a_table_written_as_a_value(tmp_path: Path) -> None:
    found = problems(tmp_path, 'camera = "usb:0"\n' + MINIMAL + "[rules]\noptions = 3\n")
    assert found["camera"] == (
        'camera is the text "usb:0"',
        "write it as a table: [camera] on its own line",
    )
    assert found["rules.options"][1] == "write it as a table: [rules.options]"


def test_a_bad_preset_lists_the_presets(tmp_path: Path) -> None:
    found = problems(tmp_path, MINIMAL + '[rules]\npreset = "td-tournamnet"\n')
    problem, fix = found["rules.preset"]
    assert problem == "unknown rule preset 'td-tournamnet'"
    assert fix.startswith("did you mean 'td-tournament'? presets: ")
    assert all(name in fix for name in PRESETS)


def test_bad_options_name_the_option_and_the_allowed_values(tmp_path: Path) -> None:
    found = problems(
        tmp_path,
        MINIMAL + '[rules.options]\npoints_to_wn = 11\nrenege_penalty = "death"\n'
        'stick_the_dealer = "yes"\nbest_of = 2.5\n',
    )
    assert found["rules.options.points_to_wn"][1].startswith("did you mean 'points_to_win'?")
    assert "rules show td-tournament" in found["rules.options.points_to_wn"][1]
    assert found["rules.options.renege_penalty"] == (
        'renege_penalty cannot be the text "death"',
        "allowed: 'award_and_end', 'deduct', 'reported'",
    )
    assert found["rules.options.stick_the_dealer"][1] == "allowed: true or false"
    assert found["rules.options.best_of"][1] == "allowed: a whole number from 1 to 99"


def test_options_out_of_range_name_the_range(tmp_path: Path) -> None:
    found = problems(tmp_path, MINIMAL + "[rules.options]\npoints_to_win = 0\npoints_made = -100\n")
    assert found["rules.options.points_to_win"][1] == (
        "allowed: a whole number from 1 to 1000, or none"
    )
    assert found["rules.options.points_made"][1] == "allowed: a whole number from 1 to 100"


def test_options_that_cannot_go_together(tmp_path: Path) -> None:
    found = problems(tmp_path, MINIMAL + "[rules.options]\nbest_of = 2\n")
    assert found["rules.options.best_of"] == (
        "with preset 'td-tournament': best_of 2 cannot decide a match",
        "expected an odd number",
    )
    # each option alone would be refused by the Euchre preset; together they are fine
    config = load_config(
        write(tmp_path, MINIMAL + '[rules.options]\nshoot_bids = true\nvariant = "bid_euchre"\n')
    )
    assert config.rules.shoot_bids
    found = problems(tmp_path, MINIMAL + '[rules.options]\npoints_to_win = "none"\n')
    assert "never end" in found["rules.options"][0]


def test_bad_and_clashing_pins_name_the_seat_and_the_button(tmp_path: Path) -> None:
    seats = (
        DEFAULT_PIN_MAP.toml().replace("alone = 4", "alone = 8").replace("alone = 18", "alone = 40")
    )
    found = problems(tmp_path, MINIMAL + '[camera]\nsource = "synthetic"\n' + seats)
    assert set(found) == {"seats.S.alone", "seats.director"}
    problem, fix = found["seats.S.alone"]
    assert problem == "seat S's alone button is 40, which is not a GPIO of the 40-pin header"
    assert "that is GPIO21: write 21" in fix
    problem, fix = found["seats.director"]
    assert problem == "GPIO8 is given to seat N's alone button and the table's director button"
    assert "free pin" in fix
    found = problems(
        tmp_path,
        MINIMAL + '[seats]\ndirector = 8\nled_wiring = "rgb"\n[seats.N]\nled = [17, 27]\n'
        "pass = 2\ncall = 3\nalone = 4\nbell = 5\n",
    )
    assert found["seats.N.led"][0] == "seat N's led is [17, 27]"
    assert found["seats.N.bell"][0] == "seat N has an unknown entry 'bell'"
    assert found["seats.led_wiring"][1].startswith('write "common-cathode"')
    assert {"seats.E", "seats.S", "seats.W"} <= set(found)


def test_bad_cube_settings(tmp_path: Path) -> None:
    found = problems(
        tmp_path,
        MINIMAL + '[cube]\nport = "ttyACM0"\nlink_timeout = 100\nhello_interval = 0\n'
        'baudrate = "fast"\n',
    )
    assert found["cube.port"][0] == "'ttyACM0' is not a port"
    assert "/dev/serial/by-id/" in found["cube.port"][1]
    assert found["cube.link_timeout"] == ("link_timeout=100.0", "use 0.1 to 60 seconds")
    assert found["cube.hello_interval"][0] == "hello_interval is 0"
    assert found["cube.baudrate"][0] == 'baudrate is the text "fast"'
    found = problems(tmp_path, MINIMAL + "[cube]\nmin_rto = 0.5\nmax_rto = 0.1\n")
    assert found == {
        "cube.min_rto": (
            "min_rto is 0.5 and max_rto 0.1",
            "min_rto must be above 0 and at most max_rto (the defaults are 0.025 and 0.25)",
        )
    }
    for port in ("auto", "EMULATOR", "/dev/ttyACM0", "rfc2217://pi:4000", "COM3"):
        config = load_config(write(tmp_path, MINIMAL + f'[cube]\nport = "{port}"\n'))
        assert config.cube is not None and config.cube.port in (port, port.lower())


def test_a_bad_camera_source(tmp_path: Path) -> None:
    found = problems(tmp_path, MINIMAL + '[camera]\nsource = "webcam:0"\n')
    assert found["camera.source"] == (
        "unknown camera 'webcam:0'",
        "choose one of picamera2, usb:0, video:FILE, folder:DIR or synthetic",
    )
    found = problems(tmp_path, MINIMAL + '[camera]\nsource = "usb:0,width=1920,fast"\n')
    assert found["camera.source"] == (
        "camera 'usb:0,width=1920,fast': 'fast' is not a key=value option",
        "write KIND[:TARGET][,KEY=VALUE...] (docs/config.md)",
    )


def test_names_of_players_and_table(tmp_path: Path) -> None:
    found = problems(
        tmp_path,
        '[table]\nname = "   "\n[players]\nN = ""\nE = "Bartholomew Montgomery-Smythe"\n'
        'W = "a\\tb"\nnorth = "x"\n',
    )
    assert found["table.name"][0] == "name is empty"
    assert found["players.N"] == (
        "seat N's name is empty",
        "write some text in the quotes, or leave the key out",
    )
    assert found["players.E"] == ("seat E's name is 29 characters long", "keep it to 24")
    assert found["players.W"][0] == "seat W's name has a control character"
    assert found["players.north"] == (
        "unknown key 'north' in [players]",
        "the keys are: N, E, S, W",
    )


def test_every_problem_is_reported_at_once(tmp_path: Path) -> None:
    text = (
        '[table]\ngpio = "pi"\n[rules]\npreset = "nope"\n[players]\nS = ""\n'
        '[camera]\nsource = "webcam:0"\n[cube]\nlink_timeout = 0\n[feed]\nport = 0\n'
    )
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    keys = [p.key for p in caught.value.problems]
    assert keys == [
        "table.name",
        "table.gpio",
        "rules.preset",
        "players.S",
        "camera.source",
        "cube.link_timeout",
        "feed.port",
    ]
    lines = str(caught.value).splitlines()
    assert len(lines) == len(keys)
    assert all(
        line.startswith(f"{path}: {key}: ") and " -- " in line
        for line, key in zip(lines, keys, strict=True)
    )


# --- the files it names ------------------------------------------------------------


def test_a_missing_or_bad_calibration_file(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, MINIMAL))
    (problem,) = check_files(config)
    assert problem.key == "camera.calibration"
    assert (
        problem.problem == f"there is no calibration file {tmp_path / 'calibration' / 'table.json'}"
    )
    assert "table-controller calibrate" in problem.fix
    (tmp_path / "calibration").mkdir()
    (tmp_path / "calibration" / "table.json").write_text("{}")
    (problem,) = check_files(config)
    assert "cannot be used: not a table calibration" in problem.problem
    calibrate(tmp_path)
    assert check_files(config) == []


def test_a_missing_recording_or_log_folder(tmp_path: Path) -> None:
    text = '[table]\nname = "T"\nlog = "usb/t.sqlite"\n[camera]\nsource = "video:game.mp4"\n'
    config = load_config(write(tmp_path, text))
    calibrate(tmp_path)
    found = {p.key: p.problem for p in check_files(config)}
    assert found == {
        "camera.source": f"there is no file {tmp_path / 'game.mp4'}",
        "table.log": f"the folder {tmp_path / 'usb'} does not exist",
    }


# --- the command -------------------------------------------------------------------


def test_config_check_a_good_file(tmp_path: Path) -> None:
    path = write(tmp_path, MINIMAL + '[players]\nN = "Ann"\n[web]\nhost = "127.0.0.1"\n')
    calibrate(tmp_path)
    code, text = check(path, table_pi())
    assert code == 0
    assert text.splitlines()[0] == f"{path} is good."
    assert "  table:   Club Night 3" in text
    assert f"  log:     {tmp_path / 'club-night-3.sqlite'}" in text
    assert "  rules:   td-tournament (Tournament director rules, games to 10)" in text
    assert "  players: N Ann, E East, S South, W West" in text
    assert "  cube:    auto" in text
    assert "  pins:    the default map" in text
    assert "  page:    127.0.0.1:8080 (this machine only), no operator PIN" in text


def test_config_check_reads_the_operator_pin_hash(tmp_path: Path) -> None:
    from table_controller.web.pin import hash_pin

    good = hash_pin("2580", iterations=1000)
    path = write(tmp_path, MINIMAL + f'[web]\nhost = "0.0.0.0"\noperator_pin_hash = "{good}"\n')
    calibrate(tmp_path)
    code, text = check(path, table_pi())
    assert code == 0 and "  page:    0.0.0.0:8080 (the network), an operator PIN" in text
    path = write(tmp_path, MINIMAL + '[web]\noperator_pin_hash = "2580"\n')
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    (problem,) = caught.value.problems
    assert problem.key == "web.operator_pin_hash" and "kiosk pin" in problem.fix


def test_config_check_a_bad_file_lists_every_problem_and_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, '[table]\nname = "T"\ngpio = "pi"\n[players]\nS = ""\n')
    code, text = run("config", "check", str(path))
    assert code == 2 and text == ""
    err = capsys.readouterr().err.splitlines()
    assert err == [
        f'{path}: table.gpio: gpio is \'pi\' -- write "auto" or "mock"',
        f"{path}: players.S: seat S's name is empty -- write some text in the quotes, or leave "
        "the key out",
        "2 problems; every key is explained in docs/config.md.",
    ]
    # a file that reads well but names a calibration that is not there
    code, _ = run("config", "check", str(write(tmp_path, MINIMAL)))
    assert code == 2
    assert "camera.calibration: there is no calibration file" in capsys.readouterr().err
    code, _ = run("config", "check", str(tmp_path / "nope.toml"))
    assert code == 2
    assert ": file: there is no file " in capsys.readouterr().err


def test_config_example_prints_and_writes_without_overwriting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, text = run("config", "example")
    assert code == 0 and text == example_config()
    out = tmp_path / "table.toml"
    code, text = run("config", "example", "--out", str(out))
    assert code == 0 and out.read_text(encoding="utf-8") == example_config()
    out.write_text("# mine\n")
    code, _ = run("config", "example", "--out", str(out))
    assert code == 2
    assert "exists and is kept" in capsys.readouterr().err
    assert out.read_text() == "# mine\n"


def test_the_docs_explain_every_key() -> None:
    from table_controller.table.config.model import _TABLES

    docs = (REPO / "docs" / "config.md").read_text(encoding="utf-8")
    for table, keys in _TABLES.items():
        assert f"## [{table}]" in docs
        for key in keys:
            if table != "seats":  # the pin map's keys are docs/seats.md's
                named = f"`{key}`" in docs or f"`[{table}.{key}]`" in docs
                assert named, f"{table}.{key} is not in docs/config.md"
