"""Attacks on joining a fleet (issue: trust over the air), each against real processes
on a network of their own (tests/netns.py: the director, the attacker and the table
each in a network namespace, joined by a bridge, as machines on a venue's Wi-Fi).

What was possible before: a "director" announced over mDNS with an empty key was joined
by a table started with ``run`` within a second, nobody approving anything, and the same
through ``--director HOST`` with a hello saying ``"key": ""``; six addresses filled the
queue of requests to join so real tables got 503; a waiting request died 15 minutes
after it was made though its table kept polling; and a key showing a given table's
four-digit code was ground in seconds, the attacker's request then possibly the only one
showing that code. Each is refused now, in words.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import textwrap
import urllib.request
from pathlib import Path
from typing import Any

import netns
import pytest
from waiting import wait_until

from table_controller.feed.signing import new_keys
from table_controller.feed.tls import client_context
from table_controller.fleet.discovery import key_fingerprint

ROOT = Path(__file__).resolve().parents[2]
ROGUE = Path(__file__).with_name("rogue_director.py")
PAGE_PORT = 8080
GUARD = 120.0  # seconds: only a hang takes this long


def _env() -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": f"{ROOT}:{ROOT / 'tests'}",
        "PYTHONUNBUFFERED": "1",
    }


def table_toml(folder: Path, fingerprint: str | None = None) -> Path:
    """A fleet's table file, as a Pi's first boot writes it: nothing of the director
    (but, given, the director's key fingerprint to pin)."""
    folder.mkdir()
    path = folder / "table.toml"
    pin = "" if fingerprint is None else f'fingerprint = "{fingerprint}"\n'
    path.write_text(
        '[table]\ngpio = "mock"\n\n[camera]\nsource = "synthetic"\n\n[cube]\nport = "none"\n\n'
        f'[web]\nhost = "0.0.0.0"\nport = {PAGE_PORT}\n\n[fleet]\nfolder = "fleet"\n{pin}',
        encoding="utf-8",
    )
    return path


def line(proc: subprocess.Popen[str], what: str) -> Any:
    """The next JSON line ``proc`` prints; fails with its errors if it stops first."""
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], GUARD)
    text = proc.stdout.readline() if ready else ""
    if not text:
        proc.kill()
        _, err = proc.communicate(timeout=30)
        pytest.fail(f"{what}: nothing printed; its errors:\n{(err or '')[-3000:]}")
    return json.loads(text)


def piped(net: netns.Hosts, host: int, argv: list[str]) -> subprocess.Popen[str]:
    return net.popen(
        host,
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(),
    )


def run_table(net: netns.Hosts, host: int, config: Path, out: Path) -> subprocess.Popen[str]:
    """``table-controller run`` of a fleet's table in ``host``, its output in ``out``."""
    with out.open("w") as said:
        return net.popen(
            host,
            [sys.executable, "-m", "table_controller", "run", "--config", str(config),
             "--fast", "--seed", "1"],
            stdout=said, stderr=subprocess.STDOUT, env=_env(), cwd=config.parent,
        )  # fmt: skip


def join_cli(
    net: netns.Hosts, host: int, config: Path, *args: str
) -> subprocess.CompletedProcess[str]:
    """``table-controller join`` run to its end in ``host``."""
    argv = [sys.executable, "-m", "table_controller", "join", "--config", str(config), *args]
    return subprocess.run(
        net.argv(host, argv),
        capture_output=True,
        text=True,
        env=_env(),
        cwd=config.parent,
        timeout=GUARD,
    )


