"""The director's limits as a director sets them (feed/limits.py): one dataclass,
each limit checked against its range and refused in words; read from the settings
file's ``[limits]`` (``director --config``) and from ``--limit NAME=VALUE`` (``director
start``, kept in its folder); what the director then enforces, through its real service
on a real mosquitto; the broker's max_packet_size following them; and the fleet view
saying them in words."""

from __future__ import annotations

import argparse
import json
import math
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from mosquitto import free_port
from security.feed_event import TOPICS, broker_files, connect, password, start_broker
from test_director_start import Director, trusting
from test_director_web import get_json, log_in
from waiting import wait_until

from table_controller.cli import main
from table_controller.director.cli import load_settings
from table_controller.director.service import BrokerConfig, DirectorService
from table_controller.director.start import FleetFolder, FleetStartError, open_folder
from table_controller.director.store import DirectorStore
from table_controller.feed.broker import MAX_PACKET
from table_controller.feed.guard import FeedLimits
from table_controller.feed.limits import (
    MB,
    MQTT_LARGEST,
    Limits,
    LimitsError,
    bounds,
    limits_words,
    number_words,
    parse_limit_args,
)

ROOT = Path(__file__).resolve().parents[1]
WAIT = 120.0  # only against a hang: every wait is for a condition
NAMES = list(bounds())
# The limits a check across them may refuse, and the ones it is about.
CROSS = {"mb_at_once", "history_mb", "pictures_mb", "status_kb", "picture_kb", "camera_kb"}


# --- the dataclass: defaults, ranges, words -----------------------------------------------


def test_the_defaults_are_the_limits_the_director_always_had() -> None:
    limits = Limits()
    assert (
        limits.feed
        == FeedLimits()
        == FeedLimits(
            rate=100,
            burst=3000,
            byte_rate=2 * MB,
            byte_burst=40 * MB,
            status_bytes=64 * 1024,
            picture_bytes=1024 * 1024,
        )
    )
    assert (limits.history_statuses, limits.history_bytes) == (2000, 4 * MB)
    assert (limits.pictures_kept, limits.pictures_bytes) == (20_000, 800 * MB)
    assert limits.camera_bytes == 2 * MB
    assert limits.max_packet == MAX_PACKET  # the broker's, as it always was
    assert limits.changed() == {}
    assert limits_words(limits) == (
        "Each table may send up to 100 messages a second (3,000 at once) and 2 MB a second "
        "(40 MB at once); a status up to 64 KB, an event's picture up to 1 MB, a camera view "
        "up to 2 MB. The director keeps each table's last 2,000 statuses (4 MB at most) and "
        "up to 20,000 of its pictures (800 MB). The broker takes no message over 4 MB."
    )


def in_range(name: str) -> st.SearchStrategy[Any]:
    b = bounds()[name]
    if b.whole:
        return st.integers(int(b.low), int(b.high))
    return st.floats(b.low, b.high, allow_nan=False, allow_infinity=False)


@st.composite
def one_limit(draw: st.DrawFn) -> tuple[str, Any]:
    name = draw(st.sampled_from(NAMES))
    return name, draw(in_range(name))


@given(one_limit())
def test_a_limit_in_its_range_is_taken_or_the_one_it_clashes_with_is_said(
    limit: tuple[str, Any],
) -> None:
    """Any value in a limit's range is taken, unless it clashes with another limit (a
    byte allowance below the largest message): then the words name the one to raise and
    by how much, and raising it to that is taken."""
    name, value = limit
    try:
        limits = Limits.of({name: value})
    except LimitsError as exc:
        assert name in CROSS and exc.name in {"mb_at_once", "history_mb", "pictures_mb"}
        assert "give at least" in exc.problem
        enough = int(exc.problem.split("give at least ")[1].split(",")[0].split()[0])
        if exc.name == name:  # itself too small for the others: the least it may be
            assert value < enough and Limits.of({name: enough}).settings()[name] == enough
            return
        fixed = Limits.of({name: value, exc.name: enough})
        assert getattr(fixed, name) == value
        return
    assert getattr(limits, name) == value
    assert limits.settings()[name] == value


