"""Finding the director (fleet/discovery.py) over real multicast DNS: on this host's
loopback, and between two real network namespaces joined by a bridge (as a director's
laptop and a table on one switch), where the director announces its own addresses and
the table browses on its own, with nothing given to it."""

from __future__ import annotations

import json
import os
import re
import select
import shutil
import stat
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from table_controller.feed.signing import new_keys
from table_controller.fleet import discovery
from table_controller.fleet.discovery import (
    Found,
    announce,
    find_directors,
    key_der,
    key_fingerprint,
    key_text,
    normal_fingerprint,
)

ROOT = Path(__file__).resolve().parents[1]
PREFIX = "tcj"  # this test's namespaces: tcj{pid}{h,a,b}


KEY = key_text(new_keys()[1])  # a director's public key as announced


def test_a_key_fingerprint_is_five_groups_of_four_digits() -> None:
    _, public = new_keys()
    fp = key_fingerprint(public)
    assert re.fullmatch(r"\d{4}( \d{4}){4}", fp)  # 10**20 values: about 66 bits
    assert key_fingerprint(key_der(key_text(public))) == fp  # of the PEM or of the DER
    assert key_fingerprint(new_keys()[1]) != fp
    assert normal_fingerprint(fp.replace(" ", "-")) == fp
    assert normal_fingerprint(fp.replace(" ", "")) == fp
    for bad in ("AB12-CD34", fp[:-1], fp + "1"):
        with pytest.raises(discovery.DiscoveryError, match="not a director's key fingerprint"):
            normal_fingerprint(bad)


def test_a_director_without_a_key_is_refused_in_words() -> None:
    for key, words in [("", "gave no key"), ("bm90IGEga2V5", "not a public key")]:
        found = Found("Spring Open", "10.0.0.2", 8090, 1883, key, "0.1.0")
        assert found.key_problem is not None and words in found.key_problem
        assert found.key_fingerprint == "" and "(no key)" in found.words()
        with (
            pytest.raises(discovery.DiscoveryError, match=words),
            announce(event="x", web_port=1, broker_port=2, key=key, addresses=["127.0.0.1"]),
        ):
            pass
    assert Found("Spring Open", "10.0.0.2", 8090, 1883, KEY, "0.1.0").key_problem is None


def test_announced_and_found_on_loopback() -> None:
    with announce(
        event="Spring Open",
        web_port=8090,
        broker_port=1883,
        key=KEY,
        addresses=["127.0.0.1"],
    ):
        found = ours(find_directors(2.0, interfaces=["127.0.0.1"]))
    if not found:
        pytest.skip("multicast does not reach this host's loopback (the netns test covers it)")
    assert found == [Found("Spring Open", "127.0.0.1", 8090, 1883, KEY, "0.1.0")]


def ours(found: list[Found]) -> list[Found]:
    """The directors this test announced (its key): the machine's loopback is shared with
    every other director running here, the suite's other worker's among them."""
    return [f for f in found if f.key == KEY]


def test_nothing_announced_finds_nothing(two_hosts: dict[str, str]) -> None:
    """On a network of its own (a fresh namespace: the machine's loopback has the other
    tests' directors on it), where no director announces, none is found."""
    look = _python(
        two_hosts["a"],
        "from table_controller.fleet.discovery import find_directors\n"
        "print(len(find_directors(1.0, interfaces=['10.213.77.1'])))\n",
    )
    out, err = look.communicate(timeout=120)
    assert look.returncode == 0, err
    assert out.strip() == "0"


def test_a_long_event_name_is_announced_cut_to_a_label() -> None:
    name = "The Very Long Annual Euchre Championship of the County. " * 3
    with announce(
        event=name,
        web_port=8090,
        broker_port=1883,
        key=KEY,
        addresses=["127.0.0.1"],
    ) as info:
        assert len(info.name.removesuffix("." + discovery.SERVICE).encode()) <= 63
        found = ours(find_directors(2.0, interfaces=["127.0.0.1"]))
    if found:
        assert found[0].event == name  # the TXT record keeps the whole name


# --- two network namespaces ------------------------------------------------------------


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True)


def _stale() -> None:
    """Namespaces of this test left by a run that died (its pid gone)."""
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    for line in out.splitlines():
        name = line.split()[0] if line.strip() else ""
        pid = name[len(PREFIX) : -1]
        if name.startswith(PREFIX) and pid.isdigit() and not Path(f"/proc/{pid}").exists():
            subprocess.run(["ip", "netns", "del", name], capture_output=True)


@pytest.fixture
def two_hosts() -> Iterator[dict[str, str]]:
    """Two namespaces ``a`` (10.213.77.1) and ``b`` (10.213.77.2) on one bridge."""
    if os.geteuid() != 0:
        pytest.skip("network namespaces need root (ip netns add)")
    if shutil.which("ip") is None:
        pytest.skip("the ip command (iproute2) is not installed")
    _stale()
    pid = os.getpid()
    names = {k: f"{PREFIX}{pid}{k}" for k in "hab"}
    try:
        for ns in names.values():
            _ip("netns", "add", ns)
            _ip("-n", ns, "link", "set", "lo", "up")
        hub = names["h"]
        _ip("-n", hub, "link", "add", "br0", "type", "bridge")
        _ip("-n", hub, "link", "set", "br0", "up")
        for k, host in (("a", 1), ("b", 2)):
            ns = names[k]
            _ip("link", "add", "eth0", "netns", ns, "type", "veth", "peer", "name", f"port{k}",
                "netns", hub)  # fmt: skip
            _ip("-n", hub, "link", "set", f"port{k}", "master", "br0", "up")
            _ip("-n", ns, "addr", "add", f"10.213.77.{host}/24", "dev", "eth0")
            _ip("-n", ns, "link", "set", "eth0", "up", "multicast", "on")
        yield names
    finally:
        for ns in names.values():
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)