@pytest.mark.slow(budget=60)
def test_a_rogue_director_without_a_key_is_refused(tmp_path: Path) -> None:
    """Finding 1: a keyless announcement, a keyless hello, and (pinned) another key."""
    with netns.hosts(2) as net:
        rogue = piped(
            net, 1,
            [sys.executable, str(ROGUE), "--address", net.address(1), "--port", "8090",
             "--key", "empty"],
        )  # fmt: skip
        rogue_with_key = piped(
            net, 1,
            [sys.executable, str(ROGUE), "--address", net.address(1), "--port", "8091",
             "--key", "own", "--quiet"],
        )  # fmt: skip
        assert line(rogue, "the rogue")["ready"]
        assert line(rogue_with_key, "the rogue with a key")["ready"]

        # `run` of a table with [fleet]: it finds the rogue by mDNS and refuses it.
        config = table_toml(tmp_path / "table")
        out = tmp_path / "table.out"
        table = run_table(net, 2, config, out)
        refusal = "is refused: it gave no key"
        wait_until("the table refuses the rogue", lambda: refusal in out.read_text(), GUARD)
        page = f"https://{net.address(2)}:{PAGE_PORT}/"  # open to the network: HTTPS
        own_ca = client_context(config.parent / "fleet" / "page-tls" / "ca.crt")
        with urllib.request.urlopen(page, timeout=10, context=own_ca) as answer:
            html = answer.read().decode()
        assert refusal in html and "Still looking for the event" in html  # on its join page
        assert table.poll() is None  # still looking for the real director
        table.kill()
        table.wait(30)
        assert not (config.parent / "fleet" / "membership.json").exists()

        # `join --director HOST`: a hello with "key": "" is refused in words.
        done = join_cli(net, 2, config, "--director", f"http://{net.address(1)}:8090")
        assert done.returncode == 2, done.stdout + done.stderr
        assert f"the director at {net.address(1)}:8090 is refused: it gave no key" in done.stderr
        assert "Check the address with the director" in done.stderr

        # `join --director HOST --fingerprint ...`: a director with another key is refused.
        real = key_fingerprint(new_keys()[1])
        done = join_cli(
            net, 2, config, "--director", f"http://{net.address(1)}:8091", "--fingerprint", real
        )
        assert done.returncode == 2, done.stdout + done.stderr
        assert f"not {real} as pinned (--fingerprint, or [fleet] fingerprint): it is refused" in (
            done.stderr
        )
        assert not (config.parent / "fleet" / "membership.json").exists()

        # `run` with [fleet] fingerprint: a rogue announcing a key of its own is refused.
        announcing = piped(
            net, 1,
            [sys.executable, str(ROGUE), "--address", net.address(1), "--port", "8092",
             "--key", "own"],
        )  # fmt: skip
        assert line(announcing, "the rogue announcing its own key")["ready"]
        pinned = table_toml(tmp_path / "pinned", fingerprint=real)
        out = tmp_path / "pinned.out"
        table = run_table(net, 2, pinned, out)
        refusal = f"not {real} as pinned (--fingerprint, or [fleet] fingerprint): it is refused"
        wait_until(
            "the pinned table refuses the keyed rogue", lambda: refusal in out.read_text(), GUARD
        )
        assert table.poll() is None  # still looking for the real director
        table.kill()
        table.wait(30)
        assert not (pinned.parent / "fleet" / "membership.json").exists()

        for proc in (rogue, rogue_with_key, announcing):
            rest, _ = proc.communicate("", timeout=30)
            assert '"asked"' not in rest  # no table asked the rogue to join


DIRECTOR = """
    import json, pathlib, sys
    from test_director_web import post
    from test_fleet_join import Director
    from table_controller.director.fleet.core import JoinRequests

    class Clock:  # the director's time, moved by the test
        now = 1_000_000.0
        def __call__(self):
            return self.now

    clock = Clock()
    folder = pathlib.Path(sys.argv[1])
    folder.mkdir()
    d = Director(folder, JoinRequests(clock=clock), host="0.0.0.0")
    print(json.dumps({"port": d.port}), flush=True)
    for text in sys.stdin:
        order = json.loads(text)
        if order["do"] == "advance":
            clock.now += order["seconds"]
            print(json.dumps({"now": clock.now}), flush=True)
        elif order["do"] == "waiting":
            print(json.dumps({"now": clock.now, "waiting": d.fleet.requests.waiting()}),
                  flush=True)
        elif order["do"] == "approve":
            status, body = post(d.url + "api/fleet/approve", order["form"], d.cookie)
            print(json.dumps({"status": status, "body": body}), flush=True)
    d.close()
"""

ATTACKER = """
    import base64, hashlib, http.client, json, os, sys

    director, port, sources = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3])

    def ask(source, key):
        for v in (2, 1):  # this release's request, else the one before
            conn = http.client.HTTPConnection(director, port, timeout=10,
                                              source_address=(source, 0))
            body = {"v": v, "key": base64.b64encode(key).decode(), "host": "pi",
                    "version": "0.1.0"}
            conn.request("POST", "/api/fleet/join", json.dumps(body),
                         {"Content-Type": "application/json"})
            r = conn.getresponse()
            answer = json.loads(r.read() or b"{}")
            if r.status != 400:
                return r.status, answer
        return r.status, answer

    def old_code(key):  # the code as it was: 4 digits of the key's SHA-256 alone
        number = int.from_bytes(hashlib.sha256(key).digest()[:8], "big")
        digits = []
        for _ in range(4):
            number, digit = divmod(number, 9)
            digits.append(str(digit + 1))
        return "".join(digits)

    # Fill the queue: every address as often as the director takes it (10 a minute).
    took = {s: [ask(s, os.urandom(32))[0] for _ in range(10)] for s in sources[:-1]}
    print(json.dumps(took), flush=True)
    # Given the table's code: grind a key showing it, ask from the last address.
    code = json.loads(sys.stdin.readline())["code"]
    while True:
        key = os.urandom(32)
        if old_code(key) == code:
            break
    status, answer = ask(sources[-1], key)
    print(json.dumps({"status": status, "answer": answer}), flush=True)
    sys.stdin.read()
"""