@st.composite
def out_of_range(draw: st.DrawFn) -> tuple[str, Any]:
    name = draw(st.sampled_from(NAMES))
    b = bounds()[name]
    bad = draw(
        st.one_of(
            st.floats(max_value=b.low, exclude_max=True, allow_nan=False),
            st.floats(min_value=b.high, exclude_min=True, allow_nan=False),
            st.integers(max_value=math.ceil(b.low) - 1),
            st.integers(min_value=math.floor(b.high) + 1),
            st.sampled_from([math.nan, math.inf, -math.inf, True, False, None, "2 MB", [1]]),
            *([st.floats(b.low, b.high).filter(lambda x: x != int(x))] if b.whole else []),
        )
    )
    return name, bad


@given(out_of_range())
def test_a_limit_out_of_its_range_is_refused_in_words(limit: tuple[str, Any]) -> None:
    name, value = limit
    b = bounds()[name]
    with pytest.raises(LimitsError) as refused:
        Limits.of({name: value})
    exc = refused.value
    assert exc.name == name and exc.value is value
    assert str(exc).startswith(f"limits.{name} ")
    assert f"from {number_words(b.low)} to {number_words(b.high)}" in exc.problem
    assert exc.problem.startswith("give ") and b.what in exc.problem


@st.composite
def any_limits(draw: st.DrawFn) -> Limits:
    given_ = {n: draw(in_range(n)) for n in draw(st.sets(st.sampled_from(NAMES)))}
    try:
        return Limits.of(given_)
    except LimitsError:
        assume(False)
        raise


@given(any_limits())
def test_the_broker_carries_the_largest_message_the_limits_let_a_table_send(
    limits: Limits,
) -> None:
    largest = max(limits.status_bytes, limits.picture_bytes, 4 * limits.camera_bytes / 3)
    assert largest <= limits.largest_message < limits.max_packet <= MQTT_LARGEST
    assert limits.max_packet % MB == 0
    assert limits.feed.byte_burst >= limits.largest_message  # each may be sent at all
    assert limits.history_bytes >= limits.status_bytes
    assert limits.pictures_bytes >= limits.picture_bytes


@given(any_limits())
def test_what_a_director_writes_is_what_is_kept(limits: Limits) -> None:
    """As ``--limit NAME=VALUE`` flags, and as fleet.json keeps them, the same limits."""
    flags = [f"{n}={v!r}" for n, v in limits.changed().items()]
    assert Limits.of(parse_limit_args(flags)) == limits
    assert Limits.of(json.loads(json.dumps(limits.changed()))) == limits


def test_a_flag_that_is_no_limit_or_no_number_is_said_as_written() -> None:
    for flag, said in [
        ("picture_kb", "give NAME=VALUE, e.g. --limit picture_kb=2048"),
        ("pictur_kb=2048", "there is no such limit; did you mean 'picture_kb'?"),
        ("picture_kb=2 MB", "give a number of KB an event's picture from 64 to 16,384"),
        ("picture_kb=63", "give KB an event's picture from 64 to 16,384"),
        ("messages_per_second=0", "give messages a second from 1 to 10,000"),
    ]:
        with pytest.raises(LimitsError) as refused:
            parse_limit_args([flag])
        assert refused.value.given == flag and said in refused.value.problem, refused.value
    assert parse_limit_args(["picture-kb=2_048", "mb_per_second=0.5", "history_mb=default"]) == {
        "picture_kb": 2048,
        "mb_per_second": 0.5,
        "history_mb": None,
    }


# --- the settings file: `director --config` ----------------------------------------------


def settings(path: Path, *flags: str) -> argparse.Namespace:
    return argparse.Namespace(config=str(path), limit=list(flags))


def test_the_settings_files_limits_are_read_and_a_flag_wins(tmp_path: Path) -> None:
    path = tmp_path / "director.toml"
    path.write_text("[limits]\npicture_kb = 2048\nhistory_mb = 8.5\n", encoding="utf-8")
    limits = load_settings(settings(path)).limits()
    assert (limits.picture_kb, limits.history_mb, limits.status_kb) == (2048, 8.5, 64)
    limits = load_settings(settings(path, "picture_kb=512", "history_mb=default")).limits()
    assert (limits.picture_kb, limits.history_mb) == (512, 4)