def _python(ns: str, code: str, args: tuple[str, ...] | list[str] = ()) -> subprocess.Popen[str]:
    """``code`` run by this Python in namespace ``ns`` (the tests' helpers importable)."""
    env = {**os.environ, "PYTHONPATH": f"{ROOT}:{ROOT / 'tests'}"}
    return subprocess.Popen(
        ["ip", "netns", "exec", ns, sys.executable, "-c", textwrap.dedent(code), *args],
        env=env,
        text=True,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


@pytest.mark.slow(budget=40)
def test_a_table_finds_the_director_on_another_host(two_hosts: dict[str, str]) -> None:
    director = _python(
        two_hosts["a"],
        """
        import sys
        from table_controller.fleet.discovery import announce, local_addresses
        with announce(event="Spring Open", web_port=8090, broker_port=1883,
                      key=sys.argv[1]):
            print(local_addresses(), flush=True)
            sys.stdin.read()  # until the test closes it
        """,
        args=[KEY],
    )
    try:
        assert director.stdout is not None
        assert director.stdout.readline().strip() == "['10.213.77.1']", director.stderr
        table = _python(
            two_hosts["b"],
            """
            import dataclasses, json
            from table_controller.fleet.discovery import find_directors
            print(json.dumps([dataclasses.asdict(f) for f in find_directors(4.0)]))
            """,
        )
        out, err = table.communicate(timeout=60)
        assert table.returncode == 0, err
        assert json.loads(out) == [
            {
                "event": "Spring Open",
                "host": "10.213.77.1",
                "port": 8090,
                "broker_port": 1883,
                "key": KEY,
                "version": "0.1.0",
                "tls": True,
            }
        ]
    finally:
        director.communicate("", timeout=30)
    assert director.returncode == 0, director.stderr


DIRECTOR = """
    import json, sys, time, pathlib
    from test_fleet_join import Director
    from test_director_web import post
    from table_controller.fleet.discovery import announce, key_text

    pathlib.Path(sys.argv[1]).mkdir()
    d = Director(pathlib.Path(sys.argv[1]), host="0.0.0.0")  # every address, not loopback
    # This dashboard is plain HTTP (director start's TLS is tested with director start).
    with announce(event="Spring Open", web_port=d.port, broker_port=1883,
                  key=key_text(d.public), tls=False):
        while not d.fleet.requests.waiting():
            time.sleep(0.05)
        [asked] = d.fleet.requests.waiting()
        print(json.dumps(asked), flush=True)
        code = sys.stdin.readline().strip()  # the code the table shows, read by the test
        status, body = post(d.url + "api/fleet/approve",
                            {"request": asked["request"], "code": code, "name": "Table 4"},
                            d.cookie)
        print(json.dumps({"status": status, "body": body, "port": d.port}), flush=True)
        sys.stdin.read()
    d.close()
"""

TABLE = """
    import dataclasses, json, pathlib, sys
    from table_controller.table.fleet.join import join
    m = join(pathlib.Path(sys.argv[1]),
             on_code=lambda shown, found: print(json.dumps({"code": shown.code,
                                                            "host": found.host}), flush=True),
             on_words=lambda words: None)
    print(json.dumps(dataclasses.asdict(m)), flush=True)
"""


def _line(proc: subprocess.Popen[str], what: str) -> Any:
    """The next JSON line ``proc`` prints; fails with its errors if it stops first."""
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], 60)
    line = proc.stdout.readline() if ready else ""
    if not line:
        proc.kill()
        _, err = proc.communicate(timeout=30)
        pytest.fail(f"{what}: nothing printed; its errors:\n{err[-3000:]}")
    return json.loads(line)


@pytest.mark.slow(budget=60)
def test_a_table_joins_a_director_it_found_on_another_host(
    two_hosts: dict[str, str], tmp_path: Path
) -> None:
    """Nothing given to the table: it finds the director, shows its code, the director
    approves it, and the table keeps what it was given."""
    director = _python(two_hosts["a"], DIRECTOR, args=[str(tmp_path / "director")])
    table = _python(two_hosts["b"], TABLE, args=[str(tmp_path / "fleet")])
    try:
        assert director.stdin is not None
        shown = _line(table, "the table's code")
        assert shown["host"] == "10.213.77.1"
        asked = _line(director, "the request the director sees")
        assert asked["address"] == "10.213.77.2" and asked["code"] == shown["code"]
        director.stdin.write(shown["code"] + "\n")
        director.stdin.flush()
        approved = _line(director, "the approval")
        assert approved["status"] == 200
        assert approved["body"] == {"table": "table-4", "name": "Table 4"}
        m = _line(table, "the table's membership")
        assert (m["table"], m["name"], m["username"]) == ("table-4", "Table 4", "table-4")
        assert m["password"] == "password-table-4-1"
        assert (m["director_host"], m["director_port"]) == ("10.213.77.1", approved["port"])
        for p in (tmp_path / "fleet").iterdir():
            assert stat.S_IMODE(p.stat().st_mode) == 0o600, p
        assert table.wait(30) == 0
    finally:
        for proc in (table, director):
            if proc.poll() is None:
                proc.communicate("", timeout=30)