def python(net: netns.Hosts, host: int, code: str, *args: str) -> subprocess.Popen[str]:
    return piped(net, host, [sys.executable, "-c", textwrap.dedent(code), *args])


def tell(proc: subprocess.Popen[str], order: dict[str, Any]) -> Any:
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(order) + "\n")
    proc.stdin.flush()
    return line(proc, f"the answer to {order}")


@pytest.mark.slow(budget=60)
def test_the_join_queue_cannot_be_filled_outlived_or_won(tmp_path: Path) -> None:
    """Finding 5: six addresses fill what they can; the real table still gets in, its
    request lives while it polls, and a ground key's request cannot be approved with the
    table's code."""
    with netns.hosts(3) as net:
        ns = net.namespace(2)
        sources = [f"{netns.SUBNET}.{net.subnet}.{100 + i}" for i in range(7)]
        for address in sources:
            subprocess.run(
                ["ip", "-n", ns, "addr", "add", f"{address}/24", "dev", "eth0"], check=True
            )
        director = python(net, 1, DIRECTOR, str(tmp_path / "director"))
        port = line(director, "the director")["port"]
        attacker = python(net, 2, ATTACKER, net.address(1), str(port), json.dumps(sources))
        took = line(attacker, "the attacker's requests")
        for source in sources[:-1]:  # a fair share each, no more
            assert took[source].count(202) == 5 and took[source].count(429) == 5, took
        assert len(tell(director, {"do": "waiting"})["waiting"]) == 30

        # The real table asks and gets in (before: 503), showing its code.
        config = table_toml(tmp_path / "table")
        table = net.popen(
            3,
            [sys.executable, "-m", "table_controller", "join", "--config", str(config),
             "--director", f"http://{net.address(1)}:{port}"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=_env(),
            cwd=config.parent,
        )  # fmt: skip
        said: list[str] = []

        def table_said(words: str) -> bool:
            assert table.stdout is not None
            while words not in "".join(said):
                ready, _, _ = select.select([table.stdout], [], [], 0.2)
                if not ready:
                    return False
                text = table.stdout.readline()
                if not text:
                    return False
                said.append(text)
            return True

        wait_until("the table shows its code", lambda: table_said("Join code "), GUARD)
        code = "".join(said).split("Join code ", 1)[1][:4]
        rows = tell(director, {"do": "waiting"})["waiting"]
        [mine] = [r for r in rows if r["address"] == net.address(3)]
        assert mine["code"] == code and mine["asked_at"] == 1_000_000.0  # first seen
        assert mine["check"] in "".join(said)  # the check the Fleet page shows, said too

        # A key ground to show the table's code: its request shows another code (or
        # both are flagged); approving it with the table's code is refused.
        ground = tell(attacker, {"code": code})
        assert ground["status"] == 202, ground
        status = tell(
            director,
            {"do": "approve",
             "form": {"request": ground["answer"]["request"], "code": code, "name": "Table 1"}},
        )  # fmt: skip
        assert status["status"] == 409, status
        assert any(
            words in status["body"]["problem"]
            for words in ("does not match the code", "show the same code")
        )

        # Sixteen minutes on the director's clock, the table polling: it stays; the
        # requests nobody polls are forgotten.
        for _ in range(2):
            now = tell(director, {"do": "advance", "seconds": 8 * 60})["now"]

            def polled(now: float = now) -> bool:
                rows = tell(director, {"do": "waiting"})["waiting"]
                return any(r["request"] == mine["request"] and r["last_seen"] == now for r in rows)

            wait_until("the table polls", polled, GUARD)
        rows = tell(director, {"do": "waiting"})["waiting"]
        assert [r["request"] for r in rows] == [mine["request"]]

        form = {"request": mine["request"], "code": code, "name": "Table 1"}
        assert tell(director, {"do": "approve", "form": form})["status"] == 200
        assert table.wait(GUARD) == 0
        assert table_said("This table is Table 1 of Spring Open")
        attacker.communicate("", timeout=30)
        director.communicate("", timeout=30)