def test_a_bad_limit_stops_the_director_at_start_in_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "director.toml"
    cases = [
        (
            "[limits]\nmb_at_once = 1\n",
            [],
            "error: director.toml: [limits] mb_at_once = 1: a table could never send its "
            "largest message (2.7 MB: a camera view of camera_kb = 2048, in base64); give at "
            "least 3\n",
        ),
        ("", ["--limit", "messages_per_second=0"], "error: --limit messages_per_second=0: "
         "give messages a second from 1 to 10,000\n"),
        ("[limits]\nstatus_kb = \"64 KB\"\n", [], "error: director.toml: [limits] status_kb "
         "= '64 KB': give a number of KB a status from 4 to 4,096\n"),
        ("[limits]\nrate = 5\n", [], "[limits] has no key 'rate'; its keys are "
         "messages_per_second, messages_at_once"),
        ("[limits]\nhistory_mb = 1\nstatus_kb = 2048\n", ["--limit", "history_mb=1.5"],
         "error: --limit history_mb=1.5: the history could not hold one status of status_kb "
         "= 2048; give at least 2, or a smaller status_kb\n"),
    ]  # fmt: skip
    for text, flags, said in cases:
        path.write_text(text, encoding="utf-8")
        assert main(["director", "--config", "director.toml", *flags]) == 2
        assert said in capsys.readouterr().err
    assert not (tmp_path / "director.sqlite").exists()  # refused before anything was made


def test_the_example_shows_every_limit_at_its_default() -> None:
    from table_controller.director.settings_example import example_settings

    text = example_settings().split("\n[limits]", 1)[1]
    shown = dict(
        line[2:].split("#")[0].split(" = ")
        for line in text.splitlines()
        if line.startswith("# ") and " = " in line
    )
    assert {k.strip(): float(v) for k, v in shown.items()} == Limits().settings()


@pytest.mark.slow(budget=60)  # a broker and the director started and stopped
def test_the_settings_files_limits_are_what_the_director_enforces(tmp_path: Path) -> None:
    """`table-controller director --config director.toml` as a director runs it, with a
    broker that `feed broker-config --director-config director.toml` wrote: a status and
    a picture over the file's limits (and far under the defaults) are refused, with the
    alert naming the limit; those within them are stored."""
    toml = tmp_path / "director.toml"
    toml.write_text(
        '[event]\nname = "sec"\n[director]\ndatabase = "director.sqlite"\n'
        "[limits]\nstatus_kb = 8\npicture_kb = 64\ncamera_kb = 4096\n",
        encoding="utf-8",
    )
    folder = broker_files(tmp_path / "broker", "--director-config", str(toml))
    conf = (folder / "mosquitto.conf").read_text()
    assert f"max_packet_size {7 * MB}\n" in conf  # a 4 MB camera view in base64, and 1 MB
    broker = start_broker(folder)
    database = tmp_path / "director.sqlite"
    proc = subprocess.Popen(
        [sys.executable, "-m", "table_controller.cli", "director", "--config", str(toml),
         "--broker", "127.0.0.1", "--broker-port", str(broker.port), "--broker-user",
         "director", "--broker-password-file", str(folder / "secrets" / "director.password"),
         "--web-host", "127.0.0.1", "--web-port", str(free_port())],
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"},
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    said: list[str] = []
    reader = threading.Thread(target=lambda: said.extend(proc.stdout or []), daemon=True)
    reader.start()
    table = connect(broker.port, "table-1", password(folder, "table-1"))
    store: DirectorStore | None = None
    try:
        wait_until(
            "the director listens",
            lambda: any("Listening to" in x for x in said) or proc.poll() is not None,
            WAIT,
        )
        assert proc.poll() is None, "".join(said)
        # The bigger camera view needs a broker that takes it: said, with how.
        assert "must take, up to 7 MB (its max_packet_size)" in "".join(said)
        assert f"--director-config {toml}`" in "".join(said)
        status = {"v": 1, "table": "table-1", "online": True, "at": 1000.0, "faults": []}
        store = DirectorStore(database)
        opened = store
        polls = iter(range(10**9))

        def heard() -> bool:
            """A small status now and then until one is stored: "Listening" is said
            before the director has subscribed, and what comes before is not kept."""
            if next(polls) % 25 == 0:
                table.publish(TOPICS.status("table-1"), {**status, "n": "probe"})
            return bool(opened.tables.status_history("table-1"))

        wait_until("the director hears the table", heard, WAIT)
        table.publish(TOPICS.status("table-1"), {**status, "pad": "x" * 9000})  # over 8 KB
        table.publish(TOPICS.status("table-1"), {**status, "at": 1001.0, "n": 2})
        table.publish(f"{TOPICS.table('table-1')}/evidence/1/1", b"p" * 70_000)  # over 64 KB
        table.publish(f"{TOPICS.table('table-1')}/evidence/1/2", b"p" * 60_000)
        wait_until(
            "the picture within the limit is stored",
            lambda: opened.events.evidence("table-1", 1, 2) is not None,
            WAIT,
        )
        assert store.events.evidence("table-1", 1, 1) is None
        kept = [h["status"].get("n") for h in store.tables.status_history("table-1")]
        assert kept[-1] == 2 and set(kept[:-1]) == {"probe"}  # the one over 8 KB not kept
        (flood,) = [a for a in store.alerts.alerts() if a["kind"] == "flood"]
        assert "over the 8 KB a status may have (the director's limit status_kb)" in flood["text"]
    finally:
        if store is not None:
            store.close()
        table.close()
        proc.send_signal(signal.SIGINT)
        assert proc.wait(WAIT) == 0, "".join(said)
        reader.join(10)
        broker.kill()


def test_a_tables_rate_is_the_settings_files_on_a_real_broker(tmp_path: Path) -> None:
    """The rate a settings file gives, on the director's real service and a real broker,
    its clock held still: exactly ``messages_at_once`` of a table's messages are taken,
    the rest dropped with one alert naming the limits; another table has its own."""
    toml = tmp_path / "director.toml"
    toml.write_text(
        '[director]\ndatabase = "director.sqlite"\n'
        "[limits]\nmessages_per_second = 1\nmessages_at_once = 5\n",
        encoding="utf-8",
    )
    folder = broker_files(tmp_path / "broker", "--director-config", str(toml))
    assert f"max_packet_size {MAX_PACKET}\n" in (folder / "mosquitto.conf").read_text()
    broker = start_broker(folder)
    s = load_settings(settings(toml))
    store = DirectorStore(s.database(), limits=s.limits())
    svc = DirectorService(
        store,
        BrokerConfig(
            host="127.0.0.1",
            port=broker.port,
            username="director",
            password=password(folder, "director"),
        ),
        prefix=TOPICS.prefix,
        clock=lambda: 1000.0,  # still: no message's allowance comes back
    )
    assert svc.limits is store.limits and svc.limits.messages_at_once == 5
    svc.start()
    tables = [connect(broker.port, t, password(folder, t)) for t in ("table-1", "table-2")]
    try:
        wait_until("the director subscribed", svc.connected.is_set, WAIT)
        for n in range(12):
            body = {"v": 1, "table": "table-1", "online": True, "at": 1000.0, "n": n}
            tables[0].publish(TOPICS.status("table-1"), body)
        tables[1].publish(TOPICS.status("table-2"), {**body, "table": "table-2"})
        wait_until("the director took every message", lambda: svc.batched >= 13, WAIT)
        assert [h["status"]["n"] for h in store.tables.status_history("table-1")] == [0, 1, 2, 3, 4]
        assert len(store.tables.status_history("table-2")) == 1
        assert svc.refused == 7
        (flood,) = [a for a in store.alerts.alerts() if a["kind"] == "flood"]
        assert flood["table"] == "table-1"
        assert "more than the 1 messages or 2 MB a second a table may send" in flood["text"]
    finally:
        for t in tables:
            t.close()
        svc.stop()
        store.close()
        broker.kill()


# --- `director start --limit`: kept in the folder -----------------------------------------


def test_limits_given_to_director_start_are_kept_one_by_one(tmp_path: Path) -> None:
    folder = tmp_path / "cup"
    ev, made = open_folder(
        folder, event="Cup", rules=None, web_port=None, broker_port=None,
        limits=parse_limit_args(["picture_kb=2048", "status_kb=64"]),
    )  # fmt: skip
    assert made and ev.limits == {"picture_kb": 2048}  # a default is not kept as a change
    folder.mkdir()  # as the first run does
    ev.save()
    again, made = open_folder(folder, event=None, rules=None, web_port=None, broker_port=None)
    assert not made and again.limits_in_force() == Limits(picture_kb=2048)
    more, _ = open_folder(
        folder, event=None, rules=None, web_port=None, broker_port=None,
        limits=parse_limit_args(["camera_kb=4096"]),
    )  # fmt: skip
    assert more.limits_in_force() == Limits(picture_kb=2048, camera_kb=4096)
    back, _ = open_folder(
        folder, event=None, rules=None, web_port=None, broker_port=None,
        limits=parse_limit_args(["picture_kb=default"]),
    )  # fmt: skip
    kept = json.loads((folder / "fleet.json").read_text())["limits"]
    assert kept == {"camera_kb": 4096} and back.limits == kept
    with pytest.raises(FleetStartError) as refused:
        open_folder(
            folder, event=None, rules=None, web_port=None, broker_port=None,
            limits=parse_limit_args(["mb_at_once=2"]),
        )  # fmt: skip
    assert str(refused.value).startswith(
        "--limit mb_at_once=2: a table could never send its largest message (5.3 MB: a "
        "camera view of camera_kb = 4096, in base64); give at least 6"
    )
    assert json.loads((folder / "fleet.json").read_text())["limits"] == kept  # unchanged


def test_a_bad_limit_stops_director_start_in_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    start = ["director", "start", "--folder", str(tmp_path / "a")]
    assert main([*start, "--limit", "messages_per_second=0"]) == 2
    assert (
        "error: --limit messages_per_second=0: give messages a second from 1 to 10,000\n"
        in capsys.readouterr().err
    )
    assert main([*start, "--limit", "pictures=5"]) == 2
    assert "--limit pictures=5: there is no such limit" in capsys.readouterr().err
    assert not (tmp_path / "a").exists()
    # fleet.json changed by hand: said at start, before anything runs
    folder = tmp_path / "b"
    folder.mkdir()
    FleetFolder(folder, "Cup", "td-tournament", 8090, 1883, limits={"status_kb": 0}).save()
    assert main(["director", "start", "--folder", str(folder)]) == 2
    err = capsys.readouterr().err
    assert "fleet.json keeps the limit status_kb = 0: give KB a status from 4 to 4,096" in err
    assert "--limit status_kb=default" in err
    fixed, _ = open_folder(
        folder, event=None, rules=None, web_port=None, broker_port=None,
        limits=parse_limit_args(["status_kb=default"]),
    )  # fmt: skip
    assert fixed.limits == {} and fixed.limits_in_force() == Limits()


@pytest.mark.slow(budget=90)  # the event started twice
def test_director_start_keeps_its_limits_and_its_broker_follows_them(tmp_path: Path) -> None:
    """`director start --limit camera_kb=4096`: the broker takes the bigger camera view,
    the start says the limits, the fleet view shows them; the next start, given no
    limit, keeps them."""
    folder = tmp_path / "spring"
    web, broker = free_port(), free_port()
    ports = ["--web-port", str(web), "--broker-port", str(broker), "--http-port", "0"]
    conf = folder / "broker" / "mosquitto.conf"
    wanted = Limits(camera_kb=4096)
    first = Director(folder, "--event", "Spring Open", *ports, "--limit", "camera_kb=4096")
    password_ = first.wait_for(r"as director, password (\S+)")[1]
    first.wait_for(r"a camera view up to 4 MB\. .* `--limit NAME=VALUE` changes one\.")
    url = first.wait_for(r"The dashboard: (\S+)")[1]
    first.wait_for("Press Ctrl-C to stop")
    try:
        assert f"max_packet_size {7 * MB}\n" in conf.read_text()
        tls = trusting(folder)
        fleet = get_json(url + "api/fleet", log_in(url, "director", password_, tls), tls)
        assert fleet["limits_text"] == limits_words(wanted)
    finally:
        assert first.interrupt() == 0, "".join(first.said)
    conf.write_text("")  # written again by the next start, from the limits kept
    second = Director(folder)
    second.wait_for("a camera view up to 4 MB")
    second.wait_for("Press Ctrl-C to stop")
    try:
        assert f"max_packet_size {wanted.max_packet}\n" in conf.read_text()
        assert json.loads((folder / "fleet.json").read_text())["limits"] == {"camera_kb": 4096}
    finally:
        assert second.interrupt() == 0, "".join(second.said)
